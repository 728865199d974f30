"""Chapter 9's capstone: a shared expert beside the routed ones, as Qwen2-MoE computes
it (:mod:`tokenpath.shared_expert`). The worked example is the chapter's own layer
(four SwiGLU experts, top-2) and section 9.1's third token, whose two chosen experts
come highest first as [1, 0], with a shared expert added (:func:`worked_inputs`). A
case whose router scores all tie checks the tie rule. The other cases are tokens 0 and
3 of layer 0 of a tiny random ``Qwen2MoeForCausalLM`` (the engine's reading of that
architecture equals ``transformers``'), with ``norm_topk_prob`` false, as Qwen2-MoE's
default is, and true.

>>> x, w_router, experts, k, shared, w_sg, norm_topk_prob = worked_inputs()
>>> x.shape, w_router.shape, len(experts), experts[0][0].shape, shared[0].shape, k, norm_topk_prob
((4,), (4, 4), 4, (4, 6), (4, 8), 2, False)
>>> shared_expert_moe(x, w_router, experts, k, shared, w_sg, norm_topk_prob)["chosen"].tolist()
[1, 0]
"""

from __future__ import annotations

import numpy as np

from .. import moe, shared_expert
from .._checks import as_bool
from ..examples import moe as ex
from ..i18n import N_, _
from .checker import Case, Exercise, Field, Mistake

__all__ = ["EXERCISES", "SHARED_EXPERT_MOE", "worked_inputs"]

_STUB = '''\
def shared_expert_moe(x, w_router, experts, k, shared, w_sg, norm_topk_prob):
    """Qwen2-MoE's feed-forward block for one token: routed experts plus a shared one.

    x [d] float, one row of RMSNorm(Y); w_router [d, E_n]; k an int;
    experts a list of E_n tuples (W_g [d, d_ff], W_u [d, d_ff], W_d [d_ff, d]),
    each a SwiGLU network (chapter 8); shared one such tuple (width d_s) that
    every token runs; w_sg [d] the shared gate's vector; norm_topk_prob True or False.
    Returns a dict with
      "probs":  p = softmax(x W_r) over all E_n experts                  [E_n]
      "chosen": the k most probable experts, highest first;
                a tie goes to the lower ID (the engine's rule)            [k] ints
      "gates":  g = p[chosen] / sum(p[chosen]) if norm_topk_prob,
                else p[chosen]; k numbers in chosen order (not [E_n])     [k]
      "routed": r = sum over the chosen of g_i F_i(x)                    [d]
      "shared_gate": g_s = sigmoid(x · w_sg), one number
      "shared_output": F_s(x), the shared expert's output before g_s     [d]
      "output": o = r + g_s · F_s(x); no residual (the layer adds Y)      [d]
    """
    ...
'''


def _reference(x, w_router, experts, k, shared, w_sg, norm_topk_prob):
    stacks = [np.stack([e[j] for e in experts]) for j in range(3)]
    t = shared_expert.shared_expert_moe(x, w_router, *stacks, k, *shared, w_sg, norm_topk_prob=norm_topk_prob)
    return {"probs": t.probs, "chosen": t.chosen, "gates": t.gates, "routed": t.routed_output,
            "shared_gate": t.shared_gate, "shared_output": t.shared_output, "output": t.output}


def _worked() -> tuple:
    """The chapter's layer (section 9.1) and its three tokens, with a shared expert added."""
    experts = moe.make_experts(ex.MOE_N_EXPERTS, ex.MOE_D, ex.MOE_D_FF, seed=ex.MOE_SEED)
    rng = np.random.default_rng(ex.MOE_SEED)
    tokens = rng.standard_normal((3, ex.MOE_D))
    w_router = rng.standard_normal((ex.MOE_D, ex.MOE_N_EXPERTS))
    (sh,) = moe.make_experts(1, ex.MOE_D, ex.SHARED_D_FF, seed=ex.SHARED_SEED)
    w_sg = np.random.default_rng(ex.SHARED_SEED).standard_normal(ex.MOE_D)
    return (tokens, w_router, [(e.w_gate, e.w_up, e.w_down) for e in experts], 2,
            (sh.w_gate, sh.w_up, sh.w_down), w_sg)


#: The worked example's token: section 9.1's third, whose top two come as [1, 0].
WORKED_TOKEN = 2


