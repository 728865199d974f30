"""The HTML edition runs the slider component of the notebooks: ``frames.js`` made into a
classic script by ``tokenpath._sphinx.component`` (Chromium loads no ES module from
``file://``). The transform fails, naming why, on a module of another shape, so a change
to the module that would break the edition's copy stops the build; ``make check-book``
drives the script itself in a browser.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tokenpath._sphinx import component
from tokenpath.widgets.view import ESM


def test_the_component_module_has_the_shape_the_transform_expects():
    module = ESM.read_text(encoding="utf-8")
    script = component.classic_script(module)
    # the module, unchanged but for its export, inside a function
    assert script == "(function () {\n" + module.replace(
        "export default { render };", "globalThis.tokenpathFrames = { render };") + "})();\n"


@pytest.mark.parametrize("module, why", [
    ("import x from './y.js';\nexport default { render };\n", "no other import or export"),
    ("export const a = 1;\nexport default { render };\n", "no other import or export"),
    ("const render = 1;\n", "one `export default"),
    ("export default { render };\nrender();\n", "last statement"),
    ("export default render;\n", "one `export default"),
])
def test_a_module_of_another_shape_is_refused_with_the_reason(module, why):
    with pytest.raises(ValueError, match=why):
        component.classic_script(module)


def test_a_global_name_must_be_an_identifier():
    with pytest.raises(ValueError, match="identifier"):
        component.classic_script("export default { render };\n", name="tokenpath-frames")


@pytest.mark.skipif(shutil.which("node") is None, reason="no node to run the script")
def test_the_classic_script_defines_the_component_as_a_global(tmp_path):
    script, style = component.write(tmp_path)
    assert style.read_text(encoding="utf-8") == component.CSS.read_text(encoding="utf-8")
    run = subprocess.run(["node", "-e", f"require({str(script)!r}); console.log(typeof globalThis.tokenpathFrames.render)"],
                         capture_output=True, text=True, timeout=30)
    assert run.stdout.strip() == "function", run.stderr
