"""Chapter 2's capstone, "a tokenizer that matches SmolLM2's": the reader writes
``train`` (byte-level BPE training, checked against the engine's trainer on small
corpora) and ``encode`` (pre-tokenise with a sequence of patterns, map bytes to GPT-2's
printable characters, merge the lowest-rank pair first, look the symbols up), each a
registered exercise; :mod:`.capstone_match` then runs the reader's ``encode`` and
``decode`` over 1,000 lines against SmolLM2's own tokenizer.

The ``encode`` cases use a small tokenizer the engine trains here, written the way a
GGUF file writes one: merges as pairs of GPT-2 character strings, a vocabulary of
such strings, and SmolLM2's two-stage pattern (each digit alone, then GPT-2's regex).
"""

from __future__ import annotations

import math
from collections import Counter

import regex

from .. import bpe
from ..bpe import GPT2_PATTERN, bytes_to_unicode
from ..examples import bpe as ex
from ..i18n import N_, _
from ..model.gguf_tokenizer import GGUF_PRE_PATTERNS
from .checker import Case, Exercise, Field, Mistake

__all__ = ["ENCODE", "EXERCISES", "SMOLLM_PATTERN", "TRAIN"]  # the teaching solutions check nothing: not public

#: SmolLM2's pre-tokenizer (``tokenizer.ggml.pre = "smollm"``): each digit alone, then GPT-2's pattern.
SMOLLM_PATTERN: tuple[str, str] = tuple(GGUF_PRE_PATTERNS["smollm"])


# ------------------------------------------------------------------- train

_TRAIN_STUB = '''\
def train(text, vocab_size):
    """Byte-level BPE merges learned from text, in the order they are learned.

    Cut text into words with GPT-2's pattern (tokenpath.bpe.GPT2_PATTERN and
    regex.findall), write each word as a tuple of one-byte bytes objects, and count
    each distinct word.  Then repeat until 256 + len(merges) == vocab_size: count
    every adjacent pair, weighted by its word's count; take the most frequent pair,
    the smallest pair (a, b) among equal counts; stop if it occurs fewer than 2
    times; record it and merge it in every word, left to right.
    Returns a list of (a, b) pairs of bytes, such as [(b"e", b"r"), (b"l", b"o")].
    """
    ...
'''


def _reference_train(text, vocab_size):
    return bpe.train(text, vocab_size).merges


def train(text, vocab_size):
    """The teaching solution: count pairs, merge the most frequent, repeat."""
    words = Counter(tuple(bytes([b]) for b in w.encode("utf-8")) for w in regex.findall(GPT2_PATTERN, text))
    merges = []
    while 256 + len(merges) < vocab_size:
        pairs = Counter()
        for w, n in words.items():
            for pair in zip(w, w[1:]):
                pairs[pair] += n
        best = min(pairs, key=lambda p: (-pairs[p], p), default=None)
        if best is None or pairs[best] < 2:
            break
        merges.append(best)
        merged = {}
        for w, n in words.items():  # merge best in every word, left to right
            out = [w[0]]
            for s in w[1:]:
                out[-1:] = [out[-1] + s] if (out[-1], s) == best else [out[-1], s]
            merged[tuple(out)] = n
        words = merged
    return merges


def _merged(word, pair):
    """``word`` with every ``pair`` merged, left to right (chapter 1's merge step)."""
    out = []
    for s in word:
        if out and (out[-1], s) == pair:
            out[-1] = out[-1] + s
        else:
            out.append(s)
    return tuple(out)


def _merged_from_right(word, pair):
    """``word`` with ``pair`` merged right to left: 'a a a' becomes 'a aa', not 'aa a'."""
    out = []
    for s in reversed(word):
        if out and (s, out[-1]) == pair:
            out[-1] = s + out[-1]
        else:
            out.append(s)
    return tuple(reversed(out))


