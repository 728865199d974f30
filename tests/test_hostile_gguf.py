"""GGUF files from anywhere: whatever a file holds, ``read_gguf`` (and dequantizing every
tensor it lists) returns or raises one ``ModelFileError`` that names the file and the
field, within a second and in bounded memory.

A table of every kind of hostile file known (llama.cpp's own parser has had advisories
for crafted counts and string lengths), each made by patching one field of a valid file
that ``gguf.GGUFWriter`` wrote, with the words its message must contain; every
truncation of that file; and a fuzzer that corrupts it (bytes, integer fields, cuts,
insertions) and checks the property on every result, counting what it tried. Where the
engine reads a corrupted file, the ``gguf`` package's reader must read it too (whatever the
package refuses, the engine refuses).
"""

from __future__ import annotations

import collections
import functools
import struct
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _fuzz_budget import examples
from _gguf_files import T, V, gguf, quantized, write_gguf
from tokenpath.gguf_format import ModelFileError, read_gguf

#: Bounds of the property: CPU seconds and traced peak memory for one read of a small file.
MAX_SECONDS = 1.0
MAX_PEAK_BYTES = 20_000_000


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A valid small file: strings, arrays and scalars of metadata; F32, Q8_0 and Q4_K tensors."""
    rng = np.random.default_rng(0)
    kv = [("tokenizer.ggml.tokens", ["a", "b", "c"], V.ARRAY, V.STRING), ("llama.block_count", 1, V.UINT32),
          ("t.ints", [1, 2, 3], V.ARRAY, V.INT32), ("t.flag", True, V.BOOL),
          ("t.aa", 1, V.UINT8), ("t.bb", 2, V.UINT8)]
    tensors = [("w.aa", rng.standard_normal((4, 8)).astype(np.float32), None),
               ("w.bb", quantized(rng, "Q8_0", (2, 64)), T.Q8_0),
               ("w.cc", quantized(rng, "Q4_K", (1, 256)), T.Q4_K)]
    path = write_gguf(tmp_path_factory.mktemp("base") / "base.gguf", kv, tensors)
    return path.read_bytes()


def _read_all(path):
    g = read_gguf(path)
    for name in g.tensors:
        g.dequantize(name)
    return g


def _bounded(path):
    """(the file read, or the error), CPU seconds, traced peak bytes."""
    tracemalloc.start()
    t0 = time.process_time()
    try:
        result = _read_all(path)
    except Exception as err:  # noqa: BLE001 - the caller checks what it is
        result = err
    seconds = time.process_time() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return result, seconds, peak


def _refused(path, *words):
    err, seconds, peak = _bounded(path)
    assert isinstance(err, ModelFileError), f"expected a refusal, got {err!r}"
    message = str(err)
    assert message.startswith(f"{path}: "), message
    for w in words:
        assert w in message, message
    assert seconds < MAX_SECONDS and peak < MAX_PEAK_BYTES, (seconds, peak)
    return message


# ------------------------------------------------------ patching one field


def _name_at(data: bytes, name: str) -> int:
    """Where the length-prefixed string ``name`` starts (its uint64 length)."""
    raw = struct.pack("<Q", len(name)) + name.encode()
    at = data.find(raw)
    assert at >= 0 and data.find(raw, at + 1) < 0, name
    return at


def _after(data: bytes, name: str) -> int:
    """The first byte after the length-prefixed string ``name``."""
    return _name_at(data, name) + 8 + len(name)


def _put(data: bytes, at: int, fmt: str, value) -> bytes:
    b = bytearray(data)
    b[at:at + struct.calcsize(fmt)] = struct.pack(fmt, value)
    return bytes(b)


def _replace(data: bytes, old: bytes, new: bytes) -> bytes:
    assert data.count(old) == 1 and len(old) == len(new)
    return data.replace(old, new)


def _tensor_field(data: bytes, name: str, field: str, n_dims: int = 2) -> int:
    at = _after(data, name)  # n_dims u32, ne u64 × n_dims, type u32, offset u64
    return {"n_dims": at, "ne0": at + 4, "ne1": at + 12, "type": at + 4 + 8 * n_dims,
            "offset": at + 8 + 8 * n_dims}[field]


@functools.lru_cache(maxsize=4)
def read_gguf_bytes(data: bytes):
    """The valid file ``data`` read from a temporary copy (for the offsets a patch needs)."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "f.gguf"
        path.write_bytes(data)
        return read_gguf(path)


