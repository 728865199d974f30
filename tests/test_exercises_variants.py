"""Fresh variants of the numeric "Check yourself" questions: each factory is registered
under a real question, keeps its kind, is deterministic in the seed, draws other numbers
for other seeds, and its checker accepts the engine's answer and refuses a perturbed one."""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest

from tokenpath import questions, selfcheck
from tokenpath.exercises import variants
from tokenpath.exercises.variants import VARIANTS

#: The chapters with numeric questions that redraw (1-8; later chapters' questions are about one file or model).
CHAPTERS = [ch for ch in questions.CHAPTERS if ch[:2] <= "09"]
ALL = {q.id: q for ch in CHAPTERS for q in questions.for_chapter(ch).values()}
SEEDS = (0, 1, 2, 17, 2**32 - 1)


def _perturbed(q: selfcheck.Question):
    """An answer the engine's value is not: one step off in the question's own terms."""
    if q.kind == "exact":
        return q.answer + 1
    if q.kind == "number":
        return q.answer + 10 * q.tolerance
    if q.kind == "vector":
        step = 10 * q.tolerance * (abs(q.answer[0]) if q.relative else 1.0)  # a relative tolerance scales
        return q.answer + np.r_[step, np.zeros(q.answer.size - 1)]
    if q.kind == "set":
        return set(q.answer) ^ {max(q.answer) + 1}
    return [q.answer[0] + 1, *q.answer[1:]]


def test_every_factory_is_registered_under_a_numeric_question_of_the_chapters():
    assert set(VARIANTS) <= set(ALL)
    assert all(ALL[i].kind != "choice" for i in VARIANTS)
    assert len(VARIANTS) >= 15
    for q in ALL.values():
        assert (q._variant is not None) == (q.id in VARIANTS), q.id


@pytest.mark.parametrize("qid", sorted(VARIANTS))
def test_a_variant_accepts_its_engine_answer_and_refuses_a_perturbed_one(qid):
    q = ALL[qid]
    for seed in SEEDS:
        v = q.variant(seed)
        assert v.id == f"{qid}@{seed}" and v.kind == q.kind and v.hint == q.hint and v.tolerance == q.tolerance
        assert v.relative == q.relative
        assert v.check(v.answer).status == "right", v.check(v.answer).text()
        assert v.check(_perturbed(v)).status == "not yet", (seed, v.text())
        assert v.check(None).status == "unanswered"
        assert v.prompt and v.prompt != q.prompt


@pytest.mark.parametrize("qid", sorted(VARIANTS))
def test_a_variant_is_deterministic_in_its_seed_and_varies_with_it(qid):
    q = ALL[qid]
    a, b = q.variant(5), q.variant(5)
    assert (a.prompt, a.answer_text(), a.why, a.source) == (b.prompt, b.answer_text(), b.why, b.source)
    prompts = {q.variant(s).prompt for s in range(8)}
    assert len(prompts) >= 2, prompts


@pytest.mark.parametrize("qid", sorted(VARIANTS))
def test_the_first_distinct_seeds_give_different_variants_none_the_question_itself(qid):
    q, seeds = ALL[qid], range(variants.DISTINCT)
    params = [variants.parameters(qid, s) for s in seeds]
    assert len(set(params)) == len(params), qid
    assert variants.FAMILIES[qid].original not in params
    shown = [q.variant(s) for s in seeds]
    assert len({v.prompt for v in shown}) == len(shown) and q.prompt not in {v.prompt for v in shown}
    assert all(v.check(v.answer).status == "right" for v in shown)
    # the question's own numbers are the ones its prompt and answer were made from
    assert variants.FAMILIES[qid].make(q, variants.FAMILIES[qid].original).answer_text() == q.answer_text()


def test_the_originals_that_came_back_before_do_not_now():
    # seeds that gave the question's own numbers back, found in issue 36
    for qid, seed, own in (("norm-silu", 0, "SiLU(-2.0)"), ("rope-pos8", 13, "position 8 "),
                           ("rope-score", 23, "π/2: what does the score become at distance 4?"),
                           ("gqa-head6", 40, "Hq = 8 and Hkv = 2, which K/V head does query head 6")):
        assert own not in ALL[qid].variant(seed).prompt


def test_a_variants_answer_is_the_engines_on_the_numbers_it_shows():
    from tokenpath import gqa, norms
    v = ALL["gqa-head6"].variant(3)
    hq, hkv, h = (int(w) for w in re.findall(r"\d+", v.prompt)[:3])
    assert v.answer == Fraction(int(gqa.kv_groups(hq, hkv)[h]))
    for seed in range(variants.DISTINCT):  # every variant tells the grouping from the interleaving
        hq, hkv, h = (int(w) for w in re.findall(r"\d+", ALL["gqa-head6"].variant(seed).prompt)[:3])
        assert hkv >= 2 and h // (hq // hkv) != h % hkv
        assert ALL["gqa-head6"].variant(seed).check(h % hkv).status == "not yet"
    v = ALL["norm-silu"].variant(4)
    a = float(v.prompt.rsplit("SiLU(", 1)[1].rstrip("?)"))
    assert v.answer == pytest.approx(float(norms.silu(a)))


def test_questions_without_variants_and_bad_seeds_are_refused_by_name():
    with pytest.raises(ValueError, match="'att-A10' has no variants"):
        ALL["att-A10"].variant(0)
    for bad in (-1, 2**32, 1.5, "3", True):
        with pytest.raises((ValueError, TypeError), match="seed"):
            ALL["gqa-head6"].variant(bad)
    with pytest.raises(TypeError, match="question must be a selfcheck Question"):
        variants.variant("gqa-head6", 0)
    plain = selfcheck.number("n", "n?", 1.0, tolerance=0.1, source="s", why="w")
    with pytest.raises(ValueError, match="has no variants"):
        variants.variant(plain, 0)
