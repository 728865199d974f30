"""Fresh variants of the chapters' numeric "Check yourself" questions: ``quiz[id].variant(seed)``
redraws the question's numbers, computes the answer with the engine, and renders the
prompt from the new numbers; the question keeps its kind, its hint and its tolerance,
so the reader can practise the same step again on other numbers.

:data:`VARIANTS` maps a question's id to its factory ``factory(question, rng) ->
Question``; :func:`variant` draws with a generator seeded by the seed and the question's
id (``zlib.crc32``, the same in every run), so ``variant(seed)`` is deterministic.
:func:`tokenpath.questions.for_chapter` gives each question its factory.

>>> from tokenpath import questions
>>> q = questions.for_chapter("07_gqa")["gqa-head5"].variant(3)
>>> q.id, q.prompt == questions.for_chapter("07_gqa")["gqa-head5"].variant(3).prompt
('gqa-head5@3', True)
>>> q.check(q.answer_text()).status
'right'
"""

from __future__ import annotations

import math
import zlib
from typing import Callable

import numpy as np

from .. import attention, examples, gqa, moe, norms, position
from .._checks import as_int
from ..examples import attention as ex_att
from ..examples import bpe as ex_bpe
from ..examples import position as ex_pos
from ..lessons import attention as lesson_att
from ..lessons import bpe as lesson_bpe
from ..lessons import embedding as lesson_emb
from ..lessons import position as lesson_pos
from ..lessons import utf8 as lesson_utf8
from ..selfcheck import Question, exact, number, sequence, set_of, vector

__all__ = ["VARIANTS", "variant"]

#: Draws that may be refused (a word table with fewer than three merges) are retried at most this often.
_TRIES = 50


def _made(q: Question, prompt: str, answer, *, source: str, why: str) -> Question:
    """A question of ``q``'s kind, hint and tolerance with a new prompt and answer."""
    vid, hint = q.id, q.hint
    if q.kind == "exact":
        return exact(vid, prompt, answer, source=source, why=why, hint=hint)
    if q.kind == "number":
        return number(vid, prompt, answer, tolerance=q.tolerance, source=source, why=why, hint=hint)
    if q.kind == "vector":
        return vector(vid, prompt, answer, tolerance=q.tolerance, source=source, why=why, hint=hint)
    if q.kind == "set":
        return set_of(vid, prompt, answer, source=source, why=why, hint=hint)
    return sequence(vid, prompt, answer, source=source, why=why, hint=hint)


def _bpe_third_count(q, rng):
    for _ in range(_TRIES):
        words = ["".join(rng.choice(list("lowernst"), size=int(rng.integers(3, 7)))) for _ in range(3)]
        table = {w: int(rng.integers(1, 8)) for w in words}
        run = lesson_bpe.teach_merges(table, 3)
        if len(table) == 3 and len(run.steps) == 3:
            third = run.steps[2]
            return _made(q, f"In the word table {table}, after two merges, how often is "
                            f"'{' '.join(third.chosen)}' counted?", third.count,
                         source=f"lessons.bpe.teach_merges({table}, 3).steps[2].count",
                         why=f"It is the most frequent pair at step 3, counted {third.count} times "
                             "(each word's occurrences of it times the word's count).")
    raise RuntimeError("no word table with three merges was drawn")  # pragma: no cover


def _utf8_bytes(q, rng):
    a, b = (str(c) for c in rng.choice(["a", "é", "ß", "€", "猫", "语", "🙂", "𝄞"], size=2, replace=False))
    n = [lesson_utf8.utf8_trace(a).n_bytes, lesson_utf8.utf8_trace(b).n_bytes]
    return _made(q, f"How many UTF-8 bytes do {a} and {b} have? Write [bytes of {a}, bytes of {b}].", n,
                 source=f"lessons.utf8.utf8_trace({a!r}).n_bytes, lessons.utf8.utf8_trace({b!r}).n_bytes",
                 why=f"{a} is {lesson_utf8.utf8_trace(a).hex()} and {b} is {lesson_utf8.utf8_trace(b).hex()}.")


