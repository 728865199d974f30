"""Read the HTML edition in a real browser from ``file://``: every page, on a desktop and
on a phone.

``make check-book`` runs this after ``make book`` (and CI, through ``.ci/run``). It opens
every page of both editions, ``build/html/en/`` and ``build/html/zh/`` (and the landing
``build/html/index.html``), in headless Chromium (Debian's ``chromium``) straight from
disk, at 1280 px and at 390 px wide, with every request that is not a ``file:`` or
``data:`` URL refused, and checks that

1. no page logs a console error or a script error, and no request fails or asks the
   network;
2. every link to a page of the edition names a file that exists, and every ``#anchor``
   an id of its page;
3. nothing is wider than a phone's screen (390 px): the page does not scroll sideways;
4. no TeX is left as text, and formulas are MathML;
5. search, from ``file://``, finds a glossary term and links to the glossary, in each
   edition (the Chinese one splits Chinese words with jieba);
6. every precomputed slider is the slider component (``tokenpath/widgets/frames.js``,
   not the no-script fallback) and, moved **with the keyboard** (Home, then Right arrow
   to the other end, each control in turn), changes its image, readout, aria-valuetext
   and caption; at every state it reaches, the pixels it draws on its canvas are the
   figure code's rendering at its values (the widget from ``tokenpath.widgets.SLIDERS``
   moved with ``update``, cropped to the slider's box), and its caption and the canvas's
   accessible name are ``describe()`` in the edition's language; every frame of its data
   (checked in the English edition, whose files the Chinese pages show), moved to or not, with its
   strips laid over it, is that rendering too, and no text is cut: none runs past the
   figure's edge, every panel the crop overlaps is whole with its title, axis and tick
   labels, every other text wholly in or out (:func:`tokenpath._sphinx.crop.cut_texts`);
7. a "Check yourself" reveal opens and shows the engine's answer;
8. printed (a chapter as PDF), no sidebar is shown and no code block is cut off;
9. every character of every page's text has a glyph in the page's fonts
   (:func:`tokenpath._sphinx.fonts.missing_glyphs`).

Screenshots of every page at both widths, of each slider at both ends and of a page in
dark mode go to ``build/book-smoke/``. Exit status 0 when every check passes. Not part
of ``make test``: it needs a browser.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "build" / "html"
OUT = ROOT / "build" / "book-smoke"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--allow-file-access-from-files"]
WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}
#: Each edition's folder, the engine's language for it, and the glossary term its search must find.
EDITIONS = {"en": ("en", "Residual stream"), "zh": ("zh_CN", "残差流")}
SEARCH_TERM = EDITIONS["en"][1]


def ids_of(path: Path, cache: dict) -> set:
    if path not in cache:
        cache[path] = set(re.findall(r'\sid="([^"]+)"', path.read_text(encoding="utf-8")))
    return cache[path]


def superseded(request) -> bool:
    """A frame's load that the browser cancelled because the slider moved on before it
    finished (the file exists; the next frame replaced it)."""
    path = Path(unquote(urlsplit(request.url).path))
    return "ERR_ABORTED" in (request.failure or "") and path.is_file()


def check_links(page, path: Path, cache: dict) -> list[str]:
    problems = []
    hrefs = page.locator("a[href]").evaluate_all("(links) => links.map(a => a.getAttribute('href'))")
    for href in sorted(set(hrefs)):
        parts = urlsplit(href)
        if parts.scheme or href.startswith("//"):
            continue  # the only absolute links are papers and code cited in Sources
        target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
        if not target.exists():
            problems.append(f"{path.name}: link to {href}, which does not exist")
        elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in ids_of(target, cache):
            problems.append(f"{path.name}: link to {href}, whose page has no id {parts.fragment!r}")
    return problems


#: What the slider component shows (tokenpath/widgets/frames.js): the state chosen and
#: drawn, each control's position, readout and aria-valuetext, the caption and the
#: canvas's accessible name.
FRAME_STATE = """(b) => { const r = b.querySelector('.tp-frames'), c = r.querySelector('canvas.tp-frames-image');
  return {positions: [...r.querySelectorAll('input[type=range]')].map(i => Number(i.value)),
          state: r.dataset.state, drawn: r.dataset.drawn,
          readouts: [...r.querySelectorAll('.tp-frames-readout')].map(o => o.textContent),
          valuetexts: [...r.querySelectorAll('input[type=range]')].map(i => i.getAttribute('aria-valuetext')),
          caption: r.querySelector('.tp-frames-caption').textContent,
          role: c.getAttribute('role'), name: c.getAttribute('aria-label')}; }"""
#: The canvas's pixels, as a PNG data URL.
CANVAS = "(b) => b.querySelector('canvas.tp-frames-image').toDataURL('image/png')"


def shown_state(page, box) -> dict:
    """The component's state once the frame chosen is drawn (10 s at most)."""
    page.wait_for_function("(b) => { const r = b.querySelector('.tp-frames'); "
                           "return r && r.dataset.drawn !== undefined && r.dataset.drawn === r.dataset.state; }",
                           arg=box.element_handle(), timeout=10_000)
    return box.evaluate(FRAME_STATE)


