"""Widget of chapter 11_trained_model, section 11.5: prompt, greedy step and temperature
of the trained model's next-token figure (the trained model's next-token distribution).

Each prompt's forward pass runs once, the first time the prompt is shown
(:func:`tokenpath.trained.next_token` caches it with the logits of every step); a step of
the sliders only divides one row of logits by T, takes a softmax and moves the artists.
"""

from __future__ import annotations

import ipywidgets
from matplotlib.transforms import Bbox

from .. import examples as ex
from .. import figures
from .. import trained as T
from ..figures import style
from ..figures import trained_sampling as fs
from ..i18n import _
from . import Controls, SliderFigure, slider

__all__ = ["next_token"]


def _groups(art: dict, k: int) -> list:
    """The next-token figure's moving artists in regions of their own, each redrawn only when it
    changed: a temperature step leaves the context and the token texts alone. Regions
    are canvas rectangles in inches (y down), computed once the canvas exists."""
    canvas = art["context"].axes
    left, top, width, height = fs.BARS
    row = height / k
    values = left + width * fs.VALUES_X / fs.XMAX  # where the column of values starts

    def box(x0, y0, x1, y1):
        return lambda: Bbox(canvas.transData.transform([(x0, y1), (x1, y0)]))

    groups = [([art["context"]], box(0.0, 0.02, style.WIDTH, 0.40)),
              ([art["state"]], box(0.0, 0.40, fs.NOTES_X - 0.05, 0.66)),
              ([art["notes.values"]], box(fs.NOTES_X - 0.02, fs.NOTES_Y + 0.45, style.WIDTH, fs.NOTES_Y + 1.95)),
              ([art["notes.bar"]], box(fs.NOTES_X + 0.35, fs.NOTES_Y + 2.1, style.WIDTH, fs.NOTES_Y + 2.4))]
    for r in range(k):
        y0, y1 = top + (r + 0.05) * row, top + (r + 0.95) * row
        groups.append(([art[f"piece[{r}]"]], box(0.0, y0, left - 0.03, y1)))
        groups.append(([art[f"bar[{r}]"], art[f"t1[{r}]"]], box(left + 0.01, y0, values - 0.02, y1)))
        groups.append(([art[f"value[{r}]"]], box(values, y0, left + width + 0.02, y1)))
    return groups


@slider
def next_token(prompt: int = 0, step: int = 0, temperature: float = ex.TRAINED_TEMPERATURE) -> SliderFigure:
    """The next-token figure with sliders for the prompt (an index into
    :data:`~tokenpath.examples.TRAINED_PROMPTS`), the greedy step (how many of the greedy
    completion's tokens follow the prompt) and the temperature T. The default, prompt 0,
    step 0, T = :data:`~tokenpath.examples.TRAINED_TEMPERATURE`, is the static figure.

    Each state is :func:`tokenpath.trained.next_token`, e.g. one greedy step further:

    >>> t = T.next_token(0, 1, 1.0)
    >>> int(t.ids[-1]) == T.greedy_steps(0)[0]
    True
    """
    low, high = ex.NEXT_TEMPERATURE_RANGE
    layout = ipywidgets.Layout(width="20em")
    controls = Controls({
        "prompt": ipywidgets.IntSlider(value=0, min=0, max=len(ex.TRAINED_PROMPTS) - 1, step=1,
                                       description=_("prompt"), continuous_update=True, layout=layout),
        "step": ipywidgets.IntSlider(value=0, min=0, max=ex.TRAINED_NEXT_STEPS, step=1, description=_("step"),
                                     continuous_update=True, layout=layout),
        "temperature": ipywidgets.FloatSlider(value=ex.TRAINED_TEMPERATURE, min=low, max=high, step=0.05,
                                              description="T", readout_format=".2f", continuous_update=True,
                                              layout=layout),
    }, horizontal=True)
    wanted = controls.check({"prompt": prompt, "step": step, "temperature": temperature})
    drawn = figures.render(fs.NUMBER)
    art = drawn.artists
    widget = SliderFigure(
        drawn,
        name="(prompt, step, temperature)",
        slider=controls,
        compute=lambda v: T.next_token(v.prompt, v.step, v.temperature),
        move=lambda t: fs.update_next_token(art, t),
        describe=fs.describe_next_token,
        groups=_groups(art, drawn.trace.top.size),
        trace=drawn.trace,
    )
    if wanted != widget.value:
        widget.update(wanted)
    return widget
