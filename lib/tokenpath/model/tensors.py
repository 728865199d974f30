"""The tensors a config implies: their names and shapes (:func:`tensor_shapes`), the
count of parameters (:func:`count_parameters`), and the checks of a file's tensors
against the config (names, shapes, dtypes, finite values; Mixtral's fused experts
split into the per-expert names)."""

from __future__ import annotations

import math  # noqa: F401 (the doctests')
import re
from dataclasses import dataclass
from typing import Iterator, Mapping

import numpy as np

from ..safefiles import ModelFileError, short_repr
from .config import LlamaConfig, MixtralConfig  # noqa: F401 (MixtralConfig: the doctests')
from .qwen2_moe import Qwen2MoeConfig

__all__ = [
    "ParameterCount",
    "count_parameters",
    "tensor_role",
    "tensor_shapes",
]


def _layer_shapes(c: LlamaConfig, i: int) -> Iterator[tuple[str, tuple[int, ...]]]:
    d, ff, q, kv = c.hidden_size, c.intermediate_size, c.num_attention_heads * c.head_dim, \
        c.num_key_value_heads * c.head_dim
    p = f"model.layers.{i}."
    yield p + "input_layernorm.weight", (d,)
    for name, rows in (("q", q), ("k", kv), ("v", kv)):
        yield p + f"self_attn.{name}_proj.weight", (rows, d)
        if c.qkv_bias:
            yield p + f"self_attn.{name}_proj.bias", (rows,)
    yield p + "self_attn.o_proj.weight", (d, q)
    if c.o_bias:
        yield p + "self_attn.o_proj.bias", (d,)
    if c.qk_norm:  # Qwen3: one RMSNorm weight over d_h, shared by every query (key) head
        yield p + "self_attn.q_norm.weight", (c.head_dim,)
        yield p + "self_attn.k_norm.weight", (c.head_dim,)
    yield p + "post_attention_layernorm.weight", (d,)
    if isinstance(c, Qwen2MoeConfig):  # router, routed experts, shared expert and its gate
        yield p + "mlp.gate.weight", (c.n_experts, d)
        for e in range(c.n_experts):
            for name, shape in _swiglu_shapes(d, c.moe_intermediate_size):
                yield p + f"mlp.experts.{e}.{name}", shape
        for name, shape in _swiglu_shapes(d, c.shared_expert_intermediate_size):
            yield p + f"mlp.shared_expert.{name}", shape
        yield p + "mlp.shared_expert_gate.weight", (1, d)
        return
    if not c.n_experts:
        yield p + "mlp.gate_proj.weight", (ff, d)
        yield p + "mlp.up_proj.weight", (ff, d)
        yield p + "mlp.down_proj.weight", (d, ff)
        return
    yield p + "block_sparse_moe.gate.weight", (c.n_experts, d)  # the router
    for e in range(c.n_experts):  # w1 = gate, w3 = up, w2 = down (Mixtral's names)
        yield p + f"block_sparse_moe.experts.{e}.w1.weight", (ff, d)
        yield p + f"block_sparse_moe.experts.{e}.w2.weight", (d, ff)
        yield p + f"block_sparse_moe.experts.{e}.w3.weight", (ff, d)


def _swiglu_shapes(d: int, ff: int) -> tuple[tuple[str, tuple[int, int]], ...]:
    return (("gate_proj.weight", (ff, d)), ("up_proj.weight", (ff, d)), ("down_proj.weight", (d, ff)))


def _iter_tensor_shapes(c: LlamaConfig) -> Iterator[tuple[str, tuple[int, ...]]]:
    """The (name, shape) pairs of :func:`tensor_shapes`, one at a time: a reader that
    stops at the first name a file lacks does work bounded by the file, not by the
    config's numbers (a config may claim a billion layers)."""
    yield "model.embed_tokens.weight", (c.vocab_size, c.hidden_size)
    for i in range(c.num_hidden_layers):
        yield from _layer_shapes(c, i)
    yield "model.norm.weight", (c.hidden_size,)
    if not c.tie_word_embeddings:
        yield "lm_head.weight", (c.vocab_size, c.hidden_size)


