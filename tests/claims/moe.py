"""Claims of chapter 09_moe_routing (figures 19–22): sparse MoE routing."""

from __future__ import annotations

from functools import cache, partial
from types import SimpleNamespace

import numpy as np

from tokenpath import examples as ex
from tokenpath.lessons import moe as lessons_moe
from tokenpath import fmt, moe, moe_dispatch

from . import Claim as _Claim
from . import NotClaim as _NotClaim
from . import pinned_as_source
from .position import smol, smol_file, smollm2_source  # SmolLM2's config, its header read once

CHAPTER = "09_moe_routing"
Claim = partial(_Claim, chapter=CHAPTER)
NotClaim = partial(_NotClaim, chapter=CHAPTER)


# ------------------------------------------------------------------ engine calls

@cache
def fig20():
    return moe.combine(moe.route(ex.FIG20_SCORES, ex.FIG20_K), ex.FIG20_OUTPUTS)


@cache
def fig20_full():
    return moe.route(ex.FIG20_SCORES, ex.FIG20_K, gate="full_softmax")


@cache
def top2_gradient():
    return moe.router_gradient(ex.FIG20_SCORES, ex.FIG20_WIDGET_OUTPUTS[:4], ex.FIG21_TARGET, 2)


@cache
def top2_parts():
    """Section 9.3.1's hand steps: o − y, ∂L/∂g of the chosen experts and their gate-weighted mean."""
    g = top2_gradient()
    chosen = g.route.chosen
    res = g.output - g.target
    dl_dg = g.expert_outputs[chosen] @ res
    return res, dl_dg, float(g.route.chosen_gates @ dl_dg)


@cache
def top2_full():
    return moe.router_gradient(ex.FIG20_SCORES, ex.FIG20_WIDGET_OUTPUTS[:4], ex.FIG21_TARGET, 2, gate="full_softmax")


