"""The Sphinx extension of the HTML edition (``make book``; configuration in
:mod:`tokenpath._sphinx.conf`).

Sphinx, MyST-NB and sphinx-book-theme do the pages, navigation, search and themes;
this package adds only what the book needs on top, each part in its own module:

- math as MathML, converted from TeX at build time (:func:`tex`), so formulas are
  typeset by the browser with no script and no CDN;
- the table of contents in reading order and, on each page, how to open it as a
  notebook and its ``.ipynb`` (:mod:`.pages`);
- the glossary as a Sphinx glossary, Chinese marked ``lang="zh"`` (:mod:`.glossary`);
- kernel-free sliders (:mod:`.sliders`): the same component as in JupyterLab
  (:mod:`.component`) over frames chosen by :mod:`.grids`, cropped by :mod:`.crop` and
  stored by :mod:`.frames`, rendered by worker processes while Sphinx reads the pages
  and kept between builds (:mod:`.framecache`); and offline "Check yourself" (:mod:`.quiz`);
- the font subset for every non-Latin character (:mod:`.fonts`) and the size budgets
  (:mod:`.pages`);
- a link to the PDF edition in every page's sidebar when ``make pdf`` builds it (:mod:`.pdflink`).
"""

from __future__ import annotations

import re
from pathlib import Path

STATIC = Path(__file__).with_name("static")


def heading_slug(text: str) -> str:
    """A heading's anchor as JupyterLab writes it (the text, spaces as hyphens), which
    is what the prose's notebook links use.

    >>> heading_slug("4.2 Why divide by √d_h")
    '4.2-Why-divide-by-√d_h'
    """
    return text.strip().replace(" ", "-")


def tex(source: str, *, block: bool = False) -> str:
    """TeX math to a MathML element (``display="block"`` for display math).

    >>> tex("x^2")
    '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline"><mrow><msup><mi>x</mi><mn>2</mn></msup></mrow></math>'
    """
    from latex2mathml.converter import convert

    source = source.strip()
    try:
        mathml = convert(source, display="block" if block else "inline")
    except Exception as exc:  # latex2mathml raises several exception types
        raise ValueError(f"cannot convert this TeX to MathML ({type(exc).__name__}): {source!r}") from exc
    unknown = re.findall(r">(\\[A-Za-z]+)<", mathml)
    if unknown:
        raise ValueError(f"cannot convert this TeX to MathML (unknown command {unknown[0]}): {source!r}")
    return mathml


#: Notation written as plain text in the prose: a one-letter name with a short
#: subscript (d_h, W_Q, d_ff, d_model), not inside a longer word.
NOTATION = re.compile(r"(?<![\w.])([A-Za-z])_([A-Za-z0-9]{1,5})(?![\w(])")


def notation_runs(text: str) -> list[tuple[str, bool]]:
    """``text`` cut into (piece, is_notation) runs, notation as TeX.

    >>> notation_runs("divide by √d_h, not d_model or add_special")
    [('divide by √', False), ('d_{h}', True), (', not ', False), ('d_{model}', True), (' or add_special', False)]
    """
    out, at = [], 0
    for m in NOTATION.finditer(text):
        if m.start() > at:
            out.append((text[at:m.start()], False))
        out.append((f"{m.group(1)}_{{{m.group(2)}}}", True))
        at = m.end()
    if at < len(text):
        out.append((text[at:], False))
    return out


class Notation:
    """Typeset the prose's plain-text notation (d_h, W_Q) as math, outside code."""

    @staticmethod
    def apply_to(document) -> None:
        from docutils import nodes

        for text in list(document.findall(nodes.Text)):
            parent = text.parent
            if not isinstance(parent, (nodes.paragraph, nodes.emphasis, nodes.strong, nodes.reference,
                                       nodes.list_item, nodes.entry)) or not NOTATION.search(str(text)):
                continue
            if any(isinstance(a, (nodes.literal_block, nodes.title, nodes.raw)) for a in _ancestors(parent)):
                continue
            parts = [nodes.math(p, p) if tex_ else nodes.Text(p) for p, tex_ in notation_runs(str(text))]
            parent.replace(text, parts)


def _ancestors(node):
    while node is not None:
        yield node
        node = node.parent


def _visit_math(self, node):
    from docutils import nodes

    self.body.append(tex(node.astext()))
    raise nodes.SkipNode


def _visit_math_block(self, node):
    from docutils import nodes

    self.body.append(f'<div class="math-wrapper">{tex(node.astext(), block=True)}</div>')
    raise nodes.SkipNode


def _notation(app, doctree):
    Notation.apply_to(doctree)


def setup(app):
    from . import editions, framecache, glossary, pages, pdflink, quiz, sliders

    app.connect("doctree-read", _notation)
    app.add_html_math_renderer("mathml", (_visit_math, None), (_visit_math_block, None))
    app.connect("builder-inited", _static)
    for part in (editions, pages, glossary, sliders, framecache, quiz, pdflink):
        part.setup(app)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}


def _static(app):
    from . import component

    made = Path(app.doctreedir) / "tokenpath-static"  # the slider component, made from its module
    component.write(made)
    app.config.html_static_path += [str(STATIC), str(made)]
    app.add_css_file(component.STYLE)
    app.add_css_file("tokenpath.css")
    app.add_js_file(component.SCRIPT, loading_method="defer")
    app.add_js_file("tokenpath.js", loading_method="defer")
