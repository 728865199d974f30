"""Sliders wired to figures: compute the trace → update the artists in place → PNG.

The package holds four ideas, one module each, and the chapters' widgets:

* :mod:`.slider` — :class:`SliderFigure`, the widget: one figure of the registry, its
  control, the frame of the current state, its caption in words (``describe()``);
* :mod:`.view` — :class:`~.view.FrameView`, what a reader sees of it: one browser
  component (``anywidget``; the ES module ``frames.js``) that holds frames by state,
  swaps to a held one at once and asks the kernel for the rest and for the neighbours;
* :mod:`.controls` — the control a reader moves: :class:`Controls` (several sliders as
  one value, with dependent ranges), the value checks :func:`int_in` and
  :func:`real_in`, and :func:`slider_grid`, the valid positions of one slider;
* :mod:`.render` — the renderer that makes a state's PNG by redrawing only what moved,
  byte for byte the PNG of a full draw.

Each chapter's widgets live in a module of this package (``widgets.attention`` …) and
are re-exported here. Every widget registers its constructor once in :data:`SLIDERS`
with :func:`slider`; :meth:`SliderFigure.sweep` lists positions that step each of its
sliders in turn (``benchmarks/widget_latency.py`` times them) and :func:`slider_grid`
is the grid of one slider that the sweep and the HTML edition's precomputed frames
share.

>>> sorted(SLIDERS)[:3]
['batch_token', 'boundary_delta', 'gate_pre_activation']

(the widgets themselves are built in ``tests/test_widgets.py`` and the chapters' widget
tests: default state = the static figure, every state = a full draw.)
"""

from __future__ import annotations

from typing import Callable

from .controls import Controls, int_in, option_values, real_in, slider_grid
from .render import encode_png
from .slider import SliderFigure

#: The HTML edition's frame maker reads a selection slider's values under this name.
_option_values = option_values

#: Every slider widget of the book: its name and the constructor that builds it in its
#: default state (the static figure). Each widget is registered once.
SLIDERS: dict[str, Callable[[], SliderFigure]] = {}


def slider(make: Callable[..., SliderFigure]) -> Callable[..., SliderFigure]:
    """Decorator: register a slider-widget constructor in :data:`SLIDERS` by its name."""
    if make.__name__ in SLIDERS:
        raise ValueError(f"slider widget {make.__name__} is registered twice")
    SLIDERS[make.__name__] = make
    return make


# The chapters' widgets (each module registers its sliders with the decorator above).
from .attention import score_scale, value_magnitude  # noqa: E402
from .bpe import merge_steps, token_box  # noqa: E402
from .embedding import lookup_cell, temperature_sampling  # noqa: E402
from .gqa import head_groups  # noqa: E402
from .moe import batch_token, boundary_delta, routing_choice  # noqa: E402
from .norms import gate_pre_activation, rms_features  # noqa: E402
from .ownline import own_line  # noqa: E402
from .position import rope_distance, rope_pair  # noqa: E402
from .real_model import real_next_token, real_own_line  # noqa: E402
from .trained_attention import line_heads  # noqa: E402
from .trained_routing import trained_routing  # noqa: E402
from .trained_sampling import next_token  # noqa: E402

__all__ = [
    "SLIDERS",
    "Controls",
    "SliderFigure",
    "batch_token",
    "boundary_delta",
    "encode_png",
    "gate_pre_activation",
    "head_groups",
    "int_in",
    "line_heads",
    "lookup_cell",
    "merge_steps",
    "next_token",
    "own_line",
    "real_in",
    "real_next_token",
    "real_own_line",
    "rms_features",
    "rope_distance",
    "rope_pair",
    "routing_choice",
    "score_scale",
    "slider",
    "slider_grid",
    "temperature_sampling",
    "token_box",
    "trained_routing",
    "value_magnitude",
]
