"""From logits to the next ID, and the loss that trains them (chapter 3).

* **Probabilities.** Softmax over the *vocabulary* (last) axis of the logits, after an
  optional top-k cut and a division by the temperature (0: greedy).
* **Sampling.** Uniform numbers become IDs through the cumulative distribution; a
  sampled ID goes back into the lookup as the next input. The hidden vector is never
  turned into a token by searching for its nearest embedding row.
* **Training.** Cross-entropy over the shifted targets, averaged over the targets the
  loss mask counts, and its gradient with respect to the logits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import norms
from ._checks import as_float, as_float_array, as_int, as_int_array
from .attention import softmax
from .decoder import LayerWeights, decoder_layer
from .embedding import check_ids, check_table, logits, lookup, one_hot, tied_head
from .packing import loss_mask

__all__ = [
    "CrossEntropyTrace",
    "GenerationStep",
    "cross_entropy",
    "draw_ids",
    "generate",
    "next_token_probs",
    "sample_next",
]


# ------------------------------------------------------------ probabilities, sampling


def next_token_probs(z, *, temperature: float = 1.0, top_k: int | None = None,
                     top_p: float | None = None) -> np.ndarray:
    """The distribution of the next ID from logits ``z [..., V]``, over the last
    (vocabulary) axis: keep the ``top_k`` largest logits (all when ``None``), divide by
    ``temperature``, softmax; then, with ``top_p`` in (0, 1], keep only the nucleus (the
    most likely IDs, best first, up to and including the one whose cumulative
    probability reaches ``top_p``) and renormalise, as ``transformers``' top-p warper
    does after its temperature and top-k. Temperature 0 is greedy: all mass on the
    largest logit (the lowest ID among equals).

    >>> next_token_probs([np.log(3), 0.0]).round(6).tolist()
    [0.75, 0.25]
    >>> next_token_probs([np.log(3), 0.0], temperature=0.0).tolist()
    [1.0, 0.0]
    >>> next_token_probs([1.0, 3.0, 2.0], top_k=1).tolist()
    [0.0, 1.0, 0.0]
    >>> next_token_probs(np.log([0.5, 0.3, 0.2]), top_p=0.7).round(6).tolist()   # 0.5 + 0.3 reaches 0.7
    [0.625, 0.375, 0.0]
    """
    z = as_float_array("z (the logits)", z, min_ndim=1)
    if z.shape[-1] == 0:
        raise ValueError(f"z (the logits) must hold at least one logit, got shape {list(z.shape)}")
    temperature = as_float("temperature", temperature, low=0.0)
    if top_p is not None:
        top_p = as_float("top_p", top_p)
        if not 0.0 < top_p <= 1.0:
            raise ValueError(f"top_p must be in (0, 1]: the probability the nucleus holds, got {top_p:g}")
    v = z.shape[-1]
    if top_k is not None:
        top_k = as_int("top_k", top_k, low=1, high=v)
        z = np.where(_first_k(z, top_k), z, -np.inf)
    if temperature == 0.0:
        return (np.arange(v) == np.argmax(z, axis=-1)[..., None]).astype(np.float64)
    # subtract the top logit first: the largest entry becomes 0, so dividing by a tiny
    # temperature sends the others towards −∞ and never overflows to +∞
    top = z.max(axis=-1, keepdims=True)
    with np.errstate(over="ignore"):
        p = softmax((z - top) / temperature, axis=-1)
    if top_p is None or top_p == 1.0:
        return p
    return _nucleus(p, top_p)


def _first_k(z: np.ndarray, k: int) -> np.ndarray:
    """``[..., V]`` True for the ``k`` largest entries of ``z`` along the last axis, the lower
    ID first among equals (what a stable sort by falling value keeps), without sorting:
    every entry above the k-th largest value, then as many of the entries equal to it as
    fit, lowest ID first.

    >>> _first_k(np.array([1.0, 3.0, 2.0, 3.0]), 1).tolist(), _first_k(np.array([2.0, 1.0, 2.0, 2.0]), 2).tolist()
    ([False, True, False, False], [True, False, True, False])
    """
    kth = -np.partition(-z, k - 1, axis=-1)[..., k - 1:k]  # [..., 1] the k-th largest value
    above, tie = z > kth, z == kth
    room = k - above.sum(axis=-1, keepdims=True)  # ties kept, lowest ID first
    return above | (tie & (np.cumsum(tie, axis=-1) <= room))


def _nucleus(p: np.ndarray, top_p: float) -> np.ndarray:
    """``p [..., V]`` cut to its nucleus and renormalised: IDs by falling probability
    (lower ID first among equals), kept while the mass before them is below ``top_p``
    (so the most likely ID is always kept)."""
    order = np.argsort(-p, axis=-1, kind="stable")  # best first
    sorted_p = np.take_along_axis(p, order, axis=-1)
    before = np.cumsum(sorted_p, axis=-1) - sorted_p  # mass of the better IDs
    keep = np.zeros(p.shape, dtype=bool)
    np.put_along_axis(keep, order, before < top_p, axis=-1)
    cut = np.where(keep, p, 0.0)
    return cut / cut.sum(axis=-1, keepdims=True)


def draw_ids(probs, uniforms) -> np.ndarray:
    """Turn uniform numbers ``u`` in [0, 1) into IDs by the inverse of the cumulative
    distribution: ID ``v`` when ``cdf[v−1] <= u < cdf[v]``. ``probs [V]``, ``uniforms [n]``.

    >>> draw_ids([0.75, 0.25], [0.1, 0.74, 0.76, 0.99]).tolist()
    [0, 0, 1, 1]
    """
    p = as_float_array("probs", probs, ndim=1)
    if p.size < 1 or np.any(p < 0) or abs(p.sum() - 1.0) > 1e-9:
        raise ValueError("probs must be a non-empty distribution: entries >= 0 summing to 1")
    u = as_float_array("uniforms", uniforms, ndim=1)
    if np.any((u < 0) | (u >= 1)):
        raise ValueError("uniforms must lie in [0, 1)")
    cdf = np.cumsum(p)
    ids = np.searchsorted(cdf, u, side="right")
    # rounding can leave cdf[-1] a hair below 1; never return an ID past the last one
    # with probability > 0
    return np.minimum(ids, np.flatnonzero(p > 0)[-1])


def sample_next(z, rng: np.random.Generator, *, temperature: float = 1.0, top_k: int | None = None,
                top_p: float | None = None) -> int:
    """Draw one ID from the logits ``z [V]`` with the seeded generator ``rng``.

    >>> sample_next([np.log(3), 0.0], np.random.default_rng(0), temperature=0.0)
    0
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator (np.random.default_rng(seed)), got {type(rng).__name__}")
    z = as_float_array("z (the logits)", z, ndim=1)
    if z.shape[-1] == 0:
        raise ValueError(f"z (the logits) must hold at least one logit, got shape {list(z.shape)}")
    p = next_token_probs(z, temperature=temperature, top_k=top_k, top_p=top_p)
    return int(draw_ids(p, [rng.random()])[0])