def _utf8_growth(q, rng):
    kilo = ex_bpe.KILO
    old = kilo * int(rng.choice([16, 32, 50, 64]))
    new = old * int(rng.choice([2, 3, 4]))
    width = int(rng.choice([2048, 3072, 4096, 5120]))
    g = lesson_utf8.vocab_growth(old, new, width)
    return _made(q, f"How many parameters does growing the vocabulary from {old:,} to {new:,} entries add to one "
                    f"matrix of width {width}?", g.added_per_matrix,
                 source=f"lessons.utf8.vocab_growth({old}, {new}, {width}).added_per_matrix",
                 why=f"{g.added_rows} new rows of width {width}: {g.added_rows} × {width} = {g.added_per_matrix:,}.")


def _cell(rng):
    return int(rng.integers(0, examples.B)), int(rng.integers(0, examples.T))


def _emb_row(q, rng):
    b, t = _cell(rng)
    tr = lesson_emb.lookup_trace((b, t, 0))
    return _made(q, f"Figure 3: which row of E does X[{b},{t},:] copy?", tr.row_id,
                 source=f"lessons.embedding.lookup_trace(({b}, {t}, 0)).row_id",
                 why=f"X[{b},{t},:] is the row of E named by the ID at s[{b},{t}], which is {tr.row_id}.")


def _emb_same_row(q, rng):
    b, t = _cell(rng)
    tr = lesson_emb.lookup_trace((b, t, 0))
    return _made(q, f"How many positions (b, t) of the batch, X[{b},{t}] included, start from the row X[{b},{t}] copies?",
                 len(tr.same_id), source=f"len(lessons.embedding.lookup_trace(({b}, {t}, 0)).same_id)",
                 why=f"Every position holding ID {tr.row_id} copies the same row: (b, t) = "
                     + ", ".join(f"({i}, {j})" for i, j in tr.same_id.tolist()) + ".")


def _att_weight(q, rng):
    a, b = int(rng.integers(1, 10)), int(rng.integers(1, 10))
    key = np.array([[math.log(a), 0.0], [0.0, math.log(b)], [0.0, 0.0]])
    i = int(rng.integers(1, 3))
    j = int(rng.integers(0, i + 1))
    t = attention.causal_attention(ex_att.FIG8_Q, key, ex_att.FIG8_U)
    e = np.rint(np.exp(t.scores[i, :i + 1])).astype(int)  # whole numbers by construction
    return _made(q, f"Figure 8 with the keys K = [[log {a}, 0], [0, log {b}], [0, 0]] (Q and U as in the figure): "
                    f"what is the weight A[{i},{j}], with which query position {i} reads source position {j}?",
                 float(t.weights[i, j]), source=f"attention.causal_attention(FIG8_Q, K, FIG8_U).weights[{i}, {j}]",
                 why=f"exp of row {i}'s visible scores is {e.tolist()}, so A[{i},{j}] = {e[j]}/{e.sum()}.")


def _cache(rng, low=1):
    return int(rng.integers(low, 10)), int(rng.integers(1, 5))


def _att_cache_row(q, rng):
    p, n = _cache(rng)
    t = lesson_att.cache_masks(p, n)
    return _made(q, f"{p} positions are cached and {n} new queries arrive: at which absolute position does the first "
                    "new query row (local row 0) sit?", t.past,
                 source=f"lessons.attention.cache_masks({p}, {n}).past",
                 why=f"Local row r sits at position P + r; for r = 0 that is P = {p}.")


