"""Cross-check chapter 5's note on how Hugging Face `transformers` (the pinned version)
aligns the causal mask after a KV cache: a single new query row runs through its SDPA
integration with no mask and ``is_causal`` off, so it reads every cached key and its
own, which is the engine's cache mask for one new row; several new rows after a cache
need the explicit cache mask, because SDPA's own ``is_causal`` is top-left aligned.

torch and transformers are the optional 'crosscheck' extra; without them the tests skip.
"""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import attention as A

torch = pytest.importorskip("torch", reason="torch not installed: install the 'crosscheck' extra")
sdpa = pytest.importorskip("transformers.integrations.sdpa_attention",
                           reason="transformers not installed: install the 'crosscheck' extra")


class _Layer(torch.nn.Module):
    is_causal = True  # a decoder layer, as in every causal language model
    num_key_value_groups = 1


def _qkv(past, new, seed=0, d_h=4):
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((1, 1, t, d_h)) for t in (new, past + new, past + new))
    return q, k, v


def _hf(q, k, v, mask=None):
    out, _ = sdpa.sdpa_attention_forward(_Layer(), *(torch.from_numpy(x) for x in (q, k, v)), mask)
    return out.transpose(1, 2).numpy()  # transformers returns [B, T, H, d_h]


@pytest.mark.parametrize("past", [1, 3, 6])
def test_one_new_row_without_a_mask_is_the_engines_cache_mask(past):
    q, k, v = _qkv(past, 1, seed=past)
    expected = A.attention(q, k, v, A.cache_mask(past, 1)).output
    np.testing.assert_allclose(_hf(q, k, v), expected, rtol=1e-10, atol=1e-12)


def test_several_new_rows_after_a_cache_need_the_explicit_mask():
    past, new = 3, 2
    q, k, v = _qkv(past, new, seed=7)
    expected = A.attention(q, k, v, A.cache_mask(past, new)).output
    explicit = torch.from_numpy(A.cache_mask(past, new))[None, None]
    np.testing.assert_allclose(_hf(q, k, v, explicit), expected, rtol=1e-10, atol=1e-12)
    assert not np.allclose(_hf(q, k, v), expected)  # with no mask, the rows are not the cache's
