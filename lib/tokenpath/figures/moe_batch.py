"""Figure 22: a batch of tokens routed together. Each token runs its own top-k; the
batch uses the union of their choices, each expert carries a load, and a capacity
limit drops the assignments beyond it. Below, what a layer stores against what one
token runs (parameter counts, not latency).

The routing record is laid out on one canvas axes in inch units (y grows downwards);
:func:`draw_batch` returns its artists by name and :func:`update_batch` (with the
heading, :func:`update_fig22`) moves them to another batch in place, for the
candidate picker of :mod:`tokenpath.widgets.moe`. Colours
(:mod:`tokenpath.figures.style`): green = an expert the token runs, orange = what the
batch uses, vermilion = an assignment the capacity limit drops.
"""

from __future__ import annotations

import numpy as np
from matplotlib.artist import Artist

from .. import examples as ex
from .. import moe_dispatch
from ..i18n import _
from . import Drawn, register, style
from .draw import (BLOCKED_FACE, LIGHT_FACE, NOTE_SIZE, QUERY_FACE, SMALL_SIZE, SUM_FACE,
                   TABLE_SIZE, VALUE_FACE, add_cell, add_heading, add_outline, add_text, check_at,
                   check_ax, check_trace, figure_title, id_set_text, new_canvas, num_text, vec_text)

__all__ = [
    "build_fig22",
    "describe_batch",
    "draw_batch",
    "fig22_trace",
    "update_batch",
    "update_fig22",
]


def fig22_trace(candidate: int = len(ex.FIG22_CANDIDATES) - 1) -> moe_dispatch.BatchRoute:
    """Figure 22's batch: token 0 of figure 20 and the second token ``candidate`` of
    :data:`~tokenpath.examples.FIG22_CANDIDATES` (the last is figure 22's token 1),
    top-2, with the capacity limit :data:`~tokenpath.examples.FIG22_CAPACITY`.

    >>> fig22_trace().experts_used.tolist()
    [0, 1, 2, 3]
    """
    if isinstance(candidate, bool) or not isinstance(candidate, (int, np.integer)) or not (
        0 <= candidate < len(ex.FIG22_CANDIDATES)
    ):
        raise ValueError(f"candidate must be an index in [0, {len(ex.FIG22_CANDIDATES) - 1}], got {candidate!r}")
    scores = np.vstack([ex.FIG22_SCORES[0], ex.FIG22_CANDIDATES[candidate]])
    return moe_dispatch.route_batch(scores, ex.FIG22_K, capacity=ex.FIG22_CAPACITY)


def _expert_parameters() -> moe_dispatch.ExpertParameters:
    return moe_dispatch.expert_parameters(ex.MOE_EXPERTS, ex.MOE_EXPERT_PARAMS, ex.MOE_K)


def _batch_geometry(at):
    x0, y0 = at
    return dict(label_x=x0 + 1.55, cx=x0 + 1.65, col=0.95, pitch=1.02, y=y0 + 0.32, row=0.5, gap=0.08)


_BATCH_ROWS = ("token[0]", "token[1]", "used", "load", "kept")


