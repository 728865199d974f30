"""Figures 8–10: one head of causal attention followed by hand.

* Figure 8: the scaled scores with the mask, then the weights as fractions, with
  their row and column sums.
* Figure 9: one output row as weights times value rows, summed over sources, beside
  the whole output ``O = AU``.
* Figure 10: one query against two sources, score → exp → weight → value, with the
  output from rounded weights and at full precision.

What the mask lets a query read (figures 7, 13 and 14) is in
:mod:`tokenpath.figures.attention_mask`. Every figure here is laid out on one "canvas"
axes whose data units are inches (y grows downwards; the canvas, cells, arrows and
faces come from :mod:`.draw`, which every chapter's figures share). Each ``draw_*``
helper takes that ``Axes`` plus a trace, draws at a given position and returns the
artists it made, keyed by name (``"S[1,0]"``, ``"A.colsum[0]"`` …), so a widget can
update a number in place.

Colours keep their book-wide meaning (see :mod:`tokenpath.figures.style`): blue =
visible source, vermilion = mask / −∞, orange = the query row the text follows,
green = value content.
"""

from __future__ import annotations

import numpy as np
from matplotlib.artist import Artist

from .. import attention as att
from .. import examples as ex
from .. import fmt
from ..fmt import subscript
from ..i18n import _
from ..lessons.attention import TwoSources, two_sources
from . import Drawn, register, style
from .draw import (BLOCKED_FACE, CELL_SIZE, LABEL_SIZE, MINUS, NEG_INF, NOTE_SIZE, QUERY_FACE,
                   SMALL_SIZE, SUM_FACE, VALUE_FACE, VISIBLE_FACE, add_arrow, add_axis_labels,
                   add_cell, add_heading, add_outline, add_swatch, add_text, check_at, check_ax,
                   check_trace, figure_title, index_text, new_canvas, tint)

__all__ = [
    "build_fig08",
    "build_fig09",
    "build_fig10",
    "draw_output_matrix",
    "draw_scores",
    "draw_two_sources",
    "draw_weighted_sum",
    "draw_weights",
]


# ------------------------------------------------------------------ text and checks


def _score(x, digits: int = 4) -> str:
    """A scaled score as the prose writes it: 4 decimals, exact integers bare."""
    return fmt.num(x, digits, minus=MINUS, bare_ints=True)


def _exp(x, digits: int = 3) -> str:
    """An exponentiated score: an exact fraction when it is one (exp(ln 3) = 3),
    otherwise ``digits`` decimals."""
    try:
        return fmt.frac(x)
    except ValueError:
        return fmt.num(x, digits, bare_ints=True)


def _check_2d(trace: att.AttentionTrace) -> att.AttentionTrace:
    if trace.weights.ndim != 2:
        raise ValueError(
            f"trace must hold one head ([T_q, T_k] weights), got weights of shape {trace.weights.shape}"
        )
    return trace


# =========================================================================== fig 8


def _score_first_zero(trace: att.AttentionTrace) -> tuple[int, int] | None:
    """The first visible off-diagonal cell whose scaled score is exactly 0, if any
    (figure 8's S[1,0]: a zero score is *visible* and has exp = 1)."""
    s = trace.scores
    rows, cols = np.nonzero(trace.mask & (np.abs(s) < 1e-12) & ~np.eye(*s.shape, dtype=bool))
    return (int(rows[0]), int(cols[0])) if rows.size else None


