"""The families of ``config.json`` beyond Llama (Qwen2, Qwen3, Mistral, Llama 3.1's RoPE
scaling) without transformers: each is recognised, round-trips through its dict, implies
its own tensors, and every setting the engine does not compute is refused by one
:class:`ModelFileError` naming the field (in a folder: the file and the field)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenpath import decoder
from tokenpath import model as M
from tokenpath.position import Llama3Scaling, rope_frequencies

QWEN2 = M.Qwen2Config(64, 16, 24, 2, 4, 2, max_position_embeddings=32)
QWEN3 = M.Qwen3Config(64, 16, 24, 2, 4, 2, head_dim=6, max_position_embeddings=32)
MISTRAL = M.MistralConfig(64, 16, 24, 2, 4, 2, max_position_embeddings=32, sliding_window=32)
LLAMA3 = M.LlamaConfig(64, 16, 24, 2, 4, 2, rope_scaling=Llama3Scaling(8.0, 1.0, 4.0, 16))


@pytest.mark.parametrize("config", [QWEN2, QWEN3, MISTRAL, LLAMA3], ids=lambda c: c.ARCH)
def test_each_family_round_trips_through_its_config_json(config):
    d = json.loads(json.dumps(config.to_dict()))
    assert d["architectures"] == [config.ARCH]
    again = M.LlamaConfig.from_dict(d)
    assert type(again) is type(config) and again == config
    assert M.count_parameters(config).total == sum(int(np.prod(s)) for s in M.tensor_shapes(config).values())


def test_the_families_imply_their_own_attention_tensors():
    q2, q3 = M.tensor_shapes(QWEN2), M.tensor_shapes(QWEN3)
    p = "model.layers.1.self_attn."
    assert (q2[p + "q_proj.bias"], q2[p + "k_proj.bias"], q2[p + "v_proj.bias"]) == ((16,), (8,), (8,))
    assert p + "o_proj.bias" not in q2 and p + "q_norm.weight" not in q2
    assert q3[p + "q_proj.weight"] == (24, 16) and q3[p + "o_proj.weight"] == (16, 24)  # Hq·head_dim = 24 ≠ d
    assert q3[p + "q_norm.weight"] == q3[p + "k_norm.weight"] == (6,) and p + "q_proj.bias" not in q3
    assert M.tensor_role(p + "q_norm.weight").startswith("layer 1: γ of the RMSNorm of every query head")
    assert set(M.tensor_shapes(MISTRAL)) == set(M.tensor_shapes(M.LlamaConfig(64, 16, 24, 2, 4, 2)))


def test_a_file_without_kv_heads_or_head_dim_gets_transformers_family_defaults():
    d = QWEN3.to_dict()
    del d["num_key_value_heads"], d["head_dim"]
    d["num_attention_heads"] = 32
    c = M.LlamaConfig.from_dict(d)
    assert (c.num_key_value_heads, c.head_dim) == (32, 128)  # Qwen3Config's defaults
    d = MISTRAL.to_dict()
    del d["num_key_value_heads"]
    d["num_attention_heads"] = 8
    assert M.LlamaConfig.from_dict(d).num_key_value_heads == 8


def test_qwen_with_use_sliding_window_false_ignores_the_window_value_it_carries():
    d = {**QWEN2.to_dict(), "sliding_window": 4096, "max_window_layers": 1}
    assert M.LlamaConfig.from_dict(d) == QWEN2


def test_a_model_with_a_window_refuses_a_sequence_longer_than_it():
    m = M.random_model(MISTRAL, seed=0)
    assert m.logits(list(range(32))).shape == (32, 64)
    with pytest.raises(ValueError, match="33 positions, more than the config's sliding_window of 32"):
        m.logits(list(range(33)))
    cache = m.new_cache()
    m.logits(list(range(30)), cache=cache)
    with pytest.raises(ValueError, match="sliding_window"):
        m.logits([1, 2, 3], cache=cache)


def test_the_traced_forward_of_a_qwen3_model_is_its_logits_and_normalises_each_head():
    m = M.random_model(QWEN3, seed=0)
    tr = m.forward([3, 1, 4, 1, 5])
    np.testing.assert_array_equal(tr.logits, m.logits([3, 1, 4, 1, 5]))
    q = tr.layers[0].q[0]  # [H, T, d_h] after q_norm: each head's vector has RMS 1 before its γ
    gamma = m.tensors["model.layers.0.self_attn.q_norm.weight"]
    np.testing.assert_allclose(np.sqrt(np.mean((q / gamma) ** 2, axis=-1)), 1.0, rtol=1e-4)


@pytest.mark.parametrize("config", [QWEN2, QWEN3, LLAMA3], ids=lambda c: c.ARCH)
def test_the_checked_layer_runs_a_familys_weights_as_the_model_does(config):
    """decoder_layer on a layer's weights (biases, q/k norms, the RoPE scaling all carried
    by LayerWeights) gives the model's own layer output, and without them it would not."""
    m = M.random_model(config, seed=2)
    layer = m.forward([4, 8, 15, 16, 23, 42]).layers[0]
    w = m.layer_weights(0)
    np.testing.assert_allclose(decoder.decoder_layer(layer.x, w).out, layer.out, rtol=1e-12, atol=1e-12)
    plain = dataclasses.replace(w, b_q=None, b_k=None, b_v=None, b_o=None, q_norm=None, k_norm=None,
                                rope_scaling=None)
    assert not np.allclose(decoder.decoder_layer(layer.x, plain).out, layer.out)