def _att_cache_dropped(q, rng):
    p, n = _cache(rng, low=2)
    d = np.flatnonzero(lesson_att.cache_masks(p, n).dropped[0])
    lost = d[d < p]
    return _made(q, f"{p} positions are cached and {n} new queries arrive. Which cached keys would the first new "
                    "query row wrongly lose if its local row number 0 were compared with the absolute key index?",
                 lost.tolist(), source=f"(d := np.flatnonzero(lessons.attention.cache_masks({p}, {n}).dropped[0]))[d < {p}]",
                 why=f"Compared with 0, only key 0 stays visible; "
                     + ("key 1 of the cache is lost." if p == 2 else f"keys 1 … {p - 1} of the cache are lost."))


def _rope_score(q, rng):
    m = int(rng.choice([2, 3, 4, 6]))
    dist = int(rng.integers(1, 9))
    disc = lesson_pos.rope_disc(ex_pos.FIG15_Q, ex_pos.FIG15_K, math.pi / m, dist)
    return _made(q, f"Figure 15 with ω = π/{m}: what does the score become at distance {dist}?", float(disc.dot),
                 source=f"lessons.position.rope_disc(FIG15_Q, FIG15_K, π/{m}, {dist}).dot",
                 why=f"The key turns by {dist}·π/{m} relative to the query; the score is cos of that angle, "
                     f"{round(float(disc.dot), 4) + 0.0:.4f}.")


def _rope_angles(q, rng):
    p = int(rng.integers(5, 41))
    base = ex_pos.ROPE_EXAMPLE_BASE
    ang = position.rope_angles([p], 4, base)[0]
    return _made(q, f"Which RoPE angles does position {p} get with d_h = 4 and base {base:g}? (one angle per pair)",
                 ang, source=f"position.rope_angles([{p}], 4, {base:g})[0]",
                 why=f"p·θ_i with θ = [1, 1/100]: [{p}, {p / 100:g}].")


def _rope_speed(q, rng):
    m = int(rng.integers(2, 200))
    f = position.rope_frequencies(4, float(m * m))
    ratio = float(f[0] / f[1])
    return _made(q, f"A four-wide head with base {m * m}: how many times faster does pair 0 turn than pair 1?",
                 round(ratio), source=f"position.rope_frequencies(4, {m * m})",
                 why=f"θ_0 = 1 and θ_1 = {m * m}^(−1/2) = 1/{m}, so pair 0 turns {m} times faster.")


def _gqa_head(q, rng):
    hq = int(rng.choice([4, 8, 16, 32]))
    hkv = int(rng.choice([d for d in (1, 2, 4, 8) if hq % d == 0 and d < hq]))
    h = int(rng.integers(0, hq))
    g = int(gqa.kv_groups(hq, hkv)[h])
    return _made(q, f"With Hq = {hq} and Hkv = {hkv}, which K/V head does query head {h} read?", g,
                 source=f"gqa.kv_groups({hq}, {hkv})[{h}]",
                 why=f"Groups of Hq/Hkv = {hq // hkv} query heads share a K/V head: {h} // {hq // hkv} = {g}.")


def _gqa_leftover(q, rng):
    for _ in range(_TRIES):
        hq, hkv = int(rng.integers(5, 33)), int(rng.integers(2, 9))
        if hq % hkv and hkv < hq:
            break
    try:
        gqa.kv_groups(hq, hkv)
        refused = "accepted"  # pragma: no cover (the engine refuses a count that does not divide)
    except ValueError:
        refused = "refused"
    return _made(q, f"Hq = {hq} with Hkv = {hkv} is {refused}. How many query heads would be left over?", hq % hkv,
                 source=f"{hq} % {hkv}; gqa.kv_groups({hq}, {hkv}) raises ValueError",
                 why=f"{hkv} groups of {hq // hkv} cover {hkv * (hq // hkv)} heads; {hq % hkv} would have no K/V head.")


def _small_vector(rng, n):
    x = rng.integers(-9, 10, size=n).astype(float)
    x[0] = x[0] or 1.0
    return x


