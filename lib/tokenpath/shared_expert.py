"""A shared expert beside the routed ones, as DeepSeekMoE and Qwen2-MoE add it.

Chapter 9's sparse layer runs ``k`` of ``E`` routed experts per token. A *shared*
expert is one more SwiGLU network that **every** token runs, whatever the router
chose. Qwen2-MoE (``transformers``' ``Qwen2MoeSparseMoeBlock``) scales it by a gate of
its own, one number per token from one weight vector ``w_sg [d]``::

    p = softmax(x W_r)                    router probabilities, over all E experts   [E]
    S = TopK(p, k)                        the chosen experts (the same as TopK(x W_r, k))
    g_i = p_i / Σ_{j∈S} p_j  for i ∈ S    when norm_topk_prob is true (renormalised)
    g_i = p_i                for i ∈ S    when norm_topk_prob is false (they sum to < 1)
    r = Σ_{i∈S} g_i F_i(x)                the routed output                           [d]
    g_s = σ(x · w_sg)                     the shared gate, a sigmoid, one number      []
    F_s(x)                                the shared expert's SwiGLU output           [d]
    o = r + g_s · F_s(x)                  the block's output                          [d]

Details that match ``transformers`` exactly:

* the router's softmax is over **all** experts, and top-k is taken of those
  probabilities; renormalising them inside the chosen set equals a softmax over the
  chosen scores (this module's ``gate="in_set"``), and keeping them is
  ``gate="full_softmax"`` (:func:`tokenpath.moe.route`);
* the shared gate is a **sigmoid** of ``x · w_sg`` (``shared_expert_gate``, a linear
  layer ``d → 1`` with no bias), not a softmax and not one of the router's columns: the
  router never sees the shared expert, and its gates never scale it;
* the gate scales the shared expert's **output** ``F_s(x)``, after its down projection, not
  its input; the shared expert may be wider than a routed one
  (``shared_expert_intermediate_size``);
* ``transformers`` takes the router's softmax in float32 whatever the model's dtype
  (``softmax(..., dtype=torch.float)``); this module computes in float64, so a float64
  ``transformers`` block agrees to about 1e-6, not to the last digit;
* the routed and shared outputs are simply added; the residual stream is added
  outside, by the decoder layer.

Ties among scores follow :func:`tokenpath.moe.top_k` (the lower expert index first): the
engine's rule, since ``torch.topk`` promises no order among equal values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import as_bool, as_float_array
from .moe import MoETrace, moe_experts
from .norms import swiglu

__all__ = ["SharedMoETrace", "shared_expert_moe", "shared_gate"]


@dataclass(frozen=True)
class SharedMoETrace:
    """Every intermediate of a MoE layer with a shared expert."""

    routed: MoETrace  # routing (probs, chosen, gates) and the routed output r [..., d]
    gate_logit: np.ndarray  # [...] x · w_sg
    shared_gate: np.ndarray  # [...] g_s = σ(x · w_sg)
    shared_output: np.ndarray  # [..., d] F_s(x), before the gate
    output: np.ndarray  # [..., d] o = r + g_s · F_s(x)

    @property
    def probs(self) -> np.ndarray:
        """``[..., E]`` the router's softmax over all experts."""
        return self.routed.route.probs

    @property
    def chosen(self) -> np.ndarray:
        """``[..., k]`` the chosen experts, highest probability first."""
        return self.routed.route.chosen

    @property
    def gates(self) -> np.ndarray:
        """``[..., k]`` the chosen experts' gates, in ``chosen`` order."""
        return self.routed.route.chosen_gates

    @property
    def routed_output(self) -> np.ndarray:
        """``[..., d]`` r = Σ g_i F_i(x)."""
        return self.routed.output


