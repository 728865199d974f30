"""Chapter 11's "Follow your own line": the engine's line trace against an independent
computation through the model, its refusals, and the HTML widget built on it.

Nothing here depends on one model's token IDs or losses: every expected value is
recomputed from the committed folder's model (or a tiny random one)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tokenpath import model as M
from tokenpath import bpe, moe, ownline
from tokenpath import trained as T
from tokenpath.examples import trained as ex
from tokenpath.widgets import ownline as W

#: A line long enough to have a next token at every position the tests use.
LINE = ex.OWNLINE_DEFAULT


@pytest.fixture(scope="module")
def model():
    return T.committed_model()


@pytest.fixture(scope="module")
def trace(model):
    return ownline.line_trace(LINE, model)


@pytest.fixture(scope="module")
def direct(model):
    """The engine's own forward pass of the line, run apart from the trace."""
    return model.forward(model.encode(LINE))


@pytest.fixture(scope="module")
def tiny():
    """A small random Mixtral whose tokenizer knows the bytes and one merge ("yy"), with
    a short context (40 positions, below the widget's limit): fast, and no committed
    weights involved."""
    config = M.MixtralConfig(vocab_size=257, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                             num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=40,
                             num_local_experts=4, num_experts_per_tok=2)
    return M.random_model(config, seed=0, tokenizer=bpe.Tokenizer([(b"y", b"y")]))


def _log_softmax(z):
    z = np.asarray(z, dtype=np.float64)
    m = z.max(axis=-1, keepdims=True)
    return z - m - np.log(np.exp(z - m).sum(axis=-1, keepdims=True))


# ------------------------------------------------------------------ the trace


def test_tokens_are_the_models_encoding_and_spell_the_line(model, trace):
    assert trace.ids.tolist() == model.encode(LINE).tolist()
    assert "".join(trace.pieces) == LINE
    assert trace.tokens == len(trace.pieces) > 2


def test_surprisal_is_minus_log_softmax_at_the_true_next_token(trace, direct):
    log_p = _log_softmax(direct.logits)
    expected = [-log_p[t - 1, trace.ids[t]] for t in range(1, trace.tokens)]
    assert math.isnan(trace.surprisal[0])
    np.testing.assert_allclose(trace.surprisal[1:], expected, rtol=1e-9, atol=1e-12)
    assert trace.mean_surprisal == pytest.approx(np.mean(expected))


def test_top_next_tokens_are_the_largest_probabilities_best_first(model, trace, direct):
    p = np.exp(_log_softmax(direct.logits))
    assert trace.top_ids.shape == (trace.tokens, ex.OWNLINE_TOP)
    for t in range(trace.tokens):
        best = np.sort(p[t])[::-1][: ex.OWNLINE_TOP]
        np.testing.assert_allclose(trace.top_probs[t], best, rtol=1e-9)
        np.testing.assert_allclose(p[t, trace.top_ids[t]], best, rtol=1e-9)
        assert trace.top_pieces[t] == tuple(model.tokenizer.decode([int(i)], errors="replace")
                                            for i in trace.top_ids[t])


def test_routes_are_the_engines_top_k_of_each_layers_router(model, trace, direct):
    fwd = direct
    k = model.config.num_experts_per_tok
    assert trace.experts.shape == trace.gates.shape == (model.config.num_hidden_layers, trace.tokens, k)
    for layer, lt in enumerate(fwd.layers):
        w = model.layer_weights(layer)
        scores = moe.router_scores(lt.ffn_in[0], w.w_router)  # [T, E]
        route = moe.route(scores, k)
        assert trace.experts[layer].tolist() == moe.top_k(scores, k).tolist()
        np.testing.assert_allclose(trace.gates[layer], route.chosen_gates, rtol=1e-9)
    np.testing.assert_allclose(trace.gates.sum(axis=-1), 1.0, rtol=1e-12)


def test_attention_rows_sum_to_one_and_are_causal(model, trace):
    c = model.config
    assert trace.attention.shape == (c.num_hidden_layers, c.num_attention_heads, trace.tokens, trace.tokens)
    np.testing.assert_allclose(trace.attention.sum(axis=-1), 1.0, rtol=1e-12)
    future = np.triu(np.ones((trace.tokens, trace.tokens), dtype=bool), k=1)
    assert np.all(trace.attention[..., future] == 0.0)
    row = trace.attention_row(1, 0, 3)
    assert row.shape == (4,) and row.sum() == pytest.approx(1.0)


