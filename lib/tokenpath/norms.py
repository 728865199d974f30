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

from dataclasses import dataclass

import numpy as np

from ._checks import as_float, as_float_array

__all__ = [
    "GateTrace",
    "LayerNormTrace",
    "NormComparison",
    "RMSNormTrace",
    "ResidualTrace",
    "SwiGLUTrace",
    "compare_norms",
    "gate_trace",
    "layer_norm",
    "layer_norm_trace",
    "residual_add",
    "residual_trace",
    "rms_norm",
    "rms_norm_trace",
    "sigmoid",
    "silu",
    "swiglu",
    "swiglu_trace",
]


def _feature_weight(name: str, weight, d: int) -> np.ndarray:
    w = as_float_array(name, weight, ndim=1)
    if w.shape[0] != d:
        raise ValueError(f"{name} must have one entry per feature, shape [{d}], got {list(w.shape)}")
    return w


@dataclass(frozen=True)
class RMSNormTrace:
    """The steps of RMSNorm on ``[..., d]`` features (every reduction over the last axis)."""

    x: np.ndarray  # [..., d]  the features of each position
    weight: np.ndarray  # [d]  γ, multiplied feature by feature (ones when not given)
    eps: float  # ε added to the mean square
    mean_square: np.ndarray  # [..., 1]  mean of x² over the features
    rms: np.ndarray  # [..., 1]  sqrt(mean_square + ε)
    normalized: np.ndarray  # [..., d]  x / rms: root-mean-square 1, mean NOT removed
    output: np.ndarray  # [..., d]  weight * normalized


def rms_norm_trace(x, weight=None, *, eps: float = 0.0) -> RMSNormTrace:
    """RMSNorm step by step: mean square, RMS, normalised features, output.

    >>> t = rms_norm_trace([3.0, 4.0])
    >>> float(t.mean_square[0]), round(float(t.rms[0]), 4), t.output.round(4).tolist()
    (12.5, 3.5355, [0.8485, 1.1314])
    """
    x = as_float_array("x", x, min_ndim=1)  # [..., d]
    eps = as_float("eps", eps, low=0.0)
    w = np.ones(x.shape[-1]) if weight is None else _feature_weight("weight", weight, x.shape[-1])  # [d]
    if np.any(np.mean(x * x, axis=-1) + eps == 0):
        raise ValueError("x has an all-zero feature vector and eps = 0: its RMS is 0; pass eps > 0")
    ms, rms, normalized, output = _rms_norm_steps(x, w, eps)  # mean of squares, its root + ε, x / RMS, γ ⊙ that
    return RMSNormTrace(x, w, eps, ms, rms, normalized, output)


def _rms_norm_steps(x: np.ndarray, weight: np.ndarray, eps: float):
    """The unchecked arithmetic of RMSNorm, the one copy that :func:`rms_norm_trace`
    (which keeps every step) and :func:`rms_norm` (which keeps the output) both run:
    ``(mean square [..., 1], RMS [..., 1], normalized [..., d], output [..., d])`` in the
    dtype of ``x`` and ``weight`` (``eps`` a Python float, which never widens float32).
    ``x [..., d]``, ``weight [d]``."""
    ms = np.mean(x * x, axis=-1, keepdims=True)  # [..., 1]  over the features of one position
    rms = np.sqrt(ms + eps)  # [..., 1]
    normalized = x / rms  # [..., d]  root-mean-square 1, mean not removed
    return ms, rms, normalized, normalized * weight  # output [..., d]: γ ⊙ normalized


def _rms_norm(x: np.ndarray, weight: np.ndarray, eps: float) -> np.ndarray:
    """The unchecked core of :func:`rms_norm`: :func:`_rms_norm_steps`' output."""
    return _rms_norm_steps(x, weight, eps)[3]


def rms_norm(x, weight=None, *, eps: float = 0.0) -> np.ndarray:
    """RMSNorm over the last (feature) axis: ``weight * x / sqrt(mean(x²) + eps)``.

    No mean is subtracted: the vector is only rescaled to root-mean-square 1, then
    multiplied feature by feature by ``weight`` (γ; ones when omitted).

    >>> rms_norm([3.0, 4.0]).round(4).tolist()
    [0.8485, 1.1314]
    >>> rms_norm([[3.0, 4.0], [30.0, 40.0]]).round(4).tolist()   # each row on its own
    [[0.8485, 1.1314], [0.8485, 1.1314]]
    """
    x = as_float_array("x", x, min_ndim=1)  # [..., d]
    eps = as_float("eps", eps, low=0.0)
    w = np.ones(x.shape[-1]) if weight is None else _feature_weight("weight", weight, x.shape[-1])  # [d]
    if np.any(np.mean(x * x, axis=-1) + eps == 0):
        raise ValueError("x has an all-zero feature vector and eps = 0: its RMS is 0; pass eps > 0")
    return _rms_norm(x, w, eps)


