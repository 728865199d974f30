"""Engine tests for tokenpath.position: RoPE in both pairings, the relative property,
sinusoidal and learned positions, order blindness, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tokenpath import attention as A
from tokenpath import examples as ex
from tokenpath import position as P
from tokenpath.lessons import position as LP

finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)
half_widths = st.integers(1, 8)


@st.composite
def head(draw, rows=st.integers(1, 6)):
    """One head's rows ``[T, d_h]`` (``d_h`` even) with their positions ``[T]``."""
    d = 2 * draw(half_widths)
    t = draw(rows)
    x = draw(hnp.arrays(np.float64, (t, d), elements=finite))
    pos = draw(hnp.arrays(np.float64, (t,), elements=st.integers(0, 4096).map(float)))
    return x, pos


# ------------------------------------------------------ the four-wide worked example


def test_four_wide_frequencies_are_one_and_one_hundredth_and_angles_3_and_0_03():
    theta = P.rope_frequencies(ex.ROPE_EXAMPLE_HEAD_DIM, ex.ROPE_EXAMPLE_BASE)
    angles = P.rope_angles([ex.ROPE_EXAMPLE_POSITION], ex.ROPE_EXAMPLE_HEAD_DIM, ex.ROPE_EXAMPLE_BASE)
    np.testing.assert_allclose(theta, [1.0, 0.01], rtol=1e-15)
    np.testing.assert_allclose(angles, [[3.0, 0.03]], rtol=1e-15)


def test_frequencies_fall_from_one_towards_one_over_base():
    theta = P.rope_frequencies(64, 10000.0)
    assert theta[0] == 1.0 and np.all(np.diff(theta) < 0)
    assert 1e-4 < theta[-1] < 1.5e-4
    assert theta[16] == pytest.approx(0.01, rel=1e-14)


def test_rope_at_position_zero_changes_nothing():
    x = np.arange(8.0).reshape(1, 8)
    for pairing in P.PAIRINGS:
        np.testing.assert_array_equal(P.rope(x, [0], pairing=pairing), x)


def test_adjacent_pairing_turns_features_2i_and_2i_plus_1_as_the_seed_writes():
    x = np.array([[1.0, 0.0, 1.0, 0.0]])
    out = P.rope(x, [3], pairing="adjacent")
    np.testing.assert_allclose(out, [[math.cos(3), math.sin(3), math.cos(0.03), math.sin(0.03)]], rtol=1e-15)


def test_rotate_half_pairing_turns_features_i_and_i_plus_half():
    x = np.array([[1.0, 1.0, 0.0, 0.0]])
    out = P.rope(x, [3], pairing="rotate_half")
    np.testing.assert_allclose(out, [[math.cos(3), math.cos(0.03), math.sin(3), math.sin(0.03)]], rtol=1e-15)


def test_rope_accepts_leading_batch_and_head_axes():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 5, 4))
    out = P.rope(x, np.arange(5))
    np.testing.assert_allclose(out[1, 2], P.rope(x[1, 2], np.arange(5)))


# ------------------------------------------------------------------------ properties


@settings(max_examples=25)
@given(head())
def test_rope_keeps_every_row_length(data):
    x, pos = data
    for pairing in P.PAIRINGS:
        np.testing.assert_allclose(
            np.linalg.norm(P.rope(x, pos, pairing=pairing), axis=-1), np.linalg.norm(x, axis=-1),
            rtol=1e-12, atol=1e-12,
        )


@settings(max_examples=25)
@given(head())
def test_the_two_pairings_agree_after_the_rotate_half_permutation(data):
    x, pos = data
    order = P.rotate_half_order(x.shape[-1])
    np.testing.assert_allclose(
        P.rope(x[:, order], pos, pairing="rotate_half"), P.rope(x, pos, pairing="adjacent")[:, order],
        rtol=1e-12, atol=1e-12,
    )


def test_the_pairings_differ_without_the_permutation():
    x = np.arange(1.0, 9.0).reshape(1, 8)
    assert not np.allclose(P.rope(x, [1], pairing="adjacent"), P.rope(x, [1], pairing="rotate_half"))


