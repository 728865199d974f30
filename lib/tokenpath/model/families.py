"""The ``config.json`` of the other families readers download: :class:`Qwen2Config`,
:class:`Qwen3Config` and :class:`MistralConfig`, each the Llama skeleton of
:class:`tokenpath.model.config.LlamaConfig` with what its ``transformers`` class does
differently (``modeling_qwen2``, ``modeling_qwen3``, ``modeling_mistral``):

* **Qwen2** adds a bias vector to the queries, keys and values (``q_proj.bias`` …),
  never to W_O, whatever ``attention_bias`` says;
* **Qwen3** has no biases (unless ``attention_bias``, then on all four projections) but
  RMS-normalises every query and key head over its ``head_dim`` features before RoPE
  (``self_attn.q_norm.weight``, ``k_norm.weight``, each ``[head_dim]``), and its
  ``head_dim`` is a field of its own (128 when a file leaves it out), not d / Hq;
* **Mistral** has Llama's shapes with no biases, and a ``sliding_window``.

A sliding window lets a query read only the keys fewer than ``sliding_window``
positions back (transformers' mask keeps key ``j`` for query ``i`` when
``j > i − sliding_window``). This engine's attention reads every earlier position, so
a window is run only where it hides nothing: Qwen's ``use_sliding_window: false``
(transformers then drops the ``sliding_window`` value the file still carries), or a
Mistral window of at least ``max_position_embeddings`` positions (the model then
refuses a sequence longer than its window). Anything else is refused by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Mapping

from .._checks import as_int
from ..safefiles import ModelFileError, short_repr
from .config import LlamaConfig

__all__ = [
    "MISTRAL_ARCHITECTURE",
    "QWEN2_ARCHITECTURE",
    "QWEN3_ARCHITECTURE",
    "MistralConfig",
    "Qwen2Config",
    "Qwen3Config",
]

QWEN2_ARCHITECTURE = "Qwen2ForCausalLM"
QWEN3_ARCHITECTURE = "Qwen3ForCausalLM"
MISTRAL_ARCHITECTURE = "MistralForCausalLM"
#: transformers' Mistral window when a config.json leaves ``sliding_window`` out.
MISTRAL_DEFAULT_WINDOW = 4096


@dataclass(frozen=True)
class Qwen2Config(LlamaConfig):
    """A ``Qwen2ForCausalLM`` config: Llama's layer with biases on W_Q, W_K and W_V.
    Defaults are transformers' (32 K/V heads, 32,768 positions).

    >>> c = Qwen2Config(100, 16, 32, 2, 4, 2)
    >>> c.qkv_bias, c.o_bias, c.to_dict()["use_sliding_window"]
    (True, False, False)
    """

    ARCH: ClassVar[str] = QWEN2_ARCHITECTURE
    MODEL_TYPE: ClassVar[str] = "qwen2"
    DEFAULT_KV_HEADS: ClassVar[int | None] = 32
    READS: ClassVar[tuple[str, ...]] = ()

    max_position_embeddings: int = 32768

    @property
    def qkv_bias(self) -> bool:
        return True

    @property
    def o_bias(self) -> bool:
        return False

    @classmethod
    def _read_window(cls, d: Mapping, source: str) -> dict:
        """``use_sliding_window`` must be false (or absent): then transformers sets the
        window to None and every layer is full attention, whatever ``sliding_window``
        and ``max_window_layers`` hold."""
        use = d.get("use_sliding_window", False)
        if not isinstance(use, bool):
            raise ModelFileError(f"{source}: use_sliding_window must be true or false, got {short_repr(use)}")
        if use:
            raise ModelFileError(
                f"{source}: use_sliding_window is true; transformers then lets the layers from max_window_layers "
                f"on read only the last sliding_window={short_repr(d.get('sliding_window'))} positions, and this "
                "engine's attention reads every earlier position (false, as released Qwen configs have it)")
        return {}

    def to_dict(self) -> dict:
        """The ``config.json`` transformers 5 writes for this family."""
        out = super().to_dict()
        for key in ("attention_bias", "mlp_bias"):
            del out[key]
        out.update(use_sliding_window=False, sliding_window=None, max_window_layers=self.num_hidden_layers,
                   layer_types=["full_attention"] * self.num_hidden_layers)
        return out


@dataclass(frozen=True)
class Qwen3Config(Qwen2Config):
    """A ``Qwen3ForCausalLM`` config: RMSNorm on every query and key head before RoPE,
    ``head_dim`` given on its own (128 by default, as in transformers), biases only
    with ``attention_bias`` (then on all four projections).

    >>> c = Qwen3Config(100, 16, 32, 2, 4, 2, head_dim=8)
    >>> c.qk_norm, c.qkv_bias, c.head_dim * c.num_attention_heads
    (True, False, 32)
    """

    ARCH: ClassVar[str] = QWEN3_ARCHITECTURE
    MODEL_TYPE: ClassVar[str] = "qwen3"
    READS: ClassVar[tuple[str, ...]] = ("attention_bias",)

    head_dim: int | None = 128

    @property
    def qkv_bias(self) -> bool:
        return self.attention_bias

    @property
    def o_bias(self) -> bool:
        return self.attention_bias

    @property
    def qk_norm(self) -> bool:
        return True

    def to_dict(self) -> dict:
        """The ``config.json`` transformers 5 writes for this family."""
        return {**super().to_dict(), "attention_bias": self.attention_bias}


@dataclass(frozen=True)
class MistralConfig(LlamaConfig):
    """A ``MistralForCausalLM`` config: Llama's shapes, no biases, and a
    ``sliding_window`` that must be None or cover every position
    (``>= max_position_embeddings``). Defaults are transformers' (8 K/V heads, 131,072
    positions); :meth:`from_dict` reads a file without ``sliding_window`` as
    transformers does, as a window of 4096.

    >>> MistralConfig(100, 16, 32, 2, 4, 2, max_position_embeddings=64, sliding_window=64).sliding_window
    64
    """

    ARCH: ClassVar[str] = MISTRAL_ARCHITECTURE
    MODEL_TYPE: ClassVar[str] = "mistral"
    DEFAULT_KV_HEADS: ClassVar[int | None] = 8
    READS: ClassVar[tuple[str, ...]] = ()

    max_position_embeddings: int = 4096 * 32
    sliding_window: int | None = None  # keys older than this many positions hidden; None: none

    def __post_init__(self):
        super().__post_init__()
        if self.attention_bias:
            raise ValueError("attention_bias must be false: Mistral's projections have no biases")
        if self.sliding_window is not None:
            w = as_int("sliding_window", self.sliding_window, low=1)
            if w < self.max_position_embeddings:
                raise ValueError(
                    f"sliding_window is {w}, below max_position_embeddings={self.max_position_embeddings}; "
                    "transformers' Mistral lets a query read only the keys fewer than sliding_window positions back "
                    "(key > query − sliding_window), and this engine's attention reads every earlier position: the "
                    "two agree only when the window covers every position (sliding_window >= "
                    "max_position_embeddings) or is null")
            object.__setattr__(self, "sliding_window", w)

    @classmethod
    def _read_window(cls, d: Mapping, source: str) -> dict:
        """The window, 4096 when the field is absent (transformers' default), checked
        against ``max_position_embeddings`` when the config is built."""
        w = d.get("sliding_window", MISTRAL_DEFAULT_WINDOW)
        if w is not None and (isinstance(w, bool) or not isinstance(w, int)):
            raise ModelFileError(f"{source}: sliding_window must be an integer or null, got {short_repr(w)}")
        max_pos = d.get("max_position_embeddings", cls.max_position_embeddings)
        if "sliding_window" not in d and type(max_pos) is int and max_pos > w:
            raise ModelFileError(
                f"{source}: has no sliding_window, which transformers' Mistral reads as {w}, below "
                f"max_position_embeddings={max_pos}; this engine's attention reads every earlier position, so the "
                "window must be null or cover every position")
        return {"sliding_window": w}

    def to_dict(self) -> dict:
        """The ``config.json`` transformers 5 writes for this family."""
        out = super().to_dict()
        for key in ("attention_bias", "mlp_bias"):
            del out[key]
        out["sliding_window"] = self.sliding_window
        return out
