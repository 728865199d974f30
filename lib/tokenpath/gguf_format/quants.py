"""ggml's tensor types and their block dequantization, in numpy.

A quantized ggml tensor is cut, along its rows, into *blocks* of 32 (or, for the
"K-quants", 256) numbers; each block is stored as a few bytes of small integers plus one
or two float16 scales. Dequantizing a block is one multiply (and an add) per number:

==========  =======  =====  ==============================================================
type        numbers  bytes  one block, and the value of its number ``i``
==========  =======  =====  ==============================================================
Q8_0        32       34     d (f16), q[32] int8;                 ``d · q[i]``
Q4_0        32       18     d, 16 bytes of 4-bit q;              ``d · (q[i] − 8)``
Q4_1        32       20     d, m, 16 bytes of 4-bit q;           ``d · q[i] + m``
Q5_0        32       22     d, 32 high bits, 4-bit q;            ``d · (q[i] − 16)``
Q5_1        32       24     d, m, 32 high bits, 4-bit q;         ``d · q[i] + m``
Q4_K        256      144    d, dmin, 8 × (6-bit scale, 6-bit min), 4-bit q;
                            ``(d · sc[s]) · q[i] − dmin · mn[s]`` for sub-block s = i // 32
Q5_K        256      176    as Q4_K plus one high bit per number
Q6_K        256      210    4 low bits, 2 high bits, 16 int8 scales, d;
                            ``(d · sc[s]) · (q[i] − 32)`` for s = i // 16
==========  =======  =====  ==============================================================

In the 4-bit types the first half of a block's numbers are the low nibbles of its bytes
and the second half the high nibbles (K-quants: per 32-number sub-block pair). The
arithmetic is done in float32 in the order written above, which is the order of ggml's
``dequantize_row_*`` and of the ``gguf`` package's ``quants.dequantize``: the results
are equal bit for bit (the tests compare every type and the real file). Every function
works on all blocks at once, in chunks of :data:`CHUNK_BLOCKS` to bound the memory it
needs beyond its output.

The layouts are those of llama.cpp's ``ggml-quants.c``; chapter 10 shows where the
pretrained SmolLM2 file uses them (Q4_1 for the projections, Q8_0 for the embedding).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "CHUNK_BLOCKS",
    "DEQUANTIZABLE",
    "GGML_TYPES",
    "dequantize",
    "row_bytes",
]

#: Every ggml tensor type a GGUF file may name: id → (name, numbers per block, bytes per
#: block), as ``ggml.h`` numbers them (ids 4, 5, 31–33 and 36–38 are retired).
GGML_TYPES = {
    0: ("F32", 1, 4), 1: ("F16", 1, 2), 2: ("Q4_0", 32, 18), 3: ("Q4_1", 32, 20), 6: ("Q5_0", 32, 22),
    7: ("Q5_1", 32, 24), 8: ("Q8_0", 32, 34), 9: ("Q8_1", 32, 40), 10: ("Q2_K", 256, 84), 11: ("Q3_K", 256, 110),
    12: ("Q4_K", 256, 144), 13: ("Q5_K", 256, 176), 14: ("Q6_K", 256, 210), 15: ("Q8_K", 256, 292),
    16: ("IQ2_XXS", 256, 66), 17: ("IQ2_XS", 256, 74), 18: ("IQ3_XXS", 256, 98), 19: ("IQ1_S", 256, 50),
    20: ("IQ4_NL", 32, 18), 21: ("IQ3_S", 256, 110), 22: ("IQ2_S", 256, 82), 23: ("IQ4_XS", 256, 136),
    24: ("I8", 1, 1), 25: ("I16", 1, 2), 26: ("I32", 1, 4), 27: ("I64", 1, 8), 28: ("F64", 1, 8),
    29: ("IQ1_M", 256, 56), 30: ("BF16", 1, 2), 34: ("TQ1_0", 256, 54), 35: ("TQ2_0", 256, 66),
    39: ("MXFP4", 32, 17), 40: ("NVFP4", 64, 36), 41: ("Q1_0", 128, 18),
}
_BY_NAME = {name: (block, size) for name, block, size in GGML_TYPES.values()}

#: Blocks dequantized per step: the temporary arrays stay near 2 MB × the block size.
CHUNK_BLOCKS = 1 << 14


def _f16(raw: np.ndarray) -> np.ndarray:
    """Two bytes per row (``[n, 2]`` uint8) read as float16 and widened to float32: ``[n, 1]``."""
    return np.ascontiguousarray(raw).view("<f2").astype(np.float32)


def _nibbles(qs: np.ndarray) -> np.ndarray:
    """``[n, k]`` bytes → ``[n, 2k]`` 4-bit numbers: all low nibbles, then all high nibbles."""
    return np.concatenate([qs & 0x0F, qs >> 4], axis=1)


def _high_bits(qh: np.ndarray) -> np.ndarray:
    """``[n, 4]`` bytes, a little-endian uint32 per block → ``[n, 32]`` bits, bit i for number i."""
    return np.unpackbits(qh, axis=1, bitorder="little")


def _q8_0(b):  # d [n,1] · q [n,32]
    return b[:, 2:].view(np.int8).astype(np.float32) * _f16(b[:, :2])


def _q4_0(b):
    return _f16(b[:, :2]) * (_nibbles(b[:, 2:]).astype(np.int8) - np.int8(8)).astype(np.float32)


def _q4_1(b):
    return _f16(b[:, :2]) * _nibbles(b[:, 4:]).astype(np.float32) + _f16(b[:, 2:4])


def _q5(b):
    """Q5_0/Q5_1's 5-bit numbers of blocks whose last 20 bytes are 4 high-bit bytes and 16 nibble bytes."""
    return _nibbles(b[:, -16:]) | (_high_bits(b[:, -20:-16]) << 4)


