"""Chapter 9's capstone: a shared expert beside the routed ones, as Qwen2-MoE computes
it (:mod:`tokenpath.shared_expert`). The worked example is the chapter's own layer
(four SwiGLU experts, top-2, its first token) with a shared expert added; the other
cases are tokens of layer 0 of a tiny random ``Qwen2MoeForCausalLM`` (the engine's
reading of that architecture equals ``transformers``'), with ``norm_topk_prob`` false,
as Qwen2-MoE's default is, and true.
"""

from __future__ import annotations

import numpy as np

from .. import moe, shared_expert
from ..examples import moe as ex
from .checker import Case, Exercise, Field, Mistake

__all__ = ["EXERCISES", "SHARED_EXPERT_MOE"]

_STUB = '''\
def shared_expert_moe(x, w_router, experts, k, shared, w_sg, norm_topk_prob):
    """Qwen2-MoE's feed-forward block for one token: routed experts plus a shared one.

    x [d] float; w_router [d, E_n]; k an int; experts a list of E_n tuples
    (W_gate [d, d_ff], W_up [d, d_ff], W_down [d_ff, d]), each a SwiGLU network
    (chapter 7); shared one such tuple (width d_s) that every token runs;
    w_sg [d] the shared expert's gate vector; norm_topk_prob True or False.
    Returns a dict with
      "probs":  p = softmax(x W_r) over all E_n experts                  [E_n]
      "chosen": the k most probable experts, highest first (ties: lower ID) [k] ints
      "gates":  g = p[chosen] / sum(p[chosen]) if norm_topk_prob,
                else p[chosen], in chosen order                          [k]
      "routed": r = sum over the chosen of g_i F_i(x)                    [d]
      "shared_gate": s = sigmoid(x · w_sg), one number
      "shared_output": h = F_shared(x), before the gate                  [d]
      "output": o = r + s · h                                            [d]
    """
    ...
'''


def _reference(x, w_router, experts, k, shared, w_sg, norm_topk_prob):
    stacks = [np.stack([e[j] for e in experts]) for j in range(3)]
    t = shared_expert.shared_expert_moe(x, w_router, *stacks, k, *shared, w_sg, norm_topk_prob=norm_topk_prob)
    return {"probs": t.probs, "chosen": t.chosen, "gates": t.gates, "routed": t.routed_output,
            "shared_gate": t.shared_gate, "shared_output": t.shared_output, "output": t.output}


def _worked() -> tuple:
    """The chapter's layer (section 9.1) and its first token, with a shared expert added."""
    experts = moe.make_experts(ex.MOE_N_EXPERTS, ex.MOE_D, ex.MOE_D_FF, seed=ex.MOE_SEED)
    rng = np.random.default_rng(ex.MOE_SEED)
    tokens = rng.standard_normal((3, ex.MOE_D))
    w_router = rng.standard_normal((ex.MOE_D, ex.MOE_N_EXPERTS))
    (sh,) = moe.make_experts(1, ex.MOE_D, ex.SHARED_D_FF, seed=ex.SHARED_SEED)
    w_sg = np.random.default_rng(ex.SHARED_SEED).standard_normal(ex.MOE_D)
    return (tokens[0], w_router, [(e.w_gate, e.w_up, e.w_down) for e in experts], 2,
            (sh.w_gate, sh.w_up, sh.w_down), w_sg)


def _qwen2_moe_layer(norm_topk_prob: bool) -> tuple:
    """Layer 0 of a tiny random Qwen2-MoE: its FFN inputs (the normalised stream) for
    ``ex.QWEN2_MOE_IDS`` and its weights in the book's ``x @ W`` layout, float64."""
    from .. import model as M

    m = M.random_model(M.Qwen2MoeConfig(**ex.QWEN2_MOE_TINY, norm_topk_prob=norm_topk_prob),
                       seed=ex.QWEN2_MOE_SEED, dtype=np.float64)
    layer = m.forward(list(ex.QWEN2_MOE_IDS)).layers[0]
    w = m.layer_weights(0)
    experts = [(w.w_gate[e], w.w_up[e], w.w_down[e]) for e in range(w.n_experts)]
    return (np.array(layer.ffn_in[0]), np.array(w.w_router), experts, w.experts_per_token,
            (w.shared_gate, w.shared_up, w.shared_down), np.array(w.shared_expert_gate))