def draw_scores(ax, trace: att.AttentionTrace, *, at=(0.0, 0.0), cell=(0.95, 0.62),
                digits: int = 4, focus=None) -> dict[str, Artist]:
    """The masked, scaled score matrix of one head: each cell shows ``S[i, j]`` and,
    smaller, ``exp`` of it; hidden (future) cells show −∞ and exp 0. Rows are the
    receiving query ``i``, columns the source key ``j``. ``focus=(i, j)`` outlines
    one cell in the query colour."""
    ax = check_ax(ax)
    trace = _check_2d(check_trace(trace, att.AttentionTrace))
    x0, y0 = check_at(at)
    w, h = cell
    tq, tk = trace.scores.shape
    art = add_axis_labels(ax, x0, y0, w, h, rows=tq, cols=tk,
                       row_labels=[f"i = {index_text(i)}" for i in range(tq)],
                       col_labels=[f"j = {index_text(j)}" for j in range(tk)],
                       row_title="query i (receiving)", col_title="key j (source)", name="S")
    shown = trace.masked_scores
    expo = trace.exp_scores
    for i in range(tq):
        for j in range(tk):
            vis = bool(trace.mask[i, j])
            rect, txt = add_cell(ax, x0 + j * w, y0 + i * h, w, h,
                                 _score(shown[i, j], digits) if vis else NEG_INF,
                                 face=VISIBLE_FACE if vis else BLOCKED_FACE, dy=-0.08)
            art[f"S.cell[{i},{j}]"] = rect
            art[f"S[{i},{j}]"] = txt
            art[f"exp[{i},{j}]"] = add_text(ax, x0 + (j + 0.5) * w, y0 + (i + 0.5) * h + 0.17,
                                            f"exp = {_exp(expo[i, j])}", ha="center",
                                            size=SMALL_SIZE, color="#333333")
    if focus is not None:
        fi, fj = focus
        art["S.focus"] = add_outline(ax, x0 + fj * w, y0 + fi * h, w, h, lw=2.6, pad=0.015)
    return art


def draw_weights(ax, trace: att.AttentionTrace, *, at=(0.0, 0.0), cell=(0.95, 0.62),
                 sums: bool = True) -> dict[str, Artist]:
    """The weight matrix ``A`` of one head as exact fractions, shaded by weight; with
    ``sums`` a row-sum column (each 1: softmax ran over sources) and a column-sum
    row (not normalised)."""
    ax = check_ax(ax)
    trace = _check_2d(check_trace(trace, att.AttentionTrace))
    x0, y0 = check_at(at)
    w, h = cell
    a = trace.weights
    tq, tk = a.shape
    art = add_axis_labels(ax, x0, y0, w, h, rows=tq, cols=tk,
                       row_labels=[f"i = {index_text(i)}" for i in range(tq)],
                       col_labels=[f"j = {index_text(j)}" for j in range(tk)],
                       row_title="query i (receiving)", col_title="key j (source)", name="A")
    for i in range(tq):
        for j in range(tk):
            vis = bool(trace.mask[i, j])
            face = tint(style.VISIBLE, 0.85 - 0.45 * float(a[i, j])) if vis else BLOCKED_FACE
            rect, txt = add_cell(ax, x0 + j * w, y0 + i * h, w, h, fmt.frac(a[i, j]), face=face)
            art[f"A.cell[{i},{j}]"] = rect
            art[f"A[{i},{j}]"] = txt
    if sums:
        gap = 0.22
        sx = x0 + tk * w + gap
        art["A.rowsum.title"] = add_text(ax, sx + w / 2, y0 - 0.13, "row sum", ha="center",
                                         va="bottom", size=LABEL_SIZE, weight="bold")
        for i, v in enumerate(a.sum(axis=-1)):
            art[f"A.rowsum[{i}]"] = add_cell(ax, sx, y0 + i * h, w, h, fmt.frac(v), face=SUM_FACE,
                                             weight="bold")[1]
        sy = y0 + tq * h + gap
        art["A.colsum.title"] = add_text(ax, x0 - 0.1, sy + h / 2, "column sum", ha="right",
                                         size=LABEL_SIZE, weight="bold")
        for j, v in enumerate(a.sum(axis=-2)):
            art[f"A.colsum[{j}]"] = add_cell(ax, x0 + j * w, sy, w, h, fmt.frac(v), face=SUM_FACE,
                                             weight="bold")[1]
    return art


def _fig8_trace() -> att.AttentionTrace:
    return att.causal_attention(ex.FIG8_Q, ex.FIG8_K, ex.FIG8_U)


def _fmt_scores(trace: att.AttentionTrace, digits: int = 4) -> str:
    rows = []
    for i in range(trace.scores.shape[0]):
        cells = [_score(trace.scores[i, j], digits) if trace.mask[i, j] else NEG_INF
                 for j in range(trace.scores.shape[1])]
        rows.append("[" + ", ".join(cells) + "]")
    return "[" + ", ".join(rows) + "]"


