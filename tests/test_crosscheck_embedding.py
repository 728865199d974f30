"""Chapter 3 against PyTorch and Hugging Face Llama: lookup (nn.Embedding), the tied
head, F.cross_entropy and its autograd gradient, and one decoder layer
(LlamaDecoderLayer from a tiny local config, weights copied in). Nothing is downloaded.
"""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import packing as PK
from tokenpath.lessons import embedding as LE
from tokenpath import sampling
from tokenpath import decoder as dec
from tokenpath import embedding as em
from tokenpath import examples as ex

torch = pytest.importorskip("torch", reason="needs the crosscheck extra (make test EXTRAS=dev,crosscheck)")

E = LE.teaching_embedding()
S = LE.batch_ids()


def _t(a):
    return torch.tensor(np.asarray(a), dtype=torch.float64)


def _embedding_module():
    emb = torch.nn.Embedding(ex.V, ex.D_MODEL, dtype=torch.float64)
    with torch.no_grad():
        emb.weight.copy_(_t(E))
    return emb


def test_lookup_matches_nn_embedding():
    out = _embedding_module()(torch.tensor(S)).detach().numpy()
    np.testing.assert_array_equal(out, em.lookup(E, S))


def test_nn_embedding_also_rejects_an_out_of_range_id():
    with pytest.raises(IndexError):
        _embedding_module()(torch.tensor([ex.V]))
    with pytest.raises(ValueError, match="ids must be row numbers"):
        em.lookup(E, [ex.V])


def test_tied_head_matches_a_linear_layer_sharing_the_embedding_weight():
    emb = _embedding_module()
    head = torch.nn.Linear(ex.D_MODEL, ex.V, bias=False, dtype=torch.float64)
    head.weight = emb.weight  # tying, as Hugging Face's tie_word_embeddings does
    h = np.random.default_rng(0).normal(size=(2, 4, ex.D_MODEL))
    np.testing.assert_allclose(head(_t(h)).detach().numpy(), em.logits(h, em.tied_head(E)), rtol=1e-12, atol=1e-12)


def test_cross_entropy_matches_f_cross_entropy_with_ignore_index():
    z = np.random.default_rng(1).normal(size=(2, 4, 11))
    y = PK.shift_targets(S, eos=ex.EOS)
    mask = np.array([[1, 1, 1, 1], [1, 1, 0, 0]])
    ours = sampling.cross_entropy(z, y, mask)
    yt = torch.tensor(np.where(mask == 1, y, -100))
    zt = _t(z).requires_grad_(True)
    loss = torch.nn.functional.cross_entropy(zt.reshape(-1, 11), yt.reshape(-1), ignore_index=-100)
    loss.backward()
    assert ours.loss == pytest.approx(loss.item(), rel=1e-12)
    np.testing.assert_allclose(ours.d_logits, zt.grad.numpy(), rtol=1e-10, atol=1e-14)


