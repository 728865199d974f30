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
from ..i18n import _
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
    q1 = number("trained-expert-share", _("From `count` (section 11.2), what share of the stored parameters sits in the "
                                          "experts?"), share,
                tolerance=0.005, source="count.experts / count.total", hint=_("a number between 0 and 1"),
                why=_("{layers} layers × {experts} experts × {per_expert} = {total_experts} "
                      "of {total} stored numbers. With twice the experts and the same top-k, the stored "
                      "share grows while the numbers a token uses stay almost the same (only the routers grow).").format(
                    layers=count.layers, experts=count.num_experts, per_expert=f"{count.per_expert:,}",
                    total_experts=f"{count.experts:,}", total=f"{count.total:,}"))
    record = T.read_training(folder)
    first = record["loss_curve"]["mean_train_loss"][0]
    gap = record["ln_vocab"] - first
    q2 = number("trained-first-gap", _("`record[\"loss_curve\"][\"mean_train_loss\"]` is the training curve as means of "
                                       "ten steps. How far below ln V is its first value?"), gap,
                tolerance=0.01, source='record["ln_vocab"] - record["loss_curve"]["mean_train_loss"][0]',
                hint=_("a number of nats"),
                why=_("ln V = {ln_vocab} and the first mean of ten steps is {first}: "
                      "within its first steps the model already starts to favour the commonest tokens.").format(
                    ln_vocab=f"{record['ln_vocab']:.2f}", first=f"{first:.2f}"))
    tok = M.read_tokenizer(folder / "tokenizer.json")
    spaces, tabs = "        return self", "\t\treturn self"
    n_spaces, n_tabs = len(tok.encode(spaces)), len(tok.encode(tabs))
    options = {"a": _("the line indented with eight spaces"), "b": _("the line indented with two tabs"),
               "c": _("both cost the same")}
    key = "a" if n_spaces > n_tabs else "b" if n_tabs > n_spaces else "c"
    q3 = choice("trained-tabs", _("Encode `        return self` (eight spaces) with `tok`, then the same line indented "
                                  "with two tabs. Which costs more tokens?"), options, key,
                source="len(tok.encode(line)) for both lines",
                why=(_("{spaces} tokens with spaces, {tabs} with tabs: the merges were learned from the standard "
                       "library, which indents with spaces, so runs of spaces became tokens and runs of tabs did not; "
                       "and after a tab the word has no space in front of it, so it is not the familiar token with a "
                       "leading space.") if n_tabs > n_spaces else
                     _("{spaces} tokens with spaces, {tabs} with tabs.")).format(spaces=n_spaces, tabs=n_tabs))
    fig = _figure_number("trained_attention")
    line = T.line_attention()
    source, piece, weight = line.map.top_sources(line.query, k=1)[0]
    q4 = exact("trained-head-read", _("Figure {fig} shows layer {layer}, head {head} on the chapter's line run on its "
                                      "own. Which source position does the line's last token (position {query}) read "
                                      "most?").format(fig=fig, layer=line.layer, head=line.head, query=line.query),
               source, source="T.line_attention().map.top_sources(query, k=1)", hint=_("a position (a whole number)"),
               why=(_("Its row puts {weight} on position {source} ({piece}), the token just before it. Over the "
                      "held-out sample the head is {described}.") if source == line.query - 1 else
                    _("Its row puts {weight} on position {source} ({piece}), {back} tokens back. Over the held-out "
                      "sample the head is {described}.")).format(
                   weight=f"{weight:.2f}", source=source, piece=repr(piece), back=line.query - source,
                   described=line.stats.describe(line.layer, line.head, line.share)))
    model = T.committed_model(folder)
    trace = model.forward(model.encode(T.held_out_lines(folder)[T.example_line(folder)]))
    prev = T.previous_token_weight(trace)
    head = int(np.argmax(prev[-1]))
    q5 = exact("trained-prev-head", _("Run the chapter's line on its own, "
               "`trace = model.forward(model.encode(T.held_out_lines()[T.example_line()]))`, and take "
               "`T.previous_token_weight(trace)`. On this line, which head of the last layer puts the most weight on "
               "the previous token?"),
               head, source="int(np.argmax(T.previous_token_weight(trace)[-1]))", hint=_("a head index (0, 1, …)"),
               why=_("Its mean weight on the previous token is {weight}, the largest of {weights}.").format(
                   weight=f"{prev[-1, head]:.2f}", weights=fmt.vec(np.round(prev[-1], 2))))
    chosen = trace.layers[0].chosen_experts
    load = np.bincount(np.asarray(chosen).ravel(), minlength=count.num_experts).tolist()
    q6 = sequence("trained-load", _("In the same trace (the line on its own, {tokens} tokens, not Figure {fig}'s line "
                                    "in its place in the file), how often was each expert of layer 0 chosen? Count with "
                                    "`np.bincount` on `trace.layers[0].chosen_experts`, expert 0 first.").format(
                      tokens=chosen.shape[1], fig=_figure_number('trained_routing')),
                  load, source="np.bincount(trace.layers[0].chosen_experts.ravel(), minlength=4)",
                  hint=_("a list of counts, such as [1, 2, 3, 4]"),
                  why=_("{choices} choices: {tokens} tokens × top-{k}. An even load would give each expert "
                        "{even}.").format(choices=sum(load), tokens=chosen.shape[1], k=count.top_k,
                                          even=f"{sum(load) / count.num_experts:g}"))
    layer = ex.ROUTE_LAYER
    stats = T.measured_routing()
    idle = int(np.argmin(stats.load[layer]))
    q7 = exact(
        "trained-idle",
        _("Figure {fig}, its right-hand side: over the whole held-out sample, which expert of layer {layer} receives "
          "the fewest choices?").format(fig=_figure_number('trained_routing'), layer=layer), idle,
        source=f"T.measured_routing().load[{layer}].argmin()", hint=_("an expert index (a whole number)"),
        why=_("Expert {idle} receives {load} of the {choices} choices ({share}); an even split would give each "
              "expert {even}. It is stored and loaded like the others all the same: any token may choose it.").format(
            idle=idle, load=f"{stats.load[layer, idle]:,}", choices=f"{stats.tokens * stats.top_k:,}",
            share=f"{stats.load_share[layer, idle]:.0%}", even=f"{1 / stats.load.shape[1]:.0%}"),
    )
    even = ex.EVEN_CANDIDATES
    even_loss = float(np.log(even))
    loss = T.read_evaluation(folder)["ablation_windows"]["loss"]
    q8 = number("trained-even-loss", _("What if a model spread its probability evenly over {even} candidates, and the "
                                       "token that came next was always among them? What would its loss be, in nats "
                                       "per token?").format(even=even), even_loss,
                tolerance=0.01, source=f"np.log({even})", hint=_("a number of nats"),
                why=_("Each right token gets p = 1/{even}, so −ln p = ln {even} = {even_loss}, and the perplexity is "
                      "{even}. The trained model's {loss} nats on the windows of section 11.4 are a perplexity of "
                      "{perplexity}: as unsure as an even choice among about that many tokens.").format(
                    even=even, even_loss=f"{even_loss:.2f}", loss=f"{loss:.2f}", perplexity=f"{np.exp(loss):.1f}"))
    return q1, q2, q3, q4, q5, q6, q7, q8
