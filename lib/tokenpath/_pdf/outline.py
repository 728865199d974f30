"""The PDF's bookmarks and document information, added by pypdf as an incremental update
(Chromium's bytes stay as they are; the new objects are appended after them).

Chromium can make bookmarks of the headings itself, but it joins a heading's wrapped
lines without a space ("rotating discs anddistance penalties"); the bookmarks here are
the contents' entries, each page with its sections under it, at the pages the contents
print.
"""

from __future__ import annotations

import io

from .assemble import Entry


def finish(pdf: bytes, entries: list[Entry], numbers: dict[str, int], *, title: str, subject: str,
           lang: str) -> bytes:
    """``pdf`` with a bookmark for each entry (a page, its sections under it, closed),
    opening with the bookmarks shown, its title, subject and language set."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import NameObject, TextStringObject

    writer = PdfWriter(PdfReader(io.BytesIO(pdf)), incremental=True)
    if writer.outline:
        raise ValueError("the PDF has bookmarks already: print it without Chromium's outline")
    parent = None
    for entry in entries:
        item = writer.add_outline_item(title=entry.text, page_number=numbers[entry.anchor] - 1,
                                       parent=parent if entry.level > 1 else None, is_open=False)
        if entry.level == 1:
            parent = item
    writer.page_mode = "/UseOutlines"
    writer.add_metadata({"/Title": title, "/Subject": subject})
    writer._root_object[NameObject("/Lang")] = TextStringObject(lang)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