def tensor_shapes(config: LlamaConfig) -> dict[str, tuple[int, ...]]:
    """Every tensor name the config implies, with its stored shape (``nn.Linear``
    layout, ``[d_out, d_in]``), in the order of the forward pass.

    >>> s = tensor_shapes(LlamaConfig(1000, 16, 32, 2, 4, 2))
    >>> s["model.layers.1.self_attn.k_proj.weight"], len(s)
    ((8, 16), 21)
    """
    if not isinstance(config, LlamaConfig):
        raise TypeError(f"config must be a LlamaConfig, got {type(config).__name__}")
    return dict(_iter_tensor_shapes(config))


#: What each stored tensor does in the forward pass (name, or its suffix in a layer → role).
_ROLES = {
    "model.embed_tokens.weight": "E [V, d]: lookup table, IDs → rows X",
    "input_layernorm.weight": "γ of the RMSNorm before attention: Norm(X)",
    "self_attn.q_proj.weight": "W_Q: queries Q = Norm(X) W_Q, then RoPE",
    "self_attn.k_proj.weight": "W_K: keys K = Norm(X) W_K, then RoPE",
    "self_attn.v_proj.weight": "W_V: values = Norm(X) W_V (no RoPE)",
    "self_attn.o_proj.weight": "W_O: heads merged back to d; Y = X + this",
    "self_attn.q_proj.bias": "b_Q: added to every query, Q = Norm(X) W_Q + b_Q",
    "self_attn.k_proj.bias": "b_K: added to every key, K = Norm(X) W_K + b_K",
    "self_attn.v_proj.bias": "b_V: added to every value",
    "self_attn.o_proj.bias": "b_O: added to the attention update",
    "self_attn.q_norm.weight": "γ of the RMSNorm of every query head (over d_h), before RoPE",
    "self_attn.k_norm.weight": "γ of the RMSNorm of every key head (over d_h), before RoPE",
    "post_attention_layernorm.weight": "γ of the RMSNorm before the FFN: Norm(Y)",
    "mlp.gate_proj.weight": "W_gate: SwiGLU gate, SiLU(Norm(Y) W_gate)",
    "mlp.up_proj.weight": "W_up: SwiGLU content, Norm(Y) W_up",
    "mlp.down_proj.weight": "W_down: back to d; X' = Y + this",
    "block_sparse_moe.gate.weight": "W_r: router scores Norm(Y) W_r, one per expert",
    "mlp.gate.weight": "W_r: router scores Norm(Y) W_r, one per expert (softmax, then top-k)",
    "mlp.shared_expert.gate_proj.weight": "W_gate of the shared expert, which every position runs",
    "mlp.shared_expert.up_proj.weight": "W_up of the shared expert",
    "mlp.shared_expert.down_proj.weight": "W_down of the shared expert, scaled by the shared gate",
    "mlp.shared_expert_gate.weight": "w_sg [1, d]: the shared expert is scaled by σ(Norm(Y) · w_sg)",
    "w1.weight": "W_gate of the expert: SiLU(Norm(Y) W_gate)",
    "w3.weight": "W_up of the expert: Norm(Y) W_up",
    "w2.weight": "W_down of the expert; X' = Y + Σ gate · this",
    "model.norm.weight": "γ of the final RMSNorm after the last layer",
    "lm_head.weight": "W_outᵀ [V, d]: hidden state → logits",
}


