"""Model folders from anywhere: whatever a folder holds, ``model.load`` returns a model or
raises one ``ModelFileError`` that names the file (and the field or tensor), quickly and
in bounded memory.

Three kinds of test: a table of every kind of hostile file known (each with the words its
message must contain); a comparison with the ``safetensors`` package on the same corrupted
weight files (whatever the package refuses, the engine refuses too); and a fuzzer that
corrupts valid tiny folders (bytes, lengths, JSON fields, file types) and checks the
property on every result, counting what it tried.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import shutil
import signal
import struct
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from hypothesis import strategies as st

from _fuzz_budget import examples
from tokenpath import model as M
from tokenpath import safetensors_format as S
from tokenpath.lessons.model_files import tiny_config, tiny_model, tiny_tokenizer

needs_posix = pytest.mark.skipif(not hasattr(os, "mkfifo") or not os.path.exists("/dev/zero"),
                                 reason="named pipes and /dev/zero are POSIX")

#: Bounds of the property: CPU seconds and traced peak memory for one load of a tiny folder.
MAX_SECONDS = 1.0
MAX_PEAK_BYTES = 40_000_000
#: A load that has not returned after this many wall-clock seconds counts as a hang.
HANG_SECONDS = 20


# ------------------------------------------------------------------- base folders


@pytest.fixture(scope="module")
def bases(tmp_path_factory):
    """Valid tiny folders: a Llama in one file, the same in shards, a Mixtral."""
    root = tmp_path_factory.mktemp("bases")
    tiny = tiny_model()
    return {
        "single": M.save(root / "single", tiny),
        "sharded": M.save(root / "sharded", tiny, max_shard_size=30_000),
        "mixtral": M.save(root / "mixtral", tiny_model(mixtral=True)),
    }


def _copy(base: Path, where: Path) -> Path:
    if where.exists():
        shutil.rmtree(where)
    shutil.copytree(base, where, symlinks=True)
    return where


@contextlib.contextmanager
def _no_hang(seconds: int = HANG_SECONDS):
    """Turn a load that never returns into a test failure instead of a stuck suite."""
    if not hasattr(signal, "SIGALRM"):  # pragma: no cover - not POSIX
        yield
        return

    def alarm(signum, frame):
        raise TimeoutError(f"no answer after {seconds} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _load_bounded(folder: Path):
    """Load ``folder``; return (model or the ModelFileError, CPU seconds, peak bytes).
    Any other exception propagates and fails the calling test."""
    tracemalloc.start()
    t0 = time.process_time()
    try:
        with _no_hang():
            try:
                result = M.load(folder)
            except M.ModelFileError as err:
                result = err
    finally:
        seconds = time.process_time() - t0
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return result, seconds, peak


def _assert_clear_refusal(folder: Path, err: Exception, file: str | None = None, *words: str):
    """One ModelFileError whose message starts with a path in the folder (the file at
    fault) and holds the given words."""
    assert isinstance(err, M.ModelFileError), f"loaded a folder that should be refused: {err!r}"
    message = str(err)
    assert message.startswith(str(folder)), message
    if file is not None:
        assert message.startswith(f"{folder / file}:"), message
    for w in words:
        assert w in message, (w, message)


# ------------------------------------------------------------- every kind, by table


def _edit_json(path: Path, change):
    d = json.loads(path.read_text())
    change(d)  # in place
    path.write_text(json.dumps(d))


def _replace_in_text(path: Path, old: str, new: str):
    text = path.read_text()
    assert old in text, (old, text[:200])
    path.write_text(text.replace(old, new, 1))


def _replace_file(path: Path, how: str):
    """Put something that is not a regular file (or is one too large) at ``path``."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    if how == "directory":
        path.mkdir()
    elif how == "dangling symlink":
        path.symlink_to(path.parent / "nothing-here")
    elif how == "symlink loop":
        path.symlink_to(path.name)
    elif how == "fifo":
        os.mkfifo(path)
    elif how == "/dev/zero":
        path.symlink_to("/dev/zero")
    elif how == "huge sparse file":
        with open(path, "wb") as f:
            f.truncate(1 << 27)  # 128 MiB of holes: no disk used, larger than any JSON limit here
    elif how == "empty file":
        path.write_bytes(b"")
    else:  # pragma: no cover
        raise ValueError(how)


_FILE_KINDS = {  # how -> words in the message
    "directory": "is a directory, not a file",
    "dangling symlink": "which does not exist",
    "symlink loop": "symbolic link that loops",
    "fifo": "named pipe (FIFO)",
    "/dev/zero": "is a device",
}


@needs_posix
@pytest.mark.parametrize("name", [M.CONFIG_NAME, M.WEIGHTS_NAME, M.TOKENIZER_NAME, M.TOKENIZER_CONFIG_NAME])
@pytest.mark.parametrize("how", list(_FILE_KINDS))
def test_a_file_that_is_not_a_regular_file_is_refused_by_name(bases, tmp_path, name, how):
    folder = _copy(bases["single"], tmp_path / "m")
    _replace_file(folder / name, how)
    err, seconds, _ = _load_bounded(folder)
    _assert_clear_refusal(folder, err, name, _FILE_KINDS[how])
    assert seconds < MAX_SECONDS


@needs_posix
@pytest.mark.parametrize("target", ["index", "shard"])
@pytest.mark.parametrize("how", list(_FILE_KINDS))
def test_an_index_or_shard_that_is_not_a_regular_file_is_refused_by_name(bases, tmp_path, target, how):
    folder = _copy(bases["sharded"], tmp_path / "m")
    name = M.INDEX_NAME if target == "index" else sorted(p.name for p in folder.glob("model-*"))[0]
    _replace_file(folder / name, how)
    err, seconds, _ = _load_bounded(folder)
    _assert_clear_refusal(folder, err, name, _FILE_KINDS[how])
    assert seconds < MAX_SECONDS


@pytest.mark.parametrize("name, words", [
    (M.CONFIG_NAME, "more than the 1,048,576 this reader accepts"),
    (M.TOKENIZER_CONFIG_NAME, "more than the 1,048,576 this reader accepts"),
    (M.TOKENIZER_NAME, "more than the 67,108,864 this reader accepts"),
    (M.WEIGHTS_NAME, "not valid JSON"),  # a header of zero bytes, then holes
])
def test_a_huge_file_is_refused_without_being_read(bases, tmp_path, name, words):
    folder = _copy(bases["single"], tmp_path / "m")
    _replace_file(folder / name, "huge sparse file")
    err, seconds, peak = _load_bounded(folder)
    _assert_clear_refusal(folder, err, name, words)
    assert seconds < MAX_SECONDS and peak < MAX_PEAK_BYTES


