"""The Chinese notebooks (notebooks/zh/, tokenpath.i18n.notebooks) hold the English
notebooks' code, executed in Chinese: every code cell is the English cell except the calls
that choose the language (the setup cell's and the journey map's), and its stored outputs
are what a Chinese kernel prints for it, so nbval, which runs the English notebooks,
checks the code a Chinese reader runs.

The fast tests here need no kernel: each Chinese cell's outputs have the English cell's
count, kinds and MIME types, and its figures the English pixels (a stale Chinese notebook
after an English change fails here until `make sync`); the markdown is what the catalogs
give now, byte for byte (the generator run without a kernel, keeping the stored outputs
of unchanged cells). The test marked heavy executes every Chinese notebook again and
holds its stored outputs to the fresh ones.
"""

from __future__ import annotations

import json
import re

import pytest

from tokenpath.i18n import TRANSLATED, catalogs, using
from tokenpath.i18n import notebooks as zh
from tokenpath.journey import journey

ENGLISH = sorted((catalogs.ROOT / "notebooks").glob("*.ipynb"))
FIGURE = re.compile(r'<figure class="tokenpath-figure"( id="fig\d+\w*")?>')


def _load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def _journey(output):
    """A stored journey map's (HTML, text), or None for any other output."""
    data = output.get("data", {})
    html = "".join(data.get("text/html", ""))
    return (html, "".join(data.get("text/plain", ""))) if 'class="tokenpath-journey"' in html else None


def _shown(j):
    return j.html(), j.text()


def _figure_free(output):
    """An output with a stored figure's words, or the journey map's, taken out (a
    figure's PNG and anchor kept)."""
    data = output.get("data", {})
    html = "".join(data.get("text/html", ""))
    if _journey(output) is not None:
        return {**output, "data": {**data, "text/html": "", "text/plain": ""}}
    if not FIGURE.search(html):
        return output
    html = re.sub(r'alt="[^"]*"', 'alt=""', html)
    html = re.sub(r"<figcaption>.*?</figcaption>", "<figcaption></figcaption>", html, flags=re.S)
    return {**output, "data": {**data, "text/html": html, "text/plain": ""}}


def test_every_english_notebook_has_its_chinese_notebook():
    missing = [p.name for p in ENGLISH if not (p.parent / "zh" / p.name).exists()]
    assert not missing, f"no notebooks/zh/ for {missing}: run python -m tokenpath.i18n.notebooks"


def _kinds(output):
    """What an output is, not what it says: its type, and its stream or MIME types."""
    return (output["output_type"], output.get("name"), tuple(sorted(output.get("data", {}))))


def _pixels(output):
    """The PNG payloads an output holds (as a figure's HTML or as an image)."""
    data = output.get("data", {})
    return re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", "".join(data.get("text/html", ""))) + (
        ["".join(data["image/png"])] if "image/png" in data else [])


@pytest.mark.parametrize("path", ENGLISH, ids=lambda p: p.stem)
def test_a_chinese_notebook_holds_the_english_code_cells(path):
    en, cn = _load(path), _load(path.parent / "zh" / path.name)
    assert [c["cell_type"] for c in en["cells"]] == [c["cell_type"] for c in cn["cells"]]
    for a, b in zip(en["cells"], cn["cells"]):
        if a["cell_type"] != "code":
            continue
        source = "".join(a["source"])
        assert zh.english_code("".join(b["source"])) == source, f"{path.name}: a code cell differs from the English one"
        assert [_kinds(o) for o in a["outputs"]] == [_kinds(o) for o in b["outputs"]], (
            f"{path.name}: the cell {source[:60]!r} stores other outputs than in English: "
            "notebooks/zh/ is stale, run python -m tokenpath.i18n.notebooks")
        assert [_pixels(o) for o in a["outputs"]] == [_pixels(o) for o in b["outputs"]], (
            f"{path.name}: the cell {source[:60]!r} shows other pixels than in English (figures are drawn once; "
            "their words are in captions): notebooks/zh/ is stale, run python -m tokenpath.i18n.notebooks")
        for x, y in zip(a["outputs"], b["outputs"]):
            if _journey(x) is not None:
                assert _journey(x) == _shown(journey(path.stem)), f"{path.name}: the stored journey map is stale"
                with using("zh_CN"):
                    assert _journey(y) == _shown(journey(path.stem)), f"{path.name}: the journey map is not in Chinese"
    if any("setup_notebook()" in "".join(c["source"]) for c in en["cells"]):
        assert any('setup_notebook(lang="zh_CN")' in "".join(c["source"]) for c in cn["cells"])


