"""Widgets of figures 11 and 12, and the engine claims those figures make.

The widgets must (1) show the static figure in their default state, byte for byte,
(2) move the figure's own artists in place when the slider moves, (3) describe the
state with the engine's numbers, and (4) refuse bad slider values by name.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tokenpath import attention, examples, figures, fmt, widgets
from tokenpath.figures import attention_scale as scale
from tokenpath.figures import style

M_SMALL, M_LARGE = examples.FIG11_M_SMALL, examples.FIG11_M_LARGE


@pytest.fixture(scope="module")
def static():
    """The static figures 11 and 12, rendered once for the module."""
    drawn = {n: figures.render(n) for n in (11, 12)}
    yield {n: (d, d.png(dpi=style.SCREEN_DPI)) for n, d in drawn.items()}
    for d in drawn.values():
        style.close(d.figure)


@pytest.fixture(scope="module")
def magnitude():
    w = widgets.value_magnitude()
    yield w
    style.close(w.figure)


@pytest.fixture(scope="module")
def spread():
    w = widgets.score_scale()
    yield w
    style.close(w.figure)


@pytest.fixture
def m_widget(magnitude):
    yield magnitude
    magnitude.update(M_LARGE)


@pytest.fixture
def d_widget(spread):
    yield spread
    spread.update(scale.D_H_FOCUS)


def _arrow_ends(arrow) -> np.ndarray:
    """Tail and tip an arrow was last set to, ``[[x0, y0], [x1, y1]]``.

    FancyArrowPatch has a setter but no getter for its end points; the drawn path is
    no substitute, as matplotlib pulls the head's vertices back by the stroke width.
    """
    return np.array(arrow._posA_posB, dtype=float)


# ------------------------------------------------------------ default state = static


def test_value_magnitude_default_png_is_static_fig11(magnitude, static):
    assert magnitude.value == M_LARGE
    assert magnitude.png() == static[11][1]


def test_score_scale_default_png_is_static_fig12(spread, static):
    assert spread.value == scale.D_H_FOCUS == 16
    assert spread.png() == static[12][1]


def test_returning_to_default_gives_the_static_png_again(m_widget, d_widget, static):
    m_widget.update(M_SMALL)
    m_widget.update(M_LARGE)
    assert m_widget.png() == static[11][1]
    d_widget.update(3)
    d_widget.update(scale.D_H_FOCUS)
    assert d_widget.png() == static[12][1]


@pytest.mark.parametrize("m", [M_SMALL, 23.0])
def test_fig11_widget_png_equals_a_full_savefig_of_the_same_state(m_widget, m):
    m_widget.update(m)
    assert m_widget.png() == style.png_bytes(m_widget.figure, style.SCREEN_DPI)


@pytest.mark.parametrize("d_h", [1, 64])
def test_fig12_widget_png_equals_a_full_savefig_of_the_same_state(d_widget, d_h):
    d_widget.update(d_h)
    assert d_widget.png() == style.png_bytes(d_widget.figure, style.SCREEN_DPI)


# --------------------------------------------------------------- artists in place


def test_fig11_slider_moves_the_same_artists_to_the_new_trace(m_widget):
    before = dict(m_widget.artists)
    m_widget.update(M_SMALL)
    assert all(m_widget.artists[k] is a for k, a in before.items())
    right = scale.panel_artists(m_widget.artists, "right")
    np.testing.assert_allclose(_arrow_ends(right["plane.output"]), [[0.0, 0.0], [1.5, 1.0]], atol=1e-9)
    np.testing.assert_allclose(_arrow_ends(right["plane.contrib1"]), [[1.5, 0.0], [1.5, 1.0]], atol=1e-9)
    assert right["ledger.output"].get_text() == "o = a₀u₀ + a₁u₁ = [1.5, 1]"
    assert right["title"].get_text() == "m = 4"
    # the left panel is the static m = 4 panel and does not move
    left = scale.panel_artists(m_widget.artists, "left")
    assert left["ledger.output"].get_text() == "o = a₀u₀ + a₁u₁ = [1.5, 1]"
    m_widget.update(M_LARGE)
    np.testing.assert_allclose(_arrow_ends(right["plane.output"]), [[0.0, 0.0], [1.5, 10.0]], atol=1e-9)
    assert right["ledger.contrib1"].get_text() == "a₁u₁ = 0.25·[0, 40] = [0, 10]"


def test_fig12_slider_changes_histogram_heights_in_place(d_widget):
    b = scale.panel_artists(d_widget.artists, "b")
    unscaled, legend, axes = b["unscaled"], b["legend"], b["title"].axes
    edges_before, ylim_before = unscaled.get_data().edges.copy(), axes.get_ylim()
    d_widget.update(4)
    b_after = scale.panel_artists(d_widget.artists, "b")
    assert b_after["unscaled"] is unscaled and b_after["legend"] is legend
    expected = attention.score_spread(
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
        assert w.image.value == w.png()


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
    raw = attention.score_samples(d_h, examples.FIG12_WIDGET_SAMPLES, examples.FIG12_SEED)
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
    with pytest.raises(ValueError, match=r"\bm\b"):
        widgets.value_magnitude(m=100)
    with pytest.raises(TypeError, match="d_h"):
        widgets.score_scale(d_h="16")


# ------------------------------------------------- engine claims of figures 11, 12


@pytest.mark.parametrize("m", np.linspace(0.0, 100.0, 21).tolist() + [M_SMALL, M_LARGE])
def test_fig11_weights_stay_three_quarters_one_quarter_for_every_m(m):
    t = attention.value_magnitude(m)
    np.testing.assert_allclose(t.weights, [0.75, 0.25], rtol=0, atol=1e-15)
    np.testing.assert_allclose(t.output, [1.5, m / 4], rtol=1e-15, atol=1e-15)


def test_fig11_small_m_contributions_and_output():
    t = attention.value_magnitude(M_SMALL)
    np.testing.assert_allclose(t.contributions, [[1.5, 0.0], [0.0, 1.0]])
    np.testing.assert_allclose(t.output, [1.5, 1.0])


def test_fig11_large_m_quarter_weight_source_contributes_length_10_over_1_5():
    t = attention.value_magnitude(M_LARGE)
    np.testing.assert_allclose(t.contributions[1], [0.0, 10.0])
    np.testing.assert_allclose(t.output, [1.5, 10.0])
    np.testing.assert_allclose(t.lengths, [1.5, 10.0])
    assert t.weights[1] < t.weights[0] and t.lengths[1] > t.lengths[0]


def test_fig11_trace_is_softmax_of_the_scores_times_the_value_rows():
    t = attention.value_magnitude(M_LARGE)
    np.testing.assert_allclose(t.weights, attention.softmax(examples.FIG11_SCORES))
    np.testing.assert_allclose(t.contributions.sum(axis=0), t.output)
    np.testing.assert_allclose(t.output, t.weights @ t.value)


def test_fig12_monte_carlo_variance_within_5_percent_of_theory():
    v = attention.score_variance(examples.FIG12_D_H, samples=examples.FIG12_SAMPLES, seed=examples.FIG12_SEED)
    assert v.d_h.tolist() == [1, 4, 16]
    np.testing.assert_array_equal(v.theory, [1.0, 4.0, 16.0])
    np.testing.assert_allclose(v.unscaled, v.theory, rtol=0.05)
    np.testing.assert_allclose(v.scaled, 1.0, rtol=0.05)


def test_fig12_figure_shows_the_engine_variance_trace(static):
    drawn = static[12][0]
    bars, close = drawn.trace
    ref = attention.score_variance(examples.FIG12_D_H, samples=examples.FIG12_SAMPLES, seed=examples.FIG12_SEED)
    np.testing.assert_array_equal(bars.unscaled, ref.unscaled)
    heights = [p.get_height() for p in drawn.artists["a.unscaled"]]
    np.testing.assert_array_equal(heights, ref.unscaled)
    assert fmt.vec(ref.unscaled, 2) in drawn.alt
    assert close.d_h == scale.D_H_FOCUS


def test_fig11_alt_text_carries_both_panels_numbers(static):
    alt = static[11][0].alt
    for needle in ("weights [0.75, 0.25]", "o = [1.5, 1]", "a₁u₁ = [0, 10]", "o = [1.5, 10]", "(10 > 1.5)"):
        assert needle in alt


def test_score_spread_densities_integrate_to_the_share_inside_the_edges():
    t = attention.score_spread(64, scale.EDGES, samples=examples.FIG12_WIDGET_SAMPLES, seed=examples.FIG12_SEED)
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
        attention.score_spread(4, [1.0, 0.0])
