"""Figure 15 and the sinusoidal heat map draw the engine's numbers."""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import examples as ex
from tokenpath import figures
from tokenpath import position as P
from tokenpath.lessons import position as LP
from tokenpath.figures import position as FP
from tokenpath.figures import style

from test_figures import rendered  # the session's one render of each figure


@pytest.fixture(scope="module")
def fig15():
    return rendered(15).drawn


def _ends(arrow) -> np.ndarray:
    return np.array(arrow._posA_posB, dtype=float)


def test_fig15_discs_read_0_90_180_degrees_and_dots_1_0_minus1(fig15):
    texts = [fig15.artists[f"a{j}.readout"].get_text() for j in range(3)]
    assert texts == ["0°,  q·k′ = 1", "90° clockwise,  q·k′ = 0", "180° clockwise,  q·k′ = −1"]
    titles = [fig15.artists[f"a{j}.readout"].axes.get_title() for j in range(3)]
    assert titles == ["m − n = 0", "m − n = 1", "m − n = 2"]


def test_fig15_arrows_are_q_and_the_turned_key_of_the_trace(fig15):
    trace = LP.fig15_trace()
    for j, disc in enumerate(trace.discs):
        np.testing.assert_allclose(_ends(fig15.artists[f"a{j}.query"]), [[0, 0], ex.FIG15_Q])
        np.testing.assert_allclose(_ends(fig15.artists[f"a{j}.key"]), [[0, 0], disc.turned_key])
        # the dotted drop ends on q's axis at the score
        np.testing.assert_allclose(fig15.artists[f"a{j}.foot"].get_xdata(), [disc.dot])


def test_fig15_panel_b_and_c_read_their_traces(fig15):
    assert fig15.artists["b.disc.readout"].get_text() == "m − n = 2, ω = π/2\n180° clockwise,  q·k′ = −1"
    assert fig15.artists["c.disc.readout"].get_text() == "pair 16: θ = 0.01, m − n = 3\n1.7° clockwise,  q·k′ = 0.9996"
    live = LP.fig15_trace().live
    np.testing.assert_array_equal(fig15.artists["b.curve.line"].get_ydata(), live.scores)
    np.testing.assert_array_equal(fig15.artists["c.freq.all"].get_ydata(), P.rope_frequencies(64, 10000.0))
    assert fig15.artists["c.freq.label"].get_text() == "base = 10000"


def test_fig15_alt_text_names_every_number(fig15):
    for phrase in ("0°; q·k′ = 1", "90° clockwise; q·k′ = 0", "180° clockwise; q·k′ = −1", "ω = π/2", "0.01 rad per position",
                   "0.9996"):
        assert phrase in fig15.alt


def test_omega_text_writes_simple_multiples_of_pi_and_otherwise_radians():
    assert FP.omega_text(np.pi / 2) == "π/2"
    assert FP.omega_text(2 * np.pi / 3) == "2π/3"
    assert FP.omega_text(1.0) == "1"
    assert FP.omega_text(0.0001) == "0.0001"


def test_sinusoidal_heatmap_shows_the_engine_encoding_without_a_figure_number():
    d = FP.sinusoidal_heatmap()
    np.testing.assert_array_equal(
        d.drawn.artists["image"].get_array(), P.sinusoidal(np.arange(ex.SINUSOID_POSITIONS), ex.SINUSOID_D_MODEL)
    )
    html = d._repr_mimebundle_()["text/html"]
    assert "<figcaption>Sinusoidal position encoding</figcaption>" in html and "Figure 0" not in html


def test_draw_helpers_check_their_traces():
    fig = style.new_figure()
    ax = fig.subplots()
    with pytest.raises(TypeError, match="disc must be a lessons.position.Disc"):
        FP.draw_disc(ax, LP.fig15_trace().live)
    with pytest.raises(TypeError, match="trace must be a lessons.position.DistanceTrace"):
        FP.draw_curve(ax, LP.fig15_trace().pair)
    with pytest.raises(TypeError, match="trace must be a lessons.position.PairTrace"):
        FP.draw_frequencies(ax, LP.fig15_trace().live)
    with pytest.raises(ValueError, match=r"encoding must be \[T, d_model\]"):
        FP.draw_sinusoidal(ax, np.ones(3))
    style.close(fig)
