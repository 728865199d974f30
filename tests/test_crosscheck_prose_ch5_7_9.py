"""What chapters 5, 7 and 9 say about PyTorch and Hugging Face, checked against them:
a query row that sees no key (section 5.2), when Hugging Face passes ``enable_gqa`` and what it and ``repeat_kv`` do
with the shared heads (section 7.2), and which experts Adam and AdamW move when no
token chose them (section 9.4).

torch and transformers are optional extras (`pip install -e '.[crosscheck]'`); without
them these tests are skipped with a visible reason. CI installs them.
"""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import attention as A

torch = pytest.importorskip(
    "torch", reason="torch not installed: install the 'crosscheck' extra to compare with PyTorch"
)
F = torch.nn.functional

pytestmark = pytest.mark.torch


def _qkv(seed, h_q=1, h_kv=1, t=3, d_h=2):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(1, h_q, t, d_h, generator=g, dtype=torch.float64)
    k = torch.randn(1, h_kv, t, d_h, generator=g, dtype=torch.float64)
    v = torch.randn(1, h_kv, t, d_h, generator=g, dtype=torch.float64) + 5.0  # no zero row by chance
    return q, k, v


# ---------------------------------------------------------------- 5.2: a row with no key

#: Query row 0 sees nothing (left padding without its diagonal); rows 1 and 2 see keys.
EMPTY_ROW0 = [[False, False, False], [False, True, False], [False, True, True]]


def test_sdpa_returns_a_zero_row_for_a_query_that_sees_no_key_where_softmax_gives_nan():
    q, k, v = _qkv(0)
    mask = torch.tensor(EMPTY_ROW0)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)[0, 0]
    additive = torch.zeros(3, 3, dtype=torch.float64).masked_fill(~mask, float("-inf"))
    out_additive = F.scaled_dot_product_attention(q, k, v, attn_mask=additive)[0, 0]
    plain = ((q @ k.transpose(-2, -1)) / 2 ** 0.5).masked_fill(~mask, float("-inf")).softmax(dim=-1)[0, 0]
    assert torch.equal(out[0], torch.zeros(2, dtype=torch.float64))
    assert torch.equal(out_additive[0], torch.zeros(2, dtype=torch.float64))
    assert torch.isnan(plain[0]).all() and not torch.isnan(plain[1:]).any()
    assert (out[1:].abs() > 1).all()  # the rows that see keys are real mixtures of values near 5


def test_the_engine_refuses_the_row_that_sdpa_turns_into_zeros():
    q, k, v = (x[0, 0].numpy() for x in _qkv(0))
    with pytest.raises(ValueError, match="row 0"):
        A.attention(q, k, v, mask=np.array(EMPTY_ROW0))


# ---------------------------------------------------------------- 6.2: enable_gqa and repeat_kv


def test_sdpa_documents_enable_gqa_as_repeat_interleave_and_experimental_on_cuda_kernels():
    doc = " ".join(F.scaled_dot_product_attention.__doc__.split())
    assert "if enable_gqa: key = key.repeat_interleave(query.size(-3)//key.size(-3), -3)" in doc
    assert "value = value.repeat_interleave(query.size(-3)//value.size(-3), -3)" in doc
    assert ("Grouped Query Attention (GQA) is an experimental feature. It currently works only for "
            "Flash_attention and math kernel on CUDA tensor") in doc


def test_enable_gqa_gives_what_attention_over_repeated_heads_gives():
    q, k, v = _qkv(1, h_q=8, h_kv=2, t=4)
    grouped = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    repeated = F.scaled_dot_product_attention(q, k.repeat_interleave(4, -3), v.repeat_interleave(4, -3),
                                              is_causal=True)
    assert torch.allclose(grouped, repeated, rtol=1e-12, atol=1e-12)
    assert not torch.allclose(grouped[:, 0], grouped[:, 1])  # heads sharing K/V still read differently


