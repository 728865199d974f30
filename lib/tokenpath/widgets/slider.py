"""The slider figure: one figure of the book, a control, and the image of its current state.

A :class:`SliderFigure` owns one figure built by the figure registry (the very builder
that writes ``figures/figNN.png``), the named artists that builder returned, its
control (one slider or :class:`~tokenpath.widgets.controls.Controls`) and an
``ipywidgets.Image`` showing the figure as PNG, with a caption under it in words
(:meth:`SliderFigure.describe`). Moving a slider calls :meth:`SliderFigure.update`, which

1. checks the value and recomputes the trace with the engine,
2. moves the figure's artists to the new trace with the figure module's ``update_*``
   function (no axes is cleared or redrawn from scratch),
3. renders a new PNG (:class:`~tokenpath.widgets.render.Renderer`, which redraws only
   what moved) and shows it with its caption.

No interactive matplotlib backend is involved (no ``ipympl``): the figure is drawn
with Agg, so the same code runs headless in tests and benchmarks. The image is
rendered at screen resolution (:data:`~tokenpath.figures.style.SCREEN_DPI`); at that
resolution the default state is the static figure pixel for pixel
(:meth:`SliderFigure.matches_static_figure`). A state the widget has already shown is
not drawn again: its PNG is kept (up to :data:`FRAME_CACHE_BYTES`).
"""

from __future__ import annotations

import functools
import html
import time
from typing import Callable, Iterable

import ipywidgets
from matplotlib.artist import Artist
from matplotlib.figure import Figure

from .. import figures
from ..figures import style
from .controls import Controls, slider_grid
from .render import FrameCache, Renderer

__all__ = ["FRAME_CACHE_BYTES", "SliderFigure", "static_png"]

#: Most bytes of PNGs one widget keeps for states it has shown.
FRAME_CACHE_BYTES = 8 * 2**20

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
    redrawn only when it changed (see :class:`~tokenpath.widgets.render.Renderer`).
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
        self._renderer = Renderer(drawn.figure, [(list(moving), "figure")] if groups is None else groups)
        #: Seconds spent in each stage of the last :meth:`update`.
        self.timings: dict[str, float] = {}
        self.value = check(slider.value)
        self.trace = trace
        self._png = self._renderer.png()
        #: The PNGs of states already shown, by ``repr`` of the value.
        self.frames = FrameCache(FRAME_CACHE_BYTES)
        self.frames.put(repr(self.value), self._png)
        self._build_view()
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
        png = self.frames.get(repr(value))
        if png is None:
            png = self._renderer.png()
            self.frames.put(repr(value), png)
            render = self._renderer.timings
        else:  # a state already shown: the same artists give the same pixels
            render = {"draw": 0.0, "encode": 0.0}
        t3 = time.perf_counter()
        self.value, self.trace, self._png = value, trace, png
        self._show()
        if self.slider.value != value:
            self._syncing = True
            try:
                self.slider.value = value
            finally:
                self._syncing = False
        self.timings = {"compute": t1 - t0, "artists": t2 - t1, "render": t3 - t2, **render}

    def forget_frames(self) -> None:
        """Drop the PNGs kept for states already shown (the current one stays), so the
        next steps are drawn: what a reader waits for on a first visit."""
        self.frames.clear()
        self.frames.put(repr(self.value), self._png)

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
        return self._png == static_png(self.drawn.number)

    # ---------------------------------------------------------------- display

    def _build_view(self) -> None:
        """The widgets a reader sees: the control, the image and its caption."""
        self.image = ipywidgets.Image(value=self._png, format="png", layout=ipywidgets.Layout(max_width="100%"))
        self.caption = ipywidgets.HTML(self._caption_html())
        self.box = ipywidgets.VBox([self.slider, self.image, self.caption])

    def _show(self) -> None:
        """Put the current PNG and its caption on screen."""
        self.image.value = self._png
        self.caption.value = self._caption_html()

    def _caption_html(self) -> str:
        return f'<p style="max-width:60em">{html.escape(self.describe())}</p>'

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        if isinstance(self.slider, Controls):
            state = ", ".join(f"{k}={v!r}" for k, v in self.value._asdict().items())
        else:
            state = f"{self.name}={self.value!r}"
        return f"SliderFigure(figure={self.drawn.number}, {state})"


@functools.lru_cache(maxsize=None)
def static_png(number: int) -> bytes:
    """Figure ``number`` as the registry draws it, at screen resolution (once per session)."""
    drawn = figures.render(number)
    png = drawn.png(dpi=style.SCREEN_DPI)
    style.close(drawn.figure)
    return png
