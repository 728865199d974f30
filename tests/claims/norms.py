"""Claims of chapter 08_rmsnorm_swiglu (figures 17 and 18): RMSNorm beside LayerNorm,
one SwiGLU gate, the residual add."""

from __future__ import annotations

from functools import cache, partial

import numpy as np

from fractions import Fraction

from tokenpath import examples as ex
from tokenpath import fmt, norms
from tokenpath.lessons import norms as LN

from . import pinned_as_source

from . import Claim as _Claim
from . import NotClaim as _NotClaim
from .position import smol, smol_file, smollm2_source  # SmolLM2's file and config, its header read once

CHAPTER = "08_rmsnorm_swiglu"
Claim = partial(_Claim, chapter=CHAPTER)
NotClaim = partial(_NotClaim, chapter=CHAPTER)
MINUS = fmt.MINUS


def _n(x, digits=None) -> str:
    return fmt.num(x, digits, minus=MINUS)


def _v(v, digits=None) -> str:
    return "[" + ", ".join(_n(x, digits) for x in np.asarray(v, dtype=float)) + "]"


@cache
def gains():
    return LN.model_norm_gains(smol_file())


def _ffn_ratio(c) -> Fraction:
    """d_ff / d as an exact fraction: a copy of chapter 8's cell (tests/test_aside_outputs.py holds
    the claim to what the cell prints)."""
    return Fraction(c.intermediate_size, c.hidden_size)


def _norm_types() -> set:
    return {t.type_name for n, t in smol_file().tensors.items() if n.endswith("norm.weight")}


def _eps_parts(eps: float) -> tuple[str, str]:
    """``("1e-5", "9.99999975e-6")``: ε as written, and the float32 the file stores for it."""
    short = f"{eps:.0e}"
    if float(np.float32(short)) != eps:
        raise AssertionError(f"ε {eps!r} is not the float32 nearest to {short}")
    mantissa, exp = f"{eps:.8e}".split("e")
    return short.replace("e-0", "e-"), f"{mantissa}e{int(exp)}"


def _attention_weights() -> int:
    """W_Q, W_K, W_V and W_O of one SmolLM2 layer, counted from the shapes the file's tensors have."""
    f = smol_file()
    return sum(int(np.prod(f.tensors[f"blk.0.attn_{p}.weight"].shape)) for p in ("q", "k", "v", "output"))


def _capstone_eps() -> float:
    """ε as the capstone's ``config`` holds it (what its cell prints)."""
    from tokenpath.exercises import layer

    return layer.layer_inputs("The cat")[2]["eps"]


def _same_ray(a, b):
    """``a`` if RMSNorm gives ``a`` and ``b`` the same output (they lie on one ray from the origin)."""
    if not np.allclose(norms.rms_norm(a), norms.rms_norm(b), rtol=0, atol=1e-12):
        raise AssertionError(f"{a} and {b} do not share an RMSNorm output")
    return a


def _relu_gap() -> tuple[float, float]:
    """Where ReLU(a) − SiLU(a) is largest, and how large: SiLU(a) = 1 solved by bisection, then the
    gap checked on a fine grid of both signs (it is symmetric)."""
    lo, hi = 0.5, 3.0
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if norms.silu(mid) < 1 else (lo, mid)
    a = (lo + hi) / 2
    grid = np.linspace(-8, 8, 160001)
    gap = np.maximum(grid, 0) - norms.silu(grid)
    if not (np.isclose(gap.max(), a - 1, atol=1e-8) and np.allclose(gap, gap[::-1], atol=1e-12)):
        raise AssertionError("the gap between ReLU and SiLU is not what the chapter says")
    return a, a - float(norms.silu(a))


@cache
def rms():
    return norms.rms_norm_trace(ex.FIG17_X, ex.FIG17_WEIGHT, eps=ex.FIG17_EPS)


@cache
def layer():
    return norms.layer_norm_trace(ex.FIG17_X)


@cache
def gate():
    return norms.gate_trace(ex.FIG17_GATE_PRE, ex.FIG17_CONTENT)


@cache
def residual():
    return norms.residual_trace(ex.FIG18_STREAM, ex.FIG18_UPDATE)


def _feature_sum(f: int) -> str:
    t = residual()
    u = t.update[f]
    return f"{_n(t.stream[f])} + {f'({_n(u)})' if u < 0 else _n(u)} = {_n(t.output[f])}"


