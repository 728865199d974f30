"""The guide (book/00_index.md), the journey map atop every chapter, the pages about the
book and the glossary (book/99_glossary.md).

* The chapter map is computed by ``tokenpath.guide`` from the chapters' own code cells
  and covers every registered figure and slider.
* Every chapter opens, right under its title, with a code cell that shows its journey
  map (``guide.journey``); the stages it marks come from one table,
  ``tokenpath.journey.CHAPTER_STAGES``, and the map links to the two pages about the book.
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


# ------------------------------------------------------------------ the journey map

from tokenpath import journey as J  # noqa: E402

MAP_CELL = re.compile(r'\A\n```\{code-cell\} ipython3\n:tags: \[remove-input\]\n\nfrom tokenpath import guide\n\n'
                      r'guide\.journey\("([\w-]+)"\)\n```\n')


def test_every_chapter_has_stages_and_every_stage_a_chapter():
    assert list(J.CHAPTER_STAGES) == chapters()
    assert all(stages and set(stages) <= set(J.STAGES) for stages in J.CHAPTER_STAGES.values())
    partial = {k for stem, stages in J.CHAPTER_STAGES.items() if len(stages) < len(J.STAGES) for k in stages}
    assert partial == set(J.STAGES), f"no chapter of its own teaches {sorted(set(J.STAGES) - partial)}"


@pytest.mark.parametrize("stem", chapters())
def test_every_chapter_shows_its_own_map_right_under_its_title(stem):
    text = (BOOK / f"{stem}.md").read_text(encoding="utf-8")
    after_title = text.split("\n# ", 1)[1].split("\n", 1)[1]
    m = MAP_CELL.match(after_title)
    assert m, f"{stem}: the first thing under the title is not the journey map cell"
    assert m.group(1) == stem, f"{stem} shows the map of {m.group(1)}"


@pytest.mark.parametrize("stem", chapters())
def test_the_map_marks_the_chapters_stages_and_only_them(stem):
    shown = J.journey(stem)
    html, text = shown._repr_html_(), repr(shown)
    marked = re.findall(r"<mark[^>]*>([^<]+)</mark>", html)
    want = [J.LABELS[k] for k in J.PATH if k in J.CHAPTER_STAGES[stem]]
    assert marked == [*want, J.LABELS["marked"]]
    assert re.findall(r"\[([^\]]+)\]", text.splitlines()[0]) == want
    for k in J.STAGES:
        assert J.LABELS[k] in text and f">{J.LABELS[k]}<" in html


def test_the_map_links_to_the_two_pages_about_the_book_and_says_no_word_outside_its_table():
    html = J.journey("04_attention").html()
    for key, target in J.LINKS:
        assert (ROOT / "book" / target.replace(".ipynb", ".md")).exists(), f"the map links to {target}, which is missing"
        assert f'href="{target}">{J.LABELS[key]}</a>' in html
    assert f'aria-label="{J.LABELS["title"]}"' in html
    shown = re.sub(r"<[^>]+>", " ", html)
    for label in sorted(J.LABELS.values(), key=len, reverse=True):
        shown = shown.replace(label, " ")
    assert set(shown) <= set(" ()→·"), f"words on the map outside LABELS: {shown.split()}"


def test_the_map_cell_adds_no_engine_module_to_a_chapter():
    cell = "```{code-cell} ipython3\n:tags: [remove-input]\n\nfrom tokenpath import guide\n\nguide.journey(\"04_attention\")\n```\n"
    assert guide.chapter_uses(cell).modules == ()
    with pytest.raises(ValueError, match="CHAPTER_STAGES"):
        J.journey("13_missing")


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


def test_every_page_about_the_book_exists_and_the_guide_links_to_the_others():
    guide_text = (BOOK / "00_index.md").read_text(encoding="utf-8")
    for stem in guide.GUIDE_PAGES:
        assert (BOOK / f"{stem}.md").exists() and (ROOT / "notebooks" / f"{stem}.ipynb").exists(), stem
        if stem != "00_index":
            assert f"]({stem}.ipynb" in guide_text, f"the guide does not link to {stem}"


def test_the_notation_page_maps_the_books_u_to_the_v_of_other_texts():
    text = (BOOK / "98_notation.md").read_text(encoding="utf-8")
    assert "## U for values, not V" in text
    row = next(ln for ln in text.splitlines() if ln.startswith("| U |"))
    assert "V in most other texts" in row


# ------------------------------------------------------------------ the HTML edition


def test_the_html_edition_anchors_every_linked_heading_where_jupyterlab_does():
    """The HTML edition names a heading's anchor as JupyterLab does
    (tokenpath._sphinx.heading_slug), so each link's fragment names a heading of its page."""
    from tokenpath._sphinx import heading_slug

    pages = [*chapters(), *guide.GUIDE_PAGES]
    links = [link for page in pages for link in LINK.findall((BOOK / f"{page}.md").read_text(encoding="utf-8"))]
    assert links
    missing = [f"{stem}#{fragment}" for stem, fragment in links
               if fragment and fragment not in {heading_slug(h) for h in headings(stem).values()}]
    assert not missing, f"links to headings that do not exist: {missing}"