def tensor_role(name: str) -> str:
    """What a stored tensor does in the forward pass of a pre-norm Llama-family (Llama,
    Mistral, Mixtral, Qwen2, Qwen3) layer, after the layer (and expert) it belongs to.

    >>> tensor_role("model.layers.1.self_attn.k_proj.weight")
    'layer 1: W_K: keys K = Norm(X) W_K, then RoPE'
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a tensor name (str), got {type(name).__name__}")
    if name in _ROLES:
        return _ROLES[name]
    m = re.fullmatch(r"model\.layers\.(\d+)\.(.+)", name)
    if m and m.group(2) in _ROLES:
        return f"layer {m.group(1)}: {_ROLES[m.group(2)]}"
    m = re.fullmatch(r"model\.layers\.(\d+)\.block_sparse_moe\.experts\.(\d+)\.(w[123]\.weight)", name)
    if m:
        return f"layer {m.group(1)}, expert {m.group(2)}: {_ROLES[m.group(3)]}"
    m = re.fullmatch(r"model\.layers\.(\d+)\.mlp\.experts\.(\d+)\.(gate|up|down)_proj\.weight", name)
    if m:
        mixtral = {"gate": "w1", "up": "w3", "down": "w2"}[m.group(3)]  # the same role under Mixtral's name
        return f"layer {m.group(1)}, expert {m.group(2)}: {_ROLES[mixtral + '.weight']}"
    raise ValueError(f"name {name!r} is not a Llama tensor name")


@dataclass(frozen=True)
class ParameterCount:
    """Parameters implied by a config, by part; ``head`` is 0 when tied. With experts,
    ``mlp`` counts all ``E`` experts of a layer (stored) and ``active_mlp`` the ``k``
    a position runs; ``router`` is the router's ``d·E`` (always run)."""

    embedding: int  # V·d
    attention: int  # per layer: d·Hq·d_h (W_Q) + 2·d·Hkv·d_h (W_K, W_V) + Hq·d_h·d (W_O), + any biases
    mlp: int  # per layer: 3·d·d_ff, times E with experts
    norms: int  # per layer: 2·d (two RMSNorm weights), + 2·d_h with Qwen3's q/k norms
    layers: int  # L
    final_norm: int  # d
    head: int  # V·d untied, 0 tied (the head reuses E)
    router: int = 0  # per layer: d·E (0 without experts)
    active_mlp: int | None = None  # per layer, run per position: 3·d·d_ff·k (None: = mlp)

    @property
    def per_layer(self) -> int:
        return self.attention + self.router + self.mlp + self.norms

    @property
    def total(self) -> int:
        return self.embedding + self.layers * self.per_layer + self.final_norm + self.head

    @property
    def active(self) -> int:
        """Parameters one position's forward pass multiplies with: the total minus the
        experts it does not run (equal to the total without experts)."""
        idle = 0 if self.active_mlp is None else self.mlp - self.active_mlp
        return self.total - self.layers * idle

    def rows(self) -> list[tuple[str, int]]:
        """(part, count) for a table, ending with the total (and, with experts, the
        count active per position)."""
        mlp = "MLP" if self.active_mlp is None else "experts"
        rows = [("embedding", self.embedding), (f"attention × {self.layers}", self.layers * self.attention)]
        if self.router:
            rows.append((f"router × {self.layers}", self.layers * self.router))
        rows += [(f"{mlp} × {self.layers}", self.layers * self.mlp), (f"norms × {self.layers}", self.layers * self.norms),
                 ("final norm", self.final_norm), ("head", self.head), ("total", self.total)]
        if self.active_mlp is not None:
            rows.append(("active per token", self.active))
        return rows


def count_parameters(config: LlamaConfig) -> ParameterCount:
    """Count the parameters from the config alone (no tensor is read).

    >>> c = LlamaConfig(1000, 16, 32, 2, 4, 2)
    >>> count_parameters(c).total, sum(math.prod(s) for s in tensor_shapes(c).values())
    (36688, 36688)
    """
    if not isinstance(config, LlamaConfig):
        raise TypeError(f"config must be a LlamaConfig, got {type(config).__name__}")
    c = config
    d, q, kv = c.hidden_size, c.num_attention_heads * c.head_dim, c.num_key_value_heads * c.head_dim
    expert = 3 * d * c.intermediate_size  # one SwiGLU network
    mlp, moe = expert * max(c.n_experts, 1), {}
    if c.n_experts:
        moe = dict(router=d * c.n_experts, active_mlp=expert * c.num_experts_per_tok)
    if isinstance(c, Qwen2MoeConfig):  # routed experts of their own width, plus the shared one and its gate
        expert, shared = 3 * d * c.moe_intermediate_size, 3 * d * c.shared_expert_intermediate_size + d
        mlp, moe["active_mlp"] = expert * c.n_experts + shared, expert * c.num_experts_per_tok + shared
    return ParameterCount(
        embedding=c.vocab_size * d,
        attention=d * q + 2 * d * kv + q * d + (q + 2 * kv) * c.qkv_bias + d * c.o_bias,
        mlp=mlp,
        norms=2 * d + 2 * c.head_dim * c.qk_norm,
        layers=c.num_hidden_layers,
        final_norm=d,
        head=0 if c.tie_word_embeddings else c.vocab_size * d,
        **moe,
    )