BIG = "9" * 5000
DEEP = "[" * 100_000 + "]" * 100_000

QWEN2_MOE = dict(architectures=["Qwen2MoeForCausalLM"], model_type="qwen2_moe", qkv_bias=False, num_experts=4,
                 num_experts_per_tok=2, moe_intermediate_size=8, shared_expert_intermediate_size=8)

# (what is done to config.json, words in the message); the config is the tiny Llama's
CONFIG_CASES = [
    (lambda p: p.write_bytes(b'{"vocab_size": "\xff\xfe"}'), ["not valid JSON", "not UTF-8"]),
    (lambda p: p.write_text("[1, 2, 3]"), ["must hold a JSON object, got list"]),
    (lambda p: p.write_text('"LlamaForCausalLM"'), ["must hold a JSON object, got str"]),
    (lambda p: p.write_text("null"), ["must hold a JSON object, got NoneType"]),
    (lambda p: p.write_text(DEEP), ["nested more than 64 levels deep"]),
    (lambda p: p.write_text('{"a": ' + DEEP + "}"), ["nested more than 64 levels deep"]),
    (lambda p: p.write_text("{"), ["not valid JSON"]),
    (lambda p: p.write_text(""), ["not valid JSON"]),
    (lambda p: _replace_in_text(p, '"vocab_size": 385', '"vocab_size": ' + BIG),
     ["integer of 5000 digits", "'vocab_size'"]),
    (lambda p: _replace_in_text(p, '"rms_norm_eps": 1e-06', '"rms_norm_eps": NaN'), ["NaN", "'rms_norm_eps'"]),
    (lambda p: _replace_in_text(p, '"rms_norm_eps": 1e-06', '"rms_norm_eps": Infinity'),
     ["Infinity", "'rms_norm_eps'"]),
    (lambda p: _replace_in_text(p, '"rms_norm_eps": 1e-06', '"rms_norm_eps": -Infinity'), ["-Infinity"]),
    (lambda p: _replace_in_text(p, '"rms_norm_eps": 1e-06', '"rms_norm_eps": 1e999'),
     ["too large for a float", "'rms_norm_eps'"]),
    (lambda p: _replace_in_text(p, '"vocab_size": 385', '"vocab_size": 385, "vocab_size": 385'),
     ["'vocab_size' twice"]),
    (lambda p: _replace_in_text(p, '"model_type": "llama"', '"model_type": "\\udc00"'), ["lone surrogate"]),
    (lambda p: _edit_json(p, lambda d: d.update(num_hidden_layers=True)), ["num_hidden_layers must be a number"]),
    (lambda p: _edit_json(p, lambda d: d.update(vocab_size=False)), ["vocab_size must be a number"]),
    (lambda p: _edit_json(p, lambda d: d.update(vocab_size="385")), ["vocab_size must be an integer"]),
    (lambda p: _edit_json(p, lambda d: d.update(hidden_size=16.0)), ["hidden_size must be an integer"]),
    (lambda p: _edit_json(p, lambda d: d.update(num_attention_heads=[4])), ["num_attention_heads must be an integer"]),
    (lambda p: _edit_json(p, lambda d: d.update(num_key_value_heads={"n": 2})), ["num_key_value_heads"]),
    (lambda p: _edit_json(p, lambda d: d.update(head_dim=-4)), ["head_dim must be >= 2"]),
    (lambda p: _edit_json(p, lambda d: d.update(rms_norm_eps="small")), ["rms_norm_eps must be a real number"]),
    (lambda p: _edit_json(p, lambda d: d.update(max_position_embeddings=2**70)),
     ["max_position_embeddings is", "2**63"]),
    (lambda p: _edit_json(p, lambda d: d.update(tie_word_embeddings=1)), ["tie_word_embeddings must be true or false"]),
    (lambda p: _edit_json(p, lambda d: d.update(eos_token_id=["x"])), ["eos_token_id[0] must be an integer"]),
    (lambda p: _edit_json(p, lambda d: d.update(eos_token_id=[384, True])), ["eos_token_id[1] must be an integer"]),
    (lambda p: _edit_json(p, lambda d: d.update(bos_token_id=10**6)), ["bos_token_id must be <= 384"]),
    (lambda p: _edit_json(p, lambda d: d.update(architectures="LlamaForCausalLM")), ["architectures is"]),
    (lambda p: _edit_json(p, lambda d: d.update(architectures=[[]], model_type=None)), ["architectures is [[]]"]),
    (lambda p: _edit_json(p, lambda d: d.update(model_type=["llama"])), ["model_type is ['llama']"]),
    (lambda p: _edit_json(p, lambda d: d.update(hidden_act=None)), ["hidden_act is None"]),
    (lambda p: _edit_json(p, lambda d: d.update(attention_bias="no")), ["attention_bias must be true or false"]),
    (lambda p: _edit_json(p, lambda d: d.update(mlp_bias=0)), ["mlp_bias must be true or false"]),
    (lambda p: _edit_json(p, lambda d: d.update(pretraining_tp=True)), ["pretraining_tp is True"]),
    (lambda p: _edit_json(p, lambda d: d.update(pretraining_tp=1.0)), ["pretraining_tp is 1.0"]),
    (lambda p: _edit_json(p, lambda d: d.update(rope_parameters=5)), ["rope_parameters must be an object"]),
    (lambda p: _edit_json(p, lambda d: d.update(rope_parameters={"rope_type": ["x"]})), ["RoPE scaling ['x']"]),
    (lambda p: _edit_json(p, lambda d: d.update(rope_theta="x")), ["rope_theta must be a number, got 'x'"]),
    (lambda p: _edit_json(p, lambda d: d.update(rope_theta=True)), ["rope_theta must be a number, got True"]),
    (lambda p: _edit_json(p, lambda d: d["rope_parameters"].update(rope_theta=[1])), ["rope_theta must be a number"]),
    (lambda p: _edit_json(p, lambda d: d.update(rope_theta=2**100)), ["rope_theta is", "too large"]),
    (lambda p: _edit_json(p, lambda d: d.update(sliding_window=list(range(1000)))), ["sliding_window is [0, 1, 2"]),
    (lambda p: _edit_json(p, lambda d: d.pop("hidden_size")), ["has no 'hidden_size'"]),
    # numbers that would make the engine list a billion tensor names before comparing
    (lambda p: _edit_json(p, lambda d: d.update(num_hidden_layers=10**9)),
     ["model.safetensors: missing tensor 'model.layers.2.", "num_hidden_layers=1000000000"]),
    (lambda p: _edit_json(p, lambda d: d.update(architectures=["MixtralForCausalLM"], model_type="mixtral",
                                                 num_local_experts=10**8)),
     ["missing tensor 'model.layers.0.block_sparse_moe.gate.weight'", "num_local_experts=100000000"]),
    # the tiny Llama's file renamed a Qwen2-MoE (no biases): its fields refused by name
    *[(lambda p, kw=kw: _edit_json(p, lambda d: d.update(QWEN2_MOE, **kw)), words) for kw, words in (
        (dict(num_experts=10**8), ["missing tensor 'model.layers.0.mlp.gate.weight'", "num_experts=100000000"]),
        (dict(norm_topk_prob=1), ["norm_topk_prob must be true or false, got 1"]),
        (dict(qkv_bias="no"), ["qkv_bias must be true or false"]),
        (dict(decoder_sparse_step=2), ["decoder_sparse_step is 2", "dense MLP"]),
        (dict(decoder_sparse_step=0), ["decoder_sparse_step must be >= 1"]),
        (dict(mlp_only_layers=[0]), ["mlp_only_layers is [0]"]),
        (dict(mlp_only_layers="0"), ["mlp_only_layers must be a list"]),
        (dict(num_experts=0), ["num_experts must be >= 1"]),
        (dict(num_experts_per_tok=5), ["num_experts_per_tok must be <= 4"]),
        (dict(moe_intermediate_size=True), ["moe_intermediate_size must be a number"]),
        (dict(shared_expert_intermediate_size=2**70), ["shared_expert_intermediate_size is", "2**63"]),
        (dict(use_sliding_window=True, sliding_window=4), ["use_sliding_window is true"]))],
    (lambda p: _edit_json(p, lambda d: d.update(vocab_size=10**18, eos_token_id=None)),
     ["'model.embed_tokens.weight' has shape [385, 16], but config.json implies [1000000000000000000, 16]"]),
    (lambda p: _edit_json(p, lambda d: d.update(hidden_size=2**62, head_dim=4)), ["has shape"]),
    (lambda p: _edit_json(p, lambda d: d.update(intermediate_size=2**62)), ["has shape"]),
]


