"""Kernel-free sliders: precomputed frames where a notebook builds a slider widget.

A code cell that calls a constructor registered in :data:`tokenpath.widgets.SLIDERS`
(``widgets.rope_pair()``) gets, under its code, the widget drawn in advance: the
constructor is called with the cell's literal arguments, the widget is moved with its
own ``update`` over a grid of values (:func:`even_grid` per slider, every combination
for several sliders) and each state's ``png()`` and ``describe()`` are kept.

- **Only values the engine accepts**: a combination the widget's controls refuse or
  clamp, or whose trace is the engine's refusal, gets no frame. When some combinations
  are refused, the widget gets one slider over the accepted ones ("Hq = 8, Hkv = 4");
  otherwise one slider per control.
- **Only the panel that changes**: every frame is cropped to the box that holds all
  pixels that differ between frames, grown until it cuts no text (:func:`keep_whole`):
  each panel it touches whole, with its title, axis and tick labels, and each text
  whole with the rest of its line (a title whose numbers change and whose words do
  not). The image next to the slider is the part it moves; the full figure stays
  shown once, above, by the notebook.
- **Small**: a frame is stored as a file named by its content (identical frames are
  one file), as lossless WebP (measured: a third of the bytes of the same
  pixels as PNG, and less than a 256-colour palette PNG, which is not lossless here).
- **Every position of the last control, drawn as patches**: when the combinations
  would be too many (:data:`MOST_FRAMES`) for the last control to keep all its
  positions and the others are short choices (chapter 4's layer and head, then the
  query row: 720 states), the other controls' combinations get whole frames, drawn at the last control's default, and each
  position of the last control only the strips of rows that differ from that frame
  (:func:`patches`), laid over it in the page. Chapter 4's query row is then its row
  panel and the outline on the map, a small part of the figure's bytes.

The browser test (``tests/book_smoke.py``) checks every frame, with its patches laid
over it, against the figure code: the same widget moved to the same values, cropped to
the same box, pixel for pixel, and that the box cuts no text at those values
(:func:`cut_texts`).
"""

from __future__ import annotations

import ast
import hashlib
import html
import io
import itertools
import json
import math
from dataclasses import dataclass
from pathlib import Path

from docutils import nodes
from sphinx.transforms import SphinxTransform

#: At most this many positions of one slider (alone), and per slider of several.
SINGLE, PER_SLIDER = 41, 17
#: At most this many frames per widget.
MOST_FRAMES = 100
#: Sliders with at most this many positions keep all of them while a longer one can be thinned.
WHOLE = 8
#: Pixels kept around the box of changing pixels.
MARGIN = 6
#: Rows of differing pixels at most this far apart are one patch.
PATCH_GAP = 8
#: Pixels kept around a text's extent (its antialiased edge), and the widest space
#: between two texts that continue one line (a title drawn as a changing and a still part).
TEXT_PAD, LINE_GAP = 2, 12
FRAMES = "_frames"
SLIDER_CLASS = "tp-slider"


@dataclass(frozen=True)
class SliderCall:
    """A call of a registered slider constructor found in a code cell."""

    name: str
    args: tuple = ()
    kwargs: tuple = ()  # (key, value) pairs

    def build(self):
        from ..widgets import SLIDERS

        return SLIDERS[self.name](*self.args, **dict(self.kwargs))


def _imports(tree) -> tuple[set, dict]:
    modules, functions = set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "tokenpath":
            modules |= {a.asname or a.name for a in node.names if a.name == "widgets"}
        elif isinstance(node, ast.ImportFrom) and node.module == "tokenpath.widgets":
            functions |= {a.asname or a.name: a.name for a in node.names}
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "tokenpath.widgets" and a.asname:
                    modules.add(a.asname)
                elif a.name.startswith("tokenpath"):
                    modules.add(f"{a.asname or 'tokenpath'}.widgets")
    return modules, functions


