"""Figures 11 and 12: what a large weight does not guarantee, and why scores are scaled.

* Figure 11 keeps the weights at [0.75, 0.25] and changes only the magnitude ``m`` of
  the second value row: the 0.25-weight source can contribute the longer vector.
* Figure 12 shows the variance of the raw dot product q·k growing with the head width
  ``d_h``, and returning to about 1 after dividing by √d_h (an approximation under
  independence, not a measurement of a trained model).

Every drawing helper comes as a pair: ``draw_*(ax, trace, …)`` makes the artists and
returns them by name; ``update_*(artists, trace)`` changes those same artists in place
for a new trace. The widgets in :mod:`tokenpath.widgets` move a slider with the
``update_*`` half, so a slider step never clears or redraws an axes, and the default
slider position reproduces the static figure byte for byte.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from matplotlib.patches import FancyArrowPatch
from matplotlib.ticker import MultipleLocator

from .. import examples, fmt
from .._checks import as_float, as_int
from ..attention import WeightedValuesTrace
from ..lessons.attention import ScoreSpreadTrace, VarianceTrace, score_spread, score_variance, value_magnitude
from . import Drawn, register, style

__all__ = [
    "D_H_FOCUS",
    "D_H_RANGE",
    "EDGES",
    "M_RANGE",
    "closeup_ylim",
    "describe_score_closeup",
    "describe_value_magnitude",
    "draw_score_closeup",
    "draw_value_ledger",
    "draw_value_plane",
    "draw_variance_bars",
    "panel_artists",
    "score_closeup_trace",
    "update_score_closeup",
    "update_value_magnitude",
    "value_plane_limits",
]

#: Range of the value magnitude m that figure 11's right panel (and its slider) covers.
M_RANGE = (examples.FIG11_M_SMALL, examples.FIG11_M_LARGE)
#: Range of head widths figure 12's close-up (and its slider) covers.
D_H_RANGE = (1, 64)
#: The head width figure 12's close-up shows by default: the widest of the bars.
D_H_FOCUS = max(examples.FIG12_D_H)
#: Histogram bin width of the close-up, in score units.
BIN_WIDTH = 0.5
#: Fixed bin edges of the close-up, the same for every slider position: ±3 standard
#: deviations of the widest raw score (3·√64 = 24). The few samples beyond are counted
#: and reported, not dropped silently.
EDGES = np.arange(-3 * math.sqrt(D_H_RANGE[1]), 3 * math.sqrt(D_H_RANGE[1]) + BIN_WIDTH / 2, BIN_WIDTH)

_SMALL = 8.5  # font size of in-panel text, points


def panel_artists(artists: dict, prefix: str) -> dict:
    """The artists of one panel from a figure's flat ``"prefix.name"`` dictionary.

    >>> panel_artists({"right.output": 1, "left.output": 2}, "right")
    {'output': 1}
    """
    if not isinstance(prefix, str) or not prefix:
        raise TypeError("prefix must be a non-empty str")
    head = prefix + "."
    out = {k[len(head):]: v for k, v in artists.items() if k.startswith(head)}
    if not out:
        raise ValueError(f"prefix {prefix!r} names no artists; have {sorted(artists)}")
    return out


def _prefixed(prefix: str, artists: dict) -> dict:
    return {f"{prefix}.{k}": v for k, v in artists.items()}


# ============================================================== figure 11: value magnitude


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


def _path(trace: WeightedValuesTrace) -> np.ndarray:
    """Tails and tips of the contributions laid tip to tail: ``[T_k + 1, 2]``."""
    return np.vstack([np.zeros(2), np.cumsum(trace.contributions, axis=0)])


def _comparison(a: float, b: float) -> str:
    return ">" if a > b else "<" if a < b else "="


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
    text = dict(textcoords="offset points", fontsize=_SMALL, annotation_clip=False)
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


def _check_fig11_trace(trace) -> None:
    if not isinstance(trace, WeightedValuesTrace) or trace.contributions.shape != (2, 2):
        raise TypeError("trace must be a WeightedValuesTrace with two sources and two features")


def _update_value_plane(artists: dict, trace: WeightedValuesTrace) -> None:
    path = _path(trace)
    for j in range(2):
        artists[f"contrib{j}"].set_positions(tuple(path[j]), tuple(path[j + 1]))
    artists["output"].set_positions((0.0, 0.0), tuple(trace.output))
    artists["label0"].xy = tuple((path[0] + path[1]) / 2)
    artists["label1"].xy = tuple((path[1] + path[2]) / 2)
    artists["label_out"].xy = tuple(trace.output / 2)


#: Ledger rows, top to bottom, in axes fractions.
_ROWS = np.linspace(0.97, 0.03, 11)
#: Axes-width of a weight of 1 in the ledger's bars.
_BAR_SPAN = 0.55


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
    kw = dict(fontsize=_SMALL, va="center", ha="left", color=style.INK)
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
        verdict = "contributes the longer vector"
    elif length[small] < length[big]:
        verdict = "contributes the shorter vector"
    else:
        verdict = "contributes a vector of the same length"
    return (
        f"m = {fmt.num(trace.value[1, 1])}: the scores {fmt.vec(trace.scores, 4, bare_ints=True)} give the weights "
        f"{fmt.vec(a)}, whatever m is. The contributions are a₀u₀ = {fmt.vec(c[0])} "
        f"(length {fmt.num(length[0])}) and a₁u₁ = {fmt.vec(c[1])} (length {fmt.num(length[1])}), "
        f"so the output is o = {fmt.vec(trace.output)}. The {fmt.num(a[small])}-weight source "
        f"{verdict} ({fmt.num(length[small])} {_comparison(length[small], length[big])} "
        f"{fmt.num(length[big])})."
    )


def _title_m(trace: WeightedValuesTrace) -> str:
    return f"m = {fmt.num(trace.value[1, 1])}"


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
        artists.update(_prefixed(f"{name}.plane", draw_value_plane(plane, trace, xlim=xlim, ylim=ylim)))
        artists.update(_prefixed(f"{name}.ledger", draw_value_ledger(ledger, trace)))
        artists[f"{name}.title"] = plane.set_title(_title_m(trace), fontsize=10)
    alt = (
        "Two panels on one scale. Each shows a 2-D feature plane with the contributions a₀u₀ "
        "and a₁u₁ drawn tip to tail (green) and the output o drawn from the origin (orange), "
        "next to the arithmetic. Left panel, " + describe_value_magnitude(small)
        + " Right panel, " + describe_value_magnitude(large)
    )
    return Drawn(11, "Same weights, different value magnitude", fig, alt, artists, (small, large))


# ============================================================ figure 12: score variance


def score_closeup_trace(d_h) -> ScoreSpreadTrace:
    """Figure 12's close-up at head width ``d_h``: the engine's cached samples
    (:data:`~tokenpath.examples.FIG12_WIDGET_SAMPLES` pairs, seed
    :data:`~tokenpath.examples.FIG12_SEED`) binned on :data:`EDGES`.

    >>> score_closeup_trace(16).theory
    16.0
    """
    d_h = as_int("d_h", d_h, low=1)
    return score_spread(d_h, EDGES, samples=examples.FIG12_WIDGET_SAMPLES, seed=examples.FIG12_SEED)


def draw_variance_bars(ax, trace: VarianceTrace) -> dict:
    """Grouped bars per head width: the theory d_h (grey), the Monte-Carlo variance of
    q·k (light purple) and of q·k/√d_h (purple), each value written on its bar, and
    the theory after scaling as a dashed grey line.

    Returns ``theory``, ``unscaled``, ``scaled`` (bar containers), ``scaled_theory``
    (the line) and ``labels`` (a list of texts).
    """
    if not isinstance(trace, VarianceTrace):
        raise TypeError(f"trace must be a VarianceTrace, got {type(trace).__name__}")
    x = np.arange(trace.d_h.size, dtype=float)
    w = 0.27
    scaled_theory = trace.theory / trace.d_h  # variance of q·k/√d_h under independence
    theory = ax.bar(x - w, trace.theory, w, color=style.NEUTRAL, label="theory: dₕ")
    unscaled = ax.bar(
        x, trace.unscaled, w, facecolor=_LIGHT_ACCENT, edgecolor=style.ACCENT, linewidth=1.0,
        label="Monte Carlo: q·k",
    )
    scaled = ax.bar(x + w, trace.scaled, w, color=style.ACCENT, label="Monte Carlo: q·k/√dₕ")
    line = ax.hlines(
        scaled_theory, x - 1.5 * w, x + 1.5 * w, colors=style.NEUTRAL, linestyles="--",
        linewidth=0.9, zorder=3, label=f"theory after ÷√dₕ: {fmt.vec(np.unique(scaled_theory), 4, bare_ints=True)[1:-1]}",
    )
    labels = []
    for bars, values, digits in (
        (theory, trace.theory, None), (unscaled, trace.unscaled, 2), (scaled, trace.scaled, 2)
    ):
        for bar, v in zip(bars, values):
            labels.append(
                ax.annotate(
                    fmt.num(v, digits), (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    xytext=(0, 2), textcoords="offset points", ha="center", va="bottom",
                    fontsize=7, rotation=90,
                )
            )
    ax.set_xticks(x, [f"dₕ = {d}" for d in trace.d_h.tolist()])
    ax.tick_params(axis="x", length=0)
    ax.set_xlim(x[0] - 0.6, x[-1] + 0.6)
    ax.set_ylim(0, 1.3 * float(max(trace.theory.max(), trace.unscaled.max())))
    ax.set_ylabel("variance of the score")
    ax.legend(handles=[theory, unscaled, scaled, line], loc="upper left", handlelength=1.2)
    return {"theory": theory, "unscaled": unscaled, "scaled": scaled, "scaled_theory": line, "labels": labels}


def _rgba(colour: str, alpha: float) -> tuple[float, float, float, float]:
    colour = colour.lstrip("#")
    return (*(int(colour[i : i + 2], 16) / 255 for i in (0, 2, 4)), alpha)


_LIGHT_ACCENT = _rgba(style.ACCENT, 0.3)


def draw_score_closeup(ax, trace: ScoreSpreadTrace) -> dict:
    """Histograms (densities over the trace's fixed edges) of q·k and q·k/√d_h for one
    head width; the legend carries their sample variances and the theory values.

    The axes keep one scale for every head width of :data:`D_H_RANGE`
    (:func:`closeup_ylim`), so moving between widths changes bar heights, never the
    axis. Returns ``unscaled``, ``scaled`` (step patches), ``legend`` and ``title``.
    """
    if not isinstance(trace, ScoreSpreadTrace):
        raise TypeError(f"trace must be a ScoreSpreadTrace, got {type(trace).__name__}")
    unscaled = ax.stairs(
        trace.unscaled_density, trace.edges, fill=True, facecolor=_LIGHT_ACCENT,
        edgecolor=style.ACCENT, linewidth=0.9, label="q·k",
    )
    scaled = ax.stairs(trace.scaled_density, trace.edges, fill=True, color=style.ACCENT, label="q·k/√dₕ")
    title = ax.set_title("", loc="left", fontsize=10)
    ax.set_xlim(trace.edges[0], trace.edges[-1])
    ax.set_ylim(*closeup_ylim())
    ax.set_xlabel("score")
    ax.set_ylabel("density")
    legend = ax.legend(loc="upper left", handlelength=1.2, fontsize=_SMALL)
    artists = {"unscaled": unscaled, "scaled": scaled, "legend": legend, "title": title}
    update_score_closeup(artists, trace)
    return artists


@functools.lru_cache(maxsize=1)
def closeup_ylim() -> tuple[float, float]:
    """The close-up's y-limits, shared by every head width in :data:`D_H_RANGE`: 1.4 ×
    the tallest bar any width produces (the spiky d_h = 1), up to the next 0.1, so
    the legend never covers a bar.

    >>> closeup_ylim()
    (0.0, 0.9)
    """
    peak = max(
        float(max(t.unscaled_density.max(), t.scaled_density.max()))
        for t in map(score_closeup_trace, range(D_H_RANGE[0], D_H_RANGE[1] + 1))
    )
    return 0.0, math.ceil(14 * peak) / 10


def update_score_closeup(artists: dict, trace: ScoreSpreadTrace) -> None:
    """Move the close-up to ``trace`` in place: bar heights, legend statistics, title."""
    if not isinstance(trace, ScoreSpreadTrace):
        raise TypeError(f"trace must be a ScoreSpreadTrace, got {type(trace).__name__}")
    if trace.edges.shape != (len(artists["unscaled"].get_data().edges),):
        raise ValueError("trace must be binned on the edges the close-up was drawn with")
    artists["unscaled"].set_data(trace.unscaled_density)
    artists["scaled"].set_data(trace.scaled_density)
    artists["title"].set_text(f"(b) close-up at dₕ = {trace.d_h}")
    raw, scaled = artists["legend"].get_texts()
    outside = trace.unscaled_outside
    beyond = (
        f"\n({fmt.num(outside)} samples beyond ±{fmt.num(trace.edges[-1])} not drawn)" if outside else ""
    )
    raw.set_text(
        f"q·k: variance {fmt.num(trace.unscaled_var, 2)} (theory {fmt.num(trace.theory)}){beyond}"
    )
    scaled.set_text(
        f"q·k/√{trace.d_h}: variance {fmt.num(trace.scaled_var, 2)} "
        f"(theory {fmt.num(trace.theory / trace.d_h)})"
    )


def describe_score_closeup(trace: ScoreSpreadTrace) -> str:
    """A plain-text summary of one close-up state, every number from ``trace``.

    >>> print(describe_score_closeup(score_closeup_trace(16)))  # doctest: +ELLIPSIS
    dₕ = 16: over 4000 independent pairs of standard-normal vectors, the unscaled score q·k has sample variance ... (theory 16); divided by √16 = 4 it has ... (theory 1). An approximation under independence, not a measurement of a trained model.
    """
    if not isinstance(trace, ScoreSpreadTrace):
        raise TypeError(f"trace must be a ScoreSpreadTrace, got {type(trace).__name__}")
    return (
        f"dₕ = {trace.d_h}: over {fmt.num(trace.samples)} independent pairs of standard-normal "
        f"vectors, the unscaled score q·k has sample variance {fmt.num(trace.unscaled_var, 2)} "
        f"(theory {fmt.num(trace.theory)}); divided by √{trace.d_h} = {fmt.num(math.sqrt(trace.d_h), 4, bare_ints=True)} "
        f"it has {fmt.num(trace.scaled_var, 2)} (theory {fmt.num(trace.theory / trace.d_h)}). "
        "An approximation under independence, not a measurement of a trained model."
    )


@register(12, "Head width and score scale")
def build_fig12() -> Drawn:
    bars_trace = score_variance(examples.FIG12_D_H, samples=examples.FIG12_SAMPLES, seed=examples.FIG12_SEED)
    close_trace = score_closeup_trace(D_H_FOCUS)
    fig = style.new_figure(style.WIDTH, 3.6)
    grid = fig.add_gridspec(
        1, 2, width_ratios=[1.0, 1.3], left=0.085, right=0.99, top=0.92, bottom=0.25, wspace=0.2
    )
    ax_a = fig.add_subplot(grid[0, 0])
    ax_b = fig.add_subplot(grid[0, 1])
    bars = draw_variance_bars(ax_a, bars_trace)
    ax_a.set_title("(a) score variance against dₕ", loc="left", fontsize=10)
    close = draw_score_closeup(ax_b, close_trace)
    note = fig.text(
        0.01, 0.02,
        f"q and k have independent standard-normal components; {fmt.num(bars_trace.samples)} "
        f"pairs per width in (a), {fmt.num(close_trace.samples)} in (b), seed "
        f"{fmt.num(bars_trace.seed)}.\nAn approximation under independence, "
        "not a measurement of a trained model.",
        fontsize=8, color=style.INK, va="bottom", ha="left",
    )
    artists = {**_prefixed("a", bars), **_prefixed("b", close), "note": note}
    widths = ", ".join(str(d) for d in bars_trace.d_h.tolist())
    alt = (
        f"Panel (a): grouped bars at dₕ = {widths}. The variance of the unscaled score q·k "
        f"under independence is {fmt.vec(bars_trace.theory)}; the Monte-Carlo estimate over "
        f"{fmt.num(bars_trace.samples)} pairs per width is {fmt.vec(bars_trace.unscaled, 2)}; "
        f"after dividing by √dₕ the estimates are {fmt.vec(bars_trace.scaled, 2)} against a "
        f"theory of {fmt.vec(bars_trace.theory / bars_trace.d_h)}. Panel (b): histograms of "
        "the unscaled and scaled scores on one axis. " + describe_score_closeup(close_trace)
    )
    return Drawn(12, "Head width and score scale", fig, alt, artists, (bars_trace, close_trace))
