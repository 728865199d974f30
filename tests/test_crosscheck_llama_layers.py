"""Cross-check the feature-wise transforms and grouped-query attention against Hugging
Face's Llama (transformers) on tiny configurations built here; nothing is downloaded.

Weights are re-randomised (the default init, with unit norm weights, would hide a
missing or misplaced γ) and copied into the engine transposed: an ``nn.Linear`` stores
``[out, in]``, the book multiplies ``x @ W`` with ``W`` of shape ``[in, out]``.
"""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import attention as A
from tokenpath import gqa, norms, position

torch = pytest.importorskip("torch", reason="torch not installed: install the 'crosscheck' extra")
transformers = pytest.importorskip("transformers", reason="transformers not installed: install the 'crosscheck' extra")
from transformers import LlamaConfig  # noqa: E402
from transformers.models.llama import modeling_llama as ml  # noqa: E402

RTOL, ATOL = 1e-10, 1e-12


def _config(n_q_heads=8, n_kv_heads=2, head_dim=2, d_ff=24):
    config = LlamaConfig(
        hidden_size=n_q_heads * head_dim, intermediate_size=d_ff, num_attention_heads=n_q_heads,
        num_key_value_heads=n_kv_heads, head_dim=head_dim, num_hidden_layers=1, vocab_size=16,
        rms_norm_eps=1e-6, rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        attention_bias=False, mlp_bias=False,
    )
    config._attn_implementation = "eager"
    return config


def _randomise(module, seed):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=g, dtype=p.dtype))
    return module


def _np(t):
    return t.detach().numpy()


def _x(seed, shape):
    return np.random.default_rng(seed).standard_normal(shape)


def test_rms_norm_equals_llama_rmsnorm_with_a_random_weight_and_the_config_eps():
    config = _config()
    hf = _randomise(ml.LlamaRMSNorm(config.hidden_size, eps=config.rms_norm_eps), 0).double()
    x = _x(1, (2, 5, config.hidden_size)) * 0.01  # small enough that eps matters
    ours = norms.rms_norm(x, _np(hf.weight), eps=config.rms_norm_eps)
    # LlamaRMSNorm normalises in float32 whatever the input dtype, hence float32 tolerances
    np.testing.assert_allclose(ours, _np(hf(torch.from_numpy(x))), rtol=1e-6, atol=1e-7)
    assert not np.allclose(ours, norms.rms_norm(x, _np(hf.weight)), rtol=1e-6)  # eps is not ignored
    assert not np.allclose(ours, norms.rms_norm(x, 1 + _np(hf.weight), eps=config.rms_norm_eps))


def test_gemma_rmsnorm_multiplies_by_one_plus_its_weight_where_llama_uses_the_weight_itself():
    """Chapter 8: "some other models, Gemma among them, ... multiply by 1 + w"."""
    from transformers.models.gemma import modeling_gemma as mg

    d = 8
    gemma = _randomise(mg.GemmaRMSNorm(d, eps=1e-6), 3).double()
    x = _x(4, (2, 3, d))
    w = _np(gemma.weight)
    theirs = _np(gemma(torch.from_numpy(x)))
    np.testing.assert_allclose(norms.rms_norm(x, 1 + w, eps=1e-6), theirs, rtol=1e-6, atol=1e-7)
    assert not np.allclose(norms.rms_norm(x, w, eps=1e-6), theirs, rtol=1e-3)
    assert not mg.GemmaRMSNorm(d).weight.detach().any()  # its stored offset starts at zero: a scale of one


def test_swiglu_equals_llama_mlp_with_transposed_weights():
    config = _config(d_ff=24)
    hf = _randomise(ml.LlamaMLP(config), 2).double()
    x = _x(3, (2, 4, config.hidden_size))
    ours = norms.swiglu(x, _np(hf.gate_proj.weight).T, _np(hf.up_proj.weight).T, _np(hf.down_proj.weight).T)
    np.testing.assert_allclose(ours, _np(hf(torch.from_numpy(x))), rtol=RTOL, atol=ATOL)


def test_hf_mlp_uses_silu_as_the_engine_does():
    a = np.linspace(-8, 8, 33)
    np.testing.assert_allclose(norms.silu(a), _np(ml.ACT2FN["silu"](torch.from_numpy(a))), rtol=RTOL, atol=ATOL)


