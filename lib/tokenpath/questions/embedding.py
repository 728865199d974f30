"""Chapter 3's "Check yourself" questions (``03_embedding_lookup``): one cell of the
lookup, shift invariance of softmax, the tied gradient (rows neither input nor target included) and what untying would change, the FFN's hidden width, and the
vocabulary matrices against a layer at real scale (through the engine's public
functions). Every answer is computed by the engine when the questions are built.
"""

from __future__ import annotations

import numpy as np

from .. import fmt
from .. import examples as ex
from .. import sampling
from ..lessons import embedding as LE
from ..i18n import _
from ..selfcheck import Question, choice, exact

__all__ = ["questions"]


def questions() -> tuple[Question, ...]:
    """The chapter's questions, in the order it asks them."""
    from .. import decoder as dec
    from .. import embedding as em

    t = LE.lookup_trace((1, 3, 0))
    q1 = exact("emb-row", _("Figure 3: which row of E does X[1,3,:] copy?"), t.row_id,
               source="lessons.embedding.lookup_trace((1, 3, 0)).row_id", hint=_("a row number (a token ID)"),
               why=_("X[1,3,:] is the row of E named by the ID at s[1,3], which is {row}.").format(row=t.row_id))
    q2 = exact("emb-same-row", _("How many positions (b, t) of the batch, X[1,3] included, start from that same row?"),
               len(t.same_id), source="len(lessons.embedding.lookup_trace((1, 3, 0)).same_id)", hint=_("a whole number"),
               why=_("Every position holding the same ID copies the same row: (b, t) = {positions}.").format(
                   positions=", ".join(f"({b}, {p})" for b, p in t.same_id.tolist())))
    same = np.allclose(sampling.next_token_probs(ex.FIG5_GAP + 100), sampling.next_token_probs(ex.FIG5_GAP))
    shift = {
        "a": _("softmax depends only on the differences between logits, which do not change"),
        "b": _("the logits are clipped before softmax"),
        "c": _("the probabilities are rounded, which hides the change"),
        "d": _("they do change, by a factor of e¹⁰⁰"),
    }
    q3 = choice("emb-shift", _("Figure 5: why does adding 100 to both logits leave the probabilities unchanged?"),
                shift, "a" if same else "d", source="sampling.next_token_probs(FIG5_GAP + 100) vs (FIG5_GAP)",
                why=_("exp(z + c) = exp(z)·exp(c): the common factor cancels between the numerator and the sum."))
    g = LE.tied_gradient()
    grad = {
        "a": _("yes, through the output head, which scores every ID at every position"),
        "b": _("no, ID 9 is never looked up, so its row gets no gradient"),
        "c": _("yes, but only because ID 9 is a target here: a row that is neither input nor target gets none"),
    }
    seen = set(g.inputs.tolist()) | set(g.targets.tolist())
    unseen = [v for v in range(g.grad.shape[0]) if v not in seen]  # rows neither read nor a target
    least = unseen[int(np.argmin(g.norms_output[unseen]))]
    key = "b" if g.norms_output[9] == 0 else "a" if all(g.norms_output[unseen] > 0) else "c"
    q4 = choice("emb-tied", _("With W_out = Eᵀ, does row 9 of E receive gradient, although ID 9 is not among the inputs?"),
                grad, key, source="lessons.embedding.tied_gradient().norms_output[9] and [rows neither input nor target]",
                why=_("Input path: {input}; output path: {output}. Softmax gives every ID a probability, "
                      "so every row of the head gets a gradient: even row {row}, neither input nor target "
                      "and the least reached, gets {unseen}.").format(
                    input=fmt.num(g.norms_input[9], 3), output=fmt.num(g.norms_output[9], 3), row=least,
                    unseen=f"{g.norms_output[least]:.1e}"))
    untied = {
        "a": _("yes, through the output head, as with the tied head"),
        "b": _("no: the head's gradient now goes to W_out, and ID 9 is never looked up"),
        "c": _("only if ID 9 is the most probable candidate somewhere"),
    }
    q4b = choice("emb-untied", _("What if the head were untied, a matrix W_out of its own? Would row 9 of E "
                 "still receive gradient from this batch?"),
                 untied, "b" if g.norms_input[9] == 0 else "a",
                 source="lessons.embedding.tied_gradient().norms_input[9] (an untied E keeps only the input path)",
                 why=_("Untied, E is used only by the lookup, so its gradient is the input path alone. "
                       "That path reaches rows {rows}; row 9 gets {input}.").format(
                     rows=", ".join(str(int(r)) for r in g.rows_input), input=fmt.num(g.norms_input[9], 3)))
    x = LE.lookup_trace().x
    wide = {k: v[-1] for k, v in dec.decoder_layer(x, LE.teaching_layer()).shapes().items() if v[-1] > x.shape[-1]}
    (name, width), = wide.items()
    q5 = exact("emb-wide", _("Figure 4: one intermediate of the decoder layer is wider than the residual stream. "
               "How many features does it have?"), width,
               source="decoder.decoder_layer(X, lessons.embedding.teaching_layer()).shapes()", hint=_("a whole number"),
               why=_("Only {name} has a last axis wider than d = {d}: it has {width} features.").format(
                   name=repr(name), d=x.shape[-1], width=width))
    real = em.parameter_count(ex.SCALE_VOCAB, ex.SCALE_D, ex.SCALE_D_FF, ex.SCALE_LAYERS)
    bigger = {
        "a": _("the embedding and the output head together"),
        "b": _("one decoder layer"),
        "c": _("they store the same number"),
    }
    key = "a" if real.vocab_matrices > real.layer else "b" if real.vocab_matrices < real.layer else "c"
    q6 = choice("emb-scale", _("At V = {vocab}, d = {d}, d_ff = {d_ff}: which stores more numbers, the "
                "embedding and the untied output head together, or one decoder layer?").format(
                    vocab=f"{real.vocab:,}", d=real.d, d_ff=real.d_ff), bigger, key,
                source="embedding.parameter_count(SCALE_VOCAB, SCALE_D, SCALE_D_FF, SCALE_LAYERS)",
                why=_("E and W_out store 2·V·d = {vocab}; one layer stores 2·d + 4·d² + 3·d·d_ff = "
                      "{layer}. Over all {layers} layers, though, the vocabulary matrices are only "
                      "{share} of the model.").format(vocab=f"{real.vocab_matrices:,}", layer=f"{real.layer:,}",
                                                      layers=real.layers, share=f"{real.vocab_matrices / real.total:.1%}"))
    return q1, q2, q3, q4, q4b, q5, q6
