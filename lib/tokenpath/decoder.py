"""One pre-norm decoder layer, with a trace of every intermediate and its shape.

The layer is the one Llama stacks::

    Y  = X + Attn(RMSNorm(X))          first residual: keeps X
    X' = Y + SwiGLU(RMSNorm(Y))        second residual: keeps Y, not X

``Attn`` is multi-head causal self-attention. Queries, keys and values are projections
of the normalised input (Qwen2 adds a bias vector to each, Qwen3 normalises every
query and key head with an RMSNorm of its own); RoPE turns the queries and the keys by
their positions (with Llama's ``rotate_half`` pairing) and never the values. ``H`` query heads may share
``Hkv`` key/value heads (grouped-query attention, :mod:`tokenpath.gqa`; ``Hkv = H``
is ordinary multi-head attention, the default). The heads' outputs are concatenated
and projected back to the width of the residual stream.

``FFN`` is either one dense SwiGLU network or a sparse mixture of SwiGLU experts
(Mixtral): a router scores the experts for every position, the top ``k`` run, and
their outputs are added with renormalised gates (:mod:`tokenpath.moe`).

Weights follow the book's convention ``y = x @ W``: a matrix is ``[d_in, d_out]``.
A Hugging Face ``nn.Linear`` stores the transpose ``[d_out, d_in]``; whoever copies
weights from a file transposes them (see :func:`LayerWeights.from_linear`).

Nothing here is new arithmetic: RMSNorm and SwiGLU's gate come from the unchecked cores
of :mod:`tokenpath.norms`, RoPE from :mod:`tokenpath.position`, causal (grouped-query)
softmax attention from :mod:`tokenpath.gqa` and :mod:`tokenpath.attention`, routing and
gates from :mod:`tokenpath.moe`. This module only wires them together, once, in
``_layer_core``: :func:`decoder_layer` checks its input and keeps what each step
produced; a model's fast path (:meth:`tokenpath.model.Model.logits`, chapter 10) runs the
same core, keeps nothing, and continues a K/V cache.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from . import attention as att
from . import gqa, moe, norms, shared_expert
from ._checks import as_float_array, as_int_array
from .layer_weights import LayerWeights, random_layer
from .position import _rotate_half, rope_tables

__all__ = ["LayerTrace", "LayerWeights", "decoder_layer", "random_layer"]


@dataclass(frozen=True)
class LayerTrace:
    """Every intermediate of one layer, in the order it is computed (activations: they
    are recomputed for every input and never stored in a model file)."""

    x: np.ndarray  # [B, T, d]        layer input (the residual stream)
    attn_in: np.ndarray  # [B, T, d]  RMSNorm(X)
    q: np.ndarray  # [B, H, T, d_h]   queries, (attn_in @ W_Q + b_Q) split into heads (and q_norm'd)
    k: np.ndarray  # [B, Hkv, T, d_h]  keys, before RoPE (Hkv = H unless heads share K/V)
    v: np.ndarray  # [B, Hkv, T, d_h]  values (U in the prose): RoPE never touches them
    q_rot: np.ndarray  # [B, H, T, d_h]  queries turned by RoPE
    k_rot: np.ndarray  # [B, Hkv, T, d_h]  keys turned by RoPE
    weights: np.ndarray  # [B, H, T, T]  causal softmax over sources (last axis), per query head
    heads_out: np.ndarray  # [B, H, T, d_h]  weights @ v of the head's K/V group
    merged: np.ndarray  # [B, T, H·d_h]  heads concatenated on the feature axis
    attn_out: np.ndarray  # [B, T, d]  merged @ W_O, the attention update
    y: np.ndarray  # [B, T, d]        X + attention update (first residual)
    ffn_in: np.ndarray  # [B, T, d]   RMSNorm(Y)
    ffn_hidden: np.ndarray | None  # [B, T, d_ff]  SiLU(ffn_in W_gate) ⊙ (ffn_in W_up); None with experts
    ffn_out: np.ndarray  # [B, T, d]  the FFN update (ffn_hidden @ W_down, or Σ gate·expert)
    out: np.ndarray  # [B, T, d]      X' = Y + FFN update (second residual)
    positions: np.ndarray  # [T]      absolute positions RoPE used
    moe: moe.MoETrace | None = None  # with experts: scores [B,T,E], chosen [B,T,k], gates, outputs
    shared: shared_expert.SharedMoETrace | None = None  # with a shared expert: its gate and output, the sum

    @property
    def chosen_experts(self) -> np.ndarray | None:
        """``[B, T, k]`` the experts each position ran, best score first (None: dense)."""
        return None if self.moe is None else self.moe.route.chosen

    @property
    def expert_gates(self) -> np.ndarray | None:
        """``[B, T, k]`` the gate of each chosen expert, in ``chosen_experts`` order;
        they sum to 1 per position unless ``norm_topk_prob`` is false (None: dense)."""
        return None if self.moe is None else self.moe.route.chosen_gates

    def shapes(self) -> dict[str, tuple[int, ...]]:
        """Name → shape of every intermediate, in computation order.

        >>> t = decoder_layer(np.ones((2, 4, 8)), random_layer(8, 2, 24, seed=0))
        >>> [t.shapes()[k] for k in ("x", "q", "weights", "ffn_hidden", "out")]
        [(2, 4, 8), (2, 2, 4, 4), (2, 2, 4, 4), (2, 4, 24), (2, 4, 8)]
        """
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "ffn_in" and self.moe is not None:
                out["ffn_in"] = value.shape
                r = self.moe.route
                out.update(router_scores=r.scores.shape, chosen_experts=r.chosen.shape,
                           expert_gates=r.chosen.shape, expert_outputs=self.moe.expert_outputs.shape)
            elif f.name == "shared" and value is not None:
                out.update(shared_gate=value.shared_gate.shape, shared_output=value.shared_output.shape)
            elif isinstance(value, np.ndarray) and f.name != "positions":
                out[f.name] = value.shape
        return out


def _check_layer_input(x, weights, positions) -> tuple[np.ndarray, LayerWeights, np.ndarray]:
    """``x [B, T, d]`` of the layer's width, the weights, and one absolute position per
    row (default ``0 … T−1``), or an error naming the argument that does not fit."""
    if not isinstance(weights, LayerWeights):
        raise TypeError(f"weights must be a LayerWeights, got {type(weights).__name__}")
    x = as_float_array("x", x, ndim=3).astype(weights.dtype, copy=False)  # in the layer's precision
    b, t, d = x.shape
    if d != weights.d:
        raise ValueError(f"x must have the layer's width d={weights.d} on its last axis, got shape {list(x.shape)}")
    if t < 1:
        raise ValueError(f"x must hold at least one position, got shape {list(x.shape)}")
    if positions is None:
        positions = np.arange(t)
    positions = as_int_array("positions", positions, ndim=1, low=0)
    if positions.shape[0] != t:
        raise ValueError(f"positions must give one position per row of x ({t}), got {positions.shape[0]}")
    return x, weights, positions


def _project(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``x [..., d_in] @ w [d_in, d_out]``. A float32 ``w`` that is the transposed view of a
    stored ``[d_out, d_in]`` matrix (how :class:`tokenpath.model.Model` holds a real model)
    is multiplied as ``(w_stored @ xᵀ)ᵀ``: the same product, with BLAS reading the large
    matrix in its stored order, which measured about 20 % faster on one core. float64
    keeps ``x @ w``, the order of operations the book's printed digits come from."""
    if w.dtype == np.float32 and w.flags.f_contiguous and not w.flags.c_contiguous:
        rows = x.reshape(-1, x.shape[-1])  # [N, d_in]
        return (w.T @ rows.T).T.reshape(*x.shape[:-1], w.shape[1])  # [..., d_out]
    return x @ w


