"""The PDF edition (``make pdf``, ``tokenpath._pdf``).

The first tests check the parts that need no browser: the print document made from a
small edition, the reproducible dates, the link from the HTML edition. They run in
``make test``.

The tests marked ``pdf`` open the PDFs that ``make pdf`` wrote into ``build/pdf/``, one
per edition of ``build/html/``, with poppler's tools, as a reader's viewer would:
``pdfinfo``, ``pdftotext``, ``pdfimages``, ``pdffonts``, ``pdftoppm``. They check that the
contents list every page of the reading order with the page it starts on, that each
page's length fits its text and figures, that every figure, slider frame, caption and
revealed answer is there, that no page break parts a figure from its caption or cuts an
image taller than a page, and that no page is blank,
that every font is embedded and every link kept, that every HTML page links to the
PDF, and that printing again gives the same bytes. ``make check-pdf`` (and CI) runs them
with ``--pdf``; without it they are skipped, with the reason shown.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import pytest

from tokenpath._pdf import editions, pdf_name
from tokenpath._pdf.assemble import document
from tokenpath._pdf.pages import chapter_span, fix_dates, page_spans
from tokenpath._sphinx.pdflink import pdf_href

ROOT = Path(__file__).resolve().parents[1]
HTML, PDF = ROOT / "build" / "html", ROOT / "build" / "pdf"
POPPLER = ("pdfinfo", "pdftotext", "pdfimages", "pdffonts", "pdftoppm")


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def solid(text: str) -> str:
    """``text`` without white space: a line that wraps inside a word or a code span
    comes out of the PDF with a break where the HTML has none."""
    return re.sub(r"\s+", "", text)


# --- without a browser (make test) ----------------------------------------------------

NAV = ('<nav class="bd-links bd-docs-nav" aria-label="Main"><ul class="nav bd-sidenav__home-link">'
       '<li class="toctree-l1">\n<a class="reference internal" href="#">\nGuide\n</a></li></ul><ul>'
       '<li class="toctree-l1"><a class="reference internal" href="01_a.html">1 · A</a></li></ul></nav>')
GUIDE = ('<article class="bd-article"><section id="guide"><h1>Guide<a class="headerlink" href="#guide">#</a></h1>'
         '<p class="tp-lang"><a href="../zh/00_index.html" hreflang="zh-CN" lang="zh-CN">中文版</a></p>'
         '<p class="tp-open">Open <a href="_notebooks/00_index.ipynb">00_index.ipynb</a></p>'
         '<p>A book about tokens. It has pages.</p><p>See <a href="01_a.html#sec">the section</a>, '
         '<a href="https://example.org/paper">a paper</a> and <a href="genindex.html">the index</a>.</p>'
         '</section></article>')
SLIDER_DATA = {"labels": ["m"], "readouts": [["4", "40"]], "start": [1]}
CHAPTER = ('<article class="bd-article"><section id="a"><h1>A</h1><section id="sec"><h2>1.1 Sec</h2>'
           '<details class="admonition hide"><summary>Show code cell output</summary><pre>out</pre></details>'
           '<figure class="tokenpath-figure" id="fig01"><img src="_figures/f.webp" loading="lazy">'
           '<figcaption>Figure 1 · F</figcaption></figure>'
           '<div class="tp-slider"><div class="tp-slider-fallback"><img class="tp-frame" src="_frames/x.webp">'
           '<p class="tp-caption">m = 40</p></div><p class="tp-note">Precomputed</p>'
           f'<script type="application/json" class="tp-slider-data">{json.dumps(SLIDER_DATA)}</script></div>'
           '<p><a href="#fig01">Figure 1</a></p></section></section></article>')


def small_edition(folder: Path) -> editions.Edition:
    head = "<head><title>Guide &#8212; tokenpath</title><link rel=\"stylesheet\" href=\"_static/a.css\"></head>"
    for name, body in [("index", GUIDE), ("00_index", GUIDE), ("01_a", CHAPTER)]:
        (folder / f"{name}.html").write_text(
            f'<html lang="en">{head}<body>{NAV}<script>DOCUMENTATION_OPTIONS.pagename = \'00_index\';</script>'
            f'{body}</body></html>', encoding="utf-8")
    return editions.edition(folder)


def test_print_document_joins_the_pages_in_reading_order(tmp_path):
    doc = document(small_edition(tmp_path))
    text = doc.html
    assert [p.name for p in doc.pages] == ["00_index", "01_a"]
    assert [(e.level, e.text) for e in doc.entries] == [(1, "Guide"), (1, "1 · A"), (2, "1.1 Sec")]
    assert (doc.title, doc.subtitle) == ("tokenpath", "A book about tokens.")
    # links between pages and inside one become links to prefixed ids; the web stays; the rest is text
    assert 'href="#01_a--sec"' in text and 'id="01_a--sec"' in text and 'href="#01_a--fig01"' in text
    assert 'href="https://example.org/paper"' in text
    assert "genindex.html" not in text and "_notebooks" not in text and "the index" in text
    assert "tp-open" not in text and "headerlink" not in text and "<script" not in text
    # folded content open, the slider's note naming its default state, images absolute and not lazy
    assert re.search(r"<details[^>]*\bopen\b", text)
    assert "default state (m 40)" in text and "Precomputed" not in text
    assert (tmp_path / "_figures" / "f.webp").as_uri() in text and "loading" not in text
    # each page is a named page whose header is its contents title
    assert '@page tp-p2 { @top-center { content: "1 · A"; } }' in text and 'style="page: tp-p2"' in text


def test_fix_dates_changes_the_dates_and_nothing_else():
    pdf = (b"%PDF-1.4\n1 0 obj\n<</Producer (Skia/PDF m156)\n/CreationDate (D:20261206043842+00'00')\n"
           b"/ModDate (D:20261206043843+00'00')>>\nendobj\n")
    for epoch in (0, 1_700_000_000, None):
        fixed = fix_dates(pdf, epoch)
        assert len(fixed) == len(pdf)
        changed = [i for i, (a, b) in enumerate(zip(pdf, fixed)) if a != b]
        dates = [m.span() for m in re.finditer(rb"/(CreationDate|ModDate) \([^)]*\)", pdf)]
        assert all(any(s <= i < e for s, e in dates) for i in changed)
    assert fix_dates(pdf, 0).count(b"D:19700101000000+00'00'") == 2
    assert b"Date" not in fix_dates(pdf, None)


def test_the_html_edition_links_each_language_to_its_pdf():
    assert pdf_href("/b/pdf", "/b/html", "04_attention", "en") == "../pdf/tokenpath-en.pdf"
    assert pdf_href("/b/pdf", "/b/html/zh", "index", "zh_CN") == "../../pdf/tokenpath-zh.pdf"
    assert pdf_name("zh-CN") == "tokenpath-zh.pdf"


def test_chapter_spans():
    assert page_spans([3, 5, 12], 14) == [2, 7, 3]
    with pytest.raises(ValueError):
        page_spans([5, 3], 14)
    with pytest.raises(ValueError):
        page_spans([3, 20], 14)
    assert 14 in chapter_span(34_665, 2) and 2 not in chapter_span(34_665, 2)


# --- the PDFs make pdf wrote (make check-pdf) ------------------------------------------


def run(*args: str) -> str:
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


@dataclass
class Built:
    edition: editions.Edition
    path: Path

    @cached_property
    def pages(self) -> list[editions.Page]:
        return editions.reading_order(self.edition.folder)

    @cached_property
    def articles(self) -> dict:
        from bs4 import BeautifulSoup

        out = {}
        for page in self.pages:
            soup = BeautifulSoup((self.edition.folder / f"{page.name}.html").read_text(encoding="utf-8"), "html.parser")
            out[page.name] = article = soup.find("article", class_="bd-article")
            for moving in article.select("figure.tp-media"):  # not printed (tokenpath._pdf.assemble)
                moving.decompose()
        return out

    @cached_property
    def texts(self) -> list[str]:
        """Each page's text as laid out (index 0 is page 1)."""
        return run("pdftotext", "-layout", str(self.path), "-").split("\f")[:-1]

    @cached_property
    def raw(self) -> str:
        """The whole text in the order it was drawn (a glyph from a fallback font, such as
        the ␣ of a shown space, keeps its place in its line)."""
        return run("pdftotext", "-raw", str(self.path), "-")

    @cached_property
    def info(self) -> dict[str, str]:
        return dict(line.split(":", 1) for line in run("pdfinfo", str(self.path)).splitlines() if ":" in line)

    @cached_property
    def page_count(self) -> int:
        return int(self.info["Pages"])

    @cached_property
    def raw_pages(self) -> list[str]:
        """Each page's text in drawing order (index 0 is page 1)."""
        return self.raw.split("\f")[:-1]

    def header(self, number: int) -> str:
        """The first line of page ``number`` (1-based), in drawing order: its running header,
        if it has one (the layout's first line may be a lone glyph of a fallback font)."""
        lines = [line.strip() for line in self.raw_pages[number - 1].splitlines() if line.strip()]
        return lines[0] if lines else ""

    @cached_property
    def contents(self) -> dict[str, int]:
        """Each page title of the reading order and the page number the contents give it."""
        titles = {solid(p.title) for p in self.pages}
        first = next(n for n in range(2, self.page_count + 1) if solid(self.header(n)) in titles)
        raw = squash(run("pdftotext", "-raw", "-f", "2", "-l", str(first - 1), str(self.path), "-"))
        found = {}
        for page in self.pages:
            # any white space between the title's characters: pdftotext drops the space
            # between a Chinese character and a Latin letter or digit ("字节级BPE")
            m = re.search(r"\s*".join(map(re.escape, solid(page.title))) + r" (\d+)(?!\S)", raw)
            assert m, f"{self.path.name}: the contents do not list {page.title!r} with a page number"
            found[page.title] = int(m.group(1))
        return found


