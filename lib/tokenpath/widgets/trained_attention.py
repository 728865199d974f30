"""Widget of chapter 11_trained_model, section 11.7: layer, head and query position of
the attention figure (the attention of the book's trained model on a held-out line).

The forward pass over the line runs once, when the figure is built; every head's
weights are in its trace, so moving a slider only picks another ``[T, T]`` map and
row from it (:meth:`tokenpath.trained.LineAttention.pick`).
"""

from __future__ import annotations

import ipywidgets

from .. import figures
from ..figures import trained_attention as fa
from ..i18n import _, pgettext
from . import Controls, SliderFigure, slider

__all__ = ["line_heads"]

#: The attention figure's artists that move with the layer, the head or the query (a key ending in
#: ``[`` or ``.`` names every artist it starts); the rest of the figure is drawn once.
_MOVING = ("image", "outline", "map.title", "bars", "future", "top[", "spine.", "title",
           "notes.values", "notes.role")


def _members(art: dict, keys) -> list:
    """The artists named by ``keys``."""
    return [a for k, a in art.items() if any(k == p or (p[-1] in "[." and k.startswith(p)) for p in keys)]


@slider
def line_heads(layer: int | None = None, head: int | None = None, query: int | None = None) -> SliderFigure:
    """The attention figure with sliders for the layer, the head and the query position: the map,
    the query's row and the head's held-out measures follow. The default (the head with
    the largest mean weight on the previous token, the line's last token) is the static
    figure.

    Each step picks from the one forward pass, e.g. layer 0, head 2, query 3:

    >>> from tokenpath import trained
    >>> t = trained.line_attention().pick(2, 1, 3)
    >>> t.role, t.pieces[3]
    ('previous', 'init')
    """
    drawn = figures.render(fa.NUMBER)
    trace = drawn.trace
    art = drawn.artists
    n_layers, n_heads = trace.stats.shape
    last = len(trace.pieces) - 1
    layout = ipywidgets.Layout(width="20em")
    controls = Controls({
        "layer": ipywidgets.IntSlider(value=trace.layer, min=0, max=n_layers - 1, step=1, description=_("layer"),
                                      continuous_update=True, layout=layout),
        "head": ipywidgets.IntSlider(value=trace.head, min=0, max=n_heads - 1, step=1, description=pgettext("attention head", "head"),
                                     continuous_update=True, layout=layout),
        "query": ipywidgets.IntSlider(value=trace.query, min=0, max=last, step=1, description=_("query"),
                                      continuous_update=True, layout=layout),
    }, horizontal=True)
    wanted = controls.check({k: v for k, v in (("layer", layer), ("head", head), ("query", query)) if v is not None})
    widget = SliderFigure(
        drawn,
        name="(layer, head, query)",
        slider=controls,
        compute=lambda v: trace.pick(v.layer, v.head, v.query),
        move=lambda t: fa.update_line_attention(art, t),
        describe=fa.describe_line_attention,
        moving=_members(art, _MOVING),
        trace=trace,
    )
    if wanted != widget.value:
        widget.update(wanted)
    return widget
