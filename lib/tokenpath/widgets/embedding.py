"""Widgets of chapter 03_embedding_lookup: the temperature of figure 5's sampling row
and a cell picker (three sliders) for figure 3's lookup."""

from __future__ import annotations

import ipywidgets

from .. import examples as ex
from ..lessons import embedding as lessons
from .. import figures
from ..figures import embedding as fe
from ..figures import embedding_head as fh
from . import Controls, SliderFigure, real_in, slider

__all__ = ["lookup_cell", "temperature_sampling"]


def _moving_sampling(a: dict) -> list:
    """Figure 5's artists a temperature moves: the bottom row's bars and their labels,
    the τ title and line, and the spines a full draw paints over the bars' edges."""
    out = []
    for panel in ("probs", "counts"):
        out += list(a[f"sample.{panel}.bars"]) + list(a[f"sample.{panel}.labels"])
        out += [s for s in a[f"sample.{panel}.title"].axes.spines.values() if s.get_visible()]
    return out + [a["sample.probs.title"], a["sample.logits_over_tau"]]


@slider
def temperature_sampling(temperature: float = ex.FIG5_TEMPERATURE) -> SliderFigure:
    """Figure 5 with a temperature slider for its bottom row: the logits [log 3, 0]
    divided by τ, the two probabilities, and the same 1,000 seeded uniforms turned into
    draws. τ = 0 is greedy. The default, τ = 1, is the static figure.

    A step to τ = 0.5 computes this trace and moves the bars to it:

    >>> t = lessons.sampling_trace(ex.FIG5_GAP, 0.5)
    >>> t.probs.round(2).tolist(), t.counts.tolist()
    ([0.9, 0.1], [900, 100])
    """
    low, high = ex.FIG5_TEMPERATURE_RANGE
    check = real_in("temperature", low, high)
    temperature = check(temperature)
    drawn = figures.render(5)
    control = ipywidgets.FloatSlider(
        value=ex.FIG5_TEMPERATURE, min=low, max=high, step=0.05, description="τ", readout_format=".2f",
        continuous_update=True, layout=ipywidgets.Layout(width="28em"),
    )
    a = drawn.artists
    widget = SliderFigure(
        drawn,
        name="temperature",
        slider=control,
        check=check,
        compute=lambda tau: lessons.sampling_trace(ex.FIG5_GAP, tau),
        move=lambda trace: fh.update_sampling(a, trace),
        describe=fh.describe_sampling,
        moving=_moving_sampling(a),
        trace=drawn.trace.gap,
    )
    if temperature != widget.value:
        widget.update(temperature)
    return widget


def _moving_lookup(art: dict) -> list:
    """Figure 3's artists a new cell moves: the highlights and the equal-ID marks, all
    drawn above every still artist."""
    keys = [k for k in art if k.startswith(("focus.", "s.same[", "X.same["))]
    return [art[k] for k in keys]


@slider
def lookup_cell(cell=ex.FIG3_CELL) -> SliderFigure:
    """Figure 3 with a cell picker: choose sequence b, position t and feature f, and
    see which ID is read, which row of E it selects and which entry lands in X. The
    default, (0, 2, 0), is the static figure. Its control is three sliders acting as
    one (:class:`~tokenpath.widgets.Controls`); a cell can also be set from code,
    ``widget.update((b, t, f))`` or ``widget.update(f=5)``.

    Each step computes :func:`tokenpath.lessons.embedding.lookup_trace` of the cell:

    >>> t = lessons.lookup_trace((1, 3, 5))
    >>> t.row_id, t.value
    (7, 0.0)
    """
    controls = Controls({
        name: ipywidgets.IntSlider(value=v, min=0, max=size - 1, description=name, continuous_update=True,
                                   layout=ipywidgets.Layout(width="20em"))
        for name, v, size in zip(("b", "t", "f"), ex.FIG3_CELL, (ex.B, ex.T, ex.D_MODEL))
    })
    wanted = controls.check(cell)
    drawn = figures.render(3)
    widget = SliderFigure(
        drawn,
        name="cell",
        slider=controls,
        compute=lambda v: lessons.lookup_trace(tuple(v)),
        move=lambda trace: fe.update_lookup(drawn.artists, trace),
        describe=fe.describe_lookup,
        moving=_moving_lookup(drawn.artists),
        trace=drawn.trace,
    )
    if wanted != widget.value:
        widget.update(wanted)
    return widget
