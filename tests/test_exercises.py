"""The exercises: every reference solution passes, every catalogued mistake is named when
a reader's wrong twin makes it, and a wrong function that matches no catalogued mistake
gets "first difference" without a diagnosis.

The wrong twins are written the way a reader would write them (loops, other numpy
calls), not copied from the package's catalogue, so a twin that stops matching its
mistake fails the test: here for chapters 1, 4 and 5, in tests/_exercise_twins.py for
chapters 2, 3 and 6-9, in tests/_capstone_twins.py for the capstones of chapters 8 and 9."""

from __future__ import annotations

import math
import textwrap
from collections import Counter, defaultdict

import numpy as np
import pytest

from tokenpath import exercises
from tokenpath.attention import cache_mask, causal_mask

from _exercise_twins import (  # the twins of chapters 2, 3 and 6-9
    _softmax_rows,
    _theta,
    ce_clipped,
    ce_epsilon,
    ce_log10,
    ce_log_of_p,
    ce_min_shift,
    ce_naive,
    ce_positive_log,
    ce_raw,
    ce_stable_log10,
    ce_stable_no_minus,
    decode_each,
    decode_each_strictly,
    decode_ignoring,
    decode_ids_as_bytes,
    decode_latin,
    decode_nfc,
    decode_nfkc,
    decode_sig,
    decode_streaming,
    decode_strict,
    decode_with_the_tokenizer,
    encode_gpt2_only,
    encode_latin1_chars,
    encode_leftmost,
    encode_patterns_reversed,
    encode_unsplit,
    train_distinct_words,
    train_first_counted,
    train_largest_tie,
    train_merge_singletons,
    train_right_to_left,
    train_split_at_single_spaces,
    train_split_at_spaces,
    train_whole_text,
    embed_columns,
    embed_from_one,
    embed_scaled,
    embed_summed,
    embed_take_flat,
    gqa_concatenated,
    gqa_mask_late,
    gqa_modulo,
    gqa_query_axis,
    gqa_repeat_kv,
    gqa_tiled,
    gqa_unscaled,
    repeat_kv,
    rms_centred,
    rms_eps_outside,
    rms_mean_not_squared,
    rms_no_eps,
    rms_no_gamma,
    rms_one_plus_w,
    rms_positions,
    rms_rsqrt,
    rms_variance,
    rope_adjacent,
    rope_clockwise,
    rope_hf_inv_freq_doubled,
    rope_repeat_interleave,
    rope_row_numbers,
    rope_slow_exponent,
    rope_theta_from_one,
    route_by_id,
    route_by_rank,
    route_dense,
    route_high_tie,
    route_high_tie_default_sort,
    route_lowest,
    route_lowest_default_sort,
    route_no_exp,
    route_top_lowest_first,
    route_unnormalised,
    swiglu_relu,
    swiglu_sigmoid,
    swiglu_swapped,
    swiglu_weights_swapped,
)
from _capstone_twins import (  # the twins of the capstones of chapters 8 and 9
    layer_centred,
    layer_first_residual_left_out,
    layer_first_residual_normed,
    layer_flat_join,
    layer_gate_up_swapped,
    layer_hidden_zero,
    layer_interleaved,
    layer_mask_late,
    layer_masked_scores,
    layer_mean_not_squared,
    layer_modulo,
    layer_no_eps,
    layer_one_plus_gamma,
    layer_over_width,
    layer_positions_from_one,
    layer_post_norm,
    layer_query_axis,
    layer_residual_normed,
    layer_right,
    layer_rope_values,
    layer_scores_unrotated,
    layer_second_residual_left_out,
    layer_second_residual_normed,
    layer_silu_on_up,
    layer_split_flat,
    layer_unmasked,
    layer_unscaled,
    shared_always_renormalised,
    shared_chosen_sorted,
    shared_gate_left_out,
    shared_gate_on_input,
    shared_gate_on_sum,
    shared_high_ties,
    shared_logit_gate,
    shared_never_renormalised,
    shared_residual_inside,
    shared_right_in_loops,
    shared_router_gate,
    shared_softmax_gate,
    shared_weights_swapped,
)


# ------------------------------------------------------------------- chapter 1

def pairs_unweighted(words):
    d = defaultdict(int)
    for w in words.keys():
        for i in range(len(w) - 1):
            d[w[i], w[i + 1]] += 1
    return dict(d)


def pairs_distinct(words):
    d = Counter()
    for w, n in words.items():
        seen = {(w[i], w[i + 1]) for i in range(len(w) - 1)}
        for p in seen:
            d[p] += n
    return d


