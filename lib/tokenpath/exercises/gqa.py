"""Chapter 7's exercise: grouped-query attention without copying K/V. Query head ``h``
reads K/V head ``h // (Hq/Hkv)``. The worked example is the chapter's random layer
(seed :data:`~tokenpath.examples.gqa.GQA_SEED`: ``Hq = 8`` query heads, ``Hkv = 2``,
``T = 4``, causal); random cases vary the head counts (MQA's ``Hkv = 1`` and MHA's
``Hkv = Hq`` included). The last two cases are decoding steps over a long cache, where
the checker measures what the function allocates (``tracemalloc``): repeating the K/V
heads to line them up with the query heads allocates ``Hq/Hkv`` times their size. One
step has ``Hkv = 1`` (MQA), where broadcasting K/V to ``[Hkv, Hq/Hkv, …]`` and reshaping
to ``Hq`` heads is still a view; the other has ``Hkv = 2``, where that reshape copies
(Hugging Face's ``repeat_kv`` does the same), so every way of repeating K/V is caught.
"""

from __future__ import annotations

import tracemalloc

import numpy as np

from ..attention import cache_mask
from ..examples import gqa as ex
from .. import gqa as _gqa
from ..gqa import grouped_attention
from ..i18n import N_, _
from .checker import Case, Exercise, Field, Mistake

__all__ = ["ALLOWANCE", "EXERCISES", "GQA", "MEMORY_CASES"]

_STUB = '''\
def gqa_attention(query, key, value, mask):
    """Grouped-query attention of one sequence, without copying K/V.

    query [Hq, T_q, d_h], key [Hkv, T_k, d_h], value [Hkv, T_k, d_v] (U), with Hkv
    dividing Hq; mask [T_q, T_k] bool (True where key j is visible to query i), the
    same for every head.  Query head h reads K/V head h // (Hq // Hkv).  Do not build
    repeated copies of key and value (no np.repeat, np.tile or key[groups]): let
    each group's keys broadcast over its query heads.  Compute in float64, as the
    inputs are.
    Returns a dict with
      "scores":  S = QKᵀ/√d_h per query head, before the mask   [Hq, T_q, T_k]
      "weights": A = softmax of S over the keys j               [Hq, T_q, T_k]
      "output":  O = A U of each head's group                   [Hq, T_q, d_v]
    """
    ...
'''

#: The decoding steps whose allocations are measured: Hq, Hkv, cached keys T_k, d_h. MQA's
#: Hkv = 1, and Hkv = 2, where a broadcast of K/V reshaped to Hq heads is a copy.
MEMORY_CASES = ((8, 1, 4096, 64), (16, 2, 2048, 64))
#: How many times the K/V heads' bytes a function may allocate on such a step: scores, weights
#: and one working copy of K and U fit (a right solution needs about a quarter); Hq/Hkv = 8
#: repeated copies of K and U, or of K alone, do not.
ALLOWANCE = 1.5


def _reference(query, key, value, mask):
    t = grouped_attention(np.asarray(query)[None], np.asarray(key)[None], np.asarray(value)[None], mask)
    return {"scores": t.scores[0], "weights": t.weights[0], "output": t.output[0]}