def _same_or_list(v) -> str:
    v = np.asarray(v)
    if np.allclose(v, v[0]):
        return fmt.frac(v[0])
    return fmt.vec(v, fractions=True)


@register(8, "Scores with the mask, then weights")
def build_fig08() -> Drawn:
    trace = _fig8_trace()
    d_h = trace.query.shape[-1]
    a = trace.weights
    fig, ax = new_canvas(style.WIDTH, 6.3)
    gx, cell = 1.55, (0.9, 0.52)
    tq, tk = a.shape
    focus = _score_first_zero(trace)
    art: dict[str, Artist] = {}

    sy = 0.9
    art["S.heading"] = add_heading(ax, 0.15, 0.2,
                                   f"Scaled scores S = QKᵀ/√{index_text(d_h)}, future keys masked")
    art.update(draw_scores(ax, trace, at=(gx, sy), cell=cell, focus=focus))
    nx = gx + tk * cell[0] + 0.45
    art["S.key.visible"] = add_swatch(ax, nx, sy + 0.22, "visible source j ≤ i:\nscore kept",
                                      face=VISIBLE_FACE)[1]
    art["S.key.blocked"] = add_swatch(ax, nx, sy + 0.78,
                                      f"future source j > i:\n{NEG_INF} → exp = 0, weight 0",
                                      face=BLOCKED_FACE)[1]
    if focus is not None:
        fi, fj = focus
        s_f = _score(trace.scores[fi, fj])
        e_f = _exp(trace.exp_scores[fi, fj])
        art["S.key.focus"] = add_swatch(ax, nx, sy + 1.34,
                                        f"S[{index_text(fi)},{index_text(fj)}] = {s_f} is visible:\n"
                                        f"exp({s_f}) = {e_f}, not hidden",
                                        face="white", edge=style.QUERY, lw=2.4)[1]

    # softmax arrow between the panels
    mid = gx + tk * cell[0] / 2
    top = sy + tq * cell[1]
    art["softmax.arrow"] = add_arrow(ax, (mid, top + 0.1), (mid, top + 0.45), lw=1.6, mutation=14)
    art["softmax.label"] = add_text(ax, mid + 0.15, top + 0.27,
                                    "softmax along each row (over sources j, the last axis)",
                                    size=NOTE_SIZE)

    ay = top + 1.4
    art["A.heading"] = add_heading(ax, 0.15, ay - 0.7, "Weights A = softmax(S), as fractions")
    art.update(draw_weights(ax, trace, at=(gx, ay), cell=cell))
    notes_x = gx + (tk + 1) * cell[0] + 0.22 + 0.18
    art["A.note.rows"] = add_text(ax, notes_x, ay + tq * cell[1] / 2,
                                  f"each row sums to {_same_or_list(a.sum(axis=-1))}:\n"
                                  "normalised over j", size=NOTE_SIZE)
    ones = [j for j, v in enumerate(a.sum(axis=-2)) if abs(v - 1.0) < 1e-12]
    coincidence = (f"\nsum 1 in column j = {index_text(ones[0])} is a coincidence" if ones else "")
    art["A.note.cols"] = add_text(ax, gx + tk * cell[0] + 0.2, ay + tq * cell[1] + 0.22 + cell[1] / 2,
                                  "columns are not normalised;" + coincidence, size=NOTE_SIZE)
    visible = (_(" (S[{i},{j}] = {score} is visible, exp = {exp})").format(
        i=index_text(focus[0]), j=index_text(focus[1]), score=_score(trace.scores[focus]),
        exp=_exp(trace.exp_scores[focus])) if focus else "")
    alt = _("Scaled scores S = {scores} with future cells masked to {neg_inf}{visible}; softmax along each row "
            "gives A = {weights}; rows sum to {row_sums}; column sums {col_sums}.").format(
        scores=_fmt_scores(trace), neg_inf=NEG_INF, visible=visible, weights=fmt.mat(a, fractions=True),
        row_sums=_same_or_list(a.sum(axis=-1)), col_sums=fmt.vec(a.sum(axis=-2), fractions=True))
    return Drawn(8, figure_title(8), fig, alt, art, trace)


# =========================================================================== fig 9


