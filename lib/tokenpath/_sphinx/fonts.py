"""Every character the HTML edition shows has a glyph: font subsets that ship with it.

**The rule.** A character of a page is covered when it is whitespace or a control
character, or lies in printable ASCII or Latin-1 (U+0020–U+007E, U+00A0–U+00FF: the
"Latin fallback", which every font of the theme's system stack has), or is in the
character map of one of the subset fonts in ``static/fonts/``, which the edition's CSS
names after the system fonts (:func:`missing_glyphs`; ``make check-book`` applies it to
every page's text and image alt texts).

**The subsets** hold every other character of the stored notebooks (prose, code,
outputs, figures' alt text, the glossary), of the offline questions and of the
translations in the message catalogs (the Chinese edition's pages and the engine's
words, :func:`catalog_characters`), cut with
fontTools from fonts under the SIL Open Font License (``static/fonts/OFL.txt``):

- ``TokenpathBook-CJK.woff``: Noto Sans CJK SC (Chinese, full-width forms, and the Greek
  letters, arrows and mathematical symbols it has);
- ``TokenpathBook-Emoji.ttf``: Noto Color Emoji (colour bitmaps, CBDT);
- ``TokenpathBook-Symbols.woff``: the characters Noto Sans CJK lacks, from Noto Sans
  (the GPT-2 byte letters, modifier and subscript letters, the replacement character);
- ``TokenpathBook-Math.woff``: the italic letters MathML draws, and any symbol the others
  lack (⊤), from Noto Sans Math;
- ``TokenpathBook-Symbols2.woff`` and ``TokenpathBook-Music.woff``: what is left, from Noto
  Sans Symbols 2 (the heart ❤, U+2764, which is text, not emoji, without a variation
  selector) and Noto Music (𝄞, a four-byte example of UTF-8).

The files are committed, so ``make book`` needs no font package. ``make fonts``
regenerates them, byte for byte; it needs Debian's ``fonts-noto-cjk``,
``fonts-noto-color-emoji`` and ``fonts-noto-core`` (``apt-get install``), and fails
naming any character that no source font has.
"""

from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from functools import lru_cache
from pathlib import Path

FONTS = Path(__file__).with_name("static") / "fonts"
PACKAGES = "fonts-noto-cjk, fonts-noto-color-emoji and fonts-noto-core"
SOURCES = {  # each character goes to the first that :func:`fits` and has it
    "Emoji": ("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf", None, None),
    "CJK": ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2, "woff"),  # face 2: SC
    "Symbols": ("/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf", None, "woff"),
    "Math": ("/usr/share/fonts/truetype/noto/NotoSansMath-Regular.ttf", None, "woff"),
    "Symbols2": ("/usr/share/fonts/truetype/noto/NotoSansSymbols2-Regular.ttf", None, "woff"),
    "Music": ("/usr/share/fonts/truetype/noto/NotoMusic-Regular.ttf", None, "woff"),
}
#: Characters a page shows that the notebooks do not spell: the typographer's quotes,
#: and the italic letters MathML draws for a one-letter identifier (<mi>x</mi>).
SHOWN = ("‘’“”" + "".join(chr(c) for c in range(0x1D434, 0x1D468) if c != 0x1D455) + "\u210e"
         + "".join(chr(c) for c in range(0x1D6FC, 0x1D71C)))


def fits(name: str, ch: str) -> bool:
    """Which subset a character may go to: emoji to Emoji, mathematical letters to
    Math, anything else to CJK, Symbols, Math, Symbols2 or (last) Music."""
    o = ord(ch)
    if name == "Emoji":
        return o >= 0x1F000
    if name == "Math":
        return o < 0x1F000
    return o < 0x1D400 and o != 0x210E


def latin_fallback(ch: str) -> bool:
    """Whether ``ch`` needs no shipped glyph (see the module's rule).

    >>> [latin_fallback(c) for c in "a é\\n猫→"]
    [True, True, True, True, False, False]
    """
    o = ord(ch)
    return ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf") or 0x20 <= o <= 0x7E or 0xA0 <= o <= 0xFF


def font_files() -> list[Path]:
    return sorted(p for p in FONTS.glob("TokenpathBook-*") if p.suffix in (".woff", ".ttf", ".otf"))


@lru_cache(maxsize=None)
def covered() -> frozenset:
    """Code points the shipped subsets have glyphs for."""
    from fontTools.ttLib import TTFont

    points = set()
    for path in font_files():
        points |= set(TTFont(str(path))["cmap"].getBestCmap())
    return frozenset(points)


def missing_glyphs(text: str) -> set:
    """The characters of ``text`` that neither the Latin fallback nor a shipped subset covers."""
    have = covered()
    return {ch for ch in set(text) if not latin_fallback(ch) and ord(ch) not in have}