@dataclass(frozen=True)
class LayerNormTrace:
    """The steps of LayerNorm on ``[..., d]`` features (every reduction over the last axis)."""

    x: np.ndarray  # [..., d]
    weight: np.ndarray  # [d]  scale (ones when not given)
    bias: np.ndarray  # [d]  shift (zeros when not given)
    eps: float
    mean: np.ndarray  # [..., 1]  mean over the features
    centred: np.ndarray  # [..., d]  x - mean
    variance: np.ndarray  # [..., 1]  mean of centred²
    std: np.ndarray  # [..., 1]  sqrt(variance + ε)
    normalized: np.ndarray  # [..., d]  centred / std: mean 0, variance 1
    output: np.ndarray  # [..., d]  weight * normalized + bias


def layer_norm_trace(x, weight=None, bias=None, *, eps: float = 0.0) -> LayerNormTrace:
    """LayerNorm step by step: mean, centred features, variance, output.

    >>> t = layer_norm_trace([3.0, 4.0])
    >>> float(t.mean[0]), float(t.std[0]), t.output.tolist()
    (3.5, 0.5, [-1.0, 1.0])
    """
    x = as_float_array("x", x, min_ndim=1)
    eps = as_float("eps", eps, low=0.0)
    d = x.shape[-1]
    w = np.ones(d) if weight is None else _feature_weight("weight", weight, d)
    b = np.zeros(d) if bias is None else _feature_weight("bias", bias, d)
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = np.mean(centred * centred, axis=-1, keepdims=True)
    if np.any(var + eps == 0):
        raise ValueError("x has a constant feature vector and eps = 0: its variance is 0; pass eps > 0")
    std = np.sqrt(var + eps)
    normalized = centred / std
    return LayerNormTrace(x, w, b, eps, mean, centred, var, std, normalized, normalized * w + b)


def layer_norm(x, weight=None, bias=None, *, eps: float = 0.0) -> np.ndarray:
    """LayerNorm over the last (feature) axis: subtract the mean, divide by the standard
    deviation, then scale by ``weight`` and shift by ``bias``.

    >>> layer_norm([3.0, 4.0]).tolist()   # the mean 3.5 is removed first
    [-1.0, 1.0]
    """
    return layer_norm_trace(x, weight, bias, eps=eps).output


@dataclass(frozen=True)
class NormComparison:
    """RMSNorm and LayerNorm of the same features, side by side.

    Either may be undefined (``None``) for an input it cannot normalise with ε = 0:
    all zeros for RMSNorm, a constant vector for LayerNorm; ``problems`` then says why.
    """

    x: np.ndarray  # [d]
    rms: RMSNormTrace | None
    layer: LayerNormTrace | None
    problems: tuple[str, ...]  # the engine's messages for an undefined norm


def compare_norms(x, *, eps: float = 0.0) -> NormComparison:
    """RMSNorm and LayerNorm (unit weight, no bias) of one feature vector ``x``.

    >>> c = compare_norms([3.0, 4.0])
    >>> c.rms.output.round(4).tolist(), c.layer.output.tolist()
    ([0.8485, 1.1314], [-1.0, 1.0])
    >>> compare_norms([2.0, 2.0]).problems
    ('LayerNorm: x has a constant feature vector and eps = 0: its variance is 0; pass eps > 0',)
    """
    x = as_float_array("x", x, ndim=1)
    traces, problems = [], []
    for name, f in (("RMSNorm", rms_norm_trace), ("LayerNorm", layer_norm_trace)):
        try:
            traces.append(f(x, eps=eps))
        except ValueError as err:
            traces.append(None)
            problems.append(f"{name}: {err}")
    return NormComparison(x, traces[0], traces[1], tuple(problems))


def sigmoid(x) -> np.ndarray:
    """The logistic function σ(x) = 1 / (1 + e^(−x)), computed without overflow.

    >>> float(sigmoid(0.0))
    0.5
    """
    return _sigmoid(as_float_array("x", x))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    """The unchecked core of :func:`sigmoid`, in the dtype of ``x``: ``exp`` of minus
    ``|x|`` only, so it never overflows."""
    e = np.exp(-np.abs(x))
    d = 1.0 + e
    return np.where(x >= 0, 1.0 / d, e / d)


def _gated(gate_pre: np.ndarray, content: np.ndarray) -> np.ndarray:
    """The unchecked core of SwiGLU's hidden layer, ``SiLU(a) · c``, in the dtype of its
    inputs. float64 runs :func:`gate_trace`'s operations in its order (the book's digits);
    float32 (a real model) computes ``a / (1 + e^(−a)) · c``, the same function in three
    passes instead of eight, measured 14× faster at SmolLM2's width: ``e^(−a)`` overflowing
    to ``inf`` for a < −88 gives ``a / inf = −0``, SiLU's limit."""
    if gate_pre.dtype == np.float32:
        with np.errstate(over="ignore"):
            d = np.exp(-gate_pre)
            d += 1.0
            return gate_pre / d * content
    return gate_pre * _sigmoid(gate_pre) * content


def silu(x) -> np.ndarray:
    """SiLU (swish): x · σ(x).

    >>> round(float(silu(1.0)), 4)
    0.7311
    """
    x = as_float_array("x", x)
    return x * sigmoid(x)


