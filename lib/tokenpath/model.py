"""Real model files: a Hugging Face-layout Llama (or Mixtral) directory, written, read and run.

A model directory is three kinds of file:

* ``config.json`` describes the skeleton: vocabulary size, width, number of layers,
  query and K/V heads, the SwiGLU width, RMSNorm's ε, the RoPE base, whether the
  output head is tied to the embedding. It holds no weights.
* ``model.safetensors`` (or several shards listed in ``model.safetensors.index.json``)
  holds the parameters under names such as ``model.layers.0.self_attn.q_proj.weight``:
  the projection matrices W_Q, W_K, W_V, never an input's Q, K, V, which are
  activations computed afresh for every input.
* ``tokenizer.json`` turns strings into IDs and back (Hugging Face's format; here the
  engine's byte-level BPE of :mod:`tokenpath.bpe`).

:func:`load` reads such a directory into a :class:`Model`; :meth:`Model.logits` runs
the forward pass, composed from the engine's own pieces and nothing else:
:func:`tokenpath.embedding.lookup`, one :func:`tokenpath.decoder.decoder_layer` per
layer (RMSNorm, RoPE with the ``rotate_half`` pairing, grouped-query causal attention,
SwiGLU, the residual adds), the final RMSNorm and the tied or untied head of
:mod:`tokenpath.embedding`; :meth:`Model.generate` is
:func:`tokenpath.embedding.generate`'s sampling loop run on it.

A Mixtral directory (``MixtralForCausalLM``, :class:`MixtralConfig`) is the same
skeleton with the dense SwiGLU of every layer replaced by a mixture of experts: a
router ``block_sparse_moe.gate.weight`` ``[E, d]`` and ``E`` SwiGLU experts
``block_sparse_moe.experts.{e}.w1/w3/w2`` (gate, up, down), of which each position
runs the ``num_experts_per_tok`` best-scored ones (:mod:`tokenpath.moe`, gates
renormalised over the chosen experts). Transformers 5 keeps the experts fused in
memory (``mlp.experts.gate_up_proj [E, 2·d_ff, d]``, ``mlp.experts.down_proj``,
``mlp.gate.weight``) but ``save_pretrained`` writes the per-expert names above;
:func:`load` reads both, :func:`save` writes the per-expert names. :func:`save` writes a directory that
``transformers`` opens; :func:`random_model` makes a tiny seeded one, since nothing
here is downloaded.

Hugging Face stores an ``nn.Linear`` weight as ``[d_out, d_in]``; the book computes
``y = x @ W`` with ``W [d_in, d_out]``, so every projection is transposed on the way
in (:meth:`Model.layer_weights`) and nowhere else.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import reprlib
import stat
from dataclasses import dataclass, fields
from pathlib import Path
from types import MappingProxyType
from typing import ClassVar, Iterator, Mapping

import numpy as np

from . import bpe, decoder, embedding, gqa, norms
from . import examples as ex
from ._checks import as_float, as_int
from .safetensors_format import (ModelFileError, SafetensorsHeader, as_path, check_float_dtypes, load_tensors,
                                 open_regular_file, read_header, read_json, save_tensors, short_repr)

__all__ = [
    "ARCHITECTURE",
    "CONFIG_NAME",
    "INDEX_NAME",
    "TOKENIZER_NAME",
    "WEIGHTS_NAME",
    "ForwardTrace",
    "GenerationTrace",
    "LlamaConfig",
    "MIXTRAL_ARCHITECTURE",
    "MixtralConfig",
    "Model",
    "ModelFileError",
    "ParameterCount",
    "count_parameters",
    "figure4_place",
    "list_files",
    "load",
    "random_model",
    "random_tensors",
    "read_config",
    "read_tokenizer",
    "save",
    "tiny_config",
    "tiny_model",
    "tiny_tokenizer",
    "tensor_shapes",
    "tokenizer_json",
    "write_tokenizer",
]

ARCHITECTURE = "LlamaForCausalLM"
MIXTRAL_ARCHITECTURE = "MixtralForCausalLM"
CONFIG_NAME = "config.json"
WEIGHTS_NAME = "model.safetensors"
INDEX_NAME = "model.safetensors.index.json"
TOKENIZER_NAME = "tokenizer.json"
TOKENIZER_CONFIG_NAME = "tokenizer_config.json"
#: The largest config.json (and tokenizer_config.json) read; real ones have a few kilobytes.
MAX_CONFIG_BYTES = 1 << 20
#: The largest other JSON file read (model.safetensors.index.json, tokenizer.json).
MAX_JSON_BYTES = 1 << 26
#: Integers in config.json are below this (the size of a 64-bit signed integer).
_MAX_CONFIG_INT = 2**63


# ---------------------------------------------------------------------- the config


@dataclass(frozen=True)
class LlamaConfig:
    """The fields of ``config.json`` that fix the shapes and the arithmetic.

    >>> c = LlamaConfig(vocab_size=1000, hidden_size=16, intermediate_size=32,
    ...                 num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2)
    >>> c.head_dim, c.group_size
    (4, 2)
    """

    ARCH: ClassVar[str] = ARCHITECTURE  # the class transformers builds from the file
    MODEL_TYPE: ClassVar[str] = "llama"

    vocab_size: int  # V: rows of the embedding, columns of the logits
    hidden_size: int  # d: width of the residual stream
    intermediate_size: int  # d_ff: width of the SwiGLU hidden layer
    num_hidden_layers: int  # L: decoder layers stacked
    num_attention_heads: int  # Hq: query heads
    num_key_value_heads: int  # Hkv: K/V heads shared by Hq/Hkv query heads each
    head_dim: int | None = None  # d_h; d / Hq when not given
    rms_norm_eps: float = 1e-6  # ε inside every RMSNorm
    rope_theta: float = 10000.0  # RoPE base
    tie_word_embeddings: bool = False  # W_out = Eᵀ (no lm_head.weight stored)
    max_position_embeddings: int = 2048
    bos_token_id: int | None = None
    eos_token_id: int | None = None

    def __post_init__(self):
        for f in ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers",
                  "num_attention_heads", "num_key_value_heads", "max_position_embeddings"):
            object.__setattr__(self, f, as_int(f, getattr(self, f), low=1))
        if self.head_dim is None:
            if self.hidden_size % self.num_attention_heads:
                raise ValueError(f"hidden_size={self.hidden_size} does not divide into num_attention_heads="
                                 f"{self.num_attention_heads}; give head_dim")
            object.__setattr__(self, "head_dim", self.hidden_size // self.num_attention_heads)
        object.__setattr__(self, "head_dim", as_int("head_dim", self.head_dim, low=2))
        if self.head_dim % 2:
            raise ValueError(f"head_dim must be even (RoPE turns features in pairs), got {self.head_dim}")
        gqa.group_size(self.num_attention_heads, self.num_key_value_heads)  # Hq % Hkv == 0
        object.__setattr__(self, "rms_norm_eps", as_float("rms_norm_eps", self.rms_norm_eps, low=0.0))
        theta = as_float("rope_theta", self.rope_theta)
        if theta <= 0:
            raise ValueError(f"rope_theta must be > 0, got {theta:g}")
        object.__setattr__(self, "rope_theta", theta)
        if not isinstance(self.tie_word_embeddings, bool):
            raise TypeError(f"tie_word_embeddings must be true or false, got {self.tie_word_embeddings!r}")
        for f in ("bos_token_id", "eos_token_id"):
            if getattr(self, f) is not None:
                object.__setattr__(self, f, as_int(f, getattr(self, f), low=0, high=self.vocab_size - 1))

    @property
    def group_size(self) -> int:
        """Query heads per K/V head, Hq / Hkv."""
        return self.num_attention_heads // self.num_key_value_heads

    @property
    def n_experts(self) -> int:
        """E, experts per layer; 0 for a dense (Llama) FFN."""
        return 0

    @classmethod
    def from_dict(cls, d: Mapping, *, source: str = CONFIG_NAME) -> "LlamaConfig":
        """Read the fields of a Hugging Face ``config.json`` dict, refusing anything this
        engine would compute differently (another architecture, biases, another
        activation, RoPE scaling). The RoPE base is read from
        ``rope_parameters["rope_theta"]`` (transformers 5) or ``rope_theta`` (earlier).

        >>> LlamaConfig.from_dict({"architectures": ["LlamaForCausalLM"], "vocab_size": 8,
        ...     "hidden_size": 4, "intermediate_size": 8, "num_hidden_layers": 1,
        ...     "num_attention_heads": 2, "rope_parameters": {"rope_theta": 500.0,
        ...     "rope_type": "default"}}).rope_theta
        500.0
        """
        if not isinstance(d, Mapping):
            raise ModelFileError(f"{source}: must hold a JSON object, got {type(d).__name__}")
        if not all(isinstance(k, str) for k in d):
            raise ModelFileError(f"{source}: must map field names (strings) to values")
        archs = d.get("architectures")
        model_type = d.get("model_type")
        if cls is LlamaConfig and (model_type == MixtralConfig.MODEL_TYPE or (
                isinstance(archs, list) and MIXTRAL_ARCHITECTURE in archs)):
            return MixtralConfig.from_dict(d, source=source)
        if archs is None and model_type is None:
            raise ModelFileError(f"{source}: names neither 'architectures' nor 'model_type'; "
                                 f"expected {cls.ARCH!r}")
        if archs is not None and (not isinstance(archs, list) or cls.ARCH not in archs):
            raise ModelFileError(f"{source}: architectures is {short_repr(archs)}; this engine runs only "
                                 f"{ARCHITECTURE!r} and {MIXTRAL_ARCHITECTURE!r}")
        if model_type is not None and model_type != cls.MODEL_TYPE:
            raise ModelFileError(f"{source}: model_type is {short_repr(model_type)}; this engine runs only 'llama' "
                                 "and 'mixtral'")
        if d.get("sliding_window") is not None:
            raise ModelFileError(f"{source}: sliding_window is {short_repr(d['sliding_window'])}; this engine's "
                                 "attention reads every earlier position (null)")
        act = d.get("hidden_act", "silu")
        if act != "silu":
            raise ModelFileError(f"{source}: hidden_act is {short_repr(act)}; Llama's SwiGLU gate uses 'silu'")
        for flag in ("attention_bias", "mlp_bias"):
            value = d.get(flag)
            if value is True:
                raise ModelFileError(f"{source}: {flag} is true; this engine's Llama has no bias vectors")
            if value not in (None, False) or not isinstance(value, (bool, type(None))):
                raise ModelFileError(f"{source}: {flag} must be true or false, got {short_repr(value)}")
        tp = d.get("pretraining_tp")
        if tp is not None and (type(tp) is not int or tp != 1):
            raise ModelFileError(f"{source}: pretraining_tp is {short_repr(tp)}; only 1 is supported")
        theta = _rope_theta(d, source, default=cls.rope_theta)
        kw = {f.name: d[f.name] for f in fields(cls) if f.name != "rope_theta" and d.get(f.name) is not None}
        required = ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads")
        for name in required:
            if name not in kw:
                raise ModelFileError(f"{source}: has no {name!r}")
        kw.setdefault("num_key_value_heads", kw["num_attention_heads"])
        eos = kw.get("eos_token_id")
        if isinstance(eos, list):  # several stop IDs: each must be an ID; keep the first
            for k, i in enumerate(eos):
                if isinstance(i, bool) or not isinstance(i, int):
                    raise ModelFileError(f"{source}: eos_token_id[{k}] must be an integer, got {short_repr(i)}")
            kw["eos_token_id"] = eos[0] if eos else None
        for name, value in kw.items():  # before any arithmetic: no 5000-digit or boolean sizes
            if isinstance(value, bool) and name != "tie_word_embeddings":
                raise ModelFileError(f"{source}: {name} must be a number, got {short_repr(value)}")
            if isinstance(value, int) and not -_MAX_CONFIG_INT < value < _MAX_CONFIG_INT:
                raise ModelFileError(f"{source}: {name} is {short_repr(value)}, beyond any size a model file holds "
                                     "(|value| < 2**63)")
        try:
            return cls(rope_theta=theta, **kw)
        except (TypeError, ValueError, OverflowError) as err:
            raise ModelFileError(f"{source}: {err}") from None

    def to_dict(self) -> dict:
        """The ``config.json`` that transformers 5 writes for this model (RoPE base under
        ``rope_parameters``).

        >>> LlamaConfig(8, 4, 8, 1, 2, 1).to_dict()["rope_parameters"]
        {'rope_theta': 10000.0, 'rope_type': 'default'}
        """
        return {
            "architectures": [self.ARCH],
            "model_type": self.MODEL_TYPE,
            "vocab_size": self.vocab_size,
            "hidden_size": self.hidden_size,
            "intermediate_size": self.intermediate_size,
            "num_hidden_layers": self.num_hidden_layers,
            "num_attention_heads": self.num_attention_heads,
            "num_key_value_heads": self.num_key_value_heads,
            "head_dim": self.head_dim,
            "hidden_act": "silu",
            "max_position_embeddings": self.max_position_embeddings,
            "rms_norm_eps": self.rms_norm_eps,
            "rope_parameters": {"rope_theta": self.rope_theta, "rope_type": "default"},
            "attention_bias": False,
            "attention_dropout": 0.0,
            "mlp_bias": False,
            "tie_word_embeddings": self.tie_word_embeddings,
            "bos_token_id": self.bos_token_id,
            "eos_token_id": self.eos_token_id,
            "dtype": "float32",
        }


@dataclass(frozen=True)
class MixtralConfig(LlamaConfig):
    """A Mixtral ``config.json``: the Llama skeleton plus a mixture of experts in every
    layer, ``num_local_experts`` SwiGLU experts of width ``intermediate_size`` of which
    each position runs ``num_experts_per_tok``. Defaults are transformers' where a file
    may leave a field out (ε = 1e-5, RoPE base 1e6, 8 experts, 2 per token).

    >>> c = MixtralConfig(1000, 16, 32, 2, 4, 2, num_local_experts=4, num_experts_per_tok=2)
    >>> c.n_experts, c.to_dict()["architectures"]
    (4, ['MixtralForCausalLM'])
    """

    ARCH: ClassVar[str] = MIXTRAL_ARCHITECTURE
    MODEL_TYPE: ClassVar[str] = "mixtral"

    rms_norm_eps: float = 1e-5
    rope_theta: float = 1e6
    num_local_experts: int = 8  # E: experts per layer
    num_experts_per_tok: int = 2  # k: experts each position runs

    def __post_init__(self):
        super().__post_init__()
        e = as_int("num_local_experts", self.num_local_experts, low=1)
        object.__setattr__(self, "num_local_experts", e)
        object.__setattr__(self, "num_experts_per_tok",
                           as_int("num_experts_per_tok", self.num_experts_per_tok, low=1, high=e))

    @property
    def n_experts(self) -> int:
        return self.num_local_experts

    def to_dict(self) -> dict:
        """The ``config.json`` transformers 5 writes for a ``MixtralForCausalLM``."""
        out = super().to_dict()
        for key in ("attention_bias", "mlp_bias"):
            del out[key]
        out.update(num_local_experts=self.num_local_experts, num_experts_per_tok=self.num_experts_per_tok,
                   output_router_logits=False, router_aux_loss_coef=0.001, router_jitter_noise=0.0,
                   sliding_window=None)
        return out


def _rope_theta(d: Mapping, source: str, default: float = 10000.0) -> float:
    """The RoPE base from either place transformers has kept it."""
    params = d.get("rope_parameters")
    scaling = d.get("rope_scaling")
    for name, block in (("rope_parameters", params), ("rope_scaling", scaling)):
        if block is None:
            continue
        if not isinstance(block, Mapping):
            raise ModelFileError(f"{source}: {name} must be an object, got {short_repr(block)}")
        kind = block.get("rope_type", block.get("type", "default"))
        if kind != "default":
            raise ModelFileError(f"{source}: {name} asks for RoPE scaling {short_repr(kind)}; this engine computes "
                                 "plain RoPE ('default') only")
    nested = params.get("rope_theta") if params else None
    top = d.get("rope_theta")
    for value in (nested, top):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ModelFileError(f"{source}: rope_theta must be a number, got {short_repr(value)}")
        if isinstance(value, int) and not -_MAX_CONFIG_INT < value < _MAX_CONFIG_INT:
            raise ModelFileError(f"{source}: rope_theta is {short_repr(value)}, too large for a RoPE base")
    if nested is not None and top is not None and float(nested) != float(top):
        raise ModelFileError(f"{source}: rope_theta={top} and rope_parameters.rope_theta={nested} disagree")
    value = nested if nested is not None else top
    if value is None:
        return default
    return float(value)


def _read_json(path: Path, missing: str = "", *, max_bytes: int = MAX_JSON_BYTES):
    """The JSON value in ``path``, or a :class:`ModelFileError` naming the file:
    missing, not a regular file (a directory, a pipe, a device, a dangling or looping
    link), larger than ``max_bytes``, not UTF-8 JSON, nested too deep, holding NaN or a
    number of thousands of digits (see :func:`tokenpath.safetensors_format.read_json`)."""
    path = Path(path)
    if not os.path.lexists(path):
        raise ModelFileError(f"{path}: no such file{missing}")
    return read_json(path, max_bytes=max_bytes, what=path.name)


def read_config(path) -> LlamaConfig:
    """Parse a ``config.json`` file (see :meth:`LlamaConfig.from_dict`): a
    :class:`LlamaConfig`, or a :class:`MixtralConfig` for a Mixtral file."""
    path = as_path("path", path)
    d = _read_json(path, f"; a model directory needs {CONFIG_NAME}", max_bytes=MAX_CONFIG_BYTES)
    return LlamaConfig.from_dict(d, source=str(path))


# ----------------------------------------------------------- names, shapes, counts


def _layer_shapes(c: LlamaConfig, i: int) -> Iterator[tuple[str, tuple[int, ...]]]:
    d, ff, q, kv = c.hidden_size, c.intermediate_size, c.num_attention_heads * c.head_dim, \
        c.num_key_value_heads * c.head_dim
    p = f"model.layers.{i}."
    yield p + "input_layernorm.weight", (d,)
    yield p + "self_attn.q_proj.weight", (q, d)
    yield p + "self_attn.k_proj.weight", (kv, d)
    yield p + "self_attn.v_proj.weight", (kv, d)
    yield p + "self_attn.o_proj.weight", (d, q)
    yield p + "post_attention_layernorm.weight", (d,)
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


#: Where each stored tensor sits in figure 4's layer diagram (name suffix → place).
_PLACES = {
    "model.embed_tokens.weight": "E [V, d]: lookup table, IDs → rows X",
    "input_layernorm.weight": "γ of the RMSNorm before attention: Norm(X)",
    "self_attn.q_proj.weight": "W_Q: queries Q = Norm(X) W_Q, then RoPE",
    "self_attn.k_proj.weight": "W_K: keys K = Norm(X) W_K, then RoPE",
    "self_attn.v_proj.weight": "W_V: values = Norm(X) W_V (no RoPE)",
    "self_attn.o_proj.weight": "W_O: heads merged back to d; Y = X + this",
    "post_attention_layernorm.weight": "γ of the RMSNorm before the FFN: Norm(Y)",
    "mlp.gate_proj.weight": "W_gate: SwiGLU gate, SiLU(Norm(Y) W_gate)",
    "mlp.up_proj.weight": "W_up: SwiGLU content, Norm(Y) W_up",
    "mlp.down_proj.weight": "W_down: back to d; X' = Y + this",
    "block_sparse_moe.gate.weight": "W_r: router scores Norm(Y) W_r, one per expert",
    "w1.weight": "W_gate of the expert: SiLU(Norm(Y) W_gate)",
    "w3.weight": "W_up of the expert: Norm(Y) W_up",
    "w2.weight": "W_down of the expert; X' = Y + Σ gate · this",
    "model.norm.weight": "γ of the final RMSNorm after the last layer",
    "lm_head.weight": "W_outᵀ [V, d]: hidden state → logits",
}


def figure4_place(name: str) -> str:
    """The place of a stored tensor in figure 4's pre-norm layer.

    >>> figure4_place("model.layers.1.self_attn.k_proj.weight")
    'layer 1: W_K: keys K = Norm(X) W_K, then RoPE'
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a tensor name (str), got {type(name).__name__}")
    if name in _PLACES:
        return _PLACES[name]
    m = re.fullmatch(r"model\.layers\.(\d+)\.(.+)", name)
    if m and m.group(2) in _PLACES:
        return f"layer {m.group(1)}: {_PLACES[m.group(2)]}"
    m = re.fullmatch(r"model\.layers\.(\d+)\.block_sparse_moe\.experts\.(\d+)\.(w[123]\.weight)", name)
    if m:
        return f"layer {m.group(1)}, expert {m.group(2)}: {_PLACES[m.group(3)]}"
    raise ValueError(f"name {name!r} is not a Llama tensor name")


