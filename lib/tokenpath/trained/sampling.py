"""What the trained model predicts after a prompt (chapter 11): the engine's own greedy
tokens after each of the chapter's prompts (:func:`greedy_steps`, checked against the
recorded completions) and the next-token distribution after any of them at any
temperature (:func:`next_token`)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._checks import as_float, as_int, as_int_array
from ..embedding import next_token_probs
from ..sampling import _first_k
from ..examples import trained as ex
from .files import _folder, _pieces, committed_model, read_samples


# ------------------------------------------- the next-token distribution after a prompt (chapter 11)

def _entropy(p) -> float:
    """Entropy in nats of a distribution ``p [V]`` (0 log 0 = 0)."""
    return float(-(p * np.log(np.where(p > 0, p, 1.0))).sum())


def _top_and_cover(logits, probs, probs_t1, top: int, cover_share: float):
    """What the next-token view reads off one distribution (chapters 11 and 12): the IDs of
    the ``top`` largest ``logits [V]``, best first (lower ID among equals), their ``probs``
    and ``probs_t1``, and the fewest IDs whose ``probs`` hold at least ``cover_share``.
    The arrays are made read-only, ``probs`` and ``probs_t1`` included."""
    mass = np.cumsum(-np.sort(-probs))                              # [V] mass of the best 1, 2, … IDs
    cover = int(min(np.searchsorted(mass, cover_share - 1e-12) + 1, mass.size))
    first = np.flatnonzero(_first_k(logits, top))                   # the top largest logits, by ID
    best = first[np.lexsort((first, -logits[first]))]               # [top] best first, lower ID among equals
    top_probs, top_probs_t1 = probs[best], probs_t1[best]
    for a in (probs, probs_t1, best, top_probs, top_probs_t1):
        a.setflags(write=False)
    return best, top_probs, top_probs_t1, cover


@dataclass(frozen=True)
class NextToken:
    """The next-token view's trace: what the trained model predicts after prompt ``prompt`` of
    :data:`~tokenpath.examples.TRAINED_PROMPTS` followed by the first ``step`` tokens of
    its greedy completion, at temperature ``temperature``.

    ``probs`` is softmax(logits / T) over the whole vocabulary, ``probs_t1`` the same at
    T = 1; ``top`` the IDs of the largest logits, best first (their order does not
    depend on T)."""
    prompt: int
    step: int
    temperature: float
    ids: np.ndarray          # [n] the prompt's IDs, then `step` greedy IDs
    pieces: tuple[str, ...]    # [n] their texts
    logits: np.ndarray       # [V] the last position's logits
    probs: np.ndarray        # [V] at temperature T
    probs_t1: np.ndarray     # [V] at T = 1
    top: np.ndarray          # [K] IDs of the K largest logits, best first
    top_pieces: tuple[str, ...]  # [K] their texts
    top_probs: np.ndarray    # [K] probs of the top IDs, at T
    top_probs_t1: np.ndarray  # [K] the same at T = 1
    greedy_prob: float         # probability at T of the ID greedy decoding picks
    entropy: float             # of probs, nats
    cover: int                 # fewest tokens holding at least `cover_share` of probs
    cover_share: float
    outside: float             # probability mass at T on every token outside the top K

    @property
    def prompt_tokens(self) -> int:
        return len(self.ids) - self.step

    @property
    def greedy(self) -> int:
        """The ID greedy decoding picks (the largest logit)."""
        return int(self.top[0])


@functools.lru_cache(maxsize=8)
def _greedy_rows(model, folder: Path, prompt: int):
    """Prompt ``prompt`` and its first :data:`~tokenpath.examples.TRAINED_NEXT_STEPS`
    greedy tokens (IDs and texts), and the logits ``[steps + 1, V]`` that choose each of
    them and the one after, read-only, once per model and prompt.

    Greedy decoding asks for one forward pass per token; a causal model's pass over
    prompt + completion gives the same rows at once, so the recorded greedy completion
    (``samples.json``) serves as a draft: one pass checks it, and where the argmax of a
    row disagrees, the engine's choice replaces the draft from there and the pass runs
    again. The tokens are therefore the engine's own greedy tokens."""
    steps = ex.TRAINED_NEXT_STEPS
    prompt_ids = [int(i) for i in model.encode(ex.TRAINED_PROMPTS[prompt])]
    n = len(prompt_ids)
    draft = [int(i) for i in read_samples(folder)["completions"][prompt]["greedy_ids"][:steps]]
    while True:
        logits = model.logits(prompt_ids + draft)[n - 1:]          # [len(draft) + 1, V]
        chosen = [int(i) for i in np.argmax(logits, axis=-1)]      # what greedy picks after each prefix
        agree = next((k for k in range(len(draft)) if chosen[k] != draft[k]), len(draft))
        if agree == len(draft) == steps:
            break
        draft = draft[:agree] + [chosen[agree]]
    ids = np.array(prompt_ids + draft)
    logits = np.array(logits[: steps + 1], dtype=float)
    for a in (ids, logits):
        a.setflags(write=False)
    return ids, _pieces(model, ids), logits


