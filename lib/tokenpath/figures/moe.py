"""Figures 19 and 20: one token routed to the top-k of its experts.

* Figure 19: the router scores the experts stored in a layer; only the chosen ones
  run, and their outputs meet in a gated sum of the token's own width.
* Figure 20: the routing table of one token: scores, the chosen set, the gates
  renormalised inside it (unchosen gates exactly 0), the full-softmax alternative and
  the combined output.

The top-1 boundary (figure 21) is in :mod:`tokenpath.figures.moe_boundary`, a batch
of tokens and what a capacity limit drops (figure 22) in
:mod:`tokenpath.figures.moe_batch`; their widget-facing names (``fig21_trace``,
``update_fig22`` …) can be read from this module too, as the chapter's widgets
(:mod:`tokenpath.widgets.moe`) read them.

Both figures here are laid out on one canvas axes in inch units (y grows downwards),
like the attention figures. Every ``draw_*`` helper takes an ``Axes`` and a trace from
:mod:`tokenpath.moe`, draws, and returns its artists by name; every ``update_*`` moves
those artists to a new trace in place, for the widgets.

Colours keep their book-wide meaning (:mod:`tokenpath.figures.style`): green = content
an expert returns and the paths it flows along, grey = unchosen (stored, not run),
orange = the quantity the text follows.
"""

from __future__ import annotations

import numpy as np
from matplotlib.artist import Artist
from matplotlib.patches import Circle

from .. import examples as ex
from .. import moe
from ..fmt import subscript
from ..i18n import _
from ..lessons import moe as lessons
from . import Drawn, register, style
from .draw import (
    LIGHT_FACE,
    NOTE_SIZE,
    QUERY_FACE,
    SMALL_SIZE,
    SUM_FACE,
    TABLE_SIZE,
    VALUE_FACE,
    add_arrow,
    add_cell,
    add_heading,
    add_text,
    check_at,
    check_ax,
    check_trace,
    figure_title,
    id_set_text,
    new_canvas,
    num_text,
    vec_text,
)

__all__ = [
    "E_MAX",
    "ROUTING_ROWS",
    "build_fig19",
    "build_fig20",
    "describe_routing",
    "draw_dispatch",
    "draw_routing_table",
    "fig20_trace",
    "update_fig20",
    "update_routing_table",
]

#: The most experts the routing table of figure 20 (and its widget) can show.
E_MAX = ex.FIG20_WIDGET_SCORES.size
#: Hatch patterns that tell experts apart: different subnetworks, not proven specialties.
HATCHES = ("////", "\\\\\\\\", "xxx", "...", "++", "ooo")


def _experts(n: int) -> str:
    return f"{n} expert" + ("" if n == 1 else "s")


def fig20_trace(n_experts: int = ex.FIG20_SCORES.size, k: int = ex.FIG20_K) -> moe.MoETrace:
    """Figure 20's routing of one token over its first ``n_experts`` experts: scores
    from :data:`~tokenpath.examples.FIG20_WIDGET_SCORES` (the first four are figure
    20's), top-``k``, in-set gates, outputs from the teaching table.

    >>> fig20_trace().route.chosen.tolist()
    [0, 1]
    """
    n_experts = int(n_experts)
    if not 1 <= n_experts <= E_MAX:
        raise ValueError(f"n_experts must be between 1 and {E_MAX}, got {n_experts}")
    r = moe.route(ex.FIG20_WIDGET_SCORES[:n_experts], k)
    return lessons.combine_table(r, ex.FIG20_WIDGET_OUTPUTS[:n_experts])


# ======================================================================= fig 19


