"""Widgets of chapter 08_rmsnorm_swiglu, both on figure 17: the two entries of x for
RMSNorm (beside LayerNorm), and the gate pre-activation of one SwiGLU feature."""

from __future__ import annotations

import ipywidgets

from .. import examples as ex
from .. import figures, fmt, norms
from ..figures import norms as N
from ..figures.draw import panel_artists
from ..i18n import _
from . import Controls, SliderFigure, real_in, slider

__all__ = ["gate_pre_activation", "rms_features"]

#: Range and step of each entry of x.
X_RANGE, X_STEP = (-5.0, 5.0), 0.5


def describe_rms_features(trace: norms.NormComparison) -> str:
    """Figure 17 (a) in words, plus what scaling x by :data:`~tokenpath.examples.FIG17_SCALE` does.

    >>> print(describe_rms_features(norms.compare_norms([3.0, 4.0])))
    x = [3, 4]: mean square 12.5, RMS 3.5355, RMSNorm ≈ [0.8485, 1.1314] (direction of x kept, mean not removed); LayerNorm subtracts the mean 3.5 and gives [−1, 1]. Scaled by 10, x = [30, 40] gives the same RMSNorm output: True.
    """
    text = N.describe_norms(trace)
    if trace.rms is None:
        return text
    scaled = ex.FIG17_SCALE * trace.x
    same = bool((abs(norms.rms_norm(scaled) - trace.rms.output) < 1e-12).all())
    return text + " " + _("Scaled by {scale}, x = {x} gives the same RMSNorm output: {same}.").format(
        scale=fmt.num(ex.FIG17_SCALE), x=fmt.vec(scaled), same=same)


@slider
def rms_features(x0: float = float(ex.FIG17_X[0]), x1: float = float(ex.FIG17_X[1])) -> SliderFigure:
    """Figure 17 (a) with sliders for the two features of x. Moving x along a ray from
    the origin leaves RMSNorm's output where it is; LayerNorm also removes the mean,
    so in two features it can only give ±[−1, 1]. The default, x = [3, 4], is the
    static figure.

    Each step computes :func:`tokenpath.norms.compare_norms`; half of [3, 4] gives the
    same RMSNorm output:

    >>> c = norms.compare_norms([1.5, 2.0])
    >>> c.rms.output.round(4).tolist(), c.layer.output.tolist()
    ([0.8485, 1.1314], [-1.0, 1.0])
    """
    layout = ipywidgets.Layout(width="22em")
    controls = Controls({
        name: ipywidgets.FloatSlider(value=float(v), min=X_RANGE[0], max=X_RANGE[1], step=X_STEP,
                                     description=label, readout_format=".1f", continuous_update=True,
                                     layout=layout)
        for name, label, v in (("x0", "x₀", ex.FIG17_X[0]), ("x1", "x₁", ex.FIG17_X[1]))
    }, horizontal=True)
    wanted = controls.check((x0, x1))
    drawn = figures.render(17)
    a = panel_artists(drawn.artists, "a")
    widget = SliderFigure(
        drawn,
        name="x",
        slider=controls,
        compute=lambda x: norms.compare_norms(list(x), eps=ex.FIG17_EPS),
        move=lambda trace: N.update_norms(a, trace),
        describe=describe_rms_features,
        moving=[v for k, v in a.items() if k.startswith("arrow.")]
        + [a[f"ledger[{k}]"] for k in N.NORM_MOVING_LINES],
        trace=drawn.trace[0],
    )
    if wanted != widget.value:
        widget.update(wanted)
    return widget


@slider
def gate_pre_activation(a: float = ex.FIG17_GATE_PRE) -> SliderFigure:
    """Figure 17 (b) with a slider for the gate pre-activation a (the content stays
    c = 2): the operating point moves along the SiLU curve and the gated feature
    SiLU(a)·c follows. The default, a = 1, is the static figure.

    Each step computes :func:`tokenpath.norms.gate_trace` with c = 2:

    >>> round(float(norms.gate_trace(-1.0, ex.FIG17_CONTENT).product), 4)
    -0.5379
    """
    check = real_in("a", *ex.FIG17_GATE_RANGE)
    a = check(a)
    drawn = figures.render(17)
    b = panel_artists(drawn.artists, "b")
    control = ipywidgets.FloatSlider(
        value=ex.FIG17_GATE_PRE, min=ex.FIG17_GATE_RANGE[0], max=ex.FIG17_GATE_RANGE[1], step=0.25,
        description="a", readout_format=".2f", continuous_update=True, layout=ipywidgets.Layout(width="28em"),
    )
    widget = SliderFigure(
        drawn,
        name="a",
        slider=control,
        check=check,
        compute=lambda value: norms.gate_trace(value, ex.FIG17_CONTENT),
        move=lambda trace: N.update_gate(b, trace),
        describe=N.describe_gate,
        moving=[b[k] for k in ("drop", "point", "ledger[0]", "ledger[1]", "ledger[3]")],
        trace=drawn.trace[1],
    )
    if a != widget.value:
        widget.update(a)
    return widget
