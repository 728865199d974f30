"""The PDF edition (``make pdf``): one PDF per language, printed by headless Chromium
from the offline HTML edition (``make book``).

Each edition folder of the HTML build (``build/html/``, or one folder per language such
as ``build/html/en/`` and ``build/html/zh/``, found by :func:`.editions.find`) becomes
``build/pdf/tokenpath-<language>.pdf``:

1. :mod:`.assemble` joins the pages into one print document in the reading order of
   the edition's table of contents: a cover, the contents, then every page with its
   ids prefixed by the page's name so links between pages become links inside the
   PDF; every ``<details>`` open, scripts left out, so each slider shows its default
   frame and caption (the HTML edition's no-script view) with a line naming its
   default state;
2. :mod:`.render` prints it with Chromium (``page.pdf``) under the print stylesheet
   ``tokenpath/_sphinx/static/tokenpath-print.css``: A4, one named page per chapter
   whose margin boxes carry the chapter's title and the page number. Chromium keeps
   the links, embeds the fonts (subsets), writes the text as text and tags the PDF.
   The contents' page numbers need two prints: the first, with the numbers left blank
   in a column of fixed width, gives the page of every entry's named destination (read
   with pypdf); the second prints them, and its destinations must be the same pages
   (:func:`.pages.toc_numbers`); :mod:`.outline` then adds the contents as bookmarks,
   and the title and language;
3. :mod:`.pages` makes the bytes reproducible: Chromium writes the time of printing as
   ``/CreationDate`` and ``/ModDate`` and nothing else that changes between runs;
   :func:`.pages.fix_dates` replaces both, in place and at the same length, with
   ``SOURCE_DATE_EPOCH`` (the Makefile sets it to the last commit's time) or, without
   it, blanks them, before the bookmarks are appended (by pypdf, which writes the same
   bytes for the same input).

``tests/test_pdf.py`` opens the result with poppler's tools and checks it.
"""

from __future__ import annotations

#: The file name of a language's PDF; the HTML edition links to it (``tokenpath._sphinx.pdflink``).
PDF_NAME = "tokenpath-{lang}.pdf"


def language_code(language: str | None) -> str:
    """The short code a PDF is named by: the primary subtag of a Sphinx ``language`` or
    an HTML ``lang`` attribute.

    >>> language_code("zh_CN"), language_code("en"), language_code(None)
    ('zh', 'en', 'en')
    """
    code = (language or "en").replace("_", "-").split("-")[0].lower()
    if not code.isalpha():
        raise ValueError(f"language must be a language tag such as 'en' or 'zh_CN', got {language!r}")
    return code


def pdf_name(language: str | None) -> str:
    """``tokenpath-<code>.pdf`` for ``language``.

    >>> pdf_name("zh_CN")
    'tokenpath-zh.pdf'
    """
    return PDF_NAME.format(lang=language_code(language))
