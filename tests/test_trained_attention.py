"""Section 4.5: what the heads of the book's trained model do with their weights
(tokenpath.trained: query_measures, head_stats, held_out_heads, line_attention), figure
23 and its layer/head/query widget. The model is loaded and the held-out text run once
per process (tokenpath.trained caches both)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenpath import examples as ex
from tokenpath import trained as T
from tokenpath.figures import trained_attention as F

from _widget_fixtures import built, full_draw, static, widget_fixture

heads_widget = widget_fixture("line_heads")


@pytest.fixture(scope="module")
def stats():
    return T.held_out_heads()


@pytest.fixture(scope="module")
def line():
    return T.line_attention()


# ------------------------------------------------------------------ engine


def test_query_measures_read_previous_itself_first_and_entropy_per_row():
    w = np.array([[1, 0, 0], [0.25, 0.75, 0], [0.5, 0.5, 0]])
    prev, itself, first, entropy = T.query_measures(w)
    assert prev.tolist() == [0.25, 0.5] and itself.tolist() == [0.75, 0.0] and first.tolist() == [0.25, 0.5]
    np.testing.assert_allclose(entropy, [-(0.25 * np.log(0.25) + 0.75 * np.log(0.75)), np.log(2)])


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 9), st.integers(0, 2**32 - 1))
def test_measures_are_shares_and_entropy_is_at_most_that_of_an_even_spread(t, seed):
    scores = np.random.default_rng(seed).normal(size=(t, t)) * 3
    w = np.exp(np.where(np.tril(np.ones((t, t))) > 0, scores, -np.inf))
    w /= w.sum(axis=-1, keepdims=True)
    prev, itself, first, entropy = T.query_measures(w)
    for m in (prev, itself, first):
        assert np.all((m >= 0) & (m <= 1))
    even = np.log(np.arange(2, t + 1))  # row q can read q + 1 sources
    assert np.all(entropy >= -1e-12) and np.all(entropy <= even + 1e-9)
    np.testing.assert_allclose(T.query_measures(T.uniform_weights(t))[3], even)


def test_query_measures_and_uniform_weights_refuse_bad_input():
    with pytest.raises(ValueError, match="weights must be"):
        T.query_measures(np.ones((2, 3)))
    with pytest.raises(ValueError, match="weights must be"):
        T.query_measures([[1.0]])
    with pytest.raises(TypeError, match="weights"):
        T.query_measures("weights")
    with pytest.raises(ValueError, match="t must be"):
        T.uniform_weights(0)
    with pytest.raises(ValueError, match="traces"):
        T.head_stats([])


def test_held_out_measures_cover_every_held_out_token_and_are_computed_once(stats):
    model = T.committed_model()
    files = T.held_out_sample()
    n = model.config.max_position_embeddings
    sizes = [len(model.encode(f.text)) for f in files]  # every file encoded on its own
    windows = sum(-(-size // n) for size in sizes)
    assert stats.tokens == sum(sizes) and stats.rows == stats.tokens - windows
    assert stats.tokens >= 20_000 and len(files) >= 10  # a sample spread over files, not one preamble
    assert stats.shape == (model.config.num_hidden_layers, model.config.num_attention_heads)
    assert T.held_out_heads() is stats and T.held_out_heads(model) is stats
    assert not stats.previous.flags.writeable
    assert np.all(stats.previous + stats.itself <= 1 + 1e-9)


def test_previous_token_weight_is_the_previous_measure_of_one_trace(line):
    from types import SimpleNamespace as NS

    trace = NS(layers=[NS(weights=w[None]) for w in line.weights])  # a forward trace's layers
    prev = T.previous_token_weight(trace)
    t = np.arange(1, len(line.pieces))
    np.testing.assert_allclose(prev, line.weights[:, :, t, t - 1].mean(axis=-1))
    np.testing.assert_array_equal(prev, T.head_stats(trace).previous)


def test_roles_follow_the_share_and_each_head_has_at_most_one(stats):
    share = ex.HEAD_ROLE_SHARE
    named = {role: stats.heads(role, share) for role in (*T.MEASURE_NAMES, None)}
    assert sum(len(v) for v in named.values()) == stats.previous.size
    for role, lhs in named.items():
        for lh in lhs:
            values = {n: stats.measure(n)[lh] for n in T.MEASURE_NAMES}
            assert (max(values.values()) > share) == (role is not None)
            assert role is None or values[role] > share
    assert stats.strongest("previous") in named["previous"]
    assert stats.describe(*stats.strongest("previous"), share).startswith("a previous-token head: ")
    assert stats.describe(*named[None][0], share).startswith("not named: at most")


def test_roles_refuse_bad_layer_head_share_and_measure(stats):
    layers, heads = stats.shape
    for args, error, name in [((layers, 0, 0.5), ValueError, "layer"), ((0, heads, 0.5), ValueError, "head"),
                              ((0, 1.0, 0.5), TypeError, "head"), ((0, 0, 0.4), ValueError, "share")]:
        with pytest.raises(error, match=name):
            stats.role(*args)
    with pytest.raises(ValueError, match="name must be one of"):
        stats.measure("last")


def test_line_attention_defaults_to_the_strongest_previous_token_head_and_the_last_query(line, stats):
    assert (line.layer, line.head) == stats.strongest(ex.HEAD_DEFAULT_MEASURE)
    assert line.query == len(line.pieces) - 1 and line.line == T.example_line()
    np.testing.assert_array_equal(line.map.weights, line.weights[line.layer, line.head])
    assert line.row.sum() == pytest.approx(1.0) and line.role == "previous"


def test_pick_reads_the_one_forward_pass_and_refuses_bad_values_by_name(line):
    other = line.pick(0, 2, 3)
    assert other.weights is line.weights and other.stats is line.stats
    np.testing.assert_array_equal(other.row, line.weights[0, 2, 3])
    for args, error, name in [((4, 0, 0), ValueError, "layer"), ((0, 6, 0), ValueError, "head"),
                              ((0, 0, len(line.pieces)), ValueError, "query"), ((0, 0, -1), ValueError, "query"),
                              ((0.0, 0, 0), TypeError, "layer")]:
        with pytest.raises(error, match=name):
            line.pick(*args)


def test_line_attention_refuses_a_bad_line_and_share():
    with pytest.raises(ValueError, match="line"):
        T.line_attention(line=10**6)
    with pytest.raises(ValueError, match="at least 2 tokens"):
        T.line_attention(line=T.held_out_lines().index(""))  # an empty line
    with pytest.raises(ValueError, match="share"):
        T.line_attention(share=0.3)


# ------------------------------------------------------------------ figure 26


def test_attention_figure_draws_the_engine_trace_and_its_alt_names_the_numbers():
    drawn = built("line_heads").drawn
    trace = drawn.trace
    art = drawn.artists
    np.testing.assert_array_equal(art["image"].get_array().filled(-1), np.where(
        np.triu(np.ones_like(trace.map.weights), k=1) > 0, -1, trace.map.weights))
    assert [b.get_height() for b in art["bars"]] == pytest.approx(trace.row.tolist())
    s, piece, w = trace.map.top_sources(trace.query, k=1)[0]
    assert f"{w:.2f} on “{F.label(piece)}”" in drawn.alt and f"layer {trace.layer}, head {trace.head}" in drawn.alt
    assert f"{trace.stats.previous[trace.layer, trace.head]:.2f}" in art["notes.values"].get_text()


def test_labels_make_spaces_visible():
    assert F.label("   ") == "␣␣␣" and F.label("\tx\n") == "⇥x↵" and F.label("abc") == "abc"


def test_draw_helpers_check_their_arguments(line):
    from matplotlib.figure import Figure

    ax = Figure().subplots()
    with pytest.raises(TypeError, match="ax must be"):
        F.draw_weight_map(None, line)
    with pytest.raises(TypeError, match="trace must be a LineAttention"):
        F.draw_query_row(ax, line.map)


# ------------------------------------------------------------------ widget


def _default():
    """The widget's default state, computed: the engine's chosen head on the chapter's
    line, queried from the line's last token."""
    line = T.line_attention()
    return (line.layer, line.head, len(line.pieces) - 1)


