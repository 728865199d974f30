"""Figure 23: multi-head attention, one layer input cut into heads and merged again.

Top: the queries Q = X·W_Q of sequence 0, [T, d], their columns tinted by the head they
go to, then :func:`tokenpath.attention.split_heads` giving one [T, d_h] block per head
([B, H, T, d_h] in all). Bottom: each head's output of causal attention, run on its own
with that head's keys and values (not drawn), and :func:`tokenpath.attention.merge_heads` putting the blocks side by side again,
[B, T, H·d_h]. Every number is the engine's, from
:func:`tokenpath.lessons.attention.multi_head`.

Drawn on one canvas in inch units (y grows downwards), like the other attention
figures. Colours: orange = head 0 (the query colour), purple = head 1 (the accent
colour), shown as tints of the cells that belong to that head.
"""

from __future__ import annotations

import numpy as np
from matplotlib.artist import Artist

from .. import fmt
from ..i18n import _
from ..lessons.attention import HeadSplit, multi_head
from . import Drawn, register, style
from .draw import (ACCENT_FACE, LABEL_SIZE, NOTE_SIZE, QUERY_FACE, SMALL_SIZE, add_arrow,
                   add_cell, add_heading, add_text, check_at, check_ax, check_trace, figure_title,
                   index_text, new_canvas)

__all__ = ["build_fig23", "describe_heads", "draw_block", "head_face"]

#: One face per head (the figure draws up to two heads in colour, the rest in grey).
_FACES = (QUERY_FACE, ACCENT_FACE)
CELL = (0.32, 0.3)
VALUE_SIZE = 8.5


def head_face(h: int) -> str:
    """The tint of head ``h``'s cells."""
    return _FACES[h] if 0 <= h < len(_FACES) else "#DDDDDD"


def _val(x: float) -> str:
    """One decimal, the book's minus sign, no negative zero."""
    s = f"{float(x):.1f}"
    if s == "-0.0":
        s = "0.0"
    return s.replace("-", fmt.MINUS)


def _vec(v) -> str:
    """A row as the figure writes it: one decimal each."""
    return "[" + ", ".join(_val(x) for x in v) + "]"


def _mat(m) -> str:
    return "[" + ", ".join(_vec(r) for r in m) + "]"


def _shape(shape) -> str:
    return fmt.vec(np.asarray(shape))


def draw_block(ax, m: np.ndarray, *, at, faces, name: str, rows: bool = True,
               cols: bool = True, first_col: int = 0) -> dict[str, Artist]:
    """A [rows, cols] matrix of one-decimal cells with its top-left corner at ``at``;
    ``faces[j]`` tints column j. Row labels t = i on the left, column indices on top
    (numbered from ``first_col``)."""
    ax = check_ax(ax)
    x0, y0 = check_at(at)
    w, h = CELL
    art: dict[str, Artist] = {}
    for i in range(m.shape[0]):
        if rows:
            art[f"{name}.row[{i}]"] = add_text(ax, x0 - 0.08, y0 + (i + 0.5) * h, f"t = {index_text(i)}",
                                               ha="right", size=SMALL_SIZE)
        for j in range(m.shape[1]):
            art[f"{name}[{i},{j}]"] = add_cell(ax, x0 + j * w, y0 + i * h, w, h, _val(m[i, j]),
                                               face=faces[j], size=VALUE_SIZE, lw=0.6)[1]
    if cols:
        for j in range(m.shape[1]):
            art[f"{name}.col[{j}]"] = add_text(ax, x0 + (j + 0.5) * w, y0 - 0.1, index_text(first_col + j),
                                               ha="center", va="bottom", size=SMALL_SIZE)
    return art


def _head_columns(trace: HeadSplit, h: int) -> tuple[int, int]:
    """The first and last feature column of head ``h`` in the wide [T, d] matrix."""
    return h * trace.d_h, (h + 1) * trace.d_h - 1


def describe_heads(trace: HeadSplit, *, row: int) -> str:
    """The figure in words, every number from ``trace``."""
    trace = check_trace(trace, HeadSplit)
    b, t, d = trace.q_wide.shape
    hs, dh = trace.heads, trace.d_h
    last = hs - 1
    c0, c1 = _head_columns(trace, last)
    q_row = trace.q[0, last, row]
    parts = ", ".join(_("head {head} in columns {first}–{last}").format(
        head=h, first=_head_columns(trace, h)[0], last=_head_columns(trace, h)[1]) for h in range(hs))
    return _(
        "Multi-head attention on random teaching tensors of the main configuration "
        "(B = {b}, T = {t}, d = {d}, H = {hs}, d_h = {dh}), drawn for sequence 0 with one decimal. "
        "Top left: the queries Q = X·W_Q, shape {q_wide_shape}, {parts}, each head's "
        "columns tinted in its colour; sequence 0 is {q_wide}. An arrow labelled split_heads leads to the top right: "
        "{hs} blocks of shape [T, d_h] = {block_shape}, one per head, "
        "{q_shape} for the whole batch; head {last}'s row {row}, "
        "{q_row}, is columns {c0}–{c1} of Q's row {row}. "
        "Arrows down: each head runs causal attention on its own, with that head's keys K and values U "
        "(cut from X·W_K and X·W_V the same way, not drawn), with weights of shape "
        "{weights_shape}. Bottom right: each head's output, "
        "{output_shape}. An arrow labelled merge_heads leads to the "
        "bottom left: the outputs side by side again, shape {merged_shape}, "
        "sequence 0 = {merged}; row 0 of each head's output is that head's value row 0, "
        "the only row position 0 may read. W_O then mixes the heads.").format(
        b=b, t=t, d=d, hs=hs, dh=dh, q_wide_shape=_shape(trace.q_wide.shape), parts=parts,
        q_wide=_mat(trace.q_wide[0]), block_shape=_shape(trace.q.shape[2:]), q_shape=_shape(trace.q.shape),
        last=last, row=row, q_row=_vec(q_row), c0=c0, c1=c1, weights_shape=_shape(trace.attention.weights.shape),
        output_shape=_shape(trace.attention.output.shape), merged_shape=_shape(trace.merged.shape),
        merged=_mat(trace.merged[0]))


