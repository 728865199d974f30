"""Byte-level BPE: learn merge rules from a corpus, then encode and decode with them.

Two phases that must not be confused:

* **training** counts adjacent symbol pairs over a corpus, merges the most frequent
  pair into a new symbol, records that merge rule, and repeats until the vocabulary
  has the size asked for;
* **encoding** applies the recorded rules, lowest rank first, to new text. Nothing is
  learned while encoding.

The symbols start as the 256 byte values, so every string can be encoded (no
``[UNK]``). Text is first cut into "words" by the GPT-2 pre-tokenisation regex, which
keeps a leading space with the word after it (``" world"``); merges never cross a
word boundary.

The pattern's classes of letters, numbers and whitespace come from the ``regex``
module's Unicode tables, which are newer than tiktoken's and Hugging Face's: the
code points listed in :data:`NEWER_UNICODE_WORD_CHARS` are letters or numbers here and
not there, so text holding them may get other IDs than in those libraries; all other
text is cut into the same words.

IDs: 0–255 are the bytes themselves, 256 + k is the token made by merge k, and
special tokens (``<|user|>`` …) come after the learned vocabulary.

Three trainers learn the same thing at different speeds and for different readers:

* :func:`train_naive` recounts every pair after every merge (minbpe's shape; the
  readable reference);
* :func:`train` keeps pair counts and an index from each pair to the words holding it,
  and after a merge updates only the affected words (the production shape);
* :func:`teach_merges` works on a small word-count table of characters and records
  every weighted pair count at every step (figure 1).

Count ties are broken deterministically: ``tie_break="smallest"`` takes the smallest
pair by its bytes; ``tie_break="hf"`` takes the smallest pair of Hugging Face
``tokenizers`` IDs, which number the 256 byte symbols in the order of their GPT-2
printable characters (:func:`bytes_to_unicode`) and then the merges in order.
"""

from __future__ import annotations

import functools
import heapq
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

import regex

from ._checks import as_bool, as_int, as_list

__all__ = [
    "GPT2_PATTERN",
    "NEWER_UNICODE_WORD_CHARS",
    "TEMPLATE_TEXT",
    "ChatTrace",
    "Chip",
    "DecodeTrace",
    "EncodeWordTrace",
    "IdCollision",
    "MergeStep",
    "NormalizeTrace",
    "PairRow",
    "PretokenTrace",
    "ReplayState",
    "SplitCharTrace",
    "TeachingTrace",
    "Tokenizer",
    "Utf8Trace",
    "VocabGrowth",
    "apply_merge",
    "bytes_to_unicode",
    "check_text",
    "chips_text",
    "decode_trace",
    "demo_tokenizer",
    "encode_word",
    "hf_symbol_order",
    "id_collision",
    "merge_replay",
    "merge_word",
    "normalize",
    "pair_counts",
    "pretokenize",
    "pretokenize_trace",
    "render_chat",
    "split_char",
    "stdlib_corpus",
    "teach_merges",
    "token_chips",
    "train",
    "train_naive",
    "utf8_trace",
    "vocab_growth",
    "word_counts",
]

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
#: contractions factored) for Python's ``re`` engine, which runs it about twice as fast. On ASCII, ``\s`` is these
#: six characters, ``\p{L}`` is A–Z and a–z, ``\p{N}`` is 0–9 (a test checks all 128
#: characters and random ASCII text against :data:`GPT2_PATTERN`).
_WS = r"\t\n\x0b\x0c\r "
_SPLIT_ASCII = re.compile(
    rf"""'(?:[stmd]|re|ve|ll)| ?[A-Za-z]+| ?[0-9]+| ?[^{_WS}A-Za-z0-9]+|[{_WS}]+(?![^{_WS}])|[{_WS}]+"""
)


_SPLIT_ASCII_BYTES = re.compile(_SPLIT_ASCII.pattern.encode("ascii"))


def _split_words(text: str) -> list[str]:
    """GPT-2 pre-tokenisation: the ASCII fast path when it applies."""
    return (_SPLIT_ASCII if text.isascii() else _SPLIT).findall(text)

TIE_BREAKS = ("smallest", "hf")


# ------------------------------------------------------------------ input checks


