"""The controls a reader moves, and the values they may take.

A widget's control is one ``ipywidgets`` slider or a :class:`Controls`: several sliders
acting as one control whose value is a named tuple (``(distance, omega)``,
``(n_q_heads, n_kv_heads)`` …), where one slider's range may depend on the others
(k ≤ E). Every value is checked by name before the engine sees it (:func:`int_in`,
:func:`real_in`, and :meth:`Controls.check`), and :func:`slider_grid` lists the valid
positions of one slider: the grid the latency benchmark sweeps and the HTML edition
draws its frames on.
"""

from __future__ import annotations

import math
import numbers
from collections import namedtuple
from collections.abc import Mapping
from typing import Callable

import ipywidgets
import traitlets

__all__ = ["Controls", "int_in", "option_values", "readout", "real_in", "slider_grid"]


def _number_in(name: str, low, high, integer: bool):
    """A check for a slider value in ``[low, high]``, an integer or a finite real
    number, that names ``name`` when it fails."""
    kind = (numbers.Integral, "an integer", int) if integer else (numbers.Real, "a real number", float)

    def check(x):
        if isinstance(x, bool) or not isinstance(x, kind[0]):
            raise TypeError(f"{name} must be {kind[1]}, got {type(x).__name__}")
        x = kind[2](x)
        if not math.isfinite(x):
            raise ValueError(f"{name} must be finite, got {x}")
        if not low <= x <= high:
            raise ValueError(f"{name} must be between {low:g} and {high:g} (the slider's range), got {x:g}")
        return x

    return check


def real_in(name: str, low: float, high: float):
    """A check for a real slider value in ``[low, high]`` that names ``name`` when it fails."""
    return _number_in(name, low, high, integer=False)


def int_in(name: str, low: int, high: int):
    """A check for an integer slider value in ``[low, high]`` that names ``name`` when it fails."""
    return _number_in(name, low, high, integer=True)


class _Exponents:
    """The exponent axis of a FloatLogSlider, as a plain slider."""

    def __init__(self, slider):
        self.min, self.max, self.step = slider.min, slider.max, slider.step
        self.value = round(min(max(math.log(slider.value, slider.base), slider.min), slider.max), 12)


def option_values(slider) -> list:
    """The values of a selection slider (its options' values, or their labels)."""
    labels = slider._options_labels
    values = slider._options_values
    return list(values) if values else list(labels)


def readout(slider, value) -> str:
    """The text a slider shows beside its handle at ``value`` (its ``readout_format``;
    a selection slider: the option's label).

    >>> readout(ipywidgets.FloatSlider(readout_format="+.2f"), 0.5), readout(ipywidgets.IntSlider(), 3)
    ('+0.50', '3')
    """
    if hasattr(slider, "options") and not hasattr(slider, "step"):
        return str(dict(zip(slider._options_values, slider._options_labels)).get(value, value))
    fmt = getattr(slider, "readout_format", None)
    try:
        return format(value, fmt) if fmt else str(value)
    except (TypeError, ValueError):
        return str(value)


def slider_grid(slider, max_frames: int, *, bounds: tuple | None = None) -> list:
    """Positions of one slider: every position when there are at most ``max_frames``,
    else an even grid over [min, max] (or ``bounds``) in whole slider steps; the
    slider's current (default) value is always included. The latency benchmark's
    sweep and the HTML edition's precomputed frames both use it.

    >>> slider_grid(ipywidgets.IntSlider(value=3, min=1, max=5), 41)
    [1, 2, 3, 4, 5]
    >>> slider_grid(ipywidgets.FloatSlider(value=0.5, min=0, max=10, step=0.5), 5)
    [0.0, 0.5, 2.5, 5.0, 7.5, 10.0]
    """
    if max_frames < 2:
        raise ValueError(f"max_frames must be at least 2, got {max_frames}")
    default = slider.value
    if hasattr(slider, "options") and not hasattr(slider, "step"):  # SelectionSlider
        values = option_values(slider)
        if len(values) > max_frames:
            stride = math.ceil((len(values) - 1) / (max_frames - 1))
            values = values[::stride] + ([values[-1]] if (len(values) - 1) % stride else [])
    elif hasattr(slider, "base"):  # FloatLogSlider: min, max and step are exponents
        exponents = slider_grid(_Exponents(slider), max_frames)
        values = [slider.base ** e for e in exponents]
        default = min(values, key=lambda v: abs(v - default)) if values else default
    else:
        low, high = bounds or (slider.min, slider.max)
        step = slider.step
        is_int = isinstance(default, int) and isinstance(step, int)
        steps = round((high - low) / step)
        stride = max(1, math.ceil(steps / (max_frames - 1)))
        indices = list(range(0, steps + 1, stride))
        if indices[-1] != steps:
            indices.append(steps)
        values = [low + i * step if is_int else round(low + i * step, 12) for i in indices]
        values[-1] = high
        values = [int(v) for v in values] if is_int else [float(v) for v in values]
    if default not in values:
        values.append(default)
        values.sort()
    return values


