"""The slider component in the HTML edition: ``frames.js`` as a classic script.

JupyterLab loads the slider component (``tokenpath/widgets/frames.js``) as an ES module
through anywidget. Chromium does not load ES modules from ``file://``, where the
edition is read, so the build makes a classic script of the same file
(:func:`classic_script`): the module's one statement ``export default { ... };``
becomes the global :data:`GLOBAL`; nothing else changes. ``static/tokenpath.js``
renders each slider of a page with it over a model that holds every frame. The
component's stylesheet (``frames.css``) is shipped beside it.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..widgets.view import CSS, ESM

#: The name the classic script gives the module's default export.
GLOBAL = "tokenpathFrames"
#: The files the build writes into the edition's ``_static/``.
SCRIPT, STYLE = "tokenpath-frames.js", "tokenpath-frames.css"

_EXPORT = re.compile(r"^export default (\{[^;]*\});[ \t]*$", re.M)
_MODULE_SYNTAX = re.compile(r"^[ \t]*(import|export)\b", re.M)


def classic_script(module: str, name: str = GLOBAL) -> str:
    """The ES ``module`` as a classic script: wrapped in a function, its one ``export
    default {…};`` (the last statement, no ``import`` anywhere) assigned to
    ``globalThis[name]`` instead. A ``ValueError`` says how a module of another shape
    differs, since the transform would then break it.

    >>> print(classic_script("const render = () => 1;\\nexport default { render };\\n"), end="")
    (function () {
    const render = () => 1;
    globalThis.tokenpathFrames = { render };
    })();
    """
    if not name.isidentifier():
        raise ValueError(f"name must be a JavaScript identifier, got {name!r}")
    statements = _MODULE_SYNTAX.findall(module)
    exports = _EXPORT.findall(module)
    if statements != ["export"] or len(exports) != 1:
        raise ValueError("the module must have one `export default {...};` statement and no other import or "
                         f"export at the start of a line; found {statements or 'none'}")
    found = _EXPORT.search(module)
    if module[found.end():].strip():
        raise ValueError("`export default {...};` must be the module's last statement")
    return f"(function () {{\n{module[:found.start()]}globalThis.{name} = {found.group(1)};\n}})();\n"


def write(folder: Path) -> list[Path]:
    """Write the component's classic script and stylesheet into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    script, style = folder / SCRIPT, folder / STYLE
    script.write_text(classic_script(ESM.read_text(encoding="utf-8")), encoding="utf-8")
    style.write_text(CSS.read_text(encoding="utf-8"), encoding="utf-8")
    return [script, style]
