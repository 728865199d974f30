"""Drawing primitives shared by every chapter's figures.

Figures are laid out on one "canvas" axes whose data units are inches (y grows
downwards), so a cell, a label and a font size keep their proportions at the book's
7-inch width. This module holds what every figure module draws with: the canvas
(:func:`new_canvas`), boxed cells, text and headings, arrows, outlines, swatches and
the index labels beside a grid (``add_*``: each adds its artists to an ``Axes`` and
returns them), the filing of a panel's artists in a figure's dictionary
(:func:`prefix_artists`, :func:`panel_artists`), the tinted faces that carry the book-wide colour meanings of
:mod:`tokenpath.figures.style`, the text sizes, how an index is written
(:func:`index_text`), and the argument checks the ``draw_*`` helpers share
(``check_*``). It draws no figure of its own.

>>> fig, ax = new_canvas(2.0, 1.0)
>>> rect, label = add_cell(ax, 0.1, 0.1, 0.4, 0.3, "3", face=VISIBLE_FACE)
>>> label.get_text(), rect.get_width()
('3', 0.4)
>>> style.close(fig)
"""

from __future__ import annotations

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.colors import to_hex, to_rgb
from matplotlib.font_manager import FontProperties
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle

from .. import fmt
from . import FIGURES, style

__all__ = [
    "ACCENT_FACE",
    "BLOCKED_FACE",
    "CACHE_FACE",
    "CELL_SIZE",
    "DROPPED_HATCH",
    "HEAD_SIZE",
    "LABEL_SIZE",
    "LIGHT_FACE",
    "MINUS",
    "NEG_INF",
    "NOTE_SIZE",
    "PANEL_SIZE",
    "QUERY_FACE",
    "SMALL_SIZE",
    "SUM_FACE",
    "TABLE_SIZE",
    "VALUE_FACE",
    "VISIBLE_FACE",
    "add_arrow",
    "add_axis_labels",
    "add_cell",
    "add_heading",
    "add_outline",
    "add_swatch",
    "add_text",
    "check_at",
    "check_ax",
    "check_trace",
    "figure_title",
    "fit_lines",
    "id_set_text",
    "index_text",
    "new_canvas",
    "num_text",
    "panel_artists",
    "prefix_artists",
    "text_width",
    "tint",
    "vec_text",
]

MINUS = fmt.MINUS

#: How a hidden source's score is written: the mask adds −∞.
NEG_INF = fmt.num(-np.inf, minus=MINUS)

CELL_SIZE = 11.5  # numbers inside cells

TABLE_SIZE = 10  # numbers inside the cells of a wide table (the MoE routing tables)

LABEL_SIZE = 9.5  # row/column indices

NOTE_SIZE = 9  # explanations beside a panel

SMALL_SIZE = 8  # second lines inside cells

HEAD_SIZE = 11  # panel headings

PANEL_SIZE = 8.5  # text inside a plotted panel (ledgers, legends)


def tint(color: str, amount: float) -> str:
    """``color`` mixed with white (``amount`` = share of white).

    >>> tint("#000000", 0.5)
    '#808080'
    """
    rgb = np.asarray(to_rgb(color))
    return to_hex((1.0 - amount) * rgb + amount)


VISIBLE_FACE = tint(style.VISIBLE, 0.72)

BLOCKED_FACE = tint(style.BLOCKED, 0.72)

VALUE_FACE = tint(style.VALUE, 0.70)

QUERY_FACE = tint(style.QUERY, 0.65)

CACHE_FACE = tint(style.CACHE, 0.55)

ACCENT_FACE = tint(style.ACCENT, 0.65)

SUM_FACE = "#F4F4F4"

LIGHT_FACE = "#F2F2F2"  # a part that is stored but not run (an unchosen expert)

DROPPED_HATCH = tint(style.BLOCKED, 0.35)


