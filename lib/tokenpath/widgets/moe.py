"""Widgets of chapter 09_moe_routing: δ at the top-1 boundary (figure 21), the number of
experts and k of one token's routing (figure 20), and the second token of a batch
(figure 22).

The moving artists of all three fall into separate regions (a table cell, a line of
text, the inside of a plot), so each widget names them as *groups* and a step redraws
only the groups whose look changed (:class:`tokenpath.widgets.SliderFigure`). The tests
compare every state they visit, after any sequence of steps, with a full draw of the
same state.
"""

from __future__ import annotations

import ipywidgets
from matplotlib.patches import Patch
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from .. import examples as ex
from .. import figures
from ..i18n import _
from ..figures import moe as fm
from ..figures import moe_batch as fbatch
from ..figures import moe_boundary as fb
from . import Controls, SliderFigure, int_in, real_in, slider

__all__ = ["batch_token", "boundary_delta", "routing_choice"]


def _band(text: Text, above: float, below: float, *, left: float | None = None,
          right: float | None = None):
    """A function giving the region (display units) across a canvas axes from ``left``
    to ``right`` (inches; default its edges), from ``above`` inches above ``text``'s
    anchor to ``below`` inches below it (the canvas's y axis grows downwards)."""
    ax = text.axes
    x, y = text.get_position()
    x0 = ax.get_xlim()[0] if left is None else left
    x1 = ax.get_xlim()[1] if right is None else right
    return lambda: Bbox(ax.transData.transform([(x0, y + below), (x1, y - above)]))


def _above(text: Text, rect: Patch, above: float, below: float) -> Bbox:
    """The region of a column heading ``text``: the width of the cell ``rect`` under it,
    from ``above`` to ``below`` inches around the text's anchor."""
    ax = text.axes
    y = text.get_position()[1]
    x0, x1 = rect.get_x(), rect.get_x() + rect.get_width()
    return Bbox(ax.transData.transform([(x0, y + below), (x1, y - above)]))


@slider
def boundary_delta(delta: float = ex.FIG21_DELTA) -> SliderFigure:
    """Figure 21 with a slider for δ (scores a₀ = δ, a₁ = −δ, top-1): the chosen expert,
    both gates and both router gradients move; the expert flips as δ crosses 0. The
    default, δ = 0.5, is the static figure.

    Each step computes :func:`tokenpath.figures.moe_boundary.fig21_trace`, e.g. at δ = −0.5:

    >>> t = fb.fig21_trace(-0.5)
    >>> t.chosen, t.in_set.grad.tolist()
    (1, [0.0, 0.0])
    """
    low, high = ex.FIG21_DELTA_RANGE
    check = real_in("delta", low, high)
    delta = check(delta)
    drawn = figures.render(21)
    art = drawn.artists
    control = ipywidgets.FloatSlider(
        value=ex.FIG21_DELTA, min=low, max=high, step=0.05, description="δ", readout_format="+.2f",
        continuous_update=True, layout=ipywidgets.Layout(width="28em"),
    )
    ax_a, ax_g, ledger = art["axes.a"], art["axes.g"], art["ledger"]

    def title_band():
        box = ax_a.bbox
        return Bbox([[0.0, box.y1 + 4], [box.x1, drawn.figure.bbox.y1]])

    def ledger_band(top, bottom):
        # from a little left of the ledger: the box around "expert … runs" reaches past x = 0
        return lambda: Bbox(ledger.transData.transform([(-0.035, bottom), (1.2, top)]))

    groups = [
        ([art["now.a"], art["dot.a0"], art["dot.a1"]], lambda: ax_a.bbox.frozen()),
        ([art["now.g"], art["dot.in_set"], art["dot.full"]], lambda: ax_g.bbox.frozen()),
        ([art["title"]], title_band),
        ([art["ledger.runs"]], ledger_band(0.0, 0.125)),
        ([art["ledger.scores"]], ledger_band(0.135, 0.19)),
        ([art["ledger.in_set"]], ledger_band(0.435, 0.49)),
        ([art["ledger.full"]], ledger_band(0.655, 0.76)),
        ([art["ledger.fd"]], ledger_band(0.87, 1.0)),
    ]
    widget = SliderFigure(
        drawn,
        name="delta",
        slider=control,
        check=check,
        compute=fb.fig21_trace,
        move=lambda trace: fb.update_boundary(art, trace),
        describe=fb.describe_boundary,
        groups=groups,
        trace=drawn.trace[0],
    )
    if delta != widget.value:
        widget.update(delta)
    return widget


