"""The Chinese notebooks: ``notebooks/zh/NN_*.ipynb``, generated from the English
notebooks and the page catalogs (``make sync`` runs ``python -m tokenpath.i18n.notebooks``).

For each English notebook:

- every markdown cell is translated one unit at a time, with the units Sphinx's
  ``gettext`` builder extracts (each heading, paragraph, list item and table cell of
  the cell's MyST source, :func:`units`), looked up in the page's catalog; a unit with
  no translation stays English. A page not declared translated
  (:data:`tokenpath.i18n.TRANSLATED`) stays English whole, under a one-line note;
- links to a heading of a translated page (``04_attention.ipynb#4.2-Why-…``, or ``#…``
  within the page) are pointed at the translated heading's anchor, which JupyterLab
  makes from the heading's text (:func:`tokenpath._sphinx.heading_slug`'s rule);
- code cells are the English cells, except the calls that pick the language
  (:func:`translate_code`): ``tp.setup_notebook()`` becomes
  ``tp.setup_notebook(lang="zh_CN")``, and the journey map's cell, which runs before it,
  ``guide.journey(…, lang="zh_CN")``, as does the guide's map of the book
  (``guide.describe(…, lang="zh_CN")``);
- the notebook is then executed top to bottom in a fresh kernel by the book's executor
  (:func:`tokenpath._build.execute`, which ``make sync`` runs on the English notebooks),
  so its stored outputs are what a Chinese reader's kernel prints: questions, exercise
  messages, figure captions and alt texts, widgets, the lines lessons print. (The
  pixels of a figure are the English ones: figures are drawn once; lines a chapter's own
  code prints stay as that code writes them.)

So the code a Chinese reader runs is the code nbval runs in English
(tests/test_i18n_notebooks.py proves it), and generating twice writes the same bytes.
``--no-execute`` translates without a kernel: a code cell whose source is unchanged keeps
its stored outputs, any other shows the English outputs (figure words and journey map
reworded) until the next full run; the fast tests use it to prove the markdown current.
The HTML edition shows these outputs too (:func:`tokenpath._sphinx.editions.chinese_outputs`).
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import sys
from functools import lru_cache
from pathlib import Path

from . import TRANSLATED, using
from .catalogs import ROOT, page_catalog, read

ENGLISH = ROOT / "notebooks"
SETUP = re.compile(r"\b(tp\.setup_notebook|setup_notebook)\(\)")
#: A chapter's journey map cell, ``guide.journey("04_attention")``, and the guide's map of
#: the book, ``guide.describe(guide.book_map())``: cells that run without the setup call.
JOURNEY = re.compile(r'\b((?:guide\.)?journey)\(("[\w-]+")\)')
BOOK_MAP = re.compile(r'\b((?:guide\.)?describe)\(((?:guide\.)?book_map\(\))\)')
#: The note on a page not yet translated, put under its title.
NOTE = "> 本页尚未译成中文，下面是英文原文。"
_LINK = re.compile(r"(\]\()([^)\s#]*?)(#[^)\s]+)(\))")


def slug(text: str) -> str:
    """A heading's anchor as JupyterLab writes it (spaces as hyphens)."""
    return text.strip().replace(" ", "-")


@lru_cache(maxsize=None)
def _parser():
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    config = MdParserConfig(enable_extensions={"dollarmath", "amsmath", "colon_fence", "deflist"},
                            dmath_double_inline=True, dmath_allow_space=True)
    return create_md_parser(config, RendererHTML)


def units(markdown: str) -> list[tuple[int, str, bool]]:
    """The translatable units of a markdown cell: (first line, MyST source, is heading).

    >>> units("## 3.1 Rows\\n\\nA *row*.\\n\\n- one\\n- two\\n")
    [(0, '3.1 Rows', True), (2, 'A *row*.', False), (4, 'one', False), (5, 'two', False)]
    """
    found, heading = [], False
    for token in _parser().parse(markdown):
        if token.type == "heading_open":
            heading = True
        elif token.type == "heading_close":
            heading = False
        elif token.type == "inline" and token.content.strip() and token.map is not None:
            found.append((token.map[0], token.content, heading))
        elif token.type == "math_block" and token.content.strip() and token.map is not None:
            found.append((token.map[0], token.content.strip(), False))  # display math, as Sphinx extracts it
        elif token.type == "fence" and token.map is not None and _DIRECTIVE.match(token.info):
            found.extend(_directive_units(token))
    return found


#: The MyST directives whose title and body are prose (a note, an admonition …), not code.
_DIRECTIVE = re.compile(r"\{(note|admonition|tip|hint|important|warning|caution|attention|seealso)\}\s*(.*)$")


