"""What chapter 7 says about how PyTorch and Hugging Face line up shared K/V heads, checked
against the pinned versions: the order of ``repeat_interleave`` (section 7.2), when Hugging
Face's SDPA path passes ``enable_gqa`` (the head-width limit, and XPU or MPS backends
whatever device the tensors are on), and that the CPU build runs ``enable_gqa`` in its fused
Flash-attention kernel without a copy while its math kernel repeats the heads (section 7.5).

torch and transformers are optional extras (`pip install -e '.[crosscheck]'`); without
them these tests are skipped with a visible reason.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from tokenpath import gqa

torch = pytest.importorskip(
    "torch", reason="torch not installed: install the 'crosscheck' extra to compare with PyTorch"
)
F = torch.nn.functional
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

pytestmark = pytest.mark.torch

#: A decoding step: 8 query heads, one new position, over 2 K/V heads of 1,024 cached keys.
HQ, HKV, T_K, D_H = 8, 2, 1024, 64


def _step(dtype=torch.float32):
    g = torch.Generator().manual_seed(7)
    q = torch.randn(1, HQ, 1, D_H, generator=g, dtype=dtype)
    k = torch.randn(1, HKV, T_K, D_H, generator=g, dtype=dtype)
    v = torch.randn(1, HKV, T_K, D_H, generator=g, dtype=dtype)
    return q, k, v


def test_repeat_interleave_puts_query_head_h_on_kv_head_h_over_g():
    k = torch.arange(2.0).reshape(1, 2, 1, 1)
    order = k.repeat_interleave(4, dim=1)[0, :, 0, 0].to(torch.int64).tolist()
    assert order == gqa.kv_groups(8, 2).tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    assert order != (np.arange(8) % 2).tolist()  # not the interleaved map


def test_hf_passes_enable_gqa_without_a_mask_only_up_to_256_features(monkeypatch):
    pytest.importorskip("transformers", reason="transformers not installed: install the 'crosscheck' extra")
    from transformers.integrations import sdpa_attention as S

    monkeypatch.delenv("TRANSFORMERS_SDPA_FORCE_GQA", raising=False)
    monkeypatch.setattr(S, "_is_torch_xpu_available", False)
    monkeypatch.setattr(S, "_is_torch_mps_available", False)
    mask = torch.ones(1, 1, 1, 4, dtype=torch.bool)

    def kv(d_k, d_v):
        return torch.zeros(1, 2, 4, d_k), torch.zeros(1, 2, 4, d_v)

    assert S.use_gqa_in_sdpa(None, *kv(256, 256))
    assert not S.use_gqa_in_sdpa(None, *kv(257, 257))  # wider heads: the heads are repeated
    assert not S.use_gqa_in_sdpa(None, *kv(64, 32))  # key and value of unequal width
    assert not S.use_gqa_in_sdpa(mask, *kv(64, 64))  # a mask: the heads are repeated


@pytest.mark.parametrize("backend", ["_is_torch_xpu_available", "_is_torch_mps_available"])
def test_hf_passes_enable_gqa_with_a_mask_when_an_xpu_or_mps_backend_is_available(monkeypatch, backend):
    pytest.importorskip("transformers", reason="transformers not installed: install the 'crosscheck' extra")
    from transformers.integrations import sdpa_attention as S

    monkeypatch.delenv("TRANSFORMERS_SDPA_FORCE_GQA", raising=False)
    monkeypatch.setattr(S, "_is_torch_xpu_available", False)
    monkeypatch.setattr(S, "_is_torch_mps_available", False)
    monkeypatch.setattr(S, backend, True)
    k = v = torch.zeros(1, 2, 4, 512)  # CPU tensors, wider than 256 features
    mask = torch.ones(1, 1, 4, 4, dtype=torch.bool).tril()
    assert k.device.type == "cpu"
    assert S.use_gqa_in_sdpa(mask, k, v)  # the rule reads the backend, not where the tensors live


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_cpu_build_picks_its_flash_kernel_for_enable_gqa(dtype):
    q, k, v = _step(dtype)
    choice = SDPBackend(torch._fused_sdp_choice(q, k, v, None, 0.0, False, enable_gqa=True))
    assert choice == SDPBackend.FLASH_ATTENTION


def _run(backend, q, k, v):
    with sdpa_kernel(backend), profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        out = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    events = {e.key: e.cpu_memory_usage for e in prof.key_averages()}
    return out, events


def test_cpu_flash_reads_the_shared_heads_without_a_copy_and_math_repeats_them():
    q, k, v = _step()
    g = HQ // HKV
    flash, flash_events = _run(SDPBackend.FLASH_ATTENTION, q, k, v)
    math, math_events = _run(SDPBackend.MATH, q, k, v)
    assert "aten::repeat_interleave" not in flash_events
    assert max(flash_events.values()) < k.nbytes  # about the output's bytes, no copy of K or V
    assert math_events["aten::repeat_interleave"] >= 2 * g * k.nbytes  # K and V, each repeated g times
    reference = F.scaled_dot_product_attention(q, k.repeat_interleave(g, -3), v.repeat_interleave(g, -3))
    assert torch.allclose(flash, reference, rtol=1e-5, atol=1e-6)
    assert torch.allclose(math, reference, rtol=1e-5, atol=1e-6)
