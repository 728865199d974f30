"""Chapter 6's lessons: the order-blind head and the RoPE discs of figure 15.

Built on the engine's :mod:`tokenpath.position` and :mod:`tokenpath.attention`: one
unmasked head run on a text and on a reordering of it, with and without RoPE, the
discs, distance curve and pair speeds that figure 15 draws from its teaching vectors.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import as_float, as_float_array, as_int, as_int_array, as_pair_width
from ..attention import AttentionTrace, attention
from ..examples import (
    FIG15_BASE,
    FIG15_DISTANCE,
    FIG15_DISTANCES,
    FIG15_HEAD_DIM,
    FIG15_K,
    FIG15_MAX_DISTANCE,
    FIG15_OMEGA,
    FIG15_PAIR,
    FIG15_PAIR_DISTANCE,
    FIG15_Q,
    encode_chars,
)
from ..position import rope, rope_frequencies, rotation

__all__ = [
    "Disc",
    "DistanceTrace",
    "Fig15Trace",
    "OrderBlindness",
    "PairTrace",
    "distance_trace",
    "fig15_trace",
    "order_blindness",
    "pair_trace",
    "rope_disc",
]


# ------------------------------------------------- why attention needs positions


@dataclass(frozen=True)
class OrderBlindness:
    """One unmasked attention head run on a text and on a reordering of it, with and
    without RoPE on its queries and keys."""

    ids: np.ndarray  # [T] token IDs of the text
    permutation: np.ndarray  # [T] new position p holds old position permutation[p]
    plain: AttentionTrace  # [T, d_h] no positions, original order
    plain_reordered: AttentionTrace  # no positions, reordered input
    rotary: AttentionTrace  # RoPE on Q and K, original order
    rotary_reordered: AttentionTrace  # RoPE on Q and K, reordered input
    table: np.ndarray  # [vocab, d] the seeded embedding rows E
    w_q: np.ndarray  # [d, d_h] the seeded projections W_Q, W_K, W_V
    w_k: np.ndarray
    w_v: np.ndarray

    @property
    def plain_follows_order(self) -> bool:
        """Without positions the outputs are just the old ones, reordered."""
        return bool(np.allclose(self.plain_reordered.output, self.plain.output[self.permutation]))

    @property
    def rotary_follows_order(self) -> bool:
        """With RoPE, reordering the input changes the outputs themselves."""
        return bool(np.allclose(self.rotary_reordered.output, self.rotary.output[self.permutation]))


def order_blindness(text: str, permutation, *, d_model: int = 8, d_head: int = 4, seed: int) -> OrderBlindness:
    """Run one head without a mask on ``text`` and on ``text`` reordered by
    ``permutation``; embedding rows and projections are seeded random numbers.

    >>> o = order_blindness("abac", [3, 2, 1, 0], seed=15)
    >>> o.plain_follows_order, o.rotary_follows_order
    (True, False)
    """
    ids = encode_chars(text)
    perm = as_int_array("permutation", permutation, ndim=1)
    if sorted(perm.tolist()) != list(range(ids.size)):
        raise ValueError(f"permutation must reorder 0 … {ids.size - 1} (each once), got {perm.tolist()}")
    d_head = as_pair_width("d_head", d_head)
    rng = np.random.default_rng(as_int("seed", seed, low=0))
    table = rng.standard_normal((int(ids.max()) + 1, as_int("d_model", d_model, low=1)))
    w_q, w_k, w_v = (rng.standard_normal((d_model, d_head)) / np.sqrt(d_model) for _ in range(3))
    pos = np.arange(ids.size)

    def head(x, rotary):
        q, k = x @ w_q, x @ w_k
        if rotary:  # positions are the slots 0 … T−1 the rows now stand in
            q, k = rope(q, pos), rope(k, pos)
        return attention(q, k, x @ w_v)  # no mask: every position reads every other

    x, x_re = table[ids], table[ids[perm]]
    return OrderBlindness(ids, perm, head(x, False), head(x_re, False), head(x, True), head(x_re, True),
                          table, w_q, w_k, w_v)


# ------------------------------------------------------------ figure 15's discs


@dataclass(frozen=True)
class Disc:
    """One feature pair of a query at position m and a key at n = m − ``distance``: the
    key sits ``distance`` positions before the query, as in a decoder."""

    q: np.ndarray  # [2] the query pair (it stays where it is: the reference direction)
    k: np.ndarray  # [2] the key pair before rotation
    omega: float  # rad per position step of this pair
    distance: float  # m − n, how many positions back the key sits
    angle: float  # (n − m)·ω = −distance·ω, rad: the key turns clockwise relative to q
    turned_key: np.ndarray  # [2] R(angle) k, the key as the query sees it
    dot: float  # q · R(angle) k, the raw score of this pair

    @property
    def degrees(self) -> float:
        """The angle in degrees (negative: clockwise)."""
        return float(np.degrees(self.angle))


def rope_disc(q, k, omega: float, distance: float) -> Disc:
    """One disc: the key ``distance`` = m − n positions before the query, so turned by
    (n − m)·omega = −distance·omega relative to it (qᵀR((n − m)ω)k).

    >>> d = rope_disc([1, 0], [1, 0], np.pi / 2, 1)
    >>> round(d.degrees), d.turned_key.round(12).tolist()
    (-90, [0.0, -1.0])
    """
    q = as_float_array("q", q, ndim=1)
    k = as_float_array("k", k, ndim=1)
    if q.shape != (2,) or k.shape != (2,):
        raise ValueError(f"q and k must be one feature pair each, shape [2]; got {q.shape} and {k.shape}")
    omega = as_float("omega", omega)
    distance = as_float("distance", distance)
    angle = -distance * omega  # (n − m)·ω with n = m − distance
    turned = rotation(angle) @ k
    return Disc(q, k, omega, distance, angle, turned, float(q @ turned))


@dataclass(frozen=True)
class DistanceTrace:
    """Figure 15 (b): one disc at a chosen distance and frequency, and the pair's
    score against every distance on a fine grid."""

    disc: Disc
    distances: np.ndarray  # [N] distances m − n = 0 … FIG15_MAX_DISTANCE the curve is drawn at
    scores: np.ndarray  # [N] q · R(−distance · ω) k


def distance_trace(distance: float = FIG15_DISTANCE, omega: float = FIG15_OMEGA, *,
                   q=FIG15_Q, k=FIG15_K) -> DistanceTrace:
    """Panel (b) of figure 15 with the key ``distance`` = m − n positions back, at ``omega``.

    >>> t = distance_trace(1, np.pi / 2)
    >>> round(t.disc.degrees), round(t.disc.dot, 12), float(t.distances[-1])
    (-90, 0.0, 16.0)
    """
    disc = rope_disc(q, k, omega, distance)
    if not 0 <= disc.distance <= FIG15_MAX_DISTANCE:
        raise ValueError(f"distance m − n (how far back the key sits) must be between 0 and {FIG15_MAX_DISTANCE}, "
                         f"got {disc.distance:g}")
    grid = np.linspace(0.0, FIG15_MAX_DISTANCE, 8 * FIG15_MAX_DISTANCE + 1)
    angles = -grid * disc.omega  # the key turns clockwise the further back it sits
    turned = np.cos(angles)[:, None] * disc.k + np.sin(angles)[:, None] * np.array([-disc.k[1], disc.k[0]])
    return DistanceTrace(disc, grid, turned @ disc.q)


@dataclass(frozen=True)
class PairTrace:
    """Figure 15 (c): one pair of a wider head, its speed set by the base and its index."""

    head_dim: int
    base: float
    index: int  # which pair, 0 … head_dim/2 − 1
    frequencies: np.ndarray  # [head_dim/2] θ_i = base^(−2i/d_h) of every pair
    disc: Disc  # the chosen pair at the panel's distance, ω = θ_index


def pair_trace(index: int = FIG15_PAIR, base: float = FIG15_BASE, *, head_dim: int = FIG15_HEAD_DIM,
               distance: float = FIG15_PAIR_DISTANCE, q=FIG15_Q, k=FIG15_K) -> PairTrace:
    """Panel (c) of figure 15: pair ``index`` of a ``head_dim``-wide head with ``base``.

    >>> t = pair_trace(16, 10000.0)
    >>> float(t.disc.omega), round(t.disc.angle, 12)
    (0.01, -0.03)
    """
    freqs = rope_frequencies(head_dim, base)
    index = as_int("index", index, low=0, high=freqs.size - 1)
    return PairTrace(int(head_dim), float(base), index, freqs, rope_disc(q, k, freqs[index], distance))


@dataclass(frozen=True)
class Fig15Trace:
    """Everything figure 15 draws."""

    discs: tuple  # (Disc, …) panel (a)'s discs, distances FIG15_DISTANCES at FIG15_OMEGA
    live: DistanceTrace  # panel (b), the distance/frequency widget's default
    pair: PairTrace  # panel (c), the base/pair-index widget's default


def fig15_trace() -> Fig15Trace:
    """Figure 15's numbers: the key 0, 1, 2 positions back → turned 0°, 90°, 180°
    clockwise → dot 1, 0, −1.

    >>> [round(d.dot, 12) + 0.0 for d in fig15_trace().discs]
    [1.0, 0.0, -1.0]
    """
    discs = tuple(rope_disc(FIG15_Q, FIG15_K, FIG15_OMEGA, d) for d in FIG15_DISTANCES)
    return Fig15Trace(discs, distance_trace(), pair_trace())
