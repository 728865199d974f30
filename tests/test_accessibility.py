"""Accessibility checks that cover every registered figure and slider, whatever chapter
adds them.

A figure's alt text is what a screen-reader user gets instead of the picture, so it must
carry the figure's numbers, and they must be the engine's: for every figure in
``tokenpath.figures.FIGURES``

- the alt text is one or more sentences that name at least three numbers;
- most of the numbers it names (at least ``FROM_TRACE``) are values of the figure's
  trace, at the precision shown (a trace value, or the shape of one of its arrays);
- it names most of the trace's numbers that the figure prints as labels (at least
  ``COVERAGE`` of the distinct values drawn as text outside the axis tick labels).

Sliders are checked in the browser, where a reader uses them: ``make check-lab`` moves
every slider of every notebook with the keyboard only, and ``make check-book`` moves the
HTML edition's range inputs with the keyboard, checking that each has a visible label
and an ``aria-valuetext`` that follows it, and that the caption, the image's text
alternative, follows the slider too.
"""

from __future__ import annotations

import dataclasses
import math
import re
from fractions import Fraction

import numpy as np
import pytest
from matplotlib.text import Text

from tokenpath import figures
from tokenpath.figures import FIGURES, style

figures.registry()

#: Share of the numbers in an alt text that must be trace values.
FROM_TRACE = 2 / 3
#: Share of the trace values printed in a figure that its alt text must name.
COVERAGE = 1 / 2
#: Arrays longer than this are samples, not numbers a reader is shown.
MAX_ARRAY = 64

#: A number as the book prints it: −0.3, 1/3, 16.00, 402,653,184 (not 32K, not x₁).
NUMBER = re.compile(r"(?<![\w.,])([−-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:/\d+)?)(?![\w]|,\d{3})")


def trace_values(obj, out: set | None = None, depth: int = 0) -> set[float]:
    """Every finite number in a trace: scalars, small arrays and lists (elements and
    shapes), nested dataclasses, tuples and dicts."""
    out = set() if out is None else out
    if depth > 8 or obj is None or isinstance(obj, str):
        return out
    if isinstance(obj, (bool, np.bool_, int, float, np.integer, np.floating)):
        x = float(obj)
        if math.isfinite(x):
            out.add(x)
    elif isinstance(obj, np.ndarray):
        out.update(float(k) for k in obj.shape)
        if obj.size <= MAX_ARRAY and obj.dtype.kind in "biuf":
            for x in obj.astype(float).ravel().tolist():
                trace_values(x, out, depth + 1)
    elif dataclasses.is_dataclass(obj):
        for f in dataclasses.fields(obj):
            trace_values(getattr(obj, f.name), out, depth + 1)
    elif isinstance(obj, (list, tuple)):
        out.add(float(len(obj)))
        if len(obj) <= MAX_ARRAY:
            for x in obj:
                trace_values(x, out, depth + 1)
    elif isinstance(obj, dict):
        for x in obj.values():
            trace_values(x, out, depth + 1)
    return out


def parse(token: str) -> tuple[float, float]:
    """A printed number and the tolerance its printed precision implies:
    ``"0.670"`` → (0.67, 0.0005), ``"1/3"`` → (0.333…, 1e-9), ``"−2"`` → (−2, 0.5e-0)."""
    token = token.replace("−", "-").replace(",", "")
    if "/" in token:
        num, den = token.split("/")
        return (float(Fraction(int(num), int(den))) if int(den) else math.nan), 1e-9
    decimals = len(token.split(".")[1]) if "." in token else 0
    return float(token), 0.5 * 10.0 ** -decimals + 1e-12


def named(token: str, values: set[float]) -> bool:
    x, tol = parse(token)
    return any(abs(x - v) <= tol for v in values)


def label_numbers(figure) -> list[str]:
    """Numbers the figure prints as text, other than axis tick labels."""
    ticks = {id(t) for ax in figure.axes for t in ax.get_xticklabels() + ax.get_yticklabels()}
    texts = [t.get_text() for t in figure.findobj(Text) if id(t) not in ticks and t.get_text()]
    return [n for s in texts for n in NUMBER.findall(s)]


@pytest.fixture
def drawn():
    """A function building figure ``number`` (its artists and texts, no raster: a third
    of the cost of its PNG and SVG), every figure it built closed afterwards."""
    built = []

    def build(number: int):
        d = figures.render(number)
        built.append(d.figure)
        return d, d.alt

    yield build
    for figure in built:
        style.close(figure)


@pytest.mark.parametrize("number", sorted(FIGURES))
def test_alt_text_names_the_figure_s_numbers_from_its_trace(number, drawn):
    d, alt = drawn(number)
    assert alt and alt.strip().endswith(".") and len(alt) >= 40, f"figure {number}: alt text too thin: {alt!r}"
    tokens = NUMBER.findall(alt)
    assert len(tokens) >= 3, f"figure {number}: the alt text names {len(tokens)} number(s): {alt!r}"
    values = trace_values(d.trace)
    strangers = [t for t in tokens if not named(t, values)]
    share = 1 - len(strangers) / len(tokens)
    assert share >= FROM_TRACE, (
        f"figure {number}: only {share:.0%} of the alt text's numbers are trace values; "
        f"not in the trace: {strangers}"
    )
    shown = {parse(t)[0] for t in label_numbers(d.figure) if named(t, values)}
    said = [parse(t)[0] for t in tokens]
    unsaid = sorted(v for v in shown if not any(abs(v - s) < 1e-9 for s in said))
    if shown:
        coverage = 1 - len(unsaid) / len(shown)
        assert coverage >= COVERAGE, (
            f"figure {number}: the alt text names {coverage:.0%} of the trace values the figure prints; "
            f"missing {unsaid}"
        )


def test_numbers_are_read_as_printed():
    text = "S = [[1.0986, −∞], [0, 0.6931]], A[1] = 1/3, 402,653,184 parameters, 32K rows, x₁, [1, 4, 16]."
    assert NUMBER.findall(text) == ["1.0986", "0", "0.6931", "1", "1/3", "402,653,184", "1", "4", "16"]
    assert parse("402,653,184") == (402653184.0, 0.5 + 1e-12)


def test_the_alt_text_check_rejects_numbers_that_are_not_in_the_trace():
    values = trace_values((np.array([0.75, 0.25]), 1.0986))
    assert named("0.75", values) and named("1.10", values) and named("1/4", values)
    assert not named("0.6", values) and not named("3", values) and not named("0.751", values)
