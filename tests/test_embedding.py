"""Engine tests of tokenpath.embedding: lookup, one-hot, head, sampling, loss, gradient."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tokenpath import packing as PK
from tokenpath import embedding as em
from tokenpath import examples as ex
from tokenpath.lessons import embedding as LE
from tokenpath import sampling

E = LE.teaching_embedding()
LAYER = LE.teaching_layer()


def one_layer_generate(prompt, steps, **kwargs):
    """The chapter's one-layer model (its E and its teaching layer) in the sampling loop."""
    return sampling.generate(prompt, steps, table=E, layer=LAYER, **kwargs)


finite = st.floats(-20, 20, allow_nan=False, allow_infinity=False)


# ------------------------------------------------------------------------- lookup


def test_fig03_s02_is_3_so_x02_is_row_3_and_x020_is_0_2():
    s = LE.batch_ids()
    x = em.lookup(E, s)
    assert s[0, 2] == 3
    np.testing.assert_array_equal(x[0, 2], E[3])
    assert x[0, 2, 0] == 0.2


def test_row_3_starts_with_the_hand_set_features_and_the_rest_is_seeded():
    np.testing.assert_array_equal(E[3, :4], [0.2, -0.1, 0.4, 0.0])
    seeded = LE.seeded_embedding(ex.V, ex.D_MODEL, seed=ex.EMBED_SEED)
    np.testing.assert_array_equal(E[3, 4:], seeded[3, 4:])
    np.testing.assert_array_equal(np.delete(E, 3, axis=0), np.delete(seeded, 3, axis=0))


def test_teaching_table_is_read_only_and_has_the_running_shape():
    assert E.shape == (ex.V, ex.D_MODEL) == (1000, 8)
    with pytest.raises(ValueError):
        E[0, 0] = 1.0


def test_positions_0_and_2_of_sequence_0_hold_id_3_and_get_identical_rows():
    x = em.lookup(E, LE.batch_ids())
    np.testing.assert_array_equal(x[0, 0], x[0, 2])


def test_both_sequences_read_the_same_table():
    s = LE.batch_ids()
    x = em.lookup(E, s)
    np.testing.assert_array_equal(x[1, 2], x[0, 0])  # ID 3 in both sequences


def test_lookup_shapes_follow_the_ids():
    assert em.lookup(E, [3, 7]).shape == (2, 8)
    assert em.lookup(E, LE.batch_ids()).shape == (2, 4, 8)


@given(st.lists(st.integers(0, 30), min_size=1, max_size=12))
@settings(max_examples=25)
def test_equal_ids_give_equal_rows(ids):
    x = em.lookup(E, ids)
    ids = np.array(ids)
    same_id = ids[:, None] == ids[None, :]
    same_row = (x[:, None, :] == x[None, :, :]).all(axis=-1)
    # equal IDs always give equal rows (seeded rows of distinct IDs differ here too)
    np.testing.assert_array_equal(same_row, same_id)


@given(st.lists(st.integers(0, ex.V - 1), min_size=1, max_size=8))
@settings(max_examples=25)
def test_lookup_equals_one_hot_times_the_table(ids):
    np.testing.assert_array_equal(em.lookup_one_hot(E, ids), em.lookup(E, ids))


def test_one_hot_rows_hold_a_single_one_in_the_id_column():
    oh = em.one_hot([0, 999, 3], ex.V)
    assert oh.shape == (3, 1000)
    np.testing.assert_array_equal(oh.sum(axis=-1), 1)
    assert oh[0, 0] == oh[1, 999] == oh[2, 3] == 1


def test_one_hot_lookup_costs_v_times_more_than_copying():
    tr = LE.lookup_trace()
    assert tr.copies == 2 * 4 * 8
    assert tr.one_hot_macs == 2 * 4 * 1000 * 8 == tr.copies * ex.V


def test_lookup_trace_follows_the_cell_and_finds_every_position_of_its_id():
    tr = LE.lookup_trace((1, 3, 5))
    assert tr.row_id == 7
    assert tr.value == E[7, 5]
    assert tr.same_id.tolist() == [[0, 1], [1, 0], [1, 3]]


def test_id_0_is_an_ordinary_id_not_padding():
    np.testing.assert_array_equal(em.lookup(E, [0]), E[:1])
    assert PK.loss_mask([0, 0]).tolist() == [1, 1]


# ---------------------------------------------------------------- bad input: lookup


@pytest.mark.parametrize("ids", [[3, 1000], [-1, 3], [[3, 7], [2, 5000]]])
def test_out_of_range_ids_raise_naming_ids_and_the_range(ids):
    with pytest.raises(ValueError, match=r"ids must be row numbers 0 … 999"):
        em.lookup(E, ids)


