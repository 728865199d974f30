"""Chapter 7's lessons: the head-sharing trace that figure 16 draws and section 7.6 counts.

Built on the engine's :mod:`tokenpath.gqa`: which K/V head each query head reads
(:func:`~tokenpath.gqa.kv_groups`) and how many numbers the K/V cache holds
(:func:`~tokenpath.gqa.kv_cache_size`), with the shared heads and with one K/V head per
query head.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..gqa import KVCacheSize, kv_cache_size, kv_groups

__all__ = [
    "HeadSharing",
    "head_sharing",
]


@dataclass(frozen=True)
class HeadSharing:
    """How ``Hq`` query heads share ``Hkv`` K/V heads (figure 16): the K/V head each
    query head reads, the shapes of the query and K/V tensors, and the K/V cache next
    to the cache of multi-head attention, which gives every query head its own K/V head."""

    n_q_heads: int  # Hq
    n_kv_heads: int  # Hkv
    groups: np.ndarray  # [Hq] K/V head read by query head h
    cache: KVCacheSize  # with Hkv K/V heads
    mha_cache: KVCacheSize  # the same with Hq K/V heads

    @property
    def group_size(self) -> int:
        """Query heads per K/V head, Hq / Hkv."""
        return self.n_q_heads // self.n_kv_heads

    def readers(self, group: int) -> np.ndarray:
        """The query heads that read K/V head ``group``."""
        return np.flatnonzero(self.groups == group)

    @property
    def ratio(self) -> Fraction:
        """Cache with shared heads over cache with one K/V head per query head."""
        return Fraction(self.cache.elements, self.mha_cache.elements)

    @property
    def query_shape(self) -> tuple:
        return ("B", self.n_q_heads, "T", "d_h")

    @property
    def kv_shape(self) -> tuple:
        return ("B", self.n_kv_heads, "T", "d_h")


def head_sharing(n_q_heads: int, n_kv_heads: int, *, layers: int = 1, requests: int = 1,
                 seq_len: int = 3, head_dim: int = 2) -> HeadSharing:
    """Share ``Hq`` query heads over ``Hkv`` K/V heads (:func:`~tokenpath.gqa.kv_groups`)
    and count the K/V cache of ``layers``, ``requests``, ``seq_len`` positions and
    ``head_dim`` with and without the sharing (:func:`~tokenpath.gqa.kv_cache_size`).

    >>> s = head_sharing(8, 2)
    >>> s.readers(1).tolist(), s.cache.elements, s.mha_cache.elements, s.ratio
    ([4, 5, 6, 7], 24, 96, Fraction(1, 4))
    """
    groups = kv_groups(n_q_heads, n_kv_heads)
    size = dict(layers=layers, requests=requests, seq_len=seq_len, head_dim=head_dim)
    return HeadSharing(
        n_q_heads=int(n_q_heads), n_kv_heads=int(n_kv_heads), groups=groups,
        cache=kv_cache_size(kv_heads=n_kv_heads, **size),
        mha_cache=kv_cache_size(kv_heads=n_q_heads, **size),
    )
