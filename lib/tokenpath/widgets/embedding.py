"""Widgets of chapter 03_embedding_lookup: the temperature of figure 5's sampling row
and a cell picker for figure 3's lookup."""

from __future__ import annotations

import numbers

import ipywidgets
import traitlets

from .. import embedding as em
from .. import examples as ex
from .. import figures
from ..figures import embedding as fe
from . import SliderFigure, real_in, slider

__all__ = ["CellPicker", "lookup_cell", "temperature_sampling"]


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

    >>> t = em.sampling_trace(ex.FIG5_GAP, 0.5)
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
        compute=lambda tau: em.sampling_trace(ex.FIG5_GAP, tau),
        move=lambda trace: fe.update_sampling(a, trace),
        describe=fe.describe_sampling,
        moving=_moving_sampling(a),
        trace=drawn.trace.gap,
    )
    if temperature != widget.value:
        widget.update(temperature)
    return widget


def _cells() -> tuple[int, int, int]:
    """(B, T, d) of figure 3's batch: the ranges of b, t and f."""
    return ex.B, ex.T, ex.D_MODEL


def _flat(b: int, t: int, f: int) -> int:
    _, n_t, d = _cells()
    return (b * n_t + t) * d + f


def _unflat(k: int) -> tuple[int, int, int]:
    _, n_t, d = _cells()
    return k // (n_t * d), (k // d) % n_t, k % d


class CellPicker(ipywidgets.VBox, ipywidgets.ValueWidget):
    """Three integer sliders (b, t, f) that act as one control.

    Its ``value`` is the flat index of the chosen cell, ``(b·T + t)·d + f``, and it has
    ``min``, ``max`` and ``step`` like a slider, so it steps through every cell in
    reading order (the latency benchmark uses exactly that). Moving any of the three
    sliders sets ``value``; setting ``value`` moves the three sliders.

    >>> p = CellPicker((1, 3, 5))
    >>> p.value, p.cell                      # (1·4 + 3)·8 + 5
    (61, (1, 3, 5))
    """

    value = traitlets.Int(0)

    def __init__(self, cell=ex.FIG3_CELL):
        n_b, n_t, d = _cells()
        self.min, self.max, self.step = 0, n_b * n_t * d - 1, 1
        self.parts = [
            ipywidgets.IntSlider(value=v, min=0, max=hi - 1, description=name, continuous_update=True,
                                 layout=ipywidgets.Layout(width="20em"))
            for name, v, hi in zip(("b", "t", "f"), cell, (n_b, n_t, d))
        ]
        super().__init__(children=self.parts)
        self.value = _flat(*cell)
        self._linking = False
        for part in self.parts:
            part.observe(self._from_parts, names="value")
        self.observe(self._to_parts, names="value")

    @property
    def cell(self) -> tuple[int, int, int]:
        """The chosen (b, t, f)."""
        return _unflat(self.value)

    def _from_parts(self, change) -> None:
        if not self._linking:
            self.value = _flat(*(p.value for p in self.parts))

    def _to_parts(self, change) -> None:
        self._linking = True
        try:
            for part, v in zip(self.parts, _unflat(change["new"])):
                part.value = v
        finally:
            self._linking = False


def _check_cell(value) -> int:
    """A cell as a flat index ``0 … B·T·d−1`` or a ``(b, t, f)`` triple → the flat index."""
    n_b, n_t, d = _cells()
    if isinstance(value, tuple):
        if len(value) != 3:
            raise ValueError(f"cell must be a (b, t, f) triple, got {value!r}")
        for name, v, hi in zip(("b", "t", "f"), value, (n_b, n_t, d)):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                raise TypeError(f"{name} must be an integer, got {type(v).__name__}")
            if not 0 <= v < hi:
                raise ValueError(f"{name} must be between 0 and {hi - 1}, got {v}")
        return _flat(*(int(v) for v in value))
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"cell must be a (b, t, f) triple or a flat cell index, got {type(value).__name__}")
    if not 0 <= value < n_b * n_t * d:
        raise ValueError(f"cell index must be between 0 and {n_b * n_t * d - 1}, got {value}")
    return int(value)


def _moving_lookup(art: dict) -> list:
    """Figure 3's artists a new cell moves: the highlights and the equal-ID marks, all
    drawn above every still artist."""
    keys = [k for k in art if k.startswith(("focus.", "s.same[", "X.same["))]
    return [art[k] for k in keys]


@slider
def lookup_cell(cell=ex.FIG3_CELL) -> SliderFigure:
    """Figure 3 with a cell picker: choose sequence b, position t and feature f, and
    see which ID is read, which row of E it selects and which entry lands in X. The
    default, (0, 2, 0), is the static figure. Its control is a :class:`CellPicker`; a
    cell can also be set from code, ``widget.update((b, t, f))``.
    """
    k = _check_cell(cell)
    drawn = figures.render(3)
    picker = CellPicker(ex.FIG3_CELL)
    widget = SliderFigure(
        drawn,
        name="cell",
        slider=picker,
        check=_check_cell,
        compute=lambda flat: em.lookup_trace(_unflat(flat)),
        move=lambda trace: fe.update_lookup(drawn.artists, trace),
        describe=fe.describe_lookup,
        moving=_moving_lookup(drawn.artists),
        trace=drawn.trace,
    )
    if k != widget.value:
        widget.update(k)
    return widget

