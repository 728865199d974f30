"""A loaded model run forward: :class:`Model` (the Llama or Mixtral forward pass built
from the engine's own pieces, and generation), its traces, and seeded random models
(:func:`random_model`, the chapter's :func:`tiny_model`)."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

import numpy as np

from .. import bpe, decoder, embedding, norms, sampling
from .. import examples as ex
from .._checks import as_int
from ..safefiles import ModelFileError, short_repr
from .config import TOKENIZER_NAME, LlamaConfig, MixtralConfig
from .tensors import _check_tensors, _stored_dtype, tensor_role, tensor_shapes

__all__ = [
    "ForwardTrace",
    "GenerationTrace",
    "Model",
    "random_model",
    "random_tensors",
    "tiny_config",
    "tiny_model",
    "tiny_tokenizer",
]


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
        w = decoder.LayerWeights.from_linear(
            attn_norm=t[p + "input_layernorm.weight"], q_proj=t[p + "self_attn.q_proj.weight"],
            k_proj=t[p + "self_attn.k_proj.weight"], v_proj=t[p + "self_attn.v_proj.weight"],
            o_proj=t[p + "self_attn.o_proj.weight"], ffn_norm=t[p + "post_attention_layernorm.weight"],
            heads=c.num_attention_heads, kv_heads=c.num_key_value_heads, rope_base=c.rope_theta,
            eps=c.rms_norm_eps, **ffn,
        )
        # the transposed views are strided; contiguous copies let NumPy hand every product to BLAS
        return dataclasses.replace(w, **{f.name: np.ascontiguousarray(getattr(w, f.name)) for f in dataclasses.fields(w)
                                         if isinstance(getattr(w, f.name), np.ndarray)})

    @property
    def parameter_count(self) -> int:
        """Numbers stored, each tensor counted once (a tied head adds none)."""
        return int(sum(a.size for a in self.tensors.values()))

    def tensor_table(self) -> list[tuple[str, tuple[int, ...], str, str]]:
        """(name, shape, dtype, role in the forward pass) of every tensor, in forward order."""
        return [(n, self.tensors[n].shape, self.dtypes.get(n, "F64"), tensor_role(n)) for n in self.tensors]

    # ---------------------------------------------------------------- running

    def _ids(self, ids) -> np.ndarray:
        ids = embedding.check_ids(ids, self.config.vocab_size)
        if ids.ndim != 1 or ids.size < 1:
            raise ValueError(f"ids must be a non-empty 1-D sequence [T], got shape {list(ids.shape)}")
        return ids

    def forward(self, ids, *, replace: Mapping[int, decoder.LayerWeights] | None = None) -> ForwardTrace:
        """Run the whole model on one sequence ``ids [T]`` and keep every step.

        ``replace`` maps layer indices to other weights for those layers (an ablation:
        a head's output rows of W_O zeroed, an expert removed from a router); the
        model's own weights are never changed.

        >>> m = random_model(LlamaConfig(10, 8, 16, 2, 4, 2), seed=0)
        >>> tr = m.forward([3, 7, 3, 2]); len(tr.layers), tr.logits.shape
        (2, (4, 10))
        """
        ids = self._ids(ids)
        c = self.config
        replace = self._replacements(replace)
        x = embedding.lookup(self.embedding, ids)  # [T, d]
        layers, h = [], x[None]  # a batch of one sequence: [1, T, d]
        for i in range(c.num_hidden_layers):
            layers.append(decoder.decoder_layer(h, replace.get(i) or self.layer_weights(i)))
            h = layers[-1].out
        final = norms.rms_norm(h[0], self.tensors["model.norm.weight"], eps=c.rms_norm_eps)
        z = embedding.logits(final, self.w_out)  # [T, V]
        return ForwardTrace(ids=ids, x=x, layers=tuple(layers), final=final, logits=z)

    def _replacements(self, replace) -> dict[int, decoder.LayerWeights]:
        if replace is None:
            return {}
        if not isinstance(replace, Mapping):
            raise TypeError(f"replace must be a mapping of layer index -> LayerWeights, got {type(replace).__name__}")
        out = {}
        for i, w in replace.items():
            i = as_int("replace's layer index", i, low=0, high=self.config.num_hidden_layers - 1)
            if not isinstance(w, decoder.LayerWeights) or w.d != self.config.hidden_size:
                raise TypeError(f"replace[{i}] must be a LayerWeights of width {self.config.hidden_size}, "
                                f"got {type(w).__name__}")
            out[i] = w
        return out

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
        loop = sampling.generate(ids, steps, logits_fn=self.logits, seed=seed, temperature=temperature, top_k=top_k)
        prompt_ids = ids
        ids = np.append(prompt_ids, [s.sampled for s in loop])
        text = None
        if self.tokenizer is not None:
            known = [int(i) for i in ids if i < self.tokenizer.n_vocab]
            text = self.tokenizer.decode(known, errors="replace")
        return GenerationTrace(prompt_ids, ids[prompt_ids.size:], np.array([s.probs for s in loop]), text)


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
