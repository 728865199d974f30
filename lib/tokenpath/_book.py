"""The offline HTML edition (``make book``): one page per stored notebook.

Each page is written from the notebook as ``make test`` checked it; nothing is
re-executed. It holds the prose, the code, the stored outputs and figures, a sidebar
with every chapter and the page's sections, previous/next links, and math as MathML
(converted from TeX here by ``latex2mathml``; browsers draw MathML themselves, so no
script or font is fetched). Pages need no server: open ``index.html`` from disk.

**Sliders without a kernel.** A code cell that calls a constructor registered in
:data:`tokenpath.widgets.SLIDERS` (e.g. ``widgets.value_magnitude()``) gets a
precomputed widget in its place: the constructor is called with the cell's literal
arguments, then the widget is moved with :meth:`~tokenpath.widgets.SliderFigure.update`
over a grid of slider positions (:func:`slider_grid`), and each frame's PNG and
:meth:`~tokenpath.widgets.SliderFigure.describe` text are embedded in the page. A plain
``<input type="range">`` switches between them (arrow keys, Page Up/Down, Home and
End work as in any range input) and the caption follows. The frames come from the
same figure code the notebook runs, so a frame is byte for byte what the widget shows
at that value.
"""

from __future__ import annotations

import ast
import base64
import html
import json
import math
import multiprocessing
import os
import re
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Chapter", "SliderCall", "build", "slider_calls", "slider_grid", "render_markdown"]

#: Most precomputed positions per slider (a grid of this many values at most).
MAX_FRAMES = 41
#: Most precomputed frames of a widget with several sliders (all combinations).
MULTI_FRAMES = 81
#: Marks a precomputed slider in a page; the browser test finds them by it.
SLIDER_CLASS = "tp-slider"


# ------------------------------------------------------------------ slider cells


@dataclass(frozen=True)
class SliderCall:
    """A call of a registered slider constructor found in a code cell."""

    name: str
    args: tuple = ()
    kwargs: tuple = ()  # (key, value) pairs

    def build(self):
        from .widgets import SLIDERS

        return SLIDERS[self.name](*self.args, **dict(self.kwargs))


def widget_names(source: str) -> tuple[set, dict]:
    """How the Python ``source`` (a notebook's code) refers to ``tokenpath.widgets``:
    the names bound to the module itself, and the names bound to its functions.

    >>> widget_names("from tokenpath import widgets\\nfrom tokenpath.widgets import score_scale as s")
    ({'widgets'}, {'s': 'score_scale'})
    """
    modules, functions = set(), {}
    try:
        tree = ast.parse(_python_only(source))
    except SyntaxError:
        return modules, functions
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


def slider_calls(source: str, names, context: str | None = None) -> list[SliderCall]:
    """Calls of the slider constructors ``names`` (of ``tokenpath.widgets``) in the
    Python ``source`` of a cell, with their literal arguments, in source order.
    ``context`` (default: ``source``) is the code whose imports say how the module
    is named; a same-named function of another module is not a slider.

    >>> code = "from tokenpath import widgets\\nw = widgets.value_magnitude(8)\\nw"
    >>> slider_calls(code, {"value_magnitude"})
    [SliderCall(name='value_magnitude', args=(8,), kwargs=())]
    >>> slider_calls("t = A.value_magnitude(m)", {"value_magnitude"}, context=code)
    []
    """
    modules, functions = widget_names(source if context is None else context)
    try:
        tree = ast.parse(_python_only(source))
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and _dotted(func.value) in modules:
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
            raise ValueError(
                f"a slider cell must call {name} with literal arguments, got {ast.unparse(node)!r}"
            ) from exc
        found.append((node.lineno, node.col_offset, SliderCall(name, args, kwargs)))
    return [call for *_, call in sorted(found, key=lambda t: t[:2])]


def _dotted(node) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else None
    return None


