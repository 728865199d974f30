"""Real model files: a Hugging Face-layout Llama-family directory, written, read and run.

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
the forward pass, composed from the engine's own pieces and nothing else: the
embedding lookup, the arithmetic of one :func:`tokenpath.decoder.decoder_layer` per
layer (RMSNorm, RoPE with the ``rotate_half`` pairing, grouped-query causal attention,
SwiGLU, the residual adds), the final RMSNorm and the tied or untied head;
:meth:`Model.forward` runs the same arithmetic and keeps every intermediate.
:meth:`Model.generate` is :func:`tokenpath.sampling.generate`'s sampling loop run on it,
with a :class:`KVCache`: the prompt once, then one position per step. A model of the
book's size computes in float64, a real one in float32 (:data:`FLOAT64_MAX_PARAMETERS`).

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

The folders readers download are other families of the same skeleton
(:mod:`tokenpath.model.families`): ``Qwen2ForCausalLM`` (biases on W_Q, W_K, W_V),
``Qwen3ForCausalLM`` (an RMSNorm on every query and key head, a ``head_dim`` of its
own), ``MistralForCausalLM`` (Llama's shapes, with a ``sliding_window`` that must hide
nothing), ``Qwen2MoeForCausalLM`` (Qwen2's attention, routed experts and a
sigmoid-gated shared expert in every layer: :mod:`tokenpath.model.qwen2_moe`; fused
in-memory experts are split as Mixtral's are), and Llama 3.1's ``rope_type: "llama3"`` frequencies
(:class:`tokenpath.position.Llama3Scaling`); bf16 and sharded folders as
``save_pretrained`` writes them load too, bf16 widened to float32.

Hugging Face stores an ``nn.Linear`` weight as ``[d_out, d_in]``; the book computes
``y = x @ W`` with ``W [d_in, d_out]``, so every projection is transposed on the way
in (:meth:`Model.layer_weights`) and nowhere else.
"""

# The names of the modules below, where each is defined (and a few constants outside __all__).
from ..safefiles import ModelFileError
from .cache import KVCache
from .config import (ARCHITECTURE, CONFIG_NAME, INDEX_NAME, MAX_CONFIG_BYTES, MAX_JSON_BYTES, MIXTRAL_ARCHITECTURE,
                     TOKENIZER_CONFIG_NAME, TOKENIZER_NAME, WEIGHTS_NAME, LlamaConfig, MixtralConfig, read_config)
from .families import (MISTRAL_ARCHITECTURE, QWEN2_ARCHITECTURE, QWEN3_ARCHITECTURE, MistralConfig, Qwen2Config,
                       Qwen3Config)
from .qwen2_moe import QWEN2_MOE_ARCHITECTURE, Qwen2MoeConfig
from .files import list_files, load, save
from .forward import FLOAT64_MAX_PARAMETERS, ForwardTrace, GenerationTrace, Model, random_model, random_tensors
from .tensors import ParameterCount, count_parameters, tensor_role, tensor_shapes
from .gguf_tokenizer import tokenizer_from_gguf
from .tokenizer_file import (TOKENIZER_MAX_BYTES, TOKENIZER_MAX_CONTAINERS, read_tokenizer, tokenizer_json,
                             write_tokenizer)

__all__ = [
    "ARCHITECTURE",
    "CONFIG_NAME",
    "FLOAT64_MAX_PARAMETERS",
    "INDEX_NAME",
    "MISTRAL_ARCHITECTURE",
    "MIXTRAL_ARCHITECTURE",
    "QWEN2_ARCHITECTURE",
    "QWEN2_MOE_ARCHITECTURE",
    "QWEN3_ARCHITECTURE",
    "TOKENIZER_NAME",
    "WEIGHTS_NAME",
    "ForwardTrace",
    "GenerationTrace",
    "KVCache",
    "LlamaConfig",
    "MistralConfig",
    "MixtralConfig",
    "Model",
    "ModelFileError",
    "ParameterCount",
    "Qwen2Config",
    "Qwen2MoeConfig",
    "Qwen3Config",
    "count_parameters",
    "list_files",
    "load",
    "random_model",
    "random_tensors",
    "read_config",
    "read_tokenizer",
    "save",
    "tensor_role",
    "tensor_shapes",
    "tokenizer_from_gguf",
    "tokenizer_json",
    "write_tokenizer",
]