CLAIMS: list[_Claim] = [
    # -- the layer ----------------------------------------------------------------------
    Claim("layer.shape", lambda: (ex.B, ex.T, ex.D_MODEL), text=("[2, 4, 8]", lambda s: fmt.vec(s))),
    # -- figure 17 (a) ------------------------------------------------------------------
    Claim("fig17.x", lambda: ex.FIG17_X, text=("[3, 4]", _v)),
    Claim("fig17.gamma", lambda: rms().weight, text=("[1, 1]", _v)),
    Claim("fig17.mean_square", lambda: rms().mean_square.item(), text=("12.5", _n)),
    Claim("fig17.rms", lambda: rms(),
          text=("√12.5 = 3.5355", lambda t: f"√{_n(t.mean_square.item())} = {_n(t.rms.item(), 4)}")),
    Claim("fig17.output", lambda: rms().output, text=("≈ [0.8485, 1.1314]", lambda v: "≈ " + _v(v, 4))),
    Claim("fig17.ln_mean", lambda: layer().mean.item(), text=("3.5", _n)),
    Claim("fig17.ln_std", lambda: layer().std.item(), text=("0.5", _n)),
    Claim("fig17.ln_output", lambda: layer().output, text=("[−1, 1]", _v)),
    Claim("fig17.scale", lambda: ex.FIG17_SCALE, exact="10"),
    Claim("ln.new_x", lambda: ex.LN_X, text=("[2, 6]", _v)),
    Claim("ln.new_steps", lambda: norms.layer_norm_trace(ex.LN_X),
          text=("the mean 4, divides by the standard deviation 2 and returns [−1, 1]",
                lambda t: f"the mean {_n(t.mean.item())}, divides by the standard deviation {_n(t.std.item())} "
                          f"and returns {_v(t.output)}")),
    # the widget's reader moves x along a ray: each pair has one RMSNorm output
    Claim("widget.half_x", lambda: _same_ray(ex.FIG17_X / 2, ex.FIG17_X),
          text=("Set x to [1.5, 2]", lambda v: f"Set x to {_v(v)}")),
    Claim("widget.ray_pair", lambda: (_same_ray(*ex.RAY_PAIR), ex.RAY_PAIR)[1],
          text=("Try [1, 2] against [2, 4]", lambda p: f"Try {_v(p[0])} against {_v(p[1])}")),
    Claim("fig17.circle_length", lambda: np.linalg.norm(rms().output) ** 2,
          text=("RMS 1 means length √2", lambda sq: f"RMS 1 means length √{_n(round(sq, 12))}")),
    Claim("fig17.scaled_x", lambda: ex.FIG17_SCALE * ex.FIG17_X, text=("[30, 40]", _v)),
    # -- figure 17 (b) ------------------------------------------------------------------
    Claim("fig17.gate_pre", lambda: ex.FIG17_GATE_PRE, exact="1"),
    Claim("fig17.content", lambda: ex.FIG17_CONTENT, exact="2"),
    Claim("fig17.sigma", lambda: gate(), text=("σ(1) = 0.7311", lambda t: f"σ({_n(t.gate_pre)}) = {_n(t.sigmoid, 4)}")),
    Claim("fig17.silu", lambda: gate(), text=("SiLU(1) = 0.7311", lambda t: f"SiLU({_n(t.gate_pre)}) = {_n(t.silu, 4)}")),
    Claim("fig17.product", lambda: gate(),
          text=("1·σ(1)·2 ≈ 1.462",
                lambda t: f"{_n(t.gate_pre)}·σ({_n(t.gate_pre)})·{_n(t.content)} ≈ {_n(t.product, 3)}")),
    # ReLU(a) − SiLU(a) = |a|·σ(−|a|), the same on both sides of zero, is largest where SiLU(a) = 1
    Claim("silu.relu_gap", _relu_gap,
          text=("at most 0.278, at a = ±1.28", lambda t: f"at most {_n(t[1], 3)}, at a = ±{_n(t[0], 2)}")),
    Claim("silu.minus_one", lambda: norms.silu(-1.0), text=("SiLU(−1) = −0.2689", lambda v: f"SiLU({_n(-1)}) = {_n(v, 4)}")),
    Claim("ffn.d", lambda: ex.D_MODEL, text=("d = 8", lambda d: f"d = {d}")),
    Claim("ffn.d_ff", lambda: ex.D_FF, text=("SwiGLU width of 24", lambda d: f"SwiGLU width of {d}")),
    # -- figure 18 ----------------------------------------------------------------------
    Claim("fig18.stream", lambda: residual().stream, text=("[1, 2]", _v)),
    Claim("fig18.update", lambda: residual().update, text=("[0.5, −1]", _v)),
    Claim("fig18.output", lambda: residual().output, text=("[1.5, 1]", _v)),
    Claim("fig18.feature0", lambda: 0, text=("1 + 0.5 = 1.5", _feature_sum)),
    Claim("fig18.feature1", lambda: 1, text=("2 + (−1) = 1", _feature_sum)),
    # -- section 8.5: SmolLM2's norms and SwiGLU width, from its GGUF file ------------------
    Claim("norms.smol.vectors", lambda: (gains().attn.shape[1], gains().layers),
          text=("one 576-wide vector before attention and one before the feed-forward network in each of its 30 layers",
                lambda t: f"one {t[0]}-wide vector before attention and one before the feed-forward network in each "
                          f"of its {t[1]} layers")),
    Claim("norms.smol.f32", lambda: _norm_types(),
          text=("all as 32-bit floats", lambda t: "all as 32-bit floats" if t == {"F32"} else f"as {sorted(t)}")),
    Claim("norms.smol.count_bytes", lambda: (2 * gains().layers + 1, gains().file_bytes),
          text=("those 61 vectors, 140,544 bytes", lambda t: f"those {t[0]} vectors, {t[1]:,} bytes")),
    Claim("norms.smol.means", lambda: (gains().stats("attn").mean, gains().stats("ffn").mean),
          text=("their mean is 0.302 before attention and 0.234 before",
                lambda t: f"their mean is {fmt.num(t[0], 3)} before attention and {fmt.num(t[1], 3)} before")),
    Claim("norms.smol.largest", lambda: (gains().attn.size + gains().ffn.size,
                                   max(gains().stats("attn").high, gains().stats("ffn").high)),
          text=("the largest of all 34,560 is 1.375", lambda t: f"the largest of all {t[0]:,} is {fmt.num(t[1], 3)}")),
    Claim("norms.smol.layer0", lambda: (gains().stats("attn", 0), gains().attn.shape[1]),
          text=("a mean of 0.001 and 271 of its 576 gains negative",
                lambda t: f"a mean of {fmt.num(t[0].mean, 3)} and {t[0].negative} of its {t[1]} gains negative")),
    Claim("norms.smol.output", lambda: gains().stats("output"),
          text=("a mean of 1.803 and a range from −2.125 to 3.344",
                lambda o: f"a mean of {fmt.num(o.mean, 3)} and a range from {_n(o.low, 3)} to {_n(o.high, 3)}")),
    Claim("norms.smol.eps", lambda: _eps_parts(gains().eps),
          text=("The ε of the file is 1e-5", lambda t: f"The ε of the file is {t[0]}")),
    Claim("norms.smol.eps_stored", lambda: _eps_parts(gains().eps),
          text=("float nearest to it, 9.99999975e-6", lambda t: f"float nearest to it, {t[1]}")),
    Claim("norms.smol.bfloat16", lambda: (gains().count, gains().bfloat16_exact),
          text=("while all 35,136 gains are", lambda t: ("while all" if t[1] == t[0] else f"while {t[1]:,} of the")
                                                      + f" {t[0]:,} gains are")),
    Claim("norms.smol.ratio", smol,
          text=("d_ff of 1536 is (8/3)·576 exactly: 576 is a multiple of 3",
                lambda c: f"d_ff of {c.intermediate_size} is ({_ffn_ratio(c)})·{c.hidden_size} exactly: "
                          f"{c.hidden_size} is a multiple of {_ffn_ratio(c).denominator}")),
    # three matrices of width r·d hold as many parameters as two of width 4d when 3r = 2·4
    Claim("swiglu.ratio", lambda: Fraction(2 * 4, 3), exact="8/3"),
    Claim("swiglu.four_d", lambda: 4, text=("plain FFN with d_ff = 4d", lambda k: f"plain FFN with d_ff = {k}d")),
    Claim("swiglu.equal_params", lambda: (Fraction(2 * 4, 3), 3 * Fraction(2 * 4, 3), 2 * 4),
          text=("3·d·(8/3)d = 2·d·4d = 8d²",
                lambda t: f"3·d·({t[0]})d = 2·d·4d = {t[2]}d²" if t[1] == t[2] else "the counts differ")),
    Claim("norms.smol.attention", lambda: (_attention_weights(), Fraction(3 * smol().hidden_size * smol().intermediate_size,
                                                                         3 * smol().hidden_size * smol().intermediate_size + _attention_weights())),
          text=("hold 884,736 parameters here, so SwiGLU holds three quarters",
                lambda t: f"hold {t[0]:,} parameters here, so SwiGLU holds "
                          + ("three quarters" if t[1] == Fraction(3, 4) else str(t[1])))),
    Claim("norms.smol.per_layer", lambda: 2 * gains().layers,
          text=("The gains of the 60 per-layer norms", lambda n: f"The gains of the {n} per-layer norms")),
    Claim("swiglu.shrink", lambda: Fraction(2 * 4, 3) / 4,
          text=("by a factor of 2/3", lambda r: f"by a factor of {r}")),
    # the capstone prints config["eps"], the float32 ε of the file widened to a Python float
    Claim("norms.capstone.eps_printed", lambda: _capstone_eps(),
          text=("so 1e-5 prints as 9.999999747378752e-06",
                lambda e: f"so {_eps_parts(e)[0]} prints as {e!r}")),
    # -- Sources: the versions the cross-checks run against -------------------------------
    Claim("norms.pin.transformers", lambda: "transformers", text=("`transformers` 5.24.0", pinned_as_source)),
    Claim("norms.pin.torch", lambda: "torch", text=("`torch` 2.13.0", pinned_as_source)),
]

