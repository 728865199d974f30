"""Claims of chapter 07_gqa (figure 16): query heads sharing K/V heads, and the K/V
cache count."""

from __future__ import annotations

from functools import cache, partial

from tokenpath import examples as ex
from tokenpath import fmt, gqa
from tokenpath.lessons import gqa as LG

from . import Claim as _Claim
from . import pinned_as_source
from . import NotClaim as _NotClaim
from .position import smol, smollm2_source  # SmolLM2's config, its header read once

CHAPTER = "07_gqa"
Claim = partial(_Claim, chapter=CHAPTER)
NotClaim = partial(_NotClaim, chapter=CHAPTER)


@cache
def share(n_kv_heads=ex.FIG16_N_KV_HEADS):
    return LG.head_sharing(ex.FIG16_N_Q_HEADS, n_kv_heads, layers=ex.FIG16_LAYERS, requests=ex.FIG16_REQUESTS,
                           seq_len=ex.FIG16_SEQ_LEN, head_dim=ex.FIG16_HEAD_DIM)


@cache
def real():
    """The K/V cache at a realistic size (section 7.1)."""
    return LG.head_sharing(ex.KV_REAL_N_Q_HEADS, ex.KV_REAL_N_KV_HEADS, layers=ex.KV_REAL_LAYERS,
                           seq_len=ex.KV_REAL_SEQ_LEN, head_dim=ex.KV_REAL_HEAD_DIM)


@cache
def smol_share():
    c = smol()
    return LG.head_sharing(c.num_attention_heads, c.num_key_value_heads, layers=c.num_hidden_layers,
                           seq_len=ex.SMOLLM2_KV_SEQ_LEN, head_dim=c.head_dim)


def _smol_bytes(which: str, dtype: str, *, per_token: bool):
    size = getattr(smol_share(), which)
    return size.nbytes_per_position(dtype) if per_token else size.nbytes(dtype)


def _thousands(n) -> str:
    return f"{int(n):,}"


def _product(size) -> str:
    return "×".join(fmt.num(f) for f in size.factors) + f" = {fmt.num(size.elements)}"