def _cases() -> tuple[Case, ...]:
    rng = np.random.default_rng(ex.GQA_SEED)
    q = rng.standard_normal((ex.GQA_B, ex.FIG16_N_Q_HEADS, ex.GQA_T, ex.GQA_D_HEAD))[0]
    k, u = rng.standard_normal((2, ex.GQA_B, ex.FIG16_N_KV_HEADS, ex.GQA_T, ex.GQA_D_HEAD))[:, 0]
    cases = [Case(_("the worked example (chapter 7: Hq = {hq}, Hkv = {hkv}, T = {t}, causal)").format(
        hq=ex.FIG16_N_Q_HEADS, hkv=ex.FIG16_N_KV_HEADS, t=ex.GQA_T), (q, k, u, cache_mask(0, ex.GQA_T)))]
    rng = np.random.default_rng(16)
    for n, (hq, hkv, tq, tk, d) in enumerate([(4, 1, 3, 3, 2), (6, 3, 2, 5, 3), (2, 2, 3, 3, 1), (8, 4, 1, 6, 2)]):
        q = rng.normal(size=(hq, tq, d))
        k, u = rng.normal(size=(hkv, tk, d)), rng.normal(size=(hkv, tk, 2))
        cases.append(Case(_("random case {n} (seed 16): Hq = {hq}, Hkv = {hkv}, T_q = {tq}, T_k = {tk}").format(
                              n=n + 1, hq=hq, hkv=hkv, tq=tq, tk=tk),
                          (q, k, u, cache_mask(tk - tq, tq))))
    for hq, hkv, tk, d in MEMORY_CASES:
        q = rng.normal(size=(hq, 1, d))
        k, u = rng.normal(size=(hkv, tk, d)), rng.normal(size=(hkv, tk, d))
        cases.append(Case(_("a decoding step over {tk} cached keys (Hq = {hq}, Hkv = {hkv}, d_h = {d}), its memory "
                            "measured").format(tk=tk, hq=hq, hkv=hkv, d=d), (q, k, u, cache_mask(tk - 1, 1)), max_bytes=int(ALLOWANCE * (k.nbytes + u.nbytes)),
                          budget=_("allowed ({allowance} × what K and U hold)").format(allowance=f"{ALLOWANCE:g}")))
    return tuple(cases)


def _softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _attend(q, k, v, m, scale=True, axis=-1, late=False):
    s = q @ np.swapaxes(k, -1, -2) / (np.sqrt(q.shape[-1]) if scale else 1.0)
    x = np.where(m, s, -np.inf)
    if late:
        a = np.where(m, _softmax(s), 0.0)
    elif axis == -1:  # (the wrong axis leaves whole columns hidden: NaN, then 0)
        a = _softmax(x)
    else:
        with np.errstate(invalid="ignore"):
            a = np.nan_to_num(np.exp(x - x.max(axis=axis, keepdims=True)))
            a = np.nan_to_num(a / a.sum(axis=axis, keepdims=True))
    return {"scores": s, "weights": a, "output": a @ v}


def _grouped(q, k, v, m, **kw):
    hq, hkv = q.shape[0], k.shape[0]
    g = hq // hkv
    out = _attend(q.reshape(hkv, g, *q.shape[1:]), k[:, None], v[:, None], m, **kw)
    return {name: a.reshape(hq, *a.shape[2:]) for name, a in out.items()}


def _repeated(q, k, v, m):
    g = q.shape[0] // k.shape[0]
    return _attend(q, np.repeat(k, g, axis=0), np.repeat(v, g, axis=0), m)


def _broadcast_reshaped(q, k, v, m):
    g = q.shape[0] // k.shape[0]
    k_all = np.broadcast_to(k[:, None], (k.shape[0], g, *k.shape[1:])).reshape(q.shape[0], *k.shape[1:])
    v_all = np.broadcast_to(v[:, None], (v.shape[0], g, *v.shape[1:])).reshape(q.shape[0], *v.shape[1:])
    return _attend(q, k_all, v_all, m)


def _tiled(q, k, v, m):
    g = q.shape[0] // k.shape[0]
    return _attend(q, np.tile(k, (g, 1, 1)), np.tile(v, (g, 1, 1)), m)  # [k0, k1, k0, k1, …]: interleaved


def _modulo(q, k, v, m):
    heads = [_attend(q[h], k[h % k.shape[0]], v[h % k.shape[0]], m) for h in range(q.shape[0])]  # views, no copy
    return {name: np.stack([o[name] for o in heads]) for name in heads[0]}


