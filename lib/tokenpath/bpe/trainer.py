"""Training: learn merge rules from a corpus.

Count adjacent symbol pairs over the corpus's words, merge the most frequent pair into a
new symbol, record that merge rule, and repeat until the vocabulary has the size asked
for or no pair occurs ``min_frequency`` times. Two trainers learn the same rules:

* :func:`train_naive` recounts every pair after every merge (minbpe's shape; the
  readable reference, shown in chapter 1);
* :func:`train` keeps the pair counts and an index from each pair to the words holding
  it, and after a merge updates only the affected words (the production shape).

Count ties are broken deterministically: ``tie_break="smallest"`` takes the smallest
pair by its bytes; ``tie_break="hf"`` takes the smallest pair of Hugging Face
``tokenizers`` IDs, which number the 256 byte symbols in the order of their GPT-2
printable characters (:func:`~tokenpath.bpe.symbols.hf_symbol_order`) and then the
merges in order.
"""

from __future__ import annotations

import heapq
from collections import defaultdict

from ._checks import TIE_BREAKS, check_train_args
from .pairs import _merge_list, apply_merge, pair_counts
from .pretokenizer import _distinct_words
from .symbols import hf_symbol_order
from .tokenizer import Tokenizer

__all__ = ["TIE_BREAKS", "train", "train_naive"]


def _tie_rank(tie_break: str, vocab: list[bytes]) -> list:
    """What each symbol ID sorts by when counts tie, as a list indexed by ID (among
    pairs of equal count, the smallest ``(rank[left], rank[right])`` wins): its bytes
    for ``"smallest"`` (the vocab list itself), or its Hugging Face ID for ``"hf"``
    (bytes in GPT-2 character order, then one ID per new token; :func:`_new_symbol`
    extends it)."""
    return list(hf_symbol_order()) if tie_break == "hf" else vocab


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
    text, vocab_size, min_frequency, tie_break = check_train_args(text, vocab_size, min_frequency, tie_break)
    words, counts = _distinct_words(text)  # each distinct word as byte values, and how often it occurs
    table = {tuple(w): n for w, n in zip(words, counts)}
    vocab = [bytes([b]) for b in range(256)]  # ID → bytes: the 256 bytes first
    ids = {v: k for k, v in enumerate(vocab)}
    rank = _tie_rank(tie_break, vocab)
    merges = []
    while len(vocab) < vocab_size:
        stats = pair_counts(table)  # every adjacent pair, weighted by its word's count
        if not stats:
            break
        pair = min(stats, key=lambda p: (-stats[p], rank[p[0]], rank[p[1]]))  # most frequent; ties by rank
        if stats[pair] < min_frequency:
            break
        new = _new_symbol(vocab, ids, rank, *pair)
        merges.append((vocab[pair[0]], vocab[pair[1]]))
        merged: dict[tuple, int] = {}
        for symbols, n in table.items():  # rewrite every word with the new symbol
            s = apply_merge(symbols, pair, new)
            merged[s] = merged.get(s, 0) + n
        table = merged
    return Tokenizer(merges)


def _index_pairs(words: list[list[int]], counts: list[int]) -> tuple[defaultdict, defaultdict]:
    """Weighted pair counts over all words, and an index from each pair to the words
    that hold it."""
    stats: defaultdict = defaultdict(int)  # pair → weighted count
    where: defaultdict = defaultdict(set)  # pair → indices of words that held it
    for w, (symbols, n) in enumerate(zip(words, counts)):
        for pair in zip(symbols, symbols[1:]):
            stats[pair] += n
            where[pair].add(w)
    return stats, where


def _merge_in_word(words: list[list[int]], w: int, n: int, a: int, b: int, new: int,
                   stats: defaultdict, where: defaultdict, gained: set) -> None:
    """Merge ``a b`` into ``new`` in word ``w`` (which occurs ``n`` times): move the
    counts of the pairs the word lost and gained, and index it under the gained ones
    (collected in ``gained``). The merged pair's own count is dropped by the caller."""
    symbols = words[w]
    seen = symbols.count(a)
    if seen == 0:  # the index is lazy: this word lost the pair earlier
        return
    if seen == 1 and a != b:
        # the common case, one occurrence: only the pairs beside it change
        i = symbols.index(a)
        last = len(symbols) - 1
        if i == last or symbols[i + 1] != b:
            return
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
        return
    # several occurrences: recount this word's pairs before and after
    merged = _merge_list(symbols, a, b, new)
    if merged is None:
        return
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
    text, vocab_size, min_frequency, tie_break = check_train_args(text, vocab_size, min_frequency, tie_break)
    words, counts = _distinct_words(text)
    vocab = [bytes([b]) for b in range(256)]
    ids = {v: k for k, v in enumerate(vocab)}
    rank = _tie_rank(tie_break, vocab)
    stats, where = _index_pairs(words, counts)
    # heap entries: (−count, tie rank of left, tie rank of right, pair); a pair below
    # min_frequency never enters (no count of an existing pair ever grows)
    heap = [(-c, rank[p[0]], rank[p[1]], p) for p, c in stats.items() if c >= min_frequency]
    heapq.heapify(heap)
    merges = []
    while len(vocab) < vocab_size and heap:
        neg, _, _, pair = heapq.heappop(heap)
        count = stats.get(pair, 0)
        if -neg != count:  # stale: the count fell since this entry was pushed
            if count >= min_frequency:
                heapq.heappush(heap, (-count, rank[pair[0]], rank[pair[1]], pair))
            continue
        new = _new_symbol(vocab, ids, rank, *pair)
        merges.append((vocab[pair[0]], vocab[pair[1]]))
        gained: set = set()
        for w in where.pop(pair):
            _merge_in_word(words, w, counts[w], *pair, new, stats, where, gained)
        del stats[pair]
        for p in gained:
            if stats[p] >= min_frequency:
                heapq.heappush(heap, (-stats[p], rank[p[0]], rank[p[1]], p))
    return Tokenizer(merges)
