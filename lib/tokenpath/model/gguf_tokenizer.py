"""The tokenizer inside a GGUF file: its ``tokenizer.*`` metadata as the engine's BPE.

A GGUF file written by llama.cpp's converter carries its tokenizer as metadata keys:
``tokenizer.ggml.model`` (``gpt2`` is byte-level BPE, the only kind read here),
``.tokens`` (every token's text, in ID order, each byte written as GPT-2's printable
character), ``.merges`` (``"a b"`` in rank order), ``.token_type`` (1 normal, 3 control,
4 user-defined, …), the IDs of BOS/EOS/padding/unknown, whether to add BOS or EOS, and
``.pre``, the *name* of a pre-tokenizer. The file does not hold the split regex: llama.cpp
maps the name to its regexes in ``llama-vocab.cpp`` (:data:`GGUF_PRE_PATTERNS` copies the
ones read here). ``tokenizer.chat_template`` is the Jinja chat template
(:mod:`tokenpath.chat_template`).

llama.cpp applies its regexes in turn and keeps the text between two matches as a piece
of its own; the engine instead wants patterns whose pieces cover the text
(:func:`tokenpath.bpe.split_covering`), so each regex is written here with its gaps made
explicit: ``\\p{N}`` (one digit; the text between digits is a piece) becomes
``\\p{N}|[^\\p{N}]+``, and GPT-2's regex without its final ``|\\s+`` leaves only single
whitespace characters as gaps, which that final alternative matches, so it becomes
:data:`~tokenpath.bpe.GPT2_PATTERN`.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from .. import bpe

__all__ = ["GGUF_PRE_PATTERNS", "tokenizer_from_gguf"]

_LLAMA3 = (r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
           r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
_QWEN2 = (r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
          r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")

#: ``tokenizer.ggml.pre`` → the split pattern(s) llama.cpp uses for it (``llama-vocab.cpp``),
#: written so that their pieces cover the text (see the module's docstring).
GGUF_PRE_PATTERNS: dict[str, str | tuple[str, ...]] = {
    "gpt2": bpe.GPT2_PATTERN,
    "smollm": (r"\p{N}|[^\p{N}]+", bpe.GPT2_PATTERN),  # each digit alone, then GPT-2's regex
    "starcoder": (r"\p{N}|[^\p{N}]+", bpe.GPT2_PATTERN),
    "llama-bpe": _LLAMA3,
    "qwen2": _QWEN2,
}

#: ``tokenizer.ggml.token_type`` values (llama.cpp's ``llama_token_type``).
NORMAL, CONTROL, USER_DEFINED = 1, 3, 4


def _get(metadata, key: str, kind, what: str, default=None, required: bool = True):
    if key not in metadata:
        if required:
            raise ValueError(f"metadata has no {key!r}; a GGUF tokenizer needs it ({what})")
        return default
    value = metadata[key]
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, np.generic):
        value = value.item()
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)) \
            or kind is not int and not isinstance(value, kind):
        raise TypeError(f"metadata[{key!r}] must be {what}, got {type(value).__name__}")
    return value


def _strings(metadata, key: str) -> list[str]:
    value = _get(metadata, key, (list, tuple, np.ndarray), "a list of strings")
    out = list(value.tolist() if isinstance(value, np.ndarray) else value)
    for k, s in enumerate(out):
        if not isinstance(s, str):
            raise TypeError(f"metadata[{key!r}][{k}] must be a str, got {type(s).__name__}")
    return out


_BYTE_OF = {c: b for b, c in bpe.bytes_to_unicode().items()}  # GPT-2's character → its byte


def _byte_text(key: str, k: int, text: str) -> bytes:
    try:
        return bytes([_BYTE_OF[ch] for ch in text])
    except KeyError as err:
        raise ValueError(f"metadata[{key!r}][{k}] is {text!r}, which holds {err.args[0]!r}, not a byte-level "
                         "character (GPT-2's map writes each byte as one printable character)") from None


def tokenizer_from_gguf(metadata: Mapping[str, object]) -> bpe.Tokenizer:
    """The engine's tokenizer from a GGUF file's ``tokenizer.*`` metadata (what a GGUF
    reader returns: strings, ints, lists or tuples of strings, numpy arrays).

    Token IDs are the positions in ``tokenizer.ggml.tokens``; control and user-defined
    tokens (``token_type`` 3 and 4) become special tokens under their own spelling,
    which :meth:`~tokenpath.bpe.Tokenizer.encode` turns into their ID when allowed (as
    llama.cpp does when it parses special tokens); ``add_bos_token``/``add_eos_token``
    become the :attr:`~tokenpath.bpe.Tokenizer.template`; BOS, EOS, padding and unknown
    become :attr:`~tokenpath.bpe.Tokenizer.roles`. Another ``tokenizer.ggml.model`` than
    ``gpt2``, an unknown ``pre``, or another token type is refused by name.

    >>> chars = bpe.bytes_to_unicode()
    >>> tokens = ["<|end|>"] + [chars[b] for b in range(256)] + ["hi"]
    >>> tok = tokenizer_from_gguf({"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "gpt2",
    ...     "tokenizer.ggml.tokens": tokens, "tokenizer.ggml.merges": ["h i"],
    ...     "tokenizer.ggml.token_type": [3] + [1] * 257, "tokenizer.ggml.eos_token_id": 0})
    >>> tok.encode("hi!<|end|>", allowed_special="all"), tok.roles, tok.n_vocab
    ([257, 34, 0], {'eos': '<|end|>'}, 258)
    >>> tokenizer_from_gguf({"tokenizer.ggml.model": "llama"})
    Traceback (most recent call last):
    ...
    ValueError: metadata['tokenizer.ggml.model'] is 'llama'; this engine reads only 'gpt2' (byte-level BPE)
    """
    if not isinstance(metadata, Mapping):
        raise TypeError(f"metadata must be a mapping of GGUF keys to values, got {type(metadata).__name__}")
    kind = _get(metadata, "tokenizer.ggml.model", str, "a str")
    if kind != "gpt2":
        raise ValueError(f"metadata['tokenizer.ggml.model'] is {kind!r}; this engine reads only 'gpt2' "
                         "(byte-level BPE)")
    pre = _get(metadata, "tokenizer.ggml.pre", str, "a str", default="gpt2", required=False)
    if pre not in GGUF_PRE_PATTERNS:
        raise ValueError(f"metadata['tokenizer.ggml.pre'] is {pre!r}, a pre-tokenizer this engine does not know "
                         f"(known: {sorted(GGUF_PRE_PATTERNS)}); refused rather than split differently")
    tokens = _strings(metadata, "tokenizer.ggml.tokens")
    types = _get(metadata, "tokenizer.ggml.token_type", (list, tuple, np.ndarray), "a list of ints",
                 default=[NORMAL] * len(tokens), required=False)
    types = np.asarray(types)
    if types.shape != (len(tokens),) or types.dtype.kind not in "iu":
        raise ValueError(f"metadata['tokenizer.ggml.token_type'] must hold one int per token ({len(tokens)}), "
                         f"got shape {types.shape} of {types.dtype}")
    vocab: dict[bytes, int] = {}
    specials: dict[str, int] = {}
    for i, (text, t) in enumerate(zip(tokens, types.tolist())):
        if t in (CONTROL, USER_DEFINED):
            if not text:
                raise ValueError(f"metadata['tokenizer.ggml.tokens'][{i}] is an empty control token")
            specials[text] = i
        elif t == NORMAL:
            data = _byte_text("tokenizer.ggml.tokens", i, text)
            if data in vocab:
                raise ValueError(f"metadata['tokenizer.ggml.tokens'][{i}] repeats token {vocab[data]} ({text!r})")
            vocab[data] = i
        else:
            raise ValueError(f"metadata['tokenizer.ggml.token_type'][{i}] is {t}; this engine reads normal (1), "
                             "control (3) and user-defined (4) tokens of a gpt2 vocabulary")
    merges = []
    for k, m in enumerate(_strings(metadata, "tokenizer.ggml.merges")):
        parts = m.split(" ")
        if len(parts) != 2 or not all(parts):
            raise ValueError(f"metadata['tokenizer.ggml.merges'][{k}] is {m!r}; expected two tokens as 'a b'")
        merges.append((_byte_text("tokenizer.ggml.merges", k, parts[0]),
                       _byte_text("tokenizer.ggml.merges", k, parts[1])))
    by_id = {i: s for s, i in specials.items()}
    roles = {}
    for role, key in (("bos", "bos_token_id"), ("eos", "eos_token_id"), ("pad", "padding_token_id"),
                      ("unk", "unknown_token_id")):
        i = _get(metadata, f"tokenizer.ggml.{key}", int, "an int", required=False)
        if i is None:
            continue
        if i not in by_id:
            raise ValueError(f"metadata['tokenizer.ggml.{key}'] is {i}, which is not a control token")
        roles[role] = by_id[i]
    template = []
    for role, where in (("bos", 0), ("eos", 1)):
        if _get(metadata, f"tokenizer.ggml.add_{role}_token", bool, "true or false", default=False, required=False):
            if role not in roles:
                raise ValueError(f"metadata['tokenizer.ggml.add_{role}_token'] is true, but the file names no "
                                 f"{role.upper()} token")
            template.append((where, roles[role]))
    pieces = [s for w, s in template if w == 0] + [bpe.TEMPLATE_TEXT] + [s for w, s in template if w == 1]
    chat = _get(metadata, "tokenizer.chat_template", str, "a str", required=False)
    try:
        return bpe.Tokenizer(merges, specials, pattern=GGUF_PRE_PATTERNS[pre], vocab=vocab,
                             template=pieces if template else None, chat_template=chat, roles=roles)
    except (TypeError, ValueError) as err:
        raise ValueError(f"metadata['tokenizer.ggml.tokens'/'merges'] do not make a tokenizer: {err}") from None
