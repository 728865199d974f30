"""The ``config.json`` of a ``Qwen2MoeForCausalLM`` folder (:class:`Qwen2MoeConfig`):
Qwen2's attention (biases on the queries, keys and values) with a sparse mixture of
experts and a shared expert in every layer, as ``transformers``' ``modeling_qwen2_moe``
computes it (:mod:`tokenpath.shared_expert`):

* a router ``mlp.gate.weight [E, d]``; a softmax over all ``num_experts`` experts, the
  ``num_experts_per_tok`` most probable run, their gates renormalised to sum to 1 only
  when ``norm_topk_prob`` is true (transformers' default is false);
* ``E`` SwiGLU experts of width ``moe_intermediate_size``
  (``mlp.experts.{e}.gate_proj/up_proj/down_proj``);
* a shared SwiGLU expert of width ``shared_expert_intermediate_size``
  (``mlp.shared_expert.*``) that every position runs, scaled by
  ``σ(x · w_sg)`` (``mlp.shared_expert_gate.weight [1, d]``);
* ``qkv_bias`` (true by default) switches the three biases; W_O has none.

``transformers`` makes layer ``i`` dense (one MLP of width ``intermediate_size``) when
``i`` is in ``mlp_only_layers`` or ``(i + 1)`` is not a multiple of
``decoder_sparse_step``. Released Qwen2-MoE configs have neither (``[]`` and 1), and
this engine reads only those: any other value is refused by name, as is a sliding
window (:class:`~tokenpath.model.families.Qwen2Config`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import ClassVar, Mapping

from .._checks import as_int
from ..safefiles import ModelFileError, short_repr
from .config import CONFIG_NAME
from .families import Qwen2Config

__all__ = ["QWEN2_MOE_ARCHITECTURE", "Qwen2MoeConfig"]

QWEN2_MOE_ARCHITECTURE = "Qwen2MoeForCausalLM"


@dataclass(frozen=True)
class Qwen2MoeConfig(Qwen2Config):
    """A ``Qwen2MoeForCausalLM`` config. Defaults are transformers' (16 K/V heads, 60
    experts, 4 per token, widths 1408 and 5632, ``norm_topk_prob`` false).

    >>> c = Qwen2MoeConfig(100, 16, 32, 2, 4, 2, num_experts=4, num_experts_per_tok=2,
    ...                    moe_intermediate_size=8, shared_expert_intermediate_size=12)
    >>> c.n_experts, c.qkv_bias, c.norm_topk_prob, c.to_dict()["model_type"]
    (4, True, False, 'qwen2_moe')
    >>> Qwen2MoeConfig(100, 16, 32, 2, 4, 2, decoder_sparse_step=2)
    Traceback (most recent call last):
    ...
    ValueError: decoder_sparse_step is 2; transformers then makes every layer i with (i + 1) % 2 != 0 a dense MLP, and this engine reads Qwen2-MoE folders with experts in every layer (1)
    """

    ARCH: ClassVar[str] = QWEN2_MOE_ARCHITECTURE
    MODEL_TYPE: ClassVar[str] = "qwen2_moe"
    DEFAULT_KV_HEADS: ClassVar[int | None] = 16

    num_experts: int = 60  # E: routed experts per layer
    num_experts_per_tok: int = 4  # k: routed experts each position runs
    moe_intermediate_size: int = 1408  # d_ff of each routed expert
    shared_expert_intermediate_size: int = 5632  # d_s, the shared expert's hidden width
    norm_topk_prob: bool = False  # renormalise the k chosen probabilities to sum to 1
    decoder_sparse_step: int = 1  # layer i is sparse when (i + 1) % step == 0 (only 1 is read)
    mlp_only_layers: tuple = field(default=())  # layers forced dense (only none is read)
    qkv_bias: bool = True  # biases on W_Q, W_K and W_V

    def __post_init__(self):
        super().__post_init__()
        e = as_int("num_experts", self.num_experts, low=1)
        object.__setattr__(self, "num_experts", e)
        object.__setattr__(self, "num_experts_per_tok",
                           as_int("num_experts_per_tok", self.num_experts_per_tok, low=1, high=e))
        for f in ("moe_intermediate_size", "shared_expert_intermediate_size"):
            object.__setattr__(self, f, as_int(f, getattr(self, f), low=1))
        for f in ("norm_topk_prob", "qkv_bias"):
            if not isinstance(getattr(self, f), bool):
                raise TypeError(f"{f} must be true or false, got {getattr(self, f)!r}")
        step = as_int("decoder_sparse_step", self.decoder_sparse_step, low=1)
        if step != 1:
            raise ValueError(f"decoder_sparse_step is {step}; transformers then makes every layer i with "
                             f"(i + 1) % {step} != 0 a dense MLP, and this engine reads Qwen2-MoE folders with "
                             "experts in every layer (1)")
        only = self.mlp_only_layers
        if not isinstance(only, (list, tuple)):
            raise TypeError(f"mlp_only_layers must be a list of layer indices, got {only!r}")
        if len(only):
            raise ValueError(f"mlp_only_layers is {list(only)[:8]}; transformers makes those layers dense MLPs, and "
                             "this engine reads Qwen2-MoE folders with experts in every layer ([])")
        object.__setattr__(self, "mlp_only_layers", ())

    @classmethod
    def from_dict(cls, d: Mapping, *, source: str = CONFIG_NAME) -> "Qwen2MoeConfig":
        """Read a ``config.json`` dict as :meth:`LlamaConfig.from_dict` does, with its two
        switches ``norm_topk_prob`` and ``qkv_bias`` (true or false, not numbers).

        >>> c = Qwen2MoeConfig.from_dict({"architectures": ["Qwen2MoeForCausalLM"], "vocab_size": 8,
        ...     "hidden_size": 32, "intermediate_size": 8, "num_hidden_layers": 1, "num_attention_heads": 16,
        ...     "num_experts": 4, "num_experts_per_tok": 2, "norm_topk_prob": True, "mlp_only_layers": []})
        >>> c.norm_topk_prob, c.num_key_value_heads
        (True, 16)
        """
        if not isinstance(d, Mapping):
            return super().from_dict(d, source=source)  # names what is wrong
        flags = {}
        for name in ("norm_topk_prob", "qkv_bias"):
            value = d.get(name)
            if value is None:
                continue
            if not isinstance(value, bool):
                raise ModelFileError(f"{source}: {name} must be true or false, got {short_repr(value)}")
            flags[name] = value
        c = super().from_dict({k: v for k, v in d.items() if k not in flags}, source=source)
        try:
            return dataclasses.replace(c, **flags)
        except (TypeError, ValueError) as err:  # pragma: no cover - the flags were checked above
            raise ModelFileError(f"{source}: {err}") from None

    @property
    def n_experts(self) -> int:
        return self.num_experts

    @property
    def shared_expert(self) -> bool:
        """Whether every MoE layer has a shared expert beside the routed ones."""
        return True

    def to_dict(self) -> dict:
        """The ``config.json`` transformers 5 writes for a ``Qwen2MoeForCausalLM``."""
        out = super().to_dict()
        out.update(num_experts=self.num_experts, num_experts_per_tok=self.num_experts_per_tok,
                   moe_intermediate_size=self.moe_intermediate_size,
                   shared_expert_intermediate_size=self.shared_expert_intermediate_size,
                   norm_topk_prob=self.norm_topk_prob, decoder_sparse_step=1, mlp_only_layers=[],
                   qkv_bias=self.qkv_bias, output_router_logits=False, router_aux_loss_coef=0.001,
                   sliding_window=0)
        return out