def pairs_short(words):
    d = {}
    for w, n in words.items():
        for a, b in list(zip(w, w[1:]))[:-1]:
            d[(a, b)] = d.get((a, b), 0) + n
    return d


def pairs_as_strings(words):
    d = defaultdict(int)
    for w, n in words.items():
        for i in range(len(w) - 1):
            d[w[i] + w[i + 1]] += n
    return d


def merge_keeps_second(symbols, pair, new):
    out, i = [], 0
    while i < len(symbols):
        hit = i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair
        out.append(new if hit else symbols[i])
        i += 1  # the second symbol of the pair is not skipped
    return tuple(out)


def merge_no_skip(symbols, pair, new):
    out, prev_used = [], False
    for i in range(len(symbols)):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(new)
            prev_used = True
        elif prev_used:
            prev_used = False
        else:
            out.append(symbols[i])
    return tuple(out)


def merge_once(symbols, pair, new):
    s = list(symbols)
    for i in range(len(s) - 1):
        if s[i] == pair[0] and s[i + 1] == pair[1]:
            s[i:i + 2] = [new]
            break
    return tuple(s)


def merge_from_right(symbols, pair, new):
    s, i, out = list(symbols), len(symbols) - 1, []
    while i >= 0:
        if i > 0 and (s[i - 1], s[i]) == pair:
            out.insert(0, new)
            i -= 2
        else:
            out.insert(0, s[i])
            i -= 1
    return tuple(out)


def merge_joins_the_pair(symbols, pair, new):
    out, i = [], 0
    while i < len(symbols):
        if symbols[i:i + 2] == pair:
            out.append(pair[0] + pair[1])  # section 1.2's first loop, which had no `new`
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def pairs_over_the_corpus(words):
    corpus = []
    for w, n in words.items():
        corpus += list(w) * n
    d = Counter()
    for i in range(len(corpus) - 1):
        d[(corpus[i], corpus[i + 1])] += 1
    return d


def merge_by_replace(symbols, pair, new):
    text = " ".join(symbols)
    return tuple(text.replace(pair[0] + " " + pair[1], new).split(" "))


def merge_by_letters(symbols, pair, new):
    out = []
    for s in symbols:
        if out and out[-1] + s == new and out[-1] != new:
            out[-1] = new
        else:
            out.append(s)
    return tuple(out)


# ------------------------------------------------------------------- chapter 4

def causal_upper(t):
    return np.array([[j >= i for j in range(t)] for i in range(t)])


def causal_strict(t):
    return np.array([[j < i for j in range(t)] for i in range(t)])


def causal_inverted(t):
    return np.triu(np.ones((t, t)), 1).astype(bool)


def att_unscaled(q, k, v, mask):
    s = np.einsum("id,jd->ij", q, k)
    a = _softmax_rows(np.where(mask, s, -np.inf))
    return {"scores": s, "weights": a, "output": a @ v}


def att_over_width(q, k, v, mask):
    s = np.einsum("id,jd->ij", q, k) / q.shape[1]
    a = _softmax_rows(np.where(mask, s, -np.inf))
    return {"scores": s, "weights": a, "output": a @ v}


def att_columns(q, k, v, mask):
    s = q @ k.T / math.sqrt(k.shape[1])
    a = _softmax_rows(np.where(mask, s, -np.inf).T).T
    return {"scores": s, "weights": np.nan_to_num(a), "output": np.nan_to_num(a) @ v}


def att_columns_nan(q, k, v, mask):
    s = q @ k.T / math.sqrt(k.shape[1])
    with np.errstate(invalid="ignore"):
        e = np.exp(np.where(mask, s, -np.inf) - np.where(mask, s, -np.inf).max(axis=0))
        a = e / e.sum(axis=0)
        return {"scores": s, "weights": a, "output": a @ v}


def att_columns_big(q, k, v, mask):
    s = q @ k.T / math.sqrt(k.shape[1])
    z = np.where(mask, s, -1e9)
    e = np.exp(z - z.max(axis=0))
    a = e / e.sum(axis=0)
    return {"scores": s, "weights": a, "output": a @ v}


def att_mask_late(q, k, v, mask):
    s = q @ k.T / math.sqrt(k.shape[1])
    a = np.where(mask, _softmax_rows(s), 0.0)
    return {"scores": s, "weights": a, "output": a @ v}