@dataclass(frozen=True)
class GenerationStep:
    """One step of the loop: look the prefix up, run the layer, score, sample."""

    prefix: np.ndarray  # [T] the IDs fed in at this step
    x: np.ndarray | None  # [T, d] their looked-up rows, E[prefix] (None when a logits_fn runs the model)
    hidden: np.ndarray | None  # [d] the last position's final hidden state (None with a logits_fn)
    logits: np.ndarray  # [V] hidden @ W_out
    probs: np.ndarray  # [V] next-ID distribution after temperature and top-k
    sampled: int  # the drawn ID: appended to the prefix, looked up next step


def generate(prompt, steps: int, *, table=None, layer: LayerWeights | None = None, w_out=None,
             temperature: float = 1.0, top_k: int | None = None, top_p: float | None = None, seed: int = 0,
             logits_fn=None, next_logits=None, stop=()) -> list[GenerationStep]:
    """Autoregressive sampling with a one-layer model: IDs → ``table`` rows → decoder
    ``layer`` → final RMSNorm → ``W_out`` (tied to the table unless given) → sample →
    append the ID → look it up again. Seeded by ``seed``; ``temperature=0`` is greedy.

    The next input is always ``E[sampled ID]``, a row of the table; the hidden vector
    itself is never fed back, and no search for the nearest embedding takes place.

    Any other model runs the same loop through ``logits_fn(ids [T]) -> logits [T, V]``
    (a whole model's forward pass, e.g. :meth:`tokenpath.model.Model.logits`); then
    ``table``, ``layer`` and ``w_out`` are not used and the steps keep no ``x`` or
    ``hidden``. ``next_logits(ids [T]) -> logits [V]`` is the same with only the row
    that is sampled from: a model with a K/V cache computes just the positions it has
    not seen (:meth:`tokenpath.model.Model.generate`).

    ``top_p`` samples from the nucleus (:func:`next_token_probs`). The loop ends after
    ``steps`` draws, or earlier when it draws an ID in ``stop`` (an end-of-sequence ID;
    the stop ID is kept as the last step).

    >>> from tokenpath.decoder import random_layer
    >>> e = np.round(np.random.default_rng(0).normal(0.0, 0.5, (10, 8)), 1)
    >>> out = generate([3, 7, 3], 2, table=e, layer=random_layer(8, 2, 24, seed=0), seed=0)
    >>> [s.prefix.size for s in out], out[1].prefix[:3].tolist()
    ([3, 4], [3, 7, 3])
    >>> same = generate([3, 7, 3], 2, seed=0, logits_fn=lambda ids: logits(lookup(e, ids), tied_head(e)))
    >>> [s.prefix.size for s in same], same[0].x is None
    ([3, 4], True)
    """
    steps = as_int("steps", steps, low=1)
    if isinstance(stop, (str, bytes)) or not hasattr(stop, "__iter__"):
        raise TypeError(f"stop must be a collection of IDs, got {type(stop).__name__}")
    stop = {as_int("stop ID", i, low=0) for i in stop}
    if logits_fn is not None and next_logits is not None:
        raise ValueError("give logits_fn or next_logits, not both")
    if next_logits is not None:
        if not callable(next_logits):
            raise TypeError(f"next_logits must be callable as next_logits(ids) -> [V], got "
                            f"{type(next_logits).__name__}")
        if table is not None or layer is not None or w_out is not None:
            raise ValueError("give either next_logits or table/layer/w_out: next_logits runs the whole model")
        ids = as_int_array("prompt", prompt, ndim=1, low=0)

        def run(ids):
            z = as_float_array("next_logits(ids)", next_logits(ids), ndim=1)
            check_ids(ids, z.shape[0])
            return None, None, z
    elif logits_fn is not None:
        if not callable(logits_fn):
            raise TypeError(f"logits_fn must be callable as logits_fn(ids) -> [T, V], got {type(logits_fn).__name__}")
        if table is not None or layer is not None or w_out is not None:
            raise ValueError("give either logits_fn or table/layer/w_out: logits_fn runs the whole model")
        ids = as_int_array("prompt", prompt, ndim=1, low=0)

        def run(ids):
            z = as_float_array("logits_fn(ids)", logits_fn(ids), ndim=2)
            if z.shape[0] != ids.size:
                raise ValueError(f"logits_fn(ids) must return [T, V] with T = {ids.size}, got {list(z.shape)}")
            check_ids(ids, z.shape[1])
            return None, None, z[-1]
    else:
        if table is None or layer is None:
            raise ValueError("give table and layer (the one-layer model), or logits_fn (any other model)")
        e = check_table(table)
        if not isinstance(layer, LayerWeights):
            raise TypeError(f"layer must be a LayerWeights, got {type(layer).__name__}")
        w = tied_head(e) if w_out is None else as_float_array("w_out", w_out, ndim=2)
        ids = check_ids(prompt, e.shape[0], name="prompt")

        def run(ids):
            x = lookup(e, ids)  # [T, d]: rows of E, never hidden vectors
            h = decoder_layer(x[None], layer).out[0]  # [T, d]
            final = norms.rms_norm(h[-1], eps=layer.eps)  # final norm (weight 1 here)
            return x, final, logits(final, w)  # z [V]
    if ids.ndim != 1 or ids.size < 1:
        raise ValueError(f"prompt must be a non-empty [T] ID sequence, got shape {list(ids.shape)}")
    rng = np.random.default_rng(as_int("seed", seed, low=0))
    out = []
    for _ in range(steps):
        x, final, z = run(ids)
        p = next_token_probs(z, temperature=temperature, top_k=top_k, top_p=top_p)
        nxt = int(draw_ids(p, [rng.random()])[0])
        out.append(GenerationStep(ids, x, final, z, p, nxt))
        if nxt in stop:
            break
        ids = np.append(ids, nxt)
    return out


