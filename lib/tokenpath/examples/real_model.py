"""Constants of chapter 12_real_model: what the chapter asks SmolLM2-135M-Instruct.

These are the chapter's choices of prompts and settings, not measurements: every
number the chapter states about the model is computed from the file
(:mod:`tokenpath.lessons.real_model`).
"""

from __future__ import annotations

#: The chat prompt of section 12.2: one user message, in the model's own template.
REAL_CHAT = ({"role": "user", "content": "What is the capital of France?"},)
#: How many tokens the greedy answer may run to (it ends earlier at <|im_end|>).
REAL_CHAT_STEPS = 24
#: The plain-text prompts of the next-token view (the prompt slider), the first also
#: the prompt of the logit lens.
REAL_PROMPTS = (
    "The capital of France is",
    "def add(a, b):\n    return",
    "One, two, three, four,",
    "Once upon a time, there",
)
#: The next-token view: how many candidates it draws, the share of the mass whose
#: covering tokens it counts, its default temperature and the temperature slider's
#: range …
REAL_NEXT_TOP = 12
REAL_NEXT_COVER = 0.9
REAL_TEMPERATURE = 1.0
REAL_TEMPERATURE_RANGE = (0.1, 2.0)
#: … the top-k slider's largest value (0 = no cut) and the top-p slider's range (1 = no cut).
REAL_TOP_K_MAX = 10
REAL_TOP_P_RANGE = (0.1, 1.0)

#: The induction test of section 12.5: random runs of tokens, each repeated once …
REAL_INDUCTION_SEQUENCES = 8
REAL_INDUCTION_LENGTH = 32
REAL_INDUCTION_SEED = 0
#: … and the control: this many heads drawn at random (seeded), each ablated alone.
REAL_CONTROL_HEADS = 20
REAL_CONTROL_SEED = 0

#: The typed-line widget on the real model: the text it starts with.
REAL_OWNLINE_DEFAULT = "The cat sat on the mat. The cat sat on the"

__all__ = [name for name in dir() if name.isupper()]
