"""The safetensors header by hand, checked against the ``safetensors`` package, and
every kind of bad model file refused with an error that names the file and the
tensor or field."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest

from tokenpath import model as M
from tokenpath import safetensors_format as S
from tokenpath.lessons.model_files import tiny_config, tiny_model


@pytest.fixture(scope="module")
def tiny():
    return tiny_model()


@pytest.fixture()
def tiny_dir(tmp_path, tiny):
    return M.save(tmp_path / "tiny", tiny)


def _raw_file(path, header: dict, data: bytes, *, length: int | None = None):
    """Write a safetensors file by hand: 8-byte little-endian length, JSON, data."""
    text = json.dumps(header).encode("utf-8")
    path.write_bytes(struct.pack("<Q", len(text) if length is None else length) + text + data)
    return path


# ----------------------------------------------------- the header, by hand vs the package


def test_header_read_by_hand_agrees_with_the_safetensors_package(tiny_dir):
    from safetensors import safe_open

    path = tiny_dir / M.WEIGHTS_NAME
    header = S.read_header(path)
    raw = path.read_bytes()
    assert struct.unpack("<Q", raw[:8])[0] == header.header_length
    assert json.loads(raw[8:header.data_start])["__metadata__"] == header.metadata == {"format": "pt"}
    with safe_open(str(path), framework="numpy") as f:
        assert sorted(f.keys()) == sorted(header.names)
        for e in header.tensors:
            lib = f.get_tensor(e.name)
            assert e.dtype == "F32" and lib.shape == e.shape
            np.testing.assert_array_equal(S.read_tensor_by_hand(path, e.name), lib)
    # the entries tile the data section exactly
    assert header.tensors[0].start == 0
    assert header.data_start + header.tensors[-1].end == header.file_size == len(raw)


def test_bfloat16_is_read_by_hand_as_the_top_half_of_float32(tmp_path):
    values = np.array([1.0, -2.5, 0.15625, -2.0**100], dtype=np.float32)
    top = (values.view(np.uint32) >> 16).astype("<u2")  # exact for these values
    path = _raw_file(tmp_path / "b.safetensors", {"w": {"dtype": "BF16", "shape": [2, 2], "data_offsets": [0, 8]}},
                     top.tobytes())
    tensors, header = S.load_tensors(path)
    np.testing.assert_array_equal(tensors["w"], values.reshape(2, 2))
    assert header.entry("w").dtype == "BF16"


# ----------------------------------------------------- corrupt and truncated files


def test_truncated_file_is_refused_naming_the_last_tensor(tiny_dir):
    path = tiny_dir / M.WEIGHTS_NAME
    raw = path.read_bytes()
    path.write_bytes(raw[:-10])
    with pytest.raises(M.ModelFileError, match=r"ends at data byte \d+ but the file holds only \d+ data bytes; "
                                               "the file is truncated"):
        M.load(tiny_dir)


def test_header_that_claims_more_bytes_than_the_file_has_is_refused(tmp_path):
    path = _raw_file(tmp_path / "w.safetensors", {}, b"", length=10_000)
    with pytest.raises(M.ModelFileError, match="the header claims 10000 bytes but only 2 follow"):
        S.read_header(path)


def test_file_shorter_than_the_length_field_is_refused(tmp_path):
    path = tmp_path / "w.safetensors"
    path.write_bytes(b"\x01\x02\x03")
    with pytest.raises(M.ModelFileError, match="too short for the 8-byte header length"):
        S.read_header(path)


@pytest.mark.parametrize("header_bytes, words", [
    (b"{not json", "not valid JSON"),
    (b"\xff\xfe{}", "not UTF-8"),
    (b"[1, 2]", "must be a JSON object"),
])
def test_corrupt_header_is_refused(tmp_path, header_bytes, words):
    path = tmp_path / "w.safetensors"
    path.write_bytes(struct.pack("<Q", len(header_bytes)) + header_bytes)
    with pytest.raises(M.ModelFileError, match=words):
        S.read_header(path)


@pytest.mark.parametrize("entry, data, words", [
    ({"dtype": "F32", "shape": [2], "data_offsets": [0, 12]}, 12, "spans 12 bytes .* but F32 \\[2\\] needs 8"),
    ({"dtype": "Q4", "shape": [2], "data_offsets": [0, 2]}, 2, "unknown dtype 'Q4'"),
    ({"dtype": "F32", "shape": [-1], "data_offsets": [0, 0]}, 0, "shape \\[-1\\]"),
    ({"dtype": "F32", "shape": [1], "data_offsets": [4, 0]}, 4, "data_offsets \\[4, 0\\]"),
    ({"dtype": "F32", "shape": [1]}, 4, "must be an object with dtype, shape and data_offsets"),
    ({"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}, 8, "leaves a gap of 4 bytes"),
    ({"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, 9, "5 bytes follow the last tensor"),
])
def test_header_entries_that_disagree_with_the_bytes_are_refused_by_tensor(tmp_path, entry, data, words):
    path = _raw_file(tmp_path / "w.safetensors", {"model.norm.weight": entry}, bytes(data))
    with pytest.raises(M.ModelFileError, match=words) as err:
        S.read_header(path)
    assert "w.safetensors" in str(err.value)


def test_overlapping_tensors_are_refused(tmp_path):
    header = {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
              "b": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}
    path = _raw_file(tmp_path / "w.safetensors", header, bytes(8))
    with pytest.raises(M.ModelFileError, match="'b' starts at data byte 4, which overlaps"):
        S.read_header(path)


def test_integer_tensor_is_an_unsupported_weight_dtype(tmp_path):
    path = _raw_file(tmp_path / "w.safetensors", {"ids": {"dtype": "I64", "shape": [1], "data_offsets": [0, 8]}},
                     bytes(8))
    with pytest.raises(M.ModelFileError, match="'ids' has dtype I64, which is not a supported weight dtype"):
        S.load_tensors(path)
    assert S.load_tensors(path, float_only=False)[0]["ids"].tolist() == [0]
    with pytest.raises(M.ModelFileError, match="this reader handles"):
        S.read_tensor_by_hand(path, "ids")


def test_reading_a_missing_file_or_tensor_names_it(tmp_path, tiny_dir):
    with pytest.raises(M.ModelFileError, match="no such file"):
        S.read_header(tmp_path / "nothing.safetensors")
    with pytest.raises(M.ModelFileError, match="no tensor named 'q'"):
        S.read_header(tiny_dir / M.WEIGHTS_NAME).entry("q")


def test_save_tensors_refuses_what_it_cannot_write_exactly(tmp_path):
    with pytest.raises(TypeError, match="non-empty dict"):
        S.save_tensors(tmp_path / "w.safetensors", {})
    with pytest.raises(TypeError, match="names must be strings"):
        S.save_tensors(tmp_path / "w.safetensors", {1: np.zeros(1)})


# ----------------------------------------------------- files that disagree with config.json


def _replace_tensors(directory, change):
    path = directory / M.WEIGHTS_NAME
    tensors, _ = S.load_tensors(path)
    change(tensors)
    S.save_tensors(path, tensors)


def _edit_config(directory, **fields):
    path = directory / M.CONFIG_NAME
    path.write_text(json.dumps({**json.loads(path.read_text()), **fields}))


def test_missing_tensor_is_named(tiny_dir):
    _replace_tensors(tiny_dir, lambda t: t.pop("model.layers.1.mlp.up_proj.weight"))
    with pytest.raises(M.ModelFileError, match="missing tensor 'model.layers.1.mlp.up_proj.weight' "
                                               r"\(config.json says num_hidden_layers=2\)"):
        M.load(tiny_dir)


def test_wrong_shape_is_named_with_the_config_fields_that_fix_it(tiny_dir):
    _replace_tensors(tiny_dir, lambda t: t.__setitem__("model.layers.0.self_attn.k_proj.weight",
                                                       np.zeros((16, 16), np.float32)))
    with pytest.raises(M.ModelFileError, match=r"'model.layers.0.self_attn.k_proj.weight' has shape \[16, 16\], "
                                               r"but config.json implies \[8, 16\] = "
                                               r"\[num_key_value_heads·head_dim, hidden_size\]"):
        M.load(tiny_dir)


def test_config_with_fewer_layers_than_the_file_is_refused(tiny_dir):
    _edit_config(tiny_dir, num_hidden_layers=1)
    with pytest.raises(M.ModelFileError, match="unexpected tensor 'model.layers.1.input_layernorm.weight' .* "
                                               "num_hidden_layers=1"):
        M.load(tiny_dir)


def test_config_with_another_vocabulary_size_is_refused(tiny_dir):
    cfg = json.loads((tiny_dir / M.CONFIG_NAME).read_text())
    cfg["vocab_size"], cfg["eos_token_id"] = 500, None
    (tiny_dir / M.CONFIG_NAME).write_text(json.dumps(cfg))
    with pytest.raises(M.ModelFileError, match=r"'model.embed_tokens.weight' has shape \[385, 16\], but config.json "
                                               r"implies \[500, 16\] = \[vocab_size, hidden_size\]"):
        M.load(tiny_dir)


def test_untied_config_without_a_stored_head_is_refused(tiny_dir):
    _replace_tensors(tiny_dir, lambda t: t.pop("lm_head.weight"))
    with pytest.raises(M.ModelFileError, match="missing tensor 'lm_head.weight' .*tie_word_embeddings=false"):
        M.load(tiny_dir)


def test_tied_config_with_a_different_stored_head_is_refused(tmp_path, tiny):
    d = M.save(tmp_path, tiny)
    cfg = json.loads((d / M.CONFIG_NAME).read_text())
    cfg["tie_word_embeddings"] = True
    (d / M.CONFIG_NAME).write_text(json.dumps(cfg))
    with pytest.raises(M.ModelFileError, match="lm_head.weight differs from model.embed_tokens.weight"):
        M.load(d)
    # a stored head equal to E is accepted (some writers store it anyway)
    _replace_tensors(d, lambda t: t.__setitem__("lm_head.weight", t["model.embed_tokens.weight"]))
    assert "lm_head.weight" not in M.load(d).tensors


def test_rotary_inv_freq_buffers_of_older_checkpoints_are_ignored(tiny_dir):
    _replace_tensors(tiny_dir, lambda t: t.__setitem__("model.layers.0.self_attn.rotary_emb.inv_freq",
                                                       np.ones(2, np.float32)))
    assert "model.layers.0.self_attn.rotary_emb.inv_freq" not in M.load(tiny_dir).tensors


def test_non_finite_weight_is_refused_by_tensor_and_index(tiny_dir):
    def poison(t):
        t["model.norm.weight"][3] = np.nan
    _replace_tensors(tiny_dir, poison)
    with pytest.raises(M.ModelFileError, match=r"'model.norm.weight' holds a non-finite value at index \(3,\)"):
        M.load(tiny_dir)


def test_missing_config_weights_or_directory_are_named(tmp_path, tiny_dir):
    with pytest.raises(M.ModelFileError, match="not a directory"):
        M.load(tmp_path / "absent")
    (tiny_dir / M.WEIGHTS_NAME).unlink()
    with pytest.raises(M.ModelFileError, match="has neither model.safetensors nor model.safetensors.index.json"):
        M.load(tiny_dir)
    (tiny_dir / M.CONFIG_NAME).unlink()
    with pytest.raises(M.ModelFileError, match="config.json: no such file"):
        M.load(tiny_dir)


def test_config_that_is_not_json_is_refused(tiny_dir):
    (tiny_dir / M.CONFIG_NAME).write_text("{'vocab_size': 385}")
    with pytest.raises(M.ModelFileError, match="config.json: not valid JSON"):
        M.load(tiny_dir)


# ----------------------------------------------------- shards


@pytest.fixture()
def sharded(tmp_path, tiny):
    return M.save(tmp_path / "sharded", tiny, max_shard_size=30_000)


def _index(d):
    return json.loads((d / M.INDEX_NAME).read_text())


def test_index_naming_a_missing_shard_is_refused(sharded):
    shard = sorted(set(_index(sharded)["weight_map"].values()))[-1]
    (sharded / shard).unlink()
    with pytest.raises(M.ModelFileError, match=f"lists shard '{shard}', which is not in the directory"):
        M.load(sharded)


def test_index_placing_a_tensor_in_the_wrong_shard_is_refused(sharded):
    idx = _index(sharded)
    shards = sorted(set(idx["weight_map"].values()))
    idx["weight_map"]["model.norm.weight"] = shards[0] if idx["weight_map"]["model.norm.weight"] != shards[0] \
        else shards[1]
    (sharded / M.INDEX_NAME).write_text(json.dumps(idx))
    with pytest.raises(M.ModelFileError, match="'model.norm.weight'"):
        M.load(sharded)


def test_index_without_a_weight_map_or_with_a_path_is_refused(sharded):
    (sharded / M.INDEX_NAME).write_text(json.dumps({"metadata": {}}))
    with pytest.raises(M.ModelFileError, match="has no 'weight_map'"):
        M.load(sharded)
    (sharded / M.INDEX_NAME).write_text(json.dumps({"weight_map": {"model.norm.weight": "../x.safetensors"}}))
    with pytest.raises(M.ModelFileError, match="must be a file name in the directory"):
        M.load(sharded)
    (sharded / M.INDEX_NAME).write_text("not json")
    with pytest.raises(M.ModelFileError, match="not valid JSON"):
        M.load(sharded)


def test_truncated_shard_is_refused_naming_the_shard(sharded):
    shard = sorted(set(_index(sharded)["weight_map"].values()))[0]
    raw = (sharded / shard).read_bytes()
    (sharded / shard).write_bytes(raw[: len(raw) // 2])
    with pytest.raises(M.ModelFileError, match=f"{shard}: tensor .* the file is truncated"):
        M.load(sharded)


# ------------------------------------------------------------ Mixtral files


@pytest.fixture()
def mixtral_dir(tmp_path):
    cfg = tiny_config(mixtral=True, vocab_size=50)
    return M.save(tmp_path / "mixtral", M.random_model(cfg, seed=0))


def test_mixtral_file_without_a_router_is_refused_by_name(mixtral_dir):
    _replace_tensors(mixtral_dir, lambda t: t.pop("model.layers.1.block_sparse_moe.gate.weight"))
    with pytest.raises(M.ModelFileError, match=r"missing tensor 'model.layers.1.block_sparse_moe.gate.weight' "
                                               r"\(config.json describes a Mixtral with num_local_experts=4: "
                                               "every layer needs its router\\)"):
        M.load(mixtral_dir)


def test_mixtral_file_with_more_experts_than_its_config_is_refused(mixtral_dir):
    def add(t):
        for w in ("w1", "w2", "w3"):
            t[f"model.layers.0.block_sparse_moe.experts.4.{w}.weight"] = t[f"model.layers.0.block_sparse_moe.experts.0.{w}.weight"]
    _replace_tensors(mixtral_dir, add)
    with pytest.raises(M.ModelFileError, match=r"unexpected tensor 'model.layers.0.block_sparse_moe.experts.4.w1.weight'"
                                               r".*num_local_experts=4: experts 0–3"):
        M.load(mixtral_dir)


def test_mixtral_config_with_more_experts_than_the_file_is_refused(mixtral_dir):
    _edit_config(mixtral_dir, num_local_experts=5)
    with pytest.raises(M.ModelFileError, match=r"missing tensor 'model.layers.0.block_sparse_moe.experts.4.w1.weight' "
                                               r"\(config.json says num_local_experts=5\)"):
        M.load(mixtral_dir)
    _edit_config(mixtral_dir, num_local_experts=4)  # right count, but a router scoring 5
    _replace_tensors(mixtral_dir, lambda t: t.__setitem__("model.layers.0.block_sparse_moe.gate.weight",
                                                           np.zeros((5, 16), np.float32)))
    with pytest.raises(M.ModelFileError, match=r"gate.weight' has shape \[5, 16\], but config.json implies \[4, 16\] = "
                                               r"\[num_local_experts, hidden_size\]"):
        M.load(mixtral_dir)


def test_fused_experts_of_the_wrong_count_are_refused():
    cfg = tiny_config(mixtral=True, vocab_size=50)
    t = M.random_tensors(cfg, seed=0)
    t["model.layers.0.mlp.experts.down_proj"] = np.zeros((3, 16, 32), np.float32)
    with pytest.raises(M.ModelFileError, match=r"'model.layers.0.mlp.experts.down_proj' has shape \[3, 16, 32\], "
                                               "but config.json says num_local_experts=4"):
        M.Model(cfg, t)
    t["model.layers.0.mlp.experts.down_proj"] = np.zeros((4, 16, 32), np.float32)
    t["model.layers.0.mlp.experts.gate_up_proj"] = np.zeros((4, 32, 16), np.float32)
    with pytest.raises(M.ModelFileError, match=r"2·intermediate_size"):
        M.Model(cfg, t)


def test_a_llama_file_with_expert_tensors_names_the_architecture(tmp_path):
    m = M.random_model(tiny_config(vocab_size=50), seed=0)
    t = dict(m.tensors)
    t["model.layers.0.block_sparse_moe.gate.weight"] = np.zeros((4, 16))
    with pytest.raises(M.ModelFileError, match="describes LlamaForCausalLM, whose layers store one MLP"):
        M.Model(m.config, t)
