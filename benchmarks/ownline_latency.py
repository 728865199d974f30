"""Latency of one keystroke in chapter 11's "Follow your own line" widget, measured headless.

A keystroke is what a reader waits for after typing one character: the widget gets a
line it has not seen, runs it through the trained model once (NumPy forward pass,
surprisal, top next tokens, routes, attention) and renders the HTML view
(``OwnLine.update``). Each timed keystroke gives a distinct line of exactly ``--tokens``
tokens (default 64), so every one is a first visit and a whole forward pass.

Beside it, in the same run, a reference that scales with the machine: the time to
render a blank figure of the book's width to PNG at screen resolution, the cost a
slider widget pays for an image. Prints median and 90th percentile of both; exits
with status 1 when the keystroke median exceeds the budget (150 ms by default).

    .venv/bin/python benchmarks/ownline_latency.py [--keys 40] [--tokens 64] [--budget-ms 150] [--blas-threads N]

The forward pass is a few dozen small matrix products. By default BLAS uses as many
threads as it likes, as in a reader's kernel; on a machine whose cores are busy with
other work those threads wait for each other, and ``--blas-threads 1`` shows how much
of the time that is.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time


def _blas_threads(argv: list[str]) -> str | None:
    """The value of ``--blas-threads`` in ``argv``, read before NumPy is imported (its
    BLAS reads the thread count once, when it loads)."""
    for k, arg in enumerate(argv):
        if arg.startswith("--blas-threads="):
            return arg.split("=", 1)[1]
        if arg == "--blas-threads" and k + 1 < len(argv):
            return argv[k + 1]
    return None


if __name__ == "__main__" and _blas_threads(sys.argv[1:]) is not None:
    for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_name] = _blas_threads(sys.argv[1:])

import numpy as np  # noqa: E402

from tokenpath import ownline  # noqa: E402
from tokenpath import trained as T  # noqa: E402
from tokenpath.widgets import ownline as W  # noqa: E402

#: Realistic code the timed lines are cut from; each keystroke appends one character.
SOURCE = ("    def items(self, key=None, default=None):\n"
          "        result = [(name, value) for name, value in sorted(self._data.items()) if value is not None]\n"
          "        return dict(result).get(key, default) if key else {k: v for k, v in result}\n")


def keystroke_lines(model, tokens: int, count: int) -> list[str]:
    """``count`` distinct lines of exactly ``tokens`` tokens, each the text a reader has
    after one more keystroke: a fixed prefix of the source, then one typed character."""
    source = SOURCE.replace("\n", " ")
    while len(model.encode(source)) < tokens + 8:
        source += source
    ids = model.encode(source)
    prefix = "".join(model.tokenizer.decode([int(i)]) for i in ids[: tokens - 1])
    out = []
    for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789([{+-*/%<>=!:;,.":
        for line in (prefix + " " + c, prefix + c):
            if len(model.encode(line)) == tokens and line not in out:
                out.append(line)
                break
        if len(out) == count:
            break
    return out


def blank_png_seconds(repeats: int) -> tuple[np.ndarray, np.ndarray]:
    """Seconds (wall clock, and this process's CPU time) to render a blank book-width
    figure to PNG at screen resolution."""
    from tokenpath.figures import style

    times, cpu = [], []
    for _ in range(repeats):
        fig = style.new_figure(style.WIDTH, 3.0)
        t0, c0 = time.perf_counter(), time.process_time()
        style.png_bytes(fig, dpi=style.SCREEN_DPI)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        style.close(fig)
    return np.array(times), np.array(cpu)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=40, help="timed keystrokes (default 40, at least 30)")
    parser.add_argument("--tokens", type=int, default=64, help="tokens of each typed line (default 64)")
    parser.add_argument("--warmup", type=int, default=3, help="keystrokes before timing (default 3)")
    parser.add_argument("--budget-ms", type=float, default=150.0, help="median budget per keystroke (default 150)")
    parser.add_argument("--blas-threads", type=int, default=None,
                        help="BLAS threads (default: the library's choice, as in a reader's kernel)")
    args = parser.parse_args(argv)
    if args.keys < 30:
        parser.error("--keys must be at least 30")

    model = T.committed_model()
    if not 2 <= args.tokens <= ownline.max_tokens(model):
        parser.error(f"--tokens must be between 2 and {ownline.max_tokens(model)} (the widget's limit)")
    lines = keystroke_lines(model, args.tokens, args.keys + args.warmup)
    if len(lines) < args.keys + args.warmup:
        print(f"could only make {len(lines)} distinct lines of {args.tokens} tokens", file=sys.stderr)
        return 2
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "the library's choice")
    print(f"python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPU(s), "
          f"load average {os.getloadavg()[0]:.1f}, BLAS threads: {threads}; model {model!r}")
    print(f"{args.keys} keystrokes on lines of {args.tokens} tokens after {args.warmup} warm-up keystrokes; "
          f"budget: median <= {args.budget_ms:g} ms\n")

    widget = W.own_line(model=model)
    for line in lines[: args.warmup]:
        widget.update(line)
    totals, cpu, compute, render = [], [], [], []
    for line in lines[args.warmup:]:
        t0, c0 = time.perf_counter(), time.process_time()
        widget.update(line)
        totals.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        compute.append(widget.timings["compute"])
        render.append(widget.timings["render"])
        assert widget.error is None and widget.trace.tokens == args.tokens
    totals, cpu, compute, render = (np.array(a) * 1e3 for a in (totals, cpu, compute, render))
    blank, blank_cpu = (a * 1e3 for a in blank_png_seconds(args.keys))

    header = f"{'':30s}{'median':>9}{'p90':>9}"
    print(header)
    print("-" * len(header))
    rows = [("keystroke (forward + HTML)", totals), ("  of which forward", compute), ("  of which HTML", render),
            ("reference: blank figure PNG", blank), ("keystroke, CPU time", cpu), ("blank figure PNG, CPU time", blank_cpu)]
    for name, a in rows:
        print(f"{name:30s}{np.median(a):9.1f}{np.percentile(a, 90):9.1f}")
    print(f"\nall times in ms (wall clock unless marked CPU: this process's CPU time, all its threads); "
          f"a keystroke costs {np.median(totals) / np.median(blank):.1f} blank-figure renders "
          f"(HTML view {len(widget.html()):,} characters)")
    if np.median(totals) > args.budget_ms:
        print(f"OVER BUDGET: median {np.median(totals):.1f} ms > {args.budget_ms:g} ms")
        return 1
    print("within budget")
    return 0


if __name__ == "__main__":
    sys.exit(main())
