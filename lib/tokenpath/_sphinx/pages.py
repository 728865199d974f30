"""The book around the chapters: the table of contents in reading order, on each page
how to open it as a notebook (and its ``.ipynb``), ``index.html`` as the guide, and
the size budgets that ``make book`` prints and enforces.

The toctree is added to the guide's notebook as it is read (the stored notebook is not
changed): the chapters in file-name order, numbered by their file name; the pages about
the book (:data:`tokenpath.guide.GUIDE_PAGES`) unnumbered.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
from pathlib import Path

import html

from docutils import nodes
from sphinx.transforms import SphinxTransform

#: The whole edition, and any one page with what it loads, at most this many bytes. The
#: edition was held to 25 MB until the book gained the moving pictures above its sliders
#: (0.5 MB), a fifth chapter from chapter 4's split, two guide pages and three capstones;
#: 26 MB then, and 27 MB since the chapters were rewritten for learners (each gained worked
#: cells, collapsed notes and takeaways), still small enough to copy to a phone or a USB
#: stick.
TOTAL_BUDGET = 27 * 2**20
#: The Chinese edition: its own files and the English edition's frames and figure files
#: its pages show (shared, not copied), at most this many bytes.
TOTAL_BUDGET_ZH = 30 * 2**20
#: A page with its images and frames: 4 MB until the rewrite for learners, which took
#: chapter 11's page (three sliders, 346 frames) from 3.96 to 4.01 MB with its new cells
#: and notes; 4.25 MB since.
PAGE_BUDGET = 4.25 * 2**20
#: A page of the Chinese edition: its slider captions and notes are Chinese, three bytes a
#: character in UTF-8 where English takes one, on top of the same frames.
PAGE_BUDGET_ZH = 4.5 * 2**20
#: Where the notebooks are copied in the edition, for download.
NOTEBOOKS = "_notebooks"
#: Where the stored figures are written, as files of their own.
FIGURES = "_figures"
_DATA_PNG = re.compile(r'src="data:image/png;base64,([A-Za-z0-9+/=\s]+)"')


def toc_entries(docnames, root: str, titles: dict[str, str]) -> list[str]:
    """The toctree lines for every page except ``root``, in file-name order; a chapter
    ``NN_name`` is shown as "NN · title", a page about the book by its own title.

    >>> toc_entries(["00_index", "02_b", "01_a", "98_notation", "99_glossary"], "00_index", {"01_a": "A", "02_b": "B"})
    ['1 · A <01_a>', '2 · B <02_b>', '98_notation', '99_glossary']
    """
    from tokenpath.guide import GUIDE_PAGES

    lines = []
    for name in sorted(d for d in docnames if d != root):
        head = name.split("_", 1)[0]
        if head.isdigit() and name in titles and name not in GUIDE_PAGES:
            lines.append(f"{int(head)} · {titles[name]} <{name}>")
        else:
            lines.append(name)
    return lines


def notebook_title(path: Path) -> str:
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "markdown":
            for line in "".join(cell["source"]).splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return path.stem


def _add_toctree(app, docname, source):
    if docname != app.config.root_doc or app.builder.name == "gettext":  # titles are each page's messages
        return
    from .editions import title_in

    src = Path(app.srcdir)
    names = [p.stem for p in src.glob("*.ipynb")]
    titles = {n: title_in(app, n, notebook_title(src / f"{n}.ipynb")) for n in names}
    entries = "\n".join(toc_entries(names, docname, titles))
    nb = json.loads(source[0])
    nb["cells"].append({"cell_type": "markdown", "metadata": {}, "id": "tokenpath-toc",
                        "source": f"```{{toctree}}\n:hidden:\n:maxdepth: 2\n\n{entries}\n```\n"})
    source[0] = json.dumps(nb)


class OpenAsNotebook(SphinxTransform):
    """Under each page's title: how to open the page as a notebook, and its ``.ipynb``."""

    default_priority = 900

    def apply(self):
        docname = self.env.docname
        title = next(iter(self.document.findall(nodes.title)), None)
        if title is None:
            return
        from ..i18n import _
        from .editions import chinese

        name = f"{Path(docname).name}.ipynb"
        if chinese(self.app):
            command, path = "make lab LANG=zh_CN", f"notebooks/zh/{name}"
        else:
            command, path = "make lab", f"notebooks/{name}"
        note = ('<p class="tp-open">' + html.escape(_(
            "This page is a notebook: run {command} in the repository and open {path} to run it, or download {file}.")
        ).format(command=f"<code>{command}</code>", path=f"<code>{path}</code>",
                 file=f'<a class="reference download" href="{NOTEBOOKS}/{name}" download>{name}</a>') + "</p>")
        title.parent.insert(title.parent.index(title) + 1, nodes.raw("", note, format="html"))


