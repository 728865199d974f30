"""The merge-step slider (figure 1's training panel) and the token text box.

Each widget's default state is its static counterpart (figure 1's top rows, pixel for
pixel; the chapter's printout of the demo text), moves with its control, describes
its state with the engine's numbers, and refuses bad values by name.
"""

from __future__ import annotations

import pytest

from tokenpath import widgets
from tokenpath import examples as ex
from tokenpath.figures import bpe as F
from tokenpath.figures import style
from tokenpath.lessons import bpe as lesson1
from tokenpath.lessons import utf8 as lesson2

from _widget_fixtures import widget_fixture


steps = widget_fixture("merge_steps")


def test_merge_steps_is_registered_as_a_slider():
    assert widgets.SLIDERS["merge_steps"] is widgets.merge_steps


def test_merge_steps_default_is_the_static_figure_top_panel(steps):
    assert steps.value == 0
    assert steps.matches_static_figure()


def test_merge_steps_moves_segmentation_counts_and_next_merge(steps):
    try:
        for k in range(ex.FIG1_MERGES + 1):
            steps.update(k)
            state = lesson1.merge_replay(k)
            assert steps.trace == state
            for w, symbols in state.segmentation.items():
                assert steps.artists[f"seg[{w}]"].get_text() == " ".join(symbols)
            assert steps.artists["pair[0]"].get_text().startswith(F.pair_row_text(state.rows[0]))
            assert steps.describe() == F.describe_replay(state)
            assert steps.matches_static_figure() == (k == 0)
        assert steps.artists["seg[lower]"].get_text() == "lo wer"
    finally:
        steps.update(0)
    assert steps.matches_static_figure()


def test_merge_steps_partial_render_equals_a_fresh_top_panel(steps):
    try:
        steps.update(2)
        fresh = F.fig01_top(2)
        from tokenpath.widgets.render import Renderer

        assert steps.png() == Renderer(fresh.figure, [([], "figure")]).png()  # drawn in full
        style.close(fresh.figure)
    finally:
        steps.update(0)


@pytest.mark.parametrize("bad, error", [(-1, ValueError), (ex.FIG1_MERGES + 1, ValueError),
                                        (1.5, TypeError), ("2", TypeError), (True, TypeError)])
def test_merge_steps_refuses_bad_steps_by_name(steps, bad, error):
    with pytest.raises(error, match="step"):
        steps.update(bad)


def test_token_box_default_matches_the_printout_and_shows_chips():
    box = widgets.token_box()
    chips = lesson2.token_chips(ex.DEMO_TEXT)
    assert box.matches_static_printout()
    assert box.describe().splitlines()[1:] == lesson2.chips_text(chips).splitlines()
    assert box.view.value.count('class="tp-chip"') == len(chips)
    assert "猫" in box.view.value and "E7 8C AB" in box.view.value


def test_token_box_updates_as_the_reader_types():
    box = widgets.token_box()
    box.input.value = "大语言模型 🙂 <|assistant|>"
    assert not box.matches_static_printout()
    ids = [c.token_id for c in box.chips]
    assert ids == lesson1.demo_tokenizer().encode(box.input.value, disallowed_special=())
    assert lesson1.demo_tokenizer().special_tokens["<|assistant|>"] not in ids
    assert "<|" not in box.view.value and "&lt;" in box.view.value  # escaped, shown as text
    assert box.summary.value.startswith(f"{len(box.input.value)} characters")
    box.update(ex.DEMO_TEXT)
    assert box.matches_static_printout()


def test_token_box_refuses_text_that_has_no_utf8():
    box = widgets.token_box()
    with pytest.raises(ValueError, match="lone surrogate"):
        box.update("a\ud800")
    with pytest.raises(TypeError, match="text"):
        box.update(3)


@pytest.mark.parametrize("text", [5, None, b"cat", ["cat"]])
def test_token_box_names_its_argument_when_built_with_a_text_that_is_not_a_str(text):
    with pytest.raises(TypeError, match=r"^text must be a str, got "):
        widgets.token_box(text)