def test_rotate_half_order_is_a_permutation_undone_by_argsort():
    order = P.rotate_half_order(8)
    assert sorted(order.tolist()) == list(range(8))
    np.testing.assert_array_equal(order[np.argsort(order)], np.arange(8))


@settings(max_examples=25)
@given(head(), head(), st.sampled_from(P.PAIRINGS), st.integers(-50, 50))
def test_the_score_depends_only_on_the_distance(qdata, kdata, pairing, shift):
    (q, m), (k, n) = qdata, kdata
    d = min(q.shape[1], k.shape[1])
    q, k = q[:, :d], k[:, :d]
    r = P.relative_scores(q, k, m, n, pairing=pairing)
    scale = 1 + np.abs(q).sum() * np.abs(k).sum()
    assert r.largest_gap <= 1e-9 * scale
    # moving both positions by the same amount leaves every score as it was
    moved = P.relative_scores(q, k, m + shift, n + shift, pairing=pairing)
    np.testing.assert_allclose(moved.absolute, r.absolute, atol=1e-9 * scale)


@given(st.floats(-100, 100), st.floats(-100, 100), st.floats(0, 4))
def test_fig15_relative_property_holds_for_any_m_and_n(m, n, omega):
    q, k = np.array([0.3, -1.2]), np.array([2.0, 0.5])
    absolute = (P.rotation(m * omega) @ q) @ (P.rotation(n * omega) @ k)
    relative = q @ P.rotation((n - m) * omega) @ k
    assert absolute == pytest.approx(relative, abs=1e-9)


def test_rotation_is_orthogonal_and_its_transpose_turns_back():
    r = P.rotation(0.7)
    np.testing.assert_allclose(r.T @ r, np.eye(2), atol=1e-15)
    np.testing.assert_allclose(r.T, P.rotation(-0.7), atol=1e-15)


def test_rope_in_attention_turns_queries_and_keys_and_leaves_values_untouched():
    rng = np.random.default_rng(1)
    q, k, v = rng.standard_normal((3, 5, 4))
    pos = np.arange(5)
    trace = A.attention(P.rope(q, pos), P.rope(k, pos), v)
    assert trace.value is not v and np.array_equal(trace.value, v)
    # the output is a mix of the untouched value rows
    np.testing.assert_allclose(trace.output, trace.weights @ v)


# ------------------------------------------------------------------- figure 15 trace


def test_fig15_keys_0_1_2_back_turn_0_90_180_degrees_clockwise_and_dots_1_0_minus1():
    t = LP.fig15_trace()
    assert [d.distance for d in t.discs] == [0.0, 1.0, 2.0]  # m − n: the key before the query
    np.testing.assert_allclose([d.degrees for d in t.discs], [0.0, -90.0, -180.0], atol=1e-12)
    np.testing.assert_allclose([d.dot for d in t.discs], [1.0, 0.0, -1.0], atol=1e-15)
    np.testing.assert_allclose([d.turned_key for d in t.discs], [[1, 0], [0, -1], [-1, 0]], atol=1e-15)


def test_a_disc_is_the_engine_score_of_a_query_at_m_and_a_key_m_minus_distance_before_it():
    q, k, omega = np.array([1.0, 0.5]), np.array([0.0, 1.0]), 0.7
    for m, back in ((5, 2), (12, 2), (9, 3)):
        disc = LP.rope_disc(q, k, omega, back)
        engine = (P.rotation(m * omega) @ q) @ (P.rotation((m - back) * omega) @ k)
        assert disc.dot == pytest.approx(engine, abs=1e-12)
    # the sign matters once q is not k: the key before the query is not the key after it
    assert not np.isclose(LP.rope_disc(q, k, 1.0, 2).dot, LP.rope_disc(q, k, 1.0, -2).dot)


def test_fig15_live_panel_starts_on_the_third_disc_and_its_curve_passes_the_three_dots():
    t = LP.fig15_trace()
    live, third = t.live.disc, t.discs[2]
    assert (live.distance, live.omega, live.dot) == (third.distance, third.omega, third.dot)
    on_grid = np.isin(t.live.distances, ex.FIG15_DISTANCES)
    np.testing.assert_allclose(t.live.scores[on_grid], [1.0, 0.0, -1.0], atol=1e-15)


