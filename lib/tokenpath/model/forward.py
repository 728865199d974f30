"""A loaded model run forward: :class:`Model` (the forward pass of a Llama-family model,
Llama, Mistral, Mixtral, Qwen2 or Qwen3, built from the engine's own pieces, with a K/V
cache for generation), its traces, and seeded
random models (:func:`random_model`). The chapter's tiny model lives with its lessons
(:mod:`tokenpath.lessons.model_files`): the model core takes no teaching constants."""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

import numpy as np

from .. import bpe, chat_template, decoder, embedding, norms, sampling
from .._checks import as_int
from ..position import rope_tables
from ..safefiles import ModelFileError, short_repr
from .cache import KVCache
from .config import TOKENIZER_NAME, LlamaConfig
from .qwen2_moe import Qwen2MoeConfig
from .tensors import _check_tensors, _stored_dtype, count_parameters, tensor_role, tensor_shapes

__all__ = [
    "FLOAT64_MAX_PARAMETERS",
    "ForwardTrace",
    "GenerationTrace",
    "Model",
    "random_model",
    "random_tensors",
]

#: The largest model (in stored numbers) that computes in float64 unless told otherwise:
#: the book's teaching models (chapter 10's 17,008 parameters, chapter 11's trained
#: mixture of experts), whose printed digits and whose stated agreement with
#: ``transformers`` were measured in float64, and for which the copy costs nothing. A
#: model past it (any real one: SmolLM2-135M stores 134,515,008) computes in float32, the
#: precision its weights have after loading, and keeps them without a float64 copy.
FLOAT64_MAX_PARAMETERS = 1 << 24

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
    """A Llama-family model held as the tensors of its files, with its config and tokenizer.

    ``tensors`` maps Hugging Face names to arrays in the stored ``[d_out, d_in]`` layout;
    they are checked against ``config`` (every name present, every shape right,
    nothing extra, every number finite) and kept read-only in the model's ``dtype``.
    ``dtypes`` records each tensor's dtype in the file.

    ``dtype`` is the precision the model computes in: ``np.float32`` or ``np.float64``.
    The default (None) is float64 for a model of at most :data:`FLOAT64_MAX_PARAMETERS`
    numbers (the book's teaching models: the digits chapters 10 and 11 print, and their
    agreement with ``transformers`` to 1e-5, were measured in float64, and the copy costs
    nothing at that size) and float32 above it: a real model computes in its weights'
    own precision after loading, and float32 arrays are kept as they are, not copied.

    >>> Model(LlamaConfig(10, 8, 16, 1, 4, 2), random_tensors(LlamaConfig(10, 8, 16, 1, 4, 2), seed=0)).dtype
    dtype('float64')
    """

    def __init__(self, config: LlamaConfig, tensors: Mapping[str, np.ndarray], tokenizer: bpe.Tokenizer | None = None,
                 *, dtypes: Mapping[str, str] | None = None, source: str = "tensors", dtype=None):
        if not isinstance(config, LlamaConfig):
            raise TypeError(f"config must be a LlamaConfig, got {type(config).__name__}")
        if tokenizer is not None and not isinstance(tokenizer, bpe.Tokenizer):
            raise TypeError(f"tokenizer must be a tokenpath.bpe.Tokenizer or None, got {type(tokenizer).__name__}")
        if dtypes is not None and (not isinstance(dtypes, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in dtypes.items())):
            raise TypeError(f"dtypes must be a mapping of tensor name -> dtype name (str -> str), got "
                            f"{short_repr(dtypes)}")
        if dtype is None:
            small = count_parameters(config).total <= FLOAT64_MAX_PARAMETERS
            dtype = np.float64 if small else np.float32
        self.dtype = _check_dtype(dtype)
        self.config = config
        self.tensors = MappingProxyType(_check_tensors(config, tensors, source, dtype=self.dtype))
        self.dtypes = MappingProxyType({k: _stored_dtype(k, dtypes or {}) for k in self.tensors})
        if tokenizer is not None and tokenizer.n_vocab > config.vocab_size:
            raise ModelFileError(f"{TOKENIZER_NAME}: the tokenizer has {tokenizer.n_vocab} IDs but config vocab_size "
                                 f"is {config.vocab_size}; IDs >= {config.vocab_size} would have no embedding row")
        self.tokenizer = tokenizer
        self._layers: dict[int, decoder.LayerWeights] = {}  # built once each: the tensors are read-only
        self._rope = np.zeros((2, 0, config.head_dim // 2), dtype=self.dtype)  # cos, sin of positions 0 … n−1

    def __repr__(self) -> str:
        c = self.config
        experts = f", experts={c.n_experts}, k={c.num_experts_per_tok}" if c.n_experts else ""
        return (f"Model(V={c.vocab_size}, d={c.hidden_size}, L={c.num_hidden_layers}, Hq={c.num_attention_heads}, "
                f"Hkv={c.num_key_value_heads}, d_ff={c.intermediate_size}{experts}, tied={c.tie_word_embeddings})")

    def astype(self, dtype) -> "Model":
        """The same model computing in ``dtype`` (float32 or float64); ``self`` when it
        already does.

        >>> m = random_model(LlamaConfig(10, 8, 16, 1, 4, 2), seed=0)
        >>> m.dtype, m.astype(np.float32).dtype, m.astype(np.float64) is m
        (dtype('float64'), dtype('float32'), True)
        """
        dtype = _check_dtype(dtype)
        if dtype == self.dtype:
            return self
        return Model(self.config, self.tensors, self.tokenizer, dtypes=self.dtypes, source="Model.astype", dtype=dtype)

    # ---------------------------------------------------------------- parameters

    @property
    def embedding(self) -> np.ndarray:
        """E [V, d]."""
        return self.tensors["model.embed_tokens.weight"]

    @property
    def w_out(self) -> np.ndarray:
        """The output projection [d, V]: Eᵀ when tied, else lm_head.weightᵀ (a view, not a copy)."""
        if self.config.tie_word_embeddings:
            return self.embedding.T
        return self.tensors["lm_head.weight"].T

    def layer_weights(self, i: int) -> decoder.LayerWeights:
        """Layer ``i``'s parameters as a :class:`tokenpath.decoder.LayerWeights`,
        transposed to the book's ``x @ W`` convention (the one place that transposes).
        The transposes are views of the stored tensors: BLAS reads a transposed matrix
        as it is, so nothing is copied. Built and checked once per layer, then reused:
        every tensor is read-only.

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
        if isinstance(c, Qwen2MoeConfig):  # routed experts, a shared expert and its sigmoid gate
            def experts(w):  # [E, d_out, d_in] in expert order
                return np.stack([t[p + f"mlp.experts.{e}.{w}_proj.weight"] for e in range(c.n_experts)])

            s = p + "mlp.shared_expert."
            ffn = dict(gate_proj=experts("gate"), up_proj=experts("up"), down_proj=experts("down"),
                       router=t[p + "mlp.gate.weight"], experts_per_token=c.num_experts_per_tok,
                       norm_topk_prob=c.norm_topk_prob, shared_gate_proj=t[s + "gate_proj.weight"],
                       shared_up_proj=t[s + "up_proj.weight"], shared_down_proj=t[s + "down_proj.weight"],
                       shared_expert_gate=t[p + "mlp.shared_expert_gate.weight"])
        elif c.n_experts:
            def experts(w):  # [E, d_out, d_in] in expert order
                return np.stack([t[p + f"block_sparse_moe.experts.{e}.{w}.weight"] for e in range(c.n_experts)])

            ffn = dict(gate_proj=experts("w1"), up_proj=experts("w3"), down_proj=experts("w2"),
                       router=t[p + "block_sparse_moe.gate.weight"], experts_per_token=c.num_experts_per_tok)
        else:
            ffn = dict(gate_proj=t[p + "mlp.gate_proj.weight"], up_proj=t[p + "mlp.up_proj.weight"],
                       down_proj=t[p + "mlp.down_proj.weight"])
        extras = {f"b_{n}": t[p + f"self_attn.{n}_proj.bias"] for n in "qkv" if c.qkv_bias}
        if c.o_bias:
            extras["b_o"] = t[p + "self_attn.o_proj.bias"]
        if c.qk_norm:
            extras.update(q_norm=t[p + "self_attn.q_norm.weight"], k_norm=t[p + "self_attn.k_norm.weight"])
        return decoder.LayerWeights.from_linear(
            attn_norm=t[p + "input_layernorm.weight"], q_proj=t[p + "self_attn.q_proj.weight"],
            k_proj=t[p + "self_attn.k_proj.weight"], v_proj=t[p + "self_attn.v_proj.weight"],
            o_proj=t[p + "self_attn.o_proj.weight"], ffn_norm=t[p + "post_attention_layernorm.weight"],
            heads=c.num_attention_heads, kv_heads=c.num_key_value_heads, rope_base=c.rope_theta,
            eps=c.rms_norm_eps, rope_scaling=c.rope_scaling, **ffn, **extras,
        )

    @property
    def parameter_count(self) -> int:
        """Numbers stored, each tensor counted once (a tied head adds none)."""
        return int(sum(a.size for a in self.tensors.values()))

    def tensor_table(self) -> list[tuple[str, tuple[int, ...], str, str]]:
        """(name, shape, dtype, role in the forward pass) of every tensor, in forward order."""
        return [(n, self.tensors[n].shape, self.dtypes.get(n, "F64"), tensor_role(n)) for n in self.tensors]

    # ---------------------------------------------------------------- running

    def _ids(self, ids, name: str = "ids", *, before: int = 0) -> np.ndarray:
        """``ids`` checked: a non-empty 1-D sequence of IDs the model has rows for, which,
        after ``before`` cached positions, stays inside a sliding window the config has
        (Mistral's, which this engine runs only as long as it hides no key)."""
        ids = embedding.check_ids(ids, self.config.vocab_size, name=name)
        if ids.ndim != 1 or ids.size < 1:
            raise ValueError(f"{name} must be a non-empty 1-D sequence [T], got shape {list(ids.shape)}")
        window = getattr(self.config, "sliding_window", None)
        if window is not None and before + ids.size > window:
            raise ValueError(f"{name} would make {before + ids.size} positions, more than the config's sliding_window "
                             f"of {window}: the earliest keys would fall outside the window, which this engine does "
                             "not compute")
        return ids

    def _rope_rows(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """cos, sin ``[stop − start, d_h/2]`` of positions ``start … stop−1``, from a table
        computed once and grown (doubling) when a longer sequence arrives."""
        if stop > self._rope.shape[1]:
            n = max(stop, 2 * self._rope.shape[1], 64)
            self._rope = np.stack(rope_tables(np.arange(n), self.config.head_dim, self.config.rope_theta,
                                              dtype=self.dtype, scaling=self.config.rope_scaling))
        return self._rope[0, start:stop], self._rope[1, start:stop]

    def _run(self, ids: np.ndarray, *, cache: KVCache | None = None, keep: bool = False,
             replace: Mapping[int, decoder.LayerWeights] | None = None, last: bool = False):
        """The forward pass on checked ``ids [T]``, through :func:`tokenpath.decoder._layer_core`
        (the arithmetic :func:`tokenpath.decoder.decoder_layer` runs too). With a ``cache``
        the rows continue the cached positions and their keys and values are appended
        to it. ``keep`` keeps every layer's intermediates; ``last`` scores only the last
        row. Returns ``(x, layers, final, logits)``."""
        c, t = self.config, ids.size
        start = 0 if cache is None else cache.length
        cos, sin = self._rope_rows(start, start + t)  # [T, d_h/2] each
        x = self.embedding[ids]  # [T, d] rows of E
        h, layers = x[None], []  # a batch of one sequence: [1, T, d]
        for i in range(c.num_hidden_layers):
            w = (replace or {}).get(i) or self.layer_weights(i)
            past = None if cache is None else cache.layer(i)
            if w.dtype != h.dtype:  # a replacement in another precision computes in its own
                h, cos_i, sin_i = h.astype(w.dtype), cos.astype(w.dtype), sin.astype(w.dtype)
                past = None if past is None else (past[0].astype(w.dtype), past[1].astype(w.dtype))
            else:
                cos_i, sin_i = cos, sin
            h, kv, kept = decoder._layer_core(h, w, cos_i, sin_i, past=past, keep=keep)
            h = h.astype(self.dtype, copy=False)
            if cache is not None:
                cache.store(i, kv[0].astype(self.dtype, copy=False), kv[1].astype(self.dtype, copy=False))
            if keep:
                layers.append(decoder.LayerTrace(positions=np.arange(start, start + t), **kept))
        if cache is not None:
            cache.advance(ids)
        rows = h[0, -1:] if last else h[0]  # [T, d] (or [1, d])
        final = norms._rms_norm(rows, self.tensors["model.norm.weight"], c.rms_norm_eps)
        return x, layers, final, decoder._project(final, self.w_out)  # logits [T, V]: row t scores the next ID

    def forward(self, ids, *, replace: Mapping[int, decoder.LayerWeights] | None = None) -> ForwardTrace:
        """Run the whole model on one sequence ``ids [T]`` and keep every step.

        ``replace`` maps layer indices to other weights for those layers (an ablation:
        a head's output rows of W_O zeroed, an expert removed from a router); the
        model's own weights are never changed. The logits are bit for bit those of
        :meth:`logits`: the same arithmetic, with the intermediates kept.

        >>> m = random_model(LlamaConfig(10, 8, 16, 2, 4, 2), seed=0)
        >>> tr = m.forward([3, 7, 3, 2]); len(tr.layers), tr.logits.shape
        (2, (4, 10))
        """
        ids = self._ids(ids)
        x, layers, final, z = self._run(ids, keep=True, replace=self._replacements(replace))
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

    def logits(self, ids, *, cache: KVCache | None = None) -> np.ndarray:
        """Logits ``[T, V]`` for a 1-D sequence of IDs (row t scores the next ID), in the
        model's dtype, with no intermediate kept.

        ``cache`` (a :class:`KVCache` from :meth:`new_cache`) makes ``ids`` the
        continuation of the positions it holds: only the new rows are computed, each
        seeing every cached key and the new ones up to its own (chapter 4's cache
        mask), and their keys and values are added to the cache.

        >>> m = random_model(LlamaConfig(10, 8, 16, 1, 4, 2), seed=0)
        >>> cache = m.new_cache(); first = m.logits([1, 2], cache=cache); more = m.logits([3], cache=cache)
        >>> m.logits([1, 2]).shape, cache.length, bool(np.allclose(more, m.logits([1, 2, 3])[-1:]))
        ((2, 10), 3, True)
        """
        if cache is not None:
            self._check_cache(cache)
        ids = self._ids(ids, before=0 if cache is None else cache.length)
        return self._run(ids, cache=cache)[3]

    def new_cache(self) -> KVCache:
        """An empty K/V cache for this model: one (keys, values) pair per layer."""
        return KVCache(self.config.num_hidden_layers, self.config.num_key_value_heads, self.config.head_dim,
                       self.dtype)

    def _check_cache(self, cache) -> None:
        if not isinstance(cache, KVCache) or cache.shape != (self.config.num_hidden_layers,
                                                             self.config.num_key_value_heads, self.config.head_dim):
            raise TypeError(f"cache must be a KVCache from this model's new_cache(), got {short_repr(cache)}")

    def encode(self, text: str) -> np.ndarray:
        """IDs of ``text`` with the model's tokenizer (special tokens as ordinary text)."""
        if self.tokenizer is None:
            raise ValueError("this model has no tokenizer; load a directory with tokenizer.json or pass one")
        return np.array(self.tokenizer.encode(text, disallowed_special=()), dtype=np.int64)

    def chat_ids(self, messages, *, add_generation_prompt: bool = True) -> np.ndarray:
        """IDs of a conversation in the model's own chat template, as
        ``apply_chat_template(messages, tokenize=True)`` gives them: the template (from the
        GGUF file or ``tokenizer_config.json``) rendered with ``jinja2``, then encoded with
        its special tokens parsed (:func:`tokenpath.chat_template.chat_ids`).
        ``add_generation_prompt`` ends it with the opening of the assistant's turn."""
        if self.tokenizer is None:
            raise ValueError("this model has no tokenizer; load a directory with tokenizer.json or pass one")
        ids = chat_template.chat_ids(self.tokenizer, messages, add_generation_prompt=add_generation_prompt)
        return np.array(ids, dtype=np.int64)

    def generate(self, prompt, steps: int, *, seed: int = 0, temperature: float = 1.0, top_k: int | None = None,
                 top_p: float | None = None, use_cache: bool = True, stop_at_eos: bool = True) -> GenerationTrace:
        """The sampling loop of :func:`tokenpath.sampling.generate`: turn the last row of
        logits into a distribution, draw one ID (seeded), append it, repeat, at most
        ``steps`` times. ``prompt`` is a string (encoded with the tokenizer) or a
        sequence of IDs.

        ``temperature=0`` is greedy; ``top_k`` keeps the k largest logits, ``top_p`` the
        smallest set of most likely IDs holding probability ``top_p`` (nucleus sampling).
        With ``use_cache`` (the default) the prompt runs once (prefill) and then one
        position per step, reading the earlier keys and values from a :class:`KVCache`;
        without it every step recomputes the whole prefix, with the same result up to
        rounding. If the config names an ``eos_token_id`` and ``stop_at_eos`` is true,
        drawing it ends the loop (the EOS is kept as the last sampled ID). ``steps`` is at
        least 1 and at most what ``max_position_embeddings`` leaves after the prompt.

        >>> m = random_model(LlamaConfig(10, 8, 16, 1, 4, 2), seed=0)
        >>> g = m.generate([3, 7], 3, seed=0); g.ids.size
        5
        """
        ids = self.encode(prompt) if isinstance(prompt, str) else self._ids(prompt, "prompt")
        room = self.config.max_position_embeddings - ids.size
        if room < 1:
            raise ValueError(f"prompt holds {ids.size} IDs, but the config's max_position_embeddings is "
                             f"{self.config.max_position_embeddings}: no position is left to generate into")
        steps = as_int("steps", steps, low=1, high=room)  # every new ID needs a position the model knows
        for name, flag in (("use_cache", use_cache), ("stop_at_eos", stop_at_eos)):
            if not isinstance(flag, bool):
                raise TypeError(f"{name} must be True or False, got {type(flag).__name__}")
        stop = (self.config.eos_token_id,) if stop_at_eos and self.config.eos_token_id is not None else ()
        if use_cache:
            cache = self.new_cache()

            def next_logits(prefix):  # only the positions the cache has not seen
                return self._run(prefix[cache.length:], cache=cache, last=True)[3][-1]
        else:
            def next_logits(prefix):
                return self._run(prefix, last=True)[3][-1]
        loop = sampling.generate(ids, steps, next_logits=next_logits, seed=seed, temperature=temperature,
                                 top_k=top_k, top_p=top_p, stop=stop)
        sampled = np.array([s.sampled for s in loop], dtype=np.int64)
        text = None
        if self.tokenizer is not None:
            known = [int(i) for i in np.concatenate([ids, sampled]) if i < self.tokenizer.n_vocab]
            text = self.tokenizer.decode(known, errors="replace")
        return GenerationTrace(ids, sampled, np.array([s.probs for s in loop]), text)


def _check_dtype(dtype) -> np.dtype:
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype must be np.float32 or np.float64, got {short_repr(dtype)}") from None
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype must be np.float32 or np.float64, got {dt}")
    return dt


# ------------------------------------------------------------ random checkpoints


def random_tensors(config: LlamaConfig, *, seed: int) -> dict[str, np.ndarray]:
    """Seeded random float32 tensors for every name the config implies: an untrained
    model, good for shapes, file formats and cross-checks, not for meaning.

    Projections are normal with standard deviation ``1/√d_in``; the embedding is
    normal with standard deviation 1; every RMSNorm weight is ``1 + 0.2·normal`` so a
    norm that ignores its weight shows, and every bias ``0.2·normal``.

    >>> t = random_tensors(LlamaConfig(10, 8, 16, 1, 4, 2), seed=0)
    >>> t["model.layers.0.self_attn.k_proj.weight"].shape, t["model.norm.weight"].dtype
    ((4, 8), dtype('float32'))
    """
    seed = as_int("seed", seed, low=0)
    rng = np.random.default_rng(seed)
    out = {}
    for name, shape in tensor_shapes(config).items():
        if len(shape) == 1:  # a norm's weight near 1, a bias near 0
            out[name] = ((0.0 if name.endswith(".bias") else 1.0) + 0.2 * rng.standard_normal(shape)).astype(np.float32)
            continue
        scale = 1.0 if "embed_tokens" in name or name == "lm_head.weight" else 1.0 / math.sqrt(shape[1])
        a = np.empty(shape, dtype=np.float32)
        for r in range(0, shape[0], _DRAW_ROWS):  # the same stream as one draw, with a small float64 buffer
            block = rng.standard_normal((min(_DRAW_ROWS, shape[0] - r), shape[1]))
            a[r:r + block.shape[0]] = block if scale == 1.0 else block / math.sqrt(shape[1])
        out[name] = a
    return out


_DRAW_ROWS = 2048  # rows of a random matrix drawn at a time: a 49,152-row embedding never exists in float64


def random_model(config: LlamaConfig, *, seed: int, tokenizer: bpe.Tokenizer | None = None, dtype=None) -> Model:
    """A :class:`Model` of seeded random float32 weights (see :func:`random_tensors`),
    computing in ``dtype`` (:class:`Model`'s default when None).

    >>> random_model(LlamaConfig(10, 8, 16, 1, 4, 2, tie_word_embeddings=True), seed=0).parameter_count
    680
    """
    tensors = random_tensors(config, seed=seed)
    return Model(config, tensors, tokenizer, dtypes={k: "F32" for k in tensors}, source=f"random_model(seed={seed})",
                 dtype=dtype)
