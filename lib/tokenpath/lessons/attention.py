"""Chapter 4's lessons: the traces its figures draw and its prose prints.

Small bundles of the quantities one figure shows, computed here with the engine's
:mod:`tokenpath.attention` so that a figure only draws and a notebook or test can print
and check the same object: the read paths of figure 7, the two-source hand calculation
of figure 10, the value magnitudes of figure 11, the score spread of figure 12, the shift
and the mask of figure 13, the two cache masks of figure 14 and the heads of figure 23.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from .._checks import as_float, as_float_array, as_int, as_int_array
from ..attention import (
    AttentionTrace,
    causal_attention,
    merge_heads,
    split_heads,
    WeightedValuesTrace,
    attention,
    cache_mask,
    causal_mask,
    weighted_values,
)
from ..examples import B, D_MODEL, FIG11_SCORES, FIG11_U0, H, MULTIHEAD_SEED, MULTIHEAD_T, encode_chars
from ..packing import loss_mask, shift_targets

__all__ = [
    "CacheMasks",
    "HeadSplit",
    "ReadPaths",
    "ScoreSpreadTrace",
    "ShiftVsMask",
    "TwoSources",
    "VarianceTrace",
    "cache_masks",
    "misaligned_cache_mask",
    "multi_head",
    "output_from_rounded_weights",
    "read_paths",
    "score_samples",
    "score_spread",
    "score_variance",
    "shift_vs_mask",
    "two_sources",
    "value_magnitude",
]


# ---------------------------------------------------------------- figure 7: read paths


@dataclass(frozen=True)
class ReadPaths:
    """What figure 7 shows: a short text, its IDs, the causal mask, one query row."""

    text: str  # the characters, one per position
    ids: np.ndarray  # [T] token IDs of the text
    mask: np.ndarray  # [T, T] causal visibility, True where key j is visible to query i
    query: int  # the receiving position the figure follows

    @property
    def row(self) -> np.ndarray:
        """Visibility row of the followed query, ``mask[query]`` (shape ``[T]``)."""
        return self.mask[self.query]


def read_paths(text: str, query: int) -> ReadPaths:
    """Gather figure 7's trace: IDs of ``text`` and its causal mask.

    >>> read_paths("abac", 2).row.astype(int).tolist()
    [1, 1, 1, 0]
    """
    ids = encode_chars(text)
    if ids.size == 0:
        raise ValueError("text must hold at least one character")
    if isinstance(query, bool) or not isinstance(query, int) or not 0 <= query < ids.size:
        raise ValueError(f"query must be a position index in [0, {ids.size - 1}], got {query!r}")
    return ReadPaths(text=text, ids=ids, mask=causal_mask(ids.size), query=query)


# ------------------------------------------------------ figure 10: two sources


def output_from_rounded_weights(trace: AttentionTrace, digits: int) -> np.ndarray:
    """Recompute the output after rounding the weights to ``digits`` decimals, the way
    a hand calculation that copies rounded weights does. Shows rounding *order*,
    not a different algorithm.

    >>> t = attention([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 4.0]])
    >>> output_from_rounded_weights(t, 3).round(6).tolist()
    [[1.34, 1.32]]
    """
    digits = as_int("digits", digits, low=0)
    if not isinstance(trace, AttentionTrace):
        raise TypeError(f"trace must be an AttentionTrace (from attention), got {type(trace).__name__}")
    return np.round(trace.weights, digits) @ trace.value


@dataclass(frozen=True)
class TwoSources:
    """Figure 10's trace: one query, two sources, and the output the hand calculation
    gets after rounding the weights to ``digits`` decimals first."""

    attention: AttentionTrace  # [1, 2] scores/weights, [1, 2] output
    digits: int  # decimals the weights are rounded to before multiplying
    rounded_output: np.ndarray  # [1, d_v] round(weights, digits) @ value


def two_sources(query, key, value, digits: int) -> TwoSources:
    """Attention of one query over its sources, plus the rounded-weight output.

    >>> t = two_sources([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 4.0]], 3)
    >>> t.rounded_output.round(6).tolist()
    [[1.34, 1.32]]
    """
    trace = attention(query, key, value)
    if trace.weights.shape[0] != 1:
        raise ValueError(f"query must be one row [1, d_h], got shape {trace.query.shape}")
    return TwoSources(trace, digits, output_from_rounded_weights(trace, digits))


# ------------------------------------------------- figure 11: value magnitude


def value_magnitude(m) -> WeightedValuesTrace:
    """Figure 11 at value magnitude ``m``: scores :data:`~tokenpath.examples.FIG11_SCORES`,
    value rows u₀ = :data:`~tokenpath.examples.FIG11_U0` and u₁ = [0, m].

    >>> t = value_magnitude(4)
    >>> t.weights.tolist(), t.contributions.tolist(), t.output.tolist()
    ([0.75, 0.25], [[1.5, 0.0], [0.0, 1.0]], [1.5, 1.0])
    """
    m = as_float("m", m, low=0.0)
    value = np.stack([FIG11_U0, m * np.array([0.0, 1.0])])
    return weighted_values(FIG11_SCORES, value)


# ------------------------------------------------------- figure 12: the scale


@dataclass(frozen=True)
class VarianceTrace:
    """Monte-Carlo check of why scores are divided by √d_h (figure 12)."""

    d_h: np.ndarray  # [n_d] head widths tried
    theory: np.ndarray  # [n_d] variance of q·k for unit-variance independent parts: d_h
    unscaled: np.ndarray  # [n_d] sample variance of q·k
    scaled: np.ndarray  # [n_d] sample variance of q·k/√d_h (theory: 1)
    samples: int  # number of (q, k) pairs per width
    seed: int


def score_samples(d_h: int, samples: int, seed: int) -> np.ndarray:
    """``samples`` raw dot products q·k of independent standard-normal vectors of
    width ``d_h``, from a generator seeded with ``(seed, d_h)`` so each width has its
    own reproducible stream. Shape ``[samples]``.

    >>> score_samples(4, 3, seed=0).shape
    (3,)
    """
    d_h = as_int("d_h", d_h, low=1)
    samples = as_int("samples", samples, low=2)
    seed = as_int("seed", seed, low=0)
    rng = np.random.default_rng([seed, d_h])
    q = rng.standard_normal((samples, d_h))
    k = rng.standard_normal((samples, d_h))
    return np.einsum("nd,nd->n", q, k)


def score_variance(d_h_values=(1, 4, 16), *, samples: int = 20_000, seed: int = 0) -> VarianceTrace:
    """Variance of unscaled and scaled dot products for each width in ``d_h_values``.

    An approximation under independence, not a measurement of a trained model.

    >>> v = score_variance((1, 4), samples=50_000)
    >>> v.theory.tolist(), bool(abs(v.scaled - 1).max() < 0.05)
    ([1.0, 4.0], True)
    """
    widths = as_int_array("d_h_values", d_h_values, ndim=1, low=1)
    if widths.size == 0:
        raise ValueError("d_h_values must name at least one width")
    unscaled, scaled = [], []
    for d in widths.tolist():
        s = score_samples(d, samples, seed)
        unscaled.append(s.var())
        scaled.append((s / np.sqrt(d)).var())
    return VarianceTrace(
        d_h=widths,
        theory=widths.astype(np.float64),
        unscaled=np.array(unscaled),
        scaled=np.array(scaled),
        samples=samples,
        seed=seed,
    )


@functools.lru_cache(maxsize=128)
def _cached_score_samples(d_h: int, samples: int, seed: int) -> np.ndarray:
    """Read-only :func:`score_samples`, cached: the draws are deterministic, so a
    slider that returns to a width reuses them."""
    s = score_samples(d_h, samples, seed)
    s.setflags(write=False)
    return s


@dataclass(frozen=True)
class ScoreSpreadTrace:
    """One head width's raw and scaled score samples, binned on fixed edges (figure 12)."""

    d_h: int
    samples: int  # number of (q, k) pairs
    seed: int
    theory: float  # variance of q·k under independence: d_h
    unscaled: np.ndarray  # [samples] q·k
    scaled: np.ndarray  # [samples] q·k/√d_h
    unscaled_var: float  # sample variance of ``unscaled``
    scaled_var: float  # sample variance of ``scaled`` (theory: 1)
    edges: np.ndarray  # [n_bins + 1] fixed bin edges, shared by both histograms
    unscaled_density: np.ndarray  # [n_bins] histogram of ``unscaled`` as a density
    scaled_density: np.ndarray  # [n_bins] histogram of ``scaled`` as a density
    unscaled_outside: int  # samples of ``unscaled`` beyond the outer edges
    scaled_outside: int  # samples of ``scaled`` beyond the outer edges


