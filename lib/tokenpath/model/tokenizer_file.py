"""``tokenizer.json``: the engine's byte-level BPE written in Hugging Face's format
(:func:`tokenizer_json`, :func:`write_tokenizer`), and any byte-level BPE file read,
bounded and checked field by field (:func:`read_tokenizer`; the pre-tokenizer,
post-processor and ``tokenizer_config.json`` readers are in :mod:`.tokenizer_parts`)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from .. import bpe
from ..safefiles import ModelFileError, as_path, read_json, short_repr
from .config import TOKENIZER_CONFIG_NAME, TOKENIZER_NAME, _writable_directory
from .tokenizer_parts import (MAX_ID, PREFIX_SPACE, _byte_level, _known, _pre_tokenizer, _read_template, _read_tokenizer_config,
                              _want)

__all__ = [
    "read_tokenizer",
    "tokenizer_json",
    "write_tokenizer",
]


def _token_text(data: bytes) -> str:
    chars = bpe.bytes_to_unicode()
    return "".join(chars[b] for b in data)


def _template_json(tokenizer: bpe.Tokenizer) -> dict | None:
    """The tokenizer's template as Hugging Face's ``TemplateProcessing`` (type ID 0 for
    the single sequence; the pair form repeats it around ``$B`` with type ID 1, as
    ``transformers`` writes Llama's)."""
    if tokenizer.template is None:
        return None

    def piece(p: str, seq: str, type_id: int) -> dict:
        if p == bpe.TEMPLATE_TEXT:
            return {"Sequence": {"id": seq, "type_id": type_id}}
        return {"SpecialToken": {"id": p, "type_id": type_id}}

    used = [p for p in dict.fromkeys(tokenizer.template) if p != bpe.TEMPLATE_TEXT]
    return {
        "type": "TemplateProcessing",
        "single": [piece(p, "A", 0) for p in tokenizer.template],
        "pair": [piece(p, "A", 0) for p in tokenizer.template] + [piece(p, "B", 1) for p in tokenizer.template],
        "special_tokens": {p: {"id": p, "ids": [tokenizer.special_tokens[p]], "tokens": [p]} for p in used},
    }


def tokenizer_json(tokenizer: bpe.Tokenizer) -> dict:
    """The engine's byte-level BPE as a Hugging Face ``tokenizer.json`` dict: GPT-2
    pre-tokenisation (``ByteLevel``), the engine's IDs (bytes 0–255, then one per
    merge in rank order), the merges in rank order, special tokens as added tokens,
    and the tokenizer's template, if any, as a ``TemplateProcessing`` post-processor.

    >>> d = tokenizer_json(bpe.Tokenizer([(b" ", b"a")]).with_special_tokens(["<|end|>"]))
    >>> d["model"]["merges"], d["model"]["vocab"]["Ġa"], d["added_tokens"][0]["id"], d["post_processor"]
    ([['Ġ', 'a']], 256, 257, None)
    >>> d = tokenizer_json(bpe.Tokenizer([], ["<s>"], template=("<s>", "$A")))
    >>> d["post_processor"]["single"], d["post_processor"]["special_tokens"]["<s>"]["ids"]
    ([{'SpecialToken': {'id': '<s>', 'type_id': 0}}, {'Sequence': {'id': 'A', 'type_id': 0}}], [256])
    """
    if not isinstance(tokenizer, bpe.Tokenizer):
        raise TypeError(f"tokenizer must be a tokenpath.bpe.Tokenizer, got {type(tokenizer).__name__}")
    if tokenizer.pattern != bpe.GPT2_PATTERN:
        raise ValueError("tokenizer must use the GPT-2 pattern: Hugging Face's ByteLevel pre-tokenizer has no other")
    vocab = {_token_text(data): i for i, data in sorted(tokenizer.vocab.items())}
    byte_level = {"type": "ByteLevel", "add_prefix_space": tokenizer.add_prefix_space, "trim_offsets": True,
                  "use_regex": True}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
            for s, i in tokenizer.special_tokens.items()
        ],
        "normalizer": None,
        "pre_tokenizer": byte_level,
        "post_processor": _template_json(tokenizer),
        "decoder": dict(byte_level),
        "model": {
            "type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
            "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
            "ignore_merges": tokenizer.ignore_merges,
            "vocab": vocab,
            "merges": [[_token_text(a), _token_text(b)] for a, b in tokenizer.merges],
        },
    }


