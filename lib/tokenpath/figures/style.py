"""One look for every figure: a colour-blind-safe palette whose colours carry meaning,
fixed sizes and fonts (with a shipped CJK fallback), and deterministic file output.

Colours come from the Okabe–Ito palette and mean the same thing in every figure:

========== ========= ==================================================================
name       colour    meaning
========== ========= ==================================================================
VISIBLE    blue      a source the query may read; a residual bypass
VALUE      green     value content flowing into an output
QUERY      orange    the receiving position / the row the text follows
BLOCKED    vermilion the mask: a hidden source, −∞, a blocked path
CACHE      sky blue  positions already held in a KV cache
ACCENT     purple    a second highlighted quantity (e.g. a Monte-Carlo estimate)
NEUTRAL    grey      inactive or unselected parts
INK        black     text, outlines, exact sums
========== ========= ==================================================================
"""

from __future__ import annotations

import io
import logging
from contextlib import contextmanager

import matplotlib

matplotlib.use("Agg", force=False)

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import font_manager  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from ._fonts import FAMILY, FONT_PATH  # noqa: E402

VISIBLE = "#0072B2"
VALUE = "#009E73"
QUERY = "#E69F00"
BLOCKED = "#D55E00"
CACHE = "#56B4E9"
ACCENT = "#CC79A7"
NEUTRAL = "#999999"
LIGHT = "#E8E8E8"
INK = "#000000"
YELLOW = "#F0E442"

PALETTE = {
    "visible": VISIBLE,
    "value": VALUE,
    "query": QUERY,
    "blocked": BLOCKED,
    "cache": CACHE,
    "accent": ACCENT,
    "neutral": NEUTRAL,
    "ink": INK,
}

#: Figure widths in inches: a full text column and a narrow single panel.
WIDTH = 7.0
NARROW = 4.5
DPI = 150
#: Resolution of the live widget images: a screen's, so a slider step stays fast.
SCREEN_DPI = 100
SVG_SALT = "tokenpath"
#: zlib level for PNG files and widget frames: level 1 gives files as small as the
#: default level here and encodes markedly faster, which a slider step needs.
PNG_COMPRESS_LEVEL = 1

RC = {
    "font.family": ["DejaVu Sans", FAMILY],
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "axes.labelsize": 10,
    "axes.edgecolor": INK,
    "axes.linewidth": 0.8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "figure.dpi": 100,
    "savefig.dpi": DPI,
    "savefig.bbox": None,
    "svg.hashsalt": SVG_SALT,
    "svg.fonttype": "path",
    "path.simplify": True,
    "image.interpolation": "nearest",
    "axes.unicode_minus": True,
    # Unhinted glyphs render about twice as fast as hinted ones, which keeps a slider
    # step (whose cost is mostly text) within budget; at 100–150 dpi they read as well.
    "text.hinting": "no_hinting",
}

_registered = False


def register_fonts() -> None:
    """Make the shipped CJK subset known to matplotlib (idempotent).

    The subset has a regular face only; bold titles fall back to it for CJK glyphs, and
    matplotlib's note about the missing bold weight is silenced rather than printed
    on every figure.
    """
    global _registered
    if not _registered:
        font_manager.fontManager.addfont(str(FONT_PATH))
        logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)
        _registered = True


@contextmanager
def book_style():
    """Apply the book's rcParams for the duration of a block."""
    register_fonts()
    with matplotlib.rc_context(RC):
        yield


def new_figure(width: float = WIDTH, height: float = 3.0, **subplot_kw) -> Figure:
    """A figure that is *not* managed by pyplot (no global state, no leaks), styled
    with the book's rcParams. Use ``fig.subplots``/``fig.add_gridspec`` on it."""
    with book_style():
        fig = Figure(figsize=(width, height), dpi=100, layout=subplot_kw.pop("layout", None))
    return fig


def png_bytes(fig: Figure, dpi: int = DPI) -> bytes:
    """Deterministic PNG of ``fig``: no software tag, fixed dpi (the files' by default)."""
    buf = io.BytesIO()
    with book_style():
        fig.savefig(
            buf, format="png", dpi=dpi, metadata={"Software": None},
            pil_kwargs={"compress_level": PNG_COMPRESS_LEVEL},
        )
    return buf.getvalue()