@dataclass(frozen=True)
class ParameterCount:
    """Parameters implied by a config, by part; ``head`` is 0 when tied. With experts,
    ``mlp`` counts all ``E`` experts of a layer (stored) and ``active_mlp`` the ``k``
    a position runs; ``router`` is the router's ``d·E`` (always run)."""

    embedding: int  # V·d
    attention: int  # per layer: d·Hq·d_h (W_Q) + 2·d·Hkv·d_h (W_K, W_V) + Hq·d_h·d (W_O)
    mlp: int  # per layer: 3·d·d_ff, times E with experts
    norms: int  # per layer: 2·d (two RMSNorm weights)
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
    moe = {}
    if c.n_experts:
        moe = dict(router=d * c.n_experts, active_mlp=expert * c.num_experts_per_tok)
    return ParameterCount(
        embedding=c.vocab_size * d,
        attention=d * q + 2 * d * kv + q * d,
        mlp=expert * max(c.n_experts, 1),
        norms=2 * d,
        layers=c.num_hidden_layers,
        final_norm=d,
        head=0 if c.tie_word_embeddings else c.vocab_size * d,
        **moe,
    )


# -------------------------------------------------------------------- the model


@dataclass(frozen=True)
class ForwardTrace:
    """One forward pass of one sequence, every step kept."""

    ids: np.ndarray  # [T] input IDs
    x: np.ndarray  # [T, d] rows of E looked up
    layers: tuple[decoder.LayerTrace, ...]  # one per decoder layer, batch of one: [1, …]
    final: np.ndarray  # [T, d] final RMSNorm of the last layer's output
    logits: np.ndarray  # [T, V] final @ W_out: row t scores the ID after position t

    def shape_table(self) -> list[tuple[str, tuple[int, ...]]]:
        """(step, shape) in computation order, one block per layer.

        >>> m = random_model(LlamaConfig(10, 8, 16, 1, 4, 2), seed=0)
        >>> m.forward([1, 2, 3]).shape_table()[:3]
        [('ids', (3,)), ('embed_tokens → X', (3, 8)), ('layer 0 attn_in', (1, 3, 8))]
        """
        rows = [("ids", self.ids.shape), ("embed_tokens → X", self.x.shape)]
        for i, layer in enumerate(self.layers):
            rows += [(f"layer {i} {name}", shape) for name, shape in layer.shapes().items() if name != "x"]
        rows += [("final norm", self.final.shape), ("logits", self.logits.shape)]
        return rows


