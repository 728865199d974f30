"""Only the panel that changes: the box a slider's frames are cropped to.

Every frame of a precomputed slider is cropped to the box that holds all pixels that
differ between its frames (:func:`changing_box`), grown until it cuts no text
(:func:`keep_whole`): each panel it touches whole, with its title, axis and tick labels,
and each text whole with the rest of its line (a title whose numbers change and whose
words do not). The image next to the slider is the part it moves; the full figure stays
shown once, above, by the notebook. The browser test checks every frame with
:func:`cut_texts`.
"""

from __future__ import annotations

import math

from .images import pixels

#: Pixels kept around the box of changing pixels.
MARGIN = 6
#: Pixels kept around a text's extent (its antialiased edge), and the widest space
#: between two texts that continue one line (a title drawn as a changing and a still part).
TEXT_PAD, LINE_GAP = 2, 12


def changing_box(images, margin: int = MARGIN) -> tuple[int, int, int, int]:
    """The (left, top, right, bottom) box holding every pixel that differs between the
    ``images`` (arrays of one shape, or PNG bytes), widened by ``margin``; the whole
    image if none does.

    >>> import numpy as np
    >>> a = np.zeros((10, 20, 3), np.uint8); b = a.copy(); b[4, 7] = 255
    >>> changing_box([a, b], margin=1)
    (6, 3, 9, 6)
    """
    import numpy as np

    def load(im):
        return pixels(im) if isinstance(im, bytes) else im

    first = load(images[0])
    diff = np.zeros(first.shape[:2], bool)
    for im in images[1:]:
        diff |= (load(im) != first).any(axis=-1)
    return _box_of(diff, margin)


def _box_of(diff, margin: int) -> tuple[int, int, int, int]:
    """The box of the true pixels of the mask ``diff``, widened by ``margin``; the
    whole image when there are none."""
    import numpy as np

    height, width = diff.shape
    if not diff.any():
        return 0, 0, width, height
    rows, cols = np.flatnonzero(diff.any(axis=1)), np.flatnonzero(diff.any(axis=0))
    return (int(max(0, cols[0] - margin)), int(max(0, rows[0] - margin)),
            int(min(width, cols[-1] + 1 + margin)), int(min(height, rows[-1] + 1 + margin)))


def _pixel_box(bbox, height: float, pad: int = 0):
    """A display :class:`~matplotlib.transforms.Bbox` as the (left, top, right, bottom)
    pixels of the image that hold it (origin at the top left), rounded outwards and
    widened by ``pad``; ``None`` for an empty or unbounded one."""
    x0, y0, x1, y1 = bbox.extents
    if not all(math.isfinite(v) for v in (x0, y0, x1, y1)) or x1 <= x0 or y1 <= y0:
        return None
    return (math.floor(x0) - pad, math.floor(height - y1) - pad, math.ceil(x1) + pad, math.ceil(height - y0) + pad)


def _panels(figure) -> list:
    """The ``Axes`` of ``figure`` drawn with their axis: a plot, its title, axis labels and ticks."""
    return [ax for ax in figure.axes if ax.get_visible() and ax.axison]


def owners(figure) -> dict:
    """Each text of ``figure`` (by ``id``) → the ``Axes`` of ``figure.axes`` it is drawn
    in (tick and axis labels included), or ``None`` for a text on the figure."""
    from matplotlib.text import Text

    out = {id(t): None for t in figure.findobj(Text)}
    for ax in figure.axes:
        out.update((id(t), ax) for t in ax.findobj(Text))
    return out


def _shown(texts, figure, owner: dict) -> list:
    """(text, its Axes or None) for each of ``texts`` that is drawn: visible, not blank, in a visible Axes."""
    out = []
    for t in texts:
        ax = owner.get(id(t), t.axes)
        if (t.get_visible() and t.get_text().strip() and (ax is None or ax.get_visible())
                and t.get_figure(root=True) is figure):
            out.append((t, ax))
    return out


def pieces(figure, texts=None, owner: dict | None = None, pad: int = TEXT_PAD) -> dict:
    """The parts of ``figure`` that a crop keeps whole, as pixel boxes (left, top,
    right, bottom) of its image at the canvas's resolution, keyed by the part:

    - a *panel*, an ``Axes`` drawn with its axis: its plot with its title, axis labels,
      tick labels and everything else drawn in it (``Axes.get_tightbbox``);
    - every other text: one on the figure, or in an ``Axes`` drawn without axis (a
      canvas of notes, a figure's title drawn as text).

    Each is widened by ``pad`` pixels for antialiased edges. With ``texts``, only the
    extents of those texts (the ones a slider moves), each under its part's key: what
    changes between the states of a widget whose other artists are drawn once.
    ``owner`` is :func:`owners` of the figure (found again without it). Texts that
    continue one line are joined by :func:`keep_whole`.
    """
    from matplotlib.text import Text

    from ..figures import style

    owner = owners(figure) if owner is None else owner
    with style.book_style():
        renderer = figure.canvas.get_renderer()
        height = figure.bbox.height
        panels = {id(ax) for ax in _panels(figure)}
        out = {}
        if texts is None:
            for ax in _panels(figure):
                box = _pixel_box(ax.get_tightbbox(renderer), height, pad)
                if box is not None:
                    out[("panel", id(ax))] = box
            texts = figure.findobj(Text)
        for t, ax in _shown(texts, figure, owner):
            box = _pixel_box(t.get_window_extent(renderer), height, pad)
            if box is not None:
                key = ("panel", id(ax)) if ax is not None and id(ax) in panels else ("text", id(t))
                out[key] = _union(out[key], box) if key in out else box
    return out


