"""Which editions the HTML build holds, and each one's pages in reading order.

An edition is a folder with an ``index.html`` that Sphinx wrote: ``build/html/`` itself
(one language) or one folder per language inside it (``build/html/en/``,
``build/html/zh/``). Its language is the ``lang`` of its pages; its reading order is
the order of its table of contents, as the sidebar of ``index.html`` lists it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from . import language_code

_LANG = re.compile(r"<html[^>]*\slang=\"([^\"]+)\"")


@dataclass(frozen=True)
class Edition:
    folder: Path
    lang: str  # the short code: "en", "zh"


@dataclass(frozen=True)
class Page:
    name: str   # the page's file name without .html: "04_attention"
    title: str  # as the table of contents shows it: "4 · Causal attention, computed by hand"


def edition(folder: str | Path, lang: str | None = None) -> Edition:
    """The edition in ``folder``; its language from its pages unless ``lang`` is given."""
    folder = Path(folder)
    index = folder / "index.html"
    if not is_edition(folder):
        raise ValueError("folder must hold an HTML edition (an index.html with the table of contents, as make book "
                         f"writes it), got {str(folder)!r}")
    if lang is None:
        found = _LANG.search(index.read_text(encoding="utf-8"))
        lang = found.group(1) if found else None
    return Edition(folder, language_code(lang))


def is_edition(folder: Path) -> bool:
    """Whether ``folder`` holds a Sphinx edition: an ``index.html`` with the book's table
    of contents (a page that only chooses a language is not one)."""
    index = folder / "index.html"
    return index.is_file() and "bd-docs-nav" in index.read_text(encoding="utf-8")


def find(root: str | Path) -> list[Edition]:
    """Every edition under ``root``: ``root`` itself when it holds one, and each folder
    inside it that holds one, in name order. Two editions of one language are an error
    (their PDFs would have one name).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "index.html").write_text('<html lang="en"><a href="en/index.html">English</a>')
    ...     for sub, lang in [("en", "en"), ("zh", "zh-CN")]:
    ...         _ = (Path(tmp) / sub).mkdir()
    ...         _ = (Path(tmp) / sub / "index.html").write_text(f'<html lang="{lang}"><nav class="bd-docs-nav">')
    ...     [(e.folder.name, e.lang) for e in find(tmp)]
    [('en', 'en'), ('zh', 'zh')]
    """
    root = Path(root)
    folders = [root] if is_edition(root) else []
    if root.is_dir():
        folders += sorted(p for p in root.iterdir() if p.is_dir() and is_edition(p))
    if not folders:
        raise ValueError(f"no HTML edition in {str(root)!r}: run make book first")
    found = [edition(f) for f in folders]
    langs = [e.lang for e in found]
    if len(set(langs)) != len(langs):
        raise ValueError(f"two editions of one language in {str(root)!r}: {langs}")
    return found


_NAV = re.compile(r'<nav class="[^"]*\bbd-docs-nav\b[^"]*"[^>]*>(.*?)</nav>', re.S)
_LINK = re.compile(r'<li class="toctree-l1[^"]*">\s*<a class="[^"]*reference internal[^"]*" href="([^"#]*)(?:#[^"]*)?">'
                   r'\s*(.*?)\s*</a>', re.S)
_TAG = re.compile(r"<[^>]+>")


def reading_order(folder: str | Path) -> list[Page]:
    """The edition's pages in the order of its table of contents: the sidebar of its
    ``index.html`` (the home page first, then every top-level entry).

    >>> nav = ('<nav class="bd-docs-nav" aria-label="Main"><ul><li class="toctree-l1"><a class="reference internal" '
    ...        'href="#">Guide</a></li></ul><ul><li class="toctree-l1"><a class="reference internal" '
    ...        'href="01_a.html">1 · A &amp; B</a></li></ul></nav>')
    >>> reading_order_of(nav, "00_index")
    [Page(name='00_index', title='Guide'), Page(name='01_a', title='1 · A & B')]
    """
    folder = Path(folder)
    text = (folder / "index.html").read_text(encoding="utf-8")
    root = re.search(r"DOCUMENTATION_OPTIONS\.pagename = '([^']+)'", text)
    return reading_order_of(text, root.group(1) if root else "index")


def reading_order_of(text: str, root: str) -> list[Page]:
    import html

    nav = _NAV.search(text)
    if nav is None:
        raise ValueError("the page has no table of contents (a <nav class=\"bd-docs-nav\">)")
    pages = []
    for href, title in _LINK.findall(nav.group(1)):
        name = root if href in ("", "#", "index.html") else href.removesuffix(".html")
        pages.append(Page(name, html.unescape(_TAG.sub("", title)).strip()))
    if len({p.name for p in pages}) != len(pages):
        raise ValueError(f"a page is listed twice in the table of contents: {[p.name for p in pages]}")
    return pages
