"""Which states of a slider widget the HTML edition draws in advance.

Each slider is moved over an even grid through its default (:func:`even_grid`: every
position up to :data:`SINGLE`, or :data:`PER_SLIDER` per slider of several), every
combination for several sliders, at most :data:`MOST_FRAMES` per widget (:func:`grids`).
Only values the engine accepts get a frame (:func:`accepted`): a combination the
widget's controls refuse or clamp, or whose trace is the engine's refusal, gets none.
When the combinations would be too many for the last control to keep all its
positions and the others are short choices (chapter 4's layer and head, then the query
row: 720 states), every position is kept and the last control is drawn as strips laid
over the others' frames (:func:`layered_grids`, :mod:`.frames`).
"""

from __future__ import annotations

import math

#: At most this many positions of one slider (alone), and per slider of several.
SINGLE, PER_SLIDER = 41, 17
#: At most this many frames per widget.
MOST_FRAMES = 100
#: Sliders with at most this many positions keep all of them while a longer one can be thinned.
WHOLE = 8


def even_grid(low, high, step, default, most: int) -> list:
    """At most ``most`` values of a slider over [low, high] in whole ``step``\\ s, evenly
    spaced and through ``default``: every value when they fit, else every k-th value
    counted from the default (k as small as fits).

    >>> even_grid(0, 16, 1, 2, 41)[:4], len(even_grid(0, 16, 1, 2, 41))
    ([0, 1, 2, 3], 17)
    >>> even_grid(0, 10, 1, 3, 5)
    [1, 3, 5, 7, 9]
    >>> even_grid(0.0, 1.0, 0.125, 0.5, 3)
    [0.125, 0.5, 0.875]
    """
    if most < 2:
        raise ValueError(f"most must be at least 2, got {most}")
    if not low <= default <= high:
        raise ValueError(f"default must lie in [{low}, {high}], got {default}")
    steps = round((high - low) / step)
    at = round((default - low) / step)
    integer = all(isinstance(v, int) for v in (low, step, default))
    k = 1
    while len(range(at % k, steps + 1, k)) > most:
        k += 1
    value = (lambda i: low + i * step) if integer else (lambda i: float(high if i == steps else low + i * step))
    return [default if i == at else value(i) for i in range(at % k, steps + 1, k)]


def slider_values(slider, most: int) -> list:
    """:func:`even_grid` of an ipywidgets slider (a selection slider: its options)."""
    if hasattr(slider, "options") and not hasattr(slider, "step"):
        from ..widgets import _option_values

        values = _option_values(slider)
        at = values.index(slider.value)
        k = max(1, math.ceil(len(values) / most))
        return values[at % k::k]
    if hasattr(slider, "base"):
        exps = even_grid(slider.min, slider.max, slider.step, math.log(slider.value, slider.base), most)
        return [slider.value if math.isclose(e, math.log(slider.value, slider.base)) else slider.base ** e
                for e in exps]
    return even_grid(slider.min, slider.max, slider.step, slider.value, most)


def grids(sliders) -> list[list]:
    """One grid per slider; with several sliders, the longest thinned until the
    combinations are at most :data:`MOST_FRAMES` (a slider of at most :data:`WHOLE`
    positions keeps them all while a longer one can be thinned)."""
    caps = [SINGLE if len(sliders) == 1 else PER_SLIDER] * len(sliders)
    values = [slider_values(s, c) for s, c in zip(sliders, caps)]
    short = {i for i, v in enumerate(values) if len(v) <= WHOLE}
    while math.prod(map(len, values)) > MOST_FRAMES:
        long = [i for i in range(len(values)) if i not in short and len(values[i]) > 2] or range(len(values))
        k = max(long, key=lambda i: len(values[i]))
        if len(values[k]) <= 1:
            break
        caps[k] = len(values[k]) - 1
        values[k] = slider_values(sliders[k], caps[k])
    return values


def layered_grids(sliders) -> tuple[list[list], bool]:
    """:func:`grids`, or, when they would thin the last of several sliders while the
    others are choices of at most :data:`WHOLE` positions each (a layer, a head),
    every position of the others and of the last slider (up to :data:`SINGLE`): then
    the last slider is drawn as patches over the others' frames (``True``)."""
    values = grids(sliders)
    if len(sliders) < 2:
        return values, False
    last = slider_values(sliders[-1], SINGLE)
    others = [slider_values(s, SINGLE) for s in sliders[:-1]]
    if (len(values[-1]) >= len(last) or any(len(v) > WHOLE for v in others)
            or math.prod(map(len, others)) > MOST_FRAMES):
        return values, False
    return others + [last], True


def accepted(widget, combo) -> bool:
    """Move ``widget`` to ``combo``; whether its controls and the engine accept it (no
    refusal, no clamping of a dependent slider)."""
    value = combo[0] if len(combo) == 1 else tuple(combo)
    try:
        widget.update(value)
    except ValueError:
        return False
    now = widget.value if len(combo) > 1 else (widget.value,)
    same = all(a == b or (isinstance(a, float) and math.isclose(a, b, rel_tol=1e-9)) for a, b in zip(now, combo))
    return same and type(widget.trace).__name__ != "Refused"
