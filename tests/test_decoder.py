"""Engine tests of tokenpath.decoder: one pre-norm layer, its wiring and its trace."""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import attention as A
from tokenpath.lessons import embedding as LE
from tokenpath import decoder as dec
from tokenpath import embedding as em
from tokenpath import examples as ex
from tokenpath import moe, norms
from tokenpath.position import rope

W = LE.teaching_layer()
X = em.lookup(LE.teaching_embedding(), LE.batch_ids())
TRACE = dec.decoder_layer(X, W)


def test_fig04_x_y_and_x_prime_are_all_b_t_d_2_4_8():
    s = TRACE.shapes()
    assert s["x"] == s["y"] == s["out"] == (ex.B, ex.T, ex.D_MODEL) == (2, 4, 8)


def test_trace_shapes_of_every_intermediate():
    assert TRACE.shapes() == {
        "x": (2, 4, 8), "attn_in": (2, 4, 8), "q": (2, 2, 4, 4), "k": (2, 2, 4, 4),
        "v": (2, 2, 4, 4), "q_rot": (2, 2, 4, 4), "k_rot": (2, 2, 4, 4), "weights": (2, 2, 4, 4),
        "heads_out": (2, 2, 4, 4), "merged": (2, 4, 8), "attn_out": (2, 4, 8), "y": (2, 4, 8),
        "ffn_in": (2, 4, 8), "ffn_hidden": (2, 4, 24), "ffn_out": (2, 4, 8), "out": (2, 4, 8),
    }


def test_first_residual_keeps_x_and_second_keeps_y():
    np.testing.assert_allclose(TRACE.y, X + TRACE.attn_out)
    np.testing.assert_allclose(TRACE.out, TRACE.y + TRACE.ffn_out)
    assert not np.allclose(TRACE.out, X + TRACE.ffn_out)


def test_layer_is_the_composition_of_the_engine_pieces():
    h = norms.rms_norm(X, W.attn_norm, eps=W.eps)
    q = rope(A.split_heads(h @ W.w_q, 2), np.arange(4))
    k = rope(A.split_heads(h @ W.w_k, 2), np.arange(4))
    v = A.split_heads(h @ W.w_v, 2)
    y = X + A.merge_heads(A.causal_attention(q, k, v).output) @ W.w_o
    out = y + norms.swiglu(norms.rms_norm(y, W.ffn_norm, eps=W.eps), W.w_gate, W.w_up, W.w_down)
    np.testing.assert_allclose(TRACE.out, out, rtol=1e-12, atol=1e-12)


def test_rope_turns_queries_and_keys_but_never_values():
    assert not np.allclose(TRACE.q_rot, TRACE.q) and not np.allclose(TRACE.k_rot, TRACE.k)
    # position 0 is not turned at all
    np.testing.assert_allclose(TRACE.q_rot[..., 0, :], TRACE.q[..., 0, :])
    # the value is the plain projection: no rotation anywhere
    np.testing.assert_allclose(TRACE.v, A.split_heads(TRACE.attn_in @ W.w_v, 2))
    np.testing.assert_allclose(TRACE.heads_out, TRACE.weights @ TRACE.v)


def test_attention_is_causal_and_never_mixes_the_batch():
    np.testing.assert_array_equal(np.triu(TRACE.weights, 1), 0)
    changed = X.copy()
    changed[1] += 1.0  # change sequence 1 only
    changed[0, 3] += 1.0  # and the last position of sequence 0
    other = dec.decoder_layer(changed, W)
    np.testing.assert_allclose(other.out[0, :3], TRACE.out[0, :3])


def test_ffn_acts_on_each_position_on_its_own():
    one = dec.decoder_layer(X[:, :1], W)
    np.testing.assert_allclose(one.out[:, 0], TRACE.out[:, 0])  # position 0 reads only itself


def test_shifted_positions_give_the_same_layer_output_relative_rope():
    # RoPE scores depend on distances only: moving every position by 5 changes nothing
    moved = dec.decoder_layer(X, W, positions=np.arange(4) + 5)
    np.testing.assert_allclose(moved.out, TRACE.out, atol=1e-12)