def att_unmasked(q, k, v, mask):
    s = q @ k.T / math.sqrt(k.shape[1])
    a = _softmax_rows(s)
    return {"scores": s, "weights": a, "output": a @ v}


def causal_one_ahead(t):
    return np.array([[j <= i + 1 for j in range(t)] for i in range(t)])


def att_no_max(q, k, v, mask):
    s = q @ k.T / math.sqrt(q.shape[1])
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.where(mask, np.exp(np.where(mask, s, 0.0)), 0.0)
        a = e / e.sum(axis=1, keepdims=True)
    return {"scores": s, "weights": a, "output": a @ v}


def att_softmax_then_mask(q, k, v, mask):
    s = q @ k.T / math.sqrt(q.shape[1])
    with np.errstate(invalid="ignore"):
        a = _softmax_rows(s) * mask  # softmax of every key, then the hidden ones removed
        a = a / a.sum(axis=1, keepdims=True)
    return {"scores": s, "weights": a, "output": a @ v}


def att_exp_before_mask(q, k, v, mask):
    s = q @ k.T / math.sqrt(q.shape[1])
    top = np.where(mask, s, -np.inf).max(axis=1, keepdims=True)  # the max over the visible keys, rightly
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(s - top) * mask  # but a hidden score far above it overflows: inf * 0 = NaN
        a = e / e.sum(axis=1, keepdims=True)
    return {"scores": s, "weights": a, "output": a @ v}


def att_column_max(q, k, v, mask):
    s = q @ k.T / math.sqrt(q.shape[1])
    x = np.where(mask, s, -np.inf)
    with np.errstate(invalid="ignore"):
        e = np.exp(x - np.max(x, axis=0))
        a = e / e.sum(axis=1, keepdims=True)
    return {"scores": s, "weights": a, "output": a @ v}


def att_times_mask(q, k, v, mask):
    s = q @ k.T / math.sqrt(q.shape[1])
    a = _softmax_rows(s * mask)
    return {"scores": s, "weights": a, "output": a @ v}


def att_value_width(q, k, v, mask):
    s = q @ k.T / math.sqrt(v.shape[1])
    a = _softmax_rows(np.where(mask, s, -np.inf))
    return {"scores": s, "weights": a, "output": a @ v}


def att_minus_1e9(q, k, v, mask):
    """Right: −1e9 for a hidden score underflows to a weight of exactly 0."""
    s = q @ k.T / math.sqrt(q.shape[1])
    z = np.where(mask, s, -1e9)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    a = e / e.sum(axis=1, keepdims=True)
    return {"scores": s, "weights": a, "output": a @ v}


def cache_one_ahead(past, new):
    return np.array([[j <= past + r + 1 for j in range(past + new)] for r in range(new)])


def cache_local(past, new):
    return np.array([[j <= r for j in range(past + new)] for r in range(new)])


def cache_square(past, new):
    return np.tril(np.full((new, new), True))


def cache_no_self(past, new):
    return np.array([[j < past + r for j in range(past + new)] for r in range(new)])


