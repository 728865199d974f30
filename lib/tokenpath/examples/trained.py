"""Constants of chapter 11_trained_model: the book's own trained model.

Unlike the other chapters' teaching assignments, the model's weights are learned (by
``make model`` from the interpreter's standard library); what is chosen here is only
what the chapter asks of it.
"""

from __future__ import annotations

#: The committed folder, relative to the repository root.
TRAINED_FOLDER = "models/stdlib-moe"
#: The prompts the chapter completes (as the training script recorded them).
TRAINED_PROMPTS = ("def __init__(self",
                   "class Point:\n    def __init__(self, x, y):\n        self.",
                   "def read_lines(path):\n    with open(path) as f:\n        return ")
#: New tokens per completion, and the temperature of the sampled completions.
TRAINED_NEW_TOKENS = 32
TRAINED_TEMPERATURE = 0.8
#: Tokens the notebook generates through the engine (NumPy, no cache: kept short).
TRAINED_ENGINE_TOKENS = 8
#: The held-out line the chapter opens is chosen by a rule (:func:`tokenpath.trained.example_line`):
#: the first offered line whose code starts with this text and has an argument after ``self``.
TRAINED_LINE_START = "def "
#: The attention view's default head is computed, not chosen: the head with the largest mean
#: of this measure (:data:`tokenpath.trained.HEAD_MEASURES`) over the held-out sample; its
#: default query is the line's last token, the one that may read the whole line.
HEAD_DEFAULT_MEASURE = "previous"
#: A head is named after a position (previous token, itself, first token) only when it
#: puts more than this share of its weight there, averaged over the held-out queries.
HEAD_ROLE_SHARE = 0.5
#: How many of the query's strongest sources the attention view and its widget name.
HEAD_TOP_SOURCES = 3
#: Bound on max |logit difference| between the engine and transformers on held-out text.
TRAINED_CROSSCHECK_TOL = 1e-4
#: The induction test: this many runs of random tokens (seeded), each this long and
#: repeated once; a head whose queries in the second copy read the token after their
#: own first occurrence is an induction head.
INDUCTION_SEQUENCES = 8
INDUCTION_LENGTH = 64
INDUCTION_SEED = 0
#: The even spread of chapter 11's what-if question: a model sure of this many candidates.
EVEN_CANDIDATES = 64
#: The routing view: the held-out lines it offers are code (not blank, not a comment)
#: of this many tokens, inclusive …
ROUTE_LINE_TOKENS = (6, 16)
#: … and it shows this layer by default.
ROUTE_LAYER = 0

#: The next-token view (its figure and widget): the greedy steps the step
#: slider offers after each prompt (0 = right after the prompt) …
TRAINED_NEXT_STEPS = 8
#: … how many candidates the figure draws as bars, the share of the mass whose covering
#: tokens it counts, and the temperature slider's range.
NEXT_TOP = 12
NEXT_COVER = 0.9
NEXT_TEMPERATURE_RANGE = (0.1, 2.0)

#: Chapter 11's "Follow your own line" widget: the line it shows before the reader types
#: (a realistic line of Python, not from the held-out files) …
OWNLINE_DEFAULT = "        return [line.rstrip() for line in lines if line.strip()]"
#: … the longest line it runs, in tokens (the model's own context caps it further) …
OWNLINE_MAX_TOKENS = 128
#: … how many candidates it lists for the next token …
OWNLINE_TOP = 5
#: … and the edges, in nats, of the surprisal bands its colours mark.
OWNLINE_SURPRISAL_EDGES = (1.0, 2.0, 4.0, 8.0)

__all__ = [name for name in dir() if name.isupper()]