@dataclass(frozen=True)
class GateTrace:
    """The gated product inside SwiGLU, feature by feature: SiLU(gate) ⊙ content."""

    gate_pre: np.ndarray  # [..., d_ff]  gate pre-activation a = x W_gate
    sigmoid: np.ndarray  # [..., d_ff]  σ(a), between 0 and 1
    silu: np.ndarray  # [..., d_ff]  a·σ(a): the gate after its activation
    content: np.ndarray  # [..., d_ff]  c = x W_up
    product: np.ndarray  # [..., d_ff]  SiLU(a) · c


def gate_trace(gate_pre, content) -> GateTrace:
    """Gate ``content`` by ``SiLU(gate_pre)``, elementwise (same shapes).

    >>> t = gate_trace(1.0, 2.0)
    >>> round(float(t.sigmoid), 4), round(float(t.silu), 4), round(float(t.product), 3)
    (0.7311, 0.7311, 1.462)
    """
    a = as_float_array("gate_pre", gate_pre)
    c = as_float_array("content", content)
    if a.shape != c.shape:
        raise ValueError(f"gate_pre and content must have the same shape, got {list(a.shape)} and {list(c.shape)}")
    s = sigmoid(a)
    return GateTrace(a, s, a * s, c, a * s * c)


@dataclass(frozen=True)
class SwiGLUTrace:
    """The steps of the SwiGLU feed-forward network ``(SiLU(x W_gate) ⊙ x W_up) W_down``."""

    x: np.ndarray  # [..., d]  features of each position
    gate: GateTrace  # [..., d_ff]  gate pre-activation, σ, SiLU, content, product
    output: np.ndarray  # [..., d_out]  product @ W_down, back to the residual width

    @property
    def gate_pre(self) -> np.ndarray:
        return self.gate.gate_pre

    @property
    def silu(self) -> np.ndarray:
        return self.gate.silu

    @property
    def content(self) -> np.ndarray:
        return self.gate.content

    @property
    def product(self) -> np.ndarray:
        return self.gate.product


def _check_ffn(x, w_gate, w_up, w_down) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The features and the three matrices as float arrays whose shapes chain
    ``d → d_ff → d_out``, or an error naming the one that does not fit."""
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
    return x, w_gate, w_up, w_down


def swiglu_trace(x, w_gate, w_up, w_down) -> SwiGLUTrace:
    """SwiGLU step by step; ``x [..., d]``, ``w_gate`` and ``w_up [d, d_ff]``,
    ``w_down [d_ff, d_out]`` (book convention ``x @ W``).

    >>> t = swiglu_trace([1.0], [[1.0]], [[2.0]], [[1.0]])
    >>> t.gate_pre.tolist(), t.content.tolist(), t.output.round(3).tolist()
    ([1.0], [2.0], [1.462])
    """
    x, w_gate, w_up, w_down = _check_ffn(x, w_gate, w_up, w_down)  # [..., d], [d, d_ff] twice, [d_ff, d_out]
    gate = gate_trace(x @ w_gate, x @ w_up)  # [..., d_ff]  SiLU(x W_gate) ⊙ x W_up
    return SwiGLUTrace(x, gate, gate.product @ w_down)  # output [..., d_out]


def swiglu(x, w_gate, w_up, w_down) -> np.ndarray:
    """The SwiGLU feed-forward network ``(SiLU(x W_gate) ⊙ (x W_up)) W_down``.

    ``x`` is ``[..., d]``; ``w_gate`` and ``w_up`` are ``[d, d_ff]`` (widen), ``w_down``
    is ``[d_ff, d]`` (back to the width of the residual stream).

    >>> # one feature: gate pre-activation 1, content 2 -> 1·σ(1)·2
    >>> round(float(swiglu([1.0], [[1.0]], [[2.0]], [[1.0]])[0]), 3)
    1.462
    """
    return _swiglu_core(*_check_ffn(x, w_gate, w_up, w_down))


def _swiglu_core(x: np.ndarray, w_gate: np.ndarray, w_up: np.ndarray, w_down: np.ndarray) -> np.ndarray:
    """The unchecked core of :func:`swiglu`: :func:`swiglu_trace`'s operations in its
    order (so the same numbers, bit for bit), without building the trace."""
    a, c = x @ w_gate, x @ w_up  # [..., d_ff]
    return (a * _sigmoid(a) * c) @ w_down  # [..., d_out]


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


@dataclass(frozen=True)
class ResidualTrace:
    """A residual add: the stream, the sub-layer's update and their feature-wise sum."""

    stream: np.ndarray  # [..., d]  x, the residual stream (the direct path)
    update: np.ndarray  # [..., d]  what the sub-layer computed from x
    output: np.ndarray  # [..., d]  stream + update, same width, same positions


def residual_trace(x, update) -> ResidualTrace:
    """:func:`residual_add` keeping both inputs.

    >>> residual_trace([1.0, 2.0], [0.5, -1.0]).output.tolist()
    [1.5, 1.0]
    """
    x = as_float_array("x", x, min_ndim=1)
    update = as_float_array("update", update, min_ndim=1)
    return ResidualTrace(x, update, residual_add(x, update))
