"""The HTML edition's precomputed sliders crop each frame to the part that moves without
cutting a text: a title whose middle changes, a panel whose plot changes while its axis
label does not (tokenpath._sphinx.crop).

Every slider of the edition is checked the same way, frame by frame, by ``make
check-book`` (tests/book_smoke.py, :func:`~tokenpath._sphinx.crop.cut_texts`); here a
small figure with both kinds of text is cropped by the build's own code.
"""

from __future__ import annotations

import ipywidgets
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from tokenpath import figures, widgets
from tokenpath._sphinx import calls, crop, framecache, frames, grids, images
from tokenpath.figures import style


def _title(layer: int, head: int) -> str:
    return f"Attention weights of layer {layer}, head {head}"


def _heads(layers: int = 2, heads: int = 3) -> widgets.SliderFigure:
    """A figure drawn as the book's trained-heads figure is: a canvas Axes without axis
    holding the title, whose changing part ("Layer l, head h:") is followed by a still
    part, and a bar panel whose bars move and whose "weight" label and title stay."""
    fig = style.new_figure(6.0, 4.0)
    canvas = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    canvas.set_axis_off()
    with style.book_style():
        title = canvas.text(0.02, 0.93, _title(layers - 1, heads - 1), transform=canvas.transAxes, weight="bold")
        # the still part of the title starts just after the widest changing part
        end = canvas.transAxes.inverted().transform(title.get_window_extent(FigureCanvasAgg(fig).get_renderer()))[1, 0]
        canvas.text(end + 0.01, 0.93, "on a held-out line", transform=canvas.transAxes, weight="bold")
        ax = fig.add_axes((0.2, 0.12, 0.6, 0.6))
        bars = ax.bar(range(5), np.ones(5), color="C0")
        ax.set_ylim(0, 5)
        ax.set_ylabel("weight")
        ax.set_title("one query row", loc="left")
    art = {"title": title, "bars": list(bars)}

    def move(v):
        title.set_text(_title(v.layer, v.head))
        for k, bar in enumerate(bars):
            bar.set_height(1 + (k * (v.layer + 1) + v.head) % 4)

    controls = widgets.Controls({
        "layer": ipywidgets.IntSlider(value=0, min=0, max=layers - 1),
        "head": ipywidgets.IntSlider(value=0, min=0, max=heads - 1),
    })
    move(controls.value)
    drawn = figures.Drawn(0, "heads", fig, "a toy figure", art, None)
    return widgets.SliderFigure(drawn, name="(layer, head)", slider=controls, compute=lambda v: v, move=move,
                                describe=lambda v: f"layer {v.layer}, head {v.head}",
                                moving=[title, *bars], trace=controls.value)


@pytest.fixture
def heads(monkeypatch):
    monkeypatch.setitem(widgets.SLIDERS, "_test_heads", _heads)
    return calls.SliderCall("_test_heads")


def _states(widget, values):
    for v in values:
        assert grids.accepted(widget, tuple(v))
        yield widget.png()


def test_the_changing_pixels_alone_would_cut_the_title_and_the_axis_label():
    """The figure reproduces the flaw: the box of changing pixels starts inside the
    title and leaves the panel's axis label out."""
    w = _heads()
    values = [(l, h) for l in range(2) for h in range(3)]
    box = crop.changing_box(list(_states(w, values)))
    cut = crop.cut_texts(w.figure, box)
    assert any(t.startswith("Attention") for t in cut) and "weight" in cut, cut


def test_every_frame_keeps_its_titles_and_its_panel_s_labels_whole(heads, tmp_path):
    made = frames.precompute(heads, tmp_path)
    w = heads.build()
    for values, png in zip(made.values, _states(w, made.values)):
        assert crop.cut_texts(w.figure, made.box) == [], values
    left, top, right, bottom = made.box
    shown = images.pixels((tmp_path / made.files[0]).read_bytes())
    assert shown.shape[:2] == (bottom - top, right - left)


def test_a_crop_through_a_text_is_named():
    w = _heads()
    ax = w.figure.axes[1]
    with style.book_style():
        height = w.figure.bbox.height
        x0, y0, x1, y1 = ax.bbox.extents
    plot = (int(x0) + 2, int(height - y1) + 2, int(x1) - 2, int(height - y0) - 2)
    assert "weight" in crop.cut_texts(w.figure, plot), "the panel's plot without its label"
    whole = (0, 0, int(w.figure.bbox.width), int(height))
    assert crop.cut_texts(w.figure, whole) == []


def test_a_title_past_the_figure_s_edge_is_named_even_when_the_crop_holds_the_whole_figure():
    """The figure cuts such a title itself: a crop to the whole canvas keeps all it
    shows, and the check still fails, naming the title and the edge it runs past."""
    w = _heads()
    w.png()
    title = w.drawn.artists["title"]
    title.set_text("Attention weights of layer 1, head 2, " + "and a title that goes on " * 4)
    whole = (0, 0, int(w.figure.bbox.width), int(w.figure.bbox.height))
    cut = crop.cut_texts(w.figure, whole)
    assert len(cut) == 1 and cut[0].startswith("'Attention weights") and "past the right edge" in cut[0], cut
    title.set_text(_title(1, 2))
    assert crop.cut_texts(w.figure, whole) == []


