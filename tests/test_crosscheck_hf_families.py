"""Cross-check the folders readers download against ``transformers`` (the crosscheck
extra): tiny random Llama (with Llama 3.1's RoPE scaling, with attention biases),
Qwen2 (biases on q, k, v), Qwen3 (q/k RMSNorm per head, a head_dim other than d/H)
and Mistral models are built here (nothing is downloaded), written by
``save_pretrained`` in float32, in bfloat16 and in shards, read by
:func:`tokenpath.model.load`, and run beside ``transformers`` reading the same folder:
the logits agree to 1e-4 of their standard deviation and greedy decoding picks the
same tokens. The statements the engine's refusals make about ``transformers`` are
checked here too: a Mistral window shorter than the sequence changes its logits, a
Mistral file without the field has a window of 4096, and Qwen2 drops its
``sliding_window`` when ``use_sliding_window`` is false. Configs shaped like released
ones (Llama 3.2, Qwen2.5, Qwen3, Mistral v0.3) are read as transformers reads them,
RoPE frequencies included.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from tokenpath import model as M
from tokenpath.position import Llama3Scaling, rope_frequencies

transformers = pytest.importorskip("transformers", reason="needs the crosscheck extra (transformers)")
torch = pytest.importorskip("torch", reason="needs the crosscheck extra (torch)")

pytestmark = pytest.mark.torch

BASE = dict(vocab_size=96, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, max_position_embeddings=64, rms_norm_eps=1e-5, bos_token_id=None,
            eos_token_id=None, pad_token_id=None)
LLAMA3 = {"rope_type": "llama3", "rope_theta": 5000.0, "factor": 8.0, "low_freq_factor": 1.0,
          "high_freq_factor": 4.0, "original_max_position_embeddings": 16}

#: a tiny Qwen2-MoE: 4 routed experts of width 16 (2 per token), a shared expert of width 24
QWEN2_MOE = dict(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=16, shared_expert_intermediate_size=24)

#: family name → (transformers config class, model class, fields beyond BASE, engine class)
FAMILIES = {
    "llama3-tied": ("LlamaConfig", "LlamaForCausalLM", dict(tie_word_embeddings=True, rope_parameters=LLAMA3),
                    M.LlamaConfig),
    "llama-bias": ("LlamaConfig", "LlamaForCausalLM", dict(attention_bias=True, head_dim=16), M.LlamaConfig),
    "qwen2": ("Qwen2Config", "Qwen2ForCausalLM", dict(use_sliding_window=False, sliding_window=8,
                                                     max_window_layers=1), M.Qwen2Config),
    "qwen3-tied": ("Qwen3Config", "Qwen3ForCausalLM", dict(head_dim=12, tie_word_embeddings=True), M.Qwen3Config),
    "mistral": ("MistralConfig", "MistralForCausalLM", dict(sliding_window=None, head_dim=6), M.MistralConfig),
    "mistral-wide-window": ("MistralConfig", "MistralForCausalLM", dict(sliding_window=64), M.MistralConfig),
    "qwen2-moe": ("Qwen2MoeConfig", "Qwen2MoeForCausalLM", QWEN2_MOE, M.Qwen2MoeConfig),
    "qwen2-moe-norm-tied": ("Qwen2MoeConfig", "Qwen2MoeForCausalLM",
                            dict(QWEN2_MOE, norm_topk_prob=True, tie_word_embeddings=True, num_experts_per_tok=3),
                            M.Qwen2MoeConfig),
}
IDS = [5, 17, 3, 88, 41, 41, 9, 60, 2, 33, 71, 12]


def hf_model(family: str, seed: int = 0):
    """A seeded random transformers model of ``family``, every parameter drawn (biases
    and norm weights too: left at their initial zeros and ones they would test nothing)."""
    config_cls, model_cls, extra, _ = FAMILIES[family]
    config = getattr(transformers, config_cls)(**BASE, **extra)
    torch.manual_seed(seed)
    model = getattr(transformers, model_cls)(config).float().eval()
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=gen)
            if p.ndim == 1:
                p.copy_(0.2 * noise + (0.0 if name.endswith(".bias") else 1.0))
            elif "embed_tokens" in name or "lm_head" in name:
                p.copy_(noise)
            else:
                p.copy_(noise / math.sqrt(p.shape[1]))
    return model


def saved(tmp_path, family: str, **kwargs):
    """``save_pretrained`` of a fresh model of ``family`` (``dtype`` bfloat16 and
    ``max_shard_size`` passed on), and the folder."""
    model = hf_model(family)
    dtype = kwargs.pop("dtype", None)
    if dtype is not None:
        model = model.to(dtype)
    folder = tmp_path / family
    model.save_pretrained(folder, **kwargs)
    return folder


def reread(folder):
    """The folder read back by transformers in float32: a bf16 folder's numbers widened,
    the same numbers the engine reads."""
    return transformers.AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()


def assert_same_logits(engine: M.Model, hf, ids=IDS):
    with torch.no_grad():
        want = hf(torch.tensor([ids])).logits[0].double().numpy()
    got = engine.logits(ids)
    assert got.shape == want.shape
    gap = float(np.abs(got - want).max())
    assert gap <= 1e-4 * float(want.std()), (gap, float(want.std()))


def assert_same_greedy(engine: M.Model, hf, steps: int = 8):
    with torch.no_grad():
        out = hf.generate(torch.tensor([IDS[:4]]), max_new_tokens=steps, do_sample=False, pad_token_id=0)
    assert engine.generate(IDS[:4], steps, temperature=0).sampled.tolist() == out[0, 4:].tolist()


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_float32_folder_loads_as_its_family_and_runs_as_transformers_does(tmp_path, family):
    folder = saved(tmp_path, family)
    m = M.load(folder)
    assert type(m.config) is FAMILIES[family][3]
    hf = reread(folder)
    assert m.parameter_count == sum(p.numel() for p in hf.parameters())  # a tied head counted once by both
    assert_same_logits(m, hf)
    assert_same_greedy(m, hf)


@pytest.mark.parametrize("family", ["qwen2", "qwen3-tied", "llama3-tied"])
def test_a_bf16_folder_reads_as_its_widened_numbers(tmp_path, family):
    folder = saved(tmp_path, family, dtype=torch.bfloat16)
    assert json.loads((folder / "config.json").read_text())["dtype"] == "bfloat16"
    m = M.load(folder)
    assert set(m.dtypes.values()) == {"BF16"}
    hf = reread(folder)
    state = hf.state_dict()
    for name, value in m.tensors.items():  # bf16 → float32 exactly: the top 16 bits of each float32
        np.testing.assert_array_equal(value, state[name].numpy())
    assert_same_logits(m, hf)


@pytest.mark.parametrize("family", ["qwen3-tied", "mistral"])
def test_a_sharded_folder_loads_shard_by_shard(tmp_path, family):
    folder = saved(tmp_path, family, max_shard_size="20KB")
    shards = sorted(p.name for p in folder.glob("model-*-of-*.safetensors"))
    assert len(shards) > 2 and (folder / M.INDEX_NAME).exists()
    m = M.load(folder)
    assert_same_logits(m, reread(folder))


def test_the_engine_writes_folders_of_each_family_that_transformers_reads_back(tmp_path):
    for cfg in (M.Qwen2Config(96, 32, 48, 2, 4, 2, max_position_embeddings=64),
                M.Qwen3Config(96, 32, 48, 2, 4, 2, head_dim=8, tie_word_embeddings=True),
                M.MistralConfig(96, 32, 48, 2, 4, 2, max_position_embeddings=64, sliding_window=64),
                M.LlamaConfig(96, 32, 48, 2, 4, 2, attention_bias=True,
                              rope_scaling=Llama3Scaling(8.0, 1.0, 4.0, 16)),
                M.Qwen2MoeConfig(96, 32, 48, 2, 4, 2, max_position_embeddings=64, **QWEN2_MOE)):
        folder = M.save(tmp_path / cfg.MODEL_TYPE, M.random_model(cfg, seed=1))
        hf = reread(folder)
        assert type(hf).__name__ == cfg.ARCH
        assert_same_logits(M.load(folder), hf)


def test_llama3_frequencies_are_transformers_inverse_frequencies():
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    for head_dim, params in ((16, LLAMA3), (64, {**LLAMA3, "rope_theta": 500000.0,
                                                 "original_max_position_embeddings": 8192})):
        config = transformers.LlamaConfig(**BASE, head_dim=head_dim, rope_parameters=params)
        want, attention_factor = ROPE_INIT_FUNCTIONS["llama3"](config, "cpu")
        s = Llama3Scaling(params["factor"], params["low_freq_factor"], params["high_freq_factor"],
                          params["original_max_position_embeddings"])
        got = rope_frequencies(head_dim, params["rope_theta"], scaling=s)
        np.testing.assert_allclose(got, want.double().numpy(), rtol=1e-6)  # transformers computes in float32
        assert attention_factor == 1.0  # cos and sin are not rescaled: the tables need no other change


def test_a_llama_3_1_style_config_with_rope_scaling_and_a_top_level_theta_loads_in_both(tmp_path):
    folder = saved(tmp_path, "llama3-tied")
    path = folder / "config.json"
    d = json.loads(path.read_text())
    params = d.pop("rope_parameters")
    d["rope_theta"] = params.pop("rope_theta")
    d["rope_scaling"] = params  # how Llama 3.1's own config.json spells it
    path.write_text(json.dumps(d))
    m = M.load(folder)
    assert m.config.rope_scaling == Llama3Scaling(8.0, 1.0, 4.0, 16) and m.config.rope_theta == 5000.0
    assert_same_logits(m, reread(folder))


def test_transformers_mistral_window_hides_old_keys_so_a_short_window_is_refused(tmp_path):
    """What the refusal says: with a window shorter than the sequence, transformers'
    logits change (keys more than window − 1 positions back are hidden)."""
    full = hf_model("mistral-wide-window")
    short = hf_model("mistral-wide-window")
    short.config.sliding_window = 4
    with torch.no_grad():
        a, b = full(torch.tensor([IDS])).logits[0], short(torch.tensor([IDS])).logits[0]
    assert torch.equal(a[:4], b[:4]) and not torch.allclose(a[4:], b[4:])  # rows 0–3 see no more than 4 keys
    folder = tmp_path / "short"
    short.save_pretrained(folder)
    with pytest.raises(M.ModelFileError, match="sliding_window is 4, below max_position_embeddings=64"):
        M.load(folder)


def test_transformers_drops_qwen2s_window_when_use_sliding_window_is_false():
    config = transformers.Qwen2Config(**BASE, use_sliding_window=False, sliding_window=8, max_window_layers=1)
    assert config.sliding_window is None and set(config.layer_types) == {"full_attention"}
    on = transformers.Qwen2Config(**BASE, use_sliding_window=True, sliding_window=8, max_window_layers=1)
    assert on.layer_types == ["full_attention", "sliding_attention"]
    with pytest.raises(M.ModelFileError, match="use_sliding_window is true"):
        M.LlamaConfig.from_dict(on.to_dict())


#: config.json files shaped like the released ones (the fields and spellings they use:
#: transformers-4 names such as ``rope_scaling`` and ``torch_dtype``, windows present but off).
RELEASED_SHAPES = {
    "llama-3.2-1b": {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": 128256,
                     "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16,
                     "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 64, "hidden_act": "silu",
                     "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
                     "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                                      "original_max_position_embeddings": 8192, "rope_type": "llama3"},
                     "attention_bias": False, "mlp_bias": False, "pretraining_tp": 1, "tie_word_embeddings": True,
                     "bos_token_id": 128000, "eos_token_id": 128001, "torch_dtype": "bfloat16"},
    "qwen2.5-0.5b": {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "vocab_size": 151936,
                     "hidden_size": 896, "intermediate_size": 4864, "num_hidden_layers": 24,
                     "num_attention_heads": 14, "num_key_value_heads": 2, "hidden_act": "silu",
                     "max_position_embeddings": 32768, "max_window_layers": 24, "rms_norm_eps": 1e-6,
                     "rope_theta": 1000000.0, "sliding_window": 32768, "use_sliding_window": False,
                     "tie_word_embeddings": True, "bos_token_id": 151643, "eos_token_id": 151643,
                     "torch_dtype": "bfloat16"},
    "qwen3-0.6b": {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "vocab_size": 151936,
                   "hidden_size": 1024, "intermediate_size": 3072, "num_hidden_layers": 28,
                   "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128, "hidden_act": "silu",
                   "max_position_embeddings": 40960, "max_window_layers": 28, "rms_norm_eps": 1e-6,
                   "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None, "use_sliding_window": False,
                   "attention_bias": False, "tie_word_embeddings": True, "bos_token_id": 151643,
                   "eos_token_id": 151645, "torch_dtype": "bfloat16"},
    "mistral-7b-v0.3": {"architectures": ["MistralForCausalLM"], "model_type": "mistral", "vocab_size": 32768,
                        "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                        "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "hidden_act": "silu",
                        "max_position_embeddings": 32768, "rms_norm_eps": 1e-5, "rope_theta": 1000000.0,
                        "sliding_window": None, "tie_word_embeddings": False, "bos_token_id": 1, "eos_token_id": 2,
                        "torch_dtype": "bfloat16"},
}


@pytest.mark.parametrize("name", sorted(RELEASED_SHAPES))
def test_released_config_shapes_read_as_transformers_reads_them(name):
    """The engine's reading of each file against transformers' own: the family, the
    head shapes, ε, the tie, and the RoPE inverse frequencies its rotary embedding holds."""
    d = RELEASED_SHAPES[name]
    ours = M.LlamaConfig.from_dict(d)
    theirs = transformers.AutoConfig.for_model(**d)
    assert ours.ARCH == d["architectures"][0] and ours.MODEL_TYPE == theirs.model_type
    head_dim = getattr(theirs, "head_dim", None) or theirs.hidden_size // theirs.num_attention_heads
    assert (ours.num_key_value_heads, ours.head_dim) == (theirs.num_key_value_heads, head_dim)
    assert ours.rms_norm_eps == theirs.rms_norm_eps and ours.tie_word_embeddings == theirs.tie_word_embeddings
    assert getattr(theirs, "sliding_window", None) is None  # nothing hidden: the engine's reading is the same
    module = __import__(f"transformers.models.{theirs.model_type}.modeling_{theirs.model_type}", fromlist=["x"])
    rotary = getattr(module, f"{type(theirs).__name__.removesuffix('Config')}RotaryEmbedding")(theirs)
    want = rotary.inv_freq.double().numpy()
    got = rope_frequencies(ours.head_dim, ours.rope_theta, scaling=ours.rope_scaling)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert rotary.attention_scaling == 1.0


def test_a_mistral_7b_v0_1_shaped_config_keeps_its_window_in_transformers_and_is_refused_here():
    d = {**RELEASED_SHAPES["mistral-7b-v0.3"], "sliding_window": 4096, "rope_theta": 10000.0, "vocab_size": 32000}
    assert transformers.AutoConfig.for_model(**d).sliding_window == 4096
    with pytest.raises(M.ModelFileError, match="sliding_window is 4096, below max_position_embeddings=32768"):
        M.LlamaConfig.from_dict(d)
    del d["sliding_window"]  # and a file without the field: transformers' default window
    assert transformers.AutoConfig.for_model(**d).sliding_window == 4096
    with pytest.raises(M.ModelFileError, match="has no sliding_window, which transformers' Mistral reads as 4096"):
        M.LlamaConfig.from_dict(d)


def test_what_the_families_module_says_of_transformers_classes():
    """tokenpath.model.families' account of each class: Qwen2 biases q, k and v and never
    o whatever attention_bias says; Qwen3 biases all four only with attention_bias and
    defaults head_dim to 128; Mistral and Mixtral have no biases even when asked."""
    def bias_names(config_cls, model_cls, **kw):
        config = getattr(transformers, config_cls)(**{**BASE, "num_hidden_layers": 1}, **kw)
        model = getattr(transformers, model_cls)(config)
        return sorted(n.split(".")[-2] for n, _ in model.named_parameters() if n.endswith(".bias"))

    assert bias_names("Qwen2Config", "Qwen2ForCausalLM", attention_bias=False) == ["k_proj", "q_proj", "v_proj"]
    assert bias_names("Qwen2Config", "Qwen2ForCausalLM", attention_bias=True) == ["k_proj", "q_proj", "v_proj"]
    assert bias_names("Qwen3Config", "Qwen3ForCausalLM", head_dim=8) == []
    assert bias_names("Qwen3Config", "Qwen3ForCausalLM", head_dim=8, attention_bias=True) == [
        "k_proj", "o_proj", "q_proj", "v_proj"]
    assert bias_names("MistralConfig", "MistralForCausalLM", attention_bias=True) == []
    assert bias_names("MixtralConfig", "MixtralForCausalLM", attention_bias=True) == []
    assert transformers.Qwen3Config().head_dim == 128
    for arch in ("Qwen2ForCausalLM", "MistralForCausalLM", "MixtralForCausalLM"):
        family = type(M.LlamaConfig.from_dict({**BASE, "architectures": [arch], "attention_bias": True}))
        assert family.ARCH == arch
    qwen3 = M.LlamaConfig.from_dict({**BASE, "architectures": ["Qwen3ForCausalLM"], "attention_bias": True})
    assert qwen3.qkv_bias and qwen3.o_bias and qwen3.head_dim == 128


def test_a_llama3_block_without_original_max_positions_uses_max_position_embeddings_in_both():
    params = {k: v for k, v in LLAMA3.items() if k != "original_max_position_embeddings"}
    theirs = transformers.LlamaConfig(**BASE, rope_parameters=dict(params))
    rotary = transformers.models.llama.modeling_llama.LlamaRotaryEmbedding(theirs)
    ours = M.LlamaConfig.from_dict({**theirs.to_dict(), "rope_parameters": params})
    assert ours.rope_scaling.original_max_position_embeddings == BASE["max_position_embeddings"]
    np.testing.assert_allclose(rope_frequencies(ours.head_dim, ours.rope_theta, scaling=ours.rope_scaling),
                               rotary.inv_freq.double().numpy(), rtol=1e-6)


def test_transformers_qwen2_moe_layers_follow_decoder_sparse_step_and_mlp_only_layers_so_others_are_refused():
    """What the refusals say: with decoder_sparse_step 2 or a layer in mlp_only_layers,
    transformers builds a dense MLP in those layers (this engine reads only all-sparse)."""
    for extra, dense, field in ((dict(decoder_sparse_step=2), [0], "decoder_sparse_step is 2"),
                                (dict(mlp_only_layers=[1]), [1], r"mlp_only_layers is \[1\]")):
        config = transformers.Qwen2MoeConfig(**BASE, **QWEN2_MOE, **extra)
        model = transformers.Qwen2MoeForCausalLM(config)
        kinds = [type(layer.mlp).__name__ for layer in model.model.layers]
        assert [i for i, k in enumerate(kinds) if k == "Qwen2MoeMLP"] == dense
        with pytest.raises(M.ModelFileError, match=field):
            M.LlamaConfig.from_dict(config.to_dict())


def test_a_qwen2_moe_layer_trace_holds_the_shared_expert_of_transformers_block(tmp_path):
    """Layer 0's shared gate and shared output in the engine's trace are transformers'
    (hooked on the block's shared_expert and shared_expert_gate)."""
    hf = hf_model("qwen2-moe")
    seen = {}
    hf.model.layers[0].mlp.shared_expert.register_forward_hook(lambda m, i, o: seen.setdefault("h", o))
    hf.model.layers[0].mlp.shared_expert_gate.register_forward_hook(lambda m, i, o: seen.setdefault("logit", o))
    with torch.no_grad():
        hf(torch.tensor([IDS]))
    hf.save_pretrained(tmp_path / "f")
    trace = M.load(tmp_path / "f").forward(IDS).layers[0].shared
    np.testing.assert_allclose(trace.shared_output[0], seen["h"].numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(trace.gate_logit[0], seen["logit"].numpy()[:, 0], rtol=1e-4, atol=1e-5)


def test_a_qwen2_moe_state_dict_in_memory_with_fused_experts_runs_as_transformers_does():
    hf = hf_model("qwen2-moe-norm-tied")
    state = {k: v.numpy() for k, v in hf.state_dict().items()}
    assert "model.layers.0.mlp.experts.gate_up_proj" in state  # transformers 5 keeps them fused in memory
    config = M.LlamaConfig.from_dict(hf.config.to_dict())
    assert_same_logits(M.Model(config, state), hf)