@pytest.mark.parametrize("ids", [[3.0, 7.0], [3.5], [True, False], ["3"]])
def test_non_integer_ids_raise_type_error(ids):
    with pytest.raises(TypeError, match="ids must hold integers"):
        em.lookup(E, ids)


@pytest.mark.parametrize("ids", [3, np.zeros((1, 2, 2), dtype=int)])
def test_wrong_rank_ids_raise(ids):
    with pytest.raises(ValueError, match=r"ids must be \[T\] or \[B, T\]"):
        em.lookup(E, ids)


@pytest.mark.parametrize("table", [np.ones(8), np.ones((2, 3, 4)), np.ones((0, 8))])
def test_wrong_rank_or_empty_table_raises(table):
    with pytest.raises(ValueError, match="table must"):
        em.lookup(table, [0])


def test_lookup_trace_rejects_a_cell_outside_the_batch():
    with pytest.raises(ValueError, match="f must be <= 7"):
        LE.lookup_trace((0, 0, 8))
    with pytest.raises(TypeError, match="cell must be a"):
        LE.lookup_trace(3)
    with pytest.raises(TypeError, match="b must be an integer"):
        LE.lookup_trace((0.0, 0, 0))


# -------------------------------------------------------------------- head, probs


def test_tied_head_is_the_transpose_and_untied_head_any_d_by_v_matrix():
    h = np.arange(8.0)
    np.testing.assert_allclose(em.logits(h, em.tied_head(E)), E @ h)
    w = np.random.default_rng(0).normal(size=(8, ex.V))
    assert em.logits(h, w).shape == (1000,)
    with pytest.raises(ValueError, match=r"w_out must be \[d, V\] with d = 8"):
        em.logits(h, E)


def test_fig05_equal_logits_give_half_and_half():
    np.testing.assert_allclose(sampling.next_token_probs(ex.FIG5_EQUAL), [0.5, 0.5])


def test_fig05_gap_log3_gives_three_quarters_one_quarter_and_plus_100_changes_nothing():
    p = sampling.next_token_probs(ex.FIG5_GAP)
    np.testing.assert_allclose(p, [0.75, 0.25], rtol=1e-12)
    np.testing.assert_allclose(sampling.next_token_probs(ex.FIG5_GAP + 100), p, rtol=1e-12)


@given(arrays(np.float64, st.integers(1, 12), elements=finite), finite)
def test_softmax_over_the_vocabulary_is_unchanged_by_a_constant_shift(z, c):
    np.testing.assert_allclose(sampling.next_token_probs(z + c), sampling.next_token_probs(z), atol=1e-12)


@given(arrays(np.float64, (3, 5), elements=finite))
@settings(max_examples=25)
def test_probabilities_sum_to_one_over_the_last_vocabulary_axis(z):
    np.testing.assert_allclose(sampling.next_token_probs(z).sum(axis=-1), 1.0)


@given(arrays(np.float64, st.integers(2, 10), elements=finite, unique=True), st.integers(0, 10_000))
@settings(max_examples=40)
def test_temperature_towards_zero_sampling_is_greedy(z, seed):
    top2 = np.sort(z)[-2:]
    gap = top2[1] - top2[0]
    rng = np.random.default_rng(seed)
    # at a temperature far below the top gap, the runner-up keeps less than e^(−700)
    tau = gap / 700
    if tau > 0:
        assert sampling.sample_next(z, rng, temperature=tau) == int(np.argmax(z))
    assert sampling.sample_next(z, rng, temperature=0.0) == int(np.argmax(z))


def test_top_k_keeps_exactly_k_candidates_and_lowest_id_wins_ties():
    p = sampling.next_token_probs([1.0, 3.0, 3.0, 2.0], top_k=2)
    assert (p > 0).tolist() == [False, True, True, False]
    p = sampling.next_token_probs([5.0, 5.0, 5.0], top_k=1)
    assert p.tolist() == [1.0, 0.0, 0.0]


def test_draws_follow_the_distribution_and_are_reproducible():
    tr = LE.sampling_trace(ex.FIG5_GAP, 1.0)
    again = LE.sampling_trace(ex.FIG5_GAP, 1.0)
    np.testing.assert_array_equal(tr.draws, again.draws)
    assert tr.counts.sum() == 1000
    assert abs(tr.shares[0] - 0.75) < 0.03


def test_greedy_sampling_trace_puts_every_draw_on_the_top_logit():
    tr = LE.sampling_trace(ex.FIG5_GAP, 0.0)
    assert tr.counts.tolist() == [1000, 0]


@pytest.mark.parametrize("kwargs, error, match", [
    ({"temperature": -1.0}, ValueError, "temperature must be >= 0"),
    ({"temperature": "hot"}, TypeError, "temperature"),
    ({"top_k": 0}, ValueError, "top_k must be >= 1"),
    ({"top_k": 3}, ValueError, "top_k must be <= 2"),
])
def test_sampling_options_are_checked(kwargs, error, match):
    with pytest.raises(error, match=match):
        sampling.next_token_probs([0.0, 1.0], **kwargs)


