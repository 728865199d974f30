"""Widgets of chapter 06_rope_discs: figure 15's panel (b) with sliders for how far
back the key sits (m − n) and the frequency ω, and panel (c) with sliders for the pair index
and the base. Each panel's two sliders are one :class:`~tokenpath.widgets.Controls`."""

from __future__ import annotations

import math

import ipywidgets

from .. import examples, figures, position
from ..figures import position as fig
from ..i18n import _
from ..lessons import position as lessons
from . import Controls, SliderFigure, slider

__all__ = ["rope_distance", "rope_pair"]

_LAYOUT = ipywidgets.Layout(width="28em")
#: ω slider step: π/64, so the slider's positions are exact multiples of π/64 and
#: π/2 (the figure's ω) is one of them.
_OMEGA_STEP = math.pi / 64
#: log₁₀ base slider step: a power of two, so every position is exact in binary.
_LOG_BASE_STEP = 1 / 32
#: The artists of a disc that a new state moves, plus those a full draw paints over
#: them (q covers the arc's start and the drop's foot; the origin dot covers the tail).
_DISC = ("disc.arc", "disc.drop", "disc.query", "disc.key", "disc.foot", "disc.origin", "disc.readout")


def _panel(prefix: str, controls: Controls, wanted: dict, *, trace, move, describe, moving, default) -> SliderFigure:
    """A widget over panel ``prefix`` of figure 15, moved to the ``wanted`` values."""
    drawn = figures.render(15)
    panel = fig.panel_artists(drawn.artists, prefix)
    wanted = controls.check(wanted)  # refused by name before anything is drawn
    widget = SliderFigure(
        drawn,
        name=prefix,
        slider=controls,
        compute=trace,
        move=lambda t: move(panel, t),
        describe=describe,
        moving=[panel[k] for k in _DISC + moving],
        trace=default(drawn.trace),
    )
    if wanted != widget.value:
        widget.update(wanted)
    return widget


@slider
def rope_distance(distance: int = examples.FIG15_DISTANCE, omega: float = examples.FIG15_OMEGA) -> SliderFigure:
    """Figure 15 (b) with sliders for how far back the key sits, m − n, and the frequency
    ω: the key turns clockwise by (m − n)ω and the score q·k′ is read out. The default,
    m − n = 2 and ω = π/2, is the static figure.

    Each step computes :func:`tokenpath.lessons.distance_trace`, e.g. at m − n = 1:

    >>> t = lessons.distance_trace(1, examples.FIG15_OMEGA)
    >>> round(t.disc.degrees), round(t.disc.dot, 12)
    (-90, 0.0)
    """
    low, high = fig.OMEGA_RANGE
    controls = Controls({
        "distance": ipywidgets.IntSlider(value=examples.FIG15_DISTANCE, min=0, max=examples.FIG15_MAX_DISTANCE,
                                         step=1, description="m − n", continuous_update=True, layout=_LAYOUT),
        "omega": ipywidgets.FloatSlider(value=examples.FIG15_OMEGA, min=low, max=high, step=_OMEGA_STEP,
                                        description="ω", readout_format=".3f", continuous_update=True,
                                        layout=_LAYOUT),
    })
    return _panel(
        "b", controls, {"distance": distance, "omega": omega},
        trace=lambda v: lessons.distance_trace(v.distance, v.omega),
        move=fig.update_distance, describe=fig.describe_distance,
        moving=("curve.line", "curve.dots", "curve.now"), default=lambda t: t.live,
    )


@slider
def rope_pair(index: int = examples.FIG15_PAIR, log_base: float = math.log10(examples.FIG15_BASE)) -> SliderFigure:
    """Figure 15 (c) with sliders for the pair index i and log₁₀ of the base: pair i of
    a 64-wide head turns at θᵢ = base^(−2i/64) per position; the disc shows it at
    m − n = 3 (the key 3 positions back). The default, pair 16 with base 10000, is the static figure.

    Each step computes :func:`tokenpath.lessons.pair_trace`, e.g. for pair 0:

    >>> lessons.pair_trace(0, examples.FIG15_BASE).disc.omega
    1.0
    """
    low, high = fig.LOG_BASE_RANGE
    controls = Controls({
        "index": ipywidgets.IntSlider(value=examples.FIG15_PAIR, min=0, max=examples.FIG15_HEAD_DIM // 2 - 1,
                                      step=1, description=_("pair i"), continuous_update=True, layout=_LAYOUT),
        "log_base": ipywidgets.FloatSlider(value=math.log10(examples.FIG15_BASE), min=low, max=high,
                                           step=_LOG_BASE_STEP, description=_("log₁₀ base"), readout_format=".2f",
                                           continuous_update=True, layout=_LAYOUT,
                                           style={"description_width": "initial"}),
    })
    return _panel(
        "c", controls, {"index": index, "log_base": log_base},
        trace=lambda v: lessons.pair_trace(v.index, 10.0 ** v.log_base),
        move=fig.update_pair, describe=fig.describe_pair,
        moving=("freq.all", "freq.chosen", "freq.label"), default=lambda t: t.pair,
    )