#: (exercise, the mistake's name, the reader's wrong twin)
TWINS = [
    ("pair_counts", "counts not weighted by the word's frequency", pairs_unweighted),
    ("pair_counts", "a pair counted once per word", pairs_distinct),
    ("pair_counts", "the last pair left out", pairs_short),
    ("pair_counts", "pairs stored as joined strings", pairs_as_strings),
    ("merge_pair", "overlapping pairs merged twice", merge_no_skip),
    ("merge_pair", "the pair's second symbol kept", merge_keeps_second),
    ("merge_pair", "only the first occurrence merged", merge_once),
    ("merge_pair", "merged right to left", merge_from_right),
    ("merge_pair", "the argument new ignored", merge_joins_the_pair),
    ("pair_counts", "pairs counted across word boundaries", pairs_over_the_corpus),
    ("merge_pair", "the pair found in the joined text", merge_by_replace),
    ("merge_pair", "the pair recognised by its letters", merge_by_letters),
    ("decode", "per-token decoding", decode_each),
    ("decode", "per-token decoding, strict", decode_each_strictly),
    ("decode", "invalid bytes dropped", decode_ignoring),
    ("decode", "the bytes read as Latin-1", decode_latin),
    ("decode", "no final flush", decode_streaming),
    ("decode", "the text normalised to NFC (or NFKC)", decode_nfc),
    ("decode", "the text normalised to NFC (or NFKC)", decode_nfkc),
    ("decode", "strict decoding with the tokenizer's own decode", decode_with_the_tokenizer),
    ("decode", "IDs taken as bytes", decode_ids_as_bytes),
    ("decode", "strict decoding", decode_strict),
    ("decode", "the byte-order mark dropped", decode_sig),
    ("train", "ties broken by the largest pair", train_largest_tie),
    ("train", "ties broken by the first pair counted", train_first_counted),
    ("train", "no pre-tokenisation", train_whole_text),
    ("train", "words cut at spaces", train_split_at_spaces),
    ("train", "words cut at single spaces", train_split_at_single_spaces),
    ("train", "merged right to left", train_right_to_left),
    ("train", "counts not weighted", train_distinct_words),
    ("train", "pairs seen once merged", train_merge_singletons),
    ("encode", "GPT-2's pattern alone", encode_gpt2_only),
    ("encode", "patterns in the wrong order", encode_patterns_reversed),
    ("encode", "no pre-tokenisation", encode_unsplit),
    ("encode", "bytes not mapped to GPT-2's characters", encode_latin1_chars),
    ("encode", "the leftmost mergeable pair first", encode_leftmost),
    ("embed", "IDs counted from 1", embed_from_one),
    ("embed", "the rows added up", embed_summed),
    ("embed", "the rows scaled by √d", embed_scaled),
    ("embed", "the columns of E read", embed_columns),
    ("embed", "np.take without axis=0", embed_take_flat),
    ("cross_entropy_one", "the minus sign left out", ce_positive_log),
    ("cross_entropy_one", "the logit instead of the log-probability", ce_raw),
    ("cross_entropy_one", "softmax without subtracting the maximum", ce_naive),
    ("cross_entropy_one", "log base 10", ce_log10),
    ("cross_entropy_one", "−log p[y] after p[y] underflowed", ce_log_of_p),
    ("cross_entropy_one", "the minimum subtracted", ce_min_shift),
    ("cross_entropy_one", "the minus sign left out", ce_stable_no_minus),
    ("cross_entropy_one", "log base 10", ce_stable_log10),
    ("cross_entropy_one", "−log(p[y] + ε)", ce_epsilon),
    ("cross_entropy_one", "−log(p[y] + ε)", ce_clipped),
    ("causal_mask", "the triangle flipped", causal_upper),
    ("causal_mask", "the diagonal hidden", causal_strict),
    ("causal_mask", "True where hidden", causal_inverted),
    ("causal_mask", "one future key visible", causal_one_ahead),
    ("masked_attention", "no 1/√d_h", att_unscaled),
    ("masked_attention", "divided by d_h, not √d_h", att_over_width),
    ("masked_attention", "softmax over the query axis", att_columns),
    ("masked_attention", "softmax over the query axis, hidden columns NaN", att_columns_nan),
    ("masked_attention", "softmax over the query axis, −1e9 for hidden cells", att_columns_big),
    ("masked_attention", "the mask applied after the softmax", att_mask_late),
    ("masked_attention", "the mask ignored", att_unmasked),
    ("masked_attention", "hidden scores set to 0", att_times_mask),
    ("masked_attention", "no max subtracted", att_no_max),
    ("masked_attention", "hidden keys in the max", att_softmax_then_mask),
    ("masked_attention", "hidden keys in the max", att_exp_before_mask),
    ("masked_attention", "the max taken over the query axis", att_column_max),
    ("masked_attention", "divided by √d_v, not √d_h", att_value_width),
    ("cache_mask", "the cache mask built from local indices", cache_local),
    ("cache_mask", "the square causal mask reused", cache_square),
    ("cache_mask", "the diagonal hidden", cache_no_self),
    ("cache_mask", "one future key visible", cache_one_ahead),
    ("rope_head", "RoPE's adjacent pairing where rotate_half is used", rope_adjacent),
    ("rope_head", "turned the wrong way", rope_clockwise),
    ("rope_head", "θ_i = base^(−i/d_h)", rope_slow_exponent),
    ("rope_head", "the row number used as the position", rope_row_numbers),
    ("rope_head", "θ_i counted from i = 1", rope_theta_from_one),
    ("rope_head", "θ_i = base^(−4i/d_h)", rope_hf_inv_freq_doubled),
    ("rope_head", "cos and sin repeated per feature with rotate_half", rope_repeat_interleave),
    ("gqa_attention", "K/V copied to line up with the query heads", gqa_tiled),
    ("gqa_attention", "K/V broadcast to Hq heads, then reshaped", gqa_repeat_kv),
    ("gqa_attention", "K/V tiled or concatenated: interleaved and copied", gqa_concatenated),
    ("gqa_attention", "query heads grouped by h % Hkv", gqa_modulo),
    ("gqa_attention", "no 1/√d_h", gqa_unscaled),
    ("gqa_attention", "softmax over the query axis", gqa_query_axis),
    ("gqa_attention", "the mask applied after the softmax", gqa_mask_late),
    ("rms_norm", "RMSNorm subtracting the mean", rms_centred),
    ("rms_norm", "ε outside the square root", rms_eps_outside),
    ("rms_norm", "the mean over the positions", rms_positions),
    ("rms_norm", "γ left out", rms_no_gamma),
    ("rms_norm", "the mean of x, not of x²", rms_mean_not_squared),
    ("rms_norm", "the variance in place of the mean square", rms_variance),
    ("rms_norm", "ε left out", rms_no_eps),
    ("rms_norm", "γ = 1 + w", rms_one_plus_w),
    ("rms_norm", "rms holding 1/RMS", rms_rsqrt),
    ("swiglu", "SiLU on the up branch", swiglu_swapped),
    ("swiglu", "σ instead of SiLU", swiglu_sigmoid),
    ("swiglu", "ReLU instead of SiLU", swiglu_relu),
    ("swiglu", "W_g and W_u swapped", swiglu_weights_swapped),
    ("decoder_layer", "RoPE's interleaved pairing where rotate_half is used", layer_interleaved),
    ("decoder_layer", "RoPE applied to the values", layer_rope_values),
    ("decoder_layer", "query heads grouped by h % Hkv", layer_modulo),
    ("decoder_layer", "no 1/√d_h", layer_unscaled),
    ("decoder_layer", "softmax over the query axis", layer_query_axis),
    ("decoder_layer", "the causal mask left out", layer_unmasked),
    ("decoder_layer", "RMSNorm without ε", layer_no_eps),
    ("decoder_layer", "the mean of x, not of x²", layer_mean_not_squared),
    ("decoder_layer", "RMSNorm subtracting the mean", layer_centred),
    ("decoder_layer", "the residual taken from the normed input", layer_residual_normed),
    ("decoder_layer", "the first residual taken from the normed input", layer_first_residual_normed),
    ("decoder_layer", "the second residual taken from the normed input", layer_second_residual_normed),
    ("decoder_layer", "the first residual left out", layer_first_residual_left_out),
    ("decoder_layer", "the second residual left out", layer_second_residual_left_out),
    ("decoder_layer", "post-norm", layer_post_norm),
    ("decoder_layer", "γ = 1 + w", layer_one_plus_gamma),
    ("decoder_layer", "W_g and W_u swapped", layer_gate_up_swapped),
    ("decoder_layer", "heads split without moving the axis", layer_split_flat),
    ("decoder_layer", "scores returned after the mask", layer_masked_scores),
    ("decoder_layer", "scores from q and k, not q_rot and k_rot", layer_scores_unrotated),
    ("decoder_layer", "divided by d_h, not √d_h", layer_over_width),
    ("decoder_layer", "hidden scores set to 0", layer_hidden_zero),
    ("decoder_layer", "the mask applied after the softmax", layer_mask_late),
    ("decoder_layer", "positions counted from 1", layer_positions_from_one),
    ("decoder_layer", "heads joined without moving the head axis", layer_flat_join),
    ("decoder_layer", "SiLU on the up branch", layer_silu_on_up),
    ("route_top_k", "top-k without renormalising", route_unnormalised),
    ("route_top_k", "gates left on the unchosen experts", route_dense),
    ("route_top_k", "the lowest scores chosen", route_lowest),
    ("route_top_k", "the chosen experts listed by ID", route_by_id),
    ("route_top_k", "ties broken towards the higher ID", route_high_tie),
    ("route_top_k", "the lowest scores chosen", route_lowest_default_sort),
    ("route_top_k", "ties broken towards the higher ID", route_high_tie_default_sort),
    ("route_top_k", "the top k listed lowest first", route_top_lowest_first),
    ("route_top_k", "the gates placed by rank", route_by_rank),
    ("route_top_k", "the scores divided by their sum", route_no_exp),
    ("shared_expert_moe", "the shared gate a softmax", shared_softmax_gate),
    ("shared_expert_moe", "the shared expert gated by the router", shared_router_gate),
    ("shared_expert_moe", "no renormalisation when norm_topk_prob is set", shared_never_renormalised),
    ("shared_expert_moe", "renormalised whatever norm_topk_prob says", shared_always_renormalised),
    ("shared_expert_moe", "the shared expert added before the gate", shared_gate_on_sum),
    ("shared_expert_moe", "the shared gate left out", shared_gate_left_out),
    ("shared_expert_moe", "the gate applied to the shared expert's input", shared_gate_on_input),
    ("shared_expert_moe", "the shared gate's logit used without σ", shared_logit_gate),
    ("shared_expert_moe", "ties broken towards the higher ID", shared_high_ties),
    ("shared_expert_moe", "W_g and W_u swapped", shared_weights_swapped),
    ("shared_expert_moe", "the residual added inside the block", shared_residual_inside),
]


