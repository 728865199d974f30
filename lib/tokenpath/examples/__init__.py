"""The book's teaching constants, written once.

Every ID, vector and matrix here is a *teaching assignment* chosen so a reader can
check the arithmetic by hand. None of it is any vendor's tokenizer, weights, API
output or measurement. The small hand-calculation configurations are independent of
each other and must not be stitched together into one model.

The running example that every chapter shares is defined here; each chapter's own
constants live in a module of this package (``examples.attention`` …), named in capitals
with their figure number (``FIG8_Q``), and are re-exported here, so
``examples.FIG8_Q`` works wherever the book needs it.
"""

from __future__ import annotations

import math

import numpy as np

# --- the running example: characters as IDs -------------------------------------
#: Character-level teaching vocabulary used by the main line of the book.
CHAR_IDS = {"a": 3, "b": 7, "c": 2}
#: The teaching end-of-sequence ID.
EOS = 9
#: Sequence 0 of the batch, the string "abac".
TEXT = "abac"

#: Main shape configuration: batch, positions, vocabulary, width, heads, head width.
B, T, V, D_MODEL, H, D_HEAD = 2, 4, 1000, 8, 2, 4


def encode_chars(text: str) -> np.ndarray:
    """Look each character up in :data:`CHAR_IDS`.

    >>> encode_chars("abac").tolist()
    [3, 7, 3, 2]
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    unknown = sorted(set(text) - set(CHAR_IDS))
    if unknown:
        raise ValueError(f"text has characters outside the teaching vocabulary {sorted(CHAR_IDS)}: {unknown}")
    return np.array([CHAR_IDS[ch] for ch in text], dtype=np.int64)


# Each chapter's constants (UPPER_CASE names), re-exported.
from .attention import *  # noqa: E402,F401,F403
from .bpe import *  # noqa: E402,F401,F403
from .embedding import *  # noqa: E402,F401,F403
from .gqa import *  # noqa: E402,F401,F403
from .model import *  # noqa: E402,F401,F403
from .moe import *  # noqa: E402,F401,F403
from .norms import *  # noqa: E402,F401,F403
from .position import *  # noqa: E402,F401,F403
from .trained import *  # noqa: E402,F401,F403