def _check_for(name: str, s):
    """The value check of slider ``s`` over [low, high], naming ``name``."""
    integer = isinstance(s.value, int) and isinstance(s.step, int)
    return lambda low, high: _number_in(name, low, high, integer)


class Controls(ipywidgets.VBox, ipywidgets.ValueWidget):
    """Several sliders acting as one control. Its :attr:`value` is a named tuple with
    one field per slider (``Controls({"b": …, "t": …}).value.b``): moving any slider
    sets it, setting it moves the sliders.

    ``limits`` maps a slider's name to a function of the whole value giving that
    slider's ``(low, high)`` (a range that depends on other sliders, such as k ≤ E):
    when a reader moves the other slider, the dependent one is clamped into its new
    range; :meth:`check` refuses a value outside it by name. ``choices`` maps a
    slider's name to a function of the whole value giving the values that slider
    offers (only the divisors of Hq for Hkv): a reader's step goes on to the next one,
    and when another slider moves, it goes to the nearest. A value that code gives is
    checked against the slider's range only; whether the engine accepts it is the
    engine's to say (figure 16 then shows its refusal).

    >>> c = Controls({"n": ipywidgets.IntSlider(value=4, min=1, max=6),
    ...               "k": ipywidgets.IntSlider(value=3, min=1, max=6)}, limits={"k": lambda v: (1, v.n)})
    >>> c.value, c.sliders[1].max
    (Value(n=4, k=3), 4)
    >>> c.sliders[0].value = 2          # a reader shrinks n below k: k follows
    >>> c.value
    Value(n=2, k=2)
    >>> c.check({"n": 5})               # a partial value keeps the other sliders
    Value(n=5, k=2)
    >>> c.sweep(4)                      # each slider across its range, the other held
    [Value(n=1, k=1), Value(n=6, k=2), Value(n=2, k=1), Value(n=2, k=2)]
    >>> d = Controls({"q": ipywidgets.IntSlider(value=8, min=1, max=12),
    ...               "g": ipywidgets.IntSlider(value=2, min=1, max=12)},
    ...              choices={"g": lambda v: [g for g in range(1, v.q + 1) if v.q % g == 0]})
    >>> d.sliders[1].value = 3          # a reader steps up from 2: g goes on to 4
    >>> d.value
    Value(q=8, g=4)
    >>> d.sliders[0].value = 9          # q moves: g goes to the nearest divisor of 9
    >>> d.value, d.allowed("g")
    (Value(q=9, g=3), [1, 3, 9])
    """

    value = traitlets.Any()

    def __init__(self, sliders: Mapping[str, ipywidgets.ValueWidget], *,
                 limits: Mapping[str, Callable] | None = None, choices: Mapping[str, Callable] | None = None,
                 horizontal: bool = False):
        self.names = tuple(sliders)
        self.sliders = tuple(sliders.values())
        self.Value = namedtuple("Value", self.names)
        #: Each slider's full range (the range before any limit narrows it).
        self.bounds = {n: (s.min, s.max) for n, s in sliders.items()}
        self._limits = dict(limits or {})
        self._choices = dict(choices or {})
        for what, given in (("limits", self._limits), ("choices", self._choices)):
            unknown = set(given) - set(self.names)
            if unknown:
                raise ValueError(f"{what} name sliders that are not there: {sorted(unknown)}")
        if set(self._limits) & set(self._choices):
            raise ValueError(f"a slider has limits or choices, not both: {sorted(set(self._limits) & set(self._choices))}")
        self._checks = {n: _check_for(n, s) for n, s in sliders.items()}
        children = [ipywidgets.HBox(list(self.sliders))] if horizontal else list(self.sliders)
        super().__init__(children=children)
        self._pushing = False
        self.value = self.check(self.Value(*(s.value for s in self.sliders)))
        for s in self.sliders:
            s.observe(self._from_sliders, names="value")

    @property
    def dependent(self) -> tuple:
        """The names of the sliders whose range or values depend on the others."""
        return tuple(n for n in self.names if n in self._limits or n in self._choices)

    def range(self, name: str, value=None) -> tuple:
        """Slider ``name``'s range at ``value`` (default: the current value)."""
        value = self.value if value is None else value
        if name in self._choices:
            allowed = self.allowed(name, value)
            return allowed[0], allowed[-1]
        limit = self._limits.get(name)
        if limit is None:
            return self.bounds[name]
        return limit(value)

    def allowed(self, name: str, value=None) -> list | None:
        """The values slider ``name`` may take at ``value`` (default: the current value),
        in order, when it has ``choices``; else ``None`` (every step of its range)."""
        choose = self._choices.get(name)
        if choose is None:
            return None
        low, high = self.bounds[name]
        out = sorted(v for v in choose(self.value if value is None else value) if low <= v <= high)
        if not out:
            raise ValueError(f"{name} has no allowed value at {value}")
        return out

    def check(self, value) -> tuple:
        """``value`` as a checked :attr:`Value`: a tuple with one entry per slider, or a
        mapping of some slider names to values (the others keep theirs). Each entry is
        checked against its slider's range by name; a dependent slider the mapping does
        not name is moved into its new range, as when a reader drags the other."""
        given = self.names
        if isinstance(value, Mapping):
            unknown = [k for k in value if k not in self.names]
            if unknown:
                raise ValueError(f"no slider named {unknown[0]!r}; the sliders are {', '.join(self.names)}")
            given = tuple(value)
            value = self.value._replace(**value)
        elif not isinstance(value, (tuple, list)) or len(value) != len(self.names):
            raise TypeError(f"the value must be ({', '.join(self.names)}), got {value!r}")
        out = self.Value(*(self._checks[n](*self.bounds[n])(v) for n, v in zip(self.names, value)))
        for name, limit in self._limits.items():  # dependent ranges, after every entry is checked
            if name in given:
                self._checks[name](*limit(out))(getattr(out, name))
        return self._clamp(out, given=given)  # a dependent slider not given follows, as in a drag

    def sweep(self, steps: int) -> list[tuple]:
        """About ``steps`` values that move each slider in turn across its range (on its
        step grid, :func:`slider_grid`), the others held at their current values."""
        held, out = self.value, []
        share = [steps // len(self.names) + (k < steps % len(self.names)) for k in range(len(self.names))]
        for name, s, n in zip(self.names, self.sliders, share):
            allowed = self.allowed(name, held)
            if allowed is not None:  # its allowed values, evenly thinned, both ends kept
                n = max(2, n)
                grid = list(dict.fromkeys(allowed[round(i * (len(allowed) - 1) / (n - 1))] for i in range(n)))
            else:
                grid = slider_grid(s, max(2, n), bounds=self.range(name, held))
            if len(grid) > max(2, n):  # the default was added: keep n positions
                grid = [v for v in grid if v != s.value][: max(2, n)]
            out += [self._clamp(held._replace(**{name: v})) for v in grid]
        return out

    def _from_sliders(self, change) -> None:
        if self._pushing:
            return
        moved = self.names[self.sliders.index(change["owner"])] if change.get("owner") in self.sliders else None
        up = moved is not None and change["new"] > change["old"]
        self.value = self._clamp(self.Value(*(s.value for s in self.sliders)), moved, up)

    def _clamp(self, value, moved: str | None = None, up: bool = False, given: tuple = ()):
        """``value`` with every dependent slider moved into its range, or to its nearest
        allowed value (the slider a reader just moved: the next one its way); a value
        ``given`` in code keeps its choice."""
        for name in self.dependent:
            x = getattr(value, name)
            allowed = self.allowed(name, value)
            if allowed is None:
                low, high = self._limits[name](value)
                x = min(max(x, low), high)
            elif x not in allowed and name not in given:
                ahead = [a for a in allowed if a > x] if up else [a for a in allowed if a < x][::-1]
                x = ahead[0] if name == moved and ahead else min(allowed, key=lambda a: (abs(a - x), a))
            value = value._replace(**{name: x})
        return value

    @traitlets.observe("value")
    def _to_sliders(self, change) -> None:
        value = change["new"]
        self._pushing = True
        try:
            for name, s in zip(self.names, self.sliders):
                low, high = self.range(name, value)
                if (s.min, s.max) != (low, high):
                    s.max = max(high, s.min)  # widen first: min ≤ max throughout
                    s.min, s.max = low, high
                s.value = getattr(value, name)
        finally:
            self._pushing = False