@pytest.mark.parametrize("case", range(len(CONFIG_CASES)))
def test_hostile_config_is_refused_naming_the_file_and_the_field(bases, tmp_path, case):
    change, words = CONFIG_CASES[case]
    folder = _copy(bases["single"], tmp_path / "m")
    change(folder / M.CONFIG_NAME)
    err, seconds, peak = _load_bounded(folder)
    file = M.WEIGHTS_NAME if "missing tensor" in str(err) or "has shape" in str(err) else M.CONFIG_NAME
    _assert_clear_refusal(folder, err, file, *words)
    assert seconds < MAX_SECONDS and peak < MAX_PEAK_BYTES


def test_config_dict_with_numbers_too_large_for_text_is_refused_by_field():
    """``from_dict`` takes Python dicts too, where an int may have more digits than
    Python will print."""
    d = tiny_config().to_dict()
    with pytest.raises(M.ModelFileError, match="vocab_size is <an integer of 5001 digits>"):
        M.LlamaConfig.from_dict({**d, "vocab_size": 10**5000})
    with pytest.raises(M.ModelFileError, match="rope_theta is"):
        M.LlamaConfig.from_dict({**d, "rope_parameters": {"rope_theta": 10**400}})
    with pytest.raises(M.ModelFileError, match="field names"):
        M.LlamaConfig.from_dict({1: 2})


def _write_header(path: Path, text: str | bytes, data: bytes):
    raw = text.encode("utf-8") if isinstance(text, str) else text
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + data)


def _header_of(path: Path) -> tuple[dict, bytes]:
    raw = path.read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    return json.loads(raw[8:8 + n]), raw[8 + n:]


def _edit_header(change):
    def edit(path: Path):
        header, data = _header_of(path)
        out = change(header)
        _write_header(path, json.dumps(header) if out is None else out, data)
    return edit


