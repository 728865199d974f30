"""Section 11.5: the trained model's next-token distribution after a prompt
(tokenpath.trained: greedy_steps, next_token), figure 25 and its prompt/step/temperature
widget. The model is loaded once per process and each prompt run forward once
(tokenpath.trained caches both)."""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import examples as ex
from tokenpath import trained as T
from tokenpath.embedding import next_token_probs
from tokenpath.figures import style
from tokenpath.figures import trained_sampling as F

from _widget_fixtures import built, full_draw, static, widget_fixture

next_widget = widget_fixture("next_token")
DEFAULT = (0, 0, ex.TRAINED_TEMPERATURE)


@pytest.fixture(scope="module")
def default():
    return T.next_token()


# ------------------------------------------------------------------ engine


def test_greedy_steps_are_the_recorded_greedy_tokens_of_every_prompt():
    recorded = T.read_samples()["completions"]
    for p in range(len(ex.TRAINED_PROMPTS)):
        assert T.greedy_steps(p) == tuple(recorded[p]["greedy_ids"][: ex.TRAINED_NEXT_STEPS])


def test_each_step_reads_the_prompt_and_the_greedy_tokens_before_it_and_picks_the_next():
    model = T.committed_model()
    prompt = [int(i) for i in model.encode(ex.TRAINED_PROMPTS[2])]
    greedy = T.greedy_steps(2)
    for step in (0, 3, ex.TRAINED_NEXT_STEPS):
        t = T.next_token(2, step, 1.0)
        assert t.ids.tolist() == prompt + list(greedy[:step]) and len(t.pieces) == len(t.ids)
        assert t.prompt_tokens == len(prompt) and "".join(t.pieces).startswith(ex.TRAINED_PROMPTS[2])
        if step < ex.TRAINED_NEXT_STEPS:
            assert t.greedy == greedy[step]


def test_the_cached_rows_are_the_logits_of_a_pass_over_the_prefix_alone():
    t = T.next_token(0, 3, 1.0)
    direct = T.committed_model().logits(t.ids)[-1]
    np.testing.assert_allclose(t.logits, direct, rtol=0, atol=1e-9)


def test_probabilities_are_the_books_temperature_softmax_and_the_numbers_follow_from_them(default):
    t = default
    np.testing.assert_array_equal(t.probs, next_token_probs(t.logits, temperature=ex.TRAINED_TEMPERATURE))
    np.testing.assert_array_equal(t.probs_t1, next_token_probs(t.logits))
    assert t.top.size == ex.NEXT_TOP and t.top[0] == np.argmax(t.logits)
    assert np.all(np.diff(t.logits[t.top]) <= 0) and t.logits[t.top[-1]] >= np.sort(t.logits)[-ex.NEXT_TOP]
    assert t.greedy_prob == t.probs.max()
    assert t.entropy == pytest.approx(-(t.probs * np.log(t.probs)).sum())
    assert t.outside == pytest.approx(1 - t.probs[t.top].sum(), abs=1e-12)
    mass = np.sort(t.probs)[::-1].cumsum()
    assert mass[t.cover - 1] >= ex.NEXT_COVER > (mass[t.cover - 2] if t.cover > 1 else 0)
    assert not t.probs.flags.writeable and not t.logits.flags.writeable


def test_a_lower_temperature_sharpens_and_a_higher_one_flattens():
    cold, warm, hot = (T.next_token(0, 1, tau) for tau in (0.5, 1.0, 2.0))
    assert cold.entropy < warm.entropy < hot.entropy < np.log(cold.probs.size)
    assert cold.greedy_prob > warm.greedy_prob > hot.greedy_prob and cold.cover <= warm.cover <= hot.cover
    assert cold.greedy == warm.greedy == hot.greedy and T.next_token(0, 1, 0.0).entropy == 0.0


@pytest.mark.parametrize("kwargs, error, name", [
    (dict(prompt=3), ValueError, "prompt"), (dict(prompt=-1), ValueError, "prompt"),
    (dict(prompt=0.0), TypeError, "prompt"), (dict(step=ex.TRAINED_NEXT_STEPS + 1), ValueError, "step"),
    (dict(step="1"), TypeError, "step"), (dict(temperature=-0.1), ValueError, "temperature"),
    (dict(temperature="hot"), TypeError, "temperature"), (dict(top=0), ValueError, "top"),
    (dict(cover_share=1.5), ValueError, "cover_share")])