def _parse(source: str):
    try:
        return ast.parse("\n".join("" if l.lstrip().startswith(("%", "!")) else l for l in source.splitlines()))
    except SyntaxError:
        return None


def slider_calls(source: str, names, context: str | None = None) -> list[SliderCall]:
    """Calls of the slider constructors ``names`` in the Python ``source`` of a cell,
    with their literal arguments, in source order; ``context`` (default ``source``) is
    the notebook's code, whose imports say how ``tokenpath.widgets`` is named.

    >>> code = "from tokenpath import widgets\\nw = widgets.rope_pair(3)\\nw"
    >>> slider_calls(code, {"rope_pair"})
    [SliderCall(name='rope_pair', args=(3,), kwargs=())]
    >>> slider_calls("t = P.rope_pair(m)", {"rope_pair"}, context=code)
    []
    """
    tree, where = _parse(source), _parse(source if context is None else context)
    if tree is None or where is None:
        return []
    modules, functions = _imports(where)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and ast.unparse(func.value) in modules:
            name = func.attr
        elif isinstance(func, ast.Name) and func.id in functions:
            name = functions[func.id]
        else:
            continue
        if name not in names:
            continue
        try:
            args = tuple(ast.literal_eval(a) for a in node.args)
            kwargs = tuple((k.arg, ast.literal_eval(k.value)) for k in node.keywords)
        except ValueError as exc:
            raise ValueError(f"a slider cell must call {name} with literal arguments, "
                             f"got {ast.unparse(node)!r}") from exc
        found.append((node.lineno, node.col_offset, SliderCall(name, args, kwargs)))
    return [call for *_, call in sorted(found, key=lambda t: t[:2])]


def even_grid(low, high, step, default, most: int) -> list:
    """At most ``most`` values of a slider over [low, high] in whole ``step``\\ s, evenly
    spaced and through ``default``: every value when they fit, else every k-th value
    counted from the default (k as small as fits).

    >>> even_grid(0, 16, 1, 2, 41)[:4], len(even_grid(0, 16, 1, 2, 41))
    ([0, 1, 2, 3], 17)
    >>> even_grid(0, 10, 1, 3, 5)
    [1, 3, 5, 7, 9]
    >>> even_grid(0.0, 1.0, 0.125, 0.5, 3)
    [0.125, 0.5, 0.875]
    """
    if most < 2:
        raise ValueError(f"most must be at least 2, got {most}")
    if not low <= default <= high:
        raise ValueError(f"default must lie in [{low}, {high}], got {default}")
    steps = round((high - low) / step)
    at = round((default - low) / step)
    integer = all(isinstance(v, int) for v in (low, step, default))
    k = 1
    while len(range(at % k, steps + 1, k)) > most:
        k += 1
    value = (lambda i: low + i * step) if integer else (lambda i: float(high if i == steps else low + i * step))
    return [default if i == at else value(i) for i in range(at % k, steps + 1, k)]


def slider_values(slider, most: int) -> list:
    """:func:`even_grid` of an ipywidgets slider (a selection slider: its options)."""
    if hasattr(slider, "options") and not hasattr(slider, "step"):
        from ..widgets import _option_values

        values = _option_values(slider)
        at = values.index(slider.value)
        k = max(1, math.ceil(len(values) / most))
        return values[at % k::k]
    if hasattr(slider, "base"):
        exps = even_grid(slider.min, slider.max, slider.step, math.log(slider.value, slider.base), most)
        return [slider.value if math.isclose(e, math.log(slider.value, slider.base)) else slider.base ** e
                for e in exps]
    return even_grid(slider.min, slider.max, slider.step, slider.value, most)


