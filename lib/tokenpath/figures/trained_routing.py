"""Routing of the book's trained model on a held-out line.

Left, one row per token of the line: its text (a space drawn as ␣), and the router's
probability for each expert (a softmax over all four experts, before the choice);
the two experts it runs are green, the first choice in bold. Right, the same layer over
the whole held-out text: each expert's share of the choices (the bars; the dashed line
is an even split) and how often the top-2 set changes between neighbouring tokens.

The trace is :class:`tokenpath.trained.RoutingView`. :func:`draw_line_routing` and
:func:`draw_layer_load` return their artists by name and the matching ``update_*``
functions move them in place (a shorter line hides the rows it does not use), for the
widget of :mod:`tokenpath.widgets.trained_routing`.

Colours keep their book-wide meaning (:mod:`tokenpath.figures.style`): green = an
expert that runs, grey = even split and inactive parts.
"""

from __future__ import annotations


from matplotlib.artist import Artist

from .. import examples as ex
from .. import trained as T
from ..i18n import _
from . import Drawn, register, style
from .trained_attention import short as piece_text  # a token's text, spaces visible
from .draw import (VALUE_FACE, add_cell, add_heading, add_text, check_at, check_ax, check_trace, figure_title, new_canvas,
                   tint)

__all__ = [
    "MAX_ROWS",
    "NUMBER",
    "build_routing",
    "describe_view",
    "draw_layer_load",
    "draw_line_routing",
    "piece_text",
    "prob_text",
    "routing_trace",
    "row_text",
    "update_layer_load",
    "update_line_routing",
    "update_routing",
]

#: Rows of the token table: the longest line the chapter offers.
MAX_ROWS = ex.ROUTE_LINE_TOKENS[1]
#: A row's probabilities are one line of monospaced text (".03 .92 .04 .01"),
#: which draws far faster than a text per cell; the cells sit under its character grid,
#: one field of FIELD_CHARS characters per expert. A token's text is cut with … past
#: PIECE_CHARS characters.
FIELD_CHARS, PIECE_CHARS = 4, 10
CELL_SIZE = 8.5
#: The advance of every glyph of DejaVu Sans Mono (1233/2048 em), in inches.
CHAR_W = CELL_SIZE * 1233 / 2048 / 72
ROW = 0.21           # row pitch, inches (rows stay apart: a widget redraws each alone)
CELL_H = 0.15
POS_X = 0.45         # right edge of the positions
PIECE_X = 1.38       # right edge of the token texts
CELL_X = 1.5         # left edge of expert 0's field
COL_PITCH = FIELD_CHARS * CHAR_W
COL_W = COL_PITCH - 0.03
TABLE_Y = 1.1        # top of the first row
BAR_LABEL_X = 3.3
BAR_X = 3.95
BAR_W = 1.3          # width of the largest share of any layer
BAR_H = 0.24
BAR_PITCH = 0.36
BARS_Y = 1.35
#: Narrower than a text column: fewer pixels make a faster widget step.
FIG_WIDTH = 6.2
NOTE_SIZE = 9
SMALL_SIZE = 8
MONO = "DejaVu Sans Mono"
#: Faces of the chosen experts' cells: first choice, second choice.
FIRST_FACE = VALUE_FACE
SECOND_FACE = tint(style.VALUE, 0.86)


def prob_text(p: float) -> str:
    """A probability in three characters, as the table writes it: ``.92``; ``1.0`` from
    0.995 up.

    >>> prob_text(0.9234), prob_text(0.004), prob_text(0.9991)
    ('.92', '.00', '1.0')
    """
    return "1.0" if p >= 0.995 else f"{p:.2f}"[1:]


def row_text(piece: str, probs) -> tuple[str, str]:
    """A row of the token table: the token's text (cut with … past
    :data:`PIECE_CHARS` characters) and its probabilities, one per expert's field.

    >>> row_text(" ra", [0.014, 0.81, 0.17, 0.006])
    ('␣ra', '.01 .81 .17 .01')
    """
    shown = piece_text(piece)
    if len(shown) > PIECE_CHARS:
        shown = shown[: PIECE_CHARS - 1] + "…"
    return shown, " ".join(prob_text(p) for p in probs)


def _pct(share: float) -> str:
    return f"{100 * share:.0f} %"


def _count(n: int) -> str:
    return f"{int(n):,}"


def routing_trace(layer: int = ex.ROUTE_LAYER, line: int | None = None) -> T.RoutingView:
    """The routing figure's trace: :func:`tokenpath.trained.routing_view` of ``layer`` and held-out
    line ``line`` (0-based)."""
    return T.routing_view(layer, line)


HEADING = "The trained model's routers on a held-out line"


def _state_text(v: T.RoutingView) -> str:
    """The figure's moving heading: which layer and line it shows (short: a widget redraws it)."""
    return f"layer {v.layer} · held-out line {v.line} · {len(v.pieces)} tokens"


# ======================================================================= the line