def test_repeat_kv_equals_hugging_face_repeat_kv():
    k = _x(4, (2, 2, 3, 4))
    np.testing.assert_array_equal(gqa.repeat_kv(k, 4), _np(ml.repeat_kv(torch.from_numpy(k), 4)))


@pytest.mark.parametrize("n_kv_heads", [2, 1, 8])
def test_grouped_attention_equals_repeat_kv_then_causal_sdpa(n_kv_heads):
    q, k, v = _x(5, (2, 8, 5, 4)), _x(6, (2, n_kv_heads, 5, 4)), _x(7, (2, n_kv_heads, 5, 4))
    ours = gqa.grouped_attention(q, k, v, causal=True).output
    rep = 8 // n_kv_heads
    tq, tk, tv = (torch.from_numpy(a) for a in (q, k, v))
    theirs = torch.nn.functional.scaled_dot_product_attention(
        tq, ml.repeat_kv(tk, rep), ml.repeat_kv(tv, rep), is_causal=True)
    np.testing.assert_allclose(ours, _np(theirs), rtol=RTOL, atol=ATOL)
    # torch's own GQA path agrees too
    native = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=True, enable_gqa=True)
    np.testing.assert_allclose(ours, _np(native), rtol=RTOL, atol=ATOL)


def test_hugging_face_sdpa_path_groups_heads_without_repeat_kv_when_there_is_no_mask(monkeypatch):
    """Chapter 7: the eager path calls repeat_kv; the SDPA path passes enable_gqa=True
    instead where it can (here: no mask), so repeat_kv is never called there."""
    from transformers.integrations import sdpa_attention as sa

    calls = []

    def counting(original):
        def repeat(*args, **kwargs):
            calls.append(original.__module__)
            return original(*args, **kwargs)
        return repeat

    monkeypatch.setattr(sa, "repeat_kv", counting(sa.repeat_kv))
    monkeypatch.setattr(ml, "repeat_kv", counting(ml.repeat_kv))
    module = torch.nn.Module().eval()
    module.num_key_value_groups, module.is_causal = 4, True
    q, k, v = _x(5, (1, 8, 5, 4)), _x(6, (1, 2, 5, 4)), _x(7, (1, 2, 5, 4))
    tq, tk, tv = (torch.from_numpy(a) for a in (q, k, v))
    ours = gqa.grouped_attention(q, k, v, causal=True).output  # [B, Hq, T, d_h]
    theirs, _ = sa.sdpa_attention_forward(module, tq, tk, tv, attention_mask=None)  # [B, T, Hq, d_h]
    np.testing.assert_allclose(ours, _np(theirs).transpose(0, 2, 1, 3), rtol=RTOL, atol=ATOL)
    assert calls == []
    causal = torch.from_numpy(np.where(A.causal_mask(5), 0.0, -np.inf))[None, None]
    eager, _ = ml.eager_attention_forward(module, tq, tk, tv, attention_mask=causal, scaling=0.5)
    # the eager path takes its softmax in float32, hence single-precision tolerances
    np.testing.assert_allclose(ours, _np(eager).transpose(0, 2, 1, 3), rtol=1e-6, atol=1e-6)
    assert len(calls) == 2  # keys and values, each repeated


