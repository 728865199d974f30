"""Chapters 4 and 5's exercises: the causal mask and attention with a mask (chapter 4),
and the KV-cache mask for ``P`` cached positions (chapter 5). The worked example is figure 8's Q, K and U
(:mod:`tokenpath.examples.attention`); random cases vary ``T_q``, ``T_k`` and ``d_h``
(``d_h = 1`` included) and the masks, every row keeping at least one visible source.
"""

from __future__ import annotations

import numpy as np

from .. import attention as att
from ..examples import attention as ex
from ..i18n import N_, _
from .checker import Case, Exercise, Field, Mistake

__all__ = ["CACHE_MASK", "CAUSAL_MASK", "EXERCISES", "MASKED_ATTENTION"]


# ------------------------------------------------------------ teaching solutions
# What a reader writes: the few array lines, no input checks. The engine's validated
# functions (tokenpath.attention) are the second, optional solution.


def causal_mask(t):
    i = np.arange(t)[:, None]  # query positions, one per row
    j = np.arange(t)[None, :]  # key positions, one per column
    return j <= i  # [t, t]: True where key j is at or before query i


def masked_attention(query, key, value, mask):
    d_h = query.shape[-1]
    S = query @ key.T / np.sqrt(d_h)  # scores [T_q, T_k], before the mask
    S_masked = np.where(mask, S, -np.inf)  # hidden keys score -inf
    E = np.exp(S_masked - S_masked.max(axis=-1, keepdims=True))  # minus each row's max: no overflow
    A = E / E.sum(axis=-1, keepdims=True)  # softmax over the sources j: each row sums to 1
    return {"scores": S, "weights": A, "output": A @ value}  # O = A U, [T_q, d_v]


def cache_mask(past, new):
    r = np.arange(new)[:, None]  # local row of each new query
    j = np.arange(past + new)[None, :]  # absolute position of each key, cached ones first
    return j <= past + r  # row r sits at absolute position past + r


# ---------------------------------------------------------------- the causal mask

_CAUSAL_STUB = '''\
def causal_mask(t):
    """Visibility of t positions that attend inside one block: M[i, j] is True when
    key j is visible to query i, that is when j <= i.

    t: int >= 1.  Returns a bool array of shape [t, t] (row = query i, column = key j).
    """
    ...
'''


def _causal_cases() -> tuple[Case, ...]:
    return (Case(N_("the worked example (figure 8: t = 3)"), (3,)), Case("t = 1", (1,)),
            *(Case(f"t = {t}", (t,)) for t in (2, 5, 8)))


CAUSAL_MASK = Exercise(
    "causal_mask", 4, N_("the causal mask"), _CAUSAL_STUB, att.causal_mask, (att.causal_mask,),
    (Field("mask", "M", ("i", "j"), "bool"),), _causal_cases,
    (Mistake(N_("the triangle flipped"), N_("your mask shows each query the keys after it (j >= i), the future; "
             "the chapter's shows j <= i: np.tril, not np.triu."),
             lambda t: np.triu(np.ones((t, t), dtype=bool))),
     Mistake(N_("the diagonal hidden"), N_("your mask hides key i from query i (j < i); a position sees itself, "
             "so the first row would see nothing and its softmax would be 0/0."),
             lambda t: np.tril(np.ones((t, t), dtype=bool), k=-1)),
     Mistake(N_("True where hidden"), N_("your mask is True on the future cells; in the chapter True means visible."),
             lambda t: ~np.tril(np.ones((t, t), dtype=bool))),
     Mistake(N_("one future key visible"), N_("your mask shows query i the key right after it (j <= i + 1); "
             "the next token is exactly what position i is trained to predict, so it must stay hidden: "
             "np.tril(..., k=0), not k=1."),
             lambda t: np.tril(np.ones((t, t), dtype=bool), k=1))),
    teaching=causal_mask,
)

# ------------------------------------------------------------ attention with a mask

