"""Widget of chapter 10_trained_model, section 10.5: prompt, greedy step and temperature
of figure 25 (the trained model's next-token distribution).

Each prompt's forward pass runs once, the first time the prompt is shown
(:func:`tokenpath.trained.next_token` caches it with the logits of every step); a step of
the sliders only divides one row of logits by T, takes a softmax and moves the artists.
"""

from __future__ import annotations

import ipywidgets

from .. import examples as ex
from .. import figures
from .. import trained as T
from ..figures import trained_sampling as fs
from . import Controls, SliderFigure, slider

__all__ = ["next_token"]


def _moving(art: dict) -> list:
    """Figure 25's artists that follow the sliders (the rest is drawn once)."""
    keys = ("context", "state", "bars", "t1", "notes.values", "notes.bar")
    out = []
    for k, a in art.items():
        if k in keys or k.startswith(("piece[", "value[", "spine.")):
            out += list(a) if k == "bars" else [a]
    return out


@slider
def next_token(prompt: int = 0, step: int = 0, temperature: float = ex.TRAINED_TEMPERATURE) -> SliderFigure:
    """Figure 25 with sliders for the prompt (an index into
    :data:`~tokenpath.examples.TRAINED_PROMPTS`), the greedy step (how many of the greedy
    completion's tokens follow the prompt) and the temperature T. The default, prompt 0,
    step 0, T = :data:`~tokenpath.examples.TRAINED_TEMPERATURE`, is the static figure.

    Each state is :func:`tokenpath.trained.next_token`, e.g. one greedy step further:

    >>> t = T.next_token(0, 1, 1.0)
    >>> int(t.ids[-1]) == T.greedy_steps(0)[0]
    True
    """
    low, high = ex.FIG25_TEMPERATURE_RANGE
    layout = ipywidgets.Layout(width="20em")
    controls = Controls({
        "prompt": ipywidgets.IntSlider(value=0, min=0, max=len(ex.TRAINED_PROMPTS) - 1, step=1,
                                       description="prompt", continuous_update=True, layout=layout),
        "step": ipywidgets.IntSlider(value=0, min=0, max=ex.TRAINED_NEXT_STEPS, step=1, description="step",
                                     continuous_update=True, layout=layout),
        "temperature": ipywidgets.FloatSlider(value=ex.TRAINED_TEMPERATURE, min=low, max=high, step=0.05,
                                              description="T", readout_format=".2f", continuous_update=True,
                                              layout=layout),
    }, horizontal=True)
    wanted = controls.check({"prompt": prompt, "step": step, "temperature": temperature})
    drawn = figures.render(25)
    art = drawn.artists
    widget = SliderFigure(
        drawn,
        name="(prompt, step, temperature)",
        slider=controls,
        compute=lambda v: T.next_token(v.prompt, v.step, v.temperature),
        move=lambda t: fs.update_next_token(art, t),
        describe=fs.describe_next_token,
        moving=_moving(art),
        trace=drawn.trace,
    )
    if wanted != widget.value:
        widget.update(wanted)
    return widget