def shared_gate(x, w_shared_gate) -> tuple[np.ndarray, np.ndarray]:
    """The shared expert's gate ``(x · w_sg, σ(x · w_sg))`` for ``x [..., d]`` and
    ``w_shared_gate [d]``: one number per token between 0 and 1.

    >>> logit, s = shared_gate([1.0, 2.0], [0.5, -0.25])
    >>> float(logit), float(s)
    (0.0, 0.5)
    """
    x = as_float_array("x", x, min_ndim=1)
    w = as_float_array("w_shared_gate", w_shared_gate, ndim=1)
    if w.shape[0] != x.shape[-1]:
        raise ValueError(f"w_shared_gate must be [d] with d = {x.shape[-1]} (x's last axis), got shape {list(w.shape)}")
    logit = x @ w
    return logit, 1.0 / (1.0 + np.exp(-logit))


def shared_expert_moe(x, w_router, w_gate, w_up, w_down, k: int, shared_gate_proj, shared_up_proj,
                      shared_down_proj, w_shared_gate, *, norm_topk_prob: bool = True) -> SharedMoETrace:
    """Qwen2-MoE's sparse block for tokens ``x [..., d]``: the routed experts of
    :func:`tokenpath.moe.moe_experts` (``w_router [d, E]``, ``w_gate``/``w_up
    [E, d, d_ff]``, ``w_down [E, d_ff, d]``, ``k`` per token) plus a shared SwiGLU
    expert (``shared_gate_proj``/``shared_up_proj [d, d_s]``, ``shared_down_proj
    [d_s, d]``) that every token runs, scaled by ``σ(x · w_shared_gate)``. With
    ``norm_topk_prob`` the chosen gates are renormalised to sum to 1; without it
    they keep their probabilities under the softmax over all experts.

    A worked example: two experts that double and negate, picked one per token,
    and a shared expert of identity weights whose gate logit is 0 (so g_s = ½).

    >>> I = np.eye(2)
    >>> t = shared_expert_moe([[1.0, 0.0]], np.array([[1.0, -1.0], [0.0, 0.0]]),
    ...     np.stack([I, I]), np.stack([I, I]), np.stack([2 * I, -I]), 1, I, I, I, np.zeros(2))
    >>> t.chosen.tolist(), t.gates.tolist(), t.shared_gate.tolist()
    ([[0]], [[1.0]], [0.5])
    >>> t.routed_output.round(4).tolist(), t.shared_output.round(4).tolist(), t.output.round(4).tolist()
    ([[1.4621, 0.0]], [[0.7311, 0.0]], [[1.8276, 0.0]])
    >>> shared_expert_moe([[1.0, 0.0]], np.array([[1.0, -1.0], [0.0, 0.0]]), np.stack([I, I]),
    ...     np.stack([I, I]), np.stack([2 * I, -I]), 1, I, I, I, np.zeros(2),
    ...     norm_topk_prob=False).gates.round(4).tolist()   # p_0 = σ(2), not renormalised
    [[0.8808]]
    """
    norm = as_bool("norm_topk_prob", norm_topk_prob)
    xs = as_float_array("x", x, min_ndim=1)
    routed = moe_experts(xs, w_router, w_gate, w_up, w_down, k, gate="in_set" if norm else "full_softmax")
    d = xs.shape[-1]
    sg = as_float_array("shared_gate_proj", shared_gate_proj, ndim=2)
    su = as_float_array("shared_up_proj", shared_up_proj, ndim=2)
    sd = as_float_array("shared_down_proj", shared_down_proj, ndim=2)
    if sg.shape[0] != d or su.shape != sg.shape or sd.shape != (sg.shape[1], d):
        raise ValueError(
            f"shared_gate_proj and shared_up_proj must be [d, d_s] and shared_down_proj [d_s, d] with d = {d} "
            f"(x's last axis), got {list(sg.shape)}, {list(su.shape)}, {list(sd.shape)}")
    logit, g_s = shared_gate(xs, w_shared_gate)
    F_s = swiglu(xs, sg, su, sd)  # the shared expert, which every token runs
    return SharedMoETrace(routed, logit, g_s, F_s, routed.output + g_s[..., None] * F_s)
