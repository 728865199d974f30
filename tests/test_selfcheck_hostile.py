"""Hostile answers to the self-checks: huge exponents, huge numbers, endless or enormous
collections, deep nesting. ``check`` promises never to raise; it must also answer at
once, with a "can't read" result that says what to write."""

from __future__ import annotations

import itertools
import time
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings

from hypothesis import strategies as st

from _fuzz_budget import examples
from tokenpath import questions, selfcheck

#: One question of every kind the chapters use.
QUESTIONS = {
    "exact": selfcheck.exact("e", "1 + 1/2?", Fraction(3, 2), source="demo", why="halves"),
    "number": selfcheck.number("n", "g?", 0.731, tolerance=5e-4, source="demo", why="sigmoid"),
    "vector": selfcheck.vector("v", "o?", [2.0, 2.5], tolerance=5e-4, source="demo", why="sum"),
    "set": selfcheck.set_of("s", "keys?", [0, 1, 2, 3], source="demo", why="causal"),
    "sequence": selfcheck.sequence("q", "ids?", (279, 403), source="demo", why="merges"),
    "pieces": selfcheck.sequence("p", "pieces?", ("lo", "wer"), source="demo", why="merges"),
    "choice": selfcheck.choice("c", "axis?", {"a": "positions", "b": "vocabulary"}, "b", source="demo", why="V"),
}


def _nested(depth: int):
    x: list = []
    for _ in range(depth):
        x = [x]
    return x


HOSTILE = {
    "huge exponent": "1e99999999",
    "huge negative exponent": "1e-99999999",
    "exponent in a fraction": "1e99999999/3",
    "million digits": "9" * 1_000_000,
    "long digits": "1" * 5000,
    "huge int": 10**100_000,
    "huge numpy-free fraction": Fraction(10**20_000, 3),
    "range(10**18)": range(10**18),
    "range(10**30)": range(10**30),
    "endless generator": itertools.count(),
    "million items": list(range(1_000_000)),
    "big array": np.zeros(10**6),
    "deep nesting": _nested(100_000),
    "huge string": "b" * 10_000_000,
    "list of huge ints": [10**100_000, 1],
    "list of huge strings": ["1e99999999", "2"],
}


@pytest.mark.parametrize("kind", list(QUESTIONS))
@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_answers_get_a_cant_read_result_at_once(kind, name):
    q = QUESTIONS[kind]
    start = time.perf_counter()
    r = q.check(HOSTILE[name])
    text = r.text()
    assert time.perf_counter() - start < 1.0
    assert r.status in ("can't read", "not yet")
    assert len(text) < 2000  # the message quotes the answer in short
    if kind == "set" and name.startswith("range"):
        assert "at most 10000" in r.message


@pytest.mark.parametrize("answer, words", [
    ("1e99999999", "the exponent of '1e99999999' is beyond ±400"),
    ("1e-99999999", "the exponent of '1e-99999999' is beyond ±400"),
    ("9" * 1000, "a string of 1000 characters is too long to be a number here"),
    (10**100_000, "a whole number of 332193 bits is too large"),
], ids=["exponent", "negative exponent", "1000 digits", "huge int"])
def test_the_message_says_why_the_number_cannot_be_read(answer, words):
    assert words in QUESTIONS["exact"].check(answer).message
    assert words in QUESTIONS["number"].check(answer).message


def test_large_but_reasonable_numbers_are_still_graded():
    assert QUESTIONS["exact"].check("1.5e0").correct
    assert QUESTIONS["exact"].check("15e-1").correct
    assert QUESTIONS["number"].check("7.31e-1").correct
    assert QUESTIONS["number"].check("1e300").status == "not yet"
    assert QUESTIONS["number"].check("1e400").status == "can't read"  # beyond float
    assert QUESTIONS["set"].check(range(4)).correct
    assert QUESTIONS["set"].check(range(10_000)).status == "not yet"


#: Chapters whose questions the engine builds in a fraction of a second (chapters 4, 9
#: and 10 compute theirs from whole attention and model runs); between them every kind.
FAST_CHAPTERS = ("01_bpe_merges", "02_utf8_splits", "03_embedding_lookup", "06_rope_discs", "07_gqa",
                 "08_rmsnorm_swiglu", "10_model_files")


def test_the_chapters_questions_survive_the_hostile_answers():
    qs = [q for chapter in FAST_CHAPTERS for q in questions.for_chapter(chapter).values()]
    assert {q.kind for q in qs} == set(selfcheck.KINDS)
    for q in qs:
        for answer in ("1e99999999", "1e-99999999", range(10**18), itertools.count(), _nested(10_000)):
            start = time.perf_counter()
            assert q.check(answer).status in ("can't read", "not yet")
            assert time.perf_counter() - start < 1.0


