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


_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


def first_step_cache() -> int:
    """Positions in the cache that the chapter's cached step reads: the toy's T minus the
    one new position, from the engine's trace."""
    import numpy as np

    z = np.zeros((ex.GQA_B, ex.FIG16_N_Q_HEADS, ex.GQA_T - 1, ex.GQA_D_HEAD))
    kv = np.zeros((ex.GQA_B, ex.FIG16_N_KV_HEADS, ex.GQA_T - 1, ex.GQA_D_HEAD))
    return gqa.grouped_attention(z, kv, kv, causal=True).cache[0].shape[2]


def _units() -> dict:
    """How many bytes the engine's bytes_text calls 1 KiB, 1 MiB and 1 GiB."""
    out = {}
    for k in range(1, 31):
        text = gqa.bytes_text(1 << k)
        if text.startswith("1 ") and text.split()[1] in ("KiB", "MiB", "GiB"):
            out.setdefault(text.split()[1], 1 << k)
    return out


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
    Claim("fig16.P", lambda: share().cache.seq_len, text=("P = 3", lambda n: f"P = {n}")),
    Claim("fig16.P_of_T", lambda: (share().cache.seq_len, ex.GQA_T, first_step_cache()),
          text=("the first three of the toy's four positions",
                lambda t: f"the first {_WORDS[t[0]]} of the toy's {_WORDS[t[1]]} positions" if t[2] == t[0] else "?")),
    Claim("main.H_as_gqa", lambda: ex.H, text=("Hq = Hkv = 2", lambda n: f"Hq = Hkv = {n}")),
    Claim("fig16.rows", lambda: (share().readers(0), share().readers(1)),
          text=("heads 0–3 in row 0 and heads 4–7 in row 1",
                lambda r: f"heads {r[0][0]}–{r[0][-1]} in row 0 and heads {r[1][0]}–{r[1][-1]} in row 1")),
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
          text=("each with Hq = 32 query heads", lambda n: f"each with Hq = {n} query heads")),
    Claim("gqa.real.heads", lambda: (real().n_q_heads, real().n_kv_heads),
          text=("Hq = 32 query heads share Hkv = 8 K/V heads",
                lambda h: f"Hq = {h[0]} query heads share Hkv = {h[1]} K/V heads")),
    Claim("gqa.real.mha_per_position", lambda: real().mha_cache,
          text=("2×32×32×128 = 262,144", lambda c: f"2×{c.layers}×{c.kv_heads}×{c.head_dim} = {c.per_position:,}")),
    Claim("gqa.real.d_h", lambda: real().cache.head_dim, text=("d_h = 128", lambda n: f"d_h = {n}")),
    Claim("gqa.real.dtype_bits", lambda: (ex.KV_REAL_DTYPE, gqa.DTYPE_BYTES[ex.KV_REAL_DTYPE]),
          text=("bfloat16, a 16-bit", lambda t: f"{t[0]}, a {8 * t[1]}-bit")),
    Claim("gqa.real.dtype_bytes", lambda: gqa.DTYPE_BYTES[ex.KV_REAL_DTYPE],
          text=("Each number takes 2 bytes", lambda n: f"Each number takes {n} bytes")),
    Claim("gqa.real.per_position", lambda: real().cache,
          text=("2×32×8×128 = 65,536", lambda c: f"2×{c.layers}×{c.kv_heads}×{c.head_dim} = {c.per_position:,}")),
    Claim("gqa.real.per_token_bytes", lambda: real().cache.nbytes_per_position(ex.KV_REAL_DTYPE),
          text=("131,072 bytes or 128 KiB", lambda n: f"{n:,} bytes or {gqa.bytes_text(n)}")),
    Claim("gqa.real.seq_len", lambda: real().cache.seq_len, text=("8,192 tokens", lambda n: f"{n:,} tokens")),
    Claim("gqa.real.total", lambda: real().cache.nbytes(ex.KV_REAL_DTYPE),
          text=("holds 1 GiB", lambda n: f"holds {gqa.bytes_text(n)}")),
    Claim("gqa.real.mha_per_token", lambda: real().mha_cache,
          text=("262,144 × 2 bytes = 524,288 bytes = 512 KiB per token",
                lambda c: f"{c.per_position:,} × {gqa.DTYPE_BYTES[ex.KV_REAL_DTYPE]} bytes = "
                          f"{c.nbytes_per_position(ex.KV_REAL_DTYPE):,} bytes = "
                          f"{gqa.bytes_text(c.nbytes_per_position(ex.KV_REAL_DTYPE))} per token")),
    Claim("gqa.units", lambda: _units(),
          text=("1 KiB = 1,024 bytes; MiB and GiB are each 1,024 times the unit before",
                lambda u: f"1 KiB = {u['KiB']:,} bytes; MiB and GiB are each "
                          f"{u['MiB'] // u['KiB']:,} times the unit before" if u['GiB'] // u['MiB'] == u['MiB'] // u['KiB']
                          else "?")),
    Claim("gqa.real.per_layer", lambda: real().mha_cache,
          text=("The 512 KiB cover all 32 layers: 16 KiB per layer",
                lambda c: f"The {gqa.bytes_text(c.nbytes_per_position(ex.KV_REAL_DTYPE))} cover all {c.layers} "
                          f"layers: {gqa.bytes_text(c.nbytes_per_position(ex.KV_REAL_DTYPE) // c.layers)} per layer")),
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
    Claim("gqa.smol.bytes", lambda: tuple((d, gqa.DTYPE_BYTES[d]) for d in ex.SMOLLM2_KV_DTYPES),
          text=("in float32 (4 bytes) and float16 (2 bytes, the same size as bfloat16",
                lambda b: f"in {b[0][0]} ({b[0][1]} bytes) and {b[1][0]} ({b[1][1]} bytes, "
                          + (f"the same size as {ex.KV_REAL_DTYPE}" if b[1][1] == gqa.DTYPE_BYTES[ex.KV_REAL_DTYPE] else "unlike"))),
    Claim("gqa.smol.per_position", lambda: smol_share().cache,
          text=("2×30×3×64 = 11,520", lambda c: f"2×{c.layers}×{c.kv_heads}×{c.head_dim} = {c.per_position:,}")),
    Claim("gqa.smol.per_token_bytes", lambda: tuple(_smol_bytes("cache", d, per_token=True) for d in ex.SMOLLM2_KV_DTYPES),
          text=("46,080 bytes (45 KiB) in float32 and 23,040 bytes in float16",
                lambda b: f"{b[0]:,} bytes ({gqa.bytes_text(b[0])}) in {ex.SMOLLM2_KV_DTYPES[0]} "
                          f"and {b[1]:,} bytes in {ex.SMOLLM2_KV_DTYPES[1]}")),
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
    NotClaim("at most 256 features", "Hugging Face's head-width limit in use_gqa_in_sdpa (transformers "
             "integrations/sdpa_attention.py); tests/test_crosscheck_gqa_kernels.py checks it against the pinned "
             "transformers"),
]

_SRC_CLAIMS, _SRC_NOT = smollm2_source("gqa", Claim, NotClaim)
CLAIMS += _SRC_CLAIMS
NOT_CLAIMS += _SRC_NOT
