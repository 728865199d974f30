"""The Chinese edition's catalogs keep up with the English and with the engine
(tokenpath.i18n, tokenpath.i18n.checks; docs/translating.md).

- coverage: every page declared translated (tokenpath.i18n.TRANSLATED) has 0
  untranslated and 0 fuzzy messages, and its catalog holds exactly the messages Sphinx
  extracts from its notebook now: a changed English paragraph fails here until
  `python -m tokenpath.i18n.catalogs update` has run and its translation follows;
  every page's count is reported;
- the engine's catalog holds every `_()` string of the package, each translated;
- numbers: every translated message holds its English's numbers;
- glossary terms: a translated message whose English uses a glossary term uses its
  Chinese term;
- glyphs: every character of every translation is in the HTML edition's font subsets.
"""

from __future__ import annotations

import shutil

import pytest

from tokenpath import i18n
from tokenpath.i18n import catalogs, checks

LANG = "zh_CN"
PAGES = sorted(p.stem for p in (catalogs.ROOT / "notebooks").glob("*.ipynb"))
DECLARED = i18n.TRANSLATED[LANG]
ALL_CATALOGS = [catalogs.page_catalog(p, LANG) for p in PAGES] + [i18n.catalog_path(LANG)]


def test_every_page_has_a_catalog_and_the_declared_pages_are_pages():
    assert set(DECLARED) <= set(PAGES), f"declared translated but no such notebook: {set(DECLARED) - set(PAGES)}"
    missing = [p for p in PAGES if not catalogs.page_catalog(p, LANG).exists()]
    assert not missing, f"no catalog for {missing}: run python -m tokenpath.i18n.catalogs update"


def test_coverage_per_page(capsys):
    rows, problems = [], []
    for page in PAGES:
        n, empty, fuzzy = checks.coverage(catalogs.page_catalog(page, LANG))
        state = "declared translated" if page in DECLARED else "shown in English"
        rows.append(f"  {page:<22} {n - empty - fuzzy:4d}/{n:<4d} translated, {fuzzy} fuzzy ({state})")
        if page in DECLARED and (empty or fuzzy):
            problems.append(f"{page}: {empty} untranslated and {fuzzy} fuzzy of {n} messages")
    with capsys.disabled():
        print("\nzh_CN catalogs:\n" + "\n".join(rows))
    assert not problems, "; ".join(problems)


@pytest.fixture(scope="module")
def extracted(tmp_path_factory):
    """The messages Sphinx extracts now from the declared pages' notebooks."""
    src = tmp_path_factory.mktemp("src")
    for page in DECLARED:
        shutil.copyfile(catalogs.ROOT / "notebooks" / f"{page}.ipynb", src / f"{page}.ipynb")
    pots = catalogs.extract_pages(src, tmp_path_factory.mktemp("pot"))
    return {pot.stem: {m.id for m in catalogs.read(pot) if m.id} for pot in pots}


@pytest.mark.parametrize("page", DECLARED)
def test_a_declared_page_s_catalog_follows_its_english(page, extracted):
    have = {m.id for m in catalogs.read(catalogs.page_catalog(page, LANG)) if m.id}
    new, gone = extracted[page] - have, have - extracted[page]
    assert not new and not gone, (
        f"{page}: the English changed ({len(new)} new or changed messages, e.g. {sorted(new)[:2]}; "
        f"{len(gone)} gone): run python -m tokenpath.i18n.catalogs update and translate the new messages")


def test_the_engine_s_catalog_holds_every_message_translated():
    have = {m.id: m for m in catalogs.read(i18n.catalog_path(LANG)) if m.id}
    wanted = {m.id for m in catalogs.extract_engine() if m.id}
    assert not wanted - set(have), (f"not in lib/tokenpath/i18n/{LANG}.po: {sorted(wanted - set(have))[:3]}: "
                                    "run python -m tokenpath.i18n.catalogs update --only engine")
    left = [k for k, m in have.items() if not m.string or m.fuzzy]
    assert not left, f"untranslated or fuzzy in the engine's catalog: {left[:3]}"


def test_placeholders_are_kept():
    import re

    for m in catalogs.read(i18n.catalog_path(LANG)):
        if m.id and m.string:
            assert set(re.findall(r"\{\w+\}", m.id)) == set(re.findall(r"\{\w+\}", m.string)), m.id


@pytest.mark.parametrize("path", ALL_CATALOGS, ids=lambda p: p.stem)
def test_translations_hold_the_english_numbers(path):
    problems = checks.number_problems(catalogs.read(path))
    assert not problems, f"{path.name}: " + "; ".join(problems[:5])


@pytest.mark.parametrize("path", ALL_CATALOGS, ids=lambda p: p.stem)
def test_translations_use_the_glossary_s_chinese_terms(path):
    problems = checks.term_problems(catalogs.read(path))
    assert not problems, f"{path.name}: " + "; ".join(problems[:5])


def test_the_checks_catch_what_they_are_for():
    from babel.messages.catalog import Catalog

    bad = Catalog(locale=LANG)
    bad.add("The vocabulary has 49,152 rows.", "词表有 49152 行。")  # same number, other separators: fine
    bad.add("Divide by 8.", "除以 6。")
    bad.add("The residual stream keeps its width.", "这条流保持宽度不变。")
    assert len(checks.number_problems(bad)) == 1
    assert len(checks.term_problems(bad)) == 1


def test_every_translated_character_has_a_glyph_in_the_html_edition():
    from tokenpath._sphinx import fonts

    missing = fonts.missing_glyphs("".join(fonts.catalog_characters()))
    assert not missing, f"characters of the translations without a glyph: {''.join(sorted(missing))!r}: run make fonts"


def test_no_catalog_keeps_stale_copies_of_old_messages_as_comments(tmp_path):
    paths = [catalogs.PACKAGE / "i18n" / f"{LANG}.po", *sorted((catalogs.LOCALES / LANG / "LC_MESSAGES").glob("*.po"))]
    stale = [p.name for p in paths if any(l.startswith("# |") for l in p.read_text(encoding="utf-8").splitlines())]
    assert stale == [], "rewrite them with tokenpath.i18n.catalogs.write"
    # what read_po makes of such a comment is dropped when a catalog is written back
    po = tmp_path / "x.po"
    po.write_text('# | msgid "old"\nmsgid "new"\nmsgstr "新"\n', encoding="utf-8")
    catalogs.write(catalogs.read(po), po)
    assert "# |" not in po.read_text(encoding="utf-8") and 'msgstr "新"' in po.read_text(encoding="utf-8")
