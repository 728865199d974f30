"""How many examples the hostile-input fuzzers try.

The suite's numbers keep `make test` within its time budget while every kind of
corruption and every outcome still occurs (tests assert that). For a deeper run, scale
them: ``TOKENPATH_FUZZ_SCALE=20 .venv/bin/pytest tests/test_hostile_model_files.py``
(the examples stay derandomized, so a run is repeatable at any scale).
"""

from __future__ import annotations

import os


def examples(n: int) -> int:
    """``n`` times ``$TOKENPATH_FUZZ_SCALE`` (default 1), at least 1."""
    scale = float(os.environ.get("TOKENPATH_FUZZ_SCALE", "1"))
    if not scale > 0:
        raise ValueError(f"TOKENPATH_FUZZ_SCALE must be a positive number, got {scale!r}")
    return max(1, round(n * scale))
