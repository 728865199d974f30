"""Small valid GGUF files for the tests, written with the ``gguf`` package's ``GGUFWriter``
(the reference writer of llama.cpp), so that the engine's reader is checked against files
it did not write itself."""

from __future__ import annotations

import numpy as np
import pytest

gguf = pytest.importorskip("gguf")
from gguf import GGMLQuantizationType as T  # noqa: E402
from gguf import GGUFValueType as V  # noqa: E402


def write_gguf(path, kv=(), tensors=(), *, arch="llama", alignment=None):
    """Write ``path`` with ``GGUFWriter``: ``kv`` is (key, value, value type[, element type])
    tuples, ``tensors`` (name, array, ggml type or None) tuples; a quantized array is the
    uint8 bytes ``gguf.quants.quantize`` returns. Returns the path."""
    w = gguf.GGUFWriter(str(path), arch)
    if alignment is not None:
        w.add_custom_alignment(alignment)
    for key, value, vtype, *sub in kv:
        w.add_key_value(key, value, vtype, sub[0] if sub else None)
    for name, array, raw in tensors:
        w.add_tensor(name, array, raw_dtype=raw)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def quantized(rng, type_name: str, shape) -> np.ndarray:
    """The bytes of a random tensor of ``shape`` in ``type_name``: quantized by the ``gguf``
    package where it can, else random bytes whose float16 scales are made finite."""
    t = T[type_name]
    block, size = gguf.GGML_QUANT_SIZES[t]
    x = rng.standard_normal(shape).astype(np.float32)
    if type_name in ("F32", "F16"):
        return gguf.quants.quantize(x, t)
    if type_name == "BF16":
        return gguf.quants.quantize(x, t).view(np.uint8)
    try:
        return gguf.quants.quantize(x, t)
    except NotImplementedError:
        rows = int(np.prod(shape[:-1]))
        raw = rng.integers(0, 256, (rows, shape[-1] // block, size), dtype=np.uint8)
        for c in SCALE_BYTES[type_name]:
            raw[..., c + 1] &= 0xBB  # clear one exponent bit: never all ones, never inf or NaN
        return raw.reshape(*shape[:-1], shape[-1] // block * size)


#: Where each K-quant block keeps its float16 scales (byte offsets in a block).
SCALE_BYTES = {"Q4_K": (0, 2), "Q5_K": (0, 2), "Q6_K": (208,)}

#: One key of every scalar type, and arrays of every type, for the metadata tests.
EVERY_VALUE_TYPE = [
    ("t.u8", 200, V.UINT8), ("t.i8", -100, V.INT8), ("t.u16", 60000, V.UINT16), ("t.i16", -30000, V.INT16),
    ("t.u32", 4_000_000_000, V.UINT32), ("t.i32", -2_000_000_000, V.INT32), ("t.f32", 0.1, V.FLOAT32),
    ("t.bool", True, V.BOOL), ("t.str", "héllo ✓", V.STRING), ("t.u64", 2**64 - 1, V.UINT64),
    ("t.i64", -(2**63), V.INT64), ("t.f64", 0.1, V.FLOAT64),
    *[(f"a.{v.name.lower()}", values, V.ARRAY, v) for v, values in [
        (V.UINT8, [0, 255]), (V.INT8, [-128, 127]), (V.UINT16, [1, 65535]), (V.INT16, [-5, 5]),
        (V.UINT32, [7, 8, 9]), (V.INT32, [-1, 0, 1]), (V.FLOAT32, [0.5, -2.25]), (V.BOOL, [True, False, True]),
        (V.STRING, ["a", "", "日本"]), (V.UINT64, [2**64 - 1]), (V.INT64, [-3]), (V.FLOAT64, [1e300, -0.0])]],
    ("a.nested", [[1, 2], [3]], V.ARRAY),
    ("a.nested_str", [["x", "y"], ["z"]], V.ARRAY),
]
