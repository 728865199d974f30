"""Read the HTML edition in a real browser from ``file://`` and move its sliders.

``make check-book`` runs this after ``make book`` (and CI, through ``.ci/run``). It opens
every page of ``build/html/`` in headless Chromium (Debian's ``chromium``) straight from
disk, with every request that is not a ``file:`` or ``data:`` URL refused and reported,
and checks that

1. the page has the sidebar with every chapter and working previous/next links, and
   its math is MathML (no TeX source left);
2. every precomputed slider, moved **with the keyboard** (focus the range input, Home,
   then Right arrow step by step to the other end), changes the image, the readout and
   the caption at every step; and each frame is byte for byte what the figure code
   draws at that value (the widget's constructor from ``tokenpath.widgets.SLIDERS``,
   ``update(value)``, ``png()``), with ``describe()`` as its caption;
3. each slider has a visible label and an ``aria-valuetext`` that follows it, and its
   caption (the image's text alternative) differs between the two ends of each slider.

Screenshots go to ``build/book-smoke/``. Exit status 0 when every check passes. Not part
of ``make test``: it needs a browser.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "build" / "html"
OUT = ROOT / "build" / "book-smoke"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--allow-file-access-from-files"]


def frame_state(box) -> dict:
    return box.evaluate(
        """(b) => ({positions: [...b.querySelectorAll('input[type=range]')].map(i => Number(i.value)),
                    src: b.querySelector('img.tp-frame').getAttribute('src'),
                    readouts: [...b.querySelectorAll('.tp-readout')].map(o => o.textContent),
                    caption: b.querySelector('.tp-caption').textContent,
                    valuetexts: [...b.querySelectorAll('input[type=range]')].map(i => i.getAttribute('aria-valuetext'))})"""
    )


def check_slider(page, box, label: str) -> list[str]:
    from tokenpath import _book

    problems = []
    call = json.loads(box.get_attribute("data-call"))
    widget = _book.SliderCall(call["name"], tuple(call["args"]), tuple(call["kwargs"].items())).build()
    sliders = _book.controls(widget)
    grid = _book.frame_grid(sliders)
    data = json.loads(box.locator("script.tp-frames").text_content())
    if data["shape"] != [len(g) for g in grid]:
        return [f"{label}: the page has {data['shape']} positions, {call['name']} gives {[len(g) for g in grid]}"]
    labels = box.locator("label").all_text_contents()
    if len(labels) != len(sliders) or not all(t.strip() for t in labels):
        problems.append(f"{label}: expected {len(sliders)} labelled range inputs, found labels {labels}")
    box.scroll_into_view_if_needed()
    inputs = box.locator("input[type=range]")
    mismatched, visited = [], 0
    for j in range(inputs.count()):
        inputs.nth(j).focus()
        page.keyboard.press("Home")
        seen = [frame_state(box)]
        page.screenshot(path=str(OUT / f"{label}-{j + 1}-start.png"))
        for _ in range(len(grid[j]) - 1):
            page.keyboard.press("ArrowRight")
            seen.append(frame_state(box))
        page.screenshot(path=str(OUT / f"{label}-{j + 1}-end.png"))
        visited += len(seen)
        steps = [s["positions"][j] for s in seen]
        if steps != list(range(len(grid[j]))):
            problems.append(f"{label}: Home then Right arrow moved slider {j + 1} through {steps}, not 0…{len(grid[j]) - 1}")
        if len(seen) > 1 and seen[0]["src"] == seen[-1]["src"]:
            problems.append(f"{label}: slider {j + 1} moved end to end and the image stayed the same")
        if len(seen) > 1 and seen[0]["caption"] == seen[-1]["caption"]:
            problems.append(f"{label}: slider {j + 1} moved end to end and the caption (the text alternative) stayed the same")
        for s in seen:
            values = [g[p] for g, p in zip(grid, s["positions"])]
            _book.move(sliders, values)
            if base64.b64decode(s["src"].split(",", 1)[1]) != widget.png():
                mismatched.append(values)
            if s["caption"] != widget.describe():
                problems.append(f"{label}: the caption at {values} is not describe() at those values")
            expected = [_book._readout(sl, sl.value) for sl in sliders]
            if s["readouts"] != expected or any(not t.endswith(f"= {e}") for t, e in zip(s["valuetexts"], expected)):
                problems.append(f"{label}: at {values} the readouts are {s['readouts']}, expected {expected}")
    if mismatched:
        problems.append(f"{label}: the frames at {mismatched[:5]} differ from {call['name']}'s rendering at those values")
    print(f"{label}: {call['name']}, {len(sliders)} slider(s) moved end to end through {visited} positions; "
          f"every frame equal to the figure code's: {not mismatched}")
    return problems


def check_page(page, path: Path, chapters: list[Path], blocked: list[str]) -> list[str]:
    problems = []
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    stem = path.stem
    sidebar = page.locator("nav.tp-sidebar a")
    hrefs = sidebar.evaluate_all("(links) => links.map(a => a.getAttribute('href'))")
    missing = [c.name for c in chapters if c.name not in hrefs]
    if missing:
        problems.append(f"{stem}: the sidebar lacks {missing}")
    for link in page.locator("nav.tp-pager a").evaluate_all("(links) => links.map(a => a.getAttribute('href'))"):
        if not (path.parent / link).exists():
            problems.append(f"{stem}: previous/next link to {link}, which does not exist")
    text = page.locator("main").inner_text()
    if "$$" in text or "\\frac" in text:
        problems.append(f"{stem}: TeX source shown as text")
    maths = page.locator("math").count()
    boxes = page.locator(".tp-slider")
    print(f"{stem}: {maths} formulas as MathML, {boxes.count()} precomputed slider(s)")
    for n in range(boxes.count()):
        problems += check_slider(page, boxes.nth(n), f"{stem}-slider{n + 1}")
    if blocked:
        problems.append(f"{stem}: the page asked the network for {blocked[:3]}")
        blocked.clear()
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium"))
    parser.add_argument("--html", type=Path, default=HTML, help="the built edition (default build/html)")
    args = parser.parse_args(argv)
    if not Path(args.chromium).exists():
        raise SystemExit(f"no Chromium at {args.chromium}: install Debian's chromium or pass --chromium")
    index = args.html / "index.html"
    if not index.exists():
        raise SystemExit(f"no {index}: run make book first")
    from playwright.sync_api import sync_playwright

    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True, exist_ok=True)
    chapters = sorted(p for p in args.html.glob("*.html") if p.name != "index.html")
    problems: list[str] = []
    blocked: list[str] = []
    started = time.monotonic()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1300, "height": 1000})

        def route(r):
            if r.request.url.startswith(("file:", "data:")):
                r.continue_()
            else:
                blocked.append(r.request.url)
                r.abort()

        page.route("**/*", route)
        page.on("pageerror", lambda exc: problems.append(f"a script error on the page: {exc}"))
        for path in [index, *chapters]:
            problems += check_page(page, path, chapters, blocked)
        browser.close()
    for problem in problems:
        print("FAIL:", problem)
    print("screenshots in", OUT.relative_to(ROOT) if OUT.is_relative_to(ROOT) else OUT)
    if not problems:
        print(f"check-book: {len(chapters)} chapter page(s) from file://, every slider moved by keyboard end to end "
              f"and every frame equal to the figure code's ({time.monotonic() - started:.0f} s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
