"""The attention of one head of the book's trained model on a held-out line.

Three panels, all drawn from :func:`tokenpath.trained.line_attention`: the ``[T, T]``
weights of the picked head (query rows, source columns, the future masked), the picked
query's row as bars under the same source columns, and beside them the head's measures
over the whole held-out text with the role they show, if any. ``draw_*`` helpers return
their artists by name; :func:`update_line_attention` moves them to another layer, head
or query in place, for :func:`tokenpath.widgets.trained_attention.line_heads`.

Colours keep their book-wide meaning (:mod:`tokenpath.figures.style`): blue = weight on
a source the query may read, vermilion = the mask (the future), orange = the query row
the text follows and its own position among the sources.
"""

from __future__ import annotations

import re

import numpy as np
from matplotlib.artist import Artist
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.patches import Rectangle

from .. import examples as ex
from .. import trained as T
from ..i18n import _
from . import Drawn, register, style
from .draw import add_swatch, add_text, check_ax, check_trace, figure_title, new_canvas, tint

__all__ = [
    "NUMBER",
    "build_line_attention",
    "describe_line_attention",
    "draw_head_notes",
    "draw_query_row",
    "draw_weight_map",
    "label",
    "update_line_attention",
]

#: Weight 0 → white, weight 1 → the colour of a visible source.
WEIGHT_MAP = LinearSegmentedColormap.from_list("weight", ["#FFFFFF", style.VISIBLE])
FUTURE_FACE = tint(style.BLOCKED, 0.85)
TICK_SIZE = 6.5
NOTE_SIZE = 8.5
#: Characters that would vanish in a label, shown as visible marks.
_VISIBLE = str.maketrans({" ": "␣", "\t": "⇥", "\n": "↵"})


def label(piece: str) -> str:
    """A token's text with its spaces (tabs, newlines) made visible.

    >>> label(" def"), label("   ")
    ('␣def', '␣␣␣')
    """
    return piece.translate(_VISIBLE)


def short(piece: str) -> str:
    """:func:`label`, with a run of four or more spaces written as its count
    (indentation tokens are long): the form figures 25 and 26 write tokens in.

    >>> short("\\n" + " " * 11), short(" self"), short(" x\\t")
    ('↵␣×11', '␣self', '␣x⇥')
    """
    return re.sub("␣{4,}", lambda m: f"␣×{len(m.group())}", label(piece))


def _masked(weights: np.ndarray) -> np.ma.MaskedArray:
    t = weights.shape[-1]
    return np.ma.masked_array(weights, mask=np.triu(np.ones((t, t), dtype=bool), k=1))


# ---------------------------------------------------------------------- panels


def draw_weight_map(ax, trace: T.LineAttention) -> dict[str, Artist]:
    """The picked head's ``[T, T]`` weights as a heat map (rows = query, columns =
    source; masked future cells in vermilion), the query's row outlined in orange."""
    ax = check_ax(ax)
    trace = check_trace(trace, T.LineAttention)
    t = len(trace.pieces)
    cmap = WEIGHT_MAP.with_extremes(bad=FUTURE_FACE)
    image = ax.imshow(_masked(trace.map.weights), cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto",
                      interpolation="nearest")
    ax.set_yticks(range(t), [f"{label(p)} {q}" for q, p in enumerate(trace.pieces)], fontsize=TICK_SIZE)
    ax.set_xticks(range(0, t, 5), [str(s) for s in range(0, t, 5)], fontsize=TICK_SIZE + 0.5)
    ax.xaxis.tick_top()
    ax.tick_params(length=0, pad=2)  # no tick marks over the map's edge cells (labels are enough)
    ax.set_ylabel("query (reads)", fontsize=style.RC["axes.labelsize"])
    ax.set_xlabel("source position (read)")
    ax.xaxis.set_label_position("top")
    for spine in ax.spines.values():
        spine.set_visible(False)
    outline = Rectangle((-0.5, trace.query - 0.5), t, 1.0, facecolor="none", edgecolor=style.QUERY, lw=1.8,
                        zorder=4)
    ax.add_patch(outline)
    return {"image": image, "outline": outline}


