"""Figures 17 and 18: feature-wise transforms of one position.

Figure 17 (a) normalises the two features of one position with RMSNorm and, for
contrast, LayerNorm, drawn as vectors in the feature plane; (b) is an independent
example: one SwiGLU feature, its gate pre-activation on the SiLU curve and the gated
product. Figure 18 adds a sub-layer's update to the residual stream, feature by feature.

Each figure is a canvas in inch units (y grows downwards) for its text, plus real axes
for the two plots. ``update_norms`` and ``update_gate`` move the artists of one panel
in place for the widgets.

Colours: black = the input x, orange = RMSNorm's output and the gate's operating point,
purple = LayerNorm's output, blue = the residual stream (the direct path), green = a
sub-layer's update, vermilion = an undefined result.
"""

from __future__ import annotations

import numpy as np
from matplotlib.artist import Artist
from matplotlib.patches import Circle, FancyArrowPatch

from .. import examples as ex
from .. import fmt
from ..i18n import _
from ..norms import GateTrace, NormComparison, ResidualTrace, compare_norms, gate_trace, residual_trace, silu
from . import Drawn, register, style
from .draw import (
    NOTE_SIZE,
    SMALL_SIZE,
    VALUE_FACE,
    VISIBLE_FACE,
    add_arrow,
    add_cell,
    add_heading,
    add_text,
    figure_title,
    new_canvas,
)

__all__ = [
    "build_fig17",
    "build_fig18",
    "describe_gate",
    "describe_norms",
    "draw_gate",
    "draw_norms",
    "draw_residual",
    "update_gate",
    "update_norms",
]

MINUS = fmt.MINUS
WIDTH, HEIGHT = style.WIDTH, 4.55
PLOT_H = 2.2  # height of the two plots, inches
LEDGER_SIZE = NOTE_SIZE - 0.5
LEDGER_STEP = 0.26
#: Feature-plane limits of panel (a): the widget's x range fits inside.
PLANE_LIM = 5.6
#: The range of the SiLU curve in panel (b).
GATE_LIM = ex.FIG17_GATE_RANGE


def _n(x, digits=None) -> str:
    return fmt.num(x, digits, minus=MINUS, bare_ints=digits is not None)


def _v(v, digits=None) -> str:
    return "[" + ", ".join(_n(x, digits) for x in np.asarray(v, dtype=float)) + "]"


def _r(x, digits=4) -> str:
    """Rounded to ``digits`` decimals, written in its shortest form (0.5, 3.5355)."""
    return fmt.num(round(float(x), digits), minus=MINUS)


def _rv(v, digits=4) -> str:
    return "[" + ", ".join(_r(x, digits) for x in np.asarray(v, dtype=float)) + "]"


def _sq(x) -> str:
    """``3²`` or ``(−3)²``."""
    return f"({_n(x)})²" if x < 0 else f"{_n(x)}²"


def _plot_axes(fig, left, top, w, h):
    """Real axes placed in inches from the top-left corner of the figure."""
    fw, fh = fig.get_size_inches()
    return fig.add_axes((left / fw, 1 - (top + h) / fh, w / fw, h / fh))


# ====================================================================== fig 17 (a)


