"""Figure 21: the top-1 boundary. Two experts with router scores δ and −δ: the choice
flips at δ = 0 (a tie goes to the lower ID), the in-set gate of the chosen expert
stays 1, so no signal reaches the router through it; the full-softmax gate dips to
0.5 at the boundary and passes a gradient.

The figure plots the router scores and gates against δ on ordinary axes, beside a
ledger of the choice, the gates and the router gradients at the trace's δ;
:func:`update_boundary` moves what depends on δ, for the δ slider of
:mod:`tokenpath.widgets.moe`. Colours (:mod:`tokenpath.figures.style`): blue and
purple = expert 0 and expert 1, orange = the δ the text follows, green = the
full-softmax gate.
"""

from __future__ import annotations

import numpy as np
from matplotlib.artist import Artist

from .. import examples as ex
from .. import fmt, moe
from ..fmt import subscript
from ..i18n import _
from ..lessons import moe as lessons
from . import Drawn, register, style
from .draw import (
    ACCENT_FACE,
    MINUS,
    NOTE_SIZE,
    SMALL_SIZE,
    VISIBLE_FACE,
    check_trace,
    figure_title,
    num_text,
    vec_text,
)

__all__ = [
    "build_fig21",
    "describe_boundary",
    "draw_boundary",
    "fig21_trace",
    "update_boundary",
]

EXPERT_COLOURS = (style.VISIBLE, style.ACCENT)
EXPERT_FACES = (VISIBLE_FACE, ACCENT_FACE)


def _d(x) -> str:
    """A slider value such as δ: at most two decimals, no trailing zeros."""
    return fmt.num(round(float(x), 2), minus=MINUS)


def _dv(v) -> str:
    return "[" + ", ".join(_d(x) for x in np.asarray(v, dtype=float)) + "]"


def fig21_trace(delta: float = ex.FIG21_DELTA) -> lessons.Boundary:
    """Figure 21 at ``delta``: :func:`tokenpath.lessons.moe.top1_boundary` with the figure's
    expert outputs and target."""
    return lessons.top1_boundary(delta, ex.FIG21_OUTPUTS, ex.FIG21_TARGET)


def _fd_agrees(g: moe.RouterGradient) -> bool:
    return g.set_fixed and bool(np.allclose(g.grad, g.fd_grad, rtol=1e-4, atol=1e-6))


def _fd_verdict(trace: lessons.Boundary) -> str:
    """What the finite differences say at ``trace``: that they match ∂L/∂a, or that
    the chosen expert changes within ±h (at the tie), where they measure a jump."""
    if not (trace.in_set.set_fixed and trace.full.set_fixed):
        return "undefined here: the expert that runs\nchanges within ±h, the loss jumps"
    if _fd_agrees(trace.in_set) and _fd_agrees(trace.full):
        return "agree with both ∂L/∂a above"
    return f"in-set {vec_text(trace.in_set.fd_grad, 3)}, full {vec_text(trace.full.fd_grad, 3)}"


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
    artists["ledger.in_set"].set_text(f"g{subscript(c)} = {num_text(trace.gate_in_set, 3)}, ∂L/∂a = {vec_text(trace.in_set.grad, 3)}")
    artists["ledger.full"].set_text(f"p{subscript(c)} = {num_text(trace.gate_full, 3)}\n∂L/∂a = {vec_text(trace.full.grad, 3)}")
    artists["ledger.fd"].set_text(_fd_verdict(trace))


