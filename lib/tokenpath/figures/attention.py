"""Figures 7–10, 13 and 14: causal attention followed by hand.

Every figure here is laid out on one "canvas" axes whose data units are inches (y grows
downwards; the canvas, cells, arrows and faces come from :mod:`.draw`, which every
chapter's figures share). Each ``draw_*`` helper takes that ``Axes`` plus a trace, draws
at a given position and returns the artists it made, keyed by name (``"S[1,0]"``,
``"A.colsum[0]"`` …), so a widget can update a number in place.

Colours keep their book-wide meaning (see :mod:`tokenpath.figures.style`): blue =
visible source, vermilion = mask / −∞, orange = the query row the text follows,
green = value content, sky blue = cached history.
"""

from __future__ import annotations


import numpy as np
from matplotlib.artist import Artist

from .. import attention as att
from .. import examples as ex
from ..lessons.attention import (
    CacheMasks,
    ReadPaths,
    ShiftVsMask,
    TwoSources,
    cache_masks,
    read_paths,
    shift_vs_mask,
    two_sources,
)
from .. import fmt
from ..fmt import subscript
from . import Drawn, register, style
from .draw import (
    ACCENT_FACE,
    BLOCKED_FACE,
    CACHE_FACE,
    CELL_SIZE,
    DROPPED_HATCH,
    HEAD_SIZE,
    LABEL_SIZE,
    MINUS,
    NEG_INF,
    NOTE_SIZE,
    QUERY_FACE,
    SMALL_SIZE,
    SUM_FACE,
    VALUE_FACE,
    VISIBLE_FACE,
    add_arrow,
    add_cell,
    add_heading,
    add_outline,
    add_swatch,
    add_text,
    check_at,
    check_ax,
    check_trace,
    figure_title,
    new_canvas,
    tint,
)

__all__ = [
    "build_fig07",
    "build_fig08",
    "build_fig09",
    "build_fig10",
    "build_fig13",
    "build_fig14",
    "draw_cache_mask",
    "draw_generation",
    "draw_output_matrix",
    "draw_read_paths",
    "draw_scores",
    "draw_shift",
    "draw_two_sources",
    "draw_visibility",
    "draw_weighted_sum",
    "draw_weights",
]


# ------------------------------------------------------------------ text helpers


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


def _i(n) -> str:
    """An index as the figure writes it (plain integer)."""
    return fmt.num(int(n))


# ------------------------------------------------- attention-only formatting and checks


def _check_2d(trace: att.AttentionTrace) -> att.AttentionTrace:
    if trace.weights.ndim != 2:
        raise ValueError(
            f"trace must hold one head ([T_q, T_k] weights), got weights of shape {trace.weights.shape}"
        )
    return trace


def _axis_labels(ax, x0, y0, w, h, *, rows: int, cols: int, row_labels, col_labels,
                 row_title: str | None, col_title: str | None, name: str) -> dict[str, Artist]:
    """Indices beside a grid plus the two axis titles."""
    art: dict[str, Artist] = {}
    for j, lab in enumerate(col_labels):
        art[f"{name}.col[{j}]"] = add_text(ax, x0 + (j + 0.5) * w, y0 - 0.13, lab, ha="center",
                                           va="bottom", size=LABEL_SIZE)
    for i, lab in enumerate(row_labels):
        art[f"{name}.row[{i}]"] = add_text(ax, x0 - 0.1, y0 + (i + 0.5) * h, lab, ha="right",
                                           size=LABEL_SIZE)
    if col_title:
        art[f"{name}.col_title"] = add_text(ax, x0 + cols * w / 2, y0 - 0.42, col_title,
                                            ha="center", va="bottom", size=LABEL_SIZE,
                                            style="italic")
    if row_title:
        art[f"{name}.row_title"] = add_text(ax, x0 - 0.62, y0 + rows * h / 2, row_title,
                                            ha="center", size=LABEL_SIZE, rotation=90,
                                            style="italic")
    return art


# =========================================================================== fig 7


