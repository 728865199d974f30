"""Sliders wired to figures: compute the trace → update the artists in place → PNG.

A :class:`SliderFigure` owns one figure built by the figure registry (the very builder
that writes ``figures/figNN.png``), the named artists that builder returned, an
``ipywidgets`` slider and an ``ipywidgets.Image`` showing the figure as PNG. Moving
the slider calls :meth:`SliderFigure.update`, which

1. checks the value and recomputes the trace with the engine,
2. moves the figure's artists to the new trace with the figure module's ``update_*``
   function (no axes is cleared or redrawn from scratch),
3. renders a new PNG and puts it into the image widget.

No interactive matplotlib backend is involved (no ``ipympl``): the figure is drawn
with Agg, so the same code runs headless in tests and benchmarks. The image is
rendered at screen resolution (:data:`~tokenpath.figures.style.SCREEN_DPI`); at that
resolution the default state is the static figure pixel for pixel.

Rendering redraws only what moves. The rest of the figure is drawn once into a
background; each step restores it, draws the moving artists in the order a full draw
would, and encodes the canvas exactly as :func:`tokenpath.figures.style.png_bytes`
does. The result is the same PNG, byte for byte, as a full ``savefig`` of the same
state (the tests check this), at a fraction of the cost.

Each chapter's widgets live in a module of this package (``widgets.attention`` …) and
are re-exported here. Every slider widget registers its constructor in :data:`SLIDERS`
(``benchmarks/widget_latency.py`` times each one).

>>> w = value_magnitude()
>>> w.png() == figures.render(11).png(dpi=style.SCREEN_DPI)
True
>>> w.update(4)
>>> w.trace.output.tolist()
[1.5, 1.0]
"""

from __future__ import annotations

import html
import io
import math
import numbers
import time
from operator import attrgetter
from typing import Callable, Iterable

import ipywidgets
import matplotlib as mpl
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.container import Container
from matplotlib.figure import Figure

from .. import figures
from ..figures import style

__all__ = ["SLIDERS", "SliderFigure", "int_in", "real_in", "slider"]

#: Every slider widget of the book: its name and the constructor that builds it in its
#: default state (the static figure).
SLIDERS: dict[str, Callable[[], "SliderFigure"]] = {}


def slider(make: Callable[..., "SliderFigure"]) -> Callable[..., "SliderFigure"]:
    """Decorator: register a slider-widget constructor in :data:`SLIDERS` by its name."""
    if make.__name__ in SLIDERS:
        raise ValueError(f"slider widget {make.__name__} is registered twice")
    SLIDERS[make.__name__] = make
    return make


class _PartialRenderer:
    """PNG of a figure whose ``moving`` artists change between calls.

    Everything else is drawn once into a background buffer. A call restores the
    buffer, draws the moving artists in full-draw order and encodes the canvas with
    the arguments :func:`~tokenpath.figures.style.png_bytes` gives ``savefig``.

    This equals a full draw as long as no still artist that a full draw paints *after*
    a moving one overlaps it; pass such an artist (or its whole ``Axes``) as moving too.
    """

    def __init__(self, figure: Figure, moving: Iterable[Artist]):
        self.figure = figure
        figure.set_dpi(style.SCREEN_DPI)
        self.canvas = FigureCanvasAgg(figure)
        order = {id(a): k for k, a in enumerate(_draw_order(figure))}
        wanted = _flatten(moving)
        axes = {id(a) for a in wanted if isinstance(a, Axes)}
        # an Axes drawn whole already draws everything inside it
        wanted = [a for a in wanted if isinstance(a, Axes) or id(a.axes) not in axes]
        missing = [a for a in wanted if id(a) not in order]
        if missing:
            raise ValueError(f"moving artists must belong to the figure; {missing[0]!r} does not")
        self.moving = sorted(wanted, key=lambda a: order[id(a)])
        self._background = None
        self.timings: dict[str, float] = {}

    def _capture(self) -> None:
        with style.book_style():
            # one full draw settles layout state (title positions, aspect boxes) …
            self.canvas.draw()
            shown = [a for a in self.moving if a.get_visible()]
            for a in shown:
                a.set_visible(False)
            try:
                # … one without the moving artists is the background …
                self.canvas.draw()
                self._background = self.canvas.copy_from_bbox(self.figure.bbox)
            finally:
                for a in shown:
                    a.set_visible(True)
            # … and a last full draw puts back the layout state that hidden artists
            # leave behind (a hidden title, for one, is parked at the axes' top)
            self.canvas.draw()

    def png(self) -> bytes:
        """Draw the moving artists over the background and encode the canvas; the
        seconds spent on each go to :attr:`timings` (``draw``, ``encode``)."""
        if self._background is None:
            self._capture()
        with style.book_style():
            t0 = time.perf_counter()
            renderer = self.canvas.get_renderer()
            self.canvas.restore_region(self._background)
            for artist in self.moving:
                artist.draw(renderer)
            t1 = time.perf_counter()
            buf = io.BytesIO()
            mpl.image.imsave(
                buf, self.canvas.buffer_rgba(), format="png", origin="upper",
                dpi=self.figure.dpi, metadata={"Software": None},
                pil_kwargs={"compress_level": style.PNG_COMPRESS_LEVEL},
            )
            t2 = time.perf_counter()
        self.timings = {"draw": t1 - t0, "encode": t2 - t1}
        return buf.getvalue()


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


