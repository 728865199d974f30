"""Chapter 9's view of the trained model's routing (tokenpath.trained, figure 27 and its
widget): what each router of the committed model scores, chooses and weights for the
tokens of a held-out line, and its load and top-2 changes over the held-out text.

The forward passes run once per process (cached by tokenpath.trained); the widget is
built once per session (tests/_widget_fixtures.py)."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.colors import to_rgba

from tokenpath import examples as ex
from tokenpath import moe, widgets
from tokenpath import trained as T
from tokenpath.figures import trained_routing as fr

from _widget_fixtures import built, full_draw, static, widget_fixture

routing = widget_fixture("trained_routing")


@pytest.fixture(scope="module")
def held():
    return T.held_out_routes()


# ------------------------------------------------------------------ engine


def test_held_out_routes_are_computed_once_and_give_the_held_out_statistics(held):
    assert T.held_out_routes() is held
    assert T.held_out_routes(T.committed_model()) is held  # a model given for the same folder: the cache
    stats = T.held_out_routing()
    assert stats.tokens == held.tokens == len(held.pieces)
    np.testing.assert_array_equal(stats.load, T.routing_stats(held.chosen, held.num_experts).load)
    assert (stats.load.sum(axis=1) == held.tokens * held.top_k).all()


def test_router_probabilities_sum_to_one_and_the_chosen_are_the_most_probable(held):
    np.testing.assert_allclose(held.probs.sum(axis=-1), 1.0, atol=1e-9)
    top = np.take_along_axis(held.probs, held.chosen, axis=-1)  # [L, T, k]
    assert (top[..., 0] >= top[..., 1]).all()
    rest = held.probs.copy()
    np.put_along_axis(rest, held.chosen, -1.0, axis=-1)
    assert (top.min(axis=-1) >= rest.max(axis=-1)).all()
    # the gates are the chosen probabilities renormalised inside the set (chapter 9)
    np.testing.assert_allclose(held.gates, top / top.sum(axis=-1, keepdims=True), atol=1e-9)
    assert not held.probs.flags.writeable and not held.chosen.flags.writeable


def test_line_routing_is_the_held_out_pass_at_the_tokens_that_start_in_the_line(held):
    lr = T.line_routing(T.example_line())
    text = T.held_out_lines()[T.example_line()]
    span = T.line_tokens()[T.example_line()]
    assert lr.text == text and lr.start == span.start
    cut = slice(span.start, span.stop)
    np.testing.assert_array_equal(lr.routes.chosen, held.chosen[:, cut])
    np.testing.assert_array_equal(lr.routes.probs, held.probs[:, cut])
    assert lr.routes.pieces == held.pieces[cut]
    # the line's own text, less the indentation the newline token before it carries
    assert text.endswith("".join(lr.routes.pieces)) and not text[: -len("".join(lr.routes.pieces))].strip()
    assert held.pieces[span.start - 1].startswith("\n")


def test_every_token_of_the_held_out_text_starts_in_exactly_one_line_or_is_a_newline(held):
    spans = T.line_tokens()
    owned = sorted(t for span in spans for t in span)
    assert len(owned) == len(set(owned))
    rest = set(range(held.tokens)) - set(owned)
    assert all(held.pieces[t].startswith("\n") for t in rest)


def test_offered_lines_follow_the_stated_rule():
    low, high = ex.ROUTE_LINE_TOKENS
    lines = T.held_out_lines()
    offered = T.route_lines()
    spans = T.line_tokens()
    for n, line in enumerate(lines):
        code = line.strip()
        wanted = bool(code) and not code.startswith("#") and low <= len(spans[n]) <= high
        assert (n in offered) == wanted, n
    assert T.example_line() in offered
    assert set(T.example_lines()) <= set(offered)
    assert len({T.line_source(n)[0] for n in T.example_lines()}) == len(T.example_lines())  # one line per file


def test_routing_view_picks_the_layer_of_the_line_and_of_the_held_out_text(held):
    v = T.routing_view(2, T.example_line())
    lr = T.line_routing(T.example_line())
    assert v.pieces == lr.routes.pieces and v.text == lr.text
    np.testing.assert_array_equal(v.chosen, lr.routes.chosen[2])
    stats = T.held_out_routing()
    np.testing.assert_array_equal(v.load, stats.load[2])
    assert v.changes == stats.changes[2] and v.pairs == held.tokens - 1
    assert v.scale == pytest.approx(stats.load_share.max())
    sets = np.sort(v.chosen, axis=-1)
    assert v.line_changes == sum(tuple(a) != tuple(b) for a, b in zip(sets[1:], sets[:-1]))


def test_text_agreement_counts_pairs_of_occurrences_by_hand():
    pieces = ("x", "y", "x", "x")
    chosen = np.array([[[0, 1], [2, 3], [1, 0], [2, 0]]])
    t = T.text_agreement(T.Routes(pieces, np.zeros((1, 4, 4)), chosen, np.zeros((1, 4, 2))))
    # "x" three times: pairs (0,2) same set {0,1}, (0,3) and (2,3) differ -> 1 of 3
    assert (t.texts, t.same_text_pairs) == (1, 3)
    assert t.same_text.tolist() == [1 / 3]
    # any two of the 4 tokens: only (0, 2) share a set -> 1 of 6
    assert t.any_pair.tolist() == [1 / 6]


def test_held_out_text_agreement_is_a_share_for_every_layer(held):
    t = T.text_agreement(held)
    assert t.same_text.shape == t.any_pair.shape == (held.layers,)
    assert ((0 <= t.same_text) & (t.same_text <= 1)).all() and ((0 < t.any_pair) & (t.any_pair <= 1)).all()


@pytest.mark.parametrize("call, error, name", [
    (lambda: T.routing_view(4, T.example_line()), ValueError, "layer"),
    (lambda: T.routing_view(-1, T.example_line()), ValueError, "layer"),
    (lambda: T.routing_view(1.0, T.example_line()), TypeError, "layer"),
    (lambda: T.routing_view(0, 10_000), ValueError, "line"),
    (lambda: T.routing_view(0, "61"), TypeError, "line"),
    (lambda: T.line_routing(T.held_out_lines().index("")), ValueError, "blank"),
    (lambda: T.route_lines(low=1), ValueError, "low"),
    (lambda: T.route_lines(low=8, high=7), ValueError, "high"),
    (lambda: T.text_agreement("routes"), TypeError, "routes"),
    (lambda: T.routes_of([], []), ValueError, "traces"),
    (lambda: T.routes_of([T.committed_model().forward([1, 2])], ["a"]), ValueError, "pieces"),
])
def test_bad_input_is_refused_by_name(call, error, name):
    with pytest.raises(error, match=name):
        call()


def test_text_agreement_needs_a_repeated_text():
    r = T.Routes(("a", "b"), np.zeros((1, 2, 2)), np.array([[[0], [1]]]), np.zeros((1, 2, 1)))
    with pytest.raises(ValueError, match="at least twice"):
        T.text_agreement(r)


# ------------------------------------------------------------------ the routing figure


def test_routing_figure_shows_the_view_of_the_engine():
    drawn = static_drawn()
    v = drawn.trace
    art = drawn.artists
    assert (v.layer, v.line) == (ex.ROUTE_LAYER, T.example_line())
    for t, piece in enumerate(v.pieces):
        assert art[f"pos[{t}]"].get_text() == str(t)
        assert art[f"piece[{t}]"].get_text() == fr.piece_text(piece)
        assert art[f"probs[{t}]"].get_text().split() == [fr.prob_text(p) for p in v.probs[t]]
        faces = [art[f"cell[{t},{j}]"].get_facecolor() for j in range(v.probs.shape[1])]
        first, second = (int(e) for e in v.chosen[t])
        assert faces[first] == to_rgba(fr.FIRST_FACE) and faces[second] == to_rgba(fr.SECOND_FACE)
        assert sum(f == to_rgba("white") for f in faces) == v.probs.shape[1] - v.top_k
    for t in range(len(v.pieces), fr.MAX_ROWS):
        assert not any(art[f"{key}[{t}]"].get_visible() for key in ("pos", "piece", "probs"))
        assert not art[f"cell[{t},0]"].get_visible()
    assert art["load[0]"].get_text().startswith(f"{int(v.load[0]):,} (")
    assert f"{v.changes:,} of {v.pairs:,}" in art["changes"].get_text()
    assert art["line.changes"].get_text() == f"this line: {v.line_changes} of {len(v.pieces) - 1}"
    assert "␣" in "".join(fr.piece_text(p) for p in v.pieces)  # spaces are visible
    assert str(v.line) in drawn.alt and f"{v.held_tokens:,}" in drawn.alt


def static_drawn():
    from tokenpath import figures

    return figures.render(fr.NUMBER)


def test_update_refuses_a_line_longer_than_the_table():
    drawn = static_drawn()
    v = drawn.trace
    long = T.RoutingView(v.layer, v.line, v.text, ("a",) * (fr.MAX_ROWS + 1),
                         np.full((fr.MAX_ROWS + 1, 4), 0.25), np.zeros((fr.MAX_ROWS + 1, 2), int),
                         np.full((fr.MAX_ROWS + 1, 2), 0.5), v.load, v.held_tokens, v.changes, v.scale)
    with pytest.raises(ValueError, match="trace must have at most"):
        fr.update_line_routing(drawn.artists, long)
    with pytest.raises(TypeError, match="trace"):
        fr.update_routing(drawn.artists, "view")


# ------------------------------------------------------------------ the widget


def test_widget_default_is_the_static_figure():
    w = built("trained_routing")
    assert w.value == (ex.ROUTE_LAYER, T.example_lines().index(T.example_line()))
    assert w.png() == static(fr.NUMBER) and w.matches_static_figure()


def test_every_state_is_a_full_draw_and_follows_the_engine(routing):
    lines = T.example_lines()
    lengths = [len(T.line_routing(n).routes.pieces) for n in lines]
    shortest, longest = int(np.argmin(lengths)), int(np.argmax(lengths))
    for state in ((0, shortest), (3, longest), (3, shortest), {"layer": 1}, (2, 0)):
        routing.update(state)
        v = routing.trace
        layer, line = routing.value
        assert (v.layer, v.line) == (layer, lines[line])
        assert routing.artists["state"].get_text().startswith(f"layer {layer} · held-out line {lines[line]} · ")
        assert routing.png() == full_draw(routing)
    path, number = T.line_source(lines[0])
    assert f"a held-out line, line {number} of {path}," in routing.describe()


@pytest.mark.parametrize("bad, error, name", [
    ({"layer": 4}, ValueError, "layer"), ({"line": -1}, ValueError, "line"),
    ({"layer": 1.5}, TypeError, "layer"), ((0,), TypeError, "layer, line"),
])
def test_widget_refuses_bad_values_by_name(routing, bad, error, name):
    with pytest.raises(error, match=name):
        routing.update(bad)


def test_constructor_checks_its_arguments():
    with pytest.raises(ValueError, match="line"):
        widgets.trained_routing(line=len(T.example_lines()))
