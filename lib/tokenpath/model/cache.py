"""The K/V cache a model generates with (chapter 4's cache, used for real): the keys
(RoPE already applied) and values of every position seen so far, one pair per layer.

A new row at position ``P + r`` reads every cached key and the new ones up to its own
(:func:`tokenpath.attention.cache_mask`, PyTorch's ``causal_lower_right``), so the
prompt runs once (prefill) and every later step computes one position.
"""

from __future__ import annotations

import numpy as np

from .._checks import as_int

__all__ = ["KVCache"]


class KVCache:
    """Keys and values ``[1, Hkv, P, d_h]`` of each of ``layers`` layers for the ``P``
    positions a model has run, and the IDs of those positions.

    >>> c = KVCache(2, 1, 4)
    >>> c.length, c.layer(0), c.nbytes
    (0, None, 0)
    >>> c.store(0, np.zeros((1, 1, 3, 4)), np.zeros((1, 1, 3, 4))); c.store(1, *c.layer(0)); c.advance([5, 6, 7])
    >>> c.length, c.ids.tolist(), c.nbytes
    (3, [5, 6, 7], 384)
    """

    def __init__(self, layers: int, kv_heads: int, head_dim: int, dtype=np.float64):
        self.shape = (as_int("layers", layers, low=1), as_int("kv_heads", kv_heads, low=1),
                      as_int("head_dim", head_dim, low=1))
        if not isinstance(dtype, (type, np.dtype, str)) or dtype not in (np.float64, np.float32, "float64", "float32"):
            raise ValueError(f"dtype must be np.float64 or np.float32, got {dtype!r}")
        self.dtype = np.dtype(dtype)
        self._kv: list[tuple[np.ndarray, np.ndarray] | None] = [None] * self.shape[0]
        self.ids = np.zeros(0, dtype=np.int64)  # [P] the positions' IDs, in order

    def __repr__(self) -> str:
        layers, kv_heads, head_dim = self.shape
        return f"KVCache(layers={layers}, kv_heads={kv_heads}, head_dim={head_dim}, length={self.length})"

    @property
    def length(self) -> int:
        """P, the number of positions held."""
        return int(self.ids.size)

    @property
    def nbytes(self) -> int:
        """Bytes the keys and values take (chapter 7 counts them: 2 × layers × Hkv × P × d_h numbers)."""
        return int(sum(k.nbytes + v.nbytes for kv in self._kv if kv is not None for k, v in [kv]))

    def layer(self, i: int) -> tuple[np.ndarray, np.ndarray] | None:
        """Layer ``i``'s ``(keys, values)``, each ``[1, Hkv, P, d_h]``, or None before the first run."""
        return self._kv[as_int("i", i, low=0, high=self.shape[0] - 1)]

    def store(self, i: int, keys: np.ndarray, values: np.ndarray) -> None:
        """Replace layer ``i``'s keys and values by ``[1, Hkv, P + T, d_h]`` arrays that
        extend them by ``T`` positions (what the layer returns)."""
        i = as_int("i", i, low=0, high=self.shape[0] - 1)
        want = (1, self.shape[1])
        for name, a in (("keys", keys), ("values", values)):
            if not isinstance(a, np.ndarray) or a.ndim != 4 or a.shape[:2] != want or a.shape[3] != self.shape[2]:
                raise ValueError(f"{name} must be [1, {self.shape[1]}, P, {self.shape[2]}], got "
                                 f"{list(np.shape(a))}")
        if keys.shape != values.shape or keys.shape[2] <= self.length:
            raise ValueError(f"keys and values must have one shape and more than the {self.length} positions held, "
                             f"got {list(keys.shape)} and {list(values.shape)}")
        self._kv[i] = (keys, values)

    def advance(self, ids) -> None:
        """Record the IDs of the positions just stored in every layer."""
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        for i, kv in enumerate(self._kv):
            if kv is None or kv[0].shape[2] != self.length + ids.size:
                raise ValueError(f"layer {i} does not hold {self.length + ids.size} positions: store every layer first")
        self.ids = np.concatenate([self.ids, ids])
