"""The two widgets of figure 17: the entries of x (RMSNorm beside LayerNorm) and the
gate pre-activation of one SwiGLU feature."""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import examples as ex
from tokenpath import norms

from _widget_fixtures import built, full_draw, static, widget_fixture


x_widget = widget_fixture("rms_features")
a_widget = widget_fixture("gate_pre_activation")
rms, gate = x_widget, a_widget


def test_defaults_are_the_static_figure_17():
    assert built("rms_features").value == (3.0, 4.0) and built("gate_pre_activation").value == 1.0
    assert built("rms_features").png() == built("gate_pre_activation").png() == static(17)


def test_rms_png_equals_a_full_savefig_at_the_origin(x_widget):
    x_widget.update((0.0, 0.0))  # both norms undefined: the ledger's other wording
    assert x_widget.png() == full_draw(x_widget)


def test_scaling_x_leaves_rmsnorm_unchanged_while_layernorm_removes_the_mean(x_widget):
    x_widget.update((1.5, 2.0))  # x / 2
    np.testing.assert_allclose(x_widget.trace.rms.output, norms.rms_norm(ex.FIG17_X), rtol=1e-15)
    assert "RMSNorm ≈ [0.8485, 1.1314]" in x_widget.describe()
    assert "gives the same RMSNorm output: True" in x_widget.describe()
    x_widget.sliders[0].value = 4.5  # x = [4.5, 2]: the mean moves, LayerNorm flips
    assert x_widget.value == (4.5, 2.0)
    assert x_widget.trace.layer.output.tolist() == [1.0, -1.0]


def test_undefined_norms_are_described_not_raised(x_widget):
    x_widget.update((2.0, 2.0))
    assert "LayerNorm is undefined" in x_widget.describe()
    x_widget.update((0.0, 0.0))
    assert "RMSNorm is undefined" in x_widget.describe()


def test_gate_widget_follows_silu(a_widget):
    a_widget.slider.value = -1.0
    t = norms.gate_trace(-1.0, ex.FIG17_CONTENT)
    assert a_widget.trace.product == t.product
    assert "≈ −0.538" in a_widget.describe()
    np.testing.assert_allclose(a_widget.artists["b.point"].get_xydata()[0], [-1.0, float(t.silu)])


@pytest.mark.parametrize("bad, error", [((6.0, 1.0), ValueError), ((1.0, float("nan")), ValueError),
                                        ([1.0], TypeError), (("3", 4.0), TypeError)])
def test_rms_bad_values_are_refused_by_name(rms, bad, error):
    with pytest.raises(error, match="x0|x1"):
        rms.update(bad)
    assert rms.value == (3.0, 4.0)


@pytest.mark.parametrize("bad, error", [(7.0, ValueError), ("1", TypeError), (None, TypeError)])
def test_gate_bad_values_are_refused_by_name(gate, bad, error):
    with pytest.raises(error, match=r"\ba\b"):
        gate.update(bad)
    assert gate.value == 1.0
