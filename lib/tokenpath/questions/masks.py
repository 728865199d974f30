"""Chapter 5's "Check yourself" questions (``05_masks``): the shift against the mask,
the cache's absolute position, a target and the logit axis of figure 13, and the
history a misaligned cache mask loses (figure 14). Every answer is computed by the
engine when the questions are built.
"""

from __future__ import annotations

import numpy as np

from .. import fmt
from .. import examples as ex
from ..gqa import kv_cache_size
from ..lessons import attention as LA
from ..selfcheck import Question, choice, exact, set_of

__all__ = ["questions"]


def questions() -> tuple[Question, ...]:
    """The chapter's questions, in the order it asks them."""
    shift = LA.shift_vs_mask(ex.TEXT, eos=ex.EOS, column=ex.FIG13_COLUMN, sampled=ex.FIG13_SAMPLED)
    col = shift.column
    read = np.flatnonzero(shift.visibility[col])
    q2 = set_of("att-reads", f"Figure 13: which input positions does position t={col} read "
                f"(the outlined row t={col} of the visibility matrix)?", read,
                source=f"np.flatnonzero(lessons.attention.shift_vs_mask(TEXT, ...).visibility[{col}])",
                hint="a set of positions such as {0, 1}",
                why=(f"The mask lets position {col} read positions 0…{col}; its target y[{col}] = "
                     f"{shift.targets[col]} is the input at position {col + 1}, which it does not read."))
    cache = LA.cache_masks(ex.FIG14_PAST, ex.FIG14_NEW)
    q3 = exact("att-cache-row", "Figure 14: at which absolute position does the first new query row (local row 0) sit?",
               cache.past, source=f"lessons.attention.cache_masks({ex.FIG14_PAST}, {ex.FIG14_NEW}).past",
               hint="a position (a whole number)",
               why=(f"New rows come after the {cache.past} cached positions: local row r sits at {cache.past} + r, "
                    f"so row 0 reads keys {fmt.vec(np.flatnonzero(cache.mask[0]))}."))
    last = int(shift.inputs.size - 1)
    q7 = exact("att-target", f"Figure 13: which token ID is the last position, t={last}, trained to predict?",
               int(shift.targets[last]), source=f"lessons.attention.shift_vs_mask(TEXT, ...).targets[{last}]",
               hint="a token ID (a whole number)",
               why=(f"The targets are the inputs moved one step left with EOS appended: y = "
                    f"{fmt.vec(shift.targets)}. The last position has no next input, so its target is the "
                    f"appended EOS, ID {shift.targets[last]}."))
    logit_shape = {"batch": ex.B, "positions": ex.T, "vocabulary": ex.V}  # logits Z: [B, T, V] (chapter 3)
    kept = list(logit_shape)[-1]  # Z[0, 2, :] fixes the batch and the position, keeps the last axis
    axes = {"a": "positions: one logit per position of the sequence",
            "b": "vocabulary: one logit per candidate token ID",
            "c": "batch: one logit per sequence",
            "d": "features: the model width d"}
    q8 = choice("att-axis", f"Figure 13: column t={col} is trained towards y[{col}]. Its logits Z[0,{col},:] "
                f"(sequence 0, position {col}) run along which axis?", axes,
                {"positions": "a", "vocabulary": "b", "batch": "c"}[kept],
                source="logits shape [B, T, V] (examples.B, T, V); ':' keeps the last axis",
                why=(f"Z has shape [B, T, V] = {fmt.vec(list(logit_shape.values()))}; fixing the sequence and the "
                     f"position leaves the last axis, V = {ex.V} candidate IDs. The loss reads the entry of "
                     f"ID y[{col}] = {shift.targets[col]} in it; the target is a label, not an input that is read."))
    dropped = np.flatnonzero(cache.dropped[0])
    lost = dropped[dropped < cache.past]  # of those, the keys that are cached history
    q9 = set_of("att-cache-dropped", f"Figure 14: which of the P = {cache.past} cached keys 0–{cache.past - 1} would the "
                "first new query row wrongly lose if its local row number 0 were compared with the absolute key index?",
                lost,
                source=(f"(d := np.flatnonzero(lessons.attention.cache_masks({ex.FIG14_PAST}, {ex.FIG14_NEW})"
                        f".dropped[0]))[d < {ex.FIG14_PAST}]"),
                hint="a set of key indices such as {0, 1}",
                why=(f"The right mask lets local row 0, at absolute position {cache.past}, read keys "
                     f"{fmt.vec(np.flatnonzero(cache.mask[0]))}; the local-index mask keeps only "
                     f"{fmt.vec(np.flatnonzero(cache.wrong[0]))}. It drops {fmt.vec(dropped)}: the cached keys "
                     f"{fmt.vec(lost)} (keys 0 … {cache.past - 1} are the cache) and the row's own key {cache.past}, "
                     f"which is not history but the new position itself."))
    size = kv_cache_size(layers=ex.KV_REAL_LAYERS, requests=1, kv_heads=ex.KV_REAL_N_KV_HEADS,
                         seq_len=ex.KV_REAL_SEQ_LEN, head_dim=ex.KV_REAL_HEAD_DIM)
    q10 = exact("att-cache-size",
                f"Why does a long conversation fill memory? Llama 3 8B keeps, in each of its {ex.KV_REAL_LAYERS} "
                f"layers, keys and values for {ex.KV_REAL_N_KV_HEADS} key/value heads of width {ex.KV_REAL_HEAD_DIM}. "
                f"How many numbers does its KV cache hold for one conversation of {ex.KV_REAL_SEQ_LEN:,} tokens?",
                size.elements,
                source=(f"gqa.kv_cache_size(layers={ex.KV_REAL_LAYERS}, requests=1, kv_heads={ex.KV_REAL_N_KV_HEADS}, "
                        f"seq_len={ex.KV_REAL_SEQ_LEN}, head_dim={ex.KV_REAL_HEAD_DIM}).elements"),
                hint="a whole number",
                why=("Every cached position keeps one key row and one value row per head and layer, because every "
                     "later query may read it: " + "×".join(f"{f:,}" for f in size.factors)
                     + f" = {size.elements:,} numbers, {size.per_position:,} more for each new token. The cache grows "
                       "linearly with the conversation, which is why long contexts need so much memory."))
    return q2, q3, q7, q8, q9, q10