def draw_dispatch(ax, trace: moe.MoETrace, *, at=(0.0, 0.0), d: int = 4) -> dict[str, Artist]:
    """One token ``x``, the router, the experts stacked by ID, the paths of the chosen
    experts (green) to the weighted sum and the output ``o`` of the same width ``d``.
    Unchosen experts are grey and no path passes through them."""
    ax = check_ax(ax)
    trace = check_trace(trace, moe.MoETrace)
    x0, y0 = check_at(at)
    r = trace.route
    n = r.n_experts
    art: dict[str, Artist] = {}
    pitch, eh = 0.66, 0.5
    top = y0 + 0.1
    mid = top + (n * pitch - (pitch - eh)) / 2
    cw = 0.2

    def vector(x, name, label, face, edge):
        for f in range(d):
            add_cell(ax, x, mid - d * cw / 2 + f * cw, cw, cw, face=face, edge=edge, lw=0.8)
        art[name] = add_text(ax, x + cw / 2, mid + d * cw / 2 + 0.2, label, ha="center", size=NOTE_SIZE,
                             linespacing=1.25, va="top")

    vector(x0 + 0.2, "x", f"x\n[d = {d}]", "white", style.INK)
    rx, rw, rh = x0 + 0.8, 1.3, 0.9
    art["router"] = add_cell(ax, rx, mid - rh / 2, rw, rh, "", face=SUM_FACE)[0]
    art["router.label"] = add_text(ax, rx + rw / 2, mid - 0.2, "router", ha="center", size=NOTE_SIZE + 1,
                                   weight="bold")
    art["router.formula"] = add_text(ax, rx + rw / 2, mid + 0.05, "a = x·Wᵣ", ha="center", size=NOTE_SIZE)
    art["router.top"] = add_text(ax, rx + rw / 2, mid + 0.28, f"top-{r.k} of {n}", ha="center",
                                 size=NOTE_SIZE)
    add_arrow(ax, (x0 + 0.2 + cw + 0.05, mid), (rx - 0.03, mid), lw=1.2, mutation=10)
    art["scores"] = add_text(ax, rx + rw / 2, mid + rh / 2 + 0.15, f"a = {vec_text(r.scores)}", ha="center",
                             va="top", size=SMALL_SIZE + 0.5)

    ex_x, ew = x0 + 2.75, 1.45
    sx, sy = x0 + 5.45, mid
    for i in range(n):
        y = top + i * pitch
        on = bool(r.mask[i])
        box = add_cell(ax, ex_x, y, ew, eh, "", face=VALUE_FACE if on else LIGHT_FACE,
                       edge=style.VALUE if on else style.NEUTRAL, lw=1.6 if on else 0.8,
                       hatch=HATCHES[i % len(HATCHES)], hatchcolor="#FFFFFF" if on else "#DADADA")[0]
        art[f"expert[{i}]"] = box
        label = f"expert {i}" + ("" if on else "  (stored, not run)")
        art[f"expert[{i}].label"] = add_text(
            ax, ex_x + 0.1, y + eh / 2, label, size=NOTE_SIZE, weight="bold" if on else "normal",
            color=style.INK if on else style.NEUTRAL,
            bbox=dict(boxstyle="square,pad=0.08", facecolor=VALUE_FACE if on else LIGHT_FACE, edgecolor="none"),
        )
        if on:
            art[f"path.in[{i}]"] = add_arrow(ax, (rx + rw + 0.03, mid), (ex_x - 0.03, y + eh / 2),
                                             color=style.VALUE, lw=2.2, mutation=14)
            art[f"path.out[{i}]"] = add_arrow(ax, (ex_x + ew + 0.03, y + eh / 2), (sx - 0.22, sy),
                                              color=style.VALUE, lw=2.2, mutation=14)
            # the gate sits on its path, a third of the way to the sum
            gx = ex_x + ew + 0.03 + (sx - 0.22 - ex_x - ew) * 0.4
            gy = y + eh / 2 + (sy - y - eh / 2) * 0.4
            art[f"gate[{i}]"] = add_text(ax, gx, gy, f"g{subscript(i)} = {num_text(r.gates[i], 3)}", ha="center",
                                         size=SMALL_SIZE + 0.5, color=style.VALUE, weight="bold", zorder=6,
                                         bbox=dict(boxstyle="round,pad=0.15", facecolor="white",
                                                   edgecolor=style.VALUE, linewidth=0.8))
    art["sum"] = Circle((sx, sy), 0.2, facecolor=SUM_FACE, edgecolor=style.INK, linewidth=1.0, zorder=5)
    ax.add_patch(art["sum"])
    art["sum.label"] = add_text(ax, sx, sy, "Σ", ha="center", size=NOTE_SIZE + 3, zorder=6)
    add_arrow(ax, (sx + 0.22, sy), (x0 + 6.3, sy), lw=1.2, mutation=10)
    vector(x0 + 6.35, "o", f"o\n[d = {d}]\nsame width", QUERY_FACE, style.QUERY)
    return art


