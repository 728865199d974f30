"""The committed ``models/smollm2-measurements.json`` derived again from the pinned
SmolLM2 file by the engine (about a minute on one core: heavy, run by ``make
check-model`` and CI): every induction score, loss and ablation as stored."""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath.lessons import real_model as R
from tokenpath.lessons import real_model_heads as RH

pytestmark = pytest.mark.heavy


def _close(a, b, path=""):
    if isinstance(a, dict):
        assert set(a) == set(b), path
        for k in a:
            _close(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list) and a and isinstance(a[0], dict):
        assert len(a) == len(b), path
        for k, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{path}[{k}]")
    elif isinstance(a, (list, float)):
        assert np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), atol=2e-5, rtol=0), path
    else:
        assert a == b, path


def test_the_measurements_are_what_the_file_gives_now(smollm2_file):
    stored = RH.read_measurements()
    fresh = RH.measure(smollm2_file)
    engine = fresh.pop("engine")
    assert isinstance(engine, str) and engine
    stored.pop("engine")
    _close(fresh, stored)