def _cases() -> tuple[Case, ...]:
    x, w_router, experts, k, shared, w_sg = _worked()
    cases = [Case("the worked example (section 9.1's layer and first token, k = 2, with a shared expert of "
                  f"width {ex.SHARED_D_FF}), norm_topk_prob = True", (x, w_router, experts, k, shared, w_sg, True)),
             Case("the worked example with norm_topk_prob = False", (x, w_router, experts, k, shared, w_sg, False))]
    c = ex.QWEN2_MOE_TINY
    for norm in (False, True):
        xs, w_router, experts, k, shared, w_sg = _qwen2_moe_layer(norm)
        for t in (0, len(xs) - 1):
            cases.append(Case(f"random Qwen2-MoE layer 0 (tiny, seed {ex.QWEN2_MOE_SEED}: E_n = {c['num_experts']}, "
                              f"k = {k}, d = {c['hidden_size']}), token {t}, norm_topk_prob = {norm}",
                              (xs[t], w_router, experts, k, shared, w_sg, norm)))
    return tuple(cases)


# ------------------------------------------------------------- known mistakes


def _swiglu(x, w):
    g = x @ w[0]
    return (g / (1 + np.exp(-g)) * (x @ w[1])) @ w[2]


def _parts(x, w_router, experts, k, shared, w_sg, renormalise):
    a = x @ w_router
    p = np.exp(a - a.max()) / np.exp(a - a.max()).sum()
    chosen = np.argsort(-a, kind="stable")[:k]
    g = p[chosen] / p[chosen].sum() if renormalise else p[chosen]
    r = sum(gi * _swiglu(x, experts[i]) for gi, i in zip(g, chosen))
    return {"probs": p, "chosen": chosen, "gates": g, "routed": r, "shared_gate": 1 / (1 + np.exp(-(x @ w_sg))),
            "shared_output": _swiglu(x, shared)}


def _with_output(out, s=None, h=None):
    s = out["shared_gate"] if s is None else s
    h = out["shared_output"] if h is None else h
    return {**out, "shared_gate": s, "shared_output": h, "output": out["routed"] + s * h}


def _softmax_gate(x, w_router, experts, k, shared, w_sg, norm):
    return _with_output(_parts(x, w_router, experts, k, shared, w_sg, norm), s=np.float64(1.0))


def _router_gate(x, w_router, experts, k, shared, w_sg, norm):
    a = np.append(x @ w_router, x @ w_sg)  # the shared expert's logit beside the router's scores
    return _with_output(_parts(x, w_router, experts, k, shared, w_sg, norm),
                        s=np.exp(a[-1] - a.max()) / np.exp(a - a.max()).sum())


def _never_renormalised(x, w_router, experts, k, shared, w_sg, norm):
    return _with_output(_parts(x, w_router, experts, k, shared, w_sg, False))


def _always_renormalised(x, w_router, experts, k, shared, w_sg, norm):
    return _with_output(_parts(x, w_router, experts, k, shared, w_sg, True))


def _gate_on_the_sum(x, w_router, experts, k, shared, w_sg, norm):
    out = _with_output(_parts(x, w_router, experts, k, shared, w_sg, norm))
    return {**out, "output": out["shared_gate"] * (out["routed"] + out["shared_output"])}


def _gate_forgotten(x, w_router, experts, k, shared, w_sg, norm):
    out = _with_output(_parts(x, w_router, experts, k, shared, w_sg, norm))
    return {**out, "output": out["routed"] + out["shared_output"]}