@slider
def routing_choice(k: int = ex.FIG20_K, n_experts: int = ex.FIG20_SCORES.size) -> SliderFigure:
    """Figure 20 with sliders for the number of experts (up to six) and k: which experts
    are chosen, their in-set gates, the full-softmax alternative and the combined
    output. The default, four experts and k = 2, is the static figure. k's range
    depends on the experts (1 … E): shrinking E below k takes k along.

    Each state shows :func:`tokenpath.figures.moe.fig20_trace` of (experts, k), e.g.

    >>> fm.fig20_trace(6, 3).route.chosen.tolist()
    [0, 1, 4]
    """
    layout = ipywidgets.Layout(width="20em")
    controls = Controls({
        "n_experts": ipywidgets.IntSlider(value=ex.FIG20_SCORES.size, min=1, max=fm.E_MAX, step=1,
                                          description=_("experts"), continuous_update=True, layout=layout),
        "k": ipywidgets.IntSlider(value=ex.FIG20_K, min=1, max=fm.E_MAX, step=1, description="k",
                                  continuous_update=True, layout=layout),
    }, limits={"k": lambda v: (1, v.n_experts)}, horizontal=True)
    wanted = controls.check({"n_experts": n_experts, "k": k})
    drawn = figures.render(20)
    art = drawn.artists
    groups = [([art[f"head[{j}]"]], _above(art[f"head[{j}]"], art[f"score.cell[{j}]"], 0.12, 0.12))
              for j in range(fm.E_MAX)]
    for key, _label in fm.ROUTING_ROWS:
        for j in range(fm.E_MAX):
            extra = [art[f"gate.full[{j}]"]] if key == "gate" else []
            groups.append(([art[f"{key}.cell[{j}]"], art[f"{key}[{j}]"], *extra], None))
    groups += [([art["heading"]], _band(art["heading"], 0.17, 0.17, right=fm.FIG20_HEADING_SPLIT - 0.05)),
               ([art["out.sum"]], _band(art["out.sum"], 0.15, 0.15)),
               ([art["out.full"]], _band(art["out.full"], 0.13, 0.13)),
               ([art["out.note"]], _band(art["out.note"], 0.11, 0.11))]
    widget = SliderFigure(
        drawn,
        name="routing",
        slider=controls,
        compute=lambda v: fm.fig20_trace(v.n_experts, v.k),
        move=lambda trace: fm.update_fig20(art, trace),
        describe=fm.describe_routing,
        groups=groups,
        trace=drawn.trace,
    )
    if wanted != widget.value:
        widget.update(wanted)
    return widget


@slider
def batch_token(candidate: int = len(ex.FIG22_CANDIDATES) - 1) -> SliderFigure:
    """Figure 22 with a picker for the batch's second token (one of
    :data:`~tokenpath.examples.FIG22_CANDIDATES`): per-token choices, the experts the
    batch uses, the load and what a capacity of one token per expert drops. The
    default, the last candidate, is the static figure.

    Each state shows :func:`tokenpath.figures.moe_batch.fig22_trace` of the candidate, e.g.

    >>> t = fbatch.fig22_trace(0)
    >>> t.experts_used.tolist(), t.dropped
    ([0, 1], [(1, 0), (1, 1)])
    """
    last = len(ex.FIG22_CANDIDATES) - 1
    check = int_in("candidate", 0, last)
    candidate = check(candidate)
    drawn = figures.render(22)
    art = drawn.artists
    control = ipywidgets.IntSlider(value=last, min=0, max=last, step=1, description="token 1",
                                   continuous_update=True, layout=ipywidgets.Layout(width="20em"))
    n_e = ex.FIG22_SCORES.shape[1]
    cell = lambda key, j: [art[f"{key}.cell[{j}]"], art[f"{key}[{j}]"]]  # noqa: E731
    used = [a for j in range(n_e) for a in cell("used", j)] + [art["outline.used"]]
    groups = [(cell("token[1]", j) + [art[f"token[1].score[{j}]"]], None) for j in range(n_e)]
    groups += [(cell(key, j), None) for key in ("load", "kept") for j in range(n_e)]
    groups += [(used, None), ([art["heading"]], _band(art["heading"], 0.17, 0.17))]
    side_x = art["token[1].side"].get_position()[0] - 0.05
    groups += [([art[f"{key}.side"]], _band(art[f"{key}.side"], 0.25, 0.25, left=side_x))
               for key in ("token[1]", "used", "load", "kept")]
    widget = SliderFigure(
        drawn,
        name="candidate",
        slider=control,
        check=check,
        compute=fbatch.fig22_trace,
        move=lambda trace: fbatch.update_fig22(art, trace),
        describe=fbatch.describe_batch,
        groups=groups,
        trace=drawn.trace[0],
    )
    if candidate != widget.value:
        widget.update(candidate)
    return widget