NORM = "model.norm.weight"
# (what is done to model.safetensors, words in the message)
HEADER_CASES = [
    (_edit_header(lambda h: h[NORM].update(dtype=["F32"])), ["'model.norm.weight' has unknown dtype ['F32']"]),
    (_edit_header(lambda h: h[NORM].update(dtype={"F32": 1})), ["unknown dtype"]),
    (_edit_header(lambda h: h[NORM].update(dtype=None)), ["unknown dtype None"]),
    (_edit_header(lambda h: json.dumps(h).replace('"pt"', DEEP)), ["nested more than 64 levels deep"]),
    (_edit_header(lambda h: json.dumps(h).replace('"data_offsets": [0,', '"data_offsets": [' + BIG + ",", 1)),
     ["integer of 5000 digits", "'data_offsets'"]),
    (_edit_header(lambda h: json.dumps(list(h))), ["must be a JSON object of tensors, got list"]),
    (_edit_header(lambda h: '"text"'), ["got str"]),
    (_edit_header(lambda h: "12"), ["got int"]),
    (_edit_header(lambda h: "null"), ["got NoneType"]),
    (_edit_header(lambda h: h[NORM].update(shape=[2**32, 2**32, 2**32])), ["more bytes than any file holds"]),
    (_edit_header(lambda h: h[NORM].update(shape=[0, 2**40, 2**40])), ["more bytes than any file holds"]),
    (_edit_header(lambda h: h[NORM].update(shape=[2**64])), ["has shape"]),
    (_edit_header(lambda h: h[NORM].update(shape=[1] * 40)), ["at most 32"]),
    (_edit_header(lambda h: h[NORM].update(shape=[16.0])), ["has shape [16.0]"]),
    (_edit_header(lambda h: h[NORM].update(shape=[True] * 16)), ["has shape"]),
    (_edit_header(lambda h: h[NORM].update(shape="16")), ["has shape '16'"]),
    (_edit_header(lambda h: json.dumps(h).replace('"shape": [16]', '"shape": [-0, 16]')), ["has shape [-0, 16]"]),
    (_edit_header(lambda h: h[NORM].update(data_offsets=[0, 64, 128])), ["data_offsets [0, 64, 128]"]),
    (_edit_header(lambda h: h[NORM].update(data_offsets=[64, 0])), ["data_offsets [64, 0]"]),
    (_edit_header(lambda h: h[NORM].update(data_offsets=None)), ["data_offsets None"]),
    (_edit_header(lambda h: h[NORM].update(data_offsets=[10**9, 10**9 + 64])), ["leaves a gap"]),
    (_edit_header(lambda h: h[NORM].update(data_offsets=[0, 64])), ["overlaps"]),
    (_edit_header(lambda h: h.pop(NORM) and None), ["64 bytes follow the last tensor"]),
    (_edit_header(lambda h: h.update({"__metadata__": []})), ["__metadata__ must map strings to strings"]),
    (_edit_header(lambda h: h.update({"__metadata__": {"format": None}})), ["__metadata__ must map strings"]),
    (_edit_header(lambda h: h.update({"__metadata__": {"format": 1}})), ["__metadata__ must map strings"]),
    (_edit_header(lambda h: h.update({"__metadata__": "pt"})), ["__metadata__ must map strings"]),
    (_edit_header(lambda h: h.update({NORM: [1, 2]})), ["must be an object with dtype, shape and data_offsets"]),
    (_edit_header(lambda h: json.dumps(h).replace('"shape": [16]', '"shape": [NaN]')), ["NaN"]),
    (_edit_header(lambda h: json.dumps(h).replace('"model.norm.weight"', '"\\ud800"')), ["lone surrogate"]),
    (_edit_header(lambda h: json.dumps(h).replace('"shape": [16]', '"shape": [16], "shape": [16]')),
     ["'shape' twice"]),
    (_edit_header(lambda h: json.dumps(h).encode() + b"\xff"), ["not UTF-8"]),
    (_edit_header(lambda h: json.dumps(h) + "\x00"), ["not valid JSON"]),
    (lambda p: p.write_bytes(p.read_bytes()[:-10]), ["the file is truncated"]),
    (lambda p: p.write_bytes(p.read_bytes()[:5]), ["too short for the 8-byte header length"]),
    (lambda p: p.write_bytes(struct.pack("<Q", 2**64 - 1) + p.read_bytes()[8:]), ["the header claims"]),
    (lambda p: p.write_bytes(p.read_bytes() + b"\0"), ["1 bytes follow the last tensor"]),
]


@pytest.mark.parametrize("case", range(len(HEADER_CASES)))
def test_hostile_weight_file_is_refused_naming_the_file_and_the_tensor(bases, tmp_path, case):
    change, words = HEADER_CASES[case]
    folder = _copy(bases["single"], tmp_path / "m")
    change(folder / M.WEIGHTS_NAME)
    err, seconds, peak = _load_bounded(folder)
    _assert_clear_refusal(folder, err, M.WEIGHTS_NAME, *words)
    assert seconds < MAX_SECONDS and peak < MAX_PEAK_BYTES


def _first_shard(folder: Path) -> str:
    return sorted(p.name for p in folder.glob("model-*"))[0]


INDEX_CASES = [
    (lambda d: _edit_json(d / M.INDEX_NAME, lambda i: i["weight_map"].update({NORM: 5})),
     M.INDEX_NAME, ["weight_map['model.norm.weight'] gives shard name 5"]),
    (lambda d: _edit_json(d / M.INDEX_NAME, lambda i: i["weight_map"].update({NORM: ["a"]})),
     M.INDEX_NAME, ["shard name ['a']"]),
    (lambda d: _edit_json(d / M.INDEX_NAME, lambda i: i["weight_map"].update({NORM: None})),
     M.INDEX_NAME, ["shard name None"]),
    (lambda d: _edit_json(d / M.INDEX_NAME, lambda i: i["weight_map"].update({NORM: ".."})),
     M.INDEX_NAME, ["shard name '..'"]),
    (lambda d: _edit_json(d / M.INDEX_NAME, lambda i: i["weight_map"].update({NORM: ""})),
     M.INDEX_NAME, ["shard name ''"]),
    (lambda d: _edit_json(d / M.INDEX_NAME, lambda i: i["weight_map"].update({NORM: "a\x00b"})),
     M.INDEX_NAME, ["must be a file name in the directory"]),
    (lambda d: _edit_json(d / M.INDEX_NAME, lambda i: i["weight_map"].update({NORM: "/etc/passwd"})),
     M.INDEX_NAME, ["must be a file name in the directory"]),
    (lambda d: _edit_json(d / M.INDEX_NAME, lambda i: i["weight_map"].update({NORM: M.CONFIG_NAME})),
     M.CONFIG_NAME, ["not safetensors"]),
    (lambda d: _edit_json(d / M.INDEX_NAME, lambda i: i.update(weight_map=list(i["weight_map"]))),
     M.INDEX_NAME, ["has no 'weight_map'"]),
    (lambda d: _edit_json(d / M.INDEX_NAME, lambda i: i.update(weight_map={})), M.INDEX_NAME, ["has no 'weight_map'"]),
    (lambda d: (d / M.INDEX_NAME).write_text("[" + (d / M.INDEX_NAME).read_text() + "]"),
     M.INDEX_NAME, ["must hold a JSON object, got list"]),
    (lambda d: (d / M.INDEX_NAME).write_text('{"weight_map": ' + DEEP + "}"), M.INDEX_NAME, ["nested more than"]),
    (lambda d: (d / M.INDEX_NAME).write_text('{"metadata": {"total_size": ' + BIG + "}}"),
     M.INDEX_NAME, ["integer of 5000 digits", "'total_size'"]),
    (lambda d: _edit_json(d / M.INDEX_NAME, lambda i: i["weight_map"].update({"extra.weight": _first_shard(d)})),
     M.INDEX_NAME, ["places tensor 'extra.weight'"]),
    (lambda d: (d / _first_shard(d)).write_bytes((d / _first_shard(d)).read_bytes()[:100]),
     None, ["the header claims"]),
]


@pytest.mark.parametrize("case", range(len(INDEX_CASES)))
def test_hostile_index_is_refused_before_anything_is_sorted(bases, tmp_path, case):
    change, file, words = INDEX_CASES[case]
    folder = _copy(bases["sharded"], tmp_path / "m")
    change(folder)
    err, seconds, peak = _load_bounded(folder)
    _assert_clear_refusal(folder, err, file, *words)
    assert seconds < MAX_SECONDS and peak < MAX_PEAK_BYTES


