"""Chapter 1's exercises: counting adjacent pairs, and one BPE merge step. The worked
example is figure 1's word table (:data:`tokenpath.examples.bpe.FIG1_TABLE`, each word
split into characters); random cases draw words over a small alphabet, so runs such as
``a a a`` (overlapping pairs) occur.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from ..bpe import apply_merge
from ..bpe.pairs import _merge_list
from ..bpe import pair_counts as _engine_pair_counts
from ..examples import bpe as ex
from ..i18n import N_, _
from ..lessons.bpe import teach_merges
from .checker import Case, Exercise, Field, Mistake

__all__ = ["EXERCISES", "MERGE_PAIR", "PAIR_COUNTS"]

_ALPHABET = "aabn"


def _word_table(rng) -> dict[tuple, int]:
    table = {}
    for _ in range(int(rng.integers(2, 5))):
        word = tuple(rng.choice(list(_ALPHABET), size=int(rng.integers(1, 7))))
        table[tuple(str(c) for c in word)] = int(rng.integers(1, 6))
    return table


def _fig1_words() -> dict[tuple, int]:
    return {tuple(word): n for word, n in ex.FIG1_TABLE.items()}


# ------------------------------------------------------------------ pair counts

_PAIRS_STUB = '''\
def pair_counts(words):
    """Weighted counts of adjacent symbol pairs.

    words: dict mapping a word's symbols (a tuple such as ("l", "o", "w")) to how
    often the word occurs.  Each adjacent pair of a word is counted once per
    occurrence of the word, so a pair inside a word seen 5 times counts 5.
    Returns a dict (a Counter will do) mapping each pair (a, b) to its count.
    """
    ...
'''


def _pair_cases() -> tuple[Case, ...]:
    rng = np.random.default_rng(1)
    cases = [Case(N_("the worked example (figure 1: low ×5, lower ×2, newer ×6)"), (_fig1_words(),)),
             Case(N_("a a a ×3 and a b (overlapping pairs)"), ({("a", "a", "a"): 3, ("a", "b"): 1},)),
             Case(N_("one-symbol words (no pairs)"), ({("a",): 4, ("b",): 1},))]
    cases += [Case(_("random word table {n} (seed 1)").format(n=n + 1), (_word_table(rng),)) for n in range(4)]
    return tuple(cases)


def pair_counts(words):
    """Weighted counts of adjacent symbol pairs: the loop of section 1.2."""
    counts = Counter()
    for symbols, n in words.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] += n
    return counts


def _across_words(words):
    c = Counter()
    line = [s for w, n in words.items() for _ in range(n) for s in w]
    c.update(zip(line, line[1:]))
    return c


def _unweighted(words):
    c = Counter()
    for w in words:
        c.update(zip(w, w[1:]))
    return c


def _once_per_word(words):
    c = Counter()
    for w, n in words.items():
        for p in set(zip(w, w[1:])):
            c[p] += n
    return c


def _last_pair_dropped(words):
    c = Counter()
    for w, n in words.items():
        for i in range(len(w) - 2):
            c[(w[i], w[i + 1])] += n
    return c


def _joined_keys(words):
    c = Counter()
    for w, n in words.items():
        for a, b in zip(w, w[1:]):
            c[a + b] += n
    return c


PAIR_COUNTS = Exercise(
    "pair_counts", 1, N_("the pair count"), _PAIRS_STUB, _engine_pair_counts, (_engine_pair_counts,),
    (Field("counts", "count(a, b)", (), "exact"),), _pair_cases,
    (Mistake(N_("counts not weighted by the word's frequency"), N_("you counted each word's pairs once; a word "
             "that occurs n times contributes n to each of its pairs."), _unweighted),
     Mistake(N_("a pair counted once per word"), N_("you counted the distinct pairs of each word, so a a a gives "
             "(a, a) once; every adjacent position counts, overlapping ones too."), _once_per_word),
     Mistake(N_("the last pair left out"), N_("your loop stops one position early (range(len(w) - 2)); a word "
             "of n symbols has n − 1 adjacent pairs."), _last_pair_dropped),
     Mistake(N_("pairs stored as joined strings"), N_("keys must be tuples (a, b), not joined strings: 'er' hides "
             "whether it was e + r or another split, and 'low' could be lo + w or l + ow; count d[(a, b)], "
             "not d[a + b]."), _joined_keys),
     Mistake(N_("pairs counted across word boundaries"), N_("you laid the words end to end and counted the pairs of "
             "that one long sequence, so the last symbol of a word pairs with the first of the next; count "
             "each word on its own, times its count."), _across_words)),
    teaching=pair_counts,
)

# ------------------------------------------------------------------ one merge step

_MERGE_STUB = '''\
def merge_pair(symbols, pair, new):
    """One BPE merge step on one word: replace every occurrence of `pair` (a, b) in
    `symbols`, scanning left to right, by the single symbol `new`.  After a
    replacement the scan continues after the pair, so a a a with (a, a) gives aa a.

    symbols: tuple of symbols; pair: tuple (a, b); new: the merged symbol.
    Returns a tuple of symbols.
    """
    ...
'''


def _merge_cases() -> tuple[Case, ...]:
    best = teach_merges(ex.FIG1_TABLE, 1).merges[0]  # figure 1's first merge, (e, r)
    cases = [Case(_("the worked example (figure 1's first merge {best} on newer)").format(best=best),
                  (tuple("newer"), best, "".join(best))),
             Case(N_("a a a with (a, a)"), (("a", "a", "a"), ("a", "a"), "aa")),
             Case(N_("a a a a b with (a, a)"), (("a", "a", "a", "a", "b"), ("a", "a"), "aa")),
             Case(N_("l o w with (e, r) (no occurrence)"), (("l", "o", "w"), ("e", "r"), "er")),
             Case(N_("lo wer with (o, w): o and w sit in two different symbols"), (("lo", "wer"), ("o", "w"), "ow")),
             Case(N_("l ow with (lo, w): the same letters as low, but other symbols"), (("l", "ow"), ("lo", "w"), "low")),
             Case(N_("integer IDs, as bpe.train_naive uses them: 1 2 3 with (1, 2) and the new ID 256"),
                  ((1, 2, 3), (1, 2), 256)),
             Case(N_("a new symbol that is not the pair's letters joined: n e w e r with (e, r) and new = 'X'"),
                  (tuple("newer"), ("e", "r"), "X"))]
    rng = np.random.default_rng(2)
    for n in range(4):
        w = tuple(str(c) for c in rng.choice(list(_ALPHABET), size=int(rng.integers(2, 9))))
        k = int(rng.integers(0, len(w) - 1))
        cases.append(Case(_("random word {n} (seed 2): {word}").format(n=n + 1, word=" ".join(w)),
                          (w, (w[k], w[k + 1]), w[k] + w[k + 1])))
    return tuple(cases)


def merge_pair(symbols, pair, new):
    """One merge step on one word, scanning left to right: the loop of section 1.2."""
    out, i = [], 0
    while i < len(symbols):
        if tuple(symbols[i:i + 2]) == pair:
            out.append(new)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def _string_replace(symbols, pair, new):
    return tuple(" ".join(symbols).replace(" ".join(pair), new).split())


def _joined_equals_new(symbols, pair, new):
    halves = next(((a, b) for a, b in zip(symbols, symbols[1:]) if a + b == new), None)
    return tuple(symbols) if halves is None else merge_pair(symbols, halves, new)


def _overlapping_twice(symbols, pair, new):
    out = []
    for i, s in enumerate(symbols):
        if tuple(symbols[i:i + 2]) == tuple(pair):
            out.append(new)
        elif i == 0 or tuple(symbols[i - 1:i + 1]) != tuple(pair):
            out.append(s)
    return tuple(out)


def _second_kept(symbols, pair, new):
    out = []
    for i, s in enumerate(symbols):
        out.append(new if tuple(symbols[i:i + 2]) == tuple(pair) else s)
    return tuple(out)


def _first_only(symbols, pair, new):
    s = list(symbols)
    for i in range(len(s) - 1):
        if (s[i], s[i + 1]) == tuple(pair):
            return tuple(s[:i] + [new] + s[i + 2:])
    return tuple(s)


def _ignores_new(symbols, pair, new):
    return merge_pair(symbols, pair, pair[0] + pair[1])


def _right_to_left(symbols, pair, new):
    return tuple(reversed(apply_merge(tuple(reversed(symbols)), tuple(reversed(pair)), new)))


MERGE_PAIR = Exercise(
    "merge_pair", 1, N_("one BPE merge step"), _MERGE_STUB, apply_merge, (apply_merge, _merge_list),
    (Field("symbols", "the merged word", (), "exact"),), _merge_cases,
    (Mistake(N_("overlapping pairs merged twice"), N_("your loop replaces (a, a) at every position where it starts, "
             "so a a a gives aa aa: the second a is used twice; after a replacement skip past both symbols."),
             _overlapping_twice),
     Mistake(N_("the pair's second symbol kept"), N_("you wrote the new symbol where the pair starts but then "
             "stepped on by one, so the pair's second symbol stays behind it: newer gives n e w er r; after "
             "a replacement skip past both symbols."), _second_kept),
     Mistake(N_("only the first occurrence merged"), N_("you stopped after the first replacement; a merge "
             "replaces every occurrence in the word."), _first_only),
     Mistake(N_("the argument new ignored"), N_("you wrote pair[0] + pair[1] where the pair was, not `new`: with "
             "integer IDs, as bpe.train_naive uses them, 1 2 3 with (1, 2) must give (256, 3), not (3, 3); write "
             "the symbol the caller passes as `new`."), _ignores_new),
     Mistake(N_("merged right to left"), N_("you scanned from the end, so a a a gives a aa; BPE scans left to right."),
             _right_to_left),
     Mistake(N_("the pair found in the joined text"), N_("you joined the symbols into one string and replaced the "
             "pair's letters there, so lo wer with (o, w) gives lower: o and w are letters of two different "
             "symbols, not a pair of symbols; compare whole symbols, two at a time."), _string_replace),
     Mistake(N_("the pair recognised by its letters"), N_("you merged two neighbours whenever their letters joined "
             "give the new symbol, so l ow becomes low under the pair (lo, w); compare the two symbols with "
             "the pair itself."), _joined_equals_new)),
    teaching=merge_pair,
)

EXERCISES = (PAIR_COUNTS, MERGE_PAIR)
