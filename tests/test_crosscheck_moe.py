"""Cross-check tokenpath.moe against a plain PyTorch MoE: torch.topk for the choice,
torch's softmax for the gates, SiLU-gated experts, and autograd for the router
gradient (including the exactly-zero gradient of in-set top-1 routing)."""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import moe
from tokenpath import examples as ex
from tokenpath.lessons import moe as lessons_moe

torch = pytest.importorskip(
    "torch", reason="torch not installed: install the 'crosscheck' extra to compare with PyTorch"
)
F = torch.nn.functional

RTOL, ATOL = 1e-10, 1e-12


def _t(x, grad=False):
    return torch.tensor(np.asarray(x, dtype=np.float64), requires_grad=grad)


def torch_route(scores, k, gate):
    """[N, E] scores → (chosen [N, k], gates [N, E]) the way a PyTorch MoE writes it."""
    top, chosen = torch.topk(scores, k, dim=-1)
    if gate == "in_set":
        weights = torch.softmax(top, dim=-1)
    else:
        weights = torch.softmax(scores, dim=-1).gather(-1, chosen)
    gates = torch.zeros_like(scores).scatter(-1, chosen, weights)
    return chosen, gates


def torch_expert(x, e):
    return (F.silu(x @ _t(e.w_gate)) * (x @ _t(e.w_up))) @ _t(e.w_down)


def _scores(seed, n=6, e=5):
    return np.random.default_rng(seed).standard_normal((n, e))  # no ties, almost surely


@pytest.mark.parametrize("k", [1, 2, 3, 5])
@pytest.mark.parametrize("gate", moe.GATES)
def test_choice_and_gates_match_topk_and_softmax(k, gate):
    a = _scores(k)
    chosen, gates = torch_route(_t(a), k, gate)
    r = moe.route(a, k, gate=gate)
    np.testing.assert_array_equal(r.chosen, chosen.numpy())
    np.testing.assert_allclose(r.gates, gates.numpy(), rtol=RTOL, atol=ATOL)


def test_fig20_numbers_match_torch():
    chosen, gates = torch_route(_t(ex.FIG20_SCORES[None]), ex.FIG20_K, "in_set")
    out = gates[0, :2] @ _t(ex.FIG20_OUTPUTS)
    t = moe.combine(moe.route(ex.FIG20_SCORES, ex.FIG20_K), ex.FIG20_OUTPUTS)
    assert chosen[0].tolist() == [0, 1]
    np.testing.assert_allclose(t.output, out.numpy(), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("gate", moe.GATES)
def test_moe_layer_with_swiglu_experts_matches_torch(gate):
    experts = moe.make_experts(ex.MOE_N_EXPERTS, ex.MOE_D, ex.MOE_D_FF, seed=ex.MOE_SEED)
    rng = np.random.default_rng(11)
    x = rng.standard_normal((5, ex.MOE_D))
    w_r = rng.standard_normal((ex.MOE_D, ex.MOE_N_EXPERTS))
    xt = _t(x)
    _, gates = torch_route(xt @ _t(w_r), 2, gate)
    dense = torch.stack([torch_expert(xt, e) for e in experts], dim=1)  # [N, E, d], all experts
    want = (gates[..., None] * dense).sum(dim=1)  # unchosen experts have gate exactly 0
    ours = moe.moe_layer(x, w_r, experts, 2, gate=gate)
    np.testing.assert_allclose(ours.output, want.detach().numpy(), rtol=1e-10, atol=1e-12)


def _torch_grad(a, f, y, k, gate):
    at = _t(a[None], grad=True)
    _, gates = torch_route(at, k, gate)
    o = gates[0] @ _t(f)
    loss = 0.5 * ((o - _t(y)) ** 2).sum()
    loss.backward()
    return float(loss.detach()), at.grad[0].numpy()


@pytest.mark.parametrize("delta", [-1.2, -0.4, ex.FIG21_DELTA, 1.6])
def test_top1_in_set_router_gradient_is_zero_in_autograd_too(delta):
    b = lessons_moe.top1_boundary(delta, ex.FIG21_OUTPUTS, ex.FIG21_TARGET)
    loss, grad = _torch_grad(b.scores, ex.FIG21_OUTPUTS, ex.FIG21_TARGET, 1, "in_set")
    assert np.all(grad == 0.0)
    np.testing.assert_array_equal(b.in_set.grad, grad)
    np.testing.assert_allclose(b.in_set.loss, loss, rtol=RTOL)


@pytest.mark.parametrize("delta", [-1.2, -0.4, ex.FIG21_DELTA, 1.6])
def test_top1_full_softmax_router_gradient_matches_autograd(delta):
    b = lessons_moe.top1_boundary(delta, ex.FIG21_OUTPUTS, ex.FIG21_TARGET)
    loss, grad = _torch_grad(b.scores, ex.FIG21_OUTPUTS, ex.FIG21_TARGET, 1, "full_softmax")
    assert np.abs(grad).max() > 1e-3
    np.testing.assert_allclose(b.full.grad, grad, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(b.full.loss, loss, rtol=RTOL)


@pytest.mark.parametrize("gate", moe.GATES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_top2_router_gradient_matches_autograd(gate, seed):
    rng = np.random.default_rng(seed)
    a, f, y = rng.standard_normal(5), rng.standard_normal((5, 3)), rng.standard_normal(3)
    ours = moe.router_gradient(a, f, y, 2, gate=gate)
    loss, grad = _torch_grad(a, f, y, 2, gate)
    np.testing.assert_allclose(ours.grad, grad, rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(ours.loss, loss, rtol=RTOL)
    if gate == "in_set":
        assert np.all(grad[~ours.route.mask] == 0.0)