def test_tokenizer_config_that_is_not_a_json_object_is_refused(bases, tmp_path):
    folder = _copy(bases["single"], tmp_path / "m")
    (folder / M.TOKENIZER_CONFIG_NAME).write_text("[]")
    err, _, _ = _load_bounded(folder)
    _assert_clear_refusal(folder, err, M.TOKENIZER_CONFIG_NAME, "must hold a JSON object")
    (folder / M.TOKENIZER_CONFIG_NAME).write_text("{")
    err, _, _ = _load_bounded(folder)
    _assert_clear_refusal(folder, err, M.TOKENIZER_CONFIG_NAME, "not valid JSON")


def test_a_tokenizer_larger_than_the_config_vocabulary_names_tokenizer_json(bases, tmp_path):
    folder = _copy(bases["single"], tmp_path / "m")
    small = M.random_model(tiny_config(vocab_size=300), seed=0)
    M.save(folder, small)  # config and weights for 300 IDs, tokenizer.json of 385 left in place
    err, _, _ = _load_bounded(folder)
    _assert_clear_refusal(folder, err, M.TOKENIZER_NAME, "385 IDs but config vocab_size is 300")


def test_load_and_read_config_refuse_a_non_path_argument():
    with pytest.raises(TypeError, match="directory must be a path"):
        M.load(5)
    with pytest.raises(TypeError, match="directory must be a path"):
        M.list_files(None)
    with pytest.raises(TypeError, match="path must be a path"):
        M.read_config(b"config.json")
    with pytest.raises(TypeError, match="config must be a LlamaConfig"):
        M.tensor_shapes({"vocab_size": 5})
    with pytest.raises(TypeError, match="keyed by tensor names"):
        M.Model(tiny_config(), {1: np.zeros(1)})
    with pytest.raises(ValueError, match="directory 'no\\\\x00where' holds a NUL character"):
        M.load("no\x00where")


def test_the_readers_and_writers_refuse_bad_arguments_by_name(tmp_path):
    tiny = M.random_model(M.LlamaConfig(10, 8, 16, 1, 4, 2), seed=0)
    for f in (S.read_header, S.raw_header, S.load_tensors, S.open_regular_file):
        with pytest.raises(TypeError, match="path must be a path"):
            f(b"w.safetensors")
    with pytest.raises(TypeError, match="path must be a path"):
        S.save_tensors(None, {"a": np.zeros(1, np.float32)})
    with pytest.raises(TypeError, match="metadata must be a dict of str -> str"):
        S.save_tensors(tmp_path / "w.safetensors", {"a": np.zeros(1, np.float32)}, {"format": 1})
    with pytest.raises(TypeError, match="max_bytes must be a non-negative integer"):
        S.read_json(tmp_path / "x.json", max_bytes="10")
    with pytest.raises(TypeError, match="max_bytes must be a non-negative integer or None"):
        S.open_regular_file(tmp_path, max_bytes=-1)
    with pytest.raises(TypeError, match="raw must be bytes"):
        S.parse_json("x.json", "{}")
    for bad in ("3", -1, True):
        with pytest.raises(TypeError, match="max_containers must be a non-negative integer or None"):
            S.read_json(tmp_path / "x.json", max_bytes=10, max_containers=bad)
        with pytest.raises(TypeError, match="max_containers must be a non-negative integer or None"):
            S.parse_json("x.json", b"{}", max_containers=bad)
    with pytest.raises(TypeError, match="directory must be a path"):
        M.save(5, tiny)
    (tmp_path / "a-file").write_text("")
    with pytest.raises(ValueError, match="exists and is not a directory"):
        M.save(tmp_path / "a-file", tiny)
    with pytest.raises(ValueError, match="dtype must be"):
        M.save(tmp_path / "d", tiny, dtype=np.float32)
    with pytest.raises(TypeError, match="name must be a tensor name"):
        M.tensor_role(["model.norm.weight"])
    with pytest.raises(TypeError, match="dtypes must be a mapping"):
        M.Model(tiny.config, dict(tiny.tensors), dtypes=[1])
    with pytest.raises(TypeError, match="vocab_size must be an integer"):
        tiny_config(vocab_size="385")
    with pytest.raises(TypeError, match="mixtral must be True or False"):
        tiny_config(vocab_size=50, mixtral=np.ones(2))
    for f in (tiny_config, tiny_model):
        with pytest.raises(TypeError, match="tied must be True or False"):
            f(tied=np.zeros(0))


def test_paths_that_no_file_can_have_are_refused_by_argument(tmp_path):
    """An empty path (which would quietly mean the current folder), a NUL character
    or a lone surrogate: refused before the operating system sees them."""
    readers = (S.read_header, S.raw_header, S.load_tensors, S.open_regular_file, M.read_config,
               M.read_tokenizer, lambda p: S.read_json(p, max_bytes=10))
    for bad, why in (("", "must not be empty"), ("w\x00.json", "holds a NUL character"),
                     ("\ud800.json", "lone surrogate")):
        for f in readers:
            with pytest.raises(ValueError, match=f"path.*{why}"):
                f(bad)
        for f in (M.load, M.list_files, lambda d: M.write_tokenizer(d, tiny_tokenizer())):
            with pytest.raises(ValueError, match=f"directory.*{why}"):
                f(bad)
        with pytest.raises(ValueError, match=f"path.*{why}"):
            S.save_tensors(bad, {"a": np.zeros(1, np.float32)})


def test_the_safetensors_helpers_refuse_bad_arguments_by_name(tmp_path):
    p = tmp_path / "w.safetensors"
    S.save_tensors(p, {"a": np.zeros(2, np.float32)})
    with pytest.raises(ValueError, match="path .* is a directory"):
        S.save_tensors(tmp_path, {"a": np.zeros(1, np.float32)})
    with pytest.raises(ValueError, match="path .* cannot be written"):
        S.save_tensors(tmp_path / "no" / "such" / "w.safetensors", {"a": np.zeros(1, np.float32)})
    with pytest.raises(TypeError, match="name must be a tensor name"):
        S.read_tensor_by_hand(p, None)
    with pytest.raises(S.ModelFileError, match="no tensor named 'b'.*name must be one of \\['a'\\]"):
        S.read_tensor_by_hand(p, "b")
    with pytest.raises(TypeError, match="float_only must be True or False"):
        S.load_tensors(p, float_only=np.ones(2))
    with pytest.raises(TypeError, match="what must be a str"):
        S.read_json(p, max_bytes=10, what=None)
    with pytest.raises(TypeError, match="what must be a str"):
        S.open_regular_file(p, what=3)
    (tmp_path / "a-file").write_text("")
    with pytest.raises(ValueError, match="directory .* cannot be created"):
        M.write_tokenizer(tmp_path / "a-file" / "sub", tiny_tokenizer())