@pytest.mark.parametrize("name", exercises.names())
def test_the_reference_solution_passes(name):
    result = exercises.check(name, exercises.solution(name))
    assert result.passed, result.text()
    assert str(result).startswith(f"[passed] {name}:")


@pytest.mark.parametrize("name", [n for n in exercises.names() if exercises.exercise(n).teaching is not None])
def test_the_teaching_solution_passes_and_is_what_the_chapter_shows(name):
    teaching = exercises.exercise(name).teaching
    result = exercises.check(name, teaching)
    assert result.passed, result.text()
    shown = exercises.show_solution(name).text()
    assert f"· {teaching.__qualname__}" in shown.splitlines()[0]
    assert exercises.show_solution(name, engine=True).text() != shown


def test_the_exercises_of_chapters_2_3_and_6_to_9_have_a_teaching_solution_with_no_input_checks():
    for chapter in (2, 3, 6, 7, 8, 9):
        for ex in exercises.for_chapter(chapter):
            assert ex.teaching is not None, ex.name
            shown = exercises.show_solution(ex.name).text()
            assert "raise" not in shown and "as_float_array" not in shown, ex.name
            # the few lines a reader writes (a capstone's function is a whole tokenizer step or layer)
            most = 24 if ex in exercises.capstone.EXERCISES else (45 if ex.name == "decoder_layer" else 16)
            assert len(shown.splitlines()) <= most, ex.name
            engine = exercises.show_solution(ex.name, engine=True).text()
            assert all(f"· {obj.__qualname__}" in engine for obj in ex.engine), ex.name