def worked_inputs(norm_topk_prob: bool = False) -> tuple:
    """The worked example's arguments ``(x, w_router, experts, k, shared, w_sg,
    norm_topk_prob)``: section 9.1's layer (E_n = 4 SwiGLU experts of width 6, k = 2)
    and its third token x [4], with a shared expert of width 8 and its gate vector
    w_sg [4]. Copies, so that the reader may change them freely."""
    norm = as_bool("norm_topk_prob", norm_topk_prob)
    tokens, w_router, experts, k, shared, w_sg = _worked()
    return (tokens[WORKED_TOKEN].copy(), w_router.copy(), [tuple(a.copy() for a in e) for e in experts], k,
            tuple(a.copy() for a in shared), w_sg.copy(), norm)


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
    tokens, w_router, experts, k, shared, w_sg = _worked()
    x = tokens[WORKED_TOKEN]
    worked = _("the worked example (section 9.1's layer and third token, k = {k}, with a shared expert of width "
               "{width}), norm_topk_prob = {norm}")
    cases = [Case(worked.format(k=k, width=ex.SHARED_D_FF, norm=False), (x, w_router, experts, k, shared, w_sg, False)),
             Case(worked.format(k=k, width=ex.SHARED_D_FF, norm=True), (x, w_router, experts, k, shared, w_sg, True)),
             Case(_("a tie: the same token with w_router = 0, so all four scores are equal and the tie rule picks "
                    "experts 0 and 1, norm_topk_prob = True"),
                  (x, np.zeros_like(w_router), experts, k, shared, w_sg, True))]
    c = ex.QWEN2_MOE_TINY
    for norm in (False, True):
        xs, w_router, experts, k, shared, w_sg = _qwen2_moe_layer(norm)
        for t in (0, len(xs) - 1):
            cases.append(Case(_("random Qwen2-MoE layer 0 (tiny, seed {seed}: E_n = {e}, k = {k}, d = {d}), token {t}, "
                                "norm_topk_prob = {norm}").format(seed=ex.QWEN2_MOE_SEED, e=c["num_experts"], k=k,
                                                                  d=c["hidden_size"], t=t, norm=norm),
                              (xs[t], w_router, experts, k, shared, w_sg, norm)))
    return tuple(cases)


# ------------------------------------------------------------- known mistakes


def _swiglu(x, w, swapped=False):
    a, c = (x @ w[1], x @ w[0]) if swapped else (x @ w[0], x @ w[1])
    return (a / (1 + np.exp(-a)) * c) @ w[2]


def _parts(x, w_router, experts, k, shared, w_sg, renormalise, *, ties="low", swapped=False):
    a = x @ w_router
    p = np.exp(a - a.max()) / np.exp(a - a.max()).sum()
    chosen = np.argsort(-a, kind="stable")[:k] if ties == "low" else np.argsort(a, kind="stable")[::-1][:k]
    g = p[chosen] / p[chosen].sum() if renormalise else p[chosen]
    r = sum(gi * _swiglu(x, experts[i], swapped) for gi, i in zip(g, chosen))
    return {"probs": p, "chosen": chosen, "gates": g, "routed": r, "shared_gate": 1 / (1 + np.exp(-(x @ w_sg))),
            "shared_output": _swiglu(x, shared, swapped)}


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


def _logit_gate(x, w_router, experts, k, shared, w_sg, norm):
    return _with_output(_parts(x, w_router, experts, k, shared, w_sg, norm), s=x @ w_sg)


def _never_renormalised(x, w_router, experts, k, shared, w_sg, norm):
    return _with_output(_parts(x, w_router, experts, k, shared, w_sg, False))


def _always_renormalised(x, w_router, experts, k, shared, w_sg, norm):
    return _with_output(_parts(x, w_router, experts, k, shared, w_sg, True))


def _high_ties(x, w_router, experts, k, shared, w_sg, norm):
    return _with_output(_parts(x, w_router, experts, k, shared, w_sg, norm, ties="high"))


def _swapped(x, w_router, experts, k, shared, w_sg, norm):
    return _with_output(_parts(x, w_router, experts, k, shared, w_sg, norm, swapped=True))


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


def _residual_inside(x, w_router, experts, k, shared, w_sg, norm):
    out = _with_output(_parts(x, w_router, experts, k, shared, w_sg, norm))
    return {**out, "output": x + out["output"]}


