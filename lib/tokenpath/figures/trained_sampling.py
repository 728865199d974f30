"""The next-token distribution of the book's trained model after a prompt.

Drawn from :func:`tokenpath.trained.next_token`: the candidates with the largest logits
as bars of softmax(logits / T), best first, with the T = 1 probability of each marked by
a black tick, the text the model has read above them, and beside them the numbers of the
whole distribution (greedy token, entropy, tokens covering 90 % of the mass, mass
outside the bars). :func:`update_next_token` moves the artists in place for
:func:`tokenpath.widgets.trained_sampling.next_token`.

Colours keep their book-wide meaning (:mod:`tokenpath.figures.style`): blue = a
probability, orange = the token greedy decoding picks.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.artist import Artist
from matplotlib.patches import Rectangle
from matplotlib.transforms import blended_transform_factory

from .. import examples as ex
from .. import trained as T
from ..i18n import _
from . import Drawn, register, style
from .draw import add_text, check_ax, check_trace, figure_title, fit_lines, new_canvas
from .trained_attention import short

__all__ = ["NUMBER", "build_next_token", "describe_next_token", "draw_candidates", "draw_next_notes", "next_token_canvas",
           "short", "state_line", "update_next_token"]

NOTE_SIZE = 8.5
TICK_SIZE = 8
#: A bar's thickness, as a share of its row.
BAR_HEIGHT = 0.7
#: The x range of the bars: probabilities up to 1, then the column of their values
#: (right-aligned at the end of the range, clear of the bars from VALUES_X on).
XMAX = 1.18
VALUES_X = 1.05
#: The title's left end (inches; it keeps the same margin at the right), and the height
#: of its middle: of one line, and of two, set solid (line spacing 1: the font's ascent
#: and descent without its line gap), whose second line must end above the state line's
#: band (a widget redraws that band on its own).
TITLE_X, TITLE_Y, TITLE_Y2 = 0.15, 0.22, 0.19


def _context(trace: T.NextToken) -> str:
    """The text the model has read, spaces visible; the greedy steps after a bar."""
    prompt = short("".join(trace.pieces[: trace.prompt_tokens]))
    steps = short("".join(trace.pieces[trace.prompt_tokens:]))
    return f"“{prompt}" + (f"│{steps}”" if steps else "”")


def _title(trace: T.NextToken) -> str:
    """The figure's title: the text the model has read, on as many as two lines of the
    canvas's width (broken after a space or a line break ↵ of the code); a text longer
    still loses its start, so what the next token follows always shows."""
    return fit_lines(f"Next token after {_context(trace)}", style.WIDTH - 2 * TITLE_X,
                     size=style.RC["axes.titlesize"], weight="bold", lines=2)


def _temperature(trace: T.NextToken) -> str:
    return f"T = {trace.temperature:.2f}"


def draw_candidates(ax, trace: T.NextToken) -> dict[str, Artist]:
    """The top candidates as horizontal bars of their probability at T, best on top (the
    greedy one in orange), each with its text and, in a column at the right, its value, and a black tick at its
    T = 1 probability."""
    ax = check_ax(ax)
    trace = check_trace(trace, T.NextToken)
    k = trace.top.size
    ax.set_xlim(0.0, XMAX)
    ax.set_ylim(k - 0.5, -0.5)
    ax.set_xticks([0.0, 0.25, 0.5, 0.75, 1.0], ["0", "0.25", "0.5", "0.75", "1"], fontsize=TICK_SIZE)
    ax.set_yticks([])
    ax.set_xlabel("probability of the next token")
    for name in ("top", "right", "left"):
        ax.spines[name].set_visible(False)
    ax.axvline(0.0, color=style.INK, lw=0.8, zorder=0.5)  # the zero line, under the bars
    # each bar is a thick line with square ends (BAR_HEIGHT of a row): a line's look is its
    # data, so a widget redraws a row exactly when its bar moves
    row_pt = ax.get_position().height * ax.figure.get_figheight() * 72 / k
    art: dict[str, Artist] = {}
    left = blended_transform_factory(ax.transAxes, ax.transData)
    for r in range(k):
        (art[f"bar[{r}]"],) = ax.plot([0.0, 0.0], [r, r], lw=BAR_HEIGHT * row_pt, solid_capstyle="butt",
                                      color=style.QUERY if r == 0 else style.VISIBLE, zorder=2)
        (art[f"t1[{r}]"],) = ax.plot([0.0], [r], ls="none", marker="|", ms=11, mew=1.8, color=style.INK, zorder=4)
        art[f"piece[{r}]"] = ax.text(-0.02, r, "", transform=left, ha="right", va="center", fontsize=TICK_SIZE + 1)
        art[f"value[{r}]"] = ax.text(XMAX, r, "", ha="right", va="center", fontsize=TICK_SIZE)
    _move_candidates(art, trace)
    return art


def _move_candidates(art: dict, trace: T.NextToken) -> None:
    p, p1 = trace.top_probs, trace.top_probs_t1
    for r in range(trace.top.size):
        art[f"bar[{r}]"].set_xdata([0.0, float(p[r])])
        art[f"t1[{r}]"].set_xdata([float(p1[r])])
        art[f"piece[{r}]"].set_text(f"“{short(trace.top_pieces[r])}”")
        art[f"value[{r}]"].set_text(f"{p[r]:.2f}")


def _notes(trace: T.NextToken) -> str:
    pct = f"{100 * trace.cover_share:.0f} %"
    v = trace.probs.size
    return "\n".join([
        f"greedy picks “{short(trace.top_pieces[0])}”",
        f"   with p = {trace.greedy_prob:.2f}",
        f"entropy: {trace.entropy:.2f} nats",
        f"   (uniform over {v:,}: ln V = {math.log(v):.2f})",
        f"{pct} of the mass: {trace.cover:,} token" + ("" if trace.cover == 1 else "s"),
        f"outside the {trace.top.size} bars: {trace.outside:.2f}",
    ])


def draw_next_notes(ax, trace: T.NextToken, x: float, y: float) -> dict[str, Artist]:
    """At (``x``, ``y``) on a canvas axes (inches, y down): the numbers of the whole
    distribution and what the marks mean."""
    ax = check_ax(ax)
    trace = check_trace(trace, T.NextToken)
    art: dict[str, Artist] = {}
    art["notes.heading"] = add_text(ax, x, y, f"The whole distribution\n(all {trace.probs.size:,} tokens)",
                                 size=NOTE_SIZE + 0.5, weight="bold", va="top", linespacing=1.3)
    art["notes.values"] = add_text(ax, x, y + 0.55, "", size=NOTE_SIZE, va="top", linespacing=1.5)
    key = y + 2.25
    ax.add_patch(Rectangle((x, key - 0.07), 0.3, 0.14, facecolor=style.VISIBLE, edgecolor="none"))
    art["notes.bar"] = add_text(ax, x + 0.4, key, "", size=NOTE_SIZE)
    ax.plot([x + 0.15], [key + 0.35], ls="none", marker="|", ms=11, mew=1.8, color=style.INK)
    art["notes.tick"] = add_text(ax, x + 0.4, key + 0.35, "the same token at T = 1", size=NOTE_SIZE)
    ax.add_patch(Rectangle((x, key + 0.63), 0.3, 0.14, facecolor=style.QUERY, edgecolor="none"))
    art["notes.greedy"] = add_text(ax, x + 0.4, key + 0.7, "the largest logit: greedy's pick", size=NOTE_SIZE)
    _move_notes(art, trace)
    return art


def _move_notes(art: dict, trace: T.NextToken) -> None:
    art["notes.values"].set_text(_notes(trace))
    art["notes.bar"].set_text(f"softmax(logits / T) at {_temperature(trace)}")


def state_line(trace: T.NextToken) -> str:
    """The line under the title that names the view's state: the prompt, the greedy steps
    and T, or what a trace with its own ``settings()`` (chapter 12's, with top-k and
    top-p) says of itself."""
    trace = check_trace(trace, T.NextToken)
    if hasattr(trace, "settings"):
        return f"prompt {trace.prompt}, {trace.settings()}"
    return (f"prompt {trace.prompt}, after {trace.step} greedy "
            f"token{'' if trace.step == 1 else 's'}, {_temperature(trace)}")


def update_next_token(artists: dict, trace: T.NextToken) -> None:
    """Move the next-token figure's artists to another prompt, step, temperature (or cut)."""
    trace = check_trace(trace, T.NextToken)
    title = _title(trace)
    two = "\n" in title
    artists["context"].set(text=title, y=TITLE_Y2 if two else TITLE_Y, linespacing=1.0 if two else "normal")
    artists["state"].set_text(state_line(trace))
    _move_candidates(artists, trace)
    _move_notes(artists, trace)