def test_widget_default_is_the_static_figure():
    w = built("line_heads")
    assert w.value == _default() and w.value._fields == ("layer", "head", "query")
    assert w.png() == static(F.NUMBER)


def test_every_state_visited_is_a_full_draw(heads_widget):
    for value in [(0, 2, 3), (0, 2, 0), (3, 3, 0), (1, 3, 10)]:
        heads_widget.update(value)
        assert heads_widget.png() == full_draw(heads_widget)
        t = heads_widget.trace
        assert (t.layer, t.head, t.query) == value
    assert heads_widget.describe().startswith("Layer 1, head 3, query 10 ")


@pytest.mark.parametrize("bad, error, name", [((4, 0, 0), ValueError, "layer"), ((0, 4, 0), ValueError, "head"),
                                              ((0, 0, 12), ValueError, "query"), ((0, 0.5, 0), TypeError, "head"),
                                              (3, TypeError, "layer, head, query")])
def test_bad_slider_values_are_refused_by_name(heads_widget, bad, error, name):
    with pytest.raises(error, match=name):
        heads_widget.update(bad)
    assert heads_widget.value == _default()


def test_constructor_refuses_a_bad_start_by_name():
    from tokenpath import widgets

    with pytest.raises(ValueError, match="layer"):
        widgets.line_heads(layer=4)
    with pytest.raises(TypeError, match="query"):
        widgets.line_heads(query="29")
