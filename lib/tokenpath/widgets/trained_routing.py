"""Widget of chapter 09_moe_routing: the trained model's routing of a held-out line
(its figure in chapter 11), with sliders for the layer and the line.

A line's first visit runs the windows of the sample pass that hold it through the model
(cached by :mod:`tokenpath.trained`); the load and change rate over the whole sample are
those stored in ``evaluation.json`` (:func:`tokenpath.trained.measured_routing`). A step
to a state already seen only picks its :class:`~tokenpath.trained.RoutingView` and moves
the artists. Each row of
the token table, each bar and each line of text is a group of its own, so a step
redraws only what changed (:class:`tokenpath.widgets.SliderFigure`).
"""

from __future__ import annotations

import functools

import ipywidgets
from matplotlib.transforms import Bbox

from .. import examples as ex
from .. import figures
from .. import trained as T
from ..figures import trained_routing as fr
from ..i18n import _
from . import Controls, SliderFigure, slider

__all__ = ["trained_routing"]


def _rows(ax, top: float, bottom: float, left: float, right: float):
    """A function giving the display region of the canvas rectangle (inches, y down)."""
    return lambda: Bbox(ax.transData.transform([(left, bottom), (right, top)]))


@slider
def trained_routing(layer: int = ex.ROUTE_LAYER, line: int | None = None) -> SliderFigure:
    """The routing figure with sliders for the layer and the line (the position of a held-out
    line among those :func:`tokenpath.trained.example_lines` offers, one per file). The
    default, layer :data:`~tokenpath.examples.ROUTE_LAYER` of the first of them, is the
    static figure.

    Each state shows :func:`tokenpath.trained.routing_view`, e.g.

    >>> v = T.routing_view(0, T.example_lines()[0])
    >>> v.layer, v.line == T.example_lines()[0]
    (0, True)
    """
    lines = T.example_lines()
    n_layers = T.measured_routing().load.shape[0]
    default_line = lines.index(T.example_line())
    layout = ipywidgets.Layout(width="22em")
    controls = Controls({
        "layer": ipywidgets.IntSlider(value=ex.ROUTE_LAYER, min=0, max=n_layers - 1, step=1, description=_("layer"),
                                      continuous_update=True, layout=layout),
        "line": ipywidgets.IntSlider(value=default_line, min=0, max=len(lines) - 1, step=1, description=_("line"),
                                     continuous_update=True, layout=layout),
    }, horizontal=True)
    wanted = controls.check({"layer": layer, "line": default_line if line is None else line})
    view = functools.lru_cache(maxsize=None)(lambda layer, n: T.routing_view(layer, lines[n]))  # a line's windows run once
    drawn = figures.render(fr.NUMBER)
    art = drawn.artists
    ax = art["heading"].axes
    n_e = drawn.trace.probs.shape[1]
    table_right = fr.CELL_X + n_e * fr.COL_PITCH + 0.05
    groups = []
    for t in range(fr.MAX_ROWS):  # a row: its position, its token, its cells (each redrawn alone)
        top, bottom = fr.TABLE_Y + t * fr.ROW, fr.TABLE_Y + t * fr.ROW + fr.CELL_H
        groups.append(([art[f"pos[{t}]"]], _rows(ax, top, bottom, 0.0, fr.POS_X + 0.02)))
        groups.append(([art[f"piece[{t}]"]], _rows(ax, top, bottom, fr.POS_X + 0.1, fr.PIECE_X + 0.02)))
        cells = [art[f"cell[{t},{j}]"] for j in range(n_e)] + [art[f"probs[{t}]"]]
        groups.append((cells, _rows(ax, top, bottom, fr.CELL_X, table_right)))
    for j in range(n_e):
        y = fr.BARS_Y + j * fr.BAR_PITCH
        groups.append(([art[f"bar[{j}]"], art[f"even[{j}]"], art[f"load[{j}]"]],
                       _rows(ax, y - 0.04, y + fr.BAR_H + 0.04, fr.BAR_X - 0.02, fr.FIG_WIDTH)))
    y = art["state"].get_position()[1]
    groups.append(([art["state"]], _rows(ax, y - 0.12, y + 0.12, 0.0, fr.BAR_LABEL_X - 0.1)))
    y = art["load.head"].get_position()[1]
    groups.append(([art["load.head"]], _rows(ax, y - 0.3, y + 0.3, fr.BAR_LABEL_X - 0.05, fr.FIG_WIDTH)))
    y = art["changes"].get_position()[1]
    groups.append(([art["changes"]], _rows(ax, y - 0.2, y + 0.2, fr.BAR_LABEL_X - 0.05, fr.FIG_WIDTH)))
    y = art["line.changes"].get_position()[1]
    groups.append(([art["line.changes"]], _rows(ax, y - 0.1, y + 0.1, fr.BAR_LABEL_X - 0.05, fr.FIG_WIDTH)))
    widget = SliderFigure(
        drawn,
        name="trained_routing",
        slider=controls,
        compute=lambda v: view(v.layer, v.line),
        move=lambda trace: fr.update_routing(art, trace),
        describe=fr.describe_view,
        groups=groups,
        trace=drawn.trace,
    )
    if wanted != widget.value:
        widget.update(wanted)
    return widget
