"""Figures 3 and 4: IDs become rows of the embedding, and rows flow through one layer.

* Figure 3 follows one entry from the ID tensor ``s`` through a row of ``E`` into
  ``X``; :func:`update_lookup` moves the followed cell for the cell-picker widget.
* Figure 4 is one pre-norm decoder layer drawn from its trace, with the shape of
  every intermediate.

The output side of the chapter, logits to the next ID and the tied matrix's two
gradient paths (figures 5 and 6), is in :mod:`tokenpath.figures.embedding_head`; the
names the temperature widget reads (``update_sampling``, ``describe_sampling``) can be
read from this module too, as :mod:`tokenpath.widgets.embedding` reads them.

Colours keep their book-wide meaning (:mod:`tokenpath.figures.style`); the canvas
helpers (inch units, y downwards) are those of :mod:`tokenpath.figures.draw`.
"""

from __future__ import annotations

import numpy as np
from matplotlib.artist import Artist
from matplotlib.patches import Rectangle

from .. import examples as ex
from ..lessons import embedding as lessons
from .. import fmt
from ..decoder import LayerTrace
from ..lessons.embedding import LookupTrace
from . import Drawn, register, style
from ..i18n import _
from .draw import (
    ACCENT_FACE,
    CACHE_FACE,
    LABEL_SIZE,
    MINUS,
    NOTE_SIZE,
    QUERY_FACE,
    SMALL_SIZE,
    VALUE_FACE,
    VISIBLE_FACE,
    add_arrow,
    add_cell,
    add_heading,
    add_outline,
    add_text,
    check_ax,
    check_trace,
    figure_title,
    new_canvas,
    num_text,
    vec_text,
)

__all__ = [
    "build_fig03",
    "build_fig04",
    "describe_lookup",
    "draw_layer",
    "draw_lookup",
    "update_lookup",
]


def _shape(shape) -> str:
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def _e(x) -> str:
    """An entry of E or X as the figure writes it: one decimal, a real minus sign."""
    return fmt.num(x, 1, minus=MINUS)


# =========================================================================== fig 3

#: Figure-3 geometry in inches: ID cells, E cells, X cells and the grids' corners.
_F3 = dict(
    s_at=(0.75, 0.95), s_cell=(0.46, 0.36),
    e_at=(3.05, 0.95), e_cell=(0.46, 0.21),
    x_at=((0.7, 3.7), (3.95, 3.7)), x_cell=(0.36, 0.22),
    caption_y=4.85, same_y=5.12, height=5.32,
)


def _e_row_slot(trace: LookupTrace, row: int) -> int:
    """Where table row ``row`` is drawn: rows 0 … n−1, then an ellipsis, then the last."""
    n = ex.FIG3_ROWS_SHOWN
    if row < n:
        return row
    if row == trace.table.shape[0] - 1:
        return n + 1
    raise ValueError(f"row {row} of E is not drawn (rows 0–{n - 1} and the last are)")


def update_lookup(art: dict, trace: LookupTrace) -> None:
    """Move figure 3's highlights to ``trace.cell`` (in place)."""
    trace = check_trace(trace, LookupTrace)
    g = _F3
    b, t, f = trace.cell
    row = trace.row_id
    sx, sy = g["s_at"]
    sw, sh = g["s_cell"]
    ex_, ey = g["e_at"]
    ew, eh = g["e_cell"]
    xw, xh = g["x_cell"]
    gx, gy = g["x_at"][b]
    d = trace.table.shape[1]
    slot = _e_row_slot(trace, row)
    pad = 0.02
    art["focus.s"].set_bounds(sx + t * sw - pad, sy + b * sh - pad, sw + 2 * pad, sh + 2 * pad)
    art["focus.E.row"].set_bounds(ex_ - 0.015, ey + slot * eh - 0.015, d * ew + 0.03, eh + 0.03)
    art["focus.E.cell"].set_bounds(ex_ + f * ew, ey + slot * eh, ew, eh)
    art["focus.X.row"].set_bounds(gx - 0.015, gy + t * xh - 0.015, d * xw + 0.03, xh + 0.03)
    art["focus.X.cell"].set_bounds(gx + f * xw, gy + t * xh, xw, xh)
    art["focus.arrow.read"].set_positions((sx + (t + 1) * sw, sy + (b + 0.5) * sh),
                                          (ex_ - 0.42, ey + (slot + 0.5) * eh))
    art["focus.arrow.copy"].set_positions((ex_ + d * ew / 2, ey + (ex.FIG3_ROWS_SHOWN + 2) * eh + 0.05),
                                          (gx + d * xw / 2, gy - 0.32))
    same = {(int(p), int(q)) for p, q in trace.same_id}
    for (p, q) in np.ndindex(*trace.ids.shape):
        art[f"s.same[{p},{q}]"].set_visible((p, q) in same and (p, q) != (b, t))
        art[f"X.same[{p},{q}]"].set_visible((p, q) in same and (p, q) != (b, t))
    art["focus.caption"].set_text(
        f"s[{b},{t}] = {row} → X[{b},{t},:] = E[{row},:],  X[{b},{t},{f}] = E[{row},{f}] = {num_text(trace.value)}"
    )