def _data_start(data: bytes) -> int:
    return read_gguf_bytes(data).data_offset


CASES = {
    "bad magic": (lambda d: b"GGML" + d[4:], ["not the GGUF magic"]),
    "version 1": (lambda d: _put(d, 4, "<I", 1), ["GGUF version 1", "versions 2 and 3"]),
    "version 4": (lambda d: _put(d, 4, "<I", 4), ["GGUF version 4"]),
    "huge tensor count": (lambda d: _put(d, 8, "<Q", 2**63), ["the tensor count is 9,223,372,036,854,775,808"]),
    "huge metadata count": (lambda d: _put(d, 16, "<Q", 2**40), ["the metadata count is"]),
    "metadata count one too many": (lambda d: _put(d, 16, "<Q", 8), ["the name of tensor 0 claims a length of"]),
    "huge key length": (lambda d: _put(d, 24, "<Q", 2**62), ["metadata key 0 claims a length of"]),
    "huge string length": (lambda d: _put(d, _after(d, "general.architecture") + 4, "<Q", 2**64 - 1),
                           ["metadata 'general.architecture' claims a length of 18,446,744,073,709,551,615 bytes"]),
    "huge array length": (lambda d: _put(d, _after(d, "tokenizer.ggml.tokens") + 8, "<Q", 2**61),
                          ["the length of array metadata 'tokenizer.ggml.tokens' is"]),
    "huge int array length": (lambda d: _put(d, _after(d, "t.ints") + 8, "<Q", 2**62),
                              ["the length of array metadata 't.ints'"]),
    "unknown value type": (lambda d: _put(d, _after(d, "llama.block_count"), "<I", 13),
                           ["metadata 'llama.block_count' has value type 13"]),
    "unknown element type": (lambda d: _put(d, _after(d, "t.ints") + 4, "<I", 99),
                             ["the elements of metadata 't.ints' has value type 99"]),
    "bool of 2": (lambda d: _put(d, _after(d, "t.flag") + 4, "<B", 2), ["'t.flag' is a BOOL stored as 2"]),
    "duplicate key": (lambda d: _replace(d, b"t.bb", b"t.aa"), ["metadata key 't.aa' appears twice"]),
    "non-UTF-8 key": (lambda d: _replace(d, b"t.bb", b"t.\xff\xfe"), ["metadata key 6 is not UTF-8"]),
    "non-UTF-8 string": (lambda d: _replace(d, b"\x01\0\0\0\0\0\0\0b", b"\x01\0\0\0\0\0\0\0\xc3"),
                         ["metadata 'tokenizer.ggml.tokens'[1] is not UTF-8"]),
    "n_dims 0": (lambda d: _put(d, _tensor_field(d, "w.aa", "n_dims"), "<I", 0), ["tensor 'w.aa' has n_dims 0"]),
    "n_dims 5": (lambda d: _put(d, _tensor_field(d, "w.aa", "n_dims"), "<I", 5), ["tensor 'w.aa' has n_dims 5"]),
    "n_dims huge": (lambda d: _put(d, _tensor_field(d, "w.aa", "n_dims"), "<I", 2**32 - 1), ["n_dims 4294967295"]),
    "huge extent": (lambda d: _put(d, _tensor_field(d, "w.aa", "ne1"), "<Q", 2**40),
                    ["tensor 'w.aa' has shape ne = [8, 1099511627776] of F32, more bytes than the file"]),
    "zero extent": (lambda d: _put(d, _tensor_field(d, "w.cc", "ne1"), "<Q", 0),
                    ["tensor 'w.cc' has shape ne = [256, 0], with no numbers"]),
    "row not whole blocks": (lambda d: _put(d, _tensor_field(d, "w.bb", "ne0"), "<Q", 48),
                             ["tensor 'w.bb' has rows of ne[0] = 48 numbers, not a whole number of Q8_0 blocks of 32"]),
    "unknown tensor type": (lambda d: _put(d, _tensor_field(d, "w.bb", "type"), "<I", 99),
                            ["tensor 'w.bb' has ggml type 99"]),
    "retired tensor type": (lambda d: _put(d, _tensor_field(d, "w.bb", "type"), "<I", 4),
                            ["tensor 'w.bb' has ggml type 4"]),
    "type it does not dequantize": (lambda d: _put(d, _tensor_field(d, "w.cc", "type"), "<I", T.Q5_K.value - 2),
                                    ["tensor 'w.cc' has ggml type Q3_K, which this reader does not dequantize"]),
    "misaligned data": (lambda d: _put(d, _tensor_field(d, "w.bb", "offset"), "<Q", 128 + 4),
                        ["tensor 'w.bb' starts at data offset 132, not a multiple of the alignment 32"]),
    "overlapping data": (lambda d: _put(d, _tensor_field(d, "w.bb", "offset"), "<Q", 96),
                         ["inside tensor 'w.aa'", "tensor data overlaps"]),
    "data past the end": (lambda d: _put(d, _tensor_field(d, "w.cc", "offset"), "<Q", 2**40),
                          ["tensor 'w.cc' spans data bytes", "the file is truncated"]),
    "offset near 2**64": (lambda d: _put(d, _tensor_field(d, "w.cc", "offset"), "<Q", 2**64 - 32),
                          ["tensor 'w.cc' spans data bytes"]),
    "last tensor cut short": (lambda d: d[:_data_start(d) + 288 + 134],
                              ["tensor 'w.cc' spans", "the file is truncated"]),
    "duplicate tensor name": (lambda d: _replace(d, b"w.bb", b"w.aa"),
                              ["tensor name 'w.aa' appears twice in the tensor table"]),
    "non-UTF-8 tensor name": (lambda d: _replace(d, b"w.bb", b"w.\x80b"), ["the name of tensor 1 is not UTF-8"]),
    "NaN scale": (lambda d: _put(d, _data_start(d) + 128 + 34, "<e", float("nan")),
                  ["tensor 'w.bb' (Q8_0): block 1 has a Q8_0 scale of nan"]),
    "inf dmin": (lambda d: _put(d, _data_start(d) + 288 + 2, "<e", float("-inf")),
                 ["tensor 'w.cc' (Q4_K): block 0 has a Q4_K scale of -inf (at byte 2"]),
    "NaN weight": (lambda d: _put(d, _data_start(d) + 20, "<f", float("nan")),
                   ["tensor 'w.aa' (F32): element 5 is nan"]),
    "too short for a header": (lambda d: d[:23], ["has 23 bytes, fewer than the 24 of a GGUF header"]),
    "empty": (lambda d: b"", ["has 0 bytes"]),
}


