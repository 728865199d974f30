"""Write the book's figures: ``python -m tokenpath.figures [--only N …] [--out DIR]``.

Each registered figure is rendered from a fresh engine computation and written as
``figNN.svg`` and ``figNN.png`` (deterministic bytes); the paths written are printed.
"""

from __future__ import annotations

import argparse
import sys

from . import FIGURES, _load, save


def main(argv: list[str] | None = None) -> int:
    _load()
    valid = sorted(FIGURES)
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
    args = parser.parse_args(argv)
    numbers = valid if args.only is None else list(dict.fromkeys(args.only))
    unknown = [n for n in numbers if n not in FIGURES]
    if unknown:
        parser.error(
            f"unknown figure number(s) {', '.join(map(str, unknown))}; "
            f"valid: {', '.join(map(str, valid))}"
        )
    for n in numbers:
        for path in save(n, args.out):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