def draw_lookup(ax, trace: LookupTrace) -> dict[str, Artist]:
    """The three grids of figure 3 (``s``, ``E``, ``X[0]`` and ``X[1]``) and the
    highlights of the followed cell; returns the artists, the moving ones under
    ``focus.*`` and ``s.same[b,t]``/``X.same[b,t]`` (dashed marks on the other
    positions that hold the followed ID)."""
    ax = check_ax(ax)
    trace = check_trace(trace, LookupTrace)
    g = _F3
    art: dict[str, Artist] = {}
    s, e, x = trace.ids, trace.table, trace.x
    n_b, n_t = s.shape
    v, d = e.shape

    # --- s [B, T] --------------------------------------------------------------
    sx, sy = g["s_at"]
    sw, sh = g["s_cell"]
    art["s.heading"] = add_heading(ax, 0.1, 0.22, f"IDs s {_shape(s.shape)}")
    add_text(ax, 0.1, 0.5, "row = sequence b, column = position t", size=SMALL_SIZE, color="#333333")
    for t in range(n_t):
        add_text(ax, sx + (t + 0.5) * sw, sy - 0.1, f"t={t}", ha="center", va="bottom", size=LABEL_SIZE)
    for b in range(n_b):
        add_text(ax, sx - 0.08, sy + (b + 0.5) * sh, f"b={b}", ha="right", size=LABEL_SIZE)
        for t in range(n_t):
            add_cell(ax, sx + t * sw, sy + b * sh, sw, sh, str(int(s[b, t])), size=11)
            # marks a position holding the followed ID (moved by update_lookup)
            same = Rectangle((sx + t * sw + 0.035, sy + b * sh + 0.035), sw - 0.07, sh - 0.07,
                             facecolor="none", edgecolor=style.QUERY, linewidth=1.3,
                             linestyle=(0, (3, 2)), zorder=6)
            ax.add_patch(same)
            art[f"s.same[{b},{t}]"] = same
    add_text(ax, 0.1, sy + n_b * sh + 0.32,
             f"sequence 0 = \"{ex.TEXT}\", sequence 1 = \"{ex.SECOND_TEXT}\"\n"
             f"(teaching IDs a=3, b=7, c=2)", size=SMALL_SIZE, linespacing=1.35)

    # --- E [V, d] ----------------------------------------------------------------
    ex_, ey = g["e_at"]
    ew, eh = g["e_cell"]
    n_rows = ex.FIG3_ROWS_SHOWN
    art["E.heading"] = add_heading(ax, ex_ - 0.55, 0.22, f"Embedding E {_shape(e.shape)} (parameters)")
    add_text(ax, ex_ - 0.55, 0.5, "row = ID, column = feature f; one table for both sequences",
             size=SMALL_SIZE, color="#333333")
    for f in range(d):
        add_text(ax, ex_ + (f + 0.5) * ew, ey - 0.08, f"f={f}", ha="center", va="bottom", size=SMALL_SIZE)
    rows = list(range(n_rows)) + [None, v - 1]
    for slot, row in enumerate(rows):
        y = ey + slot * eh
        if row is None:
            add_text(ax, ex_ - 0.1, y + eh / 2, "⋮", ha="right", size=LABEL_SIZE)
            add_text(ax, ex_ + d * ew / 2, y + eh / 2, "⋮", ha="center", size=LABEL_SIZE)
            continue
        add_text(ax, ex_ - 0.1, y + eh / 2, str(row), ha="right", size=SMALL_SIZE)
        for f in range(d):
            add_cell(ax, ex_ + f * ew, y, ew, eh, _e(e[row, f]), size=SMALL_SIZE, lw=0.5)

    # --- X [B, T, d], one grid per sequence -----------------------------------------
    xw, xh = g["x_cell"]
    art["X.heading"] = ax.text(0.1, 2.8, f"Looked-up rows\nX = E[s] {_shape(x.shape)}\n(activations)",
                               fontsize=11, weight="bold", va="center", linespacing=1.25)
    for b in range(n_b):
        gx, gy = g["x_at"][b]
        add_text(ax, gx + d * xw / 2, gy - 0.12, f"X[{b}]: sequence {b}, row = position t",
                 ha="center", va="bottom", size=SMALL_SIZE)
        for t in range(n_t):
            add_text(ax, gx - 0.08, gy + (t + 0.5) * xh, f"t={t}", ha="right", size=SMALL_SIZE)
            for f in range(d):
                add_cell(ax, gx + f * xw, gy + t * xh, xw, xh, _e(x[b, t, f]), size=SMALL_SIZE - 0.5, lw=0.5)
            same = Rectangle((gx - 0.02, gy + t * xh + 0.02), d * xw + 0.04, xh - 0.04, facecolor="none",
                             edgecolor=style.QUERY, linewidth=1.3, linestyle=(0, (3, 2)), zorder=6)
            ax.add_patch(same)
            art[f"X.same[{b},{t}]"] = same

    # --- the followed cell -------------------------------------------------------------
    art["focus.s"] = add_outline(ax, 0, 0, sw, sh, lw=2.6, pad=0.02, zorder=7)
    art["focus.E.row"] = add_outline(ax, 0, 0, d * ew, eh, color=style.VISIBLE, lw=2.0, pad=0.015, zorder=7)
    art["focus.E.cell"] = add_outline(ax, 0, 0, ew, eh, lw=2.4, pad=0.0, zorder=8)
    art["focus.X.row"] = add_outline(ax, 0, 0, d * xw, xh, color=style.VISIBLE, lw=2.0, pad=0.015, zorder=7)
    art["focus.X.cell"] = add_outline(ax, 0, 0, xw, xh, lw=2.4, pad=0.0, zorder=8)
    art["focus.arrow.read"] = add_arrow(ax, (0, 0), (1, 1), color=style.VISIBLE, lw=1.8, mutation=14,
                                        zorder=7, rad=-0.15)
    art["focus.arrow.copy"] = add_arrow(ax, (0, 0), (1, 1), color=style.VISIBLE, lw=1.8, mutation=14,
                                        zorder=7, rad=0.0)
    art["focus.caption"] = add_text(ax, 0.1, g["caption_y"], "", size=NOTE_SIZE, zorder=7)
    art["same.note"] = add_text(ax, 0.1, g["same_y"], "dashed: every other position holding the same ID "
                                "starts from the same row", size=NOTE_SIZE, color="#333333")
    update_lookup(art, trace)
    return art


