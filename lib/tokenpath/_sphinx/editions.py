"""Two editions from one source: English (``build/html/en/``) and Chinese
(``build/html/zh/``), built from the same stored notebooks.

The Chinese edition is Sphinx's own translation of the English pages
(``-D language=zh_CN``), with the catalogs in ``locales/zh_CN/LC_MESSAGES/`` (copied by
``make book`` for the pages declared translated, :data:`tokenpath.i18n.TRANSLATED`), and
the engine speaking Chinese (:mod:`tokenpath.i18n`) for everything a page computes when
it is built: questions, figure captions and alt texts, slider captions, the notes the
extension writes. What this module adds:

- each page links to itself in the other edition, under its title;
- a page not declared translated is shown in English, under a one-line note saying so
  (generated here, never typed into a page), and marked ``lang="en"``;
- the sidebar's chapter titles are the translated titles (:func:`title_in`);
- each code cell shows the outputs stored in the Chinese notebook,
  ``notebooks/zh/<page>.ipynb``, executed in Chinese (:func:`chinese_outputs`): exercise
  messages, printed lines, widgets; the English markdown stays for Sphinx to translate;
- a stored figure's caption and alt text are the engine's, in Chinese (:class:`FigureWords`;
  a figure stored by the Chinese notebook has them already);
- the slider frames and figure files are the English edition's: the Chinese pages
  refer to ``../en/_frames/`` and ``../en/_figures/`` instead of copying them
  (:func:`shared_prefix`);
- Chinese search splits words with ``jieba``, which must be installed, and knows the
  glossary's Chinese terms as words (:func:`search_terms`).
"""

from __future__ import annotations

import html
import json
import re
from functools import lru_cache
from pathlib import Path

from docutils import nodes
from sphinx.transforms import SphinxTransform

#: Each edition's folder under the build's output, by Sphinx language.
FOLDERS = {"en": "en", "zh_CN": "zh"}
#: The switch's words, in the language of the edition it links to.
SWITCH = {"en": ("English edition", "en"), "zh_CN": ("中文版", "zh-CN")}


def lang(app) -> str:
    return app.config.language or "en"


def chinese(app) -> bool:
    return lang(app).startswith("zh")


def other(app) -> str:
    return "en" if chinese(app) else "zh_CN"


def shared_prefix(app) -> str:
    """Where this edition's pages find the slider frames and figure files: its own
    folder (English) or the English edition's (``../en/``)."""
    return f"../{FOLDERS['en']}/" if chinese(app) else ""


def shared_dir(app) -> Path:
    """The folder that holds the shared frames and figure files."""
    return Path(app.outdir).resolve().parent / FOLDERS["en"] if chinese(app) else Path(app.outdir).resolve()


def translated(app, docname: str) -> bool:
    from ..i18n import TRANSLATED

    return not chinese(app) or docname in TRANSLATED.get(lang(app), ())


@lru_cache(maxsize=None)
def _catalog(path: str, mtime: float) -> dict:
    from babel.messages.pofile import read_po

    with open(path, "rb") as f:
        return {m.id: m.string for m in read_po(f) if m.id and m.string and not m.fuzzy}


def title_in(app, docname: str, title: str) -> str:
    """``title`` (a page's heading) as this edition shows it: its catalog's translation
    where the page is translated, else as it is."""
    if not chinese(app) or not translated(app, docname):
        return title
    for folder in app.config.locale_dirs:
        path = Path(app.confdir, folder) / lang(app) / "LC_MESSAGES" / f"{docname}.po"
        if path.is_file():
            return _catalog(str(path), path.stat().st_mtime).get(title, title)
    return title


def _configure(app, config):
    from .. import i18n
    from ..i18n import _

    i18n.set_language(lang(app) if lang(app) in i18n.LANGUAGES else "en")
    if chinese(app):
        try:
            import jieba  # Sphinx's Chinese search splits words with it
        except ImportError as exc:
            raise SystemExit("make book: the Chinese edition's search needs jieba (pip install jieba)") from exc
        import logging

        jieba.setLogLevel(logging.WARNING)  # not its dictionary's loading messages
        config.html_search_options = {**(config.html_search_options or {}), "dict": str(search_terms(app))}
        config.html_theme_options = {**config.html_theme_options, "search_bar_text": _("Search the book…")}
        config.html_title = config.project


