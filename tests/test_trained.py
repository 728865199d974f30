"""The reader's views of the book's trained model (tokenpath.trained): one head's
attention map over a line, and routing statistics over the held-out text."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenpath import examples as ex
from tokenpath import trained as T


@pytest.fixture(scope="module")
def engine():
    return T.committed_model()  # the process's one copy: its held-out pass is shared with the other tests


@pytest.fixture(scope="module")
def line(engine):
    text = T.held_out_lines()[T.example_line()]
    ids = engine.encode(text)
    return engine.forward(ids), [engine.tokenizer.decode([int(i)]) for i in ids]


def test_attention_map_is_the_traced_head_and_causal(line):
    trace, pieces = line
    m = T.attention_map(trace, pieces, 1, 2)
    assert m.weights.shape == (len(pieces), len(pieces))
    np.testing.assert_array_equal(m.weights, trace.layers[1].weights[0, 2])
    np.testing.assert_allclose(m.weights.sum(axis=-1), 1.0, atol=1e-6)
    assert np.all(np.triu(m.weights, k=1) == 0)
    assert not m.weights.flags.writeable


def test_top_sources_are_the_largest_weights_left_of_the_query(line):
    m = T.attention_map(*line, 0, 0)
    q = len(m.pieces) - 1
    top = m.top_sources(q, k=3)
    assert [w for _, _, w in top] == sorted(m.weights[q], reverse=True)[:3]
    assert all(m.pieces[s] == p for s, p, _ in top)


def test_attention_map_refuses_bad_layer_head_pieces_and_query(line):
    trace, pieces = line
    layers, heads = len(trace.layers), trace.layers[0].weights.shape[1]
    with pytest.raises(ValueError, match="layer"):
        T.attention_map(trace, pieces, layers, 0)
    with pytest.raises(ValueError, match="head"):
        T.attention_map(trace, pieces, 0, heads)
    with pytest.raises(TypeError, match="head"):
        T.attention_map(trace, pieces, 0, 1.0)
    with pytest.raises(ValueError, match="pieces"):
        T.attention_map(trace, pieces[:-1], 0, 0)
    with pytest.raises(ValueError, match="query"):
        T.attention_map(trace, pieces, 0, 0).top_sources(len(pieces))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.permutations([0, 1, 2, 3]).map(lambda p: p[:2]), min_size=2, max_size=20))
def test_routing_load_counts_every_choice_and_changes_ignore_order(rows):
    chosen = np.array([rows])  # [1, T, 2]
    s = T.routing_stats(chosen, num_experts=4)
    assert s.load.sum() == s.tokens * s.top_k == len(rows) * 2
    assert 0 <= s.changes[0] <= s.pairs
    swapped = T.routing_stats(chosen[..., ::-1], num_experts=4)
    assert swapped.changes.tolist() == s.changes.tolist()
    np.testing.assert_allclose(s.load_share.sum(axis=-1), 1.0)


def test_routing_stats_refuses_bad_input():
    with pytest.raises(ValueError, match="chosen"):
        T.routing_stats([[0, 1], [1, 0]], num_experts=2)
    with pytest.raises(ValueError, match="at least 2 tokens"):
        T.routing_stats([[[0, 1]]], num_experts=2)
    with pytest.raises(ValueError, match="num_experts"):
        T.routing_stats([[[0, 1], [1, 2]]], num_experts=2)
    with pytest.raises(TypeError, match="chosen"):
        T.routing_stats([[[0.0, 1.0], [1.0, 0.0]]], num_experts=2)


def test_held_out_routing_covers_every_held_out_token_in_windows(engine):
    s = T.held_out_routing(engine)
    assert s.tokens == sum(len(engine.encode(f.text)) for f in T.held_out_sample())  # each file on its own
    assert s.tokens > engine.config.max_position_embeddings  # really more than one window
    assert s.load.shape == (engine.config.num_hidden_layers, engine.config.num_local_experts)
    assert s.load.sum(axis=-1).tolist() == [s.tokens * s.top_k] * s.load.shape[0]