@pytest.fixture(scope="module")
def built() -> list[Built]:
    missing = [tool for tool in POPPLER if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"poppler-utils is not installed (no {', '.join(missing)}): apt-get install poppler-utils")
    out = []
    for edition in editions.find(HTML):
        path = PDF / pdf_name(edition.lang)
        assert path.is_file(), f"no {path.relative_to(ROOT)} for the edition in {edition.folder}: run make pdf"
        out.append(Built(edition, path))
    return out


def article_text(article) -> str:
    return squash(article.get_text(" "))


def h1_text(article) -> str:
    h1 = article.find("h1")
    return squash("".join(t for t in h1.find_all(string=True) if not t.find_parent("a", class_="headerlink")))


@pytest.mark.pdf
def test_document_information(built):
    for b in built:
        assert b.info["Tagged"].strip() == "yes", b.path
        assert b.info["Page size"].strip().endswith("(A4)"), b.info["Page size"]
        assert b.info["Title"].strip() == document(b.edition).title


@pytest.mark.pdf
def test_contents_give_the_page_each_chapter_starts_on(built):
    for b in built:
        numbers = [b.contents[p.title] for p in b.pages]
        assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers), numbers
        for page in b.pages:
            n = b.contents[page.title]
            body = solid(b.raw_pages[n - 1].strip().split("\n", 1)[1])
            body = body[len(str(n)):] if body.startswith(str(n)) else body  # the page number, drawn after the header
            # compared without white space: pdftotext's layout spaces a header out, and drops the
            # space between Chinese and Latin text
            assert solid(b.header(n)) == solid(page.title), f"page {n} is headed {b.header(n)!r}, not {page.title!r}"
            assert body.startswith(solid(h1_text(b.articles[page.name]))), f"page {n} does not open with {page.title!r}"
            assert solid(b.header(n - 1)) != solid(page.title), f"{page.title!r} starts before page {n}"
        # the bookmarks are the contents, at the same pages
        from pypdf import PdfReader

        reader = PdfReader(b.path)
        marks = {o.title: reader.get_destination_page_number(o) + 1 for o in reader.outline if not isinstance(o, list)}
        assert marks == b.contents


