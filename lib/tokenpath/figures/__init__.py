"""The book's figures, each drawn by code from an engine trace.

A figure module holds ``draw_*(ax, trace, …)`` helpers that take an ``Axes``, draw,
and return the artists they made (so a widget can update them in place), plus one
builder per figure number that computes the trace with the engine, lays out a
:class:`~matplotlib.figure.Figure` and writes the alt text from the same trace.

``FIGURES`` maps each figure number to its builder; ``render(n)`` builds one,
``save(n, directory)`` writes ``figNN.svg`` and ``figNN.png``, and ``show(n)`` is what
a notebook cell ends with.

Command line::

    python -m tokenpath.figures [--only 7 8 …] [--out figures]
"""

from __future__ import annotations

import base64
import html
import importlib
import pkgutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from matplotlib.figure import Figure

from ..i18n import _
from . import style

__all__ = ["DRAWINGS", "FIGURES", "PANELS", "Drawn", "FigureDisplay", "drawing", "figure_bundle", "register",
           "register_drawing", "register_panel", "registry", "render", "save", "show"]


@dataclass
class Drawn:
    """A built figure: the matplotlib figure, its alt text, and named artists."""

    number: int
    title: str
    figure: Figure
    alt: str
    artists: dict = field(default_factory=dict)
    trace: object = None

    def png(self, dpi: int = style.DPI) -> bytes:
        return style.png_bytes(self.figure, dpi)

    def svg(self) -> bytes:
        return style.svg_bytes(self.figure)


@dataclass(frozen=True)
class FigureSpec:
    number: int
    title: str
    build: Callable[[], Drawn]


FIGURES: dict[int, FigureSpec] = {}


def register(number: int, title: str):
    """Decorator: record ``build()`` as the builder of figure ``number``."""

    def wrap(build: Callable[[], Drawn]) -> Callable[[], Drawn]:
        if number in FIGURES:
            raise ValueError(f"figure {number} is registered twice")
        FIGURES[number] = FigureSpec(number, title, build)
        return build

    return wrap


def registry() -> dict[int, FigureSpec]:
    """Every figure of the book by number, with every figure module imported first.

    >>> sorted(registry())[:3]
    [1, 2, 3]
    """
    _load()
    return FIGURES


def _spec(number) -> FigureSpec:
    _load()
    if isinstance(number, bool) or not isinstance(number, int):
        raise TypeError(f"number must be an int figure number, got {type(number).__name__}")
    if number not in FIGURES:
        raise ValueError(f"number must be one of the registered figures {sorted(FIGURES)}, got {number}")
    return FIGURES[number]


def render(number: int) -> Drawn:
    """Build figure ``number`` from a fresh engine computation."""
    spec = _spec(number)
    with style.book_style():
        drawn = spec.build()
    if drawn.number != number:
        raise RuntimeError(f"builder of figure {number} returned figure {drawn.number}")
    return drawn


def save(number: int, directory: str | Path = "figures") -> list[Path]:
    """Write ``figNN.svg`` and ``figNN.png`` for figure ``number`` into ``directory``."""
    drawn = render(number)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext, data in (("svg", drawn.svg()), ("png", drawn.png())):
        path = directory / f"fig{number:02d}.{ext}"
        path.write_bytes(data)
        paths.append(path)
    style.close(drawn.figure)
    return paths


def figure_bundle(png: bytes, alt: str, caption: str, label: str | None = None) -> dict[str, str]:
    """A notebook display of a PNG: HTML (the image with its alt text, a caption, an
    optional anchor ``label``) and the same caption and alt as plain text.

    >>> figure_bundle(b"", "two bars", "A sketch")["text/plain"]
    'A sketch\\ntwo bars'
    """
    b64 = base64.b64encode(png).decode("ascii")
    anchor = "" if label is None else f' id="{html.escape(label, quote=True)}"'
    body = (
        f'<figure class="tokenpath-figure"{anchor}>'
        f'<img src="data:image/png;base64,{b64}" alt="{html.escape(alt, quote=True)}" '
        f'style="max-width:100%"/>'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
    )
    return {"text/html": body, "text/plain": f"{caption}\n{alt}"}


