"""``model.load`` on small GGUF files written with ``gguf.GGUFWriter`` the way llama.cpp's
converter writes a Llama (its names, its Q/K row permutation): the loaded model is the
model that was written, and every metadata or tensor it cannot build is refused by name
before a weight is dequantized."""

from __future__ import annotations

import collections
import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _fuzz_budget import examples
from _gguf_files import V, gguf, write_gguf
from tokenpath import model as M
from tokenpath.model.gguf_model import gguf_tensor_name, unpermute_rows

CONFIG = M.LlamaConfig(40, 16, 32, 2, 4, 2, rms_norm_eps=1e-5, rope_theta=500.0, tie_word_embeddings=True,
                       max_position_embeddings=64, bos_token_id=1, eos_token_id=2)
IDS = [1, 5, 9, 33, 2, 7]


def converter_permute(w: np.ndarray, n_head: int) -> np.ndarray:
    """``LlamaModel.permute`` of llama.cpp's ``convert_hf_to_gguf.py``: each head's rows
    reordered from (first half, second half) to interleaved pairs."""
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def _hf_to_gguf():
    out = {"model.embed_tokens.weight": "token_embd.weight", "model.norm.weight": "output_norm.weight",
           "lm_head.weight": "output.weight"}
    for n in range(8):
        for g in ("attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm", "ffn_gate", "ffn_up",
                  "ffn_down"):
            out[gguf_tensor_name(f"blk.{n}.{g}.weight")] = f"blk.{n}.{g}.weight"
    return out


def write_llama(path, m: M.Model, *, kv=None, drop_kv=(), extra_tensors=(), drop_tensors=()):
    """``m`` as llama.cpp's converter would write it (float32, Q and K permuted)."""
    c = m.config
    meta = {"llama.context_length": (c.max_position_embeddings, V.UINT32),
            "llama.embedding_length": (c.hidden_size, V.UINT32), "llama.block_count": (c.num_hidden_layers, V.UINT32),
            "llama.feed_forward_length": (c.intermediate_size, V.UINT32),
            "llama.attention.head_count": (c.num_attention_heads, V.UINT32),
            "llama.attention.head_count_kv": (c.num_key_value_heads, V.UINT32),
            "llama.rope.freq_base": (c.rope_theta, V.FLOAT32),
            "llama.attention.layer_norm_rms_epsilon": (c.rms_norm_eps, V.FLOAT32),
            "llama.rope.dimension_count": (c.head_dim, V.UINT32), "llama.vocab_size": (c.vocab_size, V.UINT32),
            "tokenizer.ggml.bos_token_id": (c.bos_token_id, V.UINT32),
            "tokenizer.ggml.eos_token_id": (c.eos_token_id, V.UINT32)}
    meta.update(kv or {})
    names = _hf_to_gguf()
    tensors = []
    for hf, w in m.tensors.items():
        w = np.asarray(w, np.float32)
        if hf.endswith("q_proj.weight"):
            w = converter_permute(w, c.num_attention_heads)
        elif hf.endswith("k_proj.weight"):
            w = converter_permute(w, c.num_key_value_heads)
        if names[hf] not in drop_tensors:
            tensors.append((names[hf], np.ascontiguousarray(w), None))
    tensors += list(extra_tensors)
    arch = meta.pop("general.architecture", ("llama",))[0]
    return write_gguf(path, [(k, v, t) for k, (v, t) in meta.items() if k not in drop_kv and v is not None], tensors,
                      arch=arch)


@pytest.fixture(scope="module")
def tiny():
    return M.random_model(CONFIG, seed=3).astype(np.float32)


def test_unpermute_rows_undoes_the_converters_permutation():
    w = np.arange(2 * 8 * 3).reshape(16, 3)
    for heads in (1, 2, 4):
        assert np.array_equal(unpermute_rows(converter_permute(w, heads), heads), w)
    assert not np.array_equal(converter_permute(w, 2), w)


