"""The book's map, computed from the chapters themselves: which figures, widgets and
engine modules each chapter uses, read from the code cells of ``book/NN_*.md``
(``show(n)`` calls, ``widgets.name(...)`` calls and ``from tokenpath import ...``) and
named through the registries (:data:`tokenpath.figures.FIGURES`,
:data:`tokenpath.widgets.SLIDERS`). The guide chapter, ``00_index``, prints it.

Each chapter opens with its :func:`journey` map (:mod:`tokenpath.journey`): the path
from text to probabilities with the chapter's stages marked. The map cell imports
``guide``, a helper, so it adds no engine module to the chapter's entry here.

>>> uses = chapter_uses("```{code-cell} ipython3\\nfrom tokenpath import attention as A, fmt\\nshow(8)\\n```\\n")
>>> uses.figures, uses.modules
((8,), ('attention',))
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from .journey import journey

__all__ = ["GUIDE_PAGES", "HELPERS", "ChapterUse", "book_dir", "book_map", "chapter_uses", "describe", "journey"]

#: Pages of the book that are about the book, not chapters of it: the guide, what to
#: know before starting, the notation and the glossary.
GUIDE_PAGES = ("00_index", "00_prerequisites", "98_notation", "99_glossary")
#: Modules every chapter imports to display, teach and check things (``guide`` for the
#: journey map at its top); the map lists the others.
HELPERS = frozenset({"examples", "exercises", "figures", "fmt", "guide", "journey", "lessons", "questions",
                     "widgets"})

_CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```", re.S | re.M)
_YAML_OPTIONS = re.compile(r"\A---\n.*?^---\n", re.S | re.M)


@dataclass(frozen=True)
class ChapterUse:
    """What one chapter's code cells use."""

    chapter: str  # file name without .md, e.g. "04_attention"
    title: str  # the chapter's "# " heading
    figures: tuple[int, ...]  # figure numbers shown with show(n), in order of first use
    widgets: tuple[str, ...]  # widget constructors called as widgets.name(...)
    modules: tuple[str, ...]  # engine modules imported from tokenpath (helpers left out)


def _code(text: str) -> str:
    cells = []
    for body in _CODE_CELL.findall(text):
        body = _YAML_OPTIONS.sub("", body)  # a cell's metadata block (---, YAML, ---) is no code
        lines = [ln for ln in body.splitlines() if not ln.startswith((":", "%", "!"))]
        cells.append("\n".join(lines))
    return "\n".join(cells)


def chapter_uses(text: str, chapter: str = "", title: str = "") -> ChapterUse:
    """Read a MyST chapter's code cells and list the figures, widgets and modules they use."""
    tree = ast.parse(_code(text))
    figures, widgets, modules = [], [], []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            parts = node.module.split(".")
            if parts[0] != "tokenpath":
                continue
            names = [a.name for a in node.names] if len(parts) == 1 else [parts[1]]
            modules += [n for n in names if n not in HELPERS and n not in modules]
        elif isinstance(node, ast.Call):
            f = node.func
            if (isinstance(f, ast.Name) and f.id == "show" and node.args
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, int)):
                figures.append(node.args[0].value)
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "widgets":
                widgets.append(f.attr)
    order = lambda seq: tuple(dict.fromkeys(seq))  # noqa: E731  (first use, no repeats)
    return ChapterUse(chapter, title, tuple(sorted(set(figures))), order(widgets), tuple(sorted(modules)))


def book_dir() -> Path:
    """The ``book/`` folder of the checkout this package runs from."""
    path = Path(__file__).resolve().parents[2] / "book"
    if not path.is_dir():
        raise ValueError(f"no book/ folder next to the package (looked at {path}); pass root=")
    return path


def book_map(root: str | Path | None = None) -> tuple[ChapterUse, ...]:
    """:class:`ChapterUse` for every chapter ``book/NN_*.md`` in reading order (guide
    pages left out)."""
    root = Path(root) if root is not None else book_dir()
    out = []
    for path in sorted(root.glob("[0-9][0-9]_*.md")):
        if path.stem in GUIDE_PAGES:
            continue
        text = path.read_text(encoding="utf-8")
        title = next((ln[2:].strip() for ln in text.splitlines() if ln.startswith("# ")), path.stem)
        out.append(chapter_uses(text, path.stem, title))
    return tuple(out)


def describe(uses: tuple[ChapterUse, ...], lang: str | None = None) -> str:
    """The map as text: per chapter its figures (with their registered titles), its
    widgets (sliders marked) and its engine modules; in ``lang`` (a Chinese notebook's
    guide passes it: the chapter titles as the page catalogs translate them), else in
    the engine's language."""
    from .i18n import _, using

    if lang is not None:
        with using(lang):
            return describe(uses)
    from .figures import registry
    from .widgets import SLIDERS

    figures = registry()
    lines = []
    for u in uses:
        lines.append(f"{u.chapter}  {_chapter_title(u)}")
        figs = _("; ").join(f"{n} {_(figures[n].title)}" for n in u.figures) or _("none")
        lines.append(_("  figures: {figures}").format(figures=figs))
        wids = _(", ").join(_("{name} (slider)").format(name=w) if w in SLIDERS else w for w in u.widgets) or _("none")
        lines.append(_("  widgets: {widgets}").format(widgets=wids))
        lines.append(_("  modules: {modules}").format(modules=_(", ").join(u.modules) or _("none")))
    return "\n".join(lines)


def _chapter_title(u: ChapterUse) -> str:
    """A chapter's title in the engine's language: its page catalog's translation."""
    from .i18n import language
    from .i18n.notebooks import page_messages

    if language() == "en":
        return u.title
    return page_messages(u.chapter, language()).get(u.title, u.title)
