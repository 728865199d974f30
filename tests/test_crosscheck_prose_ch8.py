"""What chapter 8 says about PyTorch's and Hugging Face's norms, checked against the installed
torch and transformers: where ε goes and what ``torch.nn.RMSNorm`` takes for it by default
(section 8.1), the order in which ``LlamaRMSNorm`` and ``GemmaRMSNorm`` round in 16-bit floats
(section 8.4's note), and that Gemma 2 normalises each sub-layer's output as well as its input
(section 8.3's note).

torch and transformers are the optional 'crosscheck' extra; without them these tests are
skipped with a visible reason.
"""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import norms

torch = pytest.importorskip("torch", reason="torch not installed: install the 'crosscheck' extra")
transformers = pytest.importorskip("transformers", reason="transformers not installed: install the 'crosscheck' extra")

pytestmark = pytest.mark.torch


def _x(seed, shape, scale=1.0):
    return np.random.default_rng(seed).standard_normal(shape) * scale


# ------------------------------------------- 8.1: ε inside the root, and torch's default ε


def test_torch_rmsnorm_puts_eps_inside_the_root_as_the_engine_does():
    d, eps = 6, 0.5  # a large ε, beside small features, shows where it goes
    x, w = _x(0, (3, d), 0.3), _x(1, d)
    m = torch.nn.RMSNorm(d, eps=eps).double()
    with torch.no_grad():
        m.weight.copy_(torch.from_numpy(w))
        theirs = m(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(norms.rms_norm(x, w, eps=eps), theirs, rtol=1e-12, atol=1e-14)
    outside = w * x / (np.sqrt((x * x).mean(-1, keepdims=True)) + eps)  # the RMSNorm authors' PyTorch code
    assert not np.allclose(outside, theirs, rtol=1e-3)


def test_torch_rmsnorm_default_eps_is_machine_epsilon_not_the_models():
    d = 4
    x = _x(2, (2, d), 1e-3).astype(np.float32)  # small enough that ε matters
    default = torch.nn.RMSNorm(d)
    assert default.eps is None
    with torch.no_grad():
        theirs = default(torch.from_numpy(x)).numpy()
    machine = float(torch.finfo(torch.float32).eps)
    np.testing.assert_allclose(norms.rms_norm(x.astype(float), np.ones(d), eps=machine), theirs, rtol=1e-5)
    assert not np.allclose(norms.rms_norm(x.astype(float), np.ones(d), eps=1e-5), theirs, rtol=1e-3)


# ------------------------------------------- 8.4's note: rounding order in 16-bit floats


def test_llama_casts_back_before_the_weight_and_gemma_after_it():
    from transformers.models.gemma.modeling_gemma import GemmaRMSNorm
    from transformers.models.llama.modeling_llama import LlamaRMSNorm

    d, eps = 64, 1e-6
    g = torch.Generator().manual_seed(0)
    x = torch.randn(8, d, generator=g).to(torch.bfloat16)
    w = torch.randn(d, generator=g).to(torch.bfloat16)
    llama, gemma = LlamaRMSNorm(d, eps=eps).to(torch.bfloat16), GemmaRMSNorm(d, eps=eps).to(torch.bfloat16)
    with torch.no_grad():
        llama.weight.copy_(w)
        gemma.weight.copy_(w - 1)  # the same γ for both, stored as 1 + w for Gemma
        xf = x.float()
        normed = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)  # float32
        cast_first = w * normed.to(torch.bfloat16)  # round, then multiply in bfloat16
        weight_first = (normed * (1.0 + gemma.weight.float())).to(torch.bfloat16)  # multiply in float32, round once
        assert torch.equal(llama(x), cast_first) and llama(x).dtype == torch.bfloat16
        assert torch.equal(gemma(x), weight_first) and gemma(x).dtype == torch.bfloat16
        assert not torch.equal(cast_first, weight_first)  # the order shows in the last bits


# ------------------------------------------- 8.3's note: norms before and after each sub-layer


def test_gemma2_normalises_each_sublayers_output_as_well_as_its_input():
    from transformers import Gemma2Config
    from transformers.models.gemma2.modeling_gemma2 import Gemma2DecoderLayer
    from transformers.models.llama.modeling_llama import LlamaDecoderLayer
    from transformers import LlamaConfig

    small = dict(hidden_size=8, intermediate_size=16, num_attention_heads=2, num_key_value_heads=1, head_dim=4,
                 num_hidden_layers=1, vocab_size=16)
    gemma2 = Gemma2DecoderLayer(Gemma2Config(**small), 0)
    llama = LlamaDecoderLayer(LlamaConfig(**small), 0)

    def norm_names(layer):
        return sorted(n for n, m in layer.named_children() if "norm" in type(m).__name__.lower())

    assert norm_names(gemma2) == ["input_layernorm", "post_attention_layernorm", "post_feedforward_layernorm",
                                  "pre_feedforward_layernorm"]
    assert norm_names(llama) == ["input_layernorm", "post_attention_layernorm"]  # pre-norm: one per sub-layer
