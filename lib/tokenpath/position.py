"""Positions: why attention needs them, and four ways to supply them (chapter 6).

Attention by itself compares contents only: reorder its inputs and, without a mask,
its outputs are reordered the same way. Four remedies:

* a **sinusoidal encoding** (:func:`sinusoidal`), a fixed vector per position added to
  the token embedding;
* a **learned table** (:class:`PositionTable`), one trained row per position up to a
  maximum length, and nothing beyond it;
* **rotary position embedding** (RoPE, :func:`rope`), which turns queries and keys
  instead of adding anything;
* **ALiBi** (:func:`alibi_bias`), a fixed penalty on the attention scores that grows
  with the distance between query and key, one slope per head
  (:func:`alibi_slopes`).

RoPE splits a query or key vector of width ``d_h`` into ``d_h / 2`` feature pairs and
turns pair ``i`` at position ``p`` by the angle ``p · θ_i``, with frequencies
``θ_i = base^(−2i/d_h)``. Each pair is one "disc" spinning at its own speed. It is
applied to queries and keys, never to values, and it keeps every vector's length.
Because a rotation's transpose is its inverse, the score of a query at ``m`` and a key
at ``n`` depends on ``n − m`` only (:func:`relative_scores`).

Two conventions pair the features differently; both are named here:

* ``"adjacent"``: pairs ``(2i, 2i+1)``, as RoPE's formulas are usually written;
* ``"rotate_half"``: pairs ``(i, i + d_h/2)``, as Hugging Face Llama computes it
  (``rotate_half`` in ``modeling_llama``).

They compute the same rotation on a permuted order of the features
(:func:`rotate_half_order`).

Llama 3.1 stretches the slow discs for long contexts (``rope_type: "llama3"`` in a
``config.json``, :class:`Llama3Scaling`): pairs whose wavelength ``2π/θ_i`` is longer
than the pretraining context divided by ``low_freq_factor`` turn ``factor`` times
slower, pairs shorter than the context divided by ``high_freq_factor`` keep their
speed, and the ones between are blended. :func:`rope_frequencies` computes both, and
every table of angles here is built from it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import as_float, as_float_array, as_int, as_int_array, as_pair_width
from .attention import AttentionTrace, WeightedValuesTrace, causal_attention, weighted_values

__all__ = [
    "PAIRINGS",
    "AlibiTrace",
    "Llama3Scaling",
    "PositionTable",
    "RelativeScores",
    "alibi",
    "alibi_bias",
    "alibi_slopes",
    "position_table",
    "relative_scores",
    "rope",
    "rope_angles",
    "rope_frequencies",
    "rope_tables",
    "rotate_half_order",
    "rotation",
    "sinusoidal",
]

#: The two ways of pairing features, by name.
PAIRINGS = ("adjacent", "rotate_half")


def _positive_base(base) -> float:
    base = as_float("base", base)
    if base <= 0:
        raise ValueError(f"base must be > 0 (frequencies are powers of it), got {base:g}")
    return base


# ------------------------------------------------------------------------ RoPE core


@dataclass(frozen=True)
class Llama3Scaling:
    """Llama 3.1's RoPE scaling (``rope_type: "llama3"``), as
    ``transformers.modeling_rope_utils._compute_llama3_parameters`` applies it to the
    frequencies: with ``L = original_max_position_embeddings``, a pair of wavelength
    ``λ = 2π/θ`` longer than ``L / low_freq_factor`` turns ``factor`` times slower, one
    shorter than ``L / high_freq_factor`` keeps its speed, and between the two
    ``θ' = (1 − s)·θ/factor + s·θ`` with ``s = (L/λ − low_freq_factor) /
    (high_freq_factor − low_freq_factor)``.

    >>> Llama3Scaling(factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
    ...               original_max_position_embeddings=8192).factor
    8.0
    """

    factor: float  # how many times slower the slowest pairs turn
    low_freq_factor: float  # pairs with λ > L / low_freq_factor are slowed by factor
    high_freq_factor: float  # pairs with λ < L / high_freq_factor are kept
    original_max_position_embeddings: int  # L, the context length of pretraining

    def __post_init__(self):
        for name in ("factor", "low_freq_factor", "high_freq_factor"):
            value = as_float(name, getattr(self, name))
            if not value > 0:
                raise ValueError(f"{name} must be > 0, got {value:g}")
            object.__setattr__(self, name, value)
        if not self.high_freq_factor > self.low_freq_factor:
            raise ValueError(f"high_freq_factor ({self.high_freq_factor:g}) must be greater than low_freq_factor "
                             f"({self.low_freq_factor:g}): the blend between them divides by their difference")
        object.__setattr__(self, "original_max_position_embeddings",
                           as_int("original_max_position_embeddings", self.original_max_position_embeddings, low=1))


def rope_frequencies(head_dim: int, base: float = 10000.0, *, scaling: Llama3Scaling | None = None) -> np.ndarray:
    """The angle per position step of each feature pair: ``θ_i = base^(−2i/d_h)``,
    ``i = 0 … d_h/2 − 1``; with ``scaling`` (:class:`Llama3Scaling`) the slow pairs are
    slowed as Llama 3.1 does it.

    >>> rope_frequencies(4).tolist()
    [1.0, 0.01]
    >>> s = Llama3Scaling(factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, original_max_position_embeddings=64)
    >>> rope_frequencies(8, scaling=s).round(6).tolist()   # λ = 6.3 kept, 63 blended, 628 and 6283 slowed
    [1.0, 0.013042, 0.00125, 0.000125]
    """
    head_dim = as_pair_width("head_dim", head_dim)
    base = _positive_base(base)
    inv = base ** (-np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)  # [d_h/2]
    if scaling is None:
        return inv
    if not isinstance(scaling, Llama3Scaling):
        raise TypeError(f"scaling must be a Llama3Scaling or None, got {type(scaling).__name__}")
    s = scaling
    context = float(s.original_max_position_embeddings)
    wavelength = 2 * np.pi / inv  # [d_h/2] positions per full turn of each pair
    slow = np.where(wavelength > context / s.low_freq_factor, inv / s.factor, inv)
    blend = (context / wavelength - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor)
    between = ~(wavelength < context / s.high_freq_factor) & ~(wavelength > context / s.low_freq_factor)
    return np.where(between, (1 - blend) * slow / s.factor + blend * slow, slow)


def rope_angles(positions, head_dim: int, base: float = 10000.0, *, scaling: Llama3Scaling | None = None) -> np.ndarray:
    """The angle ``p · θ_i`` of every position ``p`` and pair ``i``: shape ``[T, d_h/2]``
    (``θ`` from :func:`rope_frequencies`, scaled when ``scaling`` is given).

    >>> rope_angles([3], 4).tolist()
    [[3.0, 0.03]]
    """
    positions = as_float_array("positions", positions, ndim=1)
    return positions[:, None] * rope_frequencies(head_dim, base, scaling=scaling)[None, :]


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
    if not isinstance(pairing, str) or pairing not in PAIRINGS:
        raise ValueError(f"pairing must be one of {PAIRINGS}, got {pairing!r}")
    t, d = x.shape[-2:]
    if d % 2:
        raise ValueError(f"x's last axis (head_dim) must be even: RoPE turns features in pairs; got {d}")
    angles = rope_angles(positions, d, base)
    if angles.shape[0] != t:
        raise ValueError(f"positions must give one position per row of x ({t}), got {angles.shape[0]}")
    cos, sin = np.cos(angles), np.sin(angles)
    return (_adjacent if pairing == "adjacent" else _rotate_half)(x, cos, sin)  # [a·cos − b·sin, a·sin + b·cos]


def rope_tables(positions, head_dim: int, base: float = 10000.0, *, dtype=np.float64,
                scaling: Llama3Scaling | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(cos, sin)`` of every angle RoPE turns by, ``[T, head_dim/2]`` each (row = position,
    column = pair), computed in float64 and then cast to ``dtype`` (float64 or float32):
    what a model computes once per position and reuses in every layer and head.
    ``scaling`` is a :class:`Llama3Scaling` or None (plain RoPE).

    >>> c, s = rope_tables([0, 1], 2, base=1.0, dtype=np.float32)
    >>> c.dtype, [round(float(a), 6) for a in c[:, 0]], [round(float(a), 6) for a in s[:, 0]]
    (dtype('float32'), [1.0, 0.540302], [0.0, 0.841471])
    """
    if not isinstance(dtype, (type, np.dtype, str)) or dtype not in (np.float64, np.float32, "float64", "float32"):
        raise ValueError(f"dtype must be np.float64 or np.float32, got {dtype!r}")
    dtype = np.dtype(dtype)
    head_dim = as_pair_width("head_dim", head_dim)
    angles = rope_angles(positions, head_dim, base, scaling=scaling)  # [T, head_dim/2]
    return np.cos(angles).astype(dtype), np.sin(angles).astype(dtype)