def _linear(x: np.ndarray, w: np.ndarray, bias: np.ndarray | None) -> np.ndarray:
    """``x @ w`` (:func:`_project`), plus ``bias`` when the layer has one."""
    y = _project(x, w)
    return y if bias is None else y + bias


def _heads(x: np.ndarray, heads: int, d_h: int, norm: np.ndarray | None, eps: float) -> np.ndarray:
    """``[B, T, heads·d_h]`` split into ``[B, heads, T, d_h]``; with ``norm`` every head's
    vector is RMS-normalised on its own first (Qwen3's q_norm and k_norm, over d_h)."""
    b, t, _ = x.shape
    x = x.reshape(b, t, heads, d_h)  # [B, T, heads, d_h]
    if norm is not None:
        x = norms._rms_norm(x, norm, eps)
    return x.transpose(0, 2, 1, 3)  # [B, heads, T, d_h]


def _layer_core(x: np.ndarray, w: LayerWeights, cos: np.ndarray, sin: np.ndarray, *,
                past: tuple[np.ndarray, np.ndarray] | None = None, keep: bool = False):
    """The layer's arithmetic, unchecked: the one implementation that both
    :func:`decoder_layer` (which checks its input and keeps everything) and a model's
    fast path run. Returns ``(out, (k, v), kept)``.

    ``x [B, T, d]`` in ``w.dtype``; ``cos``/``sin [T, d_h/2]`` the RoPE tables of the
    rows' positions (:func:`tokenpath.position.rope_tables`, in ``w.dtype``). ``past`` is
    an optional ``(k, v)`` cache of ``P`` earlier positions, ``[B, Hkv, P, d_h]`` each,
    RoPE already applied to its keys: the rows of ``x`` then sit at positions
    ``P … P+T−1`` and see every cached key and the new ones up to their own
    (:func:`tokenpath.attention.cache_mask`, chapter 4). The returned ``(k, v)`` hold all
    ``P + T`` positions: the next call's ``past``. ``kept`` is None unless ``keep``, then
    a dict of every intermediate :class:`LayerTrace` holds.

    >>> from tokenpath.position import rope_tables
    >>> w = random_layer(8, 2, 24, seed=0); x = np.ones((1, 3, 8))
    >>> out, (k, v), kept = _layer_core(x, w, *rope_tables([0, 1, 2], 4))
    >>> out.shape, k.shape, kept is None
    ((1, 3, 8), (1, 2, 3, 4), True)
    """
    b, t, d = x.shape
    h, h_kv, d_h = w.heads, w.kv_heads, w.d_h
    # --- attention sub-layer: reads other positions --------------------------------
    attn_in = norms._rms_norm(x, w.attn_norm, w.eps)  # [B, T, d]
    q = _heads(_linear(attn_in, w.w_q, w.b_q), h, d_h, w.q_norm, w.eps)  # [B, H, T, d_h]
    k = _heads(_linear(attn_in, w.w_k, w.b_k), h_kv, d_h, w.k_norm, w.eps)  # [B, Hkv, T, d_h]
    v = _heads(_linear(attn_in, w.w_v, w.b_v), h_kv, d_h, None, w.eps)  # [B, Hkv, T, d_h]
    q_rot = _rotate_half(q, cos, sin)  # Q and K only, never V
    k_rot = _rotate_half(k, cos, sin)
    k_all, v_all = (k_rot, v) if past is None else (np.concatenate([past[0], k_rot], axis=2),
                                                    np.concatenate([past[1], v], axis=2))  # [B, Hkv, P+T, d_h]
    visible = att.cache_mask(k_all.shape[2] - t, t)  # [T, P+T]: row r sits at position P + r
    _, weights, heads_out = gqa._grouped(q_rot, k_all, v_all, visible)  # softmax over sources, per query head
    merged = heads_out.transpose(0, 2, 1, 3).reshape(b, t, h * d_h)  # [B, T, H·d_h]
    attn_out = _linear(merged, w.w_o, w.b_o)  # [B, T, d]
    y = x + attn_out  # first residual
    # --- feed-forward sub-layer: each position on its own --------------------------
    ffn_in = norms._rms_norm(y, w.ffn_norm, w.eps)  # [B, T, d]
    ffn_hidden = mix = shared = None
    if w.w_router is None:
        ffn_hidden = norms._gated(_project(ffn_in, w.w_gate), _project(ffn_in, w.w_up))  # [B, T, d_ff]
        ffn_out = _project(ffn_hidden, w.w_down)  # [B, T, d]
    elif w.shared_gate is None:
        mix = moe.moe_experts(ffn_in, w.w_router, w.w_gate, w.w_up, w.w_down, w.experts_per_token,
                              gate="in_set" if w.norm_topk_prob else "full_softmax")
        ffn_out = mix.output.astype(w.dtype, copy=False)  # [B, T, d]: Σ over the chosen experts of gate · SwiGLU_i
    else:  # Qwen2-MoE: the routed experts plus σ(x · w_sg) · the shared expert
        shared = shared_expert.shared_expert_moe(
            ffn_in, w.w_router, w.w_gate, w.w_up, w.w_down, w.experts_per_token, w.shared_gate, w.shared_up,
            w.shared_down, w.shared_expert_gate, norm_topk_prob=w.norm_topk_prob)
        mix = shared.routed
        ffn_out = shared.output.astype(w.dtype, copy=False)  # [B, T, d]
    out = y + ffn_out  # second residual
    kept = dict(x=x, attn_in=attn_in, q=q, k=k, v=v, q_rot=q_rot, k_rot=k_rot, weights=weights,
                heads_out=heads_out, merged=merged, attn_out=attn_out, y=y, ffn_in=ffn_in, ffn_hidden=ffn_hidden,
                ffn_out=ffn_out, out=out, moe=mix, shared=shared) if keep else None
    return out, (k_all, v_all), kept


