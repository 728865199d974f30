"""Chapter 9's lessons: the traces its figures draw and its prose prints.

Built on the engine's :mod:`tokenpath.moe`: the teaching table of expert outputs and
the hand calculation with rounded gates of figure 20, and the top-1 boundary of
figure 21, where two experts trade places as δ crosses 0 and the tie rule decides at
δ = 0; and (:func:`file_experts`) whether a GGUF file holds a mixture at all.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import as_float, as_float_array, as_int
from ..gguf_format import GGUFFile
from ..moe import MoETrace, Route, RouterGradient, combine, route, router_gradient

__all__ = [
    "Boundary",
    "FileExperts",
    "Top1Curves",
    "combine_table",
    "file_experts",
    "output_from_rounded_gates",
    "top1_boundary",
    "top1_curves",
]


# ---------------------------------------------------- figure 20: one token routed


def combine_table(routing: Route, table) -> MoETrace:
    """:func:`combine` with the outputs looked up in ``table [E_n, d]``, one row per expert
    (a teaching table of what each expert *would* return); only the chosen rows are read.

    >>> r = route([2.0, 1.0, 0.0, -1.0], 2)
    >>> combine_table(r, [[1.0, 3.0], [5.0, 1.0], [9.0, 9.0], [9.0, 9.0]]).output.round(6).tolist()
    [2.075766, 2.462117]
    """
    if not isinstance(routing, Route):
        raise TypeError(f"routing must be a Route from moe.route, got {type(routing).__name__}")
    t = as_float_array("table", table, ndim=2)
    if t.shape[0] != routing.n_experts:
        raise ValueError(
            f"table must be [E_n, d] with one row per expert (E_n = {routing.n_experts}), got shape {list(t.shape)}"
        )
    return combine(routing, t[routing.chosen])


def output_from_rounded_gates(trace: MoETrace, digits: int) -> np.ndarray:
    """The output a hand calculation gets after rounding the gates to ``digits``
    decimals first: rounding order, not another algorithm.

    >>> t = combine(route([2.0, 1.0, 0.0, -1.0], 2), [[1.0, 3.0], [5.0, 1.0]])
    >>> output_from_rounded_gates(t, 3).round(6).tolist()
    [2.076, 2.462]
    """
    if not isinstance(trace, MoETrace):
        raise TypeError(f"trace must be a MoETrace from moe.combine, got {type(trace).__name__}")
    digits = as_int("digits", digits, low=0)
    g = np.round(trace.route.chosen_gates, digits)[..., None]
    return (g * trace.expert_outputs).sum(axis=-2)


# --------------------------------------------------- figure 21: the boundary


@dataclass(frozen=True)
class Boundary:
    """Figure 21 at one δ: two experts, ``a₀ = δ``, ``a₁ = −δ``, top-1."""

    delta: float
    scores: np.ndarray  # [2] (δ, −δ)
    chosen: int  # the expert that runs (tie at δ = 0: the lower ID, 0)
    in_set: RouterGradient  # gate renormalised in the chosen set: constantly 1
    full: RouterGradient  # gate = the chosen expert's full-softmax probability

    @property
    def gate_in_set(self) -> float:
        return float(self.in_set.route.gates[self.chosen])

    @property
    def gate_full(self) -> float:
        return float(self.full.route.gates[self.chosen])


def top1_boundary(delta, expert_outputs, target) -> Boundary:
    """Figure 21's trace at ``delta``: which expert runs, both gates, both gradients.

    >>> b = top1_boundary(0.5, [[1.0, 0.0], [0.0, 2.0]], [0.0, 1.0])
    >>> b.chosen, b.gate_in_set, round(b.gate_full, 6)
    (0, 1.0, 0.731059)
    >>> top1_boundary(-0.5, [[1.0, 0.0], [0.0, 2.0]], [0.0, 1.0]).chosen
    1
    >>> top1_boundary(0.0, [[1.0, 0.0], [0.0, 2.0]], [0.0, 1.0]).chosen   # the tie rule
    0
    """
    delta = as_float("delta", delta)
    a = np.array([delta, -delta]) + 0.0  # + 0.0 turns −0.0 at the tie into 0.0
    f = as_float_array("expert_outputs", expert_outputs, ndim=2)
    if f.shape[0] != 2:
        raise ValueError(f"expert_outputs must hold two experts' outputs [2, d], got shape {list(f.shape)}")
    in_set = router_gradient(a, f, target, 1, gate="in_set")
    full = router_gradient(a, f, target, 1, gate="full_softmax")
    return Boundary(delta, a, int(in_set.route.chosen[0]), in_set, full)


@dataclass(frozen=True)
class Top1Curves:
    """Figure 21's curves over a grid of δ: scores, the chosen expert and both gates."""

    delta: np.ndarray  # [n] the control δ
    scores: np.ndarray  # [n, 2] (δ, −δ)
    chosen: np.ndarray  # [n] the expert that runs at each δ
    gate_in_set: np.ndarray  # [n] its in-set gate (always 1)
    gate_full: np.ndarray  # [n] its full-softmax probability


