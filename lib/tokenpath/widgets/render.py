"""The PNG of a figure whose moving artists change between frames, redrawing only what moves.

A slider step must not redraw the whole figure. :class:`Renderer` draws everything
that stays put once, into a background; a frame restores that background where the
moving artists are, draws them in the order a full draw would, and encodes the canvas
exactly as :func:`tokenpath.figures.style.png_bytes` does (:func:`encode_png`). A
widget whose moving artists fall into separate regions (a table cell, a line of text)
names those *groups*; a frame then redraws only the groups whose look changed, and
pastes a group's pixels when it has looked the same before (:class:`FrameCache`). The
result is the same PNG, byte for byte, as a full ``savefig`` of the same state (the
tests check this), at a fraction of the cost.

This module knows matplotlib and nothing of sliders: :class:`~tokenpath.widgets.slider.SliderFigure`
asks it for a frame after moving the artists, and keeps the frames it has shown in a
:class:`FrameCache` of its own.
"""

from __future__ import annotations

import io
import time
from collections import OrderedDict
from operator import attrgetter

import matplotlib as mpl
import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.container import Container
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from ..figures import style

__all__ = ["GROUP_CACHE_BYTES", "FrameCache", "Renderer", "encode_png"]

#: Most bytes of drawn group images one renderer keeps for reuse.
GROUP_CACHE_BYTES = 24 * 2**20
#: Pixels added around a group's extent: room for antialiased edges.
_PAD = 3


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


class FrameCache:
    """Images (PNG bytes, pixel blocks) by key, within a budget of bytes: the least
    recently used go first, the newest always stays.

    >>> frames = FrameCache(budget=6)
    >>> frames.put("a", b"1234"); frames.put("b", b"5678")   # over budget: "a" goes
    >>> frames.get("a") is None, frames.get("b"), frames.nbytes
    (True, b'5678', 4)
    """

    def __init__(self, budget: int):
        self.budget = budget
        self._items: OrderedDict = OrderedDict()
        #: Bytes held now.
        self.nbytes = 0

    def get(self, key):
        """The image kept under ``key`` (now the most recently used), or ``None``."""
        item = self._items.get(key)
        if item is not None:
            self._items.move_to_end(key)
        return item

    def put(self, key, item) -> None:
        """Keep ``item`` under ``key``, then drop the oldest items while over budget."""
        old = self._items.pop(key, None)
        if old is not None:
            self.nbytes -= memoryview(old).nbytes
        self._items[key] = item
        self.nbytes += memoryview(item).nbytes
        while self.nbytes > self.budget and len(self._items) > 1:
            _, dropped = self._items.popitem(last=False)
            self.nbytes -= memoryview(dropped).nbytes

    def clear(self) -> None:
        """Drop everything."""
        self._items.clear()
        self.nbytes = 0


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


class Renderer:
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
        self._cache = FrameCache(GROUP_CACHE_BYTES)
        self.timings: dict[str, float] = {}

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
                pixels[rows, cols] = block
                continue
            pixels[rows, cols] = self._background[rows, cols]
            for a in artists:
                a.draw(renderer)
            self._cache.put((k, look), pixels[rows, cols].copy())
        if self._frame is not None:
            self._frame[:] = pixels