def figure_title(number: int) -> str:
    """The title figure ``number`` is registered with, in the engine's language
    (:mod:`tokenpath.i18n`; the catalog holds every registered title)."""
    from ..i18n import _

    return _(FIGURES[number].title)


def index_text(n) -> str:
    """An index or a count as a figure writes it: a plain integer.

    >>> index_text(2.0)
    '2'
    """
    return fmt.num(int(n))


def num_text(x, digits: int | None = None) -> str:
    """One number with a true minus sign, exact integers bare.

    >>> num_text(-1.0), num_text(0.7311, 3)
    ('−1', '0.731')
    """
    return fmt.num(x, digits, minus=MINUS, bare_ints=True)


def vec_text(v, digits: int | None = None) -> str:
    """A vector as :func:`num_text` writes its entries.

    >>> vec_text([2, -1.5])
    '[2, −1.5]'
    """
    return "[" + ", ".join(num_text(x, digits) for x in np.asarray(v, dtype=float)) + "]"


def id_set_text(ids) -> str:
    """A set of IDs (experts, tokens) in braces, smallest first.

    >>> id_set_text([3, 0, 1])
    '{0, 1, 3}'
    """
    return "{" + ", ".join(str(int(i)) for i in sorted(np.asarray(ids).tolist())) + "}"


_MEASURE: list = []


def text_width(s: str, *, size: float, weight="normal", fontstyle="normal") -> float:
    """The width in inches of the one-line text ``s`` at ``size`` points in the book's
    fonts, as Agg draws it at the widgets' resolution (the same on every run).

    >>> text_width("a b", size=10) > text_width("ab", size=10) > 0
    True
    >>> text_width("ab", size=10, weight="bold") > text_width("ab", size=10)
    True
    """
    if not isinstance(s, str):
        raise TypeError(f"s must be a str, got {type(s).__name__}")
    if isinstance(size, bool) or not isinstance(size, (int, float)) or not size > 0:
        raise ValueError(f"size must be a positive number of points, got {size!r}")
    with style.book_style():
        if not _MEASURE:
            _MEASURE.append(RendererAgg(1, 1, style.SCREEN_DPI))
        prop = FontProperties(size=size, weight=weight, style=fontstyle)
        width, _, _ = _MEASURE[0].get_text_width_height_descent(s, prop, ismath=False)
    return width / style.SCREEN_DPI


def fit_lines(s: str, width: float, *, size: float, weight="normal", lines: int = 2,
              breaks: str = " ↵", ellipsis: str = "…") -> str:
    """``s`` broken into at most ``lines`` lines, each at most ``width`` inches wide at
    ``size`` points (:func:`text_width`): every line as long as fits, ending after the
    last of the ``breaks`` characters that fits (a space is dropped there), else
    wherever it must. What the last line cannot hold is cut from its *start* with
    ``ellipsis``, so the text's end, where a next token follows, always shows.

    >>> fit_lines("short", 2.0, size=10)
    'short'
    >>> print(fit_lines("Next token after “class␣Point:↵␣×4def␣__init__(self):↵␣×8self.”", 3.0, size=10))
    Next token after “class␣Point:↵
    ␣×4def␣__init__(self):↵␣×8self.”
    >>> print(fit_lines("Next token after “class␣Point:↵␣×4def␣__init__(self):↵␣×8self.”", 2.0, size=10))
    Next token after
    …f␣__init__(self):↵␣×8self.”
    >>> fit_lines("with open(path) as f: return f.read()", 1.2, size=10, lines=1)
    '… return f.read()'
    """
    if isinstance(lines, bool) or not isinstance(lines, int) or lines < 1:
        raise ValueError(f"lines must be an int of at least 1, got {lines!r}")
    if isinstance(width, bool) or not isinstance(width, (int, float)) or not width > 0:
        raise ValueError(f"width must be a positive number of inches, got {width!r}")
    if not isinstance(s, str):
        raise TypeError(f"s must be a str, got {type(s).__name__}")

    def fits(t: str) -> bool:
        return text_width(t, size=size, weight=weight) <= width

    def longest(t: str, keep) -> int:
        """The largest n such that keep(t, n) fits (binary search: widths grow with n)."""
        low, high = 0, len(t)
        while low < high:
            mid = (low + high + 1) // 2
            low, high = (mid, high) if fits(keep(t, mid)) else (low, mid - 1)
        return low

    def head(t: str, n: int) -> str:
        return t[:n]

    def tail(t: str, n: int) -> str:
        return ellipsis + t[len(t) - n:]

    out, rest = [], s
    while rest and not fits(rest) and len(out) < lines - 1:
        n = max(1, longest(rest, head))
        cut = max((i + 1 for i in range(n) if rest[i] in breaks), default=n)
        out.append(rest[:cut].rstrip(" "))
        rest = rest[cut:].lstrip(" ")
    if rest and not fits(rest):
        rest = tail(rest, longest(rest, tail))
    return "\n".join(out + [rest])


