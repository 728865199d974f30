"""The engine's words in two languages (tokenpath.i18n): English by default and
unchanged, Chinese once a notebook asks for it, through figure captions and alt texts,
chapter 3's questions and the checker's verdicts."""

from __future__ import annotations

import pytest

import tokenpath as tp
from tokenpath import i18n, questions
from tokenpath.figures import show


@pytest.fixture(autouse=True)
def english_after():
    yield
    i18n.set_language("en")


def test_english_is_the_default_and_reads_as_before():
    assert i18n.language() == "en"
    figure = show(3)
    assert figure.caption == "Figure 3 · From IDs to rows of the embedding"
    assert figure.alt.startswith("The ID tensor s [2, 4] = ")


def test_setup_notebook_chooses_the_language_once():
    tp.setup_notebook(lang="zh_CN")
    assert i18n.language() == "zh_CN"
    figure = show(3)
    assert figure.caption == "图 3 · 从 ID 到 embedding 矩阵的行"
    assert figure.alt.startswith("ID 张量 s [2, 4] = ") and "两条序列查的是同一张表" in figure.alt
    tp.setup_notebook()
    assert show(3).caption.startswith("Figure 3 · ")


def test_an_unknown_language_is_refused():
    with pytest.raises(ValueError, match="lang must be one of"):
        tp.setup_notebook(lang="fr")


def test_a_chapter_s_questions_and_the_checker_speak_chinese():
    with i18n.using("zh_CN"):
        quiz = questions.for_chapter("03_embedding_lookup")
        q = quiz["emb-row"]
        assert q.prompt == "图 3：X[1,3,:] 复制的是 E 的哪一行？"
        unanswered, right = q.check(...), q.check(int(q.answer))
        assert "还没有作答" in unanswered.text() and "[未作答]" in unanswered.text()
        assert "完全正确" in right.message and "原因：" in right.text()
    assert questions.for_chapter("03_embedding_lookup")["emb-row"].prompt.startswith("Figure 3: ")


def test_the_numbers_are_the_same_in_both_languages():
    from tokenpath.i18n.checks import numbers

    english = show(3).alt
    with i18n.using("zh_CN"):
        chinese = show(3).alt
    assert numbers(english) == numbers(chinese)
