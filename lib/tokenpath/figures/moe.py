"""Figures 19–22: sparse mixture-of-experts routing.

Figures 19, 20 and 22 are laid out on one canvas axes in inch units (y grows
downwards), like the attention figures; figure 21 plots the router scores and gates
against δ on ordinary axes. Every ``draw_*`` helper takes an ``Axes`` and a trace from
:mod:`tokenpath.moe`, draws, and returns its artists by name; every ``update_*`` moves
those artists to a new trace in place, for the widgets of :mod:`tokenpath.widgets.moe`.

Colours keep their book-wide meaning (:mod:`tokenpath.figures.style`): green = content
an expert returns and the paths it flows along, grey = unchosen (stored, not run),
orange = the quantity the text follows, blue and purple = expert 0 and expert 1 of the
top-1 boundary, vermilion = an assignment a capacity limit drops.
"""

from __future__ import annotations

import numpy as np
from matplotlib.artist import Artist
from matplotlib.patches import Circle

from .. import examples as ex
from .. import fmt, moe, moe_dispatch
from ..fmt import subscript
from ..lessons import moe as lessons
from . import FIGURES, Drawn, register, style
from .draw import (
    ACCENT_FACE,
    BLOCKED_FACE,
    QUERY_FACE,
    SUM_FACE,
    VALUE_FACE,
    VISIBLE_FACE,
    add_arrow,
    add_cell,
    add_heading,
    add_outline,
    add_text,
    check_at,
    check_ax,
    check_trace,
    new_canvas,
)

__all__ = [
    "E_MAX",
    "ROUTING_ROWS",
    "build_fig19",
    "build_fig20",
    "build_fig21",
    "build_fig22",
    "describe_batch",
    "describe_boundary",
    "describe_routing",
    "draw_batch",
    "draw_boundary",
    "draw_dispatch",
    "draw_routing_table",
    "fig20_trace",
    "fig21_trace",
    "fig22_trace",
    "update_batch",
    "update_boundary",
    "update_fig20",
    "update_fig22",
    "update_routing_table",
]

MINUS = fmt.MINUS
NOTE_SIZE = 9
SMALL_SIZE = 8
CELL_SIZE = 10
#: The most experts the routing table of figure 20 (and its widget) can show.
E_MAX = ex.FIG20_WIDGET_SCORES.size
#: Hatch patterns that tell experts apart: different subnetworks, not proven specialties.
HATCHES = ("////", "\\\\\\\\", "xxx", "...", "++", "ooo")
LIGHT_FACE = "#F2F2F2"
EXPERT_COLOURS = (style.VISIBLE, style.ACCENT)
EXPERT_FACES = (VISIBLE_FACE, ACCENT_FACE)


def _title(number: int) -> str:
    return FIGURES[number].title


def _n(x, digits=None) -> str:
    """One number with a true minus sign; integers bare."""
    return fmt.num(x, digits, minus=MINUS, bare_ints=True)


def _v(v, digits=None) -> str:
    """A vector with true minus signs; integer entries bare."""
    return "[" + ", ".join(_n(x, digits) for x in np.asarray(v, dtype=float)) + "]"


def _d(x) -> str:
    """A slider value such as δ: at most two decimals, no trailing zeros."""
    return fmt.num(round(float(x), 2), minus=MINUS)


def _dv(v) -> str:
    return "[" + ", ".join(_d(x) for x in np.asarray(v, dtype=float)) + "]"


def _experts(n: int) -> str:
    return f"{n} expert" + ("" if n == 1 else "s")


def _ids(ids) -> str:
    return "{" + ", ".join(str(int(i)) for i in sorted(np.asarray(ids).tolist())) + "}"


def _sub(i) -> str:
    return subscript(int(i))


# ======================================================================= traces


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


def fig21_trace(delta: float = ex.FIG21_DELTA) -> lessons.Boundary:
    """Figure 21 at ``delta``: :func:`tokenpath.lessons.moe.top1_boundary` with the figure's
    expert outputs and target."""
    return lessons.top1_boundary(delta, ex.FIG21_OUTPUTS, ex.FIG21_TARGET)