@pytest.mark.parametrize("case", CASES)
def test_a_hostile_file_is_refused_naming_the_field(base, tmp_path, case):
    patch, words = CASES[case]
    path = tmp_path / "h.gguf"
    path.write_bytes(patch(base))
    _refused(path, *words)


def test_the_base_file_and_its_offsets_are_what_the_table_assumes(base, tmp_path):
    path = tmp_path / "b.gguf"
    path.write_bytes(base)
    g = _read_all(path)
    assert [(t.name, t.offset, t.nbytes) for t in g.tensors.values()] == [("w.aa", 0, 128), ("w.bb", 128, 136),
                                                                          ("w.cc", 288, 144)]


def test_a_bad_alignment_is_refused(tmp_path):
    p = write_gguf(tmp_path / "a.gguf", tensors=[("w", np.ones(4, np.float32), None)], alignment=64)
    data = p.read_bytes()
    p.write_bytes(_put(data, _after(data, "general.alignment") + 4, "<I", 48))
    _refused(p, "metadata 'general.alignment' is 48 (UINT32); it must be a UINT32 power of two")
    p.write_bytes(_put(data, _after(data, "general.alignment") + 4, "<I", 0))
    _refused(p, "'general.alignment' is 0")


def test_arrays_nested_too_deep_are_refused(tmp_path):
    deep = [1]
    for _ in range(9):
        deep = [deep]
    p = write_gguf(tmp_path / "n.gguf", [("t.deep", deep, V.ARRAY)])
    _refused(p, "metadata 't.deep'[0][0][0][0][0][0][0][0] nests arrays more than 8 deep")


def test_a_directory_is_refused(tmp_path):
    _refused(tmp_path, "is a directory")


