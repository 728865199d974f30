"""Chapter 12's widgets on SmolLM2-135M-Instruct: the next-token view with temperature,
top-k and top-p (figure 28's default, every state a full draw, bad values refused by
name), and the typed-line widget on the real model (token IDs, surprisal, top 5, one
head's row; a slider answers within the 50 ms budget from the kept trace; a new text
says it is running; bad input gets the engine's message)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from tokenpath import ownline
from tokenpath.examples import real_model as ex
from tokenpath.figures import real_model as F
from tokenpath.figures import style
from tokenpath.lessons import real_model as R

from _widget_fixtures import built, full_draw, static, widget_fixture

real_next = widget_fixture("real_next_token")
DEFAULT = (0, ex.REAL_TEMPERATURE, 0, 1.0)


@pytest.fixture(autouse=True)
def _needs_the_file(smollm2_file):
    return smollm2_file


def test_widget_default_is_the_static_figure():
    w = built("real_next_token")
    assert w.value == DEFAULT and w.value._fields == ("prompt", "temperature", "top_k", "top_p")
    assert w.png() == static(F.NEXT)


def test_every_state_visited_is_a_full_draw_and_names_its_cuts(real_next):
    for value in [(0, 1.0, 5, 1.0), (1, 0.5, 0, 0.5), (2, 2.0, 10, 0.9), (3, 1.0, 0, 1.0)]:
        real_next.update(value)
        assert real_next.png() == full_draw(real_next)
        t = real_next.trace
        assert (t.prompt, t.temperature, t.top_k or 0, t.top_p) == value
        assert real_next.artists["state"].get_text() == f"prompt {t.prompt}, {t.settings()}"
        assert style.texts_past_edge(real_next.figure, real_next.figure.canvas.get_renderer()) == []
        assert t.settings() in real_next.describe()
        if value[2]:
            assert t.kept <= value[2] and f"top-k {value[2]}," in real_next.describe()


@pytest.mark.parametrize("bad, error, name", [((4, 1.0, 0, 1.0), ValueError, "prompt"),
                                              ((0, 2.5, 0, 1.0), ValueError, "temperature"),
                                              ((0, 1.0, 11, 1.0), ValueError, "top_k"),
                                              ((0, 1.0, 0, 0.0), ValueError, "top_p"),
                                              (3, TypeError, "prompt, temperature, top_k, top_p")])
def test_bad_slider_values_are_refused_by_name(real_next, bad, error, name):
    with pytest.raises(error, match=name):
        real_next.update(bad)
    assert real_next.value == DEFAULT


# ------------------------------------------------------------------ the typed line


@pytest.fixture(scope="module")
def own():
    from tokenpath import widgets

    return widgets.real_own_line()


def test_the_typed_line_runs_the_real_model_and_shows_ids(own):
    m = R.real_model()
    t = own.trace
    assert (t.layers, t.heads) == (m.config.num_hidden_layers, m.config.num_attention_heads)
    assert np.array_equal(t.ids, m.encode(ex.REAL_OWNLINE_DEFAULT))
    html = own.html()
    assert all(f"#{int(i)}" in html for i in t.ids) and '>ID</th>' in html
    assert f"IDs: {[int(i) for i in t.ids]}" in own.describe()
    assert own.hint.value.startswith("One line of text")


def test_a_slider_answers_from_the_kept_trace_within_the_budget(own, monkeypatch):
    own.update("The cat sat on the mat. The cat sat on the")
    calls = []
    real = ownline.line_trace
    monkeypatch.setattr(ownline, "line_trace", lambda *a, **k: calls.append(a) or real(*a, **k))
    best = min(_timed(own, layer=layer, head=head) for layer, head in ((18, 6), (17, 3), (0, 0)))
    assert calls == [] and best < 0.05
    row = own.trace.attention_row(18, 6, own.trace.tokens - 1)
    own.update(layer=18, head=6)
    assert f"{row.max():.3f}" in own.html()


def _timed(w, **kw) -> float:
    t0 = time.perf_counter()
    w.update(**kw)
    return time.perf_counter() - t0


def test_a_new_text_says_it_is_running_before_the_forward_pass(own, monkeypatch):
    seen = []
    real = ownline.line_trace
    monkeypatch.setattr(ownline, "line_trace", lambda *a, **k: seen.append(own.message.value) or real(*a, **k))
    own.update("A new sentence, never typed before.")
    assert seen and "Running the text through 30 layers" in seen[0]
    assert own.message.value == "" and own.error is None


@pytest.mark.parametrize("bad, words", [("", "empty"), ("a\nb", "line break"), ("\ud800", "surrogate"),
                                        ("x" * 2000, "too long"), ("a\x07", "control character")])
def test_bad_text_gets_the_engine_s_message_in_the_widget(own, bad, words):
    own.update(bad)
    assert own.error is not None and words in own.error and own.html() == ""
    assert words in own.message.value or words in own.describe()
    own.update(ex.REAL_OWNLINE_DEFAULT)
    assert own.error is None
