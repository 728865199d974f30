"""Engine tests for tokenpath.attention: behaviour, invariants and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tokenpath import attention as A
from tokenpath import packing as PK
from tokenpath.lessons import attention as LA
from tokenpath import examples as ex

# ----------------------------------------------------------------------------- masks


def test_causal_mask_is_lower_triangular_with_row2_visibility_1110():
    m = A.causal_mask(4)
    assert m.dtype == bool
    assert np.array_equal(m, np.tril(np.ones((4, 4), dtype=bool)))
    assert m[2].astype(int).tolist() == [1, 1, 1, 0]


def test_cache_mask_rows_are_absolute_positions_past_plus_r():
    m = A.cache_mask(3, 2)
    assert m.shape == (2, 5)
    assert m[0].tolist() == [True, True, True, True, False]
    assert m[1].all()
    # equals the bottom rows of the square causal mask over all positions
    assert np.array_equal(m, A.causal_mask(5)[3:])


@given(st.integers(0, 12), st.integers(1, 12))
def test_cache_mask_is_the_tail_of_the_full_causal_mask(past, new):
    assert np.array_equal(A.cache_mask(past, new), A.causal_mask(past + new)[past:])


def test_misaligned_cache_mask_drops_history_the_correct_mask_keeps():
    right, wrong = A.cache_mask(3, 2), LA.misaligned_cache_mask(3, 2)
    dropped = right & ~wrong
    assert dropped.sum() == 6  # keys 1,2,3 for row 0 and keys 2,3,4 for row 1
    assert not (wrong & ~right).any()


def test_document_ids_and_mask_keep_packed_documents_apart():
    p = PK.pack_documents(ex.PACKED_DOCUMENTS, ex.PACK_BLOCK, eos=ex.EOS, pad_id=ex.PAD)
    # every document is closed by EOS, in order
    flat = p.tokens[p.valid]
    expected = np.concatenate([np.r_[d, ex.EOS] for d in ex.PACKED_DOCUMENTS])
    assert np.array_equal(flat, expected)
    mask = p.mask()
    for n in range(p.tokens.shape[0]):
        for i in range(ex.PACK_BLOCK):
            for j in range(ex.PACK_BLOCK):
                if mask[n, i, j] and i != j:
                    assert p.doc_ids[n, i] == p.doc_ids[n, j] >= 0
                    assert j < i
    # no row is empty, so attention can run over the packed batch
    assert mask.any(axis=-1).all()


@pytest.mark.parametrize("docs, block", [(ex.PACKED_DOCUMENTS, ex.PACK_BLOCK), ([[3, 7, 3], [2]], 2),
                                          ([[1, 2, 3, 4, 5, 6]], 3), ([[1], [2], [3]], 2)])
def test_continued_marks_exactly_the_blocks_whose_first_token_continues_a_document(docs, block):
    p = PK.pack_documents(docs, block, eos=ex.EOS, pad_id=ex.PAD)
    stream = p.doc_ids.ravel()
    for n in range(p.tokens.shape[0]):
        start = n * block  # the first position of block n in the packed stream
        mid = start > 0 and stream[start] >= 0 and stream[start - 1] == stream[start]
        assert p.continued[n] == mid


def test_document_ids_within_one_row_count_eos_before_position():
    assert PK.document_ids([3, 9, 7, 9], eos=9).tolist() == [0, 0, 1, 1]


def test_combine_masks_is_logical_and():
    a = A.causal_mask(3)
    b = A.padding_mask([True, False, True])
    assert np.array_equal(A.combine_masks(a, b), a & b)


# ------------------------------------------------------------------------- attention


def test_softmax_runs_over_the_last_axis_only():
    x = np.array([[0.0, np.log(3)], [1.0, 1.0]])
    w = A.softmax(x)
    assert np.allclose(w.sum(axis=-1), 1)
    assert np.allclose(w[0], [0.25, 0.75])


def test_fig08_asymmetric_example_detects_a_wrong_softmax_axis():
    t = A.causal_attention(ex.FIG8_Q, ex.FIG8_K, ex.FIG8_U)
    assert np.allclose(t.weights.sum(axis=-1), 1)
    assert not np.allclose(t.weights.sum(axis=0), 1)  # columns do not sum to 1


def test_trace_contributions_sum_to_output():
    t = A.causal_attention(ex.FIG8_Q, ex.FIG8_K, ex.FIG8_U)
    assert t.contributions.shape == (3, 3, 2)
    assert np.allclose(t.contributions.sum(axis=-2), t.output)


def test_multi_head_shapes_bhtd():
    rng = np.random.default_rng(ex.MULTIHEAD_SEED)
    q, k, v = rng.standard_normal((3, ex.B, ex.H, ex.T, ex.D_HEAD))
    t = A.causal_attention(q, k, v)
    assert t.output.shape == q.shape
    assert t.weights.shape == (ex.B, ex.H, ex.T, ex.T)
    assert np.all(t.weights[..., np.triu_indices(ex.T, 1)[0], np.triu_indices(ex.T, 1)[1]] == 0)


def test_heads_are_independent_slices():
    rng = np.random.default_rng(1)
    q, k, v = rng.standard_normal((3, 2, 3, 5, 4))
    whole = A.causal_attention(q, k, v).output
    for b in range(2):
        for h in range(3):
            one = A.causal_attention(q[b, h], k[b, h], v[b, h]).output
            assert np.allclose(whole[b, h], one)


def test_split_then_merge_heads_round_trips():
    x = np.arange(2 * 4 * 8, dtype=float).reshape(2, 4, 8)
    assert np.array_equal(A.merge_heads(A.split_heads(x, 2)), x)
    assert A.split_heads(x, 2).shape == (2, 2, 4, 4)


def test_cached_decode_equals_full_causal_pass():
    rng = np.random.default_rng(2)
    q, k, v = rng.standard_normal((3, 5, 4))
    full = A.causal_attention(q, k, v).output
    step = A.causal_attention(q[3:], k, v, past=3).output
    assert np.allclose(step, full[3:])


def test_cross_attention_has_no_causal_mask_and_hides_source_padding():
    rng = np.random.default_rng(ex.CROSS_SEED)
    dec = rng.standard_normal((ex.CROSS_TARGET_LEN, ex.CROSS_D_HEAD))
    enc = rng.standard_normal((len(ex.CROSS_SOURCE_VALID), ex.CROSS_D_HEAD))
    t = A.cross_attention(dec, enc, enc, encoder_valid=ex.CROSS_SOURCE_VALID)
    assert t.weights.shape == (ex.CROSS_TARGET_LEN, len(ex.CROSS_SOURCE_VALID))
    assert np.all(t.weights[:, -1] == 0)  # padded source position
    assert np.all(t.weights[0, :3] > 0)  # first target row reads *all* real source tokens


# ----------------------------------------------------------------- property tests

finite = st.floats(-4, 4, allow_nan=False, allow_infinity=False, width=64)


def qkv(t_max=6, d_max=5):
    return st.tuples(st.integers(1, t_max), st.integers(1, d_max)).flatmap(
        lambda td: st.tuples(
            *(hnp.arrays(np.float64, (td[0], td[1]), elements=finite) for _ in range(3))
        )
    )


@given(qkv())
def test_rows_of_weights_sum_to_one(arrs):
    q, k, v = arrs
    t = A.causal_attention(q, k, v)
    assert np.allclose(t.weights.sum(axis=-1), 1.0)
    assert np.all(t.weights[~t.mask] == 0)


@given(qkv(), st.data())
def test_changing_a_future_token_never_changes_an_earlier_output(arrs, data):
    q, k, v = arrs
    t_len = q.shape[0]
    pos = data.draw(st.integers(0, t_len - 1), label="changed position")
    k2, v2, q2 = k.copy(), v.copy(), q.copy()
    k2[pos] += data.draw(hnp.arrays(np.float64, k.shape[1], elements=finite), label="dk")
    v2[pos] += data.draw(hnp.arrays(np.float64, v.shape[1], elements=finite), label="dv")
    q2[pos] += 1.0
    before = A.causal_attention(q, k, v).output
    after = A.causal_attention(q2, k2, v2).output
    assert np.allclose(before[:pos], after[:pos])


@given(qkv(), st.floats(-50, 50, allow_nan=False))
def test_adding_a_constant_to_every_score_changes_no_weight(arrs, c):
    q, k, _ = arrs
    scores = A.attention(q, k, k).scores
    mask = A.causal_mask(q.shape[0])
    w = A.softmax(np.where(mask, scores, -np.inf))
    w_shift = A.softmax(np.where(mask, scores + c, -np.inf))
    assert np.allclose(w, w_shift)


@given(hnp.arrays(np.float64, st.integers(1, 8), elements=finite))
def test_softmax_is_a_distribution(x):
    w = A.softmax(x)
    assert np.all(w >= 0) and np.isclose(w.sum(), 1.0)


# ---------------------------------------------------------------------- bad input


def test_mask_row_with_no_visible_source_raises_naming_the_row():
    mask = np.array([[True, False], [False, False]])
    with pytest.raises(ValueError, match=r"mask row 1 .*no visible source"):
        A.attention(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)), mask)


def test_left_padding_gives_empty_rows_and_a_clear_error():
    mask = A.combine_masks(A.causal_mask(3), A.padding_mask([False, True, True]))
    with pytest.raises(ValueError, match="mask row 0"):
        A.attention(np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 2)), mask)


@pytest.mark.parametrize(
    "q, k, v, match",
    [
        (np.ones((2, 3)), np.ones((2, 2)), np.ones((2, 2)), "key must have the query's d_h=3"),
        (np.ones((2, 2)), np.ones((3, 2)), np.ones((2, 2)), "value must have one row per key"),
        (np.ones(2), np.ones((2, 2)), np.ones((2, 2)), "query must have at least 2 axes"),
        (np.ones((2, 0)), np.ones((2, 0)), np.ones((2, 1)), "d_h >= 1"),
        (np.ones((2, 2, 2)), np.ones((3, 2, 2)), np.ones((3, 2, 2)), "agree on leading axes"),
        (np.array([[np.nan, 0.0]]), np.ones((1, 2)), np.ones((1, 2)), "query must be finite"),
        (np.ones((1, 2)), np.array([[np.inf, 0.0]]), np.ones((1, 2)), "key must be finite"),
    ],
)
def test_bad_shapes_and_values_raise_valueerror_naming_the_argument(q, k, v, match):
    with pytest.raises(ValueError, match=match):
        A.attention(q, k, v)


def test_mask_of_wrong_shape_or_type_raises():
    q = np.ones((2, 2))
    with pytest.raises(ValueError, match=r"mask must broadcast to \[..., T_q, T_k\]"):
        A.attention(q, q, q, np.ones((3, 3), dtype=bool))
    with pytest.raises(TypeError, match="mask must be a boolean array"):
        A.attention(q, q, q, np.full((2, 2), 0.5))


def test_string_and_object_inputs_raise_typeerror():
    with pytest.raises(TypeError, match="query must be a numeric array"):
        A.attention("abc", np.ones((1, 1)), np.ones((1, 1)))
    with pytest.raises(TypeError, match="query must be real-valued"):
        A.attention(np.ones((1, 1)) * 1j, np.ones((1, 1)), np.ones((1, 1)))


def test_causal_attention_checks_cache_length():
    with pytest.raises(ValueError, match=r"past \+ T_q = 3 \+ 2 = 5"):
        A.causal_attention(np.ones((2, 2)), np.ones((4, 2)), np.ones((4, 2)), past=3)


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: A.causal_mask(0), ValueError, "t must be >= 1"),
        (lambda: A.causal_mask(2.0), TypeError, "t must be an integer"),
        (lambda: A.cache_mask(-1, 2), ValueError, "past must be >= 0"),
        (lambda: A.cache_mask(3, 0), ValueError, "new must be >= 1"),
        (lambda: A.padding_mask(np.array(True)), ValueError, "valid must have a position axis"),
        (lambda: PK.document_ids([1.5, 2.0], eos=9), TypeError, "tokens must hold integers"),
        (lambda: A.combine_masks(), ValueError, "at least one mask"),
        (lambda: A.combine_masks(np.ones((2, 3), bool), np.ones((3, 2), bool)), ValueError, "broadcast"),
        (lambda: PK.pack_documents([[3, 9]], 4, eos=9, pad_id=0), ValueError, "already contains eos"),
        (lambda: PK.pack_documents([], 4, eos=9, pad_id=0), ValueError, "at least one document"),
        (lambda: PK.pack_documents([[1]], 0, eos=9, pad_id=0), ValueError, "block must be >= 1"),
        (lambda: A.split_heads(np.ones((1, 2, 6)), 4), ValueError, "divide into heads=4"),
        (lambda: A.merge_heads(np.ones((2, 2, 2))), ValueError, "x must have 4 axes"),
        (lambda: A.softmax([-np.inf, -np.inf]), ValueError, "no visible source"),
        (lambda: A.softmax([np.nan, 0.0]), ValueError, "NaN"),
        (lambda: LA.score_variance(()), ValueError, "at least one width"),
        (lambda: LA.score_variance((0, 4)), ValueError, "d_h_values must be >= 1"),
        (lambda: LA.score_samples(4, 1, seed=0), ValueError, "samples must be >= 2"),
    ],
)
def test_bad_arguments_raise_clear_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# ----------------------------------------------------------------- scaling experiment


def test_score_variance_is_seeded_and_reproducible():
    a = LA.score_variance((1, 4, 16), samples=2000, seed=3)
    b = LA.score_variance((1, 4, 16), samples=2000, seed=3)
    assert np.array_equal(a.unscaled, b.unscaled)
    assert np.allclose(a.scaled, a.unscaled / a.theory)


# ------------------------------------------------------------ figure traces


def test_figure_traces_bundle_engine_results():
    paths = LA.read_paths(ex.TEXT, ex.FIG7_RECEIVER)
    assert np.array_equal(paths.row, A.causal_mask(ex.T)[ex.FIG7_RECEIVER])
    two = LA.two_sources(ex.FIG10_Q, ex.FIG10_K, ex.FIG10_U, ex.FIG10_DIGITS)
    assert np.array_equal(two.rounded_output, LA.output_from_rounded_weights(two.attention, ex.FIG10_DIGITS))
    shift = LA.shift_vs_mask(ex.TEXT, eos=ex.EOS, column=ex.FIG13_COLUMN, sampled=ex.FIG13_SAMPLED)
    assert np.array_equal(shift.loss_mask, PK.loss_mask(shift.targets))
    assert shift.reads.tolist() == shift.inputs[: ex.FIG13_COLUMN + 1].tolist()
    cache = LA.cache_masks(ex.FIG14_PAST, ex.FIG14_NEW)
    assert np.array_equal(cache.dropped, A.cache_mask(3, 2) & ~LA.misaligned_cache_mask(3, 2))


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: LA.read_paths("", 0), ValueError, "at least one character"),
        (lambda: LA.read_paths("abac", 4), ValueError, r"query must be a position index in \[0, 3\]"),
        (lambda: LA.read_paths("abz", 0), ValueError, "outside the teaching vocabulary"),
        (lambda: LA.two_sources(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)), 3), ValueError, "one row"),
        (lambda: LA.two_sources(ex.FIG10_Q, ex.FIG10_K, ex.FIG10_U, -1), ValueError, "digits must be >= 0"),
        (lambda: LA.shift_vs_mask("abac", eos=9, column=4, sampled=2), ValueError, "column must be a position"),
        (lambda: LA.shift_vs_mask("abac", eos=9, column=2, sampled=-1), ValueError, "sampled must be"),
        (lambda: PK.loss_mask(np.array(3)), ValueError, "targets must have a position axis"),
        (lambda: PK.loss_mask([1.5]), TypeError, "targets must hold integers"),
        (lambda: LA.cache_masks(-1, 2), ValueError, "past must be >= 0"),
        (lambda: LA.value_magnitude(-1.0), ValueError, "m must be >= 0"),
        (lambda: LA.value_magnitude(float("nan")), ValueError, "m must be finite"),
        (lambda: LA.value_magnitude("40"), TypeError, "m must be a real number"),
    ],
)
def test_figure_trace_builders_reject_bad_arguments(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
