"""The CJK fallback font the figures ship with.

DejaVu Sans (matplotlib's default) has no CJK glyphs, so 猫 would draw as a box on a
machine without a CJK system font. The package carries a small subset of Noto Sans CJK
SC (SIL Open Font License 1.1, see ``fonts/OFL.txt``) holding only the characters the
book draws, renamed so it cannot be mistaken for the full font.

Rebuild after adding characters to :data:`CJK_CHARS` (needs Debian's
``fonts-noto-cjk`` or any copy of ``NotoSansCJK-Regular.ttc``)::

    python -m tokenpath.figures._fonts /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
"""

from __future__ import annotations

import sys
from pathlib import Path

FONT_DIR = Path(__file__).parent / "fonts"
FONT_PATH = FONT_DIR / "TokenpathCJK-Regular.otf"
FAMILY = "Tokenpath CJK"

#: Every CJK character a figure may draw; a test fails when a figure needs one more.
CJK_CHARS = "猫大语言模型我喜欢苹果甲乙词表中文解释是的用。，、：（）"

#: Index of "Noto Sans CJK SC" inside NotoSansCJK-Regular.ttc.
_SC_INDEX = 2


def build_subset(source: str | Path, dest: str | Path = FONT_PATH, chars: str = CJK_CHARS) -> Path:
    """Cut ``chars`` (plus Latin digits and letters) out of the Noto Sans CJK SC face in
    ``source`` and write a renamed, deterministic OpenType file to ``dest``."""
    from fontTools import subset
    from fontTools.ttLib import TTCollection, TTFont

    source = Path(source)
    if not source.exists():
        raise ValueError(f"source font {source} does not exist")
    font = (
        TTCollection(str(source)).fonts[_SC_INDEX]
        if source.suffix.lower() == ".ttc"
        else TTFont(str(source))
    )
    options = subset.Options()
    options.layout_features = []
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=chars)
    subsetter.subset(font)
    names = font["name"]
    for record in names.names:
        if record.nameID in (1, 4, 16):
            record.string = FAMILY if record.nameID != 4 else f"{FAMILY} Regular"
        elif record.nameID == 6:
            record.string = "TokenpathCJK-Regular"
        elif record.nameID == 3:
            record.string = "TokenpathCJK-Regular subset of Noto Sans CJK SC"
    if "CFF " in font:
        cff = font["CFF "].cff
        cff.fontNames = ["TokenpathCJK-Regular"]
    # fixed timestamps make the file byte-identical on every rebuild
    font.recalcTimestamp = False
    font["head"].created = font["head"].modified = 0
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    font.save(str(dest), reorderTables=True)
    return dest


def missing_glyphs(text: str) -> list[str]:
    """Characters of ``text`` that are CJK but not covered by the shipped subset."""
    from fontTools.ttLib import TTFont

    cmap = TTFont(str(FONT_PATH))["cmap"].getBestCmap()
    return sorted({ch for ch in text if _is_cjk(ch) and ord(ch) not in cmap})


def _is_cjk(ch: str) -> bool:
    o = ord(ch)
    return (
        0x3000 <= o <= 0x303F  # CJK punctuation
        or 0x3400 <= o <= 0x9FFF  # ideographs
        or 0xFF00 <= o <= 0xFFEF  # full-width forms
    )


if __name__ == "__main__":  # pragma: no cover - maintenance command
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    print(build_subset(sys.argv[1]))