@dataclass(frozen=True)
class GenerationTrace:
    """The sampling loop run on a model: the prompt, every sampled ID, the text."""

    prompt: np.ndarray  # [T0] prompt IDs
    sampled: np.ndarray  # [steps] IDs drawn one at a time, each fed back in
    probs: np.ndarray  # [steps, V] distribution each draw came from
    text: str | None  # prompt + sampled decoded (U+FFFD for broken bytes), if a tokenizer is known

    @property
    def ids(self) -> np.ndarray:
        return np.concatenate([self.prompt, self.sampled])


class Model:
    """A Llama or Mixtral model held as the tensors of its files, with its config and tokenizer.

    ``tensors`` maps Hugging Face names to arrays in the stored ``[d_out, d_in]`` layout;
    they are checked against ``config`` (every name present, every shape right,
    nothing extra) and kept as read-only float64. ``dtypes`` records each tensor's
    dtype in the file.
    """

    def __init__(self, config: LlamaConfig, tensors: Mapping[str, np.ndarray], tokenizer: bpe.Tokenizer | None = None,
                 *, dtypes: Mapping[str, str] | None = None, source: str = "tensors"):
        if not isinstance(config, LlamaConfig):
            raise TypeError(f"config must be a LlamaConfig, got {type(config).__name__}")
        if tokenizer is not None and not isinstance(tokenizer, bpe.Tokenizer):
            raise TypeError(f"tokenizer must be a tokenpath.bpe.Tokenizer or None, got {type(tokenizer).__name__}")
        if dtypes is not None and (not isinstance(dtypes, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in dtypes.items())):
            raise TypeError(f"dtypes must be a mapping of tensor name -> dtype name (str -> str), got "
                            f"{short_repr(dtypes)}")
        self.config = config
        self.tensors = MappingProxyType(_check_tensors(config, tensors, source))
        self.dtypes = MappingProxyType({k: _stored_dtype(k, dtypes or {}) for k in self.tensors})
        if tokenizer is not None and tokenizer.n_vocab > config.vocab_size:
            raise ModelFileError(f"{TOKENIZER_NAME}: the tokenizer has {tokenizer.n_vocab} IDs but config vocab_size "
                                 f"is {config.vocab_size}; IDs >= {config.vocab_size} would have no embedding row")
        self.tokenizer = tokenizer
        self._layers: dict[int, decoder.LayerWeights] = {}  # built once each: the tensors are read-only

    def __repr__(self) -> str:
        c = self.config
        experts = f", experts={c.n_experts}, k={c.num_experts_per_tok}" if c.n_experts else ""
        return (f"Model(V={c.vocab_size}, d={c.hidden_size}, L={c.num_hidden_layers}, Hq={c.num_attention_heads}, "
                f"Hkv={c.num_key_value_heads}, d_ff={c.intermediate_size}{experts}, tied={c.tie_word_embeddings})")

    # ---------------------------------------------------------------- parameters

    @property
    def embedding(self) -> np.ndarray:
        """E [V, d]."""
        return self.tensors["model.embed_tokens.weight"]

    @property
    def w_out(self) -> np.ndarray:
        """The output projection [d, V]: Eᵀ when tied, else lm_head.weightᵀ."""
        if self.config.tie_word_embeddings:
            return embedding.tied_head(self.embedding)
        return self.tensors["lm_head.weight"].T

    def layer_weights(self, i: int) -> decoder.LayerWeights:
        """Layer ``i``'s parameters as a :class:`tokenpath.decoder.LayerWeights`,
        transposed to the book's ``x @ W`` convention (the one place that transposes).
        Built and checked once per layer, then reused: every tensor is read-only.

        >>> m = random_model(LlamaConfig(10, 8, 16, 2, 4, 2), seed=0)
        >>> m.layer_weights(1) is m.layer_weights(1), m.layer_weights(1).w_q.shape
        (True, (8, 8))
        """
        i = as_int("i", i, low=0, high=self.config.num_hidden_layers - 1)
        if i not in self._layers:
            self._layers[i] = self._build_layer_weights(i)
        return self._layers[i]

    def _build_layer_weights(self, i: int) -> decoder.LayerWeights:
        c, t, p = self.config, self.tensors, f"model.layers.{i}."
        if c.n_experts:
            def experts(w):  # [E, d_out, d_in] in expert order
                return np.stack([t[p + f"block_sparse_moe.experts.{e}.{w}.weight"] for e in range(c.n_experts)])

            ffn = dict(gate_proj=experts("w1"), up_proj=experts("w3"), down_proj=experts("w2"),
                       router=t[p + "block_sparse_moe.gate.weight"], experts_per_token=c.num_experts_per_tok)
        else:
            ffn = dict(gate_proj=t[p + "mlp.gate_proj.weight"], up_proj=t[p + "mlp.up_proj.weight"],
                       down_proj=t[p + "mlp.down_proj.weight"])
        return decoder.LayerWeights.from_linear(
            attn_norm=t[p + "input_layernorm.weight"], q_proj=t[p + "self_attn.q_proj.weight"],
            k_proj=t[p + "self_attn.k_proj.weight"], v_proj=t[p + "self_attn.v_proj.weight"],
            o_proj=t[p + "self_attn.o_proj.weight"], ffn_norm=t[p + "post_attention_layernorm.weight"],
            heads=c.num_attention_heads, kv_heads=c.num_key_value_heads, rope_base=c.rope_theta,
            eps=c.rms_norm_eps, **ffn,
        )

    @property
    def parameter_count(self) -> int:
        """Numbers stored, each tensor counted once (a tied head adds none)."""
        return int(sum(a.size for a in self.tensors.values()))

    def tensor_table(self) -> list[tuple[str, tuple[int, ...], str, str]]:
        """(name, shape, dtype, place in figure 4) of every tensor, in forward order."""
        return [(n, self.tensors[n].shape, self.dtypes.get(n, "F64"), figure4_place(n)) for n in self.tensors]

    # ---------------------------------------------------------------- running

    def _ids(self, ids) -> np.ndarray:
        ids = embedding.check_ids(ids, self.config.vocab_size)
        if ids.ndim != 1 or ids.size < 1:
            raise ValueError(f"ids must be a non-empty 1-D sequence [T], got shape {list(ids.shape)}")
        return ids

    def forward(self, ids) -> ForwardTrace:
        """Run the whole model on one sequence ``ids [T]`` and keep every step.

        >>> m = random_model(LlamaConfig(10, 8, 16, 2, 4, 2), seed=0)
        >>> tr = m.forward([3, 7, 3, 2]); len(tr.layers), tr.logits.shape
        (2, (4, 10))
        """
        ids = self._ids(ids)
        c = self.config
        x = embedding.lookup(self.embedding, ids)  # [T, d]
        layers, h = [], x[None]  # a batch of one sequence: [1, T, d]
        for i in range(c.num_hidden_layers):
            layers.append(decoder.decoder_layer(h, self.layer_weights(i)))
            h = layers[-1].out
        final = norms.rms_norm(h[0], self.tensors["model.norm.weight"], eps=c.rms_norm_eps)
        z = embedding.logits(final, self.w_out)  # [T, V]
        return ForwardTrace(ids=ids, x=x, layers=tuple(layers), final=final, logits=z)

    def logits(self, ids) -> np.ndarray:
        """Logits ``[T, V]`` for a 1-D sequence of IDs (row t scores the next ID).

        >>> random_model(LlamaConfig(10, 8, 16, 1, 4, 2), seed=0).logits([1, 2]).shape
        (2, 10)
        """
        return self.forward(ids).logits

    def encode(self, text: str) -> np.ndarray:
        """IDs of ``text`` with the model's tokenizer (special tokens as ordinary text)."""
        if self.tokenizer is None:
            raise ValueError("this model has no tokenizer; load a directory with tokenizer.json or pass one")
        return np.array(self.tokenizer.encode(text, disallowed_special=()), dtype=np.int64)

    def generate(self, prompt, steps: int, *, seed: int = 0, temperature: float = 1.0,
                 top_k: int | None = None) -> GenerationTrace:
        """The sampling loop: run the model on the prefix, turn the last row of logits
        into a distribution, draw one ID (seeded), append it, repeat. ``prompt`` is a
        string (encoded with the tokenizer) or a sequence of IDs.

        >>> m = random_model(LlamaConfig(10, 8, 16, 1, 4, 2), seed=0)
        >>> g = m.generate([3, 7], 3, seed=0); g.ids.size
        5
        """
        ids = self.encode(prompt) if isinstance(prompt, str) else self._ids(prompt)
        loop = embedding.generate(ids, steps, logits_fn=self.logits, seed=seed, temperature=temperature, top_k=top_k)
        prompt_ids = ids
        ids = np.append(prompt_ids, [s.sampled for s in loop])
        text = None
        if self.tokenizer is not None:
            known = [int(i) for i in ids if i < self.tokenizer.n_vocab]
            text = self.tokenizer.decode(known, errors="replace")
        return GenerationTrace(prompt_ids, ids[prompt_ids.size:], np.array([s.probs for s in loop]), text)


