"""A sparse MoE at the scale of a batch and of a model (chapter 9, sections 9.2 and 9.4).

:func:`~tokenpath.moe.route` decides for one token; here a batch of tokens is routed
at once (:func:`route_batch`), which shows the experts the batch uses, how many tokens
each one takes and, under a per-expert ``capacity``, which assignments are dropped.
:func:`expert_parameters` counts what every expert costs in storage against what one
token runs: element counts, not latency, memory traffic or speed.

Conventions are those of :mod:`tokenpath.moe`: the expert axis is the last axis, and
the tie rule and the gates are :func:`~tokenpath.moe.route`'s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import as_float_array, as_int
from .moe import Route, route

__all__ = [
    "BatchRoute",
    "ExpertParameters",
    "count_text",
    "expert_parameters",
    "route_batch",
]


# ------------------------------------------------------------- batch and capacity


@dataclass(frozen=True)
class BatchRoute:
    """Routing of a batch of tokens: per-token choices, batch use, load and drops."""

    route: Route  # scores/gates [N, E], chosen [N, k]
    capacity: int | None  # most tokens one expert takes in this batch (None: no limit)
    kept: np.ndarray  # [N, E] True where the token is chosen *and* admitted

    @property
    def used(self) -> np.ndarray:
        """``[N, E]`` True where token n runs expert i (its own choice, before capacity)."""
        return self.route.mask

    @property
    def experts_used(self) -> np.ndarray:
        """Sorted IDs of the experts at least one token of the batch chose."""
        return np.flatnonzero(self.used.any(axis=0))

    @property
    def load(self) -> np.ndarray:
        """``[E]`` tokens that chose each expert."""
        return self.used.sum(axis=0)

    @property
    def kept_load(self) -> np.ndarray:
        """``[E]`` tokens each expert actually processes under the capacity limit."""
        return self.kept.sum(axis=0)

    @property
    def dropped(self) -> list[tuple[int, int]]:
        """``(token, expert)`` assignments a capacity limit turns away."""
        return [(int(n), int(i)) for n, i in np.argwhere(self.used & ~self.kept)]


def route_batch(scores, k: int, *, capacity: int | None = None, gate: str = "in_set") -> BatchRoute:
    """Route tokens ``scores [N, E]`` and apply an optional per-expert ``capacity``.

    Capacity rule (a teaching choice): each expert admits tokens in token order until
    it has ``capacity`` of them; later tokens that chose it are dropped for that
    expert (their gate for it is not applied). Real systems differ (priority by gate,
    re-routing, auxiliary balancing losses).

    >>> b = route_batch([[2.0, 1.0, 0.0, -1.0], [-1.0, 0.0, 1.0, 2.0]], 2)
    >>> b.experts_used.tolist(), b.load.tolist()
    ([0, 1, 2, 3], [1, 1, 1, 1])
    >>> route_batch([[2.0, 1.0, 0.0], [2.0, 0.0, 1.0]], 1, capacity=1).dropped
    [(1, 0)]
    """
    a = as_float_array("scores", scores, min_ndim=1)
    if a.ndim != 2:
        raise ValueError(f"scores must be [N, E] (tokens × experts), got shape {a.shape}")
    r = route(a, k, gate=gate)
    if capacity is None:
        return BatchRoute(r, None, r.mask.copy())
    capacity = as_int("capacity", capacity, low=1)
    # rank of each token among those that chose the same expert, in token order
    rank = np.cumsum(r.mask, axis=0) - 1
    return BatchRoute(r, capacity, r.mask & (rank < capacity))


# ---------------------------------------------------- stored and active parameters


@dataclass(frozen=True)
class ExpertParameters:
    """Parameter bookkeeping of an MoE: stored vs run per token. Element counts, not
    latency, memory traffic or speed. (Not to be confused with an expert's *capacity*,
    the most tokens it accepts from one batch: see :func:`route_batch`.)"""

    n_experts: int
    params_per_expert: int
    k: int
    shared: int  # attention, norms, router, output head, embedding table …: stored once

    @property
    def stored(self) -> int:
        """Expert parameters that must be stored (all experts)."""
        return self.n_experts * self.params_per_expert

    @property
    def active(self) -> int:
        """Expert parameters one token runs (its k experts)."""
        return self.k * self.params_per_expert

    @property
    def stored_total(self) -> int:
        return self.stored + self.shared

    @property
    def active_total(self) -> int:
        return self.active + self.shared


def expert_parameters(n_experts: int, params_per_expert: int, k: int, *, shared: int = 0) -> ExpertParameters:
    """Total and per-token expert parameters (chapter 9, section 9.2).

    >>> c = expert_parameters(16, 100_000_000, 2)
    >>> count_text(c.stored), count_text(c.active)
    ('1.6B', '200M')
    """
    n_experts = as_int("n_experts", n_experts, low=1)
    params = as_int("params_per_expert", params_per_expert, low=1)
    k = as_int("k", k, low=1)
    if k > n_experts:
        raise ValueError(f"k must be at most n_experts ({n_experts}): a token cannot run more experts than exist, "
                         f"got {k}")
    shared = as_int("shared", shared, low=0)
    return ExpertParameters(n_experts, params, k, shared)


def count_text(n) -> str:
    """A parameter count the way the prose writes it: ``100M``, ``1.6B``, ``512``.

    >>> count_text(1_600_000_000), count_text(200_000_000), count_text(512)
    ('1.6B', '200M', '512')
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise TypeError(f"n must be a non-negative integer count, got {n!r}")
    n = int(n)
    for unit, size in (("B", 10**9), ("M", 10**6), ("K", 10**3)):
        if n >= size:
            text = f"{n / size:.3f}".rstrip("0").rstrip(".")
            return text + unit
    return str(n)