def _python_only(source: str) -> str:
    """Blank out IPython magics and shell lines so ``ast`` can read the rest."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def slider_grid(slider, max_frames: int = MAX_FRAMES) -> list:
    """The slider positions to precompute (:func:`tokenpath.widgets.slider_grid`, the
    grid the latency benchmark's sweep uses too): every position when there are at
    most ``max_frames``, else an even grid over [min, max] in whole slider steps; the
    slider's current (default) value is always included.

    >>> import ipywidgets
    >>> slider_grid(ipywidgets.IntSlider(value=3, min=1, max=5))
    [1, 2, 3, 4, 5]
    >>> slider_grid(ipywidgets.FloatSlider(value=0.5, min=0, max=10, step=0.5), max_frames=5)
    [0.0, 0.5, 2.5, 5.0, 7.5, 10.0]
    """
    from .widgets import slider_grid as grid

    return grid(slider, max_frames)


def controls(widget) -> list:
    """The slider controls a reader moves in ``widget``: its ``sliders`` (one, or each
    slider of its :class:`~tokenpath.widgets.Controls`, in display order), else every
    standard ipywidgets slider inside its box, or its ``slider`` when the box holds none."""
    import ipywidgets

    if hasattr(widget, "sliders"):
        return list(widget.sliders)

    kinds = (ipywidgets.IntSlider, ipywidgets.FloatSlider, ipywidgets.FloatLogSlider, ipywidgets.SelectionSlider)
    found: list = []

    def walk(w) -> None:
        if isinstance(w, kinds):
            if not w.disabled and all(w is not f for f in found):
                found.append(w)
        for child in getattr(w, "children", ()):
            walk(child)

    walk(getattr(widget, "box", widget.slider))
    return found or [widget.slider]


def grids(sliders, max_frames: int) -> list[list]:
    """One :func:`slider_grid` per slider; for several sliders, thinned (the longest
    first) until the number of combinations is at most ``max_frames``."""
    caps = [max_frames] * len(sliders)
    values = [slider_grid(s, c) for s, c in zip(sliders, caps)]
    while len(values) > 1 and math.prod(map(len, values)) > max_frames:
        k = max(range(len(values)), key=lambda i: len(values[i]))
        if len(values[k]) <= 2:
            break
        caps[k] = max(2, min(caps[k], len(values[k])) - 2)
        values[k] = slider_grid(sliders[k], caps[k])
    return values


def frame_grid(sliders, max_frames: int = MAX_FRAMES) -> list[list]:
    """The grids :func:`precompute` uses: at most ``max_frames`` positions for a single
    slider, and proportionally more combinations (:data:`MULTI_FRAMES` at the default)
    for several."""
    cap = max_frames if len(sliders) == 1 else MULTI_FRAMES * max_frames // MAX_FRAMES
    return grids(sliders, cap)


def move(sliders, values) -> None:
    """Set each slider to its value, in order, as a reader's drag would (the widget's
    observers run its ``update``)."""
    for s, v in zip(sliders, values):
        s.value = v


@dataclass(frozen=True)
class Frames:
    """Precomputed positions of one slider widget: for every combination of its
    sliders' grid positions (the first slider varying slowest), the PNG, the caption and
    each slider's readout."""

    call: SliderCall
    labels: list
    grid: list  # one list of values per slider
    pngs: list
    captions: list
    readouts: list  # per frame, one readout per slider
    default: list  # the default position of each slider


def precompute(call: SliderCall, max_frames: int = MAX_FRAMES) -> Frames:
    """Build the widget of ``call`` and render it at every combination of its sliders'
    grid positions: each slider is set (its observer runs the widget's
    ``update``), then ``png()`` and ``describe()`` are read."""
    import itertools

    from .figures import style

    widget = call.build()
    sliders = controls(widget)
    grid = frame_grid(sliders, max_frames)
    start = [s.value for s in sliders]
    default = [g.index(v) if v in g else 0 for g, v in zip(grid, start)]
    pngs, captions, readouts = [], [], []
    for combo in itertools.product(*grid):
        try:
            move(sliders, combo)
        except Exception as exc:
            raise ValueError(f"{call.name}: moving its sliders to {combo} failed: {exc}") from exc
        pngs.append(widget.png())
        captions.append(widget.describe())
        readouts.append([_readout(s, s.value) for s in sliders])
    move(sliders, start)
    style.close(widget.figure)
    labels = [s.description or widget.name for s in sliders]
    return Frames(call, labels, grid, pngs, captions, readouts, default)


def _readout(slider, value) -> str:
    if hasattr(slider, "options") and not hasattr(slider, "step"):
        return str(slider.label)
    fmt = getattr(slider, "readout_format", None)
    if fmt:
        try:
            return format(value, fmt)
        except (TypeError, ValueError):
            pass
    return str(value)


