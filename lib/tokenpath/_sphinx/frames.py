"""The frames of one slider widget, rendered, cropped and stored for the HTML edition.

:func:`precompute` builds the widget of a :class:`~.calls.SliderCall`, moves it with
its own ``update`` over the states of :mod:`.grids`, keeps each state's ``png()`` and
``describe()``, crops every frame to one box (:mod:`.crop`) and writes each distinct
image once, as a file named by its content, in lossless WebP (measured: a third of the
bytes of the same pixels as PNG, and less than a 256-colour palette PNG, which is not
lossless here).

**Every position of the last control, drawn as patches**: when :func:`~.grids.layered_grids`
keeps every position of the last control, the other controls' combinations get whole
frames, drawn at the last control's default, and each position of the last control only
the strips of rows that differ from that frame (:func:`patches`), laid over it in the
page. Chapter 4's query row is then its row panel and the outline on the map, a small
part of the figure's bytes.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from dataclasses import dataclass
from pathlib import Path

from ..widgets.controls import readout
from .calls import SliderCall
from .crop import MARGIN, _box_of, keep_whole, merge_pieces, moving_texts, owners, pieces
from .grids import accepted, layered_grids
from .images import encode, pixels

#: Rows of differing pixels at most this far apart are one patch.
PATCH_GAP = 8


def patches(image, base) -> list[tuple[int, int, int, int]]:
    """The (x, y, width, height) strips of ``image`` that differ from ``base``: runs of
    differing rows (at most :data:`PATCH_GAP` apart), each as wide as its differences.
    Laid over ``base``, they give ``image`` exactly.

    >>> import numpy as np
    >>> a = np.zeros((40, 20, 3), np.uint8); b = a.copy(); b[2, 3] = b[5, 9] = b[30, 1] = 9
    >>> patches(b, a)
    [(3, 2, 7, 4), (1, 30, 1, 1)]
    """
    import numpy as np

    diff = (image != base).any(axis=-1)
    rows = np.flatnonzero(diff.any(axis=1))
    found, start = [], None
    for i, r in enumerate(rows):
        if start is None:
            start = r
        if i + 1 == len(rows) or rows[i + 1] - r > PATCH_GAP:
            cols = np.flatnonzero(diff[start:r + 1].any(axis=0))
            found.append((int(cols[0]), int(start), int(cols[-1] - cols[0] + 1), int(r + 1 - start)))
            start = None
    return found


def compose(base, layers) -> "np.ndarray":
    """``base`` with each (x, y, pixels) of ``layers`` laid over it."""
    out = base.copy()
    for x, y, im in layers:
        out[y:y + im.shape[0], x:x + im.shape[1]] = im
    return out


@dataclass
class Frames:
    call: SliderCall
    labels: list  # one per range input
    readouts: list  # per frame, one text per range input
    captions: list
    files: list  # per frame, the file name of its image
    shape: list
    start: list  # the default position of each range input
    box: tuple
    values: list  # per frame, the widget's value (for the browser test)
    patches: list = None  # per frame, (file, x, y, width, height) laid over its frame
    seconds: float = 0.0  # the time rendering them took


def _store(out: Path, rgba, stored: dict) -> str:
    """Write ``rgba`` into ``out`` as a file named by its content; ``stored`` maps the
    pixels already written to their names, so an image shown by several frames (the
    base of every strip of a row) is encoded once."""
    import numpy as np

    key = hashlib.sha1(np.ascontiguousarray(rgba).tobytes()).hexdigest() + repr(rgba.shape)
    if key not in stored:
        data = encode(rgba)
        stored[key] = name = hashlib.sha1(data).hexdigest()[:16] + ".webp"
        if not (out / name).exists():
            (out / name).write_bytes(data)
    return stored[key]


def precompute(call: SliderCall, out: Path) -> Frames:
    """Render the widget of ``call`` at every accepted combination of its grids, crop
    to the changing box grown to whole panels and lines of text (:func:`keep_whole`),
    write each distinct frame once into ``out``."""
    import numpy as np

    from ..figures import style

    widget = call.build()
    sliders = list(widget.sliders)
    start = tuple(s.value for s in sliders)
    grid, layered = layered_grids(sliders)
    owner = owners(widget.figure)
    parts, texts = pieces(widget.figure, owner=owner), moving_texts(widget)
    combos, pngs, captions = [], [], []
    first = diff = None
    for combo in itertools.product(*grid):
        widget.forget_frames()  # every state drawn, so the canvas holds its pixels
        if accepted(widget, combo):
            combos.append(combo)
            pngs.append(widget.png())
            captions.append(widget.describe())
            parts = merge_pieces(parts, pieces(widget.figure, texts, owner))
            now = np.asarray(widget.figure.canvas.buffer_rgba())
            if first is None:
                first, diff = now.copy(), np.zeros(now.shape[:2], bool)
            else:
                diff |= (now != first).any(axis=-1)
    accepted(widget, start)
    style.close(widget.figure)
    if start not in combos:
        raise ValueError(f"{call.name}: its default {start} is not among the accepted frames")
    # the changing pixels (as :func:`changing_box`), grown to whole panels and texts
    box = keep_whole(_box_of(diff, MARGIN), parts, (first.shape[1], first.shape[0]))

    def crop(i):
        return pixels(pngs[i])[box[1]:box[3], box[0]:box[2]]

    out.mkdir(parents=True, exist_ok=True)
    at = {c: i for i, c in enumerate(combos)}
    # a frame's base: itself, or (drawn as patches) the frame at the last control's default
    bases = [at.get(c[:-1] + start[-1:], i) if layered else i for i, c in enumerate(combos)]
    base_images = {b: crop(b) for b in sorted(set(bases))}
    names, laid, stored = [], [], {}
    for i in range(len(combos)):
        base = base_images[bases[i]]
        names.append(_store(out, base, stored))
        im = crop(i) if bases[i] != i else base
        laid.append([(_store(out, im[y:y + h, x:x + w], stored), x, y, w, h)
                     for x, y, w, h in (patches(im, base) if bases[i] != i else [])])
    labels = [s.description or widget.name for s in sliders]
    if len(combos) == math.prod(map(len, grid)):  # every combination: one slider each
        readouts = [[readout(s, v) for s, v in zip(sliders, c)] for c in combos]
        shape, position = [len(g) for g in grid], [g.index(v) for g, v in zip(grid, start)]
    else:  # some refused: one slider over the accepted combinations
        readouts = [[", ".join(f"{l} = {readout(s, v)}" for l, s, v in zip(labels, sliders, c))] for c in combos]
        labels = [", ".join(labels)]
        shape, position = [len(combos)], [combos.index(start)]
    return Frames(call, labels, readouts, captions, names, shape, position, box, [list(c) for c in combos], laid)
