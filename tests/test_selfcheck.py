"""The self-check API (tokenpath.selfcheck) and the questions of chapter 9: right
answers are right, wrong ones are "not yet", unanswered ones get a neutral prompt that
reveals nothing, and answers of the wrong type get a message, never a traceback."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from tokenpath import attention, moe, moe_dispatch, questions, selfcheck
from tokenpath import examples as ex
from tokenpath.lessons import moe as lessons_moe

QUESTIONS = questions.for_chapter("09_moe_routing")

#: For every question of the chapter: answers that are right, and answers that are not.
RIGHT = {
    "moe-k3-gate": [0.665, "0.6652", 0.66524, np.float64(0.665)],
    "moe-top1-grad": [[-0.16, 0.16], (-0.1599, 0.1599), np.array([-0.159925, 0.159925])],
    "fig22-store": ["b", " b "],
    "moe-dropped": [1, "1", np.int64(1), 1.0, Fraction(1)],
    "moe-unchosen-score": ["b", "(B)"],
}
WRONG = {
    "moe-k3-gate": [0.731, 0.5, 1, 0.2447],
    # the in-set answer, the sign flipped, the text's δ = 0.5 answer, ∂p₁/∂a without ∂L/∂p₁, top-2's
    "moe-top1-grad": [[0, 0], [0.16, -0.16], [0.144, -0.144], [-0.105, 0.105], [-1.058, 1.058]],
    "fig22-store": ["a", "c", "d"],
    "moe-dropped": [0, 2, 4, "2"],  # 2: the text's own candidate, where both assignments are dropped
    "moe-unchosen-score": ["a", "c", "d"],
}
BAD_TYPES = [[1, 2], {"a": 1}, object(), "not an answer", True, float("nan"), 1 + 2j, b"1/3"]


def test_the_chapter_asks_its_questions_in_order():
    assert list(QUESTIONS) == ["moe-k3-gate", "moe-top1-grad", "fig22-store", "moe-dropped",
                              "moe-unchosen-score"]
    assert set(RIGHT) == set(QUESTIONS) == set(WRONG)


def test_answers_are_computed_by_the_engine():
    k3 = moe.route(ex.FIG20_SCORES, ex.MOE_QUESTION_K)
    assert QUESTIONS["moe-k3-gate"].answer == pytest.approx(k3.gates[0])
    assert k3.gates[0] < moe.route(ex.FIG20_SCORES, ex.FIG20_K).gates[0]  # a larger set, a smaller gate
    b21 = lessons_moe.top1_boundary(ex.MOE_QUESTION_DELTA, ex.FIG21_OUTPUTS, ex.FIG21_TARGET)
    np.testing.assert_array_equal(QUESTIONS["moe-top1-grad"].answer, b21.full.grad)
    assert b21.chosen == 1 and not np.any(b21.in_set.grad)  # another expert than the text's, in-set still silent
    assert np.abs(b21.full.grad).min() > 0.1  # the full-softmax gate passes a gradient to both scores
    second = ex.FIG22_CANDIDATES[ex.MOE_QUESTION_CANDIDATE]
    crowded = moe_dispatch.route_batch(np.vstack([ex.FIG22_SCORES[0], second]), ex.FIG22_K,
                                       capacity=ex.FIG22_CAPACITY)
    assert QUESTIONS["moe-dropped"].answer == len(crowded.dropped) == crowded.load.sum() - crowded.kept_load.sum()
    text = moe_dispatch.route_batch(np.vstack([ex.FIG22_SCORES[0], ex.FIG22_CANDIDATES[0]]), ex.FIG22_K,
                                    capacity=ex.FIG22_CAPACITY)
    assert len(text.dropped) != QUESTIONS["moe-dropped"].answer  # not the number the text states
    assert moe_dispatch.route_batch(ex.FIG22_SCORES, ex.FIG22_K).experts_used.size == 4 > ex.FIG22_K
    raised = np.array(ex.FIG20_SCORES, dtype=float)
    raised[ex.MOE_WHATIF_EXPERT] = ex.MOE_WHATIF_SCORE
    before, after = moe.route(ex.FIG20_SCORES, ex.FIG20_K), moe.route(raised, ex.FIG20_K)
    assert QUESTIONS["moe-unchosen-score"].answer == "b"
    np.testing.assert_array_equal(after.chosen, before.chosen)  # expert 3 stays outside S
    np.testing.assert_allclose(after.gates, before.gates)  # so the in-set gates do not move
    full = [moe.route(s, ex.FIG20_K, gate="full_softmax").chosen_gates for s in (ex.FIG20_SCORES, raised)]
    assert full[1][0] < full[0][0] - 0.01  # while the full-softmax gates shrink (option a's convention)


@pytest.mark.parametrize("qid, answer", [(q, a) for q, answers in RIGHT.items() for a in answers])
def test_right_answers_are_right(qid, answer):
    result = QUESTIONS[qid].check(answer)
    assert result.status == "right" and result.correct, result.text()
    text, html = result.text(), result.html()
    assert text.startswith("[right]") and "Why:" in text and QUESTIONS[qid].source in text
    assert QUESTIONS[qid].answer_text() in text
    assert 'data-status="right"' in html


@pytest.mark.parametrize("qid, answer", [(q, a) for q, answers in WRONG.items() for a in answers])
def test_wrong_answers_are_not_yet_with_the_engine_value_and_its_source(qid, answer):
    result = QUESTIONS[qid].check(answer)
    assert result.status == "not yet" and not result.correct, result.text()
    text = result.text()
    assert text.startswith("[not yet]")
    assert f"Engine: {QUESTIONS[qid].answer_text()}, from {QUESTIONS[qid].source}" in text


@pytest.mark.parametrize("qid", list(QUESTIONS))
@pytest.mark.parametrize("placeholder", [None, ...])
def test_unanswered_gives_a_neutral_prompt_that_reveals_nothing(qid, placeholder):
    q = QUESTIONS[qid]
    result = q.check(placeholder)
    assert result.status == "unanswered"
    assert "Not answered yet" in result.text()
    assert "Engine" not in result.text() and q.why not in result.text()
    assert "Engine" not in result.html() and "<em>Why:</em>" not in result.html()


@pytest.mark.parametrize("qid", list(QUESTIONS))
@pytest.mark.parametrize("bad", BAD_TYPES, ids=lambda b: type(b).__name__)
def test_answers_of_the_wrong_type_get_a_message_never_a_traceback(qid, bad):
    q = QUESTIONS[qid]
    result = q.check(bad)
    assert result.status in ("can't read", "not yet"), result.text()
    if result.status == "can't read":
        assert "Could not read your answer" in result.message and q.hint in result.message
        assert "Engine" not in result.text() and q.why not in result.text()


class _Hostile:
    """An answer whose every use fails."""

    def __iter__(self):
        raise RuntimeError("cannot iterate")

    def __float__(self):
        raise RuntimeError("cannot convert")


@pytest.mark.parametrize("qid", list(QUESTIONS))
def test_answers_that_fail_when_read_still_get_a_message(qid):
    for bad in (_Hostile(), 10**400, [10**400, 1]):
        result = QUESTIONS[qid].check(bad)
        assert result.status in ("can't read", "not yet"), result.text()


def _a10():
    """An exact-fraction question built the way the chapters build theirs: figure 8's
    weight A[1,0] = 1/3, computed by the engine."""
    a8 = attention.causal_attention(ex.FIG8_Q, ex.FIG8_K, ex.FIG8_U)
    return selfcheck.exact("a10", "A[1,0]?", a8.weights[1, 0], source="attention.causal_attention(...)",
                           why="row 1 is [1/3, 2/3]")


def test_close_float_for_an_exact_fraction_asks_for_the_exact_value():
    q = _a10()
    assert q.answer == Fraction(1, 3) and q.check(Fraction(1, 3)).correct and q.check(" 1 / 3 ").correct
    result = q.check(0.333)
    assert result.status == "not yet" and "exact" in result.message


def test_results_render_as_html_and_text_in_a_notebook():
    result = _a10().check("1/3")
    bundle = result._repr_mimebundle_()
    assert set(bundle) == {"text/html", "text/plain"}
    assert bundle["text/plain"] == str(result) == result.text()
    assert "<code>a10</code>" in bundle["text/html"]
    assert repr(result) == "Result('a10', 'right')"
    q_bundle = QUESTIONS["fig22-store"]._repr_mimebundle_()
    assert "(b) another token" in q_bundle["text/plain"] and "<li>" in q_bundle["text/html"]


def test_html_escapes_what_the_reader_typed():
    result = QUESTIONS["fig22-store"].check("<script>")
    assert "<script>" not in result.html() and "&lt;script&gt;" in result.html()


# --------------------------------------------------------- the other kinds


def test_number_and_vector_questions_compare_within_their_tolerance():
    g = moe.route(ex.FIG20_SCORES, 2).gates
    q = selfcheck.number("g0", "gate 0?", g[0], tolerance=5e-4, source="moe.route", why="e²/(e²+e)")
    assert q.check(0.731).correct and q.check("0.7311").correct
    assert q.check(0.73).status == "not yet" and q.check([0.731]).status == "can't read"
    assert q.answer_text() == "0.7311"
    o = moe.combine(moe.route(ex.FIG20_SCORES, 2), ex.FIG20_OUTPUTS).output
    v = selfcheck.vector("o", "output?", o, tolerance=5e-4, source="moe.combine", why="Σ g F")
    assert v.check([2.076, 2.462]).correct and v.check(np.array([2.0758, 2.4621])).correct
    assert v.check([2.076]).status == "not yet" and "entries" in v.check([2.076]).message
    assert v.check([2.1, 2.462]).status == "not yet" and "Entry 0" in v.check([2.1, 2.462]).message
    assert v.check(np.ones((2, 2))).status == "can't read"
    assert v.check(["a", 1]).status == "can't read"


@pytest.mark.parametrize("make, args, match", [
    (selfcheck.exact, dict(answer=0.1234567), "fraction"),
    (selfcheck.number, dict(answer=1.0, tolerance=0), "tolerance"),
    (selfcheck.vector, dict(answer=[[1.0]], tolerance=0.1), "1-D"),
    (selfcheck.set_of, dict(answer=[0.5]), "integers"),
    (selfcheck.choice, dict(options={"a": "x"}, answer="a"), "two choices"),
    (selfcheck.choice, dict(options={"a": "x", "b": "y"}, answer="c"), "option keys"),
])
def test_question_builders_refuse_bad_definitions(make, args, match):
    with pytest.raises(ValueError, match=match):
        make("id", "prompt?", source="src", why="why", **args)


def test_question_builders_need_an_id_prompt_source_and_why():
    with pytest.raises(ValueError, match="source"):
        selfcheck.exact("id", "prompt?", 1, source="", why="why")