_IGNORED = re.compile(r"model\.layers\.\d+\.self_attn\.rotary_emb\.inv_freq")


def _expected_shape_reason(name: str, c: LlamaConfig) -> str:
    d, ff = "hidden_size", "intermediate_size"
    q, kv = "num_attention_heads·head_dim", "num_key_value_heads·head_dim"
    table = {"embed_tokens": ("vocab_size", d), "lm_head": ("vocab_size", d), "norm": (d,),
             "layernorm": (d,), "q_proj": (q, d), "k_proj": (kv, d), "v_proj": (kv, d),
             "o_proj": (d, q), "gate_proj": (ff, d), "up_proj": (ff, d), "down_proj": (d, ff),
             "moe.gate": ("num_local_experts", d), "w1": (ff, d), "w3": (ff, d), "w2": (d, ff)}
    for key, why in table.items():
        if key in name:
            return "[" + ", ".join(why) + "]"
    return "the config"  # pragma: no cover


_FUSED = re.compile(r"model\.layers\.(\d+)\.mlp\.(gate\.weight|experts\.gate_up_proj|experts\.down_proj)")


def _unfuse_experts(c: LlamaConfig, tensors: Mapping, source: str) -> dict:
    """Transformers 5's in-memory Mixtral names, with the experts fused
    (``mlp.gate.weight [E, d]``, ``mlp.experts.gate_up_proj [E, 2·d_ff, d]`` gate rows
    first, ``mlp.experts.down_proj [E, d, d_ff]``), split into the per-expert names
    ``save_pretrained`` writes. Other names pass through unchanged.

    >>> c = MixtralConfig(10, 4, 6, 1, 2, 1, num_local_experts=2, num_experts_per_tok=1)
    >>> t = _unfuse_experts(c, {"model.layers.0.mlp.experts.gate_up_proj": np.zeros((2, 12, 4))}, "f")
    >>> sorted(t)[:2], t["model.layers.0.block_sparse_moe.experts.1.w3.weight"].shape
    (['model.layers.0.block_sparse_moe.experts.0.w1.weight', 'model.layers.0.block_sparse_moe.experts.0.w3.weight'], (6, 4))
    """
    out = {}
    for name, value in tensors.items():
        m = _FUSED.fullmatch(name)
        if m is None or not c.n_experts:
            out[name] = value
            continue
        p, kind, arr = f"model.layers.{m.group(1)}.block_sparse_moe.", m.group(2), np.asarray(value)
        if kind == "gate.weight":
            out[p + "gate.weight"] = arr
            continue
        if arr.ndim != 3 or arr.shape[0] != c.n_experts:
            raise ModelFileError(f"{source}: tensor {name!r} has shape {list(arr.shape)}, but config.json says "
                                 f"num_local_experts={c.n_experts}: expected [{c.n_experts}, ·, ·], one block per expert")
        ff = c.intermediate_size
        for e in range(c.n_experts):
            if kind == "experts.down_proj":
                out[p + f"experts.{e}.w2.weight"] = arr[e]
            elif arr.shape[1] != 2 * ff:
                raise ModelFileError(f"{source}: tensor {name!r} has shape {list(arr.shape)}, but config.json "
                                     f"implies [{c.n_experts}, {2 * ff}, {c.hidden_size}] = "
                                     "[num_local_experts, 2·intermediate_size, hidden_size]")
            else:
                out[p + f"experts.{e}.w1.weight"], out[p + f"experts.{e}.w3.weight"] = arr[e, :ff], arr[e, ff:]
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
            elif name.endswith("block_sparse_moe.gate.weight"):
                hint = (f" (config.json describes a Mixtral with num_local_experts={c.n_experts}: every layer "
                        "needs its router)")
            elif ".experts." in name:
                hint = f" (config.json says num_local_experts={c.n_experts})"
            elif name.startswith("model.layers."):
                hint = f" (config.json says num_hidden_layers={c.num_hidden_layers})"
            raise ModelFileError(f"{source}: missing tensor {name!r}{hint}")
    extra = [k for k in have if k not in expected]
    if extra:
        m = re.match(r"model\.layers\.(\d+)\.", extra[0])
        hint = ""
        if re.search(r"\.experts\.\d+\.", extra[0]):
            hint = f" (config.json says num_local_experts={c.n_experts}: experts 0–{c.n_experts - 1})"
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


