"""One print document from an edition's pages: a cover, the contents, every page.

Each page's article is taken as Sphinx wrote it and changed only where print needs it:

- every ``id`` becomes ``<page>--<id>`` and every link to a page of the edition a link
  to that id (or to the page's first element), so links between chapters, to the
  glossary and to figures stay links inside the PDF; links to the web stay as they
  are; links to files the PDF does not hold (a notebook's ``.ipynb``, the index,
  search) become their text;
- every ``<details>`` is open (a solution's code, a hidden output, a question's
  answer); the toggle lines that say "Show …" are left out by the stylesheet;
- scripts are left out, so each slider is the HTML edition's no-script view, its
  default frame and caption, and its note says which state that is;
- the line under each title on opening the page as a notebook is left out, and so is the
  moving picture above a chapter's main slider (its first frame is the slider's default
  state, which the slider below it prints);
- images and stylesheets are referred to by absolute ``file:`` URLs, so the document
  can be written anywhere.

Each page is a named page of the print stylesheet (``tp-p<N>``), whose header is its
title as the contents list it. Every entry of the contents (each page and each of its
second-level sections) links to an anchor ``toc-<N>`` on its heading; the page that
anchor lands on is the entry's number (:mod:`.render`).
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from .editions import Edition, Page, reading_order

#: The print stylesheet (shipped with the HTML edition's static files).
PRINT_CSS = Path(__file__).resolve().parents[1] / "_sphinx" / "static" / "tokenpath-print.css"

#: The few words the PDF adds, per language (English for any other).
WORDS = {
    "en": {"contents": "Contents", "edition": "PDF edition, printed from the HTML edition",
           "slider": "Printed at the slider's default state ({state}); in the notebook and the HTML edition the "
                     "slider moves it.",
           "quiz": "In print, the engine's answer follows each question: cover it while you work one out."},
    "zh": {"contents": "目录", "edition": "PDF 版，由 HTML 版印出",
           "slider": "此处印出滑块的默认状态（{state}）；在笔记本和 HTML 版中可以拖动滑块改变它。",
           "quiz": "印刷版中，每道题后面紧跟引擎给出的答案：作答时请先遮住它。"},
}


#: A page with more second-level headings than this is a list (the glossary's terms), and
#: the contents show only the page.
MOST_SECTIONS = 30


@dataclass
class Entry:
    """A line of the contents: its text, depth (1 a page, 2 a section) and anchor."""
    text: str
    level: int
    anchor: str


@dataclass
class Document:
    html: str
    title: str
    subtitle: str
    entries: list[Entry] = field(default_factory=list)
    pages: list[Page] = field(default_factory=list)


def words(lang: str) -> dict[str, str]:
    return WORDS.get(lang, WORDS["en"])


def css_string(text: str) -> str:
    """``text`` as a CSS string literal.

    >>> print(css_string('a "b" \\\\ c\\nd'))
    "a \\"b\\" \\\\ c d"
    """
    text = re.sub(r"\s+", " ", text).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` (up to the first full stop followed by a space).

    >>> first_sentence("It follows a string: here. Then more.")
    'It follows a string: here.'
    """
    text = re.sub(r"\s+", " ", text).strip()
    found = re.search(r"[.。](\s|$)", text)
    return text[:found.start() + 1] if found else text


def _absolute(url: str, base: Path) -> str:
    parts = urlsplit(url)
    if parts.scheme or url.startswith(("//", "#")) or not parts.path:
        return url
    target = (base / unquote(parts.path)).resolve()
    return target.as_uri() + (f"#{parts.fragment}" if parts.fragment else "")


def _slider_state(box) -> str:
    data = json.loads(box.find("script", class_="tp-slider-data").string)
    return ", ".join(f"{label} {data['readouts'][j][data['start'][j]]}".strip()
                     for j, label in enumerate(data["labels"]))


