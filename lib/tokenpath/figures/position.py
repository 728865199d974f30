"""Figure 15: RoPE's discs, and the sinusoidal heat map of chapter 06.

* Figure 15 (a) is the basic picture: one feature pair turning at ω = π/2 per
  position, the query pair q fixed pointing right and the key pair k, which sits
  m − n = 0, 1, 2 positions before the query (as in a decoder), turned by (n − m)ω,
  i.e. 0°, 90°, 180° clockwise; the score q·k′ reads 1, 0, −1.
* (b) one disc at any distance and frequency, beside the pair's score against the
  distance; (c) one pair of a 64-wide head, whose speed the base and the pair index
  set, beside the frequencies of all its pairs. The widgets of
  :mod:`tokenpath.widgets.position` move (b) and (c); their default is this figure.

Colours keep their book-wide meaning: the query is orange (the receiving position),
the key blue (a source the query reads). No value vector appears: RoPE never turns
values.

Every drawing helper comes as a pair, ``draw_*(ax, trace)`` returning named artists
and ``update_*(artists, trace)`` moving them in place.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from matplotlib.patches import Circle, FancyArrowPatch

from .. import examples, fmt
from ..lessons.position import Disc, DistanceTrace, PairTrace, fig15_trace
from ..position import rope_frequencies, sinusoidal
from .._checks import as_int
from . import Drawn, FigureDisplay, register, register_drawing, style
from ..i18n import _
from .draw import figure_title, panel_artists

__all__ = [
    "LOG_BASE_RANGE",
    "OMEGA_RANGE",
    "angle_text",
    "describe_disc",
    "describe_distance",
    "describe_pair",
    "dot_text",
    "draw_curve",
    "draw_disc",
    "draw_frequencies",
    "draw_sinusoidal",
    "omega_text",
    "panel_artists",
    "rad_text",
    "sinusoidal_heatmap",
    "update_curve",
    "update_disc",
    "update_distance",
    "update_frequencies",
    "update_pair",
]

#: ω the live disc (b) and its slider cover, rad/position: 0 … π (at π a neighbour
#: already points the opposite way).
OMEGA_RANGE = (0.0, math.pi)
#: log₁₀ of the bases panel (c) and its slider cover.
LOG_BASE_RANGE = examples.FIG15_LOG_BASE_RANGE

_SMALL = 8.5  # font size of in-panel text, points
_R = 1.38  # disc axes reach ±_R feature units


# --------------------------------------------------------------------------- wording


def omega_text(omega: float) -> str:
    """ω as the book writes it: a simple multiple of π when it is one, else radians.

    >>> omega_text(math.pi / 2), omega_text(3 * math.pi / 4), omega_text(math.pi), omega_text(0.01)
    ('π/2', '3π/4', 'π', '0.01')
    """
    f = Fraction(omega / math.pi).limit_denominator(12)
    if f and abs(float(f) * math.pi - omega) < 1e-12:
        top = "" if f.numerator == 1 else str(f.numerator)
        return f"{top}π" + ("" if f.denominator == 1 else f"/{f.denominator}")
    return rad_text(omega)


def rad_text(x: float) -> str:
    """Radians to three significant digits, never in e-notation.

    >>> rad_text(0.01), rad_text(0.749894), rad_text(1.5399e-06)
    ('0.01', '0.75', '0.00000154')
    """
    return fmt.num(float(f"{x:.3g}"), minus=fmt.MINUS)


def angle_text(disc: Disc) -> str:
    """How far the key turns relative to q, in degrees (one decimal at most) and with
    its direction: ``90° clockwise`` for a key before the query.

    >>> angle_text(fig15_trace().discs[1]), angle_text(fig15_trace().discs[0])
    ('90° clockwise', '0°')
    """
    degrees = round(disc.degrees, 1) + 0.0
    if degrees == 0:
        return "0°"
    way = "clockwise" if degrees < 0 else "counter-clockwise"
    return f"{fmt.num(abs(degrees))}° {way}"


def dot_text(disc: Disc) -> str:
    """The pair's score q·k′, four decimals or a bare integer: ``−1``, ``0.9996``.

    >>> [dot_text(d) for d in fig15_trace().discs]
    ['1', '0', '−1']
    """
    return fmt.num(round(disc.dot, 12), 4, minus=fmt.MINUS, bare_ints=True)


def _angle_words(disc: Disc) -> str:
    """:func:`angle_text` in the reader's language, for the words beside a figure (the
    text drawn inside it stays :func:`angle_text`)."""
    degrees = round(disc.degrees, 1) + 0.0
    if degrees == 0:
        return "0°"
    way = _("{degrees}° clockwise") if degrees < 0 else _("{degrees}° counter-clockwise")
    return way.format(degrees=fmt.num(abs(degrees)))


def _distance_text(disc: Disc) -> str:
    return fmt.num(disc.distance, minus=fmt.MINUS)


def describe_disc(disc: Disc) -> str:
    """One disc in words.

    >>> describe_disc(fig15_trace().discs[2])
    'm − n = 2: the key turns by 2·π/2 = 180° clockwise; q·k′ = −1'
    """
    return _("m − n = {distance}: the key turns by {distance}·{omega} = {angle}; q·k′ = {dot}").format(
        distance=_distance_text(disc), omega=omega_text(disc.omega), angle=_angle_words(disc), dot=dot_text(disc))


# ----------------------------------------------------------------------------- discs


def _arrow(colour: str, width: float, zorder: float) -> FancyArrowPatch:
    return FancyArrowPatch(
        (0.0, 0.0), (1.0, 0.0), arrowstyle="-|>", mutation_scale=12, linewidth=width,
        color=colour, shrinkA=0, shrinkB=0, zorder=zorder, capstyle="butt",
    )


def draw_disc(ax, disc: Disc, *, labels: bool = False) -> dict:
    """One feature pair as a disc: the unit circle, q (orange, fixed), the turned key
    k′ = R((n − m)ω)k (blue, clockwise for a key before the query), the arc of the angle, and k′'s projection on q's
    direction, whose length is the score q·k′ (|q| = 1 here).

    Returns ``query``, ``key``, ``arc``, ``drop`` (dotted line from k′'s tip to q's
    axis), ``foot`` (the projection point), ``origin`` and ``readout`` (text under the
    disc). ``labels`` names the two feature axes.
    """
    _check_disc(disc)
    ax.set_xlim(-_R, _R)
    ax.set_ylim(-_R, _R)
    ax.set_aspect("equal", adjustable="box")
    ax.set_axis_off()
    ax.add_patch(Circle((0, 0), 1.0, fill=False, color=style.NEUTRAL, linewidth=0.8, zorder=1))
    ax.plot([-1.15, 1.15], [0, 0], color=style.LIGHT, linewidth=0.8, zorder=0.5)
    ax.plot([0, 0], [-1.15, 1.15], color=style.LIGHT, linewidth=0.8, zorder=0.5)
    if labels:
        ax.text(1.2, -0.22, "1st feature of pair i", fontsize=7.5, ha="right", va="top", color=style.NEUTRAL)
        ax.text(0.05, 1.17, "2nd feature of pair i", fontsize=7.5, ha="left", va="top", color=style.NEUTRAL)
    artists = {}
    (artists["arc"],) = ax.plot([], [], color=style.INK, linewidth=0.9, zorder=2)
    (artists["drop"],) = ax.plot([], [], color=style.VISIBLE, linewidth=0.9, linestyle=(0, (1.5, 1.5)), zorder=2)
    artists["query"] = ax.add_patch(_arrow(style.QUERY, 3.2, 3))
    artists["key"] = ax.add_patch(_arrow(style.VISIBLE, 1.8, 4))
    (artists["foot"],) = ax.plot([], [], "o", color=style.VISIBLE, markersize=3.5, zorder=5)
    (artists["origin"],) = ax.plot([0.0], [0.0], "o", color=style.INK, markersize=3, zorder=6)
    artists["readout"] = ax.text(0.5, -0.02, "", transform=ax.transAxes, ha="center", va="top",
                                 fontsize=_SMALL, color=style.INK, linespacing=1.4)
    update_disc(artists, disc)
    return artists


def _check_disc(disc) -> None:
    if not isinstance(disc, Disc):
        raise TypeError(f"disc must be a lessons.position.Disc, got {type(disc).__name__}")


def update_disc(artists: dict, disc: Disc, readout: str | None = None) -> None:
    """Move one disc's artists to ``disc``; ``readout`` replaces the default text
    (angle and score)."""
    _check_disc(disc)
    artists["query"].set_positions((0.0, 0.0), tuple(disc.q))
    artists["key"].set_positions((0.0, 0.0), tuple(disc.turned_key))
    turn = math.remainder(disc.angle, 2 * math.pi)  # the arc shows the net turn, −π … π
    start = math.atan2(disc.k[1], disc.k[0])
    t = start + np.linspace(0.0, turn, 65)
    artists["arc"].set_data(0.32 * np.cos(t), 0.32 * np.sin(t))
    tip = disc.turned_key
    artists["drop"].set_data([tip[0], disc.dot], [tip[1], 0.0])
    artists["foot"].set_data([disc.dot], [0.0])
    artists["readout"].set_text(readout if readout is not None else f"{angle_text(disc)},  q·k′ = {dot_text(disc)}")


# ------------------------------------------------------------------- (b) score curve


def draw_curve(ax, trace: DistanceTrace) -> dict:
    """The pair's score q·R((n − m)ω)k against how far back the key sits, m − n: a line over the fine
    grid, dots at whole distances, and the current distance marked.

    Returns ``line``, ``dots`` and ``now``.
    """
    _check(trace, DistanceTrace)
    top = examples.FIG15_MAX_DISTANCE
    ax.axhline(0.0, color=style.LIGHT, linewidth=0.8, zorder=0.5)
    artists = {}
    (artists["line"],) = ax.plot([], [], color=style.VISIBLE, linewidth=1.2, zorder=2)
    (artists["dots"],) = ax.plot([], [], "o", color=style.VISIBLE, markersize=3, zorder=3)
    (artists["now"],) = ax.plot([], [], "o", color=style.QUERY, markersize=7, markeredgecolor=style.INK,
                                markeredgewidth=0.6, zorder=4)
    ax.set_xlim(-0.6, top + 0.6)
    ax.set_ylim(-1.25, 1.25)
    ax.set_xticks(range(0, top + 1, 2))
    ax.set_yticks([-1, 0, 1])
    ax.set_xlabel("how far back the key is, m − n (positions)")
    ax.set_ylabel("score q·k′")
    update_curve(artists, trace)
    return artists


def update_curve(artists: dict, trace: DistanceTrace) -> None:
    """Move the curve, its whole-distance dots and the current marker to ``trace``."""
    _check(trace, DistanceTrace)
    artists["line"].set_data(trace.distances, trace.scores)
    whole = np.isclose(trace.distances, np.round(trace.distances))
    artists["dots"].set_data(trace.distances[whole], trace.scores[whole])
    artists["now"].set_data([trace.disc.distance], [trace.disc.dot])


def _distance_readout(trace: DistanceTrace) -> str:
    d = trace.disc
    return f"m − n = {_distance_text(d)}, ω = {omega_text(d.omega)}\n{angle_text(d)},  q·k′ = {dot_text(d)}"


def update_distance(artists: dict, trace: DistanceTrace) -> None:
    """Move panel (b) in place: the disc (``disc.*``) and the curve (``curve.*``)."""
    _check(trace, DistanceTrace)
    update_disc(panel_artists(artists, "disc"), trace.disc, _distance_readout(trace))
    update_curve(panel_artists(artists, "curve"), trace)


def describe_distance(trace: DistanceTrace) -> str:
    """Panel (b)'s state in words, every number from ``trace``.

    >>> print(describe_distance(fig15_trace().live))
    One pair at ω = π/2 rad per position. m − n = 2: the key turns by 2·π/2 = 180° clockwise; q·k′ = −1. The score depends on the positions only through m − n and repeats every 4 positions.
    """
    _check(trace, DistanceTrace)
    d = trace.disc
    if d.omega > 0:
        period = 2 * math.pi / d.omega
        repeat = _("The score depends on the positions only through m − n and repeats every {period} "
                   "positions.").format(period=fmt.num(round(period, 2)))
    else:
        repeat = _("The score depends on the positions only through m − n and never changes: this pair does not "
                   "turn.")
    return _("One pair at ω = {omega} rad per position. {disc}. {repeat}").format(
        omega=omega_text(d.omega), disc=describe_disc(d), repeat=repeat)


# ------------------------------------------------------------- (c) one pair of a head


def draw_frequencies(ax, trace: PairTrace) -> dict:
    """Every pair's frequency θ_i of one head on a log scale, the chosen pair marked.

    Returns ``all``, ``chosen`` and ``label``.
    """
    _check(trace, PairTrace)
    pairs = trace.frequencies.size
    high_base = 10.0 ** LOG_BASE_RANGE[1]
    ax.set_yscale("log")
    ax.set_xlim(-1, pairs)
    ax.set_ylim(0.3 * high_base ** (-(pairs - 1) * 2 / trace.head_dim), 3.0)
    ax.set_xticks(range(0, pairs + 1, 8))
    ax.set_xlabel(f"pair index i (head width {trace.head_dim})")
    ax.set_ylabel("θᵢ (rad per position)")
    artists = {}
    (artists["all"],) = ax.plot([], [], "o", color=style.NEUTRAL, markersize=3, zorder=2)
    (artists["chosen"],) = ax.plot([], [], "o", color=style.QUERY, markersize=7, markeredgecolor=style.INK,
                                   markeredgewidth=0.6, zorder=3)
    artists["label"] = ax.text(0.98, 0.95, "", transform=ax.transAxes, ha="right", va="top",
                               fontsize=_SMALL, color=style.INK)
    update_frequencies(artists, trace)
    return artists


def update_frequencies(artists: dict, trace: PairTrace) -> None:
    """Move the frequency markers and the label to ``trace``."""
    _check(trace, PairTrace)
    i = np.arange(trace.frequencies.size)
    artists["all"].set_data(i, trace.frequencies)
    artists["chosen"].set_data([trace.index], [trace.frequencies[trace.index]])
    artists["label"].set_text(f"base = {fmt.num(round(trace.base))}")


def _pair_readout(trace: PairTrace) -> str:
    d = trace.disc
    return (
        f"pair {trace.index}: θ = {rad_text(d.omega)}, "
        f"m − n = {_distance_text(d)}\n{angle_text(d)},  q·k′ = {dot_text(d)}"
    )


def update_pair(artists: dict, trace: PairTrace) -> None:
    """Move panel (c) in place: the disc (``disc.*``) and the frequencies (``freq.*``)."""
    _check(trace, PairTrace)
    update_disc(panel_artists(artists, "disc"), trace.disc, _pair_readout(trace))
    update_frequencies(panel_artists(artists, "freq"), trace)


def describe_pair(trace: PairTrace) -> str:
    """Panel (c)'s state in words.

    >>> print(describe_pair(fig15_trace().pair))
    Pair 16 of a 64-wide head with base 10000 turns at θ = 10000^(−32/64) = 0.01 rad per position. At m − n = 3 the key turns by 0.03 rad = 1.7° clockwise; q·k′ = 0.9996.
    """
    _check(trace, PairTrace)
    d = trace.disc
    return _("Pair {index} of a {width}-wide head with base {base} turns at θ = {base}^({exponent}/{width}) = "
             "{theta} rad per position. At m − n = {distance} the key turns by {angle} rad = {degrees}; "
             "q·k′ = {dot}.").format(
        index=trace.index, width=trace.head_dim, base=fmt.num(round(trace.base)),
        exponent=f"{fmt.MINUS}{2 * trace.index}", theta=rad_text(d.omega), distance=_distance_text(d),
        angle=rad_text(abs(d.angle)), degrees=_angle_words(d), dot=dot_text(d))


def _check(trace, kind) -> None:
    if not isinstance(trace, kind):
        raise TypeError(f"trace must be a lessons.position.{kind.__name__}, got {type(trace).__name__}")


# ------------------------------------------------------------------------ figure 15

#: Layout in inches: width, disc size, gaps, the right-hand panels' width and margins.
#: The discs of (b) and (c) start right of the row titles (disc_left), so that the longest
#: readout centred under them (pair 31 at the largest base, θ to eight decimals) stays inside the figure.
_F15 = dict(width=7.0, disc=1.45, gap=0.75, left=0.3, disc_left=0.42, plot_left=2.75, plot_w=3.95,
            row_title=0.42, readout=0.42, row_gap=0.06, bottom=0.12)


@register(15, "RoPE: the key turns by the relative distance")
def build_fig15() -> Drawn:
    trace = fig15_trace()
    g = _F15
    row_h = g["row_title"] + g["disc"] + g["readout"]
    fig_h = 3 * row_h + 2 * g["row_gap"] + g["bottom"]
    fig = style.new_figure(g["width"], fig_h)

    def box(x, y, w, h):
        return [x / g["width"], y / fig_h, w / g["width"], h / fig_h]

    artists = {}
    tops = [fig_h - k * (row_h + g["row_gap"]) for k in range(3)]
    # (a): the three discs
    y_disc = tops[0] - g["row_title"] - g["disc"]
    fig.text(g["left"] / g["width"], (tops[0] - 0.05) / fig_h,
             f"(a) one feature pair, ω = {omega_text(examples.FIG15_OMEGA)}: q fixed, k turned back by (m − n)ω",
             fontsize=10, fontweight="bold", va="top")
    span = 3 * g["disc"] + 2 * g["gap"]
    x0 = (g["width"] - span) / 2
    for j, disc in enumerate(trace.discs):
        ax = fig.add_axes(box(x0 + j * (g["disc"] + g["gap"]), y_disc, g["disc"], g["disc"]))
        drawn = draw_disc(ax, disc, labels=j == 0)
        ax.set_title(f"m − n = {_distance_text(disc)}", fontsize=9.5, fontweight="normal", pad=2)
        artists.update({f"a{j}.{k}": v for k, v in drawn.items()})
    # (b): any distance, any frequency
    y_b = tops[1] - g["row_title"] - g["disc"]
    fig.text(g["left"] / g["width"], (tops[1] - 0.05) / fig_h,
             "(b) the same pair, the key any distance back, any frequency", fontsize=10, fontweight="bold", va="top")
    disc_ax = fig.add_axes(box(g["disc_left"], y_b, g["disc"], g["disc"]))
    curve_ax = fig.add_axes(box(g["plot_left"], y_b + 0.1, g["plot_w"], g["disc"] - 0.1))
    artists.update({f"b.disc.{k}": v for k, v in draw_disc(disc_ax, trace.live.disc).items()})
    artists.update({f"b.curve.{k}": v for k, v in draw_curve(curve_ax, trace.live).items()})
    update_distance(panel_artists(artists, "b"), trace.live)
    # (c): one pair of a wider head
    y_c = tops[2] - g["row_title"] - g["disc"]
    fig.text(g["left"] / g["width"], (tops[2] - 0.05) / fig_h,
             f"(c) one pair of a {trace.pair.head_dim}-wide head: base and pair index set its speed",
             fontsize=10, fontweight="bold", va="top")
    disc_ax = fig.add_axes(box(g["disc_left"], y_c, g["disc"], g["disc"]))
    freq_ax = fig.add_axes(box(g["plot_left"], y_c + 0.1, g["plot_w"], g["disc"] - 0.1))
    artists.update({f"c.disc.{k}": v for k, v in draw_disc(disc_ax, trace.pair.disc).items()})
    artists.update({f"c.freq.{k}": v for k, v in draw_frequencies(freq_ax, trace.pair).items()})
    update_pair(panel_artists(artists, "c"), trace.pair)
    alt = _(
        "Three rows of discs, (a) to (c) from top to bottom; on each disc the horizontal and vertical directions are "
        "the two features of one pair, not time. The query pair q (orange) points right; the key sits m − n "
        "positions before the query, and the key pair k′ (blue) is k turned clockwise by m − n times the pair's "
        "frequency; a black arc marks the angle turned, and the angle and the score q·k′ are written under each "
        "disc. (a) One pair at ω = {omega} rad per position, three discs left to right: {discs}. (b) {live} A "
        "curve beside the disc plots the score against m − n from 0 to {top}. (c) {pair} Beside it, the "
        "frequencies θᵢ of all {pairs} pairs (i = 0 to {last}) fall on a log scale from 1 towards 1/base, pair "
        "{index} marked.").format(
        omega=omega_text(trace.discs[0].omega), discs=_("; ").join(describe_disc(d) for d in trace.discs),
        live=describe_distance(trace.live), top=examples.FIG15_MAX_DISTANCE, pair=describe_pair(trace.pair),
        pairs=len(trace.pair.frequencies), last=len(trace.pair.frequencies) - 1, index=trace.pair.index)
    return Drawn(15, figure_title(15), fig, alt, artists, trace)


# ------------------------------------------------------------ the sinusoidal heat map


def draw_sinusoidal(ax, encoding: np.ndarray) -> dict:
    """A heat map of a sinusoidal encoding ``[T, d_model]``: positions down, features
    across. Returns ``image`` and ``colorbar``."""
    encoding = np.asarray(encoding, dtype=float)
    if encoding.ndim != 2:
        raise ValueError(f"encoding must be [T, d_model], got shape {encoding.shape}")
    image = ax.imshow(encoding, cmap="RdBu_r", vmin=-1, vmax=1, aspect="auto")
    ax.set_xlabel("feature (even: sin, odd: cos)")
    ax.set_ylabel("position")
    colorbar = ax.figure.colorbar(image, ax=ax, fraction=0.05, pad=0.03)
    return {"image": image, "colorbar": colorbar}


@register_drawing("Sinusoidal position encoding")
def sinusoidal_heatmap(positions: int = examples.SINUSOID_POSITIONS,
                       d_model: int = examples.SINUSOID_D_MODEL) -> FigureDisplay:
    """The chapter's heat map of :func:`~tokenpath.position.sinusoidal`, for a cell.

    >>> sinusoidal_heatmap(8, 4).alt.startswith("Heat map")
    True
    """
    positions = as_int("positions", positions, low=2)
    encoding = sinusoidal(np.arange(positions), d_model)
    periods = 2 * math.pi / rope_frequencies(d_model)
    fig = style.new_figure(style.NARROW, 3.4, layout="constrained")
    with style.book_style():
        artists = draw_sinusoidal(fig.subplots(), encoding)
    alt = _(
        "Heat map of the sinusoidal encoding, positions 0–{last} down and {d_model} features across, from −1 "
        "(blue) to 1 (red). Feature pair 0 (sin, cos) repeats every {first_period} positions; the last pair's "
        "period is {last_period} positions, so within {positions} positions it barely moves. No two rows are "
        "equal.").format(last=positions - 1, d_model=d_model, first_period=fmt.num(round(periods[0], 1)),
                         last_period=fmt.num(round(periods[-1])), positions=positions)
    title = _("Sinusoidal position encoding")
    display = FigureDisplay(Drawn(0, title, fig, alt, artists, encoding), caption=title)
    style.close(fig)
    return display
