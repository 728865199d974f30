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
from ..i18n import _
from ..lessons import gqa as LG
from ..selfcheck import Question, exact

__all__ = ["questions"]


def questions() -> tuple[Question, ...]:
    """The chapter's questions, in the order it asks them."""
    hq, hkv = ex.FIG16_N_Q_HEADS, ex.FIG16_N_KV_HEADS
    groups = gqa.kv_groups(hq, hkv)
    h = ex.GQA_QUESTION_HEAD
    q1 = exact("gqa-head6", _("With Hq = {hq} and Hkv = {hkv}, which K/V head does query head {h} read?").format(
                   hq=hq, hkv=hkv, h=h),
               int(groups[h]), source=f"gqa.kv_groups({hq}, {hkv})[{h}]", hint=_("a K/V head index"),
               why=_("Query head h reads K/V head h // {size}: the map is {groups}. Not {h} % {hkv} = {rest}: that "
                     "map would interleave the groups.").format(size=hq // hkv, groups=fmt.vec(groups), h=h, hkv=hkv,
                                                                rest=h % hkv))
    z = np.zeros
    t = gqa.grouped_attention(z((1, hq, 2, 2)), z((1, hkv, 2, 2)), z((1, hkv, 2, 2)), causal=True)
    q2 = exact("gqa-weights", _("With Hq = {hq} and Hkv = {hkv}, how many [T, T] matrices of attention weights A "
               "does one layer compute per sequence?").format(hq=hq, hkv=hkv),
               t.weights.shape[1], source="gqa.grouped_attention(...).weights.shape[1]", hint=_("a whole number"),
               why=_("Every query head has its own queries, so its own [T, T] weights; only K and U are shared."))
    mqa = LG.head_sharing(hq, 1)
    q3 = exact("gqa-mqa-cache", _("How many numbers would the cache of Figure 16 hold with Hkv = 1?"),
               mqa.cache.elements, source=f"lessons.gqa.head_sharing({hq}, 1).cache.elements", hint=_("a whole number"),
               why=_("The cache holds K and U for each K/V head: {product} = {elements}.").format(
                   product="×".join(str(f) for f in mqa.cache.factors), elements=mqa.cache.elements))
    bad = ex.GQA_BAD_KV_HEADS
    try:
        gqa.kv_groups(hq, bad)
        refused = False
    except ValueError:
        refused = True
    q4 = exact("gqa-leftover", _("Hq = {hq} with Hkv = {bad} is refused. If each of the {bad} K/V heads served the "
               "same whole number of query heads, as many as possible, how many of the {hq} query heads would have "
               "no K/V head?").format(hq=hq, bad=bad),
               hq % bad, source=f"{hq} % {bad}; gqa.kv_groups({hq}, {bad}) raises ValueError", hint=_("a whole number"),
               why=(_("Refused: each K/V head must serve the same whole number of query heads, and {hq} = "
                      "{whole}×{bad} + {rest}.") if refused else
                    _("Accepted: each K/V head must serve the same whole number of query heads, and {hq} = "
                      "{whole}×{bad} + {rest}.")).format(hq=hq, whole=hq // bad, bad=bad, rest=hq % bad))
    real = LG.head_sharing(ex.KV_REAL_N_Q_HEADS, ex.KV_REAL_N_KV_HEADS, layers=1, seq_len=1,
                           head_dim=ex.KV_REAL_HEAD_DIM)
    per_layer = real.cache.nbytes_per_position(ex.KV_REAL_DTYPE)
    size = real.cache
    q5 = exact("gqa-layer-bytes", _("Section 7.1's Llama 3 8B shapes, cached in {dtype}: how many bytes does one "
               "layer add to the cache per token, with Hkv = {hkv} K/V heads of width d_h = {d_h}?").format(
                   dtype=ex.KV_REAL_DTYPE, hkv=real.n_kv_heads, d_h=size.head_dim),
               per_layer, source=(f"lessons.gqa.head_sharing({real.n_q_heads}, {real.n_kv_heads}, layers=1, "
                                  f"head_dim={size.head_dim}).cache.nbytes_per_position({ex.KV_REAL_DTYPE!r})"),
               hint=_("a whole number of bytes"),
               why=_("One key row and one value row per K/V head: 2 × {kv_heads} × {d_h} = {numbers} numbers, at "
                     "{width} bytes each: {nbytes} bytes. The query heads add nothing to the cache.").format(
                   kv_heads=size.kv_heads, d_h=size.head_dim, numbers=f"{size.per_position:,}",
                   width=gqa.DTYPE_BYTES[ex.KV_REAL_DTYPE], nbytes=f"{per_layer:,}"))
    return q1, q2, q3, q4, q5