def score_spread(d_h: int, edges, *, samples: int = 4_000, seed: int = 0) -> ScoreSpreadTrace:
    """Raw and scaled scores of one head width, with densities over fixed ``edges``.

    A density is ``count / (samples · bin width)``, so the two histograms share one
    vertical scale; samples outside ``edges`` are counted, not dropped silently.
    Samples are cached per ``(d_h, samples, seed)``. An approximation under
    independence, not a measurement of a trained model.

    >>> t = score_spread(16, np.linspace(-8, 8, 5), samples=20_000)
    >>> t.theory, round(t.unscaled_var), round(t.scaled_var)
    (16.0, 16, 1)
    """
    d_h = as_int("d_h", d_h, low=1)
    samples = as_int("samples", samples, low=2)
    seed = as_int("seed", seed, low=0)
    e = as_float_array("edges", edges, ndim=1)
    if e.size < 2 or np.any(np.diff(e) <= 0):
        raise ValueError(f"edges must be at least two strictly increasing values, got {e.size} values")
    raw = _cached_score_samples(d_h, samples, seed)
    scaled = raw / np.sqrt(d_h)
    widths = np.diff(e)

    def density(x):
        counts, _ = np.histogram(x, bins=e)
        return counts / (samples * widths), int(samples - counts.sum())

    raw_density, raw_out = density(raw)
    scaled_density, scaled_out = density(scaled)
    return ScoreSpreadTrace(
        d_h=d_h,
        samples=samples,
        seed=seed,
        theory=float(d_h),
        unscaled=raw,
        scaled=scaled,
        unscaled_var=float(raw.var()),
        scaled_var=float(scaled.var()),
        edges=e,
        unscaled_density=raw_density,
        scaled_density=scaled_density,
        unscaled_outside=raw_out,
        scaled_outside=scaled_out,
    )


