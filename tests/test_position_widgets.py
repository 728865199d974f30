"""Widgets of figure 15: two sliders per panel, default = the static figure, the
panel's own artists moved in place, engine numbers in the description, bad values
refused by name."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tokenpath import examples as ex
from tokenpath import figures, widgets
from tokenpath import position as P
from tokenpath.figures import position as FP
from tokenpath.figures import style


@pytest.fixture(scope="module")
def static():
    drawn = figures.render(15)
    yield drawn.png(dpi=style.SCREEN_DPI)
    style.close(drawn.figure)


@pytest.fixture(scope="module")
def distance_widget():
    w = widgets.rope_distance()
    yield w
    style.close(w.figure)


@pytest.fixture(scope="module")
def pair_widget():
    w = widgets.rope_pair()
    yield w
    style.close(w.figure)


@pytest.fixture
def dist(distance_widget):
    yield distance_widget
    distance_widget.update_other(ex.FIG15_OMEGA)
    distance_widget.update(ex.FIG15_DISTANCE)


@pytest.fixture
def pair(pair_widget):
    yield pair_widget
    pair_widget.update_other(math.log10(ex.FIG15_BASE))
    pair_widget.update(ex.FIG15_PAIR)


def test_default_states_are_static_figure_15(distance_widget, pair_widget, static):
    assert (distance_widget.value, distance_widget.other_value) == (2, math.pi / 2)
    assert (pair_widget.value, pair_widget.other_value) == (16, 4.0)
    assert distance_widget.png() == static
    assert pair_widget.png() == static


def test_every_slider_is_registered_for_the_latency_benchmark():
    for name in ("rope_distance", "rope_frequency", "rope_pair", "rope_base"):
        assert widgets.SLIDERS[name] is getattr(widgets, name)


def test_both_sliders_give_a_full_savefig_and_return_to_the_static_figure(dist, pair, static):
    dist.update(5)
    dist.update_other(3 * math.pi / 16)
    assert dist.png() == style.png_bytes(dist.figure, style.SCREEN_DPI)
    pair.update(3)
    pair.update_other(5.5)
    assert pair.png() == style.png_bytes(pair.figure, style.SCREEN_DPI)
    dist.update_other(ex.FIG15_OMEGA)
    dist.update(ex.FIG15_DISTANCE)
    assert dist.png() == static


def test_distance_and_omega_move_the_disc_and_the_curve_in_place(dist):
    b = FP.panel_artists(dist.artists, "b")
    key = b["disc.key"]
    dist.update(3)
    dist.update_other(math.pi / 4)
    expected = P.distance_trace(3, math.pi / 4)
    assert FP.panel_artists(dist.artists, "b")["disc.key"] is key
    np.testing.assert_allclose(np.array(key._posA_posB)[1], expected.disc.turned_key, atol=1e-12)
    np.testing.assert_allclose(b["curve.line"].get_ydata(), expected.scores)
    assert b["disc.readout"].get_text() == "n − m = 3, ω = π/4\n135°,  q·k′ = −0.7071"
    assert dist.describe() == FP.describe_distance(expected)
    assert "repeats every 8 positions" in dist.describe()
    # panel (a) does not move
    assert dist.artists["a2.readout"].get_text() == "180°,  q·k′ = −1"


def test_pair_and_base_move_panel_c(pair):
    pair.update(0)
    assert pair.trace.disc.omega == 1.0
    pair.update_other(6.0)
    pair.update(16)
    c = FP.panel_artists(pair.artists, "c")
    assert c["freq.label"].get_text() == "base = 1000000"
    np.testing.assert_allclose(c["freq.all"].get_ydata(), P.rope_frequencies(64, 1e6))
    assert pair.trace.disc.omega == pytest.approx(0.001)
    assert "Pair 16 of a 64-wide head with base 1000000" in pair.describe()


def test_slider_wiring_moves_both_quantities(dist):
    dist.slider.value = 1
    assert dist.value == 1 and round(dist.trace.disc.degrees) == 90
    dist.other.value = math.pi
    assert dist.other_value == math.pi and round(dist.trace.disc.dot, 12) == -1.0


def test_frequency_first_widget_steps_omega_with_distance_held():
    w = widgets.rope_frequency(math.pi / 4, 4)
    try:
        assert (w.name, w.value, w.other_name, w.other_value) == ("omega", math.pi / 4, "distance", 4)
        assert w.slider.description == "ω" and w.other.description == "n − m"
        assert round(w.trace.disc.degrees) == 180
    finally:
        style.close(w.figure)


@pytest.mark.parametrize("value, error, match", [
    (17, ValueError, "distance must be between 0 and 16"),
    (-1, ValueError, "distance must be between 0 and 16"),
    (2.5, TypeError, "distance must be an integer"),
])
def test_bad_distances_are_refused_by_name(dist, value, error, match):
    with pytest.raises(error, match=match):
        dist.update(value)
    assert dist.value == ex.FIG15_DISTANCE


@pytest.mark.parametrize("value, error, match", [
    (4.0, ValueError, "omega must be between 0 and 3.14159"),
    (float("nan"), ValueError, "omega must be finite"),
    ("π/2", TypeError, "omega must be a real number"),
])
def test_bad_omegas_are_refused_by_name(dist, value, error, match):
    with pytest.raises(error, match=match):
        dist.update_other(value)
    assert dist.other_value == ex.FIG15_OMEGA


def test_bad_pair_and_base_are_refused_by_name(pair):
    with pytest.raises(ValueError, match="index must be between 0 and 31"):
        pair.update(32)
    with pytest.raises(ValueError, match="log_base must be between 2 and 6"):
        pair.update_other(7.0)
    assert (pair.value, pair.other_value) == (16, 4.0)
