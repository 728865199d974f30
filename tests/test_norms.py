"""Feature-wise transforms: RMSNorm and LayerNorm traces, SiLU, the SwiGLU FFN and
the residual add, with their invariants and their refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tokenpath import examples as ex
from tokenpath import norms

FEATURES = arrays(np.float64, st.integers(2, 6), elements=st.floats(-50, 50, allow_nan=False))


def _not_flat(x):
    return np.ptp(x) > 1e-3 and np.abs(x).max() > 1e-3


# ---------------------------------------------------------------------- RMSNorm


def test_fig17_rmsnorm_of_3_4_is_rms_sqrt_12_5_and_no_mean_removed():
    t = norms.rms_norm_trace(ex.FIG17_X, ex.FIG17_WEIGHT, eps=ex.FIG17_EPS)
    assert t.mean_square.item() == 12.5
    assert t.rms.item() == math.sqrt(12.5)
    np.testing.assert_allclose(t.output, [3 / math.sqrt(12.5), 4 / math.sqrt(12.5)], rtol=1e-15)
    assert t.output.mean() > 0.9  # the mean is kept: LayerNorm would give mean 0
    np.testing.assert_array_equal(norms.rms_norm(ex.FIG17_X, ex.FIG17_WEIGHT), t.output)


@given(x=FEATURES, c=st.floats(1e-3, 1e3))
@settings(max_examples=30)
def test_rmsnorm_is_invariant_to_positive_scaling_of_x(x, c):
    if np.abs(x).max() < 1e-3:
        return
    np.testing.assert_allclose(norms.rms_norm(c * x), norms.rms_norm(x), rtol=1e-9, atol=1e-12)


@given(x=FEATURES)
@settings(max_examples=30)
def test_rmsnorm_output_has_root_mean_square_one(x):
    if np.abs(x).max() < 1e-3:
        return
    np.testing.assert_allclose(np.sqrt(np.mean(norms.rms_norm(x) ** 2)), 1.0, rtol=1e-12)


def test_rmsnorm_multiplies_by_the_weight_not_one_plus_weight():
    x, w = np.array([3.0, 4.0]), np.array([0.5, -2.0])
    np.testing.assert_allclose(norms.rms_norm(x, w), w * norms.rms_norm(x))
    assert not np.allclose(norms.rms_norm(x, w), (1 + w) * norms.rms_norm(x))


def test_rmsnorm_uses_the_last_axis_only_and_eps_under_the_root():
    x = np.array([[3.0, 4.0], [0.0, 1.0]])
    out = norms.rms_norm(x, eps=0.5)
    np.testing.assert_allclose(out[1], [0.0, 1.0 / math.sqrt(0.5 + 0.5)])
    np.testing.assert_allclose(out[0], x[0] / math.sqrt(12.5 + 0.5))


def test_rmsnorm_refuses_zero_vector_without_eps_and_bad_weight():
    with pytest.raises(ValueError, match="eps"):
        norms.rms_norm([0.0, 0.0])
    np.testing.assert_array_equal(norms.rms_norm([0.0, 0.0], eps=1e-6), [0.0, 0.0])
    with pytest.raises(ValueError, match="weight"):
        norms.rms_norm([1.0, 2.0], [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="eps"):
        norms.rms_norm([1.0, 2.0], eps=-1.0)


# --------------------------------------------------------------------- LayerNorm


def test_layernorm_of_3_4_removes_the_mean_3_5():
    t = norms.layer_norm_trace(ex.FIG17_X)
    assert t.mean.item() == 3.5 and t.std.item() == 0.5
    assert t.output.tolist() == [-1.0, 1.0]


@given(x=FEATURES, c=st.floats(1e-2, 1e2), shift=st.floats(-100, 100))
@settings(max_examples=30)
def test_layernorm_is_invariant_to_scaling_and_to_adding_a_constant(x, c, shift):
    if not _not_flat(x):
        return
    np.testing.assert_allclose(norms.layer_norm(c * x + shift), norms.layer_norm(x), rtol=1e-6, atol=1e-6)


def test_rmsnorm_is_not_invariant_to_adding_a_constant():
    x = ex.FIG17_X
    assert not np.allclose(norms.rms_norm(x + 1.0), norms.rms_norm(x))


def test_layernorm_weight_bias_and_refusals():
    np.testing.assert_allclose(norms.layer_norm([3.0, 4.0], [2.0, 3.0], [1.0, 0.0]), [-1.0, 3.0])
    with pytest.raises(ValueError, match="eps"):
        norms.layer_norm([2.0, 2.0])
    with pytest.raises(ValueError, match="bias"):
        norms.layer_norm([2.0, 3.0], bias=[0.0])


def test_compare_norms_reports_an_undefined_norm_instead_of_raising():
    c = norms.compare_norms([2.0, 2.0])
    assert c.layer is None and c.rms is not None
    assert c.problems and "variance is 0" in c.problems[0]
    both = norms.compare_norms([0.0, 0.0])
    assert both.rms is None and both.layer is None and len(both.problems) == 2


# ---------------------------------------------------------------- SiLU and SwiGLU


def test_fig17_gate_1_content_2_gives_1_sigma_1_times_2():
    t = norms.gate_trace(ex.FIG17_GATE_PRE, ex.FIG17_CONTENT)
    assert t.product == pytest.approx(1 * (1 / (1 + math.exp(-1))) * 2, rel=1e-15)
    assert round(float(t.product), 3) == 1.462


def test_silu_is_x_sigmoid_x_and_lets_small_negatives_through():
    x = np.linspace(-10, 10, 41)
    np.testing.assert_allclose(norms.silu(x), x / (1 + np.exp(-x)), rtol=1e-13)
    assert norms.silu(-1.0) < 0  # not clipped to 0 like ReLU
    assert norms.sigmoid(-800.0) == 0.0 and norms.sigmoid(800.0) == 1.0


def test_swiglu_widens_then_returns_to_the_residual_width():
    rng = np.random.default_rng(ex.FFN_SEED)
    x = rng.standard_normal((ex.B, ex.T, ex.D_MODEL))
    wg, wu = rng.standard_normal((2, ex.D_MODEL, ex.D_FF))
    wd = rng.standard_normal((ex.D_FF, ex.D_MODEL))
    t = norms.swiglu_trace(x, wg, wu, wd)
    assert t.gate_pre.shape == t.content.shape == (ex.B, ex.T, ex.D_FF)
    assert t.output.shape == x.shape
    np.testing.assert_allclose(t.output, (norms.silu(x @ wg) * (x @ wu)) @ wd, rtol=1e-12)
    np.testing.assert_array_equal(norms.swiglu(x, wg, wu, wd), t.output)


def test_swiglu_acts_on_each_position_alone():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3))
    w = rng.standard_normal((3, 5)), rng.standard_normal((3, 5)), rng.standard_normal((5, 3))
    whole = norms.swiglu(x, *w)
    for t in range(4):
        np.testing.assert_allclose(norms.swiglu(x[t], *w), whole[t], rtol=1e-12)


def test_swiglu_checks_weight_shapes_by_name():
    with pytest.raises(ValueError, match="w_gate and w_up"):
        norms.swiglu([1.0, 2.0], np.ones((3, 4)), np.ones((3, 4)), np.ones((4, 2)))
    with pytest.raises(ValueError, match="w_down"):
        norms.swiglu([1.0, 2.0], np.ones((2, 4)), np.ones((2, 4)), np.ones((3, 2)))
    with pytest.raises(ValueError, match="same shape"):
        norms.gate_trace([1.0, 2.0], [1.0])


# ------------------------------------------------------------------------ residual


def test_fig18_residual_adds_feature_by_feature():
    t = norms.residual_trace(ex.FIG18_STREAM, ex.FIG18_UPDATE)
    assert t.output.tolist() == [1.5, 1.0]
    assert t.output.shape == t.stream.shape  # not concatenated to 4 features


@pytest.mark.parametrize("update", [[0.5, -1.0, 0.0], [[0.5, -1.0], [0.0, 0.0]], [0.5]])
def test_residual_refuses_mismatched_widths_or_positions(update):
    with pytest.raises(ValueError, match="update must have the shape of the residual stream"):
        norms.residual_add([1.0, 2.0], update)


# ------------------------------------------------- chapter 8's cells: inline numpy = engine


def test_chapter_8_inline_numpy_is_the_engine():
    """The few numpy lines of sections 8.1-8.3, as the chapter writes them, equal the engine's traces;
    the square-matrix cell of 8.4 differs, so its 'same numbers' line can fail."""
    x, gamma, eps = ex.FIG17_X, ex.FIG17_WEIGHT, ex.FIG17_EPS
    y = x / np.sqrt((x**2).mean(-1, keepdims=True) + eps) * gamma
    np.testing.assert_allclose(y, norms.rms_norm_trace(x, gamma, eps=eps).output, atol=1e-12)
    mu = x.mean(-1, keepdims=True)
    ln = (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True))
    np.testing.assert_allclose(ln, norms.layer_norm_trace(x).output, atol=1e-12)

    def silu(a):
        return a * (1 / (1 + np.exp(-a)))

    g = norms.gate_trace(ex.FIG17_GATE_PRE, ex.FIG17_CONTENT)
    assert np.isclose(silu(ex.FIG17_GATE_PRE) * ex.FIG17_CONTENT, g.product) and np.isclose(silu(-1.0), norms.silu(-1.0))
    rng = np.random.default_rng(ex.FFN_SEED)
    X = rng.standard_normal((ex.B, ex.T, ex.D_MODEL))
    W_g, W_u = rng.standard_normal((2, ex.D_MODEL, ex.D_FF))
    W_d = rng.standard_normal((ex.D_FF, ex.D_MODEL))
    F = (silu(X @ W_g) * (X @ W_u)) @ W_d
    np.testing.assert_allclose(F, norms.swiglu_trace(X, W_g, W_u, W_d).output, atol=1e-12)
    assert not np.allclose(F, (silu(X @ W_u) * (X @ W_g)) @ W_d)  # swapping gate and content shows
    np.testing.assert_array_equal(ex.FIG18_STREAM + ex.FIG18_UPDATE, norms.residual_add(ex.FIG18_STREAM, ex.FIG18_UPDATE))
    W_sq = rng.standard_normal((ex.D_MODEL, ex.D_MODEL))
    assert not np.allclose(X @ W_sq.T, X @ W_sq)


def test_a_layer_whose_output_matrices_are_zero_returns_its_input():
    from dataclasses import replace

    from tokenpath import decoder

    rng = np.random.default_rng(ex.FFN_SEED)
    X = rng.standard_normal((ex.B, ex.T, ex.D_MODEL))
    w = decoder.random_layer(ex.D_MODEL, 2, ex.D_FF, seed=ex.FFN_SEED)
    silent = replace(w, w_o=np.zeros_like(w.w_o), w_down=np.zeros_like(w.w_down))
    np.testing.assert_array_equal(decoder.decoder_layer(X, silent).out, X)
    assert not np.allclose(decoder.decoder_layer(X, w).out, X)  # with its own weights the layer changes X
    assert not np.allclose(norms.rms_norm(X), X)  # post-norm would return Norm(X), not X


def test_the_chapter_prints_every_inline_comparison_true():
    import json
    from pathlib import Path

    nb = json.loads((Path(__file__).resolve().parents[1] / "notebooks" / "08_rmsnorm_swiglu.ipynb").read_text())
    text = "".join("".join(o.get("text", "")) for c in nb["cells"] if c["cell_type"] == "code"
                   for o in c.get("outputs", []))
    assert text.count("same as the engine: True") == 5 and "same as the engine: False" not in text
    assert "the layer returns its input unchanged: True" in text and "same numbers: False" in text


def test_norm_offset_reads_a_stored_offset_as_gamma_and_differs_from_what_the_file_meant():
    from tokenpath import questions

    q = questions.for_chapter("08_rmsnorm_swiglu")["norm-offset"]
    np.testing.assert_allclose(q.answer, norms.rms_norm(ex.FIG17_X, ex.QUIZ_OFFSET_W))
    meant = norms.rms_norm(ex.FIG17_X, 1 + ex.QUIZ_OFFSET_W)
    assert not np.allclose(q.answer, meant, atol=0.1)  # the silent mistake shows in the numbers
    assert q.check(meant).status == "not yet" and q.check(q.answer).status == "right"