"""Count-based baselines for the book's model: unigram and Kneser–Ney tables of any
order (the book scores bigrams to 5-grams) trained on a token stream and scored on
another, in nats per token.

Every model gives each of the ``V`` tokens a probability > 0 after any context, so a
held-out token never costs infinity:

- **Unigram, add-one** (:func:`unigram`): ``P(w) = (c(w) + 1) / (N + V)``, ``c(w)`` the
  count of ``w`` among the ``N`` training tokens.
- **Interpolated Kneser–Ney** (:func:`kneser_ney`, order 2 for the bigram, 3 for the
  trigram, up to 5 in the book), as Chen & Goodman (1998, §3.5) describe it, with one
  discount ``D = 0.75`` for every order: a rule of thumb, where they estimate ``D`` from
  the counts as ``n1 / (n1 + 2·n2)`` (:func:`tokenpath._evidence.discount_estimate`;
  0.64 for the trigrams of the book's training tokens):
  with ``a_n`` the raw counts at the highest order and, below it, the *continuation*
  counts ``a_k(h w) = |{u : a_{k+1}(u h w) > 0}|`` (in how many distinct contexts
  ``h w`` was seen),

  ``P_k(w | h) = max(a_k(h w) − D, 0) / a_k(h ·) + D · T_k(h) / a_k(h ·) · P_{k−1}(w | h')``

  where ``a_k(h ·) = Σ_w a_k(h w)``, ``T_k(h)`` is the number of distinct ``w`` with
  ``a_k(h w) > 0`` and ``h'`` is ``h`` without its first token. A context never seen
  (``a_k(h ·) = 0``) hands all its mass to ``P_{k−1}``. The recursion ends at the uniform
  ``P_0(w) = 1 / V``, so every probability is positive.

Scoring (:func:`token_losses`) predicts every token of a stream after the first from the
tokens before it; the first ``n − 2`` targets, which have a shorter history, use the
longest order their history allows. Counting crosses document boundaries the way the
stream does (the EOS token is an ordinary token).

>>> m = kneser_ney([0, 1, 0, 1, 2], vocab_size=3, order=2)
>>> round(float(m.distribution([0]).sum()), 12)
1.0
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import as_int, as_int_array

DISCOUNT = 0.75


def _stream(name: str, ids, vocab_size: int, *, min_len: int) -> np.ndarray:
    arr = as_int_array(name, ids, ndim=1, low=0)
    if arr.size and arr.max() >= vocab_size:
        raise ValueError(f"{name} must hold token IDs below vocab_size={vocab_size}, got {arr.max()}")
    if arr.size < min_len:
        raise ValueError(f"{name} must hold at least {min_len} tokens, got {arr.size}")
    return arr


def _keys(arr: np.ndarray, k: int, vocab_size: int) -> np.ndarray:
    """Each length-``k`` window of ``arr`` as one integer in base ``vocab_size``."""
    n = arr.size - k + 1
    key = np.zeros(max(n, 0), dtype=np.int64)
    for j in range(k):
        key = key * vocab_size + arr[j:j + n]
    return key


@dataclass(frozen=True)
class Level:
    """One order's table: sorted n-gram keys with their (raw or continuation) counts,
    and per context (the key without its last token) the total and the number of
    distinct followers."""

    keys: np.ndarray
    counts: np.ndarray
    ctx_keys: np.ndarray
    ctx_totals: np.ndarray
    ctx_types: np.ndarray


def _level(keys: np.ndarray, counts: np.ndarray, vocab_size: int) -> Level:
    ctx = keys // vocab_size
    ctx_keys, start = np.unique(ctx, return_index=True)  # keys are sorted, so ctx is too
    totals = np.add.reduceat(counts, start) if counts.size else np.zeros(0, np.int64)
    types = np.diff(np.append(start, keys.size))
    return Level(keys, counts, ctx_keys, totals, types)


def _lookup(sorted_keys: np.ndarray, values: np.ndarray, query: np.ndarray) -> np.ndarray:
    """``values`` at ``query``'s positions in ``sorted_keys``, 0 where absent."""
    if sorted_keys.size == 0:
        return np.zeros(query.shape, dtype=np.int64)
    i = np.searchsorted(sorted_keys, query)
    i = np.minimum(i, sorted_keys.size - 1)
    return np.where(sorted_keys[i] == query, values[i], 0)


