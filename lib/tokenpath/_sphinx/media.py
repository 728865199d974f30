"""The moving picture above a chapter's main slider in the HTML edition.

``make media`` (:mod:`tokenpath._media`) writes one animated WebP per chapter's
main slider into ``docs/media/`` with ``media.json``. Where a page builds that widget
(the chapter the manifest names, its first call), :func:`media_html` copies the file
into ``_media/`` of the edition and puts it above the precomputed widget, with the alt
text the sweep computed. It is not shown to a reader who asks for reduced motion, and
not printed: its first frame is the widget's default state, which the widget below it
prints (``tokenpath.css``). Without ``docs/media/`` (an engine installed without its
checkout) pages have no animation.
"""

from __future__ import annotations

import functools
import html
import json
import os
from pathlib import Path

MEDIA_DIR = Path(__file__).resolve().parents[3] / "docs" / "media"
OUT = "_media"


@functools.cache
def manifest(folder: Path = MEDIA_DIR) -> dict:
    path = folder / "media.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def media_html(name: str, docname: str, outdir: Path, folder: Path = MEDIA_DIR, lang: str = "en") -> str:
    """The animation of widget ``name`` for page ``docname`` (its file copied into
    ``outdir/_media/``), or ``""`` when that page's main slider is another widget; its alt
    text and caption in the edition's language ``lang``."""
    from .._media import alt_text, caption_text
    from ..i18n import using

    entry = manifest(folder).get(name)
    if entry is None or entry["chapter"] != docname or not (folder / entry["file"]).is_file():
        return ""
    source, target = folder / entry["file"], Path(outdir) / OUT / entry["file"]
    target.parent.mkdir(parents=True, exist_ok=True)
    data = source.read_bytes()
    if not target.is_file() or target.read_bytes() != data:  # a build in place keeps no stale copy
        part = target.with_name(f"{target.name}.{os.getpid()}.part")
        part.write_bytes(data)
        os.replace(part, target)  # whole, even with several Sphinx processes at once
    with using(lang):
        alt, caption = alt_text(entry["words"]), caption_text(entry["slider"])
    return (f'<figure class="tp-media"><img src="{OUT}/{entry["file"]}" alt="{html.escape(alt, quote=True)}" '
            f'width="{entry["width"]}" height="{entry["height"]}" loading="lazy"><figcaption>'
            f'{html.escape(caption)}</figcaption></figure>')
