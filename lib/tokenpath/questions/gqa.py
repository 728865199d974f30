"""Chapter 7's "Check yourself" questions (``07_gqa``): which K/V head a query head reads,
weights per sequence, the MQA cache, a refused pair
and the weights that multi-query attention still computes. Every answer is computed by the
engine when the questions are built.
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
    q1 = exact("gqa-head5", f"With Hq = {hq} and Hkv = {hkv}, which K/V head does query head {h} read?",
               int(groups[h]), source=f"gqa.kv_groups({hq}, {hkv})[{h}]", hint="a K/V head index",
               why=f"Query head h reads K/V head h // {hq // hkv}: the map is {fmt.vec(groups)}.")
    z = np.zeros
    t = gqa.grouped_attention(z((1, hq, 2, 2)), z((1, hkv, 2, 2)), z((1, hkv, 2, 2)), causal=True)
    q2 = exact("gqa-weights", f"With Hq = {hq} and Hkv = {hkv}, how many attention weight matrices does one layer "
               "compute per sequence?",
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
    q4 = exact("gqa-leftover", f"Hq = {hq} with Hkv = {bad} is refused. How many query heads would be left over?",
               hq % bad, source=f"{hq} % {bad}; gqa.kv_groups({hq}, {bad}) raises ValueError", hint="a whole number",
               why=(f"{'Refused' if refused else 'Accepted'}: each K/V head must serve the same whole number of query "
                    f"heads, and {hq} = {hq // bad}×{bad} + {hq % bad}."))
    one = gqa.grouped_attention(z((1, hq, 2, 2)), z((1, 1, 2, 2)), z((1, 1, 2, 2)), causal=True)
    q5 = exact("gqa-mqa-weights", f"What if the layer of Figure 16 kept a single K/V head (Hkv = 1) for its {hq} query "
               "heads? How many attention weight matrices would it then compute per sequence?",
               one.weights.shape[1], source="gqa.grouped_attention(q, k[:, :1], u[:, :1]).weights.shape[1]",
               hint="a whole number",
               why=("Sharing K and U shrinks the cache, not the attention: every query head still scores the shared "
                    f"keys with its own queries and gets its own [T, T] weights, so {one.weights.shape[1]} of them."))
    return q1, q2, q3, q4, q5
