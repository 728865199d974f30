"""Claims of chapter 02_utf8_splits added with its review: UTF-8's byte-length rule (the
table of section 2.1 and the bits of 猫), emoji that are shorter or longer than four
bytes, the bytes of SmolLM2's two tokens of 🙂, SmolLM2's end-of-document token, the
double BOS, and the size of a vocabulary's growth in billions. The chapter's other
claims are in :mod:`.bpe`.
"""

from __future__ import annotations

import bisect
from functools import cache, partial

from tokenpath import bpe
from tokenpath import examples as ex
from tokenpath.examples import asides
from tokenpath.lessons import real_vocab
from tokenpath.lessons import utf8 as lesson

from . import Claim as _Claim

Claim = partial(_Claim, chapter="02_utf8_splits")


def _n_bytes(text: str) -> int:
    return lesson.utf8_trace(text).n_bytes


def _code(char: str) -> bytes:
    return lesson.utf8_trace(char).codes[0]


def _marker(byte: int) -> str:
    """A UTF-8 byte's marker bits: its leading 1s and the 0 after them ('1110' of E7, '10' of 8C)."""
    bits = f"{byte:08b}"
    return bits[:bits.index("0") + 1]


def _top(n: int) -> int:
    """The highest code point that UTF-8 writes in ``n`` bytes (the byte count grows with the code point)."""
    count = lambda c: len(chr(c).encode("utf-8", "surrogatepass"))  # noqa: E731 (surrogates sit inside the 3-byte range)
    return bisect.bisect_right(range(0x110000), n, key=count) - 1


def _row(n: int) -> str:
    """A row of section 2.1's table: the first byte's pattern, the byte count, the highest code point."""
    top = _top(n)
    code = _code(chr(top))
    marker = _marker(code[0])
    return f"| `{marker + 'x' * (8 - len(marker))}` | {len(code)} | U+{top:04X} |"


@cache
def _emoji():
    return {c.text: c for c in real_vocab.cuts(asides.REAL_STRINGS)}["🙂"]


@cache
def _leading_bos() -> int:
    with_bos = lesson.demo_tokenizer().with_special_tokens([ex.BOS_TOKEN]).with_template((ex.BOS_TOKEN, "$A"))
    bos = with_bos.special_tokens[ex.BOS_TOKEN]
    ids = with_bos.encode(ex.BOS_TOKEN + lesson.render_chat(lesson.demo_tokenizer(), ex.CHAT_MESSAGES).text,
                          allowed_special="all")
    return bos, next(k for k, i in enumerate(ids) if i != bos)


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


CLAIMS: list[_Claim] = [
    Claim("utf8.cat_code_point", lambda: ord("猫"), text=("猫 is U+732B", lambda c: f"猫 is U+{c:04X}")),
    Claim("utf8.heart", lambda: _n_bytes("❤"), text=("❤ is 3 bytes", lambda n: f"❤ is {n} bytes")),
    Claim("utf8.thumbs", lambda: "👍🏽", text=("👍🏽 is 2 code points and 8 bytes",
                                              lambda t: f"{t} is {len(t)} code points and {_n_bytes(t)} bytes")),
    Claim("utf8.one_byte_marker", lambda: _code("a")[0],
          text=("if it starts with 0", lambda b: f"if it starts with {_marker(b)}")),
    Claim("utf8.continuation_marker", lambda: _code("猫")[1],
          text=("*continuation byte*, starts with 10", lambda b: f"*continuation byte*, starts with {_marker(b)}")),
    *(Claim(f"utf8.table_row{n}", lambda n=n: n, text=(row, _row)) for n, row in (
        (1, "| `0xxxxxxx` | 1 | U+007F |"), (2, "| `110xxxxx` | 2 | U+07FF |"),
        (3, "| `1110xxxx` | 3 | U+FFFF |"), (4, "| `11110xxx` | 4 | U+10FFFF |"))),
    Claim("utf8.cat_lead_bits", lambda: _code("猫")[0],
          text=("writes 1110, then the first group of 4 bits",
                lambda b: f"writes {_marker(b)}, then the first group of {8 - len(_marker(b))} bits")),
    Claim("utf8.cat_continuation_bits", lambda: _code("猫")[1],
          text=("writes 10, then the next group of 6 bits",
                lambda b: f"writes {_marker(b)}, then the next group of {8 - len(_marker(b))} bits")),
    Claim("aside2.emoji_tokens", lambda: _emoji().pieces,
          text=("🙂 takes 2 tokens, F0 9F and 99 82",
                lambda ps: f"🙂 takes {len(ps)} tokens, " + " and ".join(p.hex(" ").upper() for p in ps))),
    Claim("aside2.emoji_second", lambda: _emoji().pieces[1],
          text=("second token of 🙂, 99 82,", lambda p: f"second token of 🙂, {p.hex(' ').upper()},")),
    Claim("roundtrip.byte_ids", lambda: len(bpe.Tokenizer([]).vocab),
          text=("its IDs are the 256 byte values", lambda n: f"its IDs are the {n} byte values")),
    Claim("exercise.ids_as_bytes", lambda: len(bpe.Tokenizer([]).vocab),
          text=("every ID is below 256", lambda n: f"every ID is below {n}")),
    Claim("special.end_of_document", lambda: dict((name, i) for i, name in real_vocab.special_table()),
          text=("(`<|endoftext|>`, ID 0)", lambda t: f"(`<|endoftext|>`, ID {t['<|endoftext|>']})")),
    Claim("bos.double", _leading_bos,
          text=("starts with 405 twice", lambda b: f"starts with {b[0]} {_times(b[1])}")),
    Claim("fig02.added_billions", lambda: lesson.vocab_growth(ex.FIG2_VOCAB_OLD, ex.FIG2_VOCAB_NEW, ex.FIG2_WIDTH),
          text=("about 0.4 billion per matrix", lambda g: f"about {g.added_per_matrix / 1e9:.1f} billion per matrix")),
]