def test_fig15_pair_panel_is_pair_16_of_64_at_one_hundredth_rad_per_position():
    p = LP.fig15_trace().pair
    assert (p.head_dim, p.index, p.base) == (64, 16, 10000.0)
    assert p.disc.omega == pytest.approx(0.01, rel=1e-14)
    assert p.disc.angle == pytest.approx(-0.03, rel=1e-14)
    assert p.disc.dot == pytest.approx(math.cos(0.03), rel=1e-15)


def test_pair_trace_takes_its_frequency_from_rope_frequencies():
    t = LP.pair_trace(5, 500000.0)
    np.testing.assert_array_equal(t.frequencies, P.rope_frequencies(64, 500000.0))
    assert t.disc.omega == t.frequencies[5]


# ---------------------------------------------------------- sinusoidal and learned


def test_sinusoidal_even_features_are_sines_odd_features_cosines():
    pe = P.sinusoidal(np.arange(6), 8)
    angles = np.arange(6)[:, None] / 10000.0 ** (np.arange(0, 8, 2) / 8)
    np.testing.assert_allclose(pe[:, 0::2], np.sin(angles), rtol=1e-15)
    np.testing.assert_allclose(pe[:, 1::2], np.cos(angles), rtol=1e-15)
    assert pe.shape == (6, 8)


def test_sinusoidal_rows_differ_for_every_position_in_the_heat_map():
    pe = P.sinusoidal(np.arange(ex.SINUSOID_POSITIONS), ex.SINUSOID_D_MODEL)
    gaps = np.linalg.norm(pe[:, None] - pe[None, :], axis=-1) + np.eye(len(pe))
    assert gaps.min() > 0.1


def test_learned_table_looks_up_rows_and_refuses_a_position_past_its_length():
    table = P.position_table(ex.LEARNED_MAX_LEN, 4, seed=ex.LEARNED_SEED)
    np.testing.assert_array_equal(table.lookup([0, 7]), table.weights[[0, 7]])
    with pytest.raises(ValueError, match=r"positions must be < max_len=8 \(the table has rows 0–7\); position 8"):
        table.lookup([3, 8])
    with pytest.raises(ValueError, match="positions must be >= 0"):
        table.lookup([-1])
    with pytest.raises(TypeError, match="positions must hold integers"):
        table.lookup([1.5])


# --------------------------------------------------------------------- order blindness


def test_without_positions_unmasked_attention_outputs_follow_the_reordering():
    o = LP.order_blindness(ex.TEXT, ex.ORDER_PERMUTATION, seed=ex.ORDER_SEED)
    assert o.plain_follows_order
    # "abac": both a's (positions 0 and 2) get the same output
    np.testing.assert_allclose(o.plain.output[0], o.plain.output[2], atol=1e-15)


def test_with_rope_the_reordering_changes_the_outputs_themselves():
    o = LP.order_blindness(ex.TEXT, ex.ORDER_PERMUTATION, seed=ex.ORDER_SEED)
    assert not o.rotary_follows_order
    assert not np.allclose(o.rotary.output[0], o.rotary.output[2])
    # the values are never rotated
    np.testing.assert_array_equal(o.rotary.value, o.plain.value)


# ------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("call", [
    lambda: P.rope_frequencies(5),
    lambda: P.rope(np.ones((2, 3)), [0, 1]),
    lambda: P.sinusoidal([0], 7),
    lambda: P.rotate_half_order(3),
])
def test_odd_widths_are_refused_because_rope_turns_pairs(call):
    with pytest.raises(ValueError, match="must be even"):
        call()


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_positions_are_refused(bad):
    with pytest.raises(ValueError, match=r"positions must be finite"):
        P.rope(np.ones((2, 4)), [0.0, bad])
    with pytest.raises(ValueError, match=r"positions must be finite"):
        P.rope_angles([bad], 4)


