"""Scaled dot-product attention and its masks (chapter 4).

Conventions used everywhere in this module (the table of axes in chapter 4):

* a score or weight matrix has rows = receiving (query) position ``i`` and
  columns = source (key) position ``j``;
* a mask is boolean with ``True`` where the source is *visible*;
* softmax always runs over the last axis, the source axis, so every visible row of
  weights sums to 1;
* ``weights @ value`` sums over that same source axis, keeping query rows and value
  features.

Inputs may carry any leading axes (``[T, d_h]``, ``[H, T, d_h]``, ``[B, H, T, d_h]``);
they must agree between query, key and value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._checks import as_bool_array, as_float_array, as_int, as_real_array

__all__ = [
    "AttentionTrace",
    "WeightedValuesTrace",
    "attention",
    "cache_mask",
    "causal_attention",
    "causal_mask",
    "combine_masks",
    "cross_attention",
    "merge_heads",
    "padding_mask",
    "softmax",
    "split_heads",
    "weighted_values",
]


# ------------------------------------------------------------------------- softmax


def softmax(x, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis`` (default: the last, source axis).

    ``-inf`` entries get weight 0; a slice that is entirely ``-inf`` has no visible
    source and raises instead of returning NaN.

    >>> softmax([np.log(3), 0.0]).round(6).tolist()
    [0.75, 0.25]
    """
    arr = as_real_array("x", x)
    axis = as_int("axis", axis, low=-max(arr.ndim, 1), high=max(arr.ndim, 1) - 1)
    if arr.size == 0:
        raise ValueError(f"x must not be empty, got shape {arr.shape}")
    if np.isnan(arr).any() or np.isposinf(arr).any():
        raise ValueError("x must not contain NaN or +inf (use -inf to hide a source)")
    if np.isneginf(arr.max(axis=axis, keepdims=True)).any():
        raise ValueError("a softmax slice is entirely -inf: no visible source, result would be NaN")
    return _softmax(arr, axis)


def _softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """The unchecked core of :func:`softmax`, in the dtype of ``x``: subtract the slice's
    maximum, exponentiate, divide by the sum."""
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# ----------------------------------------------------------------------- attention


@dataclass(frozen=True)
class AttentionTrace:
    """Everything one attention call computes, for printing, drawing and testing."""

    query: np.ndarray  # [..., T_q, d_h]
    key: np.ndarray  # [..., T_k, d_h]
    value: np.ndarray  # [..., T_k, d_v]   (U in the prose; V is the vocabulary size)
    scores: np.ndarray  # [..., T_q, T_k]  QKᵀ/√d_h before the mask; row i, column j
    mask: np.ndarray  # [..., T_q, T_k]  True where source j is visible to query i
    weights: np.ndarray  # [..., T_q, T_k]  softmax over the last (source) axis
    output: np.ndarray  # [..., T_q, d_v]  weights @ value, summed over sources

    @property
    def scale(self) -> float:
        """The factor 1/√d_h applied to every raw dot product."""
        return 1.0 / np.sqrt(self.query.shape[-1])

    @property
    def masked_scores(self) -> np.ndarray:
        """Scores with hidden sources set to −∞ (what softmax actually receives)."""
        return np.where(self.mask, self.scores, -np.inf)

    @property
    def exp_scores(self) -> np.ndarray:
        """exp of the masked scores: the unnormalised weights a reader computes by hand
        (hidden sources give exp(−∞) = 0)."""
        with np.errstate(over="ignore"):
            return np.exp(self.masked_scores)

    @property
    def contributions(self) -> np.ndarray:
        """``weights[..., i, j] * value[..., j, :]``: what each source adds to each
        output row. Shape ``[..., T_q, T_k, d_v]``; summing over axis −2 gives
        ``output``."""
        return self.weights[..., :, :, None] * self.value[..., None, :, :]


