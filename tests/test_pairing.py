"""book/*.md and notebooks/*.ipynb say the same thing, and the notebooks are executed.

Authors edit either side of a pair (see jupytext.toml); `make sync` brings the other
side up to date and re-executes the notebook. These tests fail when that step was
skipped. (``jupytext --diff`` cannot serve: it exits 0 whatever it finds.)

With no notebooks yet, every test here passes vacuously.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import jupytext
import nbformat
from matplotlib.figure import Figure
from nbval.plugin import get_sanitize_patterns

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "notebooks"
BOOK_DIR = ROOT / "book"
SANITIZE_CFG = ROOT / "tests" / "nbval_sanitize.cfg"


def notebooks() -> list[Path]:
    return sorted(NOTEBOOK_DIR.glob("*.ipynb"))


def book_pages() -> list[Path]:
    return sorted(BOOK_DIR.glob("*.md"))


def pairs() -> list[tuple[Path, Path]]:
    """(notebook, book page) for every notebook whose page exists."""
    return [(nb, BOOK_DIR / f"{nb.stem}.md") for nb in notebooks() if (BOOK_DIR / f"{nb.stem}.md").exists()]


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def source(cell) -> str:
    # Trailing blank lines and spaces at the very end of a cell are not content.
    return cell.source.rstrip()


def describe(cell, index: int) -> str:
    first = source(cell).splitlines()[0] if source(cell) else "(empty)"
    return f"cell {index} ({cell.cell_type}, starts {first[:60]!r})"


def first_difference(notebook: Path, page: Path) -> str | None:
    """A readable account of the first cell where the pair differs, or None."""
    nb_cells = jupytext.read(notebook).cells
    md_cells = jupytext.read(page, fmt="md:myst").cells
    for index, (a, b) in enumerate(zip(nb_cells, md_cells)):
        where = f"{rel(notebook)} and {rel(page)} differ at cell {index}"
        if a.cell_type != b.cell_type:
            return f"{where}: {a.cell_type} in the notebook, {b.cell_type} in the book page"
        if source(a) != source(b):
            diff = "\n".join(
                difflib.unified_diff(
                    source(a).splitlines(), source(b).splitlines(), rel(notebook), rel(page), lineterm="", n=1
                )
            )
            return f"{where} ({a.cell_type}): the source differs\n{diff}"
        if tags(a) != tags(b):
            return f"{where} ({a.cell_type}): tags {tags(a)} in the notebook, {tags(b)} in the book page"
    if len(nb_cells) != len(md_cells):
        longer, cells = (rel(notebook), nb_cells) if len(nb_cells) > len(md_cells) else (rel(page), md_cells)
        index = min(len(nb_cells), len(md_cells))
        return (
            f"{rel(notebook)} has {len(nb_cells)} cells, {rel(page)} has {len(md_cells)}; "
            f"the first extra one, in {longer}, is {describe(cells[index], index)}"
        )
    return None


def fail_with(problems: list[str], hint: str) -> None:
    assert not problems, "\n\n".join(problems) + f"\n\n{hint}"


def test_every_notebook_has_a_book_page_and_every_page_a_notebook():
    nb_stems = {p.stem for p in notebooks()}
    md_stems = {p.stem for p in book_pages()}
    problems = [f"notebooks/{s}.ipynb has no book/{s}.md" for s in sorted(nb_stems - md_stems)]
    problems += [f"book/{s}.md has no notebooks/{s}.ipynb" for s in sorted(md_stems - nb_stems)]
    fail_with(problems, "Run `make sync` to create the missing side.")


def test_notebooks_and_book_pages_have_the_same_cells():
    problems = [d for nb, md in pairs() if (d := first_difference(nb, md)) is not None]
    fail_with(problems, "Run `make sync` (the newer file of each pair wins).")


def test_book_pages_carry_no_jupytext_version():
    problems = []
    for page in book_pages():
        header = jupytext.read(page, fmt="md:myst").metadata
        if "jupytext_version" in header.get("jupytext", {}).get("text_representation", {}):
            problems.append(f"{rel(page)} records a jupytext_version in its header")
    fail_with(problems, "jupytext.toml filters it out; run `make sync` from the repository root.")


def test_notebooks_store_no_widget_state_or_views():
    problems = []
    for nb_path in notebooks():
        nb = nbformat.read(nb_path, as_version=4)
        if "widgets" in nb.metadata:
            problems.append(f"{rel(nb_path)} stores widget state in metadata.widgets")
        for index, cell in enumerate(nb.cells):
            for output in cell.get("outputs", []):
                if "application/vnd.jupyter.widget-view+json" in output.get("data", {}):
                    problems.append(
                        f"{rel(nb_path)}: {describe(cell, index)} stores a widget view, which "
                        "JupyterLab shows as 'model not found' until the cell runs"
                    )
    fail_with(problems, "`make sync` executes the notebooks without storing widget state or views.")


def test_notebooks_were_executed_top_to_bottom():
    problems = []
    for nb_path in notebooks():
        nb = nbformat.read(nb_path, as_version=4)
        code = [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.strip()]
        for expected, (index, cell) in enumerate(code, 1):
            if cell.execution_count != expected:
                problems.append(
                    f"{rel(nb_path)}: {describe(cell, index)} has execution_count "
                    f"{cell.execution_count}, expected {expected} (one run, top to bottom, fresh kernel)"
                )
                break
    fail_with(problems, "Run `make sync` to re-execute the notebooks.")


def test_stored_outputs_hold_no_unexpected_error():
    problems = []
    for nb_path in notebooks():
        nb = nbformat.read(nb_path, as_version=4)
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code" or "raises-exception" in tags(cell):
                continue
            for out in cell.get("outputs", []):
                if out.output_type == "error":
                    problems.append(f"{rel(nb_path)}: {describe(cell, index)} stores {out.ename}: {out.evalue}")
    fail_with(problems, "A cell that is meant to raise carries the tag raises-exception.")


def test_sanitizer_masks_the_png_payload_but_not_the_alt_text():
    from tokenpath.figures import Drawn, FigureDisplay

    patterns = get_sanitize_patterns(SANITIZE_CFG.read_text(encoding="utf-8"))
    assert patterns, f"{rel(SANITIZE_CFG)} holds no regex/replace pair nbval can read"

    def sanitized_html(width: float, alt: str) -> str:
        display = FigureDisplay(Drawn(number=1, title="t", figure=Figure(figsize=(width, 1)), alt=alt))
        html = display._repr_mimebundle_()["text/html"]
        for regex, replace in patterns:
            html = re.sub(regex, replace, html)
        return html

    narrow, wide = sanitized_html(1.0, "weights [0.5, 0.5]"), sanitized_html(2.0, "weights [0.5, 0.5]")
    assert narrow == wide, "two different PNGs with the same alt text must compare equal"
    assert "base64," in narrow and "weights [0.5, 0.5]" in narrow
    assert sanitized_html(1.0, "weights [0.6, 0.4]") != narrow, "the alt text must still be compared"
