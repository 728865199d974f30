"""Cross-check the engine's attention against PyTorch's scaled_dot_product_attention.

torch is an optional extra (`pip install -e '.[crosscheck]'`); without it these tests
are skipped with a visible reason. CI installs it.
"""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import attention as A
from tokenpath import packing as PK
from tokenpath.lessons import attention as LA
from tokenpath import examples as ex

torch = pytest.importorskip(
    "torch", reason="torch not installed: install the 'crosscheck' extra to compare with PyTorch"
)
F = torch.nn.functional

RTOL, ATOL = 1e-10, 1e-12


def _t(x):
    return torch.from_numpy(np.ascontiguousarray(x, dtype=np.float64))


def _random_bhtd(seed, b=2, h=3, t_q=5, t_k=5, d_h=4, d_v=4):
    rng = np.random.default_rng(seed)
    return (
        rng.standard_normal((b, h, t_q, d_h)),
        rng.standard_normal((b, h, t_k, d_h)),
        rng.standard_normal((b, h, t_k, d_v)),
    )


def snippet_causal_attention(q, k, value):
    """Chapter 4's PyTorch snippet (section 4.3), verbatim in behaviour."""
    import math

    t = q.shape[-2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    future = torch.triu(torch.ones(t, t, dtype=torch.bool, device=q.device), diagonal=1)
    scores = scores.masked_fill(future, float("-inf"))
    weights = scores.softmax(dim=-1)
    return weights @ value, weights


def test_causal_multi_head_matches_sdpa_is_causal():
    q, k, v = _random_bhtd(0)
    ours = A.causal_attention(q, k, v).output
    theirs = F.scaled_dot_product_attention(_t(q), _t(k), _t(v), is_causal=True).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL)


def test_explicit_boolean_mask_matches_sdpa_attn_mask():
    q, k, v = _random_bhtd(1, t_q=6, t_k=6)
    packed = PK.pack_documents([[3, 7], [2, 3, 7], [7]], 6, eos=ex.EOS, pad_id=ex.PAD)
    mask = packed.mask()[:, None]  # [B, 1, T, T], broadcast over heads
    assert mask.shape[0] == q.shape[0]
    ours = A.attention(q, k, v, mask).output
    theirs = F.scaled_dot_product_attention(_t(q), _t(k), _t(v), attn_mask=torch.from_numpy(mask)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL)


def test_kv_cache_mask_matches_sdpa_with_nonsquare_mask():
    q, k, v = _random_bhtd(2, t_q=ex.FIG14_NEW, t_k=ex.FIG14_PAST + ex.FIG14_NEW)
    ours = A.causal_attention(q, k, v, past=ex.FIG14_PAST).output
    mask = torch.from_numpy(A.cache_mask(ex.FIG14_PAST, ex.FIG14_NEW))
    theirs = F.scaled_dot_product_attention(_t(q), _t(k), _t(v), attn_mask=mask).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL)


def test_sdpa_is_causal_on_nonsquare_input_is_not_the_cache_mask():
    """torch's is_causal aligns the mask to the top-left corner (row r sees keys <= r):
    exactly the misaligned mask of figure 14, which drops cached history."""
    q, k, v = _random_bhtd(3, t_q=ex.FIG14_NEW, t_k=ex.FIG14_PAST + ex.FIG14_NEW)
    top_left = F.scaled_dot_product_attention(_t(q), _t(k), _t(v), is_causal=True).numpy()
    wrong = A.attention(q, k, v, LA.misaligned_cache_mask(ex.FIG14_PAST, ex.FIG14_NEW)).output
    right = A.causal_attention(q, k, v, past=ex.FIG14_PAST).output
    np.testing.assert_allclose(top_left, wrong, rtol=RTOL, atol=ATOL)
    assert not np.allclose(top_left, right)


def test_torchs_causal_lower_right_bias_is_the_cache_mask():
    """torch.nn.attention.bias.causal_lower_right aligns the triangle to the bottom-right
    corner: exactly figure 14's correct cache mask, and SDPA with it gives the cached output."""
    from torch.nn.attention.bias import causal_lower_right
    bias = causal_lower_right(ex.FIG14_NEW, ex.FIG14_PAST + ex.FIG14_NEW)
    np.testing.assert_array_equal(bias._materialize().numpy(), A.cache_mask(ex.FIG14_PAST, ex.FIG14_NEW))
    q, k, v = _random_bhtd(4, t_q=ex.FIG14_NEW, t_k=ex.FIG14_PAST + ex.FIG14_NEW)
    theirs = F.scaled_dot_product_attention(_t(q), _t(k), _t(v), attn_mask=bias).numpy()
    np.testing.assert_allclose(A.causal_attention(q, k, v, past=ex.FIG14_PAST).output, theirs, rtol=RTOL, atol=ATOL)


def test_cross_attention_matches_sdpa_with_padding_mask():
    q, k, v = _random_bhtd(4, t_q=2, t_k=4)
    valid = np.array([[True, True, True, False], [True, True, False, False]])
    ours = A.cross_attention(q, k, v, encoder_valid=valid[:, None, :]).output
    mask = torch.tensor(A.padding_mask(valid)[:, None])  # [B,1,1,T_k]; a copy: the engine's arrays are read-only
    theirs = F.scaled_dot_product_attention(_t(q), _t(k), _t(v), attn_mask=mask).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL)


def test_chapter4_snippet_and_engine_agree_on_fig08_weights_and_output():
    q, k, u = (x[None, None] for x in (ex.FIG8_Q, ex.FIG8_K, ex.FIG8_U))
    out, weights = snippet_causal_attention(_t(q), _t(k), _t(u))
    trace = A.causal_attention(ex.FIG8_Q, ex.FIG8_K, ex.FIG8_U)
    np.testing.assert_allclose(weights.numpy()[0, 0], trace.weights, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(out.numpy()[0, 0], trace.output, rtol=RTOL, atol=ATOL)
    assert out.shape == q.shape


def test_scale_matches_sdpa_default_scale_for_several_head_widths():
    for d_h in (1, 2, 8, 64):
        q, k, v = _random_bhtd(10 + d_h, b=1, h=1, t_q=3, t_k=3, d_h=d_h, d_v=2)
        ours = A.attention(q, k, v).output
        theirs = F.scaled_dot_product_attention(_t(q), _t(k), _t(v)).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL)
