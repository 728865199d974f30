"""A model directory's file names, and its ``config.json``: :class:`LlamaConfig` and
:class:`MixtralConfig` here, the other families (Qwen2, Qwen3, Mistral) in
:mod:`tokenpath.model.families`, read and checked (:func:`read_config`).

Each family is a subclass of :class:`LlamaConfig` that names its ``architectures``
entry and ``model_type`` and says how it differs: biases on the projections, an
RMSNorm on every query and key head, its own defaults for fields a file leaves out.
:meth:`LlamaConfig.from_dict` picks the family a file names; whatever the engine
would compute differently from ``transformers`` (a sliding window that hides keys,
another RoPE scaling) is refused by name."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import ClassVar, Mapping

from .. import gqa
from .._checks import as_float, as_int
from ..position import Llama3Scaling
from ..safefiles import ModelFileError, as_path, read_json, short_repr

__all__ = [
    "ARCHITECTURE",
    "CONFIG_NAME",
    "INDEX_NAME",
    "MIXTRAL_ARCHITECTURE",
    "TOKENIZER_NAME",
    "WEIGHTS_NAME",
    "LlamaConfig",
    "MixtralConfig",
    "read_config",
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
#: Every family by the architecture name a config.json gives (filled as each class is defined).
_FAMILIES: dict[str, type] = {}


# ---------------------------------------------------------------------- the config


@dataclass(frozen=True)
class LlamaConfig:
    """The fields of ``config.json`` that fix the shapes and the arithmetic.

    >>> c = LlamaConfig(vocab_size=1000, hidden_size=16, intermediate_size=32,
    ...                 num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2)
    >>> c.head_dim, c.group_size, c.qkv_bias, c.qk_norm
    (4, 2, False, False)
    """

    ARCH: ClassVar[str] = ARCHITECTURE  # the class transformers builds from the file
    MODEL_TYPE: ClassVar[str] = "llama"
    #: num_key_value_heads when a file leaves it out: None means num_attention_heads
    DEFAULT_KV_HEADS: ClassVar[int | None] = None
    #: the config.json fields this family's transformers class reads (others it ignores)
    READS: ClassVar[tuple[str, ...]] = ("attention_bias", "mlp_bias", "pretraining_tp")

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
    attention_bias: bool = False  # bias vectors on W_Q, W_K, W_V and W_O (Llama, Qwen3)
    rope_scaling: Llama3Scaling | None = None  # Llama 3.1's RoPE scaling, or None (plain RoPE)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _FAMILIES[cls.ARCH] = cls

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
        for f in ("tie_word_embeddings", "attention_bias"):
            if not isinstance(getattr(self, f), bool):
                raise TypeError(f"{f} must be true or false, got {getattr(self, f)!r}")
        if self.rope_scaling is not None and not isinstance(self.rope_scaling, Llama3Scaling):
            raise TypeError(f"rope_scaling must be a tokenpath.position.Llama3Scaling or None, "
                            f"got {type(self.rope_scaling).__name__}")
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

    @property
    def qkv_bias(self) -> bool:
        """Whether W_Q, W_K and W_V add a bias vector (``q_proj.bias`` …)."""
        return self.attention_bias

    @property
    def o_bias(self) -> bool:
        """Whether W_O adds a bias vector (``o_proj.bias``)."""
        return self.attention_bias

    @property
    def qk_norm(self) -> bool:
        """Whether every query and key head is RMS-normalised before RoPE (Qwen3)."""
        return False

    @classmethod
    def from_dict(cls, d: Mapping, *, source: str = CONFIG_NAME) -> "LlamaConfig":
        """Read the fields of a Hugging Face ``config.json`` dict, refusing anything this
        engine would compute differently (another architecture, MLP biases, another
        activation, a sliding window that hides keys, RoPE scaling other than Llama
        3.1's). The RoPE base is read from ``rope_parameters["rope_theta"]``
        (transformers 5) or ``rope_theta`` (earlier); the scaling from
        ``rope_parameters`` or ``rope_scaling``. Called on :class:`LlamaConfig`, it
        returns the family the file names (Mixtral, Mistral, Qwen2, Qwen3).

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
        if cls is LlamaConfig:
            family = _family(archs, model_type)
            if family is not LlamaConfig:
                return family.from_dict(d, source=source)
        known = ", ".join(repr(a) for a in sorted(_FAMILIES))
        if archs is None and model_type is None:
            raise ModelFileError(f"{source}: names neither 'architectures' nor 'model_type'; "
                                 f"expected {cls.ARCH!r}")
        if archs is not None and (not isinstance(archs, list) or cls.ARCH not in archs):
            raise ModelFileError(f"{source}: architectures is {short_repr(archs)}; this engine runs only {known}")
        if model_type is not None and model_type != cls.MODEL_TYPE:
            raise ModelFileError(f"{source}: model_type is {short_repr(model_type)}; {cls.ARCH} is "
                                 f"{cls.MODEL_TYPE!r} (this engine runs only {known})")
        act = d.get("hidden_act", "silu")
        if act != "silu":
            raise ModelFileError(f"{source}: hidden_act is {short_repr(act)}; Llama's SwiGLU gate uses 'silu'")
        for flag in ("attention_bias", "mlp_bias"):
            value = d.get(flag)
            if flag not in cls.READS:
                continue  # transformers' class for this family has no such switch
            if value not in (None, False, True) or not isinstance(value, (bool, type(None))):
                raise ModelFileError(f"{source}: {flag} must be true or false, got {short_repr(value)}")
            if value is True and flag == "mlp_bias":
                raise ModelFileError(f"{source}: mlp_bias is true; this engine's SwiGLU has no bias vectors")
        tp = d.get("pretraining_tp")
        if "pretraining_tp" in cls.READS and tp is not None and (type(tp) is not int or tp != 1):
            raise ModelFileError(f"{source}: pretraining_tp is {short_repr(tp)}; only 1 is supported")
        window = cls._read_window(d, source)
        _check_layer_types(d, source)
        max_pos = d.get("max_position_embeddings")
        theta, scaling = _rope(d, source, default=cls.rope_theta,
                               max_positions=max_pos if max_pos is not None else cls.max_position_embeddings)
        kw = {f.name: d[f.name] for f in fields(cls)
              if f.name not in ("rope_theta", "rope_scaling", "sliding_window") and d.get(f.name) is not None
              and (f.name != "attention_bias" or "attention_bias" in cls.READS)}
        kw.update(window)
        required = ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads")
        for name in required:
            if name not in kw:
                raise ModelFileError(f"{source}: has no {name!r}")
        kw.setdefault("num_key_value_heads", cls.DEFAULT_KV_HEADS or kw["num_attention_heads"])
        eos = kw.get("eos_token_id")
        if isinstance(eos, list):  # several stop IDs: each must be an ID; keep the first
            for k, i in enumerate(eos):
                if isinstance(i, bool) or not isinstance(i, int):
                    raise ModelFileError(f"{source}: eos_token_id[{k}] must be an integer, got {short_repr(i)}")
            kw["eos_token_id"] = eos[0] if eos else None
        for name, value in kw.items():  # before any arithmetic: no 5000-digit or boolean sizes
            if isinstance(value, bool) and name not in ("tie_word_embeddings", "attention_bias"):
                raise ModelFileError(f"{source}: {name} must be a number, got {short_repr(value)}")
            if isinstance(value, int) and not -_MAX_CONFIG_INT < value < _MAX_CONFIG_INT:
                raise ModelFileError(f"{source}: {name} is {short_repr(value)}, beyond any size a model file holds "
                                     "(|value| < 2**63)")
        try:
            return cls(rope_theta=theta, rope_scaling=scaling, **kw)
        except (TypeError, ValueError, OverflowError) as err:
            raise ModelFileError(f"{source}: {err}") from None

    @classmethod
    def _read_window(cls, d: Mapping, source: str) -> dict:
        """The attention window a file gives, as constructor fields: Llama's attention
        reads every earlier position, so any ``sliding_window`` but null is refused."""
        if d.get("sliding_window") is not None:
            raise ModelFileError(f"{source}: sliding_window is {short_repr(d['sliding_window'])}; this engine's "
                                 "attention reads every earlier position (null)")
        return {}

    def _rope_dict(self) -> dict:
        out = {"rope_theta": self.rope_theta, "rope_type": "default"}
        s = self.rope_scaling
        if s is not None:
            out.update(rope_type="llama3", factor=s.factor, low_freq_factor=s.low_freq_factor,
                       high_freq_factor=s.high_freq_factor,
                       original_max_position_embeddings=s.original_max_position_embeddings)
        return out

    def to_dict(self) -> dict:
        """The ``config.json`` that transformers 5 writes for this model (RoPE base and
        scaling under ``rope_parameters``).

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
            "rope_parameters": self._rope_dict(),
            "attention_bias": self.attention_bias,
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
    may leave a field out (ε = 1e-5, RoPE base 1e6, 8 K/V heads, 8 experts, 2 per token).
    Its projections have no biases (transformers ignores ``attention_bias`` here).

    >>> c = MixtralConfig(1000, 16, 32, 2, 4, 2, num_local_experts=4, num_experts_per_tok=2)
    >>> c.n_experts, c.to_dict()["architectures"]
    (4, ['MixtralForCausalLM'])
    """

    ARCH: ClassVar[str] = MIXTRAL_ARCHITECTURE
    MODEL_TYPE: ClassVar[str] = "mixtral"
    DEFAULT_KV_HEADS: ClassVar[int | None] = 8
    READS: ClassVar[tuple[str, ...]] = ()

    rms_norm_eps: float = 1e-5
    rope_theta: float = 1e6
    num_local_experts: int = 8  # E: experts per layer
    num_experts_per_tok: int = 2  # k: experts each position runs

    def __post_init__(self):
        super().__post_init__()
        if self.attention_bias:
            raise ValueError("attention_bias must be false: Mixtral's projections have no biases")
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


_FAMILIES[ARCHITECTURE] = LlamaConfig


def _family(archs, model_type) -> type:
    """The config class a file names: by its ``architectures`` entry, else its
    ``model_type``; :class:`LlamaConfig` (whose checks then name what is wrong) when
    neither names a known family."""
    if isinstance(archs, list):
        for a in archs:
            if isinstance(a, str) and a in _FAMILIES:
                return _FAMILIES[a]
        return LlamaConfig
    for family in _FAMILIES.values():
        if model_type == family.MODEL_TYPE:
            return family
    return LlamaConfig


def _check_layer_types(d: Mapping, source: str) -> None:
    """``layer_types`` (transformers 5 writes one per layer): every layer must read every
    earlier position, ``"full_attention"``."""
    types = d.get("layer_types")
    if types is None:
        return
    if not isinstance(types, list):
        raise ModelFileError(f"{source}: layer_types must be a list, one entry per layer, got {short_repr(types)}")
    for i, kind in enumerate(types):
        if kind != "full_attention":
            raise ModelFileError(f"{source}: layer_types[{i}] is {short_repr(kind)}; this engine runs only "
                                 "'full_attention' layers (every earlier position read)")
    layers = d.get("num_hidden_layers")
    if type(layers) is int and len(types) != layers:
        raise ModelFileError(f"{source}: layer_types has {len(types)} entries but num_hidden_layers is {layers}")


#: Llama 3.1's RoPE scaling fields, each required (transformers raises a KeyError without one).
_LLAMA3_FIELDS = ("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings")


def _rope(d: Mapping, source: str, default: float, max_positions) -> tuple[float, Llama3Scaling | None]:
    """The RoPE base and scaling from either place transformers has kept them:
    ``rope_parameters`` (transformers 5) or ``rope_theta`` and ``rope_scaling``
    (earlier files, such as Llama 3.1's own)."""
    params = d.get("rope_parameters")
    scaling = None
    for name, block in (("rope_parameters", params), ("rope_scaling", d.get("rope_scaling"))):
        if block is None:
            continue
        if not isinstance(block, Mapping):
            raise ModelFileError(f"{source}: {name} must be an object, got {short_repr(block)}")
        kind = block.get("rope_type", block.get("type", "default"))
        if kind == "default":
            continue
        if kind != "llama3":
            raise ModelFileError(f"{source}: {name} asks for RoPE scaling {short_repr(kind)}; this engine computes "
                                 "plain RoPE ('default') and Llama 3.1's ('llama3') only")
        this = _llama3(block, name, source, max_positions)
        if scaling is not None and this != scaling:
            raise ModelFileError(f"{source}: rope_parameters and rope_scaling give different llama3 scalings")
        scaling = this
    nested = params.get("rope_theta") if isinstance(params, Mapping) else None
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
    return (default if value is None else float(value)), scaling


def _llama3(block: Mapping, name: str, source: str, max_positions) -> Llama3Scaling:
    """A ``llama3`` block's four numbers (``original_max_position_embeddings`` defaults to
    ``max_position_embeddings``, as transformers does), or an error naming the field."""
    partial = block.get("partial_rotary_factor", 1.0)
    if partial != 1.0 or isinstance(partial, bool):
        raise ModelFileError(f"{source}: {name}.partial_rotary_factor is {short_repr(partial)}; this engine turns "
                             "every feature pair (1.0)")
    values = {"original_max_position_embeddings": max_positions, **{k: block[k] for k in _LLAMA3_FIELDS if k in block}}
    for key in _LLAMA3_FIELDS:
        value = values.get(key)
        if key not in values:
            raise ModelFileError(f"{source}: {name} asks for 'llama3' scaling but has no {key!r}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (
                isinstance(value, int) and not -_MAX_CONFIG_INT < value < _MAX_CONFIG_INT):
            raise ModelFileError(f"{source}: {name}.{key} must be a number, got {short_repr(value)}")
    try:
        return Llama3Scaling(**values)
    except (TypeError, ValueError, OverflowError) as err:
        raise ModelFileError(f"{source}: {name}: {err}") from None


# ---------------------------------------------------------- the directory's files


def _read_json(path: Path, missing: str = "", *, max_bytes: int = MAX_JSON_BYTES):
    """The JSON value in ``path``, or a :class:`ModelFileError` naming the file:
    missing, not a regular file (a directory, a pipe, a device, a dangling or looping
    link), larger than ``max_bytes``, not UTF-8 JSON, nested too deep, holding NaN or a
    number of thousands of digits (see :func:`tokenpath.safefiles.read_json`)."""
    path = Path(path)
    if not os.path.lexists(path):
        raise ModelFileError(f"{path}: no such file{missing}")
    return read_json(path, max_bytes=max_bytes, what=path.name)


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


def read_config(path) -> LlamaConfig:
    """Parse a ``config.json`` file (see :meth:`LlamaConfig.from_dict`): a
    :class:`LlamaConfig`, or a :class:`MixtralConfig` for a Mixtral file."""
    path = as_path("path", path)
    d = _read_json(path, f"; a model directory needs {CONFIG_NAME}", max_bytes=MAX_CONFIG_BYTES)
    return LlamaConfig.from_dict(d, source=str(path))