def canvas_pixels(box):
    import base64

    from tokenpath._sphinx.images import pixels

    return pixels(base64.b64decode(box.evaluate(CANVAS).split(",", 1)[1]))


def frame_of(data, html: Path, k: int):
    """Frame ``k`` as its files give it: its image with its strips laid over it."""
    from tokenpath._sphinx.frames import compose
    from tokenpath._sphinx.images import pixels

    file, _, strips = data["frames"][k]
    return compose(pixels((html / data["files"][file]).read_bytes()),
                   [(x, y, pixels((html / data["files"][i]).read_bytes())) for i, x, y in strips])


def check_slider(page, box, label: str, html: Path, frames: bool = True) -> list[str]:
    import numpy as np

    from tokenpath._sphinx import calls, crop, grids, images

    problems = []
    call = json.loads(box.get_attribute("data-call"))
    left, top, right, bottom = map(int, box.get_attribute("data-box").split(","))
    widget = calls.SliderCall(call["name"], tuple(call["args"]), tuple(call["kwargs"].items())).build()
    data = json.loads(box.locator("script.tp-slider-data").text_content())
    if box.locator(".tp-slider-fallback").count() or not box.locator(".tp-frames canvas").count():
        return [f"{label}: the page shows the no-script fallback, not the slider component"]
    expected, mismatched, cropped = {}, [], []
    for k, values in enumerate(data["values"]):  # every frame, moved to or not
        if not grids.accepted(widget, values):
            problems.append(f"{label}: a frame for {values}, which the engine or the controls refuse")
            continue
        if frames:
            expected[k] = images.pixels(widget.png())[top:bottom, left:right]
            shown = frame_of(data, html, k)
            if shown.shape != expected[k].shape or not np.array_equal(shown, expected[k]):
                mismatched.append(values)
            cut = crop.cut_texts(widget.figure, (left, top, right, bottom))
            if cut:
                cropped.append((values, cut[:3]))
        if data["frames"][k][1] != widget.describe():
            problems.append(f"{label}: the caption at {values} is not describe() at those values")
    box.scroll_into_view_if_needed()
    inputs = box.locator(".tp-frames input[type=range]")
    drawn_wrong, visited = [], 0
    for j in range(inputs.count()):
        inputs.nth(j).focus()
        page.keyboard.press("Home")
        seen = [shown_state(page, box)]
        canvases = [canvas_pixels(box)]
        page.screenshot(path=str(OUT / f"{label}-{j + 1}-start.png"))
        for _ in range(data["shape"][j] - 1):
            page.keyboard.press("ArrowRight")
            seen.append(shown_state(page, box))
            canvases.append(canvas_pixels(box))
        page.screenshot(path=str(OUT / f"{label}-{j + 1}-end.png"))
        visited += len(seen)
        steps = [s["positions"][j] for s in seen]
        if steps != list(range(data["shape"][j])):
            problems.append(f"{label}: Home then Right arrow moved control {j + 1} through {steps}")
        if len(seen) > 1 and (np.array_equal(canvases[0], canvases[-1]) or seen[0]["caption"] == seen[-1]["caption"]):
            problems.append(f"{label}: control {j + 1} moved end to end and the image or caption stayed the same")
        for s, drawn in zip(seen, canvases):
            k = 0
            for pos, n in zip(s["positions"], data["shape"]):
                k = k * n + pos
            values, caption = data["values"][k], data["frames"][k][1]
            if s["state"] != ",".join(map(str, s["positions"])):
                problems.append(f"{label}: at {values} the component shows state {s['state']}")
            if k in expected and (drawn.shape != expected[k].shape or not np.array_equal(drawn, expected[k])):
                drawn_wrong.append(values)
            if s["caption"] != caption or s["name"] != caption or s["role"] != "img":
                problems.append(f"{label}: at {values} the caption or the image's accessible name is not its frame's")
            readouts = [data["readouts"][i][p] for i, p in enumerate(s["positions"])]
            if s["readouts"] != readouts:
                problems.append(f"{label}: at {values} the readouts are {s['readouts']}, not {readouts}")
            if s["valuetexts"] != [f"{name} = {text}" for name, text in zip(data["labels"], readouts)]:
                problems.append(f"{label}: at {values} aria-valuetext is {s['valuetexts']}")
    if mismatched:
        problems.append(f"{label}: the frames at {mismatched[:5]} differ from {call['name']}'s rendering")
    if drawn_wrong:
        problems.append(f"{label}: the component drew, at {drawn_wrong[:5]}, pixels that differ from "
                        f"{call['name']}'s rendering")
    if cropped:
        problems.append(f"{label}: texts cut by the crop or the figure's edge in {len(cropped)} frames, "
                        f"e.g. at {cropped[0][0]} {cropped[0][1]}")
    strips = len({i for _, _, ps in data["frames"] for i, _, _ in ps})
    print(f"  {label}: {call['name']}, {inputs.count()} control(s) moved end to end through {visited} states, "
          f"each drawn equal to the figure code's: {not drawn_wrong}; all {len(data['values'])} frames"
          + (f" (with {strips} strips laid over them)" if strips else "")
          + f" equal to the figure code's: {not mismatched}; texts whole in the crop: {not cropped}")
    return problems