# ------------------------------------------------------ checking a file's tensors


_IGNORED = re.compile(r"model\.layers\.\d+\.self_attn\.rotary_emb\.inv_freq")


def _expected_shape_reason(name: str, c: LlamaConfig) -> str:
    d, ff = "hidden_size", "intermediate_size"
    if isinstance(c, Qwen2MoeConfig):
        if "shared_expert_gate" in name:
            return f"[1, {d}]"
        if "mlp.gate.weight" in name:
            return f"[num_experts, {d}]"
        ff = "shared_expert_intermediate_size" if "shared_expert." in name else "moe_intermediate_size"
    q, kv = "num_attention_heads·head_dim", "num_key_value_heads·head_dim"
    table = {"q_proj.bias": (q,), "k_proj.bias": (kv,), "v_proj.bias": (kv,), "o_proj.bias": (d,),
             "q_norm": ("head_dim",), "k_norm": ("head_dim",),
             "embed_tokens": ("vocab_size", d), "lm_head": ("vocab_size", d), "norm": (d,),
             "layernorm": (d,), "q_proj": (q, d), "k_proj": (kv, d), "v_proj": (kv, d),
             "o_proj": (d, q), "gate_proj": (ff, d), "up_proj": (ff, d), "down_proj": (d, ff),
             "moe.gate": ("num_local_experts", d), "w1": (ff, d), "w3": (ff, d), "w2": (d, ff)}
    for key, why in table.items():
        if key in name:
            return "[" + ", ".join(why) + "]"
    return "the config"  # pragma: no cover


def _experts_field(c: LlamaConfig) -> str:
    return "num_experts" if isinstance(c, Qwen2MoeConfig) else "num_local_experts"


def _attention_parts(c: LlamaConfig) -> str:
    """What the config says the attention stores besides its four matrices."""
    parts = [("biases on q, k and v" if not c.o_bias else "biases on q, k, v and o") if c.qkv_bias else
             "no biases", "a q/k RMSNorm per head" if c.qk_norm else "no q/k norm"]
    flag = f", attention_bias={str(c.attention_bias).lower()}" if "attention_bias" in c.READS else ""
    return f"{flag}: {' and '.join(parts)}"


_FUSED = re.compile(r"model\.layers\.(\d+)\.mlp\.(gate\.weight|experts\.gate_up_proj|experts\.down_proj)")


