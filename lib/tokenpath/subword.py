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

__all__ = ["UnigramTrace", "WordPieceTrace", "unigram_encode", "wordpiece_encode"]

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


def unigram_encode(text: str, pieces: Mapping[str, float], *, unk: str = "<unk>",
                   unk_score: float = -10.0) -> UnigramTrace:
    """The segmentation with the highest sum of piece log-probabilities (Viterbi over
    prefixes). A character that no piece covers becomes ``unk`` at ``unk_score``.

    >>> t = unigram_encode("lower", {"▁low": -3.0, "er": -3.5, "▁lower": -7.0, "▁": -4, "e": -5, "r": -5})
    >>> t.pieces, t.total
    (('▁low', 'er'), -6.5)
    """
    text = check_text(text)
    unk_score = as_float("unk_score", unk_score)
    if unk_score > 0:  # a log-probability; above 0 an unknown character would beat every piece
        raise ValueError(f"unk_score must be a log-probability <= 0, got {unk_score}")
    if not isinstance(pieces, Mapping) or not pieces:
        raise TypeError("pieces must be a non-empty mapping piece → log-probability")
    for p, s in pieces.items():
        if not isinstance(p, str) or not p:
            raise TypeError(f"pieces keys must be non-empty strings, got {p!r}")
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not math.isfinite(s) or s > 0:
            raise ValueError(f"pieces[{p!r}] must be a finite log-probability <= 0, got {s!r}")
    s = SPACE + text.replace(" ", SPACE)
    # only the lengths some piece has, longest first (the order the ties were always broken in)
    lengths = sorted({len(p) for p in pieces}, reverse=True)
    n = len(s)
    best = [0.0] + [-math.inf] * n
    back: list[tuple[int, str, float]] = [(0, "", 0.0)] * (n + 1)
    for end in range(1, n + 1):
        for length in lengths:
            if length > end:
                continue
            start = end - length
            piece = s[start:end]
            if piece in pieces and best[start] + pieces[piece] > best[end]:
                best[end] = best[start] + pieces[piece]
                back[end] = (start, piece, float(pieces[piece]))
        if best[end] == -math.inf:  # no piece ends here: one unknown character
            best[end] = best[end - 1] + unk_score
            back[end] = (end - 1, unk, unk_score)
    out, scores, k = [], [], n
    while k > 0:
        start, piece, score = back[k]
        out.append(piece)
        scores.append(score)
        k = start
    return UnigramTrace(s, tuple(reversed(out)), tuple(reversed(scores)), best[n], tuple(best))
