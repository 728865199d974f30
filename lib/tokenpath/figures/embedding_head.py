"""Figures 5 and 6: the output side of the embedding chapter.

* Figure 5 shows softmax over a two-candidate vocabulary, and sampling from it;
  :func:`update_sampling` moves the bottom row for the temperature widget.
* Figure 6 shows ``‖∂L/∂E[v]‖`` per row through the input lookup and through the
  output classifier of a tied matrix.

IDs becoming rows and one decoder layer (figures 3 and 4) are in
:mod:`tokenpath.figures.embedding`. Colours keep their book-wide meaning
(:mod:`tokenpath.figures.style`); in figure 6, blue = the input path, green = the
output path.
"""

from __future__ import annotations

import functools

import numpy as np
from matplotlib.artist import Artist

from .. import examples as ex
from ..lessons import embedding as lessons
from .. import fmt
from ..i18n import _
from ..lessons.embedding import SamplingTrace, TiedGradient
from . import Drawn, register, style
from .draw import MINUS, NOTE_SIZE, SMALL_SIZE, check_ax, check_trace, figure_title, vec_text

__all__ = [
    "build_fig05",
    "build_fig06",
    "describe_sampling",
    "draw_gradient_rows",
    "draw_probability_bars",
    "draw_sampling",
    "update_sampling",
]


def _n(x, digits: int | None = None) -> str:
    """One number with a true minus sign; with ``digits``, always that many decimals."""
    return fmt.num(x, digits, minus=MINUS)


def _logit_text(z) -> str:
    cells = []
    for v in z:
        k = round(float(v) - np.log(3), 9)
        if k == 0:
            cells.append("log 3")
        elif float(v) != 0 and round(float(v) - np.log(3) - round(float(v) - np.log(3)), 9) == 0:
            cells.append(f"{_n(round(float(v) - np.log(3)))} + log 3")
        else:
            cells.append(_n(v))
    return "logits [" + ", ".join(cells) + "]"


def _update_bars(art: dict, trace: SamplingTrace) -> None:
    for bar, label, p in zip(art["bars"], art["labels"], trace.probs):
        bar.set_height(p)
        label.set_y(p + 0.03)
        label.set_text(_n(p, 2))
    art["logits"].set_text(_logit_text(trace.logits))


def draw_probability_bars(ax, trace: SamplingTrace, *, title: str) -> dict[str, Artist]:
    """Two probability bars (IDs 0 and 1) with their values, the logits under the axis."""
    ax = check_ax(ax)
    trace = check_trace(trace, SamplingTrace)
    ids = np.arange(trace.probs.size)
    art: dict[str, Artist] = {}
    art["bars"] = ax.bar(ids, trace.probs, width=0.6, color=[style.VISIBLE, style.CACHE][: ids.size] * 1,
                         edgecolor=style.INK, linewidth=0.6)
    art["labels"] = [ax.text(i, p + 0.03, _n(p, 2), ha="center", va="bottom", fontsize=NOTE_SIZE)
                     for i, p in zip(ids, trace.probs)]
    ax.set_ylim(0, 1.12)
    ax.set_xlim(-0.6, ids.size - 0.4)
    ax.set_xticks(ids, [f"ID {i}" for i in ids])
    ax.set_yticks([0, 0.5, 1], ["0", "0.5", "1"])
    art["title"] = ax.set_title(title, fontsize=10)
    art["logits"] = ax.text(0.5, -0.33, "", transform=ax.transAxes, ha="center", va="top", fontsize=SMALL_SIZE)
    _update_bars(art, trace)
    return art


def _update_counts(art: dict, trace: SamplingTrace) -> None:
    n = trace.draws.size
    for bar, label, c in zip(art["bars"], art["labels"], trace.counts):
        bar.set_height(c)
        label.set_y(c + 0.03 * n)
        label.set_text(str(int(c)))
    art["title"].set_text(f"{n:,} seeded draws")