def test_draw_ids_and_sample_next_check_their_input():
    with pytest.raises(ValueError, match="probs must be"):
        sampling.draw_ids([0.5, 0.6], [0.1])
    with pytest.raises(ValueError, match="uniforms must lie"):
        sampling.draw_ids([0.5, 0.5], [1.0])
    with pytest.raises(TypeError, match="rng must be a numpy Generator"):
        sampling.sample_next([0.0, 1.0], 0)


# -------------------------------------------------------------- the sampling loop


def test_generation_appends_the_sampled_id_and_looks_that_id_up_next():
    steps = one_layer_generate([3, 7, 3], 3, seed=0, top_k=5)
    for before, after in zip(steps, steps[1:]):
        np.testing.assert_array_equal(after.prefix, np.append(before.prefix, before.sampled))
        # the new input row is the table row of the sampled ID, not the hidden vector
        np.testing.assert_array_equal(after.x[-1], E[before.sampled])
        assert not np.allclose(after.x[-1], before.hidden)


def test_generation_is_reproducible_and_greedy_at_temperature_zero():
    a = [s.sampled for s in one_layer_generate([3, 7, 3], 3, seed=1)]
    b = [s.sampled for s in one_layer_generate([3, 7, 3], 3, seed=1)]
    assert a == b
    for s in one_layer_generate([3, 7, 3], 3, temperature=0.0):
        assert s.sampled == int(np.argmax(s.logits))


def test_generation_top_k_only_samples_among_the_k_largest_logits():
    for s in one_layer_generate([3, 7, 3], 4, seed=2, top_k=ex.GENERATE_TOP_K):
        assert (s.probs > 0).sum() == ex.GENERATE_TOP_K
        assert s.sampled in np.argsort(-s.logits)[: ex.GENERATE_TOP_K]


def test_generation_checks_its_prompt():
    with pytest.raises(ValueError, match="prompt must be a non-empty"):
        one_layer_generate([[3, 7]], 1)
    with pytest.raises(ValueError, match="prompt must be row numbers"):
        one_layer_generate([1000], 1)
    with pytest.raises(ValueError, match="give table and layer"):
        sampling.generate([3, 7, 3], 1, table=E)


# ---------------------------------------------------------------- loss, gradient


def test_training_pairs_are_the_shifted_inputs_and_all_targets_count():
    g = LE.tied_gradient()
    assert g.inputs.tolist() == [3, 7, 3, 2]
    assert g.targets.tolist() == [7, 3, 2, 9]
    assert g.loss.mask.tolist() == [1, 1, 1, 1]


def test_cross_entropy_is_the_mean_negative_log_probability_of_the_targets():
    g = LE.tied_gradient()
    p = g.loss.probs[np.arange(4), g.targets]
    assert g.loss.loss == pytest.approx(-np.log(p).mean(), rel=1e-12)


def test_masked_positions_do_not_count():
    z = np.random.default_rng(0).normal(size=(3, 5))
    full = sampling.cross_entropy(z[:2], [1, 2])
    masked = sampling.cross_entropy(z, [1, 2, 0], [1, 1, 0])
    assert masked.loss == pytest.approx(full.loss)
    np.testing.assert_array_equal(masked.d_logits[2], 0)


def test_fig06_input_path_reaches_only_rows_3_7_2_output_path_reaches_every_row():
    g = LE.tied_gradient()
    assert g.rows_input.tolist() == [2, 3, 7]
    assert g.rows_output.size == ex.V
    # ID 9 is only a target: it gets gradient from the output path alone
    assert g.norms_input[9] == 0 and g.norms_output[9] > 0


@given(st.lists(st.integers(0, 19), min_size=1, max_size=6), st.integers(0, 100))
@settings(max_examples=25)
def test_input_path_gradient_is_zero_on_rows_whose_id_never_appears(ids, seed):
    e = LE.seeded_embedding(20, 4, seed=seed)
    g = LE.tied_gradient(e, ids, PK.shift_targets(ids, eos=19))
    absent = np.setdiff1d(np.arange(20), ids)
    np.testing.assert_array_equal(g.grad_input[absent], 0)


def _tied_loss(e, x, y, mask=None) -> float:
    """The tied model's loss ``Z = E[x] Eᵀ`` as a function of ``E`` alone: a copy of
    ``loss_of`` in chapter 3's finite-difference cell, here with a mask."""
    return sampling.cross_entropy(e[x] @ e.T, y, mask).loss