def _train_with(text, vocab_size, *, split=True, weighted=True, tie=1, floor=2, merge=_merged):
    """The teaching trainer with one rule changed (the catalogued mistakes): ``split`` is
    True (GPT-2's pattern), False (no cut), "spaces" (``str.split()``) or "space"
    (``str.split(" ")``); ``tie`` is 1 (the smallest pair), -1 (the largest) or 0 (the
    first pair counted, as ``max`` and ``Counter.most_common`` give it); ``merge`` merges
    a pair in a word (left to right, or :func:`_merged_from_right`)."""
    found = {True: lambda: regex.findall(GPT2_PATTERN, text), False: lambda: [text],
             "spaces": text.split, "space": lambda: text.split(" ")}[split]()
    words = Counter(tuple(bytes([b]) for b in w.encode("utf-8")) for w in found)
    if not weighted:
        words = {w: 1 for w in words}
    merges = []
    while 256 + len(merges) < vocab_size:
        pairs = bpe.pair_counts(words)  # the engine's weighted pair counts
        if not pairs:
            break
        top = max(pairs.values())
        tied = sorted(p for p in pairs if pairs[p] == top)
        best = {1: tied[0], -1: tied[-1], 0: next(p for p in pairs if pairs[p] == top)}[tie]
        if pairs[best] < floor:
            break
        merges.append(best)
        words = {merge(w, best): n for w, n in words.items()}
    return merges


def _train_cases() -> tuple[Case, ...]:
    fig1 = " ".join(w for w, n in ex.FIG1_TABLE.items() for _k in range(n))
    return (Case(_("the worked example (figure 1's words: low ×5, lower ×2, newer ×6), 262 entries"), (fig1, 262)),
            Case(_("chapter 2's demo corpus (English and Chinese), 300 entries"), (ex.DEMO_CORPUS, 300)),
            Case(_("'aaaa aaaa ab ab' with room for more merges than the text holds"), ("aaaa aaaa ab ab", 270)),
            Case(_("'aaa aaa aaa baaa': a run of three a, merged left to right"), ("aaa aaa aaa baaa", 270)),
            Case(_("a line of code with digits, 280 entries"),
                 ("for i in range(10): x = x + 1  # 10 10 100\n" * 3, 280)),
            Case(_("the round-trip texts (emoji, Chinese), 270 entries"), (" ".join(ex.ROUND_TRIP_TEXTS) * 2, 270)))


TRAIN = Exercise(
    "train", 2, N_("byte-level BPE training"), _TRAIN_STUB, _reference_train, (bpe.train,),
    (Field("merges", N_("the merges, in the order learned"), (), "exact"),), _train_cases,
    (Mistake(N_("ties broken by the largest pair"), N_("among pairs of equal count you took the largest; the engine (and "
             "this capstone) takes the smallest pair (a, b), comparing bytes."),
             lambda text, vocab_size: _train_with(text, vocab_size, tie=-1)),
     Mistake(N_("ties broken by the first pair counted"), N_("among pairs of equal count you took the one counted "
             "first, as max(pairs, key=pairs.get) and Counter.most_common do; the engine takes the smallest "
             "pair (a, b), comparing bytes."), lambda text, vocab_size: _train_with(text, vocab_size, tie=0)),
     Mistake(N_("no pre-tokenisation"), N_("you counted pairs over the whole text as one word, so merges join across "
             "spaces and punctuation; cut the text with GPT-2's pattern first."),
             lambda text, vocab_size: _train_with(text, vocab_size, split=False)),
     Mistake(N_("words cut at spaces"), N_("you cut the text with str.split(), which drops the spaces; GPT-2's pattern "
             "keeps a word's leading space (' lower') and cuts punctuation off, so the merges differ."),
             lambda text, vocab_size: _train_with(text, vocab_size, split="spaces")),
     Mistake(N_("words cut at single spaces"), N_("you cut the text with str.split(\" \"), which drops the spaces; GPT-2's "
             "pattern keeps a word's leading space (' lower') and cuts punctuation and line breaks off, so the "
             "merges differ."), lambda text, vocab_size: _train_with(text, vocab_size, split="space")),
     Mistake(N_("merged right to left"), N_("you merged a pair starting from the end of the word, so 'a a a' became "
             "'a aa'; chapter 1 merges left to right: 'aa a'."),
             lambda text, vocab_size: _train_with(text, vocab_size, merge=_merged_from_right)),
     Mistake(N_("counts not weighted"), N_("you counted each distinct word once; a pair inside a word seen 5 times "
             "counts 5."), lambda text, vocab_size: _train_with(text, vocab_size, weighted=False)),
     Mistake(N_("pairs seen once merged"), N_("you kept merging pairs that occur only once; training stops when the "
             "most frequent pair occurs fewer than 2 times."),
             lambda text, vocab_size: _train_with(text, vocab_size, floor=1))),
    teaching=train,
)


