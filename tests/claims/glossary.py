"""Claims of the glossary (99_glossary): the verbatim overlap of held-out and training
code that the entry *Held-out text* states, read from ``models/stdlib-evidence.json`` as
chapter 11's claims are; the block sizes, bits per weight and default alignment that
*GGUF* and *Block quantization* state, from the engine's table of ggml types; and the
byte values of a byte-level BPE and those SmolLM2's vocabulary lacks (*Byte-level BPE*,
*UNK*), from the engine and the pretrained file as chapter 1's aside counts them (the guide's claims and the glossary's names and citations
are in :mod:`claims.index`)."""

from __future__ import annotations

from functools import cache, partial

from tokenpath import bpe
from tokenpath import trained as T
from tokenpath.gguf_format import DEFAULT_ALIGNMENT, GGML_TYPES
from tokenpath.lessons import real_vocab

from . import Claim as _Claim
from . import NotClaim as _NotClaim

CHAPTER = "99_glossary"
Claim = partial(_Claim, chapter=CHAPTER)
NotClaim = partial(_NotClaim, chapter=CHAPTER)


def _overlap() -> dict:
    return T.read_evidence()["overlap"]


def _block(name: str) -> tuple[int, int]:
    """(numbers, bytes) of one block of the ggml type ``name``."""
    (n, size), = [(n, size) for t, n, size in GGML_TYPES.values() if t == name]
    return n, size


def _bits(name: str) -> float:
    n, size = _block(name)
    return 8 * size / n


def _byte_values() -> int:
    """The base symbols of a byte-level BPE with no merges: one per byte value."""
    return len(bpe.Tokenizer([]).vocab)


@cache
def _gaps():
    return real_vocab.missing_bytes()


CLAIMS: list[_Claim] = [
    Claim("gloss.overlap_share", lambda: _overlap()["repeated"] / _overlap()["lines"],
          text=("7.6", lambda v: f"{100 * v:.1f}")),
    Claim("gloss.overlap_min_chars", lambda: _overlap()["min_chars"], text=("30", str)),
    Claim("gloss.all_bytes", _byte_values, text=("each of the 256 byte values", lambda n: f"each of the {n} byte values")),
    Claim("gloss.unk_bytes", _byte_values, text=("has all 256 bytes as tokens", lambda n: f"has all {n} bytes as tokens")),
    Claim("gloss.smol_missing", lambda: len(_gaps().never_in_utf8) + len(_gaps().in_utf8),
          text=("SmolLM2's lacks 21 of them", lambda n: f"SmolLM2's lacks {n} of them")),
    Claim("gloss.gguf_alignment", lambda: DEFAULT_ALIGNMENT,
          text=("alignment (32 unless", lambda n: f"alignment ({n} unless")),
    Claim("gloss.block", lambda: {_block("Q8_0")[0], _block("Q4_1")[0]},
          text=("in blocks of 32 that share", lambda ns: f"in blocks of {'/'.join(map(str, sorted(ns)))} that share")),
    Claim("gloss.q8_bits", lambda: _bits("Q8_0"), text=("Q8_0 costs 8.5 bits", lambda b: f"Q8_0 costs {b:.1f} bits")),
    Claim("gloss.q41_bits", lambda: _bits("Q4_1"), text=("Q4_1 5.0", lambda b: f"Q4_1 {b:.1f}")),
    Claim("gloss.k_quant_block", lambda: {_block(t)[0] for t in ("Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K")},
          text=("take blocks of 256", lambda ns: f"take blocks of {'/'.join(map(str, sorted(ns)))}")),
]

NOT_CLAIMS: list[_NotClaim] = [
    NotClaim("Δ/2", "half a step, a formula"),
    NotClaim("float16", "the name of a number format"),
    NotClaim("GPT-4", "the name of a model"),
    NotClaim("cl100k_base", "the name of tiktoken's GPT-4 encoding"),
]
