"""Chapter 10's readings of a GGUF file by hand (sections 10.11–10.17): the bytes of one
block, a Q4_1 block turned into its 32 weights (the chapter reads the file's first bytes,
its storage per type and its Q8_0 block inline, in its cells), the rounding bound the
block format implies over a whole matrix, and the check that llama.cpp's Q/K row order
under its RoPE pairing gives the scores the book's order gives under ``rotate_half``.

Each function reads what the engine reads (:mod:`tokenpath.gguf_format`) but spells the
step out, so that a chapter can show it next to the engine's own answer: the block
reader here is written from the layout in ``ggml-quants.c``, not by calling
:func:`tokenpath.gguf_format.dequantize`, and the tests assert that the two agree.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

import numpy as np

from .. import norms, position
from .._checks import as_int, as_int_array
from ..bpe.symbols import bytes_to_unicode
from ..gguf_format import GGML_TYPES, GGUFFile, dequantize, row_bytes
from ..model.gguf_model import gguf_config, unpermute_rows

__all__ = [
    "BlockBytes",
    "PairingCheck",
    "Q4_1Block",
    "RoundingBound",
    "block_bytes",
    "pairing_check",
    "q4_1_by_hand",
    "rounding_bound",
    "token_id",
]

_BLOCK = {name: (n, size) for name, n, size in GGML_TYPES.values()}


def _check_gguf(g) -> GGUFFile:
    if not isinstance(g, GGUFFile):
        raise TypeError(f"g must be a GGUFFile from tokenpath.gguf_format.read_gguf, got {type(g).__name__}")
    return g


def _tensor(g: GGUFFile, name):
    if not isinstance(name, str):
        raise TypeError(f"name must be a tensor name (str), got {type(name).__name__}")
    if name not in g.tensors:
        raise ValueError(f"name {name!r} is not a tensor of {g.path}")
    return g.tensors[name]


# ------------------------------------------------------------------ a token's row


def token_id(g: GGUFFile, text: str) -> int:
    """The ID of the token whose bytes are ``text`` (UTF-8), found in the file's
    ``tokenizer.ggml.tokens``, where each byte is written as GPT-2's printable character
    (a space as Ġ): no tokenizer is built.

    >>> from tokenpath.gguf_format import read_gguf
    >>> from tokenpath.gguf_format.reader import _example_file
    >>> token_id(read_gguf(_example_file()), "b")
    1
    """
    g = _check_gguf(g)
    if not isinstance(text, str) or not text:
        raise TypeError(f"text must be a non-empty str, got {text!r}")
    tokens = g.metadata.get("tokenizer.ggml.tokens")
    if not isinstance(tokens, tuple):
        raise ValueError(f"{g.path}: has no tokenizer.ggml.tokens to look text up in")
    chars = bytes_to_unicode()
    spelled = "".join(chars[b] for b in text.encode("utf-8"))
    if spelled not in tokens:
        raise ValueError(f"text {text!r} is not one token of {g.path}")
    return tokens.index(spelled)


# ------------------------------------------------------------------ one block by hand


@dataclass(frozen=True)
class BlockBytes:
    """Where one block of a quantized tensor lies, and its bytes."""

    tensor: str
    type_name: str
    row: int  # row of the tensor in numpy order (ggml's ne[1] index)
    block: int  # block of that row: numbers 32·block … 32·block + 31
    file_offset: int  # the block's first byte in the file
    raw: np.ndarray  # [bytes per block] uint8, a copy


def block_bytes(g: GGUFFile, name: str, row: int, block: int = 0) -> BlockBytes:
    """The bytes of block ``block`` of row ``row`` of the 2-D tensor ``name``: rows lie one
    after another, each a run of whole blocks.

    >>> from tokenpath.gguf_format import read_gguf
    >>> from tokenpath.gguf_format.reader import _example_file
    >>> b = block_bytes(read_gguf(_example_file()), "w", 1, 0); b.file_offset, b.raw.tolist()
    (232, [0, 0, 0, 64])
    """
    g = _check_gguf(g)
    t = _tensor(g, name)
    if len(t.shape) != 2:
        raise ValueError(f"name {name!r} has shape {t.shape}; block_bytes reads a 2-D tensor")
    n, size = _BLOCK[t.type_name]
    row = as_int("row", row, low=0, high=t.shape[0] - 1)
    block = as_int("block", block, low=0, high=t.shape[1] // n - 1)
    at = row * row_bytes(t.type_name, t.shape[1]) + block * size
    raw = np.array(g.raw(name)[at:at + size])
    return BlockBytes(name, t.type_name, row, block, g.data_offset + t.offset + at, raw)


def _block(raw, size: int, type_name: str) -> np.ndarray:
    if isinstance(raw, BlockBytes):
        raw = raw.raw
    if not isinstance(raw, np.ndarray) or raw.dtype != np.uint8 or raw.shape != (size,):
        raise TypeError(f"raw must be the {size} bytes of one {type_name} block (a uint8 array of shape ({size},))")
    return np.ascontiguousarray(raw)


@dataclass(frozen=True)
class Q4_1Block:
    """One Q4_1 block read by hand: a float16 scale, a float16 minimum, 16 bytes of nibbles."""

    delta: np.float16  # bytes 0–1: the step between two codes
    m: np.float16  # bytes 2–3: the value of code 0
    packed: np.ndarray  # [16] uint8, bytes 4–19: two 4-bit codes per byte
    low: np.ndarray  # [16] packed & 0x0F: the codes of weights 0–15
    high: np.ndarray  # [16] packed >> 4: the codes of weights 16–31
    weights: np.ndarray  # [32] float32: Δ · code + m

    @property
    def q(self) -> np.ndarray:
        """[32] the codes in weight order: the low nibbles, then the high ones."""
        return np.concatenate([self.low, self.high])


def q4_1_by_hand(raw) -> Q4_1Block:
    """Weight ``i`` of a Q4_1 block is ``Δ · q[i] + m``; byte ``j`` of the nibbles holds
    ``q[j]`` in its low four bits and ``q[j + 16]`` in its high four.

    >>> b = q4_1_by_hand(np.array([0x00, 0x3C, 0x00, 0xBC] + [0x3A] + [0] * 15, np.uint8))  # Δ = 1, m = −1
    >>> int(b.low[0]), int(b.high[0]), float(b.weights[0]), float(b.weights[16])
    (10, 3, 9.0, 2.0)
    """
    raw = _block(raw, 20, "Q4_1")
    delta, m = raw[0:2].view("<f2")[0], raw[2:4].view("<f2")[0]
    packed = raw[4:20].copy()
    low, high = packed & 0x0F, packed >> 4
    codes = np.concatenate([low, high]).astype(np.float32)
    return Q4_1Block(delta, m, packed, low, high, np.float32(delta) * codes + np.float32(m))


# ------------------------------------------------------------------ the rounding bound


@dataclass(frozen=True)
class RoundingBound:
    """What a block format says about every block of one matrix: no weight lies farther
    than half a step, Δ/2, from the number that was quantized (when the codes were
    rounded to the nearest, as ggml's reference quantizers round), plus what storing Δ
    (and m) as float16 can add. A bound read from the file, not an error measured
    against the original weights, which the file does not hold."""

    tensor: str
    type_name: str
    half_step: np.ndarray  # [blocks] Δ / 2
    spread: np.ndarray  # [blocks] standard deviation of the block's 32 dequantized weights
    float16_extra: np.ndarray  # [blocks] most that float16 rounding of Δ (and m) adds, over Δ
    full_range: float  # share of blocks using their extreme codes (Q4_1: both 0 and 15; Q8_0: 127 or −127)

    @property
    def blocks(self) -> int:
        return int(self.half_step.size)

    @property
    def relative(self) -> np.ndarray:
        """[blocks] (Δ/2) / spread: half a step against the block's own spread."""
        return self.half_step / self.spread

    @property
    def median_relative(self) -> float:
        """The median block's (Δ/2) / spread."""
        return float(np.median(self.relative))


def _f16_spacing(h: np.ndarray) -> np.ndarray:
    return np.spacing(np.abs(h)).astype(np.float32)  # the gap to the next float16 up


def rounding_bound(g: GGUFFile, name: str) -> RoundingBound:
    """The :class:`RoundingBound` of every block of the Q8_0 or Q4_1 tensor ``name``.

    Q8_0's reference quantizer takes ``Δ = max|x| / 127`` and rounds ``x / Δ``; Q4_1's takes
    ``Δ = (max − min) / 15``, ``m = min`` and rounds ``(x − m) / Δ``. Either way a code is
    at most half a step from the exact quotient, and Δ, m are then stored as float16:
    ``|x − (Δ₁₆·q + m₁₆)| ≤ Δ/2 + q·|Δ − Δ₁₆| + |m − m₁₆|``.

    >>> from tokenpath.gguf_format import read_gguf
    >>> rb = rounding_bound(read_gguf(_example_q4_1_file()), "w")  # one block: codes 0 … 15 twice, Δ = 1
    >>> rb.blocks, float(rb.half_step[0]), rb.full_range
    (1, 0.5, 1.0)
    """
    g = _check_gguf(g)
    t = _tensor(g, name)
    if t.type_name not in ("Q8_0", "Q4_1"):
        raise ValueError(f"name {name!r} is {t.type_name}; rounding_bound reads a Q8_0 or Q4_1 tensor")
    n, size = _BLOCK[t.type_name]
    blocks = np.asarray(g.raw(name)).reshape(-1, size)  # [blocks, bytes]
    delta = np.ascontiguousarray(blocks[:, 0:2]).view("<f2")[:, 0]
    weights = g.dequantize(name).reshape(-1, n)  # [blocks, 32]
    spread = weights.std(axis=1)
    if t.type_name == "Q8_0":
        q = blocks[:, 2:].view(np.int8)
        extra = 127 * _f16_spacing(delta) / 2
        full = np.abs(q.astype(np.int16)).max(axis=1) == 127
    else:
        m = np.ascontiguousarray(blocks[:, 2:4]).view("<f2")[:, 0]
        codes = np.concatenate([blocks[:, 4:] & 0x0F, blocks[:, 4:] >> 4], axis=1)
        extra = 15 * _f16_spacing(delta) / 2 + _f16_spacing(m) / 2
        full = (codes.min(axis=1) == 0) & (codes.max(axis=1) == 15)
    delta32 = delta.astype(np.float32)
    keep = spread > 0
    return RoundingBound(name, t.type_name, (delta32 / 2)[keep], spread[keep], (extra / delta32)[keep],
                         float(full.mean()))


# ------------------------------------------------------------------ the Q/K row order


@dataclass(frozen=True)
class PairingCheck:
    """One layer's attention scores on the same input, computed three ways."""

    layer: int
    ids: np.ndarray  # [T] the input tokens
    file_order: np.ndarray  # [Hq, T, T] the file's W_Q, W_K rows, adjacent pairing (llama.cpp's RoPE)
    unpermuted: np.ndarray  # [Hq, T, T] rows put back (unpermute_rows), rotate_half (Hugging Face, the engine)
    mixed: np.ndarray  # [Hq, T, T] the file's rows with rotate_half: the mistake the unpermute prevents

    @property
    def largest_gap(self) -> float:
        """max |file_order − unpermuted|: rounding only."""
        return float(np.abs(self.file_order - self.unpermuted).max())

    @property
    def mixed_gap(self) -> float:
        """max |mixed − unpermuted| over every score, future (masked) keys included."""
        return float(np.abs(self.mixed - self.unpermuted).max())

    @property
    def visible(self) -> np.ndarray:
        """[T, T] True where the causal mask lets query t read key j (j ≤ t)."""
        return np.tril(np.ones(self.unpermuted.shape[1:], dtype=bool))

    @property
    def visible_gap(self) -> float:
        """max |mixed − unpermuted| over the scores the causal mask keeps: what forgetting
        the unpermute costs the scores attention uses."""
        return float(np.abs(self.mixed - self.unpermuted)[:, self.visible].max())

    @property
    def diagonal_gap(self) -> float:
        """max |mixed − unpermuted| where a query reads its own position: the rotations of
        query and key cancel there, so the pairing does not matter."""
        return float(np.abs(np.diagonal(self.mixed - self.unpermuted, axis1=1, axis2=2)).max())

    def weights(self, which: str = "unpermuted") -> np.ndarray:
        """[Hq, T, T] attention weights: softmax over each row's visible scores of
        ``which`` ("unpermuted", "mixed" or "file_order")."""
        s = np.where(self.visible, getattr(self, which), -np.inf)
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    @property
    def weights_gap(self) -> float:
        """max |A(mixed) − A(unpermuted)|: how far forgetting the unpermute moves an
        attention weight."""
        return float(np.abs(self.weights("mixed") - self.weights()).max())

    @property
    def scale(self) -> float:
        """max |unpermuted|: the size of the scores the gaps compare with."""
        return float(np.abs(self.unpermuted).max())


def pairing_check(g: GGUFFile, ids, layer: int = 0) -> PairingCheck:
    """Scores q·k/√d_h (before the mask) of layer ``layer`` of the Llama file ``g`` for
    the tokens ``ids``, from the embedding rows through the layer's RMSNorm, W_Q, W_K and
    RoPE: with the rows as the file holds them and llama.cpp's adjacent pairing, with
    the rows put back and the ``rotate_half`` pairing, and with the file's rows and
    ``rotate_half``. The first two agree (the same pairs, only stored in another order).

    >>> from tokenpath.model.gguf_model import _tiny_gguf
    >>> from tokenpath.gguf_format import read_gguf
    >>> c = pairing_check(read_gguf(_tiny_gguf()), [1, 2, 3])
    >>> c.file_order.shape, c.largest_gap < 1e-6, c.diagonal_gap < 1e-9, c.visible_gap <= c.mixed_gap
    ((4, 3, 3), True, True, True)
    """
    g = _check_gguf(g)
    c = gguf_config(g)
    layer = as_int("layer", layer, low=0, high=c.num_hidden_layers - 1)
    ids = as_int_array("ids", ids, ndim=1, low=0)
    if ids.size < 1:
        raise ValueError("ids must hold at least one token ID")
    if ids.max() >= c.vocab_size:
        raise ValueError(f"ids must be token IDs 0 … {c.vocab_size - 1}, got {ids.tolist()}")
    embed = g.tensors["token_embd.weight"]
    width = row_bytes(embed.type_name, c.hidden_size)
    raw = g.raw("token_embd.weight")
    rows = np.stack([dequantize(np.array(raw[i * width:(i + 1) * width]), embed.type_name, (c.hidden_size,))
                     for i in ids.tolist()])  # [T, d]
    x = norms._rms_norm(rows.astype(np.float64), g.dequantize(f"blk.{layer}.attn_norm.weight"), c.rms_norm_eps)
    hq, hkv, dh, t = c.num_attention_heads, c.num_key_value_heads, c.head_dim, ids.size
    wq, wk = g.dequantize(f"blk.{layer}.attn_q.weight"), g.dequantize(f"blk.{layer}.attn_k.weight")

    def heads(w, n):  # [n·d_h, d] → activations [n, T, d_h]
        return (x @ w.T.astype(np.float64)).reshape(t, n, dh).transpose(1, 0, 2)

    def scores(q, k, pairing):  # [Hq, T, T]
        p = np.arange(t)
        qr = position.rope(q, p, base=c.rope_theta, pairing=pairing)
        kr = np.repeat(position.rope(k, p, base=c.rope_theta, pairing=pairing), hq // hkv, axis=0)
        return qr @ kr.transpose(0, 2, 1) / math.sqrt(dh)

    q_file, k_file = heads(wq, hq), heads(wk, hkv)
    q_hf, k_hf = heads(unpermute_rows(wq, hq), hq), heads(unpermute_rows(wk, hkv), hkv)
    return PairingCheck(layer, ids.copy(), scores(q_file, k_file, "adjacent"), scores(q_hf, k_hf, "rotate_half"),
                        scores(q_file, k_file, "rotate_half"))


def _example_q4_1_file() -> str:
    """A GGUF file written byte by byte, for the doctests: one Q4_1 tensor of one block,
    Δ = 1, m = 0, codes 0 … 15 and again 0 … 15."""
    import os
    import tempfile

    def text(v: str) -> bytes:
        return struct.pack("<Q", len(v)) + v.encode()

    block = struct.pack("<ee", 1.0, 0.0) + bytes(k | (k << 4) for k in range(16))
    head = (b"GGUF" + struct.pack("<IQQ", 3, 1, 1) + text("general.architecture") + struct.pack("<I", 8) + text("llama")
            + text("w") + struct.pack("<IQQIQ", 2, 32, 1, 3, 0))
    head += b"\0" * (-len(head) % 32)
    path = os.path.join(tempfile.mkdtemp(), "q4_1.gguf")
    with open(path, "wb") as f:
        f.write(head + block + b"\0" * (-len(block) % 32))
    return path