class FigureDisplay:
    """What a notebook cell shows for a figure.

    JupyterLab renders the HTML: the PNG with its alt text and caption. nbval compares
    the HTML (the PNG payload is replaced by a sanitizer; its bytes are checked by the
    figure tests) and the plain-text alt, so a change in any number the figure shows
    fails the notebook check.

    A numbered figure is captioned "Figure n · title" and anchored as ``#figNN``. A
    chapter's drawing that is not one of the book's numbered figures passes
    ``caption`` (its title, say) and no ``label``; ``label`` is the HTML anchor, if any.

    >>> d = FigureDisplay(Drawn(0, "A sketch", Figure(figsize=(1, 1)), "alt"), caption="A sketch")
    >>> print(d._repr_mimebundle_()["text/plain"])
    A sketch
    alt
    >>> 'id=' in d._repr_mimebundle_()["text/html"]
    False
    """

    def __init__(self, drawn: Drawn, *, caption: str | None = None, label: str | None = None):
        self.drawn = drawn
        self._png = drawn.png()
        # a registered title is in the catalog, whichever way the builder spells it
        self.caption = (_("Figure {number} · {title}").format(number=drawn.number, title=_(drawn.title))
                        if caption is None else caption)
        self.label = (f"fig{drawn.number:02d}" if caption is None else None) if label is None else label

    @property
    def alt(self) -> str:
        return self.drawn.alt

    def _repr_mimebundle_(self, include=None, exclude=None):
        return figure_bundle(self._png, self.drawn.alt, self.caption, self.label)

    def __repr__(self) -> str:
        return f"FigureDisplay(number={self.drawn.number}, caption={self.caption!r})"


#: Panels a chapter can show on their own, by (figure number, panel letter).
PANELS: dict[tuple[int, str], Callable[[], FigureDisplay]] = {}


def register_panel(number: int, panel: str):
    """Decorator: record ``build() -> FigureDisplay`` as panel ``panel`` of figure ``number``
    drawn alone (a later chapter that needs only that panel shows it with ``show(number, panel=…)``)."""

    def wrap(build: Callable[[], FigureDisplay]) -> Callable[[], FigureDisplay]:
        if (number, panel) in PANELS:
            raise ValueError(f"panel {panel!r} of figure {number} is registered twice")
        PANELS[(number, panel)] = build
        return build

    return wrap


def show(number: int, *, panel: str | None = None) -> FigureDisplay:
    """Render figure ``number`` for a notebook cell (HTML image + alt text), or only its
    panel ``panel`` where the figure's module registers that panel."""
    if panel is not None:
        _spec(number)
        if (number, panel) not in PANELS:
            known = sorted(p for n, p in PANELS if n == number)
            raise ValueError(f"panel must be one of the registered panels {known} of figure {number}, got {panel!r}")
        return PANELS[(number, panel)]()
    drawn = render(number)
    display = FigureDisplay(drawn)
    style.close(drawn.figure)
    return display


#: A chapter's drawings that are not numbered figures, by their English caption: each
#: builder, called with no argument, draws what the chapter's cell shows. The Chinese
#: notebooks and HTML edition find a stored drawing by its caption and draw it again for
#: its words (:func:`tokenpath._sphinx.editions.figure_words`).
DRAWINGS: dict[str, Callable[[], FigureDisplay]] = {}


def register_drawing(caption: str):
    """Decorator: record ``build() -> FigureDisplay`` as the drawing captioned ``caption``
    (in English) when it is shown unnumbered in a chapter."""

    def wrap(build: Callable[[], FigureDisplay]) -> Callable[[], FigureDisplay]:
        if caption in DRAWINGS:
            raise ValueError(f"a drawing captioned {caption!r} is registered twice")
        DRAWINGS[caption] = build
        return build

    return wrap


def drawing(caption: str) -> Callable[[], FigureDisplay] | None:
    """The builder of the unnumbered drawing captioned ``caption`` in English, or None.

    >>> drawing("Sinusoidal position encoding").__name__
    'sinusoidal_heatmap'
    >>> drawing("no such drawing") is None
    True
    """
    _load()
    return DRAWINGS.get(caption)


_loaded = False


def _load() -> None:
    """Import every figure module of this package (once), so their builders register.

    A figure module is any module here whose name does not start with an underscore,
    other than :mod:`.style` and :mod:`.draw` (what figures draw with); a new chapter's
    figures only need a new module.
    """
    global _loaded
    if not _loaded:
        _loaded = True
        for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
            if not info.name.startswith("_") and info.name not in ("draw", "style"):
                importlib.import_module(f"{__name__}.{info.name}")