def moving_texts(widget) -> list:
    """The texts among the artists ``widget`` redraws when it moves (the rest of its
    figure is drawn once, so only these change their extent)."""
    from matplotlib.text import Text

    moving = getattr(getattr(widget, "_renderer", None), "moving", None)
    if moving is None:  # not a widget that redraws only what moves: any text may move
        return widget.figure.findobj(Text)
    return [t for a in moving for t in a.findobj(Text)]


def merge_pieces(*found: dict) -> dict:
    """The union, part by part, of :func:`pieces` found in several states of a figure
    (a text's extent changes with its text)."""
    out = {}
    for boxes in found:
        for key, box in boxes.items():
            out[key] = _union(out[key], box) if key in out else box
    return out


def _union(a, b):
    return min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def one_line(a, b, gap: int = LINE_GAP) -> bool:
    """Whether text boxes ``a`` and ``b`` are one line of text: rows that overlap by at
    least half the lower one's height, at most ``gap`` pixels apart side by side.

    >>> one_line((0, 10, 50, 24), (55, 11, 90, 24)), one_line((0, 10, 50, 24), (80, 11, 90, 24))
    (True, False)
    """
    rows = min(a[3], b[3]) - max(a[1], b[1])
    apart = max(a[0], b[0]) - min(a[2], b[2])
    return rows >= 0.5 * min(a[3] - a[1], b[3] - b[1]) and apart <= gap


def keep_whole(box, found: dict, size) -> tuple[int, int, int, int]:
    """``box`` (left, top, right, bottom) grown until every part of :func:`pieces` it
    overlaps lies inside it, and every text on one line with a kept text too
    (:func:`one_line`: a title drawn as a changing and a still part), within the image
    of ``size`` (width, height).

    >>> title, rest, far = ("text", 1), ("text", 2), ("text", 3)
    >>> keep_whole((10, 10, 20, 20), {title: (15, 5, 40, 12), rest: (42, 5, 60, 12), far: (0, 50, 9, 60)}, (100, 100))
    (10, 5, 60, 20)
    """
    box = tuple(box)
    kept: set = set()
    grown = True
    while grown:
        grown = False
        for key, part in found.items():
            if key in kept:
                continue
            if _overlap(box, part) or (key[0] == "text" and any(
                    k[0] == "text" and one_line(part, found[k]) for k in kept)):
                kept.add(key)
                box = _union(box, part)
                grown = True
    width, height = size
    return max(0, box[0]), max(0, box[1]), min(width, box[2]), min(height, box[3])


def cut_texts(figure, box) -> list[str]:
    """The texts of ``figure`` in its current state that a crop to ``box`` (left, top,
    right, bottom) cuts: a panel (an ``Axes`` drawn with its axis) that the box
    overlaps but does not hold whole with its title, axis labels and tick labels; a
    text outside the panels partly inside the box, or on one line (:func:`one_line`)
    with a text the crop keeps and left outside. Texts that the figure itself cuts,
    running past its canvas, come first, as
    :func:`~tokenpath.figures.style.texts_past_edge` names them (the crop is judged on
    what the figure shows of them). Empty when every text is whole on the figure and
    wholly in the crop or wholly out of it with its panel: what every frame of the
    edition gives (``make check-book`` checks each)."""
    from matplotlib.text import Text

    from ..figures import style

    canvas = (0, 0, math.ceil(figure.bbox.width), math.ceil(figure.bbox.height))

    def inside(e):
        # what the figure shows of a text; the part past its edge is named by texts_past_edge
        e = (max(e[0], canvas[0]), max(e[1], canvas[1]), min(e[2], canvas[2]), min(e[3], canvas[3]))
        return box[0] <= e[0] and box[1] <= e[1] and e[2] <= box[2] and e[3] <= box[3]

    with style.book_style():
        renderer = figure.canvas.get_renderer()
        cut = style.texts_past_edge(figure, renderer)
        height = figure.bbox.height
        panels = _panels(figure)
        for ax in panels:
            whole = _pixel_box(ax.get_tightbbox(renderer), height)
            if whole is None or not _overlap(whole, box) or inside(whole):
                continue
            labels = [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label, *ax.texts]
            named = [t.get_text() for t in labels if t.get_visible() and t.get_text().strip()
                     and not inside(_pixel_box(t.get_window_extent(renderer), height) or box)]
            cut += named or [f"tick labels of the panel at {whole}"]
        free = [(t, _pixel_box(t.get_window_extent(renderer), height))
                for t, ax in _shown(figure.findobj(Text), figure, owners(figure)) if not any(ax is p for p in panels)]
    free = [(t, e) for t, e in free if e is not None]
    kept = [e for t, e in free if inside(e)]
    cut += [t.get_text() for t, e in free if not inside(e) and (_overlap(e, box) or any(one_line(e, k) for k in kept))]
    return cut