def _q5_0(b):
    return _f16(b[:, :2]) * (_q5(b).astype(np.int8) - np.int8(16)).astype(np.float32)


def _q5_1(b):
    return _f16(b[:, :2]) * _q5(b).astype(np.float32) + _f16(b[:, 2:4])


def _k_scales(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Q4_K/Q5_K's 12 scale bytes → 8 six-bit scales and 8 six-bit mins per block (``[n, 8]`` each).

    Bytes 0–3 hold scales 0–3 in their low 6 bits, bytes 4–7 mins 0–3; scales and mins
    4–7 take their low 4 bits from bytes 8–11 and their top 2 bits from the spare top
    bits of bytes 0–3 (scales) and 4–7 (mins).
    """
    lo_sc, lo_mn, rest = s[:, 0:4], s[:, 4:8], s[:, 8:12]
    sc = np.concatenate([lo_sc & 0x3F, (rest & 0x0F) | ((lo_sc >> 6) << 4)], axis=1)
    mn = np.concatenate([lo_mn & 0x3F, (rest >> 4) | ((lo_mn >> 6) << 4)], axis=1)
    return sc, mn


def _k_nibbles(qs: np.ndarray) -> np.ndarray:
    """``[n, 128]`` bytes → ``[n, 8, 32]``: 32-byte chunk c gives sub-block 2c (low nibbles) and 2c+1 (high)."""
    n = qs.shape[0]
    chunks = qs.reshape(n, 4, 1, 32)
    return np.concatenate([chunks & 0x0F, chunks >> 4], axis=2).reshape(n, 8, 32)


def _k_affine(b, q):
    """``(d · sc) · q − dmin · mn`` for Q4_K and Q5_K blocks ``b`` with numbers ``q [n, 8, 32]``."""
    n = b.shape[0]
    sc, mn = _k_scales(b[:, 4:16])
    scale = (_f16(b[:, :2]) * sc.astype(np.float32)).reshape(n, 8, 1)
    offset = (_f16(b[:, 2:4]) * mn.astype(np.float32)).reshape(n, 8, 1)
    return (scale * q.astype(np.float32) - offset).reshape(n, 256)


def _q4_k(b):
    return _k_affine(b, _k_nibbles(b[:, 16:144]))


def _q5_k(b):
    n = b.shape[0]
    high = np.unpackbits(b[:, 16:48].reshape(n, 1, 32), axis=1, count=8, bitorder="little")  # [n, 8, 32]: bit s of byte l
    return _k_affine(b, _k_nibbles(b[:, 48:176]) | (high << 4))


def _q6_k(b):
    """Two halves of 128 numbers; in half h, number 32·j + l (j = 0…3) is
    ``ql`` nibble (byte l or l+32; low for j < 2) with bits 2j, 2j+1 of ``qh[l]`` on top."""
    n = b.shape[0]
    ql = b[:, :128].reshape(n, 2, 2, 32)  # [n, half, byte l or l+32, l]
    low = np.concatenate([ql & 0x0F, ql >> 4], axis=2)  # [n, half, j, l]
    qh = b[:, 128:192].reshape(n, 2, 1, 32)
    high = (qh >> np.array([0, 2, 4, 6], np.uint8).reshape(1, 1, 4, 1)) & 0x03
    q = ((low | (high << 4)).astype(np.int8) - np.int8(32)).reshape(n, 16, 16)
    scale = (_f16(b[:, 208:210]) * b[:, 192:208].view(np.int8).astype(np.float32)).reshape(n, 16, 1)
    return (scale * q.astype(np.float32)).reshape(n, 256)


def _f32(b):
    return np.ascontiguousarray(b).view("<f4")


def _f16_values(b):
    return np.ascontiguousarray(b).view("<f2").astype(np.float32)


def _bf16(b):
    """bfloat16 is the top half of a float32: its 16 bits, shifted back on top."""
    return (np.ascontiguousarray(b).view("<u2").astype(np.uint32) << 16).view(np.float32)


#: type name → (dequantize ``[n, bytes]`` blocks to ``[n, numbers]`` float32, byte columns of
#: the float16 scales that must be finite). Any other type is refused by name.
_KERNELS = {
    "F32": (_f32, ()), "F16": (_f16_values, ()), "BF16": (_bf16, ()),
    "Q8_0": (_q8_0, (0,)), "Q4_0": (_q4_0, (0,)), "Q4_1": (_q4_1, (0, 2)), "Q5_0": (_q5_0, (0,)),
    "Q5_1": (_q5_1, (0, 2)), "Q4_K": (_q4_k, (0, 2)), "Q5_K": (_q5_k, (0, 2)), "Q6_K": (_q6_k, (208,)),
}
#: The types :func:`dequantize` reads, in the order of ``GGML_TYPES``.
DEQUANTIZABLE = tuple(name for name, _, _ in GGML_TYPES.values() if name in _KERNELS)


def row_bytes(type_name: str, n: int) -> int:
    """Bytes that ``n`` numbers of ggml type ``type_name`` take (``n`` a whole number of blocks).

    >>> row_bytes("Q4_1", 576), row_bytes("F32", 3)
    (360, 12)
    """
    if not isinstance(type_name, str):
        raise TypeError(f"type_name must be a str such as 'Q4_1', got {type(type_name).__name__}")
    if type_name not in _BY_NAME:
        raise ValueError(f"type_name must be a ggml type name such as 'Q4_1', got {type_name!r}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise TypeError(f"n must be a non-negative integer, got {n!r}")
    block, size = _BY_NAME[type_name]
    if n % block:
        raise ValueError(f"n = {n} is not a whole number of {type_name} blocks of {block}")
    return n // block * size


def _check_scales(blocks: np.ndarray, columns, first_block: int, type_name: str) -> None:
    for c in columns:
        bits = np.ascontiguousarray(blocks[:, c:c + 2]).view("<u2")[:, 0]
        bad = np.flatnonzero((bits & 0x7C00) == 0x7C00)  # exponent all ones: inf or NaN
        if bad.size:
            k = int(bad[0])
            value = np.array(bits[k], "<u2").view("<f2")
            raise ValueError(f"block {first_block + k} has a {type_name} scale of {value} (at byte {c} of the "
                             "block); a scale must be a finite number")


def dequantize(raw, type_name: str, shape) -> np.ndarray:
    """The float32 array of ``shape`` that the bytes ``raw`` hold as ggml type ``type_name``.

    ``shape`` is in numpy's row-major order; its last axis (ggml's ``ne[0]``) must be a
    whole number of blocks. A block scale that is infinite or NaN, or a float value
    that is, is refused (``ValueError`` naming the block or element).

    >>> q = np.array([0x00, 0x3C, 0x00, 0x00] + [0x10] * 16, np.uint8)  # d = 1.0, m = 0, nibbles 0 and 1
    >>> dequantize(q, "Q4_1", (32,))[[0, 15, 16, 31]].tolist()
    [0.0, 0.0, 1.0, 1.0]
    >>> dequantize(q, "IQ2_XS", (32,))
    Traceback (most recent call last):
    ...
    ValueError: type_name 'IQ2_XS' is a ggml type this reader does not dequantize; it reads F32, F16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K, BF16
    """
    if not isinstance(type_name, str):
        raise TypeError(f"type_name must be a str such as 'Q4_1', got {type(type_name).__name__}")
    if type_name not in _KERNELS:
        what = "a ggml type this reader does not dequantize" if type_name in _BY_NAME else "not a ggml type"
        raise ValueError(f"type_name {type_name!r} is {what}; it reads {', '.join(DEQUANTIZABLE)}")
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s >= 0 for s in shape):
        raise TypeError(f"shape must be a tuple of non-negative integers, got {shape!r}")
    shape = tuple(int(s) for s in shape)
    if not isinstance(raw, np.ndarray) or raw.dtype != np.uint8 or raw.ndim != 1:
        raise TypeError("raw must be a one-dimensional numpy uint8 array (the tensor's bytes)")
    block, size = _BY_NAME[type_name]
    last = shape[-1] if shape else 1
    if last % block:
        raise ValueError(f"shape {shape}: its last axis ({last}) is not a whole number of {type_name} blocks "
                         f"of {block}")
    count = math.prod(shape)
    if raw.size != count // block * size:
        raise ValueError(f"raw has {raw.size} bytes but {type_name} {shape} takes {count // block * size}")
    kernel, scale_columns = _KERNELS[type_name]
    blocks = raw.reshape(-1, size)  # [n_blocks, bytes per block]
    out = np.empty((blocks.shape[0], block), np.float32)  # [n_blocks, numbers per block]
    for at in range(0, blocks.shape[0], CHUNK_BLOCKS):
        part = blocks[at:at + CHUNK_BLOCKS]
        _check_scales(part, scale_columns, at, type_name)
        out[at:at + CHUNK_BLOCKS] = kernel(part)
        if not scale_columns:
            bad = np.flatnonzero(~np.isfinite(out[at:at + CHUNK_BLOCKS].ravel()))
            if bad.size:
                k = at * block + int(bad[0])
                raise ValueError(f"element {k} is {out.ravel()[k]}; a {type_name} weight must be a finite number")
    return out.reshape(shape)
