"""Chapter 8's exercises: RMSNorm and SwiGLU. The worked examples are figure 17's
``x = [3, 4]`` (γ = 1, ε = 0) and the chapter's SwiGLU shapes (``d = 8 → d_ff = 24 → 8``,
seed :data:`~tokenpath.examples.norms.FFN_SEED`); random cases vary the widths, γ and ε
(large enough, beside small features, that where ε goes shows).
"""

from __future__ import annotations

import numpy as np

from .. import examples
from ..i18n import N_, _
from ..examples import norms as ex
from .. import norms as _norms
from ..norms import rms_norm_trace, swiglu_trace
from .checker import Case, Exercise, Field, Mistake

__all__ = ["EXERCISES", "RMS_NORM", "SWIGLU"]

# ------------------------------------------------------------------ RMSNorm

_RMS_STUB = '''\
def rms_norm(x, weight, eps):
    """RMSNorm over the last (feature) axis of x.

    x [..., d] float, weight [d] (γ), eps a float (ε).  Returns a dict with
      "mean_square": mean of x² over the features, keepdims   [..., 1]
      "rms":         sqrt(mean_square + ε)                     [..., 1]
      "output":      γ ⊙ x / rms                               [..., d]
    The mean is not subtracted.
    """
    ...
'''


def _rms_reference(x, weight, eps):
    t = rms_norm_trace(x, weight, eps=eps)
    return {"mean_square": t.mean_square, "rms": t.rms, "output": t.output}


def _rms_cases() -> tuple[Case, ...]:
    cases = [Case(_("the worked example (figure 17: x = [3, 4], γ = 1, ε = 0)"), (ex.FIG17_X, ex.FIG17_WEIGHT, ex.FIG17_EPS))]
    rng = np.random.default_rng(17)
    for n, (shape, eps) in enumerate([((3, 4), 1e-5), ((2, 3), 0.5), ((5,), 1.0), ((2, 2, 6), 1e-6)]):
        x = rng.normal(size=shape) * (0.3 if eps >= 0.5 else 1.0) + 0.4
        cases.append(Case(_("random case {n} (seed 17): x {shape}, ε = {eps}").format(n=n + 1, shape=list(shape),
                                                                                eps=f"{eps:g}"),
                          (x, rng.normal(size=shape[-1]), eps)))
    return tuple(cases)


def _rms(x, w, eps, centre=False, eps_inside=True, axis=-1, weighted=True, square=True, variance=False,
         offset=False, eps_used=True, inverse=False):
    x = np.asarray(x, dtype=float)
    if centre:
        x = x - x.mean(axis=axis, keepdims=True)
    with np.errstate(invalid="ignore"):  # the mean of x may be negative: its root is NaN
        ms = np.var(x, axis=axis, keepdims=True) if variance else np.mean(x * x if square else x, axis=axis, keepdims=True)
        return _finish(x, w, eps if eps_used else 0.0, ms, eps_inside, weighted, offset, inverse)


def _finish(x, w, eps, ms, eps_inside, weighted, offset=False, inverse=False):
    rms = np.sqrt(ms + eps) if eps_inside else np.sqrt(ms) + eps
    gamma = 1.0 + np.asarray(w, dtype=float) if offset else np.asarray(w, dtype=float)
    out = x / rms * (gamma if weighted else 1.0)
    return {"mean_square": ms, "rms": 1.0 / rms if inverse else rms, "output": out}


def rms_norm(x, weight, eps):
    """The teaching solution: the mean of the squares over the features, its root, then γ ⊙ x / RMS."""
    mean_square = np.mean(x**2, axis=-1, keepdims=True)
    rms = np.sqrt(mean_square + eps)
    return {"mean_square": mean_square, "rms": rms, "output": weight * x / rms}