def test_every_truncation_is_refused_or_only_cuts_the_padding(base, tmp_path):
    path = tmp_path / "t.gguf"
    end = max(t.offset + t.nbytes for t in read_gguf_bytes(base).tensors.values()) + _data_start(base)
    refused = 0
    for cut in range(len(base)):
        path.write_bytes(base[:cut])
        result, seconds, peak = _bounded(path)
        if cut < end:
            assert isinstance(result, ModelFileError) and str(result).startswith(f"{path}: "), (cut, result)
            refused += 1
        else:
            assert not isinstance(result, Exception), (cut, result)
        assert seconds < MAX_SECONDS and peak < MAX_PEAK_BYTES
    assert refused == end > 500


# ------------------------------------------------------------------ the fuzzer

INTERESTING = [0, 1, 2, 3, 7, 31, 32, 33, 255, 2**16, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**40, 2**63 - 1, 2**63,
               2**64 - 1]


@st.composite
def _mutation(draw):
    kind = draw(st.sampled_from(["byte", "int field", "truncate", "insert", "delete"]))
    if kind == "byte":
        return kind, draw(st.integers(0, 10**6)), draw(st.binary(min_size=1, max_size=8))
    if kind == "int field":
        width = draw(st.sampled_from([4, 8]))
        value = draw(st.sampled_from(INTERESTING) | st.integers(0, 2**(8 * width) - 1))
        return kind, draw(st.integers(0, 10**6)), width, value % 2**(8 * width)
    if kind == "truncate":
        return kind, draw(st.integers(0, 10**6))
    if kind == "insert":
        return kind, draw(st.integers(0, 10**6)), draw(st.binary(min_size=1, max_size=16))
    return kind, draw(st.integers(0, 10**6)), draw(st.integers(1, 16))


def _apply(data: bytes, mutation, header_end: int) -> bytes:
    """A header mutation lands in the header (where the counts and lengths are) most of the time."""
    b = bytearray(data)
    kind, at = mutation[0], mutation[1]
    where = at % (header_end if at % 4 else len(b))
    if kind == "byte":
        b[where:where + len(mutation[2])] = mutation[2]
    elif kind == "int field":
        width, value = mutation[2], mutation[3]
        b[where:where + width] = value.to_bytes(width, "little")
    elif kind == "truncate":
        del b[where:]
    elif kind == "insert":
        b[where:where] = mutation[2]
    else:
        del b[where:where + mutation[2]]
    return bytes(b)


def _package_refuses(path) -> bool:
    try:
        r = gguf.GGUFReader(path)
        for t in r.tensors:
            gguf.quants.dequantize(t.data, t.tensor_type)
    except Exception:  # noqa: BLE001 - any failure of the reference reader is a refusal
        return True
    return False


FUZZ = collections.Counter()


@settings(max_examples=examples(400), derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(mutation=_mutation())
def test_any_corrupted_file_reads_or_is_refused_clearly_fast_and_in_bounded_memory(base, tmp_path, mutation):
    path = tmp_path / "f.gguf"
    path.write_bytes(_apply(base, mutation, header_end=_data_start(base)))
    result, seconds, peak = _bounded(path)
    if isinstance(result, Exception):
        assert isinstance(result, ModelFileError), (mutation, repr(result))
        assert str(result).startswith(f"{path}: "), str(result)
        outcome = "refused"
    else:
        outcome = "read"
    assert seconds < MAX_SECONDS, (mutation, seconds)
    assert peak < MAX_PEAK_BYTES, (mutation, peak)
    if outcome == "read":  # the package is asked only then: on a hostile file it may take minutes
        assert not _package_refuses(path), f"the gguf package refuses {mutation!r}, the engine reads it"
    FUZZ[mutation[0], outcome] += 1


def test_the_fuzzer_met_every_kind_of_corruption_and_both_outcomes():
    """Runs after the fuzzer above (same module, file order)."""
    if not FUZZ:
        pytest.skip("the fuzzer did not run in this session")
    assert {k for k, _ in FUZZ} == {"byte", "int field", "truncate", "insert", "delete"}
    assert {o for _, o in FUZZ} == {"read", "refused"}
    print("\nGGUF fuzzer:", sum(FUZZ.values()), "files")
    for key, count in sorted(FUZZ.items()):
        print("  ", key, count)