# -------------------------------------------------------------------------- training


@dataclass(frozen=True)
class CrossEntropyTrace:
    """Next-token cross-entropy, averaged over the targets the loss mask counts."""

    logits: np.ndarray  # [..., T, V]
    targets: np.ndarray  # [..., T] y, the shifted inputs
    mask: np.ndarray  # [..., T] 1 where the target counts
    probs: np.ndarray  # [..., T, V] softmax over the vocabulary axis
    nll: np.ndarray  # [..., T] −log p(target) per position (0 where masked)
    loss: float  # Σ mask·nll / Σ mask
    d_logits: np.ndarray  # [..., T, V] ∂loss/∂logits = mask·(probs − one_hot(y)) / Σ mask


def cross_entropy(z, targets, mask=None) -> CrossEntropyTrace:
    """Mean cross-entropy of ``targets`` under ``softmax(z)``, and its gradient with
    respect to the logits.

    >>> tr = cross_entropy([[np.log(3), 0.0]], [0])
    >>> round(tr.loss, 6), tr.d_logits.round(6).tolist()
    (0.287682, [[-0.25, 0.25]])
    >>> float(cross_entropy([[1000.0, 0.0, -800.0]], [2]).loss)   # p[2] underflows to 0; the loss does not
    1800.0
    """
    z = as_float_array("z (the logits)", z, min_ndim=2)
    y = check_ids(targets, z.shape[-1], name="targets")
    if y.shape != z.shape[:-1]:
        raise ValueError(f"targets must have shape {list(z.shape[:-1])} (one per position of logits), got {list(y.shape)}")
    m = loss_mask(y) if mask is None else as_int_array("mask", mask)
    if m.shape != y.shape or np.any((m != 0) & (m != 1)):
        raise ValueError(f"mask must be 0/1 with the targets' shape {list(y.shape)}, got shape {list(m.shape)}")
    count = int(m.sum())
    if count == 0:
        raise ValueError("mask counts no target: the mean loss would be 0/0")
    p = softmax(z, axis=-1)
    # −log p[y] = log Σ exp(z − max) − (z[y] − max): no exp of a large number, and no log of
    # a probability that underflowed to 0 (z = [1000, 0, −800], y = 2 gives 1800, not inf)
    s = z - np.max(z, axis=-1, keepdims=True)
    with np.errstate(divide="ignore"):
        lse = np.log(np.exp(s).sum(axis=-1))
    nll = np.where(m == 1, lse - np.take_along_axis(s, y[..., None], axis=-1)[..., 0], 0.0)
    d = (p - one_hot(y, z.shape[-1])) * (m[..., None] / count)
    return CrossEntropyTrace(z, y, m, p, nll, float(nll.sum() / count), d)
