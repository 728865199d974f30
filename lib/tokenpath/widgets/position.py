"""Widgets of chapter 05_rope_discs: figure 15's panel (b) with sliders for the
relative distance and the frequency ω, and panel (c) with sliders for the pair index
and the base.

Each panel has two sliders. :class:`TwoSliderFigure` is a :class:`SliderFigure` whose
own slider is the first and which carries a second one: moving either recomputes the
panel's trace from both values, moves the panel's artists and renders the PNG, the
same compute → move → PNG path. Each panel is registered twice, once with either
slider first, so ``benchmarks/widget_latency.py`` steps both.
"""

from __future__ import annotations

import math
from typing import Callable

import ipywidgets

from .. import examples, figures, position
from ..figures import position as fig
from . import SliderFigure, int_in, real_in, slider

__all__ = ["TwoSliderFigure", "rope_base", "rope_distance", "rope_frequency", "rope_pair"]


class TwoSliderFigure(SliderFigure):
    """A :class:`SliderFigure` with a second slider, ``other``, over the same panel.

    ``compute(first, second)`` takes both slider values; the first slider works exactly
    as in :class:`SliderFigure`, and :meth:`update_other` moves the second with the
    first held where it is.
    """

    def __init__(self, drawn, *, other: ipywidgets.ValueWidget, other_name: str,
                 other_check: Callable[[object], object], compute: Callable[[object, object], object], **kwargs):
        self.other = other
        self.other_name = other_name
        self._other_check = other_check
        self.other_value = other_check(other.value)
        super().__init__(drawn, compute=lambda value: compute(value, self.other_value), **kwargs)
        self.box.children = (self.slider, other, self.image, self.caption)
        self._other_syncing = False
        other.observe(self._on_other, names="value")

    def update_other(self, value) -> None:
        """Move the second slider's quantity to ``value`` and redraw, the first held."""
        value = self._other_check(value)
        held = self.other_value
        self.other_value = value
        try:
            self.update(self.value)
        except Exception:
            self.other_value = held
            raise
        if self.other.value != value:
            self._other_syncing = True
            try:
                self.other.value = value
            finally:
                self._other_syncing = False

    def _on_other(self, change) -> None:
        if not self._other_syncing:
            self.update_other(change["new"])

    def __repr__(self) -> str:
        return (f"TwoSliderFigure(figure={self.drawn.number}, {self.name}={self.value!r}, "
                f"{self.other_name}={self.other_value!r})")


# -------------------------------------------------------------- panel (b): n − m and ω

_LAYOUT = ipywidgets.Layout(width="28em")
#: ω slider step: π/64, so the slider's positions are exact multiples of π/64 and
#: π/2 (the figure's ω) is one of them.
_OMEGA_STEP = math.pi / 64
#: log₁₀ base slider step: a power of two, so every position is exact in binary.
_LOG_BASE_STEP = 1 / 32
#: The artists of a disc that a new state moves, plus those a full draw paints over
#: them (q covers the arc's start and the drop's foot; the origin dot covers the tail).
_DISC = ("disc.arc", "disc.drop", "disc.query", "disc.key", "disc.foot", "disc.origin", "disc.readout")


def _distance_slider():
    return ipywidgets.IntSlider(value=examples.FIG15_DISTANCE, min=0, max=examples.FIG15_MAX_DISTANCE, step=1,
                                description="n − m", continuous_update=True, layout=_LAYOUT)


def _omega_slider():
    low, high = fig.OMEGA_RANGE
    return ipywidgets.FloatSlider(value=examples.FIG15_OMEGA, min=low, max=high, step=_OMEGA_STEP,
                                  description="ω", readout_format=".3f", continuous_update=True, layout=_LAYOUT)


_CHECK_DISTANCE = int_in("distance", 0, examples.FIG15_MAX_DISTANCE)
_CHECK_OMEGA = real_in("omega", *fig.OMEGA_RANGE)


def _distance_panel(omega_first: bool, distance, omega) -> TwoSliderFigure:
    return _panel(
        "b", {"distance": (_distance_slider(), _CHECK_DISTANCE, distance), "omega": (_omega_slider(), _CHECK_OMEGA, omega)},
        ("omega", "distance") if omega_first else ("distance", "omega"),
        trace=lambda v: position.distance_trace(v["distance"], v["omega"]),
        move=fig.update_distance, describe=fig.describe_distance,
        moving=("curve.line", "curve.dots", "curve.now"), default=lambda t: t.live,
    )