def test_a_gguf_file_loads_as_the_model_that_was_written(tiny, tmp_path):
    m = M.load(write_llama(tmp_path / "m.gguf", tiny))
    # ε is stored as a FLOAT32, and read back as that float32 number
    assert m.config == dataclasses.replace(CONFIG, rms_norm_eps=float(np.float32(1e-5)))
    for name, w in tiny.tensors.items():
        assert np.array_equal(m.tensors[name], w), name
    np.testing.assert_array_equal(m.logits(IDS), tiny.logits(IDS))
    assert set(m.dtypes.values()) == {"F32"}


def test_without_the_unpermute_the_logits_would_differ(tiny, tmp_path):
    """The permutation matters: the file's rows, taken as they are, give other logits."""
    g = M.gguf_model.read_gguf(write_llama(tmp_path / "m.gguf", tiny))
    q = g.dequantize("blk.0.attn_q.weight")
    assert not np.array_equal(q, tiny.tensors["model.layers.0.self_attn.q_proj.weight"])
    assert np.array_equal(unpermute_rows(q, 4), tiny.tensors["model.layers.0.self_attn.q_proj.weight"])


def test_an_untied_head_is_read_from_output_weight(tmp_path):
    untied = M.random_model(M.LlamaConfig(40, 16, 32, 1, 4, 2, tie_word_embeddings=False), seed=1).astype(np.float32)
    m = M.load(write_llama(tmp_path / "u.gguf", untied))
    assert m.config.tie_word_embeddings is False
    assert np.array_equal(m.tensors["lm_head.weight"], untied.tensors["lm_head.weight"])


REFUSALS = {
    "another architecture": (dict(kv={"general.architecture": ("qwen2", V.STRING)}),
                             "metadata 'general.architecture' is 'qwen2'; this reader builds only 'llama' models"),
    "rope scaling": (dict(kv={"llama.rope.scaling.type": ("linear", V.STRING)}),
                     "metadata 'llama.rope.scaling.type' is 'linear'; RoPE scaling is not implemented"),
    "llama 3 rope frequencies": (dict(extra_tensors=[("rope_freqs.weight", np.ones(2, np.float32), None)]),
                                 "holds tensor 'rope_freqs.weight'"),
    "partial rope": (dict(kv={"llama.rope.dimension_count": (2, V.UINT32)}),
                     "metadata 'llama.rope.dimension_count' is 2, but the head size is 16 / 4 = 4"),
    "vocabulary sizes disagree": (dict(kv={"llama.vocab_size": (41, V.UINT32)}),
                                  "the vocabulary sizes disagree: the token_embd.weight rows 40, metadata "
                                  "'llama.vocab_size' 41"),
    "missing metadata": (dict(drop_kv=["llama.block_count"]), "has no metadata 'llama.block_count'"),
    "metadata of the wrong type": (dict(kv={"llama.attention.head_count": (4.0, V.FLOAT32)}),
                                   "metadata 'llama.attention.head_count' is FLOAT32; expected UINT8 or"),
    "a count that makes no model": (dict(kv={"llama.attention.head_count_kv": (3, V.UINT32)}),
                                    "its llama.* metadata does not make a model"),
    "a tensor a llama has not": (dict(extra_tensors=[("blk.0.attn_q_norm.weight", np.ones(4, np.float32), None)]),
                                 "holds tensor 'blk.0.attn_q_norm.weight', which is not a tensor of a llama model"),
    "a tokenizer it cannot read": (dict(kv={"tokenizer.ggml.model": ("llama", V.STRING)}),
                                   "its tokenizer cannot be read: metadata['tokenizer.ggml.model'] is 'llama'"),
    "a missing tensor": (dict(drop_tensors=["blk.1.ffn_down.weight"]),
                         "missing tensor 'model.layers.1.mlp.down_proj.weight'"),
    "a layer too many": (dict(kv={"llama.block_count": (1, V.UINT32)}),
                         "unexpected tensor 'model.layers.1.input_layernorm.weight'"),
    "a shape the config does not imply": (dict(kv={"llama.feed_forward_length": (64, V.UINT32)}),
                                          "tensor 'model.layers.0.mlp.gate_proj.weight' has shape [32, 16]"),
}


