"""The build steps behind ``make sync`` and ``make book``.

``make sync`` pairs each ``book/*.md`` with its notebook (jupytext) and then calls
``python -m tokenpath._build execute notebooks/*.ipynb``, which re-executes every
notebook top to bottom in a fresh kernel and stores the outputs
(:func:`execute_notebook`); the Chinese notebooks are executed the same way when they
are generated (:mod:`tokenpath.i18n.notebooks`). ``make book`` calls ``python -m tokenpath._build book
--out build/html``, which runs Sphinx on ``notebooks/`` with the configuration in
:mod:`tokenpath._sphinx.conf` twice (:func:`build_book`): the English edition into
``build/html/en/`` and the Chinese one, translated by the catalogs in ``locales/``, into
``build/html/zh/``; ``build/html/index.html`` leads to both.

What is stored after execution, and why:

- widget state and per-cell timings are not stored: they change on every run;
- consecutive outputs of one stream are merged, so a printout that the kernel happens
  to flush in two pieces is stored the same way on every run;
- a widget *view* would refer to that missing state by a random model id, and
  JupyterLab would show "model not found" in its place, so widget views are dropped
  too: a slider appears when its cell runs. Such cells are tagged
  ``nbval-ignore-output``; the text cell after each prints the widget's state, and
  that output is checked.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

#: The MIME type of a stored ipywidgets view.
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def strip_volatile(nb) -> None:
    """Drop what changes from run to run: notebook widget state, per-cell timings and
    widget views (see the module docstring). Changes ``nb`` in place.

    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook(metadata={"widgets": {"state": {}}})
    >>> cell = nbformat.v4.new_code_cell("w", metadata={"execution": {"iopub.status.idle": "2026"}})
    >>> cell.outputs = [nbformat.v4.new_output("display_data", {WIDGET_VIEW: {}, "text/plain": "w"}),
    ...                 nbformat.v4.new_output("stream", name="stdout", text="hi")]
    >>> nb.cells.append(cell)
    >>> strip_volatile(nb)
    >>> "widgets" in nb.metadata, cell.metadata, [o.output_type for o in cell.outputs]
    (False, {}, ['stream'])
    """
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if "outputs" in cell:
            cell.outputs = [o for o in cell.outputs if WIDGET_VIEW not in o.get("data", {})]


def execute(nb, folder: str | Path, *, timeout: int = 600, kernel_name: str = "python3"):
    """Execute the notebook ``nb`` (a ``NotebookNode``) top to bottom in a fresh kernel
    whose working directory is ``folder``, in place, and return it with what changes
    from run to run stripped (:func:`strip_volatile`)."""
    from nbclient import NotebookClient

    client = NotebookClient(
        nb, timeout=timeout, kernel_name=kernel_name, record_timing=False,
        store_widget_state=False, coalesce_streams=True,
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute()
    strip_volatile(nb)
    return nb


def execute_notebook(path: str | Path, *, timeout: int = 600, kernel_name: str = "python3") -> None:
    """Execute the notebook at ``path`` top to bottom in a fresh kernel, whose working
    directory is the notebook's folder, and store it with its new outputs."""
    import nbformat

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"path must be an existing notebook file, got {str(path)!r}")
    nb = nbformat.read(path, as_version=4)
    execute(nb, path.parent, timeout=timeout, kernel_name=kernel_name)
    nbformat.write(nb, path)


