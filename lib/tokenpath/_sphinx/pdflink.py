"""The link from every page of the HTML edition to its PDF (``make pdf``).

The PDF is printed from the HTML edition, so the edition is built first; ``make pdf``
builds it with ``tokenpath_pdf`` set to the folder the PDFs go to (``python -m
tokenpath._build book --pdf build/pdf``), and each page's sidebar then links to
``tokenpath-<language>.pdf`` there, relative to the page. ``make book`` leaves it unset:
no link, since no PDF is made, and nothing in the edition points to a missing file.
"""

from __future__ import annotations

import os
from pathlib import Path

from .._pdf import language_code, pdf_name

#: The link's words, per language (English for any other).
LABEL = {"en": "The whole book as a PDF", "zh": "全书 PDF 版"}


def pdf_href(pdf_folder: str | Path, outdir: str | Path, pagename: str, language: str | None) -> str:
    """The link from page ``pagename`` of an edition in ``outdir`` to its PDF in
    ``pdf_folder``.

    >>> pdf_href("/b/pdf", "/b/html/zh", "04_attention", "zh_CN")
    '../../pdf/tokenpath-zh.pdf'
    """
    page_dir = Path(outdir, pagename).parent
    return Path(os.path.relpath(Path(pdf_folder, pdf_name(language)), page_dir)).as_posix()


def _context(app, pagename, templatename, context, doctree):
    folder = app.config.tokenpath_pdf
    context["tokenpath_pdf"] = pdf_href(folder, app.outdir, pagename, app.config.language) if folder else ""
    context["tokenpath_pdf_label"] = LABEL.get(language_code(app.config.language), LABEL["en"])


def setup(app):
    app.add_config_value("tokenpath_pdf", "", "html", types=[str])
    app.connect("html-page-context", _context)
