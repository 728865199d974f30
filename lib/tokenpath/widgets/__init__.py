"""Sliders wired to figures: compute the trace → update the artists in place → PNG.

A :class:`SliderFigure` owns one figure built by the figure registry (the very builder
that writes ``figures/figNN.png``), the named artists that builder returned, its
control and an ``ipywidgets.Image`` showing the figure as PNG. The control is one
``ipywidgets`` slider, or a :class:`Controls`: several sliders acting as one control
whose value is a named tuple (``(distance, omega)``, ``(n_q_heads, n_kv_heads)`` …),
where one slider's range may depend on the others. Moving a slider calls
:meth:`SliderFigure.update`, which

1. checks the value and recomputes the trace with the engine,
2. moves the figure's artists to the new trace with the figure module's ``update_*``
   function (no axes is cleared or redrawn from scratch),
3. renders a new PNG and puts it into the image widget.

No interactive matplotlib backend is involved (no ``ipympl``): the figure is drawn
with Agg, so the same code runs headless in tests and benchmarks. The image is
rendered at screen resolution (:data:`~tokenpath.figures.style.SCREEN_DPI`); at that
resolution the default state is the static figure pixel for pixel.

Rendering redraws only what moves (:class:`_Renderer`). The rest of the figure is
drawn once into a background; a step restores it where the moving artists are, draws
them in the order a full draw would, and encodes the canvas exactly as
:func:`tokenpath.figures.style.png_bytes` does (:func:`encode_png`). A widget whose
moving artists fall into separate regions (a table cell, a line of text) names those
*groups*; a step then redraws only the groups whose look changed, and pastes a group's
pixels when it has looked the same before. A state the widget has already shown is
not drawn again: its PNG is kept (up to :data:`FRAME_CACHE_BYTES`). The result is the
same PNG, byte for byte, as a full ``savefig`` of the same state (the tests check
this), at a fraction of the cost.

Each chapter's widgets live in a module of this package (``widgets.attention`` …) and
are re-exported here. Every widget registers its constructor once in :data:`SLIDERS`;
:meth:`SliderFigure.sweep` lists positions that step each of its sliders in turn
(``benchmarks/widget_latency.py`` times them) and :func:`slider_grid` is the grid of
one slider that the sweep and the HTML edition's precomputed frames share.

>>> sorted(SLIDERS)[:3]
['batch_token', 'boundary_delta', 'gate_pre_activation']

(the widgets themselves are built in ``tests/test_widgets.py`` and the chapters' widget
tests: default state = the static figure, every state = a full draw.)
"""

from __future__ import annotations

import functools
import html
import io
import math
import numbers
import time
from collections import OrderedDict, namedtuple
from collections.abc import Mapping
from operator import attrgetter
from typing import Callable, Iterable

import ipywidgets
import matplotlib as mpl
import numpy as np
import traitlets
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.container import Container
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from .. import figures
from ..figures import style

__all__ = ["SLIDERS", "Controls", "SliderFigure", "encode_png", "int_in", "real_in", "slider", "slider_grid"]

#: Every slider widget of the book: its name and the constructor that builds it in its
#: default state (the static figure). Each widget is registered once.
SLIDERS: dict[str, Callable[[], "SliderFigure"]] = {}

#: Most bytes of PNGs one widget keeps for states it has shown.
FRAME_CACHE_BYTES = 8 * 2**20
#: Most bytes of drawn group images one widget keeps for reuse.
GROUP_CACHE_BYTES = 24 * 2**20
#: Pixels added around a group's extent: room for antialiased edges.
_PAD = 3


def slider(make: Callable[..., "SliderFigure"]) -> Callable[..., "SliderFigure"]:
    """Decorator: register a slider-widget constructor in :data:`SLIDERS` by its name."""
    if make.__name__ in SLIDERS:
        raise ValueError(f"slider widget {make.__name__} is registered twice")
    SLIDERS[make.__name__] = make
    return make


