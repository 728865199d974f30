"""Where a notebook builds a slider widget: calls of the constructors registered in
:data:`tokenpath.widgets.SLIDERS` found in a code cell, with their literal arguments
(``widgets.rope_pair(3)``), so the HTML edition can build the same widget while it is
built (:mod:`.sliders`).
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass


@dataclass(frozen=True)
class SliderCall:
    """A call of a registered slider constructor found in a code cell."""

    name: str
    args: tuple = ()
    kwargs: tuple = ()  # (key, value) pairs

    def build(self):
        from ..widgets import SLIDERS

        return SLIDERS[self.name](*self.args, **dict(self.kwargs))

def _imports(tree) -> tuple[set, dict]:
    modules, functions = set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "tokenpath":
            modules |= {a.asname or a.name for a in node.names if a.name == "widgets"}
        elif isinstance(node, ast.ImportFrom) and node.module == "tokenpath.widgets":
            functions |= {a.asname or a.name: a.name for a in node.names}
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "tokenpath.widgets" and a.asname:
                    modules.add(a.asname)
                elif a.name.startswith("tokenpath"):
                    modules.add(f"{a.asname or 'tokenpath'}.widgets")
    return modules, functions

def _parse(source: str):
    try:
        return ast.parse("\n".join("" if l.lstrip().startswith(("%", "!")) else l for l in source.splitlines()))
    except SyntaxError:
        return None

@functools.lru_cache(maxsize=32)
def _naming(code: str) -> tuple[set, dict] | None:
    """How ``code`` names ``tokenpath.widgets`` and its functions (:func:`_imports`), read
    once per notebook: every cell of it is searched with the same context."""
    tree = _parse(code)
    return None if tree is None else _imports(tree)

def slider_calls(source: str, names, context: str | None = None) -> list[SliderCall]:
    """Calls of the slider constructors ``names`` in the Python ``source`` of a cell,
    with their literal arguments, in source order; ``context`` (default ``source``) is
    the notebook's code, whose imports say how ``tokenpath.widgets`` is named.

    >>> code = "from tokenpath import widgets\\nw = widgets.rope_pair(3)\\nw"
    >>> slider_calls(code, {"rope_pair"})
    [SliderCall(name='rope_pair', args=(3,), kwargs=())]
    >>> slider_calls("t = P.rope_pair(m)", {"rope_pair"}, context=code)
    []
    """
    tree, naming = _parse(source), _naming(source if context is None else context)
    if tree is None or naming is None:
        return []
    modules, functions = naming
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and ast.unparse(func.value) in modules:
            name = func.attr
        elif isinstance(func, ast.Name) and func.id in functions:
            name = functions[func.id]
        else:
            continue
        if name not in names:
            continue
        try:
            args = tuple(ast.literal_eval(a) for a in node.args)
            kwargs = tuple((k.arg, ast.literal_eval(k.value)) for k in node.keywords)
        except ValueError as exc:
            raise ValueError(f"a slider cell must call {name} with literal arguments, "
                             f"got {ast.unparse(node)!r}") from exc
        found.append((node.lineno, node.col_offset, SliderCall(name, args, kwargs)))
    return [call for *_, call in sorted(found, key=lambda t: t[:2])]