def _shape(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _refused() -> str:
    try:
        gqa.kv_groups(ex.FIG16_N_Q_HEADS, ex.GQA_BAD_KV_HEADS)
    except ValueError:
        return f"Hkv = {ex.GQA_BAD_KV_HEADS}"
    raise AssertionError("the engine accepted a pair that does not divide")


CLAIMS: list[_Claim] = [
    Claim("fig16.hq", lambda: share().n_q_heads, text=("Hq = 8", lambda n: f"Hq = {n}")),
    Claim("fig16.hkv", lambda: share().n_kv_heads, text=("Hkv = 2", lambda n: f"Hkv = {n}")),
    Claim("main.H", lambda: ex.H, text=("H = 2", lambda n: f"H = {n}")),
    Claim("fig16.group_size", lambda: share().group_size, exact="4"),
    Claim("fig16.rule", lambda: share().group_size, text=("h // 4", lambda g: f"h // {g}")),
    Claim("fig16.groups", lambda: share().groups, exact="[0, 0, 0, 0, 1, 1, 1, 1]"),
    Claim("fig16.q_shape", lambda: share().query_shape, text=("Q [B, 8, T, d_h]", lambda s: "Q " + _shape(s))),
    Claim("fig16.kv_shape", lambda: share().kv_shape, text=("U [B, 2, T, d_h]", lambda s: "U " + _shape(s))),
    Claim("fig16.weights_per_sequence", lambda: share().n_q_heads, text=("eight of them", lambda n: {8: "eight"}[n] + " of them")),
    Claim("fig16.S", lambda: share().cache.seq_len, text=("S = 3", lambda n: f"S = {n}")),
    Claim("fig16.d_h", lambda: share().cache.head_dim, text=("d_h = 2", lambda n: f"d_h = {n}")),
    Claim("fig16.kv_factor", lambda: share().cache.factors[0], text=("2 (one K and one U)", lambda n: f"{n} (one K and one U)")),
    Claim("fig16.cache", lambda: share().cache, text=("2×1×2×3×2 = 24", _product)),
    Claim("fig16.mha_cache", lambda: share().mha_cache, text=("2×1×8×3×2 = 96", _product)),
    Claim("fig16.ratio", lambda: float(share().ratio), exact="1/4"),
    Claim("mqa.hkv", lambda: share(1).n_kv_heads, text=("Hkv = 1", lambda n: f"Hkv = {n}")),
    Claim("refused.hkv", lambda: None, text=("Hkv = 3", lambda _: _refused())),
    # -- section 7.1: the cache at a realistic size ---------------------------------------
    Claim("gqa.real.layers", lambda: real().cache.layers, text=("32 layers", lambda n: f"{n} layers")),
    Claim("gqa.real.q_heads", lambda: real().n_q_heads,
          text=("each with 32 query heads", lambda n: f"each with {n} query heads")),
    Claim("gqa.real.heads", lambda: (real().n_q_heads, real().n_kv_heads),
          text=("32 query heads share 8 K/V heads", lambda h: f"{h[0]} query heads share {h[1]} K/V heads")),
    Claim("gqa.real.mha_per_position", lambda: real().mha_cache,
          text=("2×32×32×128 = 262,144", lambda c: f"2×{c.layers}×{c.kv_heads}×{c.head_dim} = {c.per_position:,}")),
    Claim("gqa.real.d_h", lambda: real().cache.head_dim, text=("d_h = 128", lambda n: f"d_h = {n}")),
    Claim("gqa.real.dtype_bytes", lambda: (ex.KV_REAL_DTYPE, gqa.DTYPE_BYTES[ex.KV_REAL_DTYPE]),
          text=("bfloat16, at 2 bytes", lambda t: f"{t[0]}, at {t[1]} bytes")),
    Claim("gqa.real.per_position", lambda: real().cache,
          text=("2×32×8×128 = 65,536", lambda c: f"2×{c.layers}×{c.kv_heads}×{c.head_dim} = {c.per_position:,}")),
    Claim("gqa.real.per_token_bytes", lambda: real().cache.nbytes_per_position(ex.KV_REAL_DTYPE),
          text=("131,072 bytes or 128 KiB", lambda n: f"{n:,} bytes or {gqa.bytes_text(n)}")),
    Claim("gqa.real.seq_len", lambda: real().cache.seq_len, text=("8,192 tokens", lambda n: f"{n:,} tokens")),
    Claim("gqa.real.total", lambda: real().cache.nbytes(ex.KV_REAL_DTYPE),
          text=("holds 1 GiB", lambda n: f"holds {gqa.bytes_text(n)}")),
    Claim("gqa.real.mha_per_token", lambda: real().mha_cache.nbytes_per_position(ex.KV_REAL_DTYPE),
          text=("512 KiB per token", lambda n: f"{gqa.bytes_text(n)} per token")),
    Claim("gqa.real.mha_total", lambda: real().mha_cache.nbytes(ex.KV_REAL_DTYPE),
          text=("fills 4 GiB", lambda n: f"fills {gqa.bytes_text(n)}")),
    Claim("gqa.real.takeaway", lambda: (real().mha_cache.nbytes_per_position(ex.KV_REAL_DTYPE),
                                         real().cache.nbytes_per_position(ex.KV_REAL_DTYPE)),
          text=("from 512 KiB to 128 KiB per token",
                lambda b: f"from {gqa.bytes_text(b[0])} to {gqa.bytes_text(b[1])} per token")),
    Claim("gqa.real.same_quarter", lambda: real().ratio == share().ratio,
          text=("the same quarter", lambda same: "the same quarter" if same else "another ratio")),
    # -- section 7.6's aside: SmolLM2, from its GGUF header --------------------------------------
    Claim("gqa.smol.heading", lambda: (smol_share().n_q_heads, smol_share().n_kv_heads),
          text=("SmolLM2's 9 query heads on 3 K/V heads", lambda h: f"SmolLM2's {h[0]} query heads on {h[1]} K/V heads")),
    Claim("gqa.smol.group_size", lambda: smol_share().group_size,
          text=("a group size of 3", lambda g: f"a group size of {g}")),
    Claim("gqa.smol.shape", lambda: (smol().num_hidden_layers, smol_share().n_q_heads, smol_share().n_kv_heads, smol().head_dim),
          text=("each of its 30 layers has 9 query heads sharing 3 K/V heads of width d_h = 64",
                lambda t: f"each of its {t[0]} layers has {t[1]} query heads sharing {t[2]} K/V heads of width "
                          f"d_h = {t[3]}")),
    Claim("gqa.smol.context", lambda: smol_share().cache.seq_len,
          text=("a context of 2,048 tokens", lambda n: f"a context of {n:,} tokens")),
    Claim("gqa.smol.declared_context", lambda: smol().max_position_embeddings,
          text=("a context length of 8,192", lambda n: f"a context length of {n:,}")),
    Claim("gqa.smol.bits", lambda: tuple(8 * gqa.DTYPE_BYTES[d] for d in ex.SMOLLM2_KV_DTYPES),
          text=("in 32-bit and in 16-bit floats", lambda b: f"in {b[0]}-bit and in {b[1]}-bit floats")),
    Claim("gqa.smol.per_position", lambda: smol_share().cache,
          text=("2×30×3×64 = 11,520", lambda c: f"2×{c.layers}×{c.kv_heads}×{c.head_dim} = {c.per_position:,}")),
    Claim("gqa.smol.per_token_bytes", lambda: tuple(_smol_bytes("cache", d, per_token=True) for d in ex.SMOLLM2_KV_DTYPES),
          text=("46,080 bytes (45 KiB) in 32-bit floats and 23,040 bytes in 16-bit ones",
                lambda b: f"{b[0]:,} bytes ({gqa.bytes_text(b[0])}) in {8 * gqa.DTYPE_BYTES[ex.SMOLLM2_KV_DTYPES[0]]}-bit "
                          f"floats and {b[1]:,} bytes in {8 * gqa.DTYPE_BYTES[ex.SMOLLM2_KV_DTYPES[1]]}-bit ones")),
    Claim("gqa.smol.total", lambda: tuple(_smol_bytes("cache", d, per_token=False) for d in ex.SMOLLM2_KV_DTYPES),
          text=("holds 90 MiB or 45 MiB", lambda b: f"holds {gqa.bytes_text(b[0])} or {gqa.bytes_text(b[1])}")),
    Claim("gqa.smol.mha_heads", lambda: smol_share().mha_cache.kv_heads,
          text=("the 9-K/V-head model", lambda n: f"the {n}-K/V-head model")),
    Claim("gqa.smol.mha_total", lambda: tuple(_smol_bytes("mha_cache", d, per_token=False) for d in ex.SMOLLM2_KV_DTYPES),
          text=("would hold 270 MiB or 135 MiB", lambda b: f"would hold {gqa.bytes_text(b[0])} or {gqa.bytes_text(b[1])}")),
    Claim("gqa.smol.ratio", lambda: (smol_share().ratio, share().ratio, share().n_q_heads, share().n_kv_heads),
          text=("here 1/3, against 1/4 for the toy's 8 and 2 heads",
                lambda t: f"here {t[0]}, against {t[1]} for the toy's {t[2]} and {t[3]} heads")),
    # -- Sources: the versions the cross-checks run against -------------------------------
    Claim("gqa.pin.transformers", lambda: "transformers", text=("`transformers` 5.24.0", pinned_as_source)),
    Claim("gqa.pin.torch", lambda: "torch", text=("`torch` 2.13.0", pinned_as_source)),
]

NOT_CLAIMS: list[_NotClaim] = [
    NotClaim("Shazeer, 2019", "citation: the multi-query attention paper"),
    NotClaim("Noam Shazeer (2019)", "citation: the multi-query attention paper"),
    NotClaim("arXiv:1911.02150", "citation: the multi-query attention paper's arXiv identifier"),
    NotClaim("Llama Team, 2024", "citation: the Llama 3 report"),
    NotClaim("Llama Team, AI @ Meta (2024)", "citation: the Llama 3 report"),
    NotClaim("arXiv:2407.21783", "citation: the Llama 3 report's arXiv identifier"),
    NotClaim("Table 3", "citation: the table of the Llama 3 report that lists the model shapes"),
    NotClaim("Llama 3", "the name of a model family"),
    NotClaim("SmolLM2-135M-Instruct", "a model's name"),
    NotClaim("the 8B model", "the name of a Llama 3 model size"),
]

_SRC_CLAIMS, _SRC_NOT = smollm2_source("gqa", Claim, NotClaim)
CLAIMS += _SRC_CLAIMS
NOT_CLAIMS += _SRC_NOT
