"""Write the book's figures: ``python -m tokenpath.figures [--only N …] [--out DIR]``.

Each registered figure is rendered from a fresh engine computation and written as
``figNN.svg`` and ``figNN.png`` (deterministic bytes); the paths written are printed,
in figure order. The figures are independent, so they are drawn in one process per
CPU (``--jobs`` sets the number; 1 draws them here, one after another).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor

from . import registry, save


def main(argv: list[str] | None = None) -> int:
    known = registry()
    valid = sorted(known)
    parser = argparse.ArgumentParser(
        prog="python -m tokenpath.figures",
        description="Render the book's figures to figNN.svg and figNN.png.",
    )
    parser.add_argument(
        "--only", nargs="+", type=int, metavar="N",
        help=f"figure numbers to write (default: all registered: {', '.join(map(str, valid))})",
    )
    parser.add_argument("--out", default="figures", metavar="DIR",
                        help="directory to write into (default: figures)")
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help="processes to draw in (default: one per CPU)")
    args = parser.parse_args(argv)
    numbers = valid if args.only is None else list(dict.fromkeys(args.only))
    unknown = [n for n in numbers if n not in known]
    if unknown:
        parser.error(
            f"unknown figure number(s) {', '.join(map(str, unknown))}; "
            f"valid: {', '.join(map(str, valid))}"
        )
    if args.jobs is not None and args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    jobs = max(1, min(args.jobs or os.cpu_count() or 1, len(numbers)))
    if jobs > 1:  # forked workers start with the figure modules already imported
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            written = list(pool.map(save, numbers, [args.out] * len(numbers)))
    else:
        written = [save(n, args.out) for n in numbers]
    for paths in written:
        for path in paths:
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