def _gate_on_the_input(x, w_router, experts, k, shared, w_sg, norm):
    out = _parts(x, w_router, experts, k, shared, w_sg, norm)
    h = _swiglu(out["shared_gate"] * x, shared)
    return {**out, "shared_output": h, "output": out["routed"] + h}


def shared_expert_moe(x, w_router, experts, k, shared, w_sg, norm_topk_prob):
    """The teaching solution: chapter 9's routed experts plus a shared one, gated by a sigmoid."""
    def ffn(w):  # chapter 7's SwiGLU: (SiLU(x W_gate) ⊙ x W_up) W_down
        g = x @ w[0]
        return (g / (1 + np.exp(-g)) * (x @ w[1])) @ w[2]
    a = x @ w_router
    probs = np.exp(a - a.max()) / np.exp(a - a.max()).sum()  # softmax over all E_n experts
    chosen = np.argsort(-a, kind="stable")[:k]  # highest first; ties go to the lower ID
    gates = probs[chosen] / probs[chosen].sum() if norm_topk_prob else probs[chosen]
    routed = sum(g * ffn(experts[i]) for g, i in zip(gates, chosen))
    s = 1 / (1 + np.exp(-(x @ w_sg)))  # the shared gate: a sigmoid, one number per token
    h = ffn(shared)  # every token runs the shared expert
    return {"probs": probs, "chosen": chosen, "gates": gates, "routed": routed,
            "shared_gate": s, "shared_output": h, "output": routed + s * h}


SHARED_EXPERT_MOE = Exercise(
    "shared_expert_moe", 9, "capstone: a shared expert beside the routed ones (Qwen2-MoE)", _STUB, _reference,
    (shared_expert.shared_expert_moe, shared_expert.shared_gate),
    (Field("probs", "p = softmax(x W_r)", ("expert",), sums_to_one=True),
     Field("chosen", "the chosen experts S", ("rank",), "int"),
     Field("gates", "the chosen gates g", ("rank",)),
     Field("routed", "r = Σ g_i F_i(x)", ("feature",)),
     Field("shared_gate", "s = σ(x · w_sg)"),
     Field("shared_output", "h = F_shared(x)", ("feature",)),
     Field("output", "o = r + s · h", ("feature",))),
    _cases,
    (Mistake("the shared gate a softmax", "a softmax over the one shared logit is always 1, so your shared "
             "expert is never scaled; Qwen2-MoE's shared gate is a sigmoid, s = σ(x · w_sg), between 0 and 1.",
             _softmax_gate),
     Mistake("the shared expert gated by the router", "you put the shared logit x · w_sg beside the router's "
             "scores under one softmax; the router never sees the shared expert, whose gate is its own "
             "sigmoid σ(x · w_sg).", _router_gate),
     Mistake("no renormalisation when norm_topk_prob is set", "your gates are the chosen probabilities even when "
             "norm_topk_prob is true; then they are divided by their sum, so they add up to 1.",
             _never_renormalised),
     Mistake("renormalised whatever norm_topk_prob says", "you renormalised the gates as chapter 9 does, but "
             "with norm_topk_prob false (Qwen2-MoE's default) they stay the probabilities under the softmax "
             "over all experts.", _always_renormalised),
     Mistake("the shared expert added before the gate", "you added the shared output to the routed one and "
             "then scaled the sum by s; the gate scales the shared expert alone, o = r + s · h.",
             _gate_on_the_sum),
     Mistake("the shared gate left out", "you added the shared expert's output unscaled, o = r + h; it is "
             "scaled by its gate, o = r + s · h.", _gate_forgotten),
     Mistake("the gate applied to the shared expert's input", "you ran the shared expert on s · x; the gate "
             "scales its output, h = F_shared(x), then o = r + s · h.", _gate_on_the_input)),
    teaching=shared_expert_moe,
)

EXERCISES = (SHARED_EXPERT_MOE,)