def greedy_steps(prompt: int = 0, folder=None) -> tuple[int, ...]:
    """The first :data:`~tokenpath.examples.TRAINED_NEXT_STEPS` greedy tokens after prompt
    ``prompt`` (an index into :data:`~tokenpath.examples.TRAINED_PROMPTS`), computed by the
    engine once per process.

    >>> greedy_steps(0)[:2] == tuple(read_samples()["completions"][0]["greedy_ids"][:2])
    True
    """
    prompt = as_int("prompt", prompt, low=0, high=len(ex.TRAINED_PROMPTS) - 1)
    folder = _folder(folder)
    ids = _greedy_rows(committed_model(folder), folder, prompt)[0]
    return tuple(int(i) for i in ids[len(ids) - ex.TRAINED_NEXT_STEPS:])


def next_token(prompt: int = 0, step: int = 0, temperature: float = ex.TRAINED_TEMPERATURE, *,
               top: int = ex.NEXT_TOP, cover_share: float = ex.NEXT_COVER, folder=None) -> NextToken:
    """The next-token view's trace: the next-token distribution after prompt ``prompt`` and
    ``step`` of its greedy tokens, at ``temperature`` (chapter 3's
    :func:`~tokenpath.embedding.next_token_probs`). No forward pass after the first
    call for a prompt: every step's logits come from its one cached pass.

    >>> t = next_token(0, 0, 1.0)
    >>> t.greedy == greedy_steps(0)[0], round(float(t.probs.sum()), 6), t.cover >= 1
    (True, 1.0, True)
    """
    prompt = as_int("prompt", prompt, low=0, high=len(ex.TRAINED_PROMPTS) - 1)
    step = as_int("step", step, low=0, high=ex.TRAINED_NEXT_STEPS)
    temperature = as_float("temperature", temperature, low=0.0)
    as_int("top", top, low=1)
    cover_share = as_float("cover_share", cover_share, low=0.0)
    if cover_share > 1.0:
        raise ValueError(f"cover_share must be at most 1, got {cover_share}")
    folder = _folder(folder)
    ids, pieces, rows = _greedy_rows(committed_model(folder), folder, prompt)
    top = as_int("top", top, low=1, high=rows.shape[-1])
    n = len(ids) - ex.TRAINED_NEXT_STEPS + step                     # tokens the model has read
    logits = rows[step]                                             # [V]
    probs = next_token_probs(logits, temperature=temperature)
    probs_t1 = next_token_probs(logits)
    best, top_probs, top_probs_t1, cover = _top_and_cover(logits, probs, probs_t1, top, cover_share)
    return NextToken(prompt, step, temperature, ids[:n], pieces[:n], logits, probs, probs_t1, best,
                     pieces_of(best, folder), top_probs, top_probs_t1, float(probs[best[0]]), _entropy(probs),
                     cover, cover_share, float(max(0.0, 1.0 - top_probs.sum())))


def pieces_of(ids, folder=None) -> tuple[str, ...]:
    """The texts of token ``ids`` in the folder's tokenizer.

    >>> "".join(pieces_of(committed_model().encode("def __init__(self")))
    'def __init__(self'
    """
    as_int_array("ids", ids, ndim=1, low=0)
    return _pieces(committed_model(_folder(folder)), ids)
