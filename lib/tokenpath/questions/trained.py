"""Chapter 11's "Check yourself" questions (``11_trained_model``): the experts' share of
the stored parameters, the first loss against ln V, spaces against tabs, what the named
head's query reads, the most previous-token-like head of the last layer, one line's
expert load, the least-loaded expert of the routing figure's layer, and the perplexity
of a uniform guess. Every answer is
computed by the engine when the questions are built.
"""

from __future__ import annotations

import importlib

import numpy as np

from .. import fmt
from .. import examples as ex
from ..selfcheck import Question, choice, exact, number, sequence

__all__ = ["questions"]


def _figure_number(module: str) -> int:
    """The book's number of the figure drawn by ``tokenpath.figures.<module>``."""
    return importlib.import_module(f"tokenpath.figures.{module}").NUMBER


def questions() -> tuple[Question, ...]:
    """The chapter's questions, in the order it asks them."""
    from .. import model as M
    from .. import trained as T

    folder = T.trained_folder()
    count = T.count_moe_parameters(folder)
    share = count.experts / count.total
    q1 = number("trained-expert-share", "From `count` (section 11.2), what share of the stored parameters sits in the experts?", share,
                tolerance=0.005, source="count.experts / count.total", hint="a number between 0 and 1",
                why=f"{count.layers} layers × {count.num_experts} experts × {count.per_expert:,} = {count.experts:,} "
                    f"of {count.total:,} stored numbers. With twice the experts and the same top-k, the stored "
                    "share grows while the numbers a token uses stay almost the same (only the routers grow).")
    record = T.read_training(folder)
    first = record["loss_curve"]["mean_train_loss"][0]
    gap = record["ln_vocab"] - first
    q2 = number("trained-first-gap", "`record[\"loss_curve\"][\"mean_train_loss\"]` is the training curve as means of ten steps. "
                "How far below ln V is its first value?", gap,
                tolerance=0.01, source='record["ln_vocab"] - record["loss_curve"]["mean_train_loss"][0]',
                hint="a number of nats",
                why=f"ln V = {record['ln_vocab']:.2f} and the first mean of ten steps is {first:.2f}: "
                    "within its first steps the model already starts to favour the commonest tokens.")
    tok = M.read_tokenizer(folder / "tokenizer.json")
    spaces, tabs = "        return self", "\t\treturn self"
    n_spaces, n_tabs = len(tok.encode(spaces)), len(tok.encode(tabs))
    options = {"a": "the line indented with eight spaces", "b": "the line indented with two tabs",
               "c": "both cost the same"}
    key = "a" if n_spaces > n_tabs else "b" if n_tabs > n_spaces else "c"
    q3 = choice("trained-tabs", "Encode `        return self` (eight spaces) with `tok`, then the same line indented with two "
                "tabs. Which costs more tokens?", options, key,
                source="len(tok.encode(line)) for both lines",
                why=f"{n_spaces} tokens with spaces, {n_tabs} with tabs"
                    + (": the merges were learned from the standard library, which indents with spaces, so runs "
                       "of spaces became tokens and runs of tabs did not; and after a tab the word has no space "
                       "in front of it, so it is not the familiar token with a leading space."
                       if n_tabs > n_spaces else "."))
    fig = _figure_number("trained_attention")
    line = T.line_attention()
    source, piece, weight = line.map.top_sources(line.query, k=1)[0]
    q4 = exact("trained-head-read", f"Figure {fig} shows layer {line.layer}, head {line.head} on the chapter's line run on its own. "
               f"Which source position does the line's last token (position {line.query}) read most?", source,
               source="T.line_attention().map.top_sources(query, k=1)", hint="a position (a whole number)",
               why=(f"Its row puts {weight:.2f} on position {source} ({piece!r}), "
                    + ("the token just before it" if source == line.query - 1 else f"{line.query - source} tokens back")
                    + ". Over the held-out sample the head is "
                    f"{line.stats.describe(line.layer, line.head, line.share)}."))
    model = T.committed_model(folder)
    trace = model.forward(model.encode(T.held_out_lines(folder)[T.example_line(folder)]))
    prev = T.previous_token_weight(trace)
    head = int(np.argmax(prev[-1]))
    q5 = exact("trained-prev-head", "Run the chapter's line on its own, "
               "`trace = model.forward(model.encode(T.held_out_lines()[T.example_line()]))`, and take "
               "`T.previous_token_weight(trace)`. On this line, which head of the last layer puts the most weight on "
               "the previous token?",
               head, source="int(np.argmax(T.previous_token_weight(trace)[-1]))", hint="a head index (0, 1, …)",
               why=f"Its mean weight on the previous token is {prev[-1, head]:.2f}, the largest of "
                   f"{fmt.vec(np.round(prev[-1], 2))}.")
    chosen = trace.layers[0].chosen_experts
    load = np.bincount(np.asarray(chosen).ravel(), minlength=count.num_experts).tolist()
    q6 = sequence("trained-load", f"In the same trace (the line on its own, {chosen.shape[1]} tokens, not Figure "
                  f"{_figure_number('trained_routing')}'s line in its place in the file), how often was each expert "
                  "of layer 0 chosen? Count with `np.bincount` on `trace.layers[0].chosen_experts`, expert 0 first.",
                  load, source="np.bincount(trace.layers[0].chosen_experts.ravel(), minlength=4)",
                  hint="a list of counts, such as [1, 2, 3, 4]",
                  why=f"{sum(load)} choices: {chosen.shape[1]} tokens × top-{count.top_k}. An even load would give "
                      f"each expert {sum(load) / count.num_experts:g}.")
    layer = ex.ROUTE_LAYER
    stats = T.measured_routing()
    idle = int(np.argmin(stats.load[layer]))
    q7 = exact(
        "trained-idle",
        f"Figure {_figure_number('trained_routing')}, its right-hand side: over the whole held-out sample, which "
        f"expert of layer {layer} receives the fewest choices?", idle,
        source=f"T.measured_routing().load[{layer}].argmin()", hint="an expert index (a whole number)",
        why=(f"Expert {idle} receives {stats.load[layer, idle]:,} of the {stats.tokens * stats.top_k:,} choices "
             f"({stats.load_share[layer, idle]:.0%}); an even split would give each expert "
             f"{1 / stats.load.shape[1]:.0%}. It is stored and loaded like the others all the same: any token "
             "may choose it."),
    )
    even = ex.EVEN_CANDIDATES
    even_loss = float(np.log(even))
    loss = T.read_evaluation(folder)["ablation_windows"]["loss"]
    q8 = number("trained-even-loss", f"What if a model spread its probability evenly over {even} candidates, and the "
                "token that came next was always among them? What would its loss be, in nats per token?", even_loss,
                tolerance=0.01, source=f"np.log({even})", hint="a number of nats",
                why=f"Each right token gets p = 1/{even}, so −ln p = ln {even} = {even_loss:.2f}, and the perplexity is "
                    f"{even}. The trained model's {loss:.2f} nats on the windows of section 11.4 are a perplexity of "
                    f"{np.exp(loss):.1f}: as unsure as an even choice among about that many tokens.")
    return q1, q2, q3, q4, q5, q6, q7, q8
