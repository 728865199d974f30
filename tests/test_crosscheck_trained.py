"""Cross-check the committed model (``models/stdlib-moe/``) against Hugging Face
``transformers`` and ``tokenizers`` (the crosscheck extra). Nothing is trained or
downloaded: the folder is read as it is committed.

* ``MixtralForCausalLM`` loads the folder, and its held-out loss on the committed
  held-out sample is far below the uniform guess ln V.
* ``tokenizers`` on the folder's ``tokenizer.json`` gives the engine's IDs.
* Greedy completion is deterministic and gives the committed completions; sampling
  with the committed seed and temperature gives the committed samples.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tokenpath import _train as T
from tokenpath import examples as ex
from tokenpath import model as M
from tokenpath import trained as R

transformers = pytest.importorskip("transformers", reason="needs the crosscheck extra (transformers)")
torch = pytest.importorskip("torch", reason="needs the crosscheck extra (torch)")
tokenizers = pytest.importorskip("tokenizers", reason="needs the crosscheck extra (tokenizers)")

FOLDER = Path(__file__).resolve().parents[1] / T.FOLDER
#: "Far below": at least this many nats under ln V.
MARGIN = 2.0


@pytest.fixture(scope="module")
def hf():
    torch.set_num_threads(2)
    return transformers.AutoModelForCausalLM.from_pretrained(FOLDER).float().eval()


@pytest.fixture(scope="module")
def tok():
    return M.read_tokenizer(FOLDER / M.TOKENIZER_NAME)


@pytest.fixture(scope="module")
def held_ids(tok):
    return tok.encode(R.held_out_text(FOLDER))


@pytest.fixture(scope="module")
def samples():
    import json

    return json.loads((FOLDER / T.SAMPLES_NAME).read_text(encoding="utf-8"))


def test_transformers_loads_the_folder_as_a_mixtral_with_the_configured_shape(hf):
    assert type(hf).__name__ == "MixtralForCausalLM"
    c, s = hf.config, T.read_training(FOLDER)["settings"]  # the shape the training script was asked for
    names = ("num_local_experts", "num_experts_per_tok", "num_attention_heads", "num_key_value_heads",
             "num_hidden_layers", "hidden_size", "intermediate_size", "vocab_size")
    assert {n: getattr(c, n) for n in names} == {n: s[n] for n in names}
    assert c.max_position_embeddings == s["seq_len"]


@pytest.mark.heavy
def test_held_out_loss_is_far_below_ln_v(hf, held_ids):
    record = T.read_training(FOLDER)
    ids = torch.tensor([held_ids])
    window = hf.config.max_position_embeddings  # the context the model was trained on
    n = ids.shape[1] // window * window
    x = ids[:, :n].view(-1, window)
    with torch.no_grad():
        logits = hf(x).logits
    loss = torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1)).item()
    ln_v = math.log(hf.config.vocab_size)
    assert loss < ln_v - MARGIN, f"held-out loss {loss:.3f} vs ln V {ln_v:.3f}"
    assert record["held_out_loss"] < record["ln_vocab"] - MARGIN


def test_tokenizers_on_the_folder_gives_the_engine_ids(tok, held_ids):
    hf_tok = tokenizers.Tokenizer.from_file(str(FOLDER / M.TOKENIZER_NAME))
    text = R.held_out_text(FOLDER)
    assert hf_tok.encode(text).ids == held_ids
    for prompt in T.PROMPTS:
        assert hf_tok.encode(prompt).ids == tok.encode(prompt)
    assert hf_tok.decode(held_ids) == text


def _forced_logits(hf, ids):
    """Logits at every position of ``ids`` in one forward pass (causal: row t sees ids[:t+1])."""
    with torch.no_grad():
        return hf(torch.tensor([ids])).logits[0].double()


@pytest.mark.heavy
def test_greedy_completion_is_deterministic_and_equals_the_committed_one(hf, tok, samples):
    row = samples["completions"][0]
    assert tok.encode(row["prompt"]) == row["prompt_ids"]
    first = T.complete(hf, row["prompt_ids"], 6)  # the real loop, a few steps, twice
    assert first == T.complete(hf, row["prompt_ids"], 6) == row["greedy_ids"][:6]
    for row in samples["completions"]:  # every committed token is the argmax after its prefix
        assert tok.encode(row["prompt"]) == row["prompt_ids"]
        full = row["prompt_ids"] + row["greedy_ids"]
        logits = _forced_logits(hf, full)
        n = len(row["prompt_ids"])
        assert torch.argmax(logits[n - 1:-1], dim=-1).tolist() == row["greedy_ids"]
        assert tok.decode(row["greedy_ids"], errors="replace") == row["greedy_text"]


def test_sampling_with_the_committed_seed_gives_the_committed_sample(hf, samples):
    for row in samples["completions"]:
        gen = torch.Generator().manual_seed(samples["seed"])
        logits = _forced_logits(hf, row["prompt_ids"] + row["sampled_ids"])
        n = len(row["prompt_ids"])
        probs = torch.softmax(logits[n - 1:-1] / samples["temperature"], dim=-1)
        got = [int(torch.multinomial(p, 1, generator=gen)) for p in probs]
        assert got == row["sampled_ids"]


# ------------------------------------------------------------- the engine on the same folder

#: The issue's bound on max |logit difference| between the engine (float64) and
#: transformers (float32) on held-out text.
TOL = ex.TRAINED_CROSSCHECK_TOL


@pytest.fixture(scope="module")
def engine():
    return M.load(FOLDER)


def test_engine_logits_equal_transformers_on_held_out_text(hf, engine, held_ids):
    ids = held_ids[: hf.config.max_position_embeddings]
    ours = engine.logits(ids)
    ref = _forced_logits(hf, ids).numpy()
    delta = float(abs(ours - ref).max())
    assert delta <= TOL, f"max |Δ| = {delta:.2e} over {len(ids)} held-out tokens"


def test_engine_greedy_generation_gives_the_same_tokens_as_transformers(engine, samples):
    row = samples["completions"][0]
    g = engine.generate(row["prompt_ids"], 6, top_k=1)  # the engine's own loop, greedy
    assert g.sampled.tolist() == row["greedy_ids"][:6]
    for row in samples["completions"]:  # every committed greedy token is the engine's argmax too
        full = row["prompt_ids"] + row["greedy_ids"]
        n = len(row["prompt_ids"])
        assert engine.logits(full)[n - 1:-1].argmax(axis=-1).tolist() == row["greedy_ids"]


def _line_ids(tok):
    line = R.held_out_lines(FOLDER)[R.example_line(FOLDER)]
    return tok.encode(line)


def test_engine_attention_weights_and_router_choices_on_the_chapter_line_equal_transformers(engine, tok):
    """The line of sections 11.7 and 11.8: per-head attention weights and each layer's top-2 experts."""
    ids = _line_ids(tok)
    ref = transformers.AutoModelForCausalLM.from_pretrained(FOLDER, attn_implementation="eager").float().eval()
    with torch.no_grad():
        out = ref(torch.tensor([ids]), output_attentions=True, output_router_logits=True)
    trace = engine.forward(ids)
    k = ref.config.num_experts_per_tok
    for layer, attn, router in zip(trace.layers, out.attentions, out.router_logits):
        assert abs(layer.weights - attn.double().numpy()).max() <= TOL
        top = torch.topk(router.reshape(len(ids), -1), k, dim=-1).indices.numpy()
        assert (layer.chosen_experts[0] == top).all()