def slider_html(frames: Frames, ident: str) -> str:
    """The kernel-free widget: one range input and readout per slider, the image and
    the caption, with every frame embedded as JSON."""
    shape = [len(g) for g in frames.grid]
    k = 0
    for pos, n in zip(frames.default, shape):
        k = k * n + pos
    data = {
        "shape": shape,
        "readouts": frames.readouts,
        "captions": frames.captions,
        "pngs": [base64.b64encode(p).decode("ascii") for p in frames.pngs],
    }
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    call = {"name": frames.call.name, "args": list(frames.call.args), "kwargs": dict(frames.call.kwargs)}
    rows = []
    for j, (label, pos, n) in enumerate(zip(frames.labels, frames.default, shape)):
        text = html.escape(frames.readouts[k][j])
        rows.append(
            f'<div class="tp-slider-row"><label for="{ident}-{j}">{html.escape(label)}</label>'
            f'<input type="range" id="{ident}-{j}" min="0" max="{n - 1}" step="1" value="{pos}" '
            f'aria-valuetext="{html.escape(label)} = {text}">'
            f'<output for="{ident}-{j}" class="tp-readout">{text}</output></div>'
        )
    total = len(frames.pngs)
    return (
        f'<div class="{SLIDER_CLASS}" id="{ident}" data-call="{html.escape(json.dumps(call), quote=True)}">'
        + "".join(rows)
        + f'<img class="tp-frame" alt="{html.escape(frames.captions[k], quote=True)}" '
        f'src="data:image/png;base64,{data["pngs"][k]}">'
        f'<p class="tp-caption" aria-live="polite">{html.escape(frames.captions[k])}</p>'
        f'<p class="tp-note">Precomputed: {total} frame{"s" * (total != 1)} of this widget, drawn by '
        f"<code>{html.escape(frames.call.name)}</code> when the book was built; run the notebook for "
        f"every position.</p>"
        f'<script type="application/json" class="tp-frames">{payload}</script></div>'
    )


# ------------------------------------------------------------------ markdown, math


def _markdown_parser():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.anchors import anchors_plugin
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    md.use(dollarmath_plugin, allow_space=True, double_inline=True)
    md.use(anchors_plugin, min_level=1, max_level=3, permalink=False)
    md.add_render_rule("math_inline", lambda self, tokens, idx, options, env: tex(tokens[idx].content))
    md.add_render_rule("math_inline_double", lambda self, tokens, idx, options, env: tex(tokens[idx].content, block=True))
    md.add_render_rule("math_block", lambda self, tokens, idx, options, env: tex(tokens[idx].content, block=True) + "\n")
    md.add_render_rule("math_block_label", lambda self, tokens, idx, options, env: tex(tokens[idx].content, block=True) + "\n")
    default_fence = md.renderer.rules.get("fence")

    def fence(self, tokens, idx, options, env):
        token = tokens[idx]
        match = re.fullmatch(r"\{(\w[\w-]*)\}\s*(.*)", token.info.strip())
        if match and match.group(1) in {"note", "tip", "warning", "important", "admonition", "hint", "caution", "seealso"}:
            kind, title = match.groups()
            body = md.render(token.content)
            head = html.escape(title or kind.capitalize())
            return f'<aside class="tp-admonition tp-{kind}"><p class="tp-admonition-title">{head}</p>{body}</aside>\n'
        if match and match.group(1) == "math":
            return tex(token.content, block=True) + "\n"
        return default_fence(tokens, idx, options, env)

    md.add_render_rule("fence", fence)
    return md


_MD = None


_NOTEBOOK_LINK = re.compile(r'href="([\w-]+)\.ipynb(?:#([^"]*))?"')


def html_anchor(fragment: str) -> str:
    """The HTML edition's id for a heading JupyterLab names ``fragment`` (its text
    with spaces as hyphens): the same text through this renderer's slug rule.

    >>> html_anchor("7.3-The-residual-add-keeps-a-direct-path")
    '73-the-residual-add-keeps-a-direct-path'
    """
    from urllib.parse import unquote

    from mdit_py_plugins.anchors.index import slugify

    return slugify(unquote(fragment).replace("-", " "))


def notebook_links_to_pages(body: str) -> str:
    """Point the relative notebook links of the prose (``04_attention.ipynb#4.2-Why…``,
    which open in JupyterLab) at the HTML pages and their heading ids.

    >>> notebook_links_to_pages('<a href="99_glossary.ipynb#Residual-stream">x</a>')
    '<a href="99_glossary.html#residual-stream">x</a>'
    """
    def page(m):
        stem, fragment = m.group(1), m.group(2)
        return f'href="{stem}.html' + (f"#{html_anchor(fragment)}" if fragment else "") + '"'

    return _NOTEBOOK_LINK.sub(page, body)


