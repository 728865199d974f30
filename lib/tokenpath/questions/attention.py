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
from ..i18n import _
from ..lessons import attention as LA
from ..selfcheck import Question, choice, exact, set_of

__all__ = ["questions"]


def questions() -> tuple[Question, ...]:
    """The chapter's questions, in the order it asks them."""
    t8 = A.causal_attention(ex.FIG8_Q, ex.FIG8_K, ex.FIG8_U)
    reads = {
        "a": _("query position 1 reads source position 0, with weight 1/3 of that one row"),
        "b": _("source position 1 reads query position 0"),
        "c": _("a third of the batch attends to position 0"),
        "d": _("position 0 reads position 1"),
    }
    q1 = choice("att-A10", _("Figure 8: A[1,0] = 1/3. Who reads whom, and what is the 1/3 a share of?"), reads, "a",
                source="attention.causal_attention(FIG8_Q, FIG8_K, FIG8_U).weights[1]",
                why=_("Row = query (reader), column = source. Row 1 is {row} and sums to 1: it is one position's "
                      "reading weights, not a share of the batch.").format(
                    row=fmt.vec(t8.weights[1, :2], fractions=True)))
    big = LA.value_magnitude(ex.FIG11_M_LARGE)
    longer = int(np.argmax(big.lengths))
    q4 = exact("att-longer", _("Figure 11: with the second value [0, 40], which source (0 or 1) contributes the longer "
               "vector?"), longer, source="lessons.attention.value_magnitude(FIG11_M_LARGE).lengths",
               hint=_("a source index, 0 or 1"),
               why=_("The contributions have lengths {lengths}: source {source} has the smaller weight "
                     "{weight} but the much longer value.").format(
                   lengths=fmt.vec(big.lengths), source=longer, weight=fmt.num(big.weights[longer])))
    a20 = t8.weights[2, 0]
    q6 = exact("att-A20", _("Figure 8: what is the weight A[2,0], with which query position 2 reads source position 0?"),
               a20, source="attention.causal_attention(FIG8_Q, FIG8_K, FIG8_U).weights[2, 0]",
               hint=_('a fraction such as "1/3"'),
               why=_("Row 2 sees all three sources; their exponentials are {exps}, so the softmax over the row "
                     "gives {weights}, and A[2,0] = {answer}.").format(
                   exps=fmt.vec(t8.exp_scores[2], fractions=True), weights=fmt.vec(t8.weights[2], fractions=True),
                   answer=fmt.frac(a20)))
    var = LA.score_variance(ex.FIG12_D_H, samples=ex.FIG12_SAMPLES, seed=ex.FIG12_SEED)
    lo, hi = int(var.d_h[1]), int(var.d_h[2])
    grows = var.theory[2] / var.theory[1]
    q5 = exact("att-scale", _("Figure 12: a query and a key have independent components of mean 0 and variance 1. "
               "By what factor does the variance of their unscaled dot product grow when the head width d_h goes "
               "from {lo} to {hi}?").format(lo=lo, hi=hi), grows,
               source="lessons.attention.score_variance(FIG12_D_H, ...).theory",
               hint=_("a number such as 2"),
               why=_("A dot product adds d_h products of variance 1, so its variance is d_h: {var_lo} at d_h = {lo} "
                     "and {var_hi} at d_h = {hi}, {grows} times as much. Dividing by √d_h brings both back to 1.").format(
                   var_lo=fmt.num(var.theory[1]), lo=lo, var_hi=fmt.num(var.theory[2]), hi=hi, grows=fmt.num(grows)))
    columns = A.softmax(t8.masked_scores, axis=0)  # normalised down each column, over the queries
    rows = columns.sum(axis=-1)
    broken = np.flatnonzero(~np.isclose(rows, 1.0))
    q7 = set_of("att-column-softmax", _("What if figure 8's softmax ran down the columns (over the query axis) instead "
                "of along the rows? Which rows of A would no longer sum to 1?"), broken,
                source="attention.softmax(causal_attention(FIG8_Q, FIG8_K, FIG8_U).masked_scores, axis=0).sum(-1)",
                hint=_("a set of row indices such as {0, 1}, or an empty set"),
                why=_("Down the columns, each column would sum to 1 instead; the rows would sum to {rows}. Row i is "
                      "what position i reads, so its weights must share one unit: only a softmax along the row (the "
                      "last axis) guarantees that.").format(rows=fmt.vec(rows, fractions=True)))
    return q1, q4, q6, q5, q7