def gqa_attention(query, key, value, mask):
    """The teaching solution: the query heads viewed as [Hkv, Hq/Hkv, T_q, d_h] groups,
    each group's K and U broadcast over its heads (no copy)."""
    Hq, T_q, d_h = query.shape
    Hkv = key.shape[0]
    Q = query.reshape(Hkv, Hq // Hkv, T_q, d_h)  # head h is row h % (Hq/Hkv) of group h // (Hq/Hkv)
    K, U = key[:, None], value[:, None]  # [Hkv, 1, T_k, ·]: one K/V head per group
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_h)
    S_masked = np.where(mask, S, -np.inf)
    E = np.exp(S_masked - S_masked.max(axis=-1, keepdims=True))
    A = E / E.sum(axis=-1, keepdims=True)  # softmax over the keys j
    O = A @ U
    return {"scores": S.reshape(Hq, T_q, -1), "weights": A.reshape(Hq, T_q, -1), "output": O.reshape(Hq, T_q, -1)}


GQA = Exercise(
    "gqa_attention", 7, N_("grouped-query attention without copying K/V"), _STUB, _reference, (grouped_attention, _gqa._grouped, _gqa._attend),
    (Field("scores", "S = QKᵀ/√d_h", ("h", "i", "j")),
     Field("weights", "A = softmax(S)", ("h", "i", "j"), sums_to_one=True),
     Field("output", "O = AU", ("h", "i", "d"))),
    _cases,
    (Mistake(N_("K/V copied to line up with the query heads"), N_("your function allocates repeated K/V heads "
             "(np.repeat, or fancy indexing such as key[groups]); the numbers are right, but the cache still holds "
             "Hkv heads while every step builds a copy Hq/Hkv times its size. View the queries as "
             "[Hkv, Hq/Hkv, T, d_h] and let key[:, None] broadcast."),
             _repeated),
     Mistake(N_("K/V tiled or concatenated: interleaved and copied"), N_("you stacked whole copies of the K/V heads "
             "(np.tile(key, (g, 1, 1)) or np.concatenate([key] * g)). That gives the order [K₀, K₁, K₀, K₁, …], "
             "so query head h reads K/V head h % Hkv instead of h // (Hq/Hkv), and it builds a copy Hq/Hkv times "
             "the cache's size. View the queries as [Hkv, Hq/Hkv, T, d_h] and let key[:, None] broadcast."),
             _tiled),
     Mistake(N_("K/V broadcast to Hq heads, then reshaped"), N_("you broadcast K/V to [Hkv, Hq/Hkv, T, d_h] and "
             "reshaped it to Hq heads (as Hugging Face's repeat_kv does). With one K/V head that reshape is a "
             "view, but with Hkv ≥ 2 numpy must copy, so the repeated K/V is built after all. Reshape the queries "
             "to [Hkv, Hq/Hkv, T, d_h] instead and let key[:, None] broadcast."), _broadcast_reshaped),
     Mistake(N_("query heads grouped by h % Hkv"), N_("you gave query head h the K/V head h % Hkv, which interleaves "
             "the groups; the chapter's grouping is h // (Hq/Hkv): heads 0–3 read K/V head 0."),
             _modulo),
     Mistake(N_("no 1/√d_h"), N_("your scores are QKᵀ without the division by √d_h."),
             lambda q, k, v, m: _grouped(q, k, v, m, scale=False)),
     Mistake(N_("softmax over the query axis"), N_("your softmax normalised over the queries i (axis −2); each row "
             "of A sums over the keys j (the last axis)."), lambda q, k, v, m: _grouped(q, k, v, m, axis=-2)),
     Mistake(N_("the mask applied after the softmax"), N_("you zeroed the hidden weights after the softmax, so each "
             "row of A sums to less than 1; hide the scores first (−inf where the mask is False), then take the "
             "softmax."), lambda q, k, v, m: _grouped(q, k, v, m, late=True))),
    teaching=gqa_attention,
)

EXERCISES = (GQA,)
