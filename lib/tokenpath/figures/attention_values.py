"""Figure 11: what a large weight does not guarantee.

The weights stay at [0.75, 0.25] while only the magnitude ``m`` of the second value
row changes: the 0.25-weight source can contribute the longer vector. Each panel is a
2-D feature plane (the contributions laid tip to tail, the output from the origin)
beside its arithmetic.

Every drawing helper comes as a pair: ``draw_*(ax, trace, …)`` makes the artists and
returns them by name; ``update_*(artists, trace)`` changes those same artists in place
for a new trace. The ``m`` slider of :mod:`tokenpath.widgets.attention` moves the right
panel with :func:`update_value_magnitude`, so a slider step never clears or redraws an
axes, and the default slider position reproduces the static figure byte for byte. Why
scores are scaled (figure 12) is in :mod:`tokenpath.figures.attention_scale`.
"""

from __future__ import annotations

import numpy as np
from matplotlib.patches import FancyArrowPatch
from matplotlib.ticker import MultipleLocator

from .. import examples, fmt
from ..attention import WeightedValuesTrace
from ..i18n import _
from ..lessons.attention import value_magnitude
from . import Drawn, register, style
from .draw import PANEL_SIZE, panel_artists, prefix_artists

__all__ = [
    "M_RANGE",
    "describe_value_magnitude",
    "draw_value_ledger",
    "draw_value_plane",
    "update_value_magnitude",
    "value_plane_limits",
]

#: Range of the value magnitude m that figure 11's right panel (and its slider) covers.
M_RANGE = (examples.FIG11_M_SMALL, examples.FIG11_M_LARGE)


def _check_fig11_trace(trace) -> None:
    if not isinstance(trace, WeightedValuesTrace) or trace.contributions.shape != (2, 2):
        raise TypeError("trace must be a WeightedValuesTrace with two sources and two features")


def _path(trace: WeightedValuesTrace) -> np.ndarray:
    """Tails and tips of the contributions laid tip to tail: ``[T_k + 1, 2]``."""
    return np.vstack([np.zeros(2), np.cumsum(trace.contributions, axis=0)])


def _comparison(a: float, b: float) -> str:
    return ">" if a > b else "<" if a < b else "="


def _update_value_plane(artists: dict, trace: WeightedValuesTrace) -> None:
    path = _path(trace)
    for j in range(2):
        artists[f"contrib{j}"].set_positions(tuple(path[j]), tuple(path[j + 1]))
    artists["output"].set_positions((0.0, 0.0), tuple(trace.output))
    artists["label0"].xy = tuple((path[0] + path[1]) / 2)
    artists["label1"].xy = tuple((path[1] + path[2]) / 2)
    artists["label_out"].xy = tuple(trace.output / 2)


def value_plane_limits(*traces: WeightedValuesTrace) -> tuple[tuple[float, float], tuple[float, float]]:
    """Shared ``(xlim, ylim)`` holding the origin, every contribution tip and output of
    ``traces``, with a margin, so panels drawn with them have one scale.

    >>> value_plane_limits(value_magnitude(40))
    ((-0.75, 3.75), (-1.0, 11.0))
    """
    if not traces:
        raise ValueError("traces must name at least one WeightedValuesTrace")
    points = [np.zeros((1, 2))]
    for k, t in enumerate(traces):
        if not isinstance(t, WeightedValuesTrace) or t.output.shape != (2,):
            raise TypeError(f"traces[{k}] must be a WeightedValuesTrace with a 2-D output")
        points += [np.cumsum(t.contributions, axis=0), t.output[None, :]]
    p = np.concatenate(points)
    lo, hi = p.min(axis=0), p.max(axis=0)
    span = max(hi - lo)
    pad = 0.1 * span
    # room on the right of the path for the labels of the vertical contribution
    return (float(lo[0] - 0.75 * pad), float(hi[0] + 2.25 * pad)), (float(lo[1] - pad), float(hi[1] + pad))