def render_markdown(text: str) -> str:
    """Markdown (CommonMark with tables, ``$…$`` and ``$$…$$`` math) to HTML, math
    as MathML.

    >>> render_markdown("Let $x^2$ be.")
    '<p>Let <math ...><mrow><msup><mi>x</mi><mn>2</mn></msup></mrow></math> be.</p>\\n'
    """
    global _MD
    if _MD is None:
        _MD = _markdown_parser()
    return _MD.render(text)


def tex(source: str, *, block: bool = False) -> str:
    """TeX math to a MathML element (``display="block"`` for display math)."""
    from latex2mathml.converter import convert

    source = source.strip()
    try:
        mathml = convert(source, display="block" if block else "inline")
    except Exception as exc:  # latex2mathml raises several exception types
        raise ValueError(f"cannot convert this TeX to MathML ({type(exc).__name__}): {source!r}") from exc
    unknown = re.findall(r">(\\[A-Za-z]+)<", mathml)
    if unknown:
        raise ValueError(f"cannot convert this TeX to MathML (unknown command {unknown[0]}): {source!r}")
    return mathml


# ------------------------------------------------------------------ cells, outputs

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _highlight(code: str) -> str:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    return highlight(code, PythonLexer(), HtmlFormatter(cssclass="tp-code", nowrap=False))


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def render_output(output) -> str:
    kind = output.get("output_type")
    if kind == "stream":
        cls = "tp-stderr" if output.get("name") == "stderr" else "tp-stdout"
        return f'<pre class="tp-output {cls}">{html.escape(_text(output.get("text", "")))}</pre>'
    if kind == "error":
        trace = _ANSI.sub("", "\n".join(output.get("traceback", [])))
        return f'<pre class="tp-output tp-error">{html.escape(trace)}</pre>'
    data = output.get("data", {})
    if "text/html" in data:
        return f'<div class="tp-output tp-html">{_text(data["text/html"])}</div>'
    if "image/svg+xml" in data:
        return f'<div class="tp-output">{_text(data["image/svg+xml"])}</div>'
    if "image/png" in data:
        return f'<div class="tp-output"><img src="data:image/png;base64,{_text(data["image/png"]).strip()}" alt=""></div>'
    if "text/markdown" in data:
        return f'<div class="tp-output">{render_markdown(_text(data["text/markdown"]))}</div>'
    if "text/plain" in data:
        return f'<pre class="tp-output">{html.escape(_ANSI.sub("", _text(data["text/plain"])))}</pre>'
    return ""


# ------------------------------------------------------------------ chapters


@dataclass
class Chapter:
    path: Path
    title: str
    html: str = ""
    sections: tuple = ()  # (id, text) of the level-2 headings
    sliders: int = 0

    @property
    def slug(self) -> str:
        return self.path.stem

    @property
    def href(self) -> str:
        return f"{self.slug}.html"


def chapter_title(nb, fallback: str) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return fallback


def render_chapter(chapter: Chapter, nb, max_frames: int = MAX_FRAMES) -> None:
    """Fill ``chapter.html`` (the page body) and its sections from the notebook."""
    from .widgets import SLIDERS

    names = set(SLIDERS)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    parts = []
    count = 0
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            parts.append(f'<div class="tp-md">{notebook_links_to_pages(render_markdown(cell.source))}</div>')
        elif cell.cell_type == "code":
            if not cell.source.strip():
                continue
            parts.append(f'<div class="tp-cell"><div class="tp-input">{_highlight(cell.source)}</div>')
            calls = slider_calls(cell.source, names, code)
            if calls:
                for call in calls:
                    count += 1
                    parts.append(slider_html(precompute(call, max_frames), f"slider-{count}"))
                shown = [o for o in cell.get("outputs", []) if o.get("output_type") in ("stream", "error")]
            else:
                shown = cell.get("outputs", [])
            parts.extend(render_output(o) for o in shown)
            parts.append("</div>")
    body = "\n".join(parts)
    chapter.html = body
    chapter.sliders = count
    chapter.sections = tuple(
        (m.group(1), html.unescape(re.sub(r"<[^>]+>", "", m.group(2))))
        for m in re.finditer(r'<h2 id="([^"]+)">(.*?)</h2>', body)
    )


