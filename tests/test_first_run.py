"""A notebook whose "In a real model" aside cannot get the pretrained file: the kernel
prints one line (what is missing, the command that gets it) instead of a traceback, the
aside's later cells are skipped without a word, and every other cell runs. The file's
absence is real (an empty model folder) and so is pip's failure (an index on a closed
local port; tests/test_pretrained.py). With the file present nothing changes: the
notebooks' stored outputs, compared by nbval, are made that way."""

from __future__ import annotations

import os

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from tokenpath import _kernel

from test_pretrained import unreachable_pip_env


def run(cells, env_dir, allow_errors=False, nb=None, pip=False):
    """Execute ``cells`` in a fresh kernel with an empty model folder, and either a pip that
    cannot reach its index (``pip``) or no fetch at all (``TOKENPATH_NO_FETCH``, faster);
    returns the notebook (``nb``, when given, is filled in place)."""
    nb = nb if nb is not None else nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    saved = dict(os.environ)
    os.environ.update(unreachable_pip_env(env_dir))
    os.environ.pop("TOKENPATH_NO_FETCH", None)
    if not pip:
        os.environ["TOKENPATH_NO_FETCH"] = "1"
    try:
        NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=allow_errors).execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return nb


def texts(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def test_an_aside_without_the_file_prints_one_line_and_the_notebook_runs_on(tmp_path):
    nb = run([
        "import tokenpath as tp\ntp.setup_notebook()\nprint('before')",
        "from tokenpath.lessons import real_vocab\nreal = real_vocab.smollm2_tokenizer()\nprint(real)",
        "gaps = real_vocab.missing_bytes()\nprint(gaps.present)",  # fails the same way: silent
        "print(real.n_vocab)",  # a NameError on a name only the skipped cell binds: silent
        "print('after', 6 * 7)",
    ], tmp_path, pip=True)
    outputs = [texts(c) for c in nb.cells]
    assert outputs[0] == "before\n" and outputs[-1] == "after 42\n"
    line, = outputs[1].splitlines()
    assert line.startswith("SmolLM2-135M-Instruct (Q4_1 GGUF): ") and "is missing, and fetching it failed" in line
    assert "`make smollm2`" in line and "python -m tokenpath.pretrained fetch" in line
    assert outputs[2:4] == ["", ""]
    assert not any(o.output_type == "error" for c in nb.cells for o in c.outputs)


def test_the_readers_own_name_error_is_still_an_error_with_the_usual_traceback(tmp_path):
    aside = "from tokenpath.lessons import real_vocab\nreal = real_vocab.smollm2_tokenizer()"
    handled = nbformat.v4.new_notebook()
    with pytest.raises(CellExecutionError, match="NameError"):  # the kernel replies "error": Run All stops
        run(["import tokenpath as tp\ntp.setup_notebook()", aside, "print(rael)"], tmp_path, nb=handled)
    plain = run(["import tokenpath as tp", aside, "print(rael)"], tmp_path, allow_errors=True)
    mine, usual = ([o for o in nb.cells[2].outputs if o.output_type == "error"] for nb in (handled, plain))
    assert mine[0].ename == "NameError" and mine[0].traceback == usual[0].traceback


def test_other_errors_keep_their_traceback(tmp_path):
    nb = run(["import tokenpath as tp\ntp.setup_notebook()", "1 / 0", "print('next')"], tmp_path, allow_errors=True)
    error, = [o for o in nb.cells[1].outputs if o.output_type == "error"]
    assert error.ename == "ZeroDivisionError" and texts(nb.cells[2]) == "next\n"


def test_the_names_a_skipped_cell_would_bind():
    assert _kernel.bound_names("x = f()\nwith open(p) as fh:\n    y, *z = g(fh)\nclass K: pass") == {"x", "fh", "y", "z", "K"}
    assert _kernel.bound_names("%time x = 1") == set()  # not Python until IPython transforms it


def test_install_outside_ipython_does_nothing():
    assert _kernel.install() is False