@pytest.mark.pdf
def test_each_chapter_takes_the_pages_its_text_and_figures_need(built):
    for b in built:
        starts = [b.contents[p.title] for p in b.pages]
        assert 2 <= starts[0] - 1 <= 2 + len(starts) * 12 // 50, f"{starts[0] - 1} pages before the first chapter"
        spans = page_spans(starts, b.page_count)
        for page, pages in zip(b.pages, spans):
            article = b.articles[page.name]
            blocks = len(article.find_all("img")) + len(article.find_all("div", class_="tp-quiz"))
            span = chapter_span(len(article_text(article)), blocks)
            assert pages in span, f"{page.title!r} takes {pages} pages, outside {span}"


@pytest.mark.pdf
def test_every_figure_frame_caption_and_answer_is_printed(built):
    for b in built:
        text = solid(b.raw)
        wanted = []
        for article in b.articles.values():
            wanted += [solid(c.get_text()) for c in article.select("figure.tokenpath-figure figcaption")]
            wanted += [solid(c.get_text())[:80] for c in article.select(".tp-slider p.tp-caption")]
            wanted += [solid(c.get_text())[:80] for c in article.select("details p.tp-answer")]
        assert wanted and [w for w in wanted if w not in text] == []
        for article in b.articles.values():  # folded, then printed open without their "Show …" toggles
            for summary in article.select("details.hide > summary p"):
                assert solid(summary.get_text()) not in text
        # Chromium draws an image whole on one page (it moves it to the next): what a page
        # break can cut is a figure from its caption, or an image taller than a page.
        images = [line.split() for line in run("pdfimages", "-list", str(b.path)).splitlines()[2:]]
        drawn = [row for row in images if row[2] == "image"]
        imgs = [img for article in b.articles.values() for img in article.find_all("img")]
        assert len(drawn) == len(imgs), "the PDF does not draw one image for each image of the HTML edition"
        pages = [solid(p) for p in b.raw.split("\f")]
        for row, img in zip(drawn, imgs):  # both in reading order
            page, height, ppi = int(row[0]), int(row[4]), float(row[12])
            assert height / ppi * 25.4 <= 262, f"an image on page {page} is taller than the page's text"
            holder = img.find_parent("figure") or img.find_parent("div", class_="tp-slider")
            caption = holder and (holder.find("figcaption") or holder.find("p", class_="tp-caption"))
            if caption:
                assert solid(caption.get_text())[:40] in pages[page - 1], (
                    f"page {page} has the image of {solid(caption.get_text())[:40]!r} but not its caption")