def _top_words(trace: T.NextToken, n: int) -> str:
    return _(", ").join(_("“{piece}” {p} ({p1} at T = 1)").format(
        piece=short(trace.top_pieces[r]), p=f"{trace.top_probs[r]:.2f}", p1=f"{trace.top_probs_t1[r]:.2f}")
        for r in range(n))


def describe_next_token(trace: T.NextToken) -> str:
    """The distribution in words, with the numbers the figure shows."""
    trace = check_trace(trace, T.NextToken)
    return _("After {context} (prompt {prompt}, step {step}) at {temperature}: {top}. Greedy picks “{best}” with "
             "p = {p}; entropy {entropy} nats; {cover} tokens hold {share} % of the mass; {outside} lies outside the "
             "top {n}.").format(
        context=_context(trace), prompt=trace.prompt, step=trace.step, temperature=_temperature(trace),
        top=_top_words(trace, 3), best=short(trace.top_pieces[0]), p=f"{trace.greedy_prob:.2f}",
        entropy=f"{trace.entropy:.2f}", cover=f"{trace.cover:,}", share=f"{100 * trace.cover_share:.0f}",
        outside=f"{trace.outside:.2f}", n=trace.top.size)


# ---------------------------------------------------------------------- the figure

_HEIGHT = 4.3
#: The bars' axes in inches from the top left: (left, top, width, height).
BARS = (1.45, 0.95, 3.0, 2.85)
#: Where the notes beside the bars start (inches from the left and from the top).
NOTES_X, NOTES_Y = 4.65, 0.9


