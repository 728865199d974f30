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
dropout. :meth:`tokenpath.bpe.Tokenizer.merge_bytes` runs it for every tokenizer here
(the book's, a GGUF file's, a ``tokenizer.json``'s, a tiktoken rank file's), and a
property test keeps it equal to the plain loop that rescans every pair.

Long words are cut first where no merge can ever join them (:func:`_merge_pieces`): a
merge joins a token ending in byte ``u`` to one starting with byte ``v`` only if some rule
``(x, y)`` has ``x`` ending in ``u`` and ``y`` starting with ``v``. Where two adjacent bytes
are no such *junction*, no merge crosses between them, the two sides never see each other,
and each side merges alone to what it would give inside the word (the lowest-rank pair
of the whole word is always the lowest of its own side). The pieces repeat far more than
the words (a run of Chinese characters is one word, its characters recur), so each piece
is merged once and cached.
"""

from __future__ import annotations

from heapq import heapify, heappop, heappush
from itertools import chain, compress, islice
from operator import not_

__all__: list[str] = []


def _merge_rescan(symbols: list, ranks: dict) -> tuple:
    """The plain loop :func:`_merge_ranked` must equal: look up every adjacent pair, merge
    the one of lowest rank (the leftmost of equal ranks), and start again. ``len(word)``
    lookups per merge; the tests and the benchmark compare the queue with it.

    >>> _merge_rescan([1, 2, 1, 2], {(1, 2): (0, 5), (5, 5): (1, 6)})
    (6,)
    """
    symbols = list(symbols)
    while len(symbols) > 1:
        found = [(r[0], i, r[1]) for i, r in enumerate(map(ranks.get, zip(symbols, symbols[1:]))) if r is not None]
        if not found:
            break
        _, i, new = min(found)  # the lowest rank, then the leftmost
        symbols[i:i + 2] = [new]
    return tuple(symbols)


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


#: Words shorter than this many bytes are merged whole (cutting them costs more than it saves).
PIECE_MIN_BYTES = 8


def _junctions(merges) -> frozenset:
    """The byte pairs a merge can join across: (last byte of the left part, first byte of
    the right part) of every rule.

    >>> sorted(_junctions([(b"ab", b"c"), (b"x", b"yz")]))
    [(98, 99), (120, 121)]
    """
    return frozenset((a[-1], b[0]) for a, b in merges)


def _merge_pieces(data: bytes, symbols: list, ranks: dict, junctions: frozenset, cache: dict) -> tuple:
    """:func:`_merge_ranked` on a word cut between every two bytes that are no junction,
    each piece looked up in ``cache`` (piece bytes → IDs) or merged and stored there.

    >>> cache = {}
    >>> _merge_pieces(b"abab", [97, 98, 97, 98], {(97, 98): (0, 256)}, frozenset({(97, 98)}), cache)
    (256, 256)
    >>> cache
    {b'ab': (256,)}
    """
    n = len(data)
    # bounds: [pieces + 1]  0, each 0 < p < n where data[p - 1], data[p] is no junction, n
    bounds = [0, *compress(range(1, n), map(not_, map(junctions.__contains__, zip(data, islice(data, 1, None))))), n]
    if len(bounds) == 2:
        return _merge_ranked(symbols, ranks)
    pieces = list(map(data.__getitem__, map(slice, bounds, islice(bounds, 1, None))))
    found = list(map(cache.get, pieces))  # [pieces]  the IDs of each piece, None if not cached yet
    if None in found:
        for k, ids in enumerate(found):
            if ids is None:
                found[k] = cache[pieces[k]] = cache.get(pieces[k]) or _merge_ranked(
                    symbols[bounds[k]:bounds[k + 1]], ranks)
    return tuple(chain.from_iterable(found))