# --------------------------------------------------- figure 13: shift vs mask


@dataclass(frozen=True)
class ShiftVsMask:
    """Figure 13's trace: the training shift, the loss mask, the attention mask and
    one generation step, for one teaching sequence."""

    inputs: np.ndarray  # [T] x, the token IDs fed in
    targets: np.ndarray  # [T] y[t] = x[t+1], last = EOS (shift_targets)
    loss_mask: np.ndarray  # [T] 1 where position t's target counts in the loss
    visibility: np.ndarray  # [T, T] causal mask: query t reads key j when j <= t
    column: int  # the position t the text follows
    prefix: np.ndarray  # [column + 1] what generation starts from: x[0:column+1]
    sampled: int  # the ID drawn from the last row's distribution
    generated: np.ndarray  # [column + 2] prefix with the sampled ID appended

    @property
    def reads(self) -> np.ndarray:
        """The input IDs query ``column`` reads: ``x[visibility[column]]``."""
        return self.inputs[self.visibility[self.column]]


def shift_vs_mask(text: str, *, eos: int, column: int, sampled: int) -> ShiftVsMask:
    """Gather figure 13's trace for ``text`` (an unpadded row, so every target counts).

    >>> s = shift_vs_mask("abac", eos=9, column=2, sampled=2)
    >>> s.targets.tolist(), s.reads.tolist(), s.generated.tolist()
    ([7, 3, 2, 9], [3, 7, 3], [3, 7, 3, 2])
    """
    x = encode_chars(text)
    if x.size == 0:
        raise ValueError("text must hold at least one character")
    if isinstance(column, bool) or not isinstance(column, int) or not 0 <= column < x.size:
        raise ValueError(f"column must be a position in [0, {x.size - 1}], got {column!r}")
    if isinstance(sampled, bool) or not isinstance(sampled, int) or sampled < 0:
        raise ValueError(f"sampled must be a non-negative token ID, got {sampled!r}")
    y = shift_targets(x, eos)
    prefix = x[: column + 1]
    return ShiftVsMask(
        inputs=x,
        targets=y,
        # an unpadded language-modelling row: every target is a real token
        loss_mask=loss_mask(y),
        visibility=causal_mask(x.size),
        column=column,
        prefix=prefix,
        sampled=sampled,
        generated=np.append(prefix, sampled),
    )