@pytest.mark.pdf
def test_no_page_is_blank(built, tmp_path):
    import numpy as np
    from PIL import Image

    for b in built:
        run("pdftoppm", "-r", "20", "-gray", str(b.path), str(tmp_path / b.edition.lang))
        images = sorted(tmp_path.glob(f"{b.edition.lang}-*.pgm"))
        assert len(images) == b.page_count
        for number, image in enumerate(images, start=1):
            pixels = np.asarray(Image.open(image))
            margin = round(20 / 25.4 * 20)  # the header's and footer's 18-20 mm
            body = pixels[margin:-margin]
            # blank: no picture or text in the body; one short line (the last of a chapter's
            # Sources) darkens only a few pixels at this resolution, so its words count too
            lines = [ln.strip() for ln in b.texts[number - 1].splitlines() if ln.strip()]
            words = [w for ln in lines[1:] for w in ln.split() if not w.isdigit()]  # no header, no page number
            assert (body < 160).sum() >= 20 or len(words) >= 3, f"page {number} of {b.path.name} is blank"


@pytest.mark.pdf
def test_fonts_are_embedded_and_text_extractable(built):
    for b in built:
        rows = [line.split() for line in run("pdffonts", str(b.path)).splitlines()[2:]]
        # the columns from the right: emb sub uni object ID
        bad = [row for row in rows if row[-5] != "yes" or row[-3] != "yes"]
        assert rows and not bad, f"fonts not embedded or without a Unicode map: {bad}"
        # the text in drawing order, without white space: the layout splits a heading set in
        # several fonts, and pdftotext drops the space between Chinese and Latin text
        text = solid(b.raw)
        for article in b.articles.values():
            assert solid(h1_text(article)) in text
        from tokenpath._sphinx.fonts import missing_glyphs

        assert missing_glyphs(b.raw) == set(), "characters without a glyph in the edition's fonts (run make fonts)"