# ------------------------------------------------------------------ rendering


def encode_png(canvas: FigureCanvasAgg) -> bytes:
    """The PNG of what ``canvas`` holds, encoded with the arguments
    :func:`~tokenpath.figures.style.png_bytes` gives ``savefig`` (so the bytes equal a
    full ``savefig`` of the same pixels)."""
    buf = io.BytesIO()
    mpl.image.imsave(
        buf, canvas.buffer_rgba(), format="png", origin="upper", dpi=canvas.figure.dpi,
        metadata={"Software": None}, pil_kwargs={"compress_level": style.PNG_COMPRESS_LEVEL},
    )
    return buf.getvalue()


def _look(artist) -> tuple:
    """What decides how ``artist`` is drawn, for deciding whether it must be redrawn."""
    if isinstance(artist, Text):
        patch = artist.get_bbox_patch()
        return (artist.get_visible(), artist.get_text(), artist.get_color(), artist.get_fontsize(),
                artist.get_weight(), artist.get_position(),
                None if patch is None else (tuple(patch.get_facecolor()), tuple(patch.get_edgecolor())))
    if isinstance(artist, Patch):
        return (artist.get_visible(), tuple(artist.get_facecolor()), tuple(artist.get_edgecolor()))
    if isinstance(artist, Line2D):
        return (artist.get_visible(), artist.get_xydata().tobytes(), artist.get_color())
    raise TypeError(f"cannot tell whether a {type(artist).__name__} changed; group only texts, patches and lines")