def draw_read_paths(ax, trace: ReadPaths, *, at=(0.0, 0.0), pitch: float = 1.3) -> dict[str, Artist]:
    """Tokens along the bottom, the followed query above; value paths from every visible
    source rise to the query, the path from a hidden source stops at a red mask line.
    The visibility row ``mask[query]`` sits under the tokens, column-aligned."""
    ax = check_ax(ax)
    trace = check_trace(trace, ReadPaths)
    x0, y0 = check_at(at)
    art: dict[str, Artist] = {}
    t = trace.ids.size
    q = trace.query
    row = trace.row
    bw, bh = 0.78, 0.62  # token box
    uw, uh = 0.17, 0.2  # one value cell
    n_feat = 3  # drawn value cells: a sketch of "a vector", not its numbers
    centers = [x0 + 0.5 * pitch + j * pitch for j in range(t)]
    y_tok = y0 + 1.95
    y_q = y0 + 0.12

    # query box (receiving position) with its output cells
    qx = centers[q]
    art["query"] = add_cell(ax, qx - 0.9, y_q, 1.8, 0.62, "", face=QUERY_FACE, edge=style.QUERY,
                            lw=1.6)[0]
    art["query.label"] = add_text(ax, qx, y_q + 0.19, f"query i = {_i(q)} (receiving)", ha="center",
                                  size=NOTE_SIZE, weight="bold")
    ox = qx - n_feat * uw / 2
    for f in range(n_feat):
        add_cell(ax, ox + f * uw, y_q + 0.33, uw, 0.18, face=VALUE_FACE, edge=style.VALUE, lw=0.8)
    art["query.output"] = add_text(ax, ox - 0.08, y_q + 0.42, "o" + subscript(q), ha="right",
                                   size=NOTE_SIZE)

    # tokens (sources), each with a sketched value vector
    for j in range(t):
        cx = centers[j]
        face = VISIBLE_FACE if row[j] else "white"
        edge = style.VISIBLE if row[j] else style.NEUTRAL
        art[f"token[{j}]"] = add_cell(ax, cx - bw / 2, y_tok, bw, bh, "", face=face, edge=edge,
                                      lw=1.2)[0]
        art[f"char[{j}]"] = add_text(ax, cx, y_tok + 0.22, trace.text[j], ha="center", size=14,
                                     weight="bold", color=style.INK if row[j] else style.NEUTRAL)
        art[f"id[{j}]"] = add_text(ax, cx, y_tok + 0.48, f"ID {_i(trace.ids[j])}", ha="center",
                                   size=SMALL_SIZE + 0.5,
                                   color=style.INK if row[j] else style.NEUTRAL)
        art[f"pos[{j}]"] = add_text(ax, cx, y_tok + bh + 0.16, _i(j), ha="center", size=LABEL_SIZE)
        vx = cx - n_feat * uw / 2
        vy = y_tok - uh - 0.06
        for f in range(n_feat):
            add_cell(ax, vx + f * uw, vy, uw, uh,
                     face=VALUE_FACE if row[j] else style.LIGHT,
                     edge=style.VALUE if row[j] else style.NEUTRAL, lw=0.8)
        art[f"value[{j}]"] = add_text(ax, vx + n_feat * uw + 0.06, vy + uh / 2, "u" + subscript(j),
                                      size=NOTE_SIZE, color=style.INK if row[j] else style.NEUTRAL)

    # paths: visible sources reach the query; hidden ones stop at the mask line
    top_of_values = y_tok - uh - 0.08
    q_bottom = y_q + 0.64
    hidden = [j for j in range(t) if not row[j]]
    wall_x = (centers[q] + centers[q + 1]) / 2 if q + 1 < t else None
    for j in range(t):
        start = (centers[j], top_of_values)
        end = (qx + (j - q) * 0.32, q_bottom)
        if row[j]:
            art[f"path[{j}]"] = add_arrow(ax, start, end, color=style.VALUE, lw=2.2,
                                          rad=0.0 if j == q else (0.12 if j < q else -0.12),
                                          mutation=16)
        else:
            # stop just beyond the mask line
            sx, sy = start
            ex_, ey = end
            stop_x = wall_x + 0.07
            frac_ = (sx - stop_x) / (sx - ex_)
            stop = (stop_x, sy + (ey - sy) * frac_)
            art[f"path[{j}]"] = add_arrow(ax, start, stop, color=style.NEUTRAL, lw=2.0, style_="-",
                                          ls=(0, (4, 2.5)))
    if hidden and wall_x is not None:
        art["mask.line"] = ax.plot([wall_x, wall_x], [y_q + 0.72, top_of_values + 0.08],
                                   color=style.BLOCKED, lw=3.2, solid_capstyle="butt", zorder=5)[0]
        art["mask.label"] = add_text(ax, qx + 1.0, y_q + 0.31,
                                     f"mask: j > {_i(q)}\nscore {NEG_INF}, weight 0",
                                     size=NOTE_SIZE, color=style.BLOCKED, linespacing=1.35)
    art["paths.label"] = add_text(ax, centers[0] - 0.45, y_q + 0.95, "value paths\n(content, not gradients)",
                                  size=SMALL_SIZE + 0.5, color=style.VALUE, va="center")

    # visibility row, aligned with the tokens
    y_vis = y_tok + bh + 0.5
    for j in range(t):
        art[f"vis[{j}]"] = add_cell(ax, centers[j] - 0.25, y_vis, 0.5, 0.36, fmt.num(int(row[j])),
                                    face=VISIBLE_FACE if row[j] else BLOCKED_FACE)[1]
    art["vis.label"] = add_text(ax, centers[0] - 0.45, y_vis + 0.18,
                                f"visible to i = {_i(q)}\ncausal_mask({_i(t)})[{_i(q)}]", ha="right",
                                size=NOTE_SIZE, linespacing=1.3)
    art["pos.label"] = add_text(ax, centers[0] - 0.45, y_tok + bh + 0.16, "key j (source)",
                                ha="right", size=NOTE_SIZE, style="italic")
    art["tokens.label"] = add_text(ax, centers[0] - 0.45, y_tok + bh / 2, "token", ha="right",
                                   size=NOTE_SIZE)
    return art


