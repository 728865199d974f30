"""Every chapter's "Check yourself" questions, graded by :mod:`tokenpath.selfcheck`.

One function per chapter builds its questions; each answer is computed here by the
engine's public functions at the moment the questions are built, never typed in. A
chapter asks for its questions by its file name and grades the reader's answer in a cell:

>>> quiz = for_chapter("06_gqa")
>>> quiz["gqa-head5"].check(1).status, quiz["gqa-head5"].check(0).status
('right', 'not yet')

Each question has one shape: its answer lies in one cell of a figure, one
path through it, or one operation.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import tempfile
from pathlib import Path
from typing import Callable

import numpy as np

from . import attention as A
from . import fmt, gqa, norms
from . import examples as ex
from . import sampling
from .lessons import bpe as lesson1
from .lessons import utf8 as lesson2
from .lessons import attention as LA
from .lessons import embedding as LE
from .lessons import gqa as LG
from . import position as P
from .lessons import position as LP
from .selfcheck import Question, choice, exact, number, sequence, set_of, vector

__all__ = ["CHAPTERS", "for_chapter"]


def _letter(options: dict, text: str) -> str:
    """The key of the option whose text is ``text`` (the engine picks the text)."""
    return next(k for k, t in options.items() if t == text)


# ------------------------------------------------------------------ 01 BPE merges


def bpe_merges() -> tuple[Question, ...]:
    """Chapter 1: the tie rule, the third merge, an unencodable word, the space."""
    run = lesson1.teach_merges(ex.FIG1_TABLE, ex.FIG1_MERGES)
    first, third = run.steps[0], run.steps[2]
    a, b = (" ".join(p) for p in first.tied[:2])
    rule = {
        "a": f"{a}: of the pairs tied at {first.count}, the one that sorts first wins",
        "b": f"{b}: of the pairs tied at {first.count}, the one that sorts last wins",
        "c": "both are merged in the same step",
        "d": "the pair whose symbols are rarer on their own",
    }
    key = "a" if first.chosen == min(first.tied) else "b" if first.chosen == max(first.tied) else "c"
    q1 = choice("bpe-tie", "Figure 1: which of the tied pairs is merged first, and by what rule?", rule, key,
                source="lessons.bpe.teach_merges(FIG1_TABLE, FIG1_MERGES).steps[0].chosen",
                why=(f"Tied pairs: {', '.join(' '.join(p) for p in first.tied)}; the engine breaks a tie by the "
                     f"smaller pair, so '{' '.join(first.chosen)}' is merged first."))
    others = max(c for p, c in third.counts.items() if p != third.chosen)
    q2 = exact("bpe-third-count", f"After two merges, how often is '{' '.join(third.chosen)}' counted in the table?",
               third.count, source="lessons.bpe.teach_merges(FIG1_TABLE, FIG1_MERGES).steps[2].count",
               hint="a whole number",
               why=f"It is the most frequent pair at step 3: {third.count} against at most {others} for any other pair.")
    lower = run.segmentation(3)["lower"]
    q3 = sequence("bpe-lower", "After three merges, which pieces is 'lower' cut into?", lower,
                  source='lessons.bpe.teach_merges(FIG1_TABLE, FIG1_MERGES).segmentation(3)["lower"]',
                  hint='a list of strings in order, such as ["l", "ow"]',
                  why="Each merge joins a pair wherever it occurs; three merges leave 'lower' as "
                      + " + ".join(repr(p) for p in lower) + ".")
    missing = lesson1.encode_word("lowest", run.merges, run.alphabet).missing
    why_not = {
        "a": "the merge list is too short: one more merge would encode it",
        "b": f"{' and '.join(missing)} are not base symbols of the table, so no merge can produce them",
        "c": "'lowest' is longer than any word in the table",
        "d": "the word is not in the table, and only table words can be encoded",
    }
    q4 = choice("bpe-lowest", "Why can the table's merges not encode 'lowest'?", why_not, "b" if missing else "a",
                source='lessons.bpe.encode_word("lowest", run.merges, run.alphabet).missing',
                why=(f"The encoder reports the missing base symbols {list(missing)}. Adding them to the alphabet "
                     "(or starting from bytes, as a byte-level tokenizer does) fixes it without a new merge."))
    tok = lesson1.demo_tokenizer()
    plain, spaced = tok.encode("the"), tok.encode(" the")
    space = {
        "a": "the leading space is part of the token, so \" the\" is a vocabulary entry of its own",
        "b": "IDs are handed out afresh on every call",
        "c": "the tokenizer lowercases one of them",
        "d": "they get the same IDs; only their printing differs",
    }
    q5 = choice("bpe-space", 'Why do "the" and " the" get different IDs?', space,
                "a" if plain != spaced else "d", source='lessons.bpe.demo_tokenizer().encode("the"), .encode(" the")',
                why=f'"the" -> {plain}, " the" -> {spaced}: the space belongs to the word that follows it.')
    return q1, q2, q3, q4, q5


# -------------------------------------------------------------- 02 UTF-8 splits


def utf8_splits() -> tuple[Question, ...]:
    """Chapter 2: bytes per character, a role marker against the word, marker
    injection, the cost of a larger vocabulary, and the double BOS."""
    cat, smile = lesson2.utf8_trace("猫").n_bytes, lesson2.utf8_trace("🙂").n_bytes
    split = lesson2.split_char(ex.FIG1_CHAR, ex.FIG1_SPLIT_AT)
    q1 = sequence("utf8-bytes", "How many UTF-8 bytes do 猫 and 🙂 have? Write [bytes of 猫, bytes of 🙂].",
                  [cat, smile], source='lessons.utf8.utf8_trace("猫").n_bytes, lessons.utf8.utf8_trace("🙂").n_bytes',
                  hint="a list of two whole numbers", why=(
                      "UTF-8 spends one to four bytes per character. A token that ends inside a character "
                      f"cannot be decoded alone: {split.first.reason}."))
    tok = lesson1.demo_tokenizer()
    word, marker = tok.encode(" assistant"), tok.special_tokens["<|assistant|>"]
    q2 = sequence("utf8-assistant", 'Which ID is " assistant" in the user\'s message, and which is the role marker? '
                  "Write [word ID, marker ID].", [*word, marker],
                  source='tok.encode(" assistant"), tok.special_tokens["<|assistant|>"]',
                  hint="a list of two token IDs", why=(
                      "The word is an ordinary token with its leading space; the marker is a special token "
                      "that only the chat template inserts."))
    leaked = set(tok.encode(ex.INJECTION, disallowed_special=())) & set(tok.special_tokens.values())
    inject = {
        "a": "it becomes the marker's special ID, and the model sees a new turn",
        "b": "it stays ordinary text: several ordinary IDs, never the marker's ID",
        "c": "the tokenizer silently drops it",
        "d": "the chat template stops with an error",
    }
    q3 = choice("utf8-injection", "A message body contains the spelling of a marker. What happens to it?",
                inject, "a" if leaked else "b",
                source="set(tok.encode(INJECTION, disallowed_special=())) & set(tok.special_tokens.values())",
                why=("Bodies are encoded as ordinary text, so the special IDs they produce form the set "
                     f"{leaked or '{}'}. Plain encode refuses the spelling unless told how to treat it."))
    g = lesson2.vocab_growth(ex.FIG2_VOCAB_OLD, ex.FIG2_VOCAB_NEW, ex.FIG2_WIDTH)
    q4 = exact("utf8-growth", "How many parameters does growing the vocabulary from 32K to 128K add to one "
               "matrix of width 4096?", g.added_per_matrix,
               source="lessons.utf8.vocab_growth(FIG2_VOCAB_OLD, FIG2_VOCAB_NEW, FIG2_WIDTH).added_per_matrix",
               hint="a whole number (402653184 or \"402,653,184\")",
               why=f"{g.added_rows} new rows, each of width {g.width}: {g.added_rows} × {g.width} = {g.added_per_matrix:,}.")
    with_bos = tok.with_special_tokens([ex.BOS_TOKEN]).with_template((ex.BOS_TOKEN, "$A"))
    bos = with_bos.special_tokens[ex.BOS_TOKEN]
    rendered = ex.BOS_TOKEN + lesson2.render_chat(tok, ex.CHAT_MESSAGES).text
    ids = with_bos.encode(rendered, allowed_special="all")
    leading = next(k for k, i in enumerate(ids) if i != bos)
    q5 = exact("utf8-double-bos", "A chat template writes BOS at the start of its string, and the string is then "
               "encoded by a tokenizer whose post-processor adds BOS, with the default add_special_tokens=True. "
               "How many BOS tokens does the sequence start with?", leading,
               source='with_bos.encode(BOS_TOKEN + chat.text, allowed_special="all")',
               hint="a whole number",
               why=(f"The template wrote one BOS ({bos}) and the post-processor put another in front of it. "
                    "Encode a rendered template with add_special_tokens=False, or let the chat template tokenize."))
    return q1, q2, q3, q4, q5


# ----------------------------------------------------------- 03 embedding lookup


def embedding_lookup() -> tuple[Question, ...]:
    """Chapter 3: one cell of the lookup, shift invariance of softmax, the tied
    gradient, the FFN's hidden width, and the vocabulary matrices against a layer at
    real scale (through the engine's public functions)."""
    from . import decoder as dec
    from . import embedding as em

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
    q5 = exact("emb-wide", "Figure 4: which intermediate of the decoder layer is wider than the residual stream? "
               "Give its width.", width,
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


# ------------------------------------------------------------------ 04 attention


def attention() -> tuple[Question, ...]:
    """Chapter 4: who reads whom, the shift against the mask, the cache's absolute
    position, a small weight with a long value, and one more cell each of figures 8, 13 and 14 (a weight, a target and the logit axis,
    the history a misaligned cache mask loses)."""
    t8 = A.causal_attention(ex.FIG8_Q, ex.FIG8_K, ex.FIG8_U)
    reads = {
        "a": "query position 1 reads source position 0, with weight 1/3 of that one row",
        "b": "source position 1 reads query position 0",
        "c": "a third of the batch attends to position 0",
        "d": "position 0 reads position 1",
    }
    q1 = choice("att-A10", "Figure 8: A[1,0] = 1/3. Who reads whom, and what is the 1/3 a share of?", reads, "a",
                source="attention.causal_attention(FIG8_Q, FIG8_K, FIG8_U).weights[1]",
                why=(f"Row = query (reader), column = source. Row 1 is {fmt.vec(t8.weights[1, :2], fractions=True)} "
                     "and sums to 1: it is one position's reading weights, not a share of the batch."))
    shift = LA.shift_vs_mask(ex.TEXT, eos=ex.EOS, column=ex.FIG13_COLUMN, sampled=ex.FIG13_SAMPLED)
    col = shift.column
    read = np.flatnonzero(shift.visibility[col])
    q2 = set_of("att-reads", f"Figure 13: which input positions does column t={col} read?", read,
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
    big = LA.value_magnitude(ex.FIG11_M_LARGE)
    longer = int(np.argmax(big.lengths))
    q4 = exact("att-longer", "Figure 11: with the second value [0, 40], which source (0 or 1) contributes the longer "
               "vector?", longer, source="lessons.attention.value_magnitude(FIG11_M_LARGE).lengths",
               hint="a source index, 0 or 1",
               why=(f"The contributions have lengths {fmt.vec(big.lengths)}: source {longer} has the smaller weight "
                    f"{fmt.num(big.weights[longer])} but the much longer value."))
    a20 = t8.weights[2, 0]
    q6 = exact("att-A20", "Figure 8: what is the weight A[2,0], with which query position 2 reads source position 0?",
               a20, source="attention.causal_attention(FIG8_Q, FIG8_K, FIG8_U).weights[2, 0]",
               hint='a fraction such as "1/3"',
               why=(f"Row 2 sees all three sources; their exponentials are "
                    f"{fmt.vec(t8.exp_scores[2], fractions=True)}, so the softmax over the row gives "
                    f"{fmt.vec(t8.weights[2], fractions=True)}, and A[2,0] = {fmt.frac(a20)}."))
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
    q9 = set_of("att-cache-dropped", "Figure 14: which cached keys would the first new query row wrongly lose if its "
                "local row number 0 were compared with the absolute key index?", dropped,
                source=f"np.flatnonzero(lessons.attention.cache_masks({ex.FIG14_PAST}, {ex.FIG14_NEW}).dropped[0])",
                hint="a set of key indices such as {0, 1}",
                why=(f"The right mask lets local row 0, at absolute position {cache.past}, read keys "
                     f"{fmt.vec(np.flatnonzero(cache.mask[0]))}; the local-index mask keeps only "
                     f"{fmt.vec(np.flatnonzero(cache.wrong[0]))}, dropping {fmt.vec(dropped)} from the history."))
    return q1, q2, q3, q4, q6, q7, q8, q9


# ---------------------------------------------------------------- 05 positions


def rope_discs() -> tuple[Question, ...]:
    """Chapter 5: the RoPE score at a distance, order blindness, a position past a
    learned table, the speed of two pairs, and where ALiBi moves a row's weight."""
    disc = LP.rope_disc(ex.FIG15_Q, ex.FIG15_K, ex.FIG15_OMEGA, 4)
    q1 = number("rope-score", "Figure 15: what does the score become at distance 4 with ω = π/2?", disc.dot,
                tolerance=5e-3, source="lessons.position.rope_disc(FIG15_Q, FIG15_K, FIG15_OMEGA, 4).dot",
                why="Four quarter turns are one full turn: the key is back where it started, and so is the score.")
    swap = LP.order_blindness("ab", [1, 0], seed=ex.ORDER_SEED)
    order = {
        "a": "the outputs change: each token now attends differently",
        "b": "only their order changes: each token gets the same output as before, in the swapped place",
        "c": "both outputs become equal",
    }
    q2 = choice("rope-swap", "Swap the two inputs of a head without a mask and without positions. What happens to "
                "the outputs?", order, "b" if swap.plain_follows_order else "a",
                source='lessons.position.order_blindness("ab", [1, 0], seed=ORDER_SEED).plain_follows_order',
                why="Without positions, attention sees a set of tokens: permuting the inputs permutes the outputs.")
    try:
        P.position_table(8, 4, seed=0).lookup([8])
        refused = False
    except ValueError:
        refused = True
    angles = P.rope_angles([8], 4)[0]
    q3 = vector("rope-pos8", "A learned table has rows 0–7, and position 8 has none. Which RoPE angles does "
                "position 8 get with d_h = 4? (one angle per pair)", angles, tolerance=5e-3,
                source="position.rope_angles([8], 4)[0]", hint="a list of two angles such as [1.0, 0.5]",
                why=(f"The table {'refuses' if refused else 'accepts'} position 8. RoPE needs no row: the angle of pair "
                     "i is the position times θ_i, defined for every position."))
    theta = P.rope_frequencies(ex.ROPE_EXAMPLE_HEAD_DIM, ex.ROPE_EXAMPLE_BASE)
    q4 = exact("rope-speed", "In the four-wide example of section 5.4, how many times faster does pair 0 turn than "
               "pair 1?",
               round(float(theta[0] / theta[1]), 9),
               source="position.rope_frequencies(ROPE_EXAMPLE_HEAD_DIM, ROPE_EXAMPLE_BASE)", hint="a whole number",
               why=f"The frequencies are θ = {fmt.vec(theta)}; each pair turns slower than the one before by the same factor.")
    slope = P.alibi_slopes(ex.ALIBI_HEADS)[0]
    ali = P.alibi(ex.FIG8_Q, ex.FIG8_K, ex.FIG8_U, slope)
    row = ex.FIG8_Q.shape[0] - 1
    q5 = exact("rope-alibi", f"ALiBi with slope {fmt.frac(slope)} on the scores of Figure 8: which source does query "
               f"row {row} read most?", int(ali.most_read[1][row]),
               source=f"position.alibi(FIG8_Q, FIG8_K, FIG8_U, {fmt.frac(slope)}).most_read[1][{row}]",
               hint="a source position (a whole number)",
               why=(f"The bias {fmt.vec(ali.bias[row])} lowers far sources most: the weights "
                    f"{fmt.vec(ali.plain.weights[row], 3)} become {fmt.vec(ali.biased.weights[row], 3)}, and the "
                    f"most-read source moves from {ali.most_read[0][row]} to {ali.most_read[1][row]}."))
    return q1, q2, q3, q4, q5


# ---------------------------------------------------------------------- 06 GQA


def grouped_query() -> tuple[Question, ...]:
    """Chapter 6: which K/V head a query head reads, weights per sequence, the MQA
    cache and a refused pair."""
    hq, hkv = ex.FIG16_N_Q_HEADS, ex.FIG16_N_KV_HEADS
    groups = gqa.kv_groups(hq, hkv)
    h = ex.GQA_QUESTION_HEAD
    q1 = exact("gqa-head5", f"With Hq = {hq} and Hkv = {hkv}, which K/V head does query head {h} read?",
               int(groups[h]), source=f"gqa.kv_groups({hq}, {hkv})[{h}]", hint="a K/V head index",
               why=f"Query head h reads K/V head h // {hq // hkv}: the map is {fmt.vec(groups)}.")
    z = np.zeros
    t = gqa.grouped_attention(z((1, hq, 2, 2)), z((1, hkv, 2, 2)), z((1, hkv, 2, 2)), causal=True)
    q2 = exact("gqa-weights", "How many attention weight matrices does one such layer compute per sequence?",
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
    return q1, q2, q3, q4


# -------------------------------------------------------- 07 RMSNorm and SwiGLU


def rmsnorm_swiglu() -> tuple[Question, ...]:
    """Chapter 7: RMSNorm and LayerNorm of [30, 40], two features under LayerNorm,
    a negative gate, and the residual add's shape rule."""
    x = ex.FIG17_SCALE * ex.FIG17_X
    q1 = vector("norm-rms", f"What does RMSNorm give for x = {fmt.vec(x)}?", norms.rms_norm(x), tolerance=5e-3,
                source="norms.rms_norm(FIG17_SCALE * FIG17_X)",
                why="Divide by the root mean square, √((30² + 40²)/2) ≈ 35.36; the direction is kept.")
    q2 = vector("norm-layer", f"And LayerNorm of x = {fmt.vec(x)}?", norms.layer_norm(x), tolerance=5e-3,
                source="norms.layer_norm(FIG17_SCALE * FIG17_X)",
                why="Subtract the mean 35, then divide by the spread 5: the two features become ∓1.")
    pair = norms.layer_norm([5.0, -2.0])
    two = {
        "a": "centred, the two features are +h and −h for half their gap h, and dividing by h leaves ±1",
        "b": "LayerNorm clips every feature to [−1, 1]",
        "c": "it only happens for these particular numbers",
    }
    q3 = choice("norm-two", "Why can LayerNorm of two unequal features only return [−1, 1] or its mirror image?",
                two, "a" if np.allclose(np.abs(pair), 1, atol=1e-3) else "c",
                source="norms.layer_norm([5.0, -2.0])",
                why=f"For [5, −2]: {fmt.vec(pair)}. Whatever the two values, only their order survives.")
    s = norms.silu(-1.0)
    q4 = number("norm-silu", "A gate pre-activation of −1 goes through SiLU. What is SiLU(−1)? (0 would mean "
                "switched off)", s, tolerance=5e-3, source="norms.silu(-1.0)",
                why=f"SiLU(a) = a·σ(a) = −1·σ(−1) = {fmt.num(s, 3)}: damped, not zero.")
    try:
        norms.residual_add(ex.FIG18_STREAM, [0.5, -1.0, 0.0])
        refused = False
    except ValueError:
        refused = True
    add = {
        "a": "no: the update must have the stream's shape, and the engine refuses it",
        "b": "yes: the extra feature is dropped",
        "c": "yes: the stream is padded with a zero",
    }
    q5 = choice("norm-add", f"Can an update of width 3 be added to the stream {fmt.vec(ex.FIG18_STREAM)}?", add,
                "a" if refused else "b", source="norms.residual_add(FIG18_STREAM, [0.5, -1.0, 0.0])",
                why="The residual stream keeps one width from the embedding to the head; every update is added in place.")
    return q1, q2, q3, q4, q5


# ------------------------------------------------------------------------ 08 MoE


def moe_routing() -> tuple[Question, ...]:
    """Chapter 8: a gate renormalised inside a set of three, the router's gradient at
    top-1 with in-set gates, why figure 22 stores four experts and what a capacity of
    one drops."""
    from . import moe, moe_dispatch
    from .lessons import moe as lessons_moe

    k3 = moe.route(ex.FIG20_SCORES, ex.MOE_QUESTION_K)
    q1 = number(
        "moe-k3-gate",
        f"With the scores {fmt.vec(ex.FIG20_SCORES)} of Figure 20 and k = {ex.MOE_QUESTION_K}, what is the gate "
        "of expert 0?",
        k3.gates[0], tolerance=5e-4,
        source=f"moe.route(FIG20_SCORES, {ex.MOE_QUESTION_K}).gates[0]",
        hint="a number between 0 and 1",
        why=(f"S = {{{', '.join(map(str, sorted(k3.chosen.tolist())))}}}; the denominator runs over S only: "
             f"e^{fmt.num(k3.scores[0])}/({' + '.join(f'e^{fmt.num(k3.scores[i])}' for i in sorted(k3.chosen.tolist()))}) "
             f"= {fmt.num(k3.gates[0], 4)}. With k = {ex.FIG20_K} it was "
             f"{fmt.num(moe.route(ex.FIG20_SCORES, ex.FIG20_K).gates[0], 4)}: adding an expert to S shrinks every gate in it."),
    )

    b21 = lessons_moe.top1_boundary(ex.FIG21_DELTA, ex.FIG21_OUTPUTS, ex.FIG21_TARGET)
    q2 = vector(
        "moe-top1-grad",
        f"Figure 21, top-1 with the gate renormalised inside the chosen set: at δ = {fmt.num(ex.FIG21_DELTA)}, what "
        "gradient does the task loss send to the two router scores?",
        b21.in_set.grad, tolerance=5e-4,
        source=f"lessons.moe.top1_boundary({fmt.num(ex.FIG21_DELTA)}, FIG21_OUTPUTS, FIG21_TARGET).in_set.grad",
        hint="a list of two numbers such as [1, 2]",
        why=(f"The only gate is renormalised over a set of one, so it is the constant {fmt.num(b21.gate_in_set)}: "
             f"a constant passes no gradient. With the full-softmax gate the same loss gives "
             f"{fmt.vec(np.round(b21.full.grad, 3))}."),
    )

    batch = moe_dispatch.route_batch(ex.FIG22_SCORES, ex.FIG22_K)
    per_token = "; ".join(f"token {n} runs {{{', '.join(map(str, sorted(row.tolist())))}}}"
                          for n, row in enumerate(batch.route.chosen))
    used = batch.experts_used
    store = {"a": "every token secretly runs all four experts; the gates only hide it",
             "b": "another token can choose other experts: not executed is not the same as not stored",
             "c": "the gates of the chosen experts are computed from the unchosen experts' weights",
             "d": "they are spares that stand in when a chosen expert fails"}
    q3 = choice(
        "fig22-store",
        f"Figure 22: every token runs only k = {batch.route.k} experts. Why store all {batch.route.n_experts}?",
        store, "b" if used.size > batch.route.k else "a",
        source=f"moe_dispatch.route_batch(FIG22_SCORES, k={batch.route.k}).experts_used",
        why=(f"{per_token}; together the batch uses {used.size} experts, more than k = {batch.route.k}. "
             "Any expert may be needed by the next token, so all of them must stay stored (or be fetched); "
             "unchosen experts are not run for this token, and their gates are exactly 0."),
    )

    crowded = moe_dispatch.route_batch(np.vstack([ex.FIG22_SCORES[0], ex.FIG22_CANDIDATES[0]]), ex.FIG22_K,
                                       capacity=ex.FIG22_CAPACITY)
    q4 = exact(
        "moe-dropped",
        f"Section 8.4: the second token has the scores {fmt.vec(ex.FIG22_CANDIDATES[0])} and every expert accepts "
        f"at most {ex.FIG22_CAPACITY} token. How many (token, expert) assignments are dropped?",
        len(crowded.dropped),
        source=(f"moe_dispatch.route_batch(np.vstack([FIG22_SCORES[0], FIG22_CANDIDATES[0]]), {ex.FIG22_K}, "
                f"capacity={ex.FIG22_CAPACITY}).dropped"),
        hint="a whole number",
        why=(f"Both tokens choose experts {{{', '.join(map(str, sorted(crowded.route.chosen[0].tolist())))}}}, so "
             f"each of them has a load of {int(crowded.load.max())}; token 0 comes first and fills them, and both "
             f"of token 1's assignments are turned away: {crowded.dropped}."),
    )

    return q1, q2, q3, q4


# ---------------------------------------------------------------- 09 model files


def model_files() -> tuple[Question, ...]:
    """Chapter 9: where the tensor data starts, the tied head, a config edit, a
    mismatched layer count and the tiny tokenizer's partial characters."""
    from . import model as M
    from . import safetensors_format as S

    with tempfile.TemporaryDirectory() as tmp:
        directory = M.save(Path(tmp) / "tiny-llama", M.tiny_model())
        _, n, _ = S.raw_header(directory / "model.safetensors")
        config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
        config["num_hidden_layers"] -= 1
        (directory / "config.json").write_text(json.dumps(config), encoding="utf-8")
        try:
            M.load(directory)
            error = ""
        except M.ModelFileError as err:
            error = str(err)
    q1 = exact("files-data-start", "At which byte of tiny-llama/model.safetensors does the first tensor's data begin?",
               8 + n, source='8 + safetensors_format.raw_header(".../model.safetensors")[1]',
               hint="a byte offset (a whole number)",
               why=f"8 bytes of length, then the JSON header of N = {n} bytes: the data starts at 8 + {n} = {8 + n}.")
    untied, tied = M.tiny_config(), M.tiny_config(tied=True)
    (gone,) = set(M.tensor_shapes(untied)) - set(M.tensor_shapes(tied))
    names = sorted(M.tensor_shapes(untied))
    missing = {"a": gone, "b": "model.embed_tokens.weight", "c": "model.norm.weight", "d": "none: only config.json changes"}
    q2 = choice("files-tied", "Save M.tiny_model(tied=True): which tensor name is missing?", missing, "a",
                source="set(M.tensor_shapes(M.tiny_config())) - set(M.tensor_shapes(M.tiny_config(tied=True)))",
                why=f"The tied head reuses model.embed_tokens.weight; of the {len(names)} untied names, {gone} is not stored.")
    fewer = M.count_parameters(untied).total - M.count_parameters(tied).total
    q3 = exact("files-tied-count", "How many parameters fewer does the tied model store?", fewer,
               source="M.count_parameters(M.tiny_config()).total - M.count_parameters(M.tiny_config(tied=True)).total",
               hint="a whole number", why=f"The head is [V, d] = {untied.vocab_size} × {untied.hidden_size} = {fewer}.")
    kv4 = dataclasses.replace(untied, num_key_value_heads=4)
    k_shape = M.tensor_shapes(kv4)["model.layers.0.self_attn.k_proj.weight"]
    q4 = sequence("files-kproj", "With num_key_value_heads = 4, what is the shape of k_proj.weight?", list(k_shape),
                  source='M.tensor_shapes(replace(config, num_key_value_heads=4))["model.layers.0.self_attn.k_proj.weight"]',
                  hint="a shape such as [8, 16]",
                  why=f"PyTorch stores [out, in]: out = Hkv × d_h = 4 × {untied.head_dim}, in = d = {untied.hidden_size}.")
    q5 = exact("files-kv4-count", "And the new parameter count?", M.count_parameters(kv4).total,
               source="M.count_parameters(replace(config, num_key_value_heads=4)).total", hint="a whole number",
               why="Only k_proj and v_proj grow, in every layer: "
                   f"{M.count_parameters(untied).total} becomes {M.count_parameters(kv4).total}.")
    last = f"model.layers.{untied.num_hidden_layers - 1}."
    named = {
        "a": f"a tensor of the last layer ({last}…) that the shorter config does not describe",
        "b": "model.embed_tokens.weight",
        "c": "lm_head.weight",
        "d": "none: the extra layer is silently ignored",
    }
    q6 = choice("files-layers", "config.json declares one layer fewer. Which tensor does the loader's error name?",
                named, "a" if last in error else "d", source="M.load(directory) after editing num_hidden_layers",
                why=f"The loader checks every stored tensor against the config: {error or 'no error'}")
    tok = M.tiny_tokenizer()
    ids = tok.encode("大语言模型")
    broken = [i for i, t in enumerate(ids) if "\ufffd" in tok.decode_bytes([t]).decode("utf-8", errors="replace")]
    q7 = set_of("files-partial", 'Encode "大语言模型" with the tiny tokenizer. Which token positions (0, 1, …) hold '
                "part of a character when decoded alone?", broken,
                source='[tiny_tokenizer().decode_bytes([i]).decode("utf-8", errors="replace") for i in ids]',
                hint="a set of token positions such as {0, 1}",
                why=f"IDs {fmt.vec(ids)}; a token whose bytes end or start inside a character decodes to �.")
    return q1, q2, q3, q4, q5, q6, q7


def trained_model() -> tuple[Question, ...]:
    """Chapter 10: the experts' share of the stored parameters, the first loss against
    ln V, spaces against tabs, what the named head's query reads, the most
    previous-token-like head of the last layer, one line's expert load, and the
    least-loaded expert of the routing figure's layer."""
    from . import model as M
    from . import trained as T

    folder = T.trained_folder()
    count = T.count_moe_parameters(folder)
    share = count.experts / count.total
    q1 = number("trained-expert-share", "What share of the stored parameters sits in the experts?", share,
                tolerance=0.005, source="count.experts / count.total", hint="a number between 0 and 1",
                why=f"{count.layers} layers × {count.num_experts} experts × {count.per_expert:,} = {count.experts:,} "
                    f"of {count.total:,} stored numbers. With twice the experts and the same top-k, the stored "
                    "share grows while the numbers a token uses stay almost the same (only the routers grow).")
    record = T.read_training(folder)
    first = record["loss_curve"]["mean_train_loss"][0]
    gap = record["ln_vocab"] - first
    q2 = number("trained-first-gap", "How far below ln V is the first value of the training curve?", gap,
                tolerance=0.05, source='record["ln_vocab"] - record["loss_curve"]["mean_train_loss"][0]',
                hint="a number of nats",
                why=f"ln V = {record['ln_vocab']:.2f} and the first mean of ten steps is {first:.2f}: "
                    "within its first steps the model already starts to favour the commonest tokens.")
    tok = M.read_tokenizer(folder / "tokenizer.json")
    spaces, tabs = "        return self", "\t\treturn self"
    n_spaces, n_tabs = len(tok.encode(spaces)), len(tok.encode(tabs))
    options = {"a": "the line indented with eight spaces", "b": "the line indented with two tabs",
               "c": "both cost the same"}
    key = "a" if n_spaces > n_tabs else "b" if n_tabs > n_spaces else "c"
    q3 = choice("trained-tabs", "Which costs more tokens: `        return self` (eight spaces) or the same line "
                "indented with two tabs?", options, key,
                source="len(tok.encode(line)) for both lines",
                why=f"{n_spaces} tokens with spaces, {n_tabs} with tabs"
                    + (": the merges were learned from the standard library, which indents with spaces, so runs "
                       "of spaces became tokens and runs of tabs did not; and after a tab the word has no space "
                       "in front of it, so it is not the familiar token with a leading space."
                       if n_tabs > n_spaces else "."))
    fig = figure_number("trained_attention")
    line = T.line_attention()
    source, piece, weight = line.map.top_sources(line.query, k=1)[0]
    q4 = exact("trained-head-read", f"Figure {fig}: in layer {line.layer}, head {line.head}, which source position "
               f"does the line's last token (position {line.query}) read most?", source,
               source="T.line_attention().map.top_sources(query, k=1)", hint="a position (a whole number)",
               why=(f"Its row puts {weight:.2f} on position {source} ({piece!r}), "
                    + ("the token just before it" if source == line.query - 1 else f"{line.query - source} tokens back")
                    + ". Over the held-out sample the head is "
                    f"{line.stats.describe(line.layer, line.head, line.share)}."))
    model = T.committed_model(folder)
    trace = model.forward(model.encode(T.held_out_lines(folder)[T.example_line(folder)]))
    prev = T.previous_token_weight(trace)
    head = int(np.argmax(prev[-1]))
    q5 = exact("trained-prev-head", "Which head of the last layer puts the most weight on the previous token?",
               head, source="int(np.argmax(T.previous_token_weight(trace)[-1]))", hint="a head index (0, 1, …)",
               why=f"Its mean weight on the previous token is {prev[-1, head]:.2f}, the largest of "
                   f"{fmt.vec(np.round(prev[-1], 2))}.")
    chosen = trace.layers[0].chosen_experts
    load = np.bincount(np.asarray(chosen).ravel(), minlength=count.num_experts).tolist()
    q6 = sequence("trained-load", "How often was each expert of layer 0 chosen over the whole line (expert 0 first)?",
                  load, source="np.bincount(trace.layers[0].chosen_experts.ravel(), minlength=4)",
                  hint="a list of counts, such as [1, 2, 3, 4]",
                  why=f"{sum(load)} choices: {chosen.shape[1]} tokens × top-{count.top_k}. An even load would give "
                      f"each expert {sum(load) / count.num_experts:g}.")
    layer = ex.ROUTE_LAYER
    stats = T.measured_routing()
    idle = int(np.argmin(stats.load[layer]))
    q7 = exact(
        "trained-idle",
        f"Figure {figure_number('trained_routing')}: over the whole held-out sample, which expert of layer {layer} "
        "receives the fewest choices?", idle,
        source=f"T.measured_routing().load[{layer}].argmin()", hint="an expert index (a whole number)",
        why=(f"Expert {idle} receives {stats.load[layer, idle]:,} of the {stats.tokens * stats.top_k:,} choices "
             f"({stats.load_share[layer, idle]:.0%}); an even split would give each expert "
             f"{1 / stats.load.shape[1]:.0%}. It is stored and loaded like the others all the same: any token "
             "may choose it."),
    )
    return q1, q2, q3, q4, q5, q6, q7


def figure_number(module: str) -> int:
    """The book's number of the figure drawn by ``tokenpath.figures.<module>``."""
    return importlib.import_module(f"tokenpath.figures.{module}").NUMBER


#: Each chapter's question builder, by the chapter's file name.
CHAPTERS: dict[str, Callable[[], tuple[Question, ...]]] = {
    "01_bpe_merges": bpe_merges,
    "02_utf8_splits": utf8_splits,
    "03_embedding_lookup": embedding_lookup,
    "04_attention": attention,
    "05_rope_discs": rope_discs,
    "06_gqa": grouped_query,
    "07_rmsnorm_swiglu": rmsnorm_swiglu,
    "08_moe_routing": moe_routing,
    "09_model_files": model_files,
    "10_trained_model": trained_model,
}


def for_chapter(chapter: str) -> dict[str, Question]:
    """The questions of ``chapter`` (a file name such as ``"04_attention"``), by id,
    in the order the chapter asks them.

    >>> list(for_chapter("04_attention"))
    ['att-A10', 'att-reads', 'att-cache-row', 'att-longer', 'att-A20', 'att-target', 'att-axis', 'att-cache-dropped']
    """
    if chapter not in CHAPTERS:
        raise ValueError(f"chapter must be one of {sorted(CHAPTERS)}, got {chapter!r}")
    return {q.id: q for q in CHAPTERS[chapter]()}
