"""Open the book the way a reader does and move its sliders in a real browser.

``make check-lab`` runs this (and CI, through ``.ci/run``). It starts ``make lab``, opens
the URL JupyterLab prints in headless Chromium (Debian's ``chromium``; no browser
download), and checks that

1. the first chapter opens by itself, with no "model not found" widget error;
2. for **every** notebook that has widgets (found from its code: a call of a slider
   constructor registered in ``tokenpath.widgets.SLIDERS``, or any other use of
   ``ipywidgets`` or ``tokenpath.widgets``): after *Clear Outputs of All Cells* and
   *Run All Cells*, every cell ran without an error or stderr output, and at least the
   sliders its code builds are on the page;
3. every slider (each of a widget's sliders, when it has several), moved **with the
   keyboard** from one end of its range to the other (focus its handle, Home, then End),
   changes both the image shown (a slider figure's component, ``tokenpath/widgets/frames.js``:
   a held frame or one the kernel sends; for a widget drawn as HTML, its HTML view), the
   slider's readout and, for the component's range inputs, their ``aria-valuetext``.
   Other widgets (a text box, a button) are left alone.

Screenshots go to ``build/lab-smoke/`` (one before and after each slider move per
notebook). Autosave is switched off for the session (a settings folder of its own), and
the run fails if a notebook or its markdown file changed on disk anyway. Exit status 0
when every check passes. Not part of ``make test``: it needs a browser and takes a
minute or two.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "build" / "lab-smoke"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
#: What marks a notebook as having widgets, besides a registered slider call.
WIDGET_WORDS = re.compile(r"\bipywidgets\b|\btokenpath\.widgets\b|\bfrom tokenpath import\b[^\n]*\bwidgets\b|\bselfcheck\b")


def widget_notebooks() -> list[tuple[Path, int]]:
    """``(notebook, sliders its code builds)`` for every notebook that has widgets."""
    import nbformat

    from tokenpath._sphinx.calls import slider_calls
    from tokenpath.widgets import SLIDERS

    found = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        sliders = sum(len(slider_calls(c.source, set(SLIDERS), code)) for c in nb.cells if c.cell_type == "code")
        if sliders or WIDGET_WORDS.search(code):
            found.append((path, sliders))
    return found


def wait_for_url(log: Path, seconds: float) -> str:
    """The first tokenised Lab URL the server prints into ``log``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        match = re.search(r"(http://(?:localhost|127\.0\.0\.1):\d+/lab\S*\?token=\w+)", log.read_text())
        if match:
            return match.group(1)
        time.sleep(0.5)
    raise SystemExit(f"JupyterLab printed no URL within {seconds:.0f} s; see {log}")


