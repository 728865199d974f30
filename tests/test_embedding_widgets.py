"""Widgets of chapter 3: the temperature of figure 5 and the cell picker of figure 3."""

from __future__ import annotations

import ipywidgets
import numpy as np
import pytest

from tokenpath import examples as ex
from tokenpath.lessons import embedding as LE
from tokenpath import widgets
from tokenpath.figures import style

from _widget_fixtures import built, full_draw, static, widget_fixture


tau = widget_fixture("temperature_sampling")
picker = widget_fixture("lookup_cell")


def test_both_widgets_are_registered_sliders():
    assert {"temperature_sampling", "lookup_cell"} <= set(widgets.SLIDERS)


def test_defaults_are_the_static_figures():
    # (matches_static_figure() makes the same comparison)
    t, p = built("temperature_sampling"), built("lookup_cell")
    assert t.value == ex.FIG5_TEMPERATURE and t.png() == static(5)
    assert p.value == ex.FIG3_CELL and p.trace.cell == ex.FIG3_CELL and p.png() == static(3)


def test_greedy_temperature_png_equals_a_full_draw(tau):
    tau.update(0.0)  # one bar empty, the other full
    assert tau.png() == full_draw(tau)


def test_temperature_moves_the_probabilities_and_the_draws(tau):
    tau.update(0.5)
    a = tau.artists
    expected = LE.sampling_trace(ex.FIG5_GAP, 0.5)
    np.testing.assert_array_equal([b.get_height() for b in a["sample.probs.bars"]], expected.probs)
    assert [b.get_height() for b in a["sample.counts.bars"]] == expected.counts.tolist()
    assert a["sample.probs.title"].get_text() == "softmax(logits / τ) at τ = 0.5"
    # the three top panels do not move
    np.testing.assert_allclose([b.get_height() for b in a["gap.bars"]], [0.75, 0.25])
    tau.update(ex.FIG5_TEMPERATURE)


def test_temperature_zero_is_greedy_every_draw_on_id_0(tau):
    tau.update(0.0)
    assert tau.trace.counts.tolist() == [1000, 0]
    assert "τ = 0 (greedy)" in tau.describe()
    tau.update(ex.FIG5_TEMPERATURE)


def test_the_greedy_state_keeps_every_text_inside_the_figure(tau):
    tau.update(0.0)
    tau.png()
    assert tau.artists["sample.probs.title"].get_text() == "softmax(logits / τ) as τ → 0"
    assert style.texts_past_edge(tau.figure, tau.figure.canvas.get_renderer()) == []
    tau.update(ex.FIG5_TEMPERATURE)


def test_higher_temperature_flattens_the_distribution(tau):
    shares = []
    for t in (0.25, 1.0, 3.0):
        tau.update(t)
        shares.append(tau.trace.probs[0])
    assert shares[0] > shares[1] > shares[2] > 0.5
    tau.update(ex.FIG5_TEMPERATURE)


def test_describe_states_the_engine_numbers(tau, picker):
    assert tau.describe() == (
        "At τ = 1 the logits [log 3, 0] give the probabilities [0.75, 0.25]; 1,000 seeded draws "
        "picked ID 0 752 times and ID 1 248 times. The drawn ID goes back into the lookup as the next input."
    )
    assert picker.describe().startswith("s[0,2] = 3, so X[0,2,:] = E[3,:]")


def test_picker_shows_row_and_entry_of_the_chosen_cell(picker):
    picker.update((1, 3, 5))
    e = LE.teaching_embedding()
    assert picker.trace.row_id == 7 and picker.trace.value == e[7, 5]
    caption = picker.artists["focus.caption"].get_text()
    assert caption.startswith("s[1,3] = 7 → X[1,3,:] = E[7,:]")
    picker.update(ex.FIG3_CELL)


def test_picker_control_is_three_sliders_acting_as_one(picker):
    control = picker.slider
    assert isinstance(control, widgets.Controls) and isinstance(control, ipywidgets.ValueWidget)
    b, t, f = picker.sliders
    b.value = 1  # a reader's drag of b
    assert picker.trace.cell == (1, 2, 0) and control.value == (1, 2, 0)
    picker.update(t=3, f=6)  # from code: the sliders follow
    assert [s.value for s in (b, t, f)] == [1, 3, 6] and picker.trace.cell == (1, 3, 6)
    picker.update(ex.FIG3_CELL)
    assert [s.value for s in (b, t, f)] == list(ex.FIG3_CELL)
    assert [(s.min, s.max) for s in (b, t, f)] == [(0, ex.B - 1), (0, ex.T - 1), (0, ex.D_MODEL - 1)]


@pytest.mark.parametrize("value, error, match", [
    (-0.1, ValueError, "temperature must be between 0 and 3"),
    (3.5, ValueError, "temperature must be between"),
    ("1", TypeError, "temperature must be a real number"),
    (float("nan"), ValueError, "temperature must be finite"),
])
def test_temperature_refuses_bad_values_by_name(tau, value, error, match):
    with pytest.raises(error, match=match):
        tau.update(value)
    with pytest.raises(error, match=match):
        widgets.temperature_sampling(value)


@pytest.mark.parametrize("value, error, match", [
    ((2, 0, 0), ValueError, "b must be between 0 and 1"),
    ((0, 4, 0), ValueError, "t must be between 0 and 3"),
    ((0, 0, 8), ValueError, "f must be between 0 and 7"),
    ((0, 0), TypeError, r"must be \(b, t, f\)"),
    ((0, 0.5, 0), TypeError, "t must be an integer"),
    (64, TypeError, r"must be \(b, t, f\)"),
    ("0", TypeError, r"must be \(b, t, f\)"),
])
def test_picker_refuses_bad_cells_by_name(picker, value, error, match):
    with pytest.raises(error, match=match):
        picker.update(value)