def search_terms(app) -> Path:
    """A jieba user dictionary of the glossary's Chinese terms (残差流, 因果掩码, …), so the
    Chinese search indexes each term as one word as well as its parts; written beside
    the doctrees and given to Sphinx's Chinese splitter (``html_search_options["dict"]``)."""
    from ..i18n.checks import glossary_terms

    words = sorted({f.replace(" ", "") for _, forms in glossary_terms() for f in forms
                    if re.search(r"[\u4e00-\u9fff]", f)})
    path = Path(app.doctreedir) / "tokenpath-search-terms.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{w} 100000\n" for w in words), encoding="utf-8")
    return path


class EditionNotes(SphinxTransform):
    """Under each page's title: the link to the other edition and, in the Chinese
    edition, the note on a page not yet translated."""

    default_priority = 901

    def apply(self):
        from ..i18n import _

        if self.app.builder.format != "html":
            return
        title = next(iter(self.document.findall(nodes.title)), None)
        if title is None:
            return
        docname = self.env.docname
        words, code = SWITCH[other(self.app)]
        href = f"../{FOLDERS[other(self.app)]}/{docname}.html"
        parts = [f'<p class="tp-lang"><a href="{href}" hreflang="{code}" lang="{code}">{words}</a></p>']
        if not translated(self.app, docname):
            note = html.escape(_("This page is not yet translated; it is shown in English."))
            parts.append(f'<p class="tp-untranslated">{note}</p>')
        section = title.parent
        section.insert(section.index(title) + 1, nodes.raw("", "".join(parts), format="html"))


_FIGURE = re.compile(r'<figure class="tokenpath-figure" id="fig(\d+)">(.*?)</figure>', re.S)
_DRAWING = re.compile(r'<figure class="tokenpath-figure">(.*?)</figure>', re.S)
#: What marks a stored output that holds a figure or a chapter's unnumbered drawing.
MARK = 'class="tokenpath-figure"'


def _reword(body: str, caption: str, alt: str) -> str:
    body = re.sub(r'alt="[^"]*"', lambda _m: f'alt="{html.escape(alt, quote=True)}"', body, count=1)
    return re.sub(r"<figcaption>.*?</figcaption>", lambda _m: f"<figcaption>{html.escape(caption)}</figcaption>",
                  body, count=1, flags=re.S)


def figure_words(text: str) -> str:
    """A stored figure's HTML with its caption and alt text in the engine's language
    (the figure drawn again by its builder for the words; the pixels are kept). A
    chapter's unnumbered drawing is found by its English caption among
    :data:`tokenpath.figures.DRAWINGS` and re-worded only where its builder, drawn again
    in English, gives the stored alt text (the same numbers); any other is kept as it is."""
    from .. import figures
    from ..i18n import _, using

    def swap(m):
        number = int(m.group(1))
        drawn = figures.render(number)
        figures.style.close(drawn.figure)
        # a registered title is in the catalog, whichever way the builder spells it
        words = _("Figure {number} · {title}").format(number=number, title=_(drawn.title))
        return f'<figure class="tokenpath-figure" id="fig{m.group(1)}">{_reword(m.group(2), words, drawn.alt)}</figure>'

    def swap_drawing(m):
        caption = re.search(r"<figcaption>(.*?)</figcaption>", m.group(1), re.S)
        alt = re.search(r'alt="([^"]*)"', m.group(1))
        build = figures.drawing(html.unescape(caption.group(1))) if caption and alt else None
        if build is None:
            return m.group(0)
        with using("en"):
            same = build().alt == html.unescape(alt.group(1))
        if not same:
            return m.group(0)
        shown = build()
        return f'<figure class="tokenpath-figure">{_reword(m.group(1), shown.caption, shown.alt)}</figure>'

    return _DRAWING.sub(swap_drawing, _FIGURE.sub(swap, text))