def draw_norms(fig, canvas, trace: NormComparison, *, at=(0.0, 0.0)) -> dict[str, Artist]:
    """Panel (a): the feature plane with x, RMSNorm(x) and LayerNorm(x), and the ledger."""
    x0, y0 = at
    ax = _plot_axes(fig, x0 + 1.15, y0 + 0.12, PLOT_H, PLOT_H)
    ax.set_xlim(-PLANE_LIM, PLANE_LIM)
    ax.set_ylim(-PLANE_LIM, PLANE_LIM)
    ax.set_aspect("equal")
    ax.spines[["left", "bottom"]].set_position("zero")
    ax.set_xticks([-4, -2, 2, 4])
    ax.set_yticks([-4, -2, 2, 4])
    ax.tick_params(labelsize=SMALL_SIZE)
    ax.set_xlabel("feature 0", fontsize=SMALL_SIZE, loc="right")
    ax.set_ylabel("feature 1", fontsize=SMALL_SIZE, loc="top")
    d = trace.x.size
    circle = Circle((0, 0), np.sqrt(d), fill=False, ls=(0, (3, 2)), lw=1.0, color=style.NEUTRAL)
    ax.add_patch(circle)
    art: dict[str, Artist] = {"plane": ax, "circle": circle}
    art["circle.label"] = ax.text(0.3, -np.sqrt(d) - 1.0, f"RMS 1 (radius √{d})",
                                  fontsize=SMALL_SIZE - 0.5, color=style.NEUTRAL, ha="left", va="top")
    kw = dict(arrowstyle="-|>", mutation_scale=11, shrinkA=0, shrinkB=0)
    for name, colour, lw, z in (("x", style.INK, 1.4, 3), ("rms", style.QUERY, 2.6, 5), ("ln", style.ACCENT, 2.2, 4)):
        art[f"arrow.{name}"] = ax.add_patch(FancyArrowPatch((0, 0), (1, 1), color=colour, lw=lw, zorder=z, **kw))
    # a key instead of labels that chase the arrows (a slider step redraws less)
    for k, (name, text, colour) in enumerate((("x", "x", style.INK), ("rms", "RMSNorm(x)", style.QUERY),
                                              ("ln", "LayerNorm(x)", style.ACCENT))):
        art[f"key.{name}"] = add_text(canvas, x0 + 0.15, y0 + 0.3 + 0.24 * k, "→ " + text, size=SMALL_SIZE,
                                      color=colour, weight="bold")
    art["note"] = add_text(canvas, x0 + 0.15, y0 + 1.12, "γ = [1, 1]\nε ignored", size=SMALL_SIZE,
                           color="#333333", va="top", linespacing=1.4)
    ly = y0 + PLOT_H + 0.45
    for k, (colour, weight, text) in enumerate(_NORM_LEDGER):
        size = LEDGER_SIZE - (0.5 if text else 0.0)
        art[f"ledger[{k}]"] = add_text(canvas, x0 + 0.15, ly + LEDGER_STEP * k, text, size=size,
                                       color=colour, weight=weight)
    update_norms(art, trace)
    return art


#: Panel (a)'s ledger: colour, weight and, for a line that never changes, its text.
_NORM_LEDGER = ((style.INK, "normal", ""), (style.INK, "normal", ""), (style.QUERY, "bold", ""),
                (style.QUERY, "normal", "    direction of x kept, no mean subtraction"),
                (style.ACCENT, "bold", ""), (style.ACCENT, "normal", "    the mean is removed first"))
#: The ledger lines that move with x.
NORM_MOVING_LINES = tuple(k for k, line in enumerate(_NORM_LEDGER) if not line[2])


def update_norms(artists: dict, trace: NormComparison) -> None:
    """Move panel (a) to ``trace`` in place."""
    if not isinstance(trace, NormComparison):
        raise TypeError(f"trace must be a NormComparison, got {type(trace).__name__}")
    x = trace.x
    for name, vec in (("x", x), ("rms", None if trace.rms is None else trace.rms.output),
                      ("ln", None if trace.layer is None else trace.layer.output)):
        arrow = artists[f"arrow.{name}"]
        shown = vec is not None and bool(np.any(vec))
        arrow.set_visible(shown)
        if shown:
            arrow.set_positions((0.0, 0.0), tuple(vec))
    led = [artists[f"ledger[{k}]"] for k in range(len(_NORM_LEDGER))]
    if trace.rms is not None:
        r = trace.rms
        led[0].set_text(f"x = {_v(x)}: mean square ({' + '.join(_sq(v) for v in x)})/{x.size} = "
                        f"{_r(r.mean_square.item())}")
        led[1].set_text(f"RMS = √{_r(r.mean_square.item())} = {_r(r.rms.item())}")
        led[2].set_text(f"RMSNorm = x / RMS ≈ {_rv(r.output)}")
    else:
        led[0].set_text(f"x = {_v(x)}: mean square 0")
        led[1].set_text("RMS = 0")
        led[2].set_text("RMSNorm: undefined (RMS 0, ε = 0)")
    if trace.layer is not None:
        t = trace.layer
        led[4].set_text(f"LayerNorm = (x − {_r(t.mean.item())}) / {_r(t.std.item())} = {_rv(t.output)}")
    else:
        led[4].set_text("LayerNorm: undefined (variance 0, ε = 0)")
    led[2].set_color(style.QUERY if trace.rms is not None else style.BLOCKED)
    led[4].set_color(style.ACCENT if trace.layer is not None else style.BLOCKED)