def test_every_valid_base_folder_loads_within_the_bounds(bases):
    for folder in bases.values():
        result, seconds, peak = _load_bounded(folder)
        assert isinstance(result, M.Model), result
        assert seconds < MAX_SECONDS and peak < MAX_PEAK_BYTES


def test_the_json_reader_reads_plain_files_and_refuses_by_name(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"a": [1, 2.5, "s", null, true], "b": {"c": -0}}')
    assert S.read_json(p, max_bytes=100) == {"a": [1, 2.5, "s", None, True], "b": {"c": 0}}
    with pytest.raises(M.ModelFileError, match=f"x.json: has {p.stat().st_size} bytes, more than the 10 this "):
        S.read_json(p, max_bytes=10)
    p.write_text("[" * 64 + "]" * 64)
    assert S.read_json(p, max_bytes=1000) == json.loads(p.read_text())  # 64 levels is the limit, inclusive
    p.write_text("[" * 65 + "]" * 65)
    with pytest.raises(M.ModelFileError, match="nested more than 64"):
        S.read_json(p, max_bytes=1000)
    p.write_text('"\\ud83d\\ude00"')  # a surrogate pair is one character, not a lone surrogate
    assert S.read_json(p, max_bytes=100) == "\U0001F600"
    p.write_text('[[], {"a": []}, "[ and { in a string count too"]')
    assert S.read_json(p, max_bytes=100, max_containers=6) == json.loads(p.read_text())  # inclusive
    with pytest.raises(M.ModelFileError, match="x.json: not valid JSON here: it holds more than 5 arrays and objects"):
        S.read_json(p, max_bytes=100, max_containers=5)


# ------------------------------------------- the engine refuses what safetensors refuses


def _package_refuses(path: Path) -> bool:
    """True if the ``safetensors`` package refuses to open the file or to read any of
    its tensors (any exception counts, e.g. NumPy's for a shape it cannot hold)."""
    safetensors = pytest.importorskip("safetensors")
    try:
        with safetensors.safe_open(str(path), framework="numpy") as f:
            for k in f.keys():
                f.get_tensor(k)
    except Exception:
        return True
    return False


def _engine_refuses(path: Path) -> bool:
    try:
        S.load_tensors(path, float_only=False)
    except S.ModelFileError as err:
        assert str(err).startswith(str(path)), err
        return True
    return False


_HOSTILE_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(-2**66, 2**66), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6), st.sampled_from(["F32", "F16", "BF16", "I64", "BOOL", "F8_E4M3", "C64", "F4", "f32"]),
)
_HOSTILE_VALUES = st.recursive(_HOSTILE_LEAVES, lambda kids: st.one_of(
    st.lists(kids, max_size=4), st.dictionaries(st.text(max_size=4), kids, max_size=3)), max_leaves=6)

#: Placeholders written as plain JSON strings, replaced in the text by what json.dumps cannot write.
_RAW = {"@NAN@": "NaN", "@INF@": "-Infinity", "@BIG@": "9" * 5000, "@DEEP@": "[" * 3000 + "]" * 3000,
        "@NEGZERO@": "-0", "@SURROGATE@": '"\\udfff"', "@FLOATINT@": "16.0"}
_SPECIAL = st.sampled_from([f'"{k}"' for k in _RAW])


def _header_mutation():
    """A change to a parsed header: (description, function of (header dict) -> text)."""
    field = st.sampled_from(["dtype", "shape", "data_offsets", "extra"])
    value = st.one_of(_HOSTILE_VALUES.map(json.dumps), _SPECIAL,
                      st.lists(st.integers(0, 2**65), max_size=4).map(json.dumps))
    entry_edit = st.tuples(st.integers(0, 100), field, value).map(lambda t: ("entry field", t))
    entry_drop = st.tuples(st.integers(0, 100), field).map(lambda t: ("entry field deleted", t))
    whole = st.one_of(_HOSTILE_VALUES.map(json.dumps), _SPECIAL).map(lambda v: ("entry replaced", v))
    meta = st.one_of(_HOSTILE_VALUES.map(json.dumps), _SPECIAL).map(lambda v: ("__metadata__", v))
    top = st.one_of(_HOSTILE_VALUES.map(json.dumps), _SPECIAL).map(lambda v: ("header replaced", v))
    return st.one_of(entry_edit, entry_drop, whole, meta, top)


def _apply_header_mutation(header: dict, mutation) -> str:
    kind, arg = mutation
    names = [k for k in header if k != "__metadata__"]
    if kind == "header replaced":
        return _raw(arg)
    if kind == "entry field deleted":
        i, field = arg
        header[names[i % len(names)]].pop(field, None)
        return _raw(json.dumps(header))
    if kind == "entry field":
        i, field, value = arg
        header[names[i % len(names)]][field] = "@VALUE@"
    elif kind == "entry replaced":
        value = arg
        header[names[0]] = "@VALUE@"
    else:  # __metadata__
        value = arg
        header["__metadata__"] = "@VALUE@"
    return _raw(json.dumps(header).replace('"@VALUE@"', value))


def _raw(text: str) -> str:
    for k, v in _RAW.items():
        text = text.replace(f'"{k}"', v)
    return text


def _file_mutation():
    """A change to the bytes of a safetensors file: (kind, arguments)."""
    return st.one_of(
        st.tuples(st.just("header byte"), st.integers(0, 10**6), st.integers(0, 255)),
        st.tuples(st.just("data byte"), st.integers(0, 10**6), st.integers(0, 255)),
        st.tuples(st.just("truncate"), st.integers(0, 10**6)),
        st.tuples(st.just("append"), st.binary(min_size=1, max_size=16)),
        st.tuples(st.just("length field"), st.one_of(st.tuples(st.just("set"), st.integers(0, 2**64 - 1)),
                                                     st.tuples(st.just("shift"), st.integers(-64, 64)))),
        st.tuples(st.just("header json"), _header_mutation()),
    )


