"""Cross-check section 11.8's view of the committed model's routers against Hugging Face
``transformers`` (the crosscheck extra): over the whole held-out sample, run in the same
windows, ``MixtralForCausalLM``'s router logits give the engine's router probabilities
(a softmax over all experts), its top-2 and its renormalised gates."""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import trained as T

transformers = pytest.importorskip("transformers", reason="needs the crosscheck extra (transformers)")
torch = pytest.importorskip("torch", reason="needs the crosscheck extra (torch)")

#: Bound on the difference of a router probability between the engine and transformers.
TOL = 1e-5


@pytest.mark.heavy
def test_held_out_router_probabilities_choices_and_gates_equal_transformers():
    torch.set_num_threads(2)
    folder = T.trained_folder()
    hf = transformers.AutoModelForCausalLM.from_pretrained(folder).float().eval()
    held = T.held_out_routes()
    ids, _, spans = T.file_windows(T.committed_model(), T.held_out_sample(folder))  # every file on its own
    logits = []  # per window: [L, T_window, E]
    with torch.no_grad():
        for a, b in spans:
            out = hf(torch.from_numpy(np.asarray(ids[a:b], dtype=np.int64))[None], output_router_logits=True)
            logits.append(np.stack([r.reshape(-1, hf.config.num_local_experts).double().numpy()
                                    for r in out.router_logits]))
    probs = torch.softmax(torch.from_numpy(np.concatenate(logits, axis=1)), dim=-1).numpy()  # [L, T, E]
    assert probs.shape == held.probs.shape
    assert np.abs(probs - held.probs).max() <= TOL
    top = np.argsort(-probs, axis=-1, kind="stable")[..., : held.top_k]
    assert (top == held.chosen).all()
    chosen = np.take_along_axis(probs, top, axis=-1)
    assert np.abs(chosen / chosen.sum(axis=-1, keepdims=True) - held.gates).max() <= TOL
