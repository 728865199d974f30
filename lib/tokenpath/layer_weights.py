"""The parameters of one decoder layer (:class:`LayerWeights`): what a model file stores
for it, checked once, in the book's ``x @ W`` layout, and seeded random ones
(:func:`random_layer`). :mod:`tokenpath.decoder` runs them.

Weights follow the book's convention ``y = x @ W``: a matrix is ``[d_in, d_out]``.
A Hugging Face ``nn.Linear`` stores the transpose ``[d_out, d_in]``; whoever copies
weights from a file transposes them (see :meth:`LayerWeights.from_linear`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from . import gqa
from ._checks import as_float, as_float_array, as_int
from .position import Llama3Scaling

__all__ = ["LayerWeights", "random_layer"]

#: The optional vectors of :class:`LayerWeights`, in the order the layer uses them.
_EXTRAS = ("b_q", "b_k", "b_v", "b_o", "q_norm", "k_norm")
#: The shared expert of a Qwen2-MoE layer (all four or none).
_SHARED = ("shared_gate", "shared_up", "shared_down", "shared_expert_gate")


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

    The optional parts of the attention that real families add: bias vectors on the
    projections (``b_q``, ``b_k``, ``b_v``: Qwen2; ``b_o`` too: Llama with
    ``attention_bias``), an RMSNorm weight for every query and key head
    (``q_norm``, ``k_norm``: Qwen3, applied before RoPE) and Llama 3.1's
    ``rope_scaling``. None of them leaves the arithmetic of a layer without them.

    Qwen2-MoE adds a shared expert to the mixture (:mod:`tokenpath.shared_expert`):
    ``shared_gate``/``shared_up [d, d_s]``, ``shared_down [d_s, d]`` and the vector
    ``shared_expert_gate [d]``, all four or none, with ``w_router`` only; and its
    ``norm_topk_prob`` may be false (the chosen gates then keep their probabilities
    under the softmax over all experts).
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
    b_q: np.ndarray | None = None  # [H·d_h]     bias added to the queries, or None
    b_k: np.ndarray | None = None  # [Hkv·d_h]   bias added to the keys, or None
    b_v: np.ndarray | None = None  # [Hkv·d_h]   bias added to the values, or None
    b_o: np.ndarray | None = None  # [d]         bias added to the attention update, or None
    q_norm: np.ndarray | None = None  # [d_h]    RMSNorm weight of every query head, or None
    k_norm: np.ndarray | None = None  # [d_h]    RMSNorm weight of every key head, or None
    rope_scaling: Llama3Scaling | None = None  # RoPE's frequencies scaled (Llama 3.1), or None
    norm_topk_prob: bool = True  # chosen gates renormalised to sum to 1 (Mixtral), or kept (with w_router only)
    shared_gate: np.ndarray | None = None  # [d, d_s]  shared expert's SwiGLU gate (Qwen2-MoE), or None
    shared_up: np.ndarray | None = None  # [d, d_s]    shared expert's content projection, or None
    shared_down: np.ndarray | None = None  # [d_s, d]  shared expert's down projection, or None
    shared_expert_gate: np.ndarray | None = None  # [d]  w_sg: the shared expert is scaled by σ(x · w_sg)

    def __post_init__(self):
        moe_ffn = self.w_router is not None
        ffn_ndim = 3 if moe_ffn else 2
        arrays = {f.name: getattr(self, f.name) for f in fields(self)
                  if f.name.startswith(("w_", "attn", "ffn")) and f.name != "w_router"}
        extras = {n: getattr(self, n) for n in _EXTRAS if getattr(self, n) is not None}
        shared = {n: getattr(self, n) for n in _SHARED if getattr(self, n) is not None}
        # float32 when every array already is (a real model's precision, kept without a
        # copy); float64, the book's teaching precision, for anything else
        dtype = np.float32 if all(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in
                                  (*arrays.values(), *extras.values(), *shared.values(),
                                   *([self.w_router] if moe_ffn else []))) else np.float64
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
        expected.update({n: s for n, s in (("b_q", (inner,)), ("b_k", (kv_inner,)), ("b_v", (kv_inner,)),
                                           ("b_o", (d,)), ("q_norm", (inner // self.heads,)),
                                           ("k_norm", (inner // self.heads,))) if n in extras})
        for name, value in extras.items():
            object.__setattr__(self, name, as_float_array(name, value, ndim=1) if dtype == np.float64
                               else _float32_view(name, value, 1))
        for name, shape in expected.items():
            got = getattr(self, name).shape
            if got != shape:
                raise ValueError(f"{name} must have shape {list(shape)} (from w_q {list(self.w_q.shape)}), got {list(got)}")
        if self.rope_scaling is not None and not isinstance(self.rope_scaling, Llama3Scaling):
            raise TypeError(f"rope_scaling must be a tokenpath.position.Llama3Scaling or None, "
                            f"got {type(self.rope_scaling).__name__}")
        self._check_shared(shared, d, dtype)

    def _check_shared(self, shared: dict, d: int, dtype) -> None:
        """``norm_topk_prob`` and the shared expert: all four arrays or none, with a router."""
        if not isinstance(self.norm_topk_prob, (bool, np.bool_)):
            raise TypeError(f"norm_topk_prob must be True or False, got {type(self.norm_topk_prob).__name__}")
        object.__setattr__(self, "norm_topk_prob", bool(self.norm_topk_prob))
        if self.w_router is None and not self.norm_topk_prob:
            raise ValueError("norm_topk_prob=False needs w_router: a dense FFN has no gates to renormalise")
        if not shared:
            return
        if self.w_router is None:
            raise ValueError(f"{next(iter(shared))} needs w_router: a shared expert sits beside routed experts")
        missing = [n for n in _SHARED if n not in shared]
        if missing:
            raise ValueError(f"{missing[0]} must be given with {', '.join(shared)}: a shared expert needs all of "
                             f"{', '.join(_SHARED)}")
        for name, value in shared.items():
            nd = 1 if name == "shared_expert_gate" else 2
            object.__setattr__(self, name, as_float_array(name, value, ndim=nd) if dtype == np.float64
                               else _float32_view(name, value, nd))
        d_s = self.shared_gate.shape[1]
        for name, shape in (("shared_gate", (d, d_s)), ("shared_up", (d, d_s)), ("shared_down", (d_s, d)),
                            ("shared_expert_gate", (d,))):
            if getattr(self, name).shape != shape:
                raise ValueError(f"{name} must have shape {list(shape)} (d = {d}, d_s = {d_s} from shared_gate), "
                                 f"got {list(getattr(self, name).shape)}")

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
                    kv_heads: int | None = None, router=None, experts_per_token: int | None = None,
                    shared_gate_proj=None, shared_up_proj=None, shared_down_proj=None, shared_expert_gate=None,
                    **extras) -> "LayerWeights":
        """Build from weights stored the ``nn.Linear`` way, ``[d_out, d_in]``, as Hugging
        Face Llama files hold them (``q_proj.weight`` …): each matrix is transposed.
        With experts, ``gate_proj``/``up_proj``/``down_proj`` hold one such matrix per
        expert (``[E, d_out, d_in]``) and ``router`` is the router's ``[E, d]``.
        ``extras`` are the optional vectors and settings (``b_q`` … ``k_norm``,
        ``rope_scaling``), passed on as they are: a vector needs no transpose.
        A Qwen2-MoE shared expert comes as ``shared_gate_proj``/``shared_up_proj
        [d_s, d]``, ``shared_down_proj [d, d_s]`` and ``shared_expert_gate [1, d]``.

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

        if shared_gate_proj is not None:
            extras.update(shared_gate=t("shared_gate_proj", shared_gate_proj),
                          shared_up=t("shared_up_proj", shared_up_proj),
                          shared_down=t("shared_down_proj", shared_down_proj),
                          shared_expert_gate=read("shared_expert_gate", shared_expert_gate, 2)[0])
        return cls(attn_norm=attn_norm, w_q=t("q_proj", q_proj), w_k=t("k_proj", k_proj),
                   w_v=t("v_proj", v_proj), w_o=t("o_proj", o_proj), ffn_norm=ffn_norm,
                   w_gate=ffn("gate_proj", gate_proj), w_up=ffn("up_proj", up_proj),
                   w_down=ffn("down_proj", down_proj), heads=heads, rope_base=rope_base, eps=eps,
                   kv_heads=kv_heads, w_router=None if router is None else t("router", router),
                   experts_per_token=experts_per_token, **extras)


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
