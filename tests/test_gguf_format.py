"""The engine's GGUF reader against the ``gguf`` package (llama.cpp's own Python reader and
dequantizer): the same metadata, the same tensor table, and dequantized numbers equal
bit for bit, on files ``GGUFWriter`` writes and on the pretrained SmolLM2 file."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from _gguf_files import EVERY_VALUE_TYPE, T, V, gguf, quantized, write_gguf
from tokenpath.gguf_format import DEQUANTIZABLE, ModelFileError, dequantize, read_gguf, row_bytes


def _reader_value(field):
    """A ``gguf.GGUFReader`` field's value in the engine's form (arrays as tuples of Python values)."""
    value = field.contents()
    return tuple(value) if isinstance(value, list) else value


def _engine_value(value):
    if isinstance(value, np.ndarray):
        return tuple(value.tolist())
    return value


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, np.float32).view(np.uint32)


@pytest.fixture(scope="module")
def every_type_file(tmp_path_factory):
    return write_gguf(tmp_path_factory.mktemp("gguf") / "kv.gguf", EVERY_VALUE_TYPE,
                      [("w", np.arange(6, dtype=np.float32).reshape(2, 3), None)])


def test_metadata_of_every_value_type_reads_as_gguf_reader_reads_it(every_type_file):
    g, ref = read_gguf(every_type_file), gguf.GGUFReader(every_type_file)
    flat = [k for k, *_ in EVERY_VALUE_TYPE if not k.startswith("a.nested")]
    for key in ["general.architecture", *flat]:
        assert _engine_value(g.metadata[key]) == _reader_value(ref.fields[key]), key
        names = [t.name for t in ref.fields[key].types]
        assert g.value_types[key] == (f"ARRAY[{names[-1]}]" if names[0] == "ARRAY" else names[0]), key
    assert g.metadata["t.f32"] == float(np.float32(0.1)) and g.metadata["t.u64"] == 2**64 - 1
    assert g.metadata["t.bool"] is True and g.metadata["a.bool"].dtype == bool


def test_arrays_are_read_only_numpy_arrays_or_tuples_and_nest(every_type_file):
    g = read_gguf(every_type_file)
    a = g.metadata["a.uint32"]
    assert a.dtype == np.dtype("<u4") and not a.flags.writeable
    assert g.metadata["a.string"] == ("a", "", "日本")
    assert [x.tolist() for x in g.metadata["a.nested"]] == [[1, 2], [3]]
    assert g.value_types["a.nested"] == "ARRAY[ARRAY[INT32]]"
    assert g.metadata["a.nested_str"] == (("x", "y"), ("z",))
    with pytest.raises(TypeError):
        g.metadata["new"] = 1  # the mapping is read-only


def test_the_shape_is_ggml_ne_reversed_and_the_byte_range_is_gguf_readers(every_type_file):
    g, ref = read_gguf(every_type_file), gguf.GGUFReader(every_type_file)
    (rt,) = ref.tensors
    t = g.tensors["w"]
    assert rt.shape.tolist() == [3, 2] and t.shape == (2, 3)  # ne = [row length, rows]
    assert (g.data_offset + t.offset, t.nbytes) == (rt.data_offset, rt.n_bytes)
    assert g.data_offset == ref.data_offset and g.alignment == ref.alignment == 32
    raw = g.raw("w")
    assert not raw.flags.writeable and raw.tobytes() == rt.data.tobytes()
    assert g.dequantize("w").tolist() == [[0, 1, 2], [3, 4, 5]]


def test_a_custom_alignment_moves_the_data_as_gguf_reader_says(tmp_path):
    p = write_gguf(tmp_path / "a.gguf", tensors=[("a", np.ones(3, np.float32), None), ("b", np.ones(5, np.float32), None)],
                   alignment=64)
    g, ref = read_gguf(p), gguf.GGUFReader(p)
    assert g.alignment == ref.alignment == 64 and g.data_offset == ref.data_offset and g.data_offset % 64 == 0
    assert [g.data_offset + t.offset for t in g.tensors.values()] == [t.data_offset for t in ref.tensors]
    assert g.tensors["b"].offset == 64


def test_version_2_reads_as_version_3(tmp_path, every_type_file):
    data = bytearray(every_type_file.read_bytes())
    data[4:8] = struct.pack("<I", 2)  # v2 and v3 have the same layout (v3 added big-endian files)
    (tmp_path / "v2.gguf").write_bytes(bytes(data))
    g2, g3 = read_gguf(tmp_path / "v2.gguf"), read_gguf(every_type_file)
    assert (g2.version, g3.version) == (2, 3) and g2.tensors == g3.tensors


@pytest.mark.parametrize("type_name", DEQUANTIZABLE)
def test_random_blocks_dequantize_bit_for_bit_as_gguf_does(type_name, tmp_path):
    rng = np.random.default_rng(sum(map(ord, type_name)))
    block = gguf.GGML_QUANT_SIZES[T[type_name]][0]
    shape = (3, 5, 2 * max(block, 32))
    raw = quantized(rng, type_name, shape)
    want = gguf.quants.dequantize(raw, T[type_name])
    got = dequantize(np.ascontiguousarray(raw).view(np.uint8).reshape(-1), type_name, shape)
    assert got.dtype == np.float32 and got.shape == shape == want.shape
    assert np.array_equal(_bits(got), _bits(want))
    # and the same through a file written by GGUFWriter
    p = write_gguf(tmp_path / "q.gguf", tensors=[("q", raw, None if type_name in ("F32", "F16") else T[type_name])])
    g = read_gguf(p)
    assert g.tensors["q"].type_name == type_name and g.tensors["q"].shape == shape
    assert np.array_equal(_bits(g.dequantize("q")), _bits(want))


def test_more_blocks_than_one_chunk_dequantize_as_gguf_does(monkeypatch):
    from tokenpath.gguf_format import quants
    monkeypatch.setattr(quants, "CHUNK_BLOCKS", 3)
    rng = np.random.default_rng(1)
    raw = quantized(rng, "Q4_K", (2, 5 * 256))
    assert np.array_equal(_bits(dequantize(raw.reshape(-1), "Q4_K", (2, 1280))),
                          _bits(gguf.quants.dequantize(raw, T.Q4_K)))


def test_types_it_does_not_dequantize_are_refused_by_name(tmp_path):
    rng = np.random.default_rng(2)
    q2k = rng.integers(0, 256, (2, 84), dtype=np.uint8)
    p = write_gguf(tmp_path / "u.gguf", tensors=[("blk.0.attn_q.weight", q2k, T.Q2_K),
                                                  ("ids", np.arange(4, dtype=np.int32), None)])
    g = read_gguf(p)
    assert g.tensors["blk.0.attn_q.weight"].shape == (2, 256)
    with pytest.raises(ModelFileError, match=r"u\.gguf: tensor 'blk\.0\.attn_q\.weight' has ggml type Q2_K, which"):
        g.dequantize("blk.0.attn_q.weight")
    with pytest.raises(ModelFileError, match="tensor 'ids' has ggml type I32"):
        g.dequantize("ids")


def test_a_nan_scale_is_refused_naming_the_tensor_and_block(tmp_path):
    raw = quantized(np.random.default_rng(3), "Q8_0", (2, 64)).copy()
    raw[1, 0:2] = np.array([np.nan], "<f2").view(np.uint8)  # row 1, its first block: block 2
    p = write_gguf(tmp_path / "n.gguf", tensors=[("emb", raw, T.Q8_0)])
    with pytest.raises(ModelFileError, match=r"n\.gguf: tensor 'emb' \(Q8_0\): block 2 has a Q8_0 scale of nan"):
        read_gguf(p).dequantize("emb")
    f = np.ones(4, np.float32)
    f[3] = np.inf
    p = write_gguf(tmp_path / "f.gguf", tensors=[("norm", f, None)])
    with pytest.raises(ModelFileError, match=r"tensor 'norm' \(F32\): element 3 is inf"):
        read_gguf(p).dequantize("norm")


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="path must be a path"):
        read_gguf(5)
    with pytest.raises(ValueError, match="type_name 'Q9' is not a ggml type"):
        dequantize(np.zeros(4, np.uint8), "Q9", (1,))
    with pytest.raises(ValueError, match="raw has 4 bytes but Q8_0 \\(32,\\) takes 34"):
        dequantize(np.zeros(4, np.uint8), "Q8_0", (32,))
    with pytest.raises(ValueError, match="last axis \\(20\\) is not a whole number of Q4_0 blocks of 32"):
        dequantize(np.zeros(18, np.uint8), "Q4_0", (20,))
    with pytest.raises(TypeError, match="raw must be a one-dimensional numpy uint8 array"):
        dequantize([0] * 4, "F32", (1,))
    with pytest.raises(ValueError, match="n = 33 is not a whole number"):
        row_bytes("Q4_1", 33)


# ------------------------------------------------------------ the pretrained file


@pytest.fixture(scope="module")
def ours(smollm2_file):
    return read_gguf(smollm2_file)


@pytest.fixture(scope="module")
def real(ours, smollm2_file):
    """The engine's reading beside gguf's (GGUFReader takes seconds on this file)."""
    return ours, gguf.GGUFReader(smollm2_file)


@pytest.mark.heavy
def test_the_real_files_metadata_and_tensor_table_equal_gguf_readers(real):
    g, ref = real
    assert list(g.metadata) == [k for k in ref.fields if not k.startswith("GGUF.")]
    for key, field in ref.fields.items():
        if not key.startswith("GGUF."):
            assert _engine_value(g.metadata[key]) == _reader_value(field), key
    assert [(t.name, t.shape, t.type_name, g.data_offset + t.offset, t.nbytes) for t in g.tensors.values()] == [
        (t.name, tuple(reversed(t.shape.tolist())), t.tensor_type.name, t.data_offset, t.n_bytes) for t in ref.tensors]
    assert (g.version, g.alignment, g.data_offset) == (3, ref.alignment, ref.data_offset)
    assert len(g.metadata["tokenizer.ggml.tokens"]) == 49_152 and len(g.metadata["tokenizer.ggml.merges"]) == 48_900


@pytest.mark.heavy
def test_every_tensor_of_the_real_file_dequantizes_bit_for_bit_as_gguf_does(real):
    g, ref = real
    types = set()
    for t in ref.tensors:
        want = gguf.quants.dequantize(t.data, t.tensor_type)
        got = g.dequantize(t.name)
        assert got.shape == want.shape and np.array_equal(_bits(got), _bits(want)), t.name
        types.add(t.tensor_type.name)
    assert types == {"F32", "Q4_1", "Q8_0"}


def test_the_real_files_header_reads_in_under_half_a_second(ours):
    """49,152 token strings and 48,900 merges among them; CPU time, the best of three."""
    import time

    seconds = []
    for _ in range(3):
        t0 = time.process_time()
        read_gguf(ours.path)
        seconds.append(time.process_time() - t0)
    assert min(seconds) < 0.5, seconds


def test_the_real_files_summary_counts_its_types(ours):
    text = ours.summary(max_keys=3)
    assert text.splitlines()[1] == "tensor types: Q4_1 210, F32 61, Q8_0 1"
    assert text.endswith("… and 30 more keys")


def test_chapter_10_reads_the_first_24_bytes_as_the_engine_does():
    """A copy of section 10.11's struct reading of a file's first 24 bytes, on a small example file
    (tests/test_aside_outputs.py holds the prose to what the chapter's cells print): the engine's
    reader gives the same magic, version and counts."""
    from tokenpath.gguf_format import MAGIC
    from tokenpath.gguf_format.reader import _example_file

    path = _example_file()
    with open(path, "rb") as f:
        magic, version, n_tensors, n_keys = struct.unpack("<4sIQQ", f.read(24))
    gguf = read_gguf(path)
    assert (magic, version, n_tensors, n_keys) == (MAGIC, gguf.version, len(gguf.tensors), len(gguf.metadata))
    assert (n_tensors, n_keys) == (1, 3)