def test_next_token_refuses_bad_values_by_name(kwargs, error, name):
    with pytest.raises(error, match=name):
        T.next_token(**kwargs)
    if "prompt" in kwargs:
        with pytest.raises(error, match="prompt"):
            T.greedy_steps(kwargs["prompt"])


# ------------------------------------------------------------------ figure 25


def test_next_token_figure_draws_the_engine_trace_and_its_alt_names_the_numbers(default):
    drawn = built("next_token").drawn
    t, art = drawn.trace, drawn.artists
    assert (t.prompt, t.step, t.temperature) == DEFAULT
    k = ex.NEXT_TOP
    assert [art[f"bar[{r}]"].get_xdata()[1] for r in range(k)] == pytest.approx(t.probs[t.top].tolist())
    assert [art[f"t1[{r}]"].get_xdata()[0] for r in range(k)] == pytest.approx(t.probs_t1[t.top].tolist())
    assert art["value[1]"].get_text() == f"{t.top_probs[1]:.2f}"
    assert art["piece[0]"].get_text() == f"“{F.short(t.top_pieces[0])}”"
    cover = "1 token holds" if t.cover == 1 else f"{t.cover:,} tokens hold"  # no "1 tokens"
    for needle in (f"{t.greedy_prob:.2f}", f"{t.entropy:.2f} nats", cover, f"{t.outside:.2f}",
                   "“def␣__init__(self”"):
        assert needle in drawn.alt
    assert "1 tokens" not in drawn.alt
    assert f"entropy: {t.entropy:.2f} nats" in art["notes.values"].get_text()


def test_short_labels_make_spaces_visible_and_count_long_runs():
    assert F.short("\n" + " " * 12) == "↵␣×12" and F.short("   x") == "␣␣␣x" and F.short("\t") == "⇥"


def test_draw_helpers_check_their_arguments(default):
    from matplotlib.figure import Figure

    ax = Figure().subplots()
    with pytest.raises(TypeError, match="ax must be"):
        F.draw_candidates(None, default)
    with pytest.raises(TypeError, match="trace must be a NextToken"):
        F.draw_candidates(ax, default.probs)


# ------------------------------------------------------------------ widget


def test_widget_default_is_the_static_figure():
    w = built("next_token")
    assert w.value == DEFAULT and w.value._fields == ("prompt", "step", "temperature")
    assert w.png() == static(F.NUMBER)


def test_every_state_visited_is_a_full_draw(next_widget):
    for value in [(0, 1, 0.8), (0, 1, 0.85), (2, 8, 2.0), (2, 8, 1.95), (1, 3, 0.1)]:
        next_widget.update(value)
        assert next_widget.png() == full_draw(next_widget)
        t = next_widget.trace
        assert (t.prompt, t.step, t.temperature) == value
    assert "(prompt 1, step 3) at T = 0.10" in next_widget.describe()


def test_every_prompt_s_longest_context_fits_the_title_and_keeps_its_end(next_widget):
    """After the last greedy step the text read is longest: the title takes at most two
    lines, each inside the figure, and still ends with what the next token follows."""
    for prompt in range(len(ex.TRAINED_PROMPTS)):
        next_widget.update((prompt, ex.TRAINED_NEXT_STEPS, ex.TRAINED_TEMPERATURE))
        next_widget.png()
        title = next_widget.artists["context"].get_text()
        t = next_widget.trace
        end = F.short("".join(t.pieces[-3:]))
        assert title.count("\n") <= 1 and title.endswith(f"{end}”"), title
        assert style.texts_past_edge(next_widget.figure, next_widget.figure.canvas.get_renderer()) == []


@pytest.mark.parametrize("bad, error, name", [((3, 0, 0.8), ValueError, "prompt"),
                                              ((0, 9, 0.8), ValueError, "step"),
                                              ((0, 0, 2.5), ValueError, "temperature"),
                                              ((0, 0, 0.0), ValueError, "temperature"),
                                              ((0, 0.5, 0.8), TypeError, "step"),
                                              (3, TypeError, "prompt, step, temperature")])
def test_bad_slider_values_are_refused_by_name(next_widget, bad, error, name):
    with pytest.raises(error, match=name):
        next_widget.update(bad)
    assert next_widget.value == DEFAULT


def test_constructor_refuses_a_bad_start_by_name():
    from tokenpath import widgets

    with pytest.raises(ValueError, match="step"):
        widgets.next_token(step=9)
    with pytest.raises(ValueError, match="temperature"):
        widgets.next_token(temperature=0.05)
