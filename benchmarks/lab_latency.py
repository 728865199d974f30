"""Keypress → new image, in a real JupyterLab in headless Chromium, for every slider.

The kernel-side benchmark (``widget_latency.py``) times a step without Jupyter; this one
times what a reader waits for. It starts ``make lab`` (as ``make check-lab`` does, with
Debian's ``chromium``), runs every notebook that builds slider widgets and, for each
slider of each widget, presses arrow keys on its focused control and measures in the
page, with ``performance.now()``, from the ``keydown`` until the new image is on screen:
the first task after the animation frame that follows the component's drawing of it on
its canvas (or an image's ``load``, for a widget without the component), so the wait
for the display's next frame is counted. The held frames' *drawn* column is the part
before that wait: the key handled and the frame drawn. Two passes per slider:

- **first visits**: with the component's prefetching switched off
  (``globalThis.tokenpathPrefetch = false``) and its frames dropped, steps out and back
  and past the default; only the states not shown before count, each drawn by the kernel;
- **reading**: prefetching on, one key every ``--pause`` seconds (a reader stepping and
  looking), out and back; each step is counted as *held* (the component swapped a
  frame it held) or *kernel* (it had to ask).

Beside them it prints the machine's speed that hour: the median time to render a blank
figure to PNG and the load average. Budgets, per slider of the reading pass: held
frames ≤ ``--held-ms`` (20 ms) median and all steps ≤ ``--step-ms`` (50 ms) median; exit
status 1 when one is over (first visits are reported, not budgeted).

    .venv/bin/python benchmarks/lab_latency.py [--only 04_attention] [--steps 6] [--json out.json]

``--root DIR`` times another checkout of the book (its notebooks and ``lib``) with this
venv, so an older version can be timed back to back with this one; widgets without the
component (ipywidgets sliders and an image) are timed from the keypress to the frame
after the new image's ``load``, every step then being a kernel round trip.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE / "tests"))

import lab_smoke  # noqa: E402  (the same JupyterLab session as make check-lab)

#: Installed in the page before each slider is timed: keydown → the new image on screen.
#: The component draws a frame on a canvas and says so (``tp-drawn``); a widget without
#: it (an ipywidgets image, or the component of an older checkout, which swapped an
#: ``<img>``) has the new image's ``load``. Either way the image is on screen once the
#: browser has rendered after it: the time taken is that of the first task after the
#: next animation frame (a message posted from ``requestAnimationFrame`` runs after that
#: frame's style, layout and paint).
MEASURE = """(out) => {
  const img = out.querySelector('img');
  const root = out.querySelector('.tp-frames');
  const log = [];
  let t0 = null, served = null, drawn = null, frame = null;
  out.addEventListener('keydown', () => { t0 = performance.now(); served = null; drawn = null; frame = null; }, true);
  out.addEventListener('input', () => { served = root ? root.dataset.served : 'kernel'; });
  // the state shown: the component's, or (ipywidgets sliders) their readouts
  const state = () => root ? root.dataset.state
    : [...out.querySelectorAll('.widget-readout')].map((e) => e.textContent).join('|');
  out.__tpState = state;
  const record = () => {
    if (t0 !== null) {
      log.push({ms: performance.now() - t0, drawn, frame, served: served || (root ? root.dataset.served : 'kernel'), state: state()});
      t0 = null;
    }
  };
  const channel = new MessageChannel();
  channel.port1.onmessage = record;
  const onScreen = () => {
    if (t0 !== null) drawn = performance.now() - t0; // the image drawn (or loaded): the page's own work
    requestAnimationFrame(() => {
      if (t0 !== null) frame = performance.now() - t0; // the next frame began: then style, layout, paint
      channel.port2.postMessage(0);
    });
  };
  if (root && !img) {
    root.addEventListener('tp-drawn', onScreen);
  } else {
    const watch = (im) => im.addEventListener('load', onScreen);
    watch(img);
    // an ipywidgets Image may be replaced, not changed: watch new ones too
    new MutationObserver(() => { const now = out.querySelector('img'); if (now && !now.__tpWatched) { now.__tpWatched = true; watch(now); } })
      .observe(out, {subtree: true, childList: true});
    img.__tpWatched = true;
  }
  out.__tpLog = log;
}"""


def machine_speed(runs: int = 30) -> dict:
    """The median milliseconds to draw and encode a blank book-sized figure to PNG, and the load average."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    times = []
    for _ in range(runs):
        fig = plt.figure(figsize=(8, 4), dpi=100)
        t0 = time.perf_counter()
        fig.savefig(io.BytesIO(), format="png")
        times.append((time.perf_counter() - t0) * 1e3)
        plt.close(fig)
    return {"blank_png_ms": round(statistics.median(times), 2), "load": [round(x, 2) for x in os.getloadavg()]}


