"""What chapters 6–9 say about Hugging Face's models, checked against transformers:
that not every model rotates every feature of every layer (section 6.4), and
that Llama's RMSNorm weight starts at ones where Gemma's stored offset starts at zeros
(section 8.1), and that OLMo's norm has no weight at all (section 8.5); and what chapter 9's aside reads as a mixture's GGUF names, checked
against llama.cpp's `gguf` package (section 9.2).

transformers is an optional extra (`pip install -e '.[crosscheck]'`); without it these
tests are skipped with a visible reason. CI installs it.
"""

from __future__ import annotations

import pytest

transformers = pytest.importorskip(
    "transformers", reason="transformers not installed: install the 'crosscheck' extra to compare with it"
)
torch = pytest.importorskip("torch", reason="torch not installed: install the 'crosscheck' extra")

pytestmark = pytest.mark.torch


# ------------------------------------------- 5.4: partial RoPE and layers without RoPE


def test_gpt_neox_turns_only_a_quarter_of_each_heads_features():
    from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding

    config = transformers.GPTNeoXConfig()
    head_dim = config.hidden_size // config.num_attention_heads
    assert config.rope_parameters["partial_rotary_factor"] == 0.25
    rotary = GPTNeoXRotaryEmbedding(config)
    assert 2 * rotary.inv_freq.numel() == head_dim // 4  # one frequency per turned pair


def test_smollm3_leaves_every_fourth_layer_without_rope():
    config = transformers.SmolLM3Config()
    flags = list(config.no_rope_layers)  # 1 = this layer applies RoPE, 0 = it does not
    assert len(flags) == config.num_hidden_layers
    assert [k for k, f in enumerate(flags) if not f] == list(range(3, config.num_hidden_layers, 4))


def test_llama4_leaves_every_fourth_layer_without_rope():
    config = transformers.Llama4TextConfig()
    flags = list(config.no_rope_layers)  # 1 = this layer applies RoPE, 0 = it does not
    assert len(flags) == config.num_hidden_layers
    assert [k for k, f in enumerate(flags) if not f] == list(range(3, config.num_hidden_layers, 4))


def test_llama_turns_every_feature_pair_of_every_layer():
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    config = transformers.LlamaConfig(hidden_size=64, num_attention_heads=4, num_key_value_heads=2,
                                      intermediate_size=64, num_hidden_layers=2, vocab_size=16)
    assert 2 * LlamaRotaryEmbedding(config).inv_freq.numel() == config.hidden_size // config.num_attention_heads


# ------------------------------------------- 7.1: the two weight conventions of RMSNorm


def test_llama_rmsnorm_weight_starts_at_ones_and_gemmas_offset_at_zeros():
    from transformers.models.gemma.modeling_gemma import GemmaRMSNorm
    from transformers.models.llama.modeling_llama import LlamaRMSNorm

    llama, gemma = LlamaRMSNorm(4, eps=1e-6), GemmaRMSNorm(4, eps=1e-6)
    assert torch.equal(llama.weight.detach(), torch.ones(4))
    assert torch.equal(gemma.weight.detach(), torch.zeros(4))
    x = torch.tensor([[3.0, 4.0, 0.0, 0.0]])
    plain = x / torch.sqrt((x * x).mean(-1, keepdim=True) + 1e-6)
    with torch.no_grad():
        assert torch.allclose(llama(x), plain) and torch.allclose(gemma(x), plain)  # γ = w = 1 and γ = 1 + 0
        gemma.weight.fill_(1.0)
        llama.weight.fill_(1.0)
        assert torch.allclose(gemma(x), 2 * llama(x))  # the same stored 1 read as 1 + w doubles the output


# ------------------------------------------- 8.2: the GGUF names of a mixture of experts


def test_gguf_names_a_mixtures_expert_count_router_and_stacked_experts_as_the_aside_reads_them():
    gguf = pytest.importorskip("gguf", reason="gguf not installed: install the 'crosscheck' extra")
    from tokenpath.lessons import moe as LM

    C = gguf.constants
    T, names = C.MODEL_TENSOR, C.TENSOR_NAMES
    assert C.Keys.LLM.EXPERT_COUNT.format(arch="llama") == "llama.expert_count"
    assert names[T.FFN_GATE_INP].format(bid=0) + ".weight" == "blk.0.ffn_gate_inp.weight"
    assert tuple(names[t].format(bid=0) for t in (T.FFN_GATE_EXP, T.FFN_UP_EXP, T.FFN_DOWN_EXP)) == \
        tuple(f"blk.0.{p}" for p in LM._EXPERT_PARTS)
    assert tuple(names[t].format(bid=0) for t in (T.FFN_GATE, T.FFN_UP, T.FFN_DOWN)) == \
        tuple(f"blk.0.{p}" for p in LM._DENSE_PARTS)
    assert {T.FFN_GATE_INP, T.FFN_GATE_EXP} <= set(C.MODEL_TENSORS[C.MODEL_ARCH.LLAMA])  # llama files may hold a mixture


# ------------------------------------------- 7.4: a norm with no learned gain at all


def test_olmos_layer_norm_learns_no_gain_and_no_bias():
    from transformers.models.olmo.modeling_olmo import OlmoLayerNorm

    norm = OlmoLayerNorm(4)
    assert list(norm.parameters()) == []  # no γ, no β
    x = torch.tensor([[3.0, 4.0, 0.0, 1.0]])
    with torch.no_grad():
        assert torch.allclose(norm(x), torch.nn.functional.layer_norm(x, (4,), eps=1e-5))