def _directive_units(token) -> list[tuple[int, str, bool]]:
    """The units of a prose directive: its title (an admonition's), then its body's units
    after the option lines (``:class: dropdown``), on the cell's line numbers.

    >>> units("```{admonition} A note\\n:class: dropdown\\nSome *text*.\\n```\\n")
    [(0, 'A note', False), (2, 'Some *text*.', False)]
    """
    title = _DIRECTIVE.match(token.info).group(2).strip()
    out = [(token.map[0], title, False)] if title else []
    lines = token.content.splitlines(keepends=True)
    options = 0
    while options < len(lines) and re.match(r"\s*:[\w-]+:", lines[options]):
        options += 1
    body = "".join(lines[options:])
    out.extend((token.map[0] + 1 + options + first, text, heading) for first, text, heading in units(body))
    return out


def page_messages(page: str, lang: str = "zh_CN") -> dict[str, str]:
    """{English: translation} of ``page``'s catalog: translated, not fuzzy."""
    path = page_catalog(page, lang)
    if page not in TRANSLATED.get(lang, ()) or not path.exists():
        return {}
    return {m.id: m.string for m in read(path) if m.id and m.string and not m.fuzzy}


def lookup(messages: dict, text: str) -> str | None:
    return messages.get(text) or messages.get(text.replace("\n", " "))


def anchors(page: str, cells, messages: dict) -> dict[str, str]:
    """{English anchor: translated anchor} of ``page``'s headings."""
    out = {}
    for cell in cells:
        if cell["cell_type"] != "markdown":
            continue
        for _, text, heading in units("".join(cell["source"])):
            if heading and lookup(messages, text):
                out[slug(text)] = slug(lookup(messages, text))
    return out


def translate_markdown(source: str, messages: dict) -> str:
    """``source`` with each unit that has a translation replaced by it, in place."""
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    out = source
    for first, text, _ in sorted(units(source), key=lambda u: u[0], reverse=True):
        zh = lookup(messages, text)
        if zh is None:
            continue
        at = out.find(text, starts[min(first, len(lines))])
        if at < 0:
            raise ValueError(f"cannot place the translation of {text[:60]!r}")
        out = out[:at] + zh + out[at + len(text):]
    return out


def relink(source: str, page: str, maps: dict[str, dict[str, str]]) -> str:
    """Point each link at a translated page's heading to the translated anchor."""

    def swap(m):
        target = m.group(2)
        name = Path(target).stem if target else page
        anchor = m.group(3)[1:]
        new = maps.get(name, {}).get(anchor)
        return m.group(0) if new is None else f"{m.group(1)}{target}#{new}{m.group(4)}"

    return _LINK.sub(swap, source)


def _figure_words(outputs, page: str) -> list:
    """The stored outputs with each figure's caption and alt text in the
    engine's language (its PNG kept), and the journey map of ``page`` in it."""
    from .._sphinx.editions import MARK, figure_words, journey_words

    out = []
    for output in outputs:
        data = output.get("data", {})
        before = "".join(data.get("text/html", ""))
        if 'class="tokenpath-journey"' in before:
            from ..journey import journey

            output = copy.deepcopy(output)
            lists = isinstance(data["text/html"], list)
            html_, plain = journey_words(before, page), journey(page).text()
            output["data"]["text/html"] = html_.splitlines(keepends=True) if lists else html_
            output["data"]["text/plain"] = plain.splitlines(keepends=True) if lists else plain
            out.append(output)
            continue
        after = figure_words(before) if MARK in before else before
        if after != before:
            import html

            output = copy.deepcopy(output)
            caption = re.search(r"<figcaption>(.*?)</figcaption>", after, re.S).group(1)
            alt = re.search(r'alt="([^"]*)"', after).group(1)
            plain = f"{html.unescape(caption)}\n{html.unescape(alt)}"
            lists = isinstance(data["text/html"], list)  # stored as lines, as nbformat writes them
            output["data"]["text/html"] = after.splitlines(keepends=True) if lists else after
            output["data"]["text/plain"] = plain.splitlines(keepends=True) if lists else plain
        out.append(output)
    return out


def translate_code(source: str, lang: str) -> str:
    """A code cell's source as the Chinese notebook holds it: the calls that choose the
    language (:data:`SETUP`, and :data:`JOURNEY`, whose cell runs before the setup cell)
    given ``lang``; everything else as it is.

    >>> translate_code('guide.journey("04_attention")\\ntp.setup_notebook()', "zh_CN")
    'guide.journey("04_attention", lang="zh_CN")\\ntp.setup_notebook(lang="zh_CN")'
    >>> english_code(translate_code("print(guide.describe(guide.book_map()))", "zh_CN"))
    'print(guide.describe(guide.book_map()))'
    """
    source = SETUP.sub(lambda m: f'{m.group(1)}(lang="{lang}")', source)
    for call in (JOURNEY, BOOK_MAP):
        source = call.sub(lambda m: f'{m.group(1)}({m.group(2)}, lang="{lang}")', source)
    return source


def english_code(source: str) -> str:
    """The English source of a Chinese notebook's code cell (:func:`translate_code` undone).

    >>> english_code('guide.journey("04_attention", lang="zh_CN")')
    'guide.journey("04_attention")'
    """
    return re.sub(r'(setup_notebook\(|journey\("[\w-]+"|describe\((?:guide\.)?book_map\(\))(, )?lang="[\w-]+"\)',
                  r"\1)", source)


