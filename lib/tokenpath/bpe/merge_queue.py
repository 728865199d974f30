"""The encoder's merge loop: a priority queue of pairs over a linked list of symbols.

The rule (chapter 1): of all adjacent pairs that have a merge rule, merge the one with
the lowest rank, the leftmost of equal ranks, and repeat until no pair has a rule.
Rescanning every pair after every merge costs ``len(word)`` lookups per merge, which is
what made long words (a line of Chinese is one word of three bytes a character) slow.
Here each pair is looked up once, when it is formed:

* the symbols stay in place; ``nxt`` and ``prv`` link each live position to its
  neighbours, and a merge writes the new ID at the left position and marks the right one
  removed (``-1``; IDs are never negative);
* a min-heap holds one key per pair ever formed, ``rank << shift | position``, so the
  smallest key is the lowest rank and, among equal ranks, the leftmost position;
* a merge forms at most two new pairs (with the left and the right neighbour); their keys
  are pushed, and the keys of the pairs it destroyed stay in the heap. A popped key is
  acted on only if its position still holds a pair with that rank (lazy invalidation).

This is Hugging Face ``tokenizers``' ``Word::merge_all`` (``models/bpe/word.rs``) without
dropout. :class:`tokenpath.bpe.Tokenizer` runs it on every word of
:data:`QUEUE_MIN_SYMBOLS` symbols or more, for every tokenizer here (the book's, a GGUF
file's, a ``tokenizer.json``'s, a tiktoken rank file's); shorter words, where its setup
costs more than it saves, run the plain loop that rescans every pair (:func:`_rescan`),
and property tests keep the two equal.

Most merges in a word of Chinese join the three bytes of one character, and characters
recur far more than words (a run of characters between two punctuation marks is one
word). So each character is merged alone once and cached (:func:`_rescan`), and a
word's loop starts from those tokens wherever that cannot change the result
(:func:`_start_symbols`). A merge across the edge between two characters joins a token
ending in the left one's last byte ``u`` to one starting with the right one's first byte
``v``, by a rule whose parts end in ``u`` and start with ``v``. If every such rule ranks
above the highest rank the character's own merges use, then while the character is not
yet whole some pair inside it (of lower rank) is always present, so nothing across its
edges merges first, and inside it the loop merges exactly as it does alone; the other
merges of the word are chosen among the same pairs either way. Starting from the whole
character gives the same tokens.
"""

from __future__ import annotations

from array import array
from heapq import heapify, heappop, heappush
from itertools import islice

__all__: list[str] = []


def _rescan(symbols: list, ranks: dict) -> tuple[tuple, int]:
    """The plain loop :func:`_merge_ranked` must equal: look up every adjacent pair, merge
    the one of lowest rank (the leftmost of equal ranks), and start again; ``len(word)``
    lookups per merge. Returns the tokens and the highest rank merged (-1: none). It merges
    each character alone (:func:`_start_symbols`), and the tests and the benchmark compare
    the queue with it.

    >>> _rescan([1, 2, 1, 2], {(1, 2): (0, 5), (5, 5): (1, 6)})
    ((6,), 1)
    """
    symbols, top, get = list(symbols), -1, ranks.get
    while len(symbols) > 1:
        best, at = None, 0
        for i in range(len(symbols) - 1):
            r = get((symbols[i], symbols[i + 1]))
            if r is not None and (best is None or r[0] < best[0]):  # strictly lower: the leftmost of equals
                best, at = r, i
        if best is None:
            break
        symbols[at:at + 2] = [best[1]]
        if best[0] > top:
            top = best[0]
    return tuple(symbols), top