_ATTENTION_STUB = '''\
def masked_attention(query, key, value, mask):
    """Scaled dot-product attention of one head with a visibility mask.

    T_q queries, T_k keys.  query [T_q, d_h], key [T_k, d_h],
    value [T_k, d_v] (U in the chapter), mask [T_q, T_k] bool, True where key j is visible to query i.
    Returns a dict with
      "scores":  S = Q Kᵀ / √d_h, before the mask            [T_q, T_k]
      "weights": A = softmax of S over the sources j, hidden
                 cells set to -inf first (so they get 0)      [T_q, T_k]
      "output":  O = A U                                      [T_q, d_v]
    """
    ...
'''


def _attention_reference(query, key, value, mask):
    t = att.attention(query, key, value, mask)
    return {"scores": t.scores, "weights": t.weights, "output": t.output}


def _random_mask(rng, tq: int, tk: int) -> np.ndarray:
    mask = rng.random((tq, tk)) < 0.6
    mask[np.arange(tq), rng.integers(0, tk, size=tq)] = True  # every row sees a source
    return mask


def _attention_cases() -> tuple[Case, ...]:
    cases = [Case(N_("the worked example (figure 8, causal)"), (ex.FIG8_Q, ex.FIG8_K, ex.FIG8_U, att.causal_mask(3))),
             Case(N_("scores in the thousands, the largest on a hidden key"), _large_scores())]
    rng = np.random.default_rng(4)
    for n, (tq, tk, d, causal) in enumerate([(4, 4, 2, True), (2, 5, 3, False), (3, 3, 1, True), (1, 4, 4, False)]):
        q, k, v = rng.normal(size=(tq, d)), rng.normal(size=(tk, d)), rng.normal(size=(tk, 2))
        m = att.cache_mask(tk - tq, tq) if causal else _random_mask(rng, tq, tk)
        cases.append(Case(f"random case {n + 1} (seed 4): T_q = {tq}, T_k = {tk}, d_h = {d}", (q, k, v, m)))
    return tuple(cases)


def _large_scores():
    """Row 0's visible scores reach 848 (exp overflows past 709) and its hidden key scores
    3394; row 1 sees keys 1 and 2 only. Right code subtracts each row's largest visible
    score; code that skips that, or lets hidden keys into the max, gets inf/inf or 0/0."""
    q = np.array([[60.0, 0.0], [0.0, 2.0]])
    k = np.array([[20.0, 0.0], [0.0, 1.0], [0.0, -1.0], [80.0, 0.0]])
    v = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [5.0, -5.0]])
    mask = np.array([[True, True, True, False], [False, True, True, False]])
    return q, k, v, mask


