"""Widgets of chapter 04_attention: the value magnitude m of figure 11 and the head
width d_h of figure 12."""

from __future__ import annotations

import ipywidgets

from .. import figures
from ..lessons import attention
from ..figures import attention_scale as scale
from ..figures import attention_values as values
from ..figures.draw import panel_artists
from . import SliderFigure, int_in, real_in, slider

__all__ = ["score_scale", "value_magnitude"]


#: The artists of figure 11's right panel that a change of m can move, plus those a
#: full draw paints over them (the a₀u₀ arrow and the origin dot cover the output's
#: tail). The weights, and so the a₀u₀ line of arithmetic, do not depend on m; the
#: tests check every slider position against a full draw.
_MOVES_WITH_M = (
    "title", "plane.contrib0", "plane.contrib1", "plane.output", "plane.origin",
    "plane.label1", "plane.label_out", "ledger.values", "ledger.contrib1", "ledger.output",
    "ledger.compare",
)


@slider
def value_magnitude(m: float = values.M_RANGE[1]) -> SliderFigure:
    """Figure 11 with a slider for the value magnitude m (u₁ = [0, m]) of the right
    panel. The weights never move; the 0.25-weight contribution a₁u₁ grows with m.
    The default, m = 40, is the static figure.

    Each step computes :func:`tokenpath.lessons.attention.value_magnitude`, e.g. at m = 8:

    >>> t = attention.value_magnitude(8)
    >>> t.contributions[1].tolist(), t.output.tolist()
    ([0.0, 2.0], [1.5, 2.0])
    """
    low, high = values.M_RANGE
    check = real_in("m", low, high)
    m = check(m)
    drawn = figures.render(11)
    right = panel_artists(drawn.artists, "right")
    slider = ipywidgets.FloatSlider(
        value=high, min=low, max=high, step=0.5, description="m", readout_format=".1f",
        continuous_update=True, layout=ipywidgets.Layout(width="28em"),
    )
    widget = SliderFigure(
        drawn,
        name="m",
        slider=slider,
        check=check,
        compute=attention.value_magnitude,
        move=lambda trace: values.update_value_magnitude(right, trace),
        describe=values.describe_value_magnitude,
        moving=[right[k] for k in _MOVES_WITH_M],
        trace=drawn.trace[1],
    )
    if m != widget.value:
        widget.update(m)
    return widget


@slider
def score_scale(d_h: int = scale.D_H_FOCUS) -> SliderFigure:
    """Figure 12 with a slider for the head width d_h of the close-up (b): histograms
    of q·k and q·k/√d_h and their sample variances. The default, d_h = 16, is the
    static figure.

    Each step computes :func:`tokenpath.figures.attention_scale.score_closeup_trace`:

    >>> t = scale.score_closeup_trace(4)
    >>> t.d_h, t.theory
    (4, 4.0)
    """
    low, high = scale.D_H_RANGE
    check = int_in("d_h", low, high)
    d_h = check(d_h)
    drawn = figures.render(12)
    closeup = panel_artists(drawn.artists, "b")
    slider = ipywidgets.IntSlider(
        value=scale.D_H_FOCUS, min=low, max=high, step=1, description="dₕ",
        continuous_update=True, layout=ipywidgets.Layout(width="28em"),
    )
    widget = SliderFigure(
        drawn,
        name="d_h",
        slider=slider,
        check=check,
        compute=scale.score_closeup_trace,
        move=lambda trace: scale.update_score_closeup(closeup, trace),
        describe=scale.describe_score_closeup,
        # the spines are drawn over the histograms' outer edges, so they go along
        moving=[closeup[k] for k in ("unscaled", "scaled", "title", "legend")]
        + list(closeup["title"].axes.spines.values()),
        trace=drawn.trace[1],
    )
    if d_h != widget.value:
        widget.update(d_h)
    return widget