def check_text(text, name: str = "text") -> str:
    """Return ``text`` if it is a ``str`` that UTF-8 can encode, else raise naming ``name``.

    >>> check_text("猫")
    '猫'
    >>> check_text("a\\ud800")
    Traceback (most recent call last):
    ...
    ValueError: text holds a lone surrogate U+D800 at index 1; it has no UTF-8 bytes, so it cannot be tokenized
    """
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a str, got {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        bad = text[err.start]
        raise ValueError(
            f"{name} holds a lone surrogate U+{ord(bad):04X} at index {err.start}; "
            "it has no UTF-8 bytes, so it cannot be tokenized"
        ) from None
    return text


#: The template piece that stands for the encoded text (Hugging Face's ``$A``).
TEMPLATE_TEXT = "$A"


def _check_template(template, special_tokens: Mapping[str, int]) -> tuple[str, ...] | None:
    """``template`` as a tuple of pieces, each ``"$A"`` (exactly once) or a registered
    special token's name; ``None`` stays ``None``."""
    if template is None:
        return None
    if isinstance(template, (str, bytes)) or not isinstance(template, Iterable):
        raise TypeError("template must be a sequence of pieces such as ('<s>', '$A'), "
                        f"got {'one string' if isinstance(template, str) else type(template).__name__}")
    pieces = tuple(template)
    for k, piece in enumerate(pieces):
        if not isinstance(piece, str):
            raise TypeError(f"template[{k}] must be '$A' or a special token's name, got {type(piece).__name__}")
        if piece != TEMPLATE_TEXT and piece not in special_tokens:
            raise ValueError(f"template[{k}] is {piece!r}, which is not a registered special token "
                             f"(registered: {list(special_tokens)})")
    if pieces.count(TEMPLATE_TEXT) != 1:
        raise ValueError(f"template must hold '$A' (the encoded text) exactly once, got {pieces!r}")
    return pieces


def _check_tie_break(tie_break) -> str:
    if not isinstance(tie_break, str) or tie_break not in TIE_BREAKS:
        raise ValueError(f"tie_break must be one of {TIE_BREAKS}, got {tie_break!r}")
    return tie_break


# ------------------------------------------------------------ bytes and words


@functools.cache
def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's map from each byte to a printable character (used by HF and tiktoken
    files to write byte tokens as text). Printable ASCII and Latin-1 map to themselves;
    the other 68 bytes map to U+0100 onwards.

    >>> m = bytes_to_unicode(); m[ord("a")], m[ord(" ")], len(set(m.values()))
    ('a', 'Ġ', 256)
    """
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    out, extra = {}, 0
    for b in range(256):
        if b in keep:
            out[b] = chr(b)
        else:
            out[b] = chr(256 + extra)
            extra += 1
    return out


@functools.cache
def hf_symbol_order() -> tuple[int, ...]:
    """Hugging Face's ID for each byte: the bytes sorted by their GPT-2 character.

    >>> order = hf_symbol_order(); order[ord("!")], order[0]
    (0, 188)
    """
    chars = bytes_to_unicode()
    ranked = sorted(range(256), key=lambda b: ord(chars[b]))
    ids = [0] * 256
    for hf_id, b in enumerate(ranked):
        ids[b] = hf_id
    return tuple(ids)


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


# ------------------------------------------------------------- the two primitives


def pair_counts(words: Mapping[tuple, int]) -> Counter:
    """Weighted counts of adjacent symbol pairs: each word's pairs times its count.

    >>> pair_counts({("l", "o", "w"): 5, ("l", "o"): 2})
    Counter({('l', 'o'): 7, ('o', 'w'): 5})
    """
    if not isinstance(words, Mapping):
        raise TypeError(f"words must be a mapping from a word's symbols to its count, got {type(words).__name__}")
    counts: Counter = Counter()
    for symbols, n in words.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] += n
    return counts


def apply_merge(symbols: Sequence, pair: tuple, new) -> tuple:
    """Replace every occurrence of ``pair`` in ``symbols``, left to right, by ``new``.

    >>> apply_merge((1, 2, 3, 1, 2), (1, 2), 9)
    (9, 3, 9)
    >>> apply_merge(("a", "a", "a"), ("a", "a"), "aa")
    ('aa', 'a')
    """
    symbols = tuple(as_list("symbols", symbols, "symbols"))
    if not isinstance(pair, tuple) or len(pair) != 2:
        raise TypeError(f"pair must be a tuple of two symbols, got {type(pair).__name__}")
    merged = _merge_list(symbols, *pair, new)
    return tuple(symbols if merged is None else merged)


# ------------------------------------------------------------------- the tokenizer


@dataclass(frozen=True)
class DecodeTrace:
    """What decoding a list of IDs did: the bytes of each token, all of them joined,
    and the text (or the error) in each mode."""

    ids: tuple[int, ...]
    pieces: tuple[bytes, ...]  # [n_tokens]  the bytes each ID stands for
    joined: bytes  #                    the bytes concatenated in order
    strict: str | None  #               joined bytes decoded, or None if invalid UTF-8
    error: str | None  #                why strict decoding failed (the whole message)
    reason: str | None  #               UTF-8's short reason ("invalid start byte" …)
    replaced: str  #                    decoding with U+FFFD for invalid bytes


class Tokenizer:
    """A trained byte-level BPE tokenizer: merge rules in rank order, the vocabulary
    they build, optional special tokens, and an optional ``template`` that
    :meth:`encode` wraps the IDs in (e.g. ``("<s>", "$A")`` adds BOS; see
    :meth:`with_template`).

    >>> tok = train("low lower newer " * 10, 260)
    >>> tok.merges[:2]
    [(b'e', b'r'), (b'l', b'o')]
    >>> tok.decode(tok.encode(" lower"))
    ' lower'
    """

    def __init__(self, merges: Iterable[tuple[bytes, bytes]], special_tokens: Iterable[str] = (),
                 *, pattern: str = GPT2_PATTERN, template: Sequence[str] | None = None):
        if isinstance(merges, (str, bytes)) or not isinstance(merges, Iterable):
            raise TypeError(f"merges must be a list of (bytes, bytes) pairs, got {type(merges).__name__}")
        if isinstance(special_tokens, (str, bytes)) or not isinstance(special_tokens, Iterable):
            raise TypeError("special_tokens must be a list of names, "
                            f"got {'one string' if isinstance(special_tokens, str) else type(special_tokens).__name__}")
        if not isinstance(pattern, str):
            raise TypeError(f"pattern must be a str (a regex), got {type(pattern).__name__}")
        vocab: dict[int, bytes] = {b: bytes([b]) for b in range(256)}
        ids: dict[bytes, int] = {v: k for k, v in vocab.items()}
        ranks: dict[tuple[int, int], tuple[int, int]] = {}
        merge_list = []
        for rank, pair in enumerate(merges):
            if (not isinstance(pair, tuple) or len(pair) != 2
                    or not all(isinstance(p, bytes) and p for p in pair)):
                raise TypeError(f"merges[{rank}] must be a pair of non-empty bytes, got {pair!r}")
            a, b = pair
            if a not in ids or b not in ids:
                raise ValueError(f"merges[{rank}] = {pair!r} uses a token no earlier merge made")
            new = a + b
            if new not in ids:
                ids[new] = len(vocab)
                vocab[ids[new]] = new
            ranks.setdefault((ids[a], ids[b]), (rank, ids[new]))
            merge_list.append((a, b))
        self.merges: list[tuple[bytes, bytes]] = merge_list
        self.vocab: dict[int, bytes] = vocab
        self._ids = ids
        self._ranks = ranks
        self.pattern = pattern
        self._split = _split_words if pattern == GPT2_PATTERN else regex.compile(pattern).findall
        self.special_tokens: dict[str, int] = {}
        for k, name in enumerate(special_tokens):
            if not isinstance(name, str) or not name:
                raise TypeError(f"special_tokens must be non-empty strings, got {name!r}")
            check_text(name, f"special_tokens[{k}]")
            if name not in self.special_tokens:
                self.special_tokens[name] = len(vocab) + len(self.special_tokens)
        self._special_ids = {i: s for s, i in self.special_tokens.items()}
        self.template: tuple[str, ...] | None = _check_template(template, self.special_tokens)
        self._cache: dict[str, tuple[int, ...]] = {}

    # ------------------------------------------------------------ construction

    def with_special_tokens(self, names: Iterable[str]) -> "Tokenizer":
        """The same merges with ``names`` registered as special tokens (IDs after the
        vocabulary, in the order given).

        >>> tok = Tokenizer([]).with_special_tokens(["<|user|>", "<|end|>"])
        >>> tok.special_tokens
        {'<|user|>': 256, '<|end|>': 257}
        """
        if isinstance(names, (str, bytes)) or not isinstance(names, Iterable):
            raise TypeError("names must be a list of strings, "
                            f"not {'one string' if isinstance(names, str) else type(names).__name__}")
        return Tokenizer(self.merges, [*self.special_tokens, *names], pattern=self.pattern,
                         template=self.template)

    def with_template(self, pieces: Sequence[str] | None) -> "Tokenizer":
        """The same tokenizer with a post-processing template: what :meth:`encode` puts
        around the encoded text. ``pieces`` is a sequence of ``"$A"`` (the encoded text,
        exactly once) and names of registered special tokens, e.g. ``("<s>", "$A")``
        to add BOS; ``None`` removes the template. This is the single-sequence form of
        Hugging Face's ``TemplateProcessing`` post-processor.

        >>> tok = Tokenizer([]).with_special_tokens(["<s>", "</s>"]).with_template(["<s>", "$A", "</s>"])
        >>> tok.template, tok.encode("hi"), tok.encode("hi", add_special_tokens=False)
        (('<s>', '$A', '</s>'), [256, 104, 105, 257], [104, 105])
        >>> tok.with_template(["$A", "<unk>"])
        Traceback (most recent call last):
        ...
        ValueError: template[1] is '<unk>', which is not a registered special token (registered: ['<s>', '</s>'])
        """
        return Tokenizer(self.merges, list(self.special_tokens), pattern=self.pattern, template=pieces)

    @property
    def n_vocab(self) -> int:
        """Every ID this tokenizer can emit: learned tokens plus special tokens."""
        return len(self.vocab) + len(self.special_tokens)

    def __repr__(self) -> str:
        extra = "" if self.template is None else f", template={self.template!r}"
        return (f"Tokenizer(merges={len(self.merges)}, vocab={len(self.vocab)}, "
                f"special={len(self.special_tokens)}{extra})")

    # ---------------------------------------------------------------- encoding

    def encode_word(self, word: str, *, use_cache: bool = True) -> tuple[int, ...]:
        """One pre-tokenised word → IDs, merging the lowest-rank pair first.

        >>> tok = Tokenizer([(b"e", b"r"), (b"w", b"er")])
        >>> tok.encode_word("wer"), tok.vocab[257]
        ((257,), b'wer')
        """
        if use_cache:
            hit = self._cache.get(word)
            if hit is not None:
                return hit
        ids = self._bpe(word.encode("utf-8"))
        if use_cache:
            self._cache[word] = ids
        return ids

    def _bpe(self, data: bytes) -> tuple[int, ...]:
        symbols = list(data)
        ranks = self._ranks
        while len(symbols) > 1:
            best, best_pair = None, None
            for pair in zip(symbols, symbols[1:]):
                r = ranks.get(pair)
                if r is not None and (best is None or r < best):
                    best, best_pair = r, pair
            if best is None:
                break
            symbols = _merge_list(symbols, *best_pair, best[1])
        return tuple(symbols)

    def encode_ordinary(self, text: str, *, use_cache: bool = True) -> list[int]:
        """Encode ``text`` with every character treated as ordinary text (no special
        tokens are recognised at all).

        >>> Tokenizer([]).encode_ordinary("hi")
        [104, 105]
        """
        text = check_text(text)
        out: list[int] = []
        for word in self._split(text):
            out.extend(self.encode_word(word, use_cache=use_cache))
        return out

    def encode(self, text: str, *, allowed_special=frozenset(), disallowed_special="all",
               add_special_tokens: bool = True, use_cache: bool = True) -> list[int]:
        """Encode ``text`` (tiktoken's rules for special tokens), then wrap the IDs in the
        tokenizer's :attr:`template`, if it has one and ``add_special_tokens`` is true
        (Hugging Face's default; :meth:`encode_ordinary` never wraps).

        A special token's spelling becomes its ID only if it is in ``allowed_special``
        (a set of names, or ``"all"``). By default every other special token is
        *disallowed*: text that contains its spelling is refused, because user text must
        never turn into a protocol marker. Pass ``disallowed_special=()`` to encode such
        spellings as ordinary text instead.

        >>> tok = Tokenizer([]).with_special_tokens(["<|user|>"])
        >>> tok.encode("<|user|>", allowed_special={"<|user|>"})
        [256]
        >>> len(tok.encode("<|user|>", disallowed_special=()))
        8
        >>> tok.encode("<|user|>")
        Traceback (most recent call last):
        ...
        ValueError: text contains the special token '<|user|>' at index 0, which is disallowed; pass allowed_special={'<|user|>'} to encode it as the marker, or disallowed_special=() to encode it as ordinary text

        With a template that adds BOS, the marker comes first unless
        ``add_special_tokens=False``:

        >>> bos = Tokenizer([], ["<s>"], template=("<s>", "$A"))
        >>> bos.encode("hi"), bos.encode("hi", add_special_tokens=False), bos.encode_ordinary("hi")
        ([256, 104, 105], [104, 105], [104, 105])
        """
        text = check_text(text)
        if not isinstance(add_special_tokens, bool):
            raise TypeError(f"add_special_tokens must be True or False, got {add_special_tokens!r}")
        ids = self._encode_text(text, allowed_special, disallowed_special, use_cache)
        if self.template is None or not add_special_tokens:
            return ids
        out: list[int] = []
        for piece in self.template:
            if piece == TEMPLATE_TEXT:
                out.extend(ids)
            else:
                out.append(self.special_tokens[piece])
        return out

    def _encode_text(self, text: str, allowed_special, disallowed_special, use_cache: bool) -> list[int]:
        allowed = self._special_set("allowed_special", allowed_special)
        if isinstance(disallowed_special, str) and disallowed_special == "all":
            disallowed = set(self.special_tokens) - allowed
        else:
            disallowed = self._special_set("disallowed_special", disallowed_special)
        if disallowed:
            for name in sorted(disallowed, key=len, reverse=True):
                at = text.find(name)
                if at >= 0:
                    raise ValueError(
                        f"text contains the special token {name!r} at index {at}, which is disallowed; "
                        f"pass allowed_special={{{name!r}}} to encode it as the marker, "
                        "or disallowed_special=() to encode it as ordinary text"
                    )
        if not allowed:
            return self.encode_ordinary(text, use_cache=use_cache)
        pattern = regex.compile("|".join(regex.escape(s) for s in sorted(allowed, key=len, reverse=True)))
        out: list[int] = []
        start = 0
        for m in pattern.finditer(text):
            out.extend(self.encode_ordinary(text[start:m.start()], use_cache=use_cache))
            out.append(self.special_tokens[m.group()])
            start = m.end()
        out.extend(self.encode_ordinary(text[start:], use_cache=use_cache))
        return out

    def _special_set(self, name: str, value) -> set[str]:
        if isinstance(value, str) and value == "all":
            return set(self.special_tokens)
        if isinstance(value, str):
            raise TypeError(f"{name} must be a set of special-token names or 'all', got the string {value!r}")
        try:
            names = set(value)
        except TypeError:
            raise TypeError(f"{name} must be a set of special-token names or 'all', got {type(value).__name__}") from None
        unknown = sorted(n for n in names if n not in self.special_tokens)
        if unknown:
            raise ValueError(f"{name} names unregistered special tokens {unknown}; registered: {sorted(self.special_tokens)}")
        return names

    # ---------------------------------------------------------------- decoding

    def token_bytes(self, token_id) -> bytes:
        """The bytes one ID stands for (a special token's spelling for a marker).

        >>> Tokenizer([]).token_bytes(0xE7)
        b'\\xe7'
        """
        token_id = as_int("token_id", token_id)
        if token_id in self.vocab:
            return self.vocab[token_id]
        if token_id in self._special_ids:
            return self._special_ids[token_id].encode("utf-8")
        raise ValueError(f"token_id {token_id} is not in this tokenizer (valid IDs are 0 to {self.n_vocab - 1})")

    def _pieces(self, ids) -> list[bytes]:
        if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
            raise TypeError(f"ids must be a sequence of integers, got {type(ids).__name__}")
        vocab, pieces = self.vocab, []
        for k, i in enumerate(ids):
            hit = vocab.get(i) if type(i) is int else None  # fast path: an ordinary ID
            if hit is not None:
                pieces.append(hit)
                continue
            try:
                pieces.append(self.token_bytes(i))
            except TypeError as err:
                raise TypeError(f"ids[{k}]: {err}") from None
            except ValueError as err:
                raise ValueError(f"ids[{k}]: {err}") from None
        return pieces

    def decode_bytes(self, ids) -> bytes:
        """The bytes of ``ids`` joined in order (no UTF-8 decoding yet)."""
        return b"".join(self._pieces(ids))

    def decode(self, ids, errors: str = "strict") -> str:
        """Join the tokens' bytes, then decode them as UTF-8.

        ``errors="strict"`` raises a ``ValueError`` naming the bytes that are not valid
        UTF-8 and where they sit; ``errors="replace"`` writes U+FFFD in their place.

        >>> tok = Tokenizer([])
        >>> tok.decode([0xE7, 0x8C, 0xAB])
        '猫'
        >>> tok.decode([0xE7, 0x8C], errors="replace")
        '�'
        >>> tok.decode([0xAB])
        Traceback (most recent call last):
        ...
        ValueError: bytes AB at byte 0 (token 0) are not valid UTF-8: invalid start byte; decode the tokens together with their neighbours, or pass errors='replace'
        """
        if errors not in ("strict", "replace"):
            raise ValueError(f"errors must be 'strict' or 'replace', got {errors!r}")
        pieces = self._pieces(ids)
        data = b"".join(pieces)
        if errors == "replace":
            return data.decode("utf-8", errors="replace")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise ValueError(_utf8_error(pieces, err)) from None


def _utf8_error(pieces: Sequence[bytes], err: UnicodeDecodeError) -> str:
    data = err.object
    bad = data[err.start:err.end]
    # which token holds the first offending byte
    ends, token = 0, 0
    for k, p in enumerate(pieces):
        ends += len(p)
        if ends > err.start:
            token = k
            break
    return (
        f"bytes {bad.hex(' ').upper()} at byte {err.start} (token {token}) are not valid UTF-8: "
        f"{err.reason}; decode the tokens together with their neighbours, or pass errors='replace'"
    )


def decode_trace(tokenizer: Tokenizer, ids) -> DecodeTrace:
    """Decode ``ids`` both ways and keep every piece (figure 1, bottom).

    >>> t = decode_trace(Tokenizer([]), [0xE7, 0x8C])
    >>> t.joined.hex(" ").upper(), t.strict, t.replaced
    ('E7 8C', None, '�')
    """
    if not isinstance(tokenizer, Tokenizer):
        raise TypeError(f"tokenizer must be a Tokenizer, got {type(tokenizer).__name__}")
    pieces = tuple(tokenizer._pieces(ids))
    joined = b"".join(pieces)
    try:
        strict, error, reason = joined.decode("utf-8"), None, None
    except UnicodeDecodeError as err:
        strict, error, reason = None, _utf8_error(pieces, err), err.reason
    return DecodeTrace(tuple(int(i) for i in ids), pieces, joined, strict, error, reason,
                       joined.decode("utf-8", errors="replace"))


# --------------------------------------------------------------------- training


def _check_train_args(text, vocab_size, min_frequency, tie_break):
    text = check_text(text)
    vocab_size = as_int("vocab_size", vocab_size)
    if vocab_size < 256:
        raise ValueError(f"vocab_size must be >= 256 (the byte symbols come first), got {vocab_size}")
    min_frequency = as_int("min_frequency", min_frequency, low=1)
    return text, vocab_size, min_frequency, _check_tie_break(tie_break)


def _tie_rank(tie_break: str, vocab: list[bytes]) -> list:
    """What each symbol ID sorts by when counts tie, as a list indexed by ID (among
    pairs of equal count, the smallest ``(rank[left], rank[right])`` wins): its bytes
    for ``"smallest"`` (the vocab list itself), or its Hugging Face ID for ``"hf"``
    (bytes in GPT-2 character order, then one ID per new token; :func:`_new_symbol`
    extends it)."""
    return list(hf_symbol_order()) if tie_break == "hf" else vocab


def _corpus_words(text: str) -> tuple[list[list[int]], list[int]]:
    """The distinct words of ``text`` as lists of byte values, and how often each occurs
    (ASCII text is cut as bytes directly, which saves encoding every word)."""
    if text.isascii():
        counts = Counter(_SPLIT_ASCII_BYTES.findall(text.encode("ascii")))
        words = [list(w) for w in counts]
    else:
        counts = Counter(_SPLIT.findall(text))
        words = [list(w.encode("utf-8")) for w in counts]
    return words, list(counts.values())


def _new_symbol(vocab: list[bytes], ids: dict[bytes, int], rank: list, a: int, b: int) -> int:
    """The ID of the token a+b, reusing it when an earlier merge already made it."""
    new = vocab[a] + vocab[b]
    if new not in ids:
        ids[new] = len(vocab)
        vocab.append(new)
        if rank is not vocab:
            rank.append(ids[new])
    return ids[new]


def train_naive(text: str, vocab_size: int, *, min_frequency: int = 2, tie_break: str = "smallest") -> Tokenizer:
    """The readable reference trainer: after every merge, recount every pair of every
    word from scratch. Slow (it redoes all the work each step) but obviously right.

    >>> train_naive("low lower newer " * 10, 260).merges[:2]
    [(b'e', b'r'), (b'l', b'o')]
    """
    text, vocab_size, min_frequency, tie_break = _check_train_args(text, vocab_size, min_frequency, tie_break)
    words, counts = _corpus_words(text)
    vocab = [bytes([b]) for b in range(256)]
    ids = {v: k for k, v in enumerate(vocab)}
    rank = _tie_rank(tie_break, vocab)
    merges = []
    table = {tuple(w): n for w, n in zip(words, counts)}
    while len(vocab) < vocab_size:
        stats = pair_counts(table)
        if not stats:
            break
        pair = min(stats, key=lambda p: (-stats[p], rank[p[0]], rank[p[1]]))
        if stats[pair] < min_frequency:
            break
        new = _new_symbol(vocab, ids, rank, *pair)
        merges.append((vocab[pair[0]], vocab[pair[1]]))
        merged: dict[tuple, int] = {}
        for symbols, n in table.items():
            s = apply_merge(symbols, pair, new)
            merged[s] = merged.get(s, 0) + n
        table = merged
    return Tokenizer(merges)


def train(text: str, vocab_size: int, *, min_frequency: int = 2, tie_break: str = "smallest") -> Tokenizer:
    """Train byte-level BPE incrementally.

    Pair counts are computed once. An index maps each pair to the words that hold it;
    after a merge only those words are rewritten, and the counts change by the pairs
    those words lost and gained (with one occurrence in a word, just the pairs beside
    it). A heap yields the most frequent pair (entries made stale by a merge are
    corrected when they surface). Learns exactly the merges of :func:`train_naive`.

    Training stops when the vocabulary (256 bytes + learned tokens) has ``vocab_size``
    entries, or when no pair occurs at least ``min_frequency`` times.

    >>> train("low lower newer " * 10, 262).merges
    [(b'e', b'r'), (b'l', b'o'), (b'lo', b'w'), (b' ', b'low'), (b' ', b'n'), (b' low', b'er')]
    """
    text, vocab_size, min_frequency, tie_break = _check_train_args(text, vocab_size, min_frequency, tie_break)
    words, counts = _corpus_words(text)
    vocab = [bytes([b]) for b in range(256)]
    ids = {v: k for k, v in enumerate(vocab)}
    rank = _tie_rank(tie_break, vocab)

    stats: defaultdict = defaultdict(int)  # pair → weighted count
    where: defaultdict = defaultdict(set)  # pair → indices of words that held it
    for w, (symbols, n) in enumerate(zip(words, counts)):
        for pair in zip(symbols, symbols[1:]):
            stats[pair] += n
            where[pair].add(w)
    # heap entries: (−count, tie rank of left, tie rank of right, pair); a pair below
    # min_frequency never enters (no count of an existing pair ever grows)
    heap = [(-c, rank[p[0]], rank[p[1]], p) for p, c in stats.items() if c >= min_frequency]
    heapq.heapify(heap)

    merges = []
    heappop, heappush = heapq.heappop, heapq.heappush
    while len(vocab) < vocab_size and heap:
        neg, _, _, pair = heappop(heap)
        count = stats.get(pair, 0)
        if -neg != count:  # stale: the count fell since this entry was pushed
            if count >= min_frequency:
                heappush(heap, (-count, rank[pair[0]], rank[pair[1]], pair))
            continue
        if count < min_frequency:
            break
        a, b = pair
        new = _new_symbol(vocab, ids, rank, a, b)
        merges.append((vocab[a], vocab[b]))
        gained = set()
        for w in where.pop(pair):
            symbols = words[w]
            seen = symbols.count(a)
            if seen == 0:  # the index is lazy: this word lost the pair earlier
                continue
            n = counts[w]
            if seen == 1 and a != b:
                # the common case, one occurrence: only the pairs beside it change
                # (the pair's own count is dropped after the loop)
                i = symbols.index(a)
                last = len(symbols) - 1
                if i == last or symbols[i + 1] != b:
                    continue
                if i > 0:
                    left = symbols[i - 1]
                    stats[(left, a)] -= n
                    p = (left, new)
                    stats[p] += n
                    where[p].add(w)
                    gained.add(p)
                if i < last - 1:
                    right = symbols[i + 2]
                    stats[(b, right)] -= n
                    p = (new, right)
                    stats[p] += n
                    where[p].add(w)
                    gained.add(p)
                symbols[i] = new  # the word is rewritten in place
                del symbols[i + 1]
                continue
            # several occurrences: recount this word's pairs before and after
            merged = _merge_list(symbols, a, b, new)
            if merged is None:
                continue
            for p in zip(symbols, symbols[1:]):
                stats[p] -= n
            prev = merged[0]
            for s in merged[1:]:
                p = (prev, s)
                stats[p] += n
                if prev == new or s == new:
                    where[p].add(w)
                    gained.add(p)
                prev = s
            words[w] = merged
        del stats[pair]
        for p in gained:
            if stats[p] >= min_frequency:
                heappush(heap, (-stats[p], rank[p[0]], rank[p[1]], p))
    return Tokenizer(merges)


def _merge_list(symbols: Sequence, a, b, new) -> list | None:
    """Replace each ``a`` followed by ``b``, left to right, by ``new``; None when the
    pair does not occur (the one merge loop the trainers, the encoder and
    :func:`apply_merge` share)."""
    out, i, n, changed = [], 0, len(symbols), False
    append = out.append
    while i < n:
        s = symbols[i]
        if s == a and i + 1 < n and symbols[i + 1] == b:
            append(new)
            i += 2
            changed = True
        else:
            append(s)
            i += 1
    return out if changed else None


# ------------------------------------------------------------ the teaching trainer


@dataclass(frozen=True)
class MergeStep:
    """One step of :func:`teach_merges`."""

    step: int  #                                   1-based merge number
    counts: dict  #                                (left, right) → weighted count, before this merge
    chosen: tuple[str, str]  #                     the pair merged
    count: int  #                                  its weighted count
    tied: tuple[tuple[str, str], ...]  #           every pair with that same count (chosen first)
    segmentation: dict  #                          word → its symbols after this merge


@dataclass(frozen=True)
class TeachingTrace:
    """A whole teaching run over a word-count table: the start and every merge."""

    table: dict  #                                 word → count
    alphabet: tuple[str, ...]  #                   the base symbols (characters)
    start: dict  #                                 word → its characters
    steps: tuple[MergeStep, ...]
    stopped: str  #                                why training ended

    @property
    def merges(self) -> list[tuple[str, str]]:
        return [s.chosen for s in self.steps]

    def segmentation(self, after: int) -> dict:
        """Each word's symbols after ``after`` merges (0 = characters)."""
        after = as_int("after", after, low=0, high=len(self.steps))
        return self.start if after == 0 else self.steps[after - 1].segmentation


def teach_merges(table: Mapping[str, int], n_merges: int, *, min_frequency: int = 1,
                 alphabet: str | None = None) -> TeachingTrace:
    """BPE on a word-count table of characters, keeping every number of every step.

    Word boundaries are left out (each word is merged on its own). Ties go to the
    smallest pair in character order, so ``e r`` beats ``w e``.

    >>> t = teach_merges({"low": 5, "lower": 2, "newer": 6}, 3)
    >>> [" ".join(s.chosen) for s in t.steps], t.steps[0].counts[("e", "r")]
    (['e r', 'w er', 'l o'], 8)
    """
    if not isinstance(table, Mapping) or not table:
        raise TypeError("table must be a non-empty mapping word → count")
    for w, n in table.items():
        if not isinstance(w, str) or not w:
            raise TypeError(f"table keys must be non-empty strings, got {w!r}")
        as_int(f"table[{w!r}]", n, low=1)
    n_merges = as_int("n_merges", n_merges, low=0)
    min_frequency = as_int("min_frequency", min_frequency, low=1)
    if alphabet is not None and not isinstance(alphabet, str):
        alphabet = as_list("alphabet", alphabet, "characters", item=_check_char)
    chars = sorted({c for w in table for c in w}) if alphabet is None else sorted(set(alphabet))
    start = {w: tuple(w) for w in table}
    seg = dict(start)
    steps = []
    stopped = f"reached {n_merges} merges"
    for k in range(1, n_merges + 1):
        counts = pair_counts({seg[w]: n for w, n in table.items()})
        if not counts:
            stopped = "every word is a single symbol"
            break
        best = max(counts.values())
        if best < min_frequency:
            stopped = f"no pair occurs {min_frequency} times"
            break
        tied = tuple(sorted(p for p, c in counts.items() if c == best))
        chosen = tied[0]
        seg = {w: apply_merge(s, chosen, chosen[0] + chosen[1]) for w, s in seg.items()}
        steps.append(MergeStep(k, dict(sorted(counts.items())), chosen, best, tied, dict(seg)))
    return TeachingTrace(dict(table), tuple(chars), start, tuple(steps), stopped)


@dataclass(frozen=True)
class EncodeWordTrace:
    """Encoding one new word with learned merges over a base alphabet."""

    word: str
    symbols: tuple[str, ...] | None  #  the segmentation, or None if the word cannot be encoded
    missing: tuple[str, ...]  #         characters that are not base symbols


def encode_word(word: str, merges: Sequence[tuple[str, str]], alphabet: Iterable[str]) -> EncodeWordTrace:
    """Apply character-level merges, in rank order, to a new word; a character
    outside the base alphabet makes the word unencodable.

    >>> encode_word("lower", [("e", "r"), ("w", "er"), ("l", "o")], "lowenr").symbols
    ('lo', 'wer')
    >>> encode_word("lowest", [("e", "r")], "lowenr").missing
    ('s', 't')
    """
    word = check_text(word, "word")
    merges = as_list("merges", merges, "(left, right) pairs of strings", item=_check_str_pair)
    alphabet = set(alphabet if isinstance(alphabet, str) else
                   as_list("alphabet", alphabet, "characters", item=_check_char))
    missing = tuple(sorted(set(word) - alphabet, key=word.index))
    if missing:
        return EncodeWordTrace(word, None, missing)
    return EncodeWordTrace(word, merge_word(tuple(word), merges), ())


def merge_word(symbols: tuple, merges: Sequence[tuple]) -> tuple:
    """Apply ``merges`` in rank order to one word's symbols.

    >>> merge_word(tuple("newer"), [("e", "r"), ("w", "er")])
    ('n', 'e', 'wer')
    """
    symbols = tuple(as_list("symbols", symbols, "symbols"))
    for a, b in as_list("merges", merges, "(left, right) pairs", item=_check_str_pair):
        symbols = apply_merge(symbols, (a, b), a + b)
    return symbols


def _check_str_pair(k: int, pair) -> None:
    if (not isinstance(pair, tuple) or len(pair) != 2
            or not all(isinstance(p, (str, bytes)) for p in pair) or type(pair[0]) is not type(pair[1])):
        raise TypeError(f"merges[{k}] must be a (left, right) pair of strings, got {type(pair).__name__}")


def _check_char(k: int, char) -> None:
    if not isinstance(char, str):
        raise TypeError(f"alphabet[{k}] must be a character, got {type(char).__name__}")


# ------------------------------------------------------------------ chat template


@dataclass(frozen=True)
class ChatTrace:
    """A conversation rendered by :func:`render_chat`."""

    text: str  #                     the marked string, as a reader would see it
    ids: tuple[int, ...]  #          its IDs: markers as special IDs, bodies as ordinary text
    pieces: tuple[str, ...]  #       each ID's text (markers by name)
    marker_positions: tuple[int, ...]  # indices into ids that are special tokens


def render_chat(tokenizer: Tokenizer, messages: Sequence[Mapping[str, str]], *,
                add_generation_prompt: bool = False, end: str = "<|end|>") -> ChatTrace:
    """Render messages as ``<|role|>`` + body + ``<|end|>``, and encode them.

    Markers are inserted by the template as special IDs; message bodies are always
    encoded as ordinary text, so a body that spells a marker stays text (the injection
    guard).

    >>> tok = Tokenizer([]).with_special_tokens(["<|user|>", "<|assistant|>", "<|end|>"])
    >>> t = render_chat(tok, [{"role": "user", "content": "hi"}])
    >>> t.text, t.ids
    ('<|user|>hi<|end|>', (256, 104, 105, 258))
    """
    if not isinstance(tokenizer, Tokenizer):
        raise TypeError(f"tokenizer must be a Tokenizer, got {type(tokenizer).__name__}")
    if isinstance(messages, (str, Mapping)):
        raise TypeError("messages must be a list of {'role': …, 'content': …} dicts")
    messages = as_list("messages", messages, "{'role': …, 'content': …} dicts")
    add_generation_prompt = as_bool("add_generation_prompt", add_generation_prompt)
    if not isinstance(end, str):
        raise TypeError(f"end must be a special token's name, got {type(end).__name__}")
    if end not in tokenizer.special_tokens:
        raise ValueError(f"end marker {end!r} is not a special token of this tokenizer")
    text, ids, pieces, markers = [], [], [], []

    def marker(name):
        markers.append(len(ids))
        ids.append(tokenizer.special_tokens[name])
        pieces.append(name)
        text.append(name)

    for k, msg in enumerate(messages):
        if not isinstance(msg, Mapping) or set(msg) != {"role", "content"}:
            raise TypeError(f"messages[{k}] must be a dict with exactly 'role' and 'content'")
        role, body = msg["role"], check_text(msg["content"], f"messages[{k}]['content']")
        name = f"<|{role}|>"
        if name not in tokenizer.special_tokens:
            raise ValueError(f"messages[{k}] has role {role!r}, but {name!r} is not a special token of this tokenizer")
        marker(name)
        body_ids = tokenizer.encode_ordinary(body)
        ids.extend(body_ids)
        pieces.extend(tokenizer.decode_bytes([i]).decode("utf-8", errors="replace") for i in body_ids)
        text.append(body)
        marker(end)
    if add_generation_prompt:
        marker("<|assistant|>")
    return ChatTrace("".join(text), tuple(ids), tuple(pieces), tuple(markers))


# ------------------------------------------------------------------- normalisation


@dataclass(frozen=True)
class NormalizeTrace:
    """Each normalisation step and the text after it."""

    steps: tuple[tuple[str, str], ...]  # (step name, text after it)

    @property
    def text(self) -> str:
        return self.steps[-1][1]


def normalize(text: str, *, nfkc: bool = True, lowercase: bool = False,
              strip_accents: bool = False) -> NormalizeTrace:
    """Unicode NFKC (full-width → ASCII, ligatures split), then optional case folding
    and accent stripping, as an uncased model does before its tokenizer.

    >>> normalize("Ｔｒａｎｓｆｏｒｍｅｒ", lowercase=True).text
    'transformer'
    """
    text = check_text(text)
    nfkc, lowercase = as_bool("nfkc", nfkc), as_bool("lowercase", lowercase)
    strip_accents = as_bool("strip_accents", strip_accents)
    steps = [("input", text)]
    if nfkc:
        text = unicodedata.normalize("NFKC", text)
        steps.append(("NFKC", text))
    if lowercase:
        text = text.casefold()
        steps.append(("case fold", text))
    if strip_accents:
        text = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
        steps.append(("strip accents", text))
    return NormalizeTrace(tuple(steps))


# --------------------------------------------------------------- pre-tokenisation


@dataclass(frozen=True)
class PretokenTrace:
    """The words the GPT-2 pattern cuts from a text, with their UTF-8 bytes."""

    text: str
    words: tuple[str, ...]
    n_bytes: tuple[int, ...]  # [n_words]  UTF-8 length of each word


def pretokenize_trace(text: str) -> PretokenTrace:
    """:func:`pretokenize` with the byte length of every word.

    >>> pretokenize_trace("我喜欢 Transformer。").words
    ('我喜欢', ' Transformer', '。')
    """
    words = tuple(pretokenize(text))
    return PretokenTrace(text, words, tuple(len(w.encode("utf-8")) for w in words))


# ------------------------------------------------------------------ UTF-8 lengths


@dataclass(frozen=True)
class Utf8Trace:
    """Each character of a text and its UTF-8 bytes."""

    text: str
    chars: tuple[str, ...]
    codes: tuple[bytes, ...]  # [n_chars]  the bytes of each character

    @property
    def n_bytes(self) -> int:
        return sum(len(c) for c in self.codes)

    def hex(self) -> str:
        """All bytes as upper-case hex pairs."""
        return b"".join(self.codes).hex(" ").upper()


def utf8_trace(text: str) -> Utf8Trace:
    """Split ``text`` into characters and their UTF-8 bytes.

    >>> t = utf8_trace("a猫"); t.hex(), t.n_bytes
    ('61 E7 8C AB', 4)
    """
    text = check_text(text)
    return Utf8Trace(text, tuple(text), tuple(c.encode("utf-8") for c in text))


@dataclass(frozen=True)
class SplitCharTrace:
    """Figure 1, bottom: one character's bytes split over two tokens."""

    char: str
    code: bytes  #            all its UTF-8 bytes
    first: DecodeTrace  #     the first token decoded alone
    second: DecodeTrace  #    the second token decoded alone
    joined: DecodeTrace  #    both tokens decoded together


def split_char(char: str, at: int) -> SplitCharTrace:
    """Put the first ``at`` bytes of ``char`` in one token and the rest in a second,
    and decode each alone and both together.

    >>> t = split_char("猫", 2)
    >>> t.first.joined.hex(" ").upper(), t.second.joined.hex(" ").upper(), t.joined.strict
    ('E7 8C', 'AB', '猫')
    """
    char = check_text(char, "char")
    if len(char) != 1:
        raise ValueError(f"char must be one character, got {len(char)}: {char!r}")
    code = char.encode("utf-8")
    at = as_int("at", at, low=1, high=len(code) - 1) if len(code) > 1 else None
    if at is None:
        raise ValueError(f"char {char!r} is a single byte; it cannot be split")
    tok = Tokenizer([(code[:1], code[1:2])] if at == 2 else [])  # token 1 = first two bytes
    first = _tokens_for(tok, code[:at])
    second = _tokens_for(tok, code[at:])
    return SplitCharTrace(char, code, decode_trace(tok, first), decode_trace(tok, second),
                          decode_trace(tok, first + second))


def _tokens_for(tok: Tokenizer, data: bytes) -> list[int]:
    return list(tok._bpe(data))


# ------------------------------------------------------------------- vocabulary size


@dataclass(frozen=True)
class VocabGrowth:
    """What a bigger vocabulary costs at a fixed width: rows of the embedding (and of
    the LM head) grow with the vocabulary."""

    old: int
    new: int
    width: int
    added_rows: int
    added_per_matrix: int  # added_rows × width


def vocab_growth(old: int, new: int, width: int) -> VocabGrowth:
    """Parameters added to one [vocab, width] matrix when the vocabulary grows.

    >>> vocab_growth(32 * 1024, 128 * 1024, 4096).added_per_matrix
    402653184
    """
    old = as_int("old", old, low=1)
    new = as_int("new", new, low=old)
    width = as_int("width", width, low=1)
    return VocabGrowth(old, new, width, new - old, (new - old) * width)


@dataclass(frozen=True)
class IdCollision:
    """Figure 2: one ID, two vocabularies, one embedding row."""

    token_id: int
    token_a: str  #                 what ID means in vocabulary A
    token_b: str  #                 what it means in vocabulary B
    row: tuple[float, ...]  #       the embedding row both read


def id_collision(token_id: int, vocab_a: Mapping[int, str], vocab_b: Mapping[int, str],
                 rows: Mapping[int, Sequence[float]]) -> IdCollision:
    """The row an ID reads does not depend on which tokenizer produced the ID.

    >>> id_collision(1, {1: "猫"}, {1: "return"}, {1: (0.5, 0.1)}).row
    (0.5, 0.1)
    """
    token_id = as_int("token_id", token_id, low=0)
    for name, table in (("vocab_a", vocab_a), ("vocab_b", vocab_b), ("rows", rows)):
        if not isinstance(table, Mapping) or token_id not in table:
            raise ValueError(f"{name} must map ID {token_id} to an entry")
    return IdCollision(token_id, vocab_a[token_id], vocab_b[token_id], tuple(float(x) for x in rows[token_id]))


# ------------------------------------------------------------------- the demo tokenizer


@functools.cache
def demo_tokenizer() -> Tokenizer:
    """The book's small demo tokenizer: byte-level BPE trained on
    :data:`~tokenpath.examples.DEMO_CORPUS` with the book's special tokens registered.
    Deterministic, and fast enough to build in a notebook.

    >>> demo_tokenizer().special_tokens["<|assistant|>"] > 255
    True
    """
    from .examples import DEMO_CORPUS, DEMO_VOCAB_SIZE, SPECIAL_TOKENS

    return train(DEMO_CORPUS, DEMO_VOCAB_SIZE).with_special_tokens(SPECIAL_TOKENS)


@dataclass(frozen=True)
class Chip:
    """One token as the text box shows it."""

    token_id: int
    data: bytes  #     its bytes
    text: str  #       its bytes decoded for display (U+FFFD where a character is split)
    special: bool


def token_chips(text: str, tokenizer: Tokenizer | None = None, *, allowed_special=frozenset()) -> tuple[Chip, ...]:
    """Encode ``text`` and describe every token: ID, bytes and printable text.
    Marker spellings are ordinary text unless ``allowed_special`` names them.

    >>> [(c.data.hex(), c.text) for c in token_chips("猫", Tokenizer([(b"\\xe7", b"\\x8c")]))]
    [('e78c', '�'), ('ab', '�')]
    """
    tok = demo_tokenizer() if tokenizer is None else tokenizer
    if not isinstance(tok, Tokenizer):
        raise TypeError(f"tokenizer must be a Tokenizer, got {type(tok).__name__}")
    ids = tok.encode(text, allowed_special=allowed_special, disallowed_special=())
    out = []
    for i in ids:
        data = tok.token_bytes(i)
        out.append(Chip(i, data, data.decode("utf-8", errors="replace"), i in tok._special_ids))
    return tuple(out)


def chips_text(chips: Sequence[Chip]) -> str:
    """One line per token: ID, its text (repr, so spaces show) and its bytes in hex.

    >>> print(chips_text(token_chips("猫", Tokenizer([]))))
    231  '\ufffd'  E7
    140  '\ufffd'  8C
    171  '\ufffd'  AB
    """
    chips = as_list("chips", chips, "Chip objects (from token_chips)")
    for k, c in enumerate(chips):
        if not isinstance(c, Chip):
            raise TypeError(f"chips[{k}] must be a Chip (from token_chips), got {type(c).__name__}")
    return "\n".join(f"{c.token_id:>3}  {c.text!r:<14}  {c.data.hex(' ').upper()}" for c in chips)


# ------------------------------------------------------------------ a corpus nobody here wrote


def stdlib_corpus(limit: int = 1 << 20) -> str:
    """The first ``limit`` bytes of the running interpreter's standard-library ``.py``
    files (sorted paths, third-party packages excluded), as text. Deterministic for a
    given interpreter; used by the cross-checks and the speed benchmark."""
    import sysconfig
    from pathlib import Path

    limit = as_int("limit", limit, low=1)
    root = Path(sysconfig.get_paths()["stdlib"])
    parts, size = [], 0
    for path in sorted(root.rglob("*.py")):
        if "site-packages" in path.parts or "dist-packages" in path.parts:
            continue
        try:
            data = path.read_bytes()
            data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        parts.append(data)
        size += len(data)
        if size >= limit:
            break
    return b"".join(parts)[:limit].decode("utf-8", errors="ignore")


# ------------------------------------------------------------ figure 1: merge replay


@dataclass(frozen=True)
class PairRow:
    """One weighted pair count, with the share each word contributes."""

    pair: tuple[str, str]
    count: int
    terms: tuple[int, ...]  # [n_words]  count × occurrences per word, in table order (0 = absent)


@dataclass(frozen=True)
class ReplayState:
    """Figure 1 (top) after ``step`` merges of the teaching trainer: each word's
    symbols, the pair counts of that segmentation, and the merge they choose next."""

    step: int
    table: dict  #                                 word → count
    segmentation: dict  #                          word → symbols after `step` merges
    rows: tuple[PairRow, ...]  #                   pair counts now: highest first, ties by pair
    next_pair: tuple[str, str] | None  #           the pair merge `step + 1` takes
    tied: tuple[tuple[str, str], ...]  #           pairs sharing its count (smallest first)
    learned: tuple[MergeStep, ...]  #              the whole run (the figure's merge list)
    encoded: tuple[EncodeWordTrace, ...]  #        new words with every learned merge
    encoded_extra: tuple[EncodeWordTrace, ...]  #  … and with extra base letters


@functools.cache
def _replay_run(table: tuple, n_merges: int) -> TeachingTrace:
    return teach_merges(dict(table), n_merges)


def merge_replay(step: int, *, table: Mapping[str, int] | None = None, n_merges: int | None = None,
                 new_words: Sequence[str] | None = None, extra_letters: str | None = None) -> ReplayState:
    """The state of figure 1's table after ``step`` merges (0 = characters), for the
    figure and its slider. Defaults are the book's figure-1 constants.

    >>> s = merge_replay(0)
    >>> [(" ".join(r.pair), r.count) for r in s.rows[:4]], s.next_pair
    ([('e r', 8), ('w e', 8), ('l o', 7), ('o w', 7)], ('e', 'r'))
    >>> merge_replay(3).segmentation["lower"]
    ('lo', 'wer')
    """
    from . import examples as ex

    if table is not None and not isinstance(table, Mapping):
        raise TypeError(f"table must be a mapping word → count, got {type(table).__name__}")
    table = dict(ex.FIG1_TABLE if table is None else table)
    n_merges = ex.FIG1_MERGES if n_merges is None else as_int("n_merges", n_merges, low=1)
    new_words = ex.FIG1_NEW_WORDS if new_words is None else tuple(
        check_text(w, f"new_words[{k}]") for k, w in enumerate(as_list("new_words", new_words, "words")))
    if extra_letters is not None and not isinstance(extra_letters, str):
        raise TypeError(f"extra_letters must be a str of characters, got {type(extra_letters).__name__}")
    extra = ex.FIG1_EXTRA_LETTERS if extra_letters is None else extra_letters
    step = as_int("step", step, low=0, high=n_merges)
    run = _replay_run(tuple(table.items()), n_merges + 1)  # one more: the pair chosen next
    seg = run.segmentation(min(step, len(run.steps)))
    rows = []
    for pair, count in pair_counts({seg[w]: n for w, n in table.items()}).items():
        terms = tuple(n * sum(1 for p in zip(seg[w], seg[w][1:]) if p == pair) for w, n in table.items())
        rows.append(PairRow(pair, count, terms))
    rows.sort(key=lambda r: (-r.count, r.pair))
    nxt = run.steps[step] if step < len(run.steps) else None
    learned = run.steps[:n_merges]
    merges = [s.chosen for s in learned]
    encoded = tuple(encode_word(w, merges, run.alphabet) for w in new_words)
    encoded_extra = tuple(encode_word(w, merges, run.alphabet + tuple(extra)) for w in new_words)
    return ReplayState(step, table, dict(seg), tuple(rows), nxt.chosen if nxt else None,
                       nxt.tied if nxt else (), tuple(learned), encoded, encoded_extra)
