"""The two other subword families, beside BPE (:mod:`tokenpath.bpe`): WordPiece and
Unigram. Both *encode* with a fixed vocabulary; this module shows only how they cut a
word, each with a trace of the decisions.

* WordPiece (BERT): greedy longest match first, left to right; a piece inside a word
  carries the prefix ``##``; a word with any part that matches nothing is ``[UNK]``.
* Unigram (SentencePiece): every piece has a log-probability; the segmentation is the
  one with the highest total (Viterbi); a space is the visible character ``▁``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping

from ._checks import as_float, as_int, as_list
from .bpe import check_text

__all__ = ["UNIGRAM_MAX_TRIES", "UnigramTrace", "WordPieceTrace", "unigram_encode", "wordpiece_encode"]

SPACE = "▁"


@dataclass(frozen=True)
class WordPieceTrace:
    """One word cut by WordPiece."""

    word: str
    pieces: tuple[str, ...]  #                    the result (("[UNK]",) if a part matched nothing)
    tries: tuple[tuple[int, str, bool], ...]  #   (start, candidate, in vocab) in the order tried


def _check_token(k: int, token) -> None:
    if not isinstance(token, str):
        raise TypeError(f"vocab[{k}] must be a token string, got {type(token).__name__}")


def wordpiece_encode(word: str, vocab: Iterable[str], *, unk: str = "[UNK]",
                     prefix: str = "##", max_chars: int = 100) -> WordPieceTrace:
    """Greedy longest-match-first: from each start, try the longest substring first.

    >>> wordpiece_encode("playing", ["play", "##ing", "##in", "[UNK]"]).pieces
    ('play', '##ing')
    >>> wordpiece_encode("plays", ["play", "[UNK]"]).pieces
    ('[UNK]',)
    """
    word = check_text(word, "word")
    if not word or any(c.isspace() for c in word):
        raise ValueError(f"word must be one non-empty word without spaces, got {word!r}")
    vocab = set(as_list("vocab", vocab, "token strings", item=_check_token))
    if not isinstance(unk, str) or not isinstance(prefix, str):
        raise TypeError(f"unk and prefix must be strings, got {type(unk).__name__} and {type(prefix).__name__}")
    max_chars = as_int("max_chars", max_chars, low=1)
    if unk not in vocab:
        raise ValueError(f"vocab must contain the unknown token {unk!r}")
    if len(word) > max_chars:
        return WordPieceTrace(word, (unk,), ())
    pieces, tries, start = [], [], 0
    while start < len(word):
        end, found = len(word), None
        while start < end:
            cand = (prefix if start else "") + word[start:end]
            hit = cand in vocab
            tries.append((start, cand, hit))
            if hit:
                found = cand
                break
            end -= 1
        if found is None:
            return WordPieceTrace(word, (unk,), tuple(tries))
        pieces.append(found)
        start = end
    return WordPieceTrace(word, tuple(pieces), tuple(tries))


@dataclass(frozen=True)
class UnigramTrace:
    """A text cut by Unigram Viterbi."""

    text: str  #                          the input with spaces written as ▁ (and one in front)
    pieces: tuple[str, ...]  #            the best segmentation
    scores: tuple[float, ...]  #          each piece's log-probability
    total: float  #                       their sum, the best achievable
    best: tuple[float, ...]  #            best score of each prefix text[:k], k = 0 … len


#: The most candidate pieces :func:`unigram_encode` looks up for one text (well under a second
#: of work); a text and vocabulary that need more are refused by name.
UNIGRAM_MAX_TRIES = 750_000


def _piece_trie(pieces: Mapping[str, float]) -> dict:
    """The pieces as a trie: each character → ``[log-probability if the path so far is a
    piece else None, the next characters]``; built in one pass over the pieces' characters.

    >>> _piece_trie({"ab": -1.0, "a": -2.0})
    {'a': [-2.0, {'b': [-1.0, {}]}]}
    """
    root: dict = {}
    for p, score in pieces.items():
        children, entry = root, None
        for ch in p:
            entry = children.get(ch)
            if entry is None:
                entry = children[ch] = [None, {}]
            children = entry[1]
        entry[0] = float(score)
    return root


def unigram_encode(text: str, pieces: Mapping[str, float], *, unk: str = "<unk>",
                   unk_score: float = -10.0) -> UnigramTrace:
    """The segmentation with the highest sum of piece log-probabilities (Viterbi over
    prefixes). A character where no piece ends becomes ``unk`` at ``unk_score``, a
    log-probability ``<= 0`` (above 0 an unknown character would score better than the
    known pieces it stands beside, and the best segmentation would seek out unknowns).

    From each position the candidates grow one character at a time down a trie of the
    pieces and stop at the first that is no prefix of any piece, so the work per position
    is bounded by the longest piece (and is usually far less); a text that would need more
    than :data:`UNIGRAM_MAX_TRIES` candidates is refused. Of equal totals the longer last
    piece wins.

    >>> t = unigram_encode("lower", {"▁low": -3.0, "er": -3.5, "▁lower": -7.0, "▁": -4, "e": -5, "r": -5})
    >>> t.pieces, t.total
    (('▁low', 'er'), -6.5)
    >>> unigram_encode("x", {"▁": -1.0}, unk_score=5)
    Traceback (most recent call last):
    ...
    ValueError: unk_score must be a log-probability <= 0, got 5.0: an unknown character must not score better than a known piece
    """
    text = check_text(text)
    unk_score = as_float("unk_score", unk_score)
    if unk_score > 0:
        raise ValueError(f"unk_score must be a log-probability <= 0, got {unk_score}: an unknown character "
                         "must not score better than a known piece")
    if not isinstance(pieces, Mapping) or not pieces:
        raise TypeError("pieces must be a non-empty mapping piece → log-probability")
    for p, sc in pieces.items():
        if not isinstance(p, str) or not p:
            raise TypeError(f"pieces keys must be non-empty strings, got {p!r}")
        if isinstance(sc, bool) or not isinstance(sc, (int, float)) or not math.isfinite(sc) or sc > 0:
            raise ValueError(f"pieces[{p!r}] must be a finite log-probability <= 0, got {sc!r}")
    s = SPACE + text.replace(" ", SPACE)
    n = len(s)
    root = _piece_trie({p: sc for p, sc in pieces.items() if len(p) <= n})  # a longer piece never fits
    best = [0.0] + [-math.inf] * n  # [n + 1]  best total of s[:k]
    back: list[tuple[int, str, float]] = [(0, "", 0.0)] * (n + 1)  # [n + 1]  the last piece of that best
    tries = 0
    for start in range(n):
        here = best[start]
        if here == -math.inf:  # no piece ends here: one unknown character
            here = best[start] = best[start - 1] + unk_score
            back[start] = (start - 1, unk, unk_score)
        children, end = root, start
        while end < n:  # grow the candidate s[start:end] while it is a prefix of a piece
            entry = children.get(s[end])
            if entry is None:
                break
            end += 1
            score, children = entry
            if score is not None and here + score > best[end]:  # ties: the earlier start, the longer piece
                best[end] = here + score
                back[end] = (start, s[start:end], score)
        tries += end - start
        if tries > UNIGRAM_MAX_TRIES:
            raise ValueError(f"text of {len(text):,} characters needs more than {UNIGRAM_MAX_TRIES:,} candidate "
                             f"pieces with these pieces (the longest has {max(map(len, pieces)):,} characters); "
                             "cut the text into words first")
    if best[n] == -math.inf:
        best[n] = best[n - 1] + unk_score
        back[n] = (n - 1, unk, unk_score)
    out, scores, k = [], [], n
    while k > 0:
        start, piece, score = back[k]
        out.append(piece)
        scores.append(score)
        k = start
    return UnigramTrace(s, tuple(reversed(out)), tuple(reversed(scores)), best[n], tuple(best))