@register(7, "Reading values through the causal mask")
def build_fig07() -> Drawn:
    trace = read_paths(ex.TEXT, ex.FIG7_RECEIVER)
    fig, ax = new_canvas(style.WIDTH, 3.55)
    art = draw_read_paths(ax, trace, at=(1.575, 0.05), pitch=1.25)
    seen = [j for j in range(trace.ids.size) if trace.row[j]]
    hidden = [j for j in range(trace.ids.size) if not trace.row[j]]
    positions = ", ".join(_i(j) for j in seen)
    alt = (
        f'Four positions of "{trace.text}" (IDs {fmt.vec(trace.ids)}): query position '
        f"{_i(trace.query)} receives value paths from positions {positions}; the path from "
        f"position {', '.join(_i(j) for j in hidden)} stops at a red mask line. Visibility row "
        f"for i = {_i(trace.query)}: {fmt.vec(trace.row)}."
    )
    return Drawn(7, figure_title(7), fig, alt, art, trace)


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
    art = _axis_labels(ax, x0, y0, w, h, rows=tq, cols=tk,
                       row_labels=[f"i = {_i(i)}" for i in range(tq)],
                       col_labels=[f"j = {_i(j)}" for j in range(tk)],
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
    art = _axis_labels(ax, x0, y0, w, h, rows=tq, cols=tk,
                       row_labels=[f"i = {_i(i)}" for i in range(tq)],
                       col_labels=[f"j = {_i(j)}" for j in range(tk)],
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
                                   f"Scaled scores S = QKᵀ/√{_i(d_h)}, future keys masked")
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
                                        f"S[{_i(fi)},{_i(fj)}] = {s_f} is visible:\n"
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
    coincidence = (f"\nsum 1 in column j = {_i(ones[0])} is a coincidence" if ones else "")
    art["A.note.cols"] = add_text(ax, gx + tk * cell[0] + 0.2, ay + tq * cell[1] + 0.22 + cell[1] / 2,
                                  "columns are not normalised;" + coincidence, size=NOTE_SIZE)
    alt = (
        f"Scaled scores S = {_fmt_scores(trace)} with future cells masked to {NEG_INF}"
        + (f" (S[{_i(focus[0])},{_i(focus[1])}] = {_score(trace.scores[focus])} is "
           f"visible, exp = {_exp(trace.exp_scores[focus])})" if focus else "")
        + f"; softmax along each row gives A = {fmt.mat(a, fractions=True)}; rows sum to "
        f"{_same_or_list(a.sum(axis=-1))}; column sums {fmt.vec(a.sum(axis=-2), fractions=True)}."
    )
    return Drawn(8, figure_title(8), fig, alt, art, trace)


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
        art[f"src[{j}]"] = add_text(ax, x0 + 0.4, y + h / 2, f"j = {_i(j)}", ha="right",
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
    art = _axis_labels(ax, x0, y0, w, h, rows=tq, cols=d_v,
                       row_labels=[f"i = {_i(i)}" for i in range(tq)],
                       col_labels=[_i(f) for f in range(d_v)],
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
                                      f"Row i = {_i(row)}: weight × value, summed over j")
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
    alt = (
        f"Output row {_i(row)} as weights times value rows summed over sources: o{subscript(row)} = "
        f"{terms} = {parts} = {fmt.vec(trace.output[row], fractions=True)}. The whole output is "
        f"O = {fmt.mat(trace.output, fractions=True)}, shape {shape}."
    )
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
        art[f"head[{j}]"] = add_text(ax, cx[j] + col / 2, y0, f"source j = {_i(j)}", ha="center",
                                     size=LABEL_SIZE, weight="bold")
    art["head.sum"] = add_text(ax, sx + 0.4, y0, "sum over j", ha="center", size=LABEL_SIZE,
                               weight="bold")
    expo = t.exp_scores[0]
    rows = [
        ("key", "key kⱼ", [fmt.vec(t.key[j]) for j in range(k)], "white", None, h),
        ("score", f"scaled score q·kⱼ/√{_i(d_h)}",
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
                               f"weights rounded to\n{_i(digits)} decimals first", size=SMALL_SIZE + 0.5)
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
    alt = (
        f"Query q = {fmt.vec(t.query[0])} against keys {fmt.vec(t.key[0])} and "
        f"{fmt.vec(t.key[1])}: scaled scores {fmt.vec(t.scores[0], 4, bare_ints=True)}, exp ≈ "
        f"{fmt.vec(t.exp_scores[0], digits, bare_ints=True)}, weights ≈ {fmt.vec(t.weights[0], digits)} "
        f"(full precision {fmt.vec(t.weights[0], full)}); with values {fmt.vec(t.value[0])} and "
        f"{fmt.vec(t.value[1])} the output is {fmt.vec(trace.rounded_output[0], digits)} from "
        f"the rounded weights and ≈ {fmt.vec(t.output[0], full)} at full precision."
    )
    return Drawn(10, figure_title(10), fig, alt, art, trace)


# ========================================================================== fig 13


def draw_shift(ax, trace: ShiftVsMask, *, at=(0.0, 0.0), cell=(0.62, 0.44),
               eos: int | None = None) -> dict[str, Artist]:
    """Rule 1: input row ``x``, target row ``y`` with diagonal arrows ``x[t+1] → y[t]``
    (the last target is EOS), and the loss mask; the followed column is outlined."""
    ax = check_ax(ax)
    trace = check_trace(trace, ShiftVsMask)
    x0, y0 = check_at(at)
    w, h = cell
    t_len = trace.inputs.size
    c = trace.column
    art: dict[str, Artist] = {}
    y_x, y_y, y_l = y0, y0 + h + 0.5, y0 + 2 * h + 0.5 + 0.22
    for t in range(t_len):
        art[f"t[{t}]"] = add_text(ax, x0 + (t + 0.5) * w, y_x - 0.13, f"t = {_i(t)}", ha="center",
                                  va="bottom", size=LABEL_SIZE)
        art[f"x[{t}]"] = add_cell(ax, x0 + t * w, y_x, w, h, _i(trace.inputs[t]), face="white")[1]
        art[f"y[{t}]"] = add_cell(ax, x0 + t * w, y_y, w, h, _i(trace.targets[t]),
                                  face=ACCENT_FACE)[1]
        art[f"loss[{t}]"] = add_cell(ax, x0 + t * w, y_l, w, h, _i(trace.loss_mask[t]),
                                     face=SUM_FACE)[1]
    for t in range(t_len):
        src = (x0 + (t + 1.5) * w, y_x + h + 0.03)
        dst = (x0 + (t + 0.5) * w, y_y - 0.03)
        art[f"shift[{t}]"] = add_arrow(ax, src, dst, color=style.ACCENT, lw=1.8, mutation=13,
                                       ls="-" if t + 1 < t_len else (0, (3, 2)))
    art["eos.tag"] = add_cell(ax, x0 + t_len * w + 0.06, y_x + 0.04, w - 0.12, h - 0.08,
                              "EOS" if eos is None else f"EOS {_i(eos)}", face="white",
                              edge=style.ACCENT, size=SMALL_SIZE + 0.5, color=style.ACCENT)[1]
    art["eos.tag.note"] = add_text(ax, x0 + (t_len + 0.5) * w, y_x - 0.13, "appended",
                                   ha="center", va="bottom", size=SMALL_SIZE, color=style.ACCENT)
    labels = (("input x", y_x), ("target y\n(x shifted left)", y_y),
              ("loss mask\n(targets that count)", y_l))
    for k, (lab, yy) in enumerate(labels):
        art[f"label[{k}]"] = add_text(ax, x0 - 0.12, yy + h / 2, lab, ha="right", size=NOTE_SIZE,
                                      linespacing=1.25)
    art["column.outline"] = add_outline(ax, x0 + c * w, y_x, w, y_l + h - y_x)
    return art


def draw_visibility(ax, trace: ShiftVsMask, *, at=(0.0, 0.0), cell=(0.5, 0.38)) -> dict[str, Artist]:
    """Rule 2: the ``[T, T]`` causal visibility (1 = query ``t`` reads key ``j``), row
    ``column`` outlined; keys are labelled with their input IDs."""
    ax = check_ax(ax)
    trace = check_trace(trace, ShiftVsMask)
    x0, y0 = check_at(at)
    w, h = cell
    m = trace.visibility
    n = m.shape[0]
    art = _axis_labels(ax, x0, y0, w, h, rows=n, cols=n,
                       row_labels=[f"t = {_i(t)}" for t in range(n)],
                       col_labels=[f"x[{_i(j)}]" for j in range(n)],
                       row_title="query t (reads)", col_title="key j (source)", name="M")
    for i in range(n):
        for j in range(n):
            vis = bool(m[i, j])
            art[f"M[{i},{j}]"] = add_cell(ax, x0 + j * w, y0 + i * h, w, h, _i(int(vis)),
                                          face=VISIBLE_FACE if vis else BLOCKED_FACE)[1]
    art["M.outline"] = add_outline(ax, x0, y0 + trace.column * h, n * w, h)
    return art


def draw_generation(ax, trace: ShiftVsMask, *, at=(0.0, 0.0), cell=(0.42, 0.4)) -> dict[str, Artist]:
    """One generation step: the prefix, the sampled ID, the longer sequence."""
    ax = check_ax(ax)
    trace = check_trace(trace, ShiftVsMask)
    x0, y0 = check_at(at)
    w, h = cell
    art: dict[str, Artist] = {}
    for k, v in enumerate(trace.prefix):
        art[f"prefix[{k}]"] = add_cell(ax, x0 + k * w, y0, w, h, _i(v), face="white")[1]
    art["prefix.label"] = add_text(ax, x0 + trace.prefix.size * w + 0.1, y0 + h / 2, "known so far",
                                   size=SMALL_SIZE + 0.5)
    y1 = y0 + h + 0.75
    mid_x = x0 + (trace.prefix.size - 0.5) * w
    art["step.arrow"] = add_arrow(ax, (mid_x, y0 + h + 0.06), (mid_x + 0.5 * w, y1 - 0.06), lw=1.5)
    art["step.label"] = add_text(ax, mid_x + 0.5 * w + 0.15, y0 + h + 0.37,
                                 f"sample {_i(trace.sampled)} from the\nlast row's distribution",
                                 size=SMALL_SIZE + 0.5)
    for k, v in enumerate(trace.generated):
        new = k == trace.generated.size - 1
        art[f"gen[{k}]"] = add_cell(ax, x0 + k * w, y1, w, h, _i(v),
                                    face=ACCENT_FACE if new else "white",
                                    weight="bold" if new else "normal")[1]
    art["gen.label"] = add_text(ax, x0 + trace.generated.size * w + 0.1, y1 + h / 2, "appended",
                                size=SMALL_SIZE + 0.5)
    return art


@register(13, "Shift decides whom to predict; the mask decides whom to read")
def build_fig13() -> Drawn:
    trace = shift_vs_mask(ex.TEXT, eos=ex.EOS, column=ex.FIG13_COLUMN, sampled=ex.FIG13_SAMPLED)
    x, y, c = trace.inputs, trace.targets, trace.column
    fig, ax = new_canvas(style.WIDTH, 6.0)
    art: dict[str, Artist] = {}
    gx = 1.75
    art["head.shift"] = add_heading(ax, 0.15, 0.22, "Rule 1 · shift: which token each position predicts")
    art.update(draw_shift(ax, trace, at=(gx, 0.82)))
    nx = gx + (x.size + 1) * 0.62 + 0.35
    art["note.column"] = add_text(
        ax, nx, 1.75,
        f"column t = {_i(c)}:\ninput x[{_i(c)}] = {_i(x[c])}\ntarget y[{_i(c)}] = {_i(y[c])},\n"
        "used only by the loss", size=NOTE_SIZE, linespacing=1.35)

    art["head.mask"] = add_heading(ax, 0.15, 3.42, "Rule 2 · mask: whom each query reads")
    my = 4.12
    art.update(draw_visibility(ax, trace, at=(1.3, my)))
    after = x[c + 1] if c + 1 < x.size else None
    reads = (f"row t = {_i(c)} reads x[0:{_i(c + 1)}] = {fmt.vec(trace.reads)}"
             + (f", not x[{_i(c + 1)}] = {_i(after)}" if after is not None else ""))
    art["note.reads"] = add_text(ax, 0.15, my + x.size * 0.38 + 0.27, reads, size=NOTE_SIZE)

    gen_x = 4.1
    art["head.gen"] = add_heading(ax, gen_x - 0.15, 3.42, "Generation: one token per step")
    art.update(draw_generation(ax, trace, at=(gen_x, my)))
    alt = (
        f"Input x = {fmt.vec(x)} and targets y = {fmt.vec(y)} (x shifted left, EOS "
        f"{_i(y[-1])} appended); column t = {_i(c)} has x[{_i(c)}] = {_i(x[c])} and target "
        f"y[{_i(c)}] = {_i(y[c])} and reads x[0:{_i(c + 1)}] = {fmt.vec(trace.reads)}"
        + (f", not x[{_i(c + 1)}] = {_i(after)}" if after is not None else "")
        + f"; loss mask {fmt.vec(trace.loss_mask)}; the {_i(x.size)}×{_i(x.size)} attention "
        f"visibility is lower-triangular. Generating from {fmt.vec(trace.prefix)} and sampling "
        f"{_i(trace.sampled)} gives {fmt.vec(trace.generated)}."
    )
    return Drawn(13, figure_title(13), fig, alt, art, trace)


# ========================================================================== fig 14


def draw_cache_mask(ax, trace: CacheMasks, *, wrong: bool = False, at=(0.0, 0.0),
                    cell=(0.46, 0.46), row_positions: bool = True) -> dict[str, Artist]:
    """The additive ``[new, past + new]`` mask (0 = read, −∞ = blocked) with a band that
    tells cached keys from this block's keys. With ``wrong=True`` it draws the
    misaligned mask and hatches the cells it wrongly drops."""
    ax = check_ax(ax)
    trace = check_trace(trace, CacheMasks)
    x0, y0 = check_at(at)
    w, h = cell
    m = trace.wrong if wrong else trace.mask
    n, k = m.shape
    p = trace.past
    art: dict[str, Artist] = {}
    band_y, band_h = y0 - 0.95, 0.26
    if p:
        art["band.cache"] = add_cell(ax, x0, band_y, p * w, band_h, f"cached (P = {_i(p)})",
                                     face=CACHE_FACE, edge=style.CACHE, size=SMALL_SIZE + 0.5)[1]
    art["band.block"] = add_cell(ax, x0 + p * w, band_y, (k - p) * w, band_h, "this block",
                                 face=QUERY_FACE, edge=style.QUERY, size=SMALL_SIZE + 0.5)[1]
    for j in range(k):
        art[f"col[{j}]"] = add_text(ax, x0 + (j + 0.5) * w, y0 - 0.1, _i(j), ha="center",
                                    va="bottom", size=LABEL_SIZE)
    for r in range(n):
        lab = f"r = {_i(r)}" + (f" (i = {_i(p + r)})" if row_positions else "")
        art[f"row[{r}]"] = add_text(ax, x0 - 0.1, y0 + (r + 0.5) * h, lab, ha="right",
                                    size=LABEL_SIZE)
    zero = fmt.num(0.0)
    for r in range(n):
        for j in range(k):
            vis = bool(m[r, j])
            bad = wrong and bool(trace.dropped[r, j])
            rect, txt = add_cell(ax, x0 + j * w, y0 + r * h, w, h, zero if vis else NEG_INF,
                                 face=VISIBLE_FACE if vis else BLOCKED_FACE,
                                 edge=style.BLOCKED if bad else style.INK, lw=1.6 if bad else 0.8,
                                 hatch="///" if bad else None, hatchcolor=DROPPED_HATCH,
                                 size=CELL_SIZE - 1)
            art[f"cell[{r},{j}]"] = rect
            art[f"M[{r},{j}]"] = txt
    if p:
        art["boundary"] = ax.plot([x0 + p * w] * 2, [y0 - 0.3, y0 + n * h + 0.08], color=style.INK,
                                  lw=1.2, ls=(0, (3, 2)), zorder=5)[0]
    return art


def _ranges(js) -> str:
    """``[0, 1, 2, 3]`` → ``"0–3"``; a single key → ``"4"``."""
    js = list(js)
    if not js:
        return "none"
    if len(js) > 1 and js == list(range(js[0], js[-1] + 1)):
        return f"{_i(js[0])}–{_i(js[-1])}"
    return ", ".join(_i(j) for j in js)


@register(14, "KV cache: local query rows, absolute key columns")
def build_fig14() -> Drawn:
    trace = cache_masks(ex.FIG14_PAST, ex.FIG14_NEW)
    m, p = trace.mask, trace.past
    n, k = m.shape
    fig, ax = new_canvas(style.WIDTH, 3.3)
    art: dict[str, Artist] = {}
    lx, rx, gy = 1.3, 4.55, 1.45
    art["head.right"] = add_heading(ax, 0.15, 0.2, "Correct: row r is position i = P + r")
    art["head.wrong"] = add_heading(ax, rx - 0.65, 0.2, "Wrong: row r compared with key j")
    for key, val in draw_cache_mask(ax, trace, at=(lx, gy)).items():
        art[f"right.{key}"] = val
    for key, val in draw_cache_mask(ax, trace, wrong=True, at=(rx, gy),
                                    row_positions=False).items():
        art[f"wrong.{key}"] = val
    art["keys.title"] = add_text(ax, lx + k * 0.46 / 2, gy - 0.5, "key j (absolute position)",
                                 ha="center", size=LABEL_SIZE, style="italic")
    art["keys.title.wrong"] = add_text(ax, rx + k * 0.46 / 2, gy - 0.5, "key j (absolute position)",
                                       ha="center", size=LABEL_SIZE, style="italic")
    ny = gy + n * 0.46 + 0.3
    lines = []
    for r in range(n):
        seen = [j for j in range(k) if m[r, j]]
        hidden = [j for j in range(k) if not m[r, j]]
        if hidden:
            lines.append(f"row {_i(r)} reads keys {_ranges(seen)}, blocks key {_ranges(hidden)}")
        else:
            lines.append(f"row {_i(r)} reads all {_i(k)} keys")
    lines.append(f"mask shape {fmt.vec(m.shape)}: 0 = read, {NEG_INF} = blocked")
    art["note.right"] = add_text(ax, 0.15, ny, "\n".join(lines), va="top", size=NOTE_SIZE,
                                 linespacing=1.4)
    dropped = int(trace.dropped.sum())
    art["note.wrong"] = add_swatch(ax, rx - 0.65, ny + 0.14,
                                   f"{_i(dropped)} cells wrongly dropped: the local row\n"
                                   "index is not the absolute position", face=BLOCKED_FACE,
                                   edge=style.BLOCKED, hatch="///", hatchcolor=DROPPED_HATCH,
                                   lw=1.6)[1]
    wrong_rows = "; ".join(
        f"row {_i(r)} keeps {fmt.vec([j for j in range(k) if trace.wrong[r, j]])}" for r in range(n))
    alt = (
        f"KV cache with P = {_i(p)} cached positions and {_i(n)} new query rows r = "
        f"{', '.join(_i(r) for r in range(n))} at absolute positions "
        f"{', '.join(_i(p + r) for r in range(n))}; keys 0–{_i(k - 1)}. The mask has shape "
        f"{fmt.vec(m.shape)}: " + "; ".join(lines[:n]) + ". Comparing the local row index with "
        f"the key index instead ({wrong_rows}) wrongly drops {_i(dropped)} cells of history."
    )
    return Drawn(14, figure_title(14), fig, alt, art, trace)