def describe_lookup(trace: LookupTrace) -> str:
    """Figure 3's followed cell in words, every number from ``trace``.

    >>> print(describe_lookup(lessons.lookup_trace((0, 2, 0))))
    s[0,2] = 3, so X[0,2,:] = E[3,:] = [0.2, −0.1, 0.4, 0, −0.1, 0.3, −0.3, −0.1] and X[0,2,0] = E[3,0] = 0.2. ID 3 also sits at positions (0, 0), (1, 2) of the batch: those positions start from the same row.
    """
    trace = check_trace(trace, LookupTrace)
    b, t, f = trace.cell
    row = trace.row_id
    others = [f"({p}, {q})" for p, q in trace.same_id.tolist() if (p, q) != (b, t)]
    tail = (_("ID {row} also sits at positions {others} of the batch: those positions "
              "start from the same row.").format(row=row, others=", ".join(others)) if others else
            _("ID {row} appears nowhere else in the batch.").format(row=row))
    return _("s[{b},{t}] = {row}, so X[{b},{t},:] = E[{row},:] = {vector} "
             "and X[{b},{t},{f}] = E[{row},{f}] = {value}. {tail}").format(
        b=b, t=t, f=f, row=row, vector=vec_text(trace.table[row]), value=num_text(trace.value), tail=tail)


