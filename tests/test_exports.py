"""Every module of the package that declares ``__all__`` lists its public names once,
each defined, in one order a reader can search: constants (``SCREAMING_CASE``) first,
then classes (``CamelCase``), then everything else, each group in plain string order
(the order of ``dir()``, which the teaching-constant modules list their names in).
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "lib" / "tokenpath"


def export_key(name: str) -> tuple:
    """Where ``name`` sorts in an ``__all__``: its kind, then its text.

    >>> sorted(["tiny", "Model", "fig10", "WIDTH", "fig2"], key=export_key)
    ['WIDTH', 'Model', 'fig10', 'fig2', 'tiny']
    """
    kind = 0 if len(name) > 1 and name.isupper() else 1 if name[:1].isupper() else 2
    return kind, name


def _declares_all(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            return True
    return False


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = sorted(_module_name(p) for p in PACKAGE.rglob("*.py") if _declares_all(p))


def test_the_package_and_its_layers_declare_their_exports():
    # the scan finds what it is meant to find: a wrong path would leave nothing to check
    assert {"tokenpath", "tokenpath.figures", "tokenpath.widgets", "tokenpath.figures.draw", "tokenpath.questions",
            "tokenpath.selfcheck.question"} <= set(MODULES)


@pytest.mark.parametrize("module", MODULES)
def test_all_is_sorted_unique_and_defined(module):
    mod = importlib.import_module(module)
    names = list(mod.__all__)
    assert len(set(names)) == len(names), f"{module}.__all__ repeats {[n for n in names if names.count(n) > 1]}"
    assert names == sorted(names, key=export_key), (
        f"{module}.__all__ is not in order; it should read {sorted(names, key=export_key)}"
    )
    missing = [n for n in names if not hasattr(mod, n)]
    assert not missing, f"{module}.__all__ names {missing}, which the module does not define"