def test_analytic_gradient_matches_central_finite_differences():
    e = LE.seeded_embedding(12, 4, seed=1) + 0.05  # no exact zeros
    x = np.array([[3, 7, 3, 2], [7, 2, 3, 7]])
    y = PK.shift_targets(x, eos=9)
    mask = np.array([[1, 1, 1, 1], [1, 1, 1, 0]])
    g = LE.tied_gradient(e, x, y, mask)
    h = 1e-6
    fd = np.zeros_like(e)
    for idx in np.ndindex(*e.shape):
        up, down = e.copy(), e.copy()
        up[idx] += h
        down[idx] -= h
        fd[idx] = (_tied_loss(up, x, y, mask) - _tied_loss(down, x, y, mask)) / (2 * h)
    np.testing.assert_allclose(g.grad, fd, rtol=1e-6, atol=1e-9)


def test_lookup_grad_sums_repeated_ids_and_checks_shapes():
    out = em.lookup_grad(np.ones((2, 4, 3)), LE.batch_ids(), 10)
    assert out[3].tolist() == [3.0, 3.0, 3.0]  # ID 3 appears three times in the batch
    assert out[7].tolist() == [3.0, 3.0, 3.0]
    with pytest.raises(ValueError, match="d_x must be"):
        em.lookup_grad(np.ones((4, 3)), LE.batch_ids(), 10)


def test_cross_entropy_checks_targets_and_mask():
    z = np.zeros((4, 10))
    with pytest.raises(ValueError, match="targets must have shape"):
        sampling.cross_entropy(z, [1, 2])
    with pytest.raises(ValueError, match="targets must be row numbers 0 … 9"):
        sampling.cross_entropy(z, [1, 2, 3, 10])
    with pytest.raises(ValueError, match="mask must be 0/1"):
        sampling.cross_entropy(z, [1, 2, 3, 4], [1, 2, 1, 1])
    with pytest.raises(ValueError, match="mask counts no target"):
        sampling.cross_entropy(z, [1, 2, 3, 4], [0, 0, 0, 0])


def test_generation_with_an_untied_head_uses_that_head():
    w_out = np.random.default_rng(3).normal(size=(ex.D_MODEL, ex.V))
    step = one_layer_generate([3, 7, 3], 1, w_out=w_out, temperature=0.0)[0]
    np.testing.assert_allclose(step.logits, step.hidden @ w_out)
    assert step.sampled == int(np.argmax(step.hidden @ w_out))


# ------------------------------------------------------------------------ real scale


def test_parameter_count_of_one_layer_is_what_the_teaching_layer_stores():
    c = em.parameter_count(ex.V, ex.D_MODEL, ex.D_FF, 1)
    assert c.layer == LE.teaching_layer().parameter_count
    assert c.embedding == LE.teaching_embedding().size


@given(st.integers(1, 50_000), st.integers(1, 64), st.integers(1, 256), st.integers(0, 8), st.booleans())
def test_parameter_count_adds_up_by_part(vocab, d, d_ff, layers, tied):
    c = em.parameter_count(vocab, d, d_ff, layers, tied=tied)
    assert c.total == c.embedding + c.head + layers * c.layer + d
    assert c.head == (0 if tied else c.embedding)
    # a layer grows with d², the vocabulary matrices with d: doubling d more than doubles a layer
    assert em.parameter_count(vocab, 2 * d, d_ff, layers).layer > 2 * c.layer


@pytest.mark.parametrize("kwargs, error, words", [
    ({"vocab": 0, "d": 8, "d_ff": 24, "layers": 1}, ValueError, "vocab"),
    ({"vocab": 10, "d": 8.5, "d_ff": 24, "layers": 1}, TypeError, "d"),
    ({"vocab": 10, "d": 8, "d_ff": 24, "layers": -1}, ValueError, "layers"),
    ({"vocab": 10, "d": 8, "d_ff": 24, "layers": 1, "tied": "yes"}, TypeError, "tied"),
])
def test_parameter_count_refuses_bad_shapes(kwargs, error, words):
    with pytest.raises(error, match=words):
        em.parameter_count(**kwargs)


@settings(max_examples=200)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=30), st.data())
def test_top_k_keeps_what_a_stable_sort_by_falling_logit_keeps(values, data):
    """top-k without sorting (a partition and the ties counted by ID) keeps exactly the
    first k IDs of a stable sort by falling logit: ties are common here, on purpose."""
    from tokenpath.sampling import _first_k

    z = np.array(values, dtype=float)
    k = data.draw(st.integers(1, z.size))
    rank = np.argsort(np.argsort(-z, kind="stable"), kind="stable")
    np.testing.assert_array_equal(_first_k(z, k), rank < k)
    batch = np.stack([z, z[::-1]])  # [2, V]: the last axis is the vocabulary
    np.testing.assert_array_equal(_first_k(batch, k)[1], _first_k(z[::-1], k))