def _unfuse_experts(c: LlamaConfig, tensors: Mapping, source: str) -> dict:
    """Transformers 5's in-memory Mixtral and Qwen2-MoE names, with the experts fused
    (``mlp.gate.weight [E, d]``, ``mlp.experts.gate_up_proj [E, 2·d_ff, d]`` gate rows
    first, ``mlp.experts.down_proj [E, d, d_ff]``), split into the per-expert names
    ``save_pretrained`` writes. Other names pass through unchanged.

    >>> c = MixtralConfig(10, 4, 6, 1, 2, 1, num_local_experts=2, num_experts_per_tok=1)
    >>> t = _unfuse_experts(c, {"model.layers.0.mlp.experts.gate_up_proj": np.zeros((2, 12, 4))}, "f")
    >>> sorted(t)[:2], t["model.layers.0.block_sparse_moe.experts.1.w3.weight"].shape
    (['model.layers.0.block_sparse_moe.experts.0.w1.weight', 'model.layers.0.block_sparse_moe.experts.0.w3.weight'], (6, 4))
    """
    qwen = isinstance(c, Qwen2MoeConfig)  # Qwen2-MoE keeps the mlp. prefix and the *_proj names
    block, (gate, up, down) = ("mlp.", ("gate_proj", "up_proj", "down_proj")) if qwen else \
        ("block_sparse_moe.", ("w1", "w3", "w2"))
    field, ff_field = ("num_experts", "moe_intermediate_size") if qwen else ("num_local_experts", "intermediate_size")
    out = {}
    for name, value in tensors.items():
        m = _FUSED.fullmatch(name)
        if m is None or not c.n_experts:
            out[name] = value
            continue
        p, kind, arr = f"model.layers.{m.group(1)}.{block}", m.group(2), np.asarray(value)
        if kind == "gate.weight":
            out[p + "gate.weight"] = arr
            continue
        if arr.ndim != 3 or arr.shape[0] != c.n_experts:
            raise ModelFileError(f"{source}: tensor {name!r} has shape {list(arr.shape)}, but config.json says "
                                 f"{field}={c.n_experts}: expected [{c.n_experts}, ·, ·], one block per expert")
        ff = getattr(c, ff_field)
        for e in range(c.n_experts):
            if kind == "experts.down_proj":
                out[p + f"experts.{e}.{down}.weight"] = arr[e]
            elif arr.shape[1] != 2 * ff:
                raise ModelFileError(f"{source}: tensor {name!r} has shape {list(arr.shape)}, but config.json "
                                     f"implies [{c.n_experts}, {2 * ff}, {c.hidden_size}] = "
                                     f"[{field}, 2·{ff_field}, hidden_size]")
            else:
                out[p + f"experts.{e}.{gate}.weight"], out[p + f"experts.{e}.{up}.weight"] = arr[e, :ff], arr[e, ff:]
    return out


def _stored_dtype(name: str, dtypes: Mapping[str, str]) -> str:
    """The file dtype of tensor ``name``: its own entry, or that of the fused tensor it
    was split from, or F64 when the tensors came from memory.

    >>> _stored_dtype("model.layers.0.block_sparse_moe.experts.2.w3.weight",
    ...               {"model.layers.0.mlp.experts.gate_up_proj": "BF16"})
    'BF16'
    """
    if name in dtypes:
        return dtypes[name]
    m = re.fullmatch(r"model\.layers\.(\d+)\.block_sparse_moe\.(gate\.weight|experts\.\d+\.(w[123])\.weight)", name)
    if m:
        fused = {None: "gate.weight", "w1": "experts.gate_up_proj", "w3": "experts.gate_up_proj",
                 "w2": "experts.down_proj"}[m.group(3)]
        return dtypes.get(f"model.layers.{m.group(1)}.mlp.{fused}", "F64")
    return "F64"


