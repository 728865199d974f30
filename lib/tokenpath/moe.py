"""Sparse mixture of experts: who runs, with what weight, and where the gradient stops.

The chapter's formula, for one token ``x`` of width ``d`` and ``E_n`` experts::

    a = x W_r                 router scores, one per expert            [E_n]
    S = TopK(a, k)            the chosen experts, |S| = k
    g_i = e^{a_i} / Σ_{j∈S} e^{a_j}   for i ∈ S, g_i = 0 otherwise      [E_n]
    o = Σ_{i∈S} g_i F_i(x)    the combined output, width d             [d]

Conventions used everywhere in this module:

* the **expert axis is the last axis** of scores and gates (column = expert ID);
* **tie rule**: among equal scores the lower expert index is chosen first (a stable
  sort on the negated scores), so the choice is always defined, even between two equal scores;
* ``chosen`` lists the chosen experts in the order the tie rule ranks them (highest
  score first); unchosen gates are exactly ``0.0``, not a small number;
* ``gate="in_set"`` renormalises inside the chosen set (the book's teaching version);
  ``gate="full_softmax"`` keeps each chosen expert's probability under a softmax over
  *all* experts (the chosen gates then sum to less than 1);
* the softmax is :func:`tokenpath.attention.softmax`, and each expert is the SwiGLU
  network :func:`tokenpath.norms.swiglu`; nothing here re-implements either.

These are teaching versions. Real MoE layers differ in scoring, normalisation, shared
experts and load control; the formula is not a description of every MoE.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import as_float, as_float_array, as_int
from .attention import softmax
from .norms import _swiglu_core, swiglu

__all__ = [
    "GATES",
    "Expert",
    "MoETrace",
    "Route",
    "RouterGradient",
    "combine",
    "expert_output",
    "make_experts",
    "moe_experts",
    "moe_layer",
    "route",
    "router_gradient",
    "router_scores",
    "top_k",
]

#: The two gate conventions: renormalise inside the chosen set, or keep the chosen
#: experts' probabilities under a softmax over all experts.
GATES = ("in_set", "full_softmax")


# ------------------------------------------------------------------- checks


def _scores(name: str, scores) -> np.ndarray:
    a = as_float_array(name, scores, min_ndim=1)
    if a.shape[-1] < 1:
        raise ValueError(f"{name} must have at least one expert on its last axis, got shape {a.shape}")
    return a


def _k(k, n_experts: int) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be an integer number of experts per token, got {type(k).__name__}")
    k = int(k)
    if not 1 <= k <= n_experts:
        raise ValueError(
            f"k must be between 1 and the number of experts ({n_experts}), got {k}: "
            + ("every token must run at least one expert" if k < 1 else "a token cannot run more experts than exist")
        )
    return k


def _gate(gate) -> str:
    if not isinstance(gate, str) or gate not in GATES:
        raise ValueError(f"gate must be one of {GATES}, got {gate!r}")
    return gate


# ------------------------------------------------------------------ routing


def router_scores(x, w_router) -> np.ndarray:
    """Router scores ``a = x W_r``: ``x [..., d]``, ``w_router [d, E_n]`` → ``[..., E_n]``.

    >>> router_scores([1.0, 2.0], [[1.0, 0.0, 1.0], [0.0, 1.0, -1.0]]).tolist()
    [1.0, 2.0, -1.0]
    """
    x = as_float_array("x", x, min_ndim=1)
    w = as_float_array("w_router", w_router, ndim=2)
    if w.shape[0] != x.shape[-1]:
        raise ValueError(
            f"w_router must be [d, E_n] with d = {x.shape[-1]} (x's last axis), got shape {list(w.shape)}"
        )
    return x @ w


def top_k(scores, k: int) -> np.ndarray:
    """Indices of the ``k`` highest scores along the last (expert) axis, highest first.

    Tie rule: among equal scores the lower expert index comes first.

    >>> top_k([2.0, 1.0, 0.0, -1.0], 2).tolist()
    [0, 1]
    >>> top_k([0.0, 0.0], 1).tolist()   # a tie: the lower index wins
    [0]
    """
    a = _scores("scores", scores)
    k = _k(k, a.shape[-1])
    return np.argsort(-a, axis=-1, kind="stable")[..., :k]


@dataclass(frozen=True)
class Route:
    """One routing decision per token: who runs, with what weight."""

    scores: np.ndarray  # [..., E_n] router scores a (column = expert ID)
    k: int  # experts each token runs
    gate: str  # "in_set" or "full_softmax"
    chosen: np.ndarray  # [..., k] chosen expert IDs, highest score first (tie: lower ID)
    mask: np.ndarray  # [..., E_n] True where the expert is chosen
    probs: np.ndarray  # [..., E_n] softmax over all experts (the full-softmax probabilities)
    gates: np.ndarray  # [..., E_n] gate g_i of each expert; exactly 0 where not chosen

    @property
    def n_experts(self) -> int:
        return self.scores.shape[-1]

    @property
    def chosen_gates(self) -> np.ndarray:
        """Gates of the chosen experts in ``chosen`` order, ``[..., k]``."""
        return np.take_along_axis(self.gates, self.chosen, axis=-1)

    @property
    def exp_scores(self) -> np.ndarray:
        """``exp(a_i)`` of every expert: the unnormalised weights of a hand calculation."""
        return np.exp(self.scores)


def route(scores, k: int, *, gate: str = "in_set") -> Route:
    """Choose the top-``k`` experts of each token and give them gates.

    ``scores [..., E_n]`` (the expert axis last). With ``gate="in_set"`` the chosen
    gates are a softmax over the chosen scores only and sum to 1; with
    ``gate="full_softmax"`` they are the chosen experts' probabilities under a softmax
    over all ``E_n`` scores. Unchosen gates are exactly 0 either way.

    >>> r = route([2.0, 1.0, 0.0, -1.0], 2)
    >>> r.chosen.tolist(), r.gates.round(6).tolist()
    ([0, 1], [0.731059, 0.268941, 0.0, 0.0])
    >>> route([2.0, 1.0, 0.0, -1.0], 2, gate="full_softmax").gates.round(6).tolist()
    [0.643914, 0.236883, 0.0, 0.0]
    """
    a = _scores("scores", scores)
    gate = _gate(gate)
    chosen = top_k(a, k)
    k = chosen.shape[-1]
    mask = np.zeros(a.shape, dtype=bool)
    np.put_along_axis(mask, chosen, True, axis=-1)
    probs = softmax(a, axis=-1)
    if gate == "in_set":
        gates = softmax(np.where(mask, a, -np.inf), axis=-1)
    else:
        gates = np.where(mask, probs, 0.0)
    return Route(a, k, gate, chosen, mask, probs, gates)


@dataclass(frozen=True)
class MoETrace:
    """Routing plus the combination ``o = Σ g_i F_i``."""

    route: Route
    expert_outputs: np.ndarray  # [..., k, d] F_i of each chosen expert, in route.chosen order
    contributions: np.ndarray  # [..., k, d] g_i · F_i
    output: np.ndarray  # [..., d] the sum over chosen experts, same width as each F_i


def combine(routing: Route, expert_outputs) -> MoETrace:
    """Weight each chosen expert's output by its gate and add them up.

    ``expert_outputs [..., k, d]`` holds one row per *chosen* expert, in the order of
    ``routing.chosen`` (unchosen experts are not run, so they have no output).

    >>> r = route([2.0, 1.0, 0.0, -1.0], 2)
    >>> combine(r, [[1.0, 3.0], [5.0, 1.0]]).output.round(6).tolist()
    [2.075766, 2.462117]
    """
    if not isinstance(routing, Route):
        raise TypeError(f"routing must be a Route from moe.route, got {type(routing).__name__}")
    f = as_float_array("expert_outputs", expert_outputs, min_ndim=2)
    want = routing.chosen.shape
    if f.shape[:-1] != want:
        raise ValueError(
            f"expert_outputs must be [..., k, d] with one row per chosen expert, i.e. leading shape "
            f"{list(want)} (scores {list(routing.scores.shape)}, k = {routing.k}), got shape {list(f.shape)}"
        )
    g = routing.chosen_gates[..., None]
    contributions = g * f
    return MoETrace(routing, f, contributions, contributions.sum(axis=-2))


# ------------------------------------------------------------------- experts


@dataclass(frozen=True)
class Expert:
    """One expert: a SwiGLU feed-forward network ``(SiLU(x W_gate) ⊙ x W_up) W_down``."""

    w_gate: np.ndarray  # [d, d_ff]
    w_up: np.ndarray  # [d, d_ff]
    w_down: np.ndarray  # [d_ff, d]

    @property
    def n_params(self) -> int:
        return self.w_gate.size + self.w_up.size + self.w_down.size


def expert_output(x, expert: Expert) -> np.ndarray:
    """``F_i(x)``: the expert's SwiGLU network applied to ``x [..., d]``.

    >>> e = Expert(np.eye(2), np.eye(2), np.eye(2))
    >>> expert_output([1.0, 0.0], e).round(4).tolist()
    [0.7311, 0.0]
    """
    if not isinstance(expert, Expert):
        raise TypeError(f"expert must be an Expert, got {type(expert).__name__}")
    return swiglu(x, expert.w_gate, expert.w_up, expert.w_down)


def make_experts(n: int, d: int, d_ff: int, *, seed: int = 0) -> tuple[Expert, ...]:
    """``n`` experts with random weights of scale 1/√fan-in (a fixed seed, so the book
    prints the same numbers every run).

    >>> [e.w_gate.shape for e in make_experts(2, 4, 6)]
    [(4, 6), (4, 6)]
    """
    n = as_int("n", n, low=1)
    d = as_int("d", d, low=1)
    d_ff = as_int("d_ff", d_ff, low=1)
    seed = as_int("seed", seed, low=0)
    rng = np.random.default_rng(seed)
    return tuple(
        Expert(
            rng.standard_normal((d, d_ff)) / np.sqrt(d),
            rng.standard_normal((d, d_ff)) / np.sqrt(d),
            rng.standard_normal((d_ff, d)) / np.sqrt(d_ff),
        )
        for _ in range(n)
    )


def moe_layer(x, w_router, experts, k: int, *, gate: str = "in_set") -> MoETrace:
    """A sparse MoE feed-forward layer for tokens ``x [N, d]`` (or one token ``[d]``):
    route with ``a = x W_r``, run only the chosen experts, combine.

    >>> experts = make_experts(4, 4, 6)
    >>> t = moe_layer(np.ones(4), np.eye(4), experts, 2)
    >>> t.route.chosen.tolist(), t.output.shape
    ([0, 1], (4,))
    """
    if isinstance(experts, Expert) or not isinstance(experts, (list, tuple)) or not experts:
        raise TypeError("experts must be a non-empty list or tuple of Expert")
    for i, e in enumerate(experts):
        if not isinstance(e, Expert):
            raise TypeError(f"experts[{i}] must be an Expert, got {type(e).__name__}")
    xs = as_float_array("x", x, min_ndim=1)
    if xs.ndim > 2:
        raise ValueError(f"x must be one token [d] or tokens [N, d], got shape {xs.shape}")
    a = router_scores(xs, w_router)
    if a.shape[-1] != len(experts):
        raise ValueError(
            f"w_router must score one column per expert: {len(experts)} experts, got {a.shape[-1]} columns"
        )
    r = route(a, k, gate=gate)
    tokens = xs.reshape(-1, xs.shape[-1])
    chosen = r.chosen.reshape(-1, r.k)
    # each token runs only its own k experts; the others are never evaluated for it
    outs = np.stack([[expert_output(tok, experts[i]) for i in row] for tok, row in zip(tokens, chosen)])
    return combine(r, outs.reshape(r.chosen.shape + (outs.shape[-1],)))


def moe_experts(x, w_router, w_gate, w_up, w_down, k: int, *, gate: str = "in_set") -> MoETrace:
    """:func:`moe_layer` for tokens ``x [..., d]`` with the experts' weights stacked,
    ``w_gate``/``w_up [E_n, d, d_ff]`` and ``w_down [E_n, d_ff, d]`` (as a model file holds
    them): route with ``a = x W_r``, then run each expert once, on the tokens that chose
    it, and combine. Same routing (:func:`route`), same experts
    (:func:`~tokenpath.norms.swiglu`) and same result as :func:`moe_layer`.

    >>> ex = make_experts(4, 4, 6)
    >>> stack = [np.stack([getattr(e, n) for e in ex]) for n in ("w_gate", "w_up", "w_down")]
    >>> x = np.random.default_rng(0).normal(size=(3, 4))
    >>> t = moe_experts(x, np.eye(4), *stack, 2)
    >>> t.route.chosen.shape, bool(np.allclose(t.output, moe_layer(x, np.eye(4), ex, 2).output))
    ((3, 2), True)
    """
    xs = as_float_array("x", x, min_ndim=1)
    stacks = {}
    for name, w in (("w_gate", w_gate), ("w_up", w_up), ("w_down", w_down)):
        stacks[name] = as_float_array(name, w, ndim=3)
    g, u, dn = stacks["w_gate"], stacks["w_up"], stacks["w_down"]
    a = router_scores(xs, w_router)  # [..., E_n]
    n_exp = a.shape[-1]
    if g.shape[0] != n_exp or u.shape != g.shape or dn.shape[:2] != (n_exp, g.shape[2]):
        raise ValueError(
            f"w_gate and w_up must be [E_n, d, d_ff] and w_down [E_n, d_ff, d] with E_n = {n_exp} "
            "(w_router's columns), "
            f"got {list(g.shape)}, {list(u.shape)}, {list(dn.shape)}"
        )
    r = route(a, k, gate=gate)
    tokens = xs.reshape(-1, xs.shape[-1])  # [N, d]
    chosen = r.chosen.reshape(-1, r.k)  # [N, k]
    outs = np.zeros(chosen.shape + (dn.shape[2],))  # [N, k, d]
    for i in np.unique(chosen):  # only experts some token chose are evaluated
        rows, slot = np.nonzero(chosen == i)
        outs[rows, slot] = _swiglu_core(tokens[rows], g[i], u[i], dn[i])  # swiglu, shapes checked above
    return combine(r, outs.reshape(r.chosen.shape + (dn.shape[2],)))


# ------------------------------------------------------------ router gradients


@dataclass(frozen=True)
class RouterGradient:
    """The task loss ``L = ½‖o − y‖²`` and its gradient with respect to the router
    scores, analytic and by central finite differences."""

    route: Route  # scores, choice and gates at this point
    expert_outputs: np.ndarray  # [E_n, d] F_i of every expert (fixed: x does not move)
    target: np.ndarray  # [d] y
    output: np.ndarray  # [d] o = Σ g_i F_i
    loss: float  # ½‖o − y‖²
    grad: np.ndarray  # [E_n] ∂L/∂a, analytic
    fd_grad: np.ndarray  # [E_n] ∂L/∂a, central differences with step h
    h: float  # finite-difference step
    set_fixed: bool  # True when no ±h step changes the chosen set (fd is meaningful)


def _loss_at(a, k, gate, f, y) -> tuple[float, np.ndarray, Route]:
    r = route(a, k, gate=gate)
    o = r.gates @ f
    return 0.5 * float(np.sum((o - y) ** 2)), o, r


def router_gradient(scores, expert_outputs, target, k: int, *, gate: str = "in_set",
                    h: float = 1e-6) -> RouterGradient:
    """∂L/∂a for one token, ``L = ½‖Σ g_i F_i − y‖²``, with the expert outputs held fixed.

    Analytic: with ``r = o − y``, the in-set gates give
    ``∂L/∂a_j = g_j (r·F_j − r·o)`` for chosen ``j`` and 0 otherwise; the full-softmax
    gates give ``∂L/∂a_j = p_j ([j∈S] r·F_j − r·o)`` for every ``j``. At ``k = 1`` with
    in-set gates the only gate is the constant 1, so the gradient is exactly 0.
    The finite differences step each score by ±h; ``set_fixed`` says whether the chosen
    set stayed the same for every step (otherwise the loss jumps and the quotient is
    not a derivative).

    >>> g = router_gradient([0.5, -0.5], [[1.0, 0.0], [0.0, 2.0]], [0.0, 1.0], 1)
    >>> g.grad.tolist(), bool(np.all(g.fd_grad == 0))
    ([0.0, 0.0], True)
    >>> full = router_gradient([0.5, -0.5], [[1.0, 0.0], [0.0, 2.0]], [0.0, 1.0], 1, gate="full_softmax")
    >>> full.grad.round(4).tolist(), bool(np.allclose(full.grad, full.fd_grad, atol=1e-6))
    ([0.1437, -0.1437], True)
    """
    a = as_float_array("scores", scores, ndim=1)
    if a.shape[0] < 1:
        raise ValueError("scores must hold at least one expert")
    f = as_float_array("expert_outputs", expert_outputs, ndim=2)
    if f.shape[0] != a.shape[0]:
        raise ValueError(
            f"expert_outputs must be [E_n, d] with one row per expert (E_n = {a.shape[0]} scores), "
            f"got shape {list(f.shape)}"
        )
    y = as_float_array("target", target, ndim=1)
    if y.shape[0] != f.shape[1]:
        raise ValueError(f"target must have the experts' width d = {f.shape[1]}, got shape {list(y.shape)}")
    gate = _gate(gate)
    h = as_float("h", h, low=0.0)
    if h == 0:
        raise ValueError("h must be > 0")
    loss, o, r = _loss_at(a, k, gate, f, y)
    res = o - y
    rf = f @ res  # [E_n] r·F_j
    ro = float(res @ o)  # r·o
    if gate == "in_set":
        grad = np.where(r.mask, r.gates * (rf - ro), 0.0)
    else:
        grad = r.probs * (np.where(r.mask, rf, 0.0) - ro)
    fd = np.empty_like(a)
    fixed = True
    for j in range(a.size):
        step = np.zeros_like(a)
        step[j] = h
        up, _, r_up = _loss_at(a + step, k, gate, f, y)
        down, _, r_down = _loss_at(a - step, k, gate, f, y)
        fixed &= np.array_equal(r_up.mask, r.mask) and np.array_equal(r_down.mask, r.mask)
        fd[j] = (up - down) / (2 * h)
    return RouterGradient(r, f, y, o, loss, grad, fd, h, bool(fixed))
