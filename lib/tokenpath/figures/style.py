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


def close(fig: Figure) -> None:
    """Release a figure made by :func:`new_figure` (kept for symmetry with pyplot)."""
    plt.close(fig)