def _adjacent(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """The unchecked core of :func:`rope` with the ``adjacent`` pairing: feature ``2i``
    turns with feature ``2i+1``. ``x [..., T, d_h]``, ``cos``/``sin [T, d_h/2]``."""
    a, b = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = a * cos - b * sin
    out[..., 1::2] = a * sin + b * cos
    return out


def _rotate_half(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """The unchecked core of :func:`rope` with the ``rotate_half`` pairing: feature ``i``
    turns with feature ``i + d_h/2``. ``x [..., T, d_h]``, ``cos``/``sin [T, d_h/2]``
    (:func:`rope` passes float64 tables, so a float32 ``x`` gives a float64 result;
    :func:`rope_tables` can cast them to ``x``'s dtype first)."""
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    return np.concatenate([a * cos - b * sin, a * sin + b * cos], axis=-1)


def rotate_half_order(head_dim: int) -> np.ndarray:
    """The feature order that turns the adjacent layout into the rotate-half layout:
    ``x[..., order]`` puts feature ``2i`` at ``i`` and ``2i+1`` at ``i + d_h/2``, so

    ``rope(x[..., order], p, pairing="rotate_half") == rope(x, p, pairing="adjacent")[..., order]``.

    (``np.argsort(order)`` goes back.) This is why a checkpoint written for one layout
    has the output features of its query and key projections reordered when it is
    converted to the other.

    >>> rotate_half_order(8).tolist()
    [0, 2, 4, 6, 1, 3, 5, 7]
    """
    head_dim = as_pair_width("head_dim", head_dim)
    return np.concatenate([np.arange(0, head_dim, 2), np.arange(1, head_dim, 2)])


# ------------------------------------------------------------ the relative property


@dataclass(frozen=True)
class RelativeScores:
    """Scores of rotated queries against rotated keys, computed twice: from the
    absolute positions and from the distances alone."""

    query_positions: np.ndarray  # [T_q] m
    key_positions: np.ndarray  # [T_k] n
    absolute: np.ndarray  # [T_q, T_k] rope(q, m) · rope(k, n), raw dot products (no 1/√d_h)
    relative: np.ndarray  # [T_q, T_k] q · rope(k, n − m), only the distance enters

    @property
    def largest_gap(self) -> float:
        """``max |absolute − relative|``: rounding only, never a real difference."""
        return float(np.abs(self.absolute - self.relative).max())


def relative_scores(query, key, query_positions, key_positions, *, base: float = 10000.0,
                    pairing: str = "rotate_half") -> RelativeScores:
    """Check ``(R_m q)ᵀ R_n k = qᵀ R_(n−m) k`` for every query row at ``m`` and key row
    at ``n`` of one head: ``query [T_q, d_h]``, ``key [T_k, d_h]``.

    >>> r = relative_scores([[1.0, 0.0]], [[1.0, 0.0]], [5], [5])
    >>> r.absolute.round(12).tolist(), r.relative.round(12).tolist()
    ([[1.0]], [[1.0]])
    """
    q = as_float_array("query", query, ndim=2)
    k = as_float_array("key", key, ndim=2)
    if q.shape[1] != k.shape[1]:
        raise ValueError(f"query and key must have the same head_dim, got {q.shape[1]} and {k.shape[1]}")
    m = as_float_array("query_positions", query_positions, ndim=1)
    n = as_float_array("key_positions", key_positions, ndim=1)
    if m.size != q.shape[0] or n.size != k.shape[0]:
        raise ValueError(f"query_positions and key_positions must give one position per row of query ({q.shape[0]}) "
                         f"and key ({k.shape[0]}), got {m.size} and {n.size}")
    absolute = rope(q, m, base=base, pairing=pairing) @ rope(k, n, base=base, pairing=pairing).T
    relative = np.empty_like(absolute)
    for i, mi in enumerate(m):
        relative[i] = np.einsum("d,jd->j", q[i], rope(k, n - mi, base=base, pairing=pairing))
    return RelativeScores(m, n, absolute, relative)


# --------------------------------------------------- sinusoidal and learned positions


def sinusoidal(positions, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The fixed sinusoidal encoding: ``PE[p, 2i] = sin(p / base^(2i/d))`` and
    ``PE[p, 2i+1] = cos(p / base^(2i/d))``. Shape ``[T, d_model]``; rows = positions,
    columns = features. Its frequencies are RoPE's (:func:`rope_frequencies`).

    >>> sinusoidal([0, 1], 4).round(4).tolist()
    [[0.0, 1.0, 0.0, 1.0], [0.8415, 0.5403, 0.01, 1.0]]
    """
    d_model = as_pair_width("d_model", d_model)
    angles = rope_angles(positions, d_model, base)  # [T, d_model/2]
    out = np.empty((angles.shape[0], d_model))
    out[:, 0::2] = np.sin(angles)
    out[:, 1::2] = np.cos(angles)
    return out


@dataclass(frozen=True)
class PositionTable:
    """A learned position table: one row per position ``0 … max_len − 1``."""

    weights: np.ndarray  # [max_len, d_model] row p is added to the embedding at position p

    @property
    def max_len(self) -> int:
        """How many positions the table has rows for."""
        return int(self.weights.shape[0])

    def lookup(self, positions) -> np.ndarray:
        """Rows of ``positions`` (integers in ``[0, max_len)``): shape ``[T, d_model]``.

        >>> position_table(4, 2, seed=0).lookup([0, 3]).shape
        (2, 2)
        """
        p = as_int_array("positions", positions, ndim=1, low=0)
        if p.size and p.max() >= self.max_len:
            raise ValueError(
                f"positions must be < max_len={self.max_len} (the table has rows 0–{self.max_len - 1}); "
                f"position {int(p.max())} has no learned row"
            )
        return self.weights[p]


def position_table(max_len: int, d_model: int, *, seed: int) -> PositionTable:
    """A position table initialised the way GPT-2's is before training (normal,
    standard deviation 0.02). A teaching stand-in: no training happens here.

    >>> position_table(8, 4, seed=5).max_len
    8
    """
    max_len = as_int("max_len", max_len, low=1)
    d_model = as_int("d_model", d_model, low=1)
    seed = as_int("seed", seed, low=0)
    return PositionTable(0.02 * np.random.default_rng(seed).standard_normal((max_len, d_model)))


# ---------------------------------------------------------------- order blindness


# ------------------------------------------------------------------------------ ALiBi


def alibi_slopes(heads: int) -> np.ndarray:
    """ALiBi's fixed slope of each head (Press et al., 2022): the geometric sequence
    that starts at ``2^(−8/H)`` and has that same ratio, for ``H`` a power of two.

    >>> alibi_slopes(8).tolist()
    [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625]
    """
    heads = as_int("heads", heads, low=1)
    if heads & (heads - 1):
        raise ValueError(f"heads must be a power of two (1, 2, 4, 8, …) for ALiBi's geometric slopes, got {heads}")
    return 2.0 ** (-8.0 * np.arange(1, heads + 1) / heads)


def alibi_bias(t: int, slope: float) -> np.ndarray:
    """``[T, T]`` bias added to the scaled scores: ``−slope · (i − j)`` for a query at
    ``i`` and a visible key at ``j ≤ i``, 0 on the future (which the causal mask hides).
    It depends on the distance ``i − j`` only, and it is computed, not trained.

    >>> alibi_bias(3, 0.5).tolist()
    [[0.0, 0.0, 0.0], [-0.5, 0.0, 0.0], [-1.0, -0.5, 0.0]]
    """
    t = as_int("t", t, low=1)
    slope = as_float("slope", slope)
    if not slope > 0:
        raise ValueError(f"slope must be positive, got {slope}")
    i, j = np.arange(t)[:, None], np.arange(t)[None, :]
    return np.where(j <= i, -slope * (i - j), 0.0) + 0.0  # + 0.0: no negative zeros on the diagonal


@dataclass(frozen=True)
class AlibiTrace:
    """Causal attention over the same queries, keys and values, without and with
    ALiBi's bias on the scaled scores."""

    slope: float
    bias: np.ndarray  # [T, T]  −slope·(i − j) on visible cells
    plain: AttentionTrace  # no position signal
    biased: WeightedValuesTrace  # scores + bias, the same causal mask

    @property
    def most_read(self) -> tuple[np.ndarray, np.ndarray]:
        """The most-read source of each query row: (without, with the bias)."""
        return self.plain.weights.argmax(axis=-1), self.biased.weights.argmax(axis=-1)


def alibi(query, key, value, slope: float) -> AlibiTrace:
    """One causal head without and with ALiBi. ``query``, ``key`` ``[T, d_h]``,
    ``value`` ``[T, d_v]``.

    >>> t = alibi(np.eye(2), np.eye(2), np.eye(2), 0.5)
    >>> t.bias[1].tolist(), bool(np.allclose(t.biased.weights.sum(axis=-1), 1))
    ([-0.5, 0.0], True)
    """
    plain = causal_attention(query, key, value)
    if plain.scores.ndim != 2:
        raise ValueError(f"query must be [T, d_h] (one head), got shape {plain.query.shape}")
    bias = alibi_bias(plain.scores.shape[-1], slope)
    biased = weighted_values(plain.scores + bias, plain.value, plain.mask)
    return AlibiTrace(float(slope), bias, plain, biased)
