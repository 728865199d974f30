"""One forward pass, two ways of running it: the model's fast path (no trace, float32 for a
real model) and the traced path of the book are the same arithmetic; the K/V cache gives
the logits of the whole prefix; sampling (greedy, top-k, top-p) is seeded; the weights
are kept once, without a float64 copy."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tokenpath import decoder, norms, sampling
from tokenpath import model as M
from tokenpath.position import rope_tables

CFG = M.LlamaConfig(64, 24, 40, 3, 6, 2)  # d_h = 4, two query heads per K/V head
MIX = M.MixtralConfig(64, 16, 24, 2, 4, 2, num_local_experts=4, num_experts_per_tok=2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("config", [CFG, MIX], ids=["llama", "mixtral"])
def test_fast_logits_equal_the_traced_forward_bit_for_bit(config, dtype):
    m = M.random_model(config, seed=3, dtype=dtype)
    ids = [5, 1, 60, 7, 7, 2]
    fast, traced = m.logits(ids), m.forward(ids)
    assert fast.dtype == traced.logits.dtype == dtype
    np.testing.assert_array_equal(fast, traced.logits)
    assert traced.layers[0].q.dtype == dtype and traced.layers[-1].out.shape == (1, 6, config.hidden_size)


def test_decoder_layer_is_the_core_with_its_intermediates_kept():
    w = decoder.random_layer(8, 4, 12, seed=1, kv_heads=2)
    x = np.random.default_rng(0).standard_normal((2, 5, 8))
    trace = decoder.decoder_layer(x, w, positions=[3, 4, 5, 6, 7])
    out, (k, v), kept = decoder._layer_core(x, w, *rope_tables([3, 4, 5, 6, 7], 2), keep=False)
    np.testing.assert_array_equal(out, trace.out)
    np.testing.assert_array_equal(k, trace.k_rot)
    np.testing.assert_array_equal(v, trace.v)
    assert kept is None


def test_a_float32_layer_stays_float32_and_a_mixed_one_is_float64():
    w64 = decoder.random_layer(8, 2, 12, seed=0)
    arrays = {f: getattr(w64, f).astype(np.float32) for f in ("attn_norm", "w_q", "w_k", "w_v", "w_o", "ffn_norm",
                                                              "w_gate", "w_up", "w_down")}
    w32 = decoder.LayerWeights(heads=2, **arrays)
    assert w32.dtype == np.float32 and np.shares_memory(w32.w_q, arrays["w_q"])
    assert decoder.decoder_layer(np.ones((1, 3, 8)), w32).out.dtype == np.float32
    mixed = decoder.LayerWeights(heads=2, **{**arrays, "w_o": w64.w_o})
    assert mixed.dtype == np.float64
    with pytest.raises(ValueError, match="w_q must be finite"):
        decoder.LayerWeights(heads=2, **{**arrays, "w_q": np.full((8, 8), np.nan, dtype=np.float32)})
    with pytest.raises(ValueError, match="w_q must have 2 axes"):
        decoder.LayerWeights(heads=2, **{**arrays, "w_q": np.zeros(8, dtype=np.float32)})


def test_a_real_sized_model_computes_in_float32_and_keeps_its_arrays():
    small = M.random_model(CFG, seed=0)
    assert small.dtype == np.float64  # the book's scale: its printed digits were measured in float64
    tensors = M.random_tensors(CFG, seed=0)
    m = M.Model(CFG, tensors, dtype=np.float32)
    name = "model.layers.1.self_attn.q_proj.weight"
    assert np.shares_memory(m.tensors[name], tensors[name])  # no copy of a float32 weight
    assert np.shares_memory(m.layer_weights(1).w_q, tensors[name])  # the transpose is a view
    assert not m.tensors[name].flags.writeable and tensors[name].flags.writeable
    assert M.Model(CFG, tensors).dtype == np.float64
    big = M.LlamaConfig(8, 2048, 2048, 1, 2, 1)  # 25 M numbers, past FLOAT64_MAX_PARAMETERS
    assert M.count_parameters(big).total > M.FLOAT64_MAX_PARAMETERS
    assert M.random_model(big, seed=0).dtype == np.float32


def test_model_dtype_is_checked():
    tensors = M.random_tensors(CFG, seed=0)
    with pytest.raises(ValueError, match="dtype must be np.float32 or np.float64"):
        M.Model(CFG, tensors, dtype=np.float16)
    with pytest.raises(TypeError, match="dtype must be np.float32 or np.float64"):
        M.Model(CFG, tensors, dtype="no such dtype")
    m = M.Model(CFG, tensors)
    np.testing.assert_allclose(m.astype(np.float32).logits([1, 2, 3]), m.logits([1, 2, 3]), rtol=0, atol=1e-4)


# ------------------------------------------------------------------ the K/V cache


@pytest.mark.parametrize("config", [CFG, MIX], ids=["llama", "mixtral"])
def test_cached_logits_equal_the_whole_prefix(config):
    ids = np.array([3, 9, 27, 17, 51, 25, 11, 33])
    for dtype, tol in ((np.float64, 1e-12), (np.float32, 1e-5)):
        m = M.random_model(config, seed=1, dtype=dtype)
        full = m.logits(ids)  # [T, V]
        cache = m.new_cache()
        parts = [m.logits(ids[:5], cache=cache), m.logits(ids[5:6], cache=cache), m.logits(ids[6:], cache=cache)]
        assert cache.length == 8 and cache.ids.tolist() == ids.tolist()
        # float32 carries ~7 digits; the logits here are of size ~1, so 1e-5 is a few units of rounding
        np.testing.assert_allclose(np.concatenate(parts), full, rtol=0, atol=tol * np.abs(full).max())


def test_a_cache_holds_rope_turned_keys_of_every_position():
    m = M.random_model(CFG, seed=2)
    cache = m.new_cache()
    m.logits([1, 2, 3], cache=cache)
    trace = m.forward([1, 2, 3])
    k, v = cache.layer(2)
    np.testing.assert_array_equal(k, trace.layers[2].k_rot)
    np.testing.assert_array_equal(v, trace.layers[2].v)
    assert cache.nbytes == 2 * CFG.num_hidden_layers * CFG.num_key_value_heads * 3 * CFG.head_dim * 8


def test_a_cache_from_another_model_is_refused():
    m = M.random_model(CFG, seed=0)
    other = M.random_model(MIX, seed=0)
    with pytest.raises(TypeError, match="cache must be a KVCache from this model"):
        m.logits([1], cache=other.new_cache())
    with pytest.raises(TypeError, match="cache must be a KVCache"):
        m.logits([1], cache=[])
    cache = M.KVCache(2, 1, 4)
    with pytest.raises(ValueError, match="keys must be"):
        cache.store(0, np.zeros((1, 2, 3, 4)), np.zeros((1, 2, 3, 4)))
    with pytest.raises(ValueError, match="store every layer first"):
        cache.store(0, np.zeros((1, 1, 3, 4)), np.zeros((1, 1, 3, 4)))
        cache.advance([1, 2, 3])


# ------------------------------------------------------------------ generation


@pytest.mark.parametrize("config", [CFG, MIX], ids=["llama", "mixtral"])
def test_greedy_generation_is_the_same_with_and_without_the_cache(config):
    m = M.random_model(config, seed=4, dtype=np.float32)
    with_cache = m.generate([5, 6, 7], 12, temperature=0, stop_at_eos=False)
    without = m.generate([5, 6, 7], 12, temperature=0, use_cache=False, stop_at_eos=False)
    assert with_cache.sampled.tolist() == without.sampled.tolist()
    # greedy is the arg-max of the uncached logits at every step
    ids = with_cache.ids
    z = m.logits(ids[:-1])
    assert with_cache.sampled.tolist() == z[2:].argmax(axis=1).tolist()


def test_sampling_is_seeded_and_the_loop_is_the_chapter_3_loop():
    m = M.random_model(CFG, seed=0)
    for kw in (dict(top_k=5), dict(top_p=0.8), dict(temperature=0.7, top_k=10, top_p=0.9)):
        g = m.generate([3, 7], 6, seed=11, stop_at_eos=False, **kw)
        again = m.generate([3, 7], 6, seed=11, stop_at_eos=False, **kw)
        steps = sampling.generate([3, 7], 6, seed=11, logits_fn=m.logits, **kw)
        assert g.sampled.tolist() == again.sampled.tolist() == [s.sampled for s in steps]
        np.testing.assert_allclose(g.probs, [s.probs for s in steps], rtol=0, atol=1e-12)


def test_top_p_keeps_the_nucleus_as_transformers_does():
    torch = pytest.importorskip("torch")
    tr = pytest.importorskip("transformers")
    z = np.random.default_rng(0).standard_normal((20, 50)) * 2
    for top_p in (0.1, 0.5, 0.9, 0.99):
        warped = tr.TopPLogitsWarper(top_p)(None, torch.tensor(z))
        theirs = torch.softmax(warped, dim=-1).numpy()
        np.testing.assert_allclose(sampling.next_token_probs(z, top_p=top_p), theirs, rtol=0, atol=1e-12)


def test_top_p_and_steps_are_checked():
    m = M.random_model(CFG, seed=0)
    for bad in (0.0, 1.5, -1):
        with pytest.raises(ValueError, match="top_p must be in"):
            m.generate([1], 2, top_p=bad)
    with pytest.raises(ValueError, match="steps"):
        m.generate([1], 0)
    with pytest.raises(TypeError, match="steps"):
        m.generate([1], 2.5)
    short = M.Model(M.LlamaConfig(64, 24, 40, 3, 6, 2, max_position_embeddings=8), m.tensors)
    assert short.generate([1, 2, 3], 5, stop_at_eos=False).ids.size == 8
    with pytest.raises(ValueError, match="steps must be <= 5"):
        short.generate([1, 2, 3], 6)
    with pytest.raises(ValueError, match="no position is left"):
        short.generate(list(range(8)), 1)
    with pytest.raises(TypeError, match="use_cache must be True or False"):
        m.generate([1], 2, use_cache=1)
    with pytest.raises(ValueError, match="prompt"):
        m.generate([], 2)
    with pytest.raises(ValueError, match="prompt"):
        m.generate([64], 2)
    with pytest.raises(ValueError, match="give logits_fn or next_logits, not both"):
        sampling.generate([1], 1, logits_fn=m.logits, next_logits=lambda ids: m.logits(ids)[-1])
    with pytest.raises(TypeError, match="stop must be a collection of IDs"):
        sampling.generate([1], 1, next_logits=lambda ids: m.logits(ids)[-1], stop=3)


def test_generation_stops_at_the_configs_eos():
    plain = M.random_model(CFG, seed=0)
    free = plain.generate([1, 2], 20, temperature=0, stop_at_eos=False).sampled
    eos = int(free[3])
    first = free.tolist().index(eos)
    cfg = M.LlamaConfig(64, 24, 40, 3, 6, 2, eos_token_id=eos)
    m = M.Model(cfg, plain.tensors)
    g = m.generate([1, 2], 20, temperature=0)
    assert g.sampled.tolist() == free[:first + 1].tolist()  # ends with the EOS, which is kept
    assert m.generate([1, 2], 20, temperature=0, stop_at_eos=False).sampled.tolist() == free.tolist()


# ------------------------------------------------------------------ memory at SmolLM2's shape


@pytest.mark.heavy  # builds 134 M random weights and runs them: seconds
def test_peak_memory_of_a_smollm2_shaped_model_is_within_1_5x_its_float32_weights():
    script = textwrap.dedent("""
        import json, resource, sys
        import numpy as np
        from tokenpath import model as M
        c = M.LlamaConfig(49152, 576, 1536, 30, 9, 3, tie_word_embeddings=True, rms_norm_eps=1e-5,
                          rope_theta=100000.0)
        m = M.random_model(c, seed=0)
        m.generate(np.arange(64) * 7, 2, temperature=0)
        # getrusage's maximum is inherited from the (large) test process across fork/exec on
        # Linux; the kernel's high-water mark of this image is VmHWM
        status = open("/proc/self/status").read() if sys.platform == "linux" else ""
        hwm = [int(l.split()[1]) * 1024 for l in status.splitlines() if l.startswith("VmHWM:")]
        peak = hwm[0] if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        print(json.dumps({"dtype": str(m.dtype), "weights": 4 * m.parameter_count, "peak": peak}))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=300)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["dtype"] == "float32"
    assert got["weights"] == 4 * 134_515_008
    assert got["peak"] <= 1.5 * got["weights"], got