def _check_tensors(c: LlamaConfig, tensors: Mapping, source: str) -> dict[str, np.ndarray]:
    """Match stored tensors against the names and shapes the config implies, and
    keep them as read-only float64 if every number is finite."""
    expected, have = _match_names_and_shapes(c, tensors, source)
    out = {}
    for name in expected:
        arr = np.asarray(have[name])
        if not np.issubdtype(arr.dtype, np.floating):
            raise ModelFileError(f"{source}: tensor {name!r} has dtype {arr.dtype}; weights must be floating point")
        arr = arr.astype(np.float64)
        bad = np.argwhere(~np.isfinite(arr))
        if bad.size:
            raise ModelFileError(f"{source}: tensor {name!r} holds a non-finite value at index "
                                 f"{tuple(int(i) for i in bad[0])}")
        arr.setflags(write=False)
        out[name] = arr
    return out


# ------------------------------------------------------------ random checkpoints


def random_tensors(config: LlamaConfig, *, seed: int) -> dict[str, np.ndarray]:
    """Seeded random float32 tensors for every name the config implies: an untrained
    model, good for shapes, file formats and cross-checks, not for meaning.

    Projections are normal with standard deviation ``1/√d_in``; the embedding is
    normal with standard deviation 1; every RMSNorm weight is ``1 + 0.2·normal`` so a
    norm that ignores its weight shows.

    >>> t = random_tensors(LlamaConfig(10, 8, 16, 1, 4, 2), seed=0)
    >>> t["model.layers.0.self_attn.k_proj.weight"].shape, t["model.norm.weight"].dtype
    ((4, 8), dtype('float32'))
    """
    seed = as_int("seed", seed, low=0)
    rng = np.random.default_rng(seed)
    out = {}
    for name, shape in tensor_shapes(config).items():
        if len(shape) == 1:
            a = 1.0 + 0.2 * rng.standard_normal(shape)
        elif "embed_tokens" in name or name == "lm_head.weight":
            a = rng.standard_normal(shape)
        else:
            a = rng.standard_normal(shape) / math.sqrt(shape[1])
        out[name] = a.astype(np.float32)
    return out


def random_model(config: LlamaConfig, *, seed: int, tokenizer: bpe.Tokenizer | None = None) -> Model:
    """A :class:`Model` of seeded random float32 weights (see :func:`random_tensors`).

    >>> random_model(LlamaConfig(10, 8, 16, 1, 4, 2, tie_word_embeddings=True), seed=0).parameter_count
    680
    """
    tensors = random_tensors(config, seed=seed)
    return Model(config, tensors, tokenizer, dtypes={k: "F32" for k in tensors}, source=f"random_model(seed={seed})")


def tiny_tokenizer() -> bpe.Tokenizer:
    """The chapter's tokenizer: byte-level BPE trained on
    :data:`~tokenpath.examples.MODEL_CORPUS` (HF's tie rule), with the EOS marker.

    >>> tiny_tokenizer().n_vocab
    385
    """
    tok = bpe.train(ex.MODEL_CORPUS, ex.MODEL_BPE_VOCAB, min_frequency=2, tie_break="hf")
    return tok.with_special_tokens([ex.MODEL_EOS_TOKEN])


def tiny_config(*, tied: bool = False, vocab_size: int | None = None, mixtral: bool = False) -> LlamaConfig:
    """The chapter's skeleton: V = the tokenizer's IDs, d=16, 2 layers, 4 query heads
    over 2 K/V heads, d_ff=32; the head tied to E or not. ``mixtral=True`` gives the
    same skeleton as a :class:`MixtralConfig` with 4 experts per layer, 2 per token.

    >>> c = tiny_config(); c.vocab_size, c.head_dim, c.eos_token_id
    (385, 4, 384)
    >>> tiny_config(mixtral=True).n_experts
    4
    """
    _check_flags(tied=tied, mixtral=mixtral)
    if vocab_size is None:
        vocab_size = tiny_tokenizer().n_vocab
    vocab_size = as_int("vocab_size", vocab_size, low=1)
    kw = dict(
        vocab_size=vocab_size, hidden_size=ex.MODEL_HIDDEN, intermediate_size=ex.MODEL_FF,
        num_hidden_layers=ex.MODEL_LAYERS, num_attention_heads=ex.MODEL_HEADS,
        num_key_value_heads=ex.MODEL_KV_HEADS, rms_norm_eps=ex.MODEL_NORM_EPS,
        rope_theta=ex.MODEL_ROPE_THETA, tie_word_embeddings=tied,
        eos_token_id=vocab_size - 1, bos_token_id=None,
    )
    if mixtral:
        return MixtralConfig(num_local_experts=ex.MODEL_EXPERTS, num_experts_per_tok=ex.MODEL_EXPERTS_PER_TOKEN, **kw)
    return LlamaConfig(**kw)


def _check_flags(**flags) -> None:
    for name, value in flags.items():
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be True or False, got {type(value).__name__}")


def tiny_model(*, tied: bool = False, seed: int = ex.MODEL_SEED, mixtral: bool = False) -> Model:
    """The chapter's tiny random Llama (or, with ``mixtral=True``, Mixtral) with its
    tokenizer, ready for :func:`save`.

    >>> tiny_model().parameter_count, tiny_model(tied=True).parameter_count
    (17008, 10848)
    """
    _check_flags(tied=tied, mixtral=mixtral)
    seed = as_int("seed", seed, low=0)
    tok = tiny_tokenizer()
    return random_model(tiny_config(tied=tied, vocab_size=tok.n_vocab, mixtral=mixtral), seed=seed, tokenizer=tok)


# -------------------------------------------------------------- tokenizer.json


def _token_text(data: bytes) -> str:
    chars = bpe.bytes_to_unicode()
    return "".join(chars[b] for b in data)


def _template_json(tokenizer: bpe.Tokenizer) -> dict | None:
    """The tokenizer's template as Hugging Face's ``TemplateProcessing`` (type ID 0 for
    the single sequence; the pair form repeats it around ``$B`` with type ID 1, as
    ``transformers`` writes Llama's)."""
    if tokenizer.template is None:
        return None

    def piece(p: str, seq: str, type_id: int) -> dict:
        if p == bpe.TEMPLATE_TEXT:
            return {"Sequence": {"id": seq, "type_id": type_id}}
        return {"SpecialToken": {"id": p, "type_id": type_id}}

    used = [p for p in dict.fromkeys(tokenizer.template) if p != bpe.TEMPLATE_TEXT]
    return {
        "type": "TemplateProcessing",
        "single": [piece(p, "A", 0) for p in tokenizer.template],
        "pair": [piece(p, "A", 0) for p in tokenizer.template] + [piece(p, "B", 1) for p in tokenizer.template],
        "special_tokens": {p: {"id": p, "ids": [tokenizer.special_tokens[p]], "tokens": [p]} for p in used},
    }


def tokenizer_json(tokenizer: bpe.Tokenizer) -> dict:
    """The engine's byte-level BPE as a Hugging Face ``tokenizer.json`` dict: GPT-2
    pre-tokenisation (``ByteLevel``), the engine's IDs (bytes 0–255, then one per
    merge in rank order), the merges in rank order, special tokens as added tokens,
    and the tokenizer's template, if any, as a ``TemplateProcessing`` post-processor.

    >>> d = tokenizer_json(bpe.Tokenizer([(b" ", b"a")]).with_special_tokens(["<|end|>"]))
    >>> d["model"]["merges"], d["model"]["vocab"]["Ġa"], d["added_tokens"][0]["id"], d["post_processor"]
    ([['Ġ', 'a']], 256, 257, None)
    >>> d = tokenizer_json(bpe.Tokenizer([], ["<s>"], template=("<s>", "$A")))
    >>> d["post_processor"]["single"], d["post_processor"]["special_tokens"]["<s>"]["ids"]
    ([{'SpecialToken': {'id': '<s>', 'type_id': 0}}, {'Sequence': {'id': 'A', 'type_id': 0}}], [256])
    """
    if not isinstance(tokenizer, bpe.Tokenizer):
        raise TypeError(f"tokenizer must be a tokenpath.bpe.Tokenizer, got {type(tokenizer).__name__}")
    if tokenizer.pattern != bpe.GPT2_PATTERN:
        raise ValueError("tokenizer must use the GPT-2 pattern: Hugging Face's ByteLevel pre-tokenizer has no other")
    vocab = {_token_text(data): i for i, data in sorted(tokenizer.vocab.items())}
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
            for s, i in tokenizer.special_tokens.items()
        ],
        "normalizer": None,
        "pre_tokenizer": byte_level,
        "post_processor": _template_json(tokenizer),
        "decoder": dict(byte_level),
        "model": {
            "type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
            "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
            "vocab": vocab,
            "merges": [[_token_text(a), _token_text(b)] for a, b in tokenizer.merges],
        },
    }