def _check_qkv(query, key, value) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``query``, ``key`` and ``value`` as float arrays broadcast to one set of leading
    axes, or an error naming the argument whose shape does not fit."""
    q = as_float_array("query", query, min_ndim=2)
    k = as_float_array("key", key, min_ndim=2)
    v = as_float_array("value", value, min_ndim=2)
    d_h = q.shape[-1]
    if d_h < 1:
        raise ValueError(f"query must have d_h >= 1 features on its last axis, got shape {q.shape}")
    if k.shape[-1] != d_h:
        raise ValueError(
            f"key must have the query's d_h={d_h} on its last axis, got key shape {k.shape}"
        )
    if v.shape[-2] != k.shape[-2]:
        raise ValueError(
            f"value must have one row per key (T_k={k.shape[-2]}) on axis -2, got value shape {v.shape}"
        )
    try:
        lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except ValueError:
        raise ValueError(
            f"query, key and value must agree on leading axes, got {q.shape}, {k.shape}, {v.shape}"
        ) from None
    t_q, t_k = q.shape[-2], k.shape[-2]
    if t_q < 1 or t_k < 1:
        raise ValueError(f"need at least one query and one key, got T_q={t_q}, T_k={t_k}")
    return tuple(np.broadcast_to(a, lead + a.shape[-2:]) for a in (q, k, v))


def _check_visible(mask, full: tuple[int, ...]) -> np.ndarray:
    """``mask`` (None: everything visible) broadcast to ``full = [..., T_q, T_k]``, or an
    error if it does not fit or leaves a query row with no visible source."""
    if mask is None:
        return np.ones(full, dtype=bool)
    m = as_bool_array("mask", mask)
    try:
        visible = np.broadcast_to(m, full).copy()
    except ValueError:
        raise ValueError(
            f"mask must broadcast to [..., T_q, T_k] = {full}, got shape {m.shape}"
        ) from None
    empty = np.argwhere(~visible.any(axis=-1))
    if empty.size:
        where = tuple(int(i) for i in empty[0])
        raise ValueError(
            f"mask row {where[-1]} (at index {where}) has no visible source: softmax would be "
            "NaN; every query needs at least one key"
        )
    return visible


def attention(query, key, value, mask=None) -> AttentionTrace:
    """Scaled dot-product attention, ``softmax(QKᵀ/√d_h, masked) @ U``.

    ``query [..., T_q, d_h]``, ``key [..., T_k, d_h]``, ``value [..., T_k, d_v]``;
    ``mask`` is boolean (True = visible) and broadcasts to ``[..., T_q, T_k]``.
    Every query row must see at least one source.

    >>> t = attention([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 4.0]])
    >>> t.weights.round(6).tolist()
    [[0.669762, 0.330238]]
    """
    q, k, v = _check_qkv(query, key, value)  # [..., T_q, d_h], [..., T_k, d_h], [..., T_k, d_v]
    visible = _check_visible(mask, q.shape[:-1] + k.shape[-2:-1])  # [..., T_q, T_k]
    scores, weights, output = _attend(q, k, v, visible)  # QKᵀ/√d_h, softmax over sources, weights @ U
    return AttentionTrace(q, k, v, scores, visible, weights, output)


def _attend(q: np.ndarray, k: np.ndarray, v: np.ndarray, visible: np.ndarray):
    """The unchecked core of :func:`attention`: ``(scores, weights, output)`` in the dtype
    of ``q``, ``k``, ``v``. ``visible`` broadcasts to ``[..., T_q, T_k]`` and leaves every
    row at least one source (the caller's promise)."""
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])  # [..., T_q, T_k]  row i, column j
    weights = _softmax(np.where(visible, scores, -np.inf), axis=-1)  # [..., T_q, T_k]  over sources
    return scores, weights, weights @ v  # output [..., T_q, d_v]  summed over sources


@dataclass(frozen=True)
class WeightedValuesTrace:
    """Softmax of given scores, then the weighted sum of value rows.

    The second half of attention on its own: no query or key, so scores can be set
    directly and the value rows changed while the weights stay put.
    """

    scores: np.ndarray  # [..., T_k]  one row of scores per receiving position
    mask: np.ndarray  # [..., T_k]  True where source j is visible
    weights: np.ndarray  # [..., T_k]  softmax over the last (source) axis
    value: np.ndarray  # [T_k, d_v]  value row j, shared by every receiving row
    contributions: np.ndarray  # [..., T_k, d_v]  weights[..., j] * value[j]
    output: np.ndarray  # [..., d_v]  contributions summed over sources (axis -2)

    @property
    def lengths(self) -> np.ndarray:
        """Euclidean length of each contribution, ``[..., T_k]``."""
        return np.linalg.norm(self.contributions, axis=-1)


