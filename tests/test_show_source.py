"""The book shows the engine's own code (``tokenpath.lessons.show_source``): what a cell
shows is the package's source when the cell runs, and every function a chapter shows
fits on a screen."""

from __future__ import annotations

import ast
import inspect
import json

import pytest

from tokenpath import guide
from tokenpath.bpe import pair_counts
from tokenpath.lessons import SourceDisplay, show_source, source_text

#: The most lines a function the book shows may have (its docstring left out).
MAX_SHOWN_LINES = 40


def shown_in_chapters() -> list[tuple[str, str, object]]:
    """``(chapter, argument, object)`` for every ``show_source(...)`` call in the code
    cells of ``book/NN_*.md``, the argument resolved through the chapter's own imports."""
    out = []
    for path in sorted(guide.book_dir().glob("[0-9][0-9]_*.md")):
        tree = ast.parse(guide._code(path.read_text(encoding="utf-8")))
        namespace: dict = {}
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                exec(compile(ast.Module([node], type_ignores=[]), path.name, "exec"), namespace)
        for node in ast.walk(tree):
            f = node.func if isinstance(node, ast.Call) else None
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if name == "show_source" and node.args:
                arg = ast.unparse(node.args[0])
                out.append((path.stem, arg, eval(arg, namespace)))
    return out


SHOWN = shown_in_chapters()


def test_chapters_one_and_two_show_the_engines_training_loop_and_encoder():
    shown = {(chapter, obj.__qualname__) for chapter, _, obj in SHOWN}
    assert ("01_bpe_merges", "train_naive") in shown
    assert ("02_utf8_splits", "Tokenizer.encode") in shown


def test_chapter_nine_shows_the_engines_safetensors_header_reader():
    shown = {(chapter, f"{obj.__module__}.{obj.__qualname__}") for chapter, _, obj in SHOWN}
    assert ("10_model_files", "tokenpath.safetensors_format.read_header") in shown


@pytest.mark.parametrize("chapter,arg,obj", SHOWN, ids=[f"{c}:{a}" for c, a, _ in SHOWN])
def test_every_function_a_chapter_shows_fits_on_a_screen(chapter, arg, obj):
    lines = source_text(obj).splitlines()
    assert len(lines) <= MAX_SHOWN_LINES, f"{chapter} shows {arg}: {len(lines)} lines"


def test_the_shown_source_is_the_packages_source_without_its_docstring():
    full = inspect.getsource(pair_counts)
    shown = source_text(pair_counts)
    assert source_text(pair_counts, docstring=True) == full.rstrip("\n")
    doc = ast.parse(full).body[0].body[0]  # the docstring's statement
    doc_lines = full.splitlines()[doc.lineno - 1:doc.end_lineno]
    assert len(doc_lines) > 1 and [ln for ln in full.splitlines() if ln not in doc_lines] == shown.splitlines()
    assert ast.parse(shown).body[0].name == "pair_counts"
    assert ast.get_docstring(ast.parse(shown).body[0]) is None


def test_a_method_is_shown_dedented_with_its_class_in_the_caption():
    from tokenpath.bpe import Tokenizer

    shown = show_source(Tokenizer.encode)
    assert shown.caption == "tokenpath/bpe/tokenizer.py · Tokenizer.encode"
    assert shown.code.startswith("def encode(self")


def test_the_display_is_html_for_the_page_and_text_for_nbval():
    shown = show_source(pair_counts)
    bundle = shown._repr_mimebundle_()
    assert bundle["text/plain"] == f"{shown.caption}\n\n{shown.code}"
    assert bundle["text/html"].startswith('<figure class="tokenpath-source"')
    assert "tokenpath/bpe/pairs.py · pair_counts" in bundle["text/html"]
    assert "style=" in bundle["text/html"]  # colours inline: no stylesheet needed in Lab or the HTML edition
    assert shown == SourceDisplay(shown.caption, shown.code)


@pytest.mark.parametrize("bad,error,match", [
    (len, TypeError, "obj must be a function, method or class of the tokenpath engine"),
    ("pair_counts", TypeError, "obj must be a function"),
    (json.dumps, ValueError, "obj must come from the tokenpath engine, got dumps from json"),
])
def test_show_source_refuses_what_is_not_engine_code(bad, error, match):
    with pytest.raises(error, match=match):
        show_source(bad)


def test_docstring_must_be_a_flag():
    with pytest.raises(TypeError, match="docstring must be True or False"):
        source_text(pair_counts, docstring="yes")