def check_page(page, path: Path, width: str, cache: dict, html: Path, frames: bool = True) -> list[str]:
    problems = []
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    page.screenshot(path=str(OUT / f"{path.parent.name}-{path.stem}-{width}.png"))
    overflow = page.evaluate("() => document.scrollingElement.scrollWidth - window.innerWidth")
    if overflow > 1:
        wide = page.evaluate("""() => [...document.querySelectorAll('.bd-article *')]
            .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
            .slice(0, 3).map(e => e.tagName + '.' + e.className)""")
        problems.append(f"{path.name} at {width}: the page scrolls sideways by {overflow} px ({wide})")
    if width == "phone":
        return problems
    problems += check_links(page, path, cache)
    text = page.locator("main").inner_text()
    if "$$" in text or "\\frac" in text:
        problems.append(f"{path.name}: TeX source shown as text")
    from tokenpath._sphinx import fonts

    missing = fonts.missing_glyphs(page.evaluate("() => document.body.innerText") + " ".join(
        page.locator("img[alt]").evaluate_all("(i) => i.map(x => x.alt)")
        + page.locator("[role=img][aria-label]").evaluate_all("(i) => i.map(x => x.getAttribute('aria-label'))")))
    if missing:
        problems.append(f"{path.name}: characters without a glyph in the page's fonts: {''.join(sorted(missing))!r}")
    boxes = page.locator(".tp-slider")
    quizzes = page.locator(".tp-quiz")
    print(f"{path.name}: {page.locator('math').count()} formulas as MathML, {boxes.count()} slider(s), "
          f"{quizzes.count()} question(s)")
    for n in range(boxes.count()):
        problems += check_slider(page, boxes.nth(n), f"{html.name}-{path.stem}-slider{n + 1}", html, frames)
    if quizzes.count():
        first = quizzes.first
        first.locator("summary").click()
        from tokenpath.i18n import _

        if not first.locator(".tp-answer").is_visible() or _("Answer:") not in first.locator(".tp-answer").inner_text():
            problems.append(f"{path.name}: the first question's reveal does not show the engine's answer")
    return problems


def check_print(page, path: Path) -> list[str]:
    """Printed: no sidebars, and no code block cut off at its right edge."""
    page.goto(path.as_uri())
    page.emulate_media(media="print")
    shown = page.evaluate("""() => [...document.querySelectorAll('.bd-sidebar-primary, .bd-sidebar-secondary')]
        .filter(e => getComputedStyle(e).display !== 'none').length""")
    clipped = page.evaluate("() => [...document.querySelectorAll('pre')].filter(p => p.scrollWidth > p.clientWidth + 1).length")
    page.pdf(path=str(OUT / f"print-{path.stem}.pdf"))
    page.emulate_media(media="screen")
    problems = [f"{path.name} printed: a sidebar is printed"] if shown else []
    if clipped:
        problems.append(f"{path.name} printed: {clipped} code block(s) cut off at the right edge")
    print(f"{path.name} printed: sidebars hidden {not shown}, code blocks cut off: {clipped}")
    return problems