@pytest.mark.parametrize("base", [0.0, -10000.0])
def test_non_positive_base_is_refused(base):
    with pytest.raises(ValueError, match=r"base must be > 0"):
        P.rope(np.ones((1, 4)), [1], base=base)
    with pytest.raises(ValueError, match=r"base must be > 0"):
        P.rope_frequencies(4, base)


def test_non_finite_base_is_refused():
    with pytest.raises(ValueError, match="base must be finite"):
        P.rope_frequencies(4, np.inf)


def test_other_bad_arguments_name_themselves():
    with pytest.raises(ValueError, match="pairing must be one of"):
        P.rope(np.ones((1, 4)), [0], pairing="interleaved")
    with pytest.raises(ValueError, match=r"positions must give one position per row of x \(2\), got 3"):
        P.rope(np.ones((2, 4)), [0, 1, 2])
    with pytest.raises(ValueError, match="x must have at least 2 axes"):
        P.rope(np.ones(4), [0])
    with pytest.raises(TypeError, match="head_dim must be an integer"):
        P.rope_frequencies(4.0)
    with pytest.raises(ValueError, match="q and k must be one feature pair each"):
        LP.rope_disc([1, 0, 0], [1, 0], 1.0, 1)
    with pytest.raises(ValueError, match="distance m − n .* must be between 0 and 16"):
        LP.distance_trace(17)
    with pytest.raises(ValueError, match="index must be <= 31"):
        LP.pair_trace(32)
    with pytest.raises(ValueError, match="query and key must have the same head_dim"):
        P.relative_scores(np.ones((1, 4)), np.ones((1, 2)), [0], [0])
    with pytest.raises(ValueError, match=r"permutation must reorder 0 … 3"):
        LP.order_blindness("abac", [0, 0, 1, 2], seed=0)
    with pytest.raises(ValueError, match="max_len must be >= 1"):
        P.position_table(0, 4, seed=0)


# ------------------------------------------------------------------------------ ALiBi


def test_alibi_bias_depends_on_the_distance_only_and_hides_nothing():
    bias = P.alibi_bias(6, 0.25)
    i, j = np.tril_indices(6)
    assert np.array_equal(bias[i, j], -0.25 * (i - j))  # a function of i − j alone
    assert not bias[np.triu_indices(6, 1)].any()  # the future is left to the causal mask


def test_alibi_slopes_are_the_geometric_sequence_from_two_to_minus_eight_over_h():
    for heads in (1, 2, 4, 8, 16):
        s = P.alibi_slopes(heads)
        assert s.size == heads and np.isclose(s[0], 2 ** (-8 / heads))
        assert np.allclose(s[1:] / s[:-1], s[0])
        assert np.isclose(s[-1], 2.0 ** -8)


def test_alibi_keeps_rows_normalised_and_favours_nearer_sources():
    t = P.alibi(ex.FIG8_Q, ex.FIG8_K, ex.FIG8_U, P.alibi_slopes(ex.ALIBI_HEADS)[0])
    assert np.allclose(t.biased.weights.sum(axis=-1), 1)
    assert not t.biased.weights[~t.plain.mask].any()
    # a penalty that grows with distance moves weight towards the nearest sources
    assert np.all(t.biased.weights[2, 1:] > t.plain.weights[2, 1:])
    assert t.most_read[0][2] != t.most_read[1][2]


@pytest.mark.parametrize("call, error, words", [
    (lambda: P.alibi_slopes(6), ValueError, "power of two"),
    (lambda: P.alibi_slopes(0), ValueError, "heads"),
    (lambda: P.alibi_bias(3, 0.0), ValueError, "slope must be positive"),
    (lambda: P.alibi_bias(0, 0.5), ValueError, "t"),
    (lambda: P.alibi(np.ones((2, 3, 2)), np.ones((2, 3, 2)), np.ones((2, 3, 2)), 0.5), ValueError, "one head"),
])
def test_alibi_refuses_bad_input_with_a_message(call, error, words):
    with pytest.raises(error, match=words):
        call()