def new_canvas(width: float, height: float):
    """A figure with one axes in inch units, origin top-left, nothing drawn."""
    fig = style.new_figure(width, height)
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(0.0, width)
    ax.set_ylim(height, 0.0)
    ax.set_axis_off()
    return fig, ax


def check_ax(ax) -> Axes:
    """``ax``, if it is a matplotlib ``Axes``; else a ``TypeError`` naming ``ax``."""
    if not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")
    return ax


def check_at(at) -> tuple[float, float]:
    """``at`` as an ``(x, y)`` pair of floats (inches); else a ``TypeError`` naming ``at``."""
    try:
        x, y = (float(v) for v in at)
    except (TypeError, ValueError):
        raise TypeError(f"at must be an (x, y) pair of numbers in inches, got {at!r}") from None
    return x, y


def check_trace(trace, cls, name: str = "trace"):
    """``trace``, if it is a ``cls``; else a ``TypeError`` naming ``name``."""
    if not isinstance(trace, cls):
        raise TypeError(f"{name} must be a {cls.__name__}, got {type(trace).__name__}")
    return trace


def add_cell(ax, x, y, w, h, text="", *, face="white", edge=style.INK, lw=0.8, size=CELL_SIZE,
             color=style.INK, weight="normal", hatch=None, hatchcolor=None, zorder=2, dy=0.0):
    """A ``w`` × ``h`` box with its top-left corner at (``x``, ``y``) and ``text``
    centred in it: returns ``(rectangle, text)``."""
    rect = Rectangle((x, y), w, h, facecolor=face, edgecolor=edge, linewidth=lw, hatch=hatch,
                     hatchcolor=hatchcolor or edge, zorder=zorder)
    ax.add_patch(rect)
    txt = ax.text(x + w / 2, y + h / 2 + dy, text, ha="center", va="center", fontsize=size,
                  color=color, weight=weight, zorder=zorder + 1)
    return rect, txt


def add_text(ax, x, y, s, *, size=NOTE_SIZE, ha="left", va="center", color=style.INK, **kw):
    """A note ``s`` at (``x``, ``y``), left-aligned and vertically centred by default."""
    return ax.text(x, y, s, fontsize=size, ha=ha, va=va, color=color, **kw)


def add_heading(ax, x, y, s, *, ha="left", size=HEAD_SIZE):
    """A panel heading ``s`` in bold at (``x``, ``y``)."""
    return ax.text(x, y, s, fontsize=size, ha=ha, va="center", weight="bold", color=style.INK)


def add_arrow(ax, start, end, *, color=style.INK, lw=1.4, style_="-|>", rad=0.0, ls="-",
              mutation=12, zorder=4, shrink=0.0):
    """An arrow from ``start`` to ``end`` (bent by ``rad``, as matplotlib's ``arc3``)."""
    arrow = FancyArrowPatch(start, end, arrowstyle=style_, mutation_scale=mutation, color=color,
                            linewidth=lw, linestyle=ls, connectionstyle=f"arc3,rad={rad}",
                            shrinkA=shrink, shrinkB=shrink, zorder=zorder)
    ax.add_patch(arrow)
    return arrow