@pytest.mark.parametrize("b, t, d, h, d_h, d_ff", [(1, 1, 4, 1, 4, 3), (3, 5, 6, 3, 2, 7), (1, 3, 8, 2, 6, 16)])
def test_any_shape_runs(b, t, d, h, d_h, d_ff):
    w = dec.random_layer(d, h, d_ff, d_h=d_h, seed=1, rope_base=500.0, eps=1e-6)
    tr = dec.decoder_layer(np.random.default_rng(0).normal(size=(b, t, d)), w)
    assert tr.out.shape == (b, t, d) and tr.q.shape == (b, h, t, d_h) and tr.ffn_hidden.shape == (b, t, d_ff)


def test_parameters_are_stored_activations_are_not():
    shapes = W.shapes()
    assert set(shapes) == {"attn_norm", "w_q", "w_k", "w_v", "w_o", "ffn_norm", "w_gate", "w_up", "w_down"}
    assert shapes["w_q"] == (8, 8) and shapes["w_gate"] == (8, 24) and shapes["w_down"] == (24, 8)
    assert W.parameter_count == 848
    assert not set(shapes) & set(TRACE.shapes())


def test_weights_are_read_only():
    with pytest.raises(ValueError):
        W.w_q[0, 0] = 1.0


def test_from_linear_transposes_out_in_matrices():
    lin = {n: getattr(W, "w_" + n).T for n in ("q", "k", "v", "o", "gate", "up", "down")}
    again = dec.LayerWeights.from_linear(
        attn_norm=W.attn_norm, ffn_norm=W.ffn_norm, heads=2, q_proj=lin["q"], k_proj=lin["k"],
        v_proj=lin["v"], o_proj=lin["o"], gate_proj=lin["gate"], up_proj=lin["up"], down_proj=lin["down"],
    )
    np.testing.assert_array_equal(dec.decoder_layer(X, again).out, TRACE.out)


# ------------------------------------------------------------------------ bad input


def test_decoder_layer_rejects_bad_input():
    with pytest.raises(ValueError, match=r"x must have 3 axes"):
        dec.decoder_layer(X[0], W)
    with pytest.raises(ValueError, match="x must have the layer's width d=8"):
        dec.decoder_layer(np.ones((2, 4, 6)), W)
    with pytest.raises(TypeError, match="weights must be a LayerWeights"):
        dec.decoder_layer(X, {"w_q": 1})
    with pytest.raises(ValueError, match="positions must give one position per row"):
        dec.decoder_layer(X, W, positions=[0, 1])
    with pytest.raises(TypeError, match="positions must hold integers"):
        dec.decoder_layer(X, W, positions=[0.0, 1.0, 2.0, 3.0])


def test_layer_weights_reject_inconsistent_shapes():
    kw = {f: getattr(W, f) for f in W.shapes()}
    with pytest.raises(ValueError, match=r"w_o must have shape \[8, 8\]"):
        dec.LayerWeights(**{**kw, "w_o": np.ones((8, 6))}, heads=2)
    with pytest.raises(ValueError, match="w_q must have H·d_h columns with heads=3"):
        dec.LayerWeights(**kw, heads=3)
    with pytest.raises(ValueError, match="d_h = 1 must be even"):
        dec.LayerWeights(**kw, heads=8)
    with pytest.raises(ValueError, match="attn_norm must have 1 axes"):
        dec.LayerWeights(**{**kw, "attn_norm": np.ones((8, 1))}, heads=2)
    with pytest.raises(ValueError, match="does not divide into heads=3"):
        dec.random_layer(8, 3, 4, seed=0)


# ------------------------------------------- shared K/V heads and an expert FFN


def test_kv_heads_defaults_to_heads_and_shared_heads_read_their_group():
    assert W.kv_heads == W.heads == 2
    w = dec.random_layer(8, 4, 24, seed=3, kv_heads=2)
    tr = dec.decoder_layer(X, w)
    assert tr.q.shape == (2, 4, 4, 2) and tr.k.shape == tr.v.shape == (2, 2, 4, 2)
    # the same layer with each K/V head copied for its query heads: ordinary multi-head attention
    rep = np.repeat(np.arange(2), 2)  # query head h reads K/V head h // 2
    cols = (rep[:, None] * w.d_h + np.arange(w.d_h)).ravel()
    kw = {f: getattr(w, f) for f in w.shapes()}
    mha = dec.LayerWeights(**{**kw, "w_k": w.w_k[:, cols], "w_v": w.w_v[:, cols]}, heads=4)
    np.testing.assert_allclose(dec.decoder_layer(X, mha).out, tr.out, atol=1e-12)


