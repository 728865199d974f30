"""The "In a real model" asides of chapters 03_embedding_lookup and 04_attention:
SmolLM2's embedding table, its nearest rows and one layer's heads, read from the
pretrained GGUF file and run by the engine's own functions (chapter 3 counts the file's
numbers from its header in the cell).

Only what an aside needs is dequantized: :func:`embedding_table` dequantizes ``token_embd.weight``; and
:func:`file_layer` the nine tensors of one layer, which :func:`real_head_weights` runs
through :func:`tokenpath.decoder.decoder_layer`, the function chapter 3 runs on its toy
layer. Chapter 10 reads the whole file and chapter 12 runs all 30 layers.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from .. import decoder
from .._checks import as_float_array, as_int
from ..bpe import Tokenizer, check_text
from ..gguf_format import GGUFFile
from ..layer_weights import LayerWeights
from ..model.gguf_model import gguf_config, unpermute_rows
from .real_vocab import _encode, smollm2_header, smollm2_tokenizer

__all__ = [
    "HeadReading",
    "Neighbours",
    "embedding_table",
    "file_layer",
    "nearest_rows",
    "real_head_weights",
]


def _header(g) -> GGUFFile:
    if g is None:
        return smollm2_header()
    if not isinstance(g, GGUFFile):
        raise TypeError(f"g must be a tokenpath.gguf_format.GGUFFile or None, got {type(g).__name__}")
    return g


def _tokenizer(tokenizer) -> Tokenizer:
    if not isinstance(tokenizer, Tokenizer):
        raise TypeError(f"tokenizer must be a tokenpath.bpe.Tokenizer or None, got {type(tokenizer).__name__}")
    return tokenizer


# ------------------------------------------------------------------ chapter 3: E and its rows


@functools.cache
def _smollm2_embedding() -> np.ndarray:
    e = smollm2_header().dequantize("token_embd.weight")
    e.flags.writeable = False
    return e


def embedding_table(g: GGUFFile | None = None) -> np.ndarray:
    """E [V, d] as float32, dequantized from ``token_embd.weight`` (SmolLM2's once, then kept).

    >>> from tokenpath.model.gguf_model import _tiny_gguf
    >>> from tokenpath.gguf_format import read_gguf
    >>> embedding_table(read_gguf(_tiny_gguf())).shape
    (10, 8)
    """
    if g is None:
        return _smollm2_embedding()
    return _header(g).dequantize("token_embd.weight")


@dataclass(frozen=True)
class Neighbours:
    """The rows of E nearest to one token's row, by cosine."""

    token: bytes
    token_id: int
    row: np.ndarray  #         [d] E[token_id]
    ids: tuple[int, ...]  #    [k] nearest rows, the token's own first
    pieces: tuple[bytes, ...]
    cosines: np.ndarray  #     [k]
    median: float  #           median cosine of the row with every row of the table: the yardstick


def nearest_rows(word: str, k: int = 6, *, table: np.ndarray | None = None,
                 tokenizer: Tokenizer | None = None) -> Neighbours:
    """The ``k`` rows of ``table`` (default SmolLM2's E) with the largest cosine to the
    row of ``word``, which must be one token of ``tokenizer`` (default SmolLM2's).

    >>> from tokenpath.bpe import Tokenizer
    >>> e = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.1]])
    >>> n = nearest_rows("a", 2, table=e, tokenizer=Tokenizer([], vocab={b"a": 0, b"b": 1, b"c": 2}))
    >>> n.pieces, n.cosines.round(3).tolist(), round(n.median, 3)
    ((b'a', b'c'), [1.0, 0.995], 0.995)
    """
    word = check_text(word, "word")
    k = as_int("k", k, low=1, high=100)
    tok = smollm2_tokenizer() if tokenizer is None else _tokenizer(tokenizer)
    ids = _encode(tok, word, "word")
    if len(ids) != 1:
        raise ValueError(f"word must be one token of the vocabulary; {word!r} is {len(ids)} tokens {ids}")
    e = embedding_table() if table is None else as_float_array("table", table, ndim=2)
    if ids[0] >= e.shape[0]:
        raise ValueError(f"table has {e.shape[0]} rows, too few for the ID {ids[0]} of {word!r}")
    row = e[ids[0]]
    norms = np.sqrt(np.einsum("vd,vd->v", e, e)) * np.sqrt(row @ row)  # [V]; einsum: float32 norms in ms
    cos = (e @ row) / np.where(norms > 0, norms, 1.0)  # [V]
    order = np.argsort(-cos, kind="stable")[:k]
    return Neighbours(tok.token_bytes(ids[0]), ids[0], row, tuple(int(i) for i in order),
                      tuple(tok.token_bytes(int(i)) for i in order), cos[order], float(np.median(cos)))


# ------------------------------------------------------------------ chapter 4: one layer


def file_layer(i: int, g: GGUFFile | None = None) -> LayerWeights:
    """Layer ``i`` of a Llama GGUF file as :class:`tokenpath.layer_weights.LayerWeights`:
    its nine tensors dequantized, W_Q and W_K rows put back in Hugging Face's order
    (:func:`tokenpath.model.gguf_model.unpermute_rows`), as :func:`tokenpath.model.load`
    builds every layer.

    >>> from tokenpath.model.gguf_model import _tiny_gguf
    >>> from tokenpath.gguf_format import read_gguf
    >>> file_layer(0, read_gguf(_tiny_gguf())).w_q.shape
    (8, 8)
    """
    g = _header(g)
    c = gguf_config(g)
    i = as_int("i", i, low=0, high=c.num_hidden_layers - 1)

    def w(name):
        return g.dequantize(f"blk.{i}.{name}.weight")

    return LayerWeights.from_linear(
        attn_norm=w("attn_norm"), q_proj=unpermute_rows(w("attn_q"), c.num_attention_heads),
        k_proj=unpermute_rows(w("attn_k"), c.num_key_value_heads), v_proj=w("attn_v"), o_proj=w("attn_output"),
        ffn_norm=w("ffn_norm"), gate_proj=w("ffn_gate"), up_proj=w("ffn_up"), down_proj=w("ffn_down"),
        heads=c.num_attention_heads, kv_heads=c.num_key_value_heads, rope_base=c.rope_theta, eps=c.rms_norm_eps)


@dataclass(frozen=True)
class HeadReading:
    """One layer's attention weights on a text, with where each head puts its weight."""

    text: str
    ids: tuple[int, ...]  #        [T]
    pieces: tuple[bytes, ...]  #   [T]
    layer: int
    weights: np.ndarray  #         [H, T, T] row = reading position, column = source (softmax over the last axis)
    own: np.ndarray  #             [H] mean weight on the row's own position, rows 1 … T−1
    previous: np.ndarray  #        [H] mean weight on the position just before
    first: np.ndarray  #           [H] mean weight on position 0
    repeat: tuple[int, int] | None  # the first two positions that hold the same ID
    same_queries_before_rope: bool  # their query rows are equal before RoPE …
    same_queries_after_rope: bool  #  … and after it

    @property
    def even(self) -> float:
        """The mean weight on position 0 (and on the row's own position), rows 1 … T−1, of a
        head that spreads every row evenly: 1/(t+1) in row t, large in the short early rows."""
        return float(np.mean(1.0 / np.arange(2, len(self.ids) + 1)))

    @property
    def head(self) -> int:
        """The head that puts the most weight on position 0."""
        return int(np.argmax(self.first))

    def table(self, head: int | None = None) -> list[str]:
        """Head ``head``'s weights (default :attr:`head`) as lines: one row per reading
        token, one column per source, two decimals, '·' above the diagonal."""
        h = self.head if head is None else as_int("head", head, low=0, high=self.weights.shape[0] - 1)
        names = [p.decode("utf-8", errors="replace") for p in self.pieces]
        lines = [" " * 8 + "".join(f"{n[:6]!s:>7}" for n in names)]
        for t, n in enumerate(names):
            cells = "".join(f"{self.weights[h, t, j]:7.2f}" if j <= t else f"{'·':>7}" for j in range(len(names)))
            lines.append(f"{n[:7]!s:>7} {cells}")
        return lines


def real_head_weights(text: str, layer: int = 0, *, g: GGUFFile | None = None,
                      tokenizer: Tokenizer | None = None) -> HeadReading:
    """Layer ``layer`` of ``g`` (default SmolLM2's file) on ``text``, encoded by
    ``tokenizer`` (default the file's): the rows of E looked up, then
    :func:`tokenpath.decoder.decoder_layer` with the file's weights of that layer. Only
    layer 0 reads the embedding directly (a later layer reads the output of the layers
    before it), so only layer 0 is accepted.

    >>> from tokenpath.bpe import Tokenizer
    >>> from tokenpath.model.gguf_model import _tiny_gguf
    >>> from tokenpath.gguf_format import read_gguf
    >>> r = real_head_weights("abc", g=read_gguf(_tiny_gguf()), tokenizer=Tokenizer([], vocab={b"a": 0, b"b": 1, b"c": 2}))
    >>> r.weights.shape, bool(np.allclose(r.weights.sum(-1), 1)), r.weights[0, 0].tolist()
    ((4, 3, 3), True, [1.0, 0.0, 0.0])
    >>> round(r.even, 3)  # (1/2 + 1/3) / 2
    0.417
    """
    text = check_text(text)
    layer = as_int("layer", layer, low=0, high=0)
    tok = smollm2_tokenizer() if tokenizer is None else _tokenizer(tokenizer)
    ids = _encode(tok, text)
    if len(ids) < 2:
        raise ValueError(f"text must be at least two tokens, so that a row can read another; {text!r} is {len(ids)}")
    table = embedding_table(g)
    if max(ids) >= table.shape[0]:
        raise ValueError(f"the tokenizer gives ID {max(ids)}, but the file's embedding has {table.shape[0]} rows")
    x = table[ids][None]  # [1, T, d]
    trace = decoder.decoder_layer(x, file_layer(layer, g))
    w = trace.weights[0]  # [H, T, T]
    rows = np.arange(1, len(ids))
    seen: dict[int, int] = {}
    repeat = next(((seen[i], t) for t, i in enumerate(ids) if seen.setdefault(i, t) != t), None)
    same = (lambda q: repeat is not None and bool(np.array_equal(q[0, :, repeat[0]], q[0, :, repeat[1]])))
    return HeadReading(text, tuple(ids), tuple(tok.token_bytes(i) for i in ids), layer, w,
                       own=w[:, rows, rows].mean(-1), previous=w[:, rows, rows - 1].mean(-1),
                       first=w[:, rows, 0].mean(-1), repeat=repeat, same_queries_before_rope=same(trace.q),
                       same_queries_after_rope=same(trace.q_rot))
