"""What the checker says to a learner who has just read the chapter: a written body that
loses its return is not "not written yet", a shape off by a kept axis says keepdims, and
a difference is located with the chapter's names of the axes."""

from __future__ import annotations

import numpy as np

from tokenpath import exercises
from tokenpath.exercises import checker, compare
from tokenpath.exercises.gqa import ALLOWANCE
from tokenpath.norms import rms_norm


def test_a_written_body_that_returns_none_is_not_called_unwritten():
    def embed(table, ids):
        rows = np.asarray(table)[np.asarray(ids)]
        if rows.ndim == 2:  # the 2-D case only: [B, T] IDs fall through to None
            return rows

    r = exercises.check("embed", embed)
    assert r.status == "differs", r.text()
    assert "Not written yet" not in r.text()
    assert "is None (what a function gives when a path through it ends without a return)" in r.text()


def test_the_stub_as_given_is_still_not_written_yet():
    def rope_head(x, positions, base):
        """Docstring as in the chapter."""
        ...

    def passes(t):
        pass

    assert exercises.check("rope_head", rope_head).status == "not written yet"
    assert exercises.check("causal_mask", passes).status == "not written yet"
    assert exercises.check("causal_mask", lambda t: ...).status == "not written yet"


def test_is_stub_tells_an_empty_body_from_a_written_one():
    def empty(a, b):
        """doc"""
        ...

    def written(a, b):
        c = a + b  # noqa: F841 (computes, then forgets to return)

    assert checker._is_stub(empty)
    assert not checker._is_stub(written)
    assert not checker._is_stub(len)  # a builtin has no Python body


def test_mean_square_without_keepdims_names_the_kept_axis():
    def no_keepdims(x, weight, eps):
        ms = np.mean(np.asarray(x) ** 2, axis=-1)
        r = np.sqrt(ms + eps)
        return {"mean_square": ms, "rms": r, "output": weight * x / r[..., None]}

    text = exercises.check("rms_norm", no_keepdims).text()
    assert "has shape [], expected [1] (the kept axis of length 1); keep the axis you averaged over " \
           "as length 1 (keepdims=True)" in text
    assert "(position)" not in text


def test_shape_names_align_with_the_expected_axes():
    f = checker.Field("mean_square", "mean(x²)", ("sequence", "position", ""))
    assert compare._axes_of(f, (3, 1)) == "position, the kept axis of length 1"
    assert compare._axes_of(f, (2, 4, 1)) == "sequence, position, the kept axis of length 1"
    assert compare._axes_of(checker.Field("m", "M", ("i", "j")), (3, 3)) == "i, j"
    assert compare._shape_hint((3,), (3, 1)).endswith("(keepdims=True)")
    assert compare._shape_hint((3, 1, 1), (3, 1)) == "; drop the extra axes of length 1"
    assert compare._shape_hint((1, 4), (3, 1)) == ""


def test_rope_differences_name_the_row_not_a_position():
    ref = exercises.solution("rope_head")

    def exponent_i(x, positions, base):
        out = ref(x, positions, base)
        d = np.asarray(x).shape[-1]
        ang = np.asarray(positions, float)[:, None] * base ** (-np.arange(d // 2) / d)
        return {"angles": ang, "output": out["output"]}

    text = exercises.check("rope_head", exponent_i).text()
    # the worked example's one row sits at position 3: "p=0" would contradict it
    assert "p·θ_i at [row=0, i=1]: expected 0.03, got 0.3" in text


def test_swiglu_differences_name_the_sequence_axis():
    def relu_gate(x, w_gate, w_up, w_down):
        a, c = x @ w_gate, x @ w_up
        h = np.maximum(a, 0.0) * c
        return {"gate": a, "up": c, "hidden": h, "output": h @ w_down}

    text = exercises.check("swiglu", relu_gate).text()
    assert "SiLU(a) ⊙ c at [sequence=0, position=0, k=0]" in text


def test_rms_norm_reference_still_passes():
    def mine(x, weight, eps):
        ms = np.mean(np.asarray(x) ** 2, axis=-1, keepdims=True)
        r = np.sqrt(ms + eps)
        return {"mean_square": ms, "rms": r, "output": weight * x / r}

    assert exercises.check("rms_norm", mine).passed
    assert exercises.check("rms_norm", exercises.solution("rms_norm")).passed
    assert np.allclose(exercises.solution("rms_norm")(np.array([3.0, 4.0]), np.ones(2), 0.0)["output"],
                       rms_norm(np.array([3.0, 4.0]), np.ones(2), eps=0.0))


def test_swiglu_speaks_chapter_sevens_notation():
    stub = exercises.stub("swiglu")
    assert "FFN(x) = [SiLU(x W_g) ⊙ (x W_u)] W_d" in stub and "W_gate" not in stub

    def silu_on_content(x, w_gate, w_up, w_down):
        a, c = x @ w_gate, x @ w_up
        h = c / (1.0 + np.exp(-c)) * a
        return {"gate": a, "up": c, "hidden": h, "output": h @ w_down}

    text = exercises.check("swiglu", silu_on_content).text()
    assert "SiLU(a) ⊙ c at [sequence=0, position=0, k=0]" in text
    assert "the content c = x W_u" in text and "W_up" not in text


def test_embed_speaks_chapter_threes_notation():
    assert "X[b, t, :] = E[s[b, t], :]" in exercises.stub("embed")

    def transposed(table, ids):
        return np.asarray(table)[np.asarray(ids)].swapaxes(0, 1)

    def plus_one(table, ids):
        return np.asarray(table)[np.asarray(ids)] + 1.0

    assert "[b=0, t=0, f=0]" in exercises.check("embed", plus_one).text()
    assert "(b, t, f)" in exercises.check("embed", transposed).text()


def test_a_memory_message_is_a_sentence_and_an_error_needs_no_mistake_line():
    def repeats(query, key, value, mask):
        g = query.shape[0] // key.shape[0]
        return exercises.solution("gqa_attention")(query, np.repeat(key, g, 0)[::g], np.repeat(value, g, 0)[::g], mask)

    text = exercises.check("gqa_attention", repeats).text()
    assert f"({ALLOWANCE} × what K and U hold)." in text

    def typo(scores, k):
        return {"chosen": chosen, "gates": scores}  # noqa: F821 (the name is misspelt on purpose)

    text = exercises.check("route_top_k", typo).text()
    assert "NameError" in text and "No known mistake" not in text