def update_batch(artists: dict, trace: moe_dispatch.BatchRoute) -> None:
    """Move :func:`draw_batch`'s artists to ``trace`` in place."""
    trace = check_trace(trace, moe_dispatch.BatchRoute)
    r = trace.route
    n_e = r.n_experts
    for n in range(2):
        key = f"token[{n}]"
        for j in range(n_e):
            on = bool(r.mask[n, j])
            artists[f"{key}.cell[{j}]"].set_facecolor(VALUE_FACE if on else "white")
            artists[f"{key}[{j}]"].set_text(f"g = {num_text(r.gates[n, j], 3)}" if on else "not run")
            artists[f"{key}[{j}]"].set_color(style.INK if on else style.NEUTRAL)
            artists[f"{key}[{j}]"].set_weight("bold" if on else "normal")
            artists[f"{key}.score[{j}]"].set_text(f"a = {num_text(r.scores[n, j])}")
        artists[f"{key}.side"].set_text(f"runs {id_set_text(r.chosen[n])}: k = {r.k}")
    used, load, kept = trace.used.any(axis=0), trace.load, trace.kept_load
    for j in range(n_e):
        artists[f"used.cell[{j}]"].set_facecolor(QUERY_FACE if used[j] else LIGHT_FACE)
        artists[f"used[{j}]"].set_text("yes" if used[j] else "no")
        artists[f"load[{j}]"].set_text(str(int(load[j])))
        over = kept[j] < load[j]
        artists[f"kept.cell[{j}]"].set_facecolor(BLOCKED_FACE if over else "white")
        artists[f"kept[{j}]"].set_text(str(int(kept[j])) + (f" ({int(load[j] - kept[j])} dropped)" if over else ""))
        artists[f"kept[{j}]"].set_fontsize(TABLE_SIZE - 0.5 if not over else SMALL_SIZE - 0.5)
    artists["used.side"].set_text(f"{trace.experts_used.size} experts used")
    artists["load.side"].set_text(f"{int(load.sum())} assignments")
    dropped = trace.dropped
    artists["kept.side"].set_text(
        "nothing dropped" if not dropped else
        "dropped:\n" + "\n".join(f"token {n} at expert {i}" for n, i in dropped))
    artists["kept.side"].set_fontsize(NOTE_SIZE if not dropped else SMALL_SIZE)


def draw_batch(ax, trace: moe_dispatch.BatchRoute, *, at=(0.0, 0.0)) -> dict[str, Artist]:
    """Figure 22's routing record: one row per token (column = expert ID; a green cell
    = the token runs that expert, with its gate g; the score a is in every cell), then the
    batch's use of each expert, the load, and what the capacity limit keeps."""
    ax = check_ax(ax)
    trace = check_trace(trace, moe_dispatch.BatchRoute)
    if trace.route.scores.shape[0] != 2:
        raise ValueError(f"trace must route two tokens, got {trace.route.scores.shape[0]}")
    x0, y0 = check_at(at)
    g = _batch_geometry((x0, y0))
    n_e = trace.route.n_experts
    art: dict[str, Artist] = {}
    art["head.label"] = add_text(ax, g["label_x"], g["y"] - 0.18, "expert ID", ha="right", size=NOTE_SIZE,
                                 style="italic")
    for j in range(n_e):
        art[f"head[{j}]"] = add_text(ax, g["cx"] + j * g["pitch"] + g["col"] / 2, g["y"] - 0.18, str(j),
                                     ha="center", size=NOTE_SIZE + 0.5, weight="bold")
    labels = {"token[0]": "token 0", "token[1]": "token 1", "used": "batch uses?",
              "load": "load (tokens)", "kept": f"kept, capacity {trace.capacity}"}
    side_x = g["cx"] + (n_e - 1) * g["pitch"] + g["col"] + 0.15
    for r_, key in enumerate(_BATCH_ROWS):
        y = g["y"] + r_ * (g["row"] + g["gap"]) + (0.18 if r_ >= 2 else 0.0)
        art[f"{key}.label"] = add_text(ax, g["label_x"], y + g["row"] / 2, labels[key], ha="right", size=NOTE_SIZE)
        for j in range(n_e):
            rect, txt = add_cell(ax, g["cx"] + j * g["pitch"], y, g["col"], g["row"], "", size=TABLE_SIZE - 0.5,
                                 dy=-0.07 if key.startswith("token") else 0.0)
            art[f"{key}.cell[{j}]"] = rect
            art[f"{key}[{j}]"] = txt
            if key.startswith("token"):
                art[f"{key}.score[{j}]"] = add_text(ax, g["cx"] + j * g["pitch"] + g["col"] / 2, y + g["row"] / 2 + 0.13,
                                                    "", ha="center", size=SMALL_SIZE - 0.5, color="#333333")
        art[f"{key}.side"] = add_text(ax, side_x, y + g["row"] / 2, "", size=NOTE_SIZE, linespacing=1.15)
    update_batch(art, trace)
    return art


