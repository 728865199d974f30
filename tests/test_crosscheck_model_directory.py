"""Cross-check what chapter 10 says about the files of a Hugging Face directory against
``transformers``, ``safetensors`` and ``torch`` at the pinned versions (the crosscheck
extra). Nothing is downloaded: every model and tokenizer is built here.

* a model's ``save_pretrained`` writes ``config.json``, ``generation_config.json`` and
  ``model.safetensors``; a tokenizer's writes ``tokenizer.json`` and
  ``tokenizer_config.json``; :func:`tokenpath.model.save` writes those files but
  ``generation_config.json``;
* the ``safetensors`` package pads the JSON header with spaces to a multiple of 8 bytes;
* ``torch.load`` refuses a pickle that names an arbitrary global unless told otherwise;
* Mixtral is saved with one ``w1``/``w2``/``w3`` per expert, held fused in memory.
"""

from __future__ import annotations

import json
import os
import pickle

import numpy as np
import pytest

from tokenpath import model as M
from tokenpath.lessons.model_files import tiny_model

transformers = pytest.importorskip("transformers", reason="needs the crosscheck extra (transformers)")
torch = pytest.importorskip("torch", reason="needs the crosscheck extra (torch)")

SMALL = dict(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=4,
             num_key_value_heads=2)


def test_save_pretrained_of_model_and_tokenizer_write_what_m_save_writes_and_generation_config(tmp_path):
    model = transformers.LlamaForCausalLM(transformers.LlamaConfig(**SMALL))
    model.save_pretrained(tmp_path / "model")
    hf_model_files = set(os.listdir(tmp_path / "model"))
    assert hf_model_files == {"config.json", "generation_config.json", "model.safetensors"}

    ours = M.save(tmp_path / "ours", tiny_model())
    tok = transformers.AutoTokenizer.from_pretrained(str(ours))
    tok.save_pretrained(tmp_path / "tok")
    hf_tok_files = set(os.listdir(tmp_path / "tok"))
    assert hf_tok_files == {M.TOKENIZER_NAME, M.TOKENIZER_CONFIG_NAME}

    assert set(os.listdir(ours)) == (hf_model_files | hf_tok_files) - {"generation_config.json"}
    # and transformers opens the engine's directory without a generation_config.json
    again = transformers.LlamaForCausalLM.from_pretrained(ours)
    assert again.config.vocab_size == tiny_model().config.vocab_size


def test_autotokenizer_takes_eos_and_no_added_tokens_from_tokenizer_config(tmp_path):
    ours = M.save(tmp_path / "ours", tiny_model())
    tok = transformers.AutoTokenizer.from_pretrained(str(ours))
    engine = M.load(ours).tokenizer
    text = "猫 is a cat."
    assert tok(text)["input_ids"] == list(engine.encode(text))  # no BOS or EOS added
    config = json.loads((ours / M.TOKENIZER_CONFIG_NAME).read_text(encoding="utf-8"))
    assert config["add_bos_token"] is False and config["add_eos_token"] is False
    assert tok.eos_token == config["eos_token"]


def test_safetensors_pads_the_json_header_with_spaces_to_a_multiple_of_eight(tmp_path):
    from safetensors.numpy import load_file, save_file

    for n in range(1, 9):  # names of different lengths give headers of different lengths
        path = tmp_path / f"w{n}.safetensors"
        save_file({"x" * n: np.zeros(3, dtype=np.float32)}, str(path))
        raw = path.read_bytes()
        length = int.from_bytes(raw[:8], "little")
        header = raw[8:8 + length].decode("utf-8")
        assert length % 8 == 0
        assert header.rstrip(" ").endswith("}") and set(header[len(header.rstrip(" ")):]) <= {" "}
        assert load_file(str(path))["x" * n].shape == (3,)


class _Anything:
    """A class a checkpoint could name: unpickling it would call whatever __reduce__ says."""

    def __reduce__(self):
        return (os.getcwd, ())


def test_torch_load_refuses_a_pickle_that_names_an_arbitrary_callable(tmp_path):
    path = tmp_path / "evil.pt"
    torch.save({"w": torch.zeros(2), "x": _Anything()}, path)  # a zip holding a pickle
    with pytest.raises(pickle.UnpicklingError):
        torch.load(path)
    assert torch.load(path, weights_only=False)["x"] == os.getcwd()  # told otherwise, it runs the call


def test_mixtral_is_saved_one_matrix_per_expert_but_held_fused_in_memory(tmp_path):
    from safetensors import safe_open

    config = transformers.MixtralConfig(**SMALL, num_local_experts=4, num_experts_per_tok=2)
    model = transformers.MixtralForCausalLM(config)
    in_memory = set(model.state_dict())
    assert {"model.layers.0.mlp.experts.gate_up_proj", "model.layers.0.mlp.experts.down_proj"} <= in_memory
    assert tuple(model.state_dict()["model.layers.0.mlp.experts.gate_up_proj"].shape) == (4, 64, 16)
    model.save_pretrained(tmp_path)
    with safe_open(str(tmp_path / "model.safetensors"), "pt") as f:
        stored = set(f.keys())
    for e in range(4):
        for w in ("w1", "w2", "w3"):
            assert f"model.layers.0.block_sparse_moe.experts.{e}.{w}.weight" in stored
    assert "model.layers.0.block_sparse_moe.gate.weight" in stored
    assert not any("gate_up_proj" in name for name in stored)