def describe_norms(trace: NormComparison) -> str:
    """Panel (a)'s numbers in words.

    >>> print(describe_norms(compare_norms([3.0, 4.0])))
    x = [3, 4]: mean square 12.5, RMS 3.5355, RMSNorm ≈ [0.8485, 1.1314] (direction of x kept, mean not removed); LayerNorm subtracts the mean 3.5 and gives [−1, 1].
    """
    x = trace.x
    if trace.rms is not None:
        r = trace.rms
        rms = _("mean square {ms}, RMS {rms}, RMSNorm ≈ {out} (direction of x kept, mean not removed)").format(
            ms=_r(r.mean_square.item()), rms=_r(r.rms.item()), out=_rv(r.output))
    else:
        rms = _("RMSNorm is undefined (all-zero x, ε = 0)")
    if trace.layer is not None:
        ln = _("LayerNorm subtracts the mean {mean} and gives {out}").format(mean=_r(trace.layer.mean.item()),
                                                                           out=_rv(trace.layer.output))
    else:
        ln = _("LayerNorm is undefined (constant x, variance 0, ε = 0)")
    return _("x = {x}: {rms}; {ln}.").format(x=_v(x), rms=rms, ln=ln)


# ====================================================================== fig 17 (b)


def draw_gate(fig, canvas, trace: GateTrace, *, at=(0.0, 0.0)) -> dict[str, Artist]:
    """Panel (b): SiLU(a) = a·σ(a) with the gate's operating point, and the ledger."""
    x0, y0 = at
    ax = _plot_axes(fig, x0 + 0.45, y0 + 0.12, 2.75, PLOT_H)
    lo, hi = GATE_LIM
    a = np.linspace(lo, hi, 241)
    ax.plot(a, np.maximum(a, 0.0), color=style.NEUTRAL, lw=1.0, ls=(0, (3, 2)), label="ReLU")
    ax.plot(a, silu(a), color=style.VALUE, lw=2.0, label="SiLU(a) = a·σ(a)")
    ax.set_xlim(lo, hi)
    ax.set_ylim(-1.2, hi)
    ax.set_yticks([2, 4, 6])
    ax.spines[["left", "bottom"]].set_position("zero")
    ax.tick_params(labelsize=SMALL_SIZE)
    ax.set_xlabel("gate pre-activation a", fontsize=SMALL_SIZE, loc="right")
    ax.legend(loc="upper left", bbox_to_anchor=(0.0, 1.02), fontsize=SMALL_SIZE, handlelength=1.6)
    art: dict[str, Artist] = {"curve": ax}
    art["drop"] = ax.plot([0, 0], [0, 0], color=style.QUERY, lw=1.0, ls=(0, (2, 2)), zorder=4)[0]
    art["point"] = ax.plot([0], [0], "o", color=style.QUERY, ms=7, zorder=5)[0]
    ly = y0 + PLOT_H + 0.45
    static = {2: f"content c = x·W_up = {_n(float(trace.content))}",
              4: "    a scale, not an on/off switch; negatives damped"}
    for k in range(5):
        art[f"ledger[{k}]"] = add_text(canvas, x0 + 0.15, ly + LEDGER_STEP * k, static.get(k, ""),
                                       size=LEDGER_SIZE - (0.5 if k == 4 else 0.0),
                                       weight="bold" if k == 3 else "normal",
                                       color=style.QUERY if k == 3 else style.INK)
    update_gate(art, trace)
    return art


def update_gate(artists: dict, trace: GateTrace) -> None:
    """Move panel (b) to ``trace`` (one gate pre-activation and one content value)."""
    if not isinstance(trace, GateTrace) or trace.gate_pre.ndim != 0:
        raise TypeError("trace must be a GateTrace of one feature (scalar gate_pre)")
    a, s, g, c, p = (float(v) for v in (trace.gate_pre, trace.sigmoid, trace.silu, trace.content, trace.product))
    artists["drop"].set_data([a, a], [0.0, g])
    artists["point"].set_data([a], [g])
    if artists["ledger[2]"].get_text() != f"content c = x·W_up = {_n(c)}":
        raise ValueError(f"the figure holds another content value than the trace's c = {_n(c)}")
    led = [artists[f"ledger[{k}]"] for k in range(5)]
    led[0].set_text(f"gate pre-activation a = x·W_gate = {_n(a)}")
    led[1].set_text(f"σ(a) = {_r(s)},  SiLU(a) = a·σ(a) = {_r(g)}")
    led[3].set_text(f"SiLU(a)·c = {_n(a)}·σ({_n(a)})·{_n(c)} ≈ {_n(p, 3)}")