_JOURNEY = re.compile(r'<nav class="tokenpath-journey".*?</nav>', re.S)


def journey_words(text: str, page: str) -> str:
    """A stored output's journey map (:mod:`tokenpath.journey`) of ``page`` drawn again
    in the engine's language."""
    from ..journey import journey

    return _JOURNEY.sub(lambda _m: journey(page).html(), text)


class FigureWords(SphinxTransform):
    """In the Chinese edition, each stored figure's caption and alt text (numbered, or a
    chapter's registered drawing), and the journey map, in Chinese (before its image
    becomes a file)."""

    default_priority = 904

    def apply(self):
        if self.app.builder.format != "html" or not chinese(self.app):
            return
        for raw in list(self.document.findall(nodes.raw)):
            text = raw.astext()
            if MARK in text:
                raw.parent.replace(raw, nodes.raw("", figure_words(text), format="html"))
            elif 'class="tokenpath-journey"' in text:
                raw.parent.replace(raw, nodes.raw("", journey_words(text, self.env.docname), format="html"))


def chinese_outputs(text: str, chinese_text: str, name: str = "the page") -> str:
    """An English notebook's JSON (``text``) with each code cell's outputs and execution
    count taken from its Chinese notebook (``chinese_text``, the same code cells in the
    same order, :mod:`tokenpath.i18n.notebooks`); markdown and code stay as they are.

    >>> en = {"cells": [{"cell_type": "markdown", "source": "Hi"},
    ...                 {"cell_type": "code", "source": "f()", "outputs": ["en"], "execution_count": 1}]}
    >>> zh = {"cells": [{"cell_type": "markdown", "source": "你好"},
    ...                 {"cell_type": "code", "source": "f()", "outputs": ["zh"], "execution_count": 1}]}
    >>> json.loads(chinese_outputs(json.dumps(en), json.dumps(zh)))["cells"] == [en["cells"][0], {**en["cells"][1], "outputs": ["zh"]}]
    True
    """
    from ..i18n.notebooks import english_code

    nb, zh = json.loads(text), json.loads(chinese_text)
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    zh_code = [c for c in zh["cells"] if c["cell_type"] == "code"]
    same = len(code) == len(zh_code) and all(
        english_code("".join(b["source"])) == "".join(a["source"]) for a, b in zip(code, zh_code))
    if not same:
        raise ValueError(f"the Chinese notebook of {name} does not hold its code cells: run python -m "
                         "tokenpath.i18n.notebooks (make sync)")
    for a, b in zip(code, zh_code):
        a["outputs"], a["execution_count"] = b["outputs"], b.get("execution_count")
    return json.dumps(nb, ensure_ascii=False)


def _chinese_outputs(app, docname, source):
    """In the Chinese edition, a page's code cells show its Chinese notebook's outputs
    (before MyST-NB reads the notebook's text)."""
    if not chinese(app) or app.builder.name == "gettext":
        return
    path = Path(app.srcdir) / lang(app).split("_")[0] / f"{docname}.ipynb"  # as the generator names it
    if not path.is_file():
        return
    from sphinx.errors import ExtensionError

    app.env.note_dependency(str(path))
    try:
        source[0] = chinese_outputs(source[0], path.read_text(encoding="utf-8"), f"{docname}.ipynb")
    except ValueError as exc:
        raise ExtensionError(str(exc)) from None


def _page_lang(app, pagename, templatename, context, doctree):
    """A page shown in English in the Chinese edition says so to the browser."""
    if chinese(app) and doctree is not None and not translated(app, pagename):
        context["body"] = f'<div lang="en">{context.get("body", "")}</div>'


def _search_script(app):
    if chinese(app):  # before Sphinx's language data, which needs it (static/tokenpath-zh-search.js)
        app.add_js_file("tokenpath-zh-search.js")


def setup(app):
    app.connect("config-inited", _configure)
    app.connect("source-read", _chinese_outputs)
    app.connect("builder-inited", _search_script)
    app.add_transform(EditionNotes)
    app.add_transform(FigureWords)
    app.connect("html-page-context", _page_lang)
