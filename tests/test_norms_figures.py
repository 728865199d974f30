"""Figures 17 and 18 draw the engine's RMSNorm, LayerNorm, gate and residual traces."""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import examples as ex
from tokenpath import figures, norms
from tokenpath.figures import norms as N
from tokenpath.figures import style
from tokenpath.figures.draw import panel_artists

from test_figures import rendered  # the session's one render of each figure


@pytest.fixture(scope="module")
def fig17():
    return rendered(17).drawn


def _ledger(artists):
    return [a.get_text() for k, a in sorted(artists.items()) if k.startswith("ledger[")]


def test_fig17_rmsnorm_panel_states_the_engine_numbers(fig17):
    a = panel_artists(fig17.artists, "a")
    t = norms.rms_norm_trace(ex.FIG17_X, ex.FIG17_WEIGHT, eps=ex.FIG17_EPS)
    lines = _ledger(a)
    assert "x = [3, 4]: mean square (3² + 4²)/2 = 12.5" in lines
    assert "RMS = √12.5 = 3.5355" in lines
    assert "RMSNorm = x / RMS ≈ [0.8485, 1.1314]" in lines
    assert "LayerNorm = (x − 3.5) / 0.5 = [−1, 1]" in lines
    np.testing.assert_allclose(a["arrow.rms"]._posA_posB[1], t.output)
    np.testing.assert_allclose(a["arrow.ln"]._posA_posB[1], norms.layer_norm(ex.FIG17_X))
    np.testing.assert_allclose(a["circle"].get_radius(), np.sqrt(ex.FIG17_X.size))
    # the RMSNorm output lies on the circle of root-mean-square 1
    assert np.isclose(np.linalg.norm(t.output), a["circle"].get_radius())


def test_fig17_gate_panel_states_one_sigma_one_times_two(fig17):
    b = panel_artists(fig17.artists, "b")
    assert "SiLU(a)·c = 1·σ(1)·2 ≈ 1.462" in _ledger(b)
    g = norms.gate_trace(ex.FIG17_GATE_PRE, ex.FIG17_CONTENT)
    np.testing.assert_allclose(b["point"].get_xydata()[0], [1.0, float(g.silu)])
    assert "1·σ(1)·2 ≈ 1.462" in fig17.alt and "[0.8485, 1.1314]" in fig17.alt


def test_fig17_update_shows_undefined_norms_instead_of_failing():
    drawn = figures.render(17)
    a = panel_artists(drawn.artists, "a")
    N.update_norms(a, norms.compare_norms([2.0, 2.0]))
    assert not a["arrow.ln"].get_visible() and a["arrow.rms"].get_visible()
    assert "LayerNorm: undefined (variance 0, ε = 0)" in _ledger(a)
    N.update_norms(a, norms.compare_norms([0.0, 0.0]))
    assert not a["arrow.rms"].get_visible()
    with pytest.raises(TypeError, match="trace"):
        N.update_norms(a, [3.0, 4.0])
    with pytest.raises(TypeError, match="trace"):
        N.update_gate(panel_artists(drawn.artists, "b"), norms.gate_trace([1.0, 2.0], [1.0, 1.0]))
    style.close(drawn.figure)


def test_fig18_adds_feature_by_feature():
    drawn = figures.render(18)
    t = norms.residual_trace(ex.FIG18_STREAM, ex.FIG18_UPDATE)
    assert [drawn.artists[f"out[{f}]"].get_text() for f in range(2)] == ["1.5", "1"]
    assert drawn.artists["sum[1]"].get_text() == "feature 1: 2 + (−1) = 1"
    assert "[1, 2] + [0.5, −1] = [1.5, 1]" in drawn.alt
    np.testing.assert_array_equal(drawn.trace.output, t.output)
    style.close(drawn.figure)