def svg_bytes(fig: Figure) -> bytes:
    """Deterministic SVG of ``fig``: fixed hash salt, no date, no creator string."""
    buf = io.BytesIO()
    with book_style():
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    return buf.getvalue()


#: Pixels a text's extent may reach past the canvas (antialiasing, subpixel placement).
EDGE_SLACK = 0.5


def _drawn_texts(figure: Figure) -> list:
    """The texts a draw of ``figure`` paints: visible, with visible parents, not blank;
    of an axis only the tick labels of the ticks it draws, of an ``Axes`` drawn without
    its axis no axis text at all."""
    from matplotlib.axes import Axes
    from matplotlib.axis import Axis, Tick
    from matplotlib.text import Text

    found = []

    def walk(artist, axison=True):
        if not artist.get_visible():
            return
        if isinstance(artist, Axis):
            if not axison:
                return
            drawn = {id(t) for t in artist._update_ticks()}
            children = [c for c in artist.get_children() if not isinstance(c, Tick) or id(c) in drawn]
        else:
            children = artist.get_children()
        if isinstance(artist, Text) and artist.get_text().strip():
            found.append(artist)
        for child in children:
            walk(child, artist.axison if isinstance(artist, Axes) else axison)

    walk(figure)
    return found


def texts_past_edge(figure: Figure, renderer=None, slack: float = EDGE_SLACK) -> list[str]:
    """Every text ``figure`` draws whose extent runs past the canvas by more than
    ``slack`` pixels, each as ``'text' past the right edge: x 15.0 … 731.0, y 12.9 … 31.1 of 700 × 430 px``
    (a text clipped to its ``Axes`` counts as far as it shows). Empty when every text
    is whole on the figure.

    Without ``renderer`` the figure is drawn by Agg at its own resolution in the book's
    style (a figure of :func:`new_figure` gets an Agg canvas for it); a caller that has
    just drawn it passes that draw's renderer (``draw_event``'s, a widget canvas's).

    >>> fig = new_figure(2.0, 1.0)
    >>> _ = fig.text(0.5, 0.5, "a title far wider than two inches of canvas", ha="center")
    >>> _ = fig.text(0.1, 0.2, "fits")
    >>> [s.split(":")[0] for s in texts_past_edge(fig)]
    ["'a title far wider than two inches of canvas' past the left and right edges"]
    >>> close(fig)
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.transforms import Bbox

    if not isinstance(figure, Figure):
        raise TypeError(f"figure must be a matplotlib Figure, got {type(figure).__name__}")
    if isinstance(slack, bool) or not isinstance(slack, (int, float)) or not slack >= 0:
        raise ValueError(f"slack must be a number of pixels >= 0, got {slack!r}")
    with book_style():
        if renderer is None:
            canvas = figure.canvas if isinstance(figure.canvas, FigureCanvasAgg) else FigureCanvasAgg(figure)
            canvas.draw()
            renderer = canvas.get_renderer()
        width, height = figure.bbox.width, figure.bbox.height
        found = []
        for text in _drawn_texts(figure):
            box = text.get_window_extent(renderer)
            clip = text.get_clip_box() if text.get_clip_on() else None
            if clip is not None:
                box = Bbox.intersection(box, clip)
                if box is None:
                    continue
            x0, y0, x1, y1 = box.extents
            sides = [side for side, past in (("left", x0 < -slack), ("right", x1 > width + slack),
                                             ("top", y1 > height + slack), ("bottom", y0 < -slack)) if past]
            if sides:
                where = " and ".join([", ".join(sides[:-1]), sides[-1]] if len(sides) > 1 else sides)
                found.append(f"{text.get_text()!r} past the {where} edge{'s' if len(sides) > 1 else ''}: "
                             f"x {x0:.1f} … {x1:.1f}, y {height - y1:.1f} … {height - y0:.1f} "
                             f"of {width:.0f} × {height:.0f} px")
    return found


def close(fig: Figure) -> None:
    """Release a figure made by :func:`new_figure` (kept for symmetry with pyplot)."""
    plt.close(fig)