def draw_weighted_sum(ax, trace: att.AttentionTrace, row: int, *, at=(0.0, 0.0),
                      cell=(0.62, 0.46), pitch: float = 0.62) -> dict[str, Artist]:
    """One output row as a hand calculation: for each visible source ``j`` the weight
    ``A[row, j]`` times the value row ``U[j, :]`` gives a contribution; the
    contributions are summed over ``j`` into ``o_row``. Fractions where exact."""
    ax = check_ax(ax)
    trace = _check_2d(check_trace(trace, att.AttentionTrace))
    x0, y0 = check_at(at)
    tq, tk = trace.weights.shape
    if isinstance(row, bool) or not isinstance(row, (int, np.integer)) or not 0 <= row < tq:
        raise ValueError(f"row must be a query index in [0, {tq - 1}], got {row!r}")
    w, h = cell
    d_v = trace.value.shape[-1]
    sources = [j for j in range(tk) if trace.mask[row, j]]
    contrib = trace.contributions[row]
    out = trace.output[row]
    xs_w = x0 + 0.55  # weight column
    xs_u = xs_w + w + 0.45  # value columns
    xs_c = xs_u + d_v * w + 0.45  # contribution columns
    r = subscript(row)
    art: dict[str, Artist] = {}
    art["head.weight"] = add_text(ax, xs_w + w / 2, y0 - 0.18, f"a{r}ⱼ", ha="center",
                                  size=LABEL_SIZE, weight="bold")
    art["head.value"] = add_text(ax, xs_u + d_v * w / 2, y0 - 0.18, "value uⱼ", ha="center",
                                 size=LABEL_SIZE, weight="bold")
    art["head.contrib"] = add_text(ax, xs_c + d_v * w / 2, y0 - 0.18, f"a{r}ⱼ uⱼ", ha="center",
                                   size=LABEL_SIZE, weight="bold")
    for k, j in enumerate(sources):
        y = y0 + k * pitch
        art[f"src[{j}]"] = add_text(ax, x0 + 0.4, y + h / 2, f"j = {index_text(j)}", ha="right",
                                    size=LABEL_SIZE)
        art[f"w[{j}]"] = add_cell(ax, xs_w, y, w, h, fmt.frac(trace.weights[row, j]),
                                  face=VISIBLE_FACE)[1]
        add_text(ax, xs_w + w + 0.225, y + h / 2, "×", ha="center", size=CELL_SIZE)
        for f in range(d_v):
            art[f"u[{j},{f}]"] = add_cell(ax, xs_u + f * w, y, w, h, fmt.frac(trace.value[j, f]),
                                          face=VALUE_FACE)[1]
        add_text(ax, xs_u + d_v * w + 0.225, y + h / 2, "=", ha="center", size=CELL_SIZE)
        for f in range(d_v):
            art[f"c[{j},{f}]"] = add_cell(ax, xs_c + f * w, y, w, h, fmt.frac(contrib[j, f]),
                                          face=VALUE_FACE)[1]
    y_rule = y0 + len(sources) * pitch - (pitch - h) / 2 + 0.02
    art["rule"] = ax.plot([xs_c - 0.05, xs_c + d_v * w + 0.05], [y_rule, y_rule],
                          color=style.INK, lw=1.4)[0]
    y_out = y_rule + 0.14
    art["sum.label"] = add_text(ax, xs_c - 0.12, y_out + h / 2, f"sum over j:  o{r} =", ha="right",
                                size=NOTE_SIZE + 0.5)
    for f in range(d_v):
        art[f"o[{f}]"] = add_cell(ax, xs_c + f * w, y_out, w, h, fmt.frac(out[f]), face=QUERY_FACE,
                                  weight="bold")[1]
    art["o.outline"] = add_outline(ax, xs_c, y_out, d_v * w, h)
    return art