def _list_number(chapter: Chapter) -> str:
    """The attributes of a chapter's list item: its own number (``01_…`` is 1), so the
    guide and the glossary, listed unnumbered, do not shift the chapters' numbers."""
    from .guide import GUIDE_PAGES  # pages about the book rather than chapters of it

    if chapter.slug in GUIDE_PAGES:
        return ' class="tp-guide"'
    head = chapter.slug.split("_", 1)[0]
    return f' value="{int(head)}"' if head.isdigit() else ""


def page(chapter: Chapter | None, chapters: list[Chapter], body: str, title: str) -> str:
    nav = []
    for c in chapters:
        current = ' aria-current="page"' if c is chapter else ""
        nav.append(f'<li{_list_number(c)}><a href="{c.href}"{current}>{html.escape(c.title)}</a>')
        if c is chapter and c.sections:
            nav.append('<ul class="tp-sections">')
            nav.extend(f'<li><a href="#{sid}">{html.escape(text)}</a></li>' for sid, text in c.sections)
            nav.append("</ul>")
        nav.append("</li>")
    pager = ""
    if chapter is not None:
        k = chapters.index(chapter)
        prev = chapters[k - 1] if k > 0 else None
        nxt = chapters[k + 1] if k + 1 < len(chapters) else None
        links = [
            f'<a class="tp-prev" rel="prev" href="{prev.href}">← {html.escape(prev.title)}</a>' if prev
            else '<a class="tp-prev" rel="prev" href="index.html">← Contents</a>',
            f'<a class="tp-next" rel="next" href="{nxt.href}">{html.escape(nxt.title)} →</a>' if nxt else "",
        ]
        pager = f'<nav class="tp-pager" aria-label="Previous and next chapter">{"".join(links)}</nav>'
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)} · tokenpath</title>
<link rel="stylesheet" href="book.css">
</head><body>
<a class="tp-skip" href="#main">Skip to the text</a>
<nav class="tp-sidebar" aria-label="Chapters">
<p class="tp-brand"><a href="index.html">tokenpath</a></p>
<ol>{"".join(nav)}</ol>
</nav>
<main id="main">
{pager}
{body}
{pager}
</main>
<script src="book.js"></script>
</body></html>
"""


def _render(nb, max_frames: int) -> tuple[str, tuple, int]:
    chapter = Chapter(Path("."), "")
    render_chapter(chapter, nb, max_frames)
    return chapter.html, chapter.sections, chapter.sliders


def build(notebooks, out: str | Path = "build/html", *, max_frames: int = MAX_FRAMES, jobs: int | None = None) -> Path:
    """Write ``index.html``, one page per notebook (in the order given), ``book.css``
    and ``book.js`` into ``out``; return the path of the index. Chapters are rendered
    in ``jobs`` processes (default: one per CPU)."""
    import nbformat

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    chapters, books = [], []
    for name in notebooks:
        path = Path(name)
        if not path.is_file():
            raise ValueError(f"notebooks must be existing notebook files, got {str(path)!r}")
        nb = nbformat.read(path, as_version=4)
        chapters.append(Chapter(path, chapter_title(nb, path.stem)))
        books.append(nb)
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(chapters)))
    if jobs > 1:  # chapters are independent: one process per core
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            rendered = list(pool.map(_render, books, [max_frames] * len(books)))
    else:
        rendered = [_render(nb, max_frames) for nb in books]
    for chapter, (body, sections, sliders) in zip(chapters, rendered):
        chapter.html, chapter.sections, chapter.sliders = body, sections, sliders
        (out / chapter.href).write_text(page(chapter, chapters, chapter.html, chapter.title), encoding="utf-8")
        print(f"wrote {out / chapter.href} ({chapter.sliders} precomputed slider{'s' * (chapter.sliders != 1)})")
    items = "".join(f'<li{_list_number(c)}><a href="{c.href}">{html.escape(c.title)}</a></li>' for c in chapters)
    body = (
        "<h1>tokenpath</h1>\n<p>One string followed all the way to next-token probabilities.</p>\n"
        + (f"<p>Chapters in reading order:</p>\n<ol>{items}</ol>" if chapters else "<p>No chapters yet.</p>")
        + "\n<p>This edition shows the stored outputs that the test suite checked. Its sliders "
        "switch between frames computed when the book was built; the notebooks in JupyterLab "
        "compute every position live.</p>"
    )
    index = out / "index.html"
    index.write_text(page(None, chapters, body, "Contents"), encoding="utf-8")
    (out / "book.css").write_text(_css(), encoding="utf-8")
    (out / "book.js").write_text(_JS, encoding="utf-8")
    return index


def _css() -> str:
    from pygments.formatters import HtmlFormatter

    return _CSS + HtmlFormatter(style="default").get_style_defs(".tp-code") + "\n"


_CSS = """\
:root { --side: 17rem; --ink: #1b1b1b; --muted: #5b5b5b; --line: #ddd; --accent: #0072B2; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); font: 17px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; }
a { color: var(--accent); }
.tp-skip { position: absolute; left: -999px; } .tp-skip:focus { left: 1rem; top: 1rem; background: #fff; z-index: 2; }
.tp-sidebar { position: fixed; inset: 0 auto 0 0; width: var(--side); overflow-y: auto; padding: 1rem;
  border-right: 1px solid var(--line); background: #fafafa; font-size: 0.9rem; }
.tp-sidebar ol, .tp-sidebar ul { padding-left: 1.2rem; } .tp-sidebar li { margin: 0.3rem 0; }
.tp-sidebar a[aria-current] { font-weight: 700; color: var(--ink); }
li.tp-guide { list-style: none; }
.tp-brand { font-weight: 700; font-size: 1.1rem; margin-top: 0; }
main { margin-left: var(--side); padding: 1rem 2rem 4rem; max-width: calc(var(--side) + 56rem); }
@media (max-width: 50rem) { .tp-sidebar { position: static; width: auto; border-right: 0; } main { margin-left: 0; } }
.tp-pager { display: flex; justify-content: space-between; gap: 1rem; margin: 1rem 0; font-size: 0.95rem; }
.tp-next { margin-left: auto; text-align: right; }
.tp-cell { margin: 1rem 0; }
.tp-input .tp-code { background: #f5f5f5; border-left: 3px solid var(--accent); padding: 0.2rem 0.8rem; overflow-x: auto; }
.tp-code pre { margin: 0.4rem 0; font-size: 0.88rem; }
pre.tp-output { margin: 0.3rem 0 0; padding: 0.3rem 0.8rem; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 0.88rem; }
pre.tp-stderr, pre.tp-error { background: #fff1f0; }
.tp-html img, .tp-output img { max-width: 100%; height: auto; }
figure.tokenpath-figure { margin: 0.5rem 0; } figcaption { color: var(--muted); font-size: 0.9rem; }
table { border-collapse: collapse; margin: 1rem 0; } th, td { border: 1px solid var(--line); padding: 0.25rem 0.6rem; }
math[display="block"] { margin: 1rem 0; font-size: 1.1em; }
.tp-admonition { border-left: 4px solid var(--accent); background: #f3f8fc; padding: 0.2rem 1rem; margin: 1rem 0; }
.tp-admonition-title { font-weight: 700; }
.tp-slider { border: 1px solid var(--line); border-radius: 6px; padding: 0.6rem 0.8rem; margin: 0.5rem 0 1rem; }
.tp-slider-row { display: flex; align-items: center; gap: 0.8rem; }
.tp-slider-row input { width: 24rem; max-width: 60%; }
.tp-slider-row input:focus-visible { outline: 3px solid #E69F00; outline-offset: 2px; }
.tp-readout { font-variant-numeric: tabular-nums; min-width: 4em; }
.tp-frame { display: block; max-width: 100%; height: auto; margin-top: 0.4rem; }
.tp-caption { max-width: 60em; } .tp-note { color: var(--muted); font-size: 0.85rem; }
"""

_JS = """\
// tokenpath HTML edition: switch the precomputed frames of every slider widget.
(function () {
  document.querySelectorAll(".tp-slider").forEach(function (box) {
    var data = JSON.parse(box.querySelector("script.tp-frames").textContent);
    var inputs = Array.prototype.slice.call(box.querySelectorAll("input[type=range]"));
    var readouts = box.querySelectorAll(".tp-readout");
    var labels = box.querySelectorAll("label");
    var image = box.querySelector("img.tp-frame");
    var caption = box.querySelector(".tp-caption");
    function show() {
      var k = 0;
      inputs.forEach(function (input, j) { k = k * data.shape[j] + Number(input.value); });
      image.src = "data:image/png;base64," + data.pngs[k];
      image.alt = data.captions[k];
      caption.textContent = data.captions[k];
      inputs.forEach(function (input, j) {
        readouts[j].textContent = data.readouts[k][j];
        input.setAttribute("aria-valuetext", labels[j].textContent + " = " + data.readouts[k][j]);
      });
    }
    inputs.forEach(function (input) {
      input.addEventListener("input", show);
      input.addEventListener("change", show);
    });
  });
})();
"""