def test_a_float32_projection_reads_the_stored_matrix_and_gives_the_same_product():
    rng = np.random.default_rng(0)
    stored = rng.standard_normal((48, 24)).astype(np.float32)  # [d_out, d_in], as a file holds it
    x = rng.standard_normal((1, 5, 24)).astype(np.float32)
    y = decoder._project(x, stored.T)
    assert y.shape == (1, 5, 48) and y.dtype == np.float32
    np.testing.assert_allclose(y, x @ stored.T, rtol=1e-5, atol=1e-5)
    x64, w64 = x.astype(np.float64), stored.T.astype(np.float64)
    np.testing.assert_array_equal(decoder._project(x64, w64), x64 @ w64)  # float64: the book's x @ W


def test_the_float32_gate_is_silu_times_content_without_overflow_warnings():
    a = np.array([-200.0, -88.0, -5.0, -1.0, 0.0, 1.0, 5.0, 50.0], dtype=np.float32)
    c = np.linspace(-2, 2, a.size).astype(np.float32)
    with np.errstate(all="raise"):
        got = norms._gated(a, c)
    assert got.dtype == np.float32
    want = norms.gate_trace(a.astype(np.float64), c.astype(np.float64)).product
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-30)


def test_chat_ids_is_the_tokenizers_template_rendered_and_encoded():
    from tokenpath import bpe
    from tokenpath.chat_template import chat_ids

    tok = bpe.Tokenizer([], ["<|u|>", "<|e|>"],
                        chat_template="{% for m in messages %}<|u|>{{ m.content }}<|e|>{% endfor %}")
    m = M.random_model(M.LlamaConfig(tok.n_vocab, 8, 16, 1, 2, 1), seed=0, tokenizer=tok)
    messages = [{"role": "user", "content": "hi"}]
    assert m.chat_ids(messages).tolist() == chat_ids(tok, messages) == [256, 104, 105, 257]
    with pytest.raises(ValueError, match="no tokenizer"):
        M.random_model(M.LlamaConfig(10, 8, 16, 1, 2, 1), seed=0).chat_ids(messages)
    with pytest.raises((TypeError, ValueError), match="messages"):
        m.chat_ids("hi")