@register(19, "Four experts stored, two run for this token")
def build_fig19() -> Drawn:
    trace = fig20_trace()
    r = trace.route
    fig, ax = new_canvas(style.WIDTH, 3.55)
    art: dict[str, Artist] = {}
    art["heading"] = add_heading(ax, 0.15, 0.2,
                                 f"{r.n_experts} experts are stored; this token runs the top {r.k}")
    art.update(draw_dispatch(ax, trace, at=(0.1, 0.42)))
    art["note"] = add_text(ax, 0.15, 3.3,
                           "Patterns tell subnetworks apart; they are not proven specialties "
                           "(no \"code expert\" without evidence).", size=SMALL_SIZE + 0.5, color="#333333")
    chosen = ", ".join(str(int(i)) for i in r.chosen)
    gates = ", ".join(f"g{subscript(i)} = {num_text(r.gates[i], 3)}" for i in r.chosen)
    alt = _(
        "A token vector x enters the router, which scores the E_n = {n} stored experts with a = {scores} and runs "
        "the top {k}: experts {chosen} (green, with solid paths). The other {others} experts are grey: stored but "
        "not run, and no path passes through them. The {k} paths meet at a weighted sum with {gates} and leave "
        "as one output vector o of the same width as x."
    ).format(n=r.n_experts, scores=vec_text(r.scores), k=r.k, chosen=chosen, others=r.n_experts - r.k, gates=gates)
    return Drawn(19, figure_title(19), fig, alt, art, trace)


# ======================================================================= fig 20

#: The rows of figure 20's routing table, as (artist key, label), top to bottom.
ROUTING_ROWS = (
    ("score", "score aᵢ"),
    ("chosen", "in S (top-k)?"),
    ("exp", "exp(aᵢ), i in S"),
    ("gate", "gate gᵢ (in S)"),
    ("prob", "full softmax pᵢ"),
    ("out", "output Fᵢ(x)"),
    ("contrib", "gᵢ·Fᵢ (3-place gᵢ)"),
)


def _table_geometry(at):
    x0, y0 = at
    # cells stand apart (gaps between columns and rows), so a widget can redraw one
    # cell without touching its neighbours
    return dict(label_x=x0 + 1.42, cx=x0 + 1.52, col=0.84, pitch=0.9, y=y0 + 0.32, row=0.44, gap=0.08)


