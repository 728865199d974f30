"""binder/ as repo2docker reads it: postBuild is an executable bash script that stops on
the first error, installs the engine from the checkout and fetches the SmolLM2 file with
exactly the command `make smollm2` runs, and does nothing else.
(binder/environment.yml: tests/test_environment.py.)"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tokenpath import pretrained

ROOT = Path(__file__).resolve().parents[1]
POSTBUILD = ROOT / "binder" / "postBuild"


def commands(path: Path) -> list[str]:
    """The script's lines that are not blank, comments or the shebang."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def makefile_fetch_command() -> str:
    """The recipe of the SmolLM2 file's rule in the Makefile, with the venv's Python
    ($(PY)) written as `python`."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    match = re.search(r"^\$\(SMOLLM2\):[^\n]*\n\t([^\n]+)", text, re.M)
    assert match, "the Makefile has no rule for $(SMOLLM2) with a recipe"
    return match.group(1).strip().replace("$(PY)", "python")


def test_make_smollm2_runs_the_fetch_command():
    assert makefile_fetch_command() == pretrained.FETCH_COMMAND


def test_postbuild_runs_that_same_command_last():
    assert commands(POSTBUILD)[-1] == pretrained.FETCH_COMMAND == makefile_fetch_command()


def test_postbuild_does_only_what_binder_needs():
    assert commands(POSTBUILD) == [
        "set -euo pipefail",
        "python -m pip install --no-deps --disable-pip-version-check -e .",  # the engine; its dependencies came from environment.yml
        pretrained.FETCH_COMMAND,
    ]


def test_postbuild_is_an_executable_bash_script_that_stops_on_errors():
    text = POSTBUILD.read_text(encoding="utf-8")
    assert text.startswith("#!/bin/bash\n") and "\r" not in text
    assert os.access(POSTBUILD, os.X_OK), "binder/postBuild must be executable (git update-index --chmod=+x)"
    mode = subprocess.run(["git", "ls-files", "-s", "binder/postBuild"], cwd=ROOT, capture_output=True, text=True).stdout
    if mode:  # committed: git must record the executable bit, or a clone gets a plain file
        assert mode.startswith("100755"), mode
    assert subprocess.run(["bash", "-n", str(POSTBUILD)], capture_output=True).returncode == 0


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed")
def test_postbuild_passes_shellcheck():
    done = subprocess.run(["shellcheck", str(POSTBUILD)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


def test_postbuild_stops_at_the_first_failing_command(tmp_path):
    # run with a `python` that fails: the script must stop at the install, not go on to fetch
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "python").write_text("#!/bin/bash\necho \"python $*\" >> \"$LOG\"\nexit 3\n")
    (fake / "python").chmod(0o755)
    log = tmp_path / "log"
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}", "LOG": str(log)}
    done = subprocess.run(["bash", str(POSTBUILD)], cwd=tmp_path, env=env, capture_output=True)
    assert done.returncode == 3
    assert log.read_text().splitlines() == ["python -m pip install --no-deps --disable-pip-version-check -e ."]


def test_binder_has_only_the_files_repo2docker_reads_here():
    assert sorted(p.name for p in (ROOT / "binder").iterdir()) == ["environment.yml", "postBuild"]
