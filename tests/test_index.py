"""The guide (book/00_index.md) and the glossary (book/99_glossary.md).

* The chapter map is computed by ``tokenpath.guide`` from the chapters' own code cells
  and covers every registered figure and slider.
* Every glossary entry links to the section that defines it, and that chapter links
  the term back to the entry; every glossary link in any chapter names an entry.
* Links are written for JupyterLab (``NN_name.ipynb#Heading-text``); the HTML edition
  rewrites each to the page and the id its renderer gives the same heading.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tokenpath import guide
from tokenpath.figures import registry
from tokenpath.widgets import SLIDERS

ROOT = Path(__file__).resolve().parents[1]
FIGURES = registry()
BOOK = ROOT / "book"
GLOSSARY = BOOK / "99_glossary.md"
LINK = re.compile(r"\]\(([\w-]+)\.ipynb(?:#([^)\s]+))?\)")
ENTRY = re.compile(r"^### (.+)$", re.M)


def jupyterlab_anchor(heading: str) -> str:
    """The fragment JupyterLab gives a heading: its text with spaces as hyphens."""
    return heading.strip().replace(" ", "-")


def headings(stem: str) -> dict[str, str]:
    """{JupyterLab fragment: heading text} for every heading of book/<stem>.md outside code."""
    text = re.sub(r"^```.*?^```", "", (BOOK / f"{stem}.md").read_text(encoding="utf-8"), flags=re.S | re.M)
    return {jupyterlab_anchor(h): h for h in re.findall(r"^#+ (.+)$", text, re.M)}


def entries() -> dict[str, str]:
    """{entry fragment: the entry's text} of the glossary."""
    text = GLOSSARY.read_text(encoding="utf-8")
    parts = ENTRY.split(text)[1:]
    return {jupyterlab_anchor(parts[k]): parts[k + 1] for k in range(0, len(parts), 2)}


def chapters() -> list[str]:
    return [p.stem for p in sorted(BOOK.glob("[0-9][0-9]_*.md")) if p.stem not in guide.GUIDE_PAGES]


# ------------------------------------------------------------------ the map


def test_the_map_lists_every_chapter_and_covers_every_figure_and_slider():
    uses = guide.book_map(BOOK)
    assert [u.chapter for u in uses] == chapters()
    shown = {n for u in uses for n in u.figures}
    assert shown == set(FIGURES), f"figures no chapter shows: {sorted(set(FIGURES) - shown)}"
    import tokenpath.widgets as W

    built = {w for u in uses for w in u.widgets}
    assert built and all(callable(getattr(W, w, None)) for w in built), "the map lists a widget the package lacks"
    assert built & set(SLIDERS), "the map marks no slider"
    assert all(u.modules for u in uses), "every chapter imports at least one engine module"


def test_the_map_reads_imports_figures_and_widgets_from_code_cells_only():
    text = (
        "Prose that mentions show(3) and widgets.fake() is not code.\n\n"
        "```{code-cell} ipython3\n:tags: [nbval-ignore-output]\n\n"
        "from tokenpath import attention as A, fmt, widgets\nfrom tokenpath.figures import show\n"
        "from tokenpath import norms\nimport numpy as np\nshow(9)\nshow(7)\nshow(9)\nw = widgets.value_magnitude()\n```\n"
    )
    uses = guide.chapter_uses(text, "04_x", "X")
    assert uses.figures == (7, 9) and uses.widgets == ("value_magnitude",)
    assert uses.modules == ("attention", "norms")
    described = guide.describe((uses,))
    assert f"7 {FIGURES[7].title}" in described and "value_magnitude (slider)" in described


def test_the_guide_prints_the_computed_map():
    text = (BOOK / "00_index.md").read_text(encoding="utf-8")
    assert "print(guide.describe(guide.book_map()))" in text


def test_book_map_of_an_empty_folder_is_empty_and_a_missing_book_folder_is_named(tmp_path, monkeypatch):
    assert guide.book_map(tmp_path) == ()
    monkeypatch.setattr(guide, "__file__", str(tmp_path / "lib" / "tokenpath" / "guide.py"))
    with pytest.raises(ValueError, match="no book/ folder"):
        guide.book_map()


# ------------------------------------------------------------------ the glossary


def test_every_glossary_entry_gives_the_chinese_term_and_links_to_its_defining_section():
    found = entries()
    assert len(found) >= 15
    problems = []
    for anchor, body in found.items():
        if not re.search(r"[\u4e00-\u9fff]", body):
            problems.append(f"{anchor}: no Chinese term")
        links = [(s, f) for s, f in LINK.findall(body) if s != "99_glossary"]
        if len(links) != 1:
            problems.append(f"{anchor}: {len(links)} links to a chapter, expected one")
            continue
        stem, fragment = links[0]
        if not (ROOT / "notebooks" / f"{stem}.ipynb").exists():
            problems.append(f"{anchor}: links to {stem}.ipynb, which does not exist")
        elif fragment not in headings(stem):
            problems.append(f"{anchor}: {stem}.ipynb has no heading #{fragment}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("stem", chapters())
def test_every_glossary_link_in_a_chapter_names_an_entry(stem):
    text = (BOOK / f"{stem}.md").read_text(encoding="utf-8")
    targets = [f for s, f in LINK.findall(text) if s == "99_glossary"]
    assert targets, f"{stem} links no term to the glossary"
    unknown = sorted(set(targets) - set(entries()))
    assert not unknown, f"{stem} links to glossary entries that do not exist: {unknown}"


def test_every_entry_is_linked_from_the_chapter_that_defines_it():
    missing = []
    for anchor, body in entries().items():
        stem = next(s for s, _ in LINK.findall(body) if s != "99_glossary")
        if f"99_glossary.ipynb#{anchor})" not in (BOOK / f"{stem}.md").read_text(encoding="utf-8"):
            missing.append(f"{anchor} is defined in {stem} but not linked from it")
    assert not missing, "\n".join(missing)


def test_the_guide_links_to_the_glossary():
    assert "](99_glossary.ipynb)" in (BOOK / "00_index.md").read_text(encoding="utf-8")


# ------------------------------------------------------------------ the HTML edition


def test_the_html_edition_anchors_every_linked_heading_where_jupyterlab_does():
    """The HTML edition names a heading's anchor as JupyterLab does
    (tokenpath._sphinx.heading_slug), so each link's fragment names a heading of its page."""
    from tokenpath._sphinx import heading_slug

    pages = [*chapters(), "00_index", "99_glossary"]
    links = [link for page in pages for link in LINK.findall((BOOK / f"{page}.md").read_text(encoding="utf-8"))]
    assert links
    missing = [f"{stem}#{fragment}" for stem, fragment in links
               if fragment and fragment not in {heading_slug(h) for h in headings(stem).values()}]
    assert not missing, f"links to headings that do not exist: {missing}"
