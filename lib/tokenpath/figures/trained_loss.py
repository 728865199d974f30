"""The book's model learning: the training loss over the steps, the held-out loss of
every evaluation stream measured during training (points), and for each stream the best
count-based table on the same tokens (a dashed line of the stream's colour): the
5-gram with a cache, the strongest table section 11.4 compares with.

Drawn from the committed ``training.json`` (``loss_curve``, ``held_out_curve``) and
``stdlib-evidence.json`` (every table's loss per stream); nothing is recomputed here.
"""

from __future__ import annotations

import math

from matplotlib.artist import Artist

from .. import trained as T
from ..i18n import N_, _
from . import Drawn, register, style
from .draw import check_ax, figure_title

__all__ = ["STREAM_COLOURS", "best_baselines", "build_training_loss", "draw_loss", "loss_alt"]

#: One colour per evaluation stream (points and the stream's baseline line).
STREAM_COLOURS = {"stdlib code": style.VISIBLE, "stdlib data": style.NEUTRAL, "outside code": style.QUERY}
#: The tables, in the order stdlib-evidence.json lists them (the strongest is drawn).
BASELINES = ("unigram", "bigram", "trigram", "4-gram", "5-gram", "5-gram + cache")
NUMBER = 24
#: The streams' and tables' names, as the alt text says them.
NAMES = (N_("stdlib code"), N_("stdlib data"), N_("outside code"), N_("unigram"), N_("bigram"), N_("trigram"),
         N_("4-gram"), N_("5-gram"), N_("5-gram + cache"))
TITLE = "The book's model learning: training loss, held-out loss per stream, n-gram baselines"


def best_baselines(evaluation: dict) -> dict[str, tuple[str, float]]:
    """{stream: (name, loss) of its best table} from ``stdlib-evidence.json`` (each stream's
    ``tables``) or ``evaluation.json`` (the unigram to trigram tables only)."""
    if not isinstance(evaluation, dict) or not isinstance(evaluation.get("streams"), dict):
        raise TypeError("evaluation must be the dict read from stdlib-evidence.json or evaluation.json (with 'streams')")
    best = {}
    for name, row in evaluation["streams"].items():
        tables = row.get("tables", row)
        best[name] = min(((b, tables[b]) for b in BASELINES if b in tables), key=lambda t: t[1])
    return best


def draw_loss(ax, record: dict, evaluation: dict) -> dict[str, Artist]:
    """The training curve, the held-out points per stream and each stream's best table
    on ``ax``; returns the artists by name."""
    ax = check_ax(ax)
    T.check_record(record)
    best = best_baselines(evaluation)
    every = record["loss_curve"]["every"]
    ys = record["loss_curve"]["mean_train_loss"]
    xs = [every * (i + 1) for i in range(len(ys))]
    art: dict[str, Artist] = {}
    (art["train"],) = ax.plot(xs, ys, color=style.INK, lw=1.0, alpha=0.55,
                              label=f"training loss (mean of {every} steps)")
    steps = [row[0] for row in record["held_out_curve"]]
    for name, colour in STREAM_COLOURS.items():
        if name not in best:
            continue
        held = [row[1][name] for row in record["held_out_curve"]]
        (art[f"held {name}"],) = ax.plot(steps, held, ls="none", marker="o", ms=3.5, color=colour,
                                         label=f"held-out: {name}")
        table, value = best[name]
        art[f"best {name}"] = ax.axhline(value, color=colour, lw=1.0, ls="--",
                                         label=f"{table} table on {name}: {value:.2f}")
    ax.set_xlabel("training step")
    ax.set_ylabel("cross-entropy (nats per token)")
    top = max(max(ys[: max(1, len(ys) // 20)]), max(v for _, v in best.values()))
    ax.set_ylim(0, math.ceil(min(top, record["ln_vocab"])) + 0.5)
    ax.set_xlim(0, record["steps"])
    ax.legend(loc="upper right", frameon=False, fontsize=7.5)
    return art


def loss_alt(record: dict, evaluation: dict) -> str:
    """The alt text of the loss figure, from the training record and the measurements."""
    T.check_record(record)
    best = best_baselines(evaluation)
    ys = record["loss_curve"]["mean_train_loss"]
    last = record["held_out_curve"][-1][1]
    per_stream = _("; ").join(_("{stream} {loss} against the {table} table {table_loss}").format(
        stream=_(name), loss=f"{last[name]:.2f}", table=_(best[name][0]), table_loss=f"{best[name][1]:.2f}")
        for name in STREAM_COLOURS if name in last and name in best)
    turns = []
    for name in STREAM_COLOURS:
        points = [(step, row[name]) for step, row in record["held_out_curve"] if name in row]
        step, low = min(points, key=lambda p: p[1]) if points else (None, None)
        if points and step != points[-1][0]:
            turns.append(_("{stream} is lowest at step {step} ({low}) and ends at {last}").format(
                stream=_(name), step=f"{step:,}", low=f"{low:.2f}", last=f"{points[-1][1]:.2f}"))
    turn = _("; ").join(turns)
    turn = " " + _("{turns}.").format(turns=f"{turn[:1].upper()}{turn[1:]}") if turn else ""
    names = sorted({best[name][0] for name in STREAM_COLOURS if name in best})
    table = _("the {tables} table's loss on that stream").format(tables=_(" or ").join(_(n) for n in names))
    shown = [name for name in STREAM_COLOURS if name in last and name in best]
    below = sum(last[name] < best[name][1] for name in shown)
    verdict = " " + (_("The model ends below its table on all {n} streams.") if below == len(shown) else
                     _("The model ends below its table on {below} of {n} streams.")).format(below=below, n=len(shown))
    return _("Training loss of the book's model (the mean of every {every} steps) over {steps} steps, falling from "
             "{first} to {last} nats per token, with the held-out loss of three streams measured every {held} steps "
             "as points and, per stream, {table} as a dashed line. After the last step: {per_stream}.").format(
        every=record['loss_curve']['every'], steps=f"{record['steps']:,}", first=f"{ys[0]:.2f}",
        last=f"{ys[-1]:.2f}", held=record['held_out_curve'][0][0], table=table, per_stream=per_stream) + verdict + turn


@register(NUMBER, TITLE)
def build_training_loss() -> Drawn:
    record, evaluation = T.read_training(), T.read_evidence()
    fig = style.new_figure(style.WIDTH, 3.4)
    ax = fig.subplots()
    art = draw_loss(ax, record, evaluation)
    fig.tight_layout()
    trace = {"record": record, "baselines": best_baselines(evaluation)}
    return Drawn(NUMBER, figure_title(NUMBER), fig, loss_alt(record, evaluation) + " " + _axes_alt(ax), art, trace)


def _axes_alt(ax) -> str:
    """The axes in words: the tick values the figure prints, read from the axes."""
    def ticks(values, lims):
        lo, hi = min(lims), max(lims)
        return _(", ").join(f"{v:,.0f}" if float(v).is_integer() else f"{v:g}" for v in values if lo <= v <= hi)
    return _("The horizontal axis counts training steps, ticked at {x}; the vertical axis is nats per token, ticked "
             "at {y}.").format(x=ticks(ax.get_xticks(), ax.get_xlim()), y=ticks(ax.get_yticks(), ax.get_ylim()))