def _panel(prefix: str, sliders: dict, order: tuple, *, trace, move, describe, moving, default) -> TwoSliderFigure:
    """A :class:`TwoSliderFigure` over panel ``prefix`` of figure 15. ``sliders`` maps
    each quantity to ``(slider, check, wanted value)``; ``order`` names the first and
    second; ``trace(values)`` computes the panel's trace from both values by name."""
    drawn = figures.render(15)
    panel = fig.panel_artists(drawn.artists, prefix)
    first, second = order
    widget = TwoSliderFigure(
        drawn,
        name=first, slider=sliders[first][0], check=sliders[first][1],
        other_name=second, other=sliders[second][0], other_check=sliders[second][1],
        compute=lambda a, b: trace({first: a, second: b}),
        move=lambda t: move(panel, t),
        describe=describe,
        moving=[panel[k] for k in _DISC + moving],
        trace=default(drawn.trace),
    )
    wanted = {name: check(value) for name, (_, check, value) in sliders.items()}
    if wanted[second] != widget.other_value:
        widget.update_other(wanted[second])
    if wanted[first] != widget.value:
        widget.update(wanted[first])
    return widget


@slider
def rope_distance(distance: int = examples.FIG15_DISTANCE, omega: float = examples.FIG15_OMEGA) -> TwoSliderFigure:
    """Figure 15 (b) with sliders for the relative distance n − m (first) and the
    frequency ω: the key turns by (n − m)ω and the score q·k′ is read out. The default,
    n − m = 2 and ω = π/2, is the static figure.

    >>> w = rope_distance(1)
    >>> round(w.trace.disc.degrees), round(w.trace.disc.dot, 12)
    (90, 0.0)
    """
    return _distance_panel(False, distance, omega)


@slider
def rope_frequency(omega: float = examples.FIG15_OMEGA, distance: int = examples.FIG15_DISTANCE) -> TwoSliderFigure:
    """:func:`rope_distance` with the ω slider first (the benchmark steps it).

    >>> from tokenpath.widgets import SLIDERS
    >>> SLIDERS["rope_frequency"] is rope_frequency
    True
    """
    return _distance_panel(True, distance, omega)


# ------------------------------------------------------- panel (c): pair index and base


def _pair_slider():
    return ipywidgets.IntSlider(value=examples.FIG15_PAIR, min=0, max=examples.FIG15_HEAD_DIM // 2 - 1, step=1,
                                description="pair i", continuous_update=True, layout=_LAYOUT)


def _log_base_slider():
    low, high = fig.LOG_BASE_RANGE
    return ipywidgets.FloatSlider(value=math.log10(examples.FIG15_BASE), min=low, max=high, step=_LOG_BASE_STEP,
                                  description="log₁₀ base", readout_format=".2f", continuous_update=True,
                                  layout=_LAYOUT, style={"description_width": "initial"})


_CHECK_PAIR = int_in("index", 0, examples.FIG15_HEAD_DIM // 2 - 1)
_CHECK_LOG_BASE = real_in("log_base", *fig.LOG_BASE_RANGE)


def _pair_panel(base_first: bool, index, log_base) -> TwoSliderFigure:
    return _panel(
        "c", {"index": (_pair_slider(), _CHECK_PAIR, index), "log_base": (_log_base_slider(), _CHECK_LOG_BASE, log_base)},
        ("log_base", "index") if base_first else ("index", "log_base"),
        trace=lambda v: position.pair_trace(v["index"], 10.0 ** v["log_base"]),
        move=fig.update_pair, describe=fig.describe_pair,
        moving=("freq.all", "freq.chosen", "freq.label"), default=lambda t: t.pair,
    )


@slider
def rope_pair(index: int = examples.FIG15_PAIR, log_base: float = math.log10(examples.FIG15_BASE)) -> TwoSliderFigure:
    """Figure 15 (c) with sliders for the pair index i (first) and log₁₀ of the base:
    pair i of a 64-wide head turns at θᵢ = base^(−2i/64) per position; the disc shows
    it at n − m = 3. The default, pair 16 with base 10000, is the static figure.

    >>> from tokenpath.widgets import SLIDERS
    >>> SLIDERS["rope_pair"] is rope_pair
    True
    """
    return _pair_panel(False, index, log_base)


@slider
def rope_base(log_base: float = math.log10(examples.FIG15_BASE), index: int = examples.FIG15_PAIR) -> TwoSliderFigure:
    """:func:`rope_pair` with the base slider first (the benchmark steps it).

    >>> from tokenpath.widgets import SLIDERS
    >>> SLIDERS["rope_base"] is rope_base
    True
    """
    return _pair_panel(True, index, log_base)
