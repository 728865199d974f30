"""Kernel-free sliders: precomputed frames where a notebook builds a slider widget.

A code cell that calls a constructor registered in :data:`tokenpath.widgets.SLIDERS`
(``widgets.rope_pair()``, found by :mod:`.calls`) gets, under its code, the widget
drawn in advance: the constructor is called with the cell's literal arguments, the
widget is moved with its own ``update`` over the states :mod:`.grids` chooses, and each
state's ``png()`` and ``describe()`` are kept, cropped to the part that moves
(:mod:`.crop`) and stored as content-named WebP files, strips laid over a base frame
where a widget has many states (:mod:`.frames`; rendered beside Sphinx and kept
between builds by :mod:`.framecache`).

In the page the slider is the same component as in JupyterLab
(``tokenpath/widgets/frames.js``, shipped as a classic script by :mod:`.component`):
``static/tokenpath.js`` renders it over a model that holds every frame, from the JSON
that :func:`slider_data` writes beside the default frame. Without scripts the page
shows that default frame, its caption and a note.

The browser test (``tests/book_smoke.py``) moves every slider with the keyboard and
checks what the component draws, and every frame with its strips laid over it, against
the figure code: the same widget moved to the same values, cropped to the same box,
pixel for pixel, and that the box cuts no text at those values
(:func:`~.crop.cut_texts`).
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from docutils import nodes
from sphinx.transforms import SphinxTransform

from ..i18n import _
from .calls import slider_calls
from .frames import Frames

FRAMES = "_frames"
SLIDER_CLASS = "tp-slider"


def positions(shape, k: int) -> list[int]:
    """The position of each control at frame ``k`` of a row-major grid of ``shape``.

    >>> positions([3, 4], 6)
    [1, 2]
    """
    out = []
    for n in reversed(shape):
        out.append(k % n)
        k //= n
    return out[::-1]


def slider_data(frames: Frames, prefix: str = "") -> dict:
    """What the component needs, as JSON: each control's label and readouts, the
    default positions, the frames' size, every image file once, and per frame (in
    row-major order of ``shape``) its file, caption and the strips laid over it as
    ``[file, x, y]``; ``values`` (the widget's value at each frame) is for the browser test."""
    laid = frames.patches or [[] for _ in frames.files]
    names = list(dict.fromkeys([*frames.files, *(p[0] for ps in laid for p in ps)]))
    at = {n: i for i, n in enumerate(names)}
    readouts = [[""] * n for n in frames.shape]
    for k, texts in enumerate(frames.readouts):
        for j, p in enumerate(positions(frames.shape, k)):
            readouts[j][p] = texts[j]
    return {"labels": frames.labels, "readouts": readouts, "shape": frames.shape, "start": frames.start,
            "size": [frames.box[2] - frames.box[0], frames.box[3] - frames.box[1]],
            "files": [f"{prefix}{FRAMES}/{n}" for n in names],
            "frames": [[at[f], c, [[at[n], x, y] for n, x, y, _, _ in ps]]
                       for f, c, ps in zip(frames.files, frames.captions, laid)],
            "values": frames.values}


def slider_html(frames: Frames, ident: str, prefix: str = "") -> str:
    """A slider's place in the page: the default frame, its caption and a note (what a
    reader without scripts sees, replaced by the component), and :func:`slider_data`
    in a JSON script."""
    data = slider_data(frames, prefix)
    k = 0
    for pos, n in zip(frames.start, frames.shape):
        k = k * n + pos
    file, caption, strips = data["frames"][k]
    if strips:
        raise ValueError(f"{frames.call.name}: the default frame must be a whole image, not strips over one")
    width, height = data["size"]
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    call = {"name": frames.call.name, "args": list(frames.call.args), "kwargs": dict(frames.call.kwargs)}
    strip_files = len(data["files"]) - len(set(frames.files))
    distinct = len(set(frames.files))
    how = (_("{distinct} distinct images of the part that moves").format(distinct=distinct) if not strip_files else
           _("{distinct} images of the part that moves and {strips} strips laid over them for the {label}").format(
               distinct=distinct, strips=strip_files, label=html.escape(frames.labels[-1])))
    text = html.escape(caption, quote=True)
    note = _("Precomputed: {states} states ({how}), drawn by {name} when the book was built; "
             "the notebook computes every value.").format(
        states=len(frames.files), how=how, name=f"<code>{html.escape(frames.call.name)}</code>")
    return (f'<div class="{SLIDER_CLASS}" id="{ident}" data-call="{html.escape(json.dumps(call), quote=True)}" '
            f'data-box="{",".join(map(str, frames.box))}">'
            f'<div class="tp-slider-fallback"><img class="tp-frame" alt="{text}" src="{data["files"][file]}" '
            f'width="{width}" height="{height}"><p class="tp-caption">{text}</p></div>'
            f'<p class="tp-note">{note}</p>'
            f'<script type="application/json" class="tp-slider-data">{payload}</script></div>')


def _cell_source(cell):
    """The literal block of a code cell's source, or None when its input is removed. An
    output can hold a literal block too (the text form of an HTML output), which is not
    code and must not be parsed as such."""
    for part in cell.findall(nodes.container):
        if part.get("nb_element") == "cell_code_source":
            return next(iter(part.findall(nodes.literal_block)), None)
    return None


class SliderTransform(SphinxTransform):
    """Put each slider cell's precomputed widget under its code."""

    default_priority = 870

    def apply(self):
        if self.app.builder.format != "html":
            return
        from ..widgets import SLIDERS
        from .framecache import cache_folder, frames_for
        from .media import media_html

        cells = [c for c in self.document.findall(nodes.container) if c.get("nb_element") == "cell_code"]
        source = {id(c): _cell_source(c) for c in cells}
        code = "\n".join(b.astext() for b in source.values() if b is not None)
        from .editions import lang, shared_dir, shared_prefix

        out, cache, prefix = shared_dir(self.app) / FRAMES, cache_folder(self.app), shared_prefix(self.app)
        count, animated = 0, False
        for cell in cells:
            block = source[id(cell)]
            calls = slider_calls(block.astext(), set(SLIDERS), code) if block is not None else []
            for call in calls:
                count += 1
                frames = frames_for(call, out, cache)
                # the chapter's main slider: its moving picture first (tokenpath._sphinx.media)
                moving = "" if animated else media_html(call.name, self.env.docname, Path(self.app.outdir),
                                                        lang=lang(self.app))
                animated = animated or bool(moving)
                cell.append(nodes.raw("", moving + slider_html(frames, f"slider-{count}", prefix), format="html"))


def setup(app):
    app.add_transform(SliderTransform)
