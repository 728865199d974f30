"""The build steps behind `make sync` and `make book` (tokenpath._build, tokenpath._sphinx).

The Sphinx build itself is not run here (it takes minutes; `make book` and `make
check-book` run it); the extension's pure parts are: slider grids, the changing box and
lossless frames, the slider cells, MathML, the glossary's CJK runs and anchors, the
table of contents, the offline questions and the size budgets.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import ipywidgets
import numpy as np
import pytest

from tokenpath import _build, widgets
from tokenpath._sphinx import calls, crop, frames, glossary, grids, heading_slug, images, pages, quiz, tex

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------ Makefile


def test_makefile_keeps_only_recipes():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "define " not in makefile, "the Makefile embeds a script (define … endef)"
    assert not re.search(r"-c\s+\"\$\$", makefile), "the Makefile runs a script kept in a variable"
    for target in ("sync", "book", "doctor"):
        assert re.search(rf"^{target}:", makefile, re.M), f"make {target} is missing"


# ------------------------------------------------------------------ execution


def test_execute_refuses_a_missing_notebook(tmp_path):
    with pytest.raises(ValueError, match="path must be an existing notebook"):
        _build.execute_notebook(tmp_path / "missing.ipynb")


def test_execute_without_notebooks_says_so(capsys):
    assert _build.main(["execute"]) == 0
    assert "No notebooks to execute." in capsys.readouterr().out


# ------------------------------------------------------------------ slider grids


def test_even_grid_takes_every_position_that_fits():
    assert grids.even_grid(1, 4, 1, 2, 41) == [1, 2, 3, 4]


@pytest.mark.parametrize("low, high, step, default, most", [
    (0.0, 40.0, 0.5, 3.5, 9), (0, 31, 1, 16, 17), (0, 30, 1, 29, 5), (2.0, 6.0, 0.03125, 4.0, 17),
])
def test_even_grid_is_evenly_spaced_through_the_default_within_the_range(low, high, step, default, most):
    grid = grids.even_grid(low, high, step, default, most)
    assert default in grid and len(grid) <= most and grid == sorted(grid)
    assert low <= grid[0] and grid[-1] <= high
    gaps = {round(b - a, 9) for a, b in zip(grid, grid[1:])}
    assert len(gaps) == 1, f"uneven grid {grid}"
    assert all(abs((v - low) / step - round((v - low) / step)) < 1e-9 for v in grid), "off the slider's steps"
    assert grid[0] - low < (grid[1] - grid[0]) and high - grid[-1] < (grid[1] - grid[0]), "an end left out needlessly"


def test_even_grid_refuses_too_few_frames_and_a_default_outside():
    with pytest.raises(ValueError, match="most"):
        grids.even_grid(0, 4, 1, 2, 1)
    with pytest.raises(ValueError, match="default"):
        grids.even_grid(0, 4, 1, 9, 5)


def test_slider_values_of_a_log_slider_and_a_selection_slider():
    log = ipywidgets.FloatLogSlider(value=100.0, base=10, min=0, max=4, step=1)
    assert grids.slider_values(log, 41) == [1.0, 10.0, 100.0, 1000.0, 10000.0]
    pick = ipywidgets.SelectionSlider(options=["x", "y", "z"], value="y")
    assert grids.slider_values(pick, 41) == ["x", "y", "z"]


def test_grids_thin_the_longest_slider_until_the_combinations_fit():
    long = ipywidgets.IntSlider(value=0, min=0, max=40)
    short = ipywidgets.IntSlider(value=0, min=0, max=3)
    g = grids.grids([long, short])
    assert len(g[1]) == 4 and len(g[0]) * 4 <= grids.MOST_FRAMES and g[0][0] == 0


def test_the_last_slider_keeps_every_position_when_drawn_as_patches():
    sliders_ = [ipywidgets.IntSlider(value=1, min=0, max=3), ipywidgets.IntSlider(value=2, min=0, max=5),
                ipywidgets.IntSlider(value=29, min=0, max=29)]
    plain = grids.grids(sliders_)
    g, layered = grids.layered_grids(sliders_)
    assert len(plain[-1]) < 30, "without patches the last slider is thinned"
    assert layered and g == [list(range(4)), list(range(6)), list(range(30))]
    assert grids.layered_grids(sliders_[:1]) == (grids.grids(sliders_[:1]), False)
    long_first = [ipywidgets.IntSlider(value=1, min=0, max=20), sliders_[-1]]
    assert grids.layered_grids(long_first) == (grids.grids(long_first), False), "only short choices first"


# ------------------------------------------------------------------ frames


def test_patches_laid_over_the_base_give_the_frame():
    rng = np.random.default_rng(1)
    base = rng.integers(0, 256, (60, 50, 4), dtype=np.uint8)
    frame = base.copy()
    frame[3:6, 10:20] = 0
    frame[40, 2] = 1
    frame[44, 45] = 2
    strips = frames.patches(frame, base)
    assert len(strips) == 2, "rows far apart are separate strips, rows close together one"
    assert sum(w * h for _, _, w, h in strips) < base.shape[0] * base.shape[1] / 4
    layers = [(x, y, frame[y:y + h, x:x + w]) for x, y, w, h in strips]
    assert np.array_equal(frames.compose(base, layers), frame)
    assert frames.patches(base, base) == []


def test_the_changing_box_holds_every_changed_pixel():
    a = np.zeros((30, 40, 4), np.uint8)
    b, c = a.copy(), a.copy()
    b[5, 10] = 255
    c[20, 33] = 7
    left, top, right, bottom = crop.changing_box([a, b, c], margin=0)
    assert (left, top, right, bottom) == (10, 5, 34, 21)
    assert crop.changing_box([a, a]) == (0, 0, 40, 30)


def test_frames_are_lossless():
    rng = np.random.default_rng(0)
    rgba = rng.integers(0, 256, (20, 30, 4), dtype=np.uint8)
    rgba[..., 3] = 255
    assert np.array_equal(images.pixels(images.encode(rgba)), rgba)
    rgba[0, 0, 3] = 10
    assert np.array_equal(images.pixels(images.encode(rgba)), rgba)


CODE = "from tokenpath import widgets\nimport tokenpath.widgets as W\nfrom tokenpath.widgets import score_scale as s\n"


@pytest.mark.parametrize("cell, expected", [
    ("w = widgets.value_magnitude()\nw", [("value_magnitude", (), ())]),
    ("W.score_scale(4)", [("score_scale", (4,), ())]),
    ("s(d_h=8)", [("score_scale", (), (("d_h", 8),))]),
    ("a = widgets.score_scale(2); b = widgets.value_magnitude(8.0)", [("score_scale", (2,), ()), ("value_magnitude", (8.0,), ())]),
    ("t = A.value_magnitude(m)", []),  # the engine's function of the same name
    ("%time x = 1", []),
])
def test_slider_calls_finds_registered_constructors_through_any_import(cell, expected):
    found = calls.slider_calls(cell, set(widgets.SLIDERS), CODE + cell)
    assert [(c.name, c.args, c.kwargs) for c in found] == expected


def test_slider_calls_refuses_computed_arguments():
    with pytest.raises(ValueError, match="literal arguments"):
        calls.slider_calls("widgets.value_magnitude(m)", {"value_magnitude"}, CODE)


def test_only_combinations_the_engine_accepts_are_frames():
    w = widgets.SLIDERS["head_groups"]()
    assert grids.accepted(w, (8, 4)) and grids.accepted(w, (16, 8))
    assert not grids.accepted(w, (6, 4)), "a pair the engine refuses"
    assert not grids.accepted(w, (40, 1)), "a value outside the slider"


# ------------------------------------------------------------------ pages


def test_math_becomes_mathml_and_bad_tex_is_named():
    assert "<mfrac>" in tex(r"\frac{a}{\sqrt{d_h}}", block=True) and 'display="block"' in tex("x", block=True)
    for source in (r"x^", r"\left( x", r"\unknowncmd{x}"):
        with pytest.raises(ValueError, match="cannot convert this TeX") as error:
            tex(source)
        assert repr(source) in str(error.value)


def test_heading_anchors_are_jupyterlab_s():
    assert heading_slug("1.2 Training: count the pairs") == "1.2-Training:-count-the-pairs"


def test_chinese_runs_are_found_and_a_near_miss_anchor_is_resolved_only_when_unique():
    assert glossary.cjk_runs("A 我喜欢猫。 B") == [("A ", False), ("我喜欢猫。", True), (" B", False)]
    assert glossary.nearest_anchor("2.4-Chat", {"2.4-Chat-templates", "2.4-Chatter"}) is None
    assert glossary.nearest_anchor("2.5", {"2.5", "2.5-x"}) == "2.5"


def test_the_contents_list_chapters_by_their_file_numbers():
    entries = pages.toc_entries(["00_index", "10_k", "02_b", "99_glossary"], "00_index", {"02_b": "B", "10_k": "K"})
    assert entries == ["2 · B <02_b>", "10 · K <10_k>", "99_glossary"]


def test_every_question_gets_its_choices_or_a_box_and_the_engine_s_answer():
    from tokenpath import questions

    for chapter in questions.CHAPTERS:
        for q in questions.for_chapter(chapter).values():
            markup = quiz.quiz_html(q)
            assert markup.count('type="radio"') == len(q.options)
            assert ('type="text"' in markup) == (not q.options)
            assert f'<p class="tp-prompt">{html.escape(q.prompt)}</p>' in markup
            assert q.answer_text().split(" ")[0].replace("'", "&#x27;") in markup


def test_a_page_s_budget_counts_its_frames_and_images_once(tmp_path):
    (tmp_path / "_frames").mkdir()
    (tmp_path / "_frames" / "ab12.webp").write_bytes(b"x" * 1000)
    (tmp_path / "a.png").write_bytes(b"y" * 500)
    page = tmp_path / "p.html"
    page.write_text('<img src="a.png"><img src="a.png"><script>{"files":["_frames/ab12.webp"]}</script>', encoding="utf-8")
    assert pages.page_bytes(page, tmp_path) == 1500 + page.stat().st_size
    report = pages.budgets(tmp_path)
    assert report.total == 1500 + page.stat().st_size and not report.over and "p.html" in report.text


def test_a_stored_figure_becomes_a_lossless_file_named_by_its_content(tmp_path):
    from tokenpath.figures import render, style

    png = render(11).png(dpi=style.SCREEN_DPI)
    name = pages.figure_file(png, tmp_path / pages.FIGURES)
    assert name.startswith(f"{pages.FIGURES}/") and name.endswith(".webp")
    assert np.array_equal(images.pixels((tmp_path / name).read_bytes()), images.pixels(png))
    assert pages.figure_file(png, tmp_path / pages.FIGURES) == name and len(list((tmp_path / pages.FIGURES).iterdir())) == 1


def test_plain_text_notation_becomes_math_outside_words():
    from tokenpath._sphinx import notation_runs

    assert notation_runs("W_Q and W_out, not my_var or x_changed") == [
        ("W_{Q}", True), (" and ", False), ("W_{out}", True), (", not my_var or x_changed", False)]


def test_a_slider_cell_s_code_is_its_source_not_the_text_form_of_an_output():
    """An HTML output keeps its text form as a literal block (the journey map's); only
    the source block of a code cell is read as code, or the notebook's imports cannot be
    parsed and no slider is found on the page."""
    from docutils import nodes

    from tokenpath._sphinx.sliders import _cell_source

    def cell(source: str | None, output: str):
        parts = []
        if source is not None:
            parts.append(nodes.container("", nodes.literal_block(source, source), nb_element="cell_code_source"))
        parts.append(nodes.container("", nodes.literal_block(output, output), nb_element="cell_code_output"))
        return nodes.container("", *parts, nb_element="cell_code")

    removed = cell(None, "string → bytes → [tokens]")
    shown = cell("w = widgets.rope_pair(3)", "a widget")
    assert _cell_source(removed) is None
    assert _cell_source(shown).astext() == "w = widgets.rope_pair(3)"


# ------------------------------------------------------------------ two editions


def test_make_book_writes_a_landing_page_that_leads_to_both_editions(tmp_path):
    assert _build.build_book(tmp_path / "html", source=ROOT / "notebooks", languages=()) == 0
    landing = (tmp_path / "html" / "index.html").read_text(encoding="utf-8")
    assert 'href="en/index.html"' in landing and 'href="zh/index.html"' in landing
    assert 'url=en/index.html' in landing


def test_the_zh_edition_gets_the_catalogs_of_the_declared_pages_only(tmp_path):
    from tokenpath.i18n import TRANSLATED

    folder = _build.locale_folder(tmp_path, "zh_CN")
    assert sorted(p.stem for p in (folder / "zh_CN" / "LC_MESSAGES").glob("*.po")) == sorted(TRANSLATED["zh_CN"])


def test_an_edition_s_budget_counts_the_frames_it_shows_from_the_other(tmp_path):
    (tmp_path / "en" / "_frames").mkdir(parents=True)
    (tmp_path / "en" / "_frames" / "ab12.webp").write_bytes(b"x" * 1000)
    (tmp_path / "zh").mkdir()
    page = tmp_path / "zh" / "p.html"
    page.write_text('<script>{"files":["../en/_frames/ab12.webp"]}</script>', encoding="utf-8")
    assert pages.page_bytes(page, tmp_path / "zh") == 1000 + page.stat().st_size
    report = pages.budgets(tmp_path / "zh", budget=pages.TOTAL_BUDGET_ZH)
    assert report.total == 1000 + page.stat().st_size and "shared with another edition" in report.text
    assert pages.budgets(tmp_path / "zh", budget=500).over


def test_a_stored_figure_shows_its_caption_and_alt_text_in_the_edition_s_language():
    from tokenpath import i18n
    from tokenpath.figures import show
    from tokenpath._sphinx.editions import figure_words

    stored = show(3)._repr_mimebundle_()["text/html"]
    assert figure_words(stored) == stored, "English stays as stored"
    with i18n.using("zh_CN"):
        words = figure_words(stored)
    assert "<figcaption>图 3 · " in words and 'alt="ID 张量 s' in words
    assert words.split('src="', 1)[1].split('"', 1)[0] == stored.split('src="', 1)[1].split('"', 1)[0], "same pixels"


def test_a_linked_pdf_beside_the_editions_is_a_download_not_a_file_a_page_loads(tmp_path):
    """`make pdf` builds the HTML edition again with every page linking to the PDF of the
    run before: a download, which neither a page's size nor the edition's counts."""
    from tokenpath._sphinx import pages

    (tmp_path / "pdf").mkdir()
    (tmp_path / "pdf" / "tokenpath-en.pdf").write_bytes(b"%PDF" + b"0" * 50_000)
    (tmp_path / "html" / "en").mkdir(parents=True)
    page = tmp_path / "html" / "en" / "a.html"
    page.write_text('<html><a href="../../pdf/tokenpath-en.pdf">PDF</a><img src="x.png"></html>', encoding="utf-8")
    (tmp_path / "html" / "en" / "x.png").write_bytes(b"1" * 100)
    report = pages.budgets(tmp_path / "html" / "en", budget=10_000, page_budget=10_000)
    assert not report.over and report.pages["a.html"] == page.stat().st_size + 100
    assert pages.shared_files(tmp_path / "html" / "en") == set()
