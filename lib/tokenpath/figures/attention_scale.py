"""Figure 12: why scores are scaled.

The variance of the raw dot product q·k grows with the head width ``d_h`` and returns
to about 1 after dividing by √d_h (an approximation under independence, not a
measurement of a trained model): (a) bars per head width, (b) a close-up of both
score distributions at one width.

Every drawing helper comes as a pair: ``draw_*(ax, trace, …)`` makes the artists and
returns them by name; ``update_*(artists, trace)`` changes those same artists in place
for a new trace. The ``d_h`` slider of :mod:`tokenpath.widgets.attention` moves the
close-up with :func:`update_score_closeup`, so a slider step never clears or redraws
an axes, and the default slider position reproduces the static figure byte for byte.

Figure 11 (value magnitude) is in :mod:`tokenpath.figures.attention_values`; the names
its widget reads (``M_RANGE``, ``update_value_magnitude``, ``describe_value_magnitude``)
and :func:`~tokenpath.figures.draw.panel_artists` can be read from this module too, as
the widgets of :mod:`tokenpath.widgets` read them.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .. import examples, fmt
from .._checks import as_int
from ..i18n import _
from ..lessons.attention import ScoreSpreadTrace, VarianceTrace, score_spread, score_variance
from . import Drawn, register, style
from .draw import PANEL_SIZE, prefix_artists

__all__ = [
    "D_H_FOCUS",
    "D_H_RANGE",
    "EDGES",
    "closeup_ylim",
    "describe_score_closeup",
    "draw_score_closeup",
    "draw_variance_bars",
    "score_closeup_trace",
    "update_score_closeup",
]

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


def score_closeup_trace(d_h) -> ScoreSpreadTrace:
    """Figure 12's close-up at head width ``d_h``: the engine's cached samples
    (:data:`~tokenpath.examples.FIG12_WIDGET_SAMPLES` pairs, seed
    :data:`~tokenpath.examples.FIG12_SEED`) binned on :data:`EDGES`.

    >>> score_closeup_trace(16).theory
    16.0
    """
    d_h = as_int("d_h", d_h, low=1)
    return score_spread(d_h, EDGES, samples=examples.FIG12_WIDGET_SAMPLES, seed=examples.FIG12_SEED)


def _rgba(colour: str, alpha: float) -> tuple[float, float, float, float]:
    colour = colour.lstrip("#")
    return (*(int(colour[i : i + 2], 16) / 255 for i in (0, 2, 4)), alpha)


_LIGHT_ACCENT = _rgba(style.ACCENT, 0.3)


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
    legend = ax.legend(loc="upper left", handlelength=1.2, fontsize=PANEL_SIZE)
    artists = {"unscaled": unscaled, "scaled": scaled, "legend": legend, "title": title}
    update_score_closeup(artists, trace)
    return artists


def describe_score_closeup(trace: ScoreSpreadTrace) -> str:
    """A plain-text summary of one close-up state, every number from ``trace``.

    >>> print(describe_score_closeup(score_closeup_trace(16)))  # doctest: +ELLIPSIS
    dₕ = 16: over 4000 independent pairs of standard-normal vectors, the unscaled score q·k has sample variance ... (theory 16); divided by √16 = 4 it has ... (theory 1). An approximation under independence, not a measurement of a trained model.
    """
    if not isinstance(trace, ScoreSpreadTrace):
        raise TypeError(f"trace must be a ScoreSpreadTrace, got {type(trace).__name__}")
    return _(
        "dₕ = {d_h}: over {samples} independent pairs of standard-normal vectors, the unscaled score q·k has "
        "sample variance {unscaled} (theory {theory}); divided by √{d_h} = {root} it has {scaled} (theory "
        "{scaled_theory}). An approximation under independence, not a measurement of a trained model.").format(
        d_h=trace.d_h, samples=fmt.num(trace.samples), unscaled=fmt.num(trace.unscaled_var, 2),
        theory=fmt.num(trace.theory), root=fmt.num(math.sqrt(trace.d_h), 4, bare_ints=True),
        scaled=fmt.num(trace.scaled_var, 2), scaled_theory=fmt.num(trace.theory / trace.d_h))


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
    artists = {**prefix_artists("a", bars), **prefix_artists("b", close), "note": note}
    widths = ", ".join(str(d) for d in bars_trace.d_h.tolist())
    alt = _(
        "Panel (a): grouped bars at dₕ = {widths}. The variance of the unscaled score q·k "
        "under independence is {theory}; the Monte-Carlo estimate over {samples} pairs per width is "
        "{unscaled}; after dividing by √dₕ the estimates are {scaled} against a theory of {scaled_theory}. "
        "Panel (b): histograms of the unscaled and scaled scores on one axis. {closeup}").format(
        widths=widths, theory=fmt.vec(bars_trace.theory), samples=fmt.num(bars_trace.samples),
        unscaled=fmt.vec(bars_trace.unscaled, 2), scaled=fmt.vec(bars_trace.scaled, 2),
        scaled_theory=fmt.vec(bars_trace.theory / bars_trace.d_h), closeup=describe_score_closeup(close_trace))
    return Drawn(12, "Head width and score scale", fig, alt, artists, (bars_trace, close_trace))
