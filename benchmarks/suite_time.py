"""Wall time of the whole test suite, as `make test` runs it.

The venv is brought up to date first (`make venv`, not timed), so the time measured is
the pytest run alone: unit and claim tests, the doctests in lib/, and every notebook
re-executed by nbval (kernel start-up included). It prints each run's wall time and
pytest's own summary line.

    python benchmarks/suite_time.py [--repeat N] [--extras dev,crosscheck]

This is a measurement, not a test: `make test` does not run it; `make bench` does.
"""

from __future__ import annotations

import argparse
import os
import platform
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


def summary_line(output: str) -> str:
    """pytest's closing line, e.g. '===== 120 passed, 3 skipped in 41.20s ====='."""
    for line in reversed(output.splitlines()):
        if line.startswith("=") and (" in " in line):
            return line.strip("= ").strip()
    return "(no pytest summary found)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="number of timed runs (default 1)")
    parser.add_argument("--extras", default=None, help="EXTRAS passed to make (default: the Makefile's)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    prepared = make("venv", args.extras, capture=True)
    if prepared.returncode != 0:
        sys.stderr.write(prepared.stdout + prepared.stderr)
        print("suite_time: `make venv` failed", file=sys.stderr)
        return prepared.returncode

    print(
        f"suite time: `make test`{f' EXTRAS={args.extras}' if args.extras else ''} "
        f"on {os.cpu_count()} CPUs, Python {platform.python_version()}"
    )
    walls = []
    for run in range(1, args.repeat + 1):
        start = time.perf_counter()
        result = make("test", args.extras, capture=True)
        wall = time.perf_counter() - start
        if result.returncode != 0:
            sys.stderr.write(result.stdout[-5000:] + result.stderr[-5000:])
            print(f"run {run}: `make test` failed (exit {result.returncode})", file=sys.stderr)
            return 1
        walls.append(wall)
        print(f"run {run}: {wall:.1f} s wall ({summary_line(result.stdout)})", flush=True)
    if len(walls) > 1:
        print(f"best {min(walls):.1f} s, median {statistics.median(walls):.1f} s over {len(walls)} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
