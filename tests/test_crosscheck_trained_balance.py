"""Cross-check what chapter 11 says about the load-balancing term its model was trained
with: Hugging Face's Mixtral loss is the Switch Transformer's, E · Σ_e f_e · P_e, with
f_e the share of top-k choices expert e received and P_e its mean router probability,
and it pools the routers of all layers before taking the product, so layers that are
uneven in opposite directions can cancel."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="torch not installed: install the 'crosscheck' extra to compare with PyTorch"
)
mixtral = pytest.importorskip(
    "transformers.models.mixtral.modeling_mixtral",
    reason="transformers not installed: install the 'crosscheck' extra to compare with Hugging Face",
)


def switch_loss(logits: np.ndarray, k: int) -> float:
    """E · Σ_e f_e · P_e over the rows of ``logits`` [N, E] (Fedus et al., eq. 4–6, top-k counts)."""
    e = logits.shape[1]
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    chosen = np.argsort(-p, axis=1, kind="stable")[:, :k]
    f = np.bincount(chosen.ravel(), minlength=e) / len(logits)
    return float(e * (f * p.mean(axis=0)).sum())


def hf_loss(layers: list[np.ndarray], k: int) -> float:
    gate_logits = tuple(torch.tensor(x, dtype=torch.float32) for x in layers)
    return float(mixtral.load_balancing_loss_func(gate_logits, layers[0].shape[1], k))


def test_hf_mixtral_balance_loss_is_the_switch_loss_of_one_layer():
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((32, 4)) * 2
    assert hf_loss([logits], 2) == pytest.approx(switch_loss(logits, 2), rel=1e-5)


def test_hf_mixtral_balance_loss_pools_all_layers_before_the_product():
    rng = np.random.default_rng(1)
    first = rng.standard_normal((32, 4))
    first[:, 0] += 4.0  # layer 0 prefers expert 0 …
    second = rng.standard_normal((32, 4))
    second[:, 3] += 4.0  # … layer 1 expert 3
    pooled = switch_loss(np.concatenate([first, second]), 2)
    per_layer_mean = (switch_loss(first, 2) + switch_loss(second, 2)) / 2
    assert hf_loss([first, second], 2) == pytest.approx(pooled, rel=1e-5)
    assert pooled < per_layer_mean - 0.1, "the two layers' opposite skews should partly cancel when pooled"


def test_the_pooled_shares_the_chapter_reports_are_the_counts_hf_balances():
    """Chapter 11 reads the committed model's load the way HF's loss does: the choices of
    all layers counted together per expert index (``tokenpath._evidence.pooled_balance``)."""
    from tokenpath._evidence import pooled_balance

    rng = np.random.default_rng(2)
    layers = [rng.standard_normal((40, 4)) + np.array([3.0, 0, 0, 0]), rng.standard_normal((40, 4))]
    k, e = 2, 4
    load, probs = [], []
    for x in layers:
        p = np.exp(x - x.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        load.append(np.bincount(np.argsort(-p, axis=1, kind="stable")[:, :k].ravel(), minlength=e))
        probs.append(p)
    pooled = np.array(pooled_balance(load, k)["pooled"])
    p_mean = np.concatenate(probs).mean(axis=0)
    assert hf_loss(layers, k) == pytest.approx(e * (k * pooled * p_mean).sum(), rel=1e-3)  # shares kept to 4 places
    per_layer = np.array(pooled_balance(load, k)["per_layer"])
    per_layer_loss = np.mean([e * (k * f * p.mean(axis=0)).sum() for f, p in zip(per_layer, probs)])
    assert hf_loss(layers, k) != pytest.approx(per_layer_loss, rel=1e-3)
