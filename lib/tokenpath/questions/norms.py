"""Chapter 8's "Check yourself" questions (``08_rmsnorm_swiglu``): RMSNorm and LayerNorm of
[30, 40], two features under LayerNorm, a negative gate, the residual add's shape rule, and
what a norm weight stored for the 1 + w convention gives when read as w itself. Every answer
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
    x = ex.FIG17_SCALE * ex.FIG17_X
    q1 = vector("norm-rms", f"What does RMSNorm (γ of ones, ε ignored) give for x = {fmt.vec(x)}?", norms.rms_norm(x), tolerance=5e-3,
                source="norms.rms_norm(FIG17_SCALE * FIG17_X)",
                why="Divide by the root mean square, √((30² + 40²)/2) ≈ 35.36; the direction is kept.")
    q2 = vector("norm-layer", f"And LayerNorm (γ of ones, β of zeros, ε ignored) of x = {fmt.vec(x)}?", norms.layer_norm(x), tolerance=5e-3,
                source="norms.layer_norm(FIG17_SCALE * FIG17_X)",
                why="Subtract the mean 35, then divide by the spread 5: the two features become ∓1.")
    pair = norms.layer_norm([5.0, -2.0])
    two = {
        "a": "centred, the two features are +h and −h for half their gap h, and dividing by h leaves ±1",
        "b": "LayerNorm clips every feature to [−1, 1]",
        "c": "it only happens for these particular numbers",
    }
    q3 = choice("norm-two", "With γ of ones, β of zeros and ε ignored, why can LayerNorm of two unequal features only "
                "return [−1, 1] or its mirror image?",
                two, "a" if np.allclose(np.abs(pair), 1, atol=1e-3) else "c",
                source="norms.layer_norm([5.0, -2.0])",
                why=f"For [5, −2]: {fmt.vec(pair)}. Whatever the two values, only their order survives.")
    s = norms.silu(-1.0)
    q4 = number("norm-silu", "A gate pre-activation of −1 goes through SiLU. What is SiLU(−1)? (0 would mean "
                "switched off)", s, tolerance=5e-3, source="norms.silu(-1.0)",
                why=f"SiLU(a) = a·σ(a) = −1·σ(−1) = {fmt.num(s, 3)}: damped, not zero.")
    try:
        norms.residual_add(ex.FIG18_STREAM, [0.5, -1.0, 0.0])
        refused = False
    except ValueError:
        refused = True
    add = {
        "a": "no: the update must have the stream's shape, and the engine refuses it",
        "b": "yes: the extra feature is dropped",
        "c": "yes: the stream is padded with a zero",
    }
    q5 = choice("norm-add", f"Can an update of width 3 be added to the stream {fmt.vec(ex.FIG18_STREAM)}?", add,
                "a" if refused else "b", source="norms.residual_add(FIG18_STREAM, [0.5, -1.0, 0.0])",
                why="The residual stream keeps one width from the embedding to the head; every update is added in place.")
    x = ex.FIG17_X
    zeros = np.zeros_like(ex.FIG17_WEIGHT)
    read_as_w = norms.rms_norm(x, zeros)  # γ = w: what a Llama-style loader makes of Gemma's w = 0
    meant = norms.rms_norm(x, 1.0 + zeros)  # γ = 1 + w: what the file meant
    offset = {
        "a": "all zeros: every feature is multiplied by w = 0",
        "b": "the same as with γ of ones: a stored zero means γ = 1",
        "c": "x itself: a weight of zero switches the norm off",
    }
    key = "a" if np.allclose(read_as_w, 0) else "b" if np.allclose(read_as_w, meant) else "c"
    q6 = choice("norm-offset", "What if a norm weight stored for Gemma's 1 + w convention is all zeros (so γ = 1), "
                "but a loader that multiplies by w itself, as Llama's does, reads it? What is RMSNorm of "
                f"x = {fmt.vec(x)} then (ε ignored)?", offset, key,
                source="norms.rms_norm(FIG17_X, zeros) against norms.rms_norm(FIG17_X, 1 + zeros)",
                why=f"Read as γ = w the output is {fmt.vec(read_as_w)}; the file meant γ = 1 + w, which gives "
                    f"{fmt.vec(meant, 4)}. Nothing raises an error: the mistake is silent.")
    return q1, q2, q3, q4, q5, q6