def draw_sampling(ax, trace: SamplingTrace) -> dict[str, Artist]:
    """Counts of the seeded draws per ID, on a fixed 0 … n scale."""
    ax = check_ax(ax)
    trace = check_trace(trace, SamplingTrace)
    ids = np.arange(trace.probs.size)
    n = trace.draws.size
    art: dict[str, Artist] = {}
    art["bars"] = ax.bar(ids, trace.counts, width=0.6, color=style.ACCENT, edgecolor=style.INK, linewidth=0.6)
    art["labels"] = [ax.text(i, c, "", ha="center", va="bottom", fontsize=NOTE_SIZE)
                     for i, c in zip(ids, trace.counts)]
    ax.set_ylim(0, 1.12 * n)
    ax.set_xlim(-0.6, ids.size - 0.4)
    ax.set_xticks(ids, [f"ID {i}" for i in ids])
    ax.set_yticks([0, n // 2, n], [str(0), f"{n // 2}", f"{n}"])
    art["title"] = ax.set_title("", fontsize=10)
    _update_counts(art, trace)
    return art


def _tau(trace: SamplingTrace) -> str:
    return "τ = 0 (greedy)" if trace.temperature == 0 else f"τ = {_n(trace.temperature)}"


def update_sampling(art: dict, trace: SamplingTrace) -> None:
    """Move figure 5's bottom row (``sample.*``) to ``trace`` (a new temperature)."""
    trace = check_trace(trace, SamplingTrace)
    probs = {k[len("sample.probs."):]: v for k, v in art.items() if k.startswith("sample.probs.")}
    counts = {k[len("sample.counts."):]: v for k, v in art.items() if k.startswith("sample.counts.")}
    _update_bars(probs, trace)
    # τ = 0 is the limit of softmax(logits / τ), greedy decoding, which the line under
    # the panel names; "at τ = 0 (greedy)" would not fit above the panel
    probs["title"].set_text("softmax(logits / τ) as τ → 0" if trace.temperature == 0
                            else f"softmax(logits / τ) at {_tau(trace)}")
    _update_counts(counts, trace)
    art["sample.logits_over_tau"].set_text(
        "logits / τ = " + ("greedy: all mass on the larger logit" if trace.temperature == 0
                           else vec_text(trace.logits / trace.temperature, 3))
    )


def describe_sampling(trace: SamplingTrace) -> str:
    """Figure 5's bottom row in words.

    >>> print(describe_sampling(lessons.sampling_trace(ex.FIG5_GAP, 1.0)))
    At τ = 1 the logits [log 3, 0] give the probabilities [0.75, 0.25]; 1,000 seeded draws picked ID 0 752 times and ID 1 248 times. The drawn ID goes back into the lookup as the next input.
    """
    trace = check_trace(trace, SamplingTrace)
    times = [_("ID {id} {count} times").format(id=i, count=int(c)) for i, c in enumerate(trace.counts)]
    counts = functools.reduce(lambda a, b: _("{first} and {second}").format(first=a, second=b), times)
    tau = _("τ = 0 (greedy)") if trace.temperature == 0 else f"τ = {_n(trace.temperature)}"
    return _("At {tau} the logits {logits} give the probabilities {probs}; {draws} seeded draws picked {counts}. "
             "The drawn ID goes back into the lookup as the next input.").format(
        tau=tau, logits=_logit_text(trace.logits).removeprefix("logits "), probs=fmt.vec(trace.probs, 2),
        draws=f"{trace.draws.size:,}", counts=counts)


#: Figure-5 layout: axes rectangles in inches (x, y from the bottom, width, height).
_F5_W, _F5_H = style.WIDTH, 5.3
_F5_TOP = [(0.55 + k * 2.25, 3.2, 1.6, 1.25) for k in range(3)]
_F5_BOTTOM = [(0.55, 0.8, 1.6, 1.25), (2.8, 0.8, 1.6, 1.25)]


def _axes(fig, box):
    x, y, w, h = box
    return fig.add_axes((x / _F5_W, y / _F5_H, w / _F5_W, h / _F5_H))


@register(5, "Logits, softmax over the vocabulary, and the next ID")
def build_fig05() -> Drawn:
    panels = lessons.logit_panels(ex.FIG5_TEMPERATURE)
    fig = style.new_figure(_F5_W, _F5_H)
    art: dict[str, Artist] = {}
    for box, (name, trace, title) in zip(_F5_TOP, (
        ("equal", panels.equal, "equal logits"),
        ("gap", panels.gap, "gap log 3"),
        ("shifted", panels.shifted, f"+{_n(panels.shift)} on both"),
    )):
        ax = _axes(fig, box)
        art.update({f"{name}.{k}": v for k, v in draw_probability_bars(ax, trace, title=title).items()})
    fig.text(0.08 / _F5_W, 1 - 0.2 / _F5_H, "Two candidates, one position: softmax over the vocabulary axis",
             fontsize=11, weight="bold", va="center")
    fig.text(0.08 / _F5_W, 1 - 0.45 / _F5_H,
             "an independent two-entry teaching vocabulary (IDs 0, 1); bar height = probability, not logit",
             fontsize=SMALL_SIZE, va="center", color="#333333")
    fig.text(0.08 / _F5_W, 2.5 / _F5_H, "Sampling, then feeding the ID back", fontsize=11, weight="bold",
             va="center")
    sample = panels.gap
    pa = _axes(fig, _F5_BOTTOM[0])
    art.update({f"sample.probs.{k}": v for k, v in draw_probability_bars(pa, sample, title="").items()})
    ca = _axes(fig, _F5_BOTTOM[1])
    art.update({f"sample.counts.{k}": v for k, v in draw_sampling(ca, sample).items()})
    art["sample.logits_over_tau"] = fig.text(1.35 / _F5_W, 0.12 / _F5_H, "", fontsize=SMALL_SIZE,
                                             va="center", ha="center")
    # the loop: the drawn ID is looked up again
    fig.text(4.9 / _F5_W, 1.6 / _F5_H,
             "drawn ID v\n   ↓\nnext input = E[v, :]\n(a row of the table)\n   ↓\nlayers → logits → …",
             fontsize=NOTE_SIZE, va="center", linespacing=1.35)
    fig.text(4.9 / _F5_W, 0.4 / _F5_H,
             "The hidden vector is not fed back,\nand no nearest row of E is searched.",
             fontsize=SMALL_SIZE, va="center", color="#333333", linespacing=1.3)
    update_sampling(art, sample)
    alt = _("Three bar charts over IDs 0 and 1: equal logits give {equal}; logits [log 3, 0] give {gap}; adding "
            "{shift} to both logits gives {shifted} again. Below: {sampling}").format(
        equal=fmt.vec(panels.equal.probs, 2), gap=fmt.vec(panels.gap.probs, 2), shift=_n(panels.shift),
        shifted=fmt.vec(panels.shifted.probs, 2), sampling=describe_sampling(sample))
    return Drawn(5, figure_title(5), fig, alt, art, panels)


# =========================================================================== fig 6


def draw_gradient_rows(ax, trace: TiedGradient, rows: int) -> dict[str, Artist]:
    """‖∂L/∂E[v]‖ for rows ``0 … rows−1``, input path beside output path, log scale;
    a row with exactly zero gradient on a path is marked 0 at the axis."""
    ax = check_ax(ax)
    trace = check_trace(trace, TiedGradient)
    v = np.arange(rows)
    ni, no = trace.norms_input[:rows], trace.norms_output[:rows]
    floor = 10.0 ** np.floor(np.log10(no[no > 0].min() / 3))
    art: dict[str, Artist] = {}
    w = 0.38
    art["input"] = ax.bar(v - w / 2, np.where(ni > 0, ni, np.nan), width=w, bottom=0, color=style.VISIBLE,
                          label="input lookup X = E[x]")
    art["output"] = ax.bar(v + w / 2, no, width=w, color=style.VALUE, label="output classifier Z = X Eᵀ")
    for k in np.flatnonzero(ni == 0):
        ax.text(v[k] - w / 2, floor * 1.25, "0", ha="center", va="bottom", fontsize=SMALL_SIZE - 1,
                color=style.VISIBLE)
    ax.set_yscale("log")
    ax.set_ylim(floor, 1.0)
    ax.set_xlim(-0.6, rows - 0.4)
    ax.set_xticks(v, [str(i) for i in v])
    ax.set_xlabel("row v of E (= token ID)")
    ax.set_ylabel("‖∂L/∂E[v]‖")
    x_ids = set(trace.inputs.ravel().tolist())
    y_ids = set(trace.targets.ravel().tolist())
    for tick, i in zip(ax.get_xticklabels(), v):
        if i in x_ids:
            tick.set_color(style.VISIBLE)
            tick.set_fontweight("bold")
        elif i in y_ids:
            tick.set_color(style.VALUE)
            tick.set_fontweight("bold")
    art["legend"] = ax.legend(loc="upper right", ncols=2, fontsize=SMALL_SIZE)
    return art


@register(6, "Two gradient paths into one tied matrix")
def build_fig06() -> Drawn:
    trace = lessons.tied_gradient()
    fig = style.new_figure(style.WIDTH, 4.6)
    art: dict[str, Artist] = {}
    v = trace.grad.shape[0]
    ri, ro = trace.rows_input, trace.rows_output
    x, y = trace.inputs, trace.targets
    fig.text(0.012, 0.955, "W_out = Eᵀ: one matrix, used twice", fontsize=11, weight="bold", va="center")
    art["paths"] = fig.text(
        0.012, 0.84,
        f"inputs x = {fmt.vec(x)}, targets y = {fmt.vec(y)}, loss = mean cross-entropy = {_n(trace.loss.loss, 4)}\n"
        f"input path (blue): only the rows that were read, IDs {', '.join(map(str, ri))}: "
        f"{ri.size} of {v:,} rows\n"
        f"output path (green): softmax over all {v:,} IDs sends gradient to {ro.size:,} of {v:,} rows "
        "(ID 9 is only a target)",
        fontsize=NOTE_SIZE, va="center", linespacing=1.45,
    )
    ax = fig.add_axes((0.1, 0.14, 0.87, 0.55))
    art.update(draw_gradient_rows(ax, trace, ex.FIG6_ROWS_SHOWN))
    alt = _("Bar chart of the gradient norm of rows 0–{last} of a tied E for x = {x}, y = {y}, log scale. The "
            "input lookup sends gradient only to rows {rows_in} ({n_in} of {v}); the output classifier sends "
            "gradient to {n_out} of {v} rows, largest at the target rows {targets}.").format(
        last=ex.FIG6_ROWS_SHOWN - 1, x=fmt.vec(x), y=fmt.vec(y), rows_in=", ".join(map(str, ri)), n_in=ri.size,
        v=f"{v:,}", n_out=f"{ro.size:,}", targets=", ".join(map(str, sorted(set(y.tolist())))))
    return Drawn(6, figure_title(6), fig, alt, art, trace)