@cache
def smol_mix():
    """A copy of the count in section 9.2's second aside cell, with the engine's expert_parameters
    for the mixture: SmolLM2's dense SwiGLU (and the same count read from the file's layer 0), and
    a top-k mixture of experts of width d_ff/k. tests/test_aside_outputs.py holds these claims to
    what the cell prints."""
    d, d_ff, k = smol().hidden_size, smol().intermediate_size, ex.SMOLLM2_MIXTURE_K
    if d_ff % k:
        raise ValueError(f"k = {k} experts do not split d_ff = {d_ff} into equal widths")
    experts = moe_dispatch.expert_parameters(ex.SMOLLM2_MIXTURE_EXPERTS, 3 * d * (d_ff // k), k)
    tensors = smol_file().tensors
    in_file = sum(tensors[f"blk.0.ffn_{m}.weight"].size for m in ("gate", "up", "down"))
    return SimpleNamespace(d_ff=d_ff, dense=3 * d * d_ff, in_file=in_file, expert_width=d_ff // k,
                           experts=experts, router=d * experts.n_experts)


_TIMES = {2: "twice", 3: "three times", 4: "four times"}
_WORDS = {2: "two", 3: "three", 4: "four"}


def _smol_width(m) -> str:
    return f"Each of its {smol().num_hidden_layers} layers runs one SwiGLU of width {m.d_ff} for every token"


def _smol_plan(m) -> str:
    return (f"Split that width into experts of width {m.expert_width}, store "
            f"{_WORDS.get(m.experts.n_experts, m.experts.n_experts)} of them, and let each token run "
            f"{_WORDS.get(m.experts.k, m.experts.k)}: a top-{m.experts.k}-of-{m.experts.n_experts} mixture")


def _smol_dense(m) -> str:
    return (f"The dense SwiGLU holds {m.dense:,} parameters per layer, "
            + ("as many as the file's three FFN matrices of a layer" if m.dense == m.in_file else
               f"but the file's three FFN matrices of a layer hold {m.in_file:,}"))


def _smol_counts(m) -> str:
    return (f"The mixture would run {'as many' if m.experts.active == m.dense else f'{m.experts.active:,}'} "
            f"parameters per token but store {m.experts.stored:,} of them, "
            f"{_TIMES.get(m.experts.stored // m.dense, 'more')} as many. Its router adds {m.router:,} more")


@cache
def layer():
    """Section 9.1.3's layer: three tokens, four SwiGLU experts, top-2."""
    experts = moe.make_experts(ex.MOE_N_EXPERTS, ex.MOE_D, ex.MOE_D_FF, seed=ex.MOE_SEED)
    rng = np.random.default_rng(ex.MOE_SEED)
    tokens = rng.standard_normal((3, ex.MOE_D))
    w_router = rng.standard_normal((ex.MOE_D, ex.MOE_N_EXPERTS))
    return moe.moe_layer(tokens, w_router, experts, k=2)


def _order(ids) -> str:
    """Two chosen IDs in chosen order: "expert 1 first, then expert 0"."""
    first, second = np.asarray(ids).tolist()
    return f"expert {first} first, then expert {second}"


def fig21(delta):
    return lessons_moe.top1_boundary(delta, ex.FIG21_OUTPUTS, ex.FIG21_TARGET)


@cache
def fig22():
    return moe_dispatch.route_batch(ex.FIG22_SCORES, ex.FIG22_K, capacity=ex.FIG22_CAPACITY)


@cache
def crowded():
    scores = np.vstack([ex.FIG22_SCORES[0], ex.FIG22_CANDIDATES[0]])
    return moe_dispatch.route_batch(scores, ex.FIG22_K, capacity=ex.FIG22_CAPACITY)


@cache
def params():
    return moe_dispatch.expert_parameters(ex.MOE_EXPERTS, ex.MOE_EXPERT_PARAMS, ex.MOE_K)


def _v(v, digits=None) -> str:
    """A vector with true minus signs and bare integers, as the prose writes it."""
    return "[" + ", ".join(fmt.num(x, digits, minus=fmt.MINUS, bare_ints=True) for x in np.asarray(v, float)) + "]"


def _set(ids) -> str:
    return "{" + ", ".join(str(i) for i in sorted(np.asarray(ids).tolist())) + "}"


def _pair(ids) -> str:
    """Two IDs as words: "0 and 1"."""
    a, b = sorted(np.asarray(ids).tolist())
    return f"{a} and {b}"


def _terms(f) -> str:
    """One feature of the written-out combination, g₀·F₀[c] + g₁·F₁[c] (figure 20)."""
    return f"g₀·{fmt.num(f[0])} + g₁·{fmt.num(f[1])}"


# ------------------------------------------------------------------------ claims


def _capstone_tokens() -> list[int]:
    """The Qwen2-MoE token positions the shared-expert capstone checks, read from its cases."""
    from tokenpath.exercises import shared_moe

    labels = [c.label for c in shared_moe._cases() if "Qwen2-MoE" in c.label]
    return sorted({int(lab.split(", token ")[1].split(",")[0]) for lab in labels})

CLAIMS: list[_Claim] = [
    # -- section 9.2's aside: SmolLM2's dense SwiGLU beside a mixture of its width ------
    Claim("moe.smol.width", smol_mix, text=(
        "Each of its 30 layers runs one SwiGLU of width 1536 for every token", _smol_width)),
    Claim("moe.smol.plan", smol_mix, text=(
        "Split that width into experts of width 768, store four of them, and let each token run two: "
        "a top-2-of-4 mixture", _smol_plan)),
    Claim("moe.smol.dense", smol_mix, text=(
        "The dense SwiGLU holds 2,654,208 parameters per layer, as many as the file's three FFN matrices of a layer",
        _smol_dense)),
    Claim("moe.smol.mixture", smol_mix, text=(
        "The mixture would run as many parameters per token but store 5,308,416 of them, twice as many. "
        "Its router adds 2,304 more", _smol_counts)),
    # -- section 9.1.3: the third token of the layer of SwiGLU experts -------------------
    Claim("moe.layer.token2_order", lambda: layer().route.chosen[2],
          text=("expert 1 first, then expert 0", _order)),
    Claim("moe.layer.token2_gates", lambda: layer().route.chosen_gates[2], rounded=("[0.931, 0.069]", 3)),
    # -- figures 19 and 20: one token, four experts, top-2 --------------------------------
    Claim("fig19.experts", lambda: fig20().route.n_experts, exact="4"),
    Claim("fig20.k", lambda: fig20().route.k, exact="2"),
    Claim("fig20.scores", lambda: ex.FIG20_SCORES, text=("[2, 1, 0, −1]", _v)),
    Claim("fig20.chosen", lambda: fig20().route.chosen, text=("{0, 1}", _set)),
    Claim("fig20.chosen_words", lambda: fig20().route.chosen, text=("0 and 1", _pair)),
    Claim("fig20.unchosen_words", lambda: np.flatnonzero(~fig20().route.mask), text=("2 and 3", _pair)),
    Claim("fig20.g0", lambda: fig20().route.gates[0], full=("0.731059", 6)),
    Claim("fig20.g1", lambda: fig20().route.gates[1], full=("0.268941", 6)),
    Claim("fig20.gates", lambda: fig20().route.chosen_gates, rounded=("[0.731, 0.269]", 3)),
    Claim("fig20.gate_sum", lambda: fig20().route.chosen_gates.sum(), exact="1"),
    Claim("fig20.unchosen_gate", lambda: fig20().route.gates[~fig20().route.mask].max(), exact="0"),
    Claim("fig20.F0", lambda: ex.FIG20_OUTPUTS[0], exact="[1, 3]"),
    Claim("fig20.F1", lambda: ex.FIG20_OUTPUTS[1], exact="[5, 1]"),
    Claim("fig20.feature0_terms", lambda: ex.FIG20_OUTPUTS[:, 0], text=("g₀·1 + g₁·5", _terms)),
    Claim("fig20.feature1_terms", lambda: ex.FIG20_OUTPUTS[:, 1], text=("g₀·3 + g₁·1", _terms)),
    Claim("fig20.output_rounded_gates", lambda: lessons_moe.output_from_rounded_gates(fig20(), ex.FIG20_DIGITS),
          rounded=("[2.076, 2.462]", 3)),
    Claim("fig20.output", lambda: fig20().output, full=("[2.075766, 2.462117]", 6)),
    Claim("fig20.full_softmax_gates", lambda: fig20_full().chosen_gates, rounded=("[0.644, 0.237]", 3)),
    Claim("fig20.full_softmax_sum", lambda: fig20_full().chosen_gates.sum(), rounded=("0.881", 3)),
    # -- section 9.2: stored and active parameters -------------------------------------------------
    Claim("params.experts", lambda: params().n_experts, exact="16"),
    Claim("params.per_expert", lambda: params().params_per_expert, text=("100M", moe_dispatch.count_text)),
    Claim("params.k", lambda: params().k, exact="2"),
    Claim("params.stored", lambda: params().stored, text=("1.6B", moe_dispatch.count_text)),
    Claim("params.active", lambda: params().active, text=("200M", moe_dispatch.count_text)),
    # -- top-2 gradient inside a fixed set -------------------------------------------------
    Claim("top2.target", lambda: ex.FIG21_TARGET, text=("[0, 1]", _v)),
    Claim("top2.grad", lambda: top2_gradient().grad, text=("[−1.058, 1.058, 0, 0]", lambda g: _v(g, 3))),
    Claim("top2.grad0", lambda: top2_gradient().grad[0], text=("−1.058", lambda x: _v([x], 3)[1:-1])),
    Claim("top2.other_outputs", lambda: ex.FIG20_WIDGET_OUTPUTS[2:4],
          text=("[2, −2] and [0, 4]", lambda f: f"{_v(f[0])} and {_v(f[1])}")),
    Claim("top2.residual", lambda: top2_parts()[0], text=("[2.076, 1.462]", lambda r: _v(r, 3))),
    Claim("top2.dL_dg", lambda: top2_parts()[1], text=("[6.462, 11.841]", lambda r: _v(r, 3))),
    Claim("top2.dL_dg_words", lambda: top2_parts()[1], text=("6.462 against 11.841",
                                                             lambda r: f"{_v(r, 3)[1:-1].replace(', ', ' against ')}")),
    Claim("top2.dL_dg0_minus_mean", lambda: (top2_parts()[1][0], top2_parts()[2]),
          text=("(6.462 − 7.909)", lambda v: f"({_v([v[0]], 3)[1:-1]} − {_v([v[1]], 3)[1:-1]})")),
    Claim("top2.weighted_mean", lambda: top2_parts()[2], rounded=("7.909", 3)),
    Claim("top2.full_grad", lambda: top2_full().grad, text=("[−0.350, 1.050, −0.512, −0.188]", lambda g: _v(g, 3))),
    # -- figure 21: the top-1 boundary ---------------------------------------------------
    Claim("fig21.below_zero_runs", lambda: fig21(-ex.FIG21_DELTA).chosen, exact="1"),
    Claim("fig21.above_zero_runs", lambda: fig21(ex.FIG21_DELTA).chosen, exact="0"),
    Claim("fig21.tie_runs", lambda: fig21(0.0).chosen, exact="0"),
    Claim("fig21.k", lambda: fig21(ex.FIG21_DELTA).in_set.route.k, exact="1"),
    Claim("fig21.in_set_gate", lambda: fig21(ex.FIG21_DELTA).gate_in_set, exact="1"),
    Claim("fig21.delta", lambda: ex.FIG21_DELTA, text=("0.5", fmt.num)),
    Claim("fig21.in_set_grad", lambda: fig21(ex.FIG21_DELTA).in_set.grad, text=("[0, 0]", _v)),
    Claim("fig21.in_set_fd", lambda: fig21(ex.FIG21_DELTA).in_set.fd_grad, text=("[0, 0]", _v)),
    Claim("fig21.full_gate", lambda: fig21(ex.FIG21_DELTA).gate_full, rounded=("0.731", 3)),
    Claim("fig21.F0", lambda: ex.FIG21_OUTPUTS[0], exact="[1, 0]"),
    Claim("fig21.F1", lambda: ex.FIG21_OUTPUTS[1], exact="[0, 2]"),
    Claim("fig21.full_grad", lambda: fig21(ex.FIG21_DELTA).full.grad, text=("[0.144, −0.144]", lambda g: _v(g, 3))),
    Claim("fig21.full_grad1", lambda: fig21(ex.FIG21_DELTA).full.grad[1], text=("−0.144", lambda x: _v([x], 3)[1:-1])),
    Claim("fig21.scores", lambda: fig21(ex.FIG21_DELTA).scores, text=("[0.5, −0.5]", _v)),
    Claim("fig21.full_dL_dp0", lambda: fig21(ex.FIG21_DELTA).full.expert_outputs[0]
          @ (fig21(ex.FIG21_DELTA).full.output - ex.FIG21_TARGET), rounded=("0.731", 3)),
    Claim("fig21.full_dp0_factor", lambda: np.array([1 - fig21(ex.FIG21_DELTA).gate_full,
                                                     -fig21(ex.FIG21_DELTA).full.route.probs[1]]),
          text=("[0.269, −0.269]", lambda v: _v(v, 3))),
    # -- figure 22: a batch of two tokens --------------------------------------------------
    Claim("fig22.token0", lambda: fig22().route.chosen[0], text=("{0, 1}", _set)),
    Claim("fig22.token1", lambda: fig22().route.chosen[1], text=("{2, 3}", _set)),
    Claim("fig22.token1_scores", lambda: ex.FIG22_SCORES[1], text=("[−1, 0, 1, 2]", _v)),
    Claim("fig22.token0_not_run", lambda: np.flatnonzero(~fig22().used[0]), text=("2 and 3", _pair)),
    Claim("fig22.k", lambda: fig22().route.k, exact="2"),
    Claim("fig22.experts_used", lambda: fig22().experts_used.size, exact="4"),
    Claim("fig22.candidate_scores", lambda: ex.FIG22_CANDIDATES[0], text=("[1, 2, −1, 0]", _v)),
    Claim("fig22.crowded_load", lambda: crowded().load.max(), exact="2"),
    Claim("fig22.capacity", lambda: crowded().capacity, exact="1"),
    # -- the capstone: the Qwen2-MoE tokens its check runs ----------------------------------
    Claim("moe.capstone.qwen2_tokens", _capstone_tokens, text=("tokens 0 and 3", lambda t: f"tokens {t[0]} and {t[1]}")),
    # -- Sources: the version the cross-checks run against -----------------------------------
    Claim("moe.pin.transformers", lambda: "transformers", text=("`transformers` 5.24.0", pinned_as_source)),
    Claim("moe.pin.torch", lambda: "torch", text=("`torch` 2.13.0", pinned_as_source)),
    Claim("moe.pin.gguf", lambda: "gguf", text=("`gguf` 0.19.0", pinned_as_source)),
]

#: Digits in the prose that are not computed claims, each with its reason.
NOT_CLAIMS: list[_NotClaim] = [
    NotClaim("SmolLM2-135M-Instruct", "a model's name"),
    NotClaim("Qwen2-MoE", "a model family's name"),
    NotClaim("about 30 minutes", "the capstone's estimated working time, not a computed number"),
    NotClaim("½‖o − y‖²", "the formula of the squared-error task loss, not a number"),
    NotClaim("Transformers 5", "the major version of the transformers library, a name"),
    NotClaim("William Fedus, Barret Zoph and Noam Shazeer (2022)", "citation: the Switch Transformer paper"),
    NotClaim("arXiv:2401.04088", "citation: the Mixtral paper's arXiv identifier"),
    NotClaim("arXiv:2401.06066", "citation: the DeepSeekMoE paper's arXiv identifier"),
]

_SRC_CLAIMS, _SRC_NOT = smollm2_source("moe", Claim, NotClaim)
CLAIMS += _SRC_CLAIMS
NOT_CLAIMS += _SRC_NOT
