"""Cross-check what chapter 9 says about the router against PyTorch and Hugging Face
`transformers`: which scores the task loss reaches through in-set and full-softmax gates
(section 9.3.1), the order of softmax, top-k and renormalisation in `MixtralTopKRouter`
(section 9.1.3), that `torch.topk` promises no order among ties (the key takeaways), and
that the auxiliary balancing loss reaches every router score (section 9.3.2)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from tokenpath import examples as ex
from tokenpath import moe

torch = pytest.importorskip(
    "torch", reason="torch not installed: install the 'crosscheck' extra to compare with PyTorch"
)
mixtral = pytest.importorskip(
    "transformers.models.mixtral.modeling_mixtral",
    reason="transformers not installed: install the 'crosscheck' extra to compare with Hugging Face",
)
from transformers import MixtralConfig  # noqa: E402


def _t(x, grad=False):
    return torch.tensor(np.asarray(x, dtype=np.float64), requires_grad=grad)


def _autograd(gate: str) -> np.ndarray:
    """Section 9.3.1's loss on figure 20's scores, k = 2, with autograd: softmax → topk → gates."""
    a = _t(ex.FIG20_SCORES, grad=True)
    p = torch.softmax(a, dim=-1)
    _, chosen = torch.topk(a, ex.FIG20_K)
    gates = torch.softmax(a[chosen], dim=-1) if gate == "in_set" else p[chosen]
    o = gates @ _t(ex.FIG20_WIDGET_OUTPUTS[:4])[chosen]
    (0.5 * ((o - _t(ex.FIG21_TARGET)) ** 2).sum()).backward()
    return a.grad.numpy()


def test_in_set_gates_leave_the_unchosen_scores_at_zero_and_full_softmax_gates_reach_them():
    f = ex.FIG20_WIDGET_OUTPUTS[:4]
    in_set, full = _autograd("in_set"), _autograd("full_softmax")
    np.testing.assert_array_equal(in_set[2:], [0.0, 0.0])
    assert np.all(np.abs(full[2:]) > 0.1)  # through the shared denominator
    np.testing.assert_allclose(moe.router_gradient(ex.FIG20_SCORES, f, ex.FIG21_TARGET, 2).grad, in_set,
                               rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(moe.router_gradient(ex.FIG20_SCORES, f, ex.FIG21_TARGET, 2,
                                                   gate="full_softmax").grad, full, rtol=1e-10, atol=1e-14)


def test_mixtral_router_takes_the_softmax_over_all_experts_then_renormalises_the_top_k():
    src = inspect.getsource(mixtral.MixtralTopKRouter.forward)
    assert src.index("softmax(") < src.index("topk(") < src.index("/= router_top_value.sum(")
    cfg = MixtralConfig(hidden_size=ex.MOE_D, num_local_experts=ex.MOE_N_EXPERTS, num_experts_per_tok=2)
    router = mixtral.MixtralTopKRouter(cfg).double()
    rng = np.random.default_rng(ex.MOE_SEED)
    tokens = rng.standard_normal((3, ex.MOE_D))
    w_router = rng.standard_normal((ex.MOE_D, ex.MOE_N_EXPERTS))
    with torch.no_grad():
        router.weight.copy_(_t(w_router.T))
        _, gates, chosen = router(_t(tokens))
    r = moe.route(tokens @ w_router, 2)  # section 9.1.3: softmax over S, the same numbers
    np.testing.assert_array_equal(r.chosen, chosen.numpy())
    np.testing.assert_allclose(r.chosen_gates, gates.numpy(), rtol=1e-6)  # HF's softmax runs in float32


def test_torch_topk_promises_no_order_among_tied_values():
    doc = " ".join(torch.topk.__doc__.split())
    assert "the indices of tied elements are not guaranteed to be stable" in doc


def test_hf_balancing_loss_sends_a_gradient_to_every_router_score_through_the_mean_probability():
    logits = _t([[0.5, -0.5], [1.0, -1.0], [0.2, 0.1]], grad=True)
    loss = mixtral.load_balancing_loss_func((logits,), 2, 1)
    loss.backward()
    grad = logits.grad.numpy()
    assert np.all(np.abs(grad) > 1e-3)  # every score, chosen or not
    # the counts come from topk and carry nothing: the same gradient with them held fixed
    held = _t(logits.detach().numpy(), grad=True)
    p = torch.softmax(held, dim=-1)
    share = torch.nn.functional.one_hot(torch.topk(p, 1).indices[:, 0], 2).double().mean(dim=0)
    (2 * (share * p.mean(dim=0)).sum()).backward()
    np.testing.assert_allclose(grad, held.grad.numpy(), rtol=1e-5, atol=1e-7)  # HF sums in float32