#: The figure's number in the book (chapter 11, after the loss figure).
NUMBER = 25


def next_token_canvas(trace: T.NextToken):
    """The next-token figure of ``trace`` on a new canvas: (figure, artists by name). Chapter
    11's figure and chapter 12's (the same view of another model) are both drawn by it."""
    trace = check_trace(trace, T.NextToken)
    fig, canvas = new_canvas(style.WIDTH, _HEIGHT)
    canvas.set_zorder(-1)
    art: dict[str, Artist] = {}
    art["context"] = add_text(canvas, TITLE_X, TITLE_Y, "", size=style.RC["axes.titlesize"], weight="bold")
    art["state"] = add_text(canvas, 0.15, 0.52, "", size=NOTE_SIZE + 0.5, style="italic")
    left, top, w, h = BARS
    ax = fig.add_axes((left / style.WIDTH, 1 - (top + h) / _HEIGHT, w / style.WIDTH, h / _HEIGHT))
    art.update(draw_candidates(ax, trace))
    art.update(draw_next_notes(canvas, trace, NOTES_X, NOTES_Y))
    update_next_token(art, trace)
    return fig, art


@register(NUMBER, "The trained model's next-token distribution")
def build_next_token() -> Drawn:
    trace = T.next_token()
    fig, art = next_token_canvas(trace)
    alt = (_("The next-token distribution of the book's trained model after {context} (prompt {prompt}, the first "
             "of the chapter's prompts, {step} greedy tokens added) at {temperature}: bars for the {n} tokens with "
             "the largest logits, best first, with ticks at their probabilities at T = 1. The first three: {top}. "
             "Greedy picks “{best}” with probability {p}; the entropy of the whole distribution over {vocab} tokens "
             "is {entropy} nats; {cover} {share} % of the mass; {outside} lies outside the bars.").format(
        context=_context(trace), prompt=trace.prompt, step=trace.step, temperature=_temperature(trace),
        n=trace.top.size, top=_top_words(trace, 3), best=short(trace.top_pieces[0]), p=f"{trace.greedy_prob:.2f}",
        vocab=f"{trace.probs.size:,}", entropy=f"{trace.entropy:.2f}",
        cover=_("1 token holds") if trace.cover == 1 else _("{n} tokens hold").format(n=f"{trace.cover:,}"),
        share=f"{100 * trace.cover_share:.0f}", outside=f"{trace.outside:.2f}"))
    return Drawn(NUMBER, figure_title(NUMBER), fig, alt, art, trace)