def test_layer_weights_refuse_extras_of_the_wrong_shape_by_name():
    w = M.random_model(QWEN3, seed=0).layer_weights(0)
    with pytest.raises(ValueError, match=r"q_norm must have shape \[6\]"):
        dataclasses.replace(w, q_norm=np.ones(5))
    with pytest.raises(ValueError, match=r"b_k must have shape \[12\]"):
        dataclasses.replace(w, b_k=np.ones(24))
    with pytest.raises(TypeError, match="rope_scaling must be a tokenpath.position.Llama3Scaling"):
        dataclasses.replace(w, rope_scaling={"factor": 8})


def test_llama3_scaling_keeps_fast_pairs_slows_slow_ones_and_blends_between():
    s = Llama3Scaling(factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, original_max_position_embeddings=64)
    plain, scaled = rope_frequencies(16, 10000.0), rope_frequencies(16, 10000.0, scaling=s)
    wavelength = 2 * np.pi / plain
    fast, slow = wavelength < 16, wavelength > 64
    np.testing.assert_array_equal(scaled[fast], plain[fast])
    np.testing.assert_allclose(scaled[slow], plain[slow] / 8)
    between = ~fast & ~slow
    assert between.any() and np.all((scaled[between] < plain[between]) & (scaled[between] > plain[between] / 8))


def _llama(**over):
    return {**M.LlamaConfig(64, 16, 24, 2, 4, 2).to_dict(), **over}


REFUSED = [
    ({**QWEN2.to_dict(), "use_sliding_window": True, "sliding_window": 8}, "use_sliding_window is true"),
    ({**QWEN3.to_dict(), "use_sliding_window": "no"}, "use_sliding_window must be true or false"),
    ({**QWEN2.to_dict(), "layer_types": ["full_attention", "sliding_attention"]}, "layer_types[1] is 'sliding_attention'"),
    ({**QWEN2.to_dict(), "layer_types": ["full_attention"]}, "layer_types has 1 entries but num_hidden_layers is 2"),
    ({**MISTRAL.to_dict(), "sliding_window": 8}, "sliding_window is 8, below max_position_embeddings=32"),
    ({**MISTRAL.to_dict(), "sliding_window": "wide"}, "sliding_window must be an integer or null"),
    ({k: v for k, v in MISTRAL.to_dict().items() if k not in ("sliding_window", "max_position_embeddings")},
     "has no sliding_window, which transformers' Mistral reads as 4096, below max_position_embeddings=131072"),
    (_llama(sliding_window=16), "sliding_window is 16"),
    (_llama(rope_parameters={"rope_type": "yarn", "factor": 4.0}), "RoPE scaling 'yarn'"),
    (_llama(rope_parameters={"rope_type": "llama3", "factor": 8.0, "high_freq_factor": 4.0}),
     "has no 'low_freq_factor'"),
    (_llama(rope_parameters={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 4.0, "high_freq_factor": 4.0}),
     "high_freq_factor (4) must be greater than low_freq_factor (4)"),
    (_llama(rope_parameters={"rope_type": "llama3", "factor": "8", "low_freq_factor": 1.0, "high_freq_factor": 4.0}),
     "rope_parameters.factor must be a number"),
    (_llama(rope_parameters={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                             "partial_rotary_factor": 0.5}), "partial_rotary_factor is 0.5"),
    (_llama(rope_parameters={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0},
            rope_scaling={"rope_type": "llama3", "factor": 2.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0}),
     "give different llama3 scalings"),
    (_llama(mlp_bias=True), "mlp_bias is true"),
    ({**QWEN3.to_dict(), "model_type": "qwen2"}, "model_type is 'qwen2'"),
]