def update_routing_table(artists: dict, trace: moe.MoETrace, *, digits: int = ex.FIG20_DIGITS) -> None:
    """Move :func:`draw_routing_table`'s artists to ``trace`` in place (gates shown to
    ``digits`` places and to ``digits + 3`` at full precision)."""
    trace = check_trace(trace, moe.MoETrace)
    r = trace.route
    n = r.n_experts
    columns = sum(1 for key in artists if key.startswith("head["))
    if n > columns:
        raise ValueError(f"trace has {n} experts, more than the table's {columns} columns")
    rank = {int(i): m for m, i in enumerate(r.chosen)}
    rounded = np.round(r.chosen_gates, digits)
    for j in range(columns):
        shown = j < n
        on = shown and bool(r.mask[j])
        artists[f"head[{j}]"].set_visible(shown)
        for key, _label in ROUTING_ROWS:
            rect, txt = artists[f"{key}.cell[{j}]"], artists[f"{key}[{j}]"]
            rect.set_visible(shown)
            txt.set_visible(shown)
        artists[f"gate.full[{j}]"].set_visible(shown)
        if not shown:
            continue
        face = VALUE_FACE if on else LIGHT_FACE
        colour = style.INK if on else style.NEUTRAL
        cells = {
            "score": (num_text(r.scores[j]), "white", style.INK),
            "chosen": ("yes" if on else "no", face, colour),
            "exp": (num_text(r.exp_scores[j], 3) if on else "not used", face, colour),
            "gate": (num_text(r.gates[j], digits) if on else "0", face, colour),
            "prob": (num_text(r.probs[j], digits), "white", "#333333"),
            "out": (vec_text(trace.expert_outputs[rank[j]]) if on else "not run", face, colour),
            "contrib": (vec_text(rounded[rank[j]] * trace.expert_outputs[rank[j]], digits) if on else "0",
                        face, colour),
        }
        for key, (text, fc, tc) in cells.items():
            artists[f"{key}.cell[{j}]"].set_facecolor(fc)
            artists[f"{key}[{j}]"].set_text(text)
            artists[f"{key}[{j}]"].set_color(tc)
        artists[f"gate.full[{j}]"].set_text(num_text(r.gates[j], digits + 3) if on else "exactly 0")
    out_rounded = lessons.output_from_rounded_gates(trace, digits)
    terms = " + ".join(f"{num_text(g, digits)}·{vec_text(f)}" for g, f in zip(rounded, trace.expert_outputs))
    if len(terms) > 60:
        terms = "Σ gᵢ·Fᵢ"
    artists["out.sum"].set_text(f"o = {terms} = {vec_text(out_rounded, digits)}")
    artists["out.full"].set_text(f"≈ {vec_text(trace.output, digits + 3)} at full precision")
    denominator = " + ".join(f"exp({num_text(r.scores[i])})" for i in sorted(r.chosen.tolist()))
    others = [j for j in range(n) if not r.mask[j]]
    left_out = f"; experts {', '.join(map(str, others))} are left out of it" if others else ""
    artists["out.note"].set_text(f"S = {id_set_text(r.chosen)}: the gates' denominator is {denominator}{left_out}.")


def draw_routing_table(ax, trace: moe.MoETrace, *, at=(0.0, 0.0), digits: int = ex.FIG20_DIGITS,
                       columns: int = E_MAX) -> dict[str, Artist]:
    """Figure 20's table: one column per expert ID (room for ``columns``; those beyond
    the trace's experts are hidden), rows for scores, the chosen set, exp, the in-set
    gates (with full precision), the full-softmax alternative, the outputs of the
    chosen experts and their weighted contributions, then the combined output."""
    ax = check_ax(ax)
    trace = check_trace(trace, moe.MoETrace)
    x0, y0 = check_at(at)
    if trace.route.n_experts > columns:
        raise ValueError(f"trace has {trace.route.n_experts} experts, more than columns={columns}")
    g = _table_geometry((x0, y0))
    art: dict[str, Artist] = {}
    art["head.label"] = add_text(ax, g["label_x"], g["y"] - 0.18, "expert ID", ha="right",
                                 size=NOTE_SIZE, style="italic")
    for j in range(columns):
        art[f"head[{j}]"] = add_text(ax, g["cx"] + j * g["pitch"] + g["col"] / 2, g["y"] - 0.18, str(j),
                                     ha="center", size=NOTE_SIZE + 0.5, weight="bold")
    for r_, (key, label) in enumerate(ROUTING_ROWS):
        y = g["y"] + r_ * (g["row"] + g["gap"])
        art[f"{key}.label"] = add_text(ax, g["label_x"], y + g["row"] / 2, label, ha="right", size=NOTE_SIZE)
        for j in range(columns):
            rect, txt = add_cell(ax, g["cx"] + j * g["pitch"], y, g["col"], g["row"], "",
                                 size={"out": SMALL_SIZE + 0.5, "contrib": SMALL_SIZE - 1}.get(key, TABLE_SIZE))
            art[f"{key}.cell[{j}]"] = rect
            art[f"{key}[{j}]"] = txt
            if key == "gate":
                txt.set_y(y + g["row"] / 2 - 0.07)
                art[f"gate.full[{j}]"] = add_text(ax, g["cx"] + j * g["pitch"] + g["col"] / 2, y + g["row"] / 2 + 0.12,
                                                  "", ha="center", size=SMALL_SIZE - 1, color="#333333")
    y_out = g["y"] + len(ROUTING_ROWS) * (g["row"] + g["gap"]) + 0.12
    art["out.sum"] = add_text(ax, x0 + 0.15, y_out + 0.14, "", size=NOTE_SIZE + 1, weight="bold")
    art["out.full"] = add_text(ax, x0 + 0.15, y_out + 0.46, "", size=NOTE_SIZE)
    art["out.note"] = add_text(ax, x0 + 0.15, y_out + 0.76, "", size=SMALL_SIZE + 0.5, color="#333333")
    # what does not depend on the routing is drawn once (a widget step redraws less text)
    art["out.static"] = add_text(ax, x0 + 0.15, y_out + 1.0,
                                 "Rounding order, not another algorithm. Columns are expert IDs; "
                                 "the entries of o are features.", size=SMALL_SIZE + 0.5, color="#333333")
    update_routing_table(art, trace, digits=digits)
    return art


