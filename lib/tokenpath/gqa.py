"""Grouped-query attention (GQA): many query heads read a few shared K/V heads.

A layer with ``Hq`` query heads and ``Hkv`` key/value heads splits the query heads into
``Hkv`` groups of ``Hq / Hkv`` consecutive heads; every head of a group reads the same
keys and values. Query head ``h`` reads K/V head ``h // (Hq / Hkv)``, which is how
Hugging Face's ``repeat_kv`` lines them up (it repeats each K/V head ``Hq / Hkv`` times
in place, ``[k0, k0, k0, k0, k1, k1, k1, k1]``). The two ends are ordinary multi-head
attention (``Hkv = Hq``, every head has its own K/V) and multi-query attention
(``Hkv = 1``, all heads share one).

Only K and V are shared. Every query head still has its own queries, its own scores
and its own attention weights ``[T_q, T_k]``; the softmax is :func:`tokenpath.attention.attention`'s.
What shrinks is the K/V cache, to ``Hkv / Hq`` of its multi-head size (the K/V body
only: no allocator, workspace or latency is counted here). :meth:`KVCacheSize.nbytes`
turns the count into bytes at a stated storage precision, for the book's toy sizes and
for a realistic configuration alike (chapter 7, section 7.1).

Shapes follow Hugging Face: queries ``[B, Hq, T_q, d_h]``, keys and values
``[B, Hkv, T_k, d_h]``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import as_bool_array, as_float_array, as_int
from .attention import _attend, _check_visible, cache_mask

__all__ = [
    "DTYPE_BYTES",
    "GroupedAttentionTrace",
    "KVCacheSize",
    "bytes_text",
    "group_size",
    "grouped_attention",
    "kv_cache_size",
    "kv_groups",
    "kv_head_counts",
    "repeat_kv",
]


# ------------------------------------------------------------------ head -> group map


def group_size(n_q_heads: int, n_kv_heads: int) -> int:
    """How many query heads share one K/V head: ``Hq / Hkv``.

    >>> group_size(8, 2)
    4
    >>> group_size(8, 3)
    Traceback (most recent call last):
    ...
    ValueError: n_q_heads=8 is not divisible by n_kv_heads=3: every K/V head must serve the same whole number of query heads
    """
    n_q_heads = as_int("n_q_heads", n_q_heads, low=1)
    n_kv_heads = as_int("n_kv_heads", n_kv_heads, low=1)
    if n_q_heads % n_kv_heads:
        raise ValueError(
            f"n_q_heads={n_q_heads} is not divisible by n_kv_heads={n_kv_heads}: every K/V head "
            "must serve the same whole number of query heads"
        )
    return n_q_heads // n_kv_heads


def kv_head_counts(n_q_heads: int) -> list[int]:
    """Every number of K/V heads that ``n_q_heads`` query heads can share evenly: the
    divisors of Hq, from 1 (multi-query attention) to Hq (multi-head attention).

    >>> kv_head_counts(8), kv_head_counts(12)
    ([1, 2, 4, 8], [1, 2, 3, 4, 6, 12])
    """
    n_q_heads = as_int("n_q_heads", n_q_heads, low=1)
    return [h for h in range(1, n_q_heads + 1) if n_q_heads % h == 0]


def kv_groups(n_q_heads: int, n_kv_heads: int) -> np.ndarray:
    """The K/V head each query head reads: ``h // (Hq / Hkv)``, shape ``[Hq]``.

    >>> kv_groups(8, 2).tolist()
    [0, 0, 0, 0, 1, 1, 1, 1]
    >>> kv_groups(4, 4).tolist(), kv_groups(4, 1).tolist()   # MHA and MQA
    ([0, 1, 2, 3], [0, 0, 0, 0])
    """
    size = group_size(n_q_heads, n_kv_heads)  # checks both counts
    return np.arange(n_q_heads) // size


def repeat_kv(x, n_rep: int) -> np.ndarray:
    """Repeat every K/V head ``n_rep`` times in place: ``[B, Hkv, T, d]`` →
    ``[B, Hkv·n_rep, T, d]``, the NumPy twin of Hugging Face's ``repeat_kv``. Head
    ``h`` of the result is head ``h // n_rep`` of ``x``.

    >>> repeat_kv(np.arange(2.0).reshape(1, 2, 1, 1), 3)[0, :, 0, 0].tolist()
    [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]
    """
    x = as_float_array("x", x, ndim=4)
    n_rep = as_int("n_rep", n_rep, low=1)
    return np.repeat(x, n_rep, axis=1)


# ------------------------------------------------------------------------ attention


@dataclass(frozen=True)
class GroupedAttentionTrace:
    """Everything one grouped-query attention call computes."""

    query: np.ndarray  # [B, Hq, T_q, d_h]
    key: np.ndarray  # [B, Hkv, T_k, d_h]  cached keys followed by the new ones
    value: np.ndarray  # [B, Hkv, T_k, d_v]  cached values followed by the new ones
    groups: np.ndarray  # [Hq] K/V head read by each query head, h // (Hq/Hkv)
    scores: np.ndarray  # [B, Hq, T_q, T_k]  QKᵀ/√d_h of each query head before the mask
    mask: np.ndarray  # [B, Hq, T_q, T_k]  True where key j is visible to query i
    weights: np.ndarray  # [B, Hq, T_q, T_k]  softmax over the last (key) axis, per query head
    output: np.ndarray  # [B, Hq, T_q, d_v]  weights @ value of the head's group

    @property
    def n_q_heads(self) -> int:
        return self.query.shape[1]

    @property
    def n_kv_heads(self) -> int:
        return self.key.shape[1]

    @property
    def cache(self) -> tuple[np.ndarray, np.ndarray]:
        """``(key, value)`` including this call's positions: the ``past`` of the next call."""
        return self.key, self.value


