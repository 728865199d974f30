"""Widgets of figure 15: two sliders per panel acting as one control, default = the
static figure, the panel's own artists moved in place, engine numbers in the
description, bad values refused by name. (Every widget's default state and a state
with every slider moved are compared with the static figure and a full draw in
``tests/test_widgets.py``.)"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tokenpath import examples as ex
from tokenpath import position as P
from tokenpath.lessons import position as LP
from tokenpath import widgets
from tokenpath.figures import position as FP
from tokenpath.figures import style

from _widget_fixtures import built, full_draw, static, widget_fixture

dist = widget_fixture("rope_distance")
pair = widget_fixture("rope_pair")


def test_default_states_are_static_figure_15():
    d, p = built("rope_distance"), built("rope_pair")
    assert d.value == (2, math.pi / 2) and d.value._fields == ("distance", "omega")
    assert p.value == (16, 4.0) and p.value._fields == ("index", "log_base")
    assert d.png() == static(15) and p.png() == static(15)


def test_each_panel_is_registered_once_with_both_sliders_in_its_sweep():
    assert {"rope_distance", "rope_pair"} <= set(widgets.SLIDERS)
    assert not {"rope_frequency", "rope_base"} & set(widgets.SLIDERS)
    sweep = built("rope_distance").sweep(4)
    assert {v.distance for v in sweep} >= {0, ex.FIG15_MAX_DISTANCE}
    assert {v.omega for v in sweep} >= set(FP.OMEGA_RANGE)


def test_distance_and_omega_move_the_disc_and_the_curve_in_place(dist):
    b = FP.panel_artists(dist.artists, "b")
    key = b["disc.key"]
    dist.update(distance=3)
    dist.update(omega=math.pi / 4)
    expected = LP.distance_trace(3, math.pi / 4)
    assert FP.panel_artists(dist.artists, "b")["disc.key"] is key
    np.testing.assert_allclose(np.array(key._posA_posB)[1], expected.disc.turned_key, atol=1e-12)
    np.testing.assert_allclose(b["curve.line"].get_ydata(), expected.scores)
    assert b["disc.readout"].get_text() == "m − n = 3, ω = π/4\n135° clockwise,  q·k′ = −0.7071"
    assert dist.describe() == FP.describe_distance(expected)
    assert "repeats every 8 positions" in dist.describe()
    assert dist.png() == full_draw(dist)
    # panel (a) does not move
    assert dist.artists["a2.readout"].get_text() == "180° clockwise,  q·k′ = −1"


def test_pair_and_base_move_panel_c(pair):
    pair.update(index=0)
    assert pair.trace.disc.omega == 1.0
    pair.update((16, 6.0))
    c = FP.panel_artists(pair.artists, "c")
    assert c["freq.label"].get_text() == "base = 1000000"
    np.testing.assert_allclose(c["freq.all"].get_ydata(), P.rope_frequencies(64, 1e6))
    assert pair.trace.disc.omega == pytest.approx(0.001)
    assert "Pair 16 of a 64-wide head with base 1000000" in pair.describe()


def test_the_longest_pair_readout_stays_inside_the_figure(pair):
    """The slowest pair at the largest base has the longest θ (eight decimals); its
    readout, centred under the disc, must not run past the figure's left edge."""
    pair.update((ex.FIG15_HEAD_DIM // 2 - 1, FP.LOG_BASE_RANGE[1]))
    pair.png()
    readout = FP.panel_artists(pair.artists, "c")["disc.readout"].get_text()
    assert readout.startswith(f"pair {ex.FIG15_HEAD_DIM // 2 - 1}: θ = 0.00000")
    assert style.texts_past_edge(pair.figure, pair.figure.canvas.get_renderer()) == []


def test_slider_wiring_moves_both_quantities(dist):
    distance, omega = dist.sliders
    distance.value = 1
    assert dist.value == (1, ex.FIG15_OMEGA) and round(dist.trace.disc.degrees) == -90  # clockwise: the key is back
    omega.value = math.pi
    assert dist.value.omega == math.pi and round(dist.trace.disc.dot, 12) == -1.0
    dist.update((4, math.pi / 4))  # from code: both sliders follow
    assert (distance.value, omega.value) == (4, math.pi / 4) and round(dist.trace.disc.degrees) == -180
    assert (distance.description, omega.description) == ("m − n", "ω")


@pytest.mark.parametrize("value, error, match", [
    ({"distance": 17}, ValueError, "distance must be between 0 and 16"),
    ({"distance": -1}, ValueError, "distance must be between 0 and 16"),
    ({"distance": 2.5}, TypeError, "distance must be an integer"),
    ({"omega": 4.0}, ValueError, "omega must be between 0 and 3.14159"),
    ({"omega": float("nan")}, ValueError, "omega must be finite"),
    ({"omega": "π/2"}, TypeError, "omega must be a real number"),
    (2, TypeError, r"must be \(distance, omega\)"),
])
def test_bad_distances_and_omegas_are_refused_by_name(dist, value, error, match):
    with pytest.raises(error, match=match):
        dist.update(value)
    assert dist.value == (ex.FIG15_DISTANCE, ex.FIG15_OMEGA)


def test_bad_pair_and_base_are_refused_by_name(pair):
    with pytest.raises(ValueError, match="index must be between 0 and 31"):
        pair.update(index=32)
    with pytest.raises(ValueError, match="log_base must be between 2 and 6"):
        pair.update(log_base=7.0)
    with pytest.raises(ValueError, match="omega must be between"):
        widgets.rope_distance(omega=4.0)  # refused before anything is drawn
    assert pair.value == (16, 4.0)
