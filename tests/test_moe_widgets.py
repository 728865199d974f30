"""Widgets of chapter 9: δ at the top-1 boundary (figure 21), experts and k (figure 20)
and the batch's second token (figure 22). Each starts as its static figure, every state
it shows equals a full draw of that state, the numbers come from the engine, and bad
values are refused by name."""

from __future__ import annotations

import pytest

from tokenpath import examples as ex
from tokenpath.lessons import moe as lessons_moe
from tokenpath import fmt, moe, widgets
from tokenpath.figures import moe as fm

from _widget_fixtures import built, full_draw, static, widget_fixture

_full_draw, _static = full_draw, static


delta = widget_fixture("boundary_delta")
routing = widget_fixture("routing_choice")
batch = widget_fixture("batch_token")


def test_widgets_are_registered_for_the_latency_benchmark():
    assert {"boundary_delta", "routing_choice", "batch_token"} <= set(widgets.SLIDERS)


def test_defaults_are_the_static_figures():
    delta, routing, batch = (built(n) for n in ("boundary_delta", "routing_choice", "batch_token"))
    assert delta.value == ex.FIG21_DELTA and delta.png() == _static(21)
    assert routing.value == (4, 2) and routing.value._fields == ("n_experts", "k") and routing.png() == _static(20)
    assert batch.value == len(ex.FIG22_CANDIDATES) - 1 and batch.png() == _static(22)


def test_delta_crossing_zero_flips_the_expert_shown(delta):
    png_positive = delta.png()
    delta.slider.value = -0.5  # as code moving the slider does
    assert delta.trace.chosen == 1
    assert delta.artists["title"].get_text() == "δ = −0.5: expert 1 runs"
    assert delta.artists["ledger.runs"].get_text() == "expert 1 runs"
    assert "expert 1 runs" in delta.view.caption
    assert delta.png() != png_positive and delta.png() == _full_draw(delta)
    delta.update(0.0)
    assert delta.trace.chosen == 0 and "(a tie, settled by the lower ID)" in delta.describe()
    # at the tie a ±h step changes the expert: finite differences are no derivative there
    assert "measure the jump" in delta.describe()
    assert delta.artists["ledger.fd"].get_text().startswith("undefined here")
    delta.update(ex.FIG21_DELTA)
    assert delta.png() == png_positive


@pytest.mark.parametrize("value", [-2.0, 1.35])
def test_delta_states_keep_the_in_set_gradient_zero(delta, value):
    delta.update(value)
    try:
        b = lessons_moe.top1_boundary(value, ex.FIG21_OUTPUTS, ex.FIG21_TARGET)
        assert delta.trace.chosen == b.chosen == (1 if value < 0 else 0)
        assert "router gradient [0, 0]" in delta.describe()
        assert f"full-softmax gate {fmt.num(b.gate_full, 3)}" in delta.describe()
    finally:
        delta.update(ex.FIG21_DELTA)


def test_after_a_sweep_the_incremental_images_still_equal_a_full_draw(delta, routing, batch):
    # groups whose look comes back are pasted from the renderer's cache, and states
    # shown before from the widget's: still a full draw's pixels
    for v in (1.9, 1.2, 0.4, 0.0, -0.1, -0.8, 1.2, -1.55, 0.0, 0.1):
        delta.update(v)
    assert delta.png() == _full_draw(delta)
    for state in ((6, 6), (6, 1), (2, 2), (6, 6), (3, 1), {"k": 3}):
        routing.update(state)
    assert routing.png() == _full_draw(routing)
    for c in (0, 1, 0, 2, 1):
        batch.update(c)
    assert batch.png() == _full_draw(batch)


@pytest.mark.parametrize("state", [{"k": 3}, (1, 1)])
def test_routing_states_follow_the_engine(routing, state):
    routing.update(state)
    n, k = (4, 3) if isinstance(state, dict) else state
    assert routing.value == (n, k)
    r = moe.route(ex.FIG20_WIDGET_SCORES[:n], k)
    assert routing.trace.route.chosen.tolist() == r.chosen.tolist()
    assert routing.artists["heading"].get_text().startswith(f"{n} expert{'s' if n > 1 else ''}, top-{k}")
    for j in range(fm.E_MAX):
        assert routing.artists[f"score.cell[{j}]"].get_visible() == (j < n)
    assert routing.sliders[1].max == n


def test_k_range_depends_on_the_experts_and_shrinking_them_clamps_k(routing):
    experts, k = routing.sliders
    routing.update((6, 5))
    assert (k.min, k.max) == (1, 6)
    experts.value = 3  # a reader's drag below k
    assert routing.value == (3, 3) and k.value == 3 and k.max == 3
    routing.update(n_experts=2)  # from code, k not named: it follows too
    assert routing.value == (2, 2)
    with pytest.raises(ValueError, match="k must be between 1 and 2"):
        routing.update(k=3)
    with pytest.raises(ValueError, match="k must be between 1 and 4"):
        routing.update((4, 5))
    assert all(1 <= v.k <= v.n_experts for v in routing.sweep(12))


def test_batch_picker_shows_use_load_and_drops(batch):
    try:
        for candidate, used, dropped in [(0, [0, 1], [(1, 0), (1, 1)]), (1, [0, 1, 2], [(1, 1)])]:
            batch.slider.value = candidate
            assert batch.trace.experts_used.tolist() == used and batch.trace.dropped == dropped
            assert batch.artists["used.side"].get_text() == f"{len(used)} experts used"
            assert f"uses {len(used)} experts" in batch.describe()
        assert batch.png() == _full_draw(batch)
    finally:
        batch.update(2)
    assert batch.png() == _static(22)


@pytest.mark.parametrize("make, bad, error, name", [
    ("boundary_delta", 2.5, ValueError, "delta"), ("boundary_delta", "0", TypeError, "delta"),
    ("boundary_delta", float("nan"), ValueError, "delta"),
    ("routing_choice", {"k": 0}, ValueError, "k"), ("routing_choice", {"k": 5}, ValueError, "k"),
    ("routing_choice", (7, 2), ValueError, "n_experts"), ("routing_choice", {"k": 2.0}, TypeError, "k"),
    ("routing_choice", (1, 2, 3), TypeError, "value"),
    ("batch_token", 3, ValueError, "candidate"), ("batch_token", True, TypeError, "candidate"),
])
def test_bad_slider_values_are_refused_by_name(delta, routing, batch, make, bad, error, name):
    w = {"boundary_delta": delta, "routing_choice": routing, "batch_token": batch}[make]
    before = w.value
    with pytest.raises(error, match=name):
        w.update(bad)
    assert w.value == before


def test_constructors_check_their_arguments():
    with pytest.raises(ValueError, match="delta"):
        widgets.boundary_delta(3.0)
    with pytest.raises(ValueError, match="n_experts"):
        widgets.routing_choice(n_experts=9)
    with pytest.raises(TypeError, match="candidate"):
        widgets.batch_token("0")
