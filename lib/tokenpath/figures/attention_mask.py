"""Figures 7, 13 and 14: what the causal mask lets a query read.

* Figure 7 follows one query: value paths rise from every visible source and the path
  from a future source stops at the mask.
* Figure 13 sets the two rules side by side: the shift decides which token each
  position predicts, the mask decides whom each query reads, and generation appends
  one token per step.
* Figure 14 is the mask of a block of new queries against a KV cache: local query
  rows, absolute key columns, and what comparing the wrong indices drops.

The scores, weights and weighted sums of one head are figures 8–10, in
:mod:`tokenpath.figures.attention`. Every figure here is laid out on one "canvas" axes
whose data units are inches (y grows downwards; the canvas, cells, arrows and faces
come from :mod:`.draw`, which every chapter's figures share). Each ``draw_*`` helper
takes that ``Axes`` plus a trace, draws at a given position and returns the artists it
made, keyed by name (``"M[1,0]"``, ``"vis[2]"`` …).

Colours keep their book-wide meaning (see :mod:`tokenpath.figures.style`): blue =
visible source, vermilion = mask / −∞, orange = the query row the text follows,
green = value content, sky blue = cached history.
"""

from __future__ import annotations

from matplotlib.artist import Artist

from .. import examples as ex
from .. import fmt
from ..fmt import subscript
from ..i18n import _
from ..lessons.attention import CacheMasks, ReadPaths, ShiftVsMask, cache_masks, read_paths, shift_vs_mask
from . import Drawn, register, style
from .draw import (ACCENT_FACE, BLOCKED_FACE, CACHE_FACE, CELL_SIZE, DROPPED_HATCH, LABEL_SIZE,
                   NEG_INF, NOTE_SIZE, QUERY_FACE, SMALL_SIZE, SUM_FACE, VALUE_FACE, VISIBLE_FACE,
                   add_arrow, add_axis_labels, add_cell, add_heading, add_outline, add_swatch,
                   add_text, check_at, check_ax, check_trace, figure_title, index_text, new_canvas)

