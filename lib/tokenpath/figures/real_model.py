"""Chapter 12's figures: SmolLM2-135M-Instruct run by the engine.

* 28, its next-token distribution after a prompt: chapter 11's next-token view
  (:func:`tokenpath.figures.trained_sampling.next_token_canvas`) drawn from
  :func:`tokenpath.lessons.real_model.next_token`, with top-k and top-p.
* 29, the logit lens (:func:`tokenpath.lessons.real_model.logit_lens`): the rank and the
  probability of the final answer token after every layer, and each layer's top token.
* 30, the induction heads (:mod:`tokenpath.lessons.real_model_heads`): every head's
  induction score, and what silencing the strongest one costs the second copy beside
  silencing heads drawn at random.

Colours keep their book-wide meaning: blue a probability, orange the token or head the
figure follows, grey the control.
"""

from __future__ import annotations

import numpy as np
from matplotlib.artist import Artist
from matplotlib.patches import Rectangle

from ..fmt import MINUS
from ..i18n import _
from ..lessons import real_model as R
from ..lessons import real_model_heads as RH
from . import Drawn, register, style
from .draw import check_trace
from .trained_attention import short
from .trained_sampling import _context, _top_words, next_token_canvas

__all__ = ["HEADS", "LENS", "NEXT", "build_heads", "build_lens", "build_next", "describe_next", "draw_heads",
           "draw_lens", "heads_alt", "lens_alt"]

NEXT, LENS, HEADS = 28, 29, 30
NEXT_TITLE = "SmolLM2's next-token distribution"
LENS_TITLE = "The logit lens on SmolLM2's 30 layers"
HEADS_TITLE = "SmolLM2's induction heads, tested by ablation"


# ---------------------------------------------------------------------- 28: next token

def settings_words(trace: R.RealNextToken) -> str:
    """:meth:`~tokenpath.lessons.real_model.RealNextToken.settings` in the reader's
    language (the figure's own state line stays as drawn): ``T = 1.00, no top-k, top-p
    1.00: 49,152 IDs possible``.
    """
    k = _("no top-k") if trace.top_k is None else _("top-k {k}").format(k=trace.top_k)
    said = (_("T = {t}, {k}, top-p {p}: {kept} ID possible") if trace.kept == 1
            else _("T = {t}, {k}, top-p {p}: {kept} IDs possible"))
    return said.format(t=f"{trace.temperature:.2f}", k=k, p=f"{trace.top_p:.2f}", kept=f"{trace.kept:,}")


def describe_next(trace: R.RealNextToken) -> str:
    """The real model's next-token view in words, with the numbers it shows."""
    trace = check_trace(trace, R.RealNextToken)
    return _("After {context} (prompt {prompt}) at {settings}: {top}. The most likely token is “{best}” with "
             "p = {p}; entropy {entropy} nats; {cover} tokens hold {share} % of the mass; {outside} lies outside "
             "the top {n}.").format(
        context=_context(trace), prompt=trace.prompt, settings=settings_words(trace), top=_top_words(trace, 3),
        best=short(trace.top_pieces[0]), p=f"{trace.greedy_prob:.2f}", entropy=f"{trace.entropy:.2f}",
        cover=f"{trace.cover:,}", share=f"{100 * trace.cover_share:.0f}", outside=f"{trace.outside:.2f}",
        n=trace.top.size)


@register(NEXT, NEXT_TITLE)
def build_next() -> Drawn:
    trace = R.next_token()
    fig, art = next_token_canvas(trace)
    alt = _("The next-token distribution of SmolLM2-135M-Instruct, computed by the book's engine from the Q4_1 "
            "file, after {context} at {settings}: bars for the {n} tokens with the largest logits, best first, with "
            "ticks at their probabilities at T = 1. The first three: {top}. The entropy of the whole distribution "
            "over {v} tokens is {entropy} nats; {cover} tokens hold {share} % of the mass; {outside} lies outside "
            "the bars.").format(
        context=_context(trace), settings=settings_words(trace), n=trace.top.size, top=_top_words(trace, 3),
        v=f"{trace.probs.size:,}", entropy=f"{trace.entropy:.2f}", cover=f"{trace.cover:,}",
        share=f"{100 * trace.cover_share:.0f}", outside=f"{trace.outside:.2f}")
    return Drawn(NEXT, NEXT_TITLE, fig, alt, art, trace)


# ---------------------------------------------------------------------- 29: the logit lens