def add_outline(ax, x, y, w, h, *, color=style.QUERY, lw=2.4, pad=0.035, zorder=6):
    """A rounded outline around the ``w`` × ``h`` box at (``x``, ``y``), ``pad`` outside it."""
    box = FancyBboxPatch((x - pad, y - pad), w + 2 * pad, h + 2 * pad,
                         boxstyle="round,pad=0,rounding_size=0.05", facecolor="none",
                         edgecolor=color, linewidth=lw, zorder=zorder)
    ax.add_patch(box)
    return box


def add_swatch(ax, x, y, text, *, face, edge=style.INK, hatch=None, hatchcolor=None,
               size=NOTE_SIZE, w=0.22, h=0.16, lw=0.8):
    """A legend entry: a small box in ``face`` centred on height ``y``, ``text`` to its
    right; returns ``(rectangle, text)``."""
    rect = Rectangle((x, y - h / 2), w, h, facecolor=face, edgecolor=edge, linewidth=lw,
                     hatch=hatch, hatchcolor=hatchcolor or edge, zorder=2)
    ax.add_patch(rect)
    label = add_text(ax, x + w + 0.08, y, text, size=size)
    return rect, label


def add_axis_labels(ax, x0, y0, w, h, *, rows: int, cols: int, row_labels, col_labels,
                    row_title: str | None, col_title: str | None, name: str) -> dict[str, Artist]:
    """Indices beside a grid of ``rows`` × ``cols`` cells of ``w`` × ``h`` whose top-left
    corner is (``x0``, ``y0``), plus the two axis titles; the artists are keyed
    ``"{name}.col[j]"``, ``"{name}.row[i]"``, ``"{name}.col_title"`` and ``"{name}.row_title"``."""
    art: dict[str, Artist] = {}
    for j, lab in enumerate(col_labels):
        art[f"{name}.col[{j}]"] = add_text(ax, x0 + (j + 0.5) * w, y0 - 0.13, lab, ha="center",
                                           va="bottom", size=LABEL_SIZE)
    for i, lab in enumerate(row_labels):
        art[f"{name}.row[{i}]"] = add_text(ax, x0 - 0.1, y0 + (i + 0.5) * h, lab, ha="right",
                                           size=LABEL_SIZE)
    if col_title:
        art[f"{name}.col_title"] = add_text(ax, x0 + cols * w / 2, y0 - 0.42, col_title,
                                            ha="center", va="bottom", size=LABEL_SIZE,
                                            style="italic")
    if row_title:
        art[f"{name}.row_title"] = add_text(ax, x0 - 0.62, y0 + rows * h / 2, row_title,
                                            ha="center", size=LABEL_SIZE, rotation=90,
                                            style="italic")
    return art


def prefix_artists(prefix: str, artists: dict) -> dict:
    """One panel's ``artists`` filed under ``"prefix.name"``, as a figure of several
    panels keeps them in one flat dictionary (:func:`panel_artists` reads them back).

    >>> prefix_artists("right", {"output": 1})
    {'right.output': 1}
    """
    return {f"{prefix}.{k}": v for k, v in artists.items()}


def panel_artists(artists: dict, prefix: str) -> dict:
    """The artists of one panel from a figure's flat ``"prefix.name"`` dictionary.

    >>> panel_artists({"right.output": 1, "left.output": 2}, "right")
    {'output': 1}
    """
    if not isinstance(prefix, str) or not prefix:
        raise TypeError("prefix must be a non-empty str")
    head = prefix + "."
    out = {k[len(head):]: v for k, v in artists.items() if k.startswith(head)}
    if not out:
        raise ValueError(f"prefix {prefix!r} names no artists; have {sorted(artists)}")
    return out
