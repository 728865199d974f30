"""The "In a real model" asides of chapters 6–9: their lesson functions on small inputs,
their refusals, and what each aside says about the pretrained SmolLM2 file."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from tokenpath import examples as ex
from tokenpath import gguf_format, moe_dispatch, norms
from tokenpath import position as P
from tokenpath.lessons import gqa as LG
from tokenpath.lessons import moe as LM
from tokenpath.lessons import norms as LN
from tokenpath.model.gguf_model import _tiny_gguf, gguf_config


@pytest.fixture(scope="module")
def smol(smollm2_file):
    g = gguf_format.read_gguf(smollm2_file)
    return g, gguf_config(g)


# ------------------------------------------------------------------ chapter 6


def test_section_6_4_copy_of_the_cells_speeds_follows_the_formula(smol):
    """A copy of section 6.4's aside cell (tests/test_aside_outputs.py holds the prose to what the
    cell itself prints): θ_i from the engine's rope_frequencies for the file's base and for 10000
    equal base^(−2i/d_h), and the slowest pair needs more than fifty contexts for one turn."""
    c = smol[1]
    d_h, context = c.head_dim, c.max_position_embeddings
    theta_smol, theta_10k = P.rope_frequencies(d_h, c.rope_theta), P.rope_frequencies(d_h, ex.FIG15_BASE)
    for base, th in ((c.rope_theta, theta_smol), (ex.FIG15_BASE, theta_10k)):
        np.testing.assert_allclose(th, base ** (-2 * np.arange(d_h // 2) / d_h), rtol=1e-12)
    turn, turn_ref = 2 * np.pi / theta_smol, 2 * np.pi / theta_10k
    slowdown = theta_10k / theta_smol
    assert c.rope_theta == 100000.0 and d_h == 64 and context == 8192
    assert turn[-1] / context > 50 > turn_ref[-1] / context
    assert (turn <= context).sum() < (turn_ref <= context).sum()
    assert slowdown[0] == 1.0 and np.all(np.diff(slowdown) > 0)  # pair 0 keeps its speed, later pairs slow more


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


def test_section_9_2_copy_of_the_cells_count_matches_the_file_and_the_engine(smol):
    """A copy of the count in section 9.2's second aside cell (tests/test_aside_outputs.py holds
    the prose to what the cell itself prints): the dense count 3·d·d_ff is what every layer's
    ffn_gate, ffn_up and ffn_down hold in the file, the top-2-of-4 mixture runs as many per token
    and stores twice as many, and the engine's expert_parameters agrees."""
    g, c = smol
    d, d_ff, E_n, k = c.hidden_size, c.intermediate_size, ex.SMOLLM2_MIXTURE_EXPERTS, ex.SMOLLM2_MIXTURE_K
    assert d_ff % k == 0
    dense, width = 3 * d * d_ff, d_ff // k
    for i in range(c.num_hidden_layers):
        assert dense == sum(g.tensors[f"blk.{i}.ffn_{m}.weight"].size for m in ("gate", "up", "down"))
    per_expert = 3 * d * width
    active, stored = k * per_expert, E_n * per_expert
    cap = moe_dispatch.expert_parameters(E_n, per_expert, k)
    assert (stored, active) == (cap.stored, cap.active)
    assert active == dense and stored == 2 * dense and width * k == d_ff


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

