"""The widget layer and the widgets of figures 11 and 12, and the engine claims those
figures make.

Every registered widget must (1) show the static figure in its default state, byte for
byte, (2) give a full draw's PNG in any state, after any steps, (3) be registered once
and step each of its sliders in its sweep. Controls (several sliders as one value,
dependent ranges) are checked without a figure. The widgets of figures 11 and 12 must
also move the figure's own artists in place, describe the state with the engine's
numbers, and refuse bad slider values by name.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from tokenpath import attention, examples, figures, fmt, widgets
from tokenpath.figures import attention_scale as scale
from tokenpath.figures.draw import panel_artists
from tokenpath.lessons import attention as lessons_attention
from tokenpath.figures import style

from _widget_fixtures import DEFAULTS, built, full_draw, static, widget_fixture

M_SMALL, M_LARGE = examples.FIG11_M_SMALL, examples.FIG11_M_LARGE
BOOK = Path(__file__).resolve().parents[1] / "book"


magnitude_widget = widget_fixture("value_magnitude")
spread_widget = widget_fixture("score_scale")


@pytest.fixture
def magnitude(magnitude_widget):
    return magnitude_widget


@pytest.fixture
def spread(spread_widget):
    return spread_widget


m_widget, d_widget = magnitude, spread


def _arrow_ends(arrow) -> np.ndarray:
    """Tail and tip an arrow was last set to, ``[[x0, y0], [x1, y1]]``.

    FancyArrowPatch has a setter but no getter for its end points; the drawn path is
    no substitute, as matplotlib pulls the head's vertices back by the stroke width.
    """
    return np.array(arrow._posA_posB, dtype=float)


# ------------------------------------------------------------ default state = static


def test_value_magnitude_default_png_is_static_fig11(magnitude):
    assert magnitude.value == M_LARGE
    assert magnitude.png() == static(11)


def test_score_scale_default_png_is_static_fig12(spread):
    assert spread.value == scale.D_H_FOCUS == 16
    assert spread.png() == static(12)


def test_returning_to_default_gives_the_static_png_again(m_widget, d_widget):
    m_widget.update(M_SMALL)
    m_widget.forget_frames()  # drawn again, not the kept PNG of the default
    m_widget.update(M_LARGE)
    assert m_widget.png() == static(11)
    d_widget.update(3)
    d_widget.forget_frames()
    d_widget.update(scale.D_H_FOCUS)
    assert d_widget.png() == static(12)


def test_fig12_widget_png_equals_a_full_savefig_at_the_narrowest_head(d_widget):
    d_widget.update(1)  # the tallest bars (the generic test below moves d_h to 64)
    assert d_widget.png() == full_draw(d_widget)


# --------------------------------------------------------------- artists in place


def test_fig11_slider_moves_the_same_artists_to_the_new_trace(m_widget):
    before = dict(m_widget.artists)
    m_widget.update(M_SMALL)
    assert all(m_widget.artists[k] is a for k, a in before.items())
    right = panel_artists(m_widget.artists, "right")
    np.testing.assert_allclose(_arrow_ends(right["plane.output"]), [[0.0, 0.0], [1.5, 1.0]], atol=1e-9)
    np.testing.assert_allclose(_arrow_ends(right["plane.contrib1"]), [[1.5, 0.0], [1.5, 1.0]], atol=1e-9)
    assert right["ledger.output"].get_text() == "o = a₀u₀ + a₁u₁ = [1.5, 1]"
    assert right["title"].get_text() == "m = 4"
    # the left panel is the static m = 4 panel and does not move
    left = panel_artists(m_widget.artists, "left")
    assert left["ledger.output"].get_text() == "o = a₀u₀ + a₁u₁ = [1.5, 1]"
    m_widget.update(M_LARGE)
    np.testing.assert_allclose(_arrow_ends(right["plane.output"]), [[0.0, 0.0], [1.5, 10.0]], atol=1e-9)
    assert right["ledger.contrib1"].get_text() == "a₁u₁ = 0.25·[0, 40] = [0, 10]"


def test_fig12_slider_changes_histogram_heights_in_place(d_widget):
    b = panel_artists(d_widget.artists, "b")
    unscaled, legend, axes = b["unscaled"], b["legend"], b["title"].axes
    edges_before, ylim_before = unscaled.get_data().edges.copy(), axes.get_ylim()
    d_widget.update(4)
    b_after = panel_artists(d_widget.artists, "b")
    assert b_after["unscaled"] is unscaled and b_after["legend"] is legend
    expected = lessons_attention.score_spread(
        4, scale.EDGES, samples=examples.FIG12_WIDGET_SAMPLES, seed=examples.FIG12_SEED
    )
    np.testing.assert_array_equal(unscaled.get_data().values, expected.unscaled_density)
    np.testing.assert_array_equal(b["scaled"].get_data().values, expected.scaled_density)
    # fixed bins and a fixed scale: only the heights move
    np.testing.assert_array_equal(unscaled.get_data().edges, edges_before)
    assert axes.get_ylim() == ylim_before
    assert b["title"].get_text() == "(b) close-up at dₕ = 4"


def test_histogram_scale_holds_the_tallest_bar_of_every_width():
    top = scale.closeup_ylim()[1]
    for d_h in range(scale.D_H_RANGE[0], scale.D_H_RANGE[1] + 1):
        t = scale.score_closeup_trace(d_h)
        assert max(t.unscaled_density.max(), t.scaled_density.max()) < top


# ------------------------------------------------------------- slider wiring


def test_fig11_slider_observe_calls_update(m_widget):
    m_widget.slider.value = 10.0
    assert m_widget.value == 10.0
    np.testing.assert_allclose(m_widget.trace.output, [1.5, 2.5])


def test_fig12_slider_observe_calls_update(d_widget):
    d_widget.slider.value = 5
    assert d_widget.value == 5 and d_widget.trace.d_h == 5


def test_update_from_code_moves_the_slider(m_widget):
    m_widget.update(12.5)
    assert m_widget.slider.value == 12.5


def test_widgets_display_as_jupyter_widgets(magnitude, spread):
    for w in (magnitude, spread):
        bundle = w._repr_mimebundle_()
        assert "application/vnd.jupyter.widget-view+json" in bundle
        assert w.view.png == w.png() and w.view.caption == w.describe()


# ------------------------------------------------------------------ describe()


@pytest.mark.parametrize("m", [M_SMALL, M_LARGE])
def test_fig11_describe_states_the_engine_numbers(m_widget, m):
    m_widget.update(m)
    t = attention.weighted_values(examples.FIG11_SCORES, [examples.FIG11_U0, [0.0, m]])
    text = m_widget.describe()
    assert f"weights {fmt.vec(t.weights)}" in text
    assert f"a₀u₀ = {fmt.vec(t.contributions[0])}" in text
    assert f"a₁u₁ = {fmt.vec(t.contributions[1])}" in text
    assert f"o = {fmt.vec(t.output)}" in text


def test_fig11_describe_at_the_two_static_magnitudes(m_widget):
    m_widget.update(M_SMALL)
    assert "a₁u₁ = [0, 1] (length 1)" in m_widget.describe()
    assert "o = [1.5, 1]" in m_widget.describe()
    assert "shorter vector (1 < 1.5)" in m_widget.describe()
    m_widget.update(M_LARGE)
    assert "a₁u₁ = [0, 10] (length 10)" in m_widget.describe()
    assert "o = [1.5, 10]" in m_widget.describe()
    assert "The 0.25-weight source contributes the longer vector (10 > 1.5)" in m_widget.describe()


@pytest.mark.parametrize("d_h", [1, 4, 16, 33, 64])
def test_fig12_describe_states_the_engine_variances(d_widget, d_h):
    d_widget.update(d_h)
    raw = lessons_attention.score_samples(d_h, examples.FIG12_WIDGET_SAMPLES, examples.FIG12_SEED)
    text = d_widget.describe()
    assert text.startswith(f"dₕ = {d_h}:")
    assert f"sample variance {fmt.num(raw.var(), 2)} (theory {d_h})" in text
    assert f"it has {fmt.num((raw / math.sqrt(d_h)).var(), 2)} (theory 1)" in text
    assert "not a measurement of a trained model" in text


# ----------------------------------------------------------------- bad values


@pytest.mark.parametrize(
    "value, error", [(-1, ValueError), (3.9, ValueError), (40.5, ValueError), (float("nan"), ValueError),
                     (float("inf"), ValueError), ("4", TypeError), (None, TypeError), (True, TypeError)],
)
def test_fig11_bad_values_raise_naming_m(magnitude, value, error):
    with pytest.raises(error, match=r"\bm\b"):
        magnitude.update(value)
    assert magnitude.value == M_LARGE


@pytest.mark.parametrize(
    "value, error", [(0, ValueError), (-1, ValueError), (65, ValueError), (2.5, TypeError),
                     (16.0, TypeError), ("16", TypeError), (True, TypeError)],
)
def test_fig12_bad_values_raise_naming_d_h(spread, value, error):
    with pytest.raises(error, match="d_h"):
        spread.update(value)
    assert spread.value == scale.D_H_FOCUS


def test_constructors_check_their_argument():
    # refused before anything is drawn
    with pytest.raises(ValueError, match=r"\bm\b"):
        widgets.value_magnitude(m=100)
    with pytest.raises(TypeError, match="d_h"):
        widgets.score_scale(d_h="16")


# ------------------------------------------------- engine claims of figures 11, 12


@pytest.mark.parametrize("m", np.linspace(0.0, 100.0, 21).tolist() + [M_SMALL, M_LARGE])
def test_fig11_weights_stay_three_quarters_one_quarter_for_every_m(m):
    t = lessons_attention.value_magnitude(m)
    np.testing.assert_allclose(t.weights, [0.75, 0.25], rtol=0, atol=1e-15)
    np.testing.assert_allclose(t.output, [1.5, m / 4], rtol=1e-15, atol=1e-15)


def test_fig11_small_m_contributions_and_output():
    t = lessons_attention.value_magnitude(M_SMALL)
    np.testing.assert_allclose(t.contributions, [[1.5, 0.0], [0.0, 1.0]])
    np.testing.assert_allclose(t.output, [1.5, 1.0])


def test_fig11_large_m_quarter_weight_source_contributes_length_10_over_1_5():
    t = lessons_attention.value_magnitude(M_LARGE)
    np.testing.assert_allclose(t.contributions[1], [0.0, 10.0])
    np.testing.assert_allclose(t.output, [1.5, 10.0])
    np.testing.assert_allclose(t.lengths, [1.5, 10.0])
    assert t.weights[1] < t.weights[0] and t.lengths[1] > t.lengths[0]


def test_fig11_trace_is_softmax_of_the_scores_times_the_value_rows():
    t = lessons_attention.value_magnitude(M_LARGE)
    np.testing.assert_allclose(t.weights, attention.softmax(examples.FIG11_SCORES))
    np.testing.assert_allclose(t.contributions.sum(axis=0), t.output)
    np.testing.assert_allclose(t.output, t.weights @ t.value)


def test_fig12_monte_carlo_variance_within_5_percent_of_theory():
    v = lessons_attention.score_variance(examples.FIG12_D_H, samples=examples.FIG12_SAMPLES, seed=examples.FIG12_SEED)
    assert v.d_h.tolist() == [1, 4, 16]
    np.testing.assert_array_equal(v.theory, [1.0, 4.0, 16.0])
    np.testing.assert_allclose(v.unscaled, v.theory, rtol=0.05)
    np.testing.assert_allclose(v.scaled, 1.0, rtol=0.05)


def test_fig12_figure_shows_the_engine_variance_trace():
    drawn = built("score_scale").drawn  # panel (a) and the figure's trace never move
    bars, close = drawn.trace
    ref = lessons_attention.score_variance(examples.FIG12_D_H, samples=examples.FIG12_SAMPLES, seed=examples.FIG12_SEED)
    np.testing.assert_array_equal(bars.unscaled, ref.unscaled)
    heights = [p.get_height() for p in drawn.artists["a.unscaled"]]
    np.testing.assert_array_equal(heights, ref.unscaled)
    assert fmt.vec(ref.unscaled, 2) in drawn.alt
    assert close.d_h == scale.D_H_FOCUS


def test_fig11_alt_text_carries_both_panels_numbers():
    alt = built("value_magnitude").drawn.alt
    for needle in ("weights [0.75, 0.25]", "o = [1.5, 1]", "a₁u₁ = [0, 10]", "o = [1.5, 10]", "(10 > 1.5)"):
        assert needle in alt


def test_score_spread_densities_integrate_to_the_share_inside_the_edges():
    t = lessons_attention.score_spread(64, scale.EDGES, samples=examples.FIG12_WIDGET_SAMPLES, seed=examples.FIG12_SEED)
    width = np.diff(t.edges)
    inside = 1 - t.unscaled_outside / t.samples
    assert math.isclose((t.unscaled_density * width).sum(), inside)
    assert not t.unscaled.flags.writeable


def test_weighted_values_checks_its_input():
    with pytest.raises(ValueError, match="value"):
        attention.weighted_values([0.0, 0.0], [[1.0, 2.0]])
    with pytest.raises(ValueError, match="no visible source"):
        attention.weighted_values([0.0, 0.0], np.eye(2), mask=[False, False])
    with pytest.raises(TypeError, match="scores"):
        attention.weighted_values("ab", np.eye(2))
    with pytest.raises(ValueError, match="edges"):
        lessons_attention.score_spread(4, [1.0, 0.0])


# ------------------------------------------------------------ every registered widget

WIDGETS = sorted(widgets.SLIDERS)
#: The figure each registered widget draws.
FIGURE = {"value_magnitude": 11, "score_scale": 12, "merge_steps": 1, "lookup_cell": 3,
          "temperature_sampling": 5, "rope_distance": 15, "rope_pair": 15, "head_groups": 16,
          "rms_features": 17, "gate_pre_activation": 17, "routing_choice": 20, "boundary_delta": 21,
          "batch_token": 22, "next_token": 25, "line_heads": 26,
          "trained_routing": 27, "real_next_token": 28}


def test_every_widget_is_registered_once_by_its_constructor_name():
    assert sorted(FIGURE) == WIDGETS
    for name, make in widgets.SLIDERS.items():
        assert make.__name__ == name and getattr(widgets, name) is make
    with pytest.raises(ValueError, match="registered twice"):
        widgets.slider(widgets.SLIDERS["score_scale"])


@pytest.mark.parametrize("name", WIDGETS)
def test_default_state_is_the_static_figure_and_its_caption_describes_the_engine_trace(name):
    """What a reader sees before touching a slider: the static figure, pixel for pixel
    at screen resolution, and under it the words for the trace the engine computes for
    the default value (not only the trace the figure was built with)."""
    w = built(name)
    assert w.drawn.number == FIGURE[name]
    assert w.matches_static_figure()
    if name != "merge_steps":  # figure 1's top panel alone: the top rows of the static figure
        assert w.png() == static(FIGURE[name])
    assert w.describe() and w.describe() == w._describe(w._compute(w.value))
    assert w.view.caption == w.describe() and w.view.png == w.png()


def test_chapter_pages_leave_the_default_state_check_to_the_suite():
    """A self-check cell ("default state is Figure N: True") is a test, not reading: the
    test above makes it for every widget, so no chapter page prints it."""
    pages = sorted(BOOK.glob("*.md"))
    assert pages, f"no chapter pages in {BOOK}"
    checking = [p.name for p in pages if re.search(r"\.matches_static_\w+\(", p.read_text(encoding="utf-8"))]
    assert not checking, f"these pages still print a widget's self-check: {checking}"


def _move_every_slider_far(w) -> None:
    """Step each slider in turn to the end of its range (at that moment) farther from
    where it is, so every slider has moved."""
    controls = isinstance(w.slider, widgets.Controls)
    for k, s in enumerate(w.sliders):
        name = w.slider.names[k] if controls else None
        low, high = w.slider.range(name) if controls else (s.min, s.max)
        end = low if abs(s.value - low) > abs(s.value - high) else high
        w.update(**{name: end}) if controls else w.update(end)


@pytest.mark.parametrize("name", WIDGETS)
def test_every_slider_moved_gives_a_full_draw_and_the_default_comes_back_drawn(name):
    w = built(name)
    try:
        _move_every_slider_far(w)
        assert w.value != DEFAULTS[name]
        assert w.png() == full_draw(w)
        w.forget_frames()  # the way back is drawn, not the kept PNG of the default
        w.update(DEFAULTS[name])
        assert w.png() == static(FIGURE[name]) if name != "merge_steps" else w.matches_static_figure()
    finally:
        w.update(DEFAULTS[name])


@pytest.mark.parametrize("name", WIDGETS)
def test_sweep_steps_each_slider_across_its_range_with_the_others_held(name):
    w = built(name)
    values = w.sweep(2 * len(w.sliders))
    controls = isinstance(w.slider, widgets.Controls)
    for k, s in enumerate(w.sliders):
        mine = [v[k] if controls else v for v in values]
        low, high = (w.slider.bounds[w.slider.names[k]] if controls else (s.min, s.max))
        if not (controls and w.slider.names[k] in w.slider.dependent):
            assert low in mine and high in mine
    for v in values:
        assert w._check(v) == v  # every position is a valid value


def test_a_state_shown_before_is_not_drawn_again_and_is_still_a_full_draw():
    w = built("head_groups")
    try:
        w.update((4, 4))
        first = w.png()
        assert w.timings["draw"] > 0
        w.update((8, 2))
        w.update(n_q_heads=4, n_kv_heads=4)
        assert w.timings["draw"] == w.timings["encode"] == 0.0 and w.png() == first == full_draw(w)
    finally:
        w.update(DEFAULTS["head_groups"])


def test_update_takes_a_value_or_sliders_by_name_not_both():
    w = built("rope_distance")
    with pytest.raises(TypeError, match="not both"):
        w.update((1, 1.0), omega=1.0)
    with pytest.raises(TypeError, match="needs a value"):
        w.update()


# ------------------------------------------------------------------ Controls


def _controls():
    import ipywidgets

    return widgets.Controls({
        "n": ipywidgets.IntSlider(value=4, min=1, max=6),
        "x": ipywidgets.FloatSlider(value=0.5, min=-1.0, max=1.0, step=0.25),
        "k": ipywidgets.IntSlider(value=2, min=1, max=6),
    }, limits={"k": lambda v: (1, v.n)})


def test_controls_value_is_a_named_tuple_of_the_sliders():
    c = _controls()
    assert c.value == (4, 0.5, 2) and c.value._fields == ("n", "x", "k")
    c.sliders[1].value = -0.25  # a reader's drag
    assert c.value.x == -0.25
    c.value = c.Value(5, 1.0, 5)  # from code: the sliders follow
    assert [s.value for s in c.sliders] == [5, 1.0, 5] and c.sliders[2].max == 5


def test_controls_dependent_range_follows_and_clamps():
    c = _controls()
    c.value = c.check({"k": 4})
    c.sliders[0].value = 2  # n below k: k is clamped, its slider's range shrinks
    assert c.value == (2, 0.5, 2) and (c.sliders[2].min, c.sliders[2].max) == (1, 2)
    c.sliders[0].value = 6
    assert c.sliders[2].max == 6 and c.value.k == 2
    assert c.range("k") == (1, 6) and c.bounds["k"] == (1, 6)


def test_controls_choices_step_to_the_next_and_follow_to_the_nearest():
    import ipywidgets

    c = widgets.Controls({"q": ipywidgets.IntSlider(value=12, min=1, max=12),
                          "g": ipywidgets.IntSlider(value=4, min=1, max=12)},
                         choices={"g": lambda v: [g for g in range(1, v.q + 1) if v.q % g == 0]})
    assert c.allowed("g") == [1, 2, 3, 4, 6, 12] and c.allowed("q") is None and c.dependent == ("g",)
    c.sliders[1].value = 5  # up from 4: the next allowed, 6
    assert c.value == (12, 6)
    c.sliders[1].value = 5  # down from 6: 4
    assert c.value == (12, 4)
    c.sliders[0].value = 10  # q moves: g to the nearest divisor of 10 (5 is nearer than 2)
    assert c.value == (10, 5) and (c.sliders[1].min, c.sliders[1].max) == (1, 10)
    assert c.check({"g": 3}) == (10, 3)  # given in code: only the range is checked
    assert c.check({"q": 7}) == (7, 7)  # g not given: it follows (7 and 1 are its choices; 7 is nearer)
    assert c.sweep(4) == [(1, 1), (12, 4), (10, 1), (10, 10)]  # 4 and 6 are as near to 5: the lower


@pytest.mark.parametrize("kwargs, match", [
    ({"choices": {"m": lambda v: [1]}}, r"choices name sliders that are not there: \['m'\]"),
    ({"limits": {"g": lambda v: (1, 2)}, "choices": {"g": lambda v: [1]}}, r"limits or choices, not both: \['g'\]"),
])
def test_controls_refuse_choices_they_cannot_apply(kwargs, match):
    import ipywidgets

    with pytest.raises(ValueError, match=match):
        widgets.Controls({"q": ipywidgets.IntSlider(value=2, min=1, max=4),
                          "g": ipywidgets.IntSlider(value=1, min=1, max=4)}, **kwargs)


@pytest.mark.parametrize("bad, error, match", [
    ({"k": 5}, ValueError, r"k must be between 1 and 4"),
    ({"n": 7}, ValueError, r"n must be between 1 and 6"),
    ({"x": "0"}, TypeError, r"x must be a real number"),
    ({"n": 2.0}, TypeError, r"n must be an integer"),
    ({"m": 1}, ValueError, r"no slider named 'm'"),
    ((4, 0.5), TypeError, r"must be \(n, x, k\)"),
    (4, TypeError, r"must be \(n, x, k\)"),
])
def test_controls_refuse_bad_values_by_name(bad, error, match):
    c = _controls()
    with pytest.raises(error, match=match):
        c.check(bad)
    assert c.value == (4, 0.5, 2)


def test_controls_sweep_respects_dependent_ranges():
    c = _controls()
    values = c.sweep(9)
    assert all(1 <= v.k <= v.n for v in values)
    assert {v.n for v in values if (v.x, v.k) == (0.5, 2) or v.k == 1} >= {1, 6}
    assert {v.x for v in values} >= {-1.0, 1.0}
    assert {v.k for v in values if v.n == 4} >= {1, 4}


def test_a_savefig_between_steps_does_not_spoil_the_next_image():
    w = built("batch_token")  # redraws only the groups that changed
    try:
        w.update(0)
        w.update(1)
        w.update(0)  # shown from its kept PNG: the canvas still holds state 1 …
        full_draw(w)  # … until a savefig draws state 0 onto it
        w.forget_frames()
        w.update(1)
        assert w.png() == full_draw(w)
    finally:
        w.update(DEFAULTS["batch_token"])
