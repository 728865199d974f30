"""Claims of chapter 06_gqa (figure 16): query heads sharing K/V heads, and the K/V
cache count."""

from __future__ import annotations

from functools import cache, partial

from tokenpath import examples as ex
from tokenpath import fmt, gqa

from . import Claim as _Claim
from . import NotClaim as _NotClaim

CHAPTER = "06_gqa"
Claim = partial(_Claim, chapter=CHAPTER)
NotClaim = partial(_NotClaim, chapter=CHAPTER)


@cache
def share(n_kv_heads=ex.FIG16_N_KV_HEADS):
    return gqa.head_sharing(ex.FIG16_N_Q_HEADS, n_kv_heads, layers=ex.FIG16_LAYERS, requests=ex.FIG16_REQUESTS,
                            seq_len=ex.FIG16_SEQ_LEN, head_dim=ex.FIG16_HEAD_DIM)


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
    Claim("question.head", lambda: ex.GQA_QUESTION_HEAD, text=("query head 5", lambda h: f"query head {h}")),
]

NOT_CLAIMS: list[_NotClaim] = [
    NotClaim("Shazeer, 2019", "citation: the multi-query attention paper"),
]
