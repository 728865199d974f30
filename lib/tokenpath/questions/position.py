"""Chapter 6's "Check yourself" questions (``06_rope_discs``): the RoPE score at a
distance, order blindness, a position past a learned table, the speed of two pairs,
where a steeper ALiBi slope moves a row's weight, and what moving both positions
together does to a RoPE score. Every answer is computed by the engine when the questions are built.
"""

from __future__ import annotations

import numpy as np

from .. import fmt
from .. import examples as ex
from .. import position as P
from ..i18n import _
from ..lessons import position as LP
from ..selfcheck import Question, choice, exact, number, vector

__all__ = ["questions"]


def questions() -> tuple[Question, ...]:
    """The chapter's questions, in the order it asks them."""
    disc = LP.rope_disc(ex.FIG15_Q, ex.FIG15_K, ex.FIG15_OMEGA, 4)
    q1 = number("rope-score", _("Figure 15: what does the score become with the key 4 positions back (m − n = 4) and "
                "ω = π/2?"), disc.dot,
                tolerance=5e-3, source="lessons.position.rope_disc(FIG15_Q, FIG15_K, FIG15_OMEGA, 4).dot",
                why=_("Four quarter turns are one full turn: the key is back where it started, and so is the score."))
    swap = LP.order_blindness("ab", [1, 0], seed=ex.ORDER_SEED)
    order = {
        "a": _("the outputs change: each token now attends differently"),
        "b": _("only their order changes: each token gets the same output as before, in the swapped place"),
        "c": _("both outputs become equal"),
    }
    q2 = choice("rope-swap", _("Swap the two inputs of a head without a mask and without positions. What happens to "
                "the outputs?"), order, "b" if swap.plain_follows_order else "a",
                source='lessons.position.order_blindness("ab", [1, 0], seed=ORDER_SEED).plain_follows_order',
                why=_("Without positions, attention sees a set of tokens: permuting the inputs permutes the outputs."))
    try:
        P.position_table(8, 4, seed=0).lookup([8])
        refused = False
    except ValueError:
        refused = True
    base = ex.ROPE_EXAMPLE_BASE
    angles = P.rope_angles([8], 4, base)[0]
    q3 = vector("rope-pos8", _("A learned table has rows 0–7, and position 8 has none. Which RoPE angles does "
                "position 8 get with d_h = 4 and base {base}? (one angle per pair, in radians, not reduced "
                "modulo 2π)").format(base=fmt.num(base)), angles, tolerance=1e-3, relative=True,
                source="position.rope_angles([8], 4, ROPE_EXAMPLE_BASE)[0]", hint=_("a list of two angles such as [1.0, 0.5]"),
                why=(_("The table refuses position 8. RoPE needs no row: the angle of pair i is the position times "
                       "θ_i, defined for every position.") if refused else
                     _("The table accepts position 8. RoPE needs no row: the angle of pair i is the position times "
                       "θ_i, defined for every position.")))
    theta = P.rope_frequencies(ex.ROPE_EXAMPLE_HEAD_DIM, ex.ROPE_EXAMPLE_BASE)
    q4 = exact("rope-speed", _("In the four-wide example of section 6.4, how many times faster does pair 0 turn than "
               "pair 1?"),
               round(float(theta[0] / theta[1]), 9),
               source="position.rope_frequencies(ROPE_EXAMPLE_HEAD_DIM, ROPE_EXAMPLE_BASE)", hint=_("a whole number"),
               why=_("The frequencies are θ = {theta}; each pair turns slower than the one before by the same "
                     "factor.").format(theta=fmt.vec(theta)))
    first = P.alibi_slopes(ex.ALIBI_HEADS)[0]
    slope = ex.ALIBI_STEEP_SLOPE
    ali = P.alibi(ex.FIG8_Q, ex.FIG8_K, ex.FIG8_U, slope)
    row = ex.FIG8_Q.shape[0] - 1
    q5 = exact("rope-alibi", _("What if the head were steeper? Section 6.5 used slope {first}. With slope "
               "{slope} on the scores of Figure 8, which source does query row {row} read most?").format(
                   first=fmt.frac(first), slope=fmt.frac(slope), row=row),
               int(ali.most_read[1][row]),
               source=f"position.alibi(FIG8_Q, FIG8_K, FIG8_U, {fmt.frac(slope)}).most_read[1][{row}]",
               hint=_("a source position (a whole number)"),
               why=_("The bias {bias} multiplies the exponentials by e to those powers, so far sources lose most: "
                     "the weights {plain} become {biased}, and the most-read source moves from {before} to "
                     "{after}, the query's own position.").format(
                   bias=fmt.vec(ali.bias[row]), plain=fmt.vec(ali.plain.weights[row], 3),
                   biased=fmt.vec(ali.biased.weights[row], 3), before=ali.most_read[0][row],
                   after=ali.most_read[1][row]))
    rng = np.random.default_rng(ex.ORDER_SEED)
    qk = rng.standard_normal((2, 1, ex.ROPE_EXAMPLE_HEAD_DIM))
    shift = 5
    m, n = ex.ROPE_EXAMPLE_POSITION + 2, ex.ROPE_EXAMPLE_POSITION  # the key 2 positions before the query
    before = P.relative_scores(qk[0], qk[1], [m], [n])
    after = P.relative_scores(qk[0], qk[1], [m + shift], [n + shift])
    unchanged = bool(np.isclose(before.absolute[0, 0], after.absolute[0, 0]))
    moved = {
        "a": _("it changes: both vectors are turned further than before"),
        "b": _("it stays the same"),
        "c": _("it becomes zero"),
    }
    q6 = choice("rope-shift", _("What if a query at m and a key 2 positions before it (n = m − 2) both move {shift} "
                "positions further along the text (m to m + {shift}, n to n + {shift})? What happens to their RoPE "
                "score?").format(shift=shift), moved,
                "b" if unchanged else "a",
                source=f"position.relative_scores(q, k, [m], [n]) against [m + {shift}], [n + {shift}], random q and k",
                why=_("Each vector turns further, but R(mθ)ᵀR(nθ) = R((n − m)θ): the positions enter the score only "
                      "through their distance m − n, and moving both together keeps it."))
    return q1, q2, q3, q4, q5, q6
