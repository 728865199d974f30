"""Figures 1 and 2 draw the engine's numbers (tokenpath.bpe), not typed ones.

The generic checks (builds, byte-identical reruns, committed files, glyphs) run for
every figure in test_figures.py; here each number of figures 1–2 in
spec/figures.md is found in the drawn text or the alt text, computed independently
with the engine.
"""

from __future__ import annotations

import pytest
from matplotlib.text import Text

from tokenpath import figures
from tokenpath import examples as ex
from tokenpath.figures import bpe as F
from tokenpath.figures import style
from tokenpath.figures._fonts import missing_glyphs
from tokenpath.lessons import bpe as lesson1
from tokenpath.lessons import utf8 as lesson2
from tokenpath.figures.draw import new_canvas

from test_figures import rendered  # the session's one render of each figure


def _render(number):
    r = rendered(number)
    return r.drawn, r.texts


@pytest.fixture(scope="module")
def fig1():
    return _render(1)


@pytest.fixture(scope="module")
def fig2():
    return _render(2)


def test_fig01_top_shows_er_8_we_8_lo_7_ow_7_and_the_tie_to_er(fig1):
    drawn, texts = fig1
    first = lesson1.teach_merges(ex.FIG1_TABLE, 1).steps[0]
    for pair in [("e", "r"), ("w", "e"), ("l", "o"), ("o", "w")]:
        assert f"{' '.join(pair)} = {first.counts[pair]}" in drawn.alt
    rows = [drawn.artists[f"pair[{r}]"].get_text() for r in range(F.PAIR_ROWS)]
    state = lesson1.merge_replay(0)
    assert all(drawn.startswith(F.pair_row_text(r)) for drawn, r in zip(rows, state.rows))
    assert [r.split("=")[1].split()[0] for r in rows[:4]] == ["8", "8", "7", "7"]
    assert rows[0].endswith("◀ merge") and rows[1].endswith("◀ tie")
    assert [" ".join(r.split()[:2]) for r in rows[:4]] == ["e r", "w e", "l o", "o w"]
    assert "tie at 8: the smallest pair, e r, goes first" in texts


def test_fig01_top_merge_order_and_lower_as_lo_wer(fig1):
    drawn, texts = fig1
    merges = lesson1.teach_merges(ex.FIG1_TABLE, ex.FIG1_MERGES).merges
    assert [drawn.artists[f"merge[{k}]"].get_text().split("→")[0].split(".")[1].strip() for k in range(3)] == [
        " ".join(p) for p in merges]
    assert "e r (8) → w er (8) → l o (7)" in drawn.alt
    assert "lower → lo wer" in texts and "lower becomes lo wer" in drawn.alt
    assert "lowest cannot be encoded because s and t are not base symbols" in drawn.alt


def test_fig01_bottom_cat_bytes_split_and_decoded_from_the_engine(fig1):
    drawn, texts = fig1
    t = lesson2.split_char(ex.FIG1_CHAR, ex.FIG1_SPLIT_AT)
    assert [drawn.artists[f"byte[{k}]"].get_text() for k in range(3)] == ["E7", "8C", "AB"]
    assert "猫 is UTF-8 E7 8C AB; token 1 holds E7 8C, token 2 holds AB" in drawn.alt
    assert drawn.artists["strict[0]"].get_text() == f"error: {t.first.reason}"
    assert drawn.artists["strict[2]"].get_text() == "猫" == drawn.artists["replace[2]"].get_text()
    assert drawn.artists["replace[0]"].get_text() == "\N{REPLACEMENT CHARACTER}"


def test_fig01_panel_b_alone_draws_what_the_bottom_of_figure_1_draws(fig1):
    drawn, _ = fig1
    panel = figures.show(1, panel="b")
    names = [n for n in panel.drawn.artists if n != "bottom.heading"]
    assert names and all(n in drawn.artists for n in names)
    assert all(panel.drawn.artists[n].get_text() == drawn.artists[n].get_text() for n in names
               if hasattr(drawn.artists[n], "get_text"))
    assert panel.drawn.artists["bottom.heading"].get_text() == drawn.artists["bottom.heading"].get_text()
    assert panel.caption.startswith("Figure 1 (b)") and panel.label == "fig01b"
    t = lesson2.split_char(ex.FIG1_CHAR, ex.FIG1_SPLIT_AT)
    assert f"token 1 holds {t.first.joined.hex(' ').upper()}" in panel.alt


def test_show_refuses_a_panel_no_figure_module_registers():
    with pytest.raises(ValueError, match="panel must be one of the registered panels"):
        figures.show(1, panel="z")
    with pytest.raises(ValueError, match="panel must be one of the registered panels \\[\\] of figure 2"):
        figures.show(2, panel="b")
    with pytest.raises(TypeError, match="number must be an int"):
        figures.show("1", panel="b")


def test_fig02_id17_vocabularies_row_and_growth_from_the_engine(fig2):
    drawn, texts = fig2
    g = lesson2.vocab_growth(ex.FIG2_VOCAB_OLD, ex.FIG2_VOCAB_NEW, ex.FIG2_WIDTH)
    assert f"{g.added_per_matrix:,}" == "402,653,184"
    assert "adds 96K × 4096 = 402,653,184 parameters per matrix (1K = 1024)" in drawn.alt
    assert drawn.artists["A[17]"].get_text() == "17 → 猫" and drawn.artists["B[17]"].get_text() == "17 → return"
    tok = lesson1.demo_tokenizer()
    assert f"role marker <|assistant|> is ID {tok.special_tokens['<|assistant|>']}" in drawn.alt
    assert f"' assistant' is ID {tok.encode(' assistant')[0]}" in drawn.alt


def test_replay_update_matches_a_fresh_draw_at_every_step():
    for step in range(ex.FIG1_MERGES + 1):
        fig, ax = new_canvas(style.WIDTH, 4.0)
        fresh = F.draw_replay(ax, lesson1.merge_replay(step))
        fig2, ax2 = new_canvas(style.WIDTH, 4.0)
        moved = F.draw_replay(ax2, lesson1.merge_replay(0))
        F.update_replay(moved, lesson1.merge_replay(step))
        for name, artist in fresh.items():
            if isinstance(artist, Text):
                assert moved[name].get_text() == artist.get_text(), (step, name)
        style.close(fig)
        style.close(fig2)


def test_figure_helpers_refuse_the_wrong_trace():
    fig, ax = new_canvas(2, 2)
    with pytest.raises(TypeError, match="state"):
        F.draw_replay(ax, lesson2.split_char("猫", 2))
    with pytest.raises(TypeError, match="trace"):
        F.draw_split_char(ax, lesson1.merge_replay(0))
    with pytest.raises(TypeError, match="ax"):
        F.draw_vocab_growth("ax", lesson2.vocab_growth(1, 2, 3))
    style.close(fig)


def test_every_cjk_character_the_chapters_draw_is_in_the_font():
    assert missing_glyphs("".join(ex.FIG2_VOCAB_A.values()) + ex.FIG1_CHAR) == []