@register(23, "Multi-head attention: split the width into heads, merge them back")
def build_fig23() -> Drawn:
    trace = multi_head()
    b, t, d = trace.q_wide.shape
    hs, dh = trace.heads, trace.d_h
    row = t - 1  # the last position reads every other, so its output mixes most
    w, h = CELL
    fig, ax = new_canvas(style.WIDTH, 4.55)
    art: dict[str, Artist] = {}
    wide_faces = [head_face(j // dh) for j in range(d)]
    lx, rx = 0.55, 3.85  # left and right column of panels
    gap = 0.2  # between the head blocks
    head_x = [rx + k * (dh * w + gap) for k in range(hs)]
    top, bottom = 0.95, 3.2
    # --- top: the wide queries, then split into heads
    art["heading.wide"] = add_heading(ax, 0.1, 0.22, f"Q = X·W_Q  {_shape(trace.q_wide.shape)}")
    art["note.wide"] = add_text(ax, 0.1, 0.5, "[B, T, d]: sequence 0 shown", size=NOTE_SIZE)
    art.update(draw_block(ax, trace.q_wide[0], at=(lx, top), faces=wide_faces, name="Qwide"))
    art["heading.split"] = add_heading(ax, rx, 0.22, f"Q per head  {_shape(trace.q.shape)}")
    art["note.split"] = add_text(ax, rx, 0.5, "[B, H, T, d_h]: sequence 0 shown", size=NOTE_SIZE)
    for k in range(hs):
        faces = [head_face(k)] * dh
        art.update(draw_block(ax, trace.q[0, k], at=(head_x[k], top), faces=faces, name=f"Q[{k}]",
                              rows=False))
        art[f"Q[{k}].label"] = add_text(ax, head_x[k] + dh * w / 2, top + t * h + 0.17,
                                        f"head {index_text(k)}", ha="center", size=LABEL_SIZE,
                                        weight="bold")
    for k in range(hs):
        c0, c1 = _head_columns(trace, k)
        art[f"Qwide.head[{k}]"] = add_text(ax, lx + (c0 + c1 + 1) * w / 2, top + t * h + 0.17,
                                           f"head {index_text(k)}", ha="center", size=LABEL_SIZE,
                                           weight="bold")
    mid = top + t * h / 2
    ends = (lx + d * w + 0.08, rx - 0.08)
    art["arrow.split"] = add_arrow(ax, (ends[0], mid), (ends[1], mid))
    art["label.split"] = add_text(ax, sum(ends) / 2, mid - 0.2, "split_heads",
                                  ha="center", size=SMALL_SIZE, family="monospace")
    # --- down: attention in each head
    for k in range(hs):
        cx = head_x[k] + dh * w / 2
        art[f"arrow.attend[{k}]"] = add_arrow(ax, (cx, top + t * h + 0.32), (cx, bottom - 0.62))
    art["label.attend"] = add_text(
        ax, rx - 0.1, (top + t * h + bottom) / 2 - 0.05,
        f"causal attention in each head on its own,\nwith that head's K and U (not drawn):\n"
        f"A {_shape(trace.attention.weights.shape)}",
        ha="right", size=NOTE_SIZE)
    # --- bottom: outputs per head, then merged
    art["heading.out"] = add_heading(ax, rx, bottom - 0.45, f"O per head  {_shape(trace.attention.output.shape)}")
    for k in range(hs):
        art.update(draw_block(ax, trace.attention.output[0, k], at=(head_x[k], bottom),
                              faces=[head_face(k)] * dh, name=f"O[{k}]", rows=False))
    art["heading.merged"] = add_heading(ax, 0.1, bottom - 0.45, f"merged  {_shape(trace.merged.shape)}")
    art.update(draw_block(ax, trace.merged[0], at=(lx, bottom), faces=wide_faces, name="merged"))
    mid = bottom + t * h / 2
    art["arrow.merge"] = add_arrow(ax, (ends[1], mid), (ends[0], mid))
    art["label.merge"] = add_text(ax, sum(ends) / 2, mid - 0.2, "merge_heads",
                                  ha="center", size=SMALL_SIZE, family="monospace")
    art["note.merged"] = add_text(ax, 0.1, bottom + t * h + 0.3,
                                  "[B, T, H·d_h]: W_O then mixes the heads", size=NOTE_SIZE)
    return Drawn(23, figure_title(23), fig, describe_heads(trace, row=row), art, trace)