def test_expert_ffn_runs_the_engines_moe_layer_per_position():
    w = dec.random_layer(8, 2, 6, seed=4, experts=4, top_k=2)
    tr = dec.decoder_layer(X, w)
    assert tr.ffn_hidden is None and tr.chosen_experts.shape == (2, 4, 2)
    np.testing.assert_allclose(tr.expert_gates.sum(-1), 1.0)
    experts = [moe.Expert(w.w_gate[e], w.w_up[e], w.w_down[e]) for e in range(4)]
    ref = moe.moe_layer(tr.ffn_in.reshape(-1, 8), w.w_router, experts, 2)
    np.testing.assert_allclose(tr.ffn_out.reshape(-1, 8), ref.output, atol=1e-12)
    np.testing.assert_array_equal(tr.chosen_experts.reshape(-1, 2), ref.route.chosen)
    np.testing.assert_allclose(tr.out, tr.y + tr.ffn_out)
    s = tr.shapes()
    assert s["router_scores"] == (2, 4, 4) and s["expert_outputs"] == (2, 4, 2, 8) and "ffn_hidden" not in s
    assert w.n_experts == 4 and w.parameter_count == W.parameter_count - 3 * 8 * 24 + 4 * 3 * 8 * 6 + 8 * 4


def test_expert_layer_from_linear_takes_stacked_out_in_matrices():
    w = dec.random_layer(8, 2, 6, seed=4, experts=3, top_k=1)
    again = dec.LayerWeights.from_linear(
        attn_norm=w.attn_norm, ffn_norm=w.ffn_norm, heads=2, q_proj=w.w_q.T, k_proj=w.w_k.T, v_proj=w.w_v.T,
        o_proj=w.w_o.T, gate_proj=np.swapaxes(w.w_gate, 1, 2), up_proj=np.swapaxes(w.w_up, 1, 2),
        down_proj=np.swapaxes(w.w_down, 1, 2), router=w.w_router.T, experts_per_token=1)
    np.testing.assert_array_equal(dec.decoder_layer(X, again).out, dec.decoder_layer(X, w).out)


def test_kv_heads_and_experts_refuse_bad_values():
    kw = {f: getattr(W, f) for f in W.shapes()}
    with pytest.raises(ValueError, match="n_q_heads=2 is not divisible by n_kv_heads=3"):
        dec.LayerWeights(**kw, heads=2, kv_heads=3)
    with pytest.raises(ValueError, match=r"w_k must have shape \[8, 4\]"):
        dec.LayerWeights(**kw, heads=2, kv_heads=1)
    with pytest.raises(ValueError, match="experts_per_token needs w_router"):
        dec.LayerWeights(**kw, heads=2, experts_per_token=1)
    with pytest.raises(ValueError, match=r"w_gate must be \[E, ·, ·\]"):
        dec.LayerWeights(**kw, heads=2, w_router=np.ones((8, 3)), experts_per_token=1)
    m = dec.random_layer(8, 2, 6, seed=0, experts=3, top_k=1)
    mk = {f: getattr(m, f) for f in m.shapes()}
    with pytest.raises(ValueError, match="experts_per_token must be given with w_router"):
        dec.LayerWeights(**mk, heads=2)
    with pytest.raises(ValueError, match="experts_per_token must be <= 3"):
        dec.LayerWeights(**mk, heads=2, experts_per_token=4)
    with pytest.raises(ValueError, match=r"w_gate must be \[E, d, d_ff\] = \[4, 8, d_ff\]"):
        dec.LayerWeights(**{**mk, "w_router": np.ones((8, 4))}, heads=2, experts_per_token=1)
    with pytest.raises(ValueError, match=r"w_down must have shape \[3, 6, 8\]"):
        dec.LayerWeights(**{**mk, "w_down": np.ones((3, 8, 8))}, heads=2, experts_per_token=1)
    with pytest.raises(ValueError, match="top_k needs experts"):
        dec.random_layer(8, 2, 6, seed=0, top_k=1)


def test_moe_experts_refuses_stacks_that_disagree_with_the_router():
    x = np.ones((3, 4))
    with pytest.raises(ValueError, match=r"with E_n = 2 \(w_router's columns\)"):
        moe.moe_experts(x, np.ones((4, 2)), np.ones((3, 4, 5)), np.ones((3, 4, 5)), np.ones((3, 5, 4)), 1)
    with pytest.raises(ValueError, match="w_gate must have 3 axes"):
        moe.moe_experts(x, np.ones((4, 2)), np.ones((4, 5)), np.ones((2, 4, 5)), np.ones((2, 5, 4)), 1)
