"""The two primitives of BPE, shared by training and encoding: count adjacent pairs,
and replace every occurrence of one pair by a new symbol.

Training counts pairs to choose the next merge and applies it to every word with one
loop (:func:`_merge_list`); encoding, which merges the lowest-rank pair of one word again
and again, runs a priority queue instead (:mod:`.merge_queue`).
"""

from __future__ import annotations

from collections import Counter
from typing import Mapping, Sequence

from .._checks import as_list

__all__ = ["apply_merge", "pair_counts"]


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


def _merge_list(symbols: Sequence, a, b, new) -> list | None:
    """Replace each ``a`` followed by ``b``, left to right, by ``new``; None when the
    pair does not occur (the one merge loop the trainers and :func:`apply_merge` share).

    >>> _merge_list([1, 2, 3, 1, 2], 1, 2, 9), _merge_list([1, 3], 1, 2, 9)
    ([9, 3, 9], None)
    """
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
