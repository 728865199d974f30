"""Positions: rotary position embedding (RoPE).

RoPE splits a query or key vector of width ``d_h`` into ``d_h / 2`` feature pairs and
turns pair ``i`` at position ``p`` by the angle ``p · θ_i``, with frequencies
``θ_i = base^(−2i/d_h)``. Each pair is one "disc" spinning at its own speed. It is
applied to queries and keys, never to values, and it keeps every vector's length.

Two conventions pair the features differently; both are named here:

* ``"adjacent"``: pairs ``(2i, 2i+1)``, as RoPE's formulas are usually written;
* ``"rotate_half"``: pairs ``(i, i + d_h/2)``, as Hugging Face Llama computes it
  (``rotate_half`` in ``modeling_llama``).

They compute the same rotation on a permuted order of the features.
"""

from __future__ import annotations

import numpy as np

from ._checks import as_float, as_float_array, as_int

__all__ = ["PAIRINGS", "rope", "rope_angles", "rope_frequencies", "rotation"]

#: The two ways of pairing features, by name.
PAIRINGS = ("adjacent", "rotate_half")


def rope_frequencies(head_dim: int, base: float = 10000.0) -> np.ndarray:
    """The angle per position step of each feature pair: ``θ_i = base^(−2i/d_h)``,
    ``i = 0 … d_h/2 − 1``.

    >>> rope_frequencies(4).tolist()
    [1.0, 0.01]
    """
    head_dim = as_int("head_dim", head_dim, low=2)
    if head_dim % 2:
        raise ValueError(f"head_dim must be even (RoPE turns features in pairs), got {head_dim}")
    base = as_float("base", base)
    if base <= 0:
        raise ValueError(f"base must be > 0, got {base:g}")
    return base ** (-np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)


def rope_angles(positions, head_dim: int, base: float = 10000.0) -> np.ndarray:
    """The angle ``p · θ_i`` of every position ``p`` and pair ``i``: shape ``[T, d_h/2]``.

    >>> rope_angles([3], 4).tolist()
    [[3.0, 0.03]]
    """
    positions = as_float_array("positions", positions, ndim=1)
    return positions[:, None] * rope_frequencies(head_dim, base)[None, :]


def rotation(angle: float) -> np.ndarray:
    """The 2×2 matrix that turns a feature pair counter-clockwise by ``angle`` radians.

    >>> rotation(np.pi / 2).round(12).tolist()
    [[0.0, -1.0], [1.0, 0.0]]
    """
    angle = as_float("angle", angle)
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s], [s, c]])


def rope(x, positions, *, base: float = 10000.0, pairing: str = "rotate_half") -> np.ndarray:
    """Rotate each feature pair of ``x`` by its position's angle.

    ``x`` is ``[..., T, d_h]`` (queries or keys; any leading batch and head axes) and
    ``positions`` the ``T`` absolute positions of its rows. ``pairing`` chooses which
    features form a pair (:data:`PAIRINGS`).

    >>> rope([[1.0, 0.0]], [1], base=1.0).round(12).tolist()   # θ = 1: turn by 1 rad
    [[0.540302305868, 0.841470984808]]
    """
    x = as_float_array("x", x, min_ndim=2)
    if pairing not in PAIRINGS:
        raise ValueError(f"pairing must be one of {PAIRINGS}, got {pairing!r}")
    t, d = x.shape[-2:]
    angles = rope_angles(positions, d, base)
    if angles.shape[0] != t:
        raise ValueError(f"positions must give one position per row of x ({t}), got {angles.shape[0]}")
    cos, sin = np.cos(angles), np.sin(angles)
    if pairing == "adjacent":
        a, b = x[..., 0::2], x[..., 1::2]
        out = np.empty_like(x)
        out[..., 0::2] = a * cos - b * sin
        out[..., 1::2] = a * sin + b * cos
        return out
    half = d // 2
    a, b = x[..., :half], x[..., half:]
    return np.concatenate([a * cos - b * sin, a * sin + b * cos], axis=-1)
