"""Widgets of chapters 01_bpe_merges and 02_utf8_splits.

* :func:`merge_steps` — figure 1 (a) with a slider for the number of merges done: the
  word table's symbols, the pair counts and the next merge move with it.
* :func:`token_box` — a text box: whatever the reader types (Chinese and emoji
  included) is encoded by the book's demo tokenizer and shown as coloured chips with
  ID and bytes. It is HTML, not matplotlib, so the browser's own fonts draw every
  character.
"""

from __future__ import annotations

import functools
import html

import ipywidgets

from .. import figures
from .. import examples as ex
from ..bpe import check_text
from ..lessons import bpe as lesson1
from ..lessons import utf8 as lesson2
from ..figures import bpe as fig_bpe
from ..figures import style
from ..i18n import _
from . import SliderFigure, int_in, slider

__all__ = ["TokenBox", "chips_html", "merge_steps", "token_box"]


#: The artists of figure 1's top panel that a merge step moves.
_MOVES_WITH_STEP = ("step", "chosen.box", "tied.box", "tie", "pointer")


def _pixels(png: bytes):
    import io

    from matplotlib import image

    return image.imread(io.BytesIO(png), format="png")


@functools.cache
def _static_fig01_pixels():
    """Figure 1 at screen resolution, decoded once per session."""
    drawn = figures.render(1)
    pixels = _pixels(drawn.png(dpi=style.SCREEN_DPI))
    style.close(drawn.figure)
    return pixels


class _TopPanelSlider(SliderFigure):
    """A slider over figure 1's top panel only (a smaller image, so a step is fast).
    Its default state is the top rows of the static figure, pixel for pixel."""

    def matches_static_figure(self) -> bool:
        import numpy as np

        full, mine = _static_fig01_pixels(), _pixels(self._png)
        return mine.shape[1] == full.shape[1] and bool(np.array_equal(mine, full[: mine.shape[0]]))


@slider
def merge_steps(step: int = 0) -> SliderFigure:
    """Figure 1's training panel with a slider for the merges done so far (0 … figure
    1's merges). The default, 0 merges, is the static figure's top panel.

    Each step replays the merges with :func:`tokenpath.lessons.lesson1.merge_replay`:

    >>> state = lesson1.merge_replay(3)
    >>> state.segmentation["lower"], state.next_pair
    (('lo', 'wer'), ('e', 'wer'))
    """
    check = int_in("step", 0, ex.FIG1_MERGES)
    step = check(step)
    drawn = fig_bpe.fig01_top(0)
    art = drawn.artists
    control = ipywidgets.IntSlider(
        value=0, min=0, max=ex.FIG1_MERGES, step=1, description=_("merges"),
        continuous_update=True, layout=ipywidgets.Layout(width="28em"),
    )
    moving = [art[k] for k in _MOVES_WITH_STEP]
    moving += [a for k, a in art.items() if k.startswith(("seg[", "pair["))]
    widget = _TopPanelSlider(
        drawn,
        name="step",
        slider=control,
        check=check,
        compute=lesson1.merge_replay,
        move=lambda state: fig_bpe.update_replay(art, state),
        describe=fig_bpe.describe_replay,
        moving=moving,
        trace=drawn.trace,
    )
    if step != widget.value:
        widget.update(step)
    return widget


# ------------------------------------------------------------------ the text box

#: Chip backgrounds: light tints of the book's palette, cycled token by token.
CHIP_COLOURS = ("#CCE3F0", "#FAE2B3", "#C7EBDD", "#D9ECF8", "#F0D4E4", "#F7D5C2")


def chips_html(chips) -> str:
    """The chips as inline HTML: one box per token with its text, ID and bytes.
    Special tokens get a vermilion border; a token whose bytes are only part of a
    character shows U+FFFD, as decoding it alone would.

    >>> "猫" in chips_html(lesson2.token_chips("猫"))
    True
    """
    boxes = []
    for k, c in enumerate(chips):
        border = style.BLOCKED if c.special else "#888888"
        shown = html.escape(c.text.replace(" ", "␣").replace("\n", "↵").replace("\t", "⇥"))
        boxes.append(
            f'<span class="tp-chip" style="display:inline-block;margin:2px;padding:2px 5px;'
            f'border:1px solid {border};border-radius:4px;background:{CHIP_COLOURS[k % len(CHIP_COLOURS)]};'
            f'font-family:monospace;text-align:center">'
            f'<span style="font-size:1.1em">{shown}</span><br>'
            f'<span style="font-size:0.8em">{c.token_id}</span><br>'
            f'<span style="font-size:0.7em;color:#444">{c.data.hex(" ").upper()}</span></span>'
        )
    return "<div>" + "".join(boxes) + "</div>"


class TokenBox:
    """A text box wired to the demo tokenizer: type, and the chips follow."""

    def __init__(self, text: str = ex.DEMO_TEXT):
        if not isinstance(text, str):  # the text box holds only a str: name the argument, not the trait
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        self.tokenizer = lesson1.demo_tokenizer()
        self.input = ipywidgets.Textarea(value=text, description=_("text"),
                                         layout=ipywidgets.Layout(width="40em", height="4em"),
                                         continuous_update=True)
        self.summary = ipywidgets.HTML()
        self.view = ipywidgets.HTML()
        self.box = ipywidgets.VBox([self.input, self.summary, self.view])
        self.update(text)
        self.input.observe(lambda change: self.update(change["new"]), names="value")

    def update(self, text: str) -> None:
        """Encode ``text`` and redraw the chips (marker spellings stay ordinary text)."""
        self.text = check_text(text)
        self.chips = lesson2.token_chips(self.text, self.tokenizer)
        self.view.value = chips_html(self.chips)
        self.summary.value = html.escape(self.summary_line())
        if self.input.value != self.text:
            self.input.value = self.text

    def summary_line(self) -> str:
        n_chars, n_bytes = len(self.text), len(self.text.encode("utf-8"))
        return _("{chars} characters, {n_bytes} UTF-8 bytes, {tokens} tokens").format(
            chars=n_chars, n_bytes=n_bytes, tokens=len(self.chips))

    def describe(self) -> str:
        """The chips as plain text (what the chapter prints for the default text)."""
        return self.summary_line() + "\n" + lesson2.chips_text(self.chips)

    def matches_static_printout(self) -> bool:
        """Whether the box shows what the chapter prints for the demo text: true in the
        default state."""
        static = lesson2.chips_text(lesson2.token_chips(ex.DEMO_TEXT, self.tokenizer))
        return self.text == ex.DEMO_TEXT and lesson2.chips_text(self.chips) == static

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        return f"TokenBox(tokens={len(self.chips)})"


def token_box(text: str = ex.DEMO_TEXT) -> TokenBox:
    """The text box, showing ``text`` (default: the chapter's demo text).

    >>> box = token_box("猫")
    >>> [c.text for c in box.chips]
    ['猫']
    """
    return TokenBox(text)
