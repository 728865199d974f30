"""A Llama model from one GGUF file: the configuration from its ``llama.*`` metadata, the
weights renamed to the Hugging Face names the rest of the engine uses, dequantized to
float32 (:mod:`tokenpath.gguf_format`).

GGUF names and Hugging Face names, layer ``N``:

======================  ==============================================
GGUF                    Hugging Face (``model.`` prefix)
======================  ==============================================
token_embd.weight       embed_tokens.weight
blk.N.attn_norm.weight  layers.N.input_layernorm.weight
blk.N.attn_q/k/v.weight layers.N.self_attn.q_proj/k_proj/v_proj.weight
blk.N.attn_output       layers.N.self_attn.o_proj.weight
blk.N.ffn_norm.weight   layers.N.post_attention_layernorm.weight
blk.N.ffn_gate/up/down  layers.N.mlp.gate_proj/up_proj/down_proj.weight
output_norm.weight      norm.weight
output.weight           lm_head.weight (absent: the head is tied to the embedding)
======================  ==============================================

A GGUF shape is ggml's ``ne`` reversed, which is already the ``[d_out, d_in]`` of an
``nn.Linear`` weight, so nothing is transposed here.

**The rows of W_Q and W_K are put back in Hugging Face's order.** RoPE turns pairs of
coordinates of each head. Hugging Face's Llama (and the book, chapter 6's
``rotate_half``) pairs coordinate ``i`` with ``i + d_h/2``; llama.cpp pairs neighbours
``2i`` and ``2i + 1``. So that the same weights give the same attention under its own
pairing, llama.cpp's converter (``LlamaModel.permute`` in ``convert_hf_to_gguf.py``)
reorders the rows of every head of W_Q and W_K: row ``i`` of a head's first half goes to
``2i`` and row ``i`` of its second half to ``2i + 1``. :func:`unpermute_rows` undoes
that, so the book's ``rotate_half`` RoPE applies to the loaded weights unchanged (the
other choice, keeping the file's order and switching to the neighbour pairing, would
mean a second RoPE on the hot path). ``transformers`` undoes the same permutation when
it reads a GGUF file; the cross-check test compares both the weights and the logits.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ..gguf_format import GGUFFile, read_gguf
from ..safefiles import ModelFileError, as_path, short_repr
from .config import LlamaConfig
from .forward import Model
from .gguf_tokenizer import tokenizer_from_gguf
from .tensors import _match_names_and_shapes

__all__ = [
    "GGUF_ARCHITECTURE",
    "dequantize_as_hf",
    "gguf_config",
    "gguf_tensor_name",
    "load_gguf",
    "unpermute_rows",
]

#: The one ``general.architecture`` read here.
GGUF_ARCHITECTURE = "llama"

_GLOBAL_NAMES = {"token_embd.weight": "model.embed_tokens.weight", "output_norm.weight": "model.norm.weight",
                 "output.weight": "lm_head.weight"}
_LAYER_NAMES = {"attn_norm": "input_layernorm", "attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj",
                "attn_v": "self_attn.v_proj", "attn_output": "self_attn.o_proj",
                "ffn_norm": "post_attention_layernorm", "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj",
                "ffn_down": "mlp.down_proj"}
_LAYER = re.compile(r"blk\.(0|[1-9][0-9]{0,5})\.([a-z_]+)\.weight")
_INTEGER_TYPES = ("UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "UINT64", "INT64")


def gguf_tensor_name(name: str) -> str | None:
    """The Hugging Face name of GGUF tensor ``name``, or None for a name a Llama does not have.

    >>> gguf_tensor_name("blk.3.attn_q.weight"), gguf_tensor_name("token_embd.weight")
    ('model.layers.3.self_attn.q_proj.weight', 'model.embed_tokens.weight')
    >>> gguf_tensor_name("rope_freqs.weight") is None
    True
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a GGUF tensor name (str), got {type(name).__name__}")
    if name in _GLOBAL_NAMES:
        return _GLOBAL_NAMES[name]
    m = _LAYER.fullmatch(name)
    if m and m.group(2) in _LAYER_NAMES:
        return f"model.layers.{m.group(1)}.{_LAYER_NAMES[m.group(2)]}.weight"
    return None