def draw_query_row(ax, trace: T.LineAttention) -> dict[str, Artist]:
    """The picked query's weights over the sources, one bar per source column (its own
    position in orange), the masked future shaded, its strongest sources labelled."""
    ax = check_ax(ax)
    trace = check_trace(trace, T.LineAttention)
    t = len(trace.pieces)
    bars = ax.bar(range(t), np.zeros(t), width=0.8, color=style.VISIBLE)
    future = Rectangle((0.0, 0.0), 0.0, 1.0, transform=ax.get_xaxis_transform(), facecolor=FUTURE_FACE,
                       edgecolor="none", zorder=0.5)
    ax.add_patch(future)
    ax.set_xlim(-0.5, t - 0.5)
    ax.set_ylim(0.0, 1.12)
    ax.set_yticks([0.0, 0.5, 1.0])
    ax.set_ylabel("weight")
    ax.set_xticks(range(t), [label(p) for p in trace.pieces], rotation=90, fontsize=TICK_SIZE)
    ax.tick_params(axis="x", length=0, pad=3)
    art: dict[str, Artist] = {"bars": bars, "future": future}
    art["title"] = ax.set_title("", loc="left", fontsize=NOTE_SIZE + 0.5, fontweight="bold")
    for k in range(ex.HEAD_TOP_SOURCES):
        art[f"top[{k}]"] = ax.text(0.0, 0.0, "", ha="center", va="bottom", fontsize=NOTE_SIZE - 1.5)
    for name, spine in ax.spines.items():
        art[f"spine.{name}"] = spine  # drawn over the bars' edges: they move with them
    _move_row(art, trace)
    return art


def _move_row(art: dict, trace: T.LineAttention) -> None:
    t, q = len(trace.pieces), trace.query
    for s, bar in enumerate(art["bars"]):
        bar.set_height(float(trace.row[s]))
        bar.set_color(style.QUERY if s == q else style.VISIBLE)
    art["future"].set_x(q + 0.5)
    art["future"].set_width(t - 1 - q)
    art["title"].set_text(f"row {q}: what {_quoted(trace, q)} reads")
    for k, (s, _piece, w) in enumerate(trace.map.top_sources(q, k=ex.HEAD_TOP_SOURCES)):
        art[f"top[{k}]"].set_position((s, w + 0.02))
        art[f"top[{k}]"].set_text(f"{w:.2f}")
    for k in range(min(q + 1, ex.HEAD_TOP_SOURCES), ex.HEAD_TOP_SOURCES):
        art[f"top[{k}]"].set_text("")


def _quoted(trace: T.LineAttention, s: int) -> str:
    return f"“{label(trace.pieces[s])}”"


#: The rows of the notes' table: measure and its label.
_TABLE = (("previous", "previous token"), ("itself", "token itself"), ("first", "first token"),
          ("entropy", "entropy (nats)"))


def _values(values) -> str:
    return "\n".join(f"{v:.2f}" for v in values)


def _role_lines(trace: T.LineAttention) -> str:
    role = trace.role
    if role is None:
        return "no role named: no position\ngets more than half\nof its weight"
    return f"{T.ROLE_NAMES[role]}:\nmore than half of its weight\non {T.MEASURE_NAMES[role]}"


def draw_head_notes(ax, trace: T.LineAttention) -> dict[str, Artist]:
    """Beside the map, on a canvas axes: the head's measures over the held-out text next
    to an even spread's, the role they show (if any), and what the shading means."""
    ax = check_ax(ax)
    trace = check_trace(trace, T.LineAttention)
    art: dict[str, Artist] = {}
    x_head, x_even, y_table = 1.42, 1.95, 0.95
    art["notes.heading"] = add_text(ax, 0.05, 0.12, f"Over the held-out text\n(mean of {trace.stats.rows:,} query rows)",
                                 size=NOTE_SIZE, weight="bold", va="top", linespacing=1.3)
    art["notes.columns"] = add_text(ax, x_even, y_table - 0.05, "head     even", size=NOTE_SIZE - 0.5, ha="right",
                                 va="bottom", style="italic")
    lines = dict(size=NOTE_SIZE, va="top", linespacing=1.5)
    art["notes.labels"] = add_text(ax, 0.05, y_table, "\n".join(lab for _, lab in _TABLE), **lines)
    art["notes.values"] = add_text(ax, x_head, y_table, "", ha="right", weight="bold", **lines)
    art["notes.even"] = add_text(ax, x_even, y_table, _values(trace.stats.uniform), ha="right",
                              color=style.NEUTRAL, **lines)
    art["notes.role"] = add_text(ax, 0.05, 1.95, "", size=NOTE_SIZE, va="top", linespacing=1.35, weight="bold")
    art["notes.future"] = add_swatch(ax, 0.05, 2.85, "the future: masked", face=FUTURE_FACE, edge=FUTURE_FACE,
                                  size=NOTE_SIZE)[1]
    _move_notes(art, trace)
    return art


def _move_notes(art: dict, trace: T.LineAttention) -> None:
    s, l, h = trace.stats, trace.layer, trace.head
    art["notes.values"].set_text(_values(s.measure(name)[l, h] for name, _ in _TABLE))
    art["notes.role"].set_text(_role_lines(trace))
    art["notes.role"].set_color(style.INK if trace.role is None else style.VISIBLE)


def update_line_attention(artists: dict, trace: T.LineAttention) -> None:
    """Move figure 26's artists to another (layer, head, query) of the same line."""
    trace = check_trace(trace, T.LineAttention)
    artists["image"].set_data(_masked(trace.map.weights))
    artists["outline"].set_y(trace.query - 0.5)
    artists["map.title"].set_text(f"Layer {trace.layer}, head {trace.head}:")
    _move_row(artists, trace)
    _move_notes(artists, trace)


