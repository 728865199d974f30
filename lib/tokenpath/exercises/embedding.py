"""Chapter 3's exercises: the embedding lookup, and the cross-entropy of one position.
The worked examples are the chapter's table ``E [1000, 8]`` read by the ID tensor
``s [2, 4]`` (:func:`tokenpath.lessons.embedding.teaching_embedding`, ``batch_ids``) and
figure 5's logits ``[log 3, 0]``; random cases vary ``V``, ``d``, the IDs and the size
of the logits (up to 1000, where ``exp`` overflows unless the maximum is subtracted).
"""

from __future__ import annotations

import math

import numpy as np

from ..embedding import lookup
from ..examples import embedding as ex
from ..i18n import N_, _
from ..lessons.embedding import batch_ids, teaching_embedding
from ..sampling import cross_entropy
from .checker import Case, Exercise, Field, Mistake

__all__ = ["CROSS_ENTROPY", "EMBED", "EXERCISES"]

# ------------------------------------------------------------------ the lookup

_EMBED_STUB = '''\
def embed(table, ids):
    """The embedding rows of token IDs, X[b, t, :] = E[s[b, t], :].

    table: the embedding matrix E [V, d] float (row v is token v's vector);
    ids: the IDs s, [T] or [B, T] integers in 0 … V − 1.
    Returns X, [T, d] or [B, T, d]: one row of E per ID.
    """
    ...
'''


def _embed_cases() -> tuple[Case, ...]:
    cases = [Case(N_("the worked example (E [1000, 8] read by s [2, 4])"), (np.array(teaching_embedding()), batch_ids()))]
    rng = np.random.default_rng(3)
    for n, (v, d, shape) in enumerate([(5, 3, (4,)), (12, 4, (2, 3)), (3, 6, (5,)), (50, 2, (1, 1))]):
        table = np.round(rng.normal(size=(v, d)), 2)
        ids = rng.integers(0, v, size=shape)
        cases.append(Case(_("random case {n} (seed 3): V = {v}, d = {d}, ids {shape}").format(
            n=n + 1, v=v, d=d, shape=list(shape)), (table, ids)))
    return tuple(cases)


def embed(table, ids):
    """The teaching solution: row s[b, t] of E for every position."""
    E, s = table, ids
    X = E[s]  # indexing with an array of IDs picks one row per ID, in the IDs' shape
    return X


EMBED = Exercise(
    "embed", 3, N_("the embedding lookup"), _EMBED_STUB, lookup, (lookup,),
    (Field("rows", "X = E[s]", ("b", "t", "f")),), _embed_cases,
    (Mistake(N_("IDs counted from 1"), N_("you read row id − 1; IDs count from 0, so ID v is row v of the table."),
             lambda table, ids: np.asarray(table)[np.asarray(ids) - 1]),
     Mistake(N_("the rows added up"), N_("you summed the rows of the sequence into one vector; the lookup keeps one "
             "row per position, shape [..., T, d]."), lambda table, ids: np.asarray(table)[np.asarray(ids)].sum(axis=-2)),
     Mistake(N_("the rows scaled by √d"), N_("you multiplied the rows by √d, as the original Transformer paper does "
             "after the lookup; the chapter's lookup returns the rows as stored."),
             lambda table, ids: np.asarray(table)[np.asarray(ids)] * math.sqrt(np.asarray(table).shape[-1])),
     Mistake(N_("the columns of E read"), N_("you indexed the second axis, E[:, s]; row v of E [V, d] is token v's "
             "vector, so the IDs pick rows: E[s]."), lambda table, ids: np.asarray(table)[:, np.asarray(ids)]),
     Mistake(N_("np.take without axis=0"), N_("np.take(E, s) reads E as one flat list of V·d numbers and picks single "
             "numbers; np.take(E, s, axis=0) (or E[s]) picks whole rows."),
             lambda table, ids: np.take(np.asarray(table), np.asarray(ids)))),
    teaching=embed,
)

# ----------------------------------------------------- cross-entropy at one position

_CE_STUB = '''\
def cross_entropy_one(logits, target):
    """Next-token cross-entropy at one position.

    logits [V] float (z), target an int in 0 … V − 1 (y).  Returns a dict with
      "probs": p = softmax(z) over the vocabulary   [V]
      "loss":  −log p[y]                            a float
    Subtract max(z) before exp, so logits of 1000 do not overflow, and compute
    the loss as log Σ exp(z − max) − (z[y] − max), so a p[y] that underflows to 0
    does not make it inf.
    """
    ...
'''


def _ce_reference(logits, target):
    tr = cross_entropy(np.asarray(logits, dtype=float)[None, :], [target])
    return {"probs": tr.probs[0], "loss": float(tr.nll[0])}


#: The case whose target probability underflows to 0: −log p[y] is inf there, the loss 1800.
_UNDERFLOW = N_("the same logits, y = 2: p[2] = e^−1800 underflows to 0, but the loss is 1800")


