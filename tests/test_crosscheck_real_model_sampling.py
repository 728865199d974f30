"""Section 12.3's sentence about ``transformers``: ``generate`` with sampling builds its
warpers in the order temperature, top-k, top-p (``GenerationMixin._get_logits_processor``),
and that chain gives the engine's distribution (``tokenpath.sampling.next_token_probs``,
which cuts top-k before dividing by the temperature). A tiny random Llama is enough: the
order is the library's, not the model's."""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import sampling

pytestmark = pytest.mark.torch
torch = pytest.importorskip("torch", reason="needs the crosscheck extra (torch)")
transformers = pytest.importorskip("transformers", reason="needs the crosscheck extra (transformers)")


def _processors(temperature: float, top_k: int, top_p: float):
    config = transformers.LlamaConfig(vocab_size=16, hidden_size=8, intermediate_size=16, num_hidden_layers=1,
                                      num_attention_heads=2, num_key_value_heads=1)
    model = transformers.LlamaForCausalLM(config)
    gen = transformers.GenerationConfig(do_sample=True, temperature=temperature, top_k=top_k, top_p=top_p)
    return model._get_logits_processor(generation_config=gen, input_ids_seq_length=1)


def test_generate_applies_temperature_then_top_k_then_top_p():
    names = [type(p).__name__ for p in _processors(0.7, 5, 0.8)]
    warpers = [n for n in names if n in ("TemperatureLogitsWarper", "TopKLogitsWarper", "TopPLogitsWarper")]
    assert warpers == ["TemperatureLogitsWarper", "TopKLogitsWarper", "TopPLogitsWarper"]


@pytest.mark.parametrize("t, k, p", [(0.7, 5, 0.8), (1.5, 3, 0.9), (0.4, 12, 0.5)])
def test_generate_s_chain_gives_the_engine_s_distribution(t, k, p):
    z = np.random.default_rng(0).normal(0.0, 2.0, 16)  # [V] logits
    chain = [w for w in _processors(t, k, p)
             if type(w).__name__ in ("TemperatureLogitsWarper", "TopKLogitsWarper", "TopPLogitsWarper")]
    scores = torch.tensor(z[None])
    for warp in chain:
        scores = warp(None, scores)
    theirs = torch.softmax(scores, dim=-1)[0].numpy()
    mine = sampling.next_token_probs(z, temperature=t, top_k=k, top_p=p)
    np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-12)
    assert (mine > 0).sum() <= k


def test_with_ties_at_the_k_th_logit_transformers_keeps_them_all_the_engine_the_lowest_ids():
    """Section 12.3's note on ties: ``TopKLogitsWarper`` keeps every logit equal to the k-th
    largest, the engine exactly k of them, the lowest IDs first. Without ties both keep k."""
    z = np.array([3.0, 2.0, 1.0, 2.0, 0.5, 2.0, -1.0, 0.0])  # the 2nd largest value, 2, three times
    top_k = next(w for w in _processors(1.0, 2, 1.0) if type(w).__name__ == "TopKLogitsWarper")
    theirs = np.isfinite(top_k(None, torch.tensor(z[None]))[0].numpy())
    mine = sampling.next_token_probs(z, temperature=1.0, top_k=2) > 0
    assert theirs.nonzero()[0].tolist() == [0, 1, 3, 5]
    assert mine.nonzero()[0].tolist() == [0, 1]
    untied = np.array([3.0, 2.0, 1.0, 1.5, 0.5, 2.5, -1.0, 0.0])
    theirs = np.isfinite(top_k(None, torch.tensor(untied[None]))[0].numpy())
    assert theirs.tolist() == (sampling.next_token_probs(untied, temperature=1.0, top_k=2) > 0).tolist()