ANSWERS = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(-(2**20_000), 2**20_000)
    | st.floats() | st.fractions() | st.complex_numbers()
    | st.from_regex(r"[-+]?[0-9]{0,12}(\.[0-9]{0,6})?([eE][-+]?[0-9]{1,12})?(/[0-9]{1,5})?", fullmatch=True)
    | st.text(max_size=30) | st.binary(max_size=10),
    lambda inner: st.lists(inner, max_size=6) | st.tuples(inner, inner) | st.sets(st.integers(), max_size=6)
    | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=20,
)


@settings(max_examples=examples(100), deadline=None, derandomize=True)
@given(kind=st.sampled_from(list(QUESTIONS)), answer=ANSWERS)
def test_fuzzed_answers_never_raise_and_return_at_once(kind, answer):
    start = time.perf_counter()
    r = QUESTIONS[kind].check(answer)
    r.text(), r.html()
    assert r.status in selfcheck.STATUSES
    assert time.perf_counter() - start < 1.0


# ---------------------------------------------------------------- questions an author could get wrong


@pytest.mark.parametrize("tolerance", [float("inf"), float("nan"), 0, -1e-3, True, "0.1"])
def test_a_tolerance_that_would_grade_every_answer_right_or_none_is_refused(tolerance):
    for make in (lambda t: selfcheck.number("n", "n?", 1.0, tolerance=t, source="s", why="w"),
                 lambda t: selfcheck.vector("v", "v?", [1.0], tolerance=t, source="s", why="w")):
        with pytest.raises(ValueError, match="tolerance must be a positive finite number"):
            make(tolerance)


def test_a_vector_question_needs_at_least_one_entry():
    with pytest.raises(ValueError, match="at least one entry"):
        selfcheck.vector("v", "v?", [], tolerance=1e-3, source="s", why="w")


def test_option_keys_that_differ_only_in_case_are_refused():
    with pytest.raises(ValueError, match="differ in more than letter case"):
        selfcheck.choice("c", "c?", {"A": "one", "a": "two"}, "a", source="s", why="w")
    with pytest.raises(TypeError, match="non-empty strings"):
        selfcheck.choice("c", "c?", {1: "one", 2: "two"}, "a", source="s", why="w")
    q = selfcheck.choice("c", "c?", {"A": "one", "B": "two"}, "B", source="s", why="w")
    assert q.check("b").correct and q.check("B").correct and not q.check("a").correct


# ------------------------------------------------- a question whose own answer no reader can give


@pytest.mark.parametrize("options, answer, match", [
    ({"a": "x", "b": "y"}, "A", r"answer must be one of the option keys \['a', 'b'\] as written, got 'A'"),
    ({"a": "x", "b": "y"}, "c", "answer must be one of the option keys"),
    ({"a": "x", "b": "y"}, " a", "answer must be one of the option keys"),
    ({"A": "x", "B": "y"}, "b", "answer must be one of the option keys"),
    ({"(a)": "x", "b": "y"}, "(a)", "options' keys must be what a reader types"),
    ({" a": "x", "b": "y"}, " a", "options' keys must be what a reader types"),
])
def test_a_choice_whose_key_is_none_of_its_options_is_refused_by_name(options, answer, match):
    with pytest.raises(ValueError, match=match):
        selfcheck.choice("c", "c?", options, answer, source="s", why="w")


@pytest.mark.parametrize("make, match", [
    (lambda: selfcheck.exact("e", "e?", 2**5000, source="s", why="w"), "5001 bits"),
    (lambda: selfcheck.exact("e", "e?", Fraction(1, 2**5000), source="s", why="w"), "bits"),
    (lambda: selfcheck.vector("v", "v?", np.ones(20_000), tolerance=0.1, source="s", why="w"), "20000 items"),
    (lambda: selfcheck.set_of("s", "s?", np.arange(20_000), source="s", why="w"), "20000 items"),
    (lambda: selfcheck.sequence("q", "q?", list(range(20_000)), source="s", why="w"), "20000 items"),
    (lambda: selfcheck.sequence("q", "q?", [2**5000], source="s", why="w"), "bits"),
])
def test_every_kind_refuses_an_answer_beyond_what_a_reader_s_answer_may_be(make, match):
    with pytest.raises(ValueError, match=match):
        make()


@pytest.mark.parametrize("kind", list(QUESTIONS))
def test_every_kind_s_own_answer_is_graded_right(kind):
    q = QUESTIONS[kind]
    given = {"exact": "3/2", "set": [0, 1, 2, 3], "choice": q.answer}.get(kind, q.answer)
    assert q.check(list(given) if kind == "sequence" else given).correct