def draw_lens(ax_rank, ax_prob, lens: R.LogitLens) -> dict[str, Artist]:
    """Top: the target's rank after every layer (log scale, 1 = the top token).
    Bottom: its probability (blue) and the top token's (grey), with the top token's text
    above each layer."""
    lens = check_trace(lens, R.LogitLens)
    x = np.arange(lens.layers + 1)
    art: dict[str, Artist] = {}
    (art["rank"],) = ax_rank.plot(x, lens.rank, color=style.QUERY, marker="o", ms=3, lw=1.2)
    ax_rank.set_yscale("log")
    ax_rank.set_ylabel(f"rank of “{short(lens.target_piece)}”\n(1 = top)")
    ax_rank.set_ylim(0.7, max(10.0, float(lens.rank.max()) * 2.5))
    ax_rank.set_xlim(-0.7, lens.layers + 0.7)
    ax_rank.tick_params(labelbottom=False)
    (art["prob"],) = ax_prob.plot(x, lens.prob, color=style.VISIBLE, marker="o", ms=3, lw=1.2,
                                  label=f"p(“{short(lens.target_piece)}”)")
    (art["top_prob"],) = ax_prob.plot(x, lens.top_probs, color=style.NEUTRAL, marker="s", ms=2.5, lw=0.8,
                                      label="p(top token)")
    ax_prob.set_ylim(0, 1.45)
    ax_prob.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
    ax_prob.set_xlim(-0.7, lens.layers + 0.7)
    ax_prob.set_xticks(range(0, lens.layers + 1, 5))
    ax_prob.set_xlabel("layers the residual stream has passed (0 = the embedding row alone)")
    ax_prob.set_ylabel("probability")
    for i in x:
        art[f"top[{i}]"] = ax_prob.text(i, 1.04, short(lens.top_pieces[i]), rotation=90, ha="center", va="bottom",
                                        fontsize=6.5, color=style.QUERY if lens.top_ids[i] == lens.target else style.INK)
    ax_prob.legend(loc="center left", frameon=False, fontsize=7.5)
    return art


def _signed(x: float) -> str:
    return f"{x:+.2f}".replace("-", MINUS)


def lens_alt(lens: R.LogitLens) -> str:
    """The lens figure in words, from the trace."""
    lens = check_trace(lens, R.LogitLens)
    first, n, mid = lens.first_top(), lens.layers, lens.layers // 2
    where = (_("it is never the top token") if first is None
             else _("it is the top token only after all {n} layers").format(n=n) if first == n
             else _("it is the top token from {first} layers on").format(first=first))
    return _("The logit lens of SmolLM2-135M-Instruct on “{text}”: at the last position, the residual stream after "
             "each of its {n} layers is put through the final RMSNorm and the tied head. The top panel draws the "
             "rank of “{target}”, the model's own next token (1 is the top), on a logarithmic axis: {r0} in the "
             "embedding row, {r_mid} after {mid} layers, {r3} after {n2}, {r2} after {n1} and {r1} after all {n}; "
             "{where}. The bottom panel draws its probability, {p2} after {n1} layers and {p1} after all {n}, beside "
             "the top token's, whose text is written along the top of the panel, one per layer, from the embedding "
             "row on: {tops}. The horizontal axis counts the layers passed, ticked at {ticks}; the probability axis "
             "at 0, 0.5 and 1 and the quarters between.").format(
        text=short(lens.text), n=n, target=short(lens.target_piece), r0=f"{int(lens.rank[0]):,}",
        r_mid=f"{int(lens.rank[mid]):,}", mid=mid, r3=f"{int(lens.rank[-3]):,}", n2=n - 2,
        r2=f"{int(lens.rank[-2]):,}", n1=n - 1, r1=f"{int(lens.rank[-1]):,}", where=where,
        p2=f"{lens.prob[-2]:.2f}", p1=f"{lens.prob[-1]:.2f}",
        tops=_(", ").join(f"“{short(p)}”" for p in lens.top_pieces),
        ticks=_(", ").join(str(t) for t in range(0, n + 1, 5)))


@register(LENS, LENS_TITLE)
def build_lens() -> Drawn:
    lens = R.logit_lens()
    fig = style.new_figure(style.WIDTH, 4.2)
    ax_rank, ax_prob = fig.subplots(2, 1, sharex=False, gridspec_kw={"height_ratios": [1, 1.3]})
    art = draw_lens(ax_rank, ax_prob, lens)
    ax_rank.set_title(f"Next token after “{short(lens.text)}”, read after every layer")
    fig.tight_layout()
    return Drawn(LENS, LENS_TITLE, fig, lens_alt(lens), art, lens)


