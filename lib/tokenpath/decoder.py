"""One pre-norm decoder layer, with a trace of every intermediate and its shape.

The layer is the one Llama stacks::

    Y  = X + Attn(RMSNorm(X))          first residual: keeps X
    X' = Y + SwiGLU(RMSNorm(Y))        second residual: keeps Y, not X

``Attn`` is multi-head causal self-attention. Queries, keys and values are projections
of the normalised input; RoPE turns the queries and the keys by their positions (with
Llama's ``rotate_half`` pairing) and never the values. ``H`` query heads may share
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
produced; a model's fast path (:meth:`tokenpath.model.Model.logits`, chapter 9) runs the
same core, keeps nothing, and continues a K/V cache.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from . import attention as att
from . import gqa, moe, norms
from ._checks import as_float, as_float_array, as_int, as_int_array
from .position import _rotate_half, rope_tables

__all__ = ["LayerTrace", "LayerWeights", "decoder_layer", "random_layer"]


@dataclass(frozen=True)
class LayerWeights:
    """The parameters of one layer: what a model file stores for it.

    ``d`` is the width of the residual stream, ``heads`` the number of query heads
    (H), ``kv_heads`` the number of key/value heads (Hkv, default H; every Hkv head
    serves H/Hkv query heads), ``d_h`` the width of one head and ``d_ff`` the width of
    the SwiGLU hidden layer.

    The FFN is dense when ``w_router`` is None. With a router ``[d, E]`` it is a
    mixture of ``E`` SwiGLU experts: ``w_gate``/``w_up`` are ``[E, d, d_ff]``,
    ``w_down`` is ``[E, d_ff, d]``, and each position runs its ``experts_per_token``
    best-scored experts.
    """

    attn_norm: np.ndarray  # [d]          RMSNorm weight γ before attention
    w_q: np.ndarray  # [d, H·d_h]         query projection W_Q
    w_k: np.ndarray  # [d, Hkv·d_h]       key projection W_K
    w_v: np.ndarray  # [d, Hkv·d_h]       value projection W_V
    w_o: np.ndarray  # [H·d_h, d]         output projection back to the stream
    ffn_norm: np.ndarray  # [d]           RMSNorm weight γ before the FFN
    w_gate: np.ndarray  # [d, d_ff]       SwiGLU gate projection ([E, d, d_ff] with experts)
    w_up: np.ndarray  # [d, d_ff]         SwiGLU content ("up") projection ([E, d, d_ff])
    w_down: np.ndarray  # [d_ff, d]       SwiGLU down projection ([E, d_ff, d])
    heads: int  # H
    rope_base: float = 10000.0  # RoPE base (θ_i = base^(−2i/d_h))
    eps: float = 1e-5  # ε inside both RMSNorms
    kv_heads: int | None = None  # Hkv; None means H (one K/V head per query head)
    w_router: np.ndarray | None = None  # [d, E] router W_r of a mixture of experts, or None (dense)
    experts_per_token: int | None = None  # k: experts each position runs (with w_router only)

    def __post_init__(self):
        moe_ffn = self.w_router is not None
        ffn_ndim = 3 if moe_ffn else 2
        arrays = {f.name: getattr(self, f.name) for f in fields(self)
                  if f.name.startswith(("w_", "attn", "ffn")) and f.name != "w_router"}
        # float32 when every array already is (a real model's precision, kept without a
        # copy); float64, the book's teaching precision, for anything else
        dtype = np.float32 if all(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in
                                  (*arrays.values(), *([self.w_router] if moe_ffn else []))) else np.float64
        for name, value in arrays.items():
            nd = 1 if name.endswith("norm") else ffn_ndim if name in ("w_gate", "w_up", "w_down") else 2
            if moe_ffn and nd == 3 and np.ndim(value) != 3:
                raise ValueError(f"{name} must be [E, ·, ·], one matrix per expert, when w_router is given; "
                                 f"got shape {list(np.shape(value))}")
            arr = as_float_array(name, value, ndim=nd) if dtype == np.float64 else _float32_view(name, value, nd)
            object.__setattr__(self, name, arr)
        object.__setattr__(self, "heads", as_int("heads", self.heads, low=1))
        kv = self.heads if self.kv_heads is None else as_int("kv_heads", self.kv_heads, low=1)
        gqa.group_size(self.heads, kv)  # H % Hkv == 0, or a ValueError naming both
        object.__setattr__(self, "kv_heads", kv)
        object.__setattr__(self, "rope_base", as_float("rope_base", self.rope_base, low=1e-12))
        object.__setattr__(self, "eps", as_float("eps", self.eps, low=0.0))
        d, inner = self.w_q.shape
        if inner % self.heads:
            raise ValueError(f"w_q must have H·d_h columns with heads={self.heads}, got shape {list(self.w_q.shape)}")
        if (inner // self.heads) % 2:
            raise ValueError(f"d_h = {inner // self.heads} must be even: RoPE turns features in pairs")
        kv_inner = kv * (inner // self.heads)
        expected = {"attn_norm": (d,), "w_k": (d, kv_inner), "w_v": (d, kv_inner), "w_o": (inner, d), "ffn_norm": (d,)}
        if moe_ffn:
            r = (as_float_array("w_router", self.w_router, ndim=2) if dtype == np.float64
                 else _float32_view("w_router", self.w_router, 2))
            object.__setattr__(self, "w_router", r)
            if r.shape[0] != d:
                raise ValueError(f"w_router must be [d, E] with d = {d}, got shape {list(r.shape)}")
            n_exp = r.shape[1]
            if self.w_gate.shape[0] != n_exp or self.w_gate.shape[1] != d:
                raise ValueError(f"w_gate must be [E, d, d_ff] = [{n_exp}, {d}, d_ff] (E from w_router), "
                                 f"got shape {list(self.w_gate.shape)}")
            ff = self.w_gate.shape[2]
            expected.update({"w_up": self.w_gate.shape, "w_down": (n_exp, ff, d)})
            if self.experts_per_token is None:
                raise ValueError("experts_per_token must be given with w_router: how many experts each position runs")
            object.__setattr__(self, "experts_per_token",
                               as_int("experts_per_token", self.experts_per_token, low=1, high=n_exp))
        else:
            if self.experts_per_token is not None:
                raise ValueError("experts_per_token needs w_router: a dense FFN has no experts")
            if self.w_gate.shape[0] != d:
                raise ValueError(f"w_gate must be [d, d_ff] with d = {d}, got shape {list(self.w_gate.shape)}")
            expected.update({"w_up": self.w_gate.shape, "w_down": (self.w_gate.shape[1], d)})
        for name, shape in expected.items():
            got = getattr(self, name).shape
            if got != shape:
                raise ValueError(f"{name} must have shape {list(shape)} (from w_q {list(self.w_q.shape)}), got {list(got)}")

    @property
    def dtype(self) -> np.dtype:
        """The precision the layer computes in: float32 when built from float32 arrays
        only, else float64.

        >>> random_layer(8, 2, 24, seed=0).dtype
        dtype('float64')
        """
        return self.w_q.dtype

    @property
    def d(self) -> int:
        """Width of the residual stream."""
        return self.w_q.shape[0]

    @property
    def d_h(self) -> int:
        """Width of one head."""
        return self.w_q.shape[1] // self.heads

    @property
    def d_ff(self) -> int:
        """Width of the SwiGLU hidden layer (of each expert)."""
        return self.w_gate.shape[-1]

    @property
    def n_experts(self) -> int:
        """E, the number of experts; 0 for a dense FFN.

        >>> random_layer(8, 2, 24, seed=0).n_experts, random_layer(8, 2, 24, seed=0, experts=4, top_k=2).n_experts
        (0, 4)
        """
        return 0 if self.w_router is None else self.w_router.shape[1]

    def shapes(self) -> dict[str, tuple[int, ...]]:
        """Name → shape of every stored matrix and vector (the parameters of the layer).

        >>> random_layer(8, 2, 24, seed=0).shapes()["w_q"]
        (8, 8)
        """
        return {f.name: getattr(self, f.name).shape for f in fields(self) if isinstance(getattr(self, f.name), np.ndarray)}

    @property
    def parameter_count(self) -> int:
        """Number of stored numbers in the layer.

        >>> random_layer(8, 2, 24, seed=0).parameter_count
        848
        """
        return int(sum(np.prod(s) for s in self.shapes().values()))

    @classmethod
    def from_linear(cls, *, attn_norm, q_proj, k_proj, v_proj, o_proj, ffn_norm, gate_proj, up_proj,
                    down_proj, heads: int, rope_base: float = 10000.0, eps: float = 1e-5,
                    kv_heads: int | None = None, router=None, experts_per_token: int | None = None) -> "LayerWeights":
        """Build from weights stored the ``nn.Linear`` way, ``[d_out, d_in]``, as Hugging
        Face Llama files hold them (``q_proj.weight`` …): each matrix is transposed.
        With experts, ``gate_proj``/``up_proj``/``down_proj`` hold one such matrix per
        expert (``[E, d_out, d_in]``) and ``router`` is the router's ``[E, d]``.

        >>> w = random_layer(8, 2, 24, seed=0)
        >>> again = LayerWeights.from_linear(attn_norm=w.attn_norm, q_proj=w.w_q.T, k_proj=w.w_k.T,
        ...     v_proj=w.w_v.T, o_proj=w.w_o.T, ffn_norm=w.ffn_norm, gate_proj=w.w_gate.T,
        ...     up_proj=w.w_up.T, down_proj=w.w_down.T, heads=2)
        >>> bool(np.array_equal(again.w_o, w.w_o))
        True
        """
        def read(name, m, nd):  # float32 stays float32 (a view), anything else becomes float64
            if isinstance(m, np.ndarray) and m.dtype == np.float32:
                return _float32_view(name, m, nd)
            return as_float_array(name, m, ndim=nd)

        def t(name, m):
            return read(name, m, 2).T  # a transposed view: BLAS reads it without a copy

        def ffn(name, m):
            if router is None:
                return t(name, m)
            return np.swapaxes(read(name, m, 3), 1, 2)  # [E, d_out, d_in] -> [E, d_in, d_out]

        return cls(attn_norm=attn_norm, w_q=t("q_proj", q_proj), w_k=t("k_proj", k_proj),
                   w_v=t("v_proj", v_proj), w_o=t("o_proj", o_proj), ffn_norm=ffn_norm,
                   w_gate=ffn("gate_proj", gate_proj), w_up=ffn("up_proj", up_proj),
                   w_down=ffn("down_proj", down_proj), heads=heads, rope_base=rope_base, eps=eps,
                   kv_heads=kv_heads, w_router=None if router is None else t("router", router),
                   experts_per_token=experts_per_token)


def random_layer(d: int, heads: int, d_ff: int, *, d_h: int | None = None, seed: int,
                 rope_base: float = 10000.0, eps: float = 1e-5, kv_heads: int | None = None,
                 experts: int | None = None, top_k: int | None = None) -> LayerWeights:
    """Random weights for one layer, from a generator seeded with ``seed``: a random,
    untrained layer, good for shapes and for checking the wiring, not for meaning.

    Each matrix entry is normal with standard deviation ``1/√d_in`` (so a projection
    keeps the scale of its input); the RMSNorm weights are ``1 + 0.1·normal`` so that
    they are not silently all ones. ``d_h`` defaults to ``d / heads``, ``kv_heads`` to
    ``heads``. With ``experts=E`` the FFN is a mixture of E SwiGLU experts of which
    each position runs ``top_k``.

    >>> w = random_layer(8, 2, 24, seed=0)
    >>> w.d, w.heads, w.d_h, w.d_ff, w.w_o.shape
    (8, 2, 4, 24, (8, 8))
    >>> random_layer(8, 4, 24, seed=0, kv_heads=2, experts=4, top_k=2).shapes()["w_k"]
    (8, 4)
    """
    d = as_int("d", d, low=1)
    heads = as_int("heads", heads, low=1)
    d_ff = as_int("d_ff", d_ff, low=1)
    if d_h is None:
        if d % heads:
            raise ValueError(f"d={d} does not divide into heads={heads}; pass d_h explicitly")
        d_h = d // heads
    d_h = as_int("d_h", d_h, low=2)
    kv = heads if kv_heads is None else as_int("kv_heads", kv_heads, low=1)
    seed = as_int("seed", seed, low=0)
    rng = np.random.default_rng(seed)
    inner = heads * d_h

    def mat(d_in, d_out, *lead):
        return rng.standard_normal((*lead, d_in, d_out)) / np.sqrt(d_in)

    # the dense draw order is kept as it was, so a seed gives the same layer as before
    attn_norm = 1.0 + 0.1 * rng.standard_normal(d)
    w_q, w_k, w_v, w_o = mat(d, inner), mat(d, kv * d_h), mat(d, kv * d_h), mat(inner, d)
    ffn_norm = 1.0 + 0.1 * rng.standard_normal(d)
    lead = () if experts is None else (as_int("experts", experts, low=1),)
    ffn = dict(w_gate=mat(d, d_ff, *lead), w_up=mat(d, d_ff, *lead), w_down=mat(d_ff, d, *lead))
    if experts is not None:
        ffn.update(w_router=mat(d, lead[0]), experts_per_token=top_k)
    elif top_k is not None:
        raise ValueError("top_k needs experts: a dense FFN has no experts to choose from")
    return LayerWeights(attn_norm=attn_norm, w_q=w_q, w_k=w_k, w_v=w_v, w_o=w_o, ffn_norm=ffn_norm,
                        heads=heads, kv_heads=kv, rope_base=rope_base, eps=eps, **ffn)


@dataclass(frozen=True)
class LayerTrace:
    """Every intermediate of one layer, in the order it is computed (activations: they
    are recomputed for every input and never stored in a model file)."""

    x: np.ndarray  # [B, T, d]        layer input (the residual stream)
    attn_in: np.ndarray  # [B, T, d]  RMSNorm(X)
    q: np.ndarray  # [B, H, T, d_h]   queries, (attn_in @ W_Q) split into heads
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

    @property
    def chosen_experts(self) -> np.ndarray | None:
        """``[B, T, k]`` the experts each position ran, best score first (None: dense)."""
        return None if self.moe is None else self.moe.route.chosen

    @property
    def expert_gates(self) -> np.ndarray | None:
        """``[B, T, k]`` the gate of each chosen expert, in ``chosen_experts`` order;
        they sum to 1 per position (None: dense)."""
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
            elif isinstance(value, np.ndarray) and f.name != "positions":
                out[f.name] = value.shape
        return out


def _float32_view(name: str, value: np.ndarray, ndim: int) -> np.ndarray:
    """A read-only view of a float32 array with ``ndim`` axes and finite values, or an
    error naming ``name`` (the float32 twin of ``as_float_array``: nothing is copied)."""
    if value.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} axes, got shape {value.shape}")
    if not np.isfinite(value).all():
        bad = np.argwhere(~np.isfinite(value))
        raise ValueError(f"{name} must be finite; found non-finite value(s) at index {tuple(int(i) for i in bad[0])}")
    out = value.view()
    out.flags.writeable = False
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
    q = _project(attn_in, w.w_q).reshape(b, t, h, d_h).transpose(0, 2, 1, 3)  # [B, H, T, d_h]
    k = _project(attn_in, w.w_k).reshape(b, t, h_kv, d_h).transpose(0, 2, 1, 3)  # [B, Hkv, T, d_h]
    v = _project(attn_in, w.w_v).reshape(b, t, h_kv, d_h).transpose(0, 2, 1, 3)  # [B, Hkv, T, d_h]
    q_rot = _rotate_half(q, cos, sin)  # Q and K only, never V
    k_rot = _rotate_half(k, cos, sin)
    k_all, v_all = (k_rot, v) if past is None else (np.concatenate([past[0], k_rot], axis=2),
                                                    np.concatenate([past[1], v], axis=2))  # [B, Hkv, P+T, d_h]
    visible = att.cache_mask(k_all.shape[2] - t, t)  # [T, P+T]: row r sits at position P + r
    _, weights, heads_out = gqa._grouped(q_rot, k_all, v_all, visible)  # softmax over sources, per query head
    merged = heads_out.transpose(0, 2, 1, 3).reshape(b, t, h * d_h)  # [B, T, H·d_h]
    attn_out = _project(merged, w.w_o)  # [B, T, d]
    y = x + attn_out  # first residual
    # --- feed-forward sub-layer: each position on its own --------------------------
    ffn_in = norms._rms_norm(y, w.ffn_norm, w.eps)  # [B, T, d]
    ffn_hidden = mix = None
    if w.w_router is None:
        ffn_hidden = norms._gated(_project(ffn_in, w.w_gate), _project(ffn_in, w.w_up))  # [B, T, d_ff]
        ffn_out = _project(ffn_hidden, w.w_down)  # [B, T, d]
    else:
        mix = moe.moe_experts(ffn_in, w.w_router, w.w_gate, w.w_up, w.w_down, w.experts_per_token)
        ffn_out = mix.output.astype(w.dtype, copy=False)  # [B, T, d]: Σ over the chosen experts of gate · SwiGLU_i
    out = y + ffn_out  # second residual
    kept = None
    if keep:
        kept = dict(x=x, attn_in=attn_in, q=q, k=k, v=v, q_rot=q_rot, k_rot=k_rot, weights=weights,
                    heads_out=heads_out, merged=merged, attn_out=attn_out, y=y, ffn_in=ffn_in,
                    ffn_hidden=ffn_hidden, ffn_out=ffn_out, out=out, moe=mix)
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
    cos, sin = rope_tables(positions, w.d_h, w.rope_base, dtype=w.dtype)  # [T, d_h/2] each
    _, _, kept = _layer_core(x, w, cos, sin, keep=True)  # norm, attention, residual, norm, FFN, residual
    return LayerTrace(positions=positions, **kept)