def write_tokenizer(directory, tokenizer: bpe.Tokenizer, *, eos_token: str | None = None) -> Path:
    """Write ``tokenizer.json`` (and a small ``tokenizer_config.json`` so
    ``transformers.AutoTokenizer`` takes it as it is) into ``directory``.

    >>> import tempfile
    >>> tok = bpe.Tokenizer([(b"h", b"i")], ["<s>"], template=("<s>", "$A"))
    >>> back = read_tokenizer(write_tokenizer(tempfile.mkdtemp(), tok))
    >>> back.template, back.encode("hi"), back.merges == tok.merges
    (('<s>', '$A'), [257, 256], True)
    """
    if not isinstance(tokenizer, bpe.Tokenizer):
        raise TypeError(f"tokenizer must be a tokenpath.bpe.Tokenizer, got {type(tokenizer).__name__}")
    if eos_token is not None and (not isinstance(eos_token, str) or eos_token not in tokenizer.special_tokens):
        raise ValueError(f"eos_token {eos_token!r} is not a special token of this tokenizer "
                         f"(registered: {list(tokenizer.special_tokens)})")
    data = json.dumps(tokenizer_json(tokenizer), ensure_ascii=False, indent=1) + "\n"
    directory = _writable_directory(directory)
    path = directory / TOKENIZER_NAME
    path.write_text(data, encoding="utf-8")
    cfg = {"tokenizer_class": "PreTrainedTokenizerFast", "add_bos_token": False, "add_eos_token": False,
           "clean_up_tokenization_spaces": False, "model_max_length": 1 << 20}
    if eos_token is not None:
        cfg["eos_token"] = eos_token
    (directory / TOKENIZER_CONFIG_NAME).write_text(json.dumps(cfg, indent=1) + "\n", encoding="utf-8")
    return path


#: The largest ``tokenizer.json`` :func:`read_tokenizer` reads (real byte-level BPE
#: files are a few MiB: GPT-2's 1.4 MiB, Llama 3's 8.7 MiB).
TOKENIZER_MAX_BYTES = 32 << 20
#: … and the most JSON arrays and objects it may hold (Llama 3's file has about 280,000).
TOKENIZER_MAX_CONTAINERS = 2_000_000


#: The fields of ``tokenizer.json`` the reader knows, and those of its ``model``.
_TOKENIZER_FIELDS = ("version", "truncation", "padding", "added_tokens", "normalizer", "pre_tokenizer",
                     "post_processor", "decoder", "model")
_BPE_FIELDS = ("type", "dropout", "unk_token", "continuing_subword_prefix", "end_of_word_suffix", "fuse_unk",
               "byte_fallback", "ignore_merges", "vocab", "merges")
_ADDED_TOKEN_FIELDS = ("id", "content", "single_word", "lstrip", "rstrip", "normalized", "special")