class _Renderer:
    """PNG of a figure whose moving artists change between calls.

    Everything else is drawn once into a background. ``groups`` is
    ``[(artists, region), …]``; ``region`` is a display :class:`~matplotlib.transforms.Bbox`,
    a function returning one (called once the canvas exists), ``None`` for the extent
    of the group's patches, or ``"figure"`` for the whole canvas. A call redraws each
    group over the background restored inside its region, in full-draw order: every
    time for a ``"figure"`` group, and for the others only when their look
    (:func:`_look`) changed, over the frame this renderer drew last, pasting the pixels
    a group had the last time it looked the same (up to :data:`GROUP_CACHE_BYTES`).
    Then the canvas is encoded (:func:`encode_png`).

    This equals a full draw as long as no still artist that a full draw paints *after*
    a moving one overlaps it (pass such an artist, or its whole ``Axes``, as moving
    too), and regions of separate groups do not overlap.
    """

    def __init__(self, figure: Figure, groups: list):
        self.figure = figure
        figure.set_dpi(style.SCREEN_DPI)
        self.canvas = FigureCanvasAgg(figure)
        order = {id(a): k for k, a in enumerate(_draw_order(figure))}
        self._specs = []
        for artists, region in groups:
            wanted = _flatten(artists)
            axes = {id(a) for a in wanted if isinstance(a, Axes)}
            # an Axes drawn whole already draws everything inside it
            wanted = [a for a in wanted if isinstance(a, Axes) or id(a.axes) not in axes]
            missing = [a for a in wanted if id(a) not in order]
            if missing:
                raise ValueError(f"moving artists must belong to the figure; {missing[0]!r} does not")
            if region != "figure":
                for a in wanted:
                    _look(a)  # a group that is not the whole figure must be comparable
            self._specs.append((sorted(wanted, key=lambda a: order[id(a)]), region))
        self.moving = [a for artists, _ in self._specs for a in artists]
        self.groups: list | None = None  # (artists, (rows, cols) | None), set by the first call
        self._cache: OrderedDict = OrderedDict()
        self._cached_bytes = 0
        self.timings: dict[str, float] = {}

    def _capture(self) -> None:
        with style.book_style():
            # one full draw settles layout state (title positions, aspect boxes) and is
            # the current frame …
            self.canvas.draw()
            frame = np.array(self.canvas.buffer_rgba())
            # … one without the moving artists is the background; it parks hidden
            # texts (a hidden title goes to the axes' top), so their places are put back
            places = [(t, t.get_position()) for t in self.figure.findobj(Text)]
            shown = [a for a in self.moving if a.get_visible()]
            for a in shown:
                a.set_visible(False)
            try:
                self.canvas.draw()
                self._background = np.array(self.canvas.buffer_rgba())
            finally:
                for a in shown:
                    a.set_visible(True)
                for t, xy in places:
                    t.set_position(xy)
            np.asarray(self.canvas.buffer_rgba())[:] = frame
            renderer = self.canvas.get_renderer()
            height, width = self._background.shape[:2]
            self.groups = []
            for artists, region in self._specs:
                if region == "figure":
                    self.groups.append((artists, None))
                    continue
                if callable(region):  # computed now, at the canvas's resolution
                    region = region()
                if region is None:  # a cell: its rectangle holds its texts
                    patches = [a for a in artists if isinstance(a, Patch)] or artists
                    region = Bbox.union([a.get_window_extent(renderer) for a in patches])
                x0, y0, x1, y1 = region.extents
                rows = slice(max(0, int(height - y1) - _PAD), min(height, int(np.ceil(height - y0)) + _PAD))
                cols = slice(max(0, int(x0) - _PAD), min(width, int(np.ceil(x1)) + _PAD))
                self.groups.append((artists, (rows, cols)))
        self._looks = [None if box is None else tuple(_look(a) for a in artists) for artists, box in self.groups]
        # the frame last drawn here, which the looks describe: a full draw from outside
        # (``savefig`` of the same figure) may leave a different state on the canvas
        self._frame = None if all(box is None for _, box in self.groups) else np.array(self.canvas.buffer_rgba())

    def _remember(self, key, block: np.ndarray) -> None:
        self._cache[key] = block
        self._cached_bytes += block.nbytes
        while self._cached_bytes > GROUP_CACHE_BYTES and len(self._cache) > 1:
            _, old = self._cache.popitem(last=False)
            self._cached_bytes -= old.nbytes

    def png(self) -> bytes:
        """Bring the canvas to the artists' current state and encode it; the seconds
        spent on each go to :attr:`timings` (``draw``, ``encode``)."""
        t0 = time.perf_counter()
        with style.book_style():
            if self.groups is None:
                self._capture()
            else:
                self._redraw()
            t1 = time.perf_counter()
            png = encode_png(self.canvas)
        self.timings = {"draw": t1 - t0, "encode": time.perf_counter() - t1}
        return png

    def _redraw(self) -> None:
        renderer = self.canvas.get_renderer()
        pixels = np.asarray(self.canvas.buffer_rgba())
        if self._frame is not None:
            pixels[:] = self._frame
        for k, (artists, box) in enumerate(self.groups):
            if box is None:  # the whole figure, every time
                pixels[:] = self._background
                for a in artists:
                    a.draw(renderer)
                continue
            look = tuple(_look(a) for a in artists)
            if look == self._looks[k]:
                continue
            self._looks[k] = look
            rows, cols = box
            block = self._cache.get((k, look))
            if block is not None:  # this group has looked like this before
                self._cache.move_to_end((k, look))
                pixels[rows, cols] = block
                continue
            pixels[rows, cols] = self._background[rows, cols]
            for a in artists:
                a.draw(renderer)
            self._remember((k, look), pixels[rows, cols].copy())
        if self._frame is not None:
            self._frame[:] = pixels


def _draw_order(figure: Figure) -> list[Artist]:
    """Artists in the order ``Figure.draw`` paints them: figure children by zorder,
    and inside each ``Axes`` its background patch, then its children by zorder."""
    out: list[Artist] = []

    def walk(artist: Artist) -> None:
        out.append(artist)
        if isinstance(artist, Axes):
            out.append(artist.patch)
            children = [c for c in artist.get_children() if c is not artist.patch]
            for child in sorted(children, key=attrgetter("zorder")):
                walk(child)

    children = [c for c in figure.get_children() if c is not figure.patch]
    for child in sorted(children, key=attrgetter("zorder")):
        walk(child)
    return out