def _merge_ranked(symbols: list, ranks: dict) -> tuple:
    """Merge ``symbols`` (a list of non-negative IDs, changed in place) by ``ranks``
    (``(left, right) → (rank, merged ID)``), lowest rank first, leftmost of equal ranks,
    until no adjacent pair has a rank.

    >>> _merge_ranked([1, 2, 1, 2], {(1, 2): (0, 5), (5, 5): (1, 6)})
    (6,)
    >>> _merge_ranked([1, 1, 1], {(1, 1): (0, 4)})  # leftmost first: 11 1, not 1 11
    (4, 1)
    """
    n = len(symbols)
    if n < 2:
        return tuple(symbols)
    get = ranks.get
    shift = n.bit_length()  # positions are < n, so they fit below the rank's bits
    mask = (1 << shift) - 1
    nxt = list(range(1, n + 1))  # [n]  next live position (n: none)
    prv = list(range(-1, n - 1))  # [n]  previous live position (-1: none)
    heap = [r[0] << shift | i for i, r in enumerate(map(get, zip(symbols, islice(symbols, 1, None))))
            if r is not None]
    heapify(heap)
    while heap:
        key = heappop(heap)
        i = key & mask
        left = symbols[i]
        if left < 0:  # merged into its left neighbour since this key was pushed
            continue
        j = nxt[i]
        if j == n:
            continue
        r = get((left, symbols[j]))
        if r is None or r[0] != key >> shift:  # the pair at i changed since: a stale key
            continue
        new = r[1]
        symbols[i] = new
        symbols[j] = -1
        k = nxt[j]
        nxt[i] = k
        if k < n:  # the pair (new, right neighbour)
            prv[k] = i
            r = get((new, symbols[k]))
            if r is not None:
                heappush(heap, r[0] << shift | i)
        h = prv[i]
        if h >= 0:  # the pair (left neighbour, new)
            r = get((symbols[h], new))
            if r is not None:
                heappush(heap, r[0] << shift | h)
    return tuple(filter((-1).__ne__, symbols))


#: Below this many symbols the plain loop (:func:`_rescan`) is faster than the queue: its
#: few lookups cost less than setting the queue up (measured on SmolLM2's vocabulary).
QUEUE_MIN_SYMBOLS = 12


def _merge_word_symbols(symbols: list, ranks: dict) -> tuple:
    """A word's symbols merged: by the plain loop when there are few, else by the queue
    (the tests hold the two equal).

    >>> _merge_word_symbols([1, 2, 1, 2], {(1, 2): (0, 5), (5, 5): (1, 6)})
    (6,)
    """
    if len(symbols) < QUEUE_MIN_SYMBOLS:
        return _rescan(symbols, ranks)[0]
    return _merge_ranked(symbols, ranks)


#: Above every rank: the edge of a word, or two bytes no rule joins across.
NO_RULE = 1 << 62


def _junction_ranks(ranks: dict, vocab: dict) -> array:
    """For each pair of bytes ``(u, v)``, at index ``u << 8 | v``, the lowest rank of a rule
    whose left token ends in ``u`` and whose right token starts with ``v`` (:data:`NO_RULE`
    if none): the lowest rank a merge across an edge between those bytes can have. An
    ``array`` of 64-bit integers, not a list: indexing it is as fast, and copying a
    tokenizer (``copy.deepcopy``) copies its 65,536 entries at once.

    >>> table = _junction_ranks({(1, 2): (4, 3), (0, 2): (1, 4)}, {0: b"ax", 1: b"x", 2: b"y", 3: b"xy", 4: b"axy"})
    >>> table[ord("x") << 8 | ord("y")], table[ord("y") << 8 | ord("x")] == NO_RULE
    (1, True)
    """
    out = array("q", [NO_RULE]) * 65536
    for (left, right), (rank, _) in ranks.items():
        key = vocab[left][-1] << 8 | vocab[right][0]
        if rank < out[key]:
            out[key] = rank
    return out


def _start_symbols(chars: list, junctions: list) -> list:
    """The symbols a word's merge loop starts from: each character's own tokens (merged
    alone by :func:`_rescan`) where every rule across its two edges ranks above the
    highest rank those merges used, else its bytes. ``chars`` holds one ``(tokens, top
    rank, first byte, last byte << 8, byte IDs)`` per character; ``junctions`` is
    :func:`_junction_ranks`.

    Why the result is unchanged: a pair across the edge has a rank above every pair inside
    the character, and one of those is present until the character is whole, so the loop
    merges nothing across the edge before then; inside, it merges as alone (module text).

    >>> chars = [((11,), 3, 7, 9 << 8, (7, 8, 9))] * 2
    >>> table = [NO_RULE] * 65536
    >>> _start_symbols(chars, table)
    [11, 11]
    >>> table[9 << 8 | 7] = 2  # a rule across 9|7 ranks below the character's own merges
    >>> _start_symbols(chars, table)
    [7, 8, 9, 7, 8, 9]
    """
    # edges: [len(chars) + 1]  the lowest rank across each edge (the word's two ends: none)
    edges = [NO_RULE, *[junctions[a[3] | b[2]] for a, b in zip(chars, islice(chars, 1, None))], NO_RULE]
    out: list = []
    for k, (tokens, top, _, _, raw) in enumerate(chars):
        out += tokens if edges[k] > top < edges[k + 1] else raw
    return out