# ------------------------------------------------------------------ encode

_ENCODE_STUB = '''\
def encode(text, merges, token_id, pattern):
    """The token IDs of text, as a byte-level BPE tokenizer such as SmolLM2's gives them.

    merges: dict (left, right) -> rank (0 merges first); left and right are strings
    of GPT-2's printable characters, as SmolLM2's GGUF file writes tokens ("Ġ" is a space).
    token_id: dict token string -> ID.  pattern: a list of regexes applied in turn:
    the first cuts the text into pieces, each next one cuts every piece again
    (regex.findall).  Write each piece's UTF-8 bytes as GPT-2's characters
    (tokenpath.bpe.bytes_to_unicode() maps byte -> character), merge the
    lowest-rank adjacent pair until none has a rank (the leftmost of equal ranks),
    then look each symbol up in token_id.  Returns a list of ints.
    """
    ...
'''


def encode(text, merges, token_id, pattern):
    """The teaching solution: cut, map the bytes, merge the lowest rank first, look up."""
    char = bytes_to_unicode()  # byte -> GPT-2's printable character
    pieces = [text]
    for p in pattern:  # each pattern cuts every piece of the one before
        pieces = [w for piece in pieces for w in regex.findall(p, piece)]
    ids = []
    for piece in pieces:
        word = [char[b] for b in piece.encode("utf-8")]
        while len(word) > 1:
            rank, k = min((merges.get(pair, math.inf), k) for k, pair in enumerate(zip(word, word[1:])))
            if rank == math.inf:
                break
            word[k:k + 2] = [word[k] + word[k + 1]]
        ids += [token_id[s] for s in word]
    return ids


def decode(ids, vocab):
    """The teaching solution: each token's characters back to bytes, joined, decoded once."""
    byte_of = {c: b for b, c in bytes_to_unicode().items()}  # GPT-2's character -> byte
    data = bytes(byte_of[c] for i in ids for c in vocab[i])
    return data.decode("utf-8", errors="replace")


def as_gguf_strings(tokenizer: bpe.Tokenizer) -> tuple[dict, dict, list]:
    """A tokenizer's merges, token IDs and vocabulary the way a GGUF file writes them:
    ``({(left, right): rank}, {token: ID}, [token of each ID])``, every token a string
    of GPT-2's printable characters (special tokens under their own spelling).

    >>> merges, token_id, vocab = as_gguf_strings(bpe.Tokenizer([(b" ", b"t")]))
    >>> merges, token_id["Ġt"], vocab[32]
    ({('Ġ', 't'): 0}, 256, 'Ġ')
    """
    char = bytes_to_unicode()
    spell = lambda data: "".join(char[b] for b in data)  # noqa: E731
    merges = {(spell(a), spell(b)): r for r, (a, b) in enumerate(tokenizer.merges)}
    vocab = [""] * tokenizer.n_vocab
    for i, data in tokenizer.vocab.items():
        vocab[i] = spell(data)
    for name, i in tokenizer.special_tokens.items():
        vocab[i] = name
    token_id = {s: i for i, s in enumerate(vocab) if s and i in tokenizer.vocab}
    return merges, token_id, vocab


def _small_tokenizer() -> bpe.Tokenizer:
    corpus = ex.DEMO_CORPUS + " 2024 1999 12345 for i in range(100):\n    total += 42\n" * 8
    return bpe.Tokenizer(bpe.train(corpus, 400).merges, pattern=SMOLLM_PATTERN)


def _reference_encode(text, merges, token_id, pattern):
    char = bytes_to_unicode()
    byte_of = {c: b for b, c in char.items()}
    raw = lambda s: bytes(byte_of[c] for c in s)  # noqa: E731
    ordered = sorted(merges, key=merges.get)
    return bpe.Tokenizer([(raw(a), raw(b)) for a, b in ordered], pattern=tuple(pattern)).encode_ordinary(text)