def _mutate_weight_file(path: Path, mutation) -> str:
    raw = bytearray(path.read_bytes())
    n = struct.unpack("<Q", raw[:8])[0]
    kind = mutation[0]
    if kind == "header byte":
        _, at, b = mutation
        raw[at % (8 + n)] = b
    elif kind == "data byte":
        _, at, b = mutation
        if len(raw) > 8 + n:
            raw[8 + n + at % (len(raw) - 8 - n)] = b
    elif kind == "truncate":
        del raw[mutation[1] % len(raw):]
    elif kind == "append":
        raw += mutation[1]
    elif kind == "length field":
        how, v = mutation[1]
        raw[:8] = struct.pack("<Q", v if how == "set" else max(0, n + v))
    else:
        header = json.loads(raw[8:8 + n])
        text = _apply_header_mutation(header, mutation[1]).encode("utf-8", "surrogatepass")
        raw = bytearray(struct.pack("<Q", len(text)) + text + raw[8 + n:])
    path.write_bytes(bytes(raw))
    return kind


@pytest.fixture(scope="module")
def weight_file_bytes(tmp_path_factory):
    """A small safetensors file with several dtypes, as the package writes it."""
    from safetensors.numpy import save_file

    path = tmp_path_factory.mktemp("w") / "w.safetensors"
    save_file({"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.ones(4, dtype=np.float16),
               "c": np.arange(3, dtype=np.int64), "d": np.zeros((0, 2), dtype=np.float64)}, str(path),
              metadata={"format": "pt"})
    return path.read_bytes()


DIFFERENTIAL = collections.Counter()


def _totals(counts: collections.Counter, *parts: int) -> collections.Counter:
    """Counts summed over the key positions not in ``parts``."""
    out = collections.Counter()
    for key, n in counts.items():
        out[tuple(key[i] for i in parts) if len(parts) > 1 else key[parts[0]]] += n
    return out


@settings(max_examples=examples(120), derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(mutation=_file_mutation())
def test_whatever_the_safetensors_package_refuses_the_engine_refuses(tmp_path, weight_file_bytes, mutation):
    pytest.importorskip("safetensors")
    path = tmp_path / "w.safetensors"
    path.write_bytes(weight_file_bytes)
    kind = _mutate_weight_file(path, mutation)
    package, engine = _package_refuses(path), _engine_refuses(path)
    DIFFERENTIAL[kind, "package refuses" if package else "package reads", "engine refuses" if engine else "engine reads"] += 1
    if package:
        assert engine, f"the safetensors package refuses {mutation!r}, the engine reads it"


def test_the_differential_run_met_every_kind_of_change():
    """Runs after the comparison above (same module, file order): it must have tried
    every kind of change and met refusals by both readers and files both read."""
    if not DIFFERENTIAL:
        pytest.skip("the comparison did not run in this session")
    kinds = {k for k, _, _ in DIFFERENTIAL}
    assert kinds == {"header byte", "data byte", "truncate", "append", "length field", "header json"}
    outcomes = {(p, e) for _, p, e in DIFFERENTIAL}
    assert ("package refuses", "engine refuses") in outcomes and ("package reads", "engine reads") in outcomes
    assert ("package refuses", "engine reads") not in outcomes
    print("\nsafetensors comparison:", sum(DIFFERENTIAL.values()), "files;", dict(_totals(DIFFERENTIAL, 1, 2)))
    for key, count in sorted(DIFFERENTIAL.items()):
        print("  ", key, count)


# ----------------------------------------------------------- the folder fuzzer

_FOLDER_FILES = [M.CONFIG_NAME, M.WEIGHTS_NAME, M.TOKENIZER_NAME, M.TOKENIZER_CONFIG_NAME]
_CONFIG_FIELDS = ["vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
                  "num_key_value_heads", "head_dim", "rms_norm_eps", "rope_parameters", "rope_theta",
                  "tie_word_embeddings", "max_position_embeddings", "bos_token_id", "eos_token_id", "architectures",
                  "model_type", "hidden_act", "attention_bias", "mlp_bias", "pretraining_tp", "sliding_window",
                  "rope_scaling", "num_local_experts", "num_experts_per_tok", "unknown_field"]
_HUGE_NUMBERS = st.sampled_from([10**9, 10**8, 10**18, 2**63 - 1, 2**63, 2**64, -1, 0, 10**30])


def _json_value():
    return st.one_of(_HOSTILE_VALUES.map(json.dumps), _SPECIAL, _HUGE_NUMBERS.map(str))


def _folder_corruption():
    """(kind, arguments) of one change to a folder."""
    file_types = st.sampled_from(["directory", "dangling symlink", "symlink loop", "fifo", "/dev/zero",
                                  "empty file", "deleted"])
    return st.one_of(
        st.tuples(st.just("weights bytes"), _file_mutation()),
        st.tuples(st.just("config field"), st.sampled_from(_CONFIG_FIELDS), _json_value()),
        st.tuples(st.just("config field deleted"), st.sampled_from(_CONFIG_FIELDS)),
        st.tuples(st.just("config text"), st.one_of(_json_value(), st.binary(max_size=40).map(
            lambda b: b.decode("latin-1")))),
        st.tuples(st.just("config byte"), st.integers(0, 10**5), st.integers(0, 255)),
        st.tuples(st.just("index weight_map value"), st.integers(0, 1000), _json_value()),
        st.tuples(st.just("index field"), st.sampled_from(["weight_map", "metadata"]), _json_value()),
        st.tuples(st.just("shard bytes"), st.integers(0, 10), _file_mutation()),
        st.tuples(st.just("file type"), st.sampled_from(_FOLDER_FILES + [M.INDEX_NAME, "shard"]), file_types),
        st.tuples(st.just("tokenizer_config text"), _json_value()),
    )


def _set_json_field(path: Path, key: str, value_text: str):
    d = json.loads(path.read_text())
    d[key] = "@VALUE@"
    path.write_text(json.dumps(d).replace('"@VALUE@"', _raw(value_text)), encoding="utf-8", errors="surrogatepass")


def _corrupt(folder: Path, corruption) -> str:
    kind = corruption[0]
    sharded = (folder / M.INDEX_NAME).exists()
    shards = sorted(p.name for p in folder.glob("model-*"))
    weights = folder / (shards[0] if sharded else M.WEIGHTS_NAME)
    config = folder / M.CONFIG_NAME
    if kind == "weights bytes":
        _mutate_weight_file(weights, corruption[1])
    elif kind == "shard bytes":
        if sharded:
            _mutate_weight_file(folder / shards[corruption[1] % len(shards)], corruption[2])
        else:
            _mutate_weight_file(weights, corruption[2])
    elif kind == "config field":
        _set_json_field(config, corruption[1], corruption[2])
    elif kind == "config field deleted":
        _edit_json(config, lambda d: d.pop(corruption[1], None))
    elif kind == "config text":
        config.write_text(_raw(corruption[1]), encoding="utf-8", errors="surrogatepass")
    elif kind == "config byte":
        raw = bytearray(config.read_bytes())
        raw[corruption[1] % len(raw)] = corruption[2]
        config.write_bytes(bytes(raw))
    elif kind == "index weight_map value":
        if sharded:
            idx = json.loads((folder / M.INDEX_NAME).read_text())
            names = sorted(idx["weight_map"])
            idx["weight_map"][names[corruption[1] % len(names)]] = "@VALUE@"
            (folder / M.INDEX_NAME).write_text(json.dumps(idx).replace('"@VALUE@"', _raw(corruption[2])),
                                               errors="surrogatepass")
        else:
            _set_json_field(config, "vocab_size", corruption[2])
            kind = "config field"
    elif kind == "index field":
        _set_json_field(folder / M.INDEX_NAME if sharded else config, corruption[1], corruption[2])
        kind = kind if sharded else "config field"
    elif kind == "file type":
        name, how = corruption[1], corruption[2]
        if name == "shard":
            name = shards[0] if sharded else M.WEIGHTS_NAME
        if name == M.INDEX_NAME and not sharded:
            name = M.WEIGHTS_NAME
        path = folder / name
        if how == "deleted":
            path.unlink(missing_ok=True)
        elif how in ("fifo", "/dev/zero") and not (hasattr(os, "mkfifo") and os.path.exists("/dev/zero")):
            path.unlink()  # pragma: no cover - not POSIX
        else:
            _replace_file(path, how)
    elif kind == "tokenizer_config text":
        (folder / M.TOKENIZER_CONFIG_NAME).write_text(_raw(corruption[1]), errors="surrogatepass")
    return kind


FUZZ = collections.Counter()


@settings(max_examples=examples(120), derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(base=st.sampled_from(["single", "sharded", "mixtral"]), corruption=_folder_corruption())
def test_any_corrupted_folder_loads_or_is_refused_clearly_fast_and_in_bounded_memory(bases, tmp_path, base,
                                                                                     corruption):
    folder = _copy(bases[base], tmp_path / "fuzz")
    kind = _corrupt(folder, corruption)
    result, seconds, peak = _load_bounded(folder)
    if isinstance(result, M.ModelFileError):
        message = str(result)
        named = [p for p in (*_FOLDER_FILES, M.INDEX_NAME, "model-") if message.startswith(f"{folder / p}")]
        assert named or message.startswith(f"{folder}: has neither"), message
        outcome = "refused"
    else:
        assert isinstance(result, M.Model)
        outcome = "loaded"
    assert seconds < MAX_SECONDS, (corruption, seconds)
    assert peak < MAX_PEAK_BYTES, (corruption, peak)
    FUZZ[base, kind, outcome] += 1


def test_the_folder_fuzzer_met_every_kind_of_corruption_and_both_outcomes():
    if not FUZZ:
        pytest.skip("the fuzzer did not run in this session")
    kinds = {k for _, k, _ in FUZZ}
    assert kinds == {"weights bytes", "shard bytes", "config field", "config field deleted", "config text",
                     "config byte", "index weight_map value", "index field", "file type", "tokenizer_config text"}
    assert {o for _, _, o in FUZZ} == {"loaded", "refused"}
    assert {b for b, _, _ in FUZZ} == {"single", "sharded", "mixtral"}
    print("\nfolder fuzzer:", sum(FUZZ.values()), "folders;", dict(_totals(FUZZ, 2)), dict(_totals(FUZZ, 0)))
    for key, count in sorted(FUZZ.items()):
        print("  ", key, count)


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="Linux /proc")
def test_a_special_file_that_claims_to_be_regular_but_cannot_be_read_is_named(bases, tmp_path):
    folder = _copy(bases["single"], tmp_path / "m")
    (folder / M.WEIGHTS_NAME).unlink()
    (folder / M.WEIGHTS_NAME).symlink_to("/proc/self/mem")  # a regular file of size 0 that refuses reads
    err, seconds, _ = _load_bounded(folder)
    _assert_clear_refusal(folder, err, M.WEIGHTS_NAME, "cannot be read")


def _sparse_weight_file(path: Path, shapes: dict[str, tuple[int, ...]]):
    """A well-formed F32 safetensors file of the given shapes whose data is all holes
    (zeros that take no disk): as large as it claims, yet cheap to make."""
    header, at = {}, 0
    for name, shape in shapes.items():
        n = 4 * int(np.prod(shape, dtype=np.int64))
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [at, at + n]}
        at += n
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        f.truncate(8 + len(text) + at)