@pytest.mark.parametrize("path", ENGLISH, ids=lambda p: p.stem)
def test_regenerating_a_chinese_notebook_writes_the_same_bytes(path):
    """Without a kernel: the markdown the catalogs give now, and each code cell whose
    source is unchanged keeping its stored (Chinese) outputs."""
    stored = (path.parent / "zh" / path.name).read_text(encoding="utf-8")
    text = zh.dumps(zh.translate_notebook(path, stored=json.loads(stored)))
    assert text == stored, f"notebooks/zh/{path.name} is stale: run python -m tokenpath.i18n.notebooks"


def test_a_changed_code_cell_takes_the_english_outputs_until_executed():
    path = catalogs.ROOT / "notebooks" / "04_attention.ipynb"
    stored = _load(path.parent / "zh" / path.name)
    code = [c for c in stored["cells"] if c["cell_type"] == "code"]
    code[2]["source"], code[2]["outputs"] = ["print('an older cell')"], []
    fresh = [c for c in zh.translate_notebook(path, stored=stored)["cells"] if c["cell_type"] == "code"]
    english = [c for c in _load(path)["cells"] if c["cell_type"] == "code"]
    assert fresh[2]["outputs"] == english[2]["outputs"] != []
    assert fresh[3]["outputs"] == code[3]["outputs"]
    assert all(c["outputs"] == [] for c in zh.translate_notebook(path, stored=stored, outputs=False)["cells"]
               if c["cell_type"] == "code")


@pytest.mark.heavy
@pytest.mark.parametrize("path", ENGLISH, ids=lambda p: p.stem)
def test_a_chinese_notebook_stores_what_it_prints_when_executed_in_chinese(path):
    """Executed again by the book's executor (as `make sync` does), the Chinese notebook
    is what is stored, PNG payloads aside (the figure tests check their bytes; nbval
    masks them the same way, tests/nbval_sanitize.cfg)."""
    png = re.compile(r"data:image/png;base64,[A-Za-z0-9+/=]+|\"image/png\": \"[A-Za-z0-9+/=\\n]+\"")
    fresh = zh.dumps(zh.execute(zh.translate_notebook(path, outputs=False), path.parent / "zh"))
    stored = (path.parent / "zh" / path.name).read_text(encoding="utf-8")
    assert png.sub("PNG", fresh) == png.sub("PNG", stored), (
        f"notebooks/zh/{path.name} is not what a Chinese kernel prints now: run python -m tokenpath.i18n.notebooks")


@pytest.mark.parametrize("page", TRANSLATED["zh_CN"])
def test_a_translated_notebook_uses_every_message_of_its_catalog(page):
    """The notebook's units are Sphinx's messages: each catalog message is found in a
    markdown cell, and the notebook shows its translation."""
    en = _load(catalogs.ROOT / "notebooks" / f"{page}.ipynb")
    found = {text.replace("\n", " ") for c in en["cells"] if c["cell_type"] == "markdown"
             for _, text, _ in zh.units("".join(c["source"]))}
    messages = zh.page_messages(page)
    unheld = sorted(m for m in messages if m.replace("\n", " ") not in found)  # display math keeps its line breaks
    assert not unheld, f"messages no markdown unit holds: {unheld[:3]}"
    cn = "\n".join("".join(c["source"]) for c in _load(catalogs.ROOT / "notebooks" / "zh" / f"{page}.ipynb")["cells"])
    maps = zh.all_anchors(catalogs.ROOT / "notebooks")
    absent = [m for m in messages if zh.relink(messages[m], page, maps) not in cn]
    assert not absent, f"translations not shown in notebooks/zh/{page}.ipynb: {absent[:3]}"