RMS_NORM = Exercise(
    "rms_norm", 8, N_("RMSNorm"), _RMS_STUB, _rms_reference, (rms_norm_trace, _norms._rms_norm_steps),
    (Field("mean_square", "mean(x²)", ("sequence", "position", "")), Field("rms", "RMS = √(mean(x²) + ε)", ("sequence", "position", "")),
     Field("output", "γ ⊙ x / RMS", ("sequence", "position", "feature"))),
    _rms_cases,
    (Mistake(N_("RMSNorm subtracting the mean"), N_("you centred x first, which is LayerNorm's step; RMSNorm divides "
             "by the root mean square of x itself and keeps its mean."),
             lambda x, w, eps: _rms(x, w, eps, centre=True)),
     Mistake(N_("ε outside the square root"), N_("you computed √(mean(x²)) + ε, as the RMSNorm authors' own PyTorch code "
             "does (their paper has no ε); Llama, Hugging Face and torch.nn.RMSNorm put ε inside the root, "
             "√(mean(x²) + ε), and so does the chapter."), lambda x, w, eps: _rms(x, w, eps, eps_inside=False)),
     Mistake(N_("ε left out"), N_("your RMS is √(mean(x²)), with no ε; ε goes inside the root, √(mean(x²) + ε). "
             "It keeps an all-zero position from dividing by zero."), lambda x, w, eps: _rms(x, w, eps, eps_used=False)),
     Mistake(N_("γ = 1 + w"), N_("you scaled by 1 + weight, Gemma's convention; this exercise's weight is γ itself, as in "
             "Llama: multiply by the weight."), lambda x, w, eps: _rms(x, w, eps, offset=True)),
     Mistake(N_("rms holding 1/RMS"), N_("your \"rms\" is 1/√(mean(x²) + ε), the reciprocal Hugging Face computes with "
             "torch.rsqrt to multiply by it; the exercise asks for the RMS itself, √(mean(x²) + ε)."),
             lambda x, w, eps: _rms(x, w, eps, inverse=True)),
     Mistake(N_("the mean over the positions"), N_("you averaged x² over axis 0 (the positions); RMSNorm averages "
             "over the features of one position, the last axis."), lambda x, w, eps: _rms(x, w, eps, axis=0)),
     Mistake(N_("γ left out"), N_("your output is x / RMS without the weight; multiply feature by feature by γ."),
             lambda x, w, eps: _rms(x, w, eps, weighted=False)),
     Mistake(N_("the mean of x, not of x²"), N_("you averaged x itself, so positive and negative features cancel and "
             "a negative mean has no square root; RMSNorm averages the squares, mean(x²)."),
             lambda x, w, eps: _rms(x, w, eps, square=False)),
     Mistake(N_("the variance in place of the mean square"), N_("you took np.var(x) (or np.std), which subtracts the "
             "mean before squaring; RMSNorm's mean square keeps the mean: mean(x²), not mean((x − mean(x))²)."),
             lambda x, w, eps: _rms(x, w, eps, variance=True))),
    teaching=rms_norm,
)

# ------------------------------------------------------------------ SwiGLU

_SWIGLU_STUB = '''\
def swiglu(x, w_gate, w_up, w_down):
    """The SwiGLU feed-forward network, FFN(x) = [SiLU(x W_g) ⊙ (x W_u)] W_d.

    x [..., d]; w_gate (W_g) and w_up (W_u) [d, d_ff]; w_down (W_d) [d_ff, d].
    SiLU(a) = a·σ(a).  Returns a dict with
      "gate":   the gate pre-activation a = x W_g    [..., d_ff]
      "up":     the content c = x W_u                [..., d_ff]
      "hidden": SiLU(a) ⊙ c                          [..., d_ff]
      "output": hidden W_d                           [..., d]
    """
    ...
'''


def _swiglu_reference(x, w_gate, w_up, w_down):
    t = swiglu_trace(x, w_gate, w_up, w_down)
    return {"gate": t.gate.gate_pre, "up": t.gate.content, "hidden": t.gate.product, "output": t.output}