def draw_output_matrix(ax, trace: att.AttentionTrace, *, at=(0.0, 0.0), cell=(0.62, 0.46),
                       highlight: int | None = None) -> dict[str, Artist]:
    """``O = A U`` with rows = query ``i`` and columns = value features, fractions where
    exact; ``highlight`` outlines one row in the query colour."""
    ax = check_ax(ax)
    trace = _check_2d(check_trace(trace, att.AttentionTrace))
    x0, y0 = check_at(at)
    w, h = cell
    o = trace.output
    tq, d_v = o.shape
    art = add_axis_labels(ax, x0, y0, w, h, rows=tq, cols=d_v,
                       row_labels=[f"i = {index_text(i)}" for i in range(tq)],
                       col_labels=[index_text(f) for f in range(d_v)],
                       row_title=None, col_title="feature", name="O")
    for i in range(tq):
        for f in range(d_v):
            face = QUERY_FACE if i == highlight else VALUE_FACE
            art[f"O[{i},{f}]"] = add_cell(ax, x0 + f * w, y0 + i * h, w, h, fmt.frac(o[i, f]),
                                          face=face, weight="bold" if i == highlight else "normal")[1]
    if highlight is not None:
        art["O.outline"] = add_outline(ax, x0, y0 + highlight * h, d_v * w, h)
    return art


@register(9, "Weights times values, summed over sources")
def build_fig09() -> Drawn:
    trace = _fig8_trace()
    row = trace.output.shape[0] - 1  # the text follows the last query row
    fig, ax = new_canvas(style.WIDTH, 3.3)
    art: dict[str, Artist] = {}
    art["heading.left"] = add_heading(ax, 0.15, 0.22,
                                      f"Row i = {index_text(row)}: weight × value, summed over j")
    art.update(draw_weighted_sum(ax, trace, row, at=(0.15, 0.85)))
    ox = 5.35
    shape = fmt.vec(trace.output.shape)
    art["heading.right"] = add_heading(ax, ox - 0.55, 0.22, f"O = AU, shape {shape}")
    art.update(draw_output_matrix(ax, trace, at=(ox, 1.0), highlight=row))
    art["O.note"] = add_text(ax, ox + trace.output.shape[1] * 0.31, 1.0 + 3 * 0.46 + 0.3,
                             "features, not token IDs", ha="center", size=NOTE_SIZE, style="italic")
    terms = " + ".join(
        f"{fmt.frac(trace.weights[row, j])}{fmt.vec(trace.value[j], fractions=True)}"
        for j in range(trace.weights.shape[1]) if trace.mask[row, j])
    parts = " + ".join(fmt.vec(trace.contributions[row, j], fractions=True)
                       for j in range(trace.weights.shape[1]) if trace.mask[row, j])
    alt = _("Output row {row} as weights times value rows summed over sources: o{sub} = {terms} = {parts} = "
            "{out}. The whole output is O = {output}, shape {shape}.").format(
        row=index_text(row), sub=subscript(row), terms=terms, parts=parts,
        out=fmt.vec(trace.output[row], fractions=True), output=fmt.mat(trace.output, fractions=True), shape=shape)
    return Drawn(9, figure_title(9), fig, alt, art, trace)

# ========================================================================== fig 10


