"""The shared expert (:mod:`tokenpath.shared_expert`): Qwen2-MoE's sparse block,
routed experts plus a sigmoid-gated shared SwiGLU expert, equal to ``transformers``'
``Qwen2MoeSparseMoeBlock`` on random weights (with and without ``norm_topk_prob``),
its worked numbers recomputed by hand, and its input checks naming the argument."""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import moe
from tokenpath.norms import swiglu
from tokenpath.shared_expert import shared_expert_moe, shared_gate

D, E, FF, FS, K = 8, 4, 6, 10, 2


def weights(seed=0):
    rng = np.random.default_rng(seed)
    return dict(
        w_router=rng.standard_normal((D, E)), w_gate=rng.standard_normal((E, D, FF)) / 3,
        w_up=rng.standard_normal((E, D, FF)) / 3, w_down=rng.standard_normal((E, FF, D)) / 3, k=K,
        shared_gate_proj=rng.standard_normal((D, FS)) / 3, shared_up_proj=rng.standard_normal((D, FS)) / 3,
        shared_down_proj=rng.standard_normal((FS, D)) / 3, w_shared_gate=rng.standard_normal(D))


@pytest.mark.parametrize("norm", [True, False])
def test_by_hand(norm):
    w = weights()
    x = np.random.default_rng(1).standard_normal((5, D))
    t = shared_expert_moe(x, **w, norm_topk_prob=norm)
    for n in range(5):
        p = np.exp(x[n] @ w["w_router"])
        p /= p.sum()
        chosen = np.argsort(-p, kind="stable")[:K]
        g = p[chosen] / (p[chosen].sum() if norm else 1.0)
        r = sum(gi * swiglu(x[n], w["w_gate"][i], w["w_up"][i], w["w_down"][i]) for gi, i in zip(g, chosen))
        s = 1 / (1 + np.exp(-(x[n] @ w["w_shared_gate"])))
        h = swiglu(x[n], w["shared_gate_proj"], w["shared_up_proj"], w["shared_down_proj"])
        assert t.chosen[n].tolist() == chosen.tolist()
        np.testing.assert_allclose(t.probs[n], p, rtol=1e-12)
        np.testing.assert_allclose(t.gates[n], g, rtol=1e-12)
        np.testing.assert_allclose(t.shared_gate[n], s, rtol=1e-12)
        np.testing.assert_allclose(t.output[n], r + s * h, rtol=1e-12, atol=1e-14)
    assert np.allclose(t.gates.sum(-1), 1.0) == norm


def test_one_token_and_batch_shapes():
    w = weights()
    x = np.random.default_rng(2).standard_normal((2, 3, D))
    t = shared_expert_moe(x, **w)
    assert t.output.shape == (2, 3, D) and t.shared_gate.shape == (2, 3) and t.chosen.shape == (2, 3, K)
    one = shared_expert_moe(x[1, 2], **w)
    np.testing.assert_allclose(one.output, t.output[1, 2], rtol=1e-12)
    routed = moe.moe_experts(x, w["w_router"], w["w_gate"], w["w_up"], w["w_down"], K)
    np.testing.assert_array_equal(t.routed_output, routed.output)


@pytest.mark.parametrize("name, value, words", [
    ("w_shared_gate", np.zeros(D + 1), "w_shared_gate must be [d]"),
    ("w_shared_gate", np.zeros((D, 1)), "w_shared_gate"),
    ("shared_down_proj", np.zeros((FS, D + 1)), "shared_down_proj [d_s, d]"),
    ("shared_up_proj", np.zeros((D, FS + 1)), "shared_up_proj"),
    ("shared_gate_proj", [[np.nan] * FS] * D, "shared_gate_proj must be finite"),
    ("norm_topk_prob", 1, "norm_topk_prob must be True or False"),
    ("k", E + 1, "k must be between 1"),
    ("w_router", np.zeros((D, E + 1)), "E_n = 5"),
])
def test_input_checks_name_the_argument(name, value, words):
    w = weights()
    kw = {}
    if name == "norm_topk_prob":
        kw[name] = value
    else:
        w[name] = value
    with pytest.raises((TypeError, ValueError)) as err:
        shared_expert_moe(np.ones(D), **w, **kw)
    assert words in str(err.value)


def test_shared_gate_is_a_sigmoid():
    logit, s = shared_gate([[2.0, 0.0], [-50.0, 0.0]], [1.0, 3.0])
    assert logit.tolist() == [2.0, -50.0]
    np.testing.assert_allclose(s, [1 / (1 + np.exp(-2.0)), 1 / (1 + np.exp(50.0))], rtol=1e-15)