# ---------------------------------------------------- figure 14: cache masks


def misaligned_cache_mask(past: int, new: int) -> np.ndarray:
    """The *wrong* cache mask: compares the local query row ``r`` with the absolute key
    index ``j`` (``j <= r``), as a square-mask habit would. Kept to show what it
    drops; never use it for attention.

    >>> misaligned_cache_mask(3, 2).astype(int)
    array([[1, 0, 0, 0, 0],
           [1, 1, 0, 0, 0]])
    """
    past = as_int("past", past, low=0)
    new = as_int("new", new, low=1)
    return np.arange(past + new)[None, :] <= np.arange(new)[:, None]


@dataclass(frozen=True)
class CacheMasks:
    """Figure 14's trace: the correct and the misaligned mask for a block of new
    queries after ``past`` cached positions."""

    past: int  # P, positions already in the K/V cache
    new: int  # query rows in this block (local r = 0 … new-1, absolute P + r)
    mask: np.ndarray  # [new, past + new] cache_mask: key j visible when j <= P + r
    wrong: np.ndarray  # [new, past + new] misaligned_cache_mask: j <= r (never use)

    @property
    def dropped(self) -> np.ndarray:
        """Cells the correct mask allows but the misaligned one hides."""
        return self.mask & ~self.wrong


def cache_masks(past: int, new: int) -> CacheMasks:
    """Both masks of figure 14.

    >>> int(cache_masks(3, 2).dropped.sum())
    6
    """
    return CacheMasks(past, new, cache_mask(past, new), misaligned_cache_mask(past, new))


# ------------------------------------------------ figure 23: splitting into heads


@dataclass(frozen=True)
class HeadSplit:
    """Figure 23's trace: one layer input cut into heads, attended head by head, merged.

    Random teaching tensors of the main shape configuration (not a trained model)."""

    x: np.ndarray  # [B, T, d] the layer input X
    w_q: np.ndarray  # [d, d] W_Q
    w_k: np.ndarray  # [d, d] W_K, drawn the same way
    w_v: np.ndarray  # [d, d] W_V, drawn the same way
    q_wide: np.ndarray  # [B, T, d] X W_Q, before the split
    q: np.ndarray  # [B, H, T, d_h] split_heads(X W_Q, H)
    k: np.ndarray  # [B, H, T, d_h] split_heads(X W_K, H)
    u: np.ndarray  # [B, H, T, d_h] split_heads(X W_V, H), the values
    attention: AttentionTrace  # causal attention of every (batch, head) pair
    merged: np.ndarray  # [B, T, H·d_h] merge_heads(attention.output)

    @property
    def heads(self) -> int:
        return self.q.shape[1]

    @property
    def d_h(self) -> int:
        return self.q.shape[-1]


def multi_head(seed: int = MULTIHEAD_SEED, *, batch: int = B, t: int = MULTIHEAD_T, d: int = D_MODEL,
               heads: int = H) -> HeadSplit:
    """X ~ N(0, 1), W ~ N(0, 1/d) (so the rows of XW stay near unit size); Q, K, U are
    the three projections cut into ``heads`` heads; each head attends causally on its
    own; the head outputs are concatenated back to width ``d``.

    >>> s = multi_head()
    >>> s.q.shape, s.attention.weights.shape, s.merged.shape
    ((2, 2, 3, 4), (2, 2, 3, 3), (2, 3, 8))
    >>> bool(np.array_equal(s.q[:, 1], s.q_wide[..., 4:]))
    True
    """
    seed = as_int("seed", seed, low=0)
    batch = as_int("batch", batch, low=1, high=64)
    t = as_int("t", t, low=1, high=1024)
    d = as_int("d", d, low=1, high=1024)
    heads = as_int("heads", heads, low=1, high=d)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, t, d))
    w_q, w_k, w_v = rng.standard_normal((3, d, d)) / np.sqrt(d)
    q, k, u = (split_heads(x @ w, heads) for w in (w_q, w_k, w_v))
    trace = causal_attention(q, k, u)
    return HeadSplit(x, w_q, w_k, w_v, x @ w_q, q, k, u, trace, merge_heads(trace.output))
