"""Pre-tokenisation: cut text into the words BPE merges inside.

GPT-2's pattern keeps a leading space with the word after it (``" world"``), so the
start of a word is marked instead of its end; merges never cross a word boundary.

The pattern's classes of letters, numbers and whitespace come from the ``regex``
module's Unicode tables, which are newer than tiktoken's and Hugging Face's: the
code points listed in :data:`NEWER_UNICODE_WORD_CHARS` are letters or numbers here and
not there, so text holding them may get other IDs than in those libraries; all other
text is cut into the same words.
"""

from __future__ import annotations

import re
from collections import Counter

import regex

from ._checks import check_text

__all__ = ["GPT2_PATTERN", "NEWER_UNICODE_WORD_CHARS", "compile_pattern", "pretokenize", "split_covering", "word_counts"]

#: GPT-2's pre-tokenisation pattern: contractions, a letter run with an optional leading
#: space, a digit run likewise, a punctuation run likewise, then whitespace (a run of
#: spaces leaves its last space to the word that follows).
GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
_SPLIT = regex.compile(GPT2_PATTERN)

#: Code points that :data:`GPT2_PATTERN` classes as letters (``"L"``) or numbers (``"N"``)
#: here and as neither in tiktoken and Hugging Face ``tokenizers``, as inclusive ranges
#: ``(first, last, class)``: 17,480 code points (17,144 letters, 336 numbers), among them
#: CJK Extension J (U+323B0–U+33479). The ``regex`` module (2026.11.19) classes characters
#: by Unicode 18.0, tiktoken 0.14 (the Rust ``regex-syntax`` 0.8.11 crate) and tokenizers
#: 0.23 (Oniguruma) by Unicode 16.0 (Garay, new in 16.0, is letters to them; CJK
#: Extension J, new in 17.0, is not). Every other code point falls in the same class
#: (letter, number, whitespace, other) in all three (measured once over all of them), so
#: text without these code points is cut into the same words; text with them may be cut
#: differently and then get other IDs: with the merge ``'`` + ``s``, ``"\U000324bd's"``
#: is ``[240, 178, 146, 189, <'s>]`` here and ``[240, 178, 146, 189, 39, 115]`` there.
#: ``tests/test_crosscheck_unicode.py`` measures the list against both libraries, over
#: every code point that is a letter or number here.
NEWER_UNICODE_WORD_CHARS: tuple[tuple[int, int, str], ...] = (
    (0x00558, 0x00558, 'L'), (0x0058B, 0x0058C, 'L'), (0x0088F, 0x0088F, 'L'), (0x00C5C, 0x00C5C, 'L'),
    (0x00CDC, 0x00CDC, 'L'), (0x0208F, 0x0208F, 'L'), (0x0209D, 0x0209F, 'L'), (0x0A7CE, 0x0A7CF, 'L'),
    (0x0A7D2, 0x0A7D2, 'L'), (0x0A7D4, 0x0A7D4, 'L'), (0x0A7DD, 0x0A7DD, 'L'), (0x0A7E2, 0x0A7E2, 'L'),
    (0x0A7F1, 0x0A7F1, 'L'), (0x0AB6C, 0x0AB6D, 'L'), (0x107BB, 0x107BF, 'L'), (0x10940, 0x10959, 'L'),
    (0x10EC5, 0x10EC7, 'L'), (0x10ED9, 0x10EEE, 'L'), (0x11B0A, 0x11B0A, 'L'), (0x11DB0, 0x11DDB, 'L'),
    (0x11DE0, 0x11DE9, 'N'), (0x11DF1, 0x11DF1, 'L'), (0x1246F, 0x1246F, 'N'), (0x12475, 0x1247F, 'N'),
    (0x12550, 0x12686, 'N'), (0x16EA0, 0x16EB8, 'L'), (0x16EBB, 0x16ED3, 'L'), (0x16FF2, 0x16FF3, 'L'),
    (0x16FF4, 0x16FF6, 'N'), (0x187F8, 0x187FF, 'L'), (0x18CD6, 0x18CDA, 'L'), (0x18D09, 0x18D20, 'L'),
    (0x18D80, 0x18DF2, 'L'), (0x18E00, 0x19191, 'L'), (0x191A0, 0x191D2, 'L'), (0x1B123, 0x1B128, 'L'),
    (0x1B168, 0x1B168, 'L'), (0x1D6A6, 0x1D6A6, 'L'), (0x1DF1F, 0x1DF24, 'L'), (0x1DF2B, 0x1DF81, 'L'),
    (0x1DF90, 0x1DF96, 'L'), (0x1DFCD, 0x1DFFF, 'L'), (0x1E6C0, 0x1E6DE, 'L'), (0x1E6E0, 0x1E6E2, 'L'),
    (0x1E6E4, 0x1E6E5, 'L'), (0x1E6E7, 0x1E6ED, 'L'), (0x1E6F0, 0x1E6F4, 'L'), (0x1E6FE, 0x1E6FF, 'L'),
    (0x2B73A, 0x2B73F, 'L'), (0x2B81E, 0x2B81E, 'L'), (0x2CEA2, 0x2CEAD, 'L'), (0x323B0, 0x33479, 'L'),
    (0x3D000, 0x3FC3F, 'L'),
)

