"""Constants of chapter 10_trained_model: the book's own trained model.

Unlike the other chapters' teaching assignments, the model's weights are learned (by
``make model`` from the interpreter's standard library); what is chosen here is only
what the chapter asks of it.
"""

from __future__ import annotations

#: The committed folder, relative to the repository root.
TRAINED_FOLDER = "models/stdlib-moe"
#: The prompts the chapter completes (as the training script recorded them).
TRAINED_PROMPTS = ("def __init__(self", "import ", "for i in range(")
#: New tokens per completion, and the temperature of the sampled completions.
TRAINED_NEW_TOKENS = 32
TRAINED_TEMPERATURE = 0.8
#: Tokens the notebook generates through the engine (NumPy, no cache: kept short).
TRAINED_ENGINE_TOKENS = 8
#: The line of ``held_out.txt`` (0-based) whose attention and routing the chapter prints:
#: ``def __new__(cls, numerator=0, ...)`` of ``fractions.py``.
TRAINED_LINE_INDEX = 61
#: Bound on max |logit difference| between the engine and transformers on held-out text.
TRAINED_CROSSCHECK_TOL = 1e-4

#: Chapter 8's routing of real text (figure 24 and its widget): the held-out lines it
#: offers are code (not blank, not a comment) of this many tokens, inclusive …
ROUTE_LINE_TOKENS = (6, 16)
#: … and the figure shows this layer of this held-out line (0-based).
FIG24_LAYER = 1
FIG24_LINE = 72

__all__ = [name for name in dir() if name.isupper()]