def draw_line_routing(ax, trace: T.RoutingView, *, at=(0.0, 0.0)) -> dict[str, Artist]:
    """The token table: one row per token (up to :data:`MAX_ROWS`): its position, its
    text and, under each expert, the router probability; the chosen experts' cells are
    green (darker: the first choice)."""
    ax = check_ax(ax)
    trace = check_trace(trace, T.RoutingView)
    x0, y0 = check_at(at)
    n_e = trace.probs.shape[1]
    art: dict[str, Artist] = {}
    head_y = y0 + TABLE_Y - 0.17
    art["col.token"] = add_text(ax, x0 + PIECE_X, head_y, "token", ha="right", size=NOTE_SIZE, style="italic")
    art["col.expert"] = add_text(ax, x0 + CELL_X + n_e * COL_PITCH / 2, head_y - 0.2, "expert", ha="center",
                              size=NOTE_SIZE, style="italic")
    for j in range(n_e):
        art[f"col[{j}]"] = add_text(ax, x0 + CELL_X + (j + 0.5) * COL_PITCH, head_y, str(j), ha="center",
                                 size=NOTE_SIZE, weight="bold")
    for t in range(MAX_ROWS):
        y = y0 + TABLE_Y + t * ROW
        for j in range(n_e):
            art[f"cell[{t},{j}]"] = add_cell(ax, x0 + CELL_X + j * COL_PITCH + 0.015, y, COL_W, CELL_H, "",
                                          lw=0.6, edge=style.NEUTRAL)[0]
        art[f"pos[{t}]"] = add_text(ax, x0 + POS_X, y + CELL_H / 2, str(t), ha="right", size=SMALL_SIZE,
                                 color=style.NEUTRAL)
        art[f"piece[{t}]"] = add_text(ax, x0 + PIECE_X, y + CELL_H / 2, "", ha="right", size=CELL_SIZE, family=MONO)
        art[f"probs[{t}]"] = add_text(ax, x0 + CELL_X + CHAR_W / 2, y + CELL_H / 2, "", size=CELL_SIZE, family=MONO,
                                   zorder=4)
    art["legend"] = add_text(ax, x0 + 0.15, y0 + TABLE_Y + MAX_ROWS * ROW + 0.12,
                          "router probability (softmax over all experts: .92 = 0.92); green: the two it "
                          "runs, darker: first choice", size=SMALL_SIZE, color="#333333")
    update_line_routing(art, trace)
    return art


def update_line_routing(artists: dict, trace: T.RoutingView) -> None:
    """Move :func:`draw_line_routing`'s artists to ``trace`` in place; rows past the
    line's last token are hidden."""
    trace = check_trace(trace, T.RoutingView)
    n_t, n_e = trace.probs.shape
    if n_t > MAX_ROWS:
        raise ValueError(f"trace must have at most {MAX_ROWS} tokens (the table's rows), got {n_t}")
    for t in range(MAX_ROWS):
        shown = t < n_t
        piece, probs = row_text(trace.pieces[t], trace.probs[t]) if shown else ("", "")
        for key, text in (("pos", str(t)), ("piece", piece), ("probs", probs)):
            artists[f"{key}[{t}]"].set_visible(shown)
            if key != "pos":
                artists[f"{key}[{t}]"].set_text(text)
        face = {int(e): f for e, f in zip(trace.chosen[t], (FIRST_FACE, SECOND_FACE))} if shown else {}
        for j in range(n_e):
            cell = artists[f"cell[{t},{j}]"]
            cell.set_visible(shown)
            cell.set_facecolor(face.get(j, "white"))


# ======================================================================= the layer


def draw_layer_load(ax, trace: T.RoutingView, *, at=(0.0, 0.0)) -> dict[str, Artist]:
    """The layer over the whole held-out text: one bar per expert (its share of the
    k · tokens choices, scaled so the largest share of any layer fills the width), the
    even split, and the top-k change rate."""
    ax = check_ax(ax)
    trace = check_trace(trace, T.RoutingView)
    x0, y0 = check_at(at)
    n_e = trace.load.size
    art: dict[str, Artist] = {}
    art["load.head"] = add_text(ax, x0 + BAR_LABEL_X, y0 + 0.87, "", size=NOTE_SIZE, weight="bold",
                             linespacing=1.2)
    for j in range(n_e):
        y = y0 + BARS_Y + j * BAR_PITCH
        art[f"load.label[{j}]"] = add_text(ax, x0 + BAR_LABEL_X, y + BAR_H / 2, f"expert {j}", size=NOTE_SIZE)
        art[f"bar[{j}]"] = add_cell(ax, x0 + BAR_X, y, BAR_W, BAR_H, "", face=VALUE_FACE, edge=style.VALUE, lw=0.8)[0]
        art[f"load[{j}]"] = add_text(ax, x0 + BAR_X, y + BAR_H / 2, "", size=SMALL_SIZE, zorder=5,
                                  bbox=dict(facecolor="white", edgecolor="none", pad=1.0))
    even = x0 + BAR_X + BAR_W * (1 / n_e) / trace.scale
    for j in range(n_e):  # one dashed piece per bar, drawn over it
        y = y0 + BARS_Y + j * BAR_PITCH
        (art[f"even[{j}]"],) = ax.plot([even, even], [y - 0.03, y + BAR_H + 0.03], color=style.INK, lw=0.9,
                                       ls=(0, (3, 2)), zorder=4)
    bottom = y0 + BARS_Y + (n_e - 1) * BAR_PITCH + BAR_H
    art["even.label"] = add_text(ax, even, bottom + 0.17, f"dashed: even split, {_pct(1 / n_e)}", ha="center",
                              size=SMALL_SIZE, color="#555555")
    art["changes"] = add_text(ax, x0 + BAR_LABEL_X, bottom + 0.55, "", size=NOTE_SIZE, linespacing=1.3)
    art["line.changes"] = add_text(ax, x0 + BAR_LABEL_X, bottom + 0.95, "", size=NOTE_SIZE)
    update_layer_load(art, trace)
    return art