#: The same pattern for text that is pure ASCII, with the classes spelled out (and the
#: contractions factored) for Python's ``re`` engine, which runs it about twice as fast.
#: On ASCII, ``\s`` is these six characters, ``\p{L}`` is A–Z and a–z, ``\p{N}`` is 0–9
#: (a test checks all 128 characters and random ASCII text against :data:`GPT2_PATTERN`).
_WS = r"\t\n\x0b\x0c\r "
_SPLIT_ASCII = re.compile(
    rf"""'(?:[stmd]|re|ve|ll)| ?[A-Za-z]+| ?[0-9]+| ?[^{_WS}A-Za-z0-9]+|[{_WS}]+(?![^{_WS}])|[{_WS}]+"""
)
#: … and for ASCII text read as bytes (the trainers cut a corpus this way).
_SPLIT_ASCII_BYTES = re.compile(_SPLIT_ASCII.pattern.encode("ascii"))


def _split_words(text: str) -> list[str]:
    """GPT-2 pre-tokenisation without the input check: the ASCII fast path when it applies."""
    return (_SPLIT_ASCII if text.isascii() else _SPLIT).findall(text)


def compile_pattern(pattern: str, name: str = "pattern"):
    """``pattern`` compiled with the ``regex`` module, or a ``ValueError`` naming ``name``
    and the regex error (a pattern now comes from files, so a bad one is refused by name).

    >>> compile_pattern(r"\\p{N}").findall("a12")
    ['1', '2']
    >>> compile_pattern("(")
    Traceback (most recent call last):
    ...
    ValueError: pattern '(' does not compile: missing ) at position 1
    """
    if not isinstance(pattern, str):
        raise TypeError(f"{name} must be a str (a regex), got {type(pattern).__name__}")
    try:
        return regex.compile(pattern)
    except regex.error as err:
        raise ValueError(f"{name} {pattern!r} does not compile: {err}") from None


def split_covering(compiled, text: str) -> list[str]:
    """The pieces of ``text`` that ``compiled`` matches, left to right, which must cover it
    (a pattern that skipped characters would encode text lossily: ``'a'`` on ``"abc"``
    keeps only ``"a"``); otherwise a ``ValueError`` naming the pattern and the first
    character it skips.

    >>> split_covering(regex.compile(r"\\p{N}|[^\\p{N}]+"), "ab12")
    ['ab', '1', '2']
    >>> split_covering(regex.compile("a"), "abc")
    Traceback (most recent call last):
    ...
    ValueError: pattern 'a' does not cover the text: it skips 'b' (U+0062) at index 1; every character must fall in a piece, or it would be lost
    """
    if not isinstance(compiled, (regex.Pattern, re.Pattern)) or not isinstance(compiled.pattern, str):
        raise TypeError(f"compiled must be a compiled str pattern (see compile_pattern), got {type(compiled).__name__}")
    text = check_text(text)
    if compiled.groups:  # findall would return the groups; take whole matches
        pieces = [m.group() for m in compiled.finditer(text)]
    else:
        pieces = compiled.findall(text)
    if sum(map(len, pieces)) == len(text):
        return pieces
    at = 0
    for m in compiled.finditer(text):
        if m.start() != at:
            break
        at = m.end()
    raise ValueError(f"pattern {compiled.pattern!r} does not cover the text: it skips {text[at]!r} "
                     f"(U+{ord(text[at]):04X}) at index {at}; every character must fall in a piece, or it would be lost")


def pretokenize(text: str) -> list[str]:
    """Cut ``text`` into the words BPE works inside (GPT-2 pattern).

    >>> pretokenize("Hello world, it's  猫!")
    ['Hello', ' world', ',', ' it', "'s", ' ', ' 猫', '!']
    """
    return _split_words(check_text(text))


def word_counts(text: str) -> Counter:
    """How often each pre-tokenised word occurs, as UTF-8 bytes.

    >>> word_counts("low low lower")
    Counter({b'low': 1, b' low': 1, b' lower': 1})
    """
    counts = Counter(_split_words(check_text(text)))
    return Counter({w.encode("utf-8"): n for w, n in counts.items()})



def _distinct_words(text: str) -> tuple[list[list[int]], list[int]]:
    """The distinct words of ``text`` as lists of byte values, and how often each occurs
    (ASCII text is cut as bytes directly, which saves encoding every word).

    >>> _distinct_words("low low!")
    ([[108, 111, 119], [32, 108, 111, 119], [33]], [1, 1, 1])
    """
    if text.isascii():
        counts = Counter(_SPLIT_ASCII_BYTES.findall(text.encode("ascii")))
        words = [list(w) for w in counts]
    else:
        counts = Counter(_SPLIT.findall(text))
        words = [list(w.encode("utf-8")) for w in counts]
    return words, list(counts.values())