def _softmax(s, axis):
    with np.errstate(invalid="ignore"):  # a hidden column over the wrong axis is NaN
        e = np.exp(s - np.max(s, axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)


def _no_scale(q, k, v, m):
    s = q @ k.T
    a = _softmax(np.where(m, s, -np.inf), -1)
    return {"scores": s, "weights": a, "output": a @ v}


def _query_axis(q, k, v, m):
    s = q @ k.T / np.sqrt(q.shape[-1])
    a = np.nan_to_num(_softmax(np.where(m, s, -np.inf), 0))
    return {"scores": s, "weights": a, "output": a @ v}


def _query_axis_nan(q, k, v, m):
    s = q @ k.T / np.sqrt(q.shape[-1])
    with np.errstate(invalid="ignore"):
        a = _softmax(np.where(m, s, -np.inf), 0)  # a column with no visible cell is 0/0
        return {"scores": s, "weights": a, "output": a @ v}


def _query_axis_big(q, k, v, m):
    s = q @ k.T / np.sqrt(q.shape[-1])
    a = _softmax(np.where(m, s, -1e9), 0)  # a column with no visible cell is spread evenly
    return {"scores": s, "weights": a, "output": a @ v}


def _over_width(q, k, v, m):
    s = q @ k.T / q.shape[-1]
    a = _softmax(np.where(m, s, -np.inf), -1)
    return {"scores": s, "weights": a, "output": a @ v}


def _mask_after(q, k, v, m):
    s = q @ k.T / np.sqrt(q.shape[-1])
    a = _softmax(s, -1) * m
    return {"scores": s, "weights": a, "output": a @ v}


def _no_max(q, k, v, m):
    s = q @ k.T / np.sqrt(q.shape[-1])
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(np.where(m, s, -np.inf))  # exp(848) = inf, and inf / inf = NaN
        a = e / e.sum(axis=-1, keepdims=True)
    return {"scores": s, "weights": a, "output": a @ v}


def _max_before_mask(q, k, v, m):
    s = q @ k.T / np.sqrt(q.shape[-1])
    with np.errstate(invalid="ignore"):
        e = np.exp(s - s.max(axis=-1, keepdims=True)) * m  # the max of every key, hidden ones too
        a = e / e.sum(axis=-1, keepdims=True)
    return {"scores": s, "weights": a, "output": a @ v}


def _max_over_queries(q, k, v, m):
    s = q @ k.T / np.sqrt(q.shape[-1])
    x = np.where(m, s, -np.inf)
    with np.errstate(invalid="ignore"):
        e = np.exp(x - x.max(axis=0, keepdims=True))  # each column's max, not each row's
        a = e / e.sum(axis=-1, keepdims=True)
    return {"scores": s, "weights": a, "output": a @ v}


def _value_width(q, k, v, m):
    s = q @ k.T / np.sqrt(v.shape[-1])
    a = _softmax(np.where(m, s, -np.inf), -1)
    return {"scores": s, "weights": a, "output": a @ v}


def _hidden_zero(q, k, v, m):
    s = q @ k.T / np.sqrt(q.shape[-1])
    a = _softmax(np.where(m, s, 0.0), -1)  # a hidden score of 0 still has exp(0) = 1
    return {"scores": s, "weights": a, "output": a @ v}


def _mask_ignored(q, k, v, m):
    s = q @ k.T / np.sqrt(q.shape[-1])
    a = _softmax(s, -1)
    return {"scores": s, "weights": a, "output": a @ v}


MASKED_ATTENTION = Exercise(
    "masked_attention", 4, N_("attention with a mask"), _ATTENTION_STUB, _attention_reference, (att.attention,),
    (Field("scores", "S = QKᵀ/√d_h", ("i", "j")),
     Field("weights", "A = softmax(S)", ("i", "j"), sums_to_one=True),
     Field("output", "O = AU", ("i", "d"))),
    _attention_cases,
    (Mistake(N_("no 1/√d_h"), N_("your scores are QKᵀ without the division by √d_h, so every softmax is sharper "
             "than the chapter's; divide the dot products by the square root of the head width."), _no_scale),
     Mistake(N_("divided by d_h, not √d_h"), N_("your scores are QKᵀ/d_h; dividing by √d_h brings the scores' "
             "variance back to 1 for entries of variance 1 (section 4.3), dividing by d_h shrinks it to 1/d_h, "
             "so your softmax is flatter than the chapter's."), _over_width),
     Mistake(N_("softmax over the query axis"), N_("your softmax normalised each column (axis 0, the queries i); "
             "the chapter's normalises each row over the sources j (the last axis), so row i of A sums to 1."),
             _query_axis),
     Mistake(N_("softmax over the query axis, hidden columns NaN"), N_("your softmax normalised each column (axis 0, "
             "the queries i), and a column with no visible cell came out 0/0 = NaN; the chapter's normalises "
             "each row over the sources j (the last axis), so row i of A sums to 1."), _query_axis_nan),
     Mistake(N_("softmax over the query axis, −1e9 for hidden cells"), N_("your softmax normalised each column "
             "(axis 0, the queries i), and a column with no visible cell was spread evenly over the queries; the "
             "chapter's normalises each row over the sources j (the last axis), so row i of A sums to 1."),
             _query_axis_big),
     Mistake(N_("the mask applied after the softmax"), N_("you zeroed the hidden weights after normalising, so "
             "each row sums to less than 1; set hidden scores to −∞ before the softmax instead."), _mask_after),
     Mistake(N_("the mask ignored"), N_("your weights give the hidden (future) keys a share; set the scores of "
             "cells where the mask is False to −∞ before the softmax."), _mask_ignored),
     Mistake(N_("hidden scores set to 0"), N_("you set the hidden scores to 0 (or multiplied the scores by the mask) "
             "before the softmax; exp(0) = 1, so every hidden key still gets a share. Set them to −∞ "
             "(np.where(mask, S, -np.inf)), whose exponential is exactly 0."), _hidden_zero),
     Mistake(N_("no max subtracted"), N_("your weights are right until a score is in the hundreds: exp(848) "
             "overflows to inf and inf/inf is NaN. Subtract each row's largest visible score before exp; "
             "it cancels in the ratio, so the weights do not change."), _no_max),
     Mistake(N_("hidden keys in the max"), N_("your weights are right until a hidden key scores far above every "
             "visible one: you took the max (or the whole softmax) over all keys and removed the hidden ones "
             "afterwards, so every visible exp underflows to 0 and the row is 0/0; or you exponentiated the "
             "hidden scores before removing them (exp overflows to inf, and inf·0 is NaN). Set hidden scores "
             "to −∞ first, then subtract the row's max."), _max_before_mask),
     Mistake(N_("the max taken over the query axis"), N_("you subtracted each column's max (axis 0) before exp; "
             "a shift cancels only when it is the same across a row, so subtract each row's max "
             "(axis=-1, keepdims=True)."), _max_over_queries),
     Mistake(N_("divided by √d_v, not √d_h"), N_("your scores are divided by the square root of the value width "
             "(value.shape[-1]); the scale is the width of the query and key rows, d_h = query.shape[-1]."),
             _value_width)),
    figure=lambda case, expected, got: _attention_figure(case, expected, got),
    teaching=masked_attention,
)


def _attention_figure(case: Case, expected: dict, got: dict):
    """The worked example's weight matrix A, the book's beside the reader's."""
    from ..figures import Drawn, FigureDisplay
    from ..figures.attention import draw_weights
    from ..figures.draw import add_heading, new_canvas

    q, k, v, m = case.args

    def trace(fields):
        w = np.asarray(fields["weights"], dtype=float)
        return att.AttentionTrace(q, k, v, np.asarray(fields["scores"], dtype=float), np.asarray(m, dtype=bool),
                                  w, np.asarray(fields["output"], dtype=float))

    tq, tk = np.shape(expected["weights"])
    width = 1.4 + (tk + 1) * 0.95 + 0.6  # labels, the columns and the row sums, a margin
    fig, ax = new_canvas(2 * width, 1.5 + (tq + 1) * 0.62 + 0.6)
    for x0, title, fields in ((1.4, "The book's A (the engine)", expected), (width + 1.4, "Your A", got)):
        add_heading(ax, x0 - 1.2, 0.3, title)
        draw_weights(ax, trace(fields), at=(x0, 1.2))
    alt = _("The weight matrix A of the worked example: the engine's rows {book}, yours {yours}.").format(
        book=np.round(expected["weights"], 4).tolist(), yours=np.round(np.asarray(got["weights"], float), 4).tolist())
    return FigureDisplay(Drawn(0, _("Your weights beside the book's"), fig, alt),
                         caption=_("Your A beside the book's (figure 8)"))


# ------------------------------------------------------------- the KV-cache mask

_CACHE_STUB = '''\
def cache_mask(past, new):
    """Visibility of `new` queries appended after `past` cached positions.

    Query row r sits at absolute position past + r and sees key j (an absolute
    position, 0 … past + new − 1) when j <= past + r.
    past: int >= 0, new: int >= 1.  Returns a bool array of shape [new, past + new].
    """
    ...
'''


def _cache_cases() -> tuple[Case, ...]:
    worked = _("the worked example (figure 14: P = {past}, {new} new)").format(past=ex.FIG14_PAST, new=ex.FIG14_NEW)
    return (Case(worked, (ex.FIG14_PAST, ex.FIG14_NEW)), Case(N_("P = 0, 3 new (no cache)"), (0, 3)),
            Case(N_("P = 5, 1 new (one decode step)"), (5, 1)), Case("P = 2, 4 new", (2, 4)), Case("P = 1, 1 new", (1, 1)))


def _local_indices(past, new):
    return np.arange(past + new)[None, :] <= np.arange(new)[:, None]


def _square(past, new):
    return np.tril(np.ones((new, new), dtype=bool))


def _one_ahead(past, new):
    return np.arange(past + new)[None, :] <= past + np.arange(new)[:, None] + 1


def _diagonal_hidden(past, new):
    return np.arange(past + new)[None, :] < past + np.arange(new)[:, None]


CACHE_MASK = Exercise(
    "cache_mask", 5, N_("the KV-cache mask for P cached positions"), _CACHE_STUB, att.cache_mask, (att.cache_mask,),
    (Field("mask", "M", ("r", "j"), "bool"),), _cache_cases,
    (Mistake(N_("the cache mask built from local indices"), N_("you compared key j with the local row r (j <= r) "
             "instead of the query's absolute position past + r, so new queries lose the cached keys."),
             _local_indices),
     Mistake(N_("the square causal mask reused"), N_("you returned the [new, new] causal mask; with a cache the "
             "columns are all past + new keys, cached ones first."), _square),
     Mistake(N_("the diagonal hidden"), N_("your query at position past + r does not see its own key "
             "(j < past + r); a position sees itself."), _diagonal_hidden),
     Mistake(N_("one future key visible"), N_("your query at position past + r sees the key after it "
             "(j <= past + r + 1), a position it must predict, not read."), _one_ahead)),
    figure=lambda case, expected, got: _cache_figure(case, expected, got),
    teaching=cache_mask,
)


def _cache_figure(case: Case, expected: dict, got: dict):
    """Figure 14's mask, the book's beside the reader's, with the cells the reader's mask
    wrongly hides hatched."""
    from ..figures import Drawn, FigureDisplay
    from ..figures.attention_mask import draw_cache_mask
    from ..figures.draw import add_heading, new_canvas
    from ..lessons.attention import CacheMasks

    past, new = case.args
    book = np.asarray(expected["mask"], dtype=bool)
    yours = np.asarray(got["mask"])
    if yours.shape != book.shape or yours.dtype != np.bool_:
        raise ValueError("the reader's mask cannot be drawn in the book's grid")
    trace = CacheMasks(past, new, book, yours)
    width = 2.0 + (past + new) * 0.46 + 0.6
    fig, ax = new_canvas(2 * width, 2.2 + new * 0.46)
    for x0, title, wrong in ((2.0, "The book's mask (the engine)", False), (width + 2.0, "Your mask", True)):
        add_heading(ax, x0 - 1.8, 0.3, title)
        draw_cache_mask(ax, trace, wrong=wrong, at=(x0, 1.6))
    hidden = [(int(r), int(j)) for r, j in np.argwhere(trace.dropped)]
    alt = _("Figure 14's mask for P = {past} cached positions and {new} new queries, the engine's beside yours; "
            "{verdict}").format(past=past, new=new, verdict=_("yours hides the visible cells (r, j) {cells}.").format(
                cells=hidden) if hidden else _("yours hides no visible cell."))
    return FigureDisplay(Drawn(0, _("Your cache mask beside the book's"), fig, alt, trace=trace),
                         caption=_("Your cache mask beside the book's (figure 14)"))

EXERCISES = (CAUSAL_MASK, MASKED_ATTENTION, CACHE_MASK)