@pytest.mark.torch
@pytest.mark.parametrize("norm", [True, False])
def test_equals_transformers_sparse_block(norm):
    torch = pytest.importorskip("torch", reason="needs the crosscheck extra (torch)")
    transformers = pytest.importorskip("transformers", reason="needs the crosscheck extra (transformers)")
    from transformers.models.qwen2_moe.modeling_qwen2_moe import Qwen2MoeSparseMoeBlock

    cfg = transformers.Qwen2MoeConfig(hidden_size=D, num_experts=E, num_experts_per_tok=K, moe_intermediate_size=FF,
                                      shared_expert_intermediate_size=FS, norm_topk_prob=norm)
    block = Qwen2MoeSparseMoeBlock(cfg).double().eval()
    w = weights(3)
    with torch.no_grad():
        block.gate.weight.copy_(torch.from_numpy(w["w_router"].T))
        block.experts.gate_up_proj.copy_(torch.from_numpy(
            np.concatenate([w["w_gate"], w["w_up"]], axis=2).transpose(0, 2, 1)))
        block.experts.down_proj.copy_(torch.from_numpy(w["w_down"].transpose(0, 2, 1)))
        block.shared_expert.gate_proj.weight.copy_(torch.from_numpy(w["shared_gate_proj"].T))
        block.shared_expert.up_proj.weight.copy_(torch.from_numpy(w["shared_up_proj"].T))
        block.shared_expert.down_proj.weight.copy_(torch.from_numpy(w["shared_down_proj"].T))
        block.shared_expert_gate.weight.copy_(torch.from_numpy(w["w_shared_gate"][None]))
        x = np.random.default_rng(4).standard_normal((2, 7, D))
        want = block(torch.from_numpy(x)).numpy()
    got = shared_expert_moe(x, **w, norm_topk_prob=norm).output
    # transformers takes the router's softmax in float32 even in a float64 block
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_a_qwen2_moe_folder_the_engine_writes_reads_back_with_its_shared_expert(tmp_path):
    from tokenpath import model as M

    config = M.Qwen2MoeConfig(40, 8, 16, 2, 2, 1, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=4,
                              shared_expert_intermediate_size=6, norm_topk_prob=True)
    m = M.random_model(config, seed=3)
    assert M.LlamaConfig.from_dict(config.to_dict()) == config
    assert M.count_parameters(config).total == m.parameter_count
    again = M.load(M.save(tmp_path / "q", m))
    assert type(again.config) is M.Qwen2MoeConfig and again.config.norm_topk_prob
    roles = {name: role for name, _, _, role in again.tensor_table()}
    assert "shared expert" in roles["model.layers.1.mlp.shared_expert.up_proj.weight"]
    ids = [1, 7, 7, 30, 2]
    np.testing.assert_array_equal(again.logits(ids), m.logits(ids))
    layer = again.forward(ids).layers[0]
    w = again.layer_weights(0)
    want = shared_expert_moe(layer.ffn_in[0], w.w_router, w.w_gate, w.w_up, w.w_down, 2, w.shared_gate,
                             w.shared_up, w.shared_down, w.shared_expert_gate, norm_topk_prob=True)
    np.testing.assert_allclose(layer.ffn_out[0], want.output, rtol=1e-5, atol=1e-6)
    assert np.allclose(layer.expert_gates.sum(-1), 1.0)
    active = M.count_parameters(config)
    assert active.mlp - active.active_mlp == 2 * 3 * 8 * 4  # two of four routed experts idle; the shared one runs


def test_layer_weights_take_a_shared_expert_only_whole_and_beside_a_router():
    import dataclasses

    from tokenpath.decoder import decoder_layer, random_layer

    moe_layer = random_layer(8, 2, 6, seed=0, experts=4, top_k=2)
    rng = np.random.default_rng(0)
    shared = dict(shared_gate=rng.standard_normal((8, 5)), shared_up=rng.standard_normal((8, 5)),
                  shared_down=rng.standard_normal((5, 8)), shared_expert_gate=rng.standard_normal(8))
    w = dataclasses.replace(moe_layer, **shared, norm_topk_prob=False)
    t = decoder_layer(np.ones((1, 3, 8)), w)
    assert t.shared is not None and t.shapes()["shared_gate"] == (1, 3)
    assert not np.allclose(t.expert_gates.sum(-1), 1.0)  # kept as probabilities
    for bad, words in ((dict(shared_gate=shared["shared_gate"]), "shared_up must be given"),
                       ({**shared, "shared_down": np.zeros((5, 7))}, "shared_down must have shape [5, 8]"),
                       ({**shared, "shared_expert_gate": np.zeros((1, 8))}, "shared_expert_gate must have 1 axes"),
                       (dict(norm_topk_prob="yes"), "norm_topk_prob must be True or False")):
        with pytest.raises((TypeError, ValueError)) as err:
            dataclasses.replace(moe_layer, **bad)
        assert words in str(err.value)
    dense = random_layer(8, 2, 6, seed=0)
    with pytest.raises(ValueError, match="needs w_router"):
        dataclasses.replace(dense, **shared)
    with pytest.raises(ValueError, match="norm_topk_prob=False needs w_router"):
        dataclasses.replace(dense, norm_topk_prob=False)