def grids(sliders) -> list[list]:
    """One grid per slider; with several sliders, the longest thinned until the
    combinations are at most :data:`MOST_FRAMES` (a slider of at most :data:`WHOLE`
    positions keeps them all while a longer one can be thinned)."""
    caps = [SINGLE if len(sliders) == 1 else PER_SLIDER] * len(sliders)
    values = [slider_values(s, c) for s, c in zip(sliders, caps)]
    short = {i for i, v in enumerate(values) if len(v) <= WHOLE}
    while math.prod(map(len, values)) > MOST_FRAMES:
        long = [i for i in range(len(values)) if i not in short and len(values[i]) > 2] or range(len(values))
        k = max(long, key=lambda i: len(values[i]))
        if len(values[k]) <= 1:
            break
        caps[k] = len(values[k]) - 1
        values[k] = slider_values(sliders[k], caps[k])
    return values


def layered_grids(sliders) -> tuple[list[list], bool]:
    """:func:`grids`, or, when they would thin the last of several sliders while the
    others are choices of at most :data:`WHOLE` positions each (a layer, a head),
    every position of the others and of the last slider (up to :data:`SINGLE`): then
    the last slider is drawn as patches over the others' frames (``True``)."""
    values = grids(sliders)
    if len(sliders) < 2:
        return values, False
    last = slider_values(sliders[-1], SINGLE)
    others = [slider_values(s, SINGLE) for s in sliders[:-1]]
    if (len(values[-1]) >= len(last) or any(len(v) > WHOLE for v in others)
            or math.prod(map(len, others)) > MOST_FRAMES):
        return values, False
    return others + [last], True


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


def accepted(widget, combo) -> bool:
    """Move ``widget`` to ``combo``; whether its controls and the engine accept it (no
    refusal, no clamping of a dependent slider)."""
    value = combo[0] if len(combo) == 1 else tuple(combo)
    try:
        widget.update(value)
    except ValueError:
        return False
    now = widget.value if len(combo) > 1 else (widget.value,)
    same = all(a == b or (isinstance(a, float) and math.isclose(a, b, rel_tol=1e-9)) for a, b in zip(now, combo))
    return same and type(widget.trace).__name__ != "Refused"


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


def pixels(png: bytes):
    """A PNG's pixels as an RGBA array."""
    import numpy as np
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))


def encode(rgba) -> bytes:
    """Lossless WebP of an RGBA array (RGB when it is opaque): a third of the bytes of
    the same pixels as PNG, decoded to exactly those pixels."""
    import numpy as np
    from PIL import Image

    opaque = bool((rgba[..., 3] == 255).all())
    image = Image.fromarray(np.ascontiguousarray(rgba[..., :3] if opaque else rgba))
    buf = io.BytesIO()
    # Measured on chapter 10's frames once crops keep whole panels: effort 5 at quality 90
    # is 6 % smaller than effort 2 at quality 50 (26 ms a frame instead of 9), which keeps
    # that page under its 4 MB budget; effort 6 saves no more and takes 20 times as long.
    image.save(buf, "WEBP", lossless=True, quality=90, method=5, exact=True)
    return buf.getvalue()


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
        readouts = [[_readout(s, v) for s, v in zip(sliders, c)] for c in combos]
        shape, position = [len(g) for g in grid], [g.index(v) for g, v in zip(grid, start)]
    else:  # some refused: one slider over the accepted combinations
        readouts = [[", ".join(f"{l} = {_readout(s, v)}" for l, s, v in zip(labels, sliders, c))] for c in combos]
        labels = [", ".join(labels)]
        shape, position = [len(combos)], [combos.index(start)]
    return Frames(call, labels, readouts, captions, names, shape, position, box, [list(c) for c in combos], laid)


def _readout(slider, value) -> str:
    if hasattr(slider, "options") and not hasattr(slider, "step"):
        return str(dict(zip(slider._options_values, slider._options_labels)).get(value, value))
    fmt = getattr(slider, "readout_format", None)
    try:
        return format(value, fmt) if fmt else str(value)
    except (TypeError, ValueError):
        return str(value)