def test_tied_gradient_matches_autograd_and_autograd_splits_the_same_way():
    x = torch.tensor(ex.encode_chars(ex.TEXT))
    y = torch.tensor(PK.shift_targets(ex.encode_chars(ex.TEXT), eos=ex.EOS))
    ours = LE.tied_gradient()

    # the whole gradient of the tied matrix
    e = _t(E).requires_grad_(True)
    loss = torch.nn.functional.cross_entropy(e[x] @ e.T, y)
    loss.backward()
    assert ours.loss.loss == pytest.approx(loss.item(), rel=1e-12)
    np.testing.assert_allclose(ours.grad, e.grad.numpy(), rtol=1e-10, atol=1e-15)

    # the two paths, by giving each use of E its own leaf with the same values
    e_in, e_out = _t(E).requires_grad_(True), _t(E).requires_grad_(True)
    torch.nn.functional.cross_entropy(e_in[x] @ e_out.T, y).backward()
    np.testing.assert_allclose(ours.grad_input, e_in.grad.numpy(), rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(ours.grad_output, e_out.grad.numpy(), rtol=1e-10, atol=1e-15)
    assert np.flatnonzero(e_in.grad.abs().sum(-1).numpy()).tolist() == [2, 3, 7]


def _torch_layer(w: dec.LayerWeights, x, positions):
    """The same layer as a plain torch composition (rotate_half RoPE, causal SDPA)."""
    def rms(h, g):
        return g * h / torch.sqrt((h * h).mean(-1, keepdim=True) + w.eps)

    def heads(h):
        b, t, _ = h.shape
        return h.view(b, t, w.heads, w.d_h).transpose(1, 2)

    def rot(h):
        inv = w.rope_base ** (-torch.arange(0, w.d_h, 2, dtype=torch.float64) / w.d_h)
        ang = torch.tensor(positions, dtype=torch.float64)[:, None] * inv[None, :]
        cos, sin = torch.cat([ang.cos()] * 2, -1), torch.cat([ang.sin()] * 2, -1)
        a, b = h[..., : w.d_h // 2], h[..., w.d_h // 2:]
        return h * cos + torch.cat([-b, a], -1) * sin

    p = {k: _t(getattr(w, k)) for k in w.shapes()}
    h = rms(x, p["attn_norm"])
    q, k, v = rot(heads(h @ p["w_q"])), rot(heads(h @ p["w_k"])), heads(h @ p["w_v"])
    o = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    y = x + o.transpose(1, 2).reshape(x.shape[0], x.shape[1], -1) @ p["w_o"]
    g = rms(y, p["ffn_norm"])
    return y + (torch.nn.functional.silu(g @ p["w_gate"]) * (g @ p["w_up"])) @ p["w_down"]


def _run_hf_layer(layer, rotary, x):
    """A Hugging Face decoder layer on ``x [B, T, d]`` with a causal mask and the RoPE of
    ``rotary`` at positions 0 … T−1, as a float64 tensor."""
    b, t = x.shape[:2]
    pos = torch.arange(t)[None].expand(b, t)
    cos, sin = rotary(_t(x), pos)
    causal = torch.full((t, t), float("-inf"), dtype=torch.float64).triu(1)[None, None].expand(b, 1, t, t)
    with torch.no_grad():
        out = layer(_t(x), attention_mask=causal, position_ids=pos, position_embeddings=(cos, sin))
    return out[0] if isinstance(out, tuple) else out


def test_decoder_layer_matches_a_plain_torch_composition():
    w = LE.teaching_layer()
    x = em.lookup(E, S)
    ours = dec.decoder_layer(x, w)
    theirs = _torch_layer(w, _t(x), np.arange(ex.T))
    np.testing.assert_allclose(ours.out, theirs.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("d, heads, kv, d_h, d_ff, t, base, eps", [
    (ex.D_MODEL, ex.H, ex.H, ex.D_HEAD, ex.D_FF, ex.T, ex.ROPE_BASE, ex.NORM_EPS),
    (12, 3, 3, 6, 20, 5, 500000.0, 1e-6),
    (12, 4, 2, 4, 20, 5, 1000.0, 1e-6),  # grouped-query: two query heads per K/V head
])
def test_decoder_layer_matches_hf_llama_decoder_layer(d, heads, kv, d_h, d_ff, t, base, eps):
    tf = pytest.importorskip("transformers", reason="needs transformers (crosscheck extra)")
    from transformers.models.llama import modeling_llama as ml

    w = dec.random_layer(d, heads, d_ff, d_h=d_h, seed=7, rope_base=base, eps=eps, kv_heads=kv)
    config = tf.LlamaConfig(
        hidden_size=d, intermediate_size=d_ff, num_attention_heads=heads, num_key_value_heads=kv,
        head_dim=d_h, rms_norm_eps=eps, rope_parameters={"rope_type": "default", "rope_theta": base},
        attention_bias=False, mlp_bias=False, vocab_size=16, num_hidden_layers=1,
    )
    config._attn_implementation = "sdpa"  # float64 throughout (eager softmaxes in float32)
    layer = ml.LlamaDecoderLayer(config, layer_idx=0).to(torch.float64).eval()
    with torch.no_grad():  # HF Linear weights are [out, in]: the transpose of ours
        layer.input_layernorm.weight.copy_(_t(w.attn_norm))
        layer.post_attention_layernorm.weight.copy_(_t(w.ffn_norm))
        for name, ours in (("q_proj", w.w_q), ("k_proj", w.w_k), ("v_proj", w.w_v), ("o_proj", w.w_o)):
            getattr(layer.self_attn, name).weight.copy_(_t(ours.T))
        for name, ours in (("gate_proj", w.w_gate), ("up_proj", w.w_up), ("down_proj", w.w_down)):
            getattr(layer.mlp, name).weight.copy_(_t(ours.T))
    x = np.random.default_rng(3).normal(size=(2, t, d))
    theirs = _run_hf_layer(layer, ml.LlamaRotaryEmbedding(config), x)
    ours = dec.decoder_layer(x, w)
    # Hugging Face computes RMSNorm and the RoPE angles in float32 whatever the input
    # dtype, so agreement is to float32 precision, not float64
    np.testing.assert_allclose(ours.out, theirs.numpy(), rtol=1e-5, atol=1e-6)
    assert np.abs(ours.out - theirs.numpy()).max() < 1e-5 * np.abs(ours.out).max()


def test_expert_decoder_layer_matches_hf_mixtral_decoder_layer():
    tf = pytest.importorskip("transformers", reason="needs transformers (crosscheck extra)")
    from transformers.models.mixtral import modeling_mixtral as mm

    d, heads, kv, d_ff, t, n_exp, k = 12, 4, 2, 10, 5, 4, 2
    w = dec.random_layer(d, heads, d_ff, d_h=4, seed=8, rope_base=1000.0, eps=1e-6, kv_heads=kv, experts=n_exp, top_k=k)
    config = tf.MixtralConfig(
        hidden_size=d, intermediate_size=d_ff, num_attention_heads=heads, num_key_value_heads=kv, head_dim=w.d_h,
        rms_norm_eps=1e-6, rope_parameters={"rope_type": "default", "rope_theta": 1000.0}, vocab_size=16,
        num_hidden_layers=1, num_local_experts=n_exp, num_experts_per_tok=k,
    )
    config._attn_implementation = "sdpa"
    layer = mm.MixtralDecoderLayer(config, layer_idx=0).to(torch.float64).eval()
    with torch.no_grad():
        layer.input_layernorm.weight.copy_(_t(w.attn_norm))
        layer.post_attention_layernorm.weight.copy_(_t(w.ffn_norm))
        for name, ours in (("q_proj", w.w_q), ("k_proj", w.w_k), ("v_proj", w.w_v), ("o_proj", w.w_o)):
            getattr(layer.self_attn, name).weight.copy_(_t(ours.T))
        layer.mlp.gate.weight.copy_(_t(w.w_router.T))  # [E, d]
        gate_up = np.concatenate([np.swapaxes(w.w_gate, 1, 2), np.swapaxes(w.w_up, 1, 2)], axis=1)
        layer.mlp.experts.gate_up_proj.copy_(_t(gate_up))  # [E, 2·d_ff, d], gate rows first
        layer.mlp.experts.down_proj.copy_(_t(np.swapaxes(w.w_down, 1, 2)))  # [E, d, d_ff]
    x = np.random.default_rng(4).normal(size=(2, t, d))
    theirs = _run_hf_layer(layer, mm.MixtralRotaryEmbedding(config), x)
    ours = dec.decoder_layer(x, w)
    # the router's softmax and gates run in float32 in transformers, whatever the dtype
    np.testing.assert_allclose(ours.out, theirs.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("vocab, d, d_ff, layers, tied", [
    (ex.SCALE_VOCAB, ex.SCALE_D, ex.SCALE_D_FF, ex.SCALE_LAYERS, False),  # section 3.2's real scale
    (ex.V, ex.D_MODEL, ex.D_FF, 1, True),  # the toy model, tied head
])
def test_parameter_count_matches_hf_llama_for_causal_lm(vocab, d, d_ff, layers, tied):
    """Section 3.2's real-scale counts equal the numbers a LlamaForCausalLM of the same
    shapes stores. Built on the meta device: shapes only, no memory, nothing downloaded."""
    tf = pytest.importorskip("transformers", reason="needs transformers (crosscheck extra)")
    config = tf.LlamaConfig(vocab_size=vocab, hidden_size=d, intermediate_size=d_ff, num_hidden_layers=layers,
                            num_attention_heads=d // 128 if d >= 128 else ex.H, tie_word_embeddings=tied,
                            attention_bias=False, mlp_bias=False)
    config.num_key_value_heads = config.num_attention_heads  # multi-head attention, as chapter 3 counts it
    with torch.device("meta"):
        model = tf.LlamaForCausalLM(config)
    ours = em.parameter_count(vocab, d, d_ff, layers, tied=tied)
    assert sum(p.numel() for p in model.parameters()) == ours.total  # a tied head is one shared tensor
    assert model.model.embed_tokens.weight.numel() == ours.embedding
    assert sum(p.numel() for p in model.model.layers[0].parameters()) == ours.layer
    assert model.model.norm.weight.numel() == ours.final_norm
    assert (model.lm_head.weight is model.model.embed_tokens.weight) == tied
