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
from ..i18n import _
from ..lessons import attention as LA
from ..selfcheck import Question, choice, exact, set_of

__all__ = ["questions"]


def questions() -> tuple[Question, ...]:
    """The chapter's questions, in the order it asks them."""
    shift = LA.shift_vs_mask(ex.TEXT, eos=ex.EOS, column=ex.FIG13_COLUMN, sampled=ex.FIG13_SAMPLED)
    col = shift.column
    read = np.flatnonzero(shift.visibility[col])
    q2 = set_of("att-reads", _("Figure 13: which input positions does position t={col} read "
                "(the outlined row t={col} of the visibility matrix)?").format(col=col), read,
                source=f"np.flatnonzero(lessons.attention.shift_vs_mask(TEXT, ...).visibility[{col}])",
                hint=_("a set of positions such as {0, 1}"),
                why=_("The mask lets position {col} read positions 0…{col}; its target y[{col}] = {target} is the "
                      "input at position {next}, which it does not read.").format(
                    col=col, target=shift.targets[col], next=col + 1))
    cache = LA.cache_masks(ex.FIG14_PAST, ex.FIG14_NEW)
    q3 = exact("att-cache-row", _("Figure 14: at which absolute position does the first new query row (local row 0) sit?"),
               cache.past, source=f"lessons.attention.cache_masks({ex.FIG14_PAST}, {ex.FIG14_NEW}).past",
               hint=_("a position (a whole number)"),
               why=_("New rows come after the {past} cached positions: local row r sits at {past} + r, "
                     "so row 0 reads keys {keys}.").format(past=cache.past,
                                                           keys=fmt.vec(np.flatnonzero(cache.mask[0]))))
    last = int(shift.inputs.size - 1)
    q7 = exact("att-target", _("Figure 13: which token ID is the last position, t={last}, trained to predict?").format(
                   last=last),
               int(shift.targets[last]), source=f"lessons.attention.shift_vs_mask(TEXT, ...).targets[{last}]",
               hint=_("a token ID (a whole number)"),
               why=_("The targets are the inputs moved one step left with EOS appended: y = {targets}. The last "
                     "position has no next input, so its target is the appended EOS, ID {eos}.").format(
                   targets=fmt.vec(shift.targets), eos=shift.targets[last]))
    logit_shape = {"batch": ex.B, "positions": ex.T, "vocabulary": ex.V}  # logits Z: [B, T, V] (chapter 3)
    kept = list(logit_shape)[-1]  # Z[0, 2, :] fixes the batch and the position, keeps the last axis
    axes = {"a": _("positions: one logit per position of the sequence"),
            "b": _("vocabulary: one logit per candidate token ID"),
            "c": _("batch: one logit per sequence"),
            "d": _("features: the model width d")}
    q8 = choice("att-axis", _("Figure 13: column t={col} is trained towards y[{col}]. Its logits Z[0,{col},:] "
                "(sequence 0, position {col}) run along which axis?").format(col=col), axes,
                {"positions": "a", "vocabulary": "b", "batch": "c"}[kept],
                source="logits shape [B, T, V] (examples.B, T, V); ':' keeps the last axis",
                why=_("Z has shape [B, T, V] = {shape}; fixing the sequence and the position leaves the last axis, "
                      "V = {vocab} candidate IDs. The loss reads the entry of ID y[{col}] = {target} in it; the "
                      "target is a label, not an input that is read.").format(
                    shape=fmt.vec(list(logit_shape.values())), vocab=ex.V, col=col, target=shift.targets[col]))
    dropped = np.flatnonzero(cache.dropped[0])
    lost = dropped[dropped < cache.past]  # of those, the keys that are cached history
    q9 = set_of("att-cache-dropped", _("Figure 14: which of the P = {past} cached keys 0–{last} would the first new "
                "query row wrongly lose if its local row number 0 were compared with the absolute key index?").format(
                    past=cache.past, last=cache.past - 1),
                lost,
                source=(f"(d := np.flatnonzero(lessons.attention.cache_masks({ex.FIG14_PAST}, {ex.FIG14_NEW})"
                        f".dropped[0]))[d < {ex.FIG14_PAST}]"),
                hint=_("a set of key indices such as {0, 1}"),
                why=_("The right mask lets local row 0, at absolute position {past}, read keys {right}; the "
                      "local-index mask keeps only {wrong}. It drops {dropped}: the cached keys {lost} (keys 0 … "
                      "{last} are the cache) and the row's own key {past}, which is not history but the new "
                      "position itself.").format(
                    past=cache.past, right=fmt.vec(np.flatnonzero(cache.mask[0])),
                    wrong=fmt.vec(np.flatnonzero(cache.wrong[0])), dropped=fmt.vec(dropped), lost=fmt.vec(lost),
                    last=cache.past - 1))
    size = kv_cache_size(layers=ex.KV_REAL_LAYERS, requests=1, kv_heads=ex.KV_REAL_N_KV_HEADS,
                         seq_len=ex.KV_REAL_SEQ_LEN, head_dim=ex.KV_REAL_HEAD_DIM)
    q10 = exact("att-cache-size",
                _("Why does a long conversation fill memory? Llama 3 8B keeps, in each of its {layers} layers, keys "
                  "and values for {kv_heads} key/value heads of width {head_dim}. How many numbers does its KV cache "
                  "hold for one conversation of {tokens} tokens?").format(
                    layers=ex.KV_REAL_LAYERS, kv_heads=ex.KV_REAL_N_KV_HEADS, head_dim=ex.KV_REAL_HEAD_DIM,
                    tokens=f"{ex.KV_REAL_SEQ_LEN:,}"),
                size.elements,
                source=(f"gqa.kv_cache_size(layers={ex.KV_REAL_LAYERS}, requests=1, kv_heads={ex.KV_REAL_N_KV_HEADS}, "
                        f"seq_len={ex.KV_REAL_SEQ_LEN}, head_dim={ex.KV_REAL_HEAD_DIM}).elements"),
                hint=_("a whole number"),
                why=_("Every cached position keeps one key row and one value row per head and layer, because every "
                      "later query may read it: {product} = {elements} numbers, {per_position} more for each new "
                      "token. The cache grows linearly with the conversation, which is why long contexts need so "
                      "much memory.").format(product="×".join(f"{f:,}" for f in size.factors),
                                              elements=f"{size.elements:,}", per_position=f"{size.per_position:,}"))
    return q2, q3, q7, q8, q9, q10