def shared_expert_moe(x, w_router, experts, k, shared, w_sg, norm_topk_prob):
    """The teaching solution: chapter 9's routed experts plus a shared one, gated by a sigmoid."""
    def ffn(W_g, W_u, W_d):  # chapter 8's SwiGLU: (SiLU(x W_g) ⊙ x W_u) W_d
        a = x @ W_g
        return (a / (1 + np.exp(-a)) * (x @ W_u)) @ W_d
    scores = x @ w_router
    probs = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()  # softmax over all E_n experts
    chosen = np.argsort(-scores, kind="stable")[:k]  # softmax keeps the order; highest first, ties to the lower ID
    gates = probs[chosen] / probs[chosen].sum() if norm_topk_prob else probs[chosen]  # [k], in chosen order
    routed = sum(g_i * ffn(*experts[i]) for g_i, i in zip(gates, chosen))
    g_s = 1 / (1 + np.exp(-(x @ w_sg)))  # the shared gate: a sigmoid, one number per token
    F_s = ffn(*shared)  # every token runs the shared expert
    return {"probs": probs, "chosen": chosen, "gates": gates, "routed": routed,
            "shared_gate": g_s, "shared_output": F_s, "output": routed + g_s * F_s}


SHARED_EXPERT_MOE = Exercise(
    "shared_expert_moe", 9, N_("capstone: a shared expert beside the routed ones (Qwen2-MoE)"), _STUB, _reference,
    (shared_expert.shared_expert_moe, shared_expert.shared_gate),
    (Field("probs", "p = softmax(x W_r)", ("expert",), sums_to_one=True),
     Field("chosen", N_("the chosen experts S"), ("rank",), "int"),
     Field("gates", N_("the chosen gates g"), ("rank",)),
     Field("routed", "r = Σ g_i F_i(x)", ("feature",)),
     Field("shared_gate", "g_s = σ(x · w_sg)"),
     Field("shared_output", "F_s(x)", ("feature",)),
     Field("output", "o = r + g_s · F_s(x)", ("feature",))),
    _cases,
    (Mistake(N_("the shared gate a softmax"), N_("a softmax over the one shared logit is always 1, so your shared "
             "expert is never scaled; Qwen2-MoE's shared gate is a sigmoid, g_s = σ(x · w_sg), between 0 and 1."),
             _softmax_gate),
     Mistake(N_("the shared expert gated by the router"), N_("you put the shared logit x · w_sg beside the router's "
             "scores under one softmax; the router never sees the shared expert, whose gate is its own "
             "sigmoid σ(x · w_sg)."), _router_gate),
     Mistake(N_("the shared gate's logit used without σ"), N_("your g_s is x · w_sg itself, which can be any number; "
             "the gate is its sigmoid, g_s = σ(x · w_sg), between 0 and 1."), _logit_gate),
     Mistake(N_("no renormalisation when norm_topk_prob is set"), N_("your gates are the chosen probabilities even when "
             "norm_topk_prob is true; then they are divided by their sum, so they add up to 1."),
             _never_renormalised),
     Mistake(N_("renormalised whatever norm_topk_prob says"), N_("you renormalised the gates as section 9.1 does, but "
             "with norm_topk_prob false (Qwen2-MoE's default) they stay the probabilities under the softmax "
             "over all experts."), _always_renormalised),
     Mistake(N_("ties broken towards the higher ID"), N_("among equal scores you chose the higher expert ID first "
             "(a reversed ascending sort does that); the book's tie rule takes the lower ID first."), _high_ties),
     Mistake(N_("W_g and W_u swapped"), N_("you put SiLU on x W_u and multiplied by x W_g; each expert's first "
             "matrix W_g is the gate that goes through SiLU, the second W_u the content (chapter 8)."), _swapped),
     Mistake(N_("the shared expert added before the gate"), N_("you added the shared output to the routed one and "
             "then scaled the sum by g_s; the gate scales the shared expert alone, o = r + g_s · F_s(x)."),
             _gate_on_the_sum),
     Mistake(N_("the shared gate left out"), N_("you added the shared expert's output unscaled, o = r + F_s(x), as "
             "DeepSeekMoE does; Qwen2-MoE scales it by its gate, o = r + g_s · F_s(x)."), _gate_forgotten),
     Mistake(N_("the gate applied to the shared expert's input"), N_("you ran the shared expert on g_s · x; the gate "
             "scales its output: o = r + g_s · F_s(x)."), _gate_on_the_input),
     Mistake(N_("the residual added inside the block"), N_("your output adds x, o = x + r + g_s · F_s(x); the block "
             "returns r + g_s · F_s(x), and the decoder layer adds the residual outside it, "
             "X' = Y + FFN(RMSNorm(Y)) (section 8.1)."), _residual_inside)),
    teaching=shared_expert_moe,
)

EXERCISES = (SHARED_EXPERT_MOE,)
