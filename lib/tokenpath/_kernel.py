"""What a notebook kernel does when the pretrained file is missing and cannot be fetched.

The "In a real model" asides load SmolLM2 through :func:`tokenpath.pretrained.smollm2_path`,
which raises :class:`~tokenpath.pretrained.ModelFileMissing` when the file is neither there
nor fetchable (offline, say). A traceback there would stop "Run All" at the first aside,
and every later cell of the aside would fail again with a ``NameError`` on the names the
first one never bound. :func:`install` (called by :func:`tokenpath.setup_notebook`) has
IPython instead

* print the exception's one line (what is missing, the command that gets it) the first
  time, and nothing for later cells that fail the same way;
* treat such a cell, and a later cell whose ``NameError`` names a variable that only a
  skipped cell would have bound, as finished, so the rest of the notebook runs;
* show every other error, a reader's own ``NameError`` included, as usual.

With the file present nothing here runs, so the notebooks' stored outputs are those of the
file present. Outside IPython :func:`install` does nothing.
"""

from __future__ import annotations

import ast

from .pretrained import ModelFileMissing

__all__ = ["install"]


class _State:
    """Per kernel: whether the one line was printed, and the names skipped cells bind."""

    def __init__(self):
        self.printed = False
        self.unbound: set[str] = set()


def bound_names(source: str) -> set[str]:
    """The names a cell's code binds at any depth of its statements (assignments, imports,
    ``def``, ``class``, ``for``, ``with … as``), or none when it does not parse.

    >>> sorted(bound_names("import numpy as np\\nfor i, c in enumerate(x):\\n    real = f(c)\\ndef g(): pass"))
    ['c', 'g', 'i', 'np', 'real']
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
    return names


def _is_consequence(err: BaseException | None, state: _State) -> bool:
    if isinstance(err, ModelFileMissing):
        return True
    return isinstance(err, NameError) and getattr(err, "name", None) in state.unbound


def install(shell=None) -> bool:
    """Install the handling described above into ``shell`` (default: the running IPython,
    if any). Returns whether it was installed; installing twice changes nothing."""
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return False
        shell = get_ipython()
    if shell is None or getattr(shell, "_tokenpath_missing_file", None) is not None:
        return shell is not None
    state = _State()
    shell._tokenpath_missing_file = state

    def handler(self, etype, value, tb, tb_offset=None):
        if not _is_consequence(value, state):  # a NameError of the reader's own
            self.showtraceback((etype, value, tb), tb_offset=tb_offset, running_compiled_code=True)
            return None
        if isinstance(value, ModelFileMissing) and not state.printed:
            print(value, flush=True)
            state.printed = True
        return None

    def after(result):
        err = getattr(result, "error_in_exec", None)
        if err is None or not _is_consequence(err, state):
            return
        info = getattr(result, "info", None)
        raw = getattr(info, "raw_cell", None) or ""
        try:
            code = shell.transform_cell(raw)
        except Exception:  # a cell IPython cannot transform binds nothing we can name
            code = raw
        # the names the cell would have bound and did not (a name bound before the failing
        # line, or by an earlier cell, keeps its value)
        state.unbound |= {n for n in bound_names(code) if n not in shell.user_ns}
        # The cell is finished, not failed: the kernel replies "ok", so "Run All" (and
        # nbclient) go on to the next cell. ipykernel reads the result after this event.
        result.error_in_exec = None

    shell.set_custom_exc((ModelFileMissing, NameError), handler)
    shell.events.register("post_run_cell", after)
    return True
