"""Cross-check the engine's RoPE against Hugging Face Llama's.

A tiny ``LlamaConfig`` is built locally (nothing is downloaded); ``LlamaRotaryEmbedding``
gives cos/sin for every position up to the config's ``max_position_embeddings`` and
``apply_rotary_pos_emb`` turns re-randomised queries and keys with them. The engine's
rotate-half RoPE, with the base read from the same config, must agree. Llama computes
its frequencies and angles in float32, hence the tolerance.

ALiBi is checked against BLOOM's two ways of building its bias (``build_alibi_tensor``
when the model gets an attention mask, ``_get_alibi_slopes(heads)[:, None] · arange(T)``
inline when it does not), which add ``slope · j`` for key ``j`` instead of
``−slope · (i − j)``: the two differ by ``slope · i`` along each
query row, which softmax ignores, so slopes and weights must agree.
"""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import position as P

transformers = pytest.importorskip(
    "transformers", reason="transformers not installed: install the 'crosscheck' extra"
)
torch = pytest.importorskip("torch", reason="torch not installed: install the 'crosscheck' extra")
llama = pytest.importorskip("transformers.models.llama.modeling_llama")

#: Agreement expected from float32 angles (Llama) against float64 (engine) for
#: positions below 32 and entries of size about 1.
ATOL = 2e-5


def rope_theta(config) -> float:
    """The RoPE base of a config: ``rope_parameters["rope_theta"]`` in transformers 5,
    ``rope_theta`` in earlier versions."""
    params = getattr(config, "rope_parameters", None) or {}
    if "rope_theta" in params:
        return float(params["rope_theta"])
    return float(config.rope_theta)


@pytest.fixture(scope="module")
def config():
    kwargs = dict(
        hidden_size=64, num_attention_heads=4, num_key_value_heads=2, intermediate_size=128,
        num_hidden_layers=1, vocab_size=16, max_position_embeddings=32,
    )
    try:  # transformers 5
        return transformers.LlamaConfig(**kwargs, rope_parameters={"rope_type": "default", "rope_theta": 500000.0})
    except TypeError:  # earlier versions
        return transformers.LlamaConfig(**kwargs, rope_theta=500000.0)


def head_dim(config) -> int:
    return getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads


def test_base_is_read_from_the_config_not_assumed(config):
    assert rope_theta(config) == 500000.0 != 10000.0


def test_llama_inverse_frequencies_are_the_engines_theta(config):
    rotary = llama.LlamaRotaryEmbedding(config)
    ours = P.rope_frequencies(head_dim(config), rope_theta(config))
    np.testing.assert_allclose(rotary.inv_freq.double().numpy(), ours, rtol=1e-6)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rotate_half_rope_equals_llama_apply_rotary_pos_emb_at_every_position(config, seed):
    rng = np.random.default_rng(seed)
    t, d = config.max_position_embeddings, head_dim(config)
    q = rng.standard_normal((2, config.num_attention_heads, t, d))
    k = rng.standard_normal((2, config.num_key_value_heads, t, d))
    positions = np.arange(t)
    rotary = llama.LlamaRotaryEmbedding(config)
    qt, kt = torch.from_numpy(q), torch.from_numpy(k)
    cos, sin = rotary(qt, torch.from_numpy(np.tile(positions, (2, 1))))
    q_hf, k_hf = llama.apply_rotary_pos_emb(qt, kt, cos, sin)
    base = rope_theta(config)
    np.testing.assert_allclose(P.rope(q, positions, base=base, pairing="rotate_half"), q_hf.numpy(), atol=ATOL)
    np.testing.assert_allclose(P.rope(k, positions, base=base, pairing="rotate_half"), k_hf.numpy(), atol=ATOL)


def test_adjacent_pairing_matches_llama_only_after_the_permutation(config):
    rng = np.random.default_rng(3)
    t, d = config.max_position_embeddings, head_dim(config)
    x = rng.standard_normal((1, 1, t, d))
    rotary = llama.LlamaRotaryEmbedding(config)
    xt = torch.from_numpy(x)
    cos, sin = rotary(xt, torch.arange(t)[None, :])
    hf, _ = llama.apply_rotary_pos_emb(xt, xt, cos, sin)
    order = P.rotate_half_order(d)
    adjacent = P.rope(x[..., np.argsort(order)], np.arange(t), base=rope_theta(config), pairing="adjacent")
    np.testing.assert_allclose(adjacent[..., order], hf.numpy(), atol=ATOL)
    assert not np.allclose(P.rope(x, np.arange(t), base=rope_theta(config), pairing="adjacent"), hf.numpy(), atol=0.1)


# --------------------------------------------------------------------------- ALiBi

bloom = pytest.importorskip("transformers.models.bloom.modeling_bloom")


@pytest.mark.parametrize("heads", [1, 2, 4, 8, 16])
def test_alibi_slopes_match_bloom(heads):
    mask = torch.ones(1, 3)
    theirs = bloom.build_alibi_tensor(mask, heads, torch.float64).reshape(heads, 3)[:, 1]  # slope · (j = 1)
    np.testing.assert_allclose(P.alibi_slopes(heads), theirs.numpy(), rtol=1e-6)


def test_alibi_weights_match_bloom_key_bias_under_the_causal_mask():
    from tokenpath import examples as ex

    heads, t = ex.ALIBI_HEADS, ex.FIG8_Q.shape[0]
    key_bias = bloom.build_alibi_tensor(torch.ones(1, t), heads, torch.float64).reshape(heads, 1, t)
    for h, slope in enumerate(P.alibi_slopes(heads)):
        ours = P.alibi(ex.FIG8_Q, ex.FIG8_K, ex.FIG8_U, slope)
        scores = torch.tensor(ours.plain.scores) + key_bias[h]
        scores = scores.masked_fill(~torch.tensor(ours.plain.mask), float("-inf"))
        np.testing.assert_allclose(ours.biased.weights, scores.softmax(dim=-1).numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("heads", [1, 2, 4, 8, 16])
def test_bloom_without_a_mask_builds_the_same_key_bias_inline(heads):
    # BloomModel.forward without an attention mask: slopes[:, None, None] * arange(kv_length)
    t = 5
    inline = bloom._get_alibi_slopes(heads, torch.device("cpu"))[:, None] * torch.arange(t)
    masked = bloom.build_alibi_tensor(torch.ones(1, t), heads, torch.float64).reshape(heads, t)
    np.testing.assert_allclose(inline.double().numpy(), masked.numpy(), rtol=1e-6)
    np.testing.assert_allclose(inline[:, 1].double().numpy(), P.alibi_slopes(heads), rtol=1e-6)