def write_tokenizer(directory, tokenizer: bpe.Tokenizer, *, eos_token: str | None = None) -> Path:
    """Write ``tokenizer.json`` (and a small ``tokenizer_config.json`` so
    ``transformers.AutoTokenizer`` takes it as it is) into ``directory``.

    >>> import tempfile
    >>> tok = bpe.Tokenizer([(b"h", b"i")], ["<s>"], template=("<s>", "$A"))
    >>> back = read_tokenizer(write_tokenizer(tempfile.mkdtemp(), tok))
    >>> back.template, back.encode("hi"), back.merges == tok.merges
    (('<s>', '$A'), [257, 256], True)
    """
    if not isinstance(tokenizer, bpe.Tokenizer):
        raise TypeError(f"tokenizer must be a tokenpath.bpe.Tokenizer, got {type(tokenizer).__name__}")
    if eos_token is not None and (not isinstance(eos_token, str) or eos_token not in tokenizer.special_tokens):
        raise ValueError(f"eos_token {eos_token!r} is not a special token of this tokenizer "
                         f"(registered: {list(tokenizer.special_tokens)})")
    data = json.dumps(tokenizer_json(tokenizer), ensure_ascii=False, indent=1) + "\n"
    directory = _writable_directory(directory)
    path = directory / TOKENIZER_NAME
    path.write_text(data, encoding="utf-8")
    cfg = {"tokenizer_class": "PreTrainedTokenizerFast", "add_bos_token": False, "add_eos_token": False,
           "clean_up_tokenization_spaces": False, "model_max_length": 1 << 20}
    if eos_token is not None:
        cfg["eos_token"] = eos_token
    (directory / TOKENIZER_CONFIG_NAME).write_text(json.dumps(cfg, indent=1) + "\n", encoding="utf-8")
    return path


#: The largest ``tokenizer.json`` :func:`read_tokenizer` reads (real byte-level BPE
#: files are a few MiB: GPT-2's 1.4 MiB, Llama 3's 8.7 MiB).
TOKENIZER_MAX_BYTES = 32 << 20
#: … and the most JSON arrays and objects it may hold (Llama 3's file has about 280,000).
TOKENIZER_MAX_CONTAINERS = 2_000_000
_MAX_INT_DIGITS = 20
#: How much work (the sum of squared token lengths) checking ``ignore_merges`` may take.
_IGNORE_MERGES_WORK = 20_000_000


class _Refused(Exception):
    """A value the tokenizer-file parser refuses (turned into a ModelFileError)."""


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > _MAX_INT_DIGITS:
        raise _Refused(f"holds an integer of {len(text.lstrip('-'))} digits")
    return int(text)


def _json_constant(name: str):
    raise _Refused(f"holds {name}, which is not JSON")