#: The editions ``make book`` writes, each into its own folder of the output: the
#: English one first (the Chinese pages show its frames and figure files).
EDITIONS = (("en", "en"), ("zh_CN", "zh"))
#: The landing page at the output's top: it sends a reader to the English edition
#: and links both.
LANDING = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>tokenpath</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="0; url=en/index.html"></head>
<body><p><a href="en/index.html">tokenpath (English)</a> ·
<a href="zh/index.html" hreflang="zh-CN" lang="zh-CN">tokenpath（中文版）</a></p></body></html>
"""


def locale_folder(build: Path, lang: str) -> Path:
    """Copy the catalogs of the pages declared translated into ``lang``
    (:data:`tokenpath.i18n.TRANSLATED`) to ``build/locales``, where Sphinx compiles
    them: a page not declared translated is shown in English, whole."""
    import shutil

    from .i18n import TRANSLATED
    from .i18n.catalogs import page_catalog

    folder = build / "locales"
    shutil.rmtree(folder, ignore_errors=True)
    target = folder / lang / "LC_MESSAGES"
    target.mkdir(parents=True)
    for page in TRANSLATED.get(lang, ()):
        shutil.copyfile(page_catalog(page, lang), target / f"{page}.po")
    return folder


def build_edition(out: Path, source: Path, lang: str, jobs: str, pdf: str | Path | None = None) -> int:
    """One edition: Sphinx over ``source`` into ``out`` in ``lang`` (the Chinese one
    with warnings as errors). With ``pdf`` (the folder ``make pdf`` writes the PDFs to),
    every page links to its language's PDF there."""
    from sphinx.cmd.build import build_main

    conf = Path(__file__).with_name("_sphinx")
    args = ["-b", "html", "-E", "-q", "-j", jobs, "-c", str(conf),
            "-d", str(out.parent.parent / f"{out.parent.name}-doctrees-{out.name}")]
    if pdf:
        args += ["-D", f"tokenpath_pdf={Path(pdf).resolve()}"]
    if lang != "en":
        args += ["-D", f"language={lang}", "-D", f"locale_dirs={locale_folder(out.resolve().parent.parent, lang)}",
                 "-W", "--keep-going"]
    return build_main(args + [str(source), str(out)])


def build_book(out: str | Path = "build/html", *, source: str | Path = "notebooks", jobs: str = "auto",
               languages=("en", "zh_CN"), pdf: str | Path | None = None) -> int:
    """Build the HTML editions from the stored notebooks in ``source``, each into its
    folder of ``out`` (``en/``, ``zh/``; a fresh environment every time, doctrees
    beside ``out``), and a landing ``index.html``; print each build's time and, from
    the extension, its size budget. With ``pdf``, every page links to its PDF there. Returns the
    first non-zero Sphinx exit status."""
    import time

    out, source = Path(out), Path(source)
    if not source.is_dir():
        raise ValueError(f"source must be a folder of notebooks, got {str(source)!r}")
    out.mkdir(parents=True, exist_ok=True)
    (out / "index.html").write_text(LANDING, encoding="utf-8")
    for lang, folder in EDITIONS:
        if lang not in languages:
            continue
        started = time.perf_counter()
        status = build_edition(out / folder, source, lang, jobs, pdf)
        print(f"make book: Sphinx build of the {lang} edition {'finished' if status == 0 else 'FAILED'} in "
              f"{time.perf_counter() - started:.0f} s; open {out / folder / 'index.html'}", flush=True)
        if status:
            return status
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tokenpath._build", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("execute", help="re-execute notebooks in place and store their outputs")
    run.add_argument("notebooks", nargs="*", type=Path)
    book = sub.add_parser("book", help="write the HTML edition (Sphinx)")
    book.add_argument("--out", type=Path, default=Path("build/html"))
    book.add_argument("--source", type=Path, default=Path("notebooks"))
    book.add_argument("--jobs", default="auto", help="Sphinx's -j (default: one process per CPU)")
    book.add_argument("--pdf", type=Path, help="link every page to its PDF in this folder (make pdf)")
    book.add_argument("--lang", nargs="+", default=["en", "zh_CN"], choices=[lang for lang, _ in EDITIONS],
                      help="the editions to build (default: both)")
    args = parser.parse_args(argv)

    if args.command == "execute":
        if not args.notebooks:
            print("No notebooks to execute.")
        for path in args.notebooks:
            print("executing", path, flush=True)
            execute_notebook(path)
        return 0

    return build_book(args.out, source=args.source, jobs=args.jobs, languages=args.lang, pdf=args.pdf)


if __name__ == "__main__":
    sys.exit(main())