def describe_routing(trace: moe.MoETrace, digits: int = ex.FIG20_DIGITS) -> str:
    """Figure 20's state in words, every number from ``trace``.

    >>> print(describe_routing(fig20_trace()))
    4 experts, k = 2: scores [2, 1, 0, −1] choose S = {0, 1}. In-set gates [0.731, 0.269, 0, 0] (full precision [0.731059, 0.268941]); full-softmax probabilities [0.644, 0.237, 0.087, 0.032]. Outputs F₀ = [1, 3], F₁ = [5, 1] combine to o = [2.076, 2.462] from the rounded gates, ≈ [2.075766, 2.462117] at full precision.
    """
    trace = check_trace(trace, moe.MoETrace)
    r = trace.route
    outs = ", ".join(f"F{subscript(i)} = {vec_text(f)}" for i, f in zip(r.chosen, trace.expert_outputs))
    experts = (_("{n} expert") if r.n_experts == 1 else _("{n} experts")).format(n=r.n_experts)
    return _(
        "{count}, k = {k}: scores {scores} choose S = {chosen}. In-set gates {gates} (full precision {full}); "
        "full-softmax probabilities {probs}. Outputs {outs} combine to o = {rounded} from the rounded gates, ≈ "
        "{output} at full precision."
    ).format(count=experts, k=r.k, scores=vec_text(r.scores), chosen=id_set_text(r.chosen),
             gates=vec_text(r.gates, digits), full=vec_text(r.chosen_gates, digits + 3), probs=vec_text(r.probs, digits),
             outs=outs, rounded=vec_text(lessons.output_from_rounded_gates(trace, digits), digits),
             output=vec_text(trace.output, digits + 3))


#: Where the fixed part of figure 20's heading starts (inches): after the longest
#: routing-dependent part, "6 experts, top-6:".
FIG20_HEADING_SPLIT = 1.75


def _fig20_heading(trace: moe.MoETrace) -> str:
    """The routing-dependent start of figure 20's heading."""
    r = trace.route
    return f"{_experts(r.n_experts)}, top-{r.k}:"


@register(20, "Top-2 routing: choose, renormalise inside the set, combine")
def build_fig20() -> Drawn:
    trace = fig20_trace()
    fig, ax = new_canvas(style.WIDTH, 5.85)
    art: dict[str, Artist] = {}
    art["heading"] = add_heading(ax, 0.15, 0.2, _fig20_heading(trace))
    art["heading.rest"] = add_heading(ax, FIG20_HEADING_SPLIT, 0.2,
                                      "gates renormalised inside S, unchosen gates exactly 0")
    art.update(draw_routing_table(ax, trace, at=(0.0, 0.45)))
    alt = _("A table with one column per expert ID (E_n = {n}) and one row per step: score aᵢ, in S, exp(aᵢ) for "
            "i in S, gate gᵢ, full-softmax pᵢ, output Fᵢ(x), gᵢ·Fᵢ; the chosen columns green, the gates of the "
            "others exactly 0. {state}").format(n=trace.route.n_experts, state=describe_routing(trace))
    return Drawn(20, figure_title(20), fig, alt, art, trace)


def update_fig20(artists: dict, trace: moe.MoETrace) -> None:
    """Move the whole of figure 20 (heading and table) to ``trace`` in place."""
    update_routing_table(artists, trace)
    artists["heading"].set_text(_fig20_heading(trace))