def weighted_values(scores, value, mask=None) -> WeightedValuesTrace:
    """``softmax(scores) @ value``, keeping each source's contribution.

    ``scores [..., T_k]`` (softmax over the last, source axis), ``value [T_k, d_v]``
    (row j belongs to source j), ``mask`` boolean and broadcastable to ``scores``.
    Scores [log 3, 0] give weights [0.75, 0.25] whatever the value rows hold:

    >>> t = weighted_values([np.log(3), 0.0], [[2.0, 0.0], [0.0, 40.0]])
    >>> t.weights.tolist(), t.contributions.tolist(), t.output.tolist()
    ([0.75, 0.25], [[1.5, 0.0], [0.0, 10.0]], [1.5, 10.0])
    """
    s = as_float_array("scores", scores, min_ndim=1)
    v = as_float_array("value", value, ndim=2)
    t_k = s.shape[-1]
    if t_k < 1:
        raise ValueError(f"scores must hold at least one source on its last axis, got shape {s.shape}")
    if v.shape[0] != t_k:
        raise ValueError(
            f"value must have one row per source (T_k={t_k}) on axis 0, got value shape {v.shape}"
        )
    if mask is None:
        visible = np.ones(s.shape, dtype=bool)
    else:
        m = as_bool_array("mask", mask)
        try:
            visible = np.broadcast_to(m, s.shape).copy()
        except ValueError:
            raise ValueError(f"mask must broadcast to the scores' shape {s.shape}, got {m.shape}") from None
    empty = np.argwhere(~visible.any(axis=-1))
    if empty.size:
        raise ValueError(
            f"mask row at index {tuple(int(i) for i in empty[0])} has no visible source: "
            "softmax would be NaN; every row needs at least one source"
        )
    weights = softmax(np.where(visible, s, -np.inf), axis=-1)
    contributions = weights[..., :, None] * v
    return WeightedValuesTrace(s, visible, weights, v, contributions, contributions.sum(axis=-2))


# --------------------------------------------------------------------------- masks


def causal_mask(t: int) -> np.ndarray:
    """Visibility for ``t`` positions that all attend inside one block: key ``j`` is
    visible to query ``i`` when ``j <= i``. Shape ``[t, t]``, rows = queries.

    >>> causal_mask(3).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [1, 1, 1]])
    """
    t = as_int("t", t, low=1)
    return np.tril(np.ones((t, t), dtype=bool))


def cache_mask(past: int, new: int) -> np.ndarray:
    """Visibility for ``new`` queries appended after ``past`` cached positions.

    Query row ``r`` sits at absolute position ``past + r`` and sees key ``j`` when
    ``j <= past + r``. Shape ``[new, past + new]``: the rows are *local* (0, 1, …)
    while the columns are *absolute*, which is why the square causal mask cannot be
    reused here.

    >>> cache_mask(3, 2).astype(int)
    array([[1, 1, 1, 1, 0],
           [1, 1, 1, 1, 1]])
    """
    past = as_int("past", past, low=0)
    new = as_int("new", new, low=1)
    rows = past + np.arange(new)[:, None]
    cols = np.arange(past + new)[None, :]
    return cols <= rows


def padding_mask(valid) -> np.ndarray:
    """Key visibility from a per-position validity flag ``valid[..., T_k]``.

    Returns ``[..., 1, T_k]`` so it broadcasts over query rows: a padded key is
    hidden from every query. (A padded *query* row still computes something; its
    output is simply never used, and its loss is masked elsewhere.)

    >>> padding_mask([True, True, False]).astype(int)
    array([[1, 1, 0]])
    """
    valid = as_bool_array("valid", valid)
    if valid.ndim < 1:
        raise ValueError(f"valid must have a position axis, got shape {valid.shape}")
    return valid[..., None, :]


