"""Print an edition's document with headless Chromium (playwright), twice: the first
print finds the page of every contents entry, the second prints those numbers.

Chromium is Debian's ``chromium`` (or ``$CHROMIUM``), as for ``make check-book``; every
request that is not a ``file:`` or ``data:`` URL is refused.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from . import pdf_name
from .assemble import document
from .editions import Edition
from .outline import finish
from .pages import fix_dates, toc_numbers

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--allow-file-access-from-files"]
#: Prints before the contents' numbers must have settled (two are enough unless filling
#: the numbers in moves a page break).
MOST_PRINTS = 4


def chromium() -> str:
    """The Chromium executable: ``$CHROMIUM``, else ``chromium`` on the PATH."""
    found = os.environ.get("CHROMIUM") or shutil.which("chromium")
    if not found:
        raise RuntimeError("make pdf needs Chromium: install Debian's chromium package (or set CHROMIUM)")
    return found


class Launcher:
    """Starts a new Chromium for each print (:func:`browser` makes one).

    A browser printing one document after another is not enough: Chromium may lay out
    the next document in the renderer process of the one before, whose font choices it
    keeps: printed after the English edition in one renderer (``--renderer-process-limit=1``
    makes it so every time), the Chinese edition's cover came out in another sans-serif.
    A browser of its own costs under a second a print."""

    def __init__(self, playwright):
        self._playwright = playwright

    @contextlib.contextmanager
    def page(self):
        b = self._playwright.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS)
        try:
            yield b.new_page()
        finally:
            b.close()


@contextlib.contextmanager
def browser():
    """A :class:`Launcher` while playwright runs."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield Launcher(p)


def destinations(pdf: bytes) -> dict[str, int]:
    """The PDF's named destinations and their pages (1-based), read with pypdf."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(pdf))
    return {str(name).lstrip("/"): reader.get_destination_page_number(dest) + 1
            for name, dest in reader.named_destinations.items()}


@dataclass
class Printed:
    path: Path
    pages: int
    prints: int
    seconds: float


def _print(b: Launcher, source: Path, numbers: dict[str, int]) -> bytes:
    """``source`` printed in a browser of its own, with the contents' ``numbers`` filled in.

    Each print loads the document afresh: printing one loaded page twice does not give
    the same layout (a heading near a page break moved by a page every other print)."""
    refused = []
    with b.page() as page:
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(("file:", "data:"))
                   else (refused.append(route.request.url), route.abort()))
        page.goto(source.as_uri(), wait_until="load", timeout=180_000)
        page.evaluate("Promise.all([...document.fonts].map(f => f.load()))")
        broken = page.evaluate("Promise.all([...document.images].map(i => i.decode().then(() => null, () => i.src)))"
                               ".then(r => r.filter(Boolean))")
        if broken or refused:
            raise RuntimeError(f"{source.name}: images that did not load {broken[:5]}, requests refused {refused[:5]}")
        page.evaluate("n => document.querySelectorAll('.tp-toc-page').forEach("
                      "s => { s.textContent = n[s.dataset.anchor] ? String(n[s.dataset.anchor]) : ''; })", numbers)
        return page.pdf(prefer_css_page_size=True, print_background=True, tagged=True)


def print_edition(edition: Edition, out: str | Path, *, epoch: int | None = None, b=None) -> Printed:
    """Write ``out/tokenpath-<lang>.pdf`` for ``edition``; ``epoch`` is the date it
    carries (None: no date). ``b`` is a :class:`Launcher` from :func:`browser` to reuse
    (one is made otherwise)."""
    if b is None:
        with browser() as b:
            return print_edition(edition, out, epoch=epoch, b=b)
    started = time.perf_counter()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    doc = document(edition)
    anchors = [e.anchor for e in doc.entries]
    with tempfile.TemporaryDirectory(prefix="tokenpath-pdf-") as tmp:
        source = Path(tmp) / f"{pdf_name(edition.lang)}.html"
        source.write_text(doc.html, encoding="utf-8")
        numbers: dict[str, int] = {}
        for prints in range(1, MOST_PRINTS + 1):
            pdf = _print(b, source, numbers)
            found = toc_numbers(destinations(pdf), anchors)
            if found == numbers:
                break
            numbers = found
        else:
            raise RuntimeError(f"the contents' page numbers did not settle after {MOST_PRINTS} prints")
    target = out / pdf_name(edition.lang)
    target.write_bytes(finish(fix_dates(pdf, epoch), doc.entries, numbers, title=doc.title, subject=doc.subtitle,
                              lang=edition.lang))
    from pypdf import PdfReader

    pages = len(PdfReader(target).pages)
    return Printed(target, pages, prints, time.perf_counter() - started)