def summary(samples: list[float]) -> tuple[float, float] | None:
    if not samples:
        return None
    ordered = sorted(samples)
    p90 = ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]
    return statistics.median(ordered), p90


def fmt(stats) -> str:
    return f"{stats[0]:6.1f} {stats[1]:6.1f}" if stats else f"{'–':>6} {'–':>6}"


def run_keys(page, out, slider, keys: list[str], pause: float) -> list[dict]:
    """Focus the slider's control and, after ``pause`` seconds (a reader's pointer or focus
    comes to a widget before a key is pressed), press ``keys`` ``pause`` seconds apart;
    the timed steps."""
    out.evaluate("(out) => { out.__tpLog.length = 0; }")
    handle = slider.locator(lab_smoke.HANDLE).first
    page.evaluate("() => document.activeElement && document.activeElement.blur()")  # so focus comes anew
    handle.focus()
    time.sleep(pause)
    for key in keys:
        page.keyboard.press(key)
        time.sleep(pause)
    deadline = time.monotonic() + 15
    time.sleep(0.3)
    while time.monotonic() < deadline and out.evaluate("(out) => out.__tpLog.length") < 1:
        time.sleep(0.2)
    return out.evaluate("(out) => out.__tpLog.slice()")


def time_notebook(page, url: str, path: Path, steps: int, pause: float) -> list[dict]:
    rows = []
    page.goto(url)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
    time.sleep(2)
    page.keyboard.press("Escape")
    lab_smoke.menu(page, "Edit", "Clear Outputs of All Cells")
    lab_smoke.menu(page, "Run", "Run All Cells")
    page.wait_for_selector(".widget-slider, .tp-frames", timeout=180_000)
    time.sleep(1)
    lab_smoke.idle(page, 600)
    time.sleep(2)
    outputs = page.locator(".jp-OutputArea-output:has(.tp-frames), .jp-OutputArea-output:has(.widget-slider):has(img)")
    n = 0
    for o in range(outputs.count()):
        out = outputs.nth(o)
        out.scroll_into_view_if_needed()
        out.evaluate(MEASURE)
        handles = out.locator(lab_smoke.SLIDER)
        for h in range(handles.count()):
            n += 1
            slider = handles.nth(h)
            label = (slider.locator(".widget-label, .tp-frames-label").first.text_content() or "").strip()
            name = f"{path.stem} #{n} {label}"
            # first visits: nothing held ahead; step away from the default and back past it
            page.evaluate("() => { globalThis.tokenpathPrefetch = false; }")
            out.evaluate("(out) => { const r = out.querySelector('.tp-frames'); if (r && r.tpForget) r.tpForget(); }")
            seen = {out.evaluate("(out) => out.__tpState()")}
            cold = []
            for s in run_keys(page, out, slider, ["ArrowLeft"] * steps + ["ArrowRight"] * (2 * steps), 0.8):
                if s["state"] not in seen:  # a first visit (a revisit is held, or cached by the kernel)
                    cold.append(s)
                seen.add(s["state"])
            page.evaluate("() => { globalThis.tokenpathPrefetch = true; }")
            out.evaluate("(out) => { const r = out.querySelector('.tp-frames'); if (r && r.tpForget) r.tpForget(); }")
            time.sleep(pause)
            reading = run_keys(page, out, slider, ["ArrowLeft"] * steps + ["ArrowRight"] * steps, pause)
            held = [s["ms"] for s in reading if s["served"] == "held"]
            asked = [s["ms"] for s in reading if s["served"] != "held"]
            drawn = summary([s["drawn"] for s in reading if s["served"] == "held" and s.get("drawn") is not None])
            row = {"slider": name, "first": summary([s["ms"] for s in cold]), "held": summary(held), "held_drawn": drawn,
                   "kernel": summary(asked), "all": summary([s["ms"] for s in reading]),
                   "counts": [len(cold), len(held), len(asked)], "steps": reading}
            print(f"{name:<34} {fmt(row['first'])}   {fmt(row['held'])} {drawn[0] if drawn else float('nan'):6.1f}"
                  f"   {fmt(row['kernel'])}   {fmt(row['all'])}   {len(cold):>3} {len(held):>3} {len(asked):>3}", flush=True)
            rows.append(row)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium"))
    parser.add_argument("--only", nargs="*", help="notebook names (stems); default: every one with sliders")
    parser.add_argument("--steps", type=int, default=5, help="key presses each way per slider (default 5)")
    parser.add_argument("--pause", type=float, default=0.6, help="seconds between key presses when reading (default 0.6)")
    parser.add_argument("--held-ms", type=float, default=20.0, help="budget: median of held frames (default 20)")
    parser.add_argument("--step-ms", type=float, default=50.0, help="budget: median of all steps (default 50)")
    parser.add_argument("--root", type=Path, default=HERE, help="the checkout whose notebooks are timed (default: this one)")
    parser.add_argument("--json", type=Path, help="also write the rows to this file")
    args = parser.parse_args(argv)
    if not Path(args.chromium).exists():
        print(f"no Chromium at {args.chromium}: install Debian's chromium or pass --chromium; skipped")
        return 0
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("playwright is not installed (make venv EXTRAS=dev,browser); skipped")
        return 0
    root = args.root.resolve()
    speed = machine_speed()
    print(f"machine: blank figure → PNG {speed['blank_png_ms']} ms median; load average {speed['load']}")
    lab_smoke.ROOT = root
    notebooks = [(p, n) for p, n in lab_smoke.widget_notebooks() if n and (not args.only or p.stem in args.only)]
    settings = Path(tempfile.mkdtemp(prefix="lab-latency-settings-"))
    autosave = settings / "@jupyterlab" / "docmanager-extension" / "plugin.jupyterlab-settings"
    autosave.parent.mkdir(parents=True)
    autosave.write_text('{"autosave": false}')
    log = Path(tempfile.mkdtemp(prefix="lab-latency-")) / "lab.log"
    env = dict(os.environ, BROWSER="true", JUPYTERLAB_SETTINGS_DIR=str(settings), PYTHONHASHSEED="0",
               JUPYTER_PREFER_ENV_PATH="1", PYDEVD_DISABLE_FILE_VALIDATION="1",
               JUPYTER_RUNTIME_DIR=str(log.parent / "runtime"), PATH=f"{HERE / '.venv' / 'bin'}:{os.environ['PATH']}",
               JUPYTERLAB_WORKSPACES_DIR=str(settings / "workspaces"))
    if root != HERE:  # the other checkout's engine, with this venv
        env["PYTHONPATH"] = str(root / "lib")
    venv_bin = HERE / ".venv" / "bin"
    rows: list[dict] = []
    with log.open("w") as sink:
        lab = subprocess.Popen(
            [str(venv_bin / "jupyter"), "lab", f"--ServerApp.root_dir={root}", "--no-browser",
             *(["--allow-root"] if os.getuid() == 0 else [])],
            cwd=root, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, start_new_session=True,
        )
    try:
        url = lab_smoke.wait_for_url(log, 120)
        from urllib.parse import urlsplit
        import re

        parts = urlsplit(url)
        base, token = f"{parts.scheme}://{parts.netloc}", re.search(r"token=(\w+)", url).group(1)
        print(f"{'slider':<34} {'first visit':>13}   {'held':>20}   {'asked kernel':>13}   {'all steps':>13}"
              f"   {'n first/held/asked':>18}")
        print(f"{'':<34} {'median    p90':>13}   {'median    p90  drawn':>20}   {'median    p90':>13}   {'median    p90':>13}")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=lab_smoke.CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            for path, _ in notebooks:
                lab_smoke.shut_down_kernels(base, token)
                rel = path.relative_to(root).as_posix()
                try:
                    rows += time_notebook(page, f"{base}/lab/workspaces/latency-{path.stem}/tree/{rel}?token={token}",
                                          path, args.steps, args.pause)
                except Exception as exc:
                    print(f"{path.stem}: {type(exc).__name__}: {str(exc).splitlines()[0]}")
                    rows.append({"slider": path.stem, "error": str(exc).splitlines()[0]})
            browser.close()
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        lab.wait(timeout=30)
        shutil.rmtree(settings, ignore_errors=True)
    over = []
    for row in rows:
        if "error" in row:
            over.append(f"{row['slider']}: {row['error']}")
            continue
        if row["held"] and row["held"][0] > args.held_ms:
            over.append(f"{row['slider']}: held frames {row['held'][0]:.1f} ms median > {args.held_ms:g}")
        if row["all"] and row["all"][0] > args.step_ms:
            over.append(f"{row['slider']}: steps {row['all'][0]:.1f} ms median > {args.step_ms:g}")
        if not row["all"]:
            over.append(f"{row['slider']}: no step was timed")
    every = [r for r in rows if "error" not in r]
    pooled = {k: summary([r[k][0] for r in every if r.get(k)]) for k in ("first", "held", "kernel", "all")}
    print(f"\nmedian of the sliders' medians: first visit {pooled['first'] and round(pooled['first'][0], 1)} ms, "
          f"held {pooled['held'] and round(pooled['held'][0], 1)} ms, all steps {pooled['all'] and round(pooled['all'][0], 1)} ms"
          f" ({len(every)} sliders); machine: blank PNG {speed['blank_png_ms']} ms, load {speed['load']}")
    if args.json:
        args.json.write_text(json.dumps({"machine": speed, "rows": rows}, indent=1))
    if over:
        print("OVER BUDGET:\n  " + "\n  ".join(over))
        return 1
    print(f"within budget: held ≤ {args.held_ms:g} ms and every step ≤ {args.step_ms:g} ms (medians per slider)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