def _turn(x, angle):
    """Section 6.4.3's rotation matrix R(angle) applied to one feature pair, written out."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([c * x[0] - s * x[1], s * x[0] + c * x[1]])


def test_section_6_4_3_one_pair_by_hand_is_the_engine_and_sees_only_the_offset():
    d_h, base = ex.ROPE_EXAMPLE_HEAD_DIM, ex.ROPE_EXAMPLE_BASE
    theta = base ** (-2 * np.arange(d_h // 2) / d_h)
    assert np.allclose(theta, P.rope_frequencies(d_h, base))
    q, k = ex.ROPE_PAIR_Q, ex.ROPE_PAIR_K
    hand, engine = {}, {}
    for m, n in ex.ROPE_PAIR_POSITIONS:
        assert n <= m  # the key before the query, as in a decoder
        hand[m, n] = _turn(q, m * theta[0]) @ _turn(k, n * theta[0])
        engine[m, n] = P.rope(q[None], [m])[0] @ P.rope(k[None], [n])[0]
        # a one-pair row is a head of width 2: the base does not change its only pair
        assert np.isclose(engine[m, n], P.rope(q[None], [m], base=7.0)[0] @ P.rope(k[None], [n], base=7.0)[0])
        # pair 0 of the four-wide head turns exactly as the one-pair row does
        x = np.zeros(d_h)
        x[:2] = q
        assert np.allclose(P.rope(x[None], [m], base=base, pairing="adjacent")[0, :2], _turn(q, m * theta[0]))
    assert np.allclose(list(hand.values()), list(engine.values()))
    offsets = {}
    for (m, n), score in hand.items():
        offsets.setdefault(m - n, []).append(score)
    assert len(offsets) == 2 and all(np.allclose(v, v[0]) for v in offsets.values())
    a, b = (v[0] for v in offsets.values())
    assert not np.isclose(a, b)  # a different offset gives a different score: the check can fail


def test_moving_query_and_key_together_keeps_the_rope_score():
    from tokenpath import questions

    rng = np.random.default_rng(3)
    q, k = rng.standard_normal((2, 1, 8))
    for shift in (1, 5, 1000):
        before = P.relative_scores(q, k, [5], [3]).absolute
        after = P.relative_scores(q, k, [5 + shift], [3 + shift]).absolute
        assert np.allclose(before, after)
    assert questions.for_chapter("06_rope_discs")["rope-shift"].answer == "b"


def test_section_6_1_and_6_5_inline_numpy_is_the_engine():
    from tokenpath.attention import softmax

    b = LP.order_blindness(ex.TEXT, ex.ORDER_PERMUTATION, seed=ex.ORDER_SEED)
    for ids, trace in ((b.ids, b.plain), (b.ids[b.permutation], b.plain_reordered)):
        x = b.table[ids]
        q, k, u = x @ b.w_q, x @ b.w_k, x @ b.w_v
        np.testing.assert_allclose(softmax(q @ k.T / np.sqrt(q.shape[1])) @ u, trace.output, atol=1e-12)
    s = 0.5
    t = ex.FIG8_Q.shape[0]
    m, n = np.arange(t)[:, None], np.arange(t)[None, :]
    scores = np.where(n <= m, ex.FIG8_Q @ ex.FIG8_K.T / np.sqrt(2) - s * (m - n), -np.inf)
    np.testing.assert_allclose(softmax(scores), P.alibi(ex.FIG8_Q, ex.FIG8_K, ex.FIG8_U, s).biased.weights, atol=1e-12)


def test_a_steeper_alibi_slope_moves_row_2_to_its_own_position_and_a_gentler_one_keeps_source_0():
    from tokenpath import questions

    steep = P.alibi(ex.FIG8_Q, ex.FIG8_K, ex.FIG8_U, ex.ALIBI_STEEP_SLOPE)
    gentle = P.alibi(ex.FIG8_Q, ex.FIG8_K, ex.FIG8_U, 0.25)
    assert steep.most_read[1][2] == 2 and gentle.most_read[1][2] == 0
    assert questions.for_chapter("06_rope_discs")["rope-alibi"].answer == 2