def _flatten(items) -> list[Artist]:
    out: list[Artist] = []
    for item in items:
        if isinstance(item, Artist):
            out.append(item)
        elif isinstance(item, (Container, list, tuple)):
            out.extend(_flatten(item))
        else:
            raise TypeError(f"expected artists, got {type(item).__name__}")
    return out


# ------------------------------------------------------------------ checks, grids


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
        values = _option_values(slider)
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


class _Exponents:
    """The exponent axis of a FloatLogSlider, as a plain slider."""

    def __init__(self, slider):
        self.min, self.max, self.step = slider.min, slider.max, slider.step
        self.value = round(min(max(math.log(slider.value, slider.base), slider.min), slider.max), 12)


def _option_values(slider) -> list:
    labels = slider._options_labels
    values = slider._options_values
    return list(values) if values else list(labels)


def _check_for(name: str, s):
    """The value check of slider ``s`` over [low, high], naming ``name``."""
    integer = isinstance(s.value, int) and isinstance(s.step, int)
    return lambda low, high: _number_in(name, low, high, integer)


# ------------------------------------------------------------------ controls


class Controls(ipywidgets.VBox, ipywidgets.ValueWidget):
    """Several sliders acting as one control. Its :attr:`value` is a named tuple with
    one field per slider (``Controls({"b": …, "t": …}).value.b``): moving any slider
    sets it, setting it moves the sliders.

    ``limits`` maps a slider's name to a function of the whole value giving that
    slider's ``(low, high)`` (a range that depends on other sliders, such as k ≤ E):
    when a reader moves the other slider, the dependent one is clamped into its new
    range; :meth:`check` refuses a value outside it by name.

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
    """

    value = traitlets.Any()

    def __init__(self, sliders: Mapping[str, ipywidgets.ValueWidget], *,
                 limits: Mapping[str, Callable] | None = None, horizontal: bool = False):
        self.names = tuple(sliders)
        self.sliders = tuple(sliders.values())
        self.Value = namedtuple("Value", self.names)
        #: Each slider's full range (the range before any limit narrows it).
        self.bounds = {n: (s.min, s.max) for n, s in sliders.items()}
        self._limits = dict(limits or {})
        unknown = set(self._limits) - set(self.names)
        if unknown:
            raise ValueError(f"limits name sliders that are not there: {sorted(unknown)}")
        self._checks = {n: _check_for(n, s) for n, s in sliders.items()}
        children = [ipywidgets.HBox(list(self.sliders))] if horizontal else list(self.sliders)
        super().__init__(children=children)
        self._pushing = False
        self.value = self.check(self.Value(*(s.value for s in self.sliders)))
        for s in self.sliders:
            s.observe(self._from_sliders, names="value")

    def range(self, name: str, value=None) -> tuple:
        """Slider ``name``'s range at ``value`` (default: the current value)."""
        limit = self._limits.get(name)
        if limit is None:
            return self.bounds[name]
        return limit(self.value if value is None else value)

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
        return self._clamp(out)  # a dependent slider not given follows, as in a drag

    def sweep(self, steps: int) -> list[tuple]:
        """About ``steps`` values that move each slider in turn across its range (on its
        step grid, :func:`slider_grid`), the others held at their current values."""
        held, out = self.value, []
        share = [steps // len(self.names) + (k < steps % len(self.names)) for k in range(len(self.names))]
        for name, s, n in zip(self.names, self.sliders, share):
            grid = slider_grid(s, max(2, n), bounds=self.range(name, held))
            if len(grid) > max(2, n):  # the default was added: keep n positions
                grid = [v for v in grid if v != s.value][: max(2, n)]
            out += [self._clamp(held._replace(**{name: v})) for v in grid]
        return out

    def _from_sliders(self, change) -> None:
        if self._pushing:
            return
        self.value = self._clamp(self.Value(*(s.value for s in self.sliders)))

    def _clamp(self, value):
        """``value`` with every dependent slider moved into its range."""
        for name, limit in self._limits.items():
            low, high = limit(value)
            value = value._replace(**{name: min(max(getattr(value, name), low), high)})
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


# ------------------------------------------------------------------ the widget

_UNSET = object()


class SliderFigure:
    """One figure, its artists, a control and the PNG image it shows.

    Build one with a chapter's constructor (:func:`value_magnitude` …). End a notebook
    cell with it to show the widget; call :meth:`describe` for the current numbers in
    words and :meth:`png` for the current image.

    ``slider`` is one ipywidgets slider (``value`` is then its number) or a
    :class:`Controls` (``value`` is its named tuple; ``check`` defaults to the
    controls' own). ``compute(value)`` gives the trace, ``move(trace)`` moves the
    artists. The artists that move are ``moving`` (redrawn on every step), or
    ``groups``, ``[(artists, region), …]`` of artists in separate regions, each
    redrawn only when it changed (see :class:`_Renderer`).
    """

    def __init__(
        self,
        drawn: figures.Drawn,
        *,
        name: str,
        slider: ipywidgets.ValueWidget,
        compute: Callable[[object], object],
        move: Callable[[object], None],
        describe: Callable[[object], str],
        trace: object,
        check: Callable[[object], object] | None = None,
        moving: Iterable[Artist] | None = None,
        groups: list | None = None,
    ):
        if (moving is None) == (groups is None):
            raise TypeError("give the moving artists either as moving or as groups")
        if check is None:
            if not isinstance(slider, Controls):
                raise TypeError("a single slider needs a check for its values")
            check = slider.check
        self.drawn = drawn
        self.name = name
        self.slider = slider
        self._check = check
        self._compute = compute
        self._move = move
        self._describe = describe
        self._renderer = _Renderer(drawn.figure, [(list(moving), "figure")] if groups is None else groups)
        #: Seconds spent in each stage of the last :meth:`update`.
        self.timings: dict[str, float] = {}
        self.value = check(slider.value)
        self.trace = trace
        self._png = self._renderer.png()
        self._frames: OrderedDict = OrderedDict()
        self._frame_bytes = 0
        self._keep(self.value, self._png)
        self.image = ipywidgets.Image(value=self._png, format="png", layout=ipywidgets.Layout(max_width="100%"))
        self.caption = ipywidgets.HTML(self._caption_html())
        self.box = ipywidgets.VBox([self.slider, self.image, self.caption])
        self._syncing = False
        self.slider.observe(self._on_slider, names="value")

    # ------------------------------------------------------------------ state

    @property
    def figure(self) -> Figure:
        """The matplotlib figure the image is rendered from."""
        return self.drawn.figure

    @property
    def artists(self) -> dict:
        """The figure's named artists (updated in place by every step)."""
        return self.drawn.artists

    @property
    def sliders(self) -> tuple:
        """The ipywidgets sliders a reader moves, in display order."""
        return self.slider.sliders if isinstance(self.slider, Controls) else (self.slider,)

    def update(self, value=_UNSET, **named) -> None:
        """Move the control to ``value``: recompute the trace with the engine, move the
        artists in place, re-render the PNG (or reuse the one of a state already
        shown) and show it. A widget with :class:`Controls` also takes a tuple, or
        some sliders by name: ``update(omega=0.5)``."""
        if named:
            if value is not _UNSET:
                raise TypeError("give the value or sliders by name, not both")
            value = named
        elif value is _UNSET:
            raise TypeError("update() needs a value")
        value = self._check(value)
        t0 = time.perf_counter()
        trace = self._compute(value)
        t1 = time.perf_counter()
        self._move(trace)
        t2 = time.perf_counter()
        png = self._frames.get(repr(value))
        if png is None:
            png = self._renderer.png()
            self._keep(value, png)
            render = self._renderer.timings
        else:  # a state already shown: the same artists give the same pixels
            self._frames.move_to_end(repr(value))
            render = {"draw": 0.0, "encode": 0.0}
        t3 = time.perf_counter()
        self.value, self.trace, self._png = value, trace, png
        self.image.value = png
        self.caption.value = self._caption_html()
        if self.slider.value != value:
            self._syncing = True
            try:
                self.slider.value = value
            finally:
                self._syncing = False
        self.timings = {"compute": t1 - t0, "artists": t2 - t1, "render": t3 - t2, **render}

    def _keep(self, value, png: bytes) -> None:
        self._frames[repr(value)] = png
        self._frame_bytes += len(png)
        while self._frame_bytes > FRAME_CACHE_BYTES and len(self._frames) > 1:
            _, old = self._frames.popitem(last=False)
            self._frame_bytes -= len(old)

    def forget_frames(self) -> None:
        """Drop the PNGs kept for states already shown (the current one stays), so the
        next steps are drawn: what a reader waits for on a first visit."""
        self._frames.clear()
        self._frame_bytes = 0
        self._keep(self.value, self._png)

    def sweep(self, steps: int) -> list:
        """About ``steps`` values that move each slider in turn across its range, the
        others held (:meth:`Controls.sweep`; for one slider, :func:`slider_grid`)."""
        if isinstance(self.slider, Controls):
            return self.slider.sweep(steps)
        return slider_grid(self.slider, steps)

    def _on_slider(self, change) -> None:
        if not self._syncing:
            self.update(change["new"])

    def describe(self) -> str:
        """One paragraph, in plain text, about the current state and its numbers."""
        return self._describe(self.trace)

    def png(self) -> bytes:
        """The PNG currently shown."""
        return self._png

    def matches_static_figure(self) -> bool:
        """Whether the image shown is, pixel for pixel at screen resolution, the figure
        the registry builds (``figures/figNN.png``): true in the default state."""
        return self._png == _static_png(self.drawn.number)

    def _caption_html(self) -> str:
        return f'<p style="max-width:60em">{html.escape(self.describe())}</p>'

    # ---------------------------------------------------------------- display

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        if isinstance(self.slider, Controls):
            state = ", ".join(f"{k}={v!r}" for k, v in self.value._asdict().items())
        else:
            state = f"{self.name}={self.value!r}"
        return f"SliderFigure(figure={self.drawn.number}, {state})"


@functools.lru_cache(maxsize=None)
def _static_png(number: int) -> bytes:
    """Figure ``number`` as the registry draws it, at screen resolution (once per session)."""
    drawn = figures.render(number)
    png = drawn.png(dpi=style.SCREEN_DPI)
    style.close(drawn.figure)
    return png


# The chapters' widgets (each module registers its sliders and is re-exported here).
from .attention import score_scale, value_magnitude  # noqa: E402
from .bpe import merge_steps, token_box  # noqa: E402
from .embedding import lookup_cell, temperature_sampling  # noqa: E402
from .gqa import head_groups  # noqa: E402
from .moe import batch_token, boundary_delta, routing_choice  # noqa: E402
from .norms import gate_pre_activation, rms_features  # noqa: E402
from .position import rope_distance, rope_pair  # noqa: E402
from .trained_attention import line_heads  # noqa: E402

__all__ += [
    "batch_token",
    "boundary_delta",
    "gate_pre_activation",
    "head_groups",
    "line_heads",
    "lookup_cell",
    "merge_steps",
    "temperature_sampling",
    "rms_features",
    "rope_distance",
    "rope_pair",
    "routing_choice",
    "score_scale",
    "token_box",
    "value_magnitude",
]
from .trained_routing import trained_routing  # noqa: E402

__all__ += ["trained_routing"]
from .trained_sampling import next_token  # noqa: E402

__all__ += ["next_token"]
from .ownline import own_line  # noqa: E402

__all__ += ["own_line"]
