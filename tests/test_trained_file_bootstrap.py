"""Chapter 11's intervals resampled by file (``gap_by_file`` in
``models/stdlib-evidence.json``): windows of one file are alike, so the evidence file also
keeps the file each window starts in and the gaps with whole files resampled
(:func:`tokenpath._evidence.file_bootstrap`). Always: the stored intervals follow from the
stored windows and files. With ``--corpus`` (``make check-model``): the file of every
window is found again from the corpus and the packages."""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import _evidence as V
from tokenpath import trained as T
from tokenpath._train_data import windows


@pytest.fixture(scope="module")
def evidence():
    return T.read_evidence()


def test_the_intervals_by_file_follow_from_the_stored_windows_and_files(evidence):
    for name, row in evidence["streams"].items():
        files = row["window_files"]
        assert len(files) == row["windows"] and files == sorted(files)
        assert 0 <= files[0] and files[-1] < row["files"]
        dense = evidence["window_dense"].get(name) if evidence["window_dense"] else None
        expected = V.gaps_by_file(evidence["window_tables"][name], evidence["window_model"][name], dense, files)
        assert row["gap_by_file"] == expected
        assert all(g["groups"] == len(set(files)) for g in row["gap_by_file"].values())
        assert all(g["mean"] == row["gap"][t]["mean"] for t, g in row["gap_by_file"].items())


def test_window_files_names_the_file_of_each_window_s_first_token():
    lengths = [5, 1, 1, 9, 2, 30, 3]
    ids = np.concatenate([np.full(n, i) for i, n in enumerate(lengths)])
    for seq_len, limit in ((4, 8), (3, 30), (2, 4), (6, 100)):
        assert V.window_files(lengths, seq_len, limit) == windows(ids, seq_len, limit)[:, 0].tolist()


def test_one_window_per_file_is_the_window_bootstrap():
    rng = np.random.default_rng(5)
    a, b = rng.normal(1, 1, 40), rng.normal(0, 1, 40)
    by_file = V.file_bootstrap(a, b, np.arange(40), B=2000, seed=3)
    assert {k: by_file[k] for k in ("mean", "low", "high")} == V.paired_bootstrap(a, b, B=2000, seed=3)


def test_alike_windows_of_one_file_widen_the_interval():
    rng = np.random.default_rng(7)
    files = np.repeat(np.arange(10), 8)                     # 10 files of 8 windows each
    d = rng.normal(0, 1, 10)[files] + rng.normal(0, 0.1, 80)  # windows of one file alike
    windowed = V.paired_bootstrap(d, np.zeros(80), B=2000)
    by_file = V.file_bootstrap(d, np.zeros(80), files, B=2000)
    assert by_file["high"] - by_file["low"] > 2 * (windowed["high"] - windowed["low"])


def test_bad_input_is_refused_by_name():
    with pytest.raises(ValueError, match="groups"):
        V.file_bootstrap([1.0, 2.0], [0.0, 0.0], [0])
    with pytest.raises(ValueError, match="two groups"):
        V.file_bootstrap([1.0, 2.0], [0.0, 0.0], [3, 3])


@pytest.mark.corpus
def test_the_file_of_every_window_is_found_again(evidence):
    info = V.stream_infos(T.trained_folder())[3]
    for name, row in evidence["streams"].items():
        assert info[name]["window_files"] == row["window_files"], name
