"""The message catalogs of the Chinese edition, and how they follow the English.

Two kinds of catalog, both gettext ``.po`` files read and written with Babel:

- **the book's pages**: ``locales/<lang>/LC_MESSAGES/<page>.po``, sphinx-intl's layout
  (one catalog per notebook, ``gettext_compact = False``). Their messages are what
  Sphinx's ``gettext`` builder extracts from the stored notebooks the HTML edition is
  built from: each heading, paragraph, list item, table cell, caption and alt text of
  a markdown cell, as its MyST source;
- **the engine's words**: ``lib/tokenpath/i18n/<lang>.po``, every string of the package
  wrapped in ``_()`` or ``N_()`` and every figure title given to ``register`` (read with
  ``ast``: nothing is imported).

``python -m tokenpath.i18n.catalogs update`` extracts both and merges them into the
catalogs: a new English message arrives empty, a changed one keeps its old translation
marked fuzzy (so the coverage test fails until a translator looks at it), a removed one
is dropped. docs/translating.md is the workflow.
"""

from __future__ import annotations

import argparse
import ast
import sys
from datetime import datetime, timezone
from pathlib import Path

from . import HERE, LANGUAGES, catalog_path

ROOT = HERE.parents[2]
LOCALES = ROOT / "locales"
PACKAGE = HERE.parent
CONF = PACKAGE / "_sphinx"
#: Keywords that mark a message in the package's code (gettext's and its noop).
#: The catalogs' header dates: fixed, so that a catalog changes only when its messages do.
FIXED_DATE = datetime(2026, 1, 1, tzinfo=timezone.utc)
KEYWORDS = {"_": None, "N_": None, "gettext": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2)}


def page_catalog(page: str, lang: str = "zh_CN") -> Path:
    """The catalog of notebook ``page`` (``99_glossary``) for ``lang``."""
    return LOCALES / lang / "LC_MESSAGES" / f"{page}.po"


def read(path: Path):
    from babel.messages.pofile import read_po

    with Path(path).open("rb") as f:
        return read_po(f)


def write(catalog, path: Path) -> None:
    from babel.messages.pofile import write_po

    path.parent.mkdir(parents=True, exist_ok=True)
    for message in catalog:
        # an old msgid written as "#| msgid" over several lines comes back from read_po as
        # comments "| msgid …": a stale copy of the previous text, kept in no other form
        message.user_comments = [c for c in message.user_comments if not c.startswith("|")]
    with path.open("wb") as f:
        # file names without line numbers: a catalog changes when its messages do, not when code moves
        write_po(f, catalog, width=0, omit_header=False, ignore_obsolete=True, include_previous=True,
                 include_lineno=False)


def extract_pages(notebooks: Path = ROOT / "notebooks", out: Path = ROOT / "build" / "gettext") -> list[Path]:
    """Run Sphinx's gettext builder over ``notebooks`` (the HTML edition's source and
    configuration); the ``.pot`` files written, one per page."""
    import shutil

    from sphinx.cmd.build import build_main

    shutil.rmtree(out, ignore_errors=True)  # no template of a page that is gone
    pages = sorted(Path(notebooks).glob("*.ipynb"))
    root = "00_index" if any(p.stem == "00_index" for p in pages) else pages[0].stem  # a folder of a few pages
    status = build_main(["-b", "gettext", "-E", "-q", "-c", str(CONF), "-D", f"root_doc={root}",
                         "-D", "suppress_warnings=myst.header,toc.not_included", "-d", str(out.parent / "gettext-doctrees"),
                         str(notebooks), str(out)])
    if status:
        raise SystemExit(f"sphinx gettext builder failed with status {status}")
    return sorted(out.glob("*.pot"))


