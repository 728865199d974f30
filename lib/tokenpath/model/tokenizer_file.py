"""``tokenizer.json``: the engine's byte-level BPE written in Hugging Face's format
(:func:`tokenizer_json`, :func:`write_tokenizer`) and read back, bounded and checked
field by field (:func:`read_tokenizer`)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from .. import bpe
from ..safefiles import ModelFileError, as_path, read_json, short_repr
from .config import TOKENIZER_CONFIG_NAME, TOKENIZER_NAME, _writable_directory

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
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
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
            "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
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
#: How much work (the sum of squared token lengths) checking ``ignore_merges`` may take.
_IGNORE_MERGES_WORK = 20_000_000


#: The fields of ``tokenizer.json`` the reader knows, and those of its ``model``.
_TOKENIZER_FIELDS = ("version", "truncation", "padding", "added_tokens", "normalizer", "pre_tokenizer",
                     "post_processor", "decoder", "model")
_BPE_FIELDS = ("type", "dropout", "unk_token", "continuing_subword_prefix", "end_of_word_suffix", "fuse_unk",
               "byte_fallback", "ignore_merges", "vocab", "merges")
_BYTE_LEVEL_FIELDS = ("type", "add_prefix_space", "trim_offsets", "use_regex")
_ADDED_TOKEN_FIELDS = ("id", "content", "single_word", "lstrip", "rstrip", "normalized", "special")


def _want(fail, field: str, value, kind, what: str):
    """``value`` if it is a ``kind`` (a bool is not an int), else fail naming ``field``."""
    if isinstance(value, bool) and kind is not bool or not isinstance(value, kind):
        fail(field, f"is {short_repr(value)}; expected {what}")
    return value


def _known(fail, field: str, obj: dict, names: tuple[str, ...]) -> None:
    """Fail on the first key of ``obj`` not in ``names``."""
    extra = [k for k in obj if k not in names]
    if extra:
        fail(f"{field}.{extra[0]}" if field else extra[0],
             "is a field this engine does not know; refused rather than ignored")


def _byte_level(fail, field: str, value) -> bool:
    """Whether ``value`` is a well-formed ``ByteLevel`` component (fail if it is one
    with unknown, missing or mistyped fields)."""
    if not isinstance(value, dict) or value.get("type") != "ByteLevel":
        return False
    _known(fail, field, value, _BYTE_LEVEL_FIELDS)
    for key in _BYTE_LEVEL_FIELDS[1:]:
        if key in value:
            _want(fail, f"{field}.{key}", value[key], bool, "true or false")
        elif key != "use_regex":  # Hugging Face requires these two and defaults use_regex to true
            fail(f"{field}.{key}", "is missing")
    return True


def read_tokenizer(path) -> bpe.Tokenizer:
    """Read a byte-level BPE ``tokenizer.json`` back into the engine's tokenizer.

    The file must be what this engine computes: a BPE model behind the GPT-2
    ``ByteLevel`` pre-tokenizer and decoder, no normaliser, no truncation or padding,
    added tokens that are plain special tokens, and the engine's numbering (byte ``b``
    is ID ``b``, merge ``k`` makes ID ``256 + k``, added tokens next). A
    ``TemplateProcessing`` post-processor becomes the tokenizer's
    :attr:`~tokenpath.bpe.Tokenizer.template` (its single-sequence form; the engine
    encodes no pairs, so the pair form is not used); a ``ByteLevel`` post-processor,
    which only moves character offsets, is accepted. Every other setting that would
    change the IDs (``model.dropout``, ``continuing_subword_prefix``,
    ``end_of_word_suffix``, ``byte_fallback``, an ``ignore_merges`` that skips merges,
    other normalisers, pre-tokenizers, decoders or post-processors, unknown fields) is
    refused by name rather than encoded differently; so is a malformed or oversized file.
    Every error is a :class:`ModelFileError` naming the file and the field.

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

    if d.get("normalizer") is not None:
        fail("normalizer", f"is {short_repr(d['normalizer'])}; this engine applies none (it must be null)")

    pre = d.get("pre_tokenizer")
    if not byte_level("pre_tokenizer", pre) or not pre.get("use_regex", True) or pre.get("add_prefix_space", True):
        fail("pre_tokenizer", f"is {short_repr(pre)}; expected ByteLevel with use_regex=true and "
             "add_prefix_space=false (the GPT-2 pattern on the text as given)")
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
    specials: list[tuple[int, str, int]] = []
    for k, t in enumerate(raw_added):
        field = f"added_tokens[{k}]"
        want(field, t, dict, "an object with 'id' and 'content'")
        known(field, t, _ADDED_TOKEN_FIELDS)
        for key in ("id", "content"):
            if key not in t:
                fail(field, f"has no {key!r}")
        want(f"{field}.id", t["id"], int, "an integer ID")
        want(f"{field}.content", t["content"], str, "the token's text")
        for key, default in (("single_word", False), ("lstrip", False), ("rstrip", False)):
            if want(f"{field}.{key}", t.get(key, default), bool, "true or false") is not default:
                fail(f"{field}.{key}", f"is {short_repr(t[key])}; the engine matches a special token's exact "
                     "spelling only (it must be false)")
        if "normalized" in t:
            want(f"{field}.normalized", t["normalized"], bool, "true or false")
        if want(f"{field}.special", t.get("special", False), bool, "true or false") is not True:
            fail(f"{field}.special", "is false (or missing); the engine's added tokens are all special tokens")
        specials.append((t["id"], t["content"], k))
    specials.sort()
    names = [s for _, s, _ in specials]
    if len(set(names)) != len(names):
        fail("added_tokens", f"lists {short_repr(next(s for s in names if names.count(s) > 1))} more than once")
    try:
        tok = bpe.Tokenizer(merges, names)
    except (TypeError, ValueError) as err:
        fail("model.merges" if "merges" in str(err) else "added_tokens", f"is refused: {err}")

    vocab = want("model.vocab", m.get("vocab", {}), dict, "an object of token -> ID")
    if len(vocab) != len(tok.vocab):
        fail("model.vocab", f"has {len(vocab)} entries, but 256 bytes and {len(merges)} merges make {len(tok.vocab)}")
    ids_of = {data: i for i, data in tok.vocab.items()}
    for text, i in vocab.items():
        want(f"model.vocab[{short_repr(text)}]", i, int, "an integer ID")
        data = to_bytes("model.vocab", text)
        if tok.vocab.get(i) != data:
            fail("model.vocab", f"numbers {text!r} as {i}; the engine numbers bytes by value and then merges in "
                 f"rank order, which gives {ids_of.get(data)}")
    base, n = len(tok.vocab), len(specials)
    for i, s, k in sorted(specials, key=lambda t: t[2]):
        if not base <= i < base + n:
            fail(f"added_tokens[{k}].id", f"of added token {s!r} is {i}; the engine would give it "
                 f"{tok.special_tokens[s]} (the {n} added tokens take the IDs {base} to {base + n - 1}, "
                 "after the vocabulary)")
    for i, s, k in specials:
        if tok.special_tokens[s] != i:
            fail(f"added_tokens[{k}].id", f"of added token {s!r} is {i}; the engine would give it "
                 f"{tok.special_tokens[s]}")
    if ignore_merges:
        work = sum(len(data) ** 2 for data in tok.vocab.values())
        if work > _IGNORE_MERGES_WORK:
            fail("model.ignore_merges", "is true, and the vocabulary's tokens are too long to check that every "
                 "token is what its merges make (this engine always applies the merges); refused")
        for i, data in tok.vocab.items():
            if tok.merge_bytes(data) != (i,):
                fail("model.ignore_merges", f"is true, and the word {_token_text(data)!r} is then token {i} "
                     f"where the merges give {list(tok.merge_bytes(data))}; this engine always applies the merges")
    template = _read_template(d.get("post_processor"), tok, fail)
    return tok if template is None else tok.with_template(template)


