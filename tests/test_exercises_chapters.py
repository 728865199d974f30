"""Each chapter's "Build it yourself": the stub the reader edits is the exercise's own,
the section sits between "Check yourself" and "Sources", its check cells run on the
stub as given, and the solutions are collapsed (hide-output in the HTML edition,
outputs_hidden in JupyterLab): the minimal teaching solution first, where the exercise
has one, then the engine's own code as optional reading."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tokenpath import exercises, guide

ROOT = Path(__file__).resolve().parents[1]
#: The chapters whose section is in place.
CHAPTERS = (1, 2, 3, 4, 5, 6, 7, 8, 9)
NAMES = [e.name for c in CHAPTERS for e in exercises.for_chapter(c)]


def _chapter(n: int) -> Path:
    (path,) = sorted((ROOT / "book").glob(f"{n:02d}_*.md"))
    return path


def _section(text: str) -> str:
    start = text.index("\n## Build it yourself\n")
    return text[start:text.index("\n## Sources\n", start)]


@pytest.mark.parametrize("name", NAMES)
def test_the_chapter_gives_the_exercise_s_own_stub(name):
    text = _chapter(exercises.exercise(name).chapter).read_text()
    section = _section(text)
    assert exercises.stub(name).rstrip("\n") in section
    assert f'exercises.check("{name}", {name})' in section
    assert f'exercises.show_solution("{name}")' in section


@pytest.mark.parametrize("name", [n for n in NAMES if exercises.exercise(n).teaching is not None])
def test_a_teaching_solution_comes_first_and_the_engines_code_second(name):
    section = _section(_chapter(exercises.exercise(name).chapter).read_text())
    check = section.index(f'exercises.check("{name}", {name})')
    teaching = section.index(f'exercises.show_solution("{name}")', check)
    engine = section.index(f'exercises.show_solution("{name}", engine=True)', teaching)
    assert "minimal solution" in section[check:teaching]
    assert "Optional reading: the engine's own code" in section[teaching:engine]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_section_follows_check_yourself_and_uses_its_quiz(chapter):
    text = _chapter(chapter).read_text()
    assert text.index("## Check yourself") < text.index("## Build it yourself") < text.index("## Sources")
    practised = re.findall(r'quiz\["([\w-]+)"\]\.variant\(seed=\d+\)', _section(text))
    assert practised and all(f'quiz["{q}"].check(' in text for q in practised)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_solutions_are_collapsed_and_checks_show_the_stub_unwritten(chapter):
    nb = json.loads((ROOT / "notebooks" / (_chapter(chapter).stem + ".ipynb")).read_text())
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    solutions = [c for c in cells if "exercises.show_solution(" in "".join(c["source"])]
    checks = [c for c in cells if "".join(c["source"]).startswith("exercises.check(")]
    taught = sum(e.teaching is not None for e in exercises.for_chapter(chapter))
    assert solutions and len(solutions) == len(checks) + taught  # a teaching solution adds the engine's cell
    for c in solutions:
        assert "hide-output" in c["metadata"].get("tags", [])
        assert c["metadata"].get("jupyter", {}).get("outputs_hidden") is True
    for c in checks:
        (out,) = c["outputs"]
        assert "".join(out["data"]["text/plain"]).startswith("[not written yet]")


def test_the_guide_reads_a_cell_with_a_metadata_block():
    text = ("```{code-cell} ipython3\n---\njupyter:\n  outputs_hidden: true\ntags: [hide-output]\n---\n"
            "from tokenpath import gqa\nexercises.show_solution('gqa_attention')\n```\n")
    assert guide.chapter_uses(text).modules == ("gqa",)
    assert guide.chapter_uses("```{code-cell} ipython3\nfrom tokenpath import exercises\n```\n").modules == ()


def test_the_packages_table_gives_each_exercise_its_chapter():
    rows = re.findall(r"^``(\w+)``\s+(\d+)\s", exercises.__doc__, flags=re.M)
    assert {name: int(n) for name, n in rows} == {n: exercises.exercise(n).chapter for n in exercises.names()}