def draw_value_plane(ax, trace: WeightedValuesTrace, *, xlim, ylim) -> dict:
    """The 2-D feature plane: contributions a_j·u_j as green arrows laid tip to tail
    from the origin, and the output o (orange) from the origin to the last tip.

    Returns ``contrib0``, ``contrib1``, ``output`` (arrows), ``origin`` (the dot drawn
    over their tails) and ``label0``, ``label1``, ``label_out`` (annotations that
    follow the arrows). Both panels of figure 11 pass
    the same ``xlim``/``ylim`` so arrow lengths compare across panels.
    """
    _check_fig11_trace(trace)
    artists = {}
    for j in range(2):
        arrow = FancyArrowPatch(
            (0.0, 0.0), (0.0, 0.0), arrowstyle="-|>", mutation_scale=11, linewidth=2.0,
            color=style.VALUE, shrinkA=0, shrinkB=0, zorder=4,
        )
        ax.add_patch(arrow)
        artists[f"contrib{j}"] = arrow
    out = FancyArrowPatch(
        (0.0, 0.0), (0.0, 0.0), arrowstyle="-|>", mutation_scale=11, linewidth=2.0,
        color=style.QUERY, shrinkA=0, shrinkB=0, zorder=3,
    )
    ax.add_patch(out)
    artists["output"] = out
    (artists["origin"],) = ax.plot([0.0], [0.0], "o", color=style.INK, markersize=3, zorder=5)
    text = dict(textcoords="offset points", fontsize=PANEL_SIZE, annotation_clip=False)
    artists["label0"] = ax.annotate(
        "a₀u₀", (0.0, 0.0), xytext=(0, -4), ha="center", va="top", color=style.VALUE, **text
    )
    artists["label1"] = ax.annotate(
        "a₁u₁", (0.0, 0.0), xytext=(4, 0), ha="left", va="center", color=style.VALUE, **text
    )
    artists["label_out"] = ax.annotate(
        "o", (0.0, 0.0), xytext=(-5, 3), ha="right", va="bottom", fontweight="bold",
        color=style.INK, **text
    )
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("feature 0")
    ax.set_ylabel("feature 1")
    ax.xaxis.set_major_locator(MultipleLocator(1))
    ax.yaxis.set_major_locator(MultipleLocator(2))
    _update_value_plane(artists, trace)
    return artists


#: Ledger rows, top to bottom, in axes fractions.
_ROWS = np.linspace(0.97, 0.03, 11)
#: Axes-width of a weight of 1 in the ledger's bars.
_BAR_SPAN = 0.55


def _update_value_ledger(artists: dict, trace: WeightedValuesTrace) -> None:
    a, u, c, length = trace.weights, trace.value, trace.contributions, trace.lengths
    artists["scores"].set_text(f"softmax({fmt.vec(trace.scores, 4, bare_ints=True)}) =")
    for j, bar in enumerate(artists["weights"]):
        bar.set_width(_BAR_SPAN * a[j])
        label = artists[f"weight{j}"]
        label.set_x(bar.get_x() + bar.get_width() + 0.03)
        label.set_text(fmt.num(a[j]))
    artists["values"].set_text(f"u₀ = {fmt.vec(u[0])},  u₁ = {fmt.vec(u[1])}")
    for j in range(2):
        artists[f"contrib{j}"].set_text(
            f"a{fmt.subscript(j)}u{fmt.subscript(j)} = {fmt.num(a[j])}·{fmt.vec(u[j])} = {fmt.vec(c[j])}"
        )
    artists["output"].set_text(f"o = a₀u₀ + a₁u₁ = {fmt.vec(trace.output)}")
    big = int(np.argmax(a))
    small = 1 - big
    artists["compare"].set_text(
        f"|a{fmt.subscript(small)}u{fmt.subscript(small)}| = {fmt.num(length[small])} "
        f"{_comparison(length[small], length[big])} |a{fmt.subscript(big)}u{fmt.subscript(big)}| = {fmt.num(length[big])}"
    )


def draw_value_ledger(ax, trace: WeightedValuesTrace) -> dict:
    """The arithmetic beside a feature plane: the weights as bars (they never change
    in figure 11), then u_j, a_j·u_j and o written out with :mod:`tokenpath.fmt`.

    Returns ``weights`` (the bar container) and the texts ``scores``, ``weight0``,
    ``weight1``, ``values``, ``contrib0``, ``contrib1``, ``output``, ``compare``.
    """
    _check_fig11_trace(trace)
    ax.set_axis_off()
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    r = _ROWS
    kw = dict(fontsize=PANEL_SIZE, va="center", ha="left", color=style.INK)
    head = {**kw, "fontweight": "bold"}
    artists = {}
    ax.text(0.0, r[0], "weights (unchanged)", **head)
    artists["scores"] = ax.text(0.0, r[1], "", **kw)
    artists["weights"] = ax.barh(r[2:4], [0.0, 0.0], left=0.13, height=0.055, color=style.VISIBLE)
    for j in range(2):
        ax.text(0.0, r[2 + j], f"a{fmt.subscript(j)}", **kw)
        artists[f"weight{j}"] = ax.text(0.0, r[2 + j], "", **kw)
    ax.text(0.0, r[4], "value rows", **head)
    artists["values"] = ax.text(0.0, r[5], "", **kw)
    ax.text(0.0, r[6], "contributions and output", **head)
    artists["contrib0"] = ax.text(0.0, r[7], "", **{**kw, "color": style.VALUE})
    artists["contrib1"] = ax.text(0.0, r[8], "", **{**kw, "color": style.VALUE})
    artists["output"] = ax.text(0.0, r[9], "", **head)
    artists["compare"] = ax.text(0.0, r[10], "", **kw)
    _update_value_ledger(artists, trace)
    return artists


def _title_m(trace: WeightedValuesTrace) -> str:
    return f"m = {fmt.num(trace.value[1, 1])}"


def update_value_magnitude(artists: dict, trace: WeightedValuesTrace) -> None:
    """Move one figure-11 panel to ``trace``, in place: its ``title``, and the artists
    of :func:`draw_value_plane` and :func:`draw_value_ledger` under the prefixes
    ``plane.`` and ``ledger.`` (the layout of ``panel_artists(drawn.artists, "right")``)."""
    _check_fig11_trace(trace)
    artists["title"].set_text(_title_m(trace))
    _update_value_plane(panel_artists(artists, "plane"), trace)
    _update_value_ledger(panel_artists(artists, "ledger"), trace)


