"""Each chapter's lessons: the traces and demos its figures, prose and questions print."""

from __future__ import annotations

import inspect

__all__ = ["show_source"]


def show_source(obj):
    """The source of an engine function or class, read from the installed package when
    called (so the book shows the code that runs), as a highlighted IPython display."""
    from IPython.display import Code

    if not (inspect.isfunction(obj) or inspect.isclass(obj) or inspect.ismethod(obj)):
        raise TypeError(f"obj must be a function or class of the engine, got {type(obj).__name__}")
    return Code(inspect.getsource(obj), language="python")