def describe_gate(trace: GateTrace) -> str:
    """Panel (b)'s numbers in words.

    >>> print(describe_gate(gate_trace(1.0, 2.0)))
    Gate pre-activation a = 1: σ(1) = 0.7311, SiLU(1) = 0.7311; content c = 2; gated feature 1·σ(1)·2 ≈ 1.462.
    """
    a, s, g, c, p = (float(v) for v in (trace.gate_pre, trace.sigmoid, trace.silu, trace.content, trace.product))
    return _("Gate pre-activation a = {a}: σ({a}) = {sigma}, SiLU({a}) = {silu}; content c = {c}; gated feature "
             "{a}·σ({a})·{c} ≈ {product}.").format(a=_n(a), sigma=_r(s), silu=_r(g), c=_n(c), product=_n(p, 3))


@register(17, "RMSNorm over features; a SwiGLU gate")
def build_fig17() -> Drawn:
    norms_trace = compare_norms(ex.FIG17_X, eps=ex.FIG17_EPS)
    gate = gate_trace(ex.FIG17_GATE_PRE, ex.FIG17_CONTENT)
    fig, canvas = new_canvas(WIDTH, HEIGHT)
    art: dict[str, Artist] = {}
    art["a.heading"] = add_heading(canvas, 0.15, 0.22, "(a) RMSNorm over one position's features", size=10)
    art["b.heading"] = add_heading(canvas, 3.68, 0.22, "(b) a SwiGLU gate, on its own", size=10)
    for k, v in draw_norms(fig, canvas, norms_trace, at=(0.0, 0.42)).items():
        art[f"a.{k}"] = v
    for k, v in draw_gate(fig, canvas, gate, at=(3.6, 0.42)).items():
        art[f"b.{k}"] = v
    lo, hi = GATE_LIM
    alt = (_("Panel (a): a 2-D feature plane with arrows for x (black), RMSNorm(x) (orange) and LayerNorm(x) "
             "(pink).") + " " + describe_norms(norms_trace) + " "
           + _("Both outputs lie on the dashed circle of root-mean-square 1: the RMSNorm output along x, the "
               "LayerNorm output where the two features sum to zero (that line is not drawn). Panel (b), an "
               "independent example: the curve SiLU(a) = a·σ(a) (green) beside a dashed ReLU for a from {lo} to "
               "{hi}, the gate's point marked on it: negative a is damped, not cut to 0.").format(lo=_n(lo), hi=_n(hi))
           + " " + describe_gate(gate))
    return Drawn(17, figure_title(17), fig, alt, art, (norms_trace, gate))


# ========================================================================== fig 18


def _feature_sum(trace: ResidualTrace, f: int, *, words: bool = False) -> str:
    """``feature 1: 2 + (−1) = 1``: drawn in English, in the reader's language with ``words``."""
    u = trace.update[f]
    term = f"({_n(u)})" if u < 0 else _n(u)
    line = _("feature {f}: {x} + {u} = {out}") if words else "feature {f}: {x} + {u} = {out}"
    return line.format(f=f, x=_n(trace.stream[f]), u=term, out=_n(trace.output[f]))


