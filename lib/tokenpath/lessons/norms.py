"""Chapter 8's lessons: a real model's RMSNorm gains and SwiGLU width.

The toy norm of chapter 8 uses γ of ones. A trained Llama-style file stores one γ
vector per norm: ``blk.N.attn_norm.weight`` before attention and
``blk.N.ffn_norm.weight`` before the feed-forward network of layer N, and
``output_norm.weight`` before the head (GGUF's names; chapter 10 reads the file).
:func:`model_norm_gains` reads those float vectors and summarises each one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..gguf_format import GGUFFile
from ..model.gguf_model import gguf_config

__all__ = [
    "GainStats",
    "NormGains",
    "model_norm_gains",
]


@dataclass(frozen=True)
class GainStats:
    """One γ vector summarised: its mean, spread and range."""

    mean: float
    std: float  # population standard deviation over the d features
    low: float  # the smallest gain
    high: float  # the largest gain
    negative: int  # how many gains are below zero (they flip their feature's sign)

    @classmethod
    def of(cls, gains) -> GainStats:
        """Summarise one gain vector.

        >>> GainStats.of([1.0, 3.0, -1.0, 1.0])
        GainStats(mean=1.0, std=1.4142135623730951, low=-1.0, high=3.0, negative=1)
        """
        g = np.asarray(gains, dtype=np.float64)
        if g.ndim != 1 or g.size == 0 or not np.all(np.isfinite(g)):
            raise ValueError(f"gains must be a non-empty vector of finite numbers, got shape {list(g.shape)}")
        return cls(float(g.mean()), float(g.std()), float(g.min()), float(g.max()), int(np.count_nonzero(g < 0)))


@dataclass(frozen=True)
class NormGains:
    """Every RMSNorm gain vector of a Llama GGUF file."""

    attn: np.ndarray  # [L, d] γ of the norm before attention, one row per layer
    ffn: np.ndarray  # [L, d] γ of the norm before the feed-forward network
    output: np.ndarray  # [d] γ of the final norm, before the head
    eps: float  # ε inside every norm, from the file's metadata
    file_bytes: int  # bytes these vectors take in the file

    @property
    def layers(self) -> int:
        return self.attn.shape[0]

    @property
    def count(self) -> int:
        """How many gains the file holds: 2·L·d in the layers, d in the final norm."""
        return self.attn.size + self.ffn.size + self.output.size

    @property
    def bfloat16_exact(self) -> int:
        """How many gains are bfloat16 numbers written out in 32 bits: as float32 their
        low 16 bits (the mantissa bits bfloat16 drops) are all zero.

        >>> g = NormGains(np.array([[1.0, 1.375]]), np.array([[0.1, 2.0]]), np.array([-2.125, 3.0]), 1e-5, 24)
        >>> g.count, g.bfloat16_exact  # 0.1 needs more than bfloat16's 8 significant bits
        (6, 5)
        """
        bits = np.concatenate([np.asarray(a, dtype=np.float32).ravel() for a in (self.attn, self.ffn, self.output)])
        return int(np.count_nonzero((bits.view(np.uint32) & 0xFFFF) == 0))

    def stats(self, which: str, layer: int | None = None) -> GainStats:
        """The summary of ``which`` ("attn", "ffn" or "output") in ``layer`` (all
        layers together when None; the output norm has no layer)."""
        if which not in ("attn", "ffn", "output"):
            raise ValueError(f"which must be 'attn', 'ffn' or 'output', got {which!r}")
        g = getattr(self, which)
        if which == "output":
            if layer is not None:
                raise ValueError("layer must be None for the output norm, which comes once, after the last layer")
            return GainStats.of(g)
        if layer is None:
            return GainStats.of(g.ravel())
        if isinstance(layer, bool) or not isinstance(layer, (int, np.integer)) or not 0 <= layer < self.layers:
            raise ValueError(f"layer must be an integer from 0 to {self.layers - 1}, got {layer!r}")
        return GainStats.of(g[layer])

    def table(self, layers) -> list[str]:
        """One line per layer of ``layers``, then the output norm: mean, spread, range."""
        def cells(s: GainStats) -> str:
            return f"{s.mean:6.3f} {s.std:6.3f} {s.low:7.3f} {s.high:6.3f}"

        head = "layer    attn_norm: mean    std     min    max | ffn_norm: mean    std     min    max"
        lines = [head]
        for k in layers:
            lines.append(f"{k:>5}               {cells(self.stats('attn', k))} |           {cells(self.stats('ffn', k))}")
        lines.append(f"output_norm:        {cells(self.stats('output'))} |")
        return lines


def model_norm_gains(g: GGUFFile) -> NormGains:
    """Read every RMSNorm γ and ε of the Llama GGUF file ``g`` (chapter 8's aside).

    >>> from ..model.gguf_model import _tiny_gguf
    >>> from ..gguf_format import read_gguf
    >>> n = model_norm_gains(read_gguf(_tiny_gguf()))
    >>> n.attn.shape, n.output.shape, bool(n.stats("attn").high == n.attn.max()), f"{n.eps:.0e}"
    ((1, 8), (8,), True, '1e-06')
    """
    if not isinstance(g, GGUFFile):
        raise TypeError(f"g must be a tokenpath.gguf_format.GGUFFile, got {type(g).__name__}")
    c = gguf_config(g)

    names = {part: [f"blk.{k}.{part}.weight" for k in range(c.num_hidden_layers)] for part in ("attn_norm", "ffn_norm")}
    names["output_norm"] = ["output_norm.weight"]
    for name in (n for group in names.values() for n in group):
        if name not in g.tensors:
            raise ValueError(f"g holds no tensor {name!r}: every Llama layer has an attn_norm and an ffn_norm, "
                             "and the model one output_norm")

    def rows(part: str) -> np.ndarray:
        return np.stack([g.dequantize(n) for n in names[part]])  # [L, d]

    nbytes = sum(g.tensors[n].nbytes for group in names.values() for n in group)
    return NormGains(rows("attn_norm"), rows("ffn_norm"), rows("output_norm")[0], c.rms_norm_eps, nbytes)
