"""Wall time of the whole test suite (`make test`), of `make figures` and of `make book`.

The venv is brought up to date first (`make venv`, not timed), so each time measured is
the target's own run:

- `make test`: unit and claim tests, the doctests in lib/, and every notebook
  re-executed by nbval (kernel start-up included); pytest's summary line is printed too;
- `make figures`: every registered figure written to figures/ (byte-identical files);
- `make book`: the HTML edition in build/html/, with every slider's frames, *clean*:
  the frames kept between builds (build/frame-cache/) are removed first, as in a fresh
  clone and in CI; then once more *warm*, with the cache the clean run left (printed,
  not budgeted).

Beside them, a reference that depends only on the machine's speed at that hour: the
seconds to render a blank 7 × 5 inch figure to PNG 50 times (matplotlib, Agg), so that
times measured in different hours can be compared.

Each has a budget (60 s, 10 s, 60 s) for the wall time; the script exits with status 1
when a median is over its budget. The CPU time of all processes each run started is
printed too: on a machine shared with other work the wall time grows, the CPU time
hardly does (on 2 idle cores, wall ≈ CPU / 2 for a run that keeps both busy, ≈ CPU for
one that does not).

    python benchmarks/suite_time.py [--repeat N] [--extras dev,crosscheck] [--only test figures book]

This is a measurement, not a test: `make test` does not run it; `make bench` does.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def make(target: str, extras: str | None, *, capture: bool) -> subprocess.CompletedProcess:
    cmd = ["make", "--no-print-directory", "-C", str(ROOT), target]
    if extras:
        cmd.append(f"EXTRAS={extras}")
    return subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=capture, text=True)


#: Target → budget in seconds (issue: test ≤ 60 s, figures ≤ 10 s for all 22, book ≤ 60 s).
BUDGETS = {"test": 60.0, "figures": 10.0, "book": 60.0}


def reference(repeat: int = 50) -> float | None:
    """Seconds to render a blank figure to PNG ``repeat`` times (in the venv's Python)."""
    code = ("import io, time, matplotlib; matplotlib.use('Agg'); from matplotlib.figure import Figure\n"
            "f = Figure(figsize=(7, 5), dpi=100); f.add_subplot(); t = time.perf_counter()\n"
            f"for _ in range({repeat}): f.savefig(io.BytesIO(), format='png')\n"
            "print(time.perf_counter() - t)")
    python = ROOT / ".venv" / "bin" / "python"
    result = subprocess.run([str(python if python.exists() else sys.executable), "-c", code],
                            capture_output=True, text=True)
    return float(result.stdout) if result.returncode == 0 else None


def summary_line(output: str) -> str:
    """pytest's closing line, e.g. '===== 120 passed, 3 skipped in 41.20s ====='."""
    for line in reversed(output.splitlines()):
        if line.startswith("=") and (" in " in line):
            return line.strip("= ").strip()
    return "(no pytest summary found)"


def detail(target: str, output: str) -> str:
    if target == "test":
        return summary_line(output)
    if target == "figures":
        return f"{sum(1 for line in output.splitlines() if line.strip().endswith('.png'))} figures"
    if target == "book":
        pages = [line for line in output.splitlines() if line.startswith("wrote ") and "precomputed" in line]
        sliders = sum(int(m.group(1)) for m in map(lambda l: re.search(r"\((\d+) precomputed", l), pages) if m)
        return f"{len(pages)} chapter pages, {sliders} precomputed sliders"
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="number of timed runs of each target (default 1)")
    parser.add_argument("--extras", default=None, help="EXTRAS passed to make (default: the Makefile's)")
    parser.add_argument("--only", nargs="+", choices=sorted(BUDGETS), default=list(BUDGETS), help="targets to time")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    prepared = make("venv", args.extras, capture=True)
    if prepared.returncode != 0:
        sys.stderr.write(prepared.stdout + prepared.stderr)
        print("suite_time: `make venv` failed", file=sys.stderr)
        return prepared.returncode

    print(f"on {os.cpu_count()} CPUs, Python {platform.python_version()}"
          f"{f', EXTRAS={args.extras}' if args.extras else ''}")
    ref = reference()
    print(f"reference: a blank figure rendered to PNG 50 times in {ref:.2f} s" if ref else "reference: failed")
    over = []
    for target in args.only:
        walls = []
        runs = [(run, "") for run in range(1, args.repeat + 1)] + ([(1, "warm")] if target == "book" else [])
        for run, kind in runs:
            if target == "book" and not kind:  # clean: no frames from an earlier build
                shutil.rmtree(ROOT / "build" / "frame-cache", ignore_errors=True)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            result = make(target, args.extras, capture=True)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            if result.returncode != 0:
                sys.stderr.write(result.stdout[-5000:] + result.stderr[-5000:])
                print(f"`make {target}` run {run} failed (exit {result.returncode})", file=sys.stderr)
                return 1
            name = f"{target} {kind or ('clean' if target == 'book' else '')}".strip()
            if not kind:
                walls.append(wall)
            print(f"make {name:<11} run {run}: {wall:5.1f} s wall, {cpu:5.1f} s CPU "
                  f"({detail(target, result.stdout)})", flush=True)
        median = statistics.median(walls)
        if len(walls) > 1:
            print(f"make {target:<8} best {min(walls):.1f} s, median {median:.1f} s over {len(walls)} runs")
        if median > BUDGETS[target]:
            over.append(f"make {target} {median:.1f} s > {BUDGETS[target]:.0f} s")
    if over:
        print("over budget: " + "; ".join(over), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