def figure_file(png: bytes, out: Path, prefix: str = "") -> str:
    """Write the pixels of ``png`` as a lossless WebP file named by its content into
    ``out``; return its path relative to the pages (``prefix`` first: where the
    edition finds the shared files)."""
    from .images import encode, pixels

    data = encode(pixels(png))
    name = f"{hashlib.sha1(data).hexdigest()[:16]}.webp"
    out.mkdir(parents=True, exist_ok=True)
    if not (out / name).exists():
        (out / name).write_bytes(data)
    return f"{prefix}{FIGURES}/{name}"


class FigureFiles(SphinxTransform):
    """A figure stored in a notebook (a PNG inside its HTML output) becomes a file of
    its own, as lossless WebP: the same pixels in about a third of the bytes, and the
    page's text no longer carries it."""

    default_priority = 905

    def apply(self):
        if self.app.builder.format != "html":
            return
        from .editions import shared_dir, shared_prefix

        out, prefix = shared_dir(self.app) / FIGURES, shared_prefix(self.app)
        for raw in list(self.document.findall(nodes.raw)):
            text = raw.astext()
            if "data:image/png;base64," in text:
                text = _DATA_PNG.sub(
                    lambda m: f'src="{figure_file(base64.b64decode(m.group(1)), out, prefix)}"', text)
                raw.parent.replace(raw, nodes.raw("", text, format="html"))


_NOTEBOOK_HREF = re.compile(r'href="([\w-]+)\.ipynb(#[^"]*)?"')


def notebook_links_to_pages(text: str) -> str:
    """Links to another notebook in an HTML output (the journey map's) point at its page.

    >>> notebook_links_to_pages('<a href="98_notation.ipynb">N</a> <a href="04_a.ipynb#4.1-X">x</a>')
    '<a href="98_notation.html">N</a> <a href="04_a.html#4.1-X">x</a>'
    """
    return _NOTEBOOK_HREF.sub(lambda m: f'href="{m.group(1)}.html{m.group(2) or ""}"', text)


class NotebookLinks(SphinxTransform):
    """The prose's ``.ipynb`` links are resolved by MyST; those inside a cell's HTML
    output are rewritten here to the pages of the edition."""

    default_priority = 906

    def apply(self):
        for raw in list(self.document.findall(nodes.raw)):
            text = raw.astext()
            if ".ipynb" in text and "href=" in text:
                raw.parent.replace(raw, nodes.raw("", notebook_links_to_pages(text), format="html"))


def _finish(app, exception):
    if exception or app.builder.format != "html":
        return
    from .editions import chinese

    out = Path(app.outdir)
    target = out / NOTEBOOKS
    target.mkdir(exist_ok=True)
    for nb in Path(app.srcdir).glob("*.ipynb"):  # the Chinese edition offers the Chinese notebooks
        zh = Path(app.srcdir) / "zh" / nb.name
        shutil.copyfile(zh if chinese(app) and zh.is_file() else nb, target / nb.name)
    shutil.copyfile(out / f"{app.config.root_doc}.html", out / "index.html")
    for source_map in out.glob("_static/**/*.map"):  # debugging aids of the theme's scripts
        source_map.unlink()
    for catalog in out.glob("_static/locales/*"):  # the theme's template translations, read from its
        shutil.rmtree(catalog)  # package while building: no page loads them (46 languages, 0.7 MB)
    report = budgets(out, TOTAL_BUDGET_ZH if chinese(app) else TOTAL_BUDGET,
                     page_budget=PAGE_BUDGET_ZH if chinese(app) else PAGE_BUDGET)
    print(report.text)
    if report.over:
        raise SystemExit("make book: over the size budget: " + "; ".join(report.over))