def unpermute_rows(w: np.ndarray, n_heads: int) -> np.ndarray:
    """Undo llama.cpp's reordering of the rows of W_Q (``n_heads`` query heads) or W_K
    (``n_heads`` K/V heads): within each head, rows ``0, 2, 4, …`` go back to the first
    half and rows ``1, 3, 5, …`` to the second half. ``w`` is ``[n_heads · d_h, d_in]``.

    >>> unpermute_rows(np.array([[0], [10], [1], [11]]), 1)[:, 0].tolist()  # one head, d_h = 4
    [0, 1, 10, 11]
    """
    if not isinstance(w, np.ndarray):
        raise TypeError(f"w must be a numpy array [n_heads · d_h, d_in], got {type(w).__name__}")
    if isinstance(n_heads, bool) or not isinstance(n_heads, int) or n_heads < 1:
        raise TypeError(f"n_heads must be a positive integer, got {short_repr(n_heads)}")
    if w.ndim != 2 or w.shape[0] % (2 * n_heads):
        raise ValueError(f"w must be [n_heads · d_h, d_in] with an even d_h; got shape {w.shape} for "
                         f"n_heads={n_heads}")
    rows, d_in = w.shape
    # [head, pair i, which of the pair, d_in] → [head, which of the pair, pair i, d_in]
    return w.reshape(n_heads, rows // n_heads // 2, 2, d_in).swapaxes(1, 2).reshape(rows, d_in)


def _meta(g: GGUFFile, key: str, kinds, *, default=None):
    if key not in g.metadata:
        if default is None:
            raise ModelFileError(f"{g.path}: has no metadata {key!r}, which a {GGUF_ARCHITECTURE} model needs")
        return default
    value, kind = g.metadata[key], g.value_types[key]
    if kind not in kinds:
        raise ModelFileError(f"{g.path}: metadata {key!r} is {kind}; expected {' or '.join(kinds)}")
    if kind.startswith("FLOAT") and not math.isfinite(value):
        raise ModelFileError(f"{g.path}: metadata {key!r} is {value}; expected a finite number")
    return value


def _optional_id(g: GGUFFile, key: str) -> int | None:
    value = _meta(g, key, _INTEGER_TYPES, default=-1)
    return None if value == -1 else value


def gguf_config(g: GGUFFile) -> LlamaConfig:
    """The :class:`LlamaConfig` that ``g``'s ``llama.*`` metadata describes.

    Refused by name: another architecture, RoPE scaling other than none, a RoPE
    dimension other than the head size, vocabulary sizes that disagree.

    >>> c = gguf_config(read_gguf(_tiny_gguf()))
    >>> c.num_hidden_layers, c.head_dim, c.num_key_value_heads, c.tie_word_embeddings
    (1, 2, 2, True)
    """
    if not isinstance(g, GGUFFile):
        raise TypeError(f"g must be a tokenpath.gguf_format.GGUFFile, got {type(g).__name__}")
    arch = _meta(g, "general.architecture", ("STRING",))
    if arch != GGUF_ARCHITECTURE:
        raise ModelFileError(f"{g.path}: metadata 'general.architecture' is {short_repr(arch)}; this reader builds "
                             f"only {GGUF_ARCHITECTURE!r} models")
    p, ints, floats = f"{arch}.", _INTEGER_TYPES, ("FLOAT32", "FLOAT64")
    scaling = _meta(g, p + "rope.scaling.type", ("STRING",), default="none")
    if scaling != "none":
        raise ModelFileError(f"{g.path}: metadata '{p}rope.scaling.type' is {short_repr(scaling)}; RoPE scaling is "
                             "not implemented here (only 'none')")
    if "rope_freqs.weight" in g.tensors:
        raise ModelFileError(f"{g.path}: holds tensor 'rope_freqs.weight' (Llama 3's scaled RoPE frequencies); RoPE "
                             "scaling is not implemented here")
    heads = _meta(g, p + "attention.head_count", ints)
    d = _meta(g, p + "embedding_length", ints)
    embed = g.tensors.get("token_embd.weight")
    sizes = {"the token_embd.weight rows": embed.shape[0] if embed is not None and len(embed.shape) == 2 else None,
             f"metadata '{p}vocab_size'": _meta(g, p + "vocab_size", ints, default=-1),
             "the length of metadata 'tokenizer.ggml.tokens'": len(g.metadata.get("tokenizer.ggml.tokens", ()))}
    sizes = {k: v for k, v in sizes.items() if v not in (None, -1, 0)}
    if not sizes:
        raise ModelFileError(f"{g.path}: holds no token_embd.weight, so the vocabulary size is unknown")
    if len(set(sizes.values())) > 1:
        raise ModelFileError(f"{g.path}: the vocabulary sizes disagree: "
                             + ", ".join(f"{k} {v:,}" for k, v in sizes.items()))
    try:
        config = LlamaConfig(
            vocab_size=next(iter(sizes.values())), hidden_size=d,
            intermediate_size=_meta(g, p + "feed_forward_length", ints),
            num_hidden_layers=_meta(g, p + "block_count", ints), num_attention_heads=heads,
            num_key_value_heads=_meta(g, p + "attention.head_count_kv", ints, default=heads),
            rms_norm_eps=float(_meta(g, p + "attention.layer_norm_rms_epsilon", floats)),
            rope_theta=float(_meta(g, p + "rope.freq_base", floats, default=10000.0)),
            tie_word_embeddings="output.weight" not in g.tensors,
            max_position_embeddings=_meta(g, p + "context_length", ints),
            bos_token_id=_optional_id(g, "tokenizer.ggml.bos_token_id"),
            eos_token_id=_optional_id(g, "tokenizer.ggml.eos_token_id"))
    except (TypeError, ValueError) as err:
        if isinstance(err, ModelFileError):
            raise
        raise ModelFileError(f"{g.path}: its {arch}.* metadata does not make a model: {err}") from None
    for key in ("rope.dimension_count", "attention.key_length", "attention.value_length"):
        n = _meta(g, p + key, ints, default=-1)
        if n != -1 and n != config.head_dim:
            raise ModelFileError(f"{g.path}: metadata '{p}{key}' is {n}, but the head size is {d} / {heads} = "
                                 f"{config.head_dim}; a partial RoPE or another head size is not implemented here")
    return config


def _renamed(g: GGUFFile) -> dict[str, str]:
    """Hugging Face name → GGUF name for every tensor, refusing names a Llama does not have."""
    out = {}
    for name in g.tensors:
        hf = gguf_tensor_name(name)
        if hf is None:
            raise ModelFileError(f"{g.path}: holds tensor {short_repr(name)}, which is not a tensor of a "
                                 f"{GGUF_ARCHITECTURE} model this reader builds")
        out[hf] = name
    return out


def dequantize_as_hf(g: GGUFFile, name: str, config: LlamaConfig | None = None) -> np.ndarray:
    """The tensor ``name`` of ``g`` as Hugging Face's Llama holds it: dequantized to
    float32 of its shape and, for W_Q and W_K (``blk.N.attn_q.weight``, ``attn_k``),
    its rows put back in Hugging Face's order (:func:`unpermute_rows`). ``config`` is
    ``gguf_config(g)``, read when not given. What :func:`load_gguf` does to every tensor,
    for a reader who wants one.

    >>> g = read_gguf(_tiny_gguf())
    >>> q = dequantize_as_hf(g, "blk.0.attn_q.weight")
    >>> heads = gguf_config(g).num_attention_heads
    >>> q.shape, q.dtype, bool((q == unpermute_rows(g.dequantize("blk.0.attn_q.weight"), heads)).all())
    ((8, 8), dtype('float32'), True)
    """
    if not isinstance(g, GGUFFile):
        raise TypeError(f"g must be a GGUFFile (tokenpath.gguf_format.read_gguf), got {short_repr(g)}")
    if config is not None and not isinstance(config, LlamaConfig):
        raise TypeError(f"config must be a LlamaConfig (gguf_config(g)) or None, got {short_repr(config)}")
    if not isinstance(name, str) or name not in g.tensors:
        raise ValueError(f"name must be a tensor of {g.path}, got {short_repr(name)}")
    config = gguf_config(g) if config is None else config
    w = g.dequantize(name)  # float32 of the tensor's shape
    if name.endswith(".attn_q.weight"):
        w = unpermute_rows(w, config.num_attention_heads)
    elif name.endswith(".attn_k.weight"):
        w = unpermute_rows(w, config.num_key_value_heads)
    return w


def load_gguf(path) -> Model:
    """The model in the GGUF file ``path``: config from its metadata, weights renamed,
    dequantized to float32, W_Q and W_K rows put back in Hugging Face's order, and the
    tokenizer its ``tokenizer.*`` metadata describes (none when it has none). Every
    name and shape is checked against the config before a weight is dequantized.
    ``Model.dtypes`` records each tensor's GGUF type (``"Q4_1"`` …).

    >>> m = load_gguf(_tiny_gguf())
    >>> m.logits([1, 2]).shape, m.dtypes["model.layers.0.self_attn.q_proj.weight"]
    ((2, 10), 'F32')
    """
    path = as_path("path", path)
    g = read_gguf(path)
    config = gguf_config(g)
    names = _renamed(g)
    stand_in = np.zeros((), np.float32)  # shapes only: nothing is dequantized before they match
    _match_names_and_shapes(config, {hf: np.broadcast_to(stand_in, g.tensors[n].shape) for hf, n in names.items()},
                            str(path), compare_tied_head=False)
    tokenizer = _tokenizer(g)
    tensors = {hf: dequantize_as_hf(g, name, config) for hf, name in names.items()}
    dtypes = {hf: g.tensors[name].type_name for hf, name in names.items()}
    return Model(config, tensors, tokenizer, dtypes=dtypes, source=str(path), dtype=np.float32)


def _tokenizer(g: GGUFFile):
    """The file's tokenizer (:func:`tokenpath.model.gguf_tokenizer.tokenizer_from_gguf`), or None without one."""
    if "tokenizer.ggml.model" not in g.metadata:
        return None
    try:
        return tokenizer_from_gguf(g.metadata)
    except (TypeError, ValueError) as err:
        if isinstance(err, ModelFileError):
            raise
        raise ModelFileError(f"{g.path}: its tokenizer cannot be read: {err}") from None


def _tiny_gguf() -> str:
    """A tiny random Llama written as a GGUF file byte by byte, for the doctests."""
    import os
    import struct
    import tempfile

    from .forward import random_model

    m = random_model(LlamaConfig(10, 8, 16, 1, 4, 2, tie_word_embeddings=True), seed=0)

    def text(s: str) -> bytes:
        return struct.pack("<Q", len(s)) + s.encode()

    meta = [("general.architecture", 8, text("llama"))] + [
        (f"llama.{k}", 4, struct.pack("<I", v)) for k, v in [
            ("context_length", 64), ("embedding_length", 8), ("block_count", 1), ("feed_forward_length", 16),
            ("attention.head_count", 4), ("attention.head_count_kv", 2)]] + [
        ("llama.attention.layer_norm_rms_epsilon", 6, struct.pack("<f", 1e-6))]
    back = {v: k for k, v in _GLOBAL_NAMES.items()}
    back.update({f"model.layers.0.{v}.weight": f"blk.0.{k}.weight" for k, v in _LAYER_NAMES.items()})
    arrays = [(back[n], np.ascontiguousarray(a, "<f4")) for n, a in m.tensors.items()]
    info, data = b"", b""
    for name, a in arrays:
        info += text(name) + struct.pack("<I", a.ndim) + b"".join(struct.pack("<Q", s) for s in a.shape[::-1])
        info += struct.pack("<IQ", 0, len(data))
        data += a.tobytes() + b"\0" * (-a.nbytes % 32)
    head = b"GGUF" + struct.pack("<IQQ", 3, len(arrays), len(meta))
    head += b"".join(text(k) + struct.pack("<I", t) + v for k, t, v in meta) + info
    path = os.path.join(tempfile.mkdtemp(), "tiny.gguf")
    with open(path, "wb") as f:
        f.write(head + b"\0" * (-len(head) % 32) + data)
    return path