@pytest.mark.parametrize("case", range(len(REFUSED)))
def test_settings_the_engine_does_not_compute_are_refused_by_field(case):
    d, words = REFUSED[case]
    with pytest.raises(M.ModelFileError, match="config.json") as err:
        M.LlamaConfig.from_dict(d)
    assert words in str(err.value)


def test_a_folder_missing_a_familys_tensor_or_holding_one_too_many_is_refused_by_name(tmp_path):
    folder = M.save(tmp_path / "q3", M.random_model(QWEN3, seed=0))
    cfg = json.loads((folder / M.CONFIG_NAME).read_text())
    (folder / M.CONFIG_NAME).write_text(json.dumps({**cfg, "attention_bias": True}))
    with pytest.raises(M.ModelFileError, match=r"missing tensor 'model.layers.0.self_attn.q_proj.bias' \(config.json "
                                               "describes Qwen3ForCausalLM, attention_bias=true"):
        M.load(folder)
    (folder / M.CONFIG_NAME).write_text(json.dumps({**cfg, "architectures": ["Qwen2ForCausalLM"],
                                                    "model_type": "qwen2"}))
    with pytest.raises(M.ModelFileError, match="missing tensor 'model.layers.0.self_attn.q_proj.bias'"):
        M.load(folder)
    m = M.random_model(QWEN2, seed=0)
    folder = M.save(tmp_path / "q2", m)
    (folder / M.CONFIG_NAME).write_text(json.dumps({**M.LlamaConfig(64, 16, 24, 2, 4, 2).to_dict()}))
    with pytest.raises(M.ModelFileError, match=r"unexpected tensor 'model.layers.0.self_attn.[qkv]_proj.bias'.*"
                                               "attention_bias=false: no biases"):
        M.load(folder)


# ------------------------------------------------------------------ a fuzzer of the family fields

_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=False),
                    st.text(max_size=6), st.sampled_from(["llama3", "default", "yarn", "full_attention",
                                                          "sliding_attention", "qwen2", "Qwen3ForCausalLM"]))
_VALUES = st.recursive(_LEAVES, lambda kids: st.one_of(st.lists(kids, max_size=4),
                                                      st.dictionaries(st.sampled_from(
                                                          ["rope_type", "type", "rope_theta", "factor",
                                                           "low_freq_factor", "high_freq_factor",
                                                           "original_max_position_embeddings",
                                                           "partial_rotary_factor"]), kids, max_size=6)),
                       max_leaves=8)
_FIELDS = ["use_sliding_window", "sliding_window", "layer_types", "max_window_layers", "head_dim", "attention_bias",
           "mlp_bias", "rope_parameters", "rope_scaling", "rope_theta", "max_position_embeddings", "model_type",
           "architectures", "num_key_value_heads"]


@settings(max_examples=150, derandomize=True, deadline=None, database=None)
@given(base=st.sampled_from([QWEN2, QWEN3, MISTRAL, LLAMA3]),
       changes=st.dictionaries(st.sampled_from(_FIELDS), _VALUES, min_size=1, max_size=3),
       dropped=st.lists(st.sampled_from(_FIELDS), max_size=2))
def test_any_family_config_either_reads_or_is_refused_by_one_model_file_error(base, changes, dropped):
    d = {k: v for k, v in base.to_dict().items() if k not in dropped}
    d.update(changes)
    try:
        c = M.LlamaConfig.from_dict(d)
    except M.ModelFileError as err:
        assert str(err).startswith("config.json: ")
        return
    assert isinstance(c, M.LlamaConfig) and M.LlamaConfig.from_dict(c.to_dict()) == c
    if c.rope_scaling is not None:
        assert np.all(np.isfinite(rope_frequencies(c.head_dim, c.rope_theta, scaling=c.rope_scaling)))