class Budget:
    def __init__(self, total, pages, over, text):
        self.total, self.pages, self.over, self.text = total, pages, over, text


_REF = re.compile(r'(?:src|href)="([^"#?:]+)(?:[?#][^"]*)?"')
_FRAME = re.compile(r'"((?:\.\./[a-z]+/)?_frames/[0-9a-f]+\.webp)"')


def page_bytes(page: Path, out: Path, *, shared: bool = False) -> int:
    """The bytes of ``page``: its HTML and every local file it refers to (images,
    frames; each once; not the pages and downloads it links to). The theme's files, fonts and scripts in ``_static/``, loaded by
    every page and cached after the first, count only with ``shared=True``."""
    text = page.read_text(encoding="utf-8")
    files = {page}
    for ref in _REF.findall(text) + _FRAME.findall(text):
        path = (page.parent / ref).resolve()
        if path.is_file() and path.suffix not in (".html", ".ipynb", ".pdf") and (shared or "_static" not in path.parts):
            files.add(path)
    for css in [f for f in files if f.suffix == ".css"]:
        for ref in re.findall(r"url\(['\"]?([^'\")#?]+)", css.read_text(encoding="utf-8", errors="replace")):
            path = (css.parent / ref).resolve()
            if path.is_file():
                files.add(path)
    return sum(f.stat().st_size for f in files)


def shared_files(out: Path) -> set:
    """The files outside ``out`` that its pages show (another edition's frames and
    figure files), each once."""
    found = set()
    for page in out.glob("*.html"):
        text = page.read_text(encoding="utf-8")
        for ref in _REF.findall(text) + _FRAME.findall(text):
            if ref.startswith("../"):
                path = (page.parent / ref).resolve()
                # another edition's files, not a download beside the editions (the PDFs)
                if (path.is_file() and path.suffix != ".pdf" and not path.is_relative_to(out.resolve())
                        and path.is_relative_to(out.resolve().parent)):
                    found.add(path)
    return found


def budgets(out: Path, budget: int = TOTAL_BUDGET, page_budget: float = PAGE_BUDGET) -> Budget:
    """The edition's size: its own files, and the files of another edition its pages
    show (shared, counted once), against ``budget``; each page against ``page_budget``."""
    own = sum(f.stat().st_size for f in out.rglob("*") if f.is_file() and ".doctrees" not in f.parts)
    shared = sum(f.stat().st_size for f in shared_files(out))
    total = own + shared
    pages = {p.name: page_bytes(p, out) for p in sorted(out.glob("*.html"))}
    over = []
    if total > budget:
        over.append(f"the edition is {total / 2**20:.1f} MB > {budget / 2**20:.0f} MB")
    over += [f"{n} loads {b / 2**20:.2f} MB > {page_budget / 2**20:.2f} MB" for n, b in pages.items() if b > page_budget]
    largest = max(pages, key=pages.get) if pages else "-"
    theme = page_bytes(out / largest, out, shared=True) - pages[largest] if pages else 0
    static = sum(f.stat().st_size for f in (out / "_static").rglob("*") if f.is_file())
    with_shared = f", of which {shared / 2**20:.1f} MB shared with another edition" if shared else ""
    lines = [f"size budget: whole edition {out.name} {total / 2**20:.1f} MB{with_shared} (at most {budget / 2**20:.0f} MB); "
             f"largest page {largest} {pages.get(largest, 0) / 2**20:.2f} MB with its images and frames "
             f"(at most {page_budget / 2**20:.2f} MB), plus {theme / 2**20:.2f} MB of theme, scripts and fonts "
             f"that every page loads and shares ({static / 2**20:.2f} MB in all in _static/), so "
             f"{(pages.get(largest, 0) + theme) / 2**20:.2f} MB when it is the first page opened"]
    lines += [f"  {b / 2**20:6.2f} MB  {n}" for n, b in sorted(pages.items(), key=lambda t: -t[1])]
    return Budget(total, pages, over, "\n".join(lines))


def setup(app):
    app.connect("source-read", _add_toctree)
    app.add_transform(OpenAsNotebook)
    app.add_transform(FigureFiles)
    app.add_transform(NotebookLinks)
    app.connect("build-finished", _finish)