def _read_template(post, tok: bpe.Tokenizer, fail) -> tuple[str, ...] | None:
    """The single-sequence template of a ``TemplateProcessing`` post-processor (``None``
    for none, or for ``ByteLevel``, which changes only offsets)."""
    if post is None:
        return None
    if not isinstance(post, dict):
        fail("post_processor", f"is {short_repr(post)}; expected null, ByteLevel or TemplateProcessing")
    kind = post.get("type")
    if _byte_level(fail, "post_processor", post):
        return None
    if kind != "TemplateProcessing":
        fail("post_processor", f"has type {short_repr(kind)}; this engine implements only TemplateProcessing "
             "(and ByteLevel, which changes only offsets)")
    _known(fail, "post_processor", post, ("type", "single", "pair", "special_tokens"))
    single, table = post.get("single"), post.get("special_tokens", {})
    if not isinstance(single, list) or not single:
        fail("post_processor.single", f"is {short_repr(single)}; expected a list of pieces")
    if not isinstance(post.get("pair"), list):
        fail("post_processor.pair", f"is {short_repr(post.get('pair'))}; expected a list of pieces (the engine "
             "encodes no pairs, but Hugging Face requires the field)")
    if not isinstance(table, dict):
        fail("post_processor.special_tokens", f"is {short_repr(table)}; expected an object of name -> ids")
    pieces = []
    for k, item in enumerate(single):
        field = f"post_processor.single[{k}]"
        if not isinstance(item, dict) or len(item) != 1 or next(iter(item)) not in ("Sequence", "SpecialToken"):
            fail(field, f"is {short_repr(item)}; expected {{'Sequence': …}} or {{'SpecialToken': …}}")
        (kind, body), = item.items()
        if not isinstance(body, dict) or set(body) != {"id", "type_id"}:
            fail(field, f"is {short_repr(item)}; expected {{'id': …, 'type_id': 0}} inside {kind!r}")
        if type(body["type_id"]) is not int or body["type_id"] != 0:
            fail(f"{field}.{kind}.type_id", f"is {short_repr(body['type_id'])}; this engine has no type IDs "
                 "(it must be 0)")
        if kind == "Sequence":
            if body["id"] != "A":
                fail(f"{field}.Sequence.id", f"is {short_repr(body['id'])}; a single sequence is 'A'")
            pieces.append(bpe.TEMPLATE_TEXT)
            continue
        name = body["id"]
        entry = table.get(name) if isinstance(name, str) else None
        if entry is None:
            fail(f"{field}.SpecialToken.id",
                 f"is {short_repr(name)}, which post_processor.special_tokens does not list")
        if name not in tok.special_tokens:
            fail(f"{field}.SpecialToken.id", f"is {short_repr(name)}, which is not an added token")
        want_entry = {"id": name, "ids": [tok.special_tokens[name]], "tokens": [name]}
        if entry != want_entry:
            fail(f"post_processor.special_tokens[{name!r}]", f"is {short_repr(entry)}; the engine's is {want_entry}")
        pieces.append(name)
    if pieces.count(bpe.TEMPLATE_TEXT) != 1:
        fail("post_processor.single", "must hold the sequence 'A' exactly once")
    return tuple(pieces)
