"""The moving pictures of the sliders (tokenpath._media, `make media`): one per
chapter's main slider, committed in docs/media/ with media.json; rebuilt here, the same
bytes; each one small, looping, starting at the widget's default state, and with its
alt text computed from its sweep."""

from __future__ import annotations

import html
import io
import json
import re
from pathlib import Path

import pytest
from PIL import Image

from tokenpath import widgets
from tokenpath import _media as media

ROOT = Path(__file__).resolve().parents[1]
MEDIA = ROOT / media.OUT


@pytest.fixture(scope="module")
def manifest() -> dict:
    return json.loads((MEDIA / media.MANIFEST).read_text(encoding="utf-8"))


def test_every_chapter_s_main_slider_has_its_animation(manifest):
    mains = media.main_widgets()
    assert {v["chapter"]: k for k, v in manifest.items()} == mains, "run `make media`"
    assert sorted(p.name for p in MEDIA.glob("*.webp")) == sorted(f"{name}.webp" for name in mains.values())


def test_each_animation_is_small_and_its_entry_says_so(manifest):
    for name, entry in manifest.items():
        data = (MEDIA / entry["file"]).read_bytes()
        assert len(data) == entry["bytes"] <= media.MAX_BYTES, f"{name}: {len(data):,} bytes"
        im = Image.open(io.BytesIO(data))
        assert im.format == "WEBP" and im.is_animated and im.n_frames == entry["frames"]
        assert im.size == (entry["width"], entry["height"]) and im.info["loop"] == 0
        durations = []
        for k in range(im.n_frames):
            im.seek(k)
            im.load()
            durations.append(im.info["duration"])
        assert durations == [media.HOLD_MS] + [media.FRAME_MS] * (im.n_frames - 1)


def test_a_rebuilt_animation_has_the_committed_bytes_and_alt_text(tmp_path, manifest):
    built = media.build(tmp_path, only=["merge_steps"], log=lambda *_: None)
    assert (tmp_path / "merge_steps.webp").read_bytes() == (MEDIA / "merge_steps.webp").read_bytes()
    assert built["merge_steps"] == manifest["merge_steps"]


def test_the_first_frame_is_the_default_state_and_the_sweep_covers_the_range():
    sweep, widget = media.plan("merge_steps")
    first = Image.open(MEDIA / "merge_steps.webp").convert("RGB")
    default = Image.open(io.BytesIO(widgets.SLIDERS["merge_steps"]().png())).convert("RGB")
    assert first.tobytes() == default.tobytes()
    s = widget.sliders[0]
    assert sweep.positions == tuple(range(s.min, s.max + 1)) and sweep.values[0] == sweep.default == s.value
    assert sorted(sweep.values) == list(sweep.positions)  # each position once
    assert f"the slider {s.description} steps from its default {s.value} up to {s.max}," in sweep.alt


def test_alt_texts_name_the_figure_slider_and_range(manifest):
    for name, entry in manifest.items():
        assert entry["alt"].startswith(f"Animation of figure {entry['figure']} ({name} widget): the slider {entry['slider']} ")
        assert "positions, each frame drawn by the widget" in entry["alt"]


def test_the_words_kept_give_the_alt_text_in_english_and_in_chinese(manifest):
    from tokenpath._media import alt_text, caption_text
    from tokenpath.i18n import _, using

    for name, entry in manifest.items():
        assert alt_text(entry["words"]) == entry["alt"], f"{name}: run `make media`"
        with using("zh_CN"):
            zh, caption, label = alt_text(entry["words"]), caption_text(entry["slider"]), _(entry["slider"])
        assert zh.startswith(f"图 {entry['figure']} 的动画（{name} 控件）：滑块 {label} ")
        assert f"共 {entry['words']['positions']} 个位置" in zh and entry["words"]["default"] in zh
        assert caption.startswith(f"滑块 {label} ") and "moving" not in caption
    with using("zh_CN"):  # a label the widget translates is translated here too
        assert caption_text(manifest["merge_steps"]["slider"]).startswith("滑块 合并次数 ")


# ------------------------------------------------------------------ the HTML edition


def test_the_html_edition_puts_the_animation_above_the_chapter_s_main_widget_only(tmp_path, manifest):
    from tokenpath._sphinx.media import media_html

    entry = manifest["merge_steps"]
    markup = media_html("merge_steps", entry["chapter"], tmp_path)
    assert markup.startswith('<figure class="tp-media"><img src="_media/merge_steps.webp" ')
    assert f'width="{entry["width"]}" height="{entry["height"]}"' in markup
    assert html.escape(entry["alt"], quote=True) in markup
    assert (tmp_path / "_media" / "merge_steps.webp").read_bytes() == (MEDIA / "merge_steps.webp").read_bytes()
    (tmp_path / "_media" / "merge_steps.webp").write_bytes(b"stale")  # an earlier build's file
    media_html("merge_steps", entry["chapter"], tmp_path)
    assert (tmp_path / "_media" / "merge_steps.webp").read_bytes() == (MEDIA / "merge_steps.webp").read_bytes()
    assert media_html("merge_steps", "02_utf8_splits", tmp_path) == ""  # another chapter's call
    assert media_html("token_box", entry["chapter"], tmp_path) == ""  # not a chapter's main slider
    zh = media_html("merge_steps", entry["chapter"], tmp_path, lang="zh_CN")  # the Chinese edition's words
    assert "<figcaption>滑块 " in zh and html.escape(entry["alt"], quote=True) not in zh


def test_the_animation_is_not_printed_nor_shown_to_readers_who_ask_for_less_motion():
    css = (ROOT / "lib/tokenpath/_sphinx/static/tokenpath.css").read_text(encoding="utf-8")
    assert "@media print { figure.tp-media { display: none !important; } }" in css
    assert "@media (prefers-reduced-motion: reduce) { figure.tp-media { display: none; } }" in css


def test_the_readme_shows_an_animation_with_its_computed_alt_text(manifest):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = re.findall(r"!\[([^\]]*)\]\(docs/media/([a-z_]+)\.webp\)", readme)
    assert shown, "the README shows no moving slider"
    for alt, name in shown:
        assert alt == manifest[name]["alt"], f"README's alt text of {name} is not media.json's (run `make media`)"