def test_links_point_at_the_translated_headings():
    maps = {"p": {"1.1-Why-subwords": "1.1-为什么用子词"}}
    text = "[a](p.ipynb#1.1-Why-subwords) [b](q.ipynb#1.1-Why-subwords) [c](#1.1-Why-subwords)"
    assert zh.relink(text, "p", maps) == ("[a](p.ipynb#1.1-为什么用子词) [b](q.ipynb#1.1-Why-subwords) "
                                          "[c](#1.1-为什么用子词)")


def _drawings(nb):
    """(caption, alt, plain text) of each stored unnumbered figure of a notebook."""
    found = []
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            html = "".join(data.get("text/html", ""))
            for m in re.finditer(r'<figure class="tokenpath-figure">(.*?)</figure>', html, re.S):
                found.append((re.search(r"<figcaption>(.*?)</figcaption>", m.group(1), re.S).group(1),
                              re.search(r'alt="([^"]*)"', m.group(1)).group(1), "".join(data.get("text/plain", ""))))
    return found


@pytest.mark.parametrize("page", TRANSLATED["zh_CN"])
def test_an_unnumbered_drawing_is_reworded_in_chinese(page):
    """A chapter's stored drawing that is not a numbered figure (the heat map of chapter 6)
    has its caption, alt text and plain text in Chinese, as its builder gives them."""
    import html as html_

    from tokenpath import figures

    path = catalogs.ROOT / "notebooks" / f"{page}.ipynb"
    english = _drawings(_load(path))
    chinese = _drawings(_load(path.parent / "zh" / path.name))
    assert len(english) == len(chinese)
    for (caption, alt, _), (zh_caption, zh_alt, zh_plain) in zip(english, chinese):
        build = figures.drawing(html_.unescape(caption))
        assert build is not None, f"{page}: the drawing {caption!r} is not registered (figures.register_drawing)"
        with using("zh_CN"):
            shown = build()
        assert (html_.unescape(zh_caption), html_.unescape(zh_alt)) == (shown.caption, shown.alt)
        assert zh_plain == f"{shown.caption}\n{shown.alt}"
        assert re.search(r"[\u4e00-\u9fff]", zh_caption) and re.search(r"[\u4e00-\u9fff]", zh_alt)
        assert (zh_caption, zh_alt) != (caption, alt)


def test_a_drawing_whose_numbers_differ_or_that_is_unknown_keeps_its_words():
    """figure_words re-words a registered drawing only when its builder, in English, gives
    the stored alt text: other numbers, or an unregistered caption, stay as stored."""
    from tokenpath._sphinx.editions import figure_words
    from tokenpath.figures import figure_bundle
    from tokenpath.figures.position import sinusoidal_heatmap

    same = sinusoidal_heatmap()
    stored = figure_bundle(b"", same.alt, same.caption)["text/html"]
    other = figure_bundle(b"", sinusoidal_heatmap(8, 4).alt, same.caption)["text/html"]
    unknown = figure_bundle(b"", same.alt, "A sketch")["text/html"]
    with using("zh_CN"):
        assert "正余弦" in figure_words(stored)
        assert figure_words(other) == other
        assert figure_words(unknown) == unknown


def test_the_chinese_html_edition_takes_each_code_cells_outputs_from_the_chinese_notebook():
    """editions.chinese_outputs: the English page's markdown and code, the Chinese
    notebook's outputs; a Chinese notebook whose code cells differ stops the build."""
    from tokenpath._sphinx.editions import chinese_outputs

    path = catalogs.ROOT / "notebooks" / "04_attention.ipynb"
    en, cn = path.read_text(encoding="utf-8"), (path.parent / "zh" / path.name).read_text(encoding="utf-8")
    shown = json.loads(chinese_outputs(en, cn))
    english, chinese = _load(path), json.loads(cn)
    for a, b, c in zip(shown["cells"], english["cells"], chinese["cells"]):
        assert a["source"] == b["source"]
        if a["cell_type"] == "code":
            assert a["outputs"] == c["outputs"]
    assert "尚未编写" in json.dumps(shown, ensure_ascii=False) and "Not written yet" not in json.dumps(shown)
    chinese["cells"] = [c for c in chinese["cells"] if c["cell_type"] != "code"][:3]
    with pytest.raises(ValueError, match="does not hold its code cells"):
        chinese_outputs(en, json.dumps(chinese), "04_attention.ipynb")
