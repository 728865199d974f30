"""The build steps behind `make sync` and `make book` (tokenpath._build, tokenpath._book).

The HTML edition is built here from a small notebook made in the test (prose with math
and a table, a printed output, a figure, a slider cell), with a coarse slider grid so
the test stays fast; `make check-book` drives the real edition in a browser.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import ipywidgets
import nbformat
import pytest

from tokenpath import _book, _build, widgets

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


# ------------------------------------------------------------------ slider cells


def test_slider_grid_takes_every_position_of_a_short_slider():
    assert _book.slider_grid(ipywidgets.IntSlider(value=2, min=1, max=4)) == [1, 2, 3, 4]


def test_slider_grid_thins_a_long_slider_and_keeps_its_ends_and_default():
    s = ipywidgets.FloatSlider(value=3.5, min=0.0, max=40.0, step=0.5)
    grid = _book.slider_grid(s, max_frames=9)
    assert grid[0] == 0.0 and grid[-1] == 40.0 and 3.5 in grid
    assert len(grid) <= 10 and grid == sorted(grid)
    assert all(abs(v / 0.5 - round(v / 0.5)) < 1e-9 for v in grid), "off the slider's steps"


def test_slider_grid_of_a_log_slider_and_a_selection_slider():
    log = ipywidgets.FloatLogSlider(value=100.0, base=10, min=0, max=4, step=1)
    assert _book.slider_grid(log) == [1.0, 10.0, 100.0, 1000.0, 10000.0]
    pick = ipywidgets.SelectionSlider(options=["x", "y", "z"], value="y")
    assert _book.slider_grid(pick) == ["x", "y", "z"]


def test_slider_grid_needs_two_frames():
    with pytest.raises(ValueError, match="max_frames"):
        _book.slider_grid(ipywidgets.IntSlider(), max_frames=1)


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
    calls = _book.slider_calls(cell, set(widgets.SLIDERS), CODE + cell)
    assert [(c.name, c.args, c.kwargs) for c in calls] == expected


def test_slider_calls_refuses_computed_arguments():
    with pytest.raises(ValueError, match="literal arguments"):
        _book.slider_calls("widgets.value_magnitude(m)", {"value_magnitude"}, CODE)


# ------------------------------------------------------------------ the HTML edition


def tiny_notebook(path: Path, title: str, *, slider: bool) -> Path:
    nb = nbformat.v4.new_notebook()
    figure = {"text/html": '<figure class="tokenpath-figure" id="fig09"><img src="data:image/png;base64,iVBORw0KGgo=" '
              'alt="alt text"/><figcaption>Figure 9</figcaption></figure>', "text/plain": "Figure 9"}
    printed = nbformat.v4.new_code_cell("print(1)")
    printed.outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
    shown = nbformat.v4.new_code_cell("show(9)")
    shown.outputs = [nbformat.v4.new_output("execute_result", figure, execution_count=2)]
    nb.cells = [
        nbformat.v4.new_markdown_cell(f"# {title}\n\nInline $x_i^2$ and display\n\n$$\n\\frac{{a}}{{\\sqrt{{d_h}}}}\n$$\n"),
        nbformat.v4.new_markdown_cell("## 1.1 A section\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"),
        nbformat.v4.new_code_cell("from tokenpath import widgets\nfrom tokenpath.figures import show"),
        printed,
        shown,
    ]
    if slider:
        nb.cells.append(nbformat.v4.new_code_cell("w = widgets.tiny_slider()\nw"))
    nbformat.write(nb, path)
    return path


class TinySlider:
    """A stand-in slider widget (no figure to draw): its image and caption name the value."""

    figure = None

    def __init__(self):
        self.name = "n"
        self.slider = ipywidgets.IntSlider(value=2, min=0, max=8, description="n")
        self.box = ipywidgets.VBox([self.slider])

    def png(self):
        return f"frame {self.slider.value}".encode()

    def describe(self):
        return f"n = {self.slider.value}"


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    src = tmp_path_factory.mktemp("notebooks")
    out = tmp_path_factory.mktemp("html")
    first = tiny_notebook(src / "01_first.ipynb", "First chapter", slider=True)
    second = tiny_notebook(src / "02_second.ipynb", "Second chapter", slider=False)
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(widgets.SLIDERS, "tiny_slider", TinySlider)
        index = _book.build([first, second], out, max_frames=3, jobs=2)  # one process per chapter
    return out, index


def test_book_writes_an_index_and_a_page_per_chapter(edition):
    out, index = edition
    assert index == out / "index.html"
    assert sorted(p.name for p in out.iterdir()) == ["01_first.html", "02_second.html", "book.css", "book.js", "index.html"]
    text = index.read_text(encoding="utf-8")
    assert '<a href="01_first.html">First chapter</a>' in text and '<a href="02_second.html">Second chapter</a>' in text


def test_book_pages_have_a_sidebar_and_previous_next_links(edition):
    out, _ = edition
    first = (out / "01_first.html").read_text(encoding="utf-8")
    second = (out / "02_second.html").read_text(encoding="utf-8")
    assert '<a href="01_first.html" aria-current="page">First chapter</a>' in first
    assert '<a href="02_second.html">Second chapter</a>' in first
    assert 'href="#11-a-section"' in first and '<h2 id="11-a-section">' in first
    assert 'rel="next" href="02_second.html"' in first and 'rel="prev" href="index.html"' in first
    assert 'rel="prev" href="01_first.html"' in second and 'rel="next"' not in second


def test_book_pages_render_math_as_mathml_and_keep_outputs(edition):
    out, _ = edition
    page = (out / "01_first.html").read_text(encoding="utf-8")
    assert page.count("<math ") == 2 and '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">' in page
    assert "$" not in re.sub(r"<script.*?</script>", "", page, flags=re.S)
    assert "<mfrac>" in page and "<msqrt>" in page
    assert "<table>" in page
    assert '<pre class="tp-output tp-stdout">1\n</pre>' in page
    assert 'id="fig09"' in page


def test_book_pages_load_nothing_from_the_network(edition):
    out, _ = edition
    for path in out.glob("*.html"):
        text = path.read_text(encoding="utf-8")
        remote = re.findall(r'(?:src|href)="((?:https?:)?//[^"]*)"', text)
        assert not remote, f"{path.name} loads {remote[:3]}"


def test_book_embeds_each_slider_s_frames_and_a_range_input(edition):
    out, _ = edition
    page = (out / "01_first.html").read_text(encoding="utf-8")
    assert page.count(f'class="{_book.SLIDER_CLASS}"') == 1
    assert f'class="{_book.SLIDER_CLASS}"' not in (out / "02_second.html").read_text(encoding="utf-8")
    call = json.loads(re.search(r'data-call="([^"]+)"', page).group(1).replace("&quot;", '"'))
    assert call == {"name": "tiny_slider", "args": [], "kwargs": {}}
    data = json.loads(re.search(r'<script type="application/json" class="tp-frames">(.*?)</script>', page, re.S).group(1))
    assert data["shape"] == [4]  # 0, 2 (the default), 4, 8: at most 3 even steps plus the default
    assert [base64.b64decode(p) for p in data["pngs"]] == [b"frame 0", b"frame 2", b"frame 4", b"frame 8"]
    assert data["captions"] == ["n = 0", "n = 2", "n = 4", "n = 8"] and data["readouts"][3] == ["8"]
    assert page.count('type="range"') == 1 and 'min="0" max="3" step="1" value="1"' in page
    assert 'aria-valuetext="n = 2"' in page and '<p class="tp-caption" aria-live="polite">n = 2</p>' in page


def test_precompute_renders_a_real_widget_with_its_own_code(monkeypatch):
    from tokenpath.figures import render, style

    widget = widgets.value_magnitude()
    monkeypatch.setitem(widgets.SLIDERS, "prebuilt", lambda: widget)
    frames = _book.precompute(_book.SliderCall("prebuilt"), max_frames=3)
    grid = frames.grid[0]
    k = frames.default[0]
    assert grid[k] == widget.value == widget.slider.max  # left where it started
    assert frames.pngs[k] == render(11).png(dpi=style.SCREEN_DPI)  # the default frame is the static figure
    widget.update(grid[0])
    assert frames.pngs[0] == widget.png() and frames.captions[0] == widget.describe()
    assert frames.readouts[0] == [format(grid[0], widget.slider.readout_format)]


class TwoSliders:
    """A widget with two sliders in its box, like a chapter's two-slider figures: its
    image and caption are a function of both values."""

    def __init__(self):
        self.slider = ipywidgets.IntSlider(value=1, min=0, max=3, description="a")
        self.other = ipywidgets.FloatSlider(value=0.5, min=0.0, max=1.0, step=0.25, description="b")
        self.name = "a"
        self.box = ipywidgets.VBox([ipywidgets.HBox([self.slider, self.other]), ipywidgets.HTML("not a slider")])

    def png(self):
        return f"{self.slider.value},{self.other.value}".encode()

    def describe(self):
        return f"a = {self.slider.value}, b = {self.other.value}"

    figure = None


def test_a_widget_with_two_sliders_gets_every_combination(monkeypatch):
    monkeypatch.setitem(widgets.SLIDERS, "two_sliders_for_test", TwoSliders)
    monkeypatch.setattr("tokenpath.figures.style.close", lambda figure: None)
    frames = _book.precompute(_book.SliderCall("two_sliders_for_test"), max_frames=41)
    assert frames.labels == ["a", "b"] and frames.grid == [[0, 1, 2, 3], [0.0, 0.25, 0.5, 0.75, 1.0]]
    assert frames.default == [1, 2]
    assert len(frames.pngs) == 20 and frames.pngs[1 * 5 + 2] == b"1,0.5"  # the first slider varies slowest
    assert frames.readouts[3 * 5 + 4] == ["3", "1.00"] and frames.captions[0] == "a = 0, b = 0.0"
    html = _book.slider_html(frames, "s")
    assert html.count('type="range"') == 2 and 'id="s-1"' in html and 'value="2"' in html


def test_grids_thin_the_longest_slider_first():
    long = ipywidgets.IntSlider(value=0, min=0, max=40)
    short = ipywidgets.IntSlider(value=0, min=0, max=3)
    g = _book.grids([long, short], 81)
    assert len(g[1]) == 4 and len(g[0]) * 4 <= 81 and g[0][0] == 0 and g[0][-1] == 40


def test_book_refuses_a_missing_notebook(tmp_path):
    with pytest.raises(ValueError, match="notebooks must be existing notebook files"):
        _book.build([tmp_path / "nope.ipynb"], tmp_path / "html")


@pytest.mark.parametrize("source", [r"x^", r"\left( x", r"\unknowncmd{x}"])
def test_tex_that_cannot_be_converted_is_named(source):
    with pytest.raises(ValueError, match="cannot convert this TeX") as error:
        _book.tex(source)
    assert repr(source) in str(error.value)
