"""Claims of chapter 10_trained_model: the book's own model, read from the committed
folder (``models/stdlib-moe``): its config, safetensors header, training record,
tokenizer and recorded completions. Retraining (``make model``) moves these numbers;
this file and the chapter's prose are then updated together."""

from __future__ import annotations

import json
import math
from functools import cache, partial

import numpy as np

from tokenpath import trained as T
from tokenpath import examples as ex
from tokenpath import model as M

from . import Claim as _Claim
from . import NotClaim as _NotClaim

CHAPTER = "10_trained_model"
Claim = partial(_Claim, chapter=CHAPTER)
NotClaim = partial(_NotClaim, chapter=CHAPTER)


# ------------------------------------------------------------------ the committed files

@cache
def config() -> dict:
    return json.loads((T.trained_folder() / "config.json").read_text())


@cache
def record() -> dict:
    return T.read_training()


@cache
def count() -> T.MoeCount:
    return T.count_moe_parameters()


@cache
def tok():
    return M.read_tokenizer(T.trained_folder() / M.TOKENIZER_NAME)


@cache
def engine():
    return T.committed_model()


@cache
def line_trace():
    """The forward trace of the chapter's held-out line, and its tokens' texts."""
    line = (T.trained_folder() / T.HELD_OUT_NAME).read_text(encoding="utf-8").splitlines()[ex.TRAINED_LINE_INDEX]
    ids = engine().encode(line)
    return engine().forward(ids), [tok().decode([int(i)]) for i in ids]


@cache
def prev():
    """[layer, head] mean weight on the previous token over the chapter's line."""
    return T.previous_token_weight(line_trace()[0])


@cache
def next_token(step: int):
    """Figure 25's trace: the first prompt and ``step`` greedy tokens, at the chapter's T."""
    return T.next_token(0, step, ex.TRAINED_TEMPERATURE)


@cache
def routing():
    """Routing statistics over the whole committed held-out text."""
    return T.held_out_routing(engine())


def _percent(v) -> str:
    return f"{100 * v:.0f}"


def experts_of(piece: str, layer: int = 0) -> set:
    """The distinct expert choices (best first, as text) of every occurrence of ``piece``."""
    trace, pieces = line_trace()
    chosen = trace.layers[layer].chosen_experts[0]
    return {" and ".join(str(int(e)) for e in chosen[t]) for t, p in enumerate(pieces) if p == piece}


def _one(choices: set) -> str:
    return next(iter(choices)) if len(choices) == 1 else f"differing choices {sorted(choices)}"


def _sci(v) -> str:
    mantissa, exponent = f"{v:.0e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _code(v) -> str:
    return f"`{v}`"


def _thousands(v) -> str:
    return f"{int(v):,}"


# ------------------------------------------------------------------------ claims