@pytest.mark.pdf
def test_links_are_kept(built):
    from pypdf import PdfReader

    for b in built:
        reader = PdfReader(b.path)
        uris, dests = set(), []
        for page in reader.pages:
            for annot in page.get("/Annots") or []:
                annot = annot.get_object()
                action = annot.get("/A") or {}
                if action.get("/URI"):
                    uris.add(str(action["/URI"]))
                elif annot.get("/Dest") is not None:
                    dests.append(str(annot["/Dest"]).lstrip("/"))
        web = {a["href"] for article in b.articles.values() for a in article.find_all("a", href=True)
               if a["href"].startswith(("http://", "https://"))}
        assert web and web <= uris, sorted(web - uris)[:5]
        names = {str(n).lstrip("/") for n in reader.named_destinations}
        pages = {f"{p.name}.html" for p in b.pages}
        internal = [a["href"] for article in b.articles.values() for a in article.find_all("a", href=True)
                    if "headerlink" not in a.get("class", []) and not a.find_parent("p", class_="tp-open")
                    and (a["href"].startswith("#") or a["href"].split("#")[0] in pages)]
        contents = sum(1 for d in dests if d.startswith("toc-"))  # the contents' own links
        assert len(dests) - contents >= len(internal), (len(dests), contents, len(internal))
        assert set(dests) <= names, sorted(set(dests) - names)[:5]


@pytest.mark.pdf
def test_every_html_page_links_to_its_pdf(built):
    for b in built:
        for page in sorted(b.edition.folder.glob("*.html")):
            m = re.search(r'<p class="tp-pdf-link"><a class="[^"]*" href="([^"]+)"', page.read_text(encoding="utf-8"))
            assert m, f"{page.relative_to(ROOT)} has no link to the PDF"
            assert (page.parent / m.group(1)).resolve() == b.path.resolve()


@pytest.mark.pdf
def test_printing_again_gives_the_same_bytes(built, tmp_path):
    from pypdf import PdfReader

    from tokenpath._pdf.render import browser, print_edition

    if shutil.which("chromium") is None:
        pytest.skip("Chromium is not installed: cannot print again")
    with browser() as chromium:
        for b in built:
            date = PdfReader(b.path).trailer["/Info"].get_object()
            raw = str(date.get("/CreationDate", ""))
            epoch = None
            if raw:
                import calendar
                import time

                epoch = calendar.timegm(time.strptime(raw[2:16], "%Y%m%d%H%M%S"))
            again = print_edition(b.edition, tmp_path, epoch=epoch, b=chromium).path.read_bytes()
            first = b.path.read_bytes()
            if again != first:
                at = next((i for i, (x, y) in enumerate(zip(first, again)) if x != y), min(len(first), len(again)))
                fonts = [_font_names(x) for x in (first, again)]
                pytest.fail(f"{b.path.name} printed again differs ({len(first)} and {len(again)} bytes), first at "
                            f"byte {at}: {first[max(0, at - 60):at + 60]!r} against {again[max(0, at - 60):at + 60]!r}; "
                            f"fonts only in the first {sorted(fonts[0] - fonts[1])}, only in the second "
                            f"{sorted(fonts[1] - fonts[0])}")


def _font_names(pdf: bytes) -> set[str]:
    """The embedded fonts' names without their subset prefix (``DejaVuSans-Bold``)."""
    import io

    from pypdf import PdfReader

    names = set()
    for page in PdfReader(io.BytesIO(pdf)).pages:
        for font in (page.get("/Resources") or {}).get("/Font", {}).values():
            name = str(font.get_object().get("/BaseFont", "/Type3"))
            names.add(name.lstrip("/").split("+")[-1])
    return names