def test_the_crop_grows_to_whole_panels_and_lines_of_text_only():
    a, b, c, p = ("text", 1), ("text", 2), ("text", 3), ("panel", 4)
    found = {a: (10, 0, 40, 10), b: (45, 1, 80, 10), c: (200, 0, 230, 10), p: (0, 20, 100, 90)}
    assert crop.keep_whole((30, 2, 35, 8), found, (300, 100)) == (10, 0, 80, 10)
    assert crop.keep_whole((50, 50, 60, 60), found, (300, 100)) == (0, 20, 100, 90)
    assert crop.keep_whole((250, 50, 260, 60), found, (300, 100)) == (250, 50, 260, 60)
    assert crop.keep_whole((-5, -5, 5, 5), {}, (300, 100)) == (0, 0, 5, 5)


# ------------------------------------------------------------------ frames kept between builds


def test_frames_are_rendered_once_and_then_copied_from_the_cache(heads, tmp_path, monkeypatch):
    cache, out, again = tmp_path / "cache", tmp_path / "html", tmp_path / "html2"
    first = framecache.frames_for(heads, out, cache)
    assert sorted(p.name for p in out.iterdir()) == sorted(set(first.files))

    def fail(*args):
        raise AssertionError("rendered again although its frames are in the cache")

    monkeypatch.setattr(framecache, "precompute", fail)
    second = framecache.frames_for(heads, again, cache)
    assert (second.files, second.box, second.values) == (first.files, first.box, first.values)
    assert all((again / f).read_bytes() == (out / f).read_bytes() for f in first.files)


def test_the_cache_key_follows_the_call_and_the_package(heads, monkeypatch):
    other = calls.SliderCall(heads.name, (1,))
    assert framecache.key(heads) != framecache.key(other)
    before = framecache.key(heads)
    monkeypatch.setattr(framecache, "fingerprint", lambda: "another version of the engine")
    assert framecache.key(heads) != before


def test_a_slider_another_process_renders_is_waited_for_and_a_dead_one_s_is_taken_over(heads, tmp_path):
    import os
    import subprocess

    folder = tmp_path / framecache.key(heads)
    folder.mkdir(parents=True)
    (folder / framecache.LOCK).write_text(str(os.getppid()))  # alive: the one that started this test
    assert framecache.render(heads, tmp_path) is None
    dead = subprocess.Popen(["true"])
    dead.wait()
    (folder / framecache.LOCK).write_text(str(dead.pid))
    assert framecache.render(heads, tmp_path) == folder and (folder / framecache.DONE).exists()
    assert not (folder / framecache.LOCK).exists()


def test_the_book_s_slider_calls_are_found_in_the_notebooks():
    from pathlib import Path

    found = framecache.book_calls(Path(__file__).resolve().parents[1] / "notebooks")
    assert {c.name for c in found} <= set(widgets.SLIDERS) and len(found) >= 1


# ------------------------------------------------------------------ what the page holds


def test_the_page_data_gives_every_frame_its_file_caption_and_readouts_in_grid_order(heads, tmp_path):
    from tokenpath._sphinx import sliders

    made = frames.precompute(heads, tmp_path)
    data = sliders.slider_data(made)
    assert len(data["files"]) == len(set(data["files"])) and len(data["frames"]) == len(made.files) == 6
    assert data["shape"] == [2, 3] and data["size"] == [made.box[2] - made.box[0], made.box[3] - made.box[1]]
    for k, (file, caption, strips) in enumerate(data["frames"]):
        at = sliders.positions(data["shape"], k)
        assert data["files"][file] == f"_frames/{made.files[k]}" and strips == []
        assert caption == made.captions[k] == f"layer {at[0]}, head {at[1]}"
        assert [data["readouts"][j][p] for j, p in enumerate(at)] == made.readouts[k]


def test_without_scripts_the_page_shows_the_default_frame_and_its_caption(heads, tmp_path):
    import html
    import json
    import re

    from tokenpath._sphinx import sliders

    made = frames.precompute(heads, tmp_path)
    page = sliders.slider_html(made, "slider-1")
    fallback = re.search(r'<div class="tp-slider-fallback"><img class="tp-frame" alt="([^"]*)" src="([^"]*)"', page)
    assert fallback and fallback.group(2) == f"_frames/{made.files[0]}"
    assert html.unescape(fallback.group(1)) == made.captions[0] == "layer 0, head 0"
    payload = re.search(r'<script type="application/json" class="tp-slider-data">(.*?)</script>', page).group(1)
    assert json.loads(payload) == json.loads(json.dumps(sliders.slider_data(made)))
