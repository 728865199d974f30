"""tokenpath: follow one string all the way to next-token probabilities.

The engine behind the book. Topic modules (``tokenpath.attention``,
``tokenpath.norms``, ``tokenpath.position`` …) are pure NumPy functions that return
small frozen trace objects; ``tokenpath.figures`` draws those traces;
``tokenpath.widgets`` wires sliders to them; ``tokenpath.examples`` holds the teaching
constants.
"""

from __future__ import annotations

import numpy as np

from . import attention, examples, fmt, norms, position
from . import bpe, subword  # noqa: E402  (chapters 01–02)
from . import decoder, embedding

__all__ = ["attention", "examples", "fmt", "norms", "position", "setup_notebook"]
__all__ += ["decoder", "embedding"]
__version__ = "0.1.0"

from . import moe, selfcheck  # noqa: E402  (chapter 08: MoE routing; the book's self-check questions)

__all__ += ["moe", "selfcheck"]


def setup_notebook() -> None:
    """Fix NumPy's print options so printed arrays are stable across runs (nbval
    compares them byte for byte)."""
    np.set_printoptions(**fmt.print_options())

# Chapter 06_gqa
from . import gqa  # noqa: E402

__all__ += ["gqa"]

# Chapter 09_model_files
from . import model, safetensors_format  # noqa: E402

__all__ += ["model", "safetensors_format"]
