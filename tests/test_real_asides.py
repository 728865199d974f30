"""The "In a real model" asides of chapters 6–9: their lesson functions on small inputs,
their refusals, and what each aside says about the pretrained SmolLM2 file."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from tokenpath import gguf_format, norms
from tokenpath.lessons import gqa as LG
from tokenpath.lessons import moe as LM
from tokenpath.lessons import norms as LN
from tokenpath.lessons import position as LP
from tokenpath.model.config import LlamaConfig
from tokenpath.model.gguf_model import _tiny_gguf, gguf_config


def _config(**kw) -> LlamaConfig:
    base = dict(vocab_size=8, hidden_size=8, intermediate_size=16, num_hidden_layers=2, num_attention_heads=2,
                num_key_value_heads=1, max_position_embeddings=64)
    return LlamaConfig(**(base | kw))


@pytest.fixture(scope="module")
def smol(smollm2_file):
    g = gguf_format.read_gguf(smollm2_file)
    return g, gguf_config(g)


# ------------------------------------------------------------------ chapter 6


def test_model_rope_pair_zero_keeps_its_speed_and_the_slowest_pair_slows_most():
    r = LP.model_rope(_config(rope_theta=1e5, hidden_size=16), reference_base=1e4)
    assert r.frequencies[0] == r.reference[0] == 1.0
    assert np.all(np.diff(r.slowdown) > 0)  # every later pair slows more
    assert np.allclose(r.wavelengths * r.frequencies, 2 * np.pi)


@pytest.mark.parametrize("bad, err", [("config", TypeError), (None, TypeError)])
def test_model_rope_refuses_a_config_that_is_not_one(bad, err):
    with pytest.raises(err, match="config"):
        LP.model_rope(bad)


def test_model_rope_refuses_a_bad_reference_base():
    with pytest.raises((TypeError, ValueError), match="reference_base"):
        LP.model_rope(_config(), reference_base="ten")


def test_smollm2_slowest_pair_needs_more_than_fifty_contexts_for_one_turn(smol):
    r = LP.model_rope(smol[1])
    assert r.base == 100000.0 and r.head_dim == 64 and r.context_length == 8192
    assert r.wavelengths[-1] / r.context_length > 50 > r.reference_wavelengths[-1] / r.context_length
    assert r.full_turns(r.wavelengths) < r.full_turns(r.reference_wavelengths)


# ------------------------------------------------------------------ chapter 7


def test_smollm2_cache_is_a_third_of_the_cache_without_gqa(smol):
    c = smol[1]
    s = LG.head_sharing(c.num_attention_heads, c.num_key_value_heads, layers=c.num_hidden_layers, seq_len=2048,
                        head_dim=c.head_dim)
    assert s.group_size == 3 and s.ratio == Fraction(1, 3)
    assert s.cache.nbytes_per_position("float16") == 2 * 30 * 3 * 64 * 2


# ------------------------------------------------------------------ chapter 8


def test_norm_gains_of_a_tiny_file_are_its_norm_vectors():
    g = gguf_format.read_gguf(_tiny_gguf())
    n = LN.model_norm_gains(g)
    assert np.array_equal(n.attn[0], g.dequantize("blk.0.attn_norm.weight"))
    assert np.array_equal(n.output, g.dequantize("output_norm.weight"))
    assert n.file_bytes == 3 * 8 * 4
    assert n.stats("ffn", 0) == LN.GainStats.of(n.ffn[0])


def test_norm_gains_refuse_what_is_not_a_gguf_file():
    with pytest.raises(TypeError, match="g must be"):
        LN.model_norm_gains("model.gguf")


@pytest.mark.parametrize("which, layer, match", [("mlp", 0, "which"), ("attn", 1, "layer"), ("attn", True, "layer"),
                                                 ("output", 0, "layer")])
def test_norm_stats_refuse_a_bad_part_or_layer(which, layer, match):
    n = LN.model_norm_gains(gguf_format.read_gguf(_tiny_gguf()))
    with pytest.raises(ValueError, match=match):
        n.stats(which, layer)


@pytest.mark.parametrize("bad", [[], [[1.0]], [1.0, float("nan")]])
def test_gain_stats_refuse_what_is_not_a_finite_vector(bad):
    with pytest.raises(ValueError, match="gains"):
        LN.GainStats.of(bad)


def test_ffn_ratio_is_exact_and_refuses_a_non_config():
    assert LN.ffn_ratio(_config(hidden_size=576, intermediate_size=1536, num_attention_heads=9,
                                num_key_value_heads=3)) == Fraction(8, 3)
    with pytest.raises(TypeError, match="config"):
        LN.ffn_ratio({"hidden_size": 576})


def test_smollm2_gains_are_uneven_yet_its_norms_stay_scale_invariant(smol):
    n = LN.model_norm_gains(smol[0])
    assert n.stats("attn", 0).negative > 200  # the first norm is centred on zero
    x = np.random.default_rng(0).standard_normal(576)
    for gamma in (n.attn[0], n.ffn[29], n.output):
        y = norms.rms_norm(x, gamma, eps=0.0)
        assert np.allclose(norms.rms_norm(10 * x, gamma, eps=0.0), y)  # scale invariance carries over
        assert not np.isclose(abs(y @ x) / (np.linalg.norm(y) * np.linalg.norm(x)), 1.0)  # the direction does not


def test_bfloat16_exact_counts_only_gains_whose_low_16_bits_are_zero():
    bf16 = np.float32(np.array([1.375, -2.125, 3.34375, 0.0]))  # 8 significant bits or fewer
    n = LN.NormGains(bf16[None, :2], bf16[None, 2:], np.float32([0.1, 1 + 2**-10]), 1e-5, 0)
    assert (n.count, n.bfloat16_exact) == (6, 4)  # 0.1 and 1 + 2^-10 need more than bfloat16 keeps


def test_smollm2_norm_gains_were_not_rounded_by_block_quantization(smol):
    g = smol[0]
    n = LN.model_norm_gains(g)
    assert {g.tensors[f"blk.{k}.{p}.weight"].type_name for k in range(30) for p in ("attn_norm", "ffn_norm")} \
        == {g.tensors["output_norm.weight"].type_name} == {"F32"}
    assert n.count == 2 * 30 * 576 + 576 and n.bfloat16_exact == n.count  # every gain a widened bfloat16


# ------------------------------------------------------------------ chapter 9


def test_a_mixture_of_the_same_active_width_runs_the_dense_count_and_stores_more():
    m = LM.dense_as_mixture(8, 12, n_experts=6, k=3)
    assert m.experts.active == m.dense == 3 * 8 * 12
    assert m.experts.stored == 2 * m.dense and m.router == 8 * 6 and m.expert_width == 4


@pytest.mark.parametrize("kw, match", [(dict(d=0), "d"), (dict(d_ff=7), "d_ff"), (dict(k=5), "k"),
                                       (dict(n_experts=1), "k"), (dict(k=0), "k")])
def test_dense_as_mixture_refuses_what_does_not_divide_or_fit(kw, match):
    args = dict(d=4, d_ff=6, n_experts=4, k=2) | kw
    with pytest.raises(ValueError, match=match):
        LM.dense_as_mixture(args.pop("d"), args.pop("d_ff"), **args)


def test_smollm2_as_a_top2_of_4_mixture_would_store_twice_its_swiglu(smol):
    c = smol[1]
    m = LM.dense_as_mixture(c.hidden_size, c.intermediate_size, n_experts=4, k=2)
    assert m.dense == 3 * 576 * 1536 and m.experts.stored == 2 * m.dense


def test_file_experts_finds_a_mixtures_key_router_and_stacked_experts():
    import dataclasses

    g = gguf_format.read_gguf(_tiny_gguf())
    plain = LM.file_experts(g)
    assert plain.dense and (plain.layers, plain.dense_tensors) == (1, 3)
    one = next(iter(g.tensors.values()))
    moe_tensors = {n: one for n in g.tensors if not n.startswith("blk.0.ffn_")}
    moe_tensors |= {f"blk.0.{p}.weight": one for p in ("ffn_gate_inp", *LM._EXPERT_PARTS)}
    mixed = LM.file_experts(dataclasses.replace(g, metadata={**g.metadata, "llama.expert_count": 4},
                                                tensors=moe_tensors))
    assert (mixed.expert_count, mixed.routers, mixed.expert_tensors, mixed.dense_tensors) == (4, 1, 3, 0)
    assert not mixed.dense
    assert not LM.file_experts(dataclasses.replace(g, metadata={**g.metadata, "llama.expert_count": 4})).dense


def test_file_experts_refuses_what_is_not_a_gguf_file_or_names_no_architecture():
    with pytest.raises(TypeError, match="g must be"):
        LM.file_experts({"general.architecture": "llama"})
    import dataclasses

    g = gguf_format.read_gguf(_tiny_gguf())
    with pytest.raises(ValueError, match="architecture"):
        LM.file_experts(dataclasses.replace(g, metadata={k: v for k, v in g.metadata.items()
                                                          if k != "general.architecture"}))


def test_smollm2_file_holds_no_mixture(smol):
    f = LM.file_experts(smol[0])
    assert (f.layers, f.expert_count, f.routers, f.expert_tensors, f.dense_tensors) == (30, None, 0, 0, 90)

