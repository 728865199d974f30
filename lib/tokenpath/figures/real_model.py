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

def describe_next(trace: R.RealNextToken) -> str:
    """The real model's next-token view in words, with the numbers it shows."""
    trace = check_trace(trace, R.RealNextToken)
    return (f"After {_context(trace)} (prompt {trace.prompt}) at {trace.settings()}: {_top_words(trace, 3)}. "
            f"The most likely token is “{short(trace.top_pieces[0])}” with p = {trace.greedy_prob:.2f}; entropy "
            f"{trace.entropy:.2f} nats; {trace.cover:,} tokens hold {100 * trace.cover_share:.0f} % of the mass; "
            f"{trace.outside:.2f} lies outside the top {trace.top.size}.")


@register(NEXT, NEXT_TITLE)
def build_next() -> Drawn:
    trace = R.next_token()
    fig, art = next_token_canvas(trace)
    alt = (f"The next-token distribution of SmolLM2-135M-Instruct, computed by the book's engine from the Q4_1 file, "
           f"after {_context(trace)} at {trace.settings()}: bars for the {trace.top.size} tokens with the largest "
           f"logits, best first, with ticks at their probabilities at T = 1. The first three: "
           f"{_top_words(trace, 3)}. The entropy of the whole distribution over {trace.probs.size:,} tokens is "
           f"{trace.entropy:.2f} nats; {trace.cover:,} tokens hold {100 * trace.cover_share:.0f} % of the mass; "
           f"{trace.outside:.2f} lies outside the bars.")
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
    where = ("it is never the top token" if first is None else f"it is the top token only after all {n} layers"
             if first == n else f"it is the top token from {first} layers on")
    return (f"The logit lens of SmolLM2-135M-Instruct on “{short(lens.text)}”: at the last position, the residual "
            f"stream after each of its {n} layers is put through the final RMSNorm and the tied head. "
            f"The top panel draws the rank of “{short(lens.target_piece)}”, the model's own next token (1 is the "
            f"top), on a logarithmic axis: {int(lens.rank[0]):,} in the embedding row, {int(lens.rank[mid]):,} "
            f"after {mid} layers, {int(lens.rank[-3]):,} after {n - 2}, {int(lens.rank[-2]):,} after {n - 1} and "
            f"{int(lens.rank[-1]):,} after all {n}; {where}. The bottom panel draws its probability, "
            f"{lens.prob[-2]:.2f} after {n - 1} layers and {lens.prob[-1]:.2f} after all {n}, beside the top "
            f"token's, whose text is written along the top of the panel, one per layer, from the embedding row "
            f"on: "
            + ", ".join(f"“{short(p)}”" for p in lens.top_pieces) + ". The horizontal axis counts the layers "
            f"passed, ticked at " + ", ".join(str(t) for t in range(0, n + 1, 5)) + "; the probability axis at 0, "
            "0.5 and 1 and the quarters between.")


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
    return (f"Left: the induction score of each of SmolLM2's {finding.score.shape[0]} × {finding.score.shape[1]} "
            f"query heads on repeated random tokens (the mean weight a token of the second copy puts on the token "
            f"after its first occurrence), largest {finding.top_score:.2f} at layer {l}, head {h}, outlined. Right: "
            f"with that head silenced the loss of the second copy rises by {finding.top_second_delta:.2f} nats "
            f"(from {finding.second_loss:.2f}) and that of the first copy changes by {_signed(finding.top_first_delta)}; "
            f"each of {len(finding.control)} heads drawn at random, silenced alone, changes the second copy's loss "
            f"by {_signed(finding.control_second_delta.min())} to {_signed(worst)} nats, the most at layer {wl}, head {wh}. "
            f"The map is ticked at the query heads " + ", ".join(str(h) for h in range(finding.score.shape[1])) +
            " and at the layers " + ", ".join(str(l) for l in range(0, finding.score.shape[0], 5)) +
            "; its colour scale runs from 0 to 1.")


@register(HEADS, HEADS_TITLE)
def build_heads() -> Drawn:
    finding = RH.head_finding()
    fig = style.new_figure(style.WIDTH, 3.6)
    ax_map, ax_cost = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.25]})
    art = draw_heads(ax_map, ax_cost, finding)
    fig.tight_layout()
    return Drawn(HEADS, HEADS_TITLE, fig, heads_alt(finding), art, finding)