# ---------------------------------------------------------------------- 30: induction heads

def draw_heads(ax_map, ax_cost, finding: RH.HeadFinding) -> dict[str, Artist]:
    """Left: every head's induction score, layers down, heads across, the strongest
    outlined. Right: the second copy's loss change with one head silenced, the strongest
    (orange) beside each control head (grey), and the first copy's change (hollow)."""
    if not isinstance(finding, RH.HeadFinding):
        raise TypeError(f"finding must be a HeadFinding, got {type(finding).__name__}")
    art: dict[str, Artist] = {}
    layers, heads = finding.score.shape
    art["map"] = ax_map.imshow(finding.score, cmap="Blues", vmin=0, vmax=1, aspect="auto")
    l, h = finding.top
    art["outline"] = ax_map.add_patch(Rectangle(
        (h - 0.5, l - 0.5), 1, 1, fill=False, edgecolor=style.QUERY, lw=2))
    ax_map.set_xticks(range(heads))
    ax_map.set_yticks(range(0, layers, 5))
    ax_map.set_xlabel("query head")
    ax_map.set_ylabel("layer")
    ax_map.set_title("induction score", fontsize=9)
    bar = ax_map.figure.colorbar(art["map"], ax=ax_map, fraction=0.08, pad=0.03)
    bar.ax.tick_params(labelsize=7)
    n = len(finding.control)
    ys = np.arange(n + 1)
    art["control"] = ax_cost.scatter(finding.control_second_delta, ys[1:], color=style.NEUTRAL, s=14,
                                     label="a random head: second copy")
    art["top"] = ax_cost.scatter([finding.top_second_delta], [0], color=style.QUERY, s=30,
                                 label=f"layer {l}, head {h}: second copy")
    art["first"] = ax_cost.scatter(np.r_[finding.top_first_delta, finding.control_first_delta], ys, facecolor="none",
                                   edgecolor=style.INK, s=14, lw=0.7, label="first copy")
    ax_cost.axvline(0, color=style.INK, lw=0.8)
    ax_cost.set_yticks([0, 1, n], [f"layer {l}, head {h}", "random head 1", f"random head {n}"], fontsize=7)
    ax_cost.set_ylim(n + 1, -1.5)
    ax_cost.set_xlabel("loss change with the head silenced (nats)")
    ax_cost.set_title("silenced alone", fontsize=9)
    ax_cost.legend(loc="lower right", frameon=False, fontsize=7)
    return art


def heads_alt(finding: RH.HeadFinding) -> str:
    """The heads figure in words, from the measurements."""
    l, h = finding.top
    (wl, wh), worst = finding.control_worst
    return _("Left: the induction score of each of SmolLM2's {layers} × {heads} query heads on repeated random "
             "tokens (the mean weight a token of the second copy puts on the token after its first occurrence), "
             "largest {score} at layer {l}, head {h}, outlined. Right: with that head silenced the loss of the second "
             "copy rises by {second} nats (from {second_loss}) and that of the first copy changes by {first}; each "
             "of {n} heads drawn at random, silenced alone, changes the second copy's loss by {low} to {high} nats, "
             "the most at layer {wl}, head {wh}. The map is ticked at the query heads {head_ticks} and at the "
             "layers {layer_ticks}; its colour scale runs from 0 to 1.").format(
        layers=finding.score.shape[0], heads=finding.score.shape[1], score=f"{finding.top_score:.2f}", l=l, h=h,
        second=f"{finding.top_second_delta:.2f}", second_loss=f"{finding.second_loss:.2f}",
        first=_signed(finding.top_first_delta), n=len(finding.control),
        low=_signed(finding.control_second_delta.min()), high=_signed(worst), wl=wl, wh=wh,
        head_ticks=_(", ").join(str(i) for i in range(finding.score.shape[1])),
        layer_ticks=_(", ").join(str(i) for i in range(0, finding.score.shape[0], 5)))


@register(HEADS, HEADS_TITLE)
def build_heads() -> Drawn:
    finding = RH.head_finding()
    fig = style.new_figure(style.WIDTH, 3.6)
    ax_map, ax_cost = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.25]})
    art = draw_heads(ax_map, ax_cost, finding)
    fig.tight_layout()
    return Drawn(HEADS, HEADS_TITLE, fig, heads_alt(finding), art, finding)
