"""tokenpath: follow one string all the way to next-token probabilities.

The engine behind the book. Topic modules, one per chapter (``tokenpath.bpe``,
``tokenpath.embedding``, ``tokenpath.attention``, ``tokenpath.position``,
``tokenpath.gqa``, ``tokenpath.norms``, ``tokenpath.moe``, ``tokenpath.sampling``, ``tokenpath.model`` …), are
pure NumPy functions that return small frozen trace objects; ``tokenpath.lessons`` holds
each chapter's worked examples and demos; ``tokenpath.figures`` draws those traces;
``tokenpath.widgets`` wires sliders to them; ``tokenpath.examples`` holds the teaching
constants; ``tokenpath.exercises`` checks a reader's own version of each chapter's core
function against the engine.
"""

from __future__ import annotations

import numpy as np

from . import (
    attention,
    bpe,
    decoder,
    embedding,
    examples,
    exercises,
    fmt,
    gqa,
    model,
    moe,
    moe_dispatch,
    norms,
    packing,
    position,
    safefiles,
    safetensors_format,
    sampling,
    selfcheck,
    shared_expert,
    subword,
    trained,
)

__all__ = [
    "attention",
    "bpe",
    "decoder",
    "embedding",
    "examples",
    "exercises",
    "fmt",
    "gqa",
    "model",
    "moe",
    "moe_dispatch",
    "norms",
    "packing",
    "position",
    "safefiles",
    "safetensors_format",
    "sampling",
    "selfcheck",
    "setup_notebook",
    "shared_expert",
    "subword",
    "trained",
]
__version__ = "0.1.0"


def setup_notebook(lang: str = "en") -> None:
    """Fix NumPy's print options so printed arrays are stable across runs (nbval
    compares them byte for byte), have the kernel print one line instead of a
    traceback where a cell needs the pretrained file and it cannot be fetched
    (:mod:`tokenpath._kernel`), and choose the language of the engine's words
    (figure captions and alt texts, questions, checker messages, widget labels):
    ``"en"`` (the default) or ``"zh_CN"`` (:mod:`tokenpath.i18n`)."""
    from . import _kernel, i18n

    i18n.set_language(lang)
    np.set_printoptions(**fmt.print_options())
    _kernel.install()
