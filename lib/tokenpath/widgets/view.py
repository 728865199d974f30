"""What a reader sees of a slider widget: one browser component that holds frames.

:class:`FrameView` is an ``anywidget`` (an ES module, ``frames.js`` beside this file,
plus synced traitlets; no build step). In the browser it draws a labelled range input
and readout per control, the image of the current state (a canvas with role ``img``
whose accessible name is the caption) and the caption in words (``describe()``). It
keeps the PNGs it has been given, keyed by the state, within a budget of bytes
(:data:`BROWSER_BUDGET`, least recently shown first out), and those near the current
state decoded, so a move to a held state draws the image at once, with no kernel
round trip. Otherwise it asks the kernel. The HTML edition runs the same module with
every frame given from the start (:mod:`tokenpath._sphinx.component`).

The protocol (custom messages; PNGs always travel as binary buffers, never base64):

- the browser sends ``{"type": "want", "index": [...]}`` for a state the reader moved
  to and that it does not hold; the kernel moves the widget there
  (:meth:`~tokenpath.widgets.slider.SliderFigure.update`), which sets the synced
  ``index``, ``caption``, ``png`` and ``origin`` and bumps ``seq``;
- while nothing is pending it sends ``{"type": "prefetch", "indices": [[...], ...]}``,
  the nearest neighbours of the current state it does not hold (each control, both
  directions), nearest first; the kernel renders them in order with the same
  partial-redraw renderer, without moving the reader's state, for up to
  :data:`~tokenpath.widgets.slider.PREFETCH_SECONDS`, and answers with one message
  ``{"type": "frames", "frames": [{"asked", "index", "caption"}, ...], "skipped": [...]}``,
  one PNG buffer per frame, the states the engine refuses (such a frame is never
  offered) or that are off the grid under ``skipped``;
- a ``want`` or ``shown`` for a position off the grid is answered
  ``{"type": "skip", "for": "want" or "shown", "asked": [...]}``;
- after showing held frames it tells the kernel, once the reader rests,
  ``{"type": "shown", "index": [...]}``, so the kernel's ``value``, ``trace`` and
  ``describe()`` follow what the reader sees.

A state is a list of positions, one per control (``index``); :func:`control_specs`
gives the browser each control's label, readouts and, for a control whose range or
values depend on the others (k ≤ E; Hkv among the divisors of Hq), the table of the
positions it may take, so the browser steps and clamps exactly as the kernel's
:class:`~tokenpath.widgets.controls.Controls` does and never asks for a state the
controls refuse.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import anywidget
import traitlets

from .controls import Controls, readout, slider_grid

__all__ = ["BROWSER_BUDGET", "FrameView", "control_specs"]

#: Most bytes of PNGs one widget's component holds in the browser.
BROWSER_BUDGET = 24 * 2**20
#: A slider with more positions than this is not offered whole (none of the book's is).
MOST_POSITIONS = 2001
#: Most combinations of other controls a dependent range is tabulated over.
MOST_LIMIT_ROWS = 4096

_HERE = Path(__file__).resolve().parent
ESM = _HERE / "frames.js"
CSS = _HERE / "frames.css"


class FrameView(anywidget.AnyWidget):
    """The browser component of one slider widget (see the module docstring)."""

    _esm = ESM
    _css = CSS

    #: One entry per control: ``{"label", "readouts", "limits"}`` (:func:`control_specs`).
    controls = traitlets.List().tag(sync=True)
    #: The kernel's current state: one position per control.
    index = traitlets.List(traitlets.Int()).tag(sync=True)
    caption = traitlets.Unicode("").tag(sync=True)
    png = traitlets.Bytes(b"").tag(sync=True)
    #: Why the kernel's state last changed: ``"want"`` (the reader asked), ``"shown"``
    #: (the reader showed a held frame) or ``"kernel"`` (code called ``update``).
    origin = traitlets.Unicode("kernel").tag(sync=True)
    #: Whether the browser may hold the current frame (not a state the engine refuses).
    keep = traitlets.Bool(True).tag(sync=True)
    #: Bumped on every change of the kernel's state, so the browser sees each one.
    seq = traitlets.Int(0).tag(sync=True)
    #: Most bytes of frames held in the browser.
    budget = traitlets.Int(BROWSER_BUDGET).tag(sync=True)


def positions(slider, bounds: tuple | None = None) -> list:
    """Every position of one ipywidgets slider, in order (:func:`slider_grid` with no
    thinning; a selection slider: its options)."""
    values = slider_grid(slider, MOST_POSITIONS, bounds=bounds)
    if len(values) >= MOST_POSITIONS:
        raise ValueError(f"slider {slider.description!r} has more than {MOST_POSITIONS - 1} positions")
    return values


def control_specs(control) -> tuple[list[list], list[dict]]:
    """``(values, specs)`` of a widget's control (one slider or :class:`Controls`):
    each slider's positions, and what the browser needs to show them — its label, one
    readout per position, and for a slider whose range depends on the others the
    positions it may take (in order) for each combination of the others' positions."""
    if isinstance(control, Controls):
        names, sliders = control.names, control.sliders
        values = [positions(s, control.bounds[n]) for n, s in zip(names, sliders)]
    else:
        names, sliders = (None,), (control,)
        values = [positions(control)]
    specs = [{"label": s.description or (n or ""), "readouts": [readout(s, v) for v in vals], "limits": None}
             for n, s, vals in zip(names, sliders, values)]
    if isinstance(control, Controls):
        for j, name in enumerate(names):
            if name not in control.dependent:
                continue
            others = [i for i in range(len(names)) if i != j]
            rows = math.prod(len(values[i]) for i in others)
            if rows > MOST_LIMIT_ROWS:
                raise ValueError(f"the range of {name} depends on {rows} combinations, more than {MOST_LIMIT_ROWS}")
            table = {}
            for combo in itertools.product(*(range(len(values[i])) for i in others)):
                value = list(control.value)
                for i, k in zip(others, combo):
                    value[i] = values[i][k]
                value = control.Value(*value)
                low, high = control.range(name, value)
                allowed = control.allowed(name, value)
                inside = [k for k, v in enumerate(values[j]) if low <= v <= high and (allowed is None or v in allowed)]
                table[",".join(map(str, combo))] = inside or [0]
            specs[j]["limits"] = {"others": others, "table": table}
    return values, specs


def index_of(values: list[list], value) -> list[int]:
    """The positions of ``value`` (one entry per control) in ``values``: the nearest
    position of each (a value set from code may fall between grid points)."""
    entries = tuple(value) if len(values) > 1 else (value,)
    out = []
    for vals, v in zip(values, entries):
        if v in vals:
            out.append(vals.index(v))
        else:
            out.append(min(range(len(vals)), key=lambda k: abs(vals[k] - v)))
    return out


def value_at(values: list[list], index) -> object:
    """The value at ``index`` (one position per control); a ``ValueError`` names a
    position that is out of range."""
    if not isinstance(index, (list, tuple)) or len(index) != len(values):
        raise ValueError(f"index must list {len(values)} position(s), got {index!r}")
    out = []
    for j, (vals, k) in enumerate(zip(values, index)):
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < len(vals):
            raise ValueError(f"position {k!r} of control {j} is outside 0 … {len(vals) - 1}")
        out.append(vals[k])
    return tuple(out) if len(values) > 1 else out[0]