def fig22_trace(candidate: int = len(ex.FIG22_CANDIDATES) - 1) -> moe_dispatch.BatchRoute:
    """Figure 22's batch: token 0 of figure 20 and the second token ``candidate`` of
    :data:`~tokenpath.examples.FIG22_CANDIDATES` (the last is figure 22's token 1),
    top-2, with the capacity limit :data:`~tokenpath.examples.FIG22_CAPACITY`.

    >>> fig22_trace().experts_used.tolist()
    [0, 1, 2, 3]
    """
    if isinstance(candidate, bool) or not isinstance(candidate, (int, np.integer)) or not (
        0 <= candidate < len(ex.FIG22_CANDIDATES)
    ):
        raise ValueError(f"candidate must be an index in [0, {len(ex.FIG22_CANDIDATES) - 1}], got {candidate!r}")
    scores = np.vstack([ex.FIG22_SCORES[0], ex.FIG22_CANDIDATES[candidate]])
    return moe_dispatch.route_batch(scores, ex.FIG22_K, capacity=ex.FIG22_CAPACITY)


def _expert_parameters() -> moe_dispatch.ExpertParameters:
    return moe_dispatch.expert_parameters(ex.MOE_EXPERTS, ex.MOE_EXPERT_PARAMS, ex.MOE_K)


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
    art["scores"] = add_text(ax, rx + rw / 2, mid + rh / 2 + 0.15, f"a = {_v(r.scores)}", ha="center",
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
            art[f"gate[{i}]"] = add_text(ax, gx, gy, f"g{_sub(i)} = {_n(r.gates[i], 3)}", ha="center",
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
    gates = ", ".join(f"g{_sub(i)} = {_n(r.gates[i], 3)}" for i in r.chosen)
    alt = (
        f"A token vector x enters the router, which scores {r.n_experts} experts with a = "
        f"{_v(r.scores)} and runs the top {r.k}: experts {chosen} (green, with solid paths). "
        f"The other {r.n_experts - r.k} experts are grey: stored but not run, and no path passes "
        f"through them. The two paths meet at a weighted sum with {gates} and leave as one "
        "output vector o of the same width as x."
    )
    return Drawn(19, _title(19), fig, alt, art, trace)


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
                                 size={"out": SMALL_SIZE + 0.5, "contrib": SMALL_SIZE - 1}.get(key, CELL_SIZE))
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
        for key, _ in ROUTING_ROWS:
            rect, txt = artists[f"{key}.cell[{j}]"], artists[f"{key}[{j}]"]
            rect.set_visible(shown)
            txt.set_visible(shown)
        artists[f"gate.full[{j}]"].set_visible(shown)
        if not shown:
            continue
        face = VALUE_FACE if on else LIGHT_FACE
        colour = style.INK if on else style.NEUTRAL
        cells = {
            "score": (_n(r.scores[j]), "white", style.INK),
            "chosen": ("yes" if on else "no", face, colour),
            "exp": (_n(r.exp_scores[j], 3) if on else "not used", face, colour),
            "gate": (_n(r.gates[j], digits) if on else "0", face, colour),
            "prob": (_n(r.probs[j], digits), "white", "#333333"),
            "out": (_v(trace.expert_outputs[rank[j]]) if on else "not run", face, colour),
            "contrib": (_v(rounded[rank[j]] * trace.expert_outputs[rank[j]], digits) if on else "0",
                        face, colour),
        }
        for key, (text, fc, tc) in cells.items():
            artists[f"{key}.cell[{j}]"].set_facecolor(fc)
            artists[f"{key}[{j}]"].set_text(text)
            artists[f"{key}[{j}]"].set_color(tc)
        artists[f"gate.full[{j}]"].set_text(_n(r.gates[j], digits + 3) if on else "exactly 0")
    out_rounded = lessons.output_from_rounded_gates(trace, digits)
    terms = " + ".join(f"{_n(g, digits)}·{_v(f)}" for g, f in zip(rounded, trace.expert_outputs))
    if len(terms) > 60:
        terms = "Σ gᵢ·Fᵢ"
    artists["out.sum"].set_text(f"o = {terms} = {_v(out_rounded, digits)}")
    artists["out.full"].set_text(f"≈ {_v(trace.output, digits + 3)} at full precision")
    denominator = " + ".join(f"exp({_n(r.scores[i])})" for i in sorted(r.chosen.tolist()))
    others = [j for j in range(n) if not r.mask[j]]
    left_out = f"; experts {', '.join(map(str, others))} are left out of it" if others else ""
    artists["out.note"].set_text(f"S = {_ids(r.chosen)}: the gates' denominator is {denominator}{left_out}.")


def describe_routing(trace: moe.MoETrace, digits: int = ex.FIG20_DIGITS) -> str:
    """Figure 20's state in words, every number from ``trace``.

    >>> print(describe_routing(fig20_trace()))
    4 experts, k = 2: scores [2, 1, 0, −1] choose S = {0, 1}. In-set gates [0.731, 0.269, 0, 0] (full precision [0.731059, 0.268941]); full-softmax probabilities [0.644, 0.237, 0.087, 0.032]. Outputs F₀ = [1, 3], F₁ = [5, 1] combine to o = [2.076, 2.462] from the rounded gates, ≈ [2.075766, 2.462117] at full precision.
    """
    trace = check_trace(trace, moe.MoETrace)
    r = trace.route
    outs = ", ".join(f"F{_sub(i)} = {_v(f)}" for i, f in zip(r.chosen, trace.expert_outputs))
    return (
        f"{_experts(r.n_experts)}, k = {r.k}: scores {_v(r.scores)} choose S = {_ids(r.chosen)}. "
        f"In-set gates {_v(r.gates, digits)} (full precision {_v(r.chosen_gates, digits + 3)}); "
        f"full-softmax probabilities {_v(r.probs, digits)}. Outputs {outs} combine to o = "
        f"{_v(lessons.output_from_rounded_gates(trace, digits), digits)} from the rounded gates, ≈ "
        f"{_v(trace.output, digits + 3)} at full precision."
    )


@register(20, "Top-2 routing: choose, renormalise inside the set, combine")
def build_fig20() -> Drawn:
    trace = fig20_trace()
    fig, ax = new_canvas(style.WIDTH, 5.85)
    art: dict[str, Artist] = {}
    art["heading"] = add_heading(ax, 0.15, 0.2, _fig20_heading(trace))
    art["heading.rest"] = add_heading(ax, FIG20_HEADING_SPLIT, 0.2,
                                      "gates renormalised inside S, unchosen gates exactly 0")
    art.update(draw_routing_table(ax, trace, at=(0.0, 0.45)))
    alt = "A table with one column per expert ID. " + describe_routing(trace)
    return Drawn(20, _title(20), fig, alt, art, trace)


#: Where the fixed part of figure 20's heading starts (inches): after the longest
#: routing-dependent part, "6 experts, top-6:".
FIG20_HEADING_SPLIT = 1.75


def _fig20_heading(trace: moe.MoETrace) -> str:
    """The routing-dependent start of figure 20's heading."""
    r = trace.route
    return f"{_experts(r.n_experts)}, top-{r.k}:"


def update_fig20(artists: dict, trace: moe.MoETrace) -> None:
    """Move the whole of figure 20 (heading and table) to ``trace`` in place."""
    update_routing_table(artists, trace)
    artists["heading"].set_text(_fig20_heading(trace))


# ======================================================================= fig 21


def draw_boundary(fig, trace: lessons.Boundary, curves: lessons.Top1Curves) -> dict[str, Artist]:
    """Figure 21 on ``fig``: (a) the two router scores against δ with the region where
    each expert runs, (b) the chosen expert's gate, in-set (constantly 1) and
    full-softmax, and a ledger of the choice, the gates and the router gradients at the
    trace's δ."""
    trace = check_trace(trace, lessons.Boundary)
    curves = check_trace(curves, lessons.Top1Curves, "curves")
    lo, hi = float(curves.delta[0]), float(curves.delta[-1])
    ax_a = fig.add_axes((0.09, 0.55, 0.5, 0.36))
    ax_g = fig.add_axes((0.09, 0.13, 0.5, 0.36), sharex=ax_a)
    ledger = fig.add_axes((0.62, 0.02, 0.37, 0.96))
    ledger.set_axis_off()
    ledger.set_xlim(0, 1)
    ledger.set_ylim(1, 0)
    art: dict[str, Artist] = {"axes.a": ax_a, "axes.g": ax_g, "ledger": ledger}

    d = curves.delta
    for ax in (ax_a, ax_g):
        ax.axvspan(lo, 0.0, color=EXPERT_FACES[1], alpha=0.45, lw=0, zorder=0)
        ax.axvspan(0.0, hi, color=EXPERT_FACES[0], alpha=0.45, lw=0, zorder=0)
        ax.axvline(0.0, color=style.INK, lw=0.8, ls=(0, (2, 2)), zorder=1)
    ax_a.plot(d, curves.scores[:, 0], color=EXPERT_COLOURS[0], lw=2.0, label="a₀ = δ")
    ax_a.plot(d, curves.scores[:, 1], color=EXPERT_COLOURS[1], lw=2.0, label=f"a₁ = {MINUS}δ")
    ax_a.set_ylabel("router score (logit)")
    ax_a.set_xlim(lo, hi)
    ax_a.set_ylim(lo - 0.4, hi + 1.0)
    # legends sit below the moving δ line (zorder 4), so the line may cross them
    ax_a.legend(loc="lower center", ncols=2, handlelength=1.4, fontsize=SMALL_SIZE + 0.5).set_zorder(3.5)
    ax_a.text(0.08, hi + 0.5, "tie at δ = 0:\nlower ID (0) runs", fontsize=SMALL_SIZE, va="center",
              linespacing=1.2)
    ax_a.tick_params(labelbottom=False)
    ax_g.plot(d, curves.gate_in_set, color=style.INK, lw=2.0, label="in-set gate: always 1")
    ax_g.plot(d, curves.gate_full, color=style.VALUE, lw=2.0, label="full-softmax gate")
    ax_g.set_ylim(0.25, 1.3)
    ax_g.text(lo + 0.08, 1.17, "expert 1 runs", color=EXPERT_COLOURS[1], fontsize=NOTE_SIZE,
              weight="bold", va="center")
    ax_g.text(hi - 0.08, 1.17, "expert 0 runs", color=EXPERT_COLOURS[0], fontsize=NOTE_SIZE,
              weight="bold", va="center", ha="right")
    ax_g.set_ylabel("gate of the chosen")
    ax_g.set_xlabel("control δ (score gap 2δ); not a loss curve")
    ax_g.legend(loc="lower left", handlelength=1.4, fontsize=SMALL_SIZE).set_zorder(3.5)

    art["now.a"] = ax_a.axvline(trace.delta, color=style.QUERY, lw=1.8, zorder=4)
    art["now.g"] = ax_g.axvline(trace.delta, color=style.QUERY, lw=1.8, zorder=4)
    art["dot.a0"] = ax_a.plot([trace.delta], [trace.scores[0]], "o", color=EXPERT_COLOURS[0], ms=7,
                              zorder=5)[0]
    art["dot.a1"] = ax_a.plot([trace.delta], [trace.scores[1]], "o", color=EXPERT_COLOURS[1], ms=7,
                              zorder=5)[0]
    art["dot.in_set"] = ax_g.plot([trace.delta], [trace.gate_in_set], "o", color=style.INK, ms=6, zorder=5)[0]
    art["dot.full"] = ax_g.plot([trace.delta], [trace.gate_full], "o", color=style.VALUE, ms=6, zorder=5)[0]
    art["title"] = ax_a.set_title("", loc="left", fontsize=10)

    def line(y, text="", size=NOTE_SIZE, **kw):
        return ledger.text(0.0, y, text, fontsize=size, va="top", ha="left", **kw)

    art["ledger.runs"] = ledger.text(0.0, 0.04, "", fontsize=13, weight="bold", va="top",
                                     bbox=dict(boxstyle="round,pad=0.3", facecolor="white",
                                               edgecolor=style.INK, linewidth=1.6))
    art["ledger.scores"] = line(0.14)
    f, y = trace.in_set.expert_outputs, trace.in_set.target
    line(0.2, f"task loss L = ½‖o {MINUS} y‖², o = g·F of the\nexpert that runs, F₀ = {_v(f[0])}, "
         f"F₁ = {_v(f[1])},\ny = {_v(y)}", SMALL_SIZE + 0.5, linespacing=1.3)
    line(0.38, "in-set gate (this chapter, k = 1)", weight="bold")
    art["ledger.in_set"] = line(0.44, linespacing=1.35)
    line(0.5, "no signal to the router through the gate", SMALL_SIZE + 0.5)
    line(0.6, "full-softmax gate", weight="bold", color=style.VALUE)
    art["ledger.full"] = line(0.66, linespacing=1.35)
    line(0.82, "finite differences (h = 10⁻⁶):", SMALL_SIZE, color="#333333")
    art["ledger.fd"] = line(0.875, size=SMALL_SIZE, color="#333333")
    update_boundary(art, trace)
    return art


def update_boundary(artists: dict, trace: lessons.Boundary) -> None:
    """Move figure 21's δ-dependent artists to ``trace`` in place."""
    trace = check_trace(trace, lessons.Boundary)
    c = trace.chosen
    dlt = trace.delta
    for key in ("now.a", "now.g"):
        artists[key].set_xdata([dlt, dlt])
    artists["dot.a0"].set_data([dlt], [trace.scores[0]])
    artists["dot.a1"].set_data([dlt], [trace.scores[1]])
    artists["dot.in_set"].set_data([dlt], [trace.gate_in_set])
    artists["dot.full"].set_data([dlt], [trace.gate_full])
    artists["title"].set_text(f"δ = {_d(dlt)}: expert {c} runs")
    artists["title"].set_color(EXPERT_COLOURS[c])
    runs = artists["ledger.runs"]
    runs.set_text(f"expert {c} runs")
    runs.set_color(EXPERT_COLOURS[c])
    runs.get_bbox_patch().set_facecolor(EXPERT_FACES[c])
    runs.get_bbox_patch().set_edgecolor(EXPERT_COLOURS[c])
    tie = " (tie: lower ID)" if trace.scores[0] == trace.scores[1] else ""
    artists["ledger.scores"].set_text(f"a = {_dv(trace.scores)}{tie}")
    artists["ledger.in_set"].set_text(f"g{_sub(c)} = {_n(trace.gate_in_set, 3)}, ∂L/∂a = {_v(trace.in_set.grad, 3)}")
    artists["ledger.full"].set_text(f"p{_sub(c)} = {_n(trace.gate_full, 3)}\n∂L/∂a = {_v(trace.full.grad, 3)}")
    artists["ledger.fd"].set_text(_fd_verdict(trace))


def _fd_agrees(g: moe.RouterGradient) -> bool:
    return g.set_fixed and bool(np.allclose(g.grad, g.fd_grad, rtol=1e-4, atol=1e-6))


def _fd_verdict(trace: lessons.Boundary) -> str:
    """What the finite differences say at ``trace``: that they match ∂L/∂a, or that
    the chosen expert changes within ±h (at the tie), where they measure a jump."""
    if not (trace.in_set.set_fixed and trace.full.set_fixed):
        return "undefined here: the expert that runs\nchanges within ±h, the loss jumps"
    if _fd_agrees(trace.in_set) and _fd_agrees(trace.full):
        return "agree with both ∂L/∂a above"
    return f"in-set {_v(trace.in_set.fd_grad, 3)}, full {_v(trace.full.fd_grad, 3)}"


def describe_boundary(trace: lessons.Boundary) -> str:
    """Figure 21's state in words, every number from ``trace``.

    >>> print(describe_boundary(fig21_trace()))
    δ = 0.5: scores a = [0.5, −0.5], expert 0 runs. In-set gate 1, router gradient [0, 0] (finite differences [0, 0]); full-softmax gate 0.731, router gradient [0.144, −0.144] (finite differences [0.144, −0.144]).
    """
    trace = check_trace(trace, lessons.Boundary)
    tie = " (a tie, settled by the lower ID)" if trace.scores[0] == trace.scores[1] else ""
    if trace.in_set.set_fixed and trace.full.set_fixed:
        fd_in = f" (finite differences {_v(trace.in_set.fd_grad, 3)})"
        fd_full = f" (finite differences {_v(trace.full.fd_grad, 3)})"
        jump = ""
    else:
        fd_in = fd_full = ""
        jump = (" At the tie a step of ±h changes the expert that runs, so the loss jumps and finite "
                "differences measure the jump, not a derivative; the gradients are those of the region "
                "the tie rule assigns.")
    return (
        f"δ = {_d(trace.delta)}: scores a = {_dv(trace.scores)}, expert {trace.chosen} runs{tie}. "
        f"In-set gate {_n(trace.gate_in_set, 3)}, router gradient {_v(trace.in_set.grad, 3)}{fd_in}; "
        f"full-softmax gate {_n(trace.gate_full, 3)}, router gradient {_v(trace.full.grad, 3)}{fd_full}.{jump}"
    )


#: δ values of figure 21's curves (fixed: the curves do not move with the slider).
FIG21_GRID = np.linspace(*ex.FIG21_DELTA_RANGE, 401)


@register(21, "Top-1 boundary: the choice flips, the in-set gate stays 1")
def build_fig21() -> Drawn:
    trace = fig21_trace()
    curves = lessons.top1_curves(FIG21_GRID)
    fig = style.new_figure(style.WIDTH, 3.9)
    art = draw_boundary(fig, trace, curves)
    alt = (
        f"Two experts with router scores a₀ = δ and a₁ = {MINUS}δ, δ from {_n(curves.delta[0])} to "
        f"{_n(curves.delta[-1])}. For δ < 0 expert 1 runs, for δ > 0 expert 0 runs, and at the tie "
        "δ = 0 the lower ID, expert 0. With top-1 and in-set renormalisation the gate is 1 everywhere; "
        "the full-softmax gate of the chosen expert dips to 0.5 at the boundary. "
        + describe_boundary(trace)
    )
    return Drawn(21, _title(21), fig, alt, art, (trace, curves))


# ======================================================================= fig 22


def _batch_geometry(at):
    x0, y0 = at
    return dict(label_x=x0 + 1.55, cx=x0 + 1.65, col=0.95, pitch=1.02, y=y0 + 0.32, row=0.5, gap=0.08)


_BATCH_ROWS = ("token[0]", "token[1]", "used", "load", "kept")


def draw_batch(ax, trace: moe_dispatch.BatchRoute, *, at=(0.0, 0.0)) -> dict[str, Artist]:
    """Figure 22's routing record: one row per token (column = expert ID; a green cell
    = the token runs that expert, with its gate g; the score a is in every cell), then the
    batch's use of each expert, the load, and what the capacity limit keeps."""
    ax = check_ax(ax)
    trace = check_trace(trace, moe_dispatch.BatchRoute)
    if trace.route.scores.shape[0] != 2:
        raise ValueError(f"trace must route two tokens, got {trace.route.scores.shape[0]}")
    x0, y0 = check_at(at)
    g = _batch_geometry((x0, y0))
    n_e = trace.route.n_experts
    art: dict[str, Artist] = {}
    art["head.label"] = add_text(ax, g["label_x"], g["y"] - 0.18, "expert ID", ha="right", size=NOTE_SIZE,
                                 style="italic")
    for j in range(n_e):
        art[f"head[{j}]"] = add_text(ax, g["cx"] + j * g["pitch"] + g["col"] / 2, g["y"] - 0.18, str(j),
                                     ha="center", size=NOTE_SIZE + 0.5, weight="bold")
    labels = {"token[0]": "token 0", "token[1]": "token 1", "used": "batch uses?",
              "load": "load (tokens)", "kept": f"kept, capacity {trace.capacity}"}
    side_x = g["cx"] + (n_e - 1) * g["pitch"] + g["col"] + 0.15
    for r_, key in enumerate(_BATCH_ROWS):
        y = g["y"] + r_ * (g["row"] + g["gap"]) + (0.18 if r_ >= 2 else 0.0)
        art[f"{key}.label"] = add_text(ax, g["label_x"], y + g["row"] / 2, labels[key], ha="right", size=NOTE_SIZE)
        for j in range(n_e):
            rect, txt = add_cell(ax, g["cx"] + j * g["pitch"], y, g["col"], g["row"], "", size=CELL_SIZE - 0.5,
                                 dy=-0.07 if key.startswith("token") else 0.0)
            art[f"{key}.cell[{j}]"] = rect
            art[f"{key}[{j}]"] = txt
            if key.startswith("token"):
                art[f"{key}.score[{j}]"] = add_text(ax, g["cx"] + j * g["pitch"] + g["col"] / 2, y + g["row"] / 2 + 0.13,
                                                    "", ha="center", size=SMALL_SIZE - 0.5, color="#333333")
        art[f"{key}.side"] = add_text(ax, side_x, y + g["row"] / 2, "", size=NOTE_SIZE, linespacing=1.15)
    update_batch(art, trace)
    return art


def update_batch(artists: dict, trace: moe_dispatch.BatchRoute) -> None:
    """Move :func:`draw_batch`'s artists to ``trace`` in place."""
    trace = check_trace(trace, moe_dispatch.BatchRoute)
    r = trace.route
    n_e = r.n_experts
    for n in range(2):
        key = f"token[{n}]"
        for j in range(n_e):
            on = bool(r.mask[n, j])
            artists[f"{key}.cell[{j}]"].set_facecolor(VALUE_FACE if on else "white")
            artists[f"{key}[{j}]"].set_text(f"g = {_n(r.gates[n, j], 3)}" if on else "not run")
            artists[f"{key}[{j}]"].set_color(style.INK if on else style.NEUTRAL)
            artists[f"{key}[{j}]"].set_weight("bold" if on else "normal")
            artists[f"{key}.score[{j}]"].set_text(f"a = {_n(r.scores[n, j])}")
        artists[f"{key}.side"].set_text(f"runs {_ids(r.chosen[n])}: k = {r.k}")
    used, load, kept = trace.used.any(axis=0), trace.load, trace.kept_load
    for j in range(n_e):
        artists[f"used.cell[{j}]"].set_facecolor(QUERY_FACE if used[j] else LIGHT_FACE)
        artists[f"used[{j}]"].set_text("yes" if used[j] else "no")
        artists[f"load[{j}]"].set_text(str(int(load[j])))
        over = kept[j] < load[j]
        artists[f"kept.cell[{j}]"].set_facecolor(BLOCKED_FACE if over else "white")
        artists[f"kept[{j}]"].set_text(str(int(kept[j])) + (f" ({int(load[j] - kept[j])} dropped)" if over else ""))
        artists[f"kept[{j}]"].set_fontsize(CELL_SIZE - 0.5 if not over else SMALL_SIZE - 0.5)
    artists["used.side"].set_text(f"{trace.experts_used.size} experts used")
    artists["load.side"].set_text(f"{int(load.sum())} assignments")
    dropped = trace.dropped
    artists["kept.side"].set_text(
        "nothing dropped" if not dropped else
        "dropped:\n" + "\n".join(f"token {n} at expert {i}" for n, i in dropped))
    artists["kept.side"].set_fontsize(NOTE_SIZE if not dropped else SMALL_SIZE)


def describe_batch(trace: moe_dispatch.BatchRoute) -> str:
    """Figure 22's state in words, every number from ``trace``.

    >>> print(describe_batch(fig22_trace()))
    Token 0 (scores [2, 1, 0, −1]) runs experts {0, 1}; token 1 (scores [−1, 0, 1, 2]) runs experts {2, 3}. Each runs k = 2, and the batch uses 4 experts: {0, 1, 2, 3}. Load per expert [1, 1, 1, 1]; with a capacity of 1 token per expert nothing is dropped.
    """
    trace = check_trace(trace, moe_dispatch.BatchRoute)
    r = trace.route
    tokens = "; ".join(f"token {n} (scores {_v(r.scores[n])}) runs experts {_ids(r.chosen[n])}"
                       for n in range(r.scores.shape[0]))
    drops = ("nothing is dropped" if not trace.dropped else
             "it drops " + ", ".join(f"token {n} at expert {i}" for n, i in trace.dropped))
    cap = (f"with a capacity of {trace.capacity} token per expert {drops}" if trace.capacity is not None
           else "no capacity limit")
    return (
        f"{tokens[0].upper()}{tokens[1:]}. Each runs k = {r.k}, and the batch uses "
        f"{trace.experts_used.size} experts: {_ids(trace.experts_used)}. Load per expert "
        f"{_v(trace.load)}; {cap}."
    )


def _fig22_heading(trace: moe_dispatch.BatchRoute) -> str:
    return f"Each token runs {trace.route.k} experts; together they use {trace.experts_used.size}"


def update_fig22(artists: dict, trace: moe_dispatch.BatchRoute) -> None:
    """Move figure 22's routing record and heading to ``trace`` in place (the capacity
    arithmetic below does not depend on the batch)."""
    update_batch(artists, trace)
    artists["heading"].set_text(_fig22_heading(trace))


@register(22, "Per-token choice, batch use, and what is stored")
def build_fig22() -> Drawn:
    trace = fig22_trace()
    cap = _expert_parameters()
    fig, ax = new_canvas(style.WIDTH, 5.0)
    art: dict[str, Artist] = {}
    art["heading"] = add_heading(ax, 0.15, 0.2, _fig22_heading(trace))
    art.update(draw_batch(ax, trace, at=(0.0, 0.45)))
    y = 4.0
    box_h = 0.85
    art["params.box"] = add_cell(ax, 0.15, y, style.WIDTH - 0.3, box_h, "", face=SUM_FACE, edge=style.NEUTRAL)[0]
    art["params.head"] = add_text(ax, 0.3, y + 0.18, "Stored and active parameters (a separate setting): "
                                  "element counts, not latency", size=NOTE_SIZE, weight="bold")
    p = moe_dispatch.count_text(cap.params_per_expert)
    art["params.stored"] = add_text(
        ax, 0.3, y + 0.45,
        f"stored: {cap.n_experts} experts × {p} = {moe_dispatch.count_text(cap.stored)}     "
        f"run per token: {cap.k} × {p} = {moe_dispatch.count_text(cap.active)}", size=NOTE_SIZE + 0.5)
    art["params.shared"] = add_text(ax, 0.3, y + 0.69, "plus shared parts stored once and run by every token: "
                                   "attention, embeddings, router", size=SMALL_SIZE + 0.5, color="#333333")
    used = art["used.cell[0]"]
    n_e = trace.route.n_experts
    last = art[f"used.cell[{n_e - 1}]"]
    art["outline.used"] = add_outline(ax, used.get_x(), used.get_y(), last.get_x() + last.get_width() - used.get_x(),
                                      used.get_height(), color=style.QUERY, lw=1.8)
    alt = (
        "A routing record with one row per token and one column per expert ID; a cell says whether "
        "the token runs that expert. " + describe_batch(trace)
        + f" Below, a separate setting: {cap.n_experts} experts × {p} = {moe_dispatch.count_text(cap.stored)} "
        f"parameters stored, {cap.k} × {p} = {moe_dispatch.count_text(cap.active)} run per token, plus shared "
        "parts."
    )
    return Drawn(22, _title(22), fig, alt, art, (trace, cap))