def _past(past, b, h_kv, d_k, d_v):
    """Check a ``(key, value)`` cache and return it, or empty arrays when None."""
    if past is None:
        return np.zeros((b, h_kv, 0, d_k)), np.zeros((b, h_kv, 0, d_v))
    if not isinstance(past, (tuple, list)) or len(past) != 2:
        raise TypeError("past must be a (key, value) pair of [B, Hkv, P, d_h] arrays, or None")
    pk = as_float_array("past key", past[0], ndim=4)
    pv = as_float_array("past value", past[1], ndim=4)
    if pk.shape[:2] != (b, h_kv) or pk.shape[3] != d_k:
        raise ValueError(f"past key must be [B, Hkv, P, d_h] = [{b}, {h_kv}, P, {d_k}], got {list(pk.shape)}")
    if pv.shape[:3] != pk.shape[:3] or pv.shape[3] != d_v:
        raise ValueError(f"past value must be [{b}, {h_kv}, {pk.shape[2]}, {d_v}], got {list(pv.shape)}")
    return pk, pv


def grouped_attention(query, key, value, mask=None, *, past=None, causal: bool = False) -> GroupedAttentionTrace:
    """Attention of ``Hq`` query heads over ``Hkv`` shared K/V heads.

    ``query [B, Hq, T_q, d_h]``; ``key [B, Hkv, T, d_h]`` and ``value [B, Hkv, T, d_v]``
    hold this call's new positions. ``past`` is an optional ``(key, value)`` cache of
    ``P`` earlier positions (``[B, Hkv, P, ·]``), put in front of them, so
    ``T_k = P + T``. ``causal=True`` hides the future with
    :func:`~tokenpath.attention.cache_mask` (query row ``r`` sits at position ``P + r``);
    ``mask`` (True = visible) broadcasts to ``[B, Hq, T_q, T_k]`` and is ANDed with it.

    Query head ``h`` reads K/V head ``h // (Hq/Hkv)``. The K/V heads are not copied:
    the query heads are viewed as ``[B, Hkv, Hq/Hkv, T_q, d_h]`` and each group's keys
    broadcast over its query heads inside :func:`~tokenpath.attention.attention`.

    >>> q = np.zeros((1, 4, 1, 2)); k = np.zeros((1, 2, 3, 2)); v = np.arange(6.0).reshape(1, 2, 3, 1)
    >>> t = grouped_attention(q, k, v)
    >>> t.groups.tolist(), t.output[0, :, 0, 0].round(6).tolist()   # heads 0,1: group 0; 2,3: group 1
    ([0, 0, 1, 1], [1.0, 1.0, 4.0, 4.0])
    """
    q = as_float_array("query", query, ndim=4)
    k = as_float_array("key", key, ndim=4)
    v = as_float_array("value", value, ndim=4)
    b, h_q, t_q, d_h = q.shape
    if k.shape[0] != b or k.shape[3] != d_h:
        raise ValueError(f"key must be [B, Hkv, T, d_h] with B={b}, d_h={d_h} (from query), got {list(k.shape)}")
    if v.shape[:3] != k.shape[:3]:
        raise ValueError(f"value must have key's [B, Hkv, T] = {list(k.shape[:3])}, got {list(v.shape)}")
    h_kv = k.shape[1]
    g = group_size(h_q, h_kv)
    pk, pv = _past(past, b, h_kv, d_h, v.shape[3])
    k = np.concatenate([pk, k], axis=2)
    v = np.concatenate([pv, v], axis=2)
    p, t_k = pk.shape[2], k.shape[2]
    visible = np.ones((b, h_q, t_q, t_k), dtype=bool)
    if causal:
        if t_k - p != t_q:
            raise ValueError(f"with causal=True key must hold the T_q={t_q} new positions, got {t_k - p}")
        visible &= cache_mask(p, t_q)
    if mask is not None:
        m = as_bool_array("mask", mask)
        try:
            visible &= np.broadcast_to(m, visible.shape)
        except ValueError:
            raise ValueError(f"mask must broadcast to [B, Hq, T_q, T_k] = {list(visible.shape)}, got {list(m.shape)}") from None
    visible = _check_visible(visible, visible.shape)  # every query row needs a visible key
    scores, weights, output = _grouped(q, k, v, visible)
    return GroupedAttentionTrace(query=q, key=k, value=v, groups=np.arange(h_q) // g, scores=scores,
                                 mask=visible, weights=weights, output=output)


