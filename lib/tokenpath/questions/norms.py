"""Chapter 8's "Check yourself" questions (``08_rmsnorm_swiglu``): RMSNorm with a γ that is
not uniform, LayerNorm of [30, 40], two features under LayerNorm, a negative gate, an update
numpy broadcasts but the residual add refuses, and what a norm weight stored for the 1 + w
convention gives when read as w itself. Every answer
is computed by the engine when the questions are built.
"""

from __future__ import annotations

import numpy as np

from .. import fmt
from ..i18n import _
from .. import norms
from .. import examples as ex
from ..selfcheck import Question, choice, number, vector

__all__ = ["questions"]


def questions() -> tuple[Question, ...]:
    """The chapter's questions, in the order it asks them."""
    x, g = ex.QUIZ_RMS_X, ex.QUIZ_RMS_GAMMA
    t = norms.rms_norm_trace(x, g)
    q1 = vector("norm-rms", _("What does RMSNorm give for x = {x} with γ = {g} (ε ignored)?").format(
                    x=fmt.vec(x), g=fmt.vec(g)),
                t.output, tolerance=5e-3, source="norms.rms_norm(QUIZ_RMS_X, QUIZ_RMS_GAMMA)",
                why=_("The RMS is √{ms} ≈ {rms}, so x / RMS ≈ {unit}; then γ scales each feature: {out}. "
                      "A γ that is not uniform turns the direction.").format(
                    ms=fmt.num(t.mean_square.item()), rms=fmt.num(t.rms.item(), 3), unit=fmt.vec(x / t.rms, 4),
                    out=fmt.vec(t.output, 3)))
    x = ex.FIG17_SCALE * ex.FIG17_X
    ln = norms.layer_norm_trace(x)
    q2 = vector("norm-layer", _("What does LayerNorm (γ of ones, β of zeros, ε ignored) give for x = {x}?").format(
                    x=fmt.vec(x)),
                ln.output, tolerance=5e-3, source="norms.layer_norm(FIG17_SCALE * FIG17_X)",
                why=_("Subtract the mean {mean}, then divide by the standard deviation {std}: the same output "
                      "as for {x}.").format(mean=fmt.num(ln.mean.item()), std=fmt.num(ln.std.item()),
                                             x=fmt.vec(ex.FIG17_X)))
    pair = norms.layer_norm([5.0, -2.0])
    two = {
        "a": _("centred, the two features are +h and −h for half their gap h, and dividing by h leaves ±1"),
        "b": _("LayerNorm clips every feature to [−1, 1]"),
        "c": _("it only happens for these particular numbers"),
    }
    q3 = choice("norm-two", _("With γ of ones, β of zeros and ε ignored, why can LayerNorm of two unequal features "
                              "only return [−1, 1] or its mirror image? (Hint: centre [a, b] first.)"),
                two, "a" if np.allclose(np.abs(pair), 1, atol=1e-3) else "c",
                source="norms.layer_norm([5.0, -2.0])",
                why=_("For [5, −2]: {pair}. Whatever the two values, only their order survives.").format(
                    pair=fmt.vec(pair)))
    a = ex.QUIZ_SILU_A
    s = norms.silu(a)
    neg = fmt.num(a, minus=fmt.MINUS)
    q4 = number("norm-silu", _("A gate pre-activation of {a} goes through SiLU. What is SiLU({a})? "
                               "(0 would mean switched off)").format(a=neg), s, tolerance=5e-3,
                source="norms.silu(QUIZ_SILU_A)",
                why=_("SiLU(a) = a·σ(a) = {a}·{sigma} = {silu}: damped, not zero.").format(
                    a=neg, sigma=fmt.num(norms.sigmoid(a), 4), silu=fmt.num(s, 3, minus=fmt.MINUS)))
    stream, short = ex.FIG18_STREAM, ex.SHORT_UPDATE
    broadcast = stream + short
    try:
        norms.residual_add(stream, short)
        refused = False
    except ValueError:
        refused = True
    add = {
        "a": _("numpy gives {sum}, adding {u} to every feature; the engine refuses it").format(
            sum=fmt.vec(broadcast), u=fmt.num(short[0])),
        "b": _("both refuse it: the widths differ"),
        "c": _("both give {sum}").format(sum=fmt.vec(broadcast)),
    }
    q5 = choice("norm-add", _("The update {update} is added to the stream {stream}. What do numpy's + and the "
                              "engine's residual_add do?").format(update=fmt.vec(short), stream=fmt.vec(stream)),
                add, "a" if refused else "c",
                source="FIG18_STREAM + SHORT_UPDATE, then norms.residual_add(FIG18_STREAM, SHORT_UPDATE)",
                why=_("numpy broadcasts an axis of length one across the other array's axis, so a wrong width can "
                      "pass silently. The engine asks for the stream's shape, the one width every update must "
                      "have."))
    x, w = ex.FIG17_X, ex.QUIZ_OFFSET_W
    read_as_w = norms.rms_norm(x, w)  # γ = w: what a Llama-style loader makes of it
    meant = norms.rms_norm(x, 1.0 + w)  # γ = 1 + w: what the file meant
    q6 = vector("norm-offset", _("A norm weight w = {w} was stored for Gemma's 1 + w convention. A loader that "
                                 "multiplies by w itself, as Llama's does, reads it. What RMSNorm does it compute "
                                 "for x = {x} (ε ignored)?").format(w=fmt.vec(w), x=fmt.vec(x)),
                read_as_w, tolerance=5e-3,
                source="norms.rms_norm(FIG17_X, QUIZ_OFFSET_W) against norms.rms_norm(FIG17_X, 1 + QUIZ_OFFSET_W)",
                why=_("Read as γ = w the output is {read}; the file meant γ = 1 + w, which gives {meant}. Nothing "
                      "raises an error: the mistake is silent.").format(read=fmt.vec(read_as_w, 3),
                                                                       meant=fmt.vec(meant, 3)))
    return q1, q2, q3, q4, q5, q6