def _encode_cases() -> tuple[Case, ...]:
    merges, token_id, _vocab = as_gguf_strings(_small_tokenizer())
    args = lambda text: (text, merges, token_id, list(SMOLLM_PATTERN))  # noqa: E731
    ranked = as_gguf_strings(bpe.Tokenizer([(b"b", b"c"), (b"a", b"b")]))  # b+c is rank 0, a+b rank 1
    rank_case = Case(_("the rank decides, not the position: 'abc' with b+c ranked before a+b"),
                     ("abc", ranked[0], ranked[1], list(SMOLLM_PATTERN)))
    return tuple(Case(_(label), args(text)) for label, text in (
        (N_("the worked example: chapter 2's demo text"), ex.DEMO_TEXT),
        (N_("a year and a sum (each digit alone)"), "In 2024, 12345 + 42 = 12387"),
        (N_("a line of code"), "for i in range(100):\n    total += 42"),
        (N_("English words the merges know"), ex.DEMO_CORPUS[:120]),
        (N_("Chinese and an emoji"), "大语言模型 🙂 我喜欢猫。"),
        (N_("spaces, tabs and a blank line"), "a  b\t\tc\n\n d"),
        (N_("spaces before a digit"), "x  = 10\n    1"))) + (rank_case,)


def _encode_with(text, merges, token_id, pattern, *, stages=None, mapped=True, leftmost=False):
    """The teaching encoder with one rule changed (the catalogued mistakes)."""
    char = bytes_to_unicode() if mapped else {b: chr(b) for b in range(256)}
    pieces = [text]
    for p in (pattern if stages is None else stages):
        pieces = [w for piece in pieces for w in regex.findall(p, piece)]
    ids = []
    for piece in pieces:
        word = [char[b] for b in piece.encode("utf-8")]
        while len(word) > 1:
            found = [(merges.get(pair, math.inf), k) for k, pair in enumerate(zip(word, word[1:]))]
            found = [f for f in found if f[0] < math.inf]
            if not found:
                break
            _rank, k = min(found, key=lambda f: f[1]) if leftmost else min(found)
            word[k:k + 2] = [word[k] + word[k + 1]]
        ids += [token_id[s] for s in word]
    return ids


ENCODE = Exercise(
    "encode", 2, N_("byte-level BPE encoding with a GGUF file's merges"), _ENCODE_STUB, _reference_encode,
    (bpe.Tokenizer.encode_ordinary, bpe.Tokenizer.encode_word),
    (Field("ids", N_("the token IDs"), ("token",), "exact"),), _encode_cases,
    (Mistake(N_("GPT-2's pattern alone"), N_("you cut the text with GPT-2's pattern only, so a number such as 2024 "
             "stays one piece; SmolLM2 first cuts every digit alone (pattern[0]), then applies GPT-2's pattern "
             "to each piece."), lambda t, m, i, p: _encode_with(t, m, i, p, stages=[p[-1]])),
     Mistake(N_("patterns in the wrong order"), N_("you applied GPT-2's pattern first and the digits' pattern second, so "
             "GPT-2's pattern gives the last of several spaces to the digit's piece; SmolLM2 cuts every digit "
             "alone first (pattern[0]), so the spaces before it stay together."),
             lambda t, m, i, p: _encode_with(t, m, i, p, stages=list(p)[::-1])),
     Mistake(N_("no pre-tokenisation"), N_("you merged over the whole text as one piece, so tokens can join across "
             "the pattern's pieces; cut the text with the patterns first."),
             lambda t, m, i, p: _encode_with(t, m, i, p, stages=[])),
     Mistake(N_("bytes not mapped to GPT-2's characters"), N_("you wrote each byte as chr(byte), so a space is ' ' "
             "where the merges and tokens write 'Ġ'; map the bytes with bytes_to_unicode() first."),
             lambda t, m, i, p: _encode_with(t, m, i, p, mapped=False)),
     Mistake(N_("the leftmost mergeable pair first"), N_("you merged the leftmost pair that has a rank; BPE merges "
             "the pair with the lowest rank first, wherever it is."),
             lambda t, m, i, p: _encode_with(t, m, i, p, leftmost=True))),
    teaching=encode,
)

EXERCISES = (TRAIN, ENCODE)
