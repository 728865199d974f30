"""``python -m tokenpath._pdf``: the PDF edition of every edition the HTML build holds
(``make pdf``), or of one folder in a language given."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from . import editions
from .render import browser, print_edition


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tokenpath._pdf", description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, default=Path("build/html"),
                        help="the HTML build: one edition, or one folder per language (default build/html)")
    parser.add_argument("--lang", help="the language of the edition in --html (default: its pages' lang); "
                                       "with it, --html is one edition")
    parser.add_argument("--out", type=Path, default=Path("build/pdf"), help="where the PDFs go (default build/pdf)")
    args = parser.parse_args(argv)

    found = [editions.edition(args.html, args.lang)] if args.lang else editions.find(args.html)
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    with browser() as b:
        for edition in found:
            done = print_edition(edition, args.out, epoch=int(epoch) if epoch else None, b=b)
            print(f"make pdf: {done.path} ({edition.lang}, from {edition.folder}): {done.pages} pages, "
                  f"{done.path.stat().st_size / 2**20:.2f} MB, {done.prints} prints in {done.seconds:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
