"""Widget of chapter 06_gqa: the numbers of query heads and K/V heads of figure 16.

Two integer sliders make one control whose value is the pair ``(Hq, Hkv)``
(:class:`PairControl`). A pair whose Hq is not a multiple of Hkv is not an error of
the widget: the figure and the caption show the engine's refusal instead of a
traceback. Values outside the sliders' ranges are refused by name, as in every widget.
"""

from __future__ import annotations

import numbers

import ipywidgets
import numpy as np
import traitlets

from .. import examples as ex
from .. import figures
from ..figures import gqa as G
from . import SliderFigure, slider

__all__ = ["PairControl", "head_groups", "pair_in"]


class PairControl(ipywidgets.HBox):
    """Two sliders read as one value, the pair ``(first.value, second.value)``.

    Setting :attr:`value` moves both sliders; moving either slider sets :attr:`value`.
    :meth:`sweep` lists slider positions for the latency benchmark.
    """

    value = traitlets.Tuple()

    def __init__(self, first: ipywidgets.ValueWidget, second: ipywidgets.ValueWidget, **kwargs):
        super().__init__([first, second], **kwargs)
        self.first, self.second = first, second
        self._pushing = False
        self.value = (first.value, second.value)
        first.observe(self._from_sliders, names="value")
        second.observe(self._from_sliders, names="value")

    def _from_sliders(self, change) -> None:
        if not self._pushing:
            self.value = (self.first.value, self.second.value)

    @traitlets.observe("value")
    def _to_sliders(self, change) -> None:
        a, b = change["new"]
        self._pushing = True
        try:
            self.first.value, self.second.value = a, b
        finally:
            self._pushing = False

    def sweep(self, steps: int) -> list[tuple]:
        """``steps`` pairs: the first slider across its range with the second at its
        current value, then the second across its range with the first at its own."""
        a0, b0 = self.value

        def grid(s, n):
            g = np.linspace(s.min, s.max, n)
            g = s.min + np.round((g - s.min) / s.step) * s.step
            return [type(s.value)(v) for v in g]

        half = steps // 2
        return [(a, b0) for a in grid(self.first, half)] + [(a0, b) for b in grid(self.second, steps - half)]


def pair_in(names: tuple[str, str], low, high, *, integer: bool):
    """A check for a pair of slider values, each in ``[low, high]``, naming the bad one."""

    def one(name, x):
        if isinstance(x, bool) or not isinstance(x, numbers.Integral if integer else numbers.Real):
            kind = "an integer" if integer else "a real number"
            raise TypeError(f"{name} must be {kind}, got {type(x).__name__}")
        x = int(x) if integer else float(x)
        if not np.isfinite(x):
            raise ValueError(f"{name} must be finite, got {x}")
        if not low <= x <= high:
            raise ValueError(f"{name} must be between {low:g} and {high:g} (the slider's range), got {x:g}")
        return x

    def check(pair) -> tuple:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(f"the value must be a pair ({names[0]}, {names[1]}), got {pair!r}")
        return tuple(one(n, x) for n, x in zip(names, pair))

    return check


#: Figure 16's artists that move with (Hq, Hkv).
_MOVING = ("q.box[", "q.text[", "link[", "kv.box[", "kv.text[")
_MOVING_TEXT = ("refusal", "shapes", "cache", "mha", "ratio")


@slider
def head_groups(n_q_heads: int = ex.FIG16_N_Q_HEADS, n_kv_heads: int = ex.FIG16_N_KV_HEADS) -> SliderFigure:
    """Figure 16 with sliders for Hq and Hkv: the head-to-group map, the shapes and the
    cache ratio follow; a pair that does not divide shows the engine's refusal. The
    default, Hq = 8 and Hkv = 2, is the static figure.

    >>> w = head_groups(8, 1)
    >>> w.trace.groups.tolist(), w.trace.ratio
    ([0, 0, 0, 0, 0, 0, 0, 0], Fraction(1, 8))
    >>> w.update((6, 4)); print(w.describe())
    Hq = 6, Hkv = 4: refused by the engine: n_q_heads=6 is not divisible by n_kv_heads=4: every K/V head must serve the same whole number of query heads.
    """
    top = ex.GQA_MAX_HEADS
    check = pair_in(("n_q_heads", "n_kv_heads"), 1, top, integer=True)
    wanted = check((n_q_heads, n_kv_heads))
    drawn = figures.render(16)
    layout = ipywidgets.Layout(width="22em")
    control = PairControl(
        ipywidgets.IntSlider(value=ex.FIG16_N_Q_HEADS, min=1, max=top, step=1, description="Hq",
                             continuous_update=True, layout=layout),
        ipywidgets.IntSlider(value=ex.FIG16_N_KV_HEADS, min=1, max=top, step=1, description="Hkv",
                             continuous_update=True, layout=layout),
    )
    art = drawn.artists
    widget = SliderFigure(
        drawn,
        name="(Hq, Hkv)",
        slider=control,
        check=check,
        compute=lambda pair: G.head_sharing_or_refusal(*pair),
        move=lambda trace: G.update_head_sharing(art, trace),
        describe=G.describe_head_sharing,
        moving=[a for k, a in art.items() if k.startswith(_MOVING) or k in _MOVING_TEXT],
        trace=drawn.trace,
    )
    if wanted != widget.value:
        widget.update(wanted)
    return widget