def _article(page: Page, folder: Path, names: set[str], say: dict[str, str]):
    """The page's article, changed for print (see the module docstring)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup((folder / f"{page.name}.html").read_text(encoding="utf-8"), "html.parser")
    article = soup.find("article", class_="bd-article")
    if article is None:
        raise ValueError(f"{page.name}.html has no <article class=\"bd-article\">")
    for box in article.find_all("div", class_="tp-slider"):
        note = box.find("p", class_="tp-note")
        if note is not None:
            note.clear()
            note.append(say["slider"].format(state=_slider_state(box)))
    for node in article.select("script, p.tp-open, a.headerlink, figure.tp-media"):
        node.decompose()
    for note in article.find_all("p", class_="tp-quiz-note"):
        note.clear()
        note.append(say["quiz"])
    for details in article.find_all("details"):
        details["open"] = ""
    for node in article.find_all(id=True):
        node["id"] = f"{page.name}--{node['id']}"
    for attr in ("aria-labelledby", "aria-describedby", "for"):
        for node in article.find_all(attrs={attr: True}):
            node[attr] = " ".join(f"{page.name}--{i}" for i in node[attr].split())
    for img in article.find_all(["img", "source"]):
        img.attrs.pop("loading", None)
        if img.get("src"):
            img["src"] = _absolute(img["src"], folder)
    for link in article.find_all("a", href=True):
        href = link["href"]
        parts = urlsplit(href)
        if parts.scheme or href.startswith("//"):
            continue
        target = page.name if not parts.path else unquote(parts.path).removesuffix(".html")
        if target in names and parts.path in ("", f"{target}.html"):
            link["href"] = f"#{target}--{unquote(parts.fragment)}" if parts.fragment else f"#{target}"
        else:
            link.unwrap()
    return article


def document(edition: Edition, pages: list[Page] | None = None) -> Document:
    """The print document of ``edition`` (all its pages in reading order unless
    ``pages`` says which), with its contents' entries; the page numbers are left blank."""
    from bs4 import BeautifulSoup

    folder = edition.folder.resolve()
    pages = reading_order(folder) if pages is None else pages
    if not pages:
        raise ValueError(f"the edition in {str(folder)!r} lists no pages")
    say = words(edition.lang)
    index = BeautifulSoup((folder / "index.html").read_text(encoding="utf-8"), "html.parser")
    title = (index.title.string or "").split("\u2014")[-1].strip() or "tokenpath"
    sheets = [_absolute(link["href"], folder) for link in index.find_all("link", rel="stylesheet")]
    names = {p.name for p in pages}

    entries, chapters, rules = [], [], []
    for number, page in enumerate(pages, start=1):
        article = _article(page, folder, names, say)
        sections = article.find_all("h2")
        for level, heading in [(1, article.find("h1"))] + [(2, h) for h in sections if len(sections) <= MOST_SECTIONS]:
            if heading is None:
                continue
            anchor = f"toc-{len(entries) + 1}"
            heading["id"] = anchor
            text = page.title if level == 1 else heading.get_text(" ", strip=True)
            entries.append(Entry(re.sub(r"\s+", " ", text), level, anchor))
        rules.append(f"@page tp-p{number} {{ @top-center {{ content: {css_string(page.title)}; }} }}")
        chapters.append(f'<section class="tp-page" id="{page.name}" style="page: tp-p{number}">{article}</section>')

    guide = _article(pages[0], folder, names, say)
    notes = {"tp-lang", "tp-untranslated"}  # the link to the other edition and the untranslated note
    lead = next((p for p in guide.find_all("p") if p.get_text(strip=True) and not notes & set(p.get("class") or [])), None)
    subtitle = first_sentence(lead.get_text(" ")) if lead is not None else ""
    toc = "".join(
        f'<li class="tp-toc-{e.level}"><a href="#{e.anchor}"><span class="tp-toc-text">{html.escape(e.text)}</span>'
        f'<span class="tp-toc-page" data-anchor="{e.anchor}"></span></a></li>' for e in entries)
    head = "".join(f'<link rel="stylesheet" href="{html.escape(s)}">' for s in sheets)
    text = (
        f'<!DOCTYPE html>\n<html lang="{html.escape(edition.lang)}" data-theme="light" data-mode="light">'
        f'<head><meta charset="utf-8"><title>{html.escape(title)}</title>{head}'
        f'<link rel="stylesheet" href="{PRINT_CSS.as_uri()}"><style>\n' + "\n".join(rules) + '\n</style></head>'
        f'<body class="tp-print">'
        f'<section class="tp-cover"><p class="tp-cover-title">{html.escape(title)}</p>'
        f'<p class="tp-cover-subtitle">{html.escape(subtitle)}</p>'
        f'<p class="tp-cover-edition">{html.escape(say["edition"])}</p></section>'
        f'<nav class="tp-contents" id="tp-contents"><h1>{html.escape(say["contents"])}</h1><ol>{toc}</ol></nav>'
        + "".join(chapters) + "</body></html>\n")
    return Document(text, title, subtitle, entries, pages)
