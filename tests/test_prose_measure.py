"""benchmarks/prose.py measures how dense the prose is; its rules are checked here on
small texts, so a change to the splitter cannot quietly move every chapter's numbers."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("prose", ROOT / "benchmarks" / "prose.py")
prose = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("prose", prose)
_spec.loader.exec_module(prose)


def test_sentences_split_at_end_marks_before_a_capital_digit_quote_or_bracket():
    text = 'One ends. Two ends! 3 starts? "Four" starts. (Five) starts. six does not end'
    assert prose.sentences(text) == ["One ends.", "Two ends!", "3 starts?", '"Four" starts.',
                                     "(Five) starts. six does not end"]


def test_abbreviations_and_decimals_do_not_end_a_sentence():
    assert prose.sentences("Vaswani et al. (2017) scale it, e.g. by 0.5. Next one.") == [
        "Vaswani et al. (2017) scale it, e.g. by 0.5.", "Next one."]


def test_code_math_tables_headings_and_front_matter_are_not_prose():
    text = ("---\nkernelspec: x\n---\n# Title here\n\nA short one.\n\n```{code-cell} ipython3\nx = 1. Y = 2\n```\n\n"
            "$$\nA = B. C\n$$\n\n| a. B | c |\n|---|---|\n\n<!-- A comment. B -->\n")
    assert prose.units(text) == ["A short one."]


def test_a_prose_directive_counts_and_its_options_do_not():
    text = "```{admonition} Limits of this evidence\n:class: dropdown\nOne claim. Another claim.\n```\n"
    assert prose.units(text) == ["Limits of this evidence", "One claim. Another claim."]


def test_list_items_are_units_and_links_count_their_text_only(tmp_path):
    path = tmp_path / "x.md"
    path.write_text("* first item here.\n* second [item](http://a.b/c.d) here.\n\n" + "word " * 121 + "\n",
                    encoding="utf-8")
    d = prose.measure(path)
    assert d.sentences == 3 and d.longest_unit == 121 and d.long_units == 1
    assert d.long_share == 1 / 3 and not d.within_budget
