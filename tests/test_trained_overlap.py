"""The verbatim overlap between held-out and training code (``overlap`` in
``models/stdlib-evidence.json``, :func:`tokenpath._evidence.verbatim_overlap`) agrees
with itself and with the committed held-out sample, and the rule counts what it says.
Measuring it again from the standard library is ``tests/test_data_claims_ch1_3.py``
(``make check-model``)."""

from __future__ import annotations

import pytest

from tokenpath import _evidence as V
from tokenpath import trained as T


@pytest.fixture(scope="module")
def overlap():
    return T.read_evidence()["overlap"]


def test_the_stored_counts_follow_from_the_stored_files(overlap):
    assert overlap["rule"] == V.OVERLAP_RULE and overlap["min_chars"] == V.OVERLAP_MIN_CHARS
    files = overlap["files"]
    assert len(files) == T.read_evaluation()["streams"]["stdlib code"]["files"]
    assert sum(n for _, n, _ in files) == overlap["lines"]
    assert sum(r for _, _, r in files) == overlap["repeated"]
    assert all(0 <= r <= n for _, n, r in files)
    assert overlap["share"] == round(overlap["repeated"] / overlap["lines"], 4)
    assert overlap["distinct_share"] == round(overlap["distinct_repeated"] / overlap["distinct_lines"], 4)
    assert overlap["distinct_repeated"] <= overlap["repeated"] and overlap["distinct_lines"] <= overlap["lines"]


def test_the_stored_sample_lines_are_long_lines_of_the_committed_sample(overlap):
    lines = T.held_out_lines()
    hits = overlap["sample_lines"]
    assert hits == sorted(set(hits)) and hits
    assert all(len(lines[n].strip()) >= V.OVERLAP_MIN_CHARS for n in hits)
    sample_files = {f.path for f in T.held_out_sample()}
    assert sample_files <= {path for path, _, _ in overlap["files"]}


def test_every_occurrence_counts_and_short_lines_do_not():
    a = "value = compute_something(first, second)"
    r = V.verbatim_overlap([f"    {a}\n    return self\n"], {"x.py": f"{a}\n{a}\nreturn self\n", "y.py": "z = 1\n"})
    assert (r["lines"], r["repeated"], r["share"]) == (2, 2, 1.0)
    assert (r["distinct_lines"], r["distinct_repeated"]) == (1, 1)
    assert r["files"] == [["x.py", 2, 2], ["y.py", 0, 0]]
    r = V.verbatim_overlap(["return self\n"], {"x.py": f"{a}\nreturn self\n"})
    assert (r["lines"], r["repeated"]) == (1, 0)


def test_the_loss_split_keeps_every_scored_token_once():
    import numpy as np

    losses = np.array([np.nan, 1.0, 2.0, 4.0, np.nan, 3.0])
    spans = [range(0, 2), range(2, 4), range(4, 6)]
    lines = ["a" * 30, "b" * 30, "short"]
    r = V.overlap_losses(losses, spans, lines, [1])
    assert (r["tokens"], r["scored"]) == (2, 4)
    assert r["repeated"] == 3.0 and r["other_long"] == 1.0
    assert r["all"] == 2.5 and r["without"] == 2.0


def test_bad_input_is_refused_by_name():
    with pytest.raises(TypeError, match="text"):
        V.long_lines(b"bytes")
    with pytest.raises(ValueError, match="min_chars"):
        V.long_lines("x", 0)
    with pytest.raises(TypeError, match="held_files"):
        V.verbatim_overlap(["x"], ["y"])
    with pytest.raises(ValueError, match="held_files"):
        V.verbatim_overlap(["x"], {"y.py": "short\n"})
    with pytest.raises(ValueError, match="hit_lines"):
        V.overlap_losses([1.0, 2.0], [range(0, 1), range(1, 2)], ["a" * 30, "b"], [1])
    with pytest.raises(ValueError, match="spans"):
        V.overlap_losses([1.0], [range(0, 1)], ["a", "b"], [])
