"""Widgets of chapter 12_real_model: SmolLM2's next-token view with the sliders of
sampling (prompt, temperature, top-k, top-p), and the typed-line widget of chapter 11 on
the real model (:func:`real_own_line`).

The next-token view is chapter 11's figure and widget regions
(:mod:`tokenpath.widgets.trained_sampling`) on :func:`tokenpath.lessons.real_model.next_token`:
each prompt runs forward once; a slider step only recomputes one row's distribution
and moves the artists.
"""

from __future__ import annotations

import ipywidgets

from .. import figures
from ..examples import real_model as ex
from ..figures import real_model as fr
from ..figures import trained_sampling as fs
from ..i18n import N_, _
from ..lessons import real_model as R
from . import Controls, SliderFigure, slider
from .ownline import OwnLine
from .trained_sampling import _groups

__all__ = ["real_next_token", "real_own_line"]


@slider
def real_next_token(prompt: int = 0, temperature: float = ex.REAL_TEMPERATURE, top_k: int = 0,
                    top_p: float = 1.0) -> SliderFigure:
    """SmolLM2's next-token figure with sliders for the prompt (an index into
    :data:`~tokenpath.examples.real_model.REAL_PROMPTS`), the temperature T, top-k (0 = no cut, up to
    :data:`~tokenpath.examples.real_model.REAL_TOP_K_MAX`) and top-p (1 = no cut).
    The default is the static figure.

    >>> w = real_next_token(top_k=2); w.trace.kept
    2
    """
    low, high = ex.REAL_TEMPERATURE_RANGE
    p_low, p_high = ex.REAL_TOP_P_RANGE
    layout = ipywidgets.Layout(width="20em")
    controls = Controls({
        "prompt": ipywidgets.IntSlider(value=0, min=0, max=len(ex.REAL_PROMPTS) - 1, step=1, description=_("prompt"),
                                       continuous_update=True, layout=layout),
        "temperature": ipywidgets.FloatSlider(value=ex.REAL_TEMPERATURE, min=low, max=high, step=0.1,
                                              description="T", readout_format=".2f", continuous_update=True,
                                              layout=layout),
        "top_k": ipywidgets.IntSlider(value=0, min=0, max=ex.REAL_TOP_K_MAX, step=1, description="top-k",
                                      continuous_update=True, layout=layout),
        "top_p": ipywidgets.FloatSlider(value=1.0, min=p_low, max=p_high, step=0.1, description="top-p",
                                        readout_format=".2f", continuous_update=True, layout=layout),
    }, horizontal=True)
    wanted = controls.check({"prompt": prompt, "temperature": temperature, "top_k": top_k, "top_p": top_p})
    drawn = figures.render(fr.NEXT)
    art = drawn.artists
    widget = SliderFigure(
        drawn,
        name="(prompt, temperature, top_k, top_p)",
        slider=controls,
        compute=lambda v: R.next_token(v.prompt, v.temperature, v.top_k, v.top_p),
        move=lambda t: fs.update_next_token(art, t),
        describe=fr.describe_next,
        groups=_groups(art, drawn.trace.top.size),
        trace=drawn.trace,
    )
    if wanted != widget.value:
        widget.update(wanted)
    return widget


def real_own_line(line: str = ex.REAL_OWNLINE_DEFAULT) -> OwnLine:
    """Chapter 11's "Follow your own line" widget on SmolLM2 (:func:`tokenpath.widgets.own_line`
    with the real model): tokens with IDs, surprisal, the top 5 next tokens and one
    head's weights, for any line of text.

    >>> w = real_own_line(); w.trace.layers, w.trace.heads
    (30, 9)
    """
    return OwnLine(line, model=R.real_model(), hint=N_("One line of text"), ids=True)