def _swiglu_cases() -> tuple[Case, ...]:
    rng = np.random.default_rng(ex.FFN_SEED)  # the chapter's own draw, in its order
    x = rng.standard_normal((examples.B, examples.T, examples.D_MODEL))
    w_g, w_u = rng.standard_normal((2, examples.D_MODEL, examples.D_FF))
    w_d = rng.standard_normal((examples.D_FF, examples.D_MODEL))
    cases = [Case(_("the worked example (chapter 8: x [{b}, {t}, {d}], d_ff = {d_ff})").format(
        b=examples.B, t=examples.T, d=examples.D_MODEL, d_ff=examples.D_FF), (x, w_g, w_u, w_d))]
    rng = np.random.default_rng(18)
    for n, (shape, d_ff) in enumerate([((3, 2), 4), ((4,), 6), ((2, 5), 1)]):
        d = shape[-1]
        cases.append(Case(_("random case {n} (seed 18): x {shape}, d_ff = {d_ff}").format(n=n + 1, shape=list(shape),
                                                                                     d_ff=d_ff),
                          (rng.normal(size=shape), rng.normal(size=(d, d_ff)), rng.normal(size=(d, d_ff)),
                           rng.normal(size=(d_ff, d)))))
    return tuple(cases)


def _ffn(x, wg, wu, wd, act, swap=False, weights_swapped=False):
    a, c = (x @ wu, x @ wg) if weights_swapped else (x @ wg, x @ wu)
    h = act(c) * a if swap else act(a) * c
    return {"gate": a, "up": c, "hidden": h, "output": h @ wd}


def _silu(a):
    return a / (1.0 + np.exp(-a))


def swiglu(x, w_gate, w_up, w_down):
    """The teaching solution: SiLU on the gate branch, times the up branch, then down."""
    a = x @ w_gate  # the gate pre-activation
    c = x @ w_up  # the content
    hidden = a / (1 + np.exp(-a)) * c  # SiLU(a) = a·σ(a), then ⊙ c
    return {"gate": a, "up": c, "hidden": hidden, "output": hidden @ w_down}


SWIGLU = Exercise(
    "swiglu", 8, N_("SwiGLU"), _SWIGLU_STUB, _swiglu_reference, (swiglu_trace, _norms.gate_trace, _norms.silu),
    (Field("gate", "a = x W_g", ("sequence", "position", "k")), Field("up", "c = x W_u", ("sequence", "position", "k")),
     Field("hidden", "SiLU(a) ⊙ c", ("sequence", "position", "k")), Field("output", "(SiLU(a) ⊙ c) W_d", ("sequence", "position", "feature"))),
    _swiglu_cases,
    (Mistake(N_("SiLU on the up branch"), N_("you applied SiLU to the content c = x W_u and multiplied by a; the gate "
             "branch a = x W_g goes through SiLU, and the content is what it scales."),
             lambda x, wg, wu, wd: _ffn(x, wg, wu, wd, _silu, swap=True)),
     Mistake(N_("σ instead of SiLU"), N_("you gated with σ(a), the sigmoid (GLU's gate); SiLU(a) = a·σ(a)."),
             lambda x, wg, wu, wd: _ffn(x, wg, wu, wd, lambda a: 1.0 / (1.0 + np.exp(-a)))),
     Mistake(N_("ReLU instead of SiLU"), N_("you gated with max(a, 0) (ReGLU); SiLU(a) = a·σ(a) is smooth and lets "
             "a little of a negative a through."), lambda x, wg, wu, wd: _ffn(x, wg, wu, wd, lambda a: np.maximum(a, 0.0))),
     Mistake(N_("W_g and W_u swapped"), N_("your gate a is x W_u and your content c is x W_g; the gate pre-activation "
             "is x W_g (w_gate), the content x W_u (w_up). Checkpoints name them gate_proj and up_proj."),
             lambda x, wg, wu, wd: _ffn(x, wg, wu, wd, _silu, weights_swapped=True))),
    teaching=swiglu,
)

EXERCISES = (RMS_NORM, SWIGLU)