def combine_masks(*masks) -> np.ndarray:
    """AND together visibility masks that broadcast to one shape.

    >>> combine_masks(causal_mask(3), padding_mask([True, True, False])).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [1, 1, 0]])
    """
    if not masks:
        raise ValueError("combine_masks needs at least one mask")
    arrays = [as_bool_array(f"masks[{k}]", m) for k, m in enumerate(masks)]
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shapes = ", ".join(str(a.shape) for a in arrays)
        raise ValueError(f"masks must broadcast to one shape, got {shapes}") from None
    out = np.ones(shape, dtype=bool)
    for a in arrays:
        out &= a
    return out


def causal_attention(query, key, value, *, past: int = 0) -> AttentionTrace:
    """Attention in which no query reads a later position.

    With ``past=0`` the mask is the square :func:`causal_mask`; with ``past=P`` the
    keys hold ``P`` cached positions followed by the ``T_q`` new ones and the mask is
    :func:`cache_mask`.

    >>> causal_attention(np.eye(2), np.eye(2), [[1.0], [3.0]]).output.ravel().round(4).tolist()
    [1.0, 2.3395]
    """
    past = as_int("past", past, low=0)
    q = as_float_array("query", query, min_ndim=2)
    k = as_float_array("key", key, min_ndim=2)
    t_q, t_k = q.shape[-2], k.shape[-2]
    if t_k != past + t_q:
        raise ValueError(
            f"key must hold past + T_q = {past} + {t_q} = {past + t_q} positions on axis -2, got {t_k}"
        )
    return attention(q, k, value, cache_mask(past, t_q))


def cross_attention(decoder_query, encoder_key, encoder_value, encoder_valid=None) -> AttentionTrace:
    """Encoder–decoder attention: queries from the decoder, keys and values from the
    encoder, no causal mask (the whole source sentence is already known). Only
    padded encoder positions are hidden.

    >>> cross_attention(np.ones((2, 2)), np.ones((3, 2)), np.eye(3)).weights.shape
    (2, 3)
    """
    decoder_query = as_float_array("decoder_query", decoder_query, min_ndim=2)
    encoder_key = as_float_array("encoder_key", encoder_key, min_ndim=2)
    encoder_value = as_float_array("encoder_value", encoder_value, min_ndim=2)
    if encoder_value.shape[-2] != encoder_key.shape[-2]:
        raise ValueError(f"encoder_value must have one row per row of encoder_key ({encoder_key.shape[-2]}) on "
                         f"axis -2, got shape {encoder_value.shape}")
    if encoder_valid is not None and as_bool_array("encoder_valid", encoder_valid).ndim < 1:
        raise ValueError("encoder_valid must have a position axis, got a single value")
    mask = None if encoder_valid is None else padding_mask(as_bool_array("encoder_valid", encoder_valid))
    return attention(decoder_query, encoder_key, encoder_value, mask)


def split_heads(x, heads: int) -> np.ndarray:
    """``[B, T, H·d_h]`` → ``[B, H, T, d_h]``: cut the feature axis into ``heads`` parts.

    >>> split_heads(np.arange(8.0).reshape(1, 1, 8), 2)[0, :, 0].tolist()
    [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]
    """
    x = as_float_array("x", x, ndim=3)
    heads = as_int("heads", heads, low=1)
    b, t, d = x.shape
    if d % heads:
        raise ValueError(f"x feature width {d} must divide into heads={heads} equal parts")
    return x.reshape(b, t, heads, d // heads).transpose(0, 2, 1, 3)


def merge_heads(x) -> np.ndarray:
    """``[B, H, T, d_h]`` → ``[B, T, H·d_h]``: concatenate head outputs on features.

    >>> merge_heads(split_heads(np.arange(8.0).reshape(1, 1, 8), 2)).ravel().tolist()
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    """
    x = as_float_array("x", x, ndim=4)
    b, h, t, d_h = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, t, h * d_h)
