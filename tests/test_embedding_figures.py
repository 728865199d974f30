"""Figures 3–6 draw the engine's numbers: each check recomputes with the engine and
compares with what the figure shows."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.text import Text

from tokenpath import embedding as em
from tokenpath import examples as ex
from tokenpath.lessons import embedding as LE
from tokenpath import figures, fmt
from tokenpath.figures import embedding as fe
from tokenpath.figures import embedding_head as fh
from tokenpath.figures import style

from test_figures import rendered  # the session's one render of each figure


@pytest.fixture(scope="module")
def drawn():
    # figure 3 fresh, since a test here moves its highlights; the others read only
    out = {3: figures.render(3)} | {n: rendered(n).drawn for n in (4, 5, 6)}
    yield out
    style.close(out[3].figure)


def _texts(d) -> list[str]:
    return [t.get_text() for t in d.figure.findobj(Text) if t.get_text()]


def test_fig03_follows_s02_row_3_and_entry_0_2(drawn):
    a = drawn[3].artists
    assert a["focus.caption"].get_text() == "s[0,2] = 3 → X[0,2,:] = E[3,:],  X[0,2,0] = E[3,0] = 0.2"
    assert "0.2" in drawn[3].alt and "E[3,:] = [0.2, −0.1, 0.4, 0," in drawn[3].alt


def test_fig03_draws_every_shown_entry_of_e_and_x_from_the_engine(drawn):
    texts = _texts(drawn[3])
    e = LE.teaching_embedding()
    x = em.lookup(e, LE.batch_ids())
    # every drawn number of E's rows 0–9 and 999 and of X, in order of drawing
    expected = [fe._e(v) for v in np.concatenate([e[: ex.FIG3_ROWS_SHOWN].ravel(), e[-1], x.ravel()])]
    cells = [t for t in texts if t.replace(fmt.MINUS, "-").replace(".", "").lstrip("-").isdigit() and "." in t]
    assert cells == expected


def test_fig03_marks_positions_holding_the_followed_id(drawn):
    a = drawn[3].artists
    marked = sorted(k for k, v in a.items() if k.startswith("X.same[") and v.get_visible())
    assert marked == ["X.same[0,0]", "X.same[1,2]"]


def test_fig03_update_moves_the_highlights_to_another_cell_and_back(drawn):
    a = drawn[3].artists
    before = a["focus.caption"].get_text()
    fe.update_lookup(a, LE.lookup_trace((1, 3, 5)))
    assert a["focus.caption"].get_text().startswith("s[1,3] = 7 → X[1,3,:] = E[7,:]")
    marked = sorted(k for k, v in a.items() if k.startswith("X.same[") and v.get_visible())
    assert marked == ["X.same[0,1]", "X.same[1,0]"]
    fe.update_lookup(a, drawn[3].trace)
    assert a["focus.caption"].get_text() == before


def test_fig04_shape_labels_come_from_the_layer_trace(drawn):
    a = drawn[4].artists
    sh = LE.layer_trace().shapes()
    assert a["shape.X"].get_text() == "X [2, 4, 8]"
    assert a["shape.Y"].get_text() == "Y [2, 4, 8]"
    assert a["shape.Xp"].get_text() == "X′ [2, 4, 8]"
    assert a["shape.swiglu"].get_text() == f"FFN hidden {fe._shape(sh['ffn_hidden'])}"
    assert "X, Y and X′ all have shape [2, 4, 8]" in drawn[4].alt
    assert "RoPE on Q and K only" in drawn[4].alt


def test_fig05_bars_are_the_engine_probabilities(drawn):
    a = drawn[5].artists
    panels = LE.logit_panels()
    for name in ("equal", "gap", "shifted"):
        heights = [b.get_height() for b in a[f"{name}.bars"]]
        np.testing.assert_array_equal(heights, getattr(panels, name).probs)
    assert [t.get_text() for t in a["equal.labels"]] == ["0.50", "0.50"]
    assert [t.get_text() for t in a["gap.labels"]] == ["0.75", "0.25"]
    assert [t.get_text() for t in a["shifted.labels"]] == ["0.75", "0.25"]
    assert a["shifted.logits"].get_text() == "logits [100 + log 3, 100]"


def test_fig05_draw_counts_are_the_seeded_samples(drawn):
    a = drawn[5].artists
    tr = LE.sampling_trace(ex.FIG5_GAP, 1.0)
    assert [b.get_height() for b in a["sample.counts.bars"]] == tr.counts.tolist()
    assert a["sample.counts.title"].get_text() == "1,000 seeded draws"
    assert fh.describe_sampling(tr) in drawn[5].alt


def test_fig06_bars_are_the_gradient_norms_per_path(drawn):
    a = drawn[6].artists
    g = LE.tied_gradient()
    n = ex.FIG6_ROWS_SHOWN
    out = [b.get_height() for b in a["output"]]
    np.testing.assert_array_equal(out, g.norms_output[:n])
    inp = np.array([b.get_height() for b in a["input"]])
    np.testing.assert_array_equal(np.flatnonzero(np.isfinite(inp)), [2, 3, 7])
    assert "only to rows 2, 3, 7 (3 of 1,000)" in drawn[6].alt
    assert "1,000 of 1,000 rows" in drawn[6].alt


def test_figure_helpers_reject_wrong_traces(drawn):
    with pytest.raises(TypeError, match="trace must be a LookupTrace"):
        fe.update_lookup(drawn[3].artists, LE.tied_gradient())
    with pytest.raises(TypeError, match="trace must be a SamplingTrace"):
        fh.describe_sampling(LE.lookup_trace())
    with pytest.raises(TypeError, match="trace must be a LayerTrace"):
        fe.draw_layer(drawn[4].figure.axes[0], LE.lookup_trace())