def test_weights_that_disagree_with_the_config_are_refused_before_any_is_read(bases, tmp_path):
    """The headers are compared with config.json first: a 4 GiB embedding in a folder
    whose config asks for 385 rows is refused without reading it."""
    folder = _copy(bases["single"], tmp_path / "m")
    shapes = M.tensor_shapes(M.read_config(folder / M.CONFIG_NAME))
    shapes["model.embed_tokens.weight"] = (1 << 26, 16)
    _sparse_weight_file(folder / M.WEIGHTS_NAME, shapes)
    assert (folder / M.WEIGHTS_NAME).stat().st_size > 4 << 30
    err, seconds, peak = _load_bounded(folder)
    _assert_clear_refusal(folder, err, M.WEIGHTS_NAME, "'model.embed_tokens.weight' has shape [67108864, 16]")
    assert seconds < MAX_SECONDS and peak < MAX_PEAK_BYTES


def test_a_header_listing_tensors_out_of_data_order_is_read_like_the_package_reads_it(tmp_path):
    """Entries may come in any order in the JSON; only their offsets must tile the data."""
    safetensors = pytest.importorskip("safetensors")
    a, b = np.arange(3, dtype=np.float32), np.arange(2, dtype=np.float32) + 10
    header = {"b": {"dtype": "F32", "shape": [2], "data_offsets": [12, 20]},
              "a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 12]}}
    path = tmp_path / "w.safetensors"
    _write_header(path, json.dumps(header), a.tobytes() + b.tobytes())
    tensors, h = S.load_tensors(path)
    assert h.names == ["a", "b"]  # in the order of their bytes
    with safetensors.safe_open(str(path), framework="numpy") as f:
        for name in ("a", "b"):
            np.testing.assert_array_equal(tensors[name], f.get_tensor(name))