__all__ = [
    "build_fig07",
    "build_fig13",
    "build_fig14",
    "draw_cache_mask",
    "draw_generation",
    "draw_read_paths",
    "draw_shift",
    "draw_visibility",
]


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
    art["query.label"] = add_text(ax, qx, y_q + 0.19, f"query i = {index_text(q)} (receiving)", ha="center",
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
        art[f"id[{j}]"] = add_text(ax, cx, y_tok + 0.48, f"ID {index_text(trace.ids[j])}", ha="center",
                                   size=SMALL_SIZE + 0.5,
                                   color=style.INK if row[j] else style.NEUTRAL)
        art[f"pos[{j}]"] = add_text(ax, cx, y_tok + bh + 0.16, index_text(j), ha="center", size=LABEL_SIZE)
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
                                     f"mask: j > {index_text(q)}\nscore {NEG_INF}, weight 0",
                                     size=NOTE_SIZE, color=style.BLOCKED, linespacing=1.35)
    art["paths.label"] = add_text(ax, centers[0] - 0.45, y_q + 0.95, "value paths\n(content, not gradients)",
                                  size=SMALL_SIZE + 0.5, color=style.VALUE, va="center")

    # visibility row, aligned with the tokens
    y_vis = y_tok + bh + 0.5
    for j in range(t):
        art[f"vis[{j}]"] = add_cell(ax, centers[j] - 0.25, y_vis, 0.5, 0.36, fmt.num(int(row[j])),
                                    face=VISIBLE_FACE if row[j] else BLOCKED_FACE)[1]
    art["vis.label"] = add_text(ax, centers[0] - 0.45, y_vis + 0.18,
                                f"visible to i = {index_text(q)}\ncausal_mask({index_text(t)})[{index_text(q)}]", ha="right",
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
    positions = ", ".join(index_text(j) for j in seen)
    alt = _('Four positions of "{text}" (IDs {ids}): query position {query} receives value paths from '
            "positions {positions}; the path from position {hidden} stops at a red mask line. Visibility row "
            "for i = {query}: {row}.").format(
        text=trace.text, ids=fmt.vec(trace.ids), query=index_text(trace.query), positions=positions,
        hidden=", ".join(index_text(j) for j in hidden), row=fmt.vec(trace.row))
    return Drawn(7, figure_title(7), fig, alt, art, trace)

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
        art[f"t[{t}]"] = add_text(ax, x0 + (t + 0.5) * w, y_x - 0.13, f"t = {index_text(t)}", ha="center",
                                  va="bottom", size=LABEL_SIZE)
        art[f"x[{t}]"] = add_cell(ax, x0 + t * w, y_x, w, h, index_text(trace.inputs[t]), face="white")[1]
        art[f"y[{t}]"] = add_cell(ax, x0 + t * w, y_y, w, h, index_text(trace.targets[t]),
                                  face=ACCENT_FACE)[1]
        art[f"loss[{t}]"] = add_cell(ax, x0 + t * w, y_l, w, h, index_text(trace.loss_mask[t]),
                                     face=SUM_FACE)[1]
    for t in range(t_len):
        src = (x0 + (t + 1.5) * w, y_x + h + 0.03)
        dst = (x0 + (t + 0.5) * w, y_y - 0.03)
        art[f"shift[{t}]"] = add_arrow(ax, src, dst, color=style.ACCENT, lw=1.8, mutation=13,
                                       ls="-" if t + 1 < t_len else (0, (3, 2)))
    art["eos.tag"] = add_cell(ax, x0 + t_len * w + 0.06, y_x + 0.04, w - 0.12, h - 0.08,
                              "EOS" if eos is None else f"EOS {index_text(eos)}", face="white",
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
    art = add_axis_labels(ax, x0, y0, w, h, rows=n, cols=n,
                       row_labels=[f"t = {index_text(t)}" for t in range(n)],
                       col_labels=[f"x[{index_text(j)}]" for j in range(n)],
                       row_title="query t (reads)", col_title="key j (source)", name="M")
    for i in range(n):
        for j in range(n):
            vis = bool(m[i, j])
            art[f"M[{i},{j}]"] = add_cell(ax, x0 + j * w, y0 + i * h, w, h, index_text(int(vis)),
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
        art[f"prefix[{k}]"] = add_cell(ax, x0 + k * w, y0, w, h, index_text(v), face="white")[1]
    art["prefix.label"] = add_text(ax, x0 + trace.prefix.size * w + 0.1, y0 + h / 2, "known so far",
                                   size=SMALL_SIZE + 0.5)
    y1 = y0 + h + 0.75
    mid_x = x0 + (trace.prefix.size - 0.5) * w
    art["step.arrow"] = add_arrow(ax, (mid_x, y0 + h + 0.06), (mid_x + 0.5 * w, y1 - 0.06), lw=1.5)
    art["step.label"] = add_text(ax, mid_x + 0.5 * w + 0.15, y0 + h + 0.37,
                                 f"sample {index_text(trace.sampled)} from the\nlast row's distribution",
                                 size=SMALL_SIZE + 0.5)
    for k, v in enumerate(trace.generated):
        new = k == trace.generated.size - 1
        art[f"gen[{k}]"] = add_cell(ax, x0 + k * w, y1, w, h, index_text(v),
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
        f"column t = {index_text(c)}:\ninput x[{index_text(c)}] = {index_text(x[c])}\ntarget y[{index_text(c)}] = {index_text(y[c])},\n"
        "used only by the loss", size=NOTE_SIZE, linespacing=1.35)

    art["head.mask"] = add_heading(ax, 0.15, 3.42, "Rule 2 · mask: whom each query reads")
    my = 4.12
    art.update(draw_visibility(ax, trace, at=(1.3, my)))
    after = x[c + 1] if c + 1 < x.size else None
    reads = (f"row t = {index_text(c)} reads x[0:{index_text(c + 1)}] = {fmt.vec(trace.reads)}"
             + (f", not x[{index_text(c + 1)}] = {index_text(after)}" if after is not None else ""))
    art["note.reads"] = add_text(ax, 0.15, my + x.size * 0.38 + 0.27, reads, size=NOTE_SIZE)

    gen_x = 4.1
    art["head.gen"] = add_heading(ax, gen_x - 0.15, 3.42, "Generation: one token per step")
    art.update(draw_generation(ax, trace, at=(gen_x, my)))
    not_after = (_(", not x[{next}] = {after}").format(next=index_text(c + 1), after=index_text(after))
                 if after is not None else "")
    alt = _("Input x = {x} and targets y = {y} (x shifted left, EOS {eos} appended); column t = {t} has "
            "x[{t}] = {x_t} and target y[{t}] = {y_t} and reads x[0:{next}] = {reads}{not_after}; loss mask "
            "{loss_mask}; the {n}×{n} attention visibility is lower-triangular. Generating from {prefix} and "
            "sampling {sampled} gives {generated}.").format(
        x=fmt.vec(x), y=fmt.vec(y), eos=index_text(y[-1]), t=index_text(c), x_t=index_text(x[c]),
        y_t=index_text(y[c]), next=index_text(c + 1), reads=fmt.vec(trace.reads), not_after=not_after,
        loss_mask=fmt.vec(trace.loss_mask), n=index_text(x.size), prefix=fmt.vec(trace.prefix),
        sampled=index_text(trace.sampled), generated=fmt.vec(trace.generated))
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
        art["band.cache"] = add_cell(ax, x0, band_y, p * w, band_h, f"cached (P = {index_text(p)})",
                                     face=CACHE_FACE, edge=style.CACHE, size=SMALL_SIZE + 0.5)[1]
    art["band.block"] = add_cell(ax, x0 + p * w, band_y, (k - p) * w, band_h, "this block",
                                 face=QUERY_FACE, edge=style.QUERY, size=SMALL_SIZE + 0.5)[1]
    for j in range(k):
        art[f"col[{j}]"] = add_text(ax, x0 + (j + 0.5) * w, y0 - 0.1, index_text(j), ha="center",
                                    va="bottom", size=LABEL_SIZE)
    for r in range(n):
        lab = f"r = {index_text(r)}" + (f" (i = {index_text(p + r)})" if row_positions else "")
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
        return f"{index_text(js[0])}–{index_text(js[-1])}"
    return ", ".join(index_text(j) for j in js)


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
            lines.append(f"row {index_text(r)} reads keys {_ranges(seen)}, blocks key {_ranges(hidden)}")
        else:
            lines.append(f"row {index_text(r)} reads all {index_text(k)} keys")
    lines.append(f"mask shape {fmt.vec(m.shape)}: 0 = read, {NEG_INF} = blocked")
    art["note.right"] = add_text(ax, 0.15, ny, "\n".join(lines), va="top", size=NOTE_SIZE,
                                 linespacing=1.4)
    dropped = int(trace.dropped.sum())
    art["note.wrong"] = add_swatch(ax, rx - 0.65, ny + 0.14,
                                   f"{index_text(dropped)} cells wrongly dropped: the local row\n"
                                   "index is not the absolute position", face=BLOCKED_FACE,
                                   edge=style.BLOCKED, hatch="///", hatchcolor=DROPPED_HATCH,
                                   lw=1.6)[1]
    wrong_rows = _("; ").join(_("row {row} keeps {keys}").format(
        row=index_text(r), keys=fmt.vec([j for j in range(k) if trace.wrong[r, j]])) for r in range(n))
    rows_read = []
    for r in range(n):
        seen = [j for j in range(k) if m[r, j]]
        hidden = [j for j in range(k) if not m[r, j]]
        rows_read.append(_("row {row} reads keys {seen}, blocks key {hidden}").format(
            row=index_text(r), seen=_ranges(seen), hidden=_ranges(hidden)) if hidden else
            _("row {row} reads all {keys} keys").format(row=index_text(r), keys=index_text(k)))
    cached = int(trace.dropped[:, :p].sum())  # dropped cells whose key is in the cache
    own = int(sum(trace.dropped[r, p + r] for r in range(n)))  # a row's own key, the diagonal j = P + r
    earlier = index_text(int(trace.dropped.sum()) - cached - own)  # keys of earlier rows of this block
    alt = _("KV cache with P = {p} cached positions and {n} new query rows r = {rows} at absolute positions "
            "{positions}; keys 0–{last}. The mask has shape {shape}: {reads}. Comparing the local row index with "
            "the key index instead ({wrong_rows}) wrongly drops {dropped} cells: {cached} of cached keys, "
            "{earlier} of an earlier new row's key and {own} of the rows' own keys.").format(
        p=index_text(p), n=index_text(n), rows=", ".join(index_text(r) for r in range(n)),
        positions=", ".join(index_text(p + r) for r in range(n)), last=index_text(k - 1), shape=fmt.vec(m.shape),
        reads=_("; ").join(rows_read), wrong_rows=wrong_rows, dropped=index_text(dropped), cached=index_text(cached),
        earlier=earlier, own=index_text(own))
    return Drawn(14, figure_title(14), fig, alt, art, trace)