def figure_titles(package: Path = PACKAGE) -> list[tuple[str, str, int]]:
    """Every title given to ``@register(number, title)`` in ``figures/``, as
    (title, file, line): a literal, or a module-level name bound to one."""
    found = []
    for path in sorted((package / "figures").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {t.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
                 for t in node.targets if isinstance(t, ast.Name)
                 and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "register"
                    and len(node.args) == 2):
                arg = node.args[1]
                title = arg.value if isinstance(arg, ast.Constant) else names.get(getattr(arg, "id", None))
                if isinstance(title, str):
                    found.append((title, str(path.relative_to(package.parent)), node.lineno))
    return found


def extract_engine(package: Path = PACKAGE):
    """The engine's template: every ``_()``/``N_()`` string of the package and every figure title."""
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_dir

    template = Catalog(project="tokenpath", charset="utf-8")
    skip = ("__pycache__",)
    for filename, lineno, message, comments, context in extract_from_dir(
            str(package), method_map=[("**.py", "python")], keywords=KEYWORDS, comment_tags=("TRANSLATORS:",),
            strip_comment_tags=True, directory_filter=lambda path: Path(path).name != "__pycache__"):
        if any(part in skip for part in Path(filename).parts):
            continue
        template.add(message, locations=[(f"tokenpath/{filename}", lineno)], auto_comments=comments, context=context)
    for title, filename, lineno in figure_titles(package):
        template.add(title, locations=[(filename, lineno)])
    return template


def merge(template, path: Path, lang: str) -> tuple[int, int, int]:
    """Merge ``template`` into the catalog at ``path`` (created when missing); returns
    (messages, untranslated, fuzzy)."""
    from babel.messages.catalog import Catalog

    catalog = read(path) if path.exists() else Catalog(locale=lang, project="tokenpath", charset="utf-8")
    catalog.locale = lang
    catalog.update(template, no_fuzzy_matching=False, update_header_comment=False)
    catalog.obsolete.clear()
    # A header that does not change from run to run: regenerating is byte for byte the same.
    catalog.header_comment = (f"# {lang} messages of tokenpath: {path.stem}.\n"
                              "# Update with `python -m tokenpath.i18n.catalogs update`; see docs/translating.md.")
    catalog.fuzzy = False
    catalog.project, catalog.version = "tokenpath", "1"
    catalog.msgid_bugs_address = catalog.last_translator = catalog.language_team = ""
    catalog.creation_date = catalog.revision_date = FIXED_DATE
    write(catalog, path)
    messages = [m for m in catalog if m.id]
    return len(messages), sum(1 for m in messages if not m.string), sum(1 for m in messages if m.fuzzy)


def update(lang: str = "zh_CN", *, pages: bool = True, engine: bool = True) -> list[str]:
    """Bring every catalog of ``lang`` up to the English: the pages' and the engine's."""
    from babel.messages.pofile import read_po

    report = []
    if pages:
        pots = extract_pages()
        for pot in pots:
            with pot.open("rb") as f:
                template = read_po(f)
            for m in template:  # Sphinx's locations name this checkout's absolute path
                m.locations = [(Path(p).name, n) for p, n in m.locations]
            n, empty, fuzzy = merge(template, page_catalog(pot.stem, lang), lang)
            report.append(f"{pot.stem}: {n} messages, {empty} untranslated, {fuzzy} fuzzy")
        pages_now = {pot.stem for pot in pots}
        for old in sorted(page_catalog("x", lang).parent.glob("*.po")):
            if old.stem not in pages_now:  # its notebook is gone (renamed or removed)
                old.unlink()
                report.append(f"{old.stem}: removed (no such notebook)")
    if engine:
        n, empty, fuzzy = merge(extract_engine(), catalog_path(lang), lang)
        report.append(f"engine (tokenpath.i18n/{lang}.po): {n} messages, {empty} untranslated, {fuzzy} fuzzy")
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tokenpath.i18n.catalogs", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["update"])
    parser.add_argument("--lang", default="zh_CN", choices=[x for x in LANGUAGES if x != "en"])
    parser.add_argument("--only", choices=["pages", "engine"], help="update only these catalogs")
    args = parser.parse_args(argv)
    for line in update(args.lang, pages=args.only != "engine", engine=args.only != "pages"):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