def check_search(page, html: Path, term: str = SEARCH_TERM) -> list[str]:
    from urllib.parse import quote_plus

    page.goto((html / "search.html").as_uri() + "?q=" + quote_plus(term))
    try:
        page.wait_for_selector("#search-results li a", timeout=15000)
    except Exception:
        return [f"{html.name}: search for {term!r} from file:// shows no results"]
    links = page.locator("#search-results li a").evaluate_all("(a) => a.map(x => x.getAttribute('href'))")
    page.screenshot(path=str(OUT / f"search-{html.name}.png"))
    print(f"{html.name}: search for {term!r}: {len(links)} result(s)")
    if not any("99_glossary" in h for h in links):
        return [f"{html.name}: search for {term!r} does not list the glossary: {links[:5]}"]
    return []


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium"))
    parser.add_argument("--html", type=Path, default=HTML, help="the built edition (default build/html)")
    args = parser.parse_args(argv)
    if not Path(args.chromium).exists():
        raise SystemExit(f"no Chromium at {args.chromium}: install Debian's chromium or pass --chromium")
    root = args.html.resolve()
    editions = [e for e in EDITIONS if (root / e / "index.html").exists()]
    if not (root / "index.html").exists() or not editions:
        raise SystemExit(f"no {root / 'index.html'} or no edition under it: run make book first")
    from tokenpath import i18n
    from playwright.sync_api import sync_playwright

    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True, exist_ok=True)
    pages = [root / "index.html"] + [p for e in editions for p in sorted((root / e).glob("*.html"))]
    problems: list[str] = []
    started = time.monotonic()
    cache: dict = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
        for width, (w, h) in WIDTHS.items():
            page = browser.new_page(viewport={"width": w, "height": h})
            where = {"url": ""}

            def route(r):
                if r.request.url.startswith(("file:", "data:")):
                    r.continue_()
                else:
                    problems.append(f"{where['url']}: asked the network for {r.request.url}")
                    r.abort()

            page.route("**/*", route)
            page.on("framenavigated", lambda f: where.update(url=f.url) if f == f.page.main_frame else None)
            page.on("pageerror", lambda exc: problems.append(f"{where['url']}: script error {exc}"))
            page.on("console", lambda m: problems.append(f"{where['url']} ({width}): console {m.type}: {m.text}")
                    if m.type == "error" else None)
            page.on("requestfailed", lambda r: None if superseded(r) else problems.append(
                f"{where['url']}: request failed {r.url} ({r.failure})"))
            for path in pages:
                if path.parent == root:  # the landing page, which redirects: its links, read from the file
                    for href in re.findall(r'href="([^"]+)"', path.read_text(encoding="utf-8")):
                        if not (root / href).is_file():
                            problems.append(f"index.html: link to {href}, which does not exist")
                    continue
                edition = path.parent.name
                with i18n.using(EDITIONS[edition][0]):  # captions are describe() in the edition's language
                    problems += check_page(page, path, width, cache, path.parent, frames=edition == "en")
            html = root / editions[0]
            if width == "desktop":
                for edition in editions:
                    problems += check_search(page, root / edition, EDITIONS[edition][1])
                problems += check_print(page, html / "06_rope_discs.html")
                page.emulate_media(color_scheme="dark")
                page.goto((html / "06_rope_discs.html").as_uri())
                page.wait_for_load_state("load")
                page.screenshot(path=str(OUT / "dark-06_rope_discs.png"))
                page.emulate_media(color_scheme="light")
            if width == "phone":  # the README's picture: a chapter on a phone, in dark mode
                page.emulate_media(color_scheme="dark")
                page.goto((html / "06_rope_discs.html").as_uri() + "#figure-15-the-score-sees-the-positions-only-through-their-distance")
                page.wait_for_load_state("load")
                page.screenshot(path=str(OUT / "dark-phone-06_rope_discs.png"))
            page.close()
        browser.close()
    for problem in problems:
        print("FAIL:", problem)
    print("screenshots in", OUT.relative_to(ROOT) if OUT.is_relative_to(ROOT) else OUT)
    if not problems:
        print(f"check-book: {len(pages)} pages of {' and '.join(editions)} from file:// at {' and '.join(f'{w} px' for w, _ in WIDTHS.values())}: "
              f"no console errors or network requests, every link and anchor resolves, no sideways scrolling "
              f"on a phone, search works, every slider moved and every frame equal to the figure code's, "
              f"a quiz revealed, every character has a glyph ({time.monotonic() - started:.0f} s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