def draw_residual(ax, trace: ResidualTrace, *, at=(0.0, 0.0), cell=(0.6, 0.42)) -> dict[str, Artist]:
    """The stream x, the sub-layer's update and their sum, with one line per feature."""
    x0, y0 = at
    w, h = cell
    d = trace.stream.size
    art: dict[str, Artist] = {}
    sx, sy = x0 + 0.55, y0 + 1.25
    ux, uy = x0 + 3.55, y0 + 0.2
    px, py = x0 + 4.35, sy + h / 2
    ox = px + 0.55
    for f in range(d):
        art[f"x[{f}]"] = add_cell(ax, sx + f * w, sy, w, h, _n(trace.stream[f]), face=VISIBLE_FACE,
                                  edge=style.VISIBLE)[1]
        art[f"update[{f}]"] = add_cell(ax, ux + f * w - w * d / 2, uy, w, h, _n(trace.update[f]),
                                       face=VALUE_FACE, edge=style.VALUE)[1]
        art[f"out[{f}]"] = add_cell(ax, ox + f * w, sy, w, h, _n(trace.output[f]), face="white",
                                    edge=style.INK, lw=1.4, weight="bold")[1]
        art[f"col[{f}]"] = add_text(ax, sx + (f + 0.5) * w, sy + h + 0.15, f"f = {f}", ha="center",
                                    size=SMALL_SIZE)
        art[f"out.col[{f}]"] = add_text(ax, ox + (f + 0.5) * w, sy + h + 0.15, f"f = {f}", ha="center",
                                        size=SMALL_SIZE)
    art["x.label"] = add_text(ax, sx, sy - 0.17, "stream x", size=NOTE_SIZE, color=style.VISIBLE, weight="bold")
    art["out.label"] = add_text(ax, ox, sy - 0.17, "x + update", size=NOTE_SIZE, weight="bold")
    art["sub"] = add_cell(ax, sx + 0.1, uy - 0.02, 1.75, h + 0.04, "sub-layer\n(attention or FFN)",
                          face=VALUE_FACE, edge=style.VALUE, size=SMALL_SIZE)[1]
    art["update.label"] = add_text(ax, ux - w * d / 2, uy - 0.17, "update", size=NOTE_SIZE,
                                   color=style.VALUE, weight="bold")
    art["to.sub"] = add_arrow(ax, (sx + 0.45, sy - 0.3), (sx + 0.45, uy + h + 0.04), color=style.VALUE, lw=1.4)
    art["sub.to.update"] = add_arrow(ax, (sx + 1.87, uy + h / 2), (ux - w * d / 2 - 0.04, uy + h / 2),
                                     color=style.VALUE, lw=1.4)
    art["update.to.plus"] = add_arrow(ax, (ux + 0.1, uy + h + 0.04), (px, py - 0.2), color=style.VALUE, lw=1.6)
    art["bypass"] = add_arrow(ax, (sx + d * w + 0.04, py), (px - 0.19, py), color=style.VISIBLE, lw=2.6)
    art["plus"] = ax.add_patch(Circle((px, py), 0.17, facecolor="white", edgecolor=style.INK, lw=1.4, zorder=5))
    art["plus.text"] = add_text(ax, px, py, "+", ha="center", size=13, weight="bold", zorder=6)
    art["plus.to.out"] = add_arrow(ax, (px + 0.19, py), (ox - 0.04, py), color=style.INK, lw=1.4)
    for f in range(d):
        art[f"sum[{f}]"] = add_text(ax, x0 + 0.15, y0 + 2.38 + 0.3 * f, _feature_sum(trace, f),
                                    size=NOTE_SIZE + 0.5)
    art["note"] = add_text(ax, x0 + 3.2, y0 + 2.53,
                           f"same position, same width d = {d}:\nadded feature by feature, not concatenated",
                           size=NOTE_SIZE, color="#333333", linespacing=1.35)
    return art


@register(18, "The residual add: same width, feature by feature")
def build_fig18() -> Drawn:
    trace = residual_trace(ex.FIG18_STREAM, ex.FIG18_UPDATE)
    fig, ax = new_canvas(WIDTH, 3.3)
    art = {"heading": add_heading(ax, 0.15, 0.22, "The sub-layer's update is added back onto the stream")}
    art.update(draw_residual(ax, trace, at=(0.0, 0.48)))
    sums = _("; ").join(_feature_sum(trace, f, words=True) for f in range(trace.stream.size))
    alt = _("The residual stream x = {x} goes straight to a plus sign, where the sub-layer's update {u} joins it: "
            "{x} + {u} = {out} ({sums}). Same position, same width, no concatenation.").format(
        x=_v(trace.stream), u=_v(trace.update), out=_v(trace.output), sums=sums)
    return Drawn(18, figure_title(18), fig, alt, art, trace)