def decoder_layer(x, weights: LayerWeights, *, positions=None) -> LayerTrace:
    """Run one pre-norm decoder layer on ``x [B, T, d]`` and keep every intermediate.

    ``positions`` are the ``T`` absolute positions RoPE turns by (default ``0 … T−1``).
    Attention is causal: position ``t`` reads positions ``0 … t`` of its own sequence
    (sequences never mix); query head ``h`` reads K/V head ``h // (H/Hkv)``. The layer
    computes in ``weights.dtype`` (float64 for the book's layers); the arithmetic is
    :func:`_layer_core`'s, the same a model's fast path runs.

    >>> w = random_layer(8, 2, 24, seed=0)
    >>> t = decoder_layer(np.ones((2, 4, 8)), w)
    >>> t.x.shape == t.y.shape == t.out.shape == (2, 4, 8)
    True
    >>> t = decoder_layer(np.ones((1, 3, 8)), random_layer(8, 4, 24, seed=0, kv_heads=2, experts=4, top_k=2))
    >>> t.k.shape, t.weights.shape, t.chosen_experts.shape, t.expert_gates.sum(-1).round(6).tolist()
    ((1, 2, 3, 2), (1, 4, 3, 3), (1, 3, 2), [[1.0, 1.0, 1.0]])
    """
    x, w, positions = _check_layer_input(x, weights, positions)  # [B, T, d], weights, [T]
    cos, sin = rope_tables(positions, w.d_h, w.rope_base, dtype=w.dtype, scaling=w.rope_scaling)  # [T, d_h/2] each
    _, _, kept = _layer_core(x, w, cos, sin, keep=True)  # norm, attention, residual, norm, FFN, residual
    return LayerTrace(positions=positions, **kept)