NOT_CLAIMS: list[_NotClaim] = [
    NotClaim("Zhang and Sennrich, 2019", "citation: the RMSNorm paper"),
    NotClaim("Biao Zhang and Rico Sennrich (2019)", "citation: the RMSNorm paper"),
    NotClaim("Shazeer, 2020", "citation: GLU variants (SwiGLU)"),
    NotClaim("Noam Shazeer (2020)", "citation: GLU variants (SwiGLU)"),
    NotClaim("arXiv:2002.05202", "citation: the GLU variants paper's arXiv identifier"),
    NotClaim("Jimmy Lei Ba, Jamie Ryan Kiros and Geoffrey E. Hinton (2016)", "citation: the LayerNorm paper"),
    NotClaim("arXiv:1607.06450", "citation: the LayerNorm paper's arXiv identifier"),
    NotClaim("Prajit Ramachandran, Barret Zoph and Quoc V. Le (2017)", "citation: the Swish paper"),
    NotClaim("arXiv:1710.05941", "citation: the Swish paper's arXiv identifier"),
    NotClaim("SmolLM2-135M-Instruct", "a model's name"),
    NotClaim("bfloat16", "a number format's name"),
    NotClaim("Dirk Groeneveld et al. (2024)", "citation: the OLMo paper"),
    NotClaim("low 16 bits", "the mantissa bits bfloat16 drops from a float32, a property of the two formats"),
    NotClaim("32 bits", "the width of a float32, a property of the format"),
    NotClaim("1 + w", "names the other weight convention (scale by one plus the stored weight), not a number"),
    NotClaim("32-bit", "the float width Hugging Face's LlamaRMSNorm computes in, a fact about its code"),
    NotClaim("\\frac{1}{d}", "notation: the mean over d features"),
    NotClaim("Dan Hendrycks and Kevin Gimpel (2016)", "citation: the GELU paper, which names SiLU"),
    NotClaim("Hendrycks and Gimpel (2016)", "citation: the GELU paper, which names SiLU"),
    NotClaim("arXiv:1606.08415", "citation: the GELU paper's arXiv identifier"),
    NotClaim("Stefan Elfwing, Eiji Uchibe and Kenji Doya (2018)", "citation: the SiLU paper"),
    NotClaim("16-bit", "a float width (bfloat16, float16), a property of the formats"),
    NotClaim("max(0, a)", "ReLU's definition, not a computed number"),
    # -- the capstone: one layer of SmolLM2 ------------------------------------------------
    NotClaim("about 45 minutes", "the capstone's estimate of a reader's time, a planning figure, not a computation"),
    NotClaim("float32", "a number format's name"),
    NotClaim("layer 0", "the index of the first layer, a name"),
    NotClaim("positions 0, 1, 2 and so on", "positions counted from zero, as the book counts them"),
]

_SRC_CLAIMS, _SRC_NOT = smollm2_source("norms", Claim, NotClaim)
CLAIMS += _SRC_CLAIMS
NOT_CLAIMS += _SRC_NOT
