"""Chapter 8's "Check yourself" questions (``08_rmsnorm_swiglu``): RMSNorm with a γ that is
not uniform, LayerNorm of [30, 40], two features under LayerNorm, a negative gate, an update
numpy broadcasts but the residual add refuses, and what a norm weight stored for the 1 + w
convention gives when read as w itself. Every answer
is computed by the engine when the questions are built.
"""

from __future__ import annotations

import numpy as np

from .. import fmt
from .. import norms
from .. import examples as ex
from ..selfcheck import Question, choice, number, vector

__all__ = ["questions"]


def questions() -> tuple[Question, ...]:
    """The chapter's questions, in the order it asks them."""
    x, g = ex.QUIZ_RMS_X, ex.QUIZ_RMS_GAMMA
    t = norms.rms_norm_trace(x, g)
    q1 = vector("norm-rms", f"What does RMSNorm give for x = {fmt.vec(x)} with γ = {fmt.vec(g)} (ε ignored)?",
                t.output, tolerance=5e-3, source="norms.rms_norm(QUIZ_RMS_X, QUIZ_RMS_GAMMA)",
                why=f"The RMS is √{fmt.num(t.mean_square.item())} ≈ {fmt.num(t.rms.item(), 3)}, so x / RMS ≈ "
                    f"{fmt.vec(x / t.rms, 4)}; then γ scales each feature: {fmt.vec(t.output, 3)}. "
                    f"A γ that is not uniform turns the direction.")
    x = ex.FIG17_SCALE * ex.FIG17_X
    ln = norms.layer_norm_trace(x)
    q2 = vector("norm-layer", f"What does LayerNorm (γ of ones, β of zeros, ε ignored) give for x = {fmt.vec(x)}?",
                ln.output, tolerance=5e-3, source="norms.layer_norm(FIG17_SCALE * FIG17_X)",
                why=f"Subtract the mean {fmt.num(ln.mean.item())}, then divide by the standard deviation "
                    f"{fmt.num(ln.std.item())}: the same output as for {fmt.vec(ex.FIG17_X)}.")
    pair = norms.layer_norm([5.0, -2.0])
    two = {
        "a": "centred, the two features are +h and −h for half their gap h, and dividing by h leaves ±1",
        "b": "LayerNorm clips every feature to [−1, 1]",
        "c": "it only happens for these particular numbers",
    }
    q3 = choice("norm-two", "With γ of ones, β of zeros and ε ignored, why can LayerNorm of two unequal features only "
                "return [−1, 1] or its mirror image? (Hint: centre [a, b] first.)",
                two, "a" if np.allclose(np.abs(pair), 1, atol=1e-3) else "c",
                source="norms.layer_norm([5.0, -2.0])",
                why=f"For [5, −2]: {fmt.vec(pair)}. Whatever the two values, only their order survives.")
    a = ex.QUIZ_SILU_A
    s = norms.silu(a)
    neg = fmt.num(a, minus=fmt.MINUS)
    q4 = number("norm-silu", f"A gate pre-activation of {neg} goes through SiLU. What is SiLU({neg})? "
                "(0 would mean switched off)", s, tolerance=5e-3, source="norms.silu(QUIZ_SILU_A)",
                why=f"SiLU(a) = a·σ(a) = {neg}·{fmt.num(norms.sigmoid(a), 4)} = {fmt.num(s, 3, minus=fmt.MINUS)}: "
                    "damped, not zero.")
    stream, short = ex.FIG18_STREAM, ex.SHORT_UPDATE
    broadcast = stream + short
    try:
        norms.residual_add(stream, short)
        refused = False
    except ValueError:
        refused = True
    add = {
        "a": f"numpy gives {fmt.vec(broadcast)}, adding {fmt.num(short[0])} to every feature; the engine refuses it",
        "b": "both refuse it: the widths differ",
        "c": f"both give {fmt.vec(broadcast)}",
    }
    q5 = choice("norm-add", f"The update {fmt.vec(short)} is added to the stream {fmt.vec(stream)}. What do numpy's + "
                "and the engine's residual_add do?", add, "a" if refused else "c",
                source="FIG18_STREAM + SHORT_UPDATE, then norms.residual_add(FIG18_STREAM, SHORT_UPDATE)",
                why="numpy broadcasts an axis of length one across the other array's axis, so a wrong width can "
                    "pass silently. The engine asks for the stream's shape, the one width every update must have.")
    x, w = ex.FIG17_X, ex.QUIZ_OFFSET_W
    read_as_w = norms.rms_norm(x, w)  # γ = w: what a Llama-style loader makes of it
    meant = norms.rms_norm(x, 1.0 + w)  # γ = 1 + w: what the file meant
    q6 = vector("norm-offset", f"A norm weight w = {fmt.vec(w)} was stored for Gemma's 1 + w convention. A loader "
                "that multiplies by w itself, as Llama's does, reads it. What RMSNorm does it compute for "
                f"x = {fmt.vec(x)} (ε ignored)?", read_as_w, tolerance=5e-3,
                source="norms.rms_norm(FIG17_X, QUIZ_OFFSET_W) against norms.rms_norm(FIG17_X, 1 + QUIZ_OFFSET_W)",
                why=f"Read as γ = w the output is {fmt.vec(read_as_w, 3)}; the file meant γ = 1 + w, which gives "
                    f"{fmt.vec(meant, 3)}. Nothing raises an error: the mistake is silent.")
    return q1, q2, q3, q4, q5, q6
