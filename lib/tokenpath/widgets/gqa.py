"""Widget of chapter 07_gqa: the numbers of query heads and K/V heads of figure 16.

Two integer sliders make one :class:`~tokenpath.widgets.Controls` whose value is the
pair ``(n_q_heads, n_kv_heads)``. The Hkv slider offers only the divisors of Hq, the
pairs the engine accepts: its keys step from one divisor to the next, and when Hq
moves, Hkv moves to the nearest divisor of the new Hq. A pair the engine refuses,
given in code (``update((8, 3))``), is not an error of the widget: the figure and the
caption show the engine's refusal instead of a traceback. Values outside the sliders'
ranges are refused by name, as in every widget.
"""

from __future__ import annotations

import ipywidgets

from .. import examples as ex
from .. import gqa
from .. import figures
from ..figures import gqa as G
from . import Controls, SliderFigure, slider

__all__ = ["head_groups"]

#: Figure 16's artists that move with (Hq, Hkv).
_MOVING = ("q.box[", "link[", "kv.box[", "kv.text[")
_MOVING_TEXT = ("q.range", "refusal", "shapes", "cache", "mha", "ratio")


@slider
def head_groups(n_q_heads: int = ex.FIG16_N_Q_HEADS, n_kv_heads: int = ex.FIG16_N_KV_HEADS) -> SliderFigure:
    """Figure 16 with sliders for Hq and Hkv: the head-to-group map, the shapes and the
    cache ratio follow; Hkv steps through the divisors of Hq. The default, Hq = 8 and
    Hkv = 2, is the static figure.

    Each step computes :func:`tokenpath.figures.gqa.head_sharing_or_refusal`:

    >>> t = G.head_sharing_or_refusal(8, 1)
    >>> t.groups.tolist(), t.ratio
    ([0, 0, 0, 0, 0, 0, 0, 0], Fraction(1, 8))
    >>> print(G.describe_head_sharing(G.head_sharing_or_refusal(6, 4)))
    Hq = 6, Hkv = 4: refused by the engine: n_q_heads=6 is not divisible by n_kv_heads=4: every K/V head must serve the same whole number of query heads.
    """
    top = ex.GQA_MAX_HEADS
    layout = ipywidgets.Layout(width="22em")
    controls = Controls({
        "n_q_heads": ipywidgets.IntSlider(value=ex.FIG16_N_Q_HEADS, min=1, max=top, step=1, description="Hq",
                                          continuous_update=True, layout=layout),
        "n_kv_heads": ipywidgets.IntSlider(value=ex.FIG16_N_KV_HEADS, min=1, max=top, step=1, description="Hkv",
                                           continuous_update=True, layout=layout),
    }, choices={"n_kv_heads": lambda v: gqa.kv_head_counts(v.n_q_heads)}, horizontal=True)
    wanted = controls.check((n_q_heads, n_kv_heads))
    drawn = figures.render(16)
    art = drawn.artists
    widget = SliderFigure(
        drawn,
        name="(Hq, Hkv)",
        slider=controls,
        compute=lambda v: G.head_sharing_or_refusal(v.n_q_heads, v.n_kv_heads),
        move=lambda trace: G.update_head_sharing(art, trace),
        describe=G.describe_head_sharing,
        moving=[a for k, a in art.items() if k.startswith(_MOVING) or k in _MOVING_TEXT],
        trace=drawn.trace,
    )
    if wanted != widget.value:
        widget.update(wanted)
    return widget