def describe_batch(trace: moe_dispatch.BatchRoute) -> str:
    """Figure 22's state in words, every number from ``trace``.

    >>> print(describe_batch(fig22_trace()))
    Token 0 (scores [2, 1, 0, −1]) runs experts {0, 1}; token 1 (scores [−1, 0, 1, 2]) runs experts {2, 3}. Each runs k = 2, and the batch uses 4 experts: {0, 1, 2, 3}. Load per expert [1, 1, 1, 1]; with a capacity of 1 token per expert nothing is dropped.
    """
    trace = check_trace(trace, moe_dispatch.BatchRoute)
    r = trace.route
    tokens = _("; ").join(_("token {n} (scores {scores}) runs experts {chosen}").format(
        n=n, scores=vec_text(r.scores[n]), chosen=id_set_text(r.chosen[n])) for n in range(r.scores.shape[0]))
    drops = (_("nothing is dropped") if not trace.dropped else
             _("it drops {drops}").format(drops=", ".join(
                 _("token {n} at expert {i}").format(n=n, i=i) for n, i in trace.dropped)))
    cap = (_("with a capacity of {capacity} token per expert {drops}").format(capacity=trace.capacity, drops=drops)
           if trace.capacity is not None else _("no capacity limit"))
    return _("{tokens}. Each runs k = {k}, and the batch uses {used} experts: {ids}. Load per expert {load}; "
             "{cap}.").format(tokens=f"{tokens[0].upper()}{tokens[1:]}", k=r.k, used=trace.experts_used.size,
                              ids=id_set_text(trace.experts_used), load=vec_text(trace.load), cap=cap)


def _fig22_heading(trace: moe_dispatch.BatchRoute) -> str:
    return f"Each token runs {trace.route.k} experts; together they use {trace.experts_used.size}"


def update_fig22(artists: dict, trace: moe_dispatch.BatchRoute) -> None:
    """Move figure 22's routing record and heading to ``trace`` in place (the capacity
    arithmetic below does not depend on the batch)."""
    update_batch(artists, trace)
    artists["heading"].set_text(_fig22_heading(trace))


@register(22, "Per-token choice, batch use, and what is stored")
def build_fig22() -> Drawn:
    trace = fig22_trace()
    cap = _expert_parameters()
    fig, ax = new_canvas(style.WIDTH, 5.0)
    art: dict[str, Artist] = {}
    art["heading"] = add_heading(ax, 0.15, 0.2, _fig22_heading(trace))
    art.update(draw_batch(ax, trace, at=(0.0, 0.45)))
    y = 4.0
    box_h = 0.85
    art["params.box"] = add_cell(ax, 0.15, y, style.WIDTH - 0.3, box_h, "", face=SUM_FACE, edge=style.NEUTRAL)[0]
    art["params.head"] = add_text(ax, 0.3, y + 0.18, "Stored and active parameters (a separate setting): "
                                  "element counts, not latency", size=NOTE_SIZE, weight="bold")
    p = moe_dispatch.count_text(cap.params_per_expert)
    art["params.stored"] = add_text(
        ax, 0.3, y + 0.45,
        f"stored: {cap.n_experts} experts × {p} = {moe_dispatch.count_text(cap.stored)}     "
        f"run per token: {cap.k} × {p} = {moe_dispatch.count_text(cap.active)}", size=NOTE_SIZE + 0.5)
    art["params.shared"] = add_text(ax, 0.3, y + 0.69, "plus shared parts: attention, norms, router, output head, "
                                   "embeddings (one row per token)", size=SMALL_SIZE + 0.5, color="#333333")
    used = art["used.cell[0]"]
    n_e = trace.route.n_experts
    last = art[f"used.cell[{n_e - 1}]"]
    art["outline.used"] = add_outline(ax, used.get_x(), used.get_y(), last.get_x() + last.get_width() - used.get_x(),
                                      used.get_height(), color=style.QUERY, lw=1.8)
    alt = _(
        "A routing record with one row per token and one column per expert ID; a cell says whether the token "
        "runs that expert. {state} Below, a separate setting: {n} experts × {p} = {stored} parameters stored, "
        "{k} × {p} = {active} run per token, plus shared parts."
    ).format(state=describe_batch(trace), n=cap.n_experts, p=p, stored=moe_dispatch.count_text(cap.stored), k=cap.k,
             active=moe_dispatch.count_text(cap.active))
    return Drawn(22, figure_title(22), fig, alt, art, (trace, cap))
