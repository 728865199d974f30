"""Lessons of chapter 01_bpe_merges: BPE worked by hand, and the book's demo tokenizer.

The engine's algorithm is :mod:`tokenpath.bpe`; this module holds what the chapter
shows about it:

* :func:`demo_tokenizer`, the small tokenizer the chapters encode with;
* :func:`teach_merges`, BPE on a word-count table of characters that records every
  weighted pair count at every step (figure 1, top), and :func:`merge_replay`, the state
  of that table after any number of merges (the figure and its slider);
* :func:`encode_word`, character-level merges applied to a new word, which fails on a
  character outside the base alphabet;
* :func:`stdlib_corpus`, the text the cross-checks train on.
"""

from __future__ import annotations

import functools
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from .. import examples as ex
from .._checks import as_int, as_list
from ..bpe import Tokenizer, apply_merge, check_text, pair_counts, train

__all__ = [
    "EncodeWordTrace",
    "MergeStep",
    "PairRow",
    "ReplayState",
    "TeachingTrace",
    "demo_tokenizer",
    "encode_word",
    "merge_replay",
    "merge_word",
    "stdlib_corpus",
    "teach_merges",
]


def _check_str_pair(k: int, pair) -> None:
    if (not isinstance(pair, tuple) or len(pair) != 2
            or not all(isinstance(p, (str, bytes)) for p in pair) or type(pair[0]) is not type(pair[1])):
        raise TypeError(f"merges[{k}] must be a (left, right) pair of strings, got {type(pair).__name__}")


def _check_char(k: int, char) -> None:
    if not isinstance(char, str):
        raise TypeError(f"alphabet[{k}] must be a character, got {type(char).__name__}")


# ------------------------------------------------------------------- the demo tokenizer


@functools.cache
def demo_tokenizer() -> Tokenizer:
    """The book's small demo tokenizer: byte-level BPE trained on
    :data:`~tokenpath.examples.DEMO_CORPUS` with the book's special tokens registered.
    Deterministic, and fast enough to build in a notebook.

    >>> demo_tokenizer().special_tokens["<|assistant|>"] > 255
    True
    """
    return train(ex.DEMO_CORPUS, ex.DEMO_VOCAB_SIZE).with_special_tokens(ex.SPECIAL_TOKENS)


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


def merge_word(symbols: tuple, merges: Sequence[tuple]) -> tuple:
    """Apply ``merges`` in rank order to one word's symbols.

    >>> merge_word(tuple("newer"), [("e", "r"), ("w", "er")])
    ('n', 'e', 'wer')
    """
    symbols = tuple(as_list("symbols", symbols, "symbols"))
    for a, b in as_list("merges", merges, "(left, right) pairs", item=_check_str_pair):
        symbols = apply_merge(symbols, (a, b), a + b)
    return symbols


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


# ------------------------------------------------------------------ a corpus nobody here wrote


def stdlib_corpus(limit: int = 1 << 20) -> str:
    """The first ``limit`` bytes of the running interpreter's standard-library ``.py``
    files (sorted paths, third-party packages excluded), as text. Deterministic for a
    given interpreter; used by the cross-checks and the speed benchmark."""
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
