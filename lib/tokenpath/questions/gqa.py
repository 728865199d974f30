"""Chapter 7's "Check yourself" questions (``07_gqa``): which K/V head a query head reads,
the attention-weight matrices per sequence, the MQA cache, a refused pair and the bytes
one Llama 3 8B layer caches per token. Every answer is computed by the engine when the
questions are built.
"""

from __future__ import annotations

import numpy as np

from .. import fmt
from .. import gqa
from .. import examples as ex
from ..lessons import gqa as LG
from ..selfcheck import Question, exact

__all__ = ["questions"]


def questions() -> tuple[Question, ...]:
    """The chapter's questions, in the order it asks them."""
    hq, hkv = ex.FIG16_N_Q_HEADS, ex.FIG16_N_KV_HEADS
    groups = gqa.kv_groups(hq, hkv)
    h = ex.GQA_QUESTION_HEAD
    q1 = exact("gqa-head6", f"With Hq = {hq} and Hkv = {hkv}, which K/V head does query head {h} read?",
               int(groups[h]), source=f"gqa.kv_groups({hq}, {hkv})[{h}]", hint="a K/V head index",
               why=(f"Query head h reads K/V head h // {hq // hkv}: the map is {fmt.vec(groups)}. Not {h} % {hkv} = "
                    f"{h % hkv}: that map would interleave the groups."))
    z = np.zeros
    t = gqa.grouped_attention(z((1, hq, 2, 2)), z((1, hkv, 2, 2)), z((1, hkv, 2, 2)), causal=True)
    q2 = exact("gqa-weights", f"With Hq = {hq} and Hkv = {hkv}, how many [T, T] matrices of attention weights A "
               "does one layer compute per sequence?",
               t.weights.shape[1], source="gqa.grouped_attention(...).weights.shape[1]", hint="a whole number",
               why="Every query head has its own queries, so its own [T, T] weights; only K and U are shared.")
    mqa = LG.head_sharing(hq, 1)
    q3 = exact("gqa-mqa-cache", "How many numbers would the cache of Figure 16 hold with Hkv = 1?",
               mqa.cache.elements, source=f"lessons.gqa.head_sharing({hq}, 1).cache.elements", hint="a whole number",
               why="The cache holds K and U for each K/V head: "
                   + "×".join(str(f) for f in mqa.cache.factors) + f" = {mqa.cache.elements}.")
    bad = ex.GQA_BAD_KV_HEADS
    try:
        gqa.kv_groups(hq, bad)
        refused = False
    except ValueError:
        refused = True
    q4 = exact("gqa-leftover", f"Hq = {hq} with Hkv = {bad} is refused. If each of the {bad} K/V heads served the same "
               f"whole number of query heads, as many as possible, how many of the {hq} query heads would have no "
               "K/V head?",
               hq % bad, source=f"{hq} % {bad}; gqa.kv_groups({hq}, {bad}) raises ValueError", hint="a whole number",
               why=(f"{'Refused' if refused else 'Accepted'}: each K/V head must serve the same whole number of query "
                    f"heads, and {hq} = {hq // bad}×{bad} + {hq % bad}."))
    real = LG.head_sharing(ex.KV_REAL_N_Q_HEADS, ex.KV_REAL_N_KV_HEADS, layers=1, seq_len=1,
                           head_dim=ex.KV_REAL_HEAD_DIM)
    per_layer = real.cache.nbytes_per_position(ex.KV_REAL_DTYPE)
    size = real.cache
    q5 = exact("gqa-layer-bytes", f"Section 7.1's Llama 3 8B shapes, cached in {ex.KV_REAL_DTYPE}: how many bytes does "
               f"one layer add to the cache per token, with Hkv = {real.n_kv_heads} K/V heads of width "
               f"d_h = {size.head_dim}?",
               per_layer, source=(f"lessons.gqa.head_sharing({real.n_q_heads}, {real.n_kv_heads}, layers=1, "
                                  f"head_dim={size.head_dim}).cache.nbytes_per_position({ex.KV_REAL_DTYPE!r})"),
               hint="a whole number of bytes",
               why=(f"One key row and one value row per K/V head: 2 × {size.kv_heads} × {size.head_dim} = "
                    f"{size.per_position:,} numbers, at {gqa.DTYPE_BYTES[ex.KV_REAL_DTYPE]} bytes each: {per_layer:,} "
                    f"bytes. The query heads add nothing to the cache."))
    return q1, q2, q3, q4, q5
