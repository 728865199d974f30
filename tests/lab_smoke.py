"""Open the book the way a reader does and move its sliders in a real browser.

``make check-lab`` runs this. It starts ``make lab``, opens the URL JupyterLab prints in
headless Chromium (Debian's ``chromium``; no browser download), and checks that

1. the first chapter opens by itself, with no "model not found" widget error;
2. *Run All* executes every cell without an error output;
3. each slider widget appears, and dragging its handle changes the readout and the
   image the kernel sends back.

Screenshots go to ``build/lab-smoke/``. Exit status 0 when every check passes.
Not part of ``make test``: it needs a browser and takes about a minute.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "build" / "lab-smoke"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]


def wait_for_url(log: Path, seconds: float) -> str:
    """The first tokenised Lab URL the server prints into ``log``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        match = re.search(r"(http://(?:localhost|127\.0\.0\.1):\d+/lab\S*\?token=\w+)", log.read_text())
        if match:
            return match.group(1)
        time.sleep(0.5)
    raise SystemExit(f"JupyterLab printed no URL within {seconds:.0f} s; see {log}")


def drag(page, output, dx: float) -> None:
    handle = output.locator(".noUi-handle").first
    handle.scroll_into_view_if_needed()
    time.sleep(0.5)
    box = handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + dx, y, steps=12)
    page.mouse.up()


def check(page, url: str, expected_sliders: int) -> list[str]:
    problems = []
    page.goto(url)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
    time.sleep(3)
    page.screenshot(path=str(OUT / "01-opened.png"))
    first = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))[0]
    tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current .lm-TabBar-tabLabel")
    if tab.count() != 1 or tab.inner_text() != first:
        problems.append(f"the open tab is {tab.all_inner_texts()}, not {first}")
    if page.get_by_text("model not found").count():
        problems.append("a stored widget output shows 'model not found' before the cells run")

    page.keyboard.press("Escape")
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_text("Run All Cells", exact=True).click()
    page.wait_for_selector(".widget-slider", timeout=120_000)
    page.wait_for_function(
        "() => ![...document.querySelectorAll('.jp-InputArea-prompt')].some(p => p.textContent.includes('*'))",
        timeout=180_000,
    )
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    if errors.count():
        problems.append(f"{errors.count()} output(s) on stderr (an error or a warning) after Run All")
    page.screenshot(path=str(OUT / "02-ran-all.png"))

    outputs = page.locator(".jp-OutputArea-output:has(.widget-slider)")
    if outputs.count() != expected_sliders:
        problems.append(f"expected {expected_sliders} slider widgets, found {outputs.count()}")
    for n in range(outputs.count()):
        out = outputs.nth(n)
        out.scroll_into_view_if_needed()
        time.sleep(1)
        image = out.locator("img").first
        readout = out.locator(".widget-readout").first
        page.wait_for_function("(el) => el.textContent.trim() !== ''", arg=readout.element_handle(), timeout=30_000)
        time.sleep(1)
        before = (image.get_attribute("src"), readout.text_content().strip())
        page.screenshot(path=str(OUT / f"{3 + 2 * n:02d}-slider{n}-default.png"))
        for _attempt in range(3):  # a drag that starts while the page still scrolls can miss
            drag(page, out, -200)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and image.get_attribute("src") == before[0]:
                time.sleep(0.25)
            if image.get_attribute("src") != before[0]:
                break
        after = (image.get_attribute("src"), readout.text_content().strip())
        page.screenshot(path=str(OUT / f"{4 + 2 * n:02d}-slider{n}-moved.png"))
        print(f"slider {n}: readout {before[1]!r} -> {after[1]!r}, image changed: {after[0] != before[0]}")
        if after[0] == before[0]:
            problems.append(f"slider {n}: the image did not change after dragging")
        if after[1] == before[1]:
            problems.append(f"slider {n}: the readout did not change after dragging")
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium"))
    parser.add_argument("--sliders", type=int, default=2, help="slider widgets the first chapter has")
    args = parser.parse_args(argv)
    if not Path(args.chromium).exists():
        raise SystemExit(f"no Chromium at {args.chromium}: install Debian's chromium or pass --chromium")
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    sources = {p: p.read_bytes() for p in sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "book").glob("*.md"))}
    log = OUT / "lab.log"
    with log.open("w") as sink:
        lab = subprocess.Popen(
            ["make", "lab"], cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, env=dict(os.environ, BROWSER="true"), start_new_session=True,
        )
    try:
        url = wait_for_url(log, 120)
        print("JupyterLab:", re.sub(r"token=\w+", "token=…", url))
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            problems = check(page, url, args.sliders)
            browser.close()
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        lab.wait(timeout=30)
    changed = [p.relative_to(ROOT) for p, data in sources.items() if p.read_bytes() != data]
    if changed:
        problems.append(f"the session saved over {', '.join(map(str, changed))} (JupyterLab autosave); restore with git")
    for problem in problems:
        print("FAIL:", problem)
    print("screenshots in", OUT.relative_to(ROOT))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
