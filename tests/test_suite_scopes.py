"""The suite's own scheduling: the modules :data:`conftest.SHARED_SCOPES` names exist, so a
renamed test module is not silently left to compute the shared caches on a second worker."""

from __future__ import annotations

from pathlib import Path

from conftest import SHARED_SCOPES

ROOT = Path(__file__).resolve().parents[1]


def test_every_module_of_a_shared_scope_exists():
    assert [path for path in SHARED_SCOPES if not (ROOT / path).is_file()] == []