def test_hf_sdpa_path_passes_enable_gqa_only_when_it_can_and_repeats_the_heads_otherwise():
    pytest.importorskip("transformers", reason="transformers not installed: install the 'crosscheck' extra")
    import os

    from transformers.integrations import sdpa_attention as S

    if os.environ.get("TRANSFORMERS_SDPA_FORCE_GQA") == "1" or S._is_torch_xpu_available or S._is_torch_mps_available:
        pytest.skip("this check reads the CPU/CUDA rule of use_gqa_in_sdpa")
    q, k, v = _qkv(2, h_q=8, h_kv=2, t=4)
    assert S.use_gqa_in_sdpa(None, k, v)  # no mask, head width <= 256: PyTorch does the grouping
    mask = torch.ones(1, 1, 4, 4, dtype=torch.bool).tril()
    assert not S.use_gqa_in_sdpa(mask, k, v)  # with a mask the heads are repeated first

    class _Module(torch.nn.Module):
        is_causal, num_key_value_groups = True, 4

    out, _ = S.sdpa_attention_forward(_Module(), q, k, v, mask, dropout=0.0, scaling=None)
    ref = F.scaled_dot_product_attention(q, k.repeat_interleave(4, -3), v.repeat_interleave(4, -3), attn_mask=mask)
    assert torch.allclose(out, ref.transpose(1, 2), rtol=1e-12, atol=1e-12)


def test_hf_repeat_kv_builds_a_new_tensor_not_a_view_of_the_cache():
    pytest.importorskip("transformers", reason="transformers not installed: install the 'crosscheck' extra")
    from transformers.models.llama.modeling_llama import repeat_kv

    _, k, _ = _qkv(2, h_kv=2)
    r = repeat_kv(k, 4)
    assert r.shape == (1, 8, 3, 2)
    assert [int(torch.equal(r[0, h], k[0, h // 4])) for h in range(8)] == [1] * 8
    assert r.untyped_storage().data_ptr() != k.untyped_storage().data_ptr()
    assert r.untyped_storage().nbytes() == 4 * k.untyped_storage().nbytes()


# ---------------------------------------------------------------- 8.4: experts no token chose


def _two_steps(opt_class, stacked: bool, **kw):
    """Two optimiser steps: in the first both experts run, in the second only expert 0.
    Returns expert 1's weights before and after the second step, and its gradient then."""
    torch.manual_seed(0)
    if stacked:
        w = torch.nn.Parameter(torch.randn(2, 3, dtype=torch.float64))
        params, expert = [w], (lambda e: w[e])
    else:
        ws = [torch.nn.Parameter(torch.randn(3, dtype=torch.float64)) for _ in range(2)]
        params, expert = ws, (lambda e: ws[e])
    opt = opt_class(params, lr=0.1, **kw)
    x = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)
    for chosen in ((0, 1), (0,)):
        opt.zero_grad()
        sum((expert(e) * x).sum() ** 2 for e in chosen).backward()
        if chosen == (0,):
            before = expert(1).detach().clone()
            grad = params[0].grad[1] if stacked else params[1].grad
        opt.step()
    return before, expert(1).detach().clone(), grad


@pytest.mark.parametrize("opt_class, kw", [(torch.optim.Adam, {}), (torch.optim.AdamW, {"weight_decay": 0.5})])
def test_adam_and_adamw_skip_an_expert_of_its_own_whose_grad_is_none(opt_class, kw):
    before, after, grad = _two_steps(opt_class, stacked=False, **kw)
    assert grad is None
    assert torch.equal(before, after)


@pytest.mark.parametrize("opt_class, kw", [(torch.optim.Adam, {}), (torch.optim.AdamW, {"weight_decay": 0.5})])
def test_adam_and_adamw_still_move_an_unchosen_slice_of_stacked_experts(opt_class, kw):
    before, after, grad = _two_steps(opt_class, stacked=True, **kw)
    assert torch.equal(grad, torch.zeros(3, dtype=torch.float64))
    assert not torch.allclose(before, after)


def test_adamw_decay_alone_shrinks_a_slice_whose_gradient_is_zero():
    w = torch.nn.Parameter(torch.ones(2, 3, dtype=torch.float64))
    opt = torch.optim.AdamW([w], lr=0.1, weight_decay=0.5)
    (w[0] * 2.0).sum().backward()  # expert 1's slice gets an exact zero, and no momentum exists yet
    opt.step()
    assert torch.allclose(w[1].detach(), torch.full((3,), 1 - 0.1 * 0.5, dtype=torch.float64), rtol=0, atol=1e-15)
