"""Chapter lessons: the traces and demos each chapter shows about the engine, one module
per chapter topic (named like that chapter's ``examples``, ``figures``, ``widgets`` and
claims modules), and :func:`show_source`, which lets a chapter show the engine's own
code.

The engine's core modules (``tokenpath.bpe`` …) hold the algorithms and never import
from here; lessons import the core and the teaching constants of
:mod:`tokenpath.examples`, and the figures and widgets draw what lessons compute.
"""

from __future__ import annotations

import ast
import html
import inspect
import textwrap
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SourceDisplay", "show_source", "source_text"]

#: The folder that holds the ``tokenpath`` package: captions name files relative to it.
_PACKAGE_PARENT = Path(__file__).resolve().parents[2]


def _check_engine_object(obj) -> object:
    """``obj`` unwrapped to the function or class of the tokenpath engine it is."""
    if isinstance(obj, property):
        obj = obj.fget
    obj = inspect.unwrap(obj) if callable(obj) else obj
    if not (inspect.isfunction(obj) or inspect.isclass(obj)):
        raise TypeError(f"obj must be a function, method or class of the tokenpath engine, got {type(obj).__name__}")
    if not (obj.__module__ or "").startswith("tokenpath."):
        raise ValueError(f"obj must come from the tokenpath engine, got {obj.__qualname__} from {obj.__module__}")
    return obj


def source_text(obj, *, docstring: bool = False) -> str:
    """The source of ``obj`` as the package holds it now, dedented, with its docstring left
    out unless ``docstring`` (the chapter's prose says what the function is for).

    >>> from tokenpath.bpe import pair_counts
    >>> print(source_text(pair_counts).splitlines()[0])
    def pair_counts(words: Mapping[tuple, int]) -> Counter:
    >>> source_text(len)
    Traceback (most recent call last):
    ...
    TypeError: obj must be a function, method or class of the tokenpath engine, got builtin_function_or_method
    """
    obj = _check_engine_object(obj)
    if not isinstance(docstring, bool):
        raise TypeError(f"docstring must be True or False, got {docstring!r}")
    text = textwrap.dedent(inspect.getsource(obj))
    node = ast.parse(text).body[0]
    first = node.body[0] if node.body else None
    if docstring or not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                         and isinstance(first.value.value, str)):
        return text.rstrip("\n")
    lines = text.splitlines()
    return "\n".join(lines[:first.lineno - 1] + lines[first.end_lineno:]).rstrip("\n")


@dataclass(frozen=True)
class SourceDisplay:
    """What a chapter cell shows for a piece of the engine: its source, syntax-coloured,
    under a caption that names its file and qualified name. JupyterLab and the HTML
    edition render the HTML; nbval compares both the HTML and the plain text, so a
    change to the shown function changes the stored output of the chapter."""

    caption: str  # "tokenpath/bpe/trainer.py · train_naive"
    code: str  #    the source, as :func:`source_text` gives it

    def html(self) -> str:
        try:
            from pygments import highlight
            from pygments.formatters import HtmlFormatter
            from pygments.lexers import PythonLexer
        except ImportError:  # pragma: no cover (IPython, hence a notebook, brings pygments)
            body = f"<pre>{html.escape(self.code)}</pre>"
        else:
            body = highlight(self.code, PythonLexer(), HtmlFormatter(noclasses=True, style="default"))
        return (f'<figure class="tokenpath-source" style="margin:0.5em 0">'
                f"<figcaption><code>{html.escape(self.caption)}</code></figcaption>{body}</figure>")

    def text(self) -> str:
        return f"{self.caption}\n\n{self.code}"

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/html": self.html(), "text/plain": self.text()}

    def __str__(self) -> str:
        return self.text()


def show_source(obj, *, docstring: bool = False) -> SourceDisplay:
    """Show the engine's own code for ``obj`` (a function, method or class), read from the
    package when the cell runs, so the book cannot show one thing and run another.

    >>> from tokenpath.bpe import pair_counts
    >>> shown = show_source(pair_counts)
    >>> print(shown.text().splitlines()[0])
    tokenpath/bpe/pairs.py · pair_counts
    """
    obj = _check_engine_object(obj)
    path = Path(inspect.getsourcefile(obj)).resolve()
    try:
        where = path.relative_to(_PACKAGE_PARENT).as_posix()
    except ValueError:  # pragma: no cover (an engine object is always in the package)
        where = path.name
    return SourceDisplay(f"{where} · {obj.__qualname__}", source_text(obj, docstring=docstring))
