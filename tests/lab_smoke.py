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
   slider's readout and, for the component's range inputs, their ``aria-valuetext``;
4. every "Follow your own line" widget (``tokenpath/widgets/ownline.py``, chapters 11 and
   12; found by its box's class ``tp-ownline-widget``, at least as many as the code's
   ``own_line(``/``real_own_line(`` calls), typed into **with the keyboard** (focus its
   text box, select all, type; no Enter: the box sends each keystroke to the kernel):
   a new line (Python where the widget asks for Python, English otherwise) changes the
   HTML view, whose token chips then spell exactly the typed line, with no message; an
   empty line shows the engine's message (``role="alert"``) and empties the view; the
   widget's first line typed back is shown again. Its cell shows no error, stderr or
   traceback afterwards, nor does the server's log (where the kernel's stderr goes).
   Other widgets (chapter 1's text area, a button) are left alone.

Screenshots go to ``build/lab-smoke/`` (one before and after each slider move per
notebook, one after each line typed into an own-line widget). Autosave is switched off
for the session (a settings folder of its own), and the run fails if a notebook or its
markdown file changed on disk anyway. Exit status 0 when every check passes. Not part
of ``make test``: it needs a browser and takes a few minutes.
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
#: A call that builds a "Follow your own line" widget.
OWNLINE_CALL = re.compile(r"\b(?:real_)?own_line\(|\bOwnLine\(")


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


def own_line_calls(path: Path) -> int:
    """How many "Follow your own line" widgets the notebook's code builds."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    return sum(len(OWNLINE_CALL.findall(c.source)) for c in nb.cells if c.cell_type == "code")


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
    an image: its address; a widget drawn as HTML, such as chapter 11's typed line: its
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


#: The "Follow your own line" widget (``tokenpath/widgets/ownline.py``): its box, and in it
#: its text box, the message shown for a refused line and the HTML view.
OWNLINE, OWNLINE_INPUT = ".tp-ownline-widget", ".widget-text input"
#: A line to type: Python where the widget's hint asks for Python (chapter 11's model was
#: trained on Python's standard library), English otherwise (chapter 12's SmolLM2).
OWNLINE_LINES = {"python": "print(len(items))", "text": "The dog ate the bone because the dog"}
#: What the widget shows: its view's HTML, the line its token chips spell (the marks of
#: whitespace undone; null without chips), its message, whether that is an alert, and
#: the text box's value.
OWNLINE_STATE = r"""(b) => {
  const view = b.querySelector('.tp-ownline-view'), message = b.querySelector('.tp-ownline-message');
  const chips = [...view.querySelectorAll('.tp-ownline span[title^="token "] > span:first-child')];
  const line = chips.map(s => s.textContent).join('')
    .replace(/␣/g, ' ').replace(/⇥/g, '\t').replace(/␍/g, '\r').replace(/↵/g, '\n');
  return {view: view.innerHTML, line: chips.length ? line : null, tokens: chips.length,
          message: message.innerText.trim(), alert: !!message.querySelector('[role=alert]'),
          input: b.querySelector('.widget-text input').value};
}"""
#: An output of a cell that shows an error or writes to stderr.
BAD_OUTPUT = ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr'], .jp-OutputArea-output.jp-mod-error"


def new_tracebacks(log: Path, offset: int) -> list[str]:
    """The Python tracebacks written to ``log`` after byte ``offset``, but for the noise of
    a kernel shut down between notebooks (zmq: "requested during shutdown")."""
    with log.open("rb") as f:
        f.seek(offset)
        text = f.read().decode(errors="replace")
    blocks = re.split(r"(?m)^(?=Traceback \(most recent call last\):)", text)[1:]
    return [b for b in blocks if "during shutdown" not in b]


def type_line(page, box, line: str) -> None:
    """Type ``line`` into the own-line widget's text box as a reader does: focus it,
    select all, type (an empty line: delete the selection)."""
    box.locator(OWNLINE_INPUT).first.focus()
    page.keyboard.press("Control+a")
    if line:
        page.keyboard.type(line, delay=15)
    else:
        page.keyboard.press("Backspace")


def check_own_lines(page, stem: str, expected: int, log: Path | None) -> tuple[list[str], int]:
    """Type a new line, an empty one and the first line again into every own-line widget
    of the page (check 4 of the module docstring); the problems, and how many widgets."""
    problems = []
    boxes = page.locator(OWNLINE)
    if boxes.count() < expected:
        problems.append(f"{stem}: its code builds {expected} own-line widget(s), the page shows {boxes.count()}")
    for k in range(boxes.count()):
        name = f"{stem} own line {k + 1}"
        box = boxes.nth(k)
        box.scroll_into_view_if_needed()
        cell = box.locator("xpath=ancestor::div[contains(concat(' ', normalize-space(@class), ' '), ' jp-OutputArea ')][1]")
        logged = log.stat().st_size if log else 0
        first = box.evaluate(OWNLINE_STATE)
        if first["line"] != first["input"] or first["message"]:
            problems.append(f"{name}: before typing, the view spells {first['line']!r}, the box holds "
                            f"{first['input']!r}, the message is {first['message']!r}")
        hint = box.inner_text()
        new = OWNLINE_LINES["python" if "line of Python" in hint else "text"]
        shown = {}
        for step, line in (("typed", new), ("refused", ""), ("restored", first["input"])):
            before = box.evaluate(OWNLINE_STATE)
            started = time.monotonic()
            type_line(page, box, line)
            if line:  # the view changes (from the one before) and spells the line, with no message
                done = until(lambda: (s := box.evaluate(OWNLINE_STATE))["line"] == line and not s["message"]
                             and s["view"] != before["view"], 180)
            else:  # the engine's message, and no view
                done = until(lambda: (s := box.evaluate(OWNLINE_STATE))["alert"] and s["line"] is None, 60)
            time.sleep(0.5)  # let a last update land
            now = shown[step] = box.evaluate(OWNLINE_STATE)
            page.screenshot(path=str(OUT / f"{stem}-ownline{k + 1}-{step}.png"))
            took = time.monotonic() - started
            if not done:
                problems.append(f"{name}: {step} {line!r}: after {took:.0f} s the box holds {now['input']!r}, the view "
                                f"spells {now['line']!r} ({now['tokens']} chips), the message is {now['message']!r}")
            elif line:
                print(f"{name}: {step} {line!r} in {took:.1f} s: view changed, {now['tokens']} token chips spell it")
            else:
                print(f"{name}: {step} an empty line in {took:.1f} s: message {now['message']!r}, view empty")
            if now["input"] != line:
                problems.append(f"{name}: {step} {line!r}, the text box holds {now['input']!r}")
        bad = cell.locator(BAD_OUTPUT)
        if bad.count():
            problems.append(f"{name}: its cell shows {bad.count()} output(s) with an error or on stderr after typing: "
                            f"{bad.first.inner_text()[:300]!r}")
        if "Traceback" in cell.inner_text():
            problems.append(f"{name}: its cell shows a Python traceback after typing")
        if log and (found := new_tracebacks(log, logged)):
            problems.append(f"{name}: a Python traceback in the server's log ({log.name}) while typing: "
                            f"{found[0][-300:]!r}")
    return problems, boxes.count()


def check_notebook(page, url: str, path: Path, sliders: int, log: Path | None = None) -> tuple[list[str], int]:
    """Run the notebook, move its sliders and type into its own-line widgets: the
    problems found, and how many own-line widgets were typed into."""
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
    errors = page.locator(BAD_OUTPUT)
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
    found, typed = check_own_lines(page, stem, own_line_calls(path), log)
    return problems + found, typed


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
    typed = 0  # own-line widgets typed into
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
                    found, n = check_notebook(page, nb_url, path, sliders, log)
                    problems += found
                    typed += n
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
        print(f"check-lab: {len(notebooks)} notebook(s) with widgets, every slider moved by keyboard end to end, "
              f"{typed} own-line widget(s) typed into")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
