"""The slider component's own logic, run in node (``tests/component_harness.mjs``) over a
stand-in page and model: the keys and drags of a reader land on the same states as the
kernel's :class:`~tokenpath.widgets.Controls` (Hkv among the divisors of Hq), the
look-ahead asks only for states the controls offer, several in one request, and a key on
a held state draws that frame in its own event and sends the kernel nothing then.
``make check-lab`` drives the same module in JupyterLab.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tokenpath import gqa, widgets
from tokenpath.figures import style
from tokenpath.widgets.view import ESM, index_of

from _widget_fixtures import built

HARNESS = Path(__file__).with_name("component_harness.mjs")

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="no node to run the component")


def run(tmp_path, scenario: str, widget, **extra) -> dict:
    spec = {"module": str(ESM), "controls": widget.view.controls, "index": widget.view.index, **extra}
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    done = subprocess.run(["node", str(HARNESS), scenario, str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def kernel():
    """A head_groups widget of its own, for the kernel's side of every move."""
    w = widgets.head_groups()
    yield w
    style.close(w.figure)


def kernel_key(widget, j: int, key: str) -> None:
    """The same key in the kernel: slider ``j`` moved to its next offered value that way."""
    controls = widget.slider
    name = controls.names[j]
    low, high = controls.range(name)
    offered = controls.allowed(name) or [v for v in widget._positions[j] if low <= v <= high]
    at = offered.index(getattr(controls.value, name))
    to = {"ArrowRight": at + 1, "ArrowLeft": at - 1, "Home": 0, "End": len(offered) - 1}[key]
    controls.sliders[j].value = offered[min(max(to, 0), len(offered) - 1)]


def state(widget) -> str:
    return ",".join(map(str, index_of(widget._positions, widget.slider.value)))


KEYS = [[1, "ArrowRight"], [1, "ArrowRight"], [1, "ArrowLeft"], [1, "Home"], [1, "End"], [0, "ArrowRight"],
        [1, "ArrowLeft"], [0, "ArrowLeft"], [0, "End"], [1, "ArrowLeft"], [1, "Home"]]


def test_keys_land_where_the_kernels_controls_do_and_held_frames_draw_at_once(tmp_path, kernel):
    log = run(tmp_path, "keys", built("head_groups"), keys=KEYS)
    values = kernel._positions
    for step, (j, key) in zip(log["steps"], KEYS):
        kernel_key(kernel, j, key)
        assert step["state"] == state(kernel), (j, key)
        hq, hkv = (values[i][int(p)] for i, p in enumerate(step["state"].split(",")))
        assert step["readouts"] == [str(hq), str(hkv)]
        assert [values[1][int(step["min"][1])], values[1][int(step["max"][1])]] == [1, hq]  # Hkv's range: 1 … Hq
        if step["served"] == "held":  # drawn in the key's own event; the kernel is told nothing then
            assert step["canvas"] == step["state"] and step["sent"] == []
    assert sum(s["served"] == "held" for s in log["steps"]) >= len(KEYS) - 2
    assert log["requests"] and max(log["requests"]) <= 8 and max(log["requests"]) > 1
    for i, j in log["asked"]:  # the look-ahead asks only for pairs the sliders offer
        assert values[1][j] in gqa.kv_head_counts(values[0][i])


DRAGS = [[1, 2], [1, 2], [0, 8], [1, 5], [0, 15]]


def test_a_drag_onto_a_value_the_slider_does_not_offer_goes_on_to_one_it_does(tmp_path, kernel):
    log = run(tmp_path, "drag", built("head_groups"), drags=DRAGS)
    for step, (j, to) in zip(log["steps"], DRAGS):
        kernel.sliders[j].value = kernel._positions[j][to]
        assert step["chosen"] == state(kernel), (j, to)
    assert [s["chosen"] for s in log["steps"]][:3] == ["7,3", "7,1", "8,0"]  # Hkv 3 → 4, 3 → 2; Hq 9: Hkv 1
    assert log["steps"][0]["asked"] == ["7,3"]  # the kernel is asked for the state landed on, never a refused one
