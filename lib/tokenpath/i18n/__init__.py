"""The engine's words in the reader's language: a gettext domain for ``tokenpath``.

The language is chosen once per kernel, by ``tp.setup_notebook(lang="zh_CN")`` (a
Chinese notebook's first code cell) or by the HTML edition's build; the default is
English, and English output is byte for byte what it was before translation existed.
Code that shows words to a reader wraps each English sentence in :func:`_` where it is
formatted, so the catalog holds templates, not finished sentences::

    caption = _("Figure {number} · {title}").format(number=n, title=_(title))

Messages live in ``lib/tokenpath/i18n/<lang>.po`` (one gettext catalog per language,
read with Babel; no compiled ``.mo`` file is committed or needed). An entry that is
missing, empty or fuzzy falls back to the English text. ``python -m
tokenpath.i18n.catalogs update`` extracts every ``_()`` of the package into the
catalog (and the book's pages into ``locales/``); docs/translating.md is the workflow.

The book's pages that are declared translated, per language, are :data:`TRANSLATED`:
the coverage test holds each to 0 untranslated and 0 fuzzy entries, and the zh HTML
edition and notebooks show every other page in English under a one-line note.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

__all__ = ["LANGUAGES", "N_", "TRANSLATED", "_", "catalog_path", "gettext", "language", "ngettext", "pgettext",
           "set_language", "using"]

#: The languages the engine speaks: English (the source) and Simplified Chinese.
LANGUAGES = ("en", "zh_CN")
#: The book's pages (notebook names) translated in full, per language. A page listed
#: here must have every entry of its catalog translated and none fuzzy
#: (tests/test_i18n_catalogs.py); a page not listed is shown in English with a note.
TRANSLATED: dict[str, tuple[str, ...]] = {
    "zh_CN": ("00_index", "00_prerequisites", "01_bpe_merges", "02_utf8_splits", "03_embedding_lookup", "04_attention",
              "05_masks", "06_rope_discs", "07_gqa", "08_rmsnorm_swiglu", "09_moe_routing", "10_model_files",
              "11_trained_model", "12_real_model", "98_notation", "99_glossary"),
}
HERE = Path(__file__).resolve().parent
_current = "en"


def catalog_path(lang: str) -> Path:
    """The engine's catalog for ``lang``: ``lib/tokenpath/i18n/<lang>.po``."""
    return HERE / f"{lang}.po"


def set_language(lang: str) -> None:
    """Speak ``lang`` from now on (one of :data:`LANGUAGES`; ``"zh"`` means ``"zh_CN"``).

    >>> set_language("fr")
    Traceback (most recent call last):
    ...
    ValueError: lang must be one of ('en', 'zh_CN'), got 'fr'
    """
    global _current
    lang = {"zh": "zh_CN", "zh-CN": "zh_CN", "en_US": "en"}.get(lang, lang)
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {LANGUAGES}, got {lang!r}")
    _current = lang


def language() -> str:
    """The language chosen by :func:`set_language` (``"en"`` unless one was chosen)."""
    return _current


class using:
    """``with using("zh_CN"): …`` speaks ``lang`` inside the block, then what was spoken before."""

    def __init__(self, lang: str):
        self.lang = lang

    def __enter__(self):
        self.before = _current
        set_language(self.lang)
        return self

    def __exit__(self, *exc):
        set_language(self.before)
        return False


@lru_cache(maxsize=None)
def _messages(lang: str, mtime: float) -> dict:
    """{msgid: msgstr} of ``lang``'s catalog (plural entries keyed by their singular, an
    entry with a context by ``context + "\\x04" + msgid`` as GNU gettext does), without
    empty and fuzzy entries."""
    from babel.messages.pofile import read_po

    with catalog_path(lang).open("rb") as f:
        catalog = read_po(f)
    out = {}
    for m in catalog:
        if not m.id or m.fuzzy:
            continue
        prefix = f"{m.context}\x04" if m.context else ""
        if isinstance(m.id, tuple):
            if all(m.string):
                out[prefix + m.id[0]] = tuple(m.string)
        elif m.string:
            out[prefix + m.id] = m.string
    return out


def messages(lang: str | None = None) -> dict:
    lang = lang or _current
    path = catalog_path(lang)
    if lang == "en" or not path.exists():
        return {}
    return _messages(lang, path.stat().st_mtime)


def gettext(message: str) -> str:
    """``message`` in the current language (itself in English, or when untranslated).

    >>> gettext("Figure {number} · {title}")
    'Figure {number} · {title}'
    >>> with using("zh_CN"):
    ...     gettext("Figure {number} · {title}")
    '图 {number} · {title}'
    """
    found = messages().get(message)
    return found if isinstance(found, str) else message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for ``n`` (Chinese has one form, the catalog's first)."""
    found = messages().get(singular)
    if isinstance(found, tuple):
        return found[0]
    return singular if n == 1 else plural


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, as meant in ``context``: for a word that
    needs two translations (an attention head's "head" is not the output head's).

    >>> pgettext("attention head", "head"), gettext("head")
    ('head', 'head')
    >>> with using("zh_CN"):
    ...     pgettext("attention head", "head"), gettext("head")
    ('头', '输出头')
    """
    found = messages().get(f"{context}\x04{message}")
    return found if isinstance(found, str) else message


_ = gettext


def N_(message: str) -> str:
    """Mark ``message`` for the catalog without translating it here (gettext's noop):
    for words stored as data and shown later through :func:`_`."""
    return message