def _grouped(q: np.ndarray, k: np.ndarray, v: np.ndarray, visible: np.ndarray):
    """The unchecked core of :func:`grouped_attention`: ``(scores, weights, output)``,
    each ``[B, Hq, T_q, ·]``, in the dtype of ``q``, ``k``, ``v``.

    ``q [B, Hq, T_q, d_h]``, ``k``/``v [B, Hkv, T_k, ·]``; ``visible`` is ``[T_q, T_k]``
    (one mask for every head) or ``[B, Hq, T_q, T_k]``. The query heads are viewed as
    ``[B, Hkv, g, T_q, d_h]`` (h = group·g + r, as :func:`repeat_kv` orders them) and each
    group's keys broadcast over its g query heads: a reshape, never a copy per head.
    """
    b, h_q, t_q, d_h = q.shape
    h_kv, t_k = k.shape[1], k.shape[2]
    g = h_q // h_kv
    if visible.ndim == 4:
        visible = visible.reshape(b, h_kv, g, t_q, t_k)
    scores, weights, output = _attend(q.reshape(b, h_kv, g, t_q, d_h), k[:, :, None], v[:, :, None], visible)

    def heads(x):  # [B, Hkv, g, T_q, ·] -> [B, Hq, T_q, ·]
        return x.reshape((b, h_q) + x.shape[3:])

    return heads(scores), heads(weights), heads(output)


# ----------------------------------------------------------------- cache counting

#: Bytes one stored number takes at each precision a cache is commonly kept in.
DTYPE_BYTES = {"float64": 8, "float32": 4, "bfloat16": 2, "float16": 2, "int8": 1}


@dataclass(frozen=True)
class KVCacheSize:
    """Element count of a K/V cache: 2 (K and V) × layers × requests × Hkv × P × d_h.

    Only the K/V body: no weights, allocator, workspace, precision or latency.
    """

    layers: int
    requests: int
    kv_heads: int
    seq_len: int  # P, cached positions per request
    head_dim: int  # d_h

    @property
    def factors(self) -> tuple[int, int, int, int, int]:
        """The product as the book writes it: (2, layers·requests, Hkv, P, d_h); the
        leading 2 counts K and V, the second factor the (layer, request) pairs."""
        return (2, self.layers * self.requests, self.kv_heads, self.seq_len, self.head_dim)

    @property
    def elements(self) -> int:
        return int(np.prod(self.factors))

    @property
    def per_position(self) -> int:
        """Numbers one more cached position adds: 2 × layers·requests × Hkv × d_h."""
        return 2 * self.layers * self.requests * self.kv_heads * self.head_dim

    def nbytes(self, dtype: str) -> int:
        """Bytes of the K/V body with every number stored as ``dtype`` (a key of
        :data:`DTYPE_BYTES`): the element count times the bytes per number.

        >>> kv_cache_size(layers=1, requests=1, kv_heads=2, seq_len=3, head_dim=2).nbytes("bfloat16")
        48
        """
        return self.elements * _dtype_bytes(dtype)

    def nbytes_per_position(self, dtype: str) -> int:
        """Bytes one more cached position adds, with every number stored as ``dtype``."""
        return self.per_position * _dtype_bytes(dtype)


def _dtype_bytes(dtype) -> int:
    if not isinstance(dtype, str) or dtype not in DTYPE_BYTES:
        raise ValueError(f"dtype must be one of {sorted(DTYPE_BYTES)}, got {dtype!r}")
    return DTYPE_BYTES[dtype]


def bytes_text(n: int) -> str:
    """A byte count in binary units the way the prose writes it: the largest unit
    (KiB = 1024 bytes, MiB, GiB) that divides it evenly, else plain bytes.

    >>> bytes_text(131072), bytes_text(1073741824), bytes_text(1000)
    ('128 KiB', '1 GiB', '1,000 bytes')
    """
    n = as_int("n", n, low=0)
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n and n % size == 0:
            return f"{n // size:,} {unit}"
    return f"{n:,} bytes"


def kv_cache_size(*, layers: int, requests: int, kv_heads: int, seq_len: int, head_dim: int) -> KVCacheSize:
    """Count the numbers a K/V cache holds.

    >>> kv_cache_size(layers=1, requests=1, kv_heads=2, seq_len=3, head_dim=2).elements
    24
    """
    return KVCacheSize(
        as_int("layers", layers, low=1), as_int("requests", requests, low=1),
        as_int("kv_heads", kv_heads, low=1), as_int("seq_len", seq_len, low=0),
        as_int("head_dim", head_dim, low=1),
    )