def read_tokenizer(path) -> bpe.Tokenizer:
    """Read a byte-level BPE ``tokenizer.json`` (the engine's own or a real model's)
    into the engine's tokenizer.

    IDs are the file's, any numbering (``model.vocab`` and ``added_tokens``; the
    tokenizer's ``n_vocab`` is the largest + 1). Read: the normalizer null or ``NFC``; the
    pre-tokenizers ``ByteLevel`` (with or without its GPT-2 regex; ``add_prefix_space``
    on the first pre-tokenizer), ``Split`` with a regex or a string (``Isolated``: the text between matches is a
    piece too), ``Digits`` and a ``Sequence`` of them; the ``ByteLevel`` decoder; the
    post-processor null, ``ByteLevel`` (it moves only offsets) or ``TemplateProcessing``,
    ``model.ignore_merges`` (a word that is a token as a whole is that token),
    whose single-sequence form becomes the :attr:`~tokenpath.bpe.Tokenizer.template`.
    Added tokens, special or not, become the tokenizer's special tokens: Hugging Face cuts
    the spelling of *every* added token out of the text before the model runs (the engine
    does so with ``allowed_special="all"``), and differs between the two only when
    decoding with ``skip_special_tokens``, which drops the special ones. Hugging Face does
    not read an added token's ``id``: it uses the token's ID in ``model.vocab``, or else
    the next ID after the vocabulary's entries, so a file whose ``id`` says otherwise is
    refused. The ``chat_template`` (or ``chat_template.jinja``) and the ``bos_token``,
    ``eos_token``, ``pad_token``, ``unk_token`` of a ``tokenizer_config.json`` beside the
    file become :attr:`~tokenpath.bpe.Tokenizer.chat_template` and
    :attr:`~tokenpath.bpe.Tokenizer.roles`.

    Every other setting that would change the IDs (``model.dropout``,
    ``continuing_subword_prefix``, ``end_of_word_suffix``, ``byte_fallback``,
    ``add_prefix_space`` after another pre-tokenizer, other normalisers,
    pre-tokenizers, decoders or post-processors, unknown fields) is refused by name
    rather than encoded differently; so is a malformed or oversized file. Every error is
    a :class:`ModelFileError` naming the file and the field.

    >>> import json, tempfile
    >>> d = tokenizer_json(bpe.Tokenizer([]))
    >>> d["model"]["dropout"] = 0.1
    >>> path = Path(tempfile.mkdtemp()) / "tokenizer.json"
    >>> _ = path.write_text(json.dumps(d))
    >>> read_tokenizer(path)
    Traceback (most recent call last):
    ...
    tokenpath.safefiles.ModelFileError: .../tokenizer.json: model.dropout is 0.1; this engine applies no BPE dropout (it must be null or 0)
    """
    path = as_path("path", path)
    d = read_json(path, max_bytes=TOKENIZER_MAX_BYTES, what="tokenizer.json", max_containers=TOKENIZER_MAX_CONTAINERS)
    if not isinstance(d, dict):
        raise ModelFileError(f"{path}: holds a JSON {type(d).__name__}, not an object")

    def fail(field: str, msg: str):
        raise ModelFileError(f"{path}: {field} {msg}")

    want = functools.partial(_want, fail)
    known = functools.partial(_known, fail)
    byte_level = functools.partial(_byte_level, fail)

    known("", d, _TOKENIZER_FIELDS)
    for field in ("truncation", "padding"):
        if d.get(field) is not None:
            fail(field, f"is {short_repr(d[field])}; this engine neither truncates nor pads (it must be null)")
    m = d.get("model")
    if not isinstance(m, dict):
        fail("model", f"is {short_repr(m)}; expected a BPE model object")
    if m.get("type", "BPE") != "BPE":
        fail("model.type", f"is {short_repr(m.get('type'))}; this engine reads byte-level 'BPE' only")
    known("model", m, _BPE_FIELDS)

    normalizer = d.get("normalizer")
    if normalizer is not None and normalizer != {"type": "NFC"}:
        fail("normalizer", f"is {short_repr(normalizer)}; this engine applies none or NFC (it must be null or "
             "{'type': 'NFC'})")
    stages = _pre_tokenizer(fail, d.get("pre_tokenizer"))
    if not byte_level("decoder", d.get("decoder")):
        fail("decoder", f"is {short_repr(d.get('decoder'))}; expected ByteLevel (the engine decodes the tokens' bytes "
             "as UTF-8)")

    dropout = m.get("dropout")
    if dropout is not None and (isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or dropout != 0):
        fail("model.dropout", f"is {short_repr(dropout)}; this engine applies no BPE dropout (it must be null or 0)")
    for field in ("continuing_subword_prefix", "end_of_word_suffix"):
        if m.get(field) not in (None, ""):
            fail(f"model.{field}", f"is {short_repr(m[field])}; this engine's byte-level BPE marks no subwords "
                 "(it must be null)")
    if m.get("byte_fallback", False) is not False:
        fail("model.byte_fallback", f"is {short_repr(m['byte_fallback'])}; this engine has no <0x..> byte tokens "
             "(it must be false)")
    for field in ("unk_token",):
        if m.get(field) is not None:
            want(f"model.{field}", m[field], str, "a string or null")
    if "fuse_unk" in m:
        want("model.fuse_unk", m["fuse_unk"], bool, "true or false")
    ignore_merges = want("model.ignore_merges", m.get("ignore_merges", False), bool, "true or false")

    byte_of = {c: b for b, c in bpe.bytes_to_unicode().items()}

    def to_bytes(field: str, text) -> bytes:
        if not isinstance(text, str) or not text:
            fail(field, f"is {short_repr(text)}; expected a non-empty token string")
        out = bytearray()
        for ch in text:
            b = byte_of.get(ch)
            if b is None:
                fail(field, f"token {short_repr(text)} holds {ch!r}, which is not a ByteLevel character")
            out.append(b)
        return bytes(out)

    raw_merges = want("model.merges", m.get("merges", []), list, "a list of merges")
    merges, seen = [], {}
    for k, pair in enumerate(raw_merges):
        if k and isinstance(pair, str) != isinstance(raw_merges[0], str):
            fail(f"model.merges[{k}]", f"is {short_repr(pair)}, but model.merges[0] is {short_repr(raw_merges[0])}; "
                 "a file writes every merge as \"a b\" or every merge as [\"a\", \"b\"]")
        parts = pair.split(" ") if isinstance(pair, str) else pair
        if not isinstance(parts, list) or len(parts) != 2:
            fail(f"model.merges[{k}]", f"is {short_repr(pair)}; expected two tokens, as \"a b\" or [\"a\", \"b\"]")
        merge = (to_bytes(f"model.merges[{k}][0]", parts[0]), to_bytes(f"model.merges[{k}][1]", parts[1]))
        if merge in seen:
            fail(f"model.merges[{k}]", f"repeats model.merges[{seen[merge]}]; each merge has one rank")
        seen[merge] = k
        merges.append(merge)

    raw_added = d.get("added_tokens", [])
    want("added_tokens", raw_added, list, "a list of token objects")
    specials: dict[str, int] = {}
    id_of_added: dict[int, int] = {}  # ID → its index in added_tokens
    for k, t in enumerate(raw_added):
        field = f"added_tokens[{k}]"
        want(field, t, dict, "an object with 'id' and 'content'")
        known(field, t, _ADDED_TOKEN_FIELDS)
        for key in ("id", "content"):
            if key not in t:
                fail(field, f"has no {key!r}")
        want(f"{field}.id", t["id"], int, "an integer ID")
        if not 0 <= t["id"] < MAX_ID:
            fail(f"{field}.id", f"is {t['id']}; IDs are from 0 to {MAX_ID - 1}")
        want(f"{field}.content", t["content"], str, "the token's text")
        for key, default in (("single_word", False), ("lstrip", False), ("rstrip", False)):
            if want(f"{field}.{key}", t.get(key, default), bool, "true or false") is not default:
                fail(f"{field}.{key}", f"is {short_repr(t[key])}; the engine matches an added token's exact "
                     "spelling only (it must be false)")
        if want(f"{field}.normalized", t.get("normalized", False), bool, "true or false") and normalizer:
            fail(f"{field}.normalized", "is true with a normalizer; the engine matches added tokens in the text "
                 "as given (it must be false)")
        want(f"{field}.special", t.get("special", False), bool, "true or false")
        if t["content"] in specials:
            fail("added_tokens", f"lists {short_repr(t['content'])} more than once")
        if t["id"] in id_of_added:
            fail(f"{field}.id", f"is {t['id']}, the ID of added_tokens[{id_of_added[t['id']]}] too")
        id_of_added[t["id"]] = k
        specials[t["content"]] = t["id"]

    raw_vocab = want("model.vocab", m.get("vocab", {}), dict, "an object of token -> ID")
    added_ids = set(specials.values())
    table: dict[bytes, int] = {}
    for text, i in raw_vocab.items():
        want(f"model.vocab[{short_repr(text)}]", i, int, "an integer ID")
        if not 0 <= i < MAX_ID:
            fail(f"model.vocab[{short_repr(text)}]", f"is {i}; IDs are from 0 to {MAX_ID - 1}")
        if i in added_ids:
            continue  # an added token's ID: its spelling is the token (Hugging Face lists it in both)
        data = to_bytes("model.vocab", text)
        if data in table:
            fail("model.vocab", f"gives {_token_text(data)!r} two IDs")
        table[data] = i
    for k, (a, b) in enumerate(merges):  # any order: Hugging Face joins whichever ranked pair is present
        for part, verb in ((a, "uses"), (b, "uses"), (a + b, "makes")):
            if part not in table:
                fail("model.vocab", f"has no ID for {_token_text(part)!r}, which model.merges[{k}] {verb}")
    # Hugging Face does not read an added token's "id": it gives the token its ID in
    # model.vocab, or else the next ID after the vocabulary's size (the count of its entries)
    next_id = len(raw_vocab)
    for k, t in enumerate(raw_added):
        hf_id = raw_vocab.get(t["content"])
        if hf_id is None:
            hf_id, next_id = next_id, next_id + 1
        if hf_id != t["id"]:
            fail(f"added_tokens[{k}].id", f"of {short_repr(t['content'])} is {t['id']}, but Hugging Face gives it "
                 f"{hf_id} (its ID in model.vocab, or else the next after the vocabulary's {len(raw_vocab)} "
                 "entries) and ignores the file's; refused rather than numbered differently")
    try:
        prefix = stages[:1] == (PREFIX_SPACE,)
        stages = stages[1:] if prefix else stages
        pattern = bpe.GPT2_PATTERN if stages == (bpe.GPT2_PATTERN,) else stages or r"[\s\S]+"  # () splits nothing
        tok = bpe.Tokenizer(merges, specials, vocab=table, pattern=pattern, normalize="NFC" if normalizer else None,
                            ignore_merges=ignore_merges, add_prefix_space=prefix)  # a word that is a token is that token (Llama 3's files)
    except (TypeError, ValueError) as err:
        fail("model.vocab" if "vocab" in str(err) else "added_tokens", f"is refused: {err}")
    template = _read_template(d.get("post_processor"), tok, fail)
    tok = tok if template is None else tok.with_template(template)
    chat, roles = _read_tokenizer_config(path.parent, tok)
    return tok if chat is None and not roles else tok._replace(chat_template=chat, roles=roles)
