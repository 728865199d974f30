"""The slider figure: one figure of the book, its control, and the frames of its states.

A :class:`SliderFigure` owns one figure built by the figure registry (the very builder
that writes ``figures/figNN.png``), the named artists that builder returned, its
control (one slider or :class:`~tokenpath.widgets.controls.Controls`, which check and
hold the value) and a :class:`~tokenpath.widgets.view.FrameView`, the browser component
a reader sees: a range input and readout per control, the image and its caption in
words (:meth:`SliderFigure.describe`). Moving to a state calls :meth:`SliderFigure.update`,
which

1. checks the value and recomputes the trace with the engine,
2. moves the figure's artists to the new trace with the figure module's ``update_*``
   function (no axes is cleared or redrawn from scratch),
3. renders a new PNG (:class:`~tokenpath.widgets.render.Renderer`, which redraws only
   what moved) and hands it with its caption to the component.

The component holds the frames it has been given and asks for the neighbours of the
current state while the reader rests (:meth:`SliderFigure.frame` renders one without
moving the reader's state), so most steps swap a held image with no kernel round trip.

No interactive matplotlib backend is involved (no ``ipympl``): the figure is drawn
with Agg, so the same code runs headless in tests and benchmarks. The image is
rendered at screen resolution (:data:`~tokenpath.figures.style.SCREEN_DPI`); at that
resolution the default state is the static figure pixel for pixel
(:meth:`SliderFigure.matches_static_figure`). A state the kernel has already drawn is
not drawn again: its PNG is kept (up to :data:`FRAME_CACHE_BYTES`).
"""

from __future__ import annotations

import functools
import time
from typing import Callable, Iterable

import ipywidgets
from matplotlib.artist import Artist
from matplotlib.figure import Figure

from .. import figures
from ..figures import style
from .controls import Controls, slider_grid
from .render import FrameCache, Renderer
from .view import FrameView, control_specs, index_of, value_at

__all__ = ["FRAME_CACHE_BYTES", "PREFETCH_SECONDS", "SliderFigure", "static_png"]

#: Most bytes of PNGs one widget keeps for states it has shown.
FRAME_CACHE_BYTES = 8 * 2**20
#: Seconds of a prefetch request after which it starts no new frame: its states are drawn
#: in order (always the first), so a reader's own request waits behind at most this and
#: one frame.
PREFETCH_SECONDS = 0.1

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
        #: The caption of each state drawn, by ``repr`` of the value (the refused: ``None``).
        self._captions: dict[str, str | None] = {repr(self.value): self.describe()}
        self._positions, specs = control_specs(slider)
        self.view = FrameView(controls=specs)
        self.view.on_msg(self._on_message)
        self._origin = "kernel"
        self._show()
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
        self._captions[repr(value)] = None if _refused(trace) else self.describe()
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

    def frame(self, value) -> tuple | None:
        """``(value, png, caption)`` of the state ``value``, checked (a dependent slider
        clamped), drawn with the partial-redraw renderer or taken from the frames kept;
        ``None`` when the engine refuses that state. The reader's state (:attr:`value`,
        :attr:`trace`, :meth:`png`) does not move, and the artists go back to it."""
        value = self._check(value)
        key = repr(value)
        png, caption = self.frames.get(key), self._captions.get(key, "")
        if key in self._captions and caption is None:
            return None
        if png is None or not caption:
            trace = self._compute(value)
            if _refused(trace):
                self._captions[key] = None
                return None
            self._move(trace)
            try:
                png = self._renderer.png()
            finally:
                self._move(self.trace)  # the figure shows the reader's state again
            caption = self._describe(trace)
            self.frames.put(key, png)
            self._captions[key] = caption
        return value, png, caption

    @property
    def index(self) -> list[int]:
        """The current state as positions of the controls (what the component shows)."""
        return index_of(self._positions, self.value)

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

    def _on_message(self, view, content, buffers) -> None:
        """A message of the component (see :mod:`tokenpath.widgets.view`)."""
        kind = content.get("type") if isinstance(content, dict) else None
        if kind not in ("want", "shown", "prefetch"):
            return
        if kind == "prefetch":
            self._prefetch(view, content.get("indices"))
            return
        index = content.get("index")
        try:
            value = value_at(self._positions, index)
            self._origin = kind
            try:
                self.update(value)
            finally:
                self._origin = "kernel"
        except (TypeError, ValueError):  # a position outside the grid: nothing to show
            view.send({"type": "skip", "for": kind, "asked": index})

    def _prefetch(self, view, indices) -> None:
        """Answer a prefetch request, ``indices`` in the order the component wants them,
        with one message: the frames drawn (each with its state and caption, its PNG a
        buffer) and the states skipped (refused by the engine, or off the grid), drawn
        in order for up to :data:`PREFETCH_SECONDS`; the rest stay unanswered. One
        message for several frames: each message the kernel answers costs the page
        its handling and a busy-then-idle status."""
        if not isinstance(indices, list):
            view.send({"type": "frames", "frames": [], "skipped": [indices]})
            return
        frames, skipped, buffers = [], [], []
        start = time.perf_counter()
        for index in indices:
            if (frames or skipped) and time.perf_counter() - start > PREFETCH_SECONDS:
                break
            try:
                found = self.frame(value_at(self._positions, index))
            except (TypeError, ValueError):  # a position outside the grid
                found = None
            if found is None:
                skipped.append(index)
                continue
            frames.append({"asked": index, "index": index_of(self._positions, found[0]), "caption": found[2]})
            buffers.append(found[1])
        view.send({"type": "frames", "frames": frames, "skipped": skipped}, buffers=buffers)

    def _show(self) -> None:
        """Hand the current state to the component: its positions, PNG and caption."""
        with self.view.hold_sync():
            self.view.index = self.index
            self.view.caption = self.describe()
            self.view.png = self._png
            self.view.origin = self._origin
            self.view.keep = self._captions.get(repr(self.value)) is not None
            self.view.seq += 1

    def _repr_mimebundle_(self, **kwargs):
        bundle = self.view._repr_mimebundle_(**kwargs)
        data = dict(bundle[0] if isinstance(bundle, tuple) else bundle)
        data["text/plain"] = repr(self)  # not the component's, which names a memory address
        return data

    def __repr__(self) -> str:
        if isinstance(self.slider, Controls):
            state = ", ".join(f"{k}={v!r}" for k, v in self.value._asdict().items())
        else:
            state = f"{self.name}={self.value!r}"
        return f"SliderFigure(figure={self.drawn.number}, {state})"


def _refused(trace) -> bool:
    """Whether ``trace`` is the engine's refusal of a state (drawn, never offered ahead)."""
    return type(trace).__name__ == "Refused"


@functools.lru_cache(maxsize=None)
def static_png(number: int) -> bytes:
    """Figure ``number`` as the registry draws it, at screen resolution (once per session)."""
    drawn = figures.render(number)
    png = drawn.png(dpi=style.SCREEN_DPI)
    style.close(drawn.figure)
    return png
