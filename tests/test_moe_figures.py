"""Figures 19–22 draw the engine's numbers: every value checked here is recomputed with
tokenpath.moe and formatted with tokenpath.fmt, never typed by hand."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.text import Text

from tokenpath import attention, figures, fmt, moe, moe_dispatch
from tokenpath import examples as ex
from tokenpath.lessons import moe as lessons_moe
from tokenpath.figures import moe as fm
from tokenpath.figures import moe_batch as fb
from tokenpath.figures import style

from test_figures import rendered  # the session's one render of each figure

M = fmt.MINUS


def _v(v, digits=None):
    return "[" + ", ".join(fmt.num(x, digits, minus=M, bare_ints=True) for x in np.asarray(v, float)) + "]"


@pytest.fixture(scope="module")
def drawn():
    return {n: rendered(n).drawn for n in (19, 20, 21, 22)}


def _text(d, name):
    a = d.artists[name]
    assert isinstance(a, Text)
    return a.get_text()


def test_moe_figures_are_registered():
    figures._load()
    assert {19, 20, 21, 22} <= set(figures.FIGURES)


def test_fig19_paths_and_gates_come_from_the_router(drawn):
    d = drawn[19]
    r = moe.route(ex.FIG20_SCORES, ex.FIG20_K)
    assert f"a = {_v(r.scores)}" == _text(d, "scores")
    for i in range(r.n_experts):
        chosen = bool(r.mask[i])
        assert (f"path.in[{i}]" in d.artists) == chosen == (f"gate[{i}]" in d.artists)
        if chosen:
            assert _text(d, f"gate[{i}]").endswith(fmt.num(r.gates[i], 3))
        else:
            assert "not run" in _text(d, f"expert[{i}].label")
    assert "experts 0, 1" in d.alt and _v(r.scores) in d.alt


def test_fig20_table_shows_scores_gates_outputs_and_the_combination(drawn):
    d = drawn[20]
    r = moe.route(ex.FIG20_SCORES, ex.FIG20_K)
    t = moe.combine(r, ex.FIG20_OUTPUTS)
    for j in range(4):
        assert _text(d, f"score[{j}]") == fmt.num(r.scores[j], minus=M)
        assert _text(d, f"prob[{j}]") == fmt.num(attention.softmax(ex.FIG20_SCORES)[j], 3)
        if r.mask[j]:
            assert _text(d, f"gate[{j}]") == fmt.num(r.gates[j], 3)
            assert _text(d, f"gate.full[{j}]") == fmt.num(r.gates[j], 6)
            assert _text(d, f"out[{j}]") == fmt.vec(ex.FIG20_OUTPUTS[j])
        else:
            assert _text(d, f"gate[{j}]") == "0" and r.gates[j] == 0.0
            assert _text(d, f"out[{j}]") == "not run"
    for j in range(4, fm.E_MAX):
        assert not d.artists[f"score.cell[{j}]"].get_visible()
    rounded = lessons_moe.output_from_rounded_gates(t, ex.FIG20_DIGITS)
    assert _text(d, "out.sum") == "o = 0.731·[1, 3] + 0.269·[5, 1] = " + fmt.vec(rounded, 3)
    assert fmt.vec(rounded, 3) == "[2.076, 2.462]"
    assert fmt.vec(t.output, 6) in _text(d, "out.full")
    for piece in ("[0.731, 0.269, 0, 0]", "[0.731059, 0.268941]", "[2.076, 2.462]", "[2.075766, 2.462117]"):
        assert piece in d.alt


def test_fig21_marks_the_engine_choice_gates_and_gradients(drawn):
    d = drawn[21]
    b = lessons_moe.top1_boundary(ex.FIG21_DELTA, ex.FIG21_OUTPUTS, ex.FIG21_TARGET)
    trace, curves = d.trace
    assert trace.chosen == b.chosen == 0
    assert _text(d, "title") == "δ = 0.5: expert 0 runs"
    assert _text(d, "ledger.runs") == "expert 0 runs"
    assert _text(d, "ledger.in_set") == "g₀ = 1, ∂L/∂a = [0, 0]"
    assert _v(b.full.grad, 3) in _text(d, "ledger.full")
    assert d.artists["dot.full"].get_ydata()[0] == b.gate_full
    assert b.in_set.set_fixed and b.full.set_fixed
    assert _text(d, "ledger.fd") == "agree with both ∂L/∂a above"
    assert np.allclose(b.full.fd_grad, b.full.grad, atol=1e-6) and np.all(b.in_set.fd_grad == 0)
    np.testing.assert_array_equal(curves.gate_in_set, 1.0)
    np.testing.assert_array_equal(curves.chosen, np.where(curves.delta < 0, 1, 0))
    assert "For δ < 0 expert 1 runs, for δ > 0 expert 0 runs" in d.alt


def test_fig22_batch_use_load_and_capacity_come_from_the_engine(drawn):
    d = drawn[22]
    b = moe_dispatch.route_batch(ex.FIG22_SCORES, ex.FIG22_K, capacity=ex.FIG22_CAPACITY)
    for n in range(2):
        for j in range(4):
            on = bool(b.used[n, j])
            assert _text(d, f"token[{n}][{j}]") == (f"g = {fmt.num(b.route.gates[n, j], 3)}" if on else "not run")
    assert [_text(d, f"used[{j}]") for j in range(4)] == ["yes"] * 4
    assert [_text(d, f"load[{j}]") for j in range(4)] == [str(v) for v in b.load]
    assert _text(d, "used.side") == "4 experts used"
    c = moe_dispatch.expert_parameters(ex.MOE_EXPERTS, ex.MOE_EXPERT_PARAMS, ex.MOE_K)
    assert _text(d, "params.stored") == (
        f"stored: {c.n_experts} experts × 100M = 1.6B     run per token: {c.k} × 100M = 200M")
    assert "16 experts × 100M = 1.6B" in d.alt and "2 × 100M = 200M" in d.alt


def test_figure_traces_refuse_bad_arguments():
    with pytest.raises(ValueError, match="n_experts"):
        fm.fig20_trace(7)
    with pytest.raises(ValueError, match="candidate"):
        fb.fig22_trace(3)
    with pytest.raises(TypeError, match="trace"):
        fm.describe_routing("not a trace")
    fig = style.new_figure(2, 2)
    ax = fig.add_axes((0, 0, 1, 1))
    with pytest.raises(ValueError, match="columns"):
        fm.draw_routing_table(ax, fm.fig20_trace(6), columns=4)
    with pytest.raises(ValueError, match="two tokens"):
        fb.draw_batch(ax, moe_dispatch.route_batch(np.zeros((3, 4)), 2))
    style.close(fig)