def book_characters(notebooks) -> set:
    """Every character outside the Latin fallback in the notebooks (every string of
    their JSON: prose, code, outputs, alt text), in the offline questions, and in the
    words the PDF edition adds in each language (its contents' title, its notes)."""
    from .. import questions

    found: set = set()

    def walk(x):
        if isinstance(x, str):
            found.update(x)
        elif isinstance(x, list):
            for item in x:
                walk(item)
        elif isinstance(x, dict):
            for item in x.values():
                walk(item)

    for path in notebooks:
        nb = json.loads(Path(path).read_text(encoding="utf-8"))
        walk(nb)
        for cell in nb["cells"]:  # formulas show MathML's characters (\\sum is ∑)
            if cell["cell_type"] == "markdown":
                found.update(math_characters("".join(cell["source"])))
    for chapter in questions.CHAPTERS:
        for q in questions.for_chapter(chapter).values():
            walk([q.prompt, q.why, q.hint, q.source, q.answer_text(), *[t for _, t in q.options]])
    from .._pdf.assemble import WORDS  # the PDF edition's own words, and the link to it
    from .pdflink import LABEL

    walk([WORDS, LABEL])
    found |= catalog_characters()
    return {ch for ch in found | set(SHOWN) if not latin_fallback(ch)}


def theme_catalogs() -> list:
    """The themes' own Chinese catalogs (pydata-sphinx-theme's, sphinx-book-theme's): the
    Chinese edition shows their words around every page (跳转至主要内容)."""
    import importlib.util

    found = []
    for package in ("pydata_sphinx_theme", "sphinx_book_theme"):
        spec = importlib.util.find_spec(package)
        if spec and spec.origin:
            found += sorted(p for p in Path(spec.origin).parent.rglob("*.po")
                            if any(part in ("zh", "zh_CN") for part in p.parts))
    return found


def catalog_characters() -> set:
    """Every character of the translations in the catalogs: the pages' (``locales/``),
    the engine's (``tokenpath/i18n/*.po``) and the themes' Chinese ones (:func:`theme_catalogs`),
    formulas as MathML shows them."""
    from ..i18n import HERE
    from ..i18n.catalogs import LOCALES, read

    found: set = set()
    for path in sorted(LOCALES.glob("*/LC_MESSAGES/*.po")) + sorted(HERE.glob("*.po")) + theme_catalogs():
        for m in read(path):
            for text in (m.string if isinstance(m.string, tuple) else (m.string,)):
                if text:
                    found.update(text)
                    found.update(math_characters(text))
    return found


def math_characters(markdown: str) -> set:
    """The characters the MathML of the ``$…$`` and ``$$…$$`` formulas in ``markdown`` shows.

    >>> sorted(math_characters(r"a $\\sum_i x_i \\in S$ b"))
    ['S', 'i', 'x', '∈', '∑']
    """
    import html
    import re

    from . import tex

    found: set = set()
    for double, single in re.findall(r"\$\$(.+?)\$\$|\$([^$\n]+?)\$", markdown, re.S):
        try:
            mathml = tex(double or single)
        except ValueError:
            continue
        found.update(html.unescape(re.sub(r"<[^>]+>", "", mathml)))
    return found


def _subset(source: str, index, chars: str, dest: Path, flavor) -> None:
    from fontTools import subset
    from fontTools.ttLib import TTCollection, TTFont

    font = TTCollection(source).fonts[index] if index is not None else TTFont(source)
    options = subset.Options()
    options.layout_features = ["*"]
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]
    options.notdef_outline = True
    options.flavor = flavor
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=chars)
    subsetter.subset(font)
    family = f"Tokenpath Book {dest.stem.split('-')[1]}"
    for record in font["name"].names:
        if record.nameID in (1, 4, 16):
            record.string = family
        elif record.nameID in (3, 6):
            record.string = dest.stem
    if "CFF " in font:
        font["CFF "].cff.fontNames = [dest.stem]
    font.recalcTimestamp = False
    font["head"].created = font["head"].modified = 0
    font.flavor = flavor
    font.save(str(dest), reorderTables=True)


def build(notebooks, dest: Path = FONTS) -> dict[str, str]:
    """Write the subsets for every character of :func:`book_characters`: each from the
    first source font that has it. Returns {subset: characters}."""
    from fontTools.ttLib import TTCollection, TTFont

    wanted = sorted(book_characters(notebooks))
    parts: dict[str, str] = {}
    left = list(wanted)
    for name, (path, index, flavor) in SOURCES.items():
        if not Path(path).exists():
            raise SystemExit(f"make fonts: no {path}; install Debian's {PACKAGES}")
        font = TTCollection(path).fonts[index] if index is not None else TTFont(path)
        cmap = font["cmap"].getBestCmap()
        take = [c for c in left if ord(c) in cmap and fits(name, c)]
        left = [c for c in left if c not in take]
        parts[name] = "".join(take)
    if left:
        raise SystemExit(f"make fonts: no source font has {''.join(left)!r}")
    dest.mkdir(parents=True, exist_ok=True)
    for old in dest.glob("TokenpathBook-*"):
        old.unlink()
    for name, chars in parts.items():
        path, index, flavor = SOURCES[name]
        if chars:
            _subset(path, index, chars, dest / f"TokenpathBook-{name}.{flavor or 'ttf'}", flavor)
    return parts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="build the HTML edition's font subsets")
    parser.add_argument("notebooks", nargs="+", type=Path)
    args = parser.parse_args(argv)
    for name, chars in build(args.notebooks).items():
        print(f"TokenpathBook-{name}: {len(chars)} characters: {chars}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