@pytest.mark.parametrize("name,mistake,twin", TWINS, ids=[f"{n}-{m}" for n, m, _ in TWINS])
def test_a_wrong_twin_is_named_by_its_mistake(name, mistake, twin):
    result = exercises.check(name, twin)
    assert not result.passed
    assert result.mistake is not None, result.text()
    assert result.mistake.name == mistake, result.text()
    assert f"This is a known mistake, {mistake}:" in str(result)
    assert "First difference" in str(result) or "raised" in str(result)


def test_every_exercise_catalogues_at_least_three_mistakes_and_each_has_a_twin():
    named = {(n, m) for n, m, _ in TWINS}
    for name in exercises.names():
        mistakes = exercises.exercise(name).mistakes
        assert len(mistakes) >= 3, name
        assert {(name, m.name) for m in mistakes} <= named, name


def test_each_catalogued_mistake_differs_from_the_reference_on_some_case():
    for name in exercises.names():
        ex = exercises.exercise(name)
        for m in ex.mistakes:
            assert not ex.check(m.fn).passed, (name, m.name)


# random wrong functions: a difference, and no false diagnosis
RANDOM_WRONG = [
    ("pair_counts", lambda words: {("a", "b"): 1}),
    ("merge_pair", lambda symbols, pair, new: tuple(reversed(symbols))),
    ("decode", lambda tok, ids: "猫"),
    ("train", lambda text, vocab_size: [(b"a", b"b")]),
    ("encode", lambda text, merges, token_id, pattern: list(text.encode("utf-8"))),
    ("embed", lambda table, ids: np.zeros((*np.shape(ids), table.shape[1]))),
    ("cross_entropy_one", lambda z, y: {"probs": np.full(len(z), 1 / len(z)), "loss": 1.0}),
    ("causal_mask", lambda t: np.eye(t, dtype=bool)),
    ("masked_attention", lambda q, k, v, m: {"scores": q @ k.T / math.sqrt(q.shape[1]),
                                             "weights": m / m.sum(axis=-1, keepdims=True),
                                             "output": (m / m.sum(axis=-1, keepdims=True)) @ v}),
    ("cache_mask", lambda past, new: np.ones((new, past + new), dtype=bool)),
    ("rope_head", lambda x, p, base: {"angles": np.outer(p, _theta(x.shape[1], base)), "output": x.copy()}),
    ("gqa_attention", lambda q, k, v, m: {"scores": np.zeros((q.shape[0], *m.shape))}),
    ("rms_norm", lambda x, w, eps: {"mean_square": np.ones((*x.shape[:-1], 1)), "rms": np.ones((*x.shape[:-1], 1)),
                                    "output": x * w}),
    ("swiglu", lambda x, wg, wu, wd: {"gate": x @ wg, "up": x @ wu, "hidden": x @ wg * (x @ wu),
                                      "output": (x @ wg * (x @ wu)) @ wd}),
    ("route_top_k", lambda a, k: {"chosen": np.arange(k), "gates": np.full(len(a), 1 / len(a))}),
    ("decoder_layer", lambda x, w, c: {**layer_right(x, w, c), "out": layer_right(x, w, c)["y"]}),
    ("shared_expert_moe", lambda x, wr, ex, k, sh, wsg, norm: {
        "probs": np.full(wr.shape[1], 1 / wr.shape[1]), "chosen": np.arange(k), "gates": np.full(k, 1 / k),
        "routed": x, "shared_gate": 0.5, "shared_output": x, "output": 1.5 * x}),
    ("shared_expert_moe", shared_chosen_sorted),  # the top k listed by ID: the worked example's [1, 0] catches it
]


