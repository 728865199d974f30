"""The arithmetic of the PDF edition, apart from the browser: the contents' page numbers,
the range of page counts a set of chapters can take, and reproducible dates.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass

#: A page of the PDF holds at most this many characters of text (A4, 17 mm margins,
#: prose at 10 pt is about 48 lines of 105 characters, code at 8 pt 62 lines of 125):
#: fewer pages than the text needs at this density means text is missing.
MOST_CHARS_PER_PAGE = 7800
#: A page that is not a chapter's last holds at least this many characters of text, or
#: a figure: more pages than this allows means pages are blank or nearly so.
LEAST_CHARS_PER_PAGE = 1000


def toc_numbers(destinations: dict[str, int], anchors: list[str]) -> dict[str, int]:
    """The page of each contents entry's anchor, from the PDF's named destinations
    (1-based pages). Every anchor must have landed on a page.

    >>> toc_numbers({"toc-1": 3, "toc-2": 3, "other": 9}, ["toc-1", "toc-2"])
    {'toc-1': 3, 'toc-2': 3}
    >>> toc_numbers({"toc-1": 3}, ["toc-1", "toc-2"])
    Traceback (most recent call last):
    ...
    ValueError: the PDF has no destination for the contents entries ['toc-2']
    """
    missing = [a for a in anchors if a not in destinations]
    if missing:
        raise ValueError(f"the PDF has no destination for the contents entries {missing}")
    numbers = {a: destinations[a] for a in anchors}
    pages = list(numbers.values())
    if pages != sorted(pages):
        raise ValueError(f"the contents entries are not in page order: {pages}")
    return numbers


def page_spans(starts: list[int], total: int) -> list[int]:
    """How many pages each of the chapters starting at ``starts`` (1-based, in order)
    takes in a PDF of ``total`` pages.

    >>> page_spans([3, 5, 12], 14)
    [2, 7, 3]
    """
    if any(b <= a for a, b in zip(starts, starts[1:])) or (starts and not (1 <= starts[0] and starts[-1] <= total)):
        raise ValueError(f"chapters must start on increasing pages within 1..{total}, got {starts}")
    return [b - a for a, b in zip(starts, [*starts[1:], total + 1])]


@dataclass(frozen=True)
class Span:
    least: int
    most: int

    def __contains__(self, pages: int) -> bool:
        return self.least <= pages <= self.most


def chapter_span(chars: int, blocks: int) -> Span:
    """The pages a chapter of ``chars`` characters of text and ``blocks`` figures,
    slider frames and other unbreakable blocks can take: at least its text at the
    densest (:data:`MOST_CHARS_PER_PAGE`, and one page); at most its text at the least
    dense (:data:`LEAST_CHARS_PER_PAGE`) plus one page for each block (a block that does
    not fit moves to the next page and can leave the rest of one empty), plus one.

    >>> chapter_span(40_000, 6)
    Span(least=6, most=47)
    """
    if chars < 0 or blocks < 0:
        raise ValueError(f"chars and blocks must be >= 0, got {chars}, {blocks}")
    return Span(max(1, math.ceil(chars / MOST_CHARS_PER_PAGE)), math.ceil(chars / LEAST_CHARS_PER_PAGE) + blocks + 1)


_DATE = re.compile(rb"/(CreationDate|ModDate)\s*\((D:[0-9]{14}[^)]*)\)")


def pdf_date(epoch: int) -> bytes:
    """A PDF date for ``epoch`` (seconds, UTC) in the form Chromium writes.

    >>> pdf_date(0)
    b"D:19700101000000+00'00'"
    """
    return time.strftime("D:%Y%m%d%H%M%S+00'00'", time.gmtime(epoch)).encode()


def fix_dates(data: bytes, epoch: int | None) -> bytes:
    """``data`` (a PDF) with its ``/CreationDate`` and ``/ModDate`` set to ``epoch``, or,
    with ``epoch`` None, blanked out (the entries overwritten by spaces, which leaves a
    dictionary without them). Each change keeps the length, so the cross-reference
    table's offsets stay right. These two dates are the only bytes of Chromium's PDF
    that change from one print of the same document to the next.

    >>> pdf = b"<< /CreationDate (D:20261206043842+00'00') /ModDate (D:20261206043843+00'00') >>"
    >>> fix_dates(pdf, 0)
    b"<< /CreationDate (D:19700101000000+00'00') /ModDate (D:19700101000000+00'00') >>"
    >>> fix_dates(pdf, None).split()
    [b'<<', b'>>']
    """
    found = list(_DATE.finditer(data))
    if not found:
        raise ValueError("the PDF has no /CreationDate or /ModDate to fix")
    out = bytearray(data)
    for m in found:
        if epoch is None:
            out[m.start():m.end()] = b" " * (m.end() - m.start())
        else:
            date = pdf_date(epoch)
            if len(date) != len(m.group(2)):
                raise ValueError(f"Chromium's date {m.group(2)!r} is not of the form {date!r}: cannot replace it in place")
            out[m.start(2):m.end(2)] = date
    return bytes(out)