def describe_line_attention(trace: T.LineAttention) -> str:
    """The picked head and query in words, with the numbers the figure shows."""
    q = trace.query
    top = _(", ").join(_("{w} on {piece} ({s})").format(w=f"{w:.2f}", piece=_quoted(trace, s), s=s)
                       for s, _piece, w in trace.map.top_sources(q, k=ex.HEAD_TOP_SOURCES))
    return _("Layer {layer}, head {head}, query {q} {piece} of held-out line {line}: {top}. Over the held-out text "
             "this head is {described}.").format(
        layer=trace.layer, head=trace.head, q=q, piece=_quoted(trace, q), line=trace.line, top=top,
        described=trace.stats.describe(trace.layer, trace.head, trace.share))


# ---------------------------------------------------------------------- figure 26

#: The figure's panels in inches from the top left: (left, top, width, height).
_MAP = (1.05, 0.62, 3.75, 3.55)
_ROW = (1.05, 4.55, 3.75, 1.15)
_NOTES = (5.0, 0.3, 2.0, 4.4)
_HEIGHT = 6.2


def _axes(fig, box):
    left, top, w, h = box
    return fig.add_axes((left / style.WIDTH, 1 - (top + h) / _HEIGHT, w / style.WIDTH, h / _HEIGHT))


#: The figure's number in the book (chapter 11, after the next-token view).
NUMBER = 26


@register(NUMBER, "Attention of a trained head on a held-out line")
def build_line_attention() -> Drawn:
    trace = T.line_attention()
    fig, canvas = new_canvas(style.WIDTH, _HEIGHT)
    canvas.set_zorder(-1)
    art: dict[str, Artist] = {}
    ax_map = _axes(fig, _MAP)
    art.update(draw_weight_map(ax_map, trace))
    title = dict(size=style.RC["axes.titlesize"], weight="bold")
    art["map.title"] = add_text(canvas, 0.15, 0.14, "", **title)
    # the rest of the title never moves: placed after the widest "Layer l, head h:" (digits share one width)
    art["map.subtitle"] = add_text(canvas, 1.64, 0.14, f"weights on held-out line {trace.line}", **title)
    art.update(draw_query_row(_axes(fig, _ROW), trace))
    notes = _axes(fig, _NOTES)
    notes.set_xlim(0.0, _NOTES[2])
    notes.set_ylim(_NOTES[3], 0.0)
    notes.set_axis_off()
    art.update(draw_head_notes(notes, trace))
    update_line_attention(art, trace)
    colorbar = fig.colorbar(art["image"], cax=_axes(fig, (_NOTES[0] + 0.05, 4.55, 0.12, 1.15)))
    colorbar.set_label("weight", fontsize=NOTE_SIZE)
    colorbar.ax.tick_params(labelsize=TICK_SIZE + 0.5)
    art["colorbar"] = colorbar
    q = trace.query
    n = len(trace.pieces)
    tokens = (_("{n} tokens, the first, {first}, part of its indent").format(n=n, first=_quoted(trace, 0))
              if not trace.pieces[0].strip() else _("{n} tokens").format(n=n))
    alt = _("Attention weights of layer {layer}, head {head} of the book's trained model on held-out line {line}, "
            "line {number} of {file} ({text} run on its own: {tokens}) as a {n}×{n} heat map, query rows against "
            "source columns, the future masked; below it, a bar chart of row {q}'s weights. Query {q} {piece} puts "
            "{top}. Over the held-out text this head is {described}. Its mean weights on the previous token, the "
            "token itself and the first token are {means} and its mean row entropy is {entropy} nats; an even "
            "spread would give {even} and {even_entropy} nats.").format(
        layer=trace.layer, head=trace.head, line=trace.line, number=T.line_source(trace.line)[1],
        file=T.line_source(trace.line)[0], text=repr(trace.text.strip()), tokens=tokens, n=n, q=q,
        piece=_quoted(trace, q),
        top=_(", ").join(_("{w} on {piece} (position {s})").format(w=f"{w:.2f}", piece=_quoted(trace, s), s=s)
                         for s, _piece, w in trace.map.top_sources(q, k=ex.HEAD_TOP_SOURCES)),
        described=trace.stats.describe(trace.layer, trace.head, trace.share),
        means=_(", ").join(f"{trace.stats.measure(m)[trace.layer, trace.head]:.2f}" for m in T.MEASURE_NAMES),
        entropy=f"{trace.stats.entropy[trace.layer, trace.head]:.2f}",
        even=_(", ").join(f"{v:.2f}" for v in trace.stats.uniform[:3]), even_entropy=f"{trace.stats.uniform[3]:.2f}")
    return Drawn(NUMBER, figure_title(NUMBER), fig, alt, art, trace)
