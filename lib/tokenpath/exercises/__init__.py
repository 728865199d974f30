"""Build it yourself: in each chapter the reader writes the chapter's core function, and
:func:`check` runs it on the chapter's worked example and on seeded random cases,
compares every intermediate it returns with the engine's, reports the first one that
differs (expected against got, in the chapter's notation), names a known mistake when
the function's results match one on every case, and draws the chapter's figure from
the reader's numbers beside the book's where the exercise has one (figure 8 for
``masked_attention``, figure 14 for ``cache_mask``, figure 20 for ``route_top_k``).

=================== ======= =========================================================
exercise            chapter what the reader writes
=================== ======= =========================================================
``pair_counts``     1       weighted counts of adjacent symbol pairs
``merge_pair``      1       one BPE merge step on one word
``decode``          2       token IDs to text: join the bytes, then decode
``train``           2       byte-level BPE training (the capstone)
``encode``          2       byte-level BPE encoding with a GGUF file's merges (the capstone)
``embed``           3       the embedding lookup
``cross_entropy_one`` 3     softmax and −log p[y] at one position
``causal_mask``     4       the causal mask
``masked_attention`` 4      scores, weights and output of one head with a mask
``cache_mask``      5       the mask of new queries after P cached positions
``rope_head``       6       RoPE for one head, rotate-half pairing
``gqa_attention``   7       grouped-query attention without copying K/V
``rms_norm``        8       RMSNorm
``swiglu``          8       the SwiGLU feed-forward network
``decoder_layer``   8       capstone: SmolLM2's layer 0, every intermediate
``route_top_k``     9       top-k routing with gates renormalised over the chosen
``shared_expert_moe`` 9     capstone: routed experts plus Qwen2-MoE's shared expert
=================== ======= =========================================================

The reference solution of each is the engine's own function (:func:`solution`; a
chapter shows its code with :func:`show_solution`). :func:`check` never raises for
anything the reader's function does: an exception, a wrong type or shape, NaN, a flood
of printed output or a function that never returns (each case is stopped after
:data:`~tokenpath.exercises.checker.CASE_SECONDS`) all become a message.

>>> names()[:3]
('pair_counts', 'merge_pair', 'decode')
>>> from tokenpath.attention import causal_mask
>>> check("causal_mask", causal_mask).passed
True
>>> print(check("causal_mask", lambda t: ...).text().splitlines()[0])
[not written yet] causal_mask: the causal mask (chapter 4).

The package holds the checker (:mod:`.checker`, with :mod:`._running` for bounded runs
and :mod:`.result` for what a check says), one module of exercises per chapter
(:mod:`.bpe`, :mod:`.utf8`, :mod:`.capstone` with :mod:`.capstone_match`, :mod:`.embedding`, :mod:`.attention`, :mod:`.position`,
:mod:`.gqa`, :mod:`.norms`, :mod:`.moe`), chapter 8's capstone (:mod:`.layer`: one whole
decoder layer of SmolLM2), chapter 9's capstone (:mod:`.shared_moe`: a shared expert) and fresh variants of the chapters' numeric
"Check yourself" questions (:mod:`.variants`, which ``quiz[id].variant(seed)`` draws).
"""

from __future__ import annotations

from . import attention, bpe, capstone, embedding, gqa, layer, moe, norms, position, shared_moe, utf8
from .checker import Case, Exercise, Field, Mistake
from .result import CheckResult

__all__ = ["EXERCISES", "Case", "CheckResult", "Exercise", "Field", "Mistake", "check", "exercise",
           "for_chapter", "names", "show_solution", "solution", "stub"]

#: Every exercise by name, in reading order.
EXERCISES: dict[str, Exercise] = {
    ex.name: ex for module in (bpe, utf8, capstone, embedding, attention, position, gqa, norms, layer, moe, shared_moe) for ex in module.EXERCISES
}


def names() -> tuple[str, ...]:
    """The exercises' names, in reading order.

    >>> len(names())
    17
    """
    return tuple(EXERCISES)


def exercise(name: str) -> Exercise:
    """The exercise called ``name``.

    >>> exercise("rope_head").chapter
    6
    >>> exercise("rope")
    Traceback (most recent call last):
    ...
    ValueError: name must be one of the exercises ['cache_mask', 'causal_mask', 'cross_entropy_one', 'decode', 'decoder_layer', 'embed', 'encode', 'gqa_attention', 'masked_attention', 'merge_pair', 'pair_counts', 'rms_norm', 'rope_head', 'route_top_k', 'shared_expert_moe', 'swiglu', 'train'], got 'rope'
    """
    if not isinstance(name, str) or name not in EXERCISES:
        raise ValueError(f"name must be one of the exercises {sorted(EXERCISES)}, got {name!r}")
    return EXERCISES[name]


def for_chapter(chapter: int) -> tuple[Exercise, ...]:
    """The exercises of chapter ``chapter`` (1 … 9), in order.

    >>> [e.name for e in for_chapter(4)]
    ['causal_mask', 'masked_attention']
    """
    chapters = sorted({e.chapter for e in EXERCISES.values()})
    if isinstance(chapter, bool) or not isinstance(chapter, int) or chapter not in chapters:
        raise ValueError(f"chapter must be one of {chapters}, got {chapter!r}")
    return tuple(e for e in EXERCISES.values() if e.chapter == chapter)


def check(name: str, fn) -> CheckResult:
    """Check the reader's ``fn`` against the engine on exercise ``name``'s cases. The
    result has ``.passed``; its ``str()`` is the message; in a notebook it shows as HTML
    with the figure drawn from the reader's numbers where the exercise has one.

    >>> from tokenpath.bpe import apply_merge
    >>> print(check("merge_pair", apply_merge).text().splitlines()[0])
    [passed] merge_pair: one BPE merge step (chapter 1).
    """
    return exercise(name).check(fn)


def solution(name: str):
    """The reference solution of exercise ``name``: the engine's function, or the
    engine called with the exercise's arguments and its trace read into the named
    fields.

    >>> solution("pair_counts")({("a", "b", "a", "b"): 2})
    Counter({('a', 'b'): 4, ('b', 'a'): 2})
    """
    return exercise(name).reference


def stub(name: str) -> str:
    """The signature and docstring the reader starts from, its body ``...``.

    >>> print(stub("causal_mask").splitlines()[0])
    def causal_mask(t):
    """
    return exercise(name).stub


class SolutionDisplay:
    """The engine's code behind an exercise's reference solution, for a (collapsed)
    notebook cell: one :class:`~tokenpath.lessons.SourceDisplay` per engine function."""

    def __init__(self, parts):
        self.parts = tuple(parts)

    def text(self) -> str:
        return "\n\n".join(p.text() for p in self.parts)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/html": "".join(p.html() for p in self.parts), "text/plain": self.text()}

    def __str__(self) -> str:
        return self.text()


def show_solution(name: str, *, engine: bool = False) -> SolutionDisplay:
    """Show the code that solves exercise ``name`` (read from the package when the cell
    runs): the minimal teaching solution when the exercise has one (the loop or the few
    array lines a reader writes, no input checks), else, or with ``engine=True``, the
    engine's own validated functions.

    >>> print(show_solution("merge_pair", engine=True).text().splitlines()[0])
    tokenpath/bpe/pairs.py · apply_merge
    """
    from ..lessons import show_source

    ex = exercise(name)
    if not isinstance(engine, bool):
        raise TypeError(f"engine must be True or False, got {type(engine).__name__}")
    if ex.teaching is not None and not engine:
        return SolutionDisplay([show_source(ex.teaching)])
    return SolutionDisplay(show_source(obj) for obj in ex.engine)