@pytest.mark.parametrize("case", REFUSALS)
def test_what_it_cannot_build_is_refused_by_name(tiny, tmp_path, case, monkeypatch):
    changes, words = REFUSALS[case]
    path = write_llama(tmp_path / "bad.gguf", tiny, **changes)
    from tokenpath.gguf_format import GGUFFile
    calls = []
    original = GGUFFile.dequantize
    monkeypatch.setattr(GGUFFile, "dequantize", lambda self, name: calls.append(name) or original(self, name))
    with pytest.raises(M.ModelFileError) as err:
        M.load(path)
    assert str(err.value).startswith(f"{path}: ") and words in str(err.value), str(err.value)
    if case != "a count that makes no model":
        assert calls == [], "refused only after dequantizing"


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="n_heads must be a positive integer"):
        unpermute_rows(np.zeros((4, 2)), 0)
    with pytest.raises(ValueError, match="w must be"):
        unpermute_rows(np.zeros((6, 2)), 4)
    with pytest.raises(TypeError, match="name must be a GGUF tensor name"):
        gguf_tensor_name(3)
    with pytest.raises(TypeError, match="g must be a tokenpath.gguf_format.GGUFFile"):
        M.gguf_model.gguf_config({})


LOAD_FUZZ = collections.Counter()


@settings(max_examples=examples(150), derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(at=st.integers(0, 10**6), width=st.sampled_from([1, 4, 8]),
       value=st.sampled_from([0, 1, 2, 3, 4, 5, 7, 8, 16, 255, 2**31, 2**32 - 1, 2**63]) | st.integers(0, 2**64 - 1))
def test_a_model_file_with_a_corrupted_header_loads_or_is_refused_by_name(tiny, tmp_path, at, width, value):
    """Any header field overwritten (counts, types, metadata numbers, shapes): ``model.load``
    builds a model or raises one ModelFileError naming the file, within a second."""
    import time

    path = tmp_path / "f.gguf"
    data = bytearray(write_llama(tmp_path / "base.gguf", tiny).read_bytes())
    header = M.gguf_model.read_gguf(tmp_path / "base.gguf").data_offset
    where = at % header
    data[where:where + width] = (value % 2**(8 * width)).to_bytes(width, "little")
    path.write_bytes(bytes(data))
    t0 = time.process_time()
    try:
        M.load(path)
        outcome = "loaded"
    except M.ModelFileError as err:
        assert str(err).startswith(f"{path}: "), str(err)
        outcome = "refused"
    assert time.process_time() - t0 < 1.0
    LOAD_FUZZ[outcome] += 1


def test_the_load_fuzzer_met_both_outcomes():
    if not LOAD_FUZZ:
        pytest.skip("the fuzzer did not run in this session")
    assert LOAD_FUZZ["loaded"] and LOAD_FUZZ["refused"], LOAD_FUZZ
    print("\nGGUF model fuzzer:", dict(LOAD_FUZZ))


def test_one_tensor_as_hf_is_what_load_builds_and_a_wrong_name_is_refused():
    from tokenpath.gguf_format import read_gguf
    from tokenpath.model.gguf_model import _tiny_gguf, dequantize_as_hf

    path = _tiny_gguf()
    g, m = read_gguf(path), M.load(path)
    for gguf_name, hf in (("blk.0.attn_q.weight", "model.layers.0.self_attn.q_proj.weight"),
                          ("blk.0.attn_k.weight", "model.layers.0.self_attn.k_proj.weight"),
                          ("blk.0.ffn_up.weight", "model.layers.0.mlp.up_proj.weight")):
        assert np.array_equal(dequantize_as_hf(g, gguf_name), m.tensors[hf])
    with pytest.raises(ValueError, match="name must be a tensor of"):
        dequantize_as_hf(g, "blk.9.attn_q.weight")
