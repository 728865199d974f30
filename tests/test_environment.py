"""The three dependency files agree.

pyproject.toml is the source of truth (runtime dependencies plus every extra).
environment.yml must name the same packages for conda / Binder, and constraints.txt
must pin each of them to one exact version that the pyproject range allows.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]

# Conda packages that are the environment itself rather than a dependency of tokenpath.
CONDA_ONLY = {"python", "pip"}


def pyproject_requirements() -> dict[str, Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lines = list(project.get("dependencies", []))
    for group in project.get("optional-dependencies", {}).values():
        lines.extend(group)
    reqs = [Requirement(line) for line in lines]
    return {canonicalize_name(r.name): r for r in reqs}


def environment_yml() -> dict:
    return yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))


def conda_name(spec: str) -> str:
    """``conda-forge::numpy>=2.0`` -> ``numpy`` (a conda match spec's package name)."""
    spec = spec.split("::")[-1].strip()
    match = re.match(r"[A-Za-z0-9_.\-]+", spec)
    if match is None:
        raise ValueError(f"environment.yml: cannot read a package name from {spec!r}")
    return match.group(0)


def environment_entries() -> tuple[list[str], list[str]]:
    """(conda specs, pip lines) listed under ``dependencies`` in environment.yml."""
    conda, pip = [], []
    for entry in environment_yml()["dependencies"]:
        if isinstance(entry, dict):
            pip.extend(entry.get("pip", []))
        else:
            conda.append(str(entry))
    return conda, pip


def environment_names() -> set[str]:
    conda, pip = environment_entries()
    names = {canonicalize_name(conda_name(spec)) for spec in conda}
    names -= CONDA_ONLY
    for line in pip:
        line = line.strip()
        if line.startswith("-"):  # pip options such as "-e ." (the engine itself)
            continue
        names.add(canonicalize_name(Requirement(line).name))
    return names


def constraint_pins() -> dict[str, str]:
    pins = {}
    for number, raw in enumerate((ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        assert sep and version, f"constraints.txt line {number} is not an exact pin NAME==VERSION: {raw!r}"
        pins[canonicalize_name(name)] = version.strip()
    return pins


def test_environment_yml_lists_the_same_packages_as_pyproject():
    in_pyproject = set(pyproject_requirements())
    in_environment = environment_names()
    missing = sorted(in_pyproject - in_environment)
    extra = sorted(in_environment - in_pyproject)
    assert not missing and not extra, (
        "environment.yml and pyproject.toml list different packages:\n"
        f"  in pyproject.toml only: {missing or 'none'}\n"
        f"  in environment.yml only: {extra or 'none'}"
    )


def test_environment_yml_uses_python_311_and_installs_the_engine():
    conda, pip = environment_entries()
    assert "python=3.11" in [spec.replace(" ", "") for spec in conda], (
        f"environment.yml must ask for python=3.11, found {conda}"
    )
    assert "-e ." in [line.strip() for line in pip], (
        "environment.yml's pip section must install the engine itself with '-e .'"
    )


@pytest.mark.parametrize("name", sorted(pyproject_requirements()))
def test_every_pyproject_dependency_is_pinned_in_constraints(name):
    requirement = pyproject_requirements()[name]
    pins = constraint_pins()
    assert name in pins, f"constraints.txt has no pin for {name} (run `make lock`)"
    version = Version(pins[name])
    assert requirement.specifier.contains(version, prereleases=True), (
        f"constraints.txt pins {name}=={version}, outside pyproject's range {requirement}"
    )


def test_torch_pin_has_no_local_label():
    # "torch==2.13.0" accepts both the CPU wheel (2.13.0+cpu) and the default one;
    # a pin with "+cpu" could not be installed where only the default wheel exists.
    pins = constraint_pins()
    if "torch" in pins:
        assert "+" not in pins["torch"], f"pin torch without a local label, found {pins['torch']}"
