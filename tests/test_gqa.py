"""Grouped-query attention: the head -> group map, attention over shared K/V heads,
its two ends (MHA and MQA), the cache and the K/V element counts of figure 16."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenpath import attention as A
from tokenpath import examples as ex
from tokenpath import gqa
from tokenpath.lessons import gqa as LG


def _qkv(seed, b=2, h_q=8, h_kv=2, t=4, d_h=2, p=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((b, h_q, t, d_h)), rng.standard_normal((b, h_kv, p + t, d_h)),
            rng.standard_normal((b, h_kv, p + t, d_h)))


# ------------------------------------------------------------------ the head map


def test_fig16_eight_query_heads_read_two_groups_of_four():
    assert gqa.kv_groups(8, 2).tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    assert gqa.group_size(8, 2) == 4


@given(h_kv=st.integers(1, 6), g=st.integers(1, 6))
@settings(max_examples=25)
def test_query_head_h_reads_group_h_floor_div_group_size(h_kv, g):
    h_q = h_kv * g
    groups = gqa.kv_groups(h_q, h_kv)
    assert groups.tolist() == [h // g for h in range(h_q)]
    assert np.bincount(groups).tolist() == [g] * h_kv  # every group is read by g heads


def test_map_is_the_order_of_repeat_kv():
    x = np.arange(3.0).reshape(1, 3, 1, 1)
    rep = gqa.repeat_kv(x, 2)[0, :, 0, 0]
    assert rep.tolist() == gqa.kv_groups(6, 3).astype(float).tolist()


def test_mha_and_mqa_are_the_two_ends():
    assert gqa.kv_groups(8, 8).tolist() == list(range(8))
    assert gqa.kv_groups(8, 1).tolist() == [0] * 8


@pytest.mark.parametrize("h_q, h_kv", [(8, 3), (6, 4), (2, 4)])
def test_indivisible_head_counts_are_refused_naming_both(h_q, h_kv):
    with pytest.raises(ValueError, match=rf"n_q_heads={h_q} is not divisible by n_kv_heads={h_kv}"):
        gqa.kv_groups(h_q, h_kv)
    q, k, v = _qkv(0, h_q=h_q, h_kv=h_kv)
    with pytest.raises(ValueError, match="n_kv_heads"):
        gqa.grouped_attention(q, k, v)


@pytest.mark.parametrize("bad, error", [(0, ValueError), (-2, ValueError), (2.0, TypeError), ("2", TypeError)])
def test_bad_head_counts_name_the_argument(bad, error):
    with pytest.raises(error, match="n_kv_heads"):
        gqa.group_size(8, bad)
    with pytest.raises(error, match="n_q_heads"):
        gqa.group_size(bad, 1)
    with pytest.raises(error, match="n_q_heads"):
        gqa.kv_head_counts(bad)


@pytest.mark.parametrize("h_q", [1, 7, 8, 12, 16])
def test_kv_head_counts_are_exactly_the_counts_the_engine_accepts(h_q):
    accepted = []
    for h_kv in range(1, h_q + 1):
        try:
            gqa.group_size(h_q, h_kv)
            accepted.append(h_kv)
        except ValueError:
            pass
    assert gqa.kv_head_counts(h_q) == accepted


# ------------------------------------------------------------------------ attention


def test_gqa_equals_plain_attention_over_repeated_kv():
    q, k, v = _qkv(1)
    ours = gqa.grouped_attention(q, k, v, causal=True)
    ref = A.causal_attention(q, gqa.repeat_kv(k, 4), gqa.repeat_kv(v, 4))
    np.testing.assert_allclose(ours.output, ref.output, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(ours.weights, ref.weights, rtol=1e-12, atol=1e-14)
    assert ours.output.shape == q.shape and ours.weights.shape == (2, 8, 4, 4)


@given(seed=st.integers(0, 2**16), h=st.integers(1, 4), t=st.integers(1, 4))
@settings(max_examples=20)
def test_with_hkv_equal_hq_gqa_is_multi_head_attention(seed, h, t):
    q, k, v = _qkv(seed, h_q=h, h_kv=h, t=t)
    np.testing.assert_allclose(gqa.grouped_attention(q, k, v, causal=True).output,
                               A.causal_attention(q, k, v).output, rtol=1e-12, atol=1e-14)


@given(seed=st.integers(0, 2**16), h=st.integers(1, 6))
@settings(max_examples=20)
def test_with_one_kv_head_every_query_head_reads_the_same_keys_and_values(seed, h):
    q, k, v = _qkv(seed, h_q=h, h_kv=1)
    t = gqa.grouped_attention(q, k, v, causal=True)
    for head in range(h):
        alone = A.causal_attention(q[:, head], k[:, 0], v[:, 0])
        np.testing.assert_allclose(t.output[:, head], alone.output, rtol=1e-12, atol=1e-14)
    # same query for every head -> identical heads
    same = gqa.grouped_attention(np.repeat(q[:, :1], h, axis=1), k, v)
    np.testing.assert_allclose(same.output, np.repeat(same.output[:, :1], h, axis=1), rtol=0, atol=1e-15)


def test_heads_of_one_group_read_the_same_kv_but_keep_their_own_weights():
    q, k, v = _qkv(2)
    t = gqa.grouped_attention(q, k, v)
    # change group 1's keys and values: heads 0-3 (group 0) do not move, heads 4-7 do
    k2, v2 = k.copy(), v.copy()
    k2[:, 1] += 1.0
    v2[:, 1] -= 2.0
    t2 = gqa.grouped_attention(q, k2, v2)
    np.testing.assert_array_equal(t2.output[:, :4], t.output[:, :4])
    assert not np.allclose(t2.output[:, 4:], t.output[:, 4:])
    # four different query heads in one group -> four different weight matrices
    assert not np.allclose(t.weights[:, 0], t.weights[:, 1])
    np.testing.assert_allclose(t.weights.sum(-1), 1.0)


def test_cached_step_equals_the_full_pass():
    q, k, v = _qkv(3, t=5)
    full = gqa.grouped_attention(q, k, v, causal=True)
    first = gqa.grouped_attention(q[:, :, :3], k[:, :, :3], v[:, :, :3], causal=True)
    step = gqa.grouped_attention(q[:, :, 3:], k[:, :, 3:], v[:, :, 3:], past=first.cache, causal=True)
    np.testing.assert_allclose(step.output, full.output[:, :, 3:], rtol=1e-12, atol=1e-14)
    assert step.key.shape == (2, 2, 5, 2)  # the cache grew by the two new positions
    assert step.mask[0, 0].astype(int).tolist() == A.cache_mask(3, 2).astype(int).tolist()


def test_an_explicit_mask_is_anded_with_the_causal_one():
    q, k, v = _qkv(4)
    pad = A.padding_mask([True, True, True, False])[None, None]  # [1, 1, 1, 4]
    t = gqa.grouped_attention(q, k, v, pad, causal=True)
    assert not t.weights[..., 3].any()
    ref = A.attention(q, gqa.repeat_kv(k, 4), gqa.repeat_kv(v, 4), A.combine_masks(A.causal_mask(4), pad))
    np.testing.assert_allclose(t.output, ref.output, rtol=1e-12, atol=1e-14)


def test_grouped_attention_checks_shapes_by_name():
    q, k, v = _qkv(5)
    with pytest.raises(ValueError, match="query"):
        gqa.grouped_attention(q[0], k, v)
    with pytest.raises(ValueError, match="key"):
        gqa.grouped_attention(q, k[..., :1], v)
    with pytest.raises(ValueError, match="value"):
        gqa.grouped_attention(q, k, v[:, :, :2])
    with pytest.raises(ValueError, match="mask"):
        gqa.grouped_attention(q, k, v, np.ones((3, 3), dtype=bool))
    with pytest.raises(TypeError, match="past"):
        gqa.grouped_attention(q, k, v, past=k)
    with pytest.raises(ValueError, match="past key"):
        gqa.grouped_attention(q, k, v, past=(k[:, :1], v[:, :1]))
    with pytest.raises(ValueError, match="causal"):
        gqa.grouped_attention(q[:, :, :2], k, v, causal=True)
    with pytest.raises(ValueError, match="n_rep"):
        gqa.repeat_kv(k, 0)


# ------------------------------------------------------------------ cache counting


def test_fig16_cache_counts_24_vs_96_ratio_one_quarter():
    s = LG.head_sharing(ex.FIG16_N_Q_HEADS, ex.FIG16_N_KV_HEADS, layers=ex.FIG16_LAYERS,
                        requests=ex.FIG16_REQUESTS, seq_len=ex.FIG16_SEQ_LEN, head_dim=ex.FIG16_HEAD_DIM)
    assert s.cache.factors == (2, 1, 2, 3, 2) and s.cache.elements == 24
    assert s.mha_cache.elements == 96
    assert s.ratio == Fraction(1, 4)
    assert s.query_shape == ("B", 8, "T", "d_h") and s.kv_shape == ("B", 2, "T", "d_h")
    assert [s.readers(g).tolist() for g in range(2)] == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_cache_count_equals_the_size_of_the_cached_arrays():
    q, k, v = _qkv(6, b=3, h_q=8, h_kv=2, t=3, d_h=2)
    t = gqa.grouped_attention(q, k, v, causal=True)
    size = gqa.kv_cache_size(layers=1, requests=3, kv_heads=2, seq_len=3, head_dim=2)
    assert size.elements == t.cache[0].size + t.cache[1].size


@given(h_kv=st.integers(1, 8), g=st.integers(1, 8))
@settings(max_examples=20)
def test_cache_ratio_is_hkv_over_hq(h_kv, g):
    assert LG.head_sharing(h_kv * g, h_kv).ratio == Fraction(1, g)


def test_kv_cache_size_checks_its_arguments():
    with pytest.raises(ValueError, match="layers"):
        gqa.kv_cache_size(layers=0, requests=1, kv_heads=1, seq_len=1, head_dim=1)
    with pytest.raises(TypeError, match="head_dim"):
        gqa.kv_cache_size(layers=1, requests=1, kv_heads=1, seq_len=1, head_dim=1.5)


def test_cache_bytes_equal_the_nbytes_of_the_cached_arrays_at_each_precision():
    q, k, v = _qkv(7, b=2, h_q=4, h_kv=2, t=3, d_h=2)
    t = gqa.grouped_attention(q, k, v, causal=True)
    size = gqa.kv_cache_size(layers=1, requests=2, kv_heads=2, seq_len=3, head_dim=2)
    for dtype in ("float64", "float32", "float16"):
        stored = sum(np.asarray(c, dtype=dtype).nbytes for c in t.cache)
        assert size.nbytes(dtype) == stored
    # one more position adds per_position numbers
    longer = gqa.kv_cache_size(layers=1, requests=2, kv_heads=2, seq_len=4, head_dim=2)
    assert longer.elements - size.elements == size.per_position
    assert longer.nbytes("bfloat16") - size.nbytes("bfloat16") == size.nbytes_per_position("bfloat16")


def test_realistic_cache_grows_linearly_and_shrinks_by_hkv_over_hq():
    real = LG.head_sharing(32, 8, layers=32, seq_len=8192, head_dim=128)
    assert real.cache.nbytes("bfloat16") == 8192 * real.cache.nbytes_per_position("bfloat16")
    assert 4 * real.cache.nbytes("bfloat16") == real.mha_cache.nbytes("bfloat16")


def test_cache_bytes_refuse_an_unknown_dtype_by_name():
    size = gqa.kv_cache_size(layers=1, requests=1, kv_heads=1, seq_len=1, head_dim=1)
    with pytest.raises(ValueError, match="dtype must be one of"):
        size.nbytes("bf16")
    with pytest.raises(ValueError, match="dtype"):
        size.nbytes_per_position(2)


def test_bytes_text_uses_the_largest_binary_unit_that_divides():
    assert gqa.bytes_text(0) == "0 bytes"
    assert gqa.bytes_text(1536) == "1,536 bytes"  # 1.5 KiB: no unit divides it
    assert gqa.bytes_text(3 * 1024) == "3 KiB" and gqa.bytes_text(5 << 20) == "5 MiB"
    assert gqa.bytes_text(2048 << 30) == "2,048 GiB" and gqa.bytes_text(1023) == "1,023 bytes"
    with pytest.raises(ValueError, match="n"):
        gqa.bytes_text(-1)
