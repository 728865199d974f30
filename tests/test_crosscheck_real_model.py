"""Chapter 12 against ``transformers`` reading the same Q4_1 file (dequantized to the same
float32 weights): the residual stream after every layer, hence the logit lens, and the
attention weights of the induction head, on the lens prompt and on repeated random
tokens. Heavy (transformers opens the GGUF file in tens of seconds)."""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath.lessons import real_model as R
from tokenpath.lessons import real_model_heads as RH

pytestmark = [pytest.mark.torch, pytest.mark.heavy]
transformers = pytest.importorskip("transformers", reason="needs the crosscheck extra (transformers)")
torch = pytest.importorskip("torch", reason="needs the crosscheck extra (torch)")
pytest.importorskip("gguf", reason="transformers reads GGUF files with the gguf package")


@pytest.fixture(scope="module")
def ref(smollm2_file):
    path = smollm2_file
    model = transformers.AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name,
                                                              dtype=torch.float32, attn_implementation="eager")
    model.eval()
    return model


def _run(ref, ids):
    with torch.no_grad():
        return ref(torch.tensor([list(ids)]), output_hidden_states=True, output_attentions=True)


def test_every_layer_s_residual_stream_and_the_lens_equal_transformers(ref):
    m = R.real_model()
    lens = R.logit_lens()
    ids = m.encode(lens.text)
    out = _run(ref, ids)
    trace = m.forward(ids)
    # hidden_states[0] is the embedding, [l] the output of layer l − 1; the last one is
    # already through the final norm, so the engine's last residual is compared before it
    mine = [trace.x] + [layer.out[0] for layer in trace.layers[:-1]]
    for l, (a, b) in enumerate(zip(mine, out.hidden_states[:-1])):
        b = b[0].numpy()
        # a few coordinates of this stream grow to thousands (its largest rounding errors
        # are there), so the test is relative per number, with a floor at the stream's spread
        assert np.allclose(a, b, rtol=1e-4, atol=1e-4 * b.std()), f"after {l} layers"
    with torch.no_grad():
        rows = torch.stack([h[0, -1] for h in out.hidden_states[:-1]])
        theirs = ref.lm_head(ref.model.norm(rows)).numpy()  # the lens in transformers' own modules
    rank = 1 + (theirs > theirs[:, lens.target:lens.target + 1]).sum(axis=-1)
    assert np.array_equal(rank, lens.rank[:-1])
    assert np.array_equal(np.argmax(theirs, axis=-1), lens.top_ids[:-1])


def test_the_induction_head_s_weights_equal_transformers(ref):
    m = R.real_model()
    (layer, head) = RH.head_finding().top
    run = RH.induction_runs(m.config.vocab_size)[0]
    out = _run(ref, run)
    mine = m.forward(run).layers[layer].weights[0, head]
    theirs = out.attentions[layer][0, head].numpy()
    assert np.abs(mine - theirs).max() < 1e-4
