"""Latency of one slider step of the book's widgets, measured headless.

A step is what a reader waits for after moving a slider: compute the trace with the
engine, move the figure's artists in place, render the PNG (draw + encode) and hand
it to the image widget. Every slider widget the book registers
(``tokenpath.widgets.SLIDERS``) is driven through ``SliderFigure.update`` with Agg, no
Jupyter, over ``SliderFigure.sweep``: each of its sliders in turn across its range, the
others held. After a short warm-up the widget forgets the frames it has drawn, so
every timed step is a first visit (a state already shown is not drawn again).

Prints the median and 95th percentile per widget, and the median of each stage;
exits with status 1 when a median exceeds the budget (30 ms by default).

    .venv/bin/python benchmarks/widget_latency.py [--steps 50] [--budget-ms 30]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import matplotlib
import numpy as np

from tokenpath import widgets

STAGES = ("compute", "artists", "draw", "encode")


def sweep(widget, values, warmup) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Seconds per ``update`` over ``values`` (after updating through ``warmup``),
    and the seconds of each stage."""
    for v in warmup:
        widget.update(v)
    widget.forget_frames()
    totals, stages = [], {k: [] for k in STAGES}
    for v in values:
        t0 = time.perf_counter()
        widget.update(v)
        totals.append(time.perf_counter() - t0)
        for k in STAGES:
            stages[k].append(widget.timings[k])
    return np.array(totals), {k: np.array(v) for k, v in stages.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50, help="slider positions per widget (default 50)")
    parser.add_argument("--warmup", type=int, default=5, help="updates before timing (default 5)")
    parser.add_argument("--budget-ms", type=float, default=30.0, help="median budget per step (default 30)")
    parser.add_argument("--only", nargs="+", metavar="NAME", choices=sorted(widgets.SLIDERS),
                        help="time only these widgets")
    args = parser.parse_args(argv)
    if args.steps < 2:
        parser.error("--steps must be at least 2")

    print(
        f"python {platform.python_version()}, matplotlib {matplotlib.__version__}, "
        f"numpy {np.__version__}, backend Agg, {os.cpu_count()} CPU(s)"
    )
    print(f"{args.steps} steps per widget after {args.warmup} warm-up updates; budget: median <= {args.budget_ms:g} ms\n")
    header = f"{'widget':<22}{'median':>9}{'p95':>9}   " + "  ".join(f"{k:>8}" for k in STAGES)
    print(header)
    print("-" * len(header))
    failed = []
    for name, make in widgets.SLIDERS.items():
        if args.only and name not in args.only:
            continue
        t0 = time.perf_counter()
        widget = make()
        build = time.perf_counter() - t0
        default = widget.value
        values = widget.sweep(args.steps)
        warm = values[:: max(1, len(values) // max(1, args.warmup))][: args.warmup]
        totals, stages = sweep(widget, values, warm)
        widget.update(default)
        median, p95 = np.median(totals) * 1e3, np.percentile(totals, 95) * 1e3
        parts = "  ".join(f"{np.median(stages[k]) * 1e3:8.1f}" for k in STAGES)
        print(f"{name:<22}{median:9.1f}{p95:9.1f}   {parts}   (build {build * 1e3:.0f} ms)")
        if median > args.budget_ms:
            failed.append(name)
    print("\nall times in ms; stage columns are medians (draw + encode = rendering the PNG)")
    if failed:
        print(f"OVER BUDGET: {', '.join(failed)} (median > {args.budget_ms:g} ms)")
        return 1
    print("within budget")
    return 0


if __name__ == "__main__":
    sys.exit(main())