def _engine_llama_attention(hf, x, base):
    """One LlamaAttention forward with the engine: projections, RoPE (rotate_half),
    grouped_attention (causal), merge heads, output projection."""
    h_q, h_kv, d_h = hf.config.num_attention_heads, hf.config.num_key_value_heads, hf.head_dim
    w_q, w_k, w_v, w_o = (_np(p.weight).T for p in (hf.q_proj, hf.k_proj, hf.v_proj, hf.o_proj))
    t = x.shape[1]
    q = position.rope(A.split_heads(x @ w_q, h_q), np.arange(t), base=base, pairing="rotate_half")
    k = position.rope(A.split_heads(x @ w_k, h_kv), np.arange(t), base=base, pairing="rotate_half")
    v = A.split_heads(x @ w_v, h_kv)
    trace = gqa.grouped_attention(q, k, v, causal=True)
    assert trace.groups.tolist() == (np.arange(h_q) // (h_q // h_kv)).tolist()
    return A.merge_heads(trace.output) @ w_o, trace


@pytest.mark.parametrize("n_kv_heads", [2, 1])
def test_grouped_attention_equals_llama_attention(n_kv_heads):
    config = _config(n_q_heads=8, n_kv_heads=n_kv_heads, head_dim=4)
    hf = _randomise(ml.LlamaAttention(config, layer_idx=0), 10 + n_kv_heads).double().eval()
    rotary = ml.LlamaRotaryEmbedding(config)
    b, t = 2, 6
    x = _x(8, (b, t, config.hidden_size))
    tx = torch.from_numpy(x)
    pos = torch.arange(t)[None].expand(b, t)
    cos, sin = rotary(tx, pos)
    causal = torch.from_numpy(np.where(A.causal_mask(t), 0.0, -np.inf))[None, None]
    with torch.no_grad():
        theirs, weights = hf(tx, position_embeddings=(cos, sin), attention_mask=causal)
    ours, trace = _engine_llama_attention(hf, x, config.rope_parameters["rope_theta"])
    # HF computes the RoPE angles in float32, hence the looser tolerance
    np.testing.assert_allclose(ours, _np(theirs), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(trace.weights, _np(weights), rtol=1e-5, atol=1e-6)
    assert weights.shape[1] == config.num_attention_heads  # one weight matrix per query head


def test_a_cached_decode_step_equals_llama_attention_with_a_dynamic_cache():
    """The engine's ``past`` works like Hugging Face's cache: prefill four positions,
    then decode the fifth reading the cached keys and values of the shared heads."""
    from transformers import DynamicCache

    config = _config(n_q_heads=8, n_kv_heads=2, head_dim=4)
    hf = _randomise(ml.LlamaAttention(config, layer_idx=0), 20).double().eval()
    rotary = ml.LlamaRotaryEmbedding(config)
    base = config.rope_parameters["rope_theta"]
    b, t = 1, 5
    x = _x(21, (b, t, config.hidden_size))
    tx = torch.from_numpy(x)
    cos, sin = rotary(tx, torch.arange(t)[None])
    cache = DynamicCache(config=config)
    prefill_mask = torch.from_numpy(np.where(A.causal_mask(t - 1), 0.0, -np.inf))[None, None]
    with torch.no_grad():
        hf(tx[:, :-1], position_embeddings=(cos[:, :-1], sin[:, :-1]), attention_mask=prefill_mask, cache=cache)
        theirs, _ = hf(tx[:, -1:], position_embeddings=(cos[:, -1:], sin[:, -1:]), attention_mask=None, cache=cache)
    h_q, h_kv = config.num_attention_heads, config.num_key_value_heads
    w_q, w_k, w_v, w_o = (_np(p.weight).T for p in (hf.q_proj, hf.k_proj, hf.v_proj, hf.o_proj))

    def heads(xs, w, n, positions):
        return position.rope(A.split_heads(xs @ w, n), positions, base=base, pairing="rotate_half")

    pos = np.arange(t)
    first = gqa.grouped_attention(heads(x[:, :-1], w_q, h_q, pos[:-1]), heads(x[:, :-1], w_k, h_kv, pos[:-1]),
                                  A.split_heads(x[:, :-1] @ w_v, h_kv), causal=True)
    step = gqa.grouped_attention(heads(x[:, -1:], w_q, h_q, pos[-1:]), heads(x[:, -1:], w_k, h_kv, pos[-1:]),
                                 A.split_heads(x[:, -1:] @ w_v, h_kv), past=first.cache, causal=True)
    ours = A.merge_heads(step.output) @ w_o
    np.testing.assert_allclose(ours, _np(theirs), rtol=1e-5, atol=1e-5)
    keys, values = cache.layers[0].keys, cache.layers[0].values
    assert tuple(keys.shape) == step.cache[0].shape == (b, h_kv, t, 4)  # the cache holds Hkv heads, not Hq
    np.testing.assert_allclose(step.cache[1], _np(values), rtol=1e-12)
    np.testing.assert_allclose(step.cache[0], _np(keys), rtol=1e-5, atol=1e-6)