def test_trace_is_frozen(trace):
    with pytest.raises(ValueError):
        trace.surprisal[1] = 0.0
    with pytest.raises(AttributeError):
        trace.line = "x"


def test_any_mixtral_or_llama_model_works_its_shapes_from_the_config(tiny):
    dense_config = M.LlamaConfig(257, 16, 32, 3, 2, 1, max_position_embeddings=40)
    dense = M.random_model(dense_config, seed=1, tokenizer=tiny.tokenizer)
    for m, k in ((tiny, 2), (dense, 0)):
        tr = ownline.line_trace("the cat", m)
        c = m.config
        assert tr.experts.shape == tr.gates.shape == (c.num_hidden_layers, tr.tokens, k)
        assert tr.attention.shape == (c.num_hidden_layers, c.num_attention_heads, tr.tokens, tr.tokens)
        assert "".join(tr.pieces) == "the cat" and tr.top_ids.shape == (tr.tokens, ex.OWNLINE_TOP)


def test_one_forward_pass_per_distinct_line(tiny, monkeypatch):
    calls = []
    forward = tiny.forward
    monkeypatch.setattr(tiny, "forward", lambda ids: calls.append(1) or forward(ids))
    w = W.own_line("counted = 1", model=tiny)
    w.update(position=0)
    w.update(layer=0, head=tiny.config.num_attention_heads - 1)
    w.update("counted = 1")  # the same line again
    assert len(calls) == 1
    w.update("counted = 12")
    assert len(calls) == 2


# ------------------------------------------------------------------ refusals

LIMIT_TOKENS = "a, " * 200  # at least one token per comma: more than any limit


@pytest.mark.parametrize("bad, error, words", [
    ("", ValueError, "empty"),
    ("x = '\ud800'", ValueError, "lone surrogate U+D800"),
    ("x = 1\ny = 2", ValueError, "one line"),
    ("x = 1\r", ValueError, "one line"),
    ("x\u2028y", ValueError, "one line"),
    ("x = '\x00'", ValueError, "control character U+0000"),
    ("print('\x1b[31m')", ValueError, "control character U+001B"),
    (LIMIT_TOKENS, ValueError, "too long: at most"),
    ("x" * 100_000, ValueError, "too long: at most"),
    (b"x = 1", TypeError, "line must be a str"),
    (None, TypeError, "line must be a str"),
    (3, TypeError, "line must be a str"),
])
def test_bad_lines_are_refused_clearly(model, bad, error, words):
    with pytest.raises(error, match="line") as err:
        ownline.line_trace(bad, model)  # every refusal comes before a forward pass
    assert words in str(err.value)


def test_the_limit_is_stated_in_tokens_and_within_the_models_context(model, tiny):
    assert ownline.max_tokens(model) == min(ex.OWNLINE_MAX_TOKENS, model.config.max_position_embeddings)
    limit = ownline.max_tokens(tiny)
    assert limit == tiny.config.max_position_embeddings < ex.OWNLINE_MAX_TOKENS  # the context caps it
    assert ownline.line_trace("yy" * limit, tiny).tokens == limit  # "yy" is one token
    with pytest.raises(ValueError, match=f"too long: at most {limit} tokens, and it has {limit + 1}$"):
        ownline.line_trace("a" * (limit + 1), tiny)  # counted after encoding
    with pytest.raises(ValueError, match=f"at most {limit} tokens, and its {4 * limit} UTF-8 bytes make at least"):
        ownline.line_trace("a" * (4 * limit), tiny)  # refused before encoding: a token has at most 2 bytes
    with pytest.raises(ValueError, match=f"at most {ownline.max_tokens(model)} tokens"):
        ownline.line_trace(LIMIT_TOKENS, model)


def test_a_tab_indent_is_a_line(tiny):
    assert ownline.line_trace("\treturn x", tiny).pieces[0] == "\t"


@pytest.mark.parametrize("kw, words", [(dict(top=0), "top"), (dict(top=1.5), "top"),
                                       (dict(model="m"), "model"), (dict(folder=3), "folder")])
def test_bad_arguments_are_named(kw, words):
    with pytest.raises((ValueError, TypeError), match=words):
        ownline.line_trace("x", **kw)


def test_attention_row_refuses_bad_indices_by_name(trace):
    for kw, name in ((dict(layer=trace.layers), "layer"), (dict(head=-1), "head"),
                     (dict(position=trace.tokens), "position")):
        args = dict(layer=0, head=0, position=0) | kw
        with pytest.raises(ValueError, match=name):
            trace.attention_row(**args)


# ------------------------------------------------------------------ the widget


