"""Chapter 4's "Check yourself" questions (``04_attention``): who reads whom, a small
weight with a long value, one more cell of figure 8, the growth of the unscaled score's
variance, and what a softmax over the wrong axis would do to figure 8's rows. Every answer is computed by the
engine when the questions are built. Chapter 5's questions, on the shift, the masks and
the cache, are in :mod:`.masks`.
"""

from __future__ import annotations

import numpy as np

from .. import attention as A
from .. import fmt
from .. import examples as ex
from ..lessons import attention as LA
from ..selfcheck import Question, choice, exact, set_of

__all__ = ["questions"]


def questions() -> tuple[Question, ...]:
    """The chapter's questions, in the order it asks them."""
    t8 = A.causal_attention(ex.FIG8_Q, ex.FIG8_K, ex.FIG8_U)
    reads = {
        "a": "query position 1 reads source position 0, with weight 1/3 of that one row",
        "b": "source position 1 reads query position 0",
        "c": "a third of the batch attends to position 0",
        "d": "position 0 reads position 1",
    }
    q1 = choice("att-A10", "Figure 8: A[1,0] = 1/3. Who reads whom, and what is the 1/3 a share of?", reads, "a",
                source="attention.causal_attention(FIG8_Q, FIG8_K, FIG8_U).weights[1]",
                why=(f"Row = query (reader), column = source. Row 1 is {fmt.vec(t8.weights[1, :2], fractions=True)} "
                     "and sums to 1: it is one position's reading weights, not a share of the batch."))
    big = LA.value_magnitude(ex.FIG11_M_LARGE)
    longer = int(np.argmax(big.lengths))
    q4 = exact("att-longer", "Figure 11: with the second value [0, 40], which source (0 or 1) contributes the longer "
               "vector?", longer, source="lessons.attention.value_magnitude(FIG11_M_LARGE).lengths",
               hint="a source index, 0 or 1",
               why=(f"The contributions have lengths {fmt.vec(big.lengths)}: source {longer} has the smaller weight "
                    f"{fmt.num(big.weights[longer])} but the much longer value."))
    a20 = t8.weights[2, 0]
    q6 = exact("att-A20", "Figure 8: what is the weight A[2,0], with which query position 2 reads source position 0?",
               a20, source="attention.causal_attention(FIG8_Q, FIG8_K, FIG8_U).weights[2, 0]",
               hint='a fraction such as "1/3"',
               why=(f"Row 2 sees all three sources; their exponentials are "
                    f"{fmt.vec(t8.exp_scores[2], fractions=True)}, so the softmax over the row gives "
                    f"{fmt.vec(t8.weights[2], fractions=True)}, and A[2,0] = {fmt.frac(a20)}."))
    var = LA.score_variance(ex.FIG12_D_H, samples=ex.FIG12_SAMPLES, seed=ex.FIG12_SEED)
    lo, hi = int(var.d_h[1]), int(var.d_h[2])
    grows = var.theory[2] / var.theory[1]
    q5 = exact("att-scale", f"Figure 12: a query and a key have independent components of mean 0 and variance 1. "
               f"By what factor does the variance of their unscaled dot product grow when the head width d_h goes "
               f"from {lo} to {hi}?", grows,
               source="lessons.attention.score_variance(FIG12_D_H, ...).theory",
               hint="a number such as 2",
               why=(f"A dot product adds d_h products of variance 1, so its variance is d_h: "
                    f"{fmt.num(var.theory[1])} at d_h = {lo} and {fmt.num(var.theory[2])} at d_h = {hi}, "
                    f"{fmt.num(grows)} times as much. Dividing by √d_h brings both back to 1."))
    columns = A.softmax(t8.masked_scores, axis=0)  # normalised down each column, over the queries
    rows = columns.sum(axis=-1)
    broken = np.flatnonzero(~np.isclose(rows, 1.0))
    q7 = set_of("att-column-softmax", "What if figure 8's softmax ran down the columns (over the query axis) instead "
                "of along the rows? Which rows of A would no longer sum to 1?", broken,
                source="attention.softmax(causal_attention(FIG8_Q, FIG8_K, FIG8_U).masked_scores, axis=0).sum(-1)",
                hint="a set of row indices such as {0, 1}, or an empty set",
                why=(f"Down the columns, each column would sum to 1 instead; the rows would sum to "
                     f"{fmt.vec(rows, fractions=True)}. Row i is what position i reads, so its weights must share "
                     "one unit: only a softmax along the row (the last axis) guarantees that."))
    return q1, q4, q6, q5, q7
