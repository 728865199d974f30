"""Widgets built once per test session and shared by the widget test modules.

Building a widget draws its figure three times (see ``tokenpath.widgets.render.Renderer``),
so each registered widget is built once, by :func:`built`; a test that moves one takes
it through :func:`widget_fixture`, which puts it back in its default state afterwards.
The static figures' PNGs at screen resolution are rendered once each (:func:`static`).
"""

from __future__ import annotations

import functools

import pytest

from tokenpath import widgets
from tokenpath.figures import style
from tokenpath.widgets.slider import static_png

#: Each built widget's default value (its state when built).
DEFAULTS: dict = {}


@functools.cache
def built(name: str):
    """The widget ``widgets.SLIDERS[name]()``, built once per session; a widget that reads
    the pretrained SmolLM2 file skips, saying how to fetch it, where the file is missing."""
    try:
        w = widgets.SLIDERS[name]()
    except FileNotFoundError as err:
        pytest.skip(str(err))
    DEFAULTS[name] = w.value
    return w


def static(number: int) -> bytes:
    """Figure ``number`` at screen resolution, as ``figures/figNN.png`` is drawn: the
    PNG ``matches_static_figure()`` compares with, rendered once per session."""
    return static_png(number)


def full_draw(w) -> bytes:
    """A full ``savefig`` of the widget's figure in its current state."""
    return style.png_bytes(w.figure, style.SCREEN_DPI)


def widget_fixture(name: str):
    """A pytest fixture giving the shared widget ``name``, reset to its default after the test."""

    @pytest.fixture
    def fixture():
        w = built(name)
        yield w
        w.update(DEFAULTS[name])

    return fixture