def draw_boundary(fig, trace: lessons.Boundary, curves: lessons.Top1Curves) -> dict[str, Artist]:
    """Figure 21 on ``fig``: (a) the two router scores against δ with the region where
    each expert runs, (b) the chosen expert's gate, in-set (constantly 1) and
    full-softmax, and a ledger of the choice, the gates and the router gradients at the
    trace's δ."""
    trace = check_trace(trace, lessons.Boundary)
    curves = check_trace(curves, lessons.Top1Curves, "curves")
    lo, hi = float(curves.delta[0]), float(curves.delta[-1])
    ax_a = fig.add_axes((0.115, 0.55, 0.475, 0.36))
    ax_g = fig.add_axes((0.115, 0.13, 0.475, 0.36), sharex=ax_a)
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
    # left of the tie line, away from the moving δ line of the text's δ > 0
    ax_a.text(-0.08, hi + 0.5, "tie at δ = 0:\nlower ID (0) runs", fontsize=SMALL_SIZE, va="center",
              ha="right", linespacing=1.2)
    ax_a.tick_params(labelbottom=False)
    ax_g.plot(d, curves.gate_in_set, color=style.INK, lw=2.0, label="in-set gate: always 1")
    ax_g.plot(d, curves.gate_full, color=style.VALUE, lw=2.0, label="full-softmax gate")
    ax_g.set_ylim(0.25, 1.3)
    ax_g.text(lo + 0.08, 1.17, "expert 1 runs", color=EXPERT_COLOURS[1], fontsize=NOTE_SIZE,
              weight="bold", va="center")
    ax_g.text(hi - 0.08, 1.17, "expert 0 runs", color=EXPERT_COLOURS[0], fontsize=NOTE_SIZE,
              weight="bold", va="center", ha="right")
    ax_g.set_ylabel("gate of the\nchosen expert")
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
    line(0.2, f"task loss L = ½‖o {MINUS} y‖², o = g·F of the\nexpert that runs, F₀ = {vec_text(f[0])}, "
         f"F₁ = {vec_text(f[1])},\ny = {vec_text(y)}", SMALL_SIZE + 0.5, linespacing=1.3)
    line(0.38, "in-set gate (this chapter, k = 1)", weight="bold")
    art["ledger.in_set"] = line(0.44, linespacing=1.35)
    line(0.5, "no signal to the router through the gate", SMALL_SIZE + 0.5)
    line(0.6, "full-softmax gate", weight="bold", color=style.VALUE)
    art["ledger.full"] = line(0.66, linespacing=1.35)
    line(0.82, "finite differences (h = 10⁻⁶):", SMALL_SIZE, color="#333333")
    art["ledger.fd"] = line(0.875, size=SMALL_SIZE, color="#333333")
    update_boundary(art, trace)
    return art


def describe_boundary(trace: lessons.Boundary) -> str:
    """Figure 21's state in words, every number from ``trace``.

    >>> print(describe_boundary(fig21_trace()))
    δ = 0.5: scores a = [0.5, −0.5], expert 0 runs. In-set gate 1, router gradient [0, 0] (finite differences [0, 0]); full-softmax gate 0.731, router gradient [0.144, −0.144] (finite differences [0.144, −0.144]).
    """
    trace = check_trace(trace, lessons.Boundary)
    tie = _(" (a tie, settled by the lower ID)") if trace.scores[0] == trace.scores[1] else ""
    if trace.in_set.set_fixed and trace.full.set_fixed:
        fd_in = _(" (finite differences {grad})").format(grad=vec_text(trace.in_set.fd_grad, 3))
        fd_full = _(" (finite differences {grad})").format(grad=vec_text(trace.full.fd_grad, 3))
        jump = ""
    else:
        fd_in = fd_full = ""
        jump = _(" At the tie a step of ±h changes the expert that runs, so the loss jumps and finite "
                 "differences measure the jump, not a derivative; the gradients are those of the region "
                 "the tie rule assigns.")
    return _(
        "δ = {delta}: scores a = {scores}, expert {chosen} runs{tie}. In-set gate {gate_in}, router gradient "
        "{grad_in}{fd_in}; full-softmax gate {gate_full}, router gradient {grad_full}{fd_full}.{jump}"
    ).format(delta=_d(trace.delta), scores=_dv(trace.scores), chosen=trace.chosen, tie=tie,
             gate_in=num_text(trace.gate_in_set, 3), grad_in=vec_text(trace.in_set.grad, 3), fd_in=fd_in,
             gate_full=num_text(trace.gate_full, 3), grad_full=vec_text(trace.full.grad, 3), fd_full=fd_full, jump=jump)


#: δ values of figure 21's curves (fixed: the curves do not move with the slider).
FIG21_GRID = np.linspace(*ex.FIG21_DELTA_RANGE, 401)


@register(21, "Top-1 boundary: the choice flips, the in-set gate stays 1")
def build_fig21() -> Drawn:
    trace = fig21_trace()
    curves = lessons.top1_curves(FIG21_GRID)
    fig = style.new_figure(style.WIDTH, 3.9)
    art = draw_boundary(fig, trace, curves)
    alt = _(
        "Two experts with router scores a₀ = δ and a₁ = {minus}δ, δ from {low} to {high}. For δ < 0 expert 1 runs, "
        "for δ > 0 expert 0 runs, and at the tie δ = 0 the lower ID, expert 0. With top-1 and in-set "
        "renormalisation the gate is 1 everywhere; the full-softmax gate of the chosen expert dips to 0.5 at the "
        "boundary. {state}"
    ).format(minus=MINUS, low=num_text(curves.delta[0]), high=num_text(curves.delta[-1]),
             state=describe_boundary(trace))
    return Drawn(21, figure_title(21), fig, alt, art, (trace, curves))