def describe_value_magnitude(trace: WeightedValuesTrace) -> str:
    """A plain-text summary of one figure-11 state, every number from ``trace``.

    >>> print(describe_value_magnitude(value_magnitude(40)))
    m = 40: the scores [1.0986, 0] give the weights [0.75, 0.25], whatever m is. The contributions are a₀u₀ = [1.5, 0] (length 1.5) and a₁u₁ = [0, 10] (length 10), so the output is o = [1.5, 10]. The 0.25-weight source contributes the longer vector (10 > 1.5).
    """
    _check_fig11_trace(trace)
    a, c, length = trace.weights, trace.contributions, trace.lengths
    big = int(np.argmax(a))
    small = 1 - big
    if length[small] > length[big]:
        verdict = _("The {weight}-weight source contributes the longer vector")
    elif length[small] < length[big]:
        verdict = _("The {weight}-weight source contributes the shorter vector")
    else:
        verdict = _("The {weight}-weight source contributes a vector of the same length")
    return _(
        "m = {m}: the scores {scores} give the weights {weights}, whatever m is. The contributions are "
        "a₀u₀ = {c0} (length {len0}) and a₁u₁ = {c1} (length {len1}), so the output is o = {output}. "
        "{verdict} ({small} {comparison} {big}).").format(
        m=fmt.num(trace.value[1, 1]), scores=fmt.vec(trace.scores, 4, bare_ints=True), weights=fmt.vec(a),
        c0=fmt.vec(c[0]), len0=fmt.num(length[0]), c1=fmt.vec(c[1]), len1=fmt.num(length[1]),
        output=fmt.vec(trace.output), verdict=verdict.format(weight=fmt.num(a[small])),
        small=fmt.num(length[small]), comparison=_comparison(length[small], length[big]), big=fmt.num(length[big]))


#: Figure-11 layout in inches: outer margin, ledger width, gap before a plane (room
#: for its y-axis), gap between the planes, gap after the right plane, plane height,
#: bottom and top margins.
_F11 = dict(
    margin=0.05, ledger=1.85, axis_gap=0.45, plane_gap=0.32, after=0.22, height=2.85,
    bottom=0.5, top=0.32,
)


@register(11, "Same weights, different value magnitude")
def build_fig11() -> Drawn:
    small = value_magnitude(examples.FIG11_M_SMALL)
    large = value_magnitude(examples.FIG11_M_LARGE)
    xlim, ylim = value_plane_limits(small, large, value_magnitude(M_RANGE[1]))
    g = _F11
    # equal aspect: the plane's width follows from its height and the shared limits
    plane_w = g["height"] * (xlim[1] - xlim[0]) / (ylim[1] - ylim[0])
    x_plane_l = g["margin"] + g["ledger"] + g["axis_gap"]
    x_plane_r = x_plane_l + plane_w + g["plane_gap"]
    x_ledger_r = x_plane_r + plane_w + g["after"]
    fig_w = x_ledger_r + g["ledger"] + g["margin"]
    fig_h = g["bottom"] + g["height"] + g["top"]
    fig = style.new_figure(fig_w, fig_h)
    boxes = {
        "left": ((g["margin"], g["ledger"]), (x_plane_l, plane_w)),
        "right": ((x_ledger_r, g["ledger"]), (x_plane_r, plane_w)),
    }

    def rect(x, w):
        return [x / fig_w, g["bottom"] / fig_h, w / fig_w, g["height"] / fig_h]

    artists = {}
    for name, trace in (("left", small), ("right", large)):
        (lx, lw), (px, pw) = boxes[name]
        ledger = fig.add_axes(rect(lx, lw))
        plane = fig.add_axes(rect(px, pw))
        artists.update(prefix_artists(f"{name}.plane", draw_value_plane(plane, trace, xlim=xlim, ylim=ylim)))
        artists.update(prefix_artists(f"{name}.ledger", draw_value_ledger(ledger, trace)))
        artists[f"{name}.title"] = plane.set_title(_title_m(trace), fontsize=10)
    alt = _(
        "Two panels on one scale. Each shows a 2-D feature plane with the contributions a₀u₀ "
        "and a₁u₁ drawn tip to tail (green) and the output o drawn from the origin (orange), "
        "next to the arithmetic; the value rows are u₀ = {u0} and u₁ = [0, m], so only the second "
        "source's value grows with m. Left panel (u₁ = {left_u1}), {left} Right panel (u₁ = {right_u1}), "
        "{right}").format(u0=fmt.vec(small.value[0]), left_u1=fmt.vec(small.value[1]),
                         left=describe_value_magnitude(small), right_u1=fmt.vec(large.value[1]),
                         right=describe_value_magnitude(large))
    return Drawn(11, "Same weights, different value magnitude", fig, alt, artists, (small, large))