def translate_notebook(path: Path, lang: str = "zh_CN", maps: dict | None = None, *,
                       stored: dict | None = None, outputs: bool = True) -> dict:
    """The Chinese notebook of the English notebook at ``path``, as JSON.

    Its code cells' outputs: with ``outputs`` false, none (the notebook is executed
    next, :func:`execute`). Else a code cell whose source is that of the code cell at
    the same place in ``stored`` (the Chinese notebook written before, executed in
    Chinese) keeps that cell's outputs; any other has the English outputs, with
    figures and the journey map reworded (:func:`_figure_words`), until the notebook is
    executed again."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    page = path.stem
    messages = page_messages(page, lang)
    maps = maps if maps is not None else all_anchors(path.parent, lang)
    before = [c for c in stored["cells"] if c["cell_type"] == "code"] if stored else []
    first_markdown, code = True, 0
    with using(lang):
        for cell in nb["cells"]:
            text = "".join(cell["source"])
            if cell["cell_type"] == "markdown":
                text = relink(translate_markdown(text, messages), page, maps)
                if first_markdown and page not in TRANSLATED.get(lang, ()):
                    lines = text.split("\n")
                    title = next((i for i, line in enumerate(lines) if line.startswith("# ")), -1)
                    lines.insert(title + 1, f"\n{NOTE}" if title >= 0 else f"{NOTE}\n")
                    text = "\n".join(lines)
                first_markdown = False
            elif cell["cell_type"] == "code":
                text = translate_code(text, lang)
                old = before[code] if code < len(before) else None
                code += 1
                if not outputs:
                    cell["outputs"], cell["execution_count"] = [], None
                elif old is not None and "".join(old["source"]) == text:
                    cell["outputs"], cell["execution_count"] = old["outputs"], old["execution_count"]
                else:
                    cell["outputs"] = _figure_words(cell["outputs"], page)
            cell["source"] = text.splitlines(keepends=True)
    if stored and outputs:
        nb["metadata"]["language_info"] = stored["metadata"].get("language_info", {})
    nb["metadata"]["language_info"] = nb["metadata"].get("language_info", {})
    nb["metadata"]["jupytext"] = {"formats": "ipynb"}  # not paired with book/*.md
    return nb


def execute(nb: dict, folder: Path) -> dict:
    """``nb`` executed top to bottom in a fresh kernel in ``folder`` by the book's
    executor (:func:`tokenpath._build.execute`, as ``make sync`` runs the English
    notebooks), as JSON with its text stored as lines, as nbformat writes it."""
    import nbformat

    from .._build import execute as run

    node = nbformat.reads(dumps(nb), as_version=4)
    run(node, folder)
    return json.loads(nbformat.writes(node))


@lru_cache(maxsize=None)
def _anchors_of(path: str, mtime: float, lang: str) -> dict:
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    return anchors(Path(path).stem, nb["cells"], page_messages(Path(path).stem, lang))


def all_anchors(folder: Path, lang: str = "zh_CN") -> dict[str, dict[str, str]]:
    return {p.stem: _anchors_of(str(p), p.stat().st_mtime, lang) for p in sorted(folder.glob("*.ipynb"))}


def dumps(nb: dict) -> str:
    """A notebook's JSON as nbformat writes it."""
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def generate(source: Path = ENGLISH, lang: str = "zh_CN", only=None, *, run: bool = True) -> list[Path]:
    """Write ``source/zh/NN_*.ipynb`` for every English notebook (or those named in
    ``only``), executed in ``lang`` (or, with ``run`` false, keeping the outputs a
    code cell had, :func:`translate_notebook`). Returns the notebooks written anew."""
    target = source / lang.split("_")[0]
    target.mkdir(exist_ok=True)
    maps = all_anchors(source, lang)
    written = []
    for path in sorted(source.glob("*.ipynb")):
        if only and path.stem not in only:
            continue
        out = target / path.name
        stored = json.loads(out.read_text(encoding="utf-8")) if out.exists() else None
        nb = translate_notebook(path, lang, maps, stored=stored, outputs=not run)
        text = dumps(execute(nb, target) if run else nb)
        if not out.exists() or out.read_text(encoding="utf-8") != text:
            out.write_text(text, encoding="utf-8")
            written.append(out)
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tokenpath.i18n.notebooks", description=__doc__.splitlines()[0])
    parser.add_argument("--lang", default="zh_CN")
    parser.add_argument("--only", nargs="*", help="notebook names (default: all)")
    parser.add_argument("--no-execute", dest="run", action="store_false",
                        help="translate only: keep each unchanged code cell's stored outputs, no kernel")
    args = parser.parse_args(argv)
    unknown = [name for name in args.only or () if not (ENGLISH / f"{name}.ipynb").exists()]
    if unknown:
        parser.error(f"no English notebook named {', '.join(unknown)} in {ENGLISH}")
    for path in generate(lang=args.lang, only=args.only, run=args.run):
        print("wrote", path.relative_to(ROOT) if path.is_relative_to(ROOT) else path, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
