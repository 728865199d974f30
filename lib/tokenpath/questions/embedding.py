"""Chapter 3's "Check yourself" questions (``03_embedding_lookup``): one cell of the
lookup, shift invariance of softmax, the tied gradient, the FFN's hidden width, and the
vocabulary matrices against a layer at real scale (through the engine's public
functions). Every answer is computed by the engine when the questions are built.
"""

from __future__ import annotations

import numpy as np

from .. import fmt
from .. import examples as ex
from .. import sampling
from ..lessons import embedding as LE
from ..selfcheck import Question, choice, exact

__all__ = ["questions"]


def questions() -> tuple[Question, ...]:
    """The chapter's questions, in the order it asks them."""
    from .. import decoder as dec
    from .. import embedding as em

    t = LE.lookup_trace((1, 3, 0))
    q1 = exact("emb-row", "Figure 3: which row of E does X[1,3,:] copy?", t.row_id,
               source="lessons.embedding.lookup_trace((1, 3, 0)).row_id", hint="a row number (a token ID)",
               why=f"X[1,3,:] is the row of E named by the ID at s[1,3], which is {t.row_id}.")
    q2 = exact("emb-same-row", "How many positions (b, t) of the batch, X[1,3] included, start from that same row?",
               len(t.same_id), source="len(lessons.embedding.lookup_trace((1, 3, 0)).same_id)", hint="a whole number",
               why="Every position holding the same ID copies the same row: (b, t) = "
                   + ", ".join(f"({b}, {p})" for b, p in t.same_id.tolist()) + ".")
    same = np.allclose(sampling.next_token_probs(ex.FIG5_GAP + 100), sampling.next_token_probs(ex.FIG5_GAP))
    shift = {
        "a": "softmax depends only on the differences between logits, which do not change",
        "b": "the logits are clipped before softmax",
        "c": "the probabilities are rounded, which hides the change",
        "d": "they do change, by a factor of e¹⁰⁰",
    }
    q3 = choice("emb-shift", "Figure 5: why does adding 100 to both logits leave the probabilities unchanged?",
                shift, "a" if same else "d", source="sampling.next_token_probs(FIG5_GAP + 100) vs (FIG5_GAP)",
                why="exp(z + c) = exp(z)·exp(c): the common factor cancels between the numerator and the sum.")
    g = LE.tied_gradient()
    grad = {
        "a": "yes, through the output head, which scores every ID at every position",
        "b": "no, ID 9 is never looked up, so its row gets no gradient",
        "c": "only if ID 9 is the target somewhere",
    }
    q4 = choice("emb-tied", "With W_out = Eᵀ, does row 9 of E receive gradient, although ID 9 is not among the inputs?",
                grad, "a" if g.norms_output[9] > 0 else "b", source="lessons.embedding.tied_gradient().norms_output[9]",
                why=(f"Input path: {fmt.num(g.norms_input[9], 3)}; output path: {fmt.num(g.norms_output[9], 3)}. "
                     "Softmax gives every ID a probability, so every row of the head gets a gradient."))
    x = LE.lookup_trace().x
    wide = {k: v[-1] for k, v in dec.decoder_layer(x, LE.teaching_layer()).shapes().items() if v[-1] > x.shape[-1]}
    (name, width), = wide.items()
    q5 = exact("emb-wide", "Figure 4: one intermediate of the decoder layer is wider than the residual stream. "
               "How many features does it have?", width,
               source="decoder.decoder_layer(X, lessons.embedding.teaching_layer()).shapes()", hint="a whole number",
               why=f"Only {name!r} has a last axis wider than d = {x.shape[-1]}: it has {width} features.")
    real = em.parameter_count(ex.SCALE_VOCAB, ex.SCALE_D, ex.SCALE_D_FF, ex.SCALE_LAYERS)
    bigger = {
        "a": "the embedding and the output head together",
        "b": "one decoder layer",
        "c": "they store the same number",
    }
    key = "a" if real.vocab_matrices > real.layer else "b" if real.vocab_matrices < real.layer else "c"
    q6 = choice("emb-scale", f"At V = {real.vocab:,}, d = {real.d}, d_ff = {real.d_ff}: which stores more numbers, the "
                "embedding and the untied output head together, or one decoder layer?", bigger, key,
                source="embedding.parameter_count(SCALE_VOCAB, SCALE_D, SCALE_D_FF, SCALE_LAYERS)",
                why=(f"E and W_out store 2·V·d = {real.vocab_matrices:,}; one layer stores 2·d + 4·d² + 3·d·d_ff = "
                     f"{real.layer:,}. Over all {real.layers} layers, though, the vocabulary matrices are only "
                     f"{real.vocab_matrices / real.total:.1%} of the model."))
    return q1, q2, q3, q4, q5, q6
