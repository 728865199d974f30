"""``model.load`` on the pretrained SmolLM2 GGUF file against ``transformers`` reading the
same file (``from_pretrained(dir, gguf_file=name, dtype=torch.float32)``, which dequantizes
with the ``gguf`` package and undoes llama.cpp's Q/K row permutation itself): the same
float32 weights under the same names, and the same logits on a short prompt. Both models
are loaded once for the module."""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import model as M
from tokenpath import pretrained
from tokenpath.gguf_format import read_gguf

pytestmark = [pytest.mark.torch, pytest.mark.heavy]
transformers = pytest.importorskip("transformers", reason="needs the crosscheck extra (transformers)")
torch = pytest.importorskip("torch", reason="needs the crosscheck extra (torch)")
pytest.importorskip("gguf", reason="transformers reads GGUF files with the gguf package")

#: A short prompt: "<|im_start|>user\nWhat is a token?" in the file's own IDs.
IDS = [1, 4093, 198, 1780, 314, 253, 9624, 47]


@pytest.fixture(scope="module")
def both(smollm2_file):
    path = smollm2_file
    engine = M.load(path)
    torch.manual_seed(0)
    ref = transformers.AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name,
                                                            dtype=torch.float32)
    ref.eval()
    return engine, ref


def test_the_config_is_the_files(both):
    engine, ref = both
    c, r = engine.config, ref.config
    assert (c.vocab_size, c.hidden_size, c.intermediate_size, c.num_hidden_layers, c.num_attention_heads,
            c.num_key_value_heads, c.head_dim) == (r.vocab_size, r.hidden_size, r.intermediate_size,
                                                   r.num_hidden_layers, r.num_attention_heads,
                                                   r.num_key_value_heads, r.hidden_size // r.num_attention_heads)
    assert (c.rms_norm_eps, c.rope_theta, c.tie_word_embeddings) == (pytest.approx(r.rms_norm_eps), 100000.0, True)
    assert (c.bos_token_id, c.eos_token_id) == (1, 2)


def test_every_weight_equals_transformers_after_its_own_unpermute(both):
    engine, ref = both
    state = {k: v.detach().numpy() for k, v in ref.state_dict().items()}
    assert set(engine.tensors) | {"lm_head.weight"} == set(state)
    for name, w in engine.tensors.items():
        assert w.dtype == np.float32 and np.array_equal(w, state[name]), name
    assert engine.dtypes["model.layers.0.self_attn.q_proj.weight"] == "Q4_1"
    assert engine.dtypes["model.embed_tokens.weight"] == "Q8_0"
    assert engine.dtypes["model.norm.weight"] == "F32"


def test_the_prompt_is_the_words_it_says(both):
    tokens = read_gguf(pretrained.smollm2_path()).metadata["tokenizer.ggml.tokens"]
    assert "".join(tokens[i] for i in IDS) == "<|im_start|>userĊWhatĠisĠaĠtoken?"  # Ġ a space, Ċ a newline
    text = "<|im_start|>user\nWhat is a token?"
    assert both[0].tokenizer.encode(text, allowed_special="all") == IDS  # the file's tokenizer, loaded with it


def test_the_logits_equal_transformers_on_a_short_prompt(both):
    engine, ref = both
    with torch.no_grad():
        want = ref(torch.tensor([IDS])).logits[0].numpy()
    got = engine.logits(IDS)
    assert got.shape == want.shape == (len(IDS), 49_152)
    print(f"\nmax |engine - transformers| = {np.abs(got - want).max():.3g}, logits' std {want.std():.3g}")
    assert np.abs(got - want).max() <= 1e-4 * want.std()
    assert got[-1].argmax() == want[-1].argmax()