class SliderFigure:
    """One figure, its artists, a slider and the PNG image it shows.

    Build one with a chapter's constructor (:func:`value_magnitude` …). End a notebook cell
    with it to show the widget; call :meth:`describe` for the current numbers in
    words and :meth:`png` for the current image.
    """

    def __init__(
        self,
        drawn: figures.Drawn,
        *,
        name: str,
        slider: ipywidgets.ValueWidget,
        check: Callable[[object], object],
        compute: Callable[[object], object],
        move: Callable[[object], None],
        describe: Callable[[object], str],
        moving: Iterable[Artist],
        trace: object,
    ):
        self.drawn = drawn
        self.name = name
        self.slider = slider
        self._check = check
        self._compute = compute
        self._move = move
        self._describe = describe
        self._renderer = _PartialRenderer(drawn.figure, moving)
        #: Seconds spent in each stage of the last :meth:`update`.
        self.timings: dict[str, float] = {}
        self.value = check(slider.value)
        self.trace = trace
        self._png = self._renderer.png()
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

    def update(self, value) -> None:
        """Move the slider's quantity to ``value``: recompute the trace with the
        engine, move the artists in place, re-render the PNG and show it."""
        value = self._check(value)
        t0 = time.perf_counter()
        trace = self._compute(value)
        t1 = time.perf_counter()
        self._move(trace)
        t2 = time.perf_counter()
        png = self._renderer.png()
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
        self.timings = {"compute": t1 - t0, "artists": t2 - t1, "render": t3 - t2, **self._renderer.timings}

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
        return self._png == figures.render(self.drawn.number).png(dpi=style.SCREEN_DPI)

    def _caption_html(self) -> str:
        return f'<p style="max-width:60em">{html.escape(self.describe())}</p>'

    # ---------------------------------------------------------------- display

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        return f"SliderFigure(figure={self.drawn.number}, {self.name}={self.value!r})"


# --------------------------------------------------------------- constructors


def real_in(name: str, low: float, high: float):
    """A check for a real slider value in ``[low, high]`` that names ``name`` when it fails."""
    def check(x) -> float:
        if isinstance(x, bool) or not isinstance(x, numbers.Real):
            raise TypeError(f"{name} must be a real number, got {type(x).__name__}")
        x = float(x)
        if not math.isfinite(x):
            raise ValueError(f"{name} must be finite, got {x}")
        if not low <= x <= high:
            raise ValueError(f"{name} must be between {low:g} and {high:g} (the slider's range), got {x:g}")
        return x

    return check


def int_in(name: str, low: int, high: int):
    """A check for an integer slider value in ``[low, high]`` that names ``name`` when it fails."""
    def check(x) -> int:
        if isinstance(x, bool) or not isinstance(x, numbers.Integral):
            raise TypeError(f"{name} must be an integer, got {type(x).__name__}")
        x = int(x)
        if not low <= x <= high:
            raise ValueError(f"{name} must be between {low} and {high} (the slider's range), got {x}")
        return x

    return check


# The chapters' widgets (each module registers its sliders and is re-exported here).
from .attention import score_scale, value_magnitude  # noqa: E402
from .bpe import merge_steps, token_box  # noqa: E402
from .embedding import lookup_cell, temperature_sampling  # noqa: E402
from .gqa import head_groups  # noqa: E402
from .moe import batch_token, boundary_delta, routing_choice  # noqa: E402
from .norms import gate_pre_activation, rms_features  # noqa: E402
from .position import TwoSliderFigure, rope_base, rope_distance, rope_frequency, rope_pair  # noqa: E402

__all__ += [
    "TwoSliderFigure",
    "batch_token",
    "boundary_delta",
    "gate_pre_activation",
    "head_groups",
    "lookup_cell",
    "merge_steps",
    "temperature_sampling",
    "rms_features",
    "rope_base",
    "rope_distance",
    "rope_frequency",
    "rope_pair",
    "routing_choice",
    "score_scale",
    "token_box",
    "value_magnitude",
]
