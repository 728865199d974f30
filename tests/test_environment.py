"""The dependency files agree.

pyproject.toml is the source of truth (runtime dependencies plus every extra).
environment.yml is the reader's environment for conda: it must name exactly
the packages of the runtime and of every extra except the maintainer-only ones listed
in MAINTAINER_ONLY (PyTorch's plain package is a multi-gigabyte CUDA build; playwright
only drives the browser tests). constraints.txt must pin every package of every group
to one exact version that the pyproject range allows. binder/environment.yml, which
repo2docker reads instead of the root's, is environment.yml without the engine's own
`-e .` line (binder/postBuild installs it; tests/test_binder.py).
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
#: Extras that a reader does not install: left out of environment.yml on purpose.
MAINTAINER_ONLY = {"crosscheck", "browser"}


def pyproject_groups() -> dict[str, list[Requirement]]:
    """``{"runtime": [...], "dev": [...], ...}``: the dependencies and each extra."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    groups = {"runtime": project.get("dependencies", []), **project.get("optional-dependencies", {})}
    return {name: [Requirement(line) for line in lines] for name, lines in groups.items()}


def pyproject_requirements(groups=None) -> dict[str, Requirement]:
    """Every requirement of the named groups (default: all), by canonical name."""
    reqs = [r for name, group in pyproject_groups().items() if groups is None or name in groups for r in group]
    return {canonicalize_name(r.name): r for r in reqs}


def reader_requirements() -> dict[str, Requirement]:
    return pyproject_requirements([g for g in pyproject_groups() if g not in MAINTAINER_ONLY])


def environment_yml(path: str = "environment.yml") -> dict:
    return yaml.safe_load((ROOT / path).read_text(encoding="utf-8"))


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


def test_maintainer_only_extras_exist_in_pyproject():
    assert MAINTAINER_ONLY <= set(pyproject_groups()), (
        f"MAINTAINER_ONLY names {sorted(MAINTAINER_ONLY - set(pyproject_groups()))}, which pyproject.toml lacks"
    )


def test_environment_yml_lists_the_readers_packages_of_pyproject():
    in_pyproject = set(reader_requirements())
    in_environment = environment_names()
    missing = sorted(in_pyproject - in_environment)
    extra = sorted(in_environment - in_pyproject)
    assert not missing and not extra, (
        "environment.yml must list the runtime dependencies and every extra but "
        f"{sorted(MAINTAINER_ONLY)}, exactly:\n"
        f"  missing from environment.yml: {missing or 'none'}\n"
        f"  in environment.yml but not a reader's dependency in pyproject.toml: {extra or 'none'}"
    )


def test_every_pyproject_dependency_is_in_environment_yml_or_a_maintainer_only_extra():
    in_environment = environment_names()
    maintainer = set(pyproject_requirements(MAINTAINER_ONLY))
    unaccounted = sorted(set(pyproject_requirements()) - in_environment - maintainer)
    assert not unaccounted, f"in pyproject.toml but neither in environment.yml nor a maintainer-only extra: {unaccounted}"


@pytest.mark.parametrize("name", ["torch", "playwright"])
def test_environment_yml_installs_neither_torch_nor_playwright(name):
    assert name not in environment_names(), (
        f"environment.yml installs {name}; a reader needs neither torch (a plain torch is a "
        "multi-gigabyte CUDA build) nor playwright (the browser tests)"
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


# ------------------------------------------------------------------ binder/environment.yml

#: The root file's line that installs the engine from the checkout; Binder's copy leaves it out.
ENGINE_LINE = "-e ."


def without_engine(env: dict) -> dict:
    deps = []
    for entry in env["dependencies"]:
        if isinstance(entry, dict) and "pip" in entry:
            entry = {**entry, "pip": [line for line in entry["pip"] if line.strip() != ENGINE_LINE]}
        deps.append(entry)
    return {**env, "dependencies": deps}


def test_binder_environment_is_the_root_one_without_the_engine_line():
    root, binder = environment_yml(), environment_yml("binder/environment.yml")
    assert binder == without_engine(root), (
        "binder/environment.yml must be environment.yml (the one list to edit) without its "
        f"{ENGINE_LINE!r} line; copy it: sed '/^ *- {ENGINE_LINE}$/d' environment.yml, keeping binder's header"
    )
    assert without_engine(root) != root, f"environment.yml lost its {ENGINE_LINE!r} line"


def test_binder_environment_names_no_path_of_the_checkout():
    # a local path makes repo2docker copy the whole repository before installing the
    # environment (no cached layer) and leaves it to micromamba to resolve the path
    _, pip = environment_entries()
    binder_pip = [line for e in environment_yml("binder/environment.yml")["dependencies"]
                  if isinstance(e, dict) for line in e.get("pip", [])]
    assert ENGINE_LINE in [line.strip() for line in pip]
    assert not [line for line in binder_pip if line.strip().startswith(("-e", ".", "/", "file:"))], binder_pip


def test_binder_environment_pins_python_exactly_for_repo2docker():
    # repo2docker picks its base image from an exact python=X.Y; a range is not read
    conda = [str(e) for e in environment_yml("binder/environment.yml")["dependencies"] if not isinstance(e, dict)]
    assert "python=3.11" in [spec.replace(" ", "") for spec in conda]