@register(3, "From IDs to rows of the embedding")
def build_fig03() -> Drawn:
    trace = lessons.lookup_trace(ex.FIG3_CELL)
    fig, ax = new_canvas(style.WIDTH, _F3["height"])
    art = draw_lookup(ax, trace)
    b, t, f = trace.cell
    alt = _("The ID tensor s {s_shape} = {ids}, the embedding E {e_shape} (rows 0–{last_shown} and {last_row} "
            "drawn) and the looked-up X {x_shape}. {lookup} Both sequences read the same table.").format(
        s_shape=_shape(trace.ids.shape), ids=fmt.mat(trace.ids), e_shape=_shape(trace.table.shape),
        last_shown=ex.FIG3_ROWS_SHOWN - 1, last_row=trace.table.shape[0] - 1, x_shape=_shape(trace.x.shape),
        lookup=describe_lookup(trace))
    return Drawn(3, figure_title(3), fig, alt, art, trace)


# =========================================================================== fig 4


def draw_layer(ax, trace: LayerTrace) -> dict[str, Artist]:
    """One pre-norm decoder layer as a column of steps, each labelled with the shape of
    what it produces (from ``trace.shapes()``); the blue bypass keeps X for the first
    add, the orange bypass keeps Y for the second; RoPE turns Q and K, not U."""
    ax = check_ax(ax)
    trace = check_trace(trace, LayerTrace)
    sh = trace.shapes()
    art: dict[str, Artist] = {}
    cx, bw, bh = 3.0, 2.7, 0.42  # centre of the main column, box width and height
    shape_x = 5.05
    gap = 0.2  # between one box and the next
    tops: dict[str, float] = {}

    def down(y0, y1):
        return add_arrow(ax, (cx, y0), (cx, y1), lw=1.2, mutation=10)

    def column(y, rows):
        """Boxes top to bottom, an arrow into each but the first, the shape of each
        result beside it; returns the y below the last box."""
        for k, (name, text, key, label, face, edge) in enumerate(rows):
            if k:
                down(y, y + gap)
                y += gap
            tops[name] = y
            art[name] = add_cell(ax, cx - bw / 2, y, bw, bh, text, face=face, edge=edge, size=NOTE_SIZE)[1]
            art[f"shape.{name}"] = add_text(ax, shape_x, y + bh / 2, f"{label} {_shape(sh[key])}", size=NOTE_SIZE)
            y += bh
        return y

    white, ink = "white", style.INK
    y = column(0.4, [
        ("X", "X  (residual stream)", "x", "X", CACHE_FACE, ink),
        ("norm1", "RMSNorm(X)", "attn_in", "RMSNorm(X)", white, ink),
    ])
    # Q, K, U projections side by side; RoPE under Q and K only
    down(y, y + gap)
    y_proj = y + gap
    qw = 0.82
    xs = [cx - bw / 2 + qw / 2 + k * (bw - qw) / 2 for k in range(3)]
    for xk, (name, label, face) in zip(xs, (("Q", "Q = ·W_Q", white), ("K", "K = ·W_K", white),
                                            ("U", "U = ·W_V", VALUE_FACE))):
        art[f"proj.{name}"] = add_cell(ax, xk - qw / 2, y_proj, qw, bh, label, face=face, size=SMALL_SIZE)[1]
    art["shape.qkv"] = add_text(ax, shape_x, y_proj + bh / 2, f"Q, K, U {_shape(sh['q'])}", size=NOTE_SIZE)
    art["shape.qkv_axes"] = add_text(ax, shape_x, y_proj + bh / 2 + 0.24, "= [B, H, T, d_h]", size=SMALL_SIZE,
                                     color="#333333")
    y_rope = y_proj + bh + gap
    art["rope"] = add_cell(ax, cx - bw / 2, y_rope, (bw - qw) / 2 + qw, bh, "RoPE turns Q and K", face=ACCENT_FACE,
                           edge=style.ACCENT, size=SMALL_SIZE)[1]
    art["rope.not_U"] = add_text(ax, xs[2] + 0.2, y_rope + bh / 2, "U: no\nrotation", ha="left", size=SMALL_SIZE,
                                 color=style.VALUE, linespacing=1.1)
    art["shape.rope"] = add_text(ax, shape_x, y_rope + bh / 2, f"rotated Q, K {_shape(sh['q_rot'])}", size=NOTE_SIZE)
    for xk in xs[:2]:  # Q and K go through RoPE; U goes straight to attention
        add_arrow(ax, (xk, y_proj + bh), (xk, y_rope), lw=1.2, mutation=10)
    y = y_rope + bh
    down(y, y + gap)
    art["value.path"] = add_arrow(ax, (xs[2], y_proj + bh), (xs[2] - 0.05, y + gap), color=style.VALUE, lw=1.4,
                                  mutation=10, rad=-0.25)
    column(y + gap, [
        ("attn", "causal softmax over sources, then · U", "weights", "weights", white, ink),
        ("merge", "concatenate heads, then · W_O", "attn_out", "attention update", white, ink),
        ("Y", "Y = X + attention update", "y", "Y", VISIBLE_FACE, style.VISIBLE),
        ("norm2", "RMSNorm(Y)", "ffn_in", "RMSNorm(Y)", white, ink),
        ("swiglu", "SiLU(·W_gate) ⊙ (·W_up)", "ffn_hidden", "FFN hidden", white, ink),
        ("down", "· W_down", "ffn_out", "FFN update", white, ink),
        ("Xp", "X′ = Y + FFN update", "out", "X′", QUERY_FACE, style.QUERY),
    ])
    art["shape.attn"].set_y(tops["attn"] + bh / 2 - 0.1)
    art["shape.heads"] = add_text(ax, shape_x, tops["attn"] + bh / 2 + 0.17,
                                  f"per-head output {_shape(sh['heads_out'])}", size=NOTE_SIZE)
    y_x, y_add1, y_y, y_add2 = tops["X"], tops["Y"], tops["Y"], tops["Xp"]

    # the two bypasses, left of the column
    left = cx - bw / 2
    for name, y0, y1, xo, color, label in (
        ("bypass1", y_x, y_add1, left - 0.35, style.VISIBLE, "keeps X"),
        ("bypass2", y_y, y_add2, left - 0.75, style.QUERY, "keeps Y, not X"),
    ):
        y_from, y_to = y0 + 0.7 * bh, y1 + 0.3 * bh
        pts = [(left, y_from), (xo, y_from), (xo, y_to)]
        art[name] = ax.plot(*zip(*pts), color=color, lw=2.2, solid_capstyle="butt", zorder=1)[0]
        art[f"{name}.arrow"] = add_arrow(ax, (xo, y_to), (left, y_to), color=color, lw=2.2, mutation=12)
        art[f"{name}.label"] = add_text(ax, xo - 0.08, (y0 + y1) / 2 + bh / 2, label, ha="right", size=SMALL_SIZE,
                                        color=color, rotation=90, va="center")
    art["note.attn"] = add_text(ax, 0.1, y_add1 - 1.6, "attention:\nmixes\npositions", size=SMALL_SIZE,
                                color="#333333", linespacing=1.2)
    art["note.ffn"] = add_text(ax, 0.1, y_add2 - 1.3, "FFN: each\nposition\non its own", size=SMALL_SIZE,
                               color="#333333", linespacing=1.2)
    art["shape.heading"] = add_text(ax, shape_x, 0.18, "shape of the result", size=NOTE_SIZE, weight="bold")
    return art


@register(4, "One pre-norm decoder layer")
def build_fig04() -> Drawn:
    trace = lessons.layer_trace()
    fig, ax = new_canvas(style.WIDTH, 7.05)
    art = draw_layer(ax, trace)
    sh = trace.shapes()
    alt = _("One pre-norm decoder layer, top to bottom: X {x} → RMSNorm → projections "
            "Q, K, U {q} (B, H, T, d_h) → RoPE on Q and K only, U not rotated → causal "
            "attention, weights {weights} → concatenate heads and W_O → Y = X + update "
            "{y} (blue bypass keeps X) → RMSNorm → SwiGLU hidden {hidden} → "
            "W_down → X′ = Y + update {out} (orange bypass keeps Y). X, Y and X′ all have "
            "shape {out}.").format(x=_shape(sh["x"]), q=_shape(sh["q"]), weights=_shape(sh["weights"]),
                                   y=_shape(sh["y"]), hidden=_shape(sh["ffn_hidden"]), out=_shape(sh["out"]))
    return Drawn(4, figure_title(4), fig, alt, art, trace)