def shut_down_kernels(base: str, token: str) -> None:
    """Stop every kernel of the server (each notebook starts its own)."""
    def call(method: str, path: str):
        req = urllib.request.Request(f"{base}{path}", method=method, headers={"Authorization": f"token {token}"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.loads(resp.read() or b"null")

    for kernel in call("GET", "/api/kernels") or []:
        call("DELETE", f"/api/kernels/{kernel['id']}")


def menu(page, top: str, item: str) -> None:
    page.get_by_role("menuitem", name=top, exact=True).click()
    page.get_by_text(item, exact=True).click()


def idle(page, seconds: float = 180) -> None:
    """Wait until no cell shows a running prompt ``[*]``."""
    page.wait_for_function(
        "() => ![...document.querySelectorAll('.jp-InputArea-prompt')].some(p => p.textContent.includes('*'))",
        timeout=seconds * 1000,
    )


#: A slider: an ipywidgets slider, or a row of the slider figure component.
SLIDER = ".widget-slider, .tp-frames-row"
#: Its handle, its readout.
HANDLE, READOUT = ".noUi-handle, input[type=range]", ".widget-readout, .tp-frames-readout"


#: A hash of the pixels the slider component has drawn on its canvas, and their size.
CANVAS_PIXELS = """(c) => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let h = 2166136261;
  for (let i = 0; i < d.length; i++) h = Math.imul(h ^ d[i], 16777619) >>> 0;
  return `${c.width}x${c.height}:${h}`; }"""


def state(out, slider) -> tuple[str | None, str, str | None]:
    """What the output shows (the slider component: a hash of the pixels on its canvas;
    an image: its address; a widget drawn as HTML, such as chapter 10's typed line: its
    last HTML view), the slider's own readout and its ``aria-valuetext`` (a range input
    of the component; ``None`` for an ipywidgets slider)."""
    canvases, images = out.locator("canvas.tp-frames-image"), out.locator("img")
    if canvases.count():
        shown = canvases.first.evaluate(CANVAS_PIXELS)
    elif images.count():
        shown = images.first.get_attribute("src")
    else:
        shown = out.locator(".widget-html-content, .jupyter-widget-html-content").last.inner_html()
    ranges = slider.locator("input[type=range]")
    text = ranges.first.get_attribute("aria-valuetext") if ranges.count() else None
    return shown, slider.locator(READOUT).first.text_content().strip(), text


def until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def press(page, out, slider, key: str, before: tuple) -> tuple:
    """Focus the slider's handle, press ``key``, and when the readout moves wait (10 s
    at most) for the kernel's new image."""
    slider.locator(HANDLE).first.focus()
    page.keyboard.press(key)
    if until(lambda: state(out, slider)[1] != before[1], 3):
        until(lambda: state(out, slider)[0] != before[0], 10)
        time.sleep(0.5)  # let a last image land
    return state(out, slider)


def check_notebook(page, url: str, path: Path, sliders: int) -> list[str]:
    problems = []
    stem = path.stem
    page.goto(url)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator, .jp-Toolbar", timeout=30_000)
    time.sleep(2)
    page.keyboard.press("Escape")
    menu(page, "Edit", "Clear Outputs of All Cells")
    menu(page, "Run", "Run All Cells")
    if sliders:
        page.wait_for_selector(".widget-slider, .tp-frames", timeout=120_000)
    time.sleep(1)
    idle(page)
    errors = page.locator(
        ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr'], .jp-OutputArea-output.jp-mod-error"
    )
    if errors.count():
        problems.append(f"{stem}: {errors.count()} output(s) with an error or on stderr after Run All: "
                        f"{errors.first.inner_text()[:300]!r}")
    page.screenshot(path=str(OUT / f"{stem}-00-ran-all.png"))

    outputs = page.locator(".jp-OutputArea-output:has(.widget-slider), .jp-OutputArea-output:has(.tp-frames)")
    if outputs.count() < sliders:
        problems.append(f"{stem}: its code builds {sliders} slider widget(s), the page shows {outputs.count()}")
    n = 0
    for o in range(outputs.count()):
        out = outputs.nth(o)
        out.scroll_into_view_if_needed()
        handles = out.locator(SLIDER)
        for h in range(handles.count()):  # a widget may have several sliders; each is moved
            n += 1
            slider = handles.nth(h)
            label = slider.locator(".widget-label, .tp-frames-label").first.text_content() or ""
            name = f"{stem} slider {n} ({label.strip() or 'unlabelled'})"
            page.wait_for_function("(el) => el.textContent.trim() !== ''",
                                   arg=slider.locator(READOUT).first.element_handle(), timeout=30_000)
            time.sleep(0.5)
            default = state(out, slider)
            page.screenshot(path=str(OUT / f"{stem}-{n:02d}-slider-default.png"))
            low = press(page, out, slider, "Home", default)
            high = press(page, out, slider, "End", low)
            page.screenshot(path=str(OUT / f"{stem}-{n:02d}-slider-end.png"))
            print(f"{name}: readout {default[1]!r} -Home-> {low[1]!r} -End-> {high[1]!r}; "
                  f"image changed: {low[0] != default[0]}, {high[0] != low[0]}")
            if high[1] == low[1]:
                problems.append(f"{name}: the readout did not change from one end to the other ({low[1]!r})")
            if high[0] == low[0]:
                problems.append(f"{name}: the image did not change from one end to the other")
            for a, b, key in ((default, low, "Home"), (low, high, "End")):
                if a[1] != b[1] and a[0] == b[0]:
                    problems.append(f"{name}: {key} moved the readout {a[1]!r} → {b[1]!r} but not the image")
                if b[2] is not None and not b[2].endswith(f"= {b[1]}"):
                    problems.append(f"{name}: after {key} its aria-valuetext is {b[2]!r}, not its readout {b[1]!r}")
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium"))
    parser.add_argument("--only", nargs="*", help="notebook names (stems) to check; default: every one with widgets")
    args = parser.parse_args(argv)
    if not Path(args.chromium).exists():
        raise SystemExit(f"no Chromium at {args.chromium}: install Debian's chromium or pass --chromium")
    from playwright.sync_api import sync_playwright

    notebooks = [(p, n) for p, n in widget_notebooks() if not args.only or p.stem in args.only]
    print("notebooks with widgets:", ", ".join(f"{p.stem} ({n} slider{'s' * (n != 1)})" for p, n in notebooks) or "none")
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True, exist_ok=True)
    sources = {p: p.read_bytes() for p in sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "book").glob("*.md"))}
    settings = Path(tempfile.mkdtemp(prefix="lab-smoke-settings-"))
    autosave = settings / "@jupyterlab" / "docmanager-extension" / "plugin.jupyterlab-settings"
    autosave.parent.mkdir(parents=True)
    autosave.write_text('{"autosave": false}')
    env = dict(os.environ, BROWSER="true", JUPYTERLAB_SETTINGS_DIR=str(settings),
               JUPYTERLAB_WORKSPACES_DIR=str(settings / "workspaces"))
    log = OUT / "lab.log"
    problems: list[str] = []
    with log.open("w") as sink:
        lab = subprocess.Popen(
            ["make", "lab"], cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, env=env, start_new_session=True,
        )
    try:
        url = wait_for_url(log, 120)
        parts = urlsplit(url)
        base, token = f"{parts.scheme}://{parts.netloc}", re.search(r"token=(\w+)", url).group(1)
        print("JupyterLab:", re.sub(r"token=\w+", "token=…", url))
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            # the reader's first view: the first chapter, opened by itself
            page.goto(url)
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
            time.sleep(2)
            page.screenshot(path=str(OUT / "00-opened.png"))
            first = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))[0]
            tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current .lm-TabBar-tabLabel")
            if tab.count() != 1 or tab.inner_text() != first:
                problems.append(f"the open tab is {tab.all_inner_texts()}, not {first}")
            if page.get_by_text("model not found").count():
                problems.append("a stored widget output shows 'model not found' before the cells run")
            for path, sliders in notebooks:
                shut_down_kernels(base, token)
                rel = path.relative_to(ROOT).as_posix()
                nb_url = f"{base}/lab/workspaces/check-{path.stem}/tree/{rel}?token={token}"
                started = time.monotonic()
                try:
                    problems += check_notebook(page, nb_url, path, sliders)
                except Exception as exc:  # a timeout names the notebook, and the others still run
                    page.screenshot(path=str(OUT / f"{path.stem}-99-failed.png"))
                    problems.append(f"{path.stem}: {type(exc).__name__}: {str(exc).splitlines()[0]}")
                print(f"{path.stem}: checked in {time.monotonic() - started:.0f} s")
            browser.close()
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        lab.wait(timeout=30)
        shutil.rmtree(settings, ignore_errors=True)
    changed = [p.relative_to(ROOT) for p, data in sources.items() if p.read_bytes() != data]
    if changed:
        problems.append(f"the session saved over {', '.join(map(str, changed))}; restore with git")
    for problem in problems:
        print("FAIL:", problem)
    print("screenshots in", OUT.relative_to(ROOT))
    if not problems:
        print(f"check-lab: {len(notebooks)} notebook(s) with widgets, every slider moved by keyboard end to end")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
