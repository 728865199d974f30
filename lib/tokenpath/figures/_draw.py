"""Drawing primitives shared by every chapter's figures.

Figures are laid out on one "canvas" axes whose data units are inches (y grows
downwards), so a cell, a label and a font size keep their proportions at the book's
7-inch width. This module holds what every figure module draws with: the canvas, boxed
cells, text and headings, arrows, outlines and swatches, the tinted faces that carry
the book-wide colour meanings of :mod:`tokenpath.figures.style`, the text sizes, and the
argument checks the ``draw_*`` helpers share. It draws no figure of its own.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import to_hex, to_rgb
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle

from .. import fmt
from . import FIGURES, style

MINUS = fmt.MINUS

#: How a hidden source's score is written: the mask adds −∞.
NEG_INF = fmt.num(-np.inf, minus=MINUS)

CELL_SIZE = 11.5  # numbers inside cells

LABEL_SIZE = 9.5  # row/column indices

NOTE_SIZE = 9  # explanations beside a panel

SMALL_SIZE = 8  # second lines inside cells

HEAD_SIZE = 11  # panel headings

def _tint(color: str, amount: float) -> str:
    """``color`` mixed with white (``amount`` = share of white)."""
    rgb = np.asarray(to_rgb(color))
    return to_hex((1.0 - amount) * rgb + amount)

VISIBLE_FACE = _tint(style.VISIBLE, 0.72)

BLOCKED_FACE = _tint(style.BLOCKED, 0.72)

VALUE_FACE = _tint(style.VALUE, 0.70)

QUERY_FACE = _tint(style.QUERY, 0.65)

CACHE_FACE = _tint(style.CACHE, 0.55)

ACCENT_FACE = _tint(style.ACCENT, 0.65)

SUM_FACE = "#F4F4F4"

DROPPED_HATCH = _tint(style.BLOCKED, 0.35)

def _title(number: int) -> str:
    return FIGURES[number].title

def _canvas(width: float, height: float):
    """A figure with one axes in inch units, origin top-left, nothing drawn."""
    fig = style.new_figure(width, height)
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(0.0, width)
    ax.set_ylim(height, 0.0)
    ax.set_axis_off()
    return fig, ax

def _check_ax(ax) -> Axes:
    if not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")
    return ax

def _check_at(at) -> tuple[float, float]:
    try:
        x, y = (float(v) for v in at)
    except (TypeError, ValueError):
        raise TypeError(f"at must be an (x, y) pair of numbers in inches, got {at!r}") from None
    return x, y

def _check_trace(trace, cls, name: str = "trace"):
    if not isinstance(trace, cls):
        raise TypeError(f"{name} must be a {cls.__name__}, got {type(trace).__name__}")
    return trace

def _cell(ax, x, y, w, h, text="", *, face="white", edge=style.INK, lw=0.8, size=CELL_SIZE,
          color=style.INK, weight="normal", hatch=None, hatchcolor=None, zorder=2, dy=0.0):
    rect = Rectangle((x, y), w, h, facecolor=face, edgecolor=edge, linewidth=lw, hatch=hatch,
                     hatchcolor=hatchcolor or edge, zorder=zorder)
    ax.add_patch(rect)
    txt = ax.text(x + w / 2, y + h / 2 + dy, text, ha="center", va="center", fontsize=size,
                  color=color, weight=weight, zorder=zorder + 1)
    return rect, txt

def _text(ax, x, y, s, *, size=NOTE_SIZE, ha="left", va="center", color=style.INK, **kw):
    return ax.text(x, y, s, fontsize=size, ha=ha, va=va, color=color, **kw)

def _heading(ax, x, y, s, *, ha="left", size=HEAD_SIZE):
    return ax.text(x, y, s, fontsize=size, ha=ha, va="center", weight="bold", color=style.INK)

def _arrow(ax, start, end, *, color=style.INK, lw=1.4, style_="-|>", rad=0.0, ls="-",
           mutation=12, zorder=4, shrink=0.0):
    arrow = FancyArrowPatch(start, end, arrowstyle=style_, mutation_scale=mutation, color=color,
                            linewidth=lw, linestyle=ls, connectionstyle=f"arc3,rad={rad}",
                            shrinkA=shrink, shrinkB=shrink, zorder=zorder)
    ax.add_patch(arrow)
    return arrow

def _outline(ax, x, y, w, h, *, color=style.QUERY, lw=2.4, pad=0.035, zorder=6):
    box = FancyBboxPatch((x - pad, y - pad), w + 2 * pad, h + 2 * pad,
                         boxstyle="round,pad=0,rounding_size=0.05", facecolor="none",
                         edgecolor=color, linewidth=lw, zorder=zorder)
    ax.add_patch(box)
    return box

def _swatch(ax, x, y, text, *, face, edge=style.INK, hatch=None, hatchcolor=None,
            size=NOTE_SIZE, w=0.22, h=0.16, lw=0.8):
    rect = Rectangle((x, y - h / 2), w, h, facecolor=face, edgecolor=edge, linewidth=lw,
                     hatch=hatch, hatchcolor=hatchcolor or edge, zorder=2)
    ax.add_patch(rect)
    label = _text(ax, x + w + 0.08, y, text, size=size)
    return rect, label