def _json_object(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise _Refused(f"repeats the key {_short(key)} in one object")
        out[key] = value
    return out


_SHORT = reprlib.Repr()
_SHORT.maxstring, _SHORT.maxother, _SHORT.maxlevel = 60, 60, 3


def _short(value) -> str:
    """A bounded repr for messages (long, huge or deeply nested values are elided)."""
    return _SHORT.repr(value)


def _read_tokenizer_file(path: Path) -> dict:
    """The JSON object in ``path``, read with bounded size, nesting and numbers."""
    try:
        st = os.stat(path)
    except OSError as err:
        raise ModelFileError(f"{path}: cannot be read ({err.strerror or err})") from None
    if not stat.S_ISREG(st.st_mode):
        raise ModelFileError(f"{path}: is not a regular file")
    if st.st_size > TOKENIZER_MAX_BYTES:
        raise ModelFileError(f"{path}: is {st.st_size} bytes; a tokenizer.json of more than "
                             f"{TOKENIZER_MAX_BYTES} bytes is refused")
    try:
        with open(path, "rb") as f:
            raw = f.read(TOKENIZER_MAX_BYTES + 1)
    except OSError as err:
        raise ModelFileError(f"{path}: cannot be read ({err.strerror or err})") from None
    if len(raw) > TOKENIZER_MAX_BYTES:
        raise ModelFileError(f"{path}: holds more than {TOKENIZER_MAX_BYTES} bytes; refused")
    if raw.count(b"[") + raw.count(b"{") > TOKENIZER_MAX_CONTAINERS:
        raise ModelFileError(f"{path}: holds more than {TOKENIZER_MAX_CONTAINERS} JSON arrays and objects; refused")
    try:
        text = raw.decode("utf-8")
        d = json.loads(text, parse_int=_json_int, parse_constant=_json_constant, object_pairs_hook=_json_object)
    except UnicodeDecodeError as err:
        raise ModelFileError(f"{path}: is not UTF-8 text ({err.reason} at byte {err.start})") from None
    except json.JSONDecodeError as err:
        raise ModelFileError(f"{path}: not valid JSON ({err})") from None
    except RecursionError:
        raise ModelFileError(f"{path}: nests JSON arrays or objects too deeply") from None
    except _Refused as err:
        raise ModelFileError(f"{path}: {err}; refused") from None
    if not isinstance(d, dict):
        raise ModelFileError(f"{path}: holds a JSON {type(d).__name__}, not an object")
    return d


#: The fields of ``tokenizer.json`` the reader knows, and those of its ``model``.
_TOKENIZER_FIELDS = ("version", "truncation", "padding", "added_tokens", "normalizer", "pre_tokenizer",
                     "post_processor", "decoder", "model")
_BPE_FIELDS = ("type", "dropout", "unk_token", "continuing_subword_prefix", "end_of_word_suffix", "fuse_unk",
               "byte_fallback", "ignore_merges", "vocab", "merges")
_BYTE_LEVEL_FIELDS = ("type", "add_prefix_space", "trim_offsets", "use_regex")
_ADDED_TOKEN_FIELDS = ("id", "content", "single_word", "lstrip", "rstrip", "normalized", "special")


def _want(fail, field: str, value, kind, what: str):
    """``value`` if it is a ``kind`` (a bool is not an int), else fail naming ``field``."""
    if isinstance(value, bool) and kind is not bool or not isinstance(value, kind):
        fail(field, f"is {_short(value)}; expected {what}")
    return value


def _known(fail, field: str, obj: dict, names: tuple[str, ...]) -> None:
    """Fail on the first key of ``obj`` not in ``names``."""
    extra = [k for k in obj if k not in names]
    if extra:
        fail(f"{field}.{extra[0]}" if field else extra[0],
             "is a field this engine does not know; refused rather than ignored")


def _byte_level(fail, field: str, value) -> bool:
    """Whether ``value`` is a well-formed ``ByteLevel`` component (fail if it is one
    with unknown, missing or mistyped fields)."""
    if not isinstance(value, dict) or value.get("type") != "ByteLevel":
        return False
    _known(fail, field, value, _BYTE_LEVEL_FIELDS)
    for key in _BYTE_LEVEL_FIELDS[1:]:
        if key in value:
            _want(fail, f"{field}.{key}", value[key], bool, "true or false")
        elif key != "use_regex":  # Hugging Face requires these two and defaults use_regex to true
            fail(f"{field}.{key}", "is missing")
    return True


def read_tokenizer(path) -> bpe.Tokenizer:
    """Read a byte-level BPE ``tokenizer.json`` back into the engine's tokenizer.

    The file must be what this engine computes: a BPE model behind the GPT-2
    ``ByteLevel`` pre-tokenizer and decoder, no normaliser, no truncation or padding,
    added tokens that are plain special tokens, and the engine's numbering (byte ``b``
    is ID ``b``, merge ``k`` makes ID ``256 + k``, added tokens next). A
    ``TemplateProcessing`` post-processor becomes the tokenizer's
    :attr:`~tokenpath.bpe.Tokenizer.template` (its single-sequence form; the engine
    encodes no pairs, so the pair form is not used); a ``ByteLevel`` post-processor,
    which only moves character offsets, is accepted. Every other setting that would
    change the IDs (``model.dropout``, ``continuing_subword_prefix``,
    ``end_of_word_suffix``, ``byte_fallback``, an ``ignore_merges`` that skips merges,
    other normalisers, pre-tokenizers, decoders or post-processors, unknown fields) is
    refused by name rather than encoded differently; so is a malformed or oversized file.
    Every error is a :class:`ModelFileError` naming the file and the field.

    >>> import json, tempfile
    >>> d = tokenizer_json(bpe.Tokenizer([]))
    >>> d["model"]["dropout"] = 0.1
    >>> path = Path(tempfile.mkdtemp()) / "tokenizer.json"
    >>> _ = path.write_text(json.dumps(d))
    >>> read_tokenizer(path)
    Traceback (most recent call last):
    ...
    tokenpath.safetensors_format.ModelFileError: .../tokenizer.json: model.dropout is 0.1; this engine applies no BPE dropout (it must be null or 0)
    """
    path = as_path("path", path)
    d = _read_tokenizer_file(path)

    def fail(field: str, msg: str):
        raise ModelFileError(f"{path}: {field} {msg}")

    want = functools.partial(_want, fail)
    known = functools.partial(_known, fail)
    byte_level = functools.partial(_byte_level, fail)

    known("", d, _TOKENIZER_FIELDS)
    for field in ("truncation", "padding"):
        if d.get(field) is not None:
            fail(field, f"is {_short(d[field])}; this engine neither truncates nor pads (it must be null)")
    m = d.get("model")
    if not isinstance(m, dict):
        fail("model", f"is {_short(m)}; expected a BPE model object")
    if m.get("type", "BPE") != "BPE":
        fail("model.type", f"is {_short(m.get('type'))}; this engine reads byte-level 'BPE' only")
    known("model", m, _BPE_FIELDS)

    if d.get("normalizer") is not None:
        fail("normalizer", f"is {_short(d['normalizer'])}; this engine applies none (it must be null)")

    pre = d.get("pre_tokenizer")
    if not byte_level("pre_tokenizer", pre) or not pre.get("use_regex", True) or pre.get("add_prefix_space", True):
        fail("pre_tokenizer", f"is {_short(pre)}; expected ByteLevel with use_regex=true and add_prefix_space=false "
             "(the GPT-2 pattern on the text as given)")
    if not byte_level("decoder", d.get("decoder")):
        fail("decoder", f"is {_short(d.get('decoder'))}; expected ByteLevel (the engine decodes the tokens' bytes "
             "as UTF-8)")

    dropout = m.get("dropout")
    if dropout is not None and (isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or dropout != 0):
        fail("model.dropout", f"is {_short(dropout)}; this engine applies no BPE dropout (it must be null or 0)")
    for field in ("continuing_subword_prefix", "end_of_word_suffix"):
        if m.get(field) not in (None, ""):
            fail(f"model.{field}", f"is {_short(m[field])}; this engine's byte-level BPE marks no subwords "
                 "(it must be null)")
    if m.get("byte_fallback", False) is not False:
        fail("model.byte_fallback", f"is {_short(m['byte_fallback'])}; this engine has no <0x..> byte tokens "
             "(it must be false)")
    for field in ("unk_token",):
        if m.get(field) is not None:
            want(f"model.{field}", m[field], str, "a string or null")
    if "fuse_unk" in m:
        want("model.fuse_unk", m["fuse_unk"], bool, "true or false")
    ignore_merges = want("model.ignore_merges", m.get("ignore_merges", False), bool, "true or false")

    byte_of = {c: b for b, c in bpe.bytes_to_unicode().items()}

    def to_bytes(field: str, text) -> bytes:
        if not isinstance(text, str) or not text:
            fail(field, f"is {_short(text)}; expected a non-empty token string")
        out = bytearray()
        for ch in text:
            b = byte_of.get(ch)
            if b is None:
                fail(field, f"token {_short(text)} holds {ch!r}, which is not a ByteLevel character")
            out.append(b)
        return bytes(out)

    raw_merges = want("model.merges", m.get("merges", []), list, "a list of merges")
    merges, seen = [], {}
    for k, pair in enumerate(raw_merges):
        if k and isinstance(pair, str) != isinstance(raw_merges[0], str):
            fail(f"model.merges[{k}]", f"is {_short(pair)}, but model.merges[0] is {_short(raw_merges[0])}; "
                 "a file writes every merge as \"a b\" or every merge as [\"a\", \"b\"]")
        parts = pair.split(" ") if isinstance(pair, str) else pair
        if not isinstance(parts, list) or len(parts) != 2:
            fail(f"model.merges[{k}]", f"is {_short(pair)}; expected two tokens, as \"a b\" or [\"a\", \"b\"]")
        merge = (to_bytes(f"model.merges[{k}][0]", parts[0]), to_bytes(f"model.merges[{k}][1]", parts[1]))
        if merge in seen:
            fail(f"model.merges[{k}]", f"repeats model.merges[{seen[merge]}]; each merge has one rank")
        seen[merge] = k
        merges.append(merge)

    raw_added = d.get("added_tokens", [])
    want("added_tokens", raw_added, list, "a list of token objects")
    specials: list[tuple[int, str, int]] = []
    for k, t in enumerate(raw_added):
        field = f"added_tokens[{k}]"
        want(field, t, dict, "an object with 'id' and 'content'")
        known(field, t, _ADDED_TOKEN_FIELDS)
        for key in ("id", "content"):
            if key not in t:
                fail(field, f"has no {key!r}")
        want(f"{field}.id", t["id"], int, "an integer ID")
        want(f"{field}.content", t["content"], str, "the token's text")
        for key, default in (("single_word", False), ("lstrip", False), ("rstrip", False)):
            if want(f"{field}.{key}", t.get(key, default), bool, "true or false") is not default:
                fail(f"{field}.{key}", f"is {_short(t[key])}; the engine matches a special token's exact "
                     "spelling only (it must be false)")
        if "normalized" in t:
            want(f"{field}.normalized", t["normalized"], bool, "true or false")
        if want(f"{field}.special", t.get("special", False), bool, "true or false") is not True:
            fail(f"{field}.special", "is false (or missing); the engine's added tokens are all special tokens")
        specials.append((t["id"], t["content"], k))
    specials.sort()
    names = [s for _, s, _ in specials]
    if len(set(names)) != len(names):
        fail("added_tokens", f"lists {_short(next(s for s in names if names.count(s) > 1))} more than once")
    try:
        tok = bpe.Tokenizer(merges, names)
    except (TypeError, ValueError) as err:
        fail("model.merges" if "merges" in str(err) else "added_tokens", f"is refused: {err}")

    vocab = want("model.vocab", m.get("vocab", {}), dict, "an object of token -> ID")
    if len(vocab) != len(tok.vocab):
        fail("model.vocab", f"has {len(vocab)} entries, but 256 bytes and {len(merges)} merges make {len(tok.vocab)}")
    ids_of = {data: i for i, data in tok.vocab.items()}
    for text, i in vocab.items():
        want(f"model.vocab[{_short(text)}]", i, int, "an integer ID")
        data = to_bytes("model.vocab", text)
        if tok.vocab.get(i) != data:
            fail("model.vocab", f"numbers {text!r} as {i}; the engine numbers bytes by value and then merges in "
                 f"rank order, which gives {ids_of.get(data)}")
    base, n = len(tok.vocab), len(specials)
    for i, s, k in sorted(specials, key=lambda t: t[2]):
        if not base <= i < base + n:
            fail(f"added_tokens[{k}].id", f"of added token {s!r} is {i}; the engine would give it "
                 f"{tok.special_tokens[s]} (the {n} added tokens take the IDs {base} to {base + n - 1}, "
                 "after the vocabulary)")
    for i, s, k in specials:
        if tok.special_tokens[s] != i:
            fail(f"added_tokens[{k}].id", f"of added token {s!r} is {i}; the engine would give it "
                 f"{tok.special_tokens[s]}")
    if ignore_merges:
        work = sum(len(data) ** 2 for data in tok.vocab.values())
        if work > _IGNORE_MERGES_WORK:
            fail("model.ignore_merges", "is true, and the vocabulary's tokens are too long to check that every "
                 "token is what its merges make (this engine always applies the merges); refused")
        for i, data in tok.vocab.items():
            if tok._bpe(data) != (i,):
                fail("model.ignore_merges", f"is true, and the word {_token_text(data)!r} is then token {i} "
                     f"where the merges give {list(tok._bpe(data))}; this engine always applies the merges")
    template = _read_template(d.get("post_processor"), tok, fail)
    return tok if template is None else tok.with_template(template)


def _read_template(post, tok: bpe.Tokenizer, fail) -> tuple[str, ...] | None:
    """The single-sequence template of a ``TemplateProcessing`` post-processor (``None``
    for none, or for ``ByteLevel``, which changes only offsets)."""
    if post is None:
        return None
    if not isinstance(post, dict):
        fail("post_processor", f"is {_short(post)}; expected null, ByteLevel or TemplateProcessing")
    kind = post.get("type")
    if _byte_level(fail, "post_processor", post):
        return None
    if kind != "TemplateProcessing":
        fail("post_processor", f"has type {_short(kind)}; this engine implements only TemplateProcessing "
             "(and ByteLevel, which changes only offsets)")
    _known(fail, "post_processor", post, ("type", "single", "pair", "special_tokens"))
    single, table = post.get("single"), post.get("special_tokens", {})
    if not isinstance(single, list) or not single:
        fail("post_processor.single", f"is {_short(single)}; expected a list of pieces")
    if not isinstance(post.get("pair"), list):
        fail("post_processor.pair", f"is {_short(post.get('pair'))}; expected a list of pieces (the engine "
             "encodes no pairs, but Hugging Face requires the field)")
    if not isinstance(table, dict):
        fail("post_processor.special_tokens", f"is {_short(table)}; expected an object of name -> ids")
    pieces = []
    for k, item in enumerate(single):
        field = f"post_processor.single[{k}]"
        if not isinstance(item, dict) or len(item) != 1 or next(iter(item)) not in ("Sequence", "SpecialToken"):
            fail(field, f"is {_short(item)}; expected {{'Sequence': …}} or {{'SpecialToken': …}}")
        (kind, body), = item.items()
        if not isinstance(body, dict) or set(body) != {"id", "type_id"}:
            fail(field, f"is {_short(item)}; expected {{'id': …, 'type_id': 0}} inside {kind!r}")
        if type(body["type_id"]) is not int or body["type_id"] != 0:
            fail(f"{field}.{kind}.type_id", f"is {_short(body['type_id'])}; this engine has no type IDs "
                 "(it must be 0)")
        if kind == "Sequence":
            if body["id"] != "A":
                fail(f"{field}.Sequence.id", f"is {_short(body['id'])}; a single sequence is 'A'")
            pieces.append(bpe.TEMPLATE_TEXT)
            continue
        name = body["id"]
        entry = table.get(name) if isinstance(name, str) else None
        if entry is None:
            fail(f"{field}.SpecialToken.id", f"is {_short(name)}, which post_processor.special_tokens does not list")
        if name not in tok.special_tokens:
            fail(f"{field}.SpecialToken.id", f"is {_short(name)}, which is not an added token")
        want_entry = {"id": name, "ids": [tok.special_tokens[name]], "tokens": [name]}
        if entry != want_entry:
            fail(f"post_processor.special_tokens[{name!r}]", f"is {_short(entry)}; the engine's is {want_entry}")
        pieces.append(name)
    if pieces.count(bpe.TEMPLATE_TEXT) != 1:
        fail("post_processor.single", "must hold the sequence 'A' exactly once")
    return tuple(pieces)


# ------------------------------------------------------------- load and save


def _shard_name_ok(fname) -> bool:
    return (isinstance(fname, str) and fname not in ("", ".", "..") and "/" not in fname and "\\" not in fname
            and "\x00" not in fname and Path(fname).name == fname)


def _weight_files(directory: Path) -> tuple[list[Path], Path, dict | None]:
    """The weight files to read, the file that lists them (the index, or the single
    weight file) and the index's weight_map (None for a single file). An index or
    weight file that exists in any form (a directory, a pipe, a broken link) is read
    and refused by name, never passed over."""
    single, index = directory / WEIGHTS_NAME, directory / INDEX_NAME
    if os.path.lexists(index):
        idx = _read_json(index)
        if not isinstance(idx, dict):
            raise ModelFileError(f"{index}: must hold a JSON object, got {type(idx).__name__}")
        weight_map = idx.get("weight_map")
        if not isinstance(weight_map, dict) or not weight_map:
            raise ModelFileError(f"{index}: has no 'weight_map' of tensor name -> shard file")
        for name, fname in weight_map.items():  # every value checked before any is compared or sorted
            if not _shard_name_ok(fname):
                raise ModelFileError(f"{index}: weight_map[{short_repr(name)}] gives shard name {short_repr(fname)}, "
                                     "which must be a file name in the directory")
        files = []
        for fname in sorted(set(weight_map.values())):
            if not os.path.lexists(directory / fname):
                raise ModelFileError(f"{index}: lists shard {fname!r}, which is not in the directory")
            files.append(directory / fname)
        return files, index, weight_map
    if os.path.lexists(single):
        return [single], single, None
    raise ModelFileError(f"{directory}: has neither {WEIGHTS_NAME} nor {INDEX_NAME}")


def _check_headers(config: LlamaConfig, headers: list[SafetensorsHeader], source: Path,
                   weight_map: dict | None) -> None:
    """Everything that can be checked from the headers alone, before a single weight is
    read: each shard holds what the index places in it, every dtype is a float, and
    the names and shapes are those the config implies (the config's numbers are
    compared with the headers without listing more names than the headers hold)."""
    entries = {}
    for h in headers:
        check_float_dtypes(h)
        for e in h.tensors:
            if weight_map is not None and weight_map.get(e.name) != Path(h.path).name:
                raise ModelFileError(f"{h.path}: holds tensor {e.name!r}, which the index places in "
                                     f"{short_repr(weight_map.get(e.name))}")
            entries[e.name] = e
    for name, fname in (weight_map or {}).items():
        if name not in entries:
            raise ModelFileError(f"{source}: places tensor {name!r} in {fname!r}, but that shard does not hold it")
    no_bytes = np.zeros((), np.float32)  # every stand-in below is this one number, seen with another shape
    _match_names_and_shapes(config, {n: np.broadcast_to(no_bytes, e.shape) for n, e in entries.items()}, str(source),
                            compare_tied_head=False)


def load(directory) -> Model:
    """Read a Hugging Face-layout Llama directory: ``config.json``, the weights
    (``model.safetensors`` or shards with ``model.safetensors.index.json``) and, if
    present, ``tokenizer.json``.

    Whatever the directory holds, the answer is a :class:`Model` or one
    :class:`ModelFileError` naming the file and the field or tensor at fault: every
    file is opened only if it is a regular file of bounded size, its JSON is read with
    bounded depth and number sizes, and the work done before the weights are compared
    with the config is bounded by the size of the files, not by numbers in them.

    >>> import tempfile
    >>> d = save(tempfile.mkdtemp(), random_model(LlamaConfig(10, 8, 16, 1, 4, 2), seed=0))
    >>> load(d).logits([1, 2]).shape
    (2, 10)
    """
    directory = as_path("directory", directory)
    if not directory.is_dir():
        raise ModelFileError(f"{directory}: not a directory")
    config = read_config(directory / CONFIG_NAME)
    files, source, weight_map = _weight_files(directory)
    headers = [read_header(f) for f in files]
    _check_headers(config, headers, source, weight_map)
    tensors, dtypes = {}, {}
    for f in files:  # only now are the weights read
        part, header = load_tensors(f)
        tensors.update(part)
        dtypes.update((e.name, e.dtype) for e in header.tensors)
    tokenizer = None
    tok_path = directory / TOKENIZER_NAME
    if os.path.lexists(tok_path):
        open_regular_file(tok_path, max_bytes=MAX_JSON_BYTES, what=TOKENIZER_NAME).close()
        tokenizer = read_tokenizer(tok_path)
        if tokenizer.n_vocab > config.vocab_size:
            raise ModelFileError(f"{tok_path}: the tokenizer has {tokenizer.n_vocab} IDs but config vocab_size is "
                                 f"{config.vocab_size}; IDs >= {config.vocab_size} would have no embedding row")
    tok_config = directory / TOKENIZER_CONFIG_NAME
    if os.path.lexists(tok_config):  # not used here, but a folder with a broken one is broken
        if not isinstance(_read_json(tok_config, max_bytes=MAX_CONFIG_BYTES), dict):
            raise ModelFileError(f"{tok_config}: must hold a JSON object")
    return Model(config, tensors, tokenizer, dtypes=dtypes, source=str(source))


def list_files(directory) -> list[tuple[str, int]]:
    """(file name, size in bytes) of every file in a model directory, sorted by name.

    >>> import tempfile
    >>> d = save(tempfile.mkdtemp(), random_model(LlamaConfig(10, 8, 16, 1, 4, 2), seed=0))
    >>> [name for name, _ in list_files(d)]
    ['config.json', 'model.safetensors']
    """
    directory = as_path("directory", directory)
    if not directory.is_dir():
        raise ModelFileError(f"{directory}: not a directory")
    return sorted((p.name, p.stat().st_size) for p in directory.iterdir() if p.is_file())


def _shards(names: list[str], sizes: dict[str, int], limit: int | None) -> list[list[str]]:
    """Cut the tensors, in order, into groups of at most ``limit`` bytes (a tensor
    larger than the limit gets a shard of its own)."""
    if limit is None:
        return [names]
    groups, current, used = [], [], 0
    for n in names:
        if current and used + sizes[n] > limit:
            groups.append(current)
            current, used = [], 0
        current.append(n)
        used += sizes[n]
    groups.append(current)
    return groups


def _writable_directory(directory) -> Path:
    """``directory`` as a Path, created if missing, or an error naming the argument."""
    directory = as_path("directory", directory)
    if directory.exists() and not directory.is_dir():
        raise ValueError(f"directory {str(directory)!r} exists and is not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as err:  # a parent that is a file, no permission, a read-only disk
        raise ValueError(f"directory {str(directory)!r} cannot be created: {err.strerror or err}") from None
    return directory


def save(directory, model: Model, *, max_shard_size: int | None = None, dtype: str = "float32") -> Path:
    """Write ``model`` as a Hugging Face-layout directory: ``config.json``, the
    weights as ``model.safetensors`` (or, when ``max_shard_size`` bytes are exceeded,
    ``model-00001-of-0000N.safetensors`` … with ``model.safetensors.index.json``), and
    ``tokenizer.json`` if the model has a tokenizer. A tied head is not stored.
    Returns the directory.
    """
    if not isinstance(model, Model):
        raise TypeError(f"model must be a tokenpath.model.Model, got {type(model).__name__}")
    if not isinstance(dtype, str) or dtype not in ("float32", "float64", "float16"):
        raise ValueError(f"dtype must be 'float16', 'float32' or 'float64', got {dtype!r}")
    if max_shard_size is not None:
        max_shard_size = as_int("max_shard_size", max_shard_size, low=1)
    directory = _writable_directory(directory)
    for old in [directory / WEIGHTS_NAME, directory / INDEX_NAME, *directory.glob("model-*-of-*.safetensors")]:
        old.unlink(missing_ok=True)
    cfg = model.config.to_dict()
    cfg["dtype"] = dtype
    (directory / CONFIG_NAME).write_text(json.dumps(cfg, indent=2) + "\n", encoding="utf-8")
    arrays = {n: np.asarray(a, dtype=dtype) for n, a in model.tensors.items()}
    names = list(arrays)
    groups = _shards(names, {n: arrays[n].nbytes for n in names}, max_shard_size)
    metadata = {"format": "pt"}
    if len(groups) == 1:
        save_tensors(directory / WEIGHTS_NAME, arrays, metadata)
    else:
        weight_map = {}
        for k, group in enumerate(groups, start=1):
            fname = f"model-{k:05d}-of-{len(groups):05d}.safetensors"
            save_tensors(directory / fname, {n: arrays[n] for n in group}, metadata)
            weight_map.update({n: fname for n in group})
        index = {"metadata": {"total_size": int(sum(a.nbytes for a in arrays.values()))}, "weight_map": weight_map}
        (directory / INDEX_NAME).write_text(json.dumps(index, indent=2) + "\n", encoding="utf-8")
    if model.tokenizer is not None:
        eos = None
        if model.config.eos_token_id is not None:
            eos = {i: s for s, i in model.tokenizer.special_tokens.items()}.get(model.config.eos_token_id)
        write_tokenizer(directory, model.tokenizer, eos_token=eos)
    return directory
