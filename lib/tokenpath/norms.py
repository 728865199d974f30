"""Feature-wise transforms of a decoder layer: RMSNorm, LayerNorm, SiLU, the SwiGLU
feed-forward network and the residual add.

Each acts on the **last axis** (the features of one position) and never mixes
positions: the same function serves a single vector ``[d]``, a sequence ``[T, d]`` and
a batch ``[B, T, d]``.

Weight matrices follow the book's convention ``y = x @ W`` with ``W`` of shape
``[d_in, d_out]``. (A Hugging Face ``nn.Linear`` stores the transpose, ``[d_out, d_in]``;
:mod:`tokenpath.model` transposes when it reads a file.)

Llama's RMSNorm multiplies by its weight ``w`` directly (``w * x̂``), not by
``1 + w`` as some other models do; so does :func:`rms_norm`.
"""

from __future__ import annotations

import numpy as np

from ._checks import as_float, as_float_array

__all__ = ["layer_norm", "residual_add", "rms_norm", "sigmoid", "silu", "swiglu"]


def _feature_weight(name: str, weight, d: int) -> np.ndarray:
    w = as_float_array(name, weight, ndim=1)
    if w.shape[0] != d:
        raise ValueError(f"{name} must have one entry per feature, shape [{d}], got {list(w.shape)}")
    return w


def rms_norm(x, weight=None, *, eps: float = 0.0) -> np.ndarray:
    """RMSNorm over the last (feature) axis: ``weight * x / sqrt(mean(x²) + eps)``.

    No mean is subtracted: the vector is only rescaled to root-mean-square 1, then
    multiplied feature by feature by ``weight`` (γ; ones when omitted).

    >>> rms_norm([3.0, 4.0]).round(4).tolist()
    [0.8485, 1.1314]
    >>> rms_norm([[3.0, 4.0], [30.0, 40.0]]).round(4).tolist()   # each row on its own
    [[0.8485, 1.1314], [0.8485, 1.1314]]
    """
    x = as_float_array("x", x, min_ndim=1)
    eps = as_float("eps", eps, low=0.0)
    ms = np.mean(x * x, axis=-1, keepdims=True) + eps
    if np.any(ms == 0):
        raise ValueError("x has an all-zero feature vector and eps = 0: its RMS is 0; pass eps > 0")
    out = x / np.sqrt(ms)
    if weight is not None:
        out = out * _feature_weight("weight", weight, x.shape[-1])
    return out


def layer_norm(x, weight=None, bias=None, *, eps: float = 0.0) -> np.ndarray:
    """LayerNorm over the last (feature) axis: subtract the mean, divide by the standard
    deviation, then scale by ``weight`` and shift by ``bias``.

    >>> layer_norm([3.0, 4.0]).tolist()   # the mean 3.5 is removed first
    [-1.0, 1.0]
    """
    x = as_float_array("x", x, min_ndim=1)
    eps = as_float("eps", eps, low=0.0)
    centred = x - x.mean(axis=-1, keepdims=True)
    var = np.mean(centred * centred, axis=-1, keepdims=True) + eps
    if np.any(var == 0):
        raise ValueError("x has a constant feature vector and eps = 0: its variance is 0; pass eps > 0")
    out = centred / np.sqrt(var)
    if weight is not None:
        out = out * _feature_weight("weight", weight, x.shape[-1])
    if bias is not None:
        out = out + _feature_weight("bias", bias, x.shape[-1])
    return out


def sigmoid(x) -> np.ndarray:
    """The logistic function σ(x) = 1 / (1 + e^(−x)), computed without overflow.

    >>> float(sigmoid(0.0))
    0.5
    """
    x = as_float_array("x", x)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def silu(x) -> np.ndarray:
    """SiLU (swish): x · σ(x).

    >>> round(float(silu(1.0)), 4)
    0.7311
    """
    x = as_float_array("x", x)
    return x * sigmoid(x)


def swiglu(x, w_gate, w_up, w_down) -> np.ndarray:
    """The SwiGLU feed-forward network ``(SiLU(x W_gate) ⊙ (x W_up)) W_down``.

    ``x`` is ``[..., d]``; ``w_gate`` and ``w_up`` are ``[d, d_ff]`` (widen), ``w_down``
    is ``[d_ff, d]`` (back to the width of the residual stream).

    >>> # one feature: gate pre-activation 1, content 2 -> 1·σ(1)·2
    >>> round(float(swiglu([1.0], [[1.0]], [[2.0]], [[1.0]])[0]), 3)
    1.462
    """
    x = as_float_array("x", x, min_ndim=1)
    w_gate = as_float_array("w_gate", w_gate, ndim=2)
    w_up = as_float_array("w_up", w_up, ndim=2)
    w_down = as_float_array("w_down", w_down, ndim=2)
    d = x.shape[-1]
    if w_gate.shape[0] != d or w_up.shape[0] != d:
        raise ValueError(
            f"w_gate and w_up must be [d, d_ff] with d = {d} (x's last axis), "
            f"got {list(w_gate.shape)} and {list(w_up.shape)}"
        )
    if w_gate.shape != w_up.shape:
        raise ValueError(f"w_gate and w_up must have the same shape, got {list(w_gate.shape)} and {list(w_up.shape)}")
    if w_down.shape[0] != w_gate.shape[1]:
        raise ValueError(f"w_down must be [d_ff, d_out] with d_ff = {w_gate.shape[1]}, got {list(w_down.shape)}")
    return (silu(x @ w_gate) * (x @ w_up)) @ w_down


def residual_add(x, update) -> np.ndarray:
    """The residual connection: add a sub-layer's ``update`` to the stream ``x``,
    feature by feature at the same position. Both must have the same shape.

    >>> residual_add([1.0, 2.0], [0.5, -1.0]).tolist()
    [1.5, 1.0]
    """
    x = as_float_array("x", x, min_ndim=1)
    update = as_float_array("update", update, min_ndim=1)
    if x.shape != update.shape:
        raise ValueError(
            f"update must have the shape of the residual stream x {list(x.shape)} "
            f"(same positions, same width), got {list(update.shape)}"
        )
    return x + update