def slider_html(frames: Frames, ident: str, prefix: str = "") -> str:
    """The kernel-free widget: a labelled range input and readout per control, the
    frame next to them and its caption; frames listed in a JSON script."""
    k = 0
    for pos, n in zip(frames.start, frames.shape):
        k = k * n + pos
    laid = frames.patches or [[] for _ in frames.files]
    patch_files = sorted({p[0] for ps in laid for p in ps})
    index = {n: i for i, n in enumerate(patch_files)}
    width, height = frames.box[2] - frames.box[0], frames.box[3] - frames.box[1]
    data = {"shape": frames.shape, "readouts": frames.readouts, "captions": frames.captions,
            "files": [f"{prefix}{FRAMES}/{n}" for n in frames.files], "values": frames.values,
            "size": [width, height], "patch_files": [f"{prefix}{FRAMES}/{n}" for n in patch_files],
            "patches": [[[index[n], x, y, w, h] for n, x, y, w, h in ps] for ps in laid]}
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    call = {"name": frames.call.name, "args": list(frames.call.args), "kwargs": dict(frames.call.kwargs)}
    rows = []
    for j, (label, pos, n) in enumerate(zip(frames.labels, frames.start, frames.shape)):
        text = html.escape(frames.readouts[k][j])
        rows.append(f'<div class="tp-slider-row"><label for="{ident}-{j}">{html.escape(label)}</label>'
                    f'<input type="range" id="{ident}-{j}" min="0" max="{n - 1}" step="1" value="{pos}" '
                    f'aria-valuetext="{html.escape(label)} = {text}">'
                    f'<output for="{ident}-{j}" class="tp-readout">{text}</output></div>')
    total = len(frames.files)
    distinct = len(set(frames.files))
    overlays = "".join(
        f'<img class="tp-patch" alt="" src="{data["patch_files"][i]}" style="left:{100 * x / width:.4f}%;'
        f'top:{100 * y / height:.4f}%;width:{100 * w / width:.4f}%">' for i, x, y, w, h in data["patches"][k])
    how = (f"{distinct} distinct images of the part that moves" if not patch_files else
           f"{distinct} images of the part that moves and {len(patch_files)} strips laid over them "
           f"for the {html.escape(frames.labels[-1])}")
    caption = html.escape(frames.captions[k], quote=True)
    return (f'<div class="{SLIDER_CLASS}" id="{ident}" data-call="{html.escape(json.dumps(call), quote=True)}" '
            f'data-box="{",".join(map(str, frames.box))}"><div class="tp-slider-controls">{"".join(rows)}</div>'
            f'<div class="tp-frame-stack"><img class="tp-frame" alt="{caption}" src="{data["files"][k]}">'
            f'{overlays}</div>'
            f'<p class="tp-caption" aria-live="polite">{caption}</p>'
            f'<p class="tp-note">Precomputed: {total} states ({how}), drawn by <code>{html.escape(frames.call.name)}</code> when the book was built; '
            f'the notebook computes every value.</p>'
            f'<script type="application/json" class="tp-frames">{payload}</script></div>')


class SliderTransform(SphinxTransform):
    """Put each slider cell's precomputed widget under its code."""

    default_priority = 870

    def apply(self):
        from ..widgets import SLIDERS

        cells = [c for c in self.document.findall(nodes.container) if c.get("nb_element") == "cell_code"]
        source = {id(c): next(iter(c.findall(nodes.literal_block)), None) for c in cells}
        code = "\n".join(b.astext() for b in source.values() if b is not None)
        from .framecache import cache_folder, frames_for

        out, cache = Path(self.app.outdir) / FRAMES, cache_folder(self.app)
        count = 0
        for cell in cells:
            block = source[id(cell)]
            calls = slider_calls(block.astext(), set(SLIDERS), code) if block is not None else []
            for call in calls:
                count += 1
                frames = frames_for(call, out, cache)
                markup = slider_html(frames, f"slider-{count}")
                cell.append(nodes.raw("", markup, format="html"))


def setup(app):
    app.add_transform(SliderTransform)