CLAIMS: list[_Claim] = [
    # -- 10.1 the skeleton ---------------------------------------------------------------
    Claim("trained.V", lambda: config()["vocab_size"], text=("2,048", _thousands)),
    Claim("trained.d", lambda: config()["hidden_size"], exact="192"),
    Claim("trained.layers", lambda: config()["num_hidden_layers"], exact="4"),
    Claim("trained.Hq", lambda: config()["num_attention_heads"], exact="6"),
    Claim("trained.Hkv", lambda: config()["num_key_value_heads"], exact="2"),
    Claim("trained.experts", lambda: config()["num_local_experts"], exact="4"),
    Claim("trained.d_ff", lambda: config()["intermediate_size"], exact="384"),
    Claim("trained.top_k", lambda: config()["num_experts_per_tok"], exact="2"),
    # -- 10.2 stored and active parameters -----------------------------------------------
    Claim("trained.total", lambda: count().total, text=("4,723,392", _thousands)),
    Claim("trained.per_expert", lambda: count().per_expert, text=("221,184", _thousands)),
    Claim("trained.skipped", lambda: count().num_experts - count().top_k, exact="2"),
    Claim("trained.active", lambda: count().active, text=("2,953,920", _thousands)),
    # -- 10.3 corpus and losses ------------------------------------------------------------
    Claim("trained.python", lambda: record()["python"], text=("3.11.7", str)),
    Claim("trained.transformers", lambda: record()["transformers"], text=("5.24.0", str)),
    Claim("trained.torch", lambda: record()["torch"], text=("2.13.0", str)),
    Claim("trained.files", lambda: record()["corpus"]["files"], exact="674"),
    Claim("trained.every", lambda: record()["corpus"]["held_out_every"], exact="20"),
    Claim("trained.held_files", lambda: record()["corpus"]["held_out_files"], exact="34"),
    Claim("trained.steps", lambda: record()["steps"], exact="600"),
    Claim("trained.per_step", lambda: record()["settings"]["batch_size"] * record()["settings"]["seq_len"],
          text=("4,096", _thousands)),
    Claim("trained.seen", lambda: record()["tokens_seen"], text=("2,457,600", _thousands)),
    Claim("trained.train_tokens", lambda: record()["corpus"]["train_tokens"], text=("3,542,168", _thousands)),
    Claim("trained.lnV", lambda: math.log(config()["vocab_size"]), rounded=("7.62", 2)),
    Claim("trained.held", lambda: record()["held_out_loss"], rounded=("3.18", 2)),
    Claim("trained.perplexity", lambda: math.exp(record()["held_out_loss"]), rounded=("24", 0)),
    Claim("trained.eval_tokens", lambda: record()["settings"]["eval_tokens"], text=("65,536", _thousands)),
    # -- 10.4 tokenizer ---------------------------------------------------------------------
    Claim("trained.init_tokens", lambda: len(tok().encode(ex.TRAINED_PROMPTS[0])), exact="5"),
    # -- 10.5 completions --------------------------------------------------------------------
    Claim("trained.temperature", lambda: T.read_samples()["temperature"], rounded=("0.8", 1)),
    Claim("trained.new_tokens", lambda: T.read_samples()["new_tokens"], exact="32"),
    Claim("trained.tol", lambda: ex.TRAINED_CROSSCHECK_TOL, text=("1e-4", _sci)),
    # -- 10.5 the next-token distribution (figure 25) ---------------------------------------
    Claim("trained.next_steps", lambda: ex.TRAINED_NEXT_STEPS, exact="8"),
    Claim("trained.next_top", lambda: ex.FIG25_TOP, exact="12"),
    Claim("trained.next_cover_share", lambda: ex.FIG25_COVER, text=("90", _percent)),
    Claim("trained.next0_first", lambda: next_token(0).top_probs[0], rounded=("0.68", 2)),
    Claim("trained.next0_second", lambda: next_token(0).top_probs[1], rounded=("0.31", 2)),
    Claim("trained.next0_first_t1", lambda: next_token(0).top_probs_t1[0], rounded=("0.64", 2)),
    Claim("trained.next0_second_t1", lambda: next_token(0).top_probs_t1[1], rounded=("0.34", 2)),
    Claim("trained.next0_second_piece", lambda: next_token(0).top_pieces[1], text=("`):`", _code)),
    Claim("trained.next0_cover", lambda: next_token(0).cover, exact="2"),
    Claim("trained.next0_entropy", lambda: next_token(0).entropy, rounded=("0.67", 2)),
    Claim("trained.next1_first", lambda: next_token(1).top_probs[0], rounded=("0.10", 2)),
    Claim("trained.next1_piece", lambda: next_token(1).top_pieces[0], text=("` *`", _code)),
    Claim("trained.next1_entropy", lambda: next_token(1).entropy, rounded=("4.72", 2)),
    Claim("trained.next1_cover", lambda: next_token(1).cover, exact="164"),
    Claim("trained.next1_outside", lambda: next_token(1).outside, rounded=("0.56", 2)),
    # -- 10.6 attention and routing on a held-out line ---------------------------------------
    Claim("trained.prev_max", lambda: prev().max(), rounded=("0.86", 2)),
    Claim("trained.prev_layer", lambda: int(np.unravel_index(prev().argmax(), prev().shape)[0]), exact="2"),
    Claim("trained.prev_head", lambda: int(np.unravel_index(prev().argmax(), prev().shape)[1]), exact="1"),
    Claim("trained.prev_l0_max", lambda: prev()[0].max(), rounded=("0.05", 2)),
    Claim("trained.commas", lambda: line_trace()[1].count(","), exact="4"),
    Claim("trained.comma_pairs", lambda: len(experts_of(",")), exact="2"),
    Claim("trained.equals", lambda: line_trace()[1].count("="), exact="3"),
    Claim("trained.equals_experts_l0", lambda: experts_of("=", 0), text=("3 and 0", _one)),
    Claim("trained.equals_experts_l1", lambda: experts_of("=", 1), text=("1 and 2", _one)),
    Claim("trained.equals_experts_l2", lambda: experts_of("=", 2), text=("0 and 3", _one)),
    Claim("trained.aux_coef", lambda: record()["settings"]["router_aux_loss_coef"], rounded=("0.02", 2)),
    # -- 10.7 routing over the held-out sample ------------------------------------------------
    Claim("trained.context", lambda: config()["max_position_embeddings"], exact="256"),
    Claim("trained.sample_bytes", lambda: (T.trained_folder() / T.HELD_OUT_NAME).stat().st_size,
          text=("2,990", _thousands)),
    Claim("trained.held_tokens", lambda: routing().tokens, text=("1,142", _thousands)),
    Claim("trained.choices", lambda: routing().tokens * routing().top_k, text=("2,284", _thousands)),
    Claim("trained.pairs", lambda: routing().pairs, text=("1,141", _thousands)),
    Claim("trained.l0_idlest", lambda: int(routing().load[0].argmin()), exact="0"),
    Claim("trained.l0_idlest_load", lambda: routing().load[0].min(), exact="290"),
    Claim("trained.l0_idlest_share", lambda: routing().load_share[0].min(), text=("13", _percent)),
    Claim("trained.l0_busiest", lambda: int(routing().load[0].argmax()), exact="3"),
    Claim("trained.l0_busiest_load", lambda: routing().load[0].max(), exact="817"),
    Claim("trained.l0_busiest_share", lambda: routing().load_share[0].max(), text=("36", _percent)),
    Claim("trained.l1_idlest", lambda: int(routing().load[1].argmin()), exact="0"),
    Claim("trained.l1_idlest_load", lambda: routing().load[1].min(), exact="62"),
    Claim("trained.l1_idlest_share", lambda: routing().load_share[1].min(), text=("3", _percent)),
    Claim("trained.l1_busiest", lambda: int(routing().load[1].argmax()), exact="1"),
    Claim("trained.l1_busiest_load", lambda: routing().load[1].max(), text=("1,023", _thousands)),
    Claim("trained.l1_busiest_share", lambda: routing().load_share[1].max(), text=("45", _percent)),
    Claim("trained.least_changes_layer", lambda: int(routing().changes.argmin()), exact="1"),
    Claim("trained.least_changes", lambda: routing().changes.min(), exact="567"),
    Claim("trained.least_change_rate", lambda: routing().change_rate.min(), text=("50", _percent)),
    Claim("trained.most_changes_layer", lambda: int(routing().changes.argmax()), exact="0"),
    Claim("trained.most_changes", lambda: routing().changes.max(), exact="725"),
    Claim("trained.most_change_rate", lambda: routing().change_rate.max(), text=("64", _percent)),
]

NOT_CLAIMS: list[_NotClaim] = [
    NotClaim("arXiv:2401.04088", "the identifier of the cited Mixtral paper"),
    NotClaim("T = 1", "the temperature that leaves the logits as they are, a definition"),
    NotClaim("layer 0", "the index of the first layer, a name (its routing table is printed below it)"),
    NotClaim("layer 1", "the index of the second layer, a name (its row is printed in the load table)"),
]