def top1_curves(deltas) -> Top1Curves:
    """Top-1 routing of two experts with ``a₀ = δ``, ``a₁ = −δ`` for every δ in ``deltas``.

    >>> c = top1_curves([-1.0, 0.0, 1.0])
    >>> c.chosen.tolist(), c.gate_in_set.tolist(), c.gate_full.round(3).tolist()
    ([1, 0, 0], [1.0, 1.0, 1.0], [0.881, 0.5, 0.881])
    """
    d = as_float_array("deltas", deltas, ndim=1)
    if d.size == 0:
        raise ValueError("deltas must hold at least one value")
    a = np.stack([d, -d], axis=-1)
    in_set = route(a, 1)
    full = route(a, 1, gate="full_softmax")
    chosen = in_set.chosen[:, 0]
    rows = np.arange(d.size)
    return Top1Curves(d, a, chosen, in_set.gates[rows, chosen], full.gates[rows, chosen])


# ------------------------------------------------- does a GGUF file hold a mixture?

_EXPERT_PARTS = ("ffn_gate_exps", "ffn_up_exps", "ffn_down_exps")  # a mixture's stacked experts
_DENSE_PARTS = ("ffn_gate", "ffn_up", "ffn_down")  # one dense SwiGLU


@dataclass(frozen=True)
class FileExperts:
    """What a GGUF file's header and tensor names say about mixtures of experts, by the
    names llama.cpp gives them: ``{arch}.expert_count`` in the metadata, a router
    ``blk.N.ffn_gate_inp`` and stacked experts ``blk.N.ffn_{gate,up,down}_exps`` per layer."""

    layers: int  # {arch}.block_count
    expert_count: int | None  # {arch}.expert_count, None when the header has no such key
    routers: int  # tensors blk.N.ffn_gate_inp.weight
    expert_tensors: int  # tensors blk.N.ffn_{gate,up,down}_exps.weight
    dense_tensors: int  # tensors blk.N.ffn_{gate,up,down}.weight

    @property
    def dense(self) -> bool:
        """No expert count, no router, no stacked experts, and one gate, up and down matrix per layer."""
        return (self.expert_count is None and self.routers == self.expert_tensors == 0
                and self.dense_tensors == 3 * self.layers)


def file_experts(g: GGUFFile) -> FileExperts:
    """Count the header key and the tensors of a mixture in the GGUF file ``g`` (chapter 9's aside).

    >>> from ..gguf_format import read_gguf
    >>> from ..model.gguf_model import _tiny_gguf
    >>> f = file_experts(read_gguf(_tiny_gguf()))
    >>> f.expert_count, f.routers, f.expert_tensors, f.dense_tensors, f.dense
    (None, 0, 0, 3, True)
    """
    if not isinstance(g, GGUFFile):
        raise TypeError(f"g must be a tokenpath.gguf_format.GGUFFile, got {type(g).__name__}")
    arch = g.metadata.get("general.architecture")
    if not isinstance(arch, str) or not isinstance(g.metadata.get(f"{arch}.block_count"), int):
        raise ValueError("g must name its general.architecture and that architecture's block_count")
    layers = g.metadata[f"{arch}.block_count"]

    def count(parts) -> int:
        return sum(f"blk.{k}.{p}.weight" in g.tensors for k in range(layers) for p in parts)

    return FileExperts(layers, g.metadata.get(f"{arch}.expert_count"), count(("ffn_gate_inp",)),
                       count(_EXPERT_PARTS), count(_DENSE_PARTS))