# right code written another way passes: the checker asks for the result, not the engine's form
RIGHT_VARIANTS = [
    ("masked_attention", att_minus_1e9),
    ("causal_mask", lambda t: np.tril(np.ones((t, t), dtype=bool))),
    ("cache_mask", lambda past, new: np.tril(np.ones((new, past + new), dtype=bool), k=past)),
    ("decoder_layer", layer_right),
    ("shared_expert_moe", shared_right_in_loops),
    ("rope_head", lambda x, p, base: _rope_hf_float32_theta(x, p, base)),
]


def _rope_hf_float32_theta(x, positions, base):
    """A faithful port of Hugging Face's inv_freq, θ computed in float32 and the rest in
    float64: right, only rounded differently (its a·cos − b·sin cancels to 1e-8 levels)."""
    d = x.shape[-1]
    theta = 1.0 / (base ** (np.arange(0, d, 2, dtype=np.float32) / d))
    angles = np.outer(positions, theta.astype(np.float64))
    c, s = np.cos(angles), np.sin(angles)
    a, b = x[:, : d // 2], x[:, d // 2:]
    return {"angles": angles, "output": np.concatenate([a * c - b * s, a * s + b * c], axis=-1)}


@pytest.mark.parametrize("name,fn", RIGHT_VARIANTS, ids=[n for n, _ in RIGHT_VARIANTS])
def test_right_code_written_another_way_passes(name, fn):
    result = exercises.check(name, fn)
    assert result.passed, result.text()


@pytest.mark.parametrize("name,fn", RANDOM_WRONG, ids=[n for n, _ in RANDOM_WRONG])
def test_a_wrong_function_gets_its_first_difference_without_a_false_diagnosis(name, fn):
    result = exercises.check(name, fn)
    assert not result.passed and result.mistake is None, result.text()
    assert "No known mistake" in str(result)
    assert result.difference is not None and result.case_index >= 0


def test_the_first_differing_intermediate_is_named_in_the_chapters_notation():
    # right scores, weights normalised over the query axis: the weights differ first
    def late(q, k, v, m):
        out = att_columns(q, k, v, m)
        out["output"] = np.zeros_like(out["output"])  # a second difference, later in the order
        return out

    r = exercises.check("masked_attention", late)
    assert r.difference.field == "weights"
    text = str(r)
    assert "A = softmax(S) at [i=0, j=0]: expected 1, got 0.428571" in text
    assert "so softmax ran over the i axis" in text
    assert r.case_index == 0 and "figure 8" in r.case.label


def test_a_figure_is_drawn_from_the_readers_numbers_beside_the_books():
    r = exercises.check("route_top_k", route_unnormalised)
    fig = r.figure()
    assert fig is not None
    assert "yours [0.644, 0.237, 0.0, 0.0]" in fig.alt and "engine's gates [0.731, 0.269, 0.0, 0.0]" in fig.alt
    reader_trace = fig.drawn.trace[1]
    np.testing.assert_allclose(reader_trace.route.gates[:2], [0.643914, 0.236883], atol=1e-6)
    bundle = r._repr_mimebundle_()
    assert "<img" in bundle["text/html"] and "top-k without renormalising" in bundle["text/plain"]


def test_the_cache_mask_figure_hatches_what_the_readers_mask_wrongly_hides():
    fig = exercises.check("cache_mask", cache_local).figure()
    trace = fig.drawn.trace
    assert (trace.past, trace.new) == (3, 2)
    np.testing.assert_array_equal(trace.mask, cache_mask(3, 2))
    np.testing.assert_array_equal(trace.wrong, cache_local(3, 2))
    assert "(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (1, 4)" in fig.alt
    assert exercises.check("cache_mask", cache_mask).figure().alt.endswith("yours hides no visible cell.")


def test_an_exercise_without_a_figure_or_unreadable_numbers_draws_nothing():
    assert exercises.check("rms_norm", rms_no_gamma).figure() is None
    assert exercises.check("masked_attention", lambda q, k, v, m: {"scores": 1}).figure() is None
    assert exercises.check("cache_mask", cache_square).figure() is None  # [new, new] fits no [new, P + new] grid


@pytest.mark.parametrize("name", exercises.names())
def test_the_stub_as_given_says_not_written_yet(name):
    scope: dict = {"np": np}
    exec(textwrap.dedent(exercises.stub(name)), scope)
    result = exercises.check(name, scope[name])
    assert result.status == "not written yet", result.text()
    assert "Not written yet" in str(result) and "expected" not in str(result)


def test_the_solutions_shown_are_the_engines_own_code():
    shown = exercises.show_solution("cache_mask", engine=True)
    assert shown.text().startswith("tokenpath/attention.py · cache_mask")
    assert "cols <= rows" in shown.text()
    assert "tokenpath/position.py · rope_angles" in exercises.show_solution("rope_head", engine=True).text()
    assert exercises.show_solution("rope_head").text().startswith("tokenpath/exercises/position.py · rope_head")
    teaching = exercises.show_solution("cache_mask").text()
    assert teaching.startswith("tokenpath/exercises/attention.py · cache_mask") and "j <= past + r" in teaching
    assert exercises.solution("causal_mask") is causal_mask and exercises.solution("cache_mask") is cache_mask


def test_names_and_chapters():
    assert [e.chapter for e in map(exercises.exercise, exercises.names())] == sorted(
        e.chapter for e in map(exercises.exercise, exercises.names()))
    assert {e.chapter for e in exercises.EXERCISES.values()} == set(range(1, 10))
    for bad in ("nope", 3, None):
        with pytest.raises(ValueError, match="name must be one of the exercises"):
            exercises.check(bad, print)
    for bad in (0, 10, "4", True):
        with pytest.raises(ValueError, match="chapter must be one of"):
            exercises.for_chapter(bad)


def test_a_slow_import_inside_a_right_answer_is_not_counted_against_it(tmp_path, monkeypatch):
    """A first `import torch` inside the reader's function can take longer than a case
    may; the checker imports what the function imports once, untimed, before the cases."""
    import dataclasses
    import sys

    name = "tokenpath_slow_import_for_the_checker"
    (tmp_path / f"{name}.py").write_text("import time\ntime.sleep(0.6)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    quick = dataclasses.replace(exercises.exercise("causal_mask"), case_seconds=0.3)

    def causal_mask(t):
        import tokenpath_slow_import_for_the_checker  # noqa: F401  (0.6 s the first time)
        return np.tril(np.ones((t, t), dtype=bool))

    def slow_loop(t):
        import time
        time.sleep(0.6)  # slow in itself: still stopped
        return np.tril(np.ones((t, t), dtype=bool))

    try:
        assert name not in sys.modules
        assert quick.check(causal_mask).passed
        assert quick.check(slow_loop).status == "timeout"
    finally:
        sys.modules.pop(name, None)


def pairs_draining(words):
    d = Counter()
    for w in list(words):
        n = words.pop(w)  # empties the caller's table
        for p in zip(w, w[1:]):
            d[p] += n
    return d


def ce_in_place(z, y):
    z -= z.max()  # shifts the caller's logits
    e = np.exp(z)
    return {"probs": e / e.sum(), "loss": np.log(e.sum()) - z[y]}


@pytest.mark.parametrize("name,fn,arg", [("pair_counts", pairs_draining, "words"), ("cross_entropy_one", ce_in_place, "z")])
def test_a_function_that_changes_its_input_is_told_so(name, fn, arg):
    result = exercises.check(name, fn)
    assert not result.passed
    assert f"your function changed its input `{arg}`" in str(result), result.text()