def draw_two_sources(ax, trace: TwoSources, *, at=(0.0, 0.0), col: float = 1.45,
                     label_w: float = 2.3) -> dict[str, Artist]:
    """Figure 10's table: one column per source, rows top → bottom = key, scaled score,
    exp, weight, value; the output sits below, first from rounded weights, then at
    full precision."""
    ax = check_ax(ax)
    trace = check_trace(trace, TwoSources)
    x0, y0 = check_at(at)
    t = trace.attention
    k = t.weights.shape[-1]
    d_h = t.query.shape[-1]
    digits = trace.digits
    full = digits + 3
    h, gap = 0.42, 0.14
    cx = [x0 + label_w + j * (col + 0.15) for j in range(k)]
    sx = cx[-1] + col + 0.3  # sum column
    art: dict[str, Artist] = {}
    for j in range(k):
        art[f"head[{j}]"] = add_text(ax, cx[j] + col / 2, y0, f"source j = {index_text(j)}", ha="center",
                                     size=LABEL_SIZE, weight="bold")
    art["head.sum"] = add_text(ax, sx + 0.4, y0, "sum over j", ha="center", size=LABEL_SIZE,
                               weight="bold")
    expo = t.exp_scores[0]
    rows = [
        ("key", "key kⱼ", [fmt.vec(t.key[j]) for j in range(k)], "white", None, h),
        ("score", f"scaled score q·kⱼ/√{index_text(d_h)}",
         [_score(t.scores[0, j]) for j in range(k)], VISIBLE_FACE, None, h),
        ("exp", "exp(score)", [fmt.num(expo[j], digits, bare_ints=True) for j in range(k)],
         VISIBLE_FACE, fmt.num(expo.sum(), digits, bare_ints=True), h),
        ("weight", "weight aⱼ = exp / sum", [fmt.num(t.weights[0, j], digits) for j in range(k)],
         VISIBLE_FACE, fmt.frac(t.weights[0].sum()), h + 0.2),
        ("value", "value uⱼ", [fmt.vec(t.value[j]) for j in range(k)], VALUE_FACE, None, h),
    ]
    y = y0 + 0.25
    for name, label, cells, face, total, rh in rows:
        art[f"{name}.label"] = add_text(ax, cx[0] - 0.15, y + rh / 2, label, ha="right",
                                        size=NOTE_SIZE + 0.5)
        lift = -0.08 if name == "weight" else 0.0
        for j in range(k):
            art[f"{name}[{j}]"] = add_cell(ax, cx[j], y, col, rh, cells[j], face=face, dy=lift)[1]
            if name == "weight":
                art[f"weight.full[{j}]"] = add_text(
                    ax, cx[j] + col / 2, y + rh / 2 + 0.14,
                    f"full precision {fmt.num(t.weights[0, j], full)}", ha="center",
                    size=SMALL_SIZE, color="#333333")
        if total is not None:
            art[f"{name}.sum"] = add_cell(ax, sx, y, 0.8, rh, total, face=SUM_FACE)[1]
        y += rh + gap
    # output
    y += 0.1
    span = cx[-1] + col - cx[0]
    art["out.label"] = add_text(ax, cx[0] - 0.15, y + h / 2, "output o = Σⱼ aⱼuⱼ", ha="right",
                                size=NOTE_SIZE + 0.5, weight="bold")
    art["out"] = add_cell(ax, cx[0], y, span, h, fmt.vec(trace.rounded_output[0], digits),
                          face=QUERY_FACE, weight="bold")[1]
    art["out.outline"] = add_outline(ax, cx[0], y, span, h)
    art["out.note"] = add_text(ax, sx - 0.05, y + h / 2,
                               f"weights rounded to\n{index_text(digits)} decimals first", size=SMALL_SIZE + 0.5)
    art["out.full"] = add_text(ax, cx[0] + span / 2, y + h + 0.22,
                               f"≈ {fmt.vec(t.output[0], full)} at full precision: "
                               "rounding order, not another algorithm",
                               ha="center", size=NOTE_SIZE)
    return art


@register(10, "Two sources: score, exp, weight, value")
def build_fig10() -> Drawn:
    trace = two_sources(ex.FIG10_Q, ex.FIG10_K, ex.FIG10_U, ex.FIG10_DIGITS)
    t = trace.attention
    digits = trace.digits
    full = digits + 3
    fig, ax = new_canvas(style.WIDTH, 4.72)
    art: dict[str, Artist] = {}
    art["heading"] = add_heading(ax, 0.15, 0.22,
                                 f"One query q = {fmt.vec(t.query[0])}, two sources, no projections")
    art.update(draw_two_sources(ax, trace, at=(0.0, 0.62)))
    alt = _("Query q = {q} against keys {k0} and {k1}: scaled scores {scores}, exp ≈ {exp}, weights ≈ "
            "{weights} (full precision {full_weights}); with values {u0} and {u1} the output is {rounded} "
            "from the rounded weights and ≈ {output} at full precision.").format(
        q=fmt.vec(t.query[0]), k0=fmt.vec(t.key[0]), k1=fmt.vec(t.key[1]),
        scores=fmt.vec(t.scores[0], 4, bare_ints=True), exp=fmt.vec(t.exp_scores[0], digits, bare_ints=True),
        weights=fmt.vec(t.weights[0], digits), full_weights=fmt.vec(t.weights[0], full), u0=fmt.vec(t.value[0]),
        u1=fmt.vec(t.value[1]), rounded=fmt.vec(trace.rounded_output[0], digits), output=fmt.vec(t.output[0], full))
    return Drawn(10, figure_title(10), fig, alt, art, trace)
