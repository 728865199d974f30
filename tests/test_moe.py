"""Engine tests of tokenpath.moe: routing, gates, combination, batch use and capacity,
the top-1 boundary and its router gradient, and the errors bad input gets."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tokenpath import attention, moe, moe_dispatch, norms
from tokenpath import examples as ex
from tokenpath.lessons import moe as lessons_moe

E = ex.FIG20_SCORES.size


# ------------------------------------------------------------------ figure 20


def test_fig20_top2_of_scores_2_1_0_minus1_is_experts_0_and_1():
    r = moe.route(ex.FIG20_SCORES, ex.FIG20_K)
    assert r.chosen.tolist() == [0, 1]
    assert r.mask.tolist() == [True, True, False, False]


def test_fig20_in_set_gates_are_e2_and_e1_over_their_sum():
    r = moe.route(ex.FIG20_SCORES, ex.FIG20_K)
    e = np.exp([2.0, 1.0])
    np.testing.assert_allclose(r.gates[:2], e / e.sum(), rtol=1e-15)
    np.testing.assert_allclose(r.gates[:2], [0.731059, 0.268941], atol=5e-7)
    assert r.gates[2] == 0.0 and r.gates[3] == 0.0


def test_fig20_output_is_2_076_2_462_from_rounded_gates_and_2_075766_2_462117_in_full():
    t = moe.combine(moe.route(ex.FIG20_SCORES, ex.FIG20_K), ex.FIG20_OUTPUTS)
    np.testing.assert_allclose(lessons_moe.output_from_rounded_gates(t, 3), [2.076, 2.462], atol=1e-12)
    np.testing.assert_allclose(t.output, [2.075766, 2.462117], atol=5e-7)
    g = t.route.chosen_gates
    np.testing.assert_allclose(t.output, [g[0] * 1 + g[1] * 5, g[0] * 3 + g[1] * 1])


def test_full_softmax_gates_keep_the_probability_of_all_experts():
    r = moe.route(ex.FIG20_SCORES, 2, gate="full_softmax")
    p = attention.softmax(ex.FIG20_SCORES)
    np.testing.assert_array_equal(r.gates, [p[0], p[1], 0.0, 0.0])
    assert r.gates.sum() < 1


def test_tie_rule_lower_index_first():
    assert moe.top_k([1.0, 3.0, 3.0, 0.0], 1).tolist() == [1]
    assert moe.top_k([1.0, 3.0, 3.0, 3.0], 2).tolist() == [1, 2]
    assert moe.top_k([[0.0, 0.0], [0.0, 0.0]], 1).tolist() == [[0], [0]]


# ---------------------------------------------------------------- properties

scores_rows = arrays(np.float64, st.integers(2, 7), elements=st.floats(-20, 20, allow_nan=False))


@settings(max_examples=40)
@given(scores_rows, st.data())
def test_chosen_gates_sum_to_one_and_unchosen_are_exactly_zero(a, data):
    k = data.draw(st.integers(1, a.size))
    r = moe.route(a, k)
    np.testing.assert_allclose(r.gates[r.mask].sum(), 1.0, rtol=1e-12)
    assert np.all(r.gates[~r.mask] == 0.0)
    assert r.mask.sum() == k
    # the chosen experts hold the k largest scores
    assert a[r.mask].min() >= a[~r.mask].max(initial=-np.inf)


@settings(max_examples=40)
@given(scores_rows, st.floats(-50, 50), st.data())
def test_adding_a_constant_to_all_scores_changes_neither_choice_nor_gates(a, c, data):
    k = data.draw(st.integers(1, a.size))
    # exact shifts keep ties as they are: round the scores to a dyadic grid first
    a = np.round(a * 8) / 8
    c = np.round(c * 8) / 8
    for gate in moe.GATES:
        r0, r1 = moe.route(a, k, gate=gate), moe.route(a + c, k, gate=gate)
        assert r0.chosen.tolist() == r1.chosen.tolist()
        np.testing.assert_allclose(r0.gates, r1.gates, rtol=1e-12, atol=1e-300)


@settings(max_examples=30)
@given(scores_rows, st.integers(0, 2**31))
def test_k_equal_to_the_number_of_experts_is_a_dense_softmax_mixture(a, seed):
    f = np.random.default_rng(seed).standard_normal((a.size, 3))
    r = moe.route(a, a.size)
    t = moe.combine(r, f[r.chosen])
    np.testing.assert_allclose(r.gates, attention.softmax(a), rtol=1e-12)
    np.testing.assert_allclose(t.output, attention.softmax(a) @ f, rtol=1e-10, atol=1e-12)


def test_batch_routing_equals_routing_each_token_alone():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((5, 6))
    b = moe.route(a, 2)
    for n in range(5):
        one = moe.route(a[n], 2)
        assert b.chosen[n].tolist() == one.chosen.tolist()
        np.testing.assert_allclose(b.gates[n], one.gates)


# ------------------------------------------------------------ experts, layer


def test_expert_output_is_norms_swiglu():
    (e,) = moe.make_experts(1, 4, 6, seed=3)
    x = np.arange(4.0)
    np.testing.assert_array_equal(moe.expert_output(x, e), norms.swiglu(x, e.w_gate, e.w_up, e.w_down))
    assert e.n_params == 3 * 4 * 6


def test_moe_layer_runs_only_the_chosen_experts_and_keeps_the_width():
    experts = moe.make_experts(ex.MOE_N_EXPERTS, ex.MOE_D, ex.MOE_D_FF, seed=ex.MOE_SEED)
    rng = np.random.default_rng(ex.MOE_SEED)
    x = rng.standard_normal((3, ex.MOE_D))
    w_r = rng.standard_normal((ex.MOE_D, ex.MOE_N_EXPERTS))
    t = moe.moe_layer(x, w_r, experts, 2)
    assert t.output.shape == x.shape
    for n in range(3):
        want = sum(t.route.gates[n, i] * moe.expert_output(x[n], experts[i]) for i in t.route.chosen[n])
        np.testing.assert_allclose(t.output[n], want, rtol=1e-12)
    single = moe.moe_layer(x[0], w_r, experts, 2)
    np.testing.assert_allclose(single.output, t.output[0])


# ------------------------------------------------------------- batch, capacity


def test_fig22_two_tokens_k2_use_four_experts_one_token_each():
    b = moe_dispatch.route_batch(ex.FIG22_SCORES, ex.FIG22_K)
    assert [sorted(c) for c in b.route.chosen.tolist()] == [[0, 1], [2, 3]]
    assert b.experts_used.tolist() == [0, 1, 2, 3]
    assert b.load.tolist() == [1, 1, 1, 1]
    assert b.dropped == []


def test_capacity_drops_later_tokens_of_a_full_expert():
    b = moe_dispatch.route_batch(np.vstack([ex.FIG22_SCORES[0], ex.FIG22_CANDIDATES[0]]), 2, capacity=ex.FIG22_CAPACITY)
    assert b.load.tolist() == [2, 2, 0, 0]
    assert b.kept_load.tolist() == [1, 1, 0, 0]
    assert b.dropped == [(1, 0), (1, 1)]
    unlimited = moe_dispatch.route_batch(np.vstack([ex.FIG22_SCORES[0], ex.FIG22_CANDIDATES[0]]), 2)
    assert unlimited.dropped == [] and unlimited.capacity is None


def test_capacity_16_experts_of_100M_store_1_6B_and_run_200M():
    c = moe_dispatch.expert_parameters(ex.MOE_EXPERTS, ex.MOE_EXPERT_PARAMS, ex.MOE_K)
    assert c.stored == 1_600_000_000 and c.active == 200_000_000
    assert (moe_dispatch.count_text(c.stored), moe_dispatch.count_text(c.active)) == ("1.6B", "200M")
    shared = moe_dispatch.expert_parameters(16, 100, 2, shared=50)
    assert (shared.stored_total, shared.active_total) == (1650, 250)


# ------------------------------------------------------- the top-1 boundary


@pytest.mark.parametrize("delta, chosen", [(-1.0, 1), (-1e-9, 1), (0.0, 0), (1e-9, 0), (ex.FIG21_DELTA, 0)])
def test_fig21_expert_1_below_zero_expert_0_above_and_the_tie_to_expert_0(delta, chosen):
    b = lessons_moe.top1_boundary(delta, ex.FIG21_OUTPUTS, ex.FIG21_TARGET)
    assert b.chosen == chosen
    assert b.gate_in_set == 1.0
    np.testing.assert_allclose(b.gate_full, attention.softmax(b.scores)[chosen])


@pytest.mark.parametrize("delta", [-1.5, -0.3, 0.25, ex.FIG21_DELTA, 1.7])
def test_fig21_top1_in_set_router_gradient_is_zero_analytic_and_by_finite_differences(delta):
    b = lessons_moe.top1_boundary(delta, ex.FIG21_OUTPUTS, ex.FIG21_TARGET)
    assert b.in_set.set_fixed
    assert np.all(b.in_set.grad == 0.0)
    assert np.all(b.in_set.fd_grad == 0.0)
    assert b.in_set.loss > 0  # there is something to learn, but not through the gate


@pytest.mark.parametrize("delta", [-1.5, -0.3, 0.25, ex.FIG21_DELTA, 1.7])
def test_fig21_full_softmax_router_gradient_is_nonzero_and_matches_finite_differences(delta):
    b = lessons_moe.top1_boundary(delta, ex.FIG21_OUTPUTS, ex.FIG21_TARGET)
    assert b.full.set_fixed
    assert np.abs(b.full.grad).max() > 1e-3
    np.testing.assert_allclose(b.full.grad, b.full.fd_grad, atol=1e-7)


def test_top2_gradient_inside_a_fixed_region_is_nonzero_and_matches_finite_differences():
    g = moe.router_gradient(ex.FIG20_SCORES, ex.FIG20_WIDGET_OUTPUTS[:4], ex.FIG21_TARGET, 2)
    assert g.set_fixed
    assert np.abs(g.grad[:2]).min() > 1e-3 and np.all(g.grad[2:] == 0.0)
    np.testing.assert_allclose(g.grad, g.fd_grad, atol=1e-7)


def test_finite_differences_across_the_tie_report_a_changing_set():
    g = moe.router_gradient([0.0, 0.0], ex.FIG21_OUTPUTS, ex.FIG21_TARGET, 1)
    assert not g.set_fixed


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("k, error, match", [(0, ValueError, "at least one"), (5, ValueError, "more experts"),
                                             (-1, ValueError, "k must"), (2.0, TypeError, "k must"),
                                             (True, TypeError, "k must"), ("2", TypeError, "k must")])
def test_bad_k_is_refused_by_name(k, error, match):
    with pytest.raises(error, match=match):
        moe.route(ex.FIG20_SCORES, k)


@pytest.mark.parametrize("bad", [[1.0, np.nan], [np.inf, 0.0], [0.0, -np.inf]])
def test_non_finite_scores_are_refused(bad):
    with pytest.raises(ValueError, match="scores must be finite"):
        moe.route(bad, 1)


def test_shape_mismatches_are_refused_by_name():
    r = moe.route(ex.FIG20_SCORES, 2)
    with pytest.raises(ValueError, match="expert_outputs"):
        moe.combine(r, np.ones((3, 2)))
    with pytest.raises(ValueError, match="expert_outputs"):
        moe.combine(moe.route(ex.FIG22_SCORES, 2), np.ones((2, 2)))
    with pytest.raises(TypeError, match="routing"):
        moe.combine(ex.FIG20_SCORES, ex.FIG20_OUTPUTS)
    with pytest.raises(ValueError, match="w_router"):
        moe.router_scores(np.ones(3), np.ones((4, 2)))
    with pytest.raises(ValueError, match="scores must have at least one expert"):
        moe.route(np.ones((2, 0)), 1)
    with pytest.raises(ValueError, match=r"scores must be \[N, E\]"):
        moe_dispatch.route_batch(ex.FIG20_SCORES, 2)
    with pytest.raises(ValueError, match="expert_outputs"):
        moe.router_gradient(ex.FIG20_SCORES, np.ones((3, 2)), [0.0, 0.0], 2)
    with pytest.raises(ValueError, match="target"):
        moe.router_gradient(ex.FIG20_SCORES, np.ones((4, 2)), [0.0], 2)
    with pytest.raises(ValueError, match="expert_outputs"):
        lessons_moe.top1_boundary(0.5, np.ones((3, 2)), [0.0, 0.0])
    experts = moe.make_experts(3, 4, 6)
    with pytest.raises(ValueError, match="one column per expert"):
        moe.moe_layer(np.ones(4), np.ones((4, 2)), experts, 1)
    with pytest.raises(TypeError, match="experts"):
        moe.moe_layer(np.ones(4), np.ones((4, 3)), experts[0], 1)


def test_other_bad_arguments_are_refused_by_name():
    with pytest.raises(ValueError, match="gate"):
        moe.route(ex.FIG20_SCORES, 2, gate="softmax")
    with pytest.raises(ValueError, match="capacity"):
        moe_dispatch.route_batch(ex.FIG22_SCORES, 2, capacity=0)
    with pytest.raises(ValueError, match="k must"):
        moe_dispatch.expert_parameters(4, 100, 5)
    with pytest.raises(TypeError, match="delta"):
        lessons_moe.top1_boundary("0", ex.FIG21_OUTPUTS, ex.FIG21_TARGET)
    with pytest.raises(ValueError, match="delta"):
        lessons_moe.top1_boundary(float("nan"), ex.FIG21_OUTPUTS, ex.FIG21_TARGET)
    with pytest.raises(TypeError, match="n must"):
        moe_dispatch.count_text(1.5)
    with pytest.raises(TypeError, match="trace"):
        lessons_moe.output_from_rounded_gates(moe.route(ex.FIG20_SCORES, 2), 3)
    with pytest.raises(ValueError, match="h must"):
        moe.router_gradient(ex.FIG20_SCORES, np.ones((4, 2)), [0.0, 0.0], 2, h=0.0)