def _norm_rms(q, rng):
    x = _small_vector(rng, 2) * 10
    y = norms.rms_norm(x)
    return _made(q, f"What does RMSNorm (γ of ones, ε ignored) give for x = {[int(v) for v in x]}?", y,
                 source=f"norms.rms_norm({[int(v) for v in x]})",
                 why=f"RMS = √(mean(x²)) = {float(np.sqrt(np.mean(x * x))):.4f}; x / RMS.")


def _norm_layer(q, rng):
    for _ in range(_TRIES):
        x = _small_vector(rng, 3)
        if np.ptp(x) > 0:
            break
    y = norms.layer_norm(x)
    return _made(q, f"What does LayerNorm (γ of ones, β of zeros, ε ignored) give for x = {[int(v) for v in x]}?", y,
                 source=f"norms.layer_norm({[int(v) for v in x]})",
                 why=f"Subtract the mean {float(x.mean()):.4f}, divide by the standard deviation {float(x.std()):.4f}.")


def _norm_silu(q, rng):
    a = round(float(rng.uniform(-3, 3)), 1)
    return _made(q, f"A gate pre-activation of {a} goes through SiLU. What is SiLU({a})?", float(norms.silu(a)),
                 source=f"norms.silu({a})", why=f"SiLU(a) = a·σ(a) = {a}·{float(norms.sigmoid(a)):.4f}.")


def _moe_gate(q, rng):
    scores = rng.integers(-2, 4, size=4).astype(float)
    k = int(rng.integers(1, 4))
    r = moe.route(scores, k)
    e = int(r.chosen[int(rng.integers(0, k))])
    shown = [int(v) for v in scores]
    return _made(q, f"With the router scores {shown} and k = {k}, what is the gate of expert {e}?", float(r.gates[e]),
                 source=f"moe.route({shown}, {k}).gates[{e}]",
                 why=f"The chosen set is {sorted(r.chosen.tolist())}; the gate is exp(a_{e}) over the sum of exp over that set.")


#: Each numeric question's factory, by question id.
VARIANTS: dict[str, Callable] = {
    "bpe-third-count": _bpe_third_count,
    "utf8-bytes": _utf8_bytes,
    "utf8-growth": _utf8_growth,
    "emb-row": _emb_row,
    "emb-same-row": _emb_same_row,
    "att-A20": _att_weight,
    "att-cache-row": _att_cache_row,
    "att-cache-dropped": _att_cache_dropped,
    "rope-score": _rope_score,
    "rope-pos8": _rope_angles,
    "rope-speed": _rope_speed,
    "gqa-head5": _gqa_head,
    "gqa-leftover": _gqa_leftover,
    "norm-rms": _norm_rms,
    "norm-layer": _norm_layer,
    "norm-silu": _norm_silu,
    "moe-k3-gate": _moe_gate,
}


def variant(question: Question, seed: int) -> Question:
    """A fresh variant of ``question`` (one of :data:`VARIANTS`) drawn with ``seed``: new
    numbers, the engine's answer, its id ``"<id>@<seed>"``.

    >>> from tokenpath import questions
    >>> q = variant(questions.for_chapter("08_rmsnorm_swiglu")["norm-silu"], 0)
    >>> q.id, q.kind, q.check(float(q.answer)).status
    ('norm-silu@0', 'number', 'right')
    """
    if not isinstance(question, Question):
        raise TypeError(f"question must be a selfcheck Question, got {type(question).__name__}")
    seed = as_int("seed", seed, low=0, high=2**32 - 1)
    if question.id not in VARIANTS:
        raise ValueError(f"question {question.id!r} has no variants (its answer is not a number the engine can "
                         f"redraw); questions with variants: {sorted(VARIANTS)}")
    rng = np.random.default_rng([zlib.crc32(question.id.encode("utf-8")), seed])
    fresh = VARIANTS[question.id](question, rng)
    return _with_id(fresh, f"{question.id}@{seed}")


def _with_id(q: Question, new_id: str) -> Question:
    from dataclasses import replace

    return replace(q, id=new_id)
