"""Cross-check section 11.7's per-head measures with Hugging Face ``transformers`` (the
crosscheck extra): ``MixtralForCausalLM`` reads the committed folder, runs the held-out
sample in the same windows of its context, and returns every head's attention weights;
the measures computed from those weights equal the engine's (tokenpath.trained).
Nothing is trained or downloaded."""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import examples as ex
from tokenpath import trained as T

transformers = pytest.importorskip("transformers", reason="needs the crosscheck extra (transformers)")
torch = pytest.importorskip("torch", reason="needs the crosscheck extra (torch)")

# Loading the trained model into transformers and running the held-out sample: seconds.
pytestmark = pytest.mark.heavy

#: Bound on |engine − transformers| for a mean weight or a mean entropy (float32 weights).
TOL = 1e-5


@pytest.fixture(scope="module")
def hf_stats():
    """Per-head measures from transformers' attention weights over the held-out windows."""
    torch.set_num_threads(2)
    folder = T.trained_folder()
    hf = transformers.AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").float().eval()
    engine = T.committed_model()
    ids, _, spans = T.file_windows(engine, T.held_out_sample(folder))  # every file on its own, in windows
    windows = []
    with torch.no_grad():
        for a, b in spans:
            if b - a < 2:
                continue
            out = hf(torch.from_numpy(np.asarray(ids[a:b], dtype=np.int64))[None], output_attentions=True)
            windows.append(np.stack([a[0].double().numpy() for a in out.attentions]))  # [L, H, T, T]
    per_row = np.concatenate([T.query_measures(w) for w in windows], axis=-1)  # [4, L, H, rows]
    return per_row.mean(axis=-1), per_row.shape[-1]


def test_transformers_weights_give_the_engines_per_head_measures(hf_stats):
    means, rows = hf_stats
    stats = T.held_out_heads()
    assert rows == stats.rows
    for name, hf_mean in zip(T.HEAD_MEASURES, means):
        np.testing.assert_allclose(stats.measure(name), hf_mean, atol=TOL, err_msg=name)
    # and so the same heads are named
    share = ex.HEAD_ROLE_SHARE
    for role in T.MEASURE_NAMES:
        hf_heads = [tuple(int(i) for i in lh) for lh in np.argwhere(means[T.HEAD_MEASURES.index(role)] > share)]
        assert hf_heads == stats.heads(role, share)