@pytest.fixture()
def widget(tiny):
    return W.own_line("def f(x): return x", model=tiny)


def test_default_shows_the_chapters_line_at_its_last_token(model, trace):
    widget = W.own_line(model=model)  # the committed model's trace of the line is kept: no new forward pass
    assert widget.trace is trace and widget.error is None
    assert widget.state == (widget.trace.tokens - 1, model.config.num_hidden_layers - 1, 0)
    assert widget.input.value == LINE
    d = widget.describe()
    assert f"{widget.trace.tokens} tokens" in d and f"{widget.trace.mean_surprisal:.2f} nats" in d
    assert widget.snapshot()._repr_html_() == widget.html() and repr(widget.snapshot()) == d


def test_the_box_states_the_line_limit_visibly(widget, tiny):
    assert widget.hint.value == f"One line of Python, at most {ownline.max_tokens(tiny)} tokens."
    assert widget.box.children[:2] == (widget.input, widget.hint)


def test_view_carries_every_number_not_only_colour(widget):
    tr = widget.trace
    view = widget.html()
    for t in range(1, tr.tokens):
        assert f"{tr.surprisal[t]:.2f}" in view
    for p in tr.top_probs[tr.tokens - 1]:
        assert f"{p:.3f}" in view
    position, layer, head = widget.state
    for w in tr.attention_row(layer, head, position):
        assert f"{w:.3f}" in view
    assert "<caption" in view and 'scope="col"' in view and "nats" in view


def test_sliders_are_labelled_and_move_the_view(widget, tiny):
    for s, name in ((widget.position, "position"), (widget.layer, "layer"), (widget.head, "head")):
        assert s.description == name
    assert widget.input.description
    before = widget.html()
    widget.position.value = 1  # a reader's move
    assert widget.state[0] == 1 and widget.html() != before
    assert f"attention from 1" in widget.html()
    widget.head.value = tiny.config.num_attention_heads - 1
    assert widget.state[2] == tiny.config.num_attention_heads - 1


def test_typing_follows_the_end_of_the_line(widget):
    widget.input.value = "for i in range(10"  # a reader's keystrokes
    assert widget.trace.line == "for i in range(10"
    assert widget.state[0] == widget.trace.tokens - 1
    widget.input.value = "for i in range(10):"
    assert widget.state[0] == widget.trace.tokens - 1
    widget.update(position=0)
    widget.input.value = "for i in range(10): pass"
    assert widget.state[0] == 0  # a position the reader chose stays


@pytest.mark.parametrize("bad", ["", "x = '\ud800'", "a\x07b", LIMIT_TOKENS, "a\nb"])
def test_widget_shows_the_engines_message_never_a_traceback(widget, tiny, bad):
    with pytest.raises((ValueError, TypeError)) as err:
        ownline.line_trace(bad, tiny)
    widget.input.value = bad  # through the text box, as a reader types it
    assert widget.error == str(err.value)
    assert widget.html() == "" and widget.position.disabled
    assert "alert" in widget.message.value
    assert widget.describe() == f"refused: {err.value}"
    widget.input.value = "x = 1"  # a good line brings the view back
    assert widget.error is None and widget.html() and not widget.position.disabled


def test_widget_refuses_a_non_str_with_the_message(widget):
    widget.update(3)
    assert widget.error.startswith("line must be a str")


def test_whitespace_of_tokens_is_made_visible():
    assert W._shown(" \tx\n<") == "␣⇥x↵&lt;"


def test_widget_escapes_what_is_typed(widget):
    widget.input.value = "s = '<script>alert(1)</script>' & \"x\""
    view = widget.html()
    assert "<script" not in view.lower() and "</script" not in view.lower()
    assert "&lt;" in view and "&amp;" in view
    assert widget.error is None


def test_a_bad_slider_value_from_code_is_refused_by_name(widget, tiny):
    with pytest.raises(ValueError, match="layer"):
        widget.update(layer=tiny.config.num_hidden_layers)
    with pytest.raises(ValueError, match="position"):
        widget.update(position=widget.trace.tokens)


def test_colours_are_the_book_palette():
    from tokenpath.figures import style

    for name, colour in W.COLOURS.items():
        assert colour == getattr(style, name)


def test_surprisal_bands_have_their_own_colours_and_labels():
    edges = ex.OWNLINE_SURPRISAL_EDGES
    colours = [W.surprisal_colour(x) for x in (edges[0] / 2, *edges)]
    assert len(set(colours)) == len(edges) + 1 == len(W.BAND_SHARES)
    assert W.surprisal_colour(float("nan")) == "#FFFFFF"