def update_layer_load(artists: dict, trace: T.RoutingView) -> None:
    """Move :func:`draw_layer_load`'s artists to ``trace`` in place."""
    trace = check_trace(trace, T.RoutingView)
    share = trace.load_share
    artists["load.head"].set_text(f"Layer {trace.layer} over the held-out text:\n"
                                  f"{_count(trace.held_tokens)} tokens, "
                                  f"{_count(trace.held_tokens * trace.top_k)} choices")
    for j, (n, s) in enumerate(zip(trace.load, share)):
        bar = artists[f"bar[{j}]"]
        bar.set_width(BAR_W * s / trace.scale)
        label = artists[f"load[{j}]"]
        label.set_x(bar.get_x() + BAR_W + 0.08)  # one column right of the widest bar: clear of the dashes
        label.set_text(f"{_count(n)} ({_pct(s)})")
    artists["changes"].set_text(
        f"its top-{trace.top_k} set changes at\n{_count(trace.changes)} of {_count(trace.pairs)} neighbouring "
        f"pairs ({_pct(trace.change_rate)});")
    artists["line.changes"].set_text(f"this line: {trace.line_changes} of {len(trace.pieces) - 1}")


# ======================================================================= the figure


def describe_view(trace: T.RoutingView) -> str:
    """The routing figure's state in words, every number from ``trace``."""
    trace = check_trace(trace, T.RoutingView)
    tokens = _("; ").join("{} {}".format(piece_text(p), _(" and ").join(str(int(e)) for e in c))
                          for p, c in zip(trace.pieces, trace.chosen))
    load = _(", ").join(_("expert {j} {n} ({share})").format(j=j, n=_count(n), share=_pct(s))
                        for j, (n, s) in enumerate(zip(trace.load, trace.load_share)))
    return _("Layer {layer} of the trained model routes the {n} tokens of a held-out line, line {number} of {file}, "
             "read in its place in the file, to these experts (best first): {tokens}. Along the line the top-{k} set "
             "changes at {line_changes} of {pairs_line} neighbouring pairs. Over the {held} held-out tokens this "
             "layer's {choices} choices go {load}; its top-{k} set changes at {changes} of {pairs} neighbouring "
             "pairs ({rate}).").format(
        layer=trace.layer, n=len(trace.pieces), number=T.line_source(trace.line)[1], file=T.line_source(trace.line)[0],
        tokens=tokens, k=trace.top_k, line_changes=trace.line_changes, pairs_line=len(trace.pieces) - 1,
        held=_count(trace.held_tokens), choices=_count(trace.held_tokens * trace.top_k), load=load,
        changes=_count(trace.changes), pairs=_count(trace.pairs), rate=_pct(trace.change_rate))


def update_routing(artists: dict, trace: T.RoutingView) -> None:
    """Move the whole routing figure to ``trace`` in place."""
    update_line_routing(artists, trace)
    update_layer_load(artists, trace)
    artists["state"].set_text(_state_text(trace))


#: The figure's number in the book (chapter 11, after the attention view).
NUMBER = 27


@register(NUMBER, "Routing of a held-out line in the trained model")
def build_routing() -> Drawn:
    trace = routing_trace()
    height = TABLE_Y + MAX_ROWS * ROW + 0.35
    fig, ax = new_canvas(FIG_WIDTH, height)
    art: dict[str, Artist] = {}
    art["heading"] = add_heading(ax, 0.15, 0.22, HEADING)
    art["state"] = add_text(ax, 0.15, 0.5, _state_text(trace), size=NOTE_SIZE + 1)
    art.update(draw_line_routing(ax, trace))
    art.update(draw_layer_load(ax, trace))
    probs = _("; ").join(f"{piece_text(p)} [{', '.join(f'{x:.2f}' for x in row)}]"
                         for p, row in zip(trace.pieces, trace.probs))
    alt = (_("A table with one row per token of a held-out line and one column per expert, holding each router "
             "probability, the two chosen experts green; beside it, bars of each expert's share of the layer's "
             "choices over the held-out text.") + " " + describe_view(trace) + " "
           + _("The router probabilities of experts 0 to {last}, token by token: {probs}.").format(
               last=trace.probs.shape[1] - 1, probs=probs))
    return Drawn(NUMBER, figure_title(NUMBER), fig, alt, art, trace)
