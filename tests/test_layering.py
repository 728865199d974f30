"""The engine's layers, read from its import statements and definitions with ``ast``.

The package is built in layers, lowest first (:data:`LAYERS`): the teaching constants
(``examples``), the core topic modules that hold the algorithms, the chapters' lessons,
the figures that draw them, the widgets that move the figures, and the book's tools
(the guide, the questions, the build). A module may import from its own layer or a
lower one, never from a higher one.

The core modules a reader would cite (:data:`CORE`) are held to more: they import no
lessons, examples, figures, widgets or matplotlib, and no name they define mentions a
figure. Adding a module or package to :data:`CORE` is one line.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import tokenpath

#: The layers, lowest first: a module may import from its own layer or a lower one.
LAYERS = ("examples", "core", "lessons", "figures", "widgets", "tools")

#: Modules and packages outside the core layer (a package covers its modules); every
#: other module of tokenpath is a core topic module.
LAYER_OF = {
    "tokenpath.examples": "examples",
    "tokenpath.lessons": "lessons",
    "tokenpath.figures": "figures",
    "tokenpath.widgets": "widgets",
    "tokenpath": "tools",  # the package's own __init__, which imports every topic
    "tokenpath._build": "tools",
    "tokenpath._evaluate": "tools",
    "tokenpath._evidence": "tools",
    "tokenpath._media": "tools",
    "tokenpath._pdf": "tools",
    "tokenpath._sphinx": "tools",
    "tokenpath._train": "tools",
    "tokenpath._train_data": "tools",
    "tokenpath.doctor": "tools",
    "tokenpath.exercises": "tools",
    "tokenpath.guide": "tools",
    "tokenpath.journey": "tools",
    "tokenpath.i18n.notebooks": "tools",  # writes the Chinese notebooks; the domain itself is core
    "tokenpath.questions": "tools",
    "tokenpath.selfcheck": "tools",
}

#: Core modules and packages held to the stricter rules.
CORE = (
    "tokenpath._checks",
    "tokenpath.attention",
    "tokenpath.bpe",
    "tokenpath.chat_template",
    "tokenpath.corpus",
    "tokenpath.decoder",
    "tokenpath.embedding",
    "tokenpath.fmt",
    "tokenpath.gguf_format",
    "tokenpath.gqa",
    "tokenpath.model",  # the package and every module in it: no teaching constants in the model core
    "tokenpath.moe",
    "tokenpath.moe_dispatch",
    "tokenpath.ngram",
    "tokenpath.norms",
    "tokenpath.packing",
    "tokenpath.position",
    "tokenpath.safefiles",
    "tokenpath.safetensors_format",
    "tokenpath.sampling",
    "tokenpath.shared_expert",
    "tokenpath.subword",
)

#: Upward imports that are known and being removed, as (module, imported module). The
#: test fails when one of them is gone, so that its line is deleted here.
KNOWN_UPWARD: set[tuple[str, str]] = set()

#: What a core module may not import.
FORBIDDEN_IN_CORE = ("tokenpath.lessons", "tokenpath.examples", "tokenpath.figures", "tokenpath.widgets",
                     "matplotlib")
#: A name that speaks of a figure: ``fig01_top``, ``figure4_place``, ``Fig15Trace``, ``FIG11_SCORES``.
FIGURE_NAME = re.compile(r"(?:^|_)fig(?:\d|_|$)|figure_?\d", re.IGNORECASE)

ROOT = Path(tokenpath.__file__).resolve().parent


def _module_names() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__``)."""
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _module_names()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _covers(prefix: str, name: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def layer_of(name: str) -> str:
    """The layer of a module: the longest entry of :data:`LAYER_OF` that covers it
    (``tokenpath`` covers only the package's own ``__init__``), else ``core``."""
    if name == "tokenpath":
        return LAYER_OF["tokenpath"]
    hits = [p for p in LAYER_OF if p != "tokenpath" and _covers(p, name)]
    return LAYER_OF[max(hits, key=len)] if hits else "core"


def imports(name: str) -> list[tuple[str, int]]:
    """The modules ``name`` imports, anywhere in it (inside functions too), with the
    line: relative imports resolved, ``from package import module`` read as the module."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    package = name if _is_package(name) else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                out.append((sub if sub in MODULES else target, node.lineno))
    return out


def defined_names(name: str) -> list[tuple[str, int]]:
    """Every name a module defines: functions, classes and their arguments, and the
    targets of assignments at module and class level."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append((node.name, node.lineno))
            if not isinstance(node, ast.ClassDef):
                a = node.args
                out += [(arg.arg, node.lineno) for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs,
                                                           *filter(None, [a.vararg, a.kwarg])]]
    bodies = [tree.body] + [n.body for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    for body in bodies:
        for stmt in body:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(
                stmt, (ast.AnnAssign, ast.AugAssign)) else []
            for t in targets:
                out += [(n.id, stmt.lineno) for n in ast.walk(t) if isinstance(n, ast.Name)]
    return out


def core_modules() -> list[str]:
    return [m for m in MODULES if any(_covers(c, m) for c in CORE)]


def test_every_listed_module_exists_and_the_core_is_in_the_core_layer():
    assert set(LAYERS) >= set(LAYER_OF.values())
    for name in [*LAYER_OF, *CORE, *(m for m, _ in KNOWN_UPWARD)]:
        assert name in MODULES, f"{name} is listed here but is not a module of tokenpath"
    assert [m for m in core_modules() if layer_of(m) != "core"] == []
    assert "tokenpath.bpe.trainer" in core_modules()


def test_the_layers_are_read_the_way_they_are_stated():
    assert layer_of("tokenpath.figures.bpe") == "figures"
    assert layer_of("tokenpath.lessons") == "lessons"
    assert layer_of("tokenpath.bpe.tokenizer") == "core"
    assert layer_of("tokenpath") == "tools"
    assert layer_of("tokenpath.figures.attention_mask") == "figures"
    assert layer_of("tokenpath.questions.attention") == "tools"
    assert layer_of("tokenpath.selfcheck.question") == "tools"
    assert "tokenpath.lessons.bpe" in {m for m, _ in imports("tokenpath.figures.bpe")}  # from ..lessons import bpe
    assert "tokenpath.bpe.merge_queue" in {m for m, _ in imports("tokenpath.bpe.tokenizer")}  # from .merge_queue import …
    assert FIGURE_NAME.search("fig01_top") and FIGURE_NAME.search("Fig15Trace")
    assert FIGURE_NAME.search("FIG11_SCORES") and FIGURE_NAME.search("figure4_place")
    assert not FIGURE_NAME.search("LlamaConfig") and not FIGURE_NAME.search("figure_bundle")


def test_no_module_imports_a_module_above_it():
    rank = {layer: k for k, layer in enumerate(LAYERS)}
    upward, seen = [], set()
    for name in MODULES:
        for target, line in imports(name):
            if not _covers("tokenpath", target):
                continue
            if rank[layer_of(target)] > rank[layer_of(name)]:
                key = next(((m, t) for m, t in KNOWN_UPWARD if m == name and _covers(t, target)), None)
                if key:
                    seen.add(key)
                else:
                    upward.append(f"{name} ({layer_of(name)}) line {line} imports {target} ({layer_of(target)})")
    assert upward == [], "\n".join(upward)
    assert KNOWN_UPWARD - seen == set(), "no longer imported: delete these from KNOWN_UPWARD"


@pytest.mark.parametrize("name", core_modules())
def test_a_core_module_imports_no_lessons_examples_figures_widgets_or_matplotlib(name):
    bad = [f"line {line}: {target}" for target, line in imports(name)
           if any(_covers(f, target) for f in FORBIDDEN_IN_CORE)]
    assert bad == []


@pytest.mark.parametrize("name", core_modules())
def test_no_name_in_a_core_module_mentions_a_figure(name):
    bad = [f"line {line}: {n}" for n, line in defined_names(name) if FIGURE_NAME.search(n)]
    assert bad == []


def test_the_maintainers_layout_names_every_module_of_the_packages_split_by_idea():
    readme = (ROOT.parents[1] / "docs" / "maintainers.md").read_text(encoding="utf-8")
    layout = readme.split("## Layout", 1)[1].split("\n## ", 1)[0]
    missing = [name for name in MODULES
               if name.count(".") == 2 and name.split(".")[1] in ("figures", "questions", "selfcheck")
               and not name.rsplit(".", 1)[1].startswith("__")
               and not re.search(rf"\b{re.escape(name.rsplit('.', 1)[1])}\b", layout)]
    assert missing == [], f"docs/maintainers.md's Layout does not name {missing}"