@dataclass(frozen=True)
class NgramModel:
    """A fitted table: ``order`` 1 is add-one unigram, 2 and more interpolated
    Kneser–Ney. ``levels[k - 1]`` holds order ``k``'s counts."""

    order: int
    vocab_size: int
    discount: float
    n_train: int
    levels: tuple[Level, ...]

    @property
    def name(self) -> str:
        return {1: "unigram (add-one)", 2: "bigram (interpolated KN)", 3: "trigram (interpolated KN)"}.get(
            self.order, f"{self.order}-gram (interpolated KN)")

    def prob(self, history: np.ndarray, tokens: np.ndarray, k: int | None = None) -> np.ndarray:
        """P(tokens[i] | history[i]) for a batch: ``history`` has shape (B, k − 1) (the
        last k − 1 tokens before each target; default k = ``order``)."""
        V = self.vocab_size
        k = self.order if k is None else k
        tokens = np.asarray(tokens, dtype=np.int64)
        if self.order == 1:
            c = self.levels[0].counts
            return (c[tokens] + 1.0) / (self.n_train + V)
        p = np.full(tokens.shape, 1.0 / V)
        D = self.discount
        for j in range(1, k + 1):           # from the unigram level up to order k
            lev = self.levels[j - 1]
            ctx = np.zeros(tokens.shape, dtype=np.int64)
            for col in range(k - j, k - 1):
                ctx = ctx * V + history[:, col]
            key = ctx * V + tokens
            a = _lookup(lev.keys, lev.counts, key).astype(np.float64)
            tot = _lookup(lev.ctx_keys, lev.ctx_totals, ctx).astype(np.float64)
            typ = _lookup(lev.ctx_keys, lev.ctx_types, ctx).astype(np.float64)
            seen = tot > 0
            safe = np.where(seen, tot, 1.0)
            p = np.where(seen, np.maximum(a - D, 0.0) / safe + D * typ / safe * p, p)
        return p

    def distribution(self, context) -> np.ndarray:
        """The probability of every token after ``context`` (its last ``order − 1``
        tokens are used; a shorter context uses the order it allows)."""
        ctx = as_int_array("context", context, ndim=1, low=0)
        if ctx.size and ctx.max() >= self.vocab_size:
            raise ValueError(f"context must hold token IDs below vocab_size={self.vocab_size}, got {ctx.max()}")
        k = min(self.order, ctx.size + 1)
        hist = np.tile(ctx[ctx.size - (k - 1):] if k > 1 else ctx[:0], (self.vocab_size, 1))
        return self.prob(hist, np.arange(self.vocab_size), k)


def unigram(ids, vocab_size: int) -> NgramModel:
    """Add-one unigram counts of ``ids``."""
    vocab_size = as_int("vocab_size", vocab_size, low=1)
    arr = _stream("ids", ids, vocab_size, min_len=1)
    counts = np.bincount(arr, minlength=vocab_size).astype(np.int64)
    lev = Level(np.arange(vocab_size, dtype=np.int64), counts, np.zeros(1, np.int64),
                np.array([arr.size]), np.array([int((counts > 0).sum())]))
    return NgramModel(1, vocab_size, 0.0, int(arr.size), (lev,))


def kneser_ney(ids, vocab_size: int, order: int = 3, discount: float = DISCOUNT) -> NgramModel:
    """Interpolated Kneser–Ney of ``order`` (2–5) on the stream ``ids``."""
    vocab_size = as_int("vocab_size", vocab_size, low=1)
    order = as_int("order", order, low=2, high=5)
    if vocab_size ** order >= 2 ** 62:
        raise ValueError(f"vocab_size ** order must be < 2**62 for integer keys, got {vocab_size}**{order}")
    if isinstance(discount, bool) or not isinstance(discount, (int, float)) or not 0 < discount < 1:
        raise ValueError(f"discount must be a number in (0, 1), got {discount!r}")
    arr = _stream("ids", ids, vocab_size, min_len=order)
    keys, counts = np.unique(_keys(arr, order, vocab_size), return_counts=True)
    levels = [_level(keys, counts.astype(np.int64), vocab_size)]
    for k in range(order - 1, 0, -1):
        # continuation counts: the distinct left neighbours of each k-gram
        suffix = levels[0].keys % (vocab_size ** k)
        keys, counts = np.unique(suffix, return_counts=True)
        levels.insert(0, _level(keys, counts.astype(np.int64), vocab_size))
    return NgramModel(order, vocab_size, float(discount), int(arr.size), tuple(levels))


def token_losses(model: NgramModel, ids) -> np.ndarray:
    """−ln P of every token of ``ids`` after the first, given the tokens before it."""
    if not isinstance(model, NgramModel):
        raise TypeError(f"model must be an NgramModel, got {type(model).__name__}")
    arr = _stream("ids", ids, model.vocab_size, min_len=2)
    out = np.empty(arr.size - 1)
    n = model.order
    s0 = max(n - 1, 1)                              # the first target with a full history
    for t in range(1, min(s0, arr.size)):           # the first targets: a shorter history
        out[t - 1] = -np.log(model.prob(arr[None, :t], arr[t:t + 1], t + 1)[0])
    m = arr.size - s0
    if m > 0:
        hist = np.stack([arr[s0 - (n - 1) + j: s0 - (n - 1) + j + m] for j in range(n - 1)], axis=1) \
            if n > 1 else np.zeros((m, 0), np.int64)
        out[s0 - 1:] = -np.log(model.prob(hist, arr[s0:], n))
    return out


def mean_loss(model: NgramModel, ids) -> float:
    """Mean of :func:`token_losses` (nats per token)."""
    return float(token_losses(model, ids).mean())