def _ce_cases() -> tuple[Case, ...]:
    cases = [Case(N_("the worked example (figure 5: z = [log 3, 0], y = 0)"), (np.array(ex.FIG5_GAP), 0)),
             Case(N_("the same logits shifted by 100, y = 1"), (ex.FIG5_GAP + ex.FIG5_SHIFT, 1)),
             Case(N_("large logits: z = [1000, 999, 990], y = 1"), (np.array([1000.0, 999.0, 990.0]), 1)),
             Case(N_("logits spread over 1800: z = [1000, 0, −800], y = 0"), (np.array([1000.0, 0.0, -800.0]), 0)),
             Case(_UNDERFLOW, (np.array([1000.0, 0.0, -800.0]), 2))]
    rng = np.random.default_rng(5)
    for n, (v, scale) in enumerate([(5, 1.0), (20, 3.0), (2, 0.1), (8, 10.0)]):
        z = rng.normal(size=v) * scale
        cases.append(Case(_("random case {n} (seed 5): V = {v}").format(n=n + 1, v=v), (z, int(rng.integers(0, v)))))
    return tuple(cases)


def _softmax(z):
    e = np.exp(z - np.max(z))
    return e / e.sum()


def _log_p(z, y):
    """log p[y] from the shifted logits, finite even where p[y] underflows to 0."""
    zs = np.asarray(z, float) - np.max(z)
    return float(zs[y] - np.log(np.sum(np.exp(zs))))


def _no_minus(z, y):
    return {"probs": _softmax(np.asarray(z, float)), "loss": _log_p(z, y)}


def _raw_logit(z, y):
    z = np.asarray(z, float)
    return {"probs": _softmax(z), "loss": float(-z[y])}


def _no_max(z, y):
    with np.errstate(all="ignore"):
        e = np.exp(np.asarray(z, float))
        p = e / e.sum()
        return {"probs": p, "loss": float(-np.log(p[y]))}


def _min_shift(z, y):
    z = np.asarray(z, float)
    with np.errstate(all="ignore"):
        e = np.exp(z - np.min(z))
        p = e / e.sum()
        return {"probs": p, "loss": float(-np.log(p[y]))}


def _log_of_p(z, y):
    p = _softmax(np.asarray(z, float))
    with np.errstate(divide="ignore"):
        return {"probs": p, "loss": float(-np.log(p[y]))}


def _log10(z, y):
    return {"probs": _softmax(np.asarray(z, float)), "loss": -_log_p(z, y) / math.log(10)}


def _epsilon(z, y):
    p = _softmax(np.asarray(z, float))
    return {"probs": p, "loss": float(-np.log(p[y] + 1e-12))}


def cross_entropy_one(logits, target):
    """The teaching solution: a softmax with the maximum subtracted, and the loss
    −log p[y] = log Σ exp(z − max) − (z[y] − max), which never takes the log of a p that underflowed."""
    z, y = logits, target
    zs = z - np.max(z)  # the largest exponent is 0: no overflow
    e = np.exp(zs)
    p = e / np.sum(e)
    return {"probs": p, "loss": np.log(np.sum(e)) - zs[y]}


CROSS_ENTROPY = Exercise(
    "cross_entropy_one", 3, N_("cross-entropy for one position"), _CE_STUB, _ce_reference, (cross_entropy,),
    (Field("probs", "p = softmax(z)", ("v",), sums_to_one=True), Field("loss", "−log p[y]", ())),
    _ce_cases,
    (Mistake(N_("the minus sign left out"), N_("your loss is log p[y], which is negative; cross-entropy is −log p[y], "
             "0 when the model is sure of the right token and growing as p[y] shrinks."), _no_minus,
             skip=(_UNDERFLOW,)),
     Mistake(N_("the logit instead of the log-probability"), N_("your loss is −z[y]; the logits must go through the "
             "softmax (log p[y] = z[y] − log Σ exp z) before the log is taken."), _raw_logit),
     Mistake(N_("softmax without subtracting the maximum"), N_("exp(1000) overflows to inf and inf/inf is NaN; "
             "subtract max(z) first, which changes no probability."), _no_max),
     Mistake(N_("−log p[y] after p[y] underflowed"), N_("you took −log of the probability, but with z = [1000, 0, −800] "
             "p[2] = e^−1800 is below the smallest float and is stored as 0, so −log p[2] is inf; compute "
             "log Σ exp(z − max) − (z[y] − max), which is 1800."), _log_of_p),
     Mistake(N_("log base 10"), N_("you took log₁₀; cross-entropy in the chapter uses the natural log (nats)."), _log10,
             skip=(_UNDERFLOW,)),
     Mistake(N_("the minimum subtracted"), N_("you subtracted min(z) before exp, which keeps every exponent ≥ 0, so "
             "logits more than about 709 apart overflow to inf and give NaN; subtract max(z), which keeps every "
             "exponent ≤ 0."), _min_shift),
     Mistake(N_("−log(p[y] + ε)"), N_("your loss is right except where p[y] underflows to 0: there a small ε added to "
             "p[y], or a clip, gives a finite number far below the loss of 1800; compute "
             "log Σ exp(z − max) − (z[y] − max), which needs no ε."), _epsilon, skip=(_UNDERFLOW,))),
    teaching=cross_entropy_one,
)

EXERCISES = (EMBED, CROSS_ENTROPY)