def _match_names_and_shapes(c: LlamaConfig, tensors: Mapping, source: str, *,
                            compare_tied_head: bool = True) -> tuple[dict[str, tuple[int, ...]], dict]:
    """Match tensors against the names and shapes the config implies, looking at
    shapes only (and, with ``compare_tied_head``, at a stored head's numbers). Returns
    the expected shapes and the tensors by name after fused experts are split."""
    if not isinstance(tensors, Mapping):
        raise TypeError(f"tensors must be a mapping of name -> array, got {type(tensors).__name__}")
    for k in tensors:
        if not isinstance(k, str):
            raise TypeError(f"tensors must be keyed by tensor names (strings), got {short_repr(k)}")
    have = {k: v for k, v in _unfuse_experts(c, tensors, source).items() if not _IGNORED.fullmatch(k)}
    if c.tie_word_embeddings and "lm_head.weight" in have:
        head = np.asarray(have.pop("lm_head.weight"))
        embed = have.get("model.embed_tokens.weight")
        if embed is None or head.shape != np.shape(embed) or (compare_tied_head and not np.array_equal(head, embed)):
            raise ModelFileError(f"{source}: config.json says tie_word_embeddings=true, but lm_head.weight differs "
                                 "from model.embed_tokens.weight")
    # The expected names are listed one at a time and the first one missing stops the
    # listing, so at most len(have) + 1 names are ever made, whatever the config claims.
    expected = {}
    for name, shape in _iter_tensor_shapes(c):
        expected[name] = shape
        if name not in have:
            hint = ""
            if name == "lm_head.weight":
                hint = " (config.json says tie_word_embeddings=false, so the head must be stored)"
            elif name.endswith("mlp.gate.weight") or "shared_expert" in name:
                hint = (f" (config.json describes a Qwen2-MoE with num_experts={c.n_experts}: every layer needs its "
                        "router, its shared expert and the shared expert's gate)")
            elif name.endswith("block_sparse_moe.gate.weight"):
                hint = (f" (config.json describes a Mixtral with num_local_experts={c.n_experts}: every layer "
                        "needs its router)")
            elif ".experts." in name:
                hint = f" (config.json says {_experts_field(c)}={c.n_experts})"
            elif name.endswith(".bias") or "_norm." in name:
                hint = f" (config.json describes {c.ARCH}{_attention_parts(c)})"
            elif name.startswith("model.layers."):
                hint = f" (config.json says num_hidden_layers={c.num_hidden_layers})"
            raise ModelFileError(f"{source}: missing tensor {name!r}{hint}")
    extra = [k for k in have if k not in expected]
    if extra:
        m = re.match(r"model\.layers\.(\d+)\.", extra[0])
        hint = ""
        if re.search(r"\.self_attn\.(\w_proj\.bias|[qk]_norm\.)", extra[0]):
            hint = f" (config.json describes {c.ARCH}{_attention_parts(c)})"
        elif re.search(r"\.experts\.\d+\.", extra[0]):
            hint = f" (config.json says {_experts_field(c)}={c.n_experts}: experts 0–{c.n_experts - 1})"
        elif ".mlp." in extra[0] or "block_sparse_moe" in extra[0]:
            hint = f" (config.json describes {c.ARCH}, whose layers store {'experts' if c.n_experts else 'one MLP'})"
        elif m:
            hint = f" (config.json says num_hidden_layers={c.num_hidden_layers}: layers 0–{c.num_hidden_layers - 1})"
        elif extra[0] == "lm_head.weight":  # pragma: no cover - handled above
            hint = ""
        raise ModelFileError(f"{source}: unexpected tensor {extra[0]!r} that config.json does not describe{hint}")
    for name, shape in expected.items():
        if np.shape(have[name]) != shape:
            raise ModelFileError(
                f"{source}: tensor {name!r} has shape {list(np.shape(have[name]))}, but config.json implies "
                f"{list(shape)} = {_expected_shape_reason(name, c)}"
            )
    return expected, have


def _check_tensors(c: LlamaConfig, tensors: Mapping, source: str, *, dtype=np.float64) -> dict[str, np.ndarray]:
    """Match stored tensors against the names and shapes the config implies, and
    keep them read-only in ``dtype`` (float32 or float64) if every number is finite. An
    array already in ``dtype`` is kept as a view, not copied: a real model's float32
    weights take their own memory once."""
    expected, have = _match_names_and_shapes(c, tensors, source)
    out = {}
    for name in expected:
        arr = np.asarray(have[name])
        if not np.issubdtype(arr.dtype, np.floating):
            raise ModelFileError(f"{source}: tensor {name!r} has dtype {arr.dtype}; weights must be floating point")
        arr = arr.astype(dtype, copy=False).view()  # a view: the flag below never touches the caller's array
        if not np.isfinite(arr).all():  # the index is looked up only for the message
            bad = np.argwhere(~np.isfinite(arr))
            raise ModelFileError(f"{source}: tensor {name!r} holds a non-finite value at index "
                                 f"{tuple(int(i) for i in bad[0])}")
        arr.setflags(write=False)
        out[name] = arr
    return out
