"""Figure tests: every registered figure builds, is byte-identical on rerun, matches the
committed file, draws its numbers from the engine, and needs no glyph the book lacks.

Expected numbers are computed here with independent engine calls and formatted with
``tokenpath.fmt``; nothing is compared against a hand-typed value.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from matplotlib import font_manager
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.text import Text

from tokenpath import attention as A
from tokenpath import packing as PK
from tokenpath.lessons import attention as LA
from tokenpath import examples as ex
from tokenpath import figures
from tokenpath import fmt
from tokenpath.figures import FIGURES, style
from tokenpath.figures import __main__ as cli
from tokenpath.figures import real_model as real_figures
from tokenpath.figures._fonts import FAMILY, FONT_PATH, missing_glyphs

ROOT = Path(__file__).resolve().parents[1]
FIGURE_DIR = ROOT / "figures"
MINUS = fmt.MINUS
NEG_INF = fmt.num(-np.inf, minus=MINUS)

figures.registry()
NUMBERS = sorted(FIGURES)
#: The figures built in tokenpath.figures.attention and tokenpath.figures.attention_mask.
ATTENTION = (7, 8, 9, 10, 13, 14)


class Rendered:
    """One render of a figure: its bytes, every string it draws (read after the draws,
    so tick labels are included) and the texts that run past its edge, measured by the
    Agg draw that writes its PNG (no draw of its own)."""

    def __init__(self, number: int):
        drawn = figures.render(number)
        self.drawn = drawn
        past = []

        def measure(event):
            if isinstance(event.renderer, RendererAgg):
                past.append(style.texts_past_edge(event.canvas.figure, event.renderer))

        hook = drawn.figure.canvas.mpl_connect("draw_event", measure)
        self.svg = drawn.svg()
        self.png = drawn.png()
        drawn.figure.canvas.mpl_disconnect(hook)
        assert past, f"figure {number}: its PNG was not drawn by Agg"
        self.past_edge = past[-1]  # the PNG's draw (a builder may have drawn before, to measure)
        self.texts = [t.get_text() for t in drawn.figure.findobj(Text) if t.get_text()]
        style.close(drawn.figure)

    @property
    def alt(self) -> str:
        return self.drawn.alt

    def text(self, name: str) -> str:
        artist = self.drawn.artists[name]
        assert isinstance(artist, Text), f"artist {name!r} is not a Text"
        return artist.get_text()


_CACHE: dict[int, Rendered] = {}


def rendered(number: int) -> Rendered:
    if number not in _CACHE:
        _CACHE[number] = Rendered(number)
    return _CACHE[number]


# ------------------------------------------------------------------ the registry


def test_attention_figures_are_registered():
    assert set(ATTENTION) <= set(FIGURES)


@pytest.mark.parametrize("number", NUMBERS)
def test_figure_builds_with_its_number_title_and_alt_text(number):
    r = rendered(number)
    assert r.drawn.number == number
    assert r.drawn.title == FIGURES[number].title
    assert r.alt and r.alt.endswith(".")
    assert r.drawn.trace is not None


# ------------------------------------------------------------------ determinism


# One render per figure and session serves every check. The committed figNN.svg/.png
# were written by a separate `make figures` process, so a render here that equals them
# byte for byte is both current and deterministic across processes; the alt text, which
# no figure file holds, is compared with the one the committed notebook shows (written
# by `make sync`, another process), so it is deterministic across processes too. A second
# render in the same process (the CLI test below, figure 9) equals the first byte for byte.


def _notebook_alt_texts() -> dict[int, str]:
    """Figure number -> alt text, from the ``show(n)`` outputs stored in the notebooks."""
    found: dict[int, str] = {}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            for out in cell.get("outputs", []):
                plain = "".join(out.get("data", {}).get("text/plain", ""))
                match = re.match(r"Figure (\d+) · [^\n]*\n", plain)
                if match:
                    found.setdefault(int(match.group(1)), plain[match.end():])
    return found


NOTEBOOK_ALT = _notebook_alt_texts()


#: Figures drawn from the pretrained model's float32 forward pass. Their numbers are the
#: same on every run of one machine, but float32 matrix products sum in the order the
#: BLAS kernel for the processor chooses, so another processor moves a drawn point by a
#: few millionths of a point: the committed files are compared with that tolerance.
FLOAT32_FIGURES = {real_figures.NEXT, real_figures.LENS, real_figures.HEADS}
_NUMBER = re.compile(rb"-?\d+\.\d+")


def _same_within(committed: bytes, drawn: bytes, tolerance: float) -> bool:
    """The two SVGs are the same text but for decimal numbers that differ by at most
    ``tolerance``."""
    if _NUMBER.sub(b"#", committed) != _NUMBER.sub(b"#", drawn):
        return False
    a = np.array([float(x) for x in _NUMBER.findall(committed)])
    b = np.array([float(x) for x in _NUMBER.findall(drawn)])
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= tolerance))


def _pixels(data: bytes) -> np.ndarray:
    from io import BytesIO

    from PIL import Image

    return np.asarray(Image.open(BytesIO(data)).convert("RGBA"), dtype=np.int16)


@pytest.mark.parametrize("number", NUMBERS)
def test_committed_figure_files_are_current(number):
    r = rendered(number)
    for ext, data in (("svg", r.svg), ("png", r.png)):
        path = FIGURE_DIR / f"fig{number:02d}.{ext}"
        assert path.exists(), f"{path.name} is missing: run make figures"
        committed = path.read_bytes()
        if committed == data or number not in FLOAT32_FIGURES:
            assert committed == data, f"{path.name} is out of date: run make figures"
        elif ext == "svg":
            assert _same_within(committed, data, 1e-3), f"{path.name} is out of date: run make figures"
        else:  # antialiased edges may shade differently; nothing else may move
            a, b = _pixels(committed), _pixels(data)
            assert a.shape == b.shape, f"{path.name} is out of date: run make figures"
            changed = np.any(np.abs(a - b) > 64, axis=-1)
            assert changed.mean() < 1e-3, f"{path.name} is out of date: run make figures"


def test_the_float32_tolerance_still_sees_a_moved_number():
    svg = b'<path d="M 10.000001 20.5 L 30.25 40"/>'
    assert _same_within(svg, svg.replace(b"10.000001", b"10.000002"), 1e-3)
    assert not _same_within(svg, svg.replace(b"30.25", b"30.26"), 1e-3)
    assert not _same_within(svg, svg.replace(b"L", b"M"), 1e-3)


@pytest.mark.parametrize("number", NUMBERS)
def test_alt_text_is_the_one_the_committed_notebook_shows(number):
    assert number in NOTEBOOK_ALT, f"no notebook shows figure {number}"
    assert rendered(number).alt == NOTEBOOK_ALT[number], f"figure {number}: run make sync"



# ------------------------------------------------------------------ edges


@pytest.mark.parametrize("number", NUMBERS)
def test_no_text_runs_past_the_figure_s_edge(number):
    assert rendered(number).past_edge == [], f"figure {number} cuts its own texts"


def _wide_title():
    fig = style.new_figure(2.0, 1.5)
    ax = fig.add_axes((0.3, 0.3, 0.6, 0.5))
    ax.set_title("a title far wider than the figure that holds it")
    ax.set_ylabel("fits")
    return fig


def test_a_title_past_the_edge_is_named_in_the_png_and_in_a_fresh_draw():
    fig = _wide_title()
    found = []
    hook = fig.canvas.mpl_connect("draw_event", lambda e: found.extend(style.texts_past_edge(fig, e.renderer)))
    style.png_bytes(fig)
    fig.canvas.mpl_disconnect(hook)
    fresh = style.texts_past_edge(fig)
    style.close(fig)
    for names in (found, fresh):
        assert len(names) == 1 and names[0].startswith("'a title far wider"), names
        assert "past the left and right edges" in names[0]
    assert "of 300 × 225 px" in found[0] and "of 200 × 150 px" in fresh[0]  # the PNG's dpi, the figure's


def test_text_hidden_blank_or_on_an_undrawn_tick_is_not_measured():
    fig = _wide_title()
    ax = fig.axes[0]
    ax.title.set_visible(False)
    ax.set_xlim(0, 1)
    ax.set_xticks([0.0, 1.0, 50.0], ["0", "1", "far outside, never drawn"])
    ax.set_xlim(0, 1)
    fig.text(0.99, 0.5, "   ")
    assert style.texts_past_edge(fig) == []
    ax.title.set_visible(True)
    ax.set_visible(False)
    assert style.texts_past_edge(fig) == []
    style.close(fig)


@pytest.mark.parametrize("kwargs, error, name", [
    (dict(figure="fig"), TypeError, "figure"), (dict(slack=-1), ValueError, "slack"),
    (dict(slack="1"), ValueError, "slack"),
])
def test_texts_past_edge_refuses_bad_arguments_by_name(kwargs, error, name):
    fig = style.new_figure(1.0, 1.0)
    with pytest.raises(error, match=name):
        style.texts_past_edge(**{"figure": fig, **kwargs})
    style.close(fig)


def test_fit_lines_breaks_at_a_space_or_a_line_break_and_keeps_the_end():
    from tokenpath.figures.draw import fit_lines, text_width

    text = "Next token after “def␣read_lines(path):↵␣×4with␣open(path)␣as␣f:↵␣×8return␣│join(path,␣f.read()”"
    width = text_width(text, size=11, weight="bold") / 1.6
    two = fit_lines(text, width, size=11, weight="bold")
    assert two.replace("\n", "") == text and two.count("\n") == 1
    assert two.split("\n")[0].endswith("↵") and all(text_width(l, size=11, weight="bold") <= width
                                                     for l in two.split("\n"))
    one = fit_lines(text, width, size=11, weight="bold", lines=1)
    assert one.startswith("…") and text.endswith(one[1:]) and text_width(one, size=11, weight="bold") <= width
    assert fit_lines(text, 2 * width, size=11, weight="bold") == text


@pytest.mark.parametrize("kwargs, error, name", [
    (dict(lines=0), ValueError, "lines"), (dict(lines=1.5), ValueError, "lines"),
    (dict(width=0.0), ValueError, "width"), (dict(width="2"), ValueError, "width"),
    (dict(s=3), TypeError, "s must"), (dict(size=0), ValueError, "size"),
])
def test_fit_lines_refuses_bad_arguments_by_name(kwargs, error, name):
    from tokenpath.figures.draw import fit_lines

    with pytest.raises(error, match=name):
        fit_lines(**{"s": "text", "width": 2.0, "size": 10, **kwargs})


# --------------------------------------------------------------- bad input, CLI


@pytest.mark.parametrize("bad, error", [(99, ValueError), (0, ValueError), ("7", TypeError),
                                        (7.0, TypeError), (True, TypeError), (None, TypeError)])
def test_render_and_show_reject_bad_figure_numbers(bad, error):
    with pytest.raises(error, match="number"):
        figures.render(bad)
    with pytest.raises(error, match="number"):
        figures.show(bad)


def test_cli_only_writes_just_that_figure(tmp_path, capsys):
    assert cli.main(["--only", "9", "--out", str(tmp_path)]) == 0
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == ["fig09.png", "fig09.svg"]
    printed = capsys.readouterr().out.split()
    assert sorted(Path(p).name for p in printed) == written
    assert (tmp_path / "fig09.svg").read_bytes() == rendered(9).svg
    assert (tmp_path / "fig09.png").read_bytes() == rendered(9).png


def test_cli_rejects_an_unknown_figure_number_and_names_the_valid_ones(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--only", "99", "--out", str(tmp_path)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "99" in err and ", ".join(map(str, NUMBERS)) in err
    assert not any(tmp_path.iterdir())


def test_cli_rejects_fewer_than_one_job(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--only", "9", "--jobs", "0", "--out", str(tmp_path)])
    assert exc.value.code == 2
    assert "--jobs must be at least 1, got 0" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_cli_rejects_a_non_integer_figure_number(tmp_path, capsys):
    with pytest.raises(SystemExit):
        cli.main(["--only", "seven", "--out", str(tmp_path)])
    assert "invalid int value" in capsys.readouterr().err


def test_show_returns_html_with_the_alt_text():
    display = figures.show(8)
    bundle = display._repr_mimebundle_()
    assert display.alt == rendered(8).alt
    assert 'id="fig08"' in bundle["text/html"]
    assert bundle["text/plain"].endswith(rendered(8).alt)


# ------------------------------------------------------------------ fonts


@pytest.mark.parametrize("number", NUMBERS)
def test_every_drawn_string_has_glyphs(number):
    r = rendered(number)
    for s in r.texts + [r.alt, r.drawn.title]:
        assert missing_glyphs(s) == [], f"figure {number} draws {s!r} without a CJK glyph"


def test_cjk_text_falls_back_to_the_shipped_font():
    from fontTools.ttLib import TTFont

    with style.book_style():
        found = font_manager.fontManager.findfont(
            font_manager.FontProperties(family=FAMILY), fallback_to_default=False
        )
        fig = style.new_figure(2.0, 1.0)
        text = fig.text(0.5, 0.5, "猫")
        families = text.get_fontproperties().get_family()
    assert Path(found).resolve() == FONT_PATH.resolve()
    assert FAMILY in families
    assert ord("猫") in TTFont(str(FONT_PATH))["cmap"].getBestCmap()
    assert missing_glyphs("猫") == []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a missing glyph would warn here
        style.png_bytes(fig)
    style.close(fig)


# -------------------------------------------------- numbers come from the engine


def _fig8_engine():
    return A.causal_attention(ex.FIG8_Q, ex.FIG8_K, ex.FIG8_U)


def test_fig07_shows_the_ids_and_visibility_row_of_the_engine():
    ids = ex.encode_chars(ex.TEXT)
    row = A.causal_mask(ids.size)[2].astype(int)
    r = rendered(7)
    assert fmt.vec(row) in r.alt
    assert fmt.vec(ids) in r.alt
    assert [r.text(f"vis[{j}]") for j in range(ids.size)] == [fmt.num(v) for v in row]
    for v in ids:
        assert f"ID {fmt.num(v)}" in r.texts
    for j, ch in enumerate(ex.TEXT):
        assert r.text(f"char[{j}]") == ch


def test_fig08_scores_weights_and_sums_come_from_the_engine():
    t = _fig8_engine()
    r = rendered(8)
    w = t.weights
    assert fmt.mat(w, fractions=True) in r.alt
    assert f"column sums {fmt.vec(w.sum(axis=0), fractions=True)}" in r.alt
    for i in range(3):
        assert r.text(f"A.rowsum[{i}]") == fmt.frac(w[i].sum())
        for j in range(3):
            assert r.text(f"A[{i},{j}]") == fmt.frac(w[i, j])
            if t.mask[i, j]:
                assert r.text(f"S[{i},{j}]") == fmt.num(t.scores[i, j], 4, bare_ints=True)
            else:
                assert r.text(f"S[{i},{j}]") == NEG_INF
    assert [r.text(f"A.colsum[{j}]") for j in range(3)] == [fmt.frac(v) for v in w.sum(axis=0)]
    # S[1,0] is a visible zero with exp 1, drawn as such
    assert t.mask[1, 0] and r.text("S[1,0]") == fmt.num(t.scores[1, 0])
    assert r.text("exp[1,0]").endswith(fmt.num(np.exp(t.scores[1, 0])))
    assert fmt.num(t.scores[0, 0], 4) in r.texts


def test_fig09_row_and_output_come_from_the_engine():
    t = _fig8_engine()
    r = rendered(9)
    assert fmt.mat(t.output, fractions=True) in r.alt
    assert fmt.vec(t.output.shape) in r.alt
    assert fmt.vec(t.output[2], fractions=True) in r.alt
    for j in range(3):
        assert r.text(f"w[{j}]") == fmt.frac(t.weights[2, j])
        for f in range(2):
            assert r.text(f"c[{j},{f}]") == fmt.frac(t.weights[2, j] * t.value[j, f])
    for i in range(3):
        for f in range(2):
            assert r.text(f"O[{i},{f}]") == fmt.frac(t.output[i, f])
    assert [r.text(f"o[{f}]") for f in range(2)] == [fmt.frac(v) for v in t.output[2]]


def test_fig10_rounded_and_full_precision_numbers_come_from_the_engine():
    t = A.attention(ex.FIG10_Q, ex.FIG10_K, ex.FIG10_U)
    d = ex.FIG10_DIGITS
    rounded = LA.output_from_rounded_weights(t, d)[0]
    r = rendered(10)
    s, e, w = t.scores[0], np.exp(t.scores[0]), t.weights[0]
    # integer-valued entries are written exactly, the rest rounded: [0.7071, 0], [2.028, 1]
    score_text = fmt.vec(s, 4, bare_ints=True)
    exp_text = fmt.vec(e, d, bare_ints=True)
    for piece in (score_text, exp_text, fmt.vec(w, d), fmt.vec(w, d + 3), fmt.vec(rounded, d),
                  fmt.vec(t.output[0], d + 3)):
        assert piece in r.alt
    assert r.text("out") == fmt.vec(rounded, d)
    assert fmt.vec(t.output[0], d + 3) in r.text("out.full")
    for j in range(2):
        assert r.text(f"weight[{j}]") == fmt.num(w[j], d)
        assert r.text(f"weight.full[{j}]").endswith(fmt.num(w[j], d + 3))
        assert r.text(f"value[{j}]") == fmt.vec(t.value[j])
    assert r.text("score[0]") == fmt.num(s[0], 4)
    assert r.text("exp.sum") == fmt.num(e.sum(), d)


def test_fig13_shift_loss_mask_visibility_and_generation_come_from_the_engine():
    x = ex.encode_chars(ex.TEXT)
    y = np.append(x[1:], ex.EOS)  # the shift, computed independently of shift_targets
    c = ex.FIG13_COLUMN
    vis = A.causal_mask(x.size)
    generated = np.append(x[: c + 1], ex.FIG13_SAMPLED)
    r = rendered(13)
    for piece in (fmt.vec(x), fmt.vec(y), fmt.vec(np.ones(x.size, dtype=int)), fmt.vec(x[vis[c]]),
                  fmt.vec(x[: c + 1]), fmt.vec(generated), f"x[{c}] = {x[c]}", f"y[{c}] = {y[c]}"):
        assert piece in r.alt
    assert [r.text(f"x[{t}]") for t in range(x.size)] == [fmt.num(v) for v in x]
    assert [r.text(f"y[{t}]") for t in range(x.size)] == [fmt.num(v) for v in y]
    for i in range(x.size):
        for j in range(x.size):
            assert r.text(f"M[{i},{j}]") == fmt.num(int(vis[i, j]))
    assert [r.text(f"gen[{k}]") for k in range(generated.size)] == [fmt.num(v) for v in generated]
    assert f"reads x[0:{c + 1}] = {fmt.vec(x[vis[c]])}, not x[{c + 1}] = {x[c + 1]}" in " ".join(r.texts)


def test_fig14_cache_mask_and_dropped_history_come_from_the_engine():
    right = A.cache_mask(ex.FIG14_PAST, ex.FIG14_NEW)
    wrong = LA.misaligned_cache_mask(ex.FIG14_PAST, ex.FIG14_NEW)
    n, k = right.shape
    r = rendered(14)
    assert f"shape {fmt.vec(right.shape)}" in r.alt
    assert f"drops {int((right & ~wrong).sum())} cells" in r.alt
    for i in range(n):
        for j in range(k):
            assert r.text(f"right.M[{i},{j}]") == (fmt.num(0) if right[i, j] else NEG_INF)
            assert r.text(f"wrong.M[{i},{j}]") == (fmt.num(0) if wrong[i, j] else NEG_INF)
            hatched = r.drawn.artists[f"wrong.cell[{i},{j}]"].get_hatch()
            assert bool(hatched) == bool(right[i, j] and not wrong[i, j])
    assert f"P = {ex.FIG14_PAST}" in r.text("right.band.cache")


def test_shift_targets_moves_left_and_appends_eos():
    x = ex.encode_chars(ex.TEXT)
    assert np.array_equal(PK.shift_targets(x, ex.EOS), np.append(x[1:], ex.EOS))
    batch = np.stack([x, x[::-1]])
    assert np.array_equal(PK.shift_targets(batch, ex.EOS)[1], np.append(x[::-1][1:], ex.EOS))
    with pytest.raises(ValueError, match="ids"):
        PK.shift_targets([], ex.EOS)
    with pytest.raises(TypeError, match="ids"):
        PK.shift_targets([1.5, 2.0], ex.EOS)
    with pytest.raises(ValueError, match="eos"):
        PK.shift_targets(x, -1)


def test_draw_helpers_check_their_arguments():
    from tokenpath.figures import attention as FA

    fig = style.new_figure(2.0, 2.0)
    ax = fig.add_axes((0, 0, 1, 1))
    t = _fig8_engine()
    with pytest.raises(TypeError, match="ax"):
        FA.draw_scores(None, t)
    with pytest.raises(TypeError, match="trace"):
        FA.draw_weights(ax, "not a trace")
    with pytest.raises(ValueError, match="trace"):
        FA.draw_scores(ax, A.attention(np.ones((2, 3, 2)), np.ones((2, 3, 2)), np.ones((2, 3, 2))))
    with pytest.raises(ValueError, match="row"):
        FA.draw_weighted_sum(ax, t, 5)
    with pytest.raises(TypeError, match="at"):
        FA.draw_output_matrix(ax, t, at="top")
    with pytest.raises(ValueError, match="query"):
        LA.read_paths("abac", 4)
    style.close(fig)
