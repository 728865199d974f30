"""Fresh variants of the chapters' numeric "Check yourself" questions: ``quiz[id].variant(seed)``
gives the question on other numbers, computes the answer with the engine, and renders the
prompt from the new numbers; the question keeps its kind, its hint and its tolerance,
so the reader can practise the same step again on other numbers.

:data:`FAMILIES` holds, for each question id, every parameter set its variants take (the
numbers listed, or, where they are too many to list, :data:`_DRAWN` sets drawn once
with a generator seeded by the question's id), the question's own parameters (left
out) and the factory that makes a question of one set. The sets are shuffled once
(seeded by the id, ``zlib.crc32``, the same in every run), and seed ``s`` takes set
``s`` of that order: ``variant(seed)`` is deterministic, never the question itself, and
seeds 0 … :data:`DISTINCT` − 1 give that many different variants of every question.
:func:`tokenpath.questions.for_chapter` gives each question its factory.

>>> from tokenpath import questions
>>> q = questions.for_chapter("07_gqa")["gqa-head6"].variant(3)
>>> q.id, q.prompt == questions.for_chapter("07_gqa")["gqa-head6"].variant(3).prompt
('gqa-head6@3', True)
>>> q.check(q.answer_text()).status
'right'
"""

from __future__ import annotations

import functools
import itertools
import math
import zlib
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .. import attention, examples, fmt, gqa, moe, norms, position
from .._checks import as_int
from ..examples import attention as ex_att
from ..examples import bpe as ex_bpe
from ..examples import position as ex_pos
from ..i18n import _
from ..lessons import attention as lesson_att
from ..lessons import bpe as lesson_bpe
from ..lessons import embedding as lesson_emb
from ..lessons import position as lesson_pos
from ..lessons import utf8 as lesson_utf8
from ..selfcheck import Question, exact, number, sequence, set_of, vector

__all__ = ["DISTINCT", "FAMILIES", "VARIANTS", "parameters", "variant"]

#: Seeds 0 … DISTINCT − 1 give DISTINCT different variants of every question, none of them
#: the question's own numbers (tests/test_exercises_variants.py holds this for each).
DISTINCT = 60
#: How many parameter sets are drawn for a question whose numbers are too many to list.
_DRAWN = 4 * DISTINCT
#: Draws that may be refused (a word table with fewer than three merges) are retried at most this often.
_TRIES = 50


@dataclass(frozen=True)
class _Family:
    """The variants of one question: every parameter set (listed, or drawn once with a
    generator seeded by the question's id), the question's own left out, and how one
    parameter set becomes a question."""

    space: Callable[[np.random.Generator], list]  # the parameter sets, each a hashable tuple
    original: tuple  # the question's own parameters, never given as a variant
    make: Callable[[Question, tuple], Question]
    #: the answer of a parameter set, where two sets can share one: a set whose answer is the
    #: original's is left out too (a variant that asks for the same number teaches nothing new)
    answer: Callable[[tuple], object] | None = None


def _drawn(draw: Callable[[np.random.Generator], tuple | None], n: int = _DRAWN):
    """A space of ``n`` distinct parameter sets drawn with ``draw`` (None is a refused draw)."""
    def space(rng):
        out: dict = {}
        for _ in range(n * _TRIES):
            p = draw(rng)
            if p is not None:
                out.setdefault(p, None)
                if len(out) == n:
                    break
        return list(out)
    return space


def _made(q: Question, prompt: str, answer, *, source: str, why: str) -> Question:
    """A question of ``q``'s kind, hint and tolerance with a new prompt and answer."""
    vid, hint = q.id, q.hint
    if q.kind == "exact":
        return exact(vid, prompt, answer, source=source, why=why, hint=hint)
    if q.kind == "number":
        return number(vid, prompt, answer, tolerance=q.tolerance, source=source, why=why, hint=hint)
    if q.kind == "vector":
        return vector(vid, prompt, answer, tolerance=q.tolerance, source=source, why=why, hint=hint,
                      relative=q.relative)
    if q.kind == "set":
        return set_of(vid, prompt, answer, source=source, why=why, hint=hint)
    return sequence(vid, prompt, answer, source=source, why=why, hint=hint)


# ------------------------------------------------------------------- chapter 1

def _bpe_table(rng):
    words = ["".join(rng.choice(list("lowernst"), size=int(rng.integers(3, 7)))) for _ in range(3)]
    table = {w: int(rng.integers(1, 8)) for w in words}
    if len(table) != 3 or len(lesson_bpe.teach_merges(table, 3).steps) != 3:
        return None
    return tuple(table.items())


def _bpe_third_count(q, p):
    table = dict(p)
    third = lesson_bpe.teach_merges(table, 3).steps[2]
    return _made(q, _("In the word table {table}, after two merges, how often is '{pair}' counted?").format(
                     table=table, pair=" ".join(third.chosen)), third.count,
                 source=f"lessons.bpe.teach_merges({table}, 3).steps[2].count",
                 why=_("It is the most frequent pair at step 3, counted {count} times (each word's occurrences "
                       "of it times the word's count).").format(count=third.count))


# ------------------------------------------------------------------- chapter 2

_CHARS = ("a", "z", "é", "ß", "ñ", "Ω", "€", "猫", "语", "한", "🙂", "𝄞")


def _utf8_bytes(q, p):
    a, b = p
    n = [lesson_utf8.utf8_trace(a).n_bytes, lesson_utf8.utf8_trace(b).n_bytes]
    return _made(q, _("How many UTF-8 bytes do {a} and {b} have? Write [bytes of {a}, bytes of {b}].").format(a=a, b=b), n,
                 source=f"lessons.utf8.utf8_trace({a!r}).n_bytes, lessons.utf8.utf8_trace({b!r}).n_bytes",
                 why=_("{a} is {a_hex} and {b} is {b_hex}.").format(a=a, a_hex=lesson_utf8.utf8_trace(a).hex(), b=b,
                                                                   b_hex=lesson_utf8.utf8_trace(b).hex()))


def _utf8_growth(q, p):
    kilo = ex_bpe.KILO
    old_k, factor, width = p
    old = kilo * old_k
    new = old * factor
    g = lesson_utf8.vocab_growth(old, new, width)
    return _made(q, _("How many parameters does growing the vocabulary from {old} to {new} entries add to one "
                      "matrix of width {width}?").format(old=f"{old:,}", new=f"{new:,}", width=width), g.added_per_matrix,
                 source=f"lessons.utf8.vocab_growth({old}, {new}, {width}).added_per_matrix",
                 why=_("{rows} new rows of width {width}: {rows} × {width} = {added}.").format(
                     rows=g.added_rows, width=width, added=f"{g.added_per_matrix:,}"))


# ------------------------------------------------------------------- chapter 3

def _ids_and_cell(rng):
    s = rng.choice([2, 3, 5, 7], size=(examples.B, examples.T))  # few IDs, so rows repeat
    b, t = int(rng.integers(0, examples.B)), int(rng.integers(0, examples.T))
    return tuple(tuple(int(v) for v in row) for row in s), b, t


def _emb_row(q, p):
    s, b, t = p
    tr = lesson_emb.lookup_trace((b, t, 0), ids=np.array(s))
    shown = [list(row) for row in s]
    return _made(q, _("Figure 3's table E read by the IDs s = {ids}: which row of E does X[{b},{t},:] copy?").format(
                     ids=shown, b=b, t=t),
                 tr.row_id, source=f"lessons.embedding.lookup_trace(({b}, {t}, 0), ids={shown}).row_id",
                 why=_("X[{b},{t},:] is the row of E named by the ID at s[{b},{t}], which is {row}.").format(
                     b=b, t=t, row=tr.row_id))


def _emb_same_row(q, p):
    s, b, t = p
    tr = lesson_emb.lookup_trace((b, t, 0), ids=np.array(s))
    shown = [list(row) for row in s]
    return _made(q, _("With the IDs s = {ids}: how many positions (b, t), X[{b},{t}] included, start from the "
                      "row X[{b},{t}] copies?").format(ids=shown, b=b, t=t), len(tr.same_id),
                 source=f"len(lessons.embedding.lookup_trace(({b}, {t}, 0), ids={shown}).same_id)",
                 why=_("Every position holding ID {row} copies the same row: (b, t) = {positions}.").format(
                     row=tr.row_id, positions=", ".join(f"({i}, {j})" for i, j in tr.same_id.tolist())))


# ------------------------------------------------------------------- chapters 4 and 5

def _att_weight(q, p):
    a, b, i, j = p
    key = np.array([[math.log(a), 0.0], [0.0, math.log(b)], [0.0, 0.0]])
    t = attention.causal_attention(ex_att.FIG8_Q, key, ex_att.FIG8_U)
    e = np.rint(np.exp(t.scores[i, :i + 1])).astype(int)  # whole numbers by construction
    return _made(q, _("Figure 8 with the keys K = [[ln {a}, 0], [0, ln {b}], [0, 0]] (Q and U as in the figure): "
                      "what is the weight A[{i},{j}], with which query position {i} reads source position {j}?").format(
                     a=a, b=b, i=i, j=j),
                 float(t.weights[i, j]), source=f"attention.causal_attention(FIG8_Q, K, FIG8_U).weights[{i}, {j}]",
                 why=_("exp of row {i}'s visible scores is {exps}, so A[{i},{j}] = {num}/{den}.").format(
                     i=i, j=j, exps=e.tolist(), num=e[j], den=e.sum()))


def _arrive(n: int) -> str:
    return _("1 new query arrives") if n == 1 else _("{n} new queries arrive").format(n=n)


def _att_cache_row(q, p):
    past, n = p
    t = lesson_att.cache_masks(past, n)
    return _made(q, _("{past} positions are cached and {arrive}: at which absolute position does the "
                      "first new query row (local row 0) sit?").format(past=past, arrive=_arrive(n)), t.past,
                 source=f"lessons.attention.cache_masks({past}, {n}).past",
                 why=_("Local row r sits at position P + r; for r = 0 that is P = {past}.").format(past=past))


def _att_cache_dropped(q, p):
    past, n = p
    d = np.flatnonzero(lesson_att.cache_masks(past, n).dropped[0])
    lost = d[d < past]
    return _made(q, _("{past} positions are cached and {arrive}. Which cached keys would the first new "
                      "query row wrongly lose if its local row number 0 were compared with the absolute key "
                      "index?").format(past=past, arrive=_arrive(n)),
                 lost.tolist(), source=f"(d := np.flatnonzero(lessons.attention.cache_masks({past}, {n}).dropped[0]))[d < {past}]",
                 why=(_("Compared with 0, only key 0 stays visible; key 1 of the cache is lost.") if past == 2 else
                      _("Compared with 0, only key 0 stays visible; keys 1 … {last} of the cache are lost.").format(
                          last=past - 1)))


# ------------------------------------------------------------------- chapter 6

def _rope_score(q, p):
    m, dist = p
    disc = lesson_pos.rope_disc(ex_pos.FIG15_Q, ex_pos.FIG15_K, math.pi / m, dist)
    return _made(q, _("Figure 15 with ω = π/{m}: what does the score become at distance {dist}?").format(m=m, dist=dist),
                 float(disc.dot), source=f"lessons.position.rope_disc(FIG15_Q, FIG15_K, π/{m}, {dist}).dot",
                 why=_("The key turns by {dist}·π/{m} relative to the query; the score is cos of that angle, "
                       "{score}.").format(dist=dist, m=m, score=f"{round(float(disc.dot), 4) + 0.0:.4f}"))


def _rope_angles(q, p):
    (pos,) = p
    base = ex_pos.ROPE_EXAMPLE_BASE
    ang = position.rope_angles([pos], 4, base)[0]
    return _made(q, _("Which RoPE angles does position {pos} get with d_h = 4 and base {base}? (one angle per pair, "
                      "in radians, not reduced modulo 2π)").format(pos=pos, base=f"{base:g}"),
                 ang, source=f"position.rope_angles([{pos}], 4, {base:g})[0]",
                 why=_("p·θ_i with θ = [1, 1/100]: [{pos}, {angle}].").format(pos=pos, angle=f"{pos / 100:g}"))


def _rope_speed(q, p):
    (m,) = p
    f = position.rope_frequencies(4, float(m * m))
    ratio = float(f[0] / f[1])
    return _made(q, _("A four-wide head with base {base}: how many times faster does pair 0 turn than pair 1?").format(
                     base=m * m),
                 round(ratio), source=f"position.rope_frequencies(4, {m * m})",
                 why=_("θ_0 = 1 and θ_1 = {base}^(−1/2) = 1/{m}, so pair 0 turns {m} times faster.").format(
                     base=m * m, m=m))


# ------------------------------------------------------------------- chapter 7

def _gqa_head(q, p):
    hq, hkv, h = p
    g = int(gqa.kv_groups(hq, hkv)[h])
    return _made(q, _("With Hq = {hq} and Hkv = {hkv}, which K/V head does query head {h} read?").format(
                     hq=hq, hkv=hkv, h=h), g,
                 source=f"gqa.kv_groups({hq}, {hkv})[{h}]",
                 why=_("Groups of Hq/Hkv = {size} query heads share a K/V head: {h} // {size} = {g}. "
                       "Not {h} % {hkv} = {other}: that map would interleave the groups.").format(
                     size=hq // hkv, h=h, g=g, hkv=hkv, other=h % hkv))


def _gqa_leftover(q, p):
    hq, hkv = p
    try:
        gqa.kv_groups(hq, hkv)
        prompt = _("Hq = {hq} with Hkv = {bad} is accepted. If each of the {bad} K/V heads served the same whole "
                   "number of query heads, as many as possible, how many of the {hq} query heads would have no K/V "
                   "head?")  # pragma: no cover (the engine refuses a count that does not divide)
    except ValueError:
        prompt = _("Hq = {hq} with Hkv = {bad} is refused. If each of the {bad} K/V heads served the same whole "
                   "number of query heads, as many as possible, how many of the {hq} query heads would have no K/V "
                   "head?")
    return _made(q, prompt.format(hq=hq, bad=hkv), hq % hkv,
                 source=f"{hq} % {hkv}; gqa.kv_groups({hq}, {hkv}) raises ValueError",
                 why=_("{hkv} groups of {size} cover {covered} heads; {left} would have no K/V head.").format(
                     hkv=hkv, size=hq // hkv, covered=hkv * (hq // hkv), left=hq % hkv))


# ------------------------------------------------------------------- chapter 8

def _norm_rms(q, p):
    x, g = np.array(p[:2], dtype=float), np.array(p[2:], dtype=float)
    y = norms.rms_norm(x, g)
    return _made(q, _("What does RMSNorm give for x = {x} with γ = {g} (ε ignored)?").format(x=fmt.vec(x), g=fmt.vec(g)),
                 y, source=f"norms.rms_norm({fmt.vec(x)}, {fmt.vec(g)})",
                 why=_("RMS = √(mean(x²)) = {rms}; x / RMS, then γ feature by feature.").format(
                     rms=f"{float(np.sqrt(np.mean(x * x))):.4f}"))


def _norm_layer(q, p):
    x = np.array(p, dtype=float)
    y = norms.layer_norm(x)
    return _made(q, _("What does LayerNorm (γ of ones, β of zeros, ε ignored) give for x = {x}?").format(
                     x=[int(v) for v in x]), y,
                 source=f"norms.layer_norm({[int(v) for v in x]})",
                 why=_("Subtract the mean {mean}, divide by the standard deviation {std}.").format(
                     mean=f"{float(x.mean()):.4f}", std=f"{float(x.std()):.4f}"))


def _norm_silu(q, p):
    a = p[0] / 10
    return _made(q, _("A gate pre-activation of {a} goes through SiLU. What is SiLU({a})?").format(a=a),
                 float(norms.silu(a)), source=f"norms.silu({a})",
                 why=_("SiLU(a) = a·σ(a) = {a}·{sigma}.").format(a=a, sigma=f"{float(norms.sigmoid(a)):.4f}"))


# ------------------------------------------------------------------- chapter 9

def _moe_gate(q, p):
    shown, k, rank = list(p[0]), p[1], p[2]
    r = moe.route(np.array(shown, dtype=float), k)
    e = int(r.chosen[rank])
    return _made(q, _("With the router scores {scores}, k = {k} and gates renormalised inside the chosen set, what "
                      "is the gate of expert {e}?").format(scores=shown, k=k, e=e), float(r.gates[e]),
                 source=f"moe.route({shown}, {k}).gates[{e}]",
                 why=_("The chosen set is {chosen}; the gate is exp(a_{e}) over the sum of exp over that set.").format(
                     chosen=sorted(r.chosen.tolist()), e=e))


def _listed(*ranges):
    return lambda rng: list(itertools.product(*ranges))


_TENS = [v for v in range(-9, 10) if v]  # a first feature that is not 0

#: Each numeric question's variants, by question id.
FAMILIES: dict[str, _Family] = {
    "bpe-third-count": _Family(_drawn(_bpe_table), tuple(ex_bpe.FIG1_TABLE.items()), _bpe_third_count),
    "utf8-bytes": _Family(lambda rng: list(itertools.permutations(_CHARS, 2)), ("猫", "🙂"), _utf8_bytes,
                          answer=lambda p: [lesson_utf8.utf8_trace(c).n_bytes for c in p]),
    "utf8-growth": _Family(_listed((16, 32, 50, 64, 100, 128), (2, 3, 4), (2048, 3072, 4096, 5120)),
                           (32, 4, 4096), _utf8_growth, answer=lambda p: lesson_utf8.vocab_growth(ex_bpe.KILO * p[0], ex_bpe.KILO * p[0] * p[1], p[2]).added_per_matrix),
    "emb-row": _Family(_drawn(_ids_and_cell), (tuple(map(tuple, lesson_emb.batch_ids().tolist())), 1, 3), _emb_row),
    "emb-same-row": _Family(_drawn(_ids_and_cell), (tuple(map(tuple, lesson_emb.batch_ids().tolist())), 1, 3),
                            _emb_same_row),
    "att-A20": _Family(lambda rng: [(a, b, i, j) for a in range(1, 10) for b in range(1, 10) for i in (1, 2)
                                    for j in range(i + 1)], (3, 2, 2, 0), _att_weight),
    "att-cache-row": _Family(_listed(range(1, 21), range(1, 5)), (ex_att.FIG14_PAST, ex_att.FIG14_NEW), _att_cache_row),
    "att-cache-dropped": _Family(_listed(range(2, 21), range(1, 5)), (ex_att.FIG14_PAST, ex_att.FIG14_NEW),
                                 _att_cache_dropped),
    "rope-score": _Family(_listed((2, 3, 4, 5, 6, 8, 12), range(1, 13)), (2, 4), _rope_score),
    "rope-pos8": _Family(_listed(range(1, 101)), (8,), _rope_angles),
    "rope-speed": _Family(_listed(range(2, 200)), (round(math.sqrt(ex_pos.ROPE_EXAMPLE_BASE)),), _rope_speed),
    # only heads where the grouping h // (Hq/Hkv) and the interleaving h % Hkv disagree
    "gqa-head6": _Family(lambda rng: [(hq, hkv, h) for hq in (4, 8, 16, 32) for hkv in (2, 4, 8)
                                      if hq % hkv == 0 and hkv < hq for h in range(hq)
                                      if h // (hq // hkv) != h % hkv], (8, 2, 6), _gqa_head),
    "gqa-leftover": _Family(lambda rng: [(hq, hkv) for hq in range(5, 33) for hkv in range(2, 9)
                                         if hq % hkv and hkv < hq], (8, 3), _gqa_leftover),
    "norm-rms": _Family(lambda rng: [(a, b, g0, g1) for a in _TENS for b in range(-9, 10) for g0 in (0.5, 2.0, 3.0)
                                     for g1 in (0.5, 2.0, -1.0)],
                        (*(int(v) for v in examples.QUIZ_RMS_X), *(float(v) for v in examples.QUIZ_RMS_GAMMA)), _norm_rms),
    "norm-layer": _Family(lambda rng: [(a, b, c) for a in _TENS for b in range(-9, 10) for c in range(-9, 10)
                                       if not a == b == c], (30, 40), _norm_layer),
    "norm-silu": _Family(_listed(range(-40, 41)), (round(10 * examples.QUIZ_SILU_A),), _norm_silu),
    "moe-k3-gate": _Family(lambda rng: [(s, k, r) for s in itertools.product(range(-2, 4), repeat=4)
                                        for k in (2, 3) for r in range(k)], ((2, 1, 0, -1), 3, 0), _moe_gate),
}


@functools.cache
def _space(qid: str) -> tuple:
    """The variants' parameter sets of question ``qid`` in the order seeds take them: the
    question's own left out, shuffled once by a generator seeded with the question's id."""
    fam = FAMILIES[qid]
    rng = np.random.default_rng(zlib.crc32(qid.encode("utf-8")))
    space = [p for p in fam.space(rng) if p != fam.original]
    if fam.answer is not None:
        space = [p for p in space if fam.answer(p) != fam.answer(fam.original)]
    return tuple(space[k] for k in rng.permutation(len(space)))


def parameters(qid: str, seed: int) -> tuple:
    """The numbers that ``variant(seed)`` of question ``qid`` is drawn with.

    >>> parameters("gqa-head6", 3) == parameters("gqa-head6", 3) != parameters("gqa-head6", 4)
    True
    """
    if not isinstance(qid, str) or qid not in FAMILIES:
        raise ValueError(f"qid must be the id of a question with variants ({', '.join(sorted(FAMILIES))}), got {qid!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a whole number ≥ 0, got {seed!r}")
    space = _space(qid)
    return space[int(seed) % len(space)]


#: Each numeric question's factory, by question id: ``factory(question, seed) -> Question``.
VARIANTS: dict[str, Callable] = {
    qid: (lambda q, seed, _f=fam, _id=qid: _f.make(q, parameters(_id, seed))) for qid, fam in FAMILIES.items()
}


def variant(question: Question, seed: int) -> Question:
    """A fresh variant of ``question`` (one of :data:`VARIANTS`) taken with ``seed``: new
    numbers, the engine's answer, its id ``"<id>@<seed>"``. Never the question's own
    numbers; seeds 0 … :data:`DISTINCT` − 1 give different numbers each (larger seeds
    take the same list again, from its start).

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
    fresh = VARIANTS[question.id](question, seed)
    return _with_id(fresh, f"{question.id}@{seed}")


def _with_id(q: Question, new_id: str) -> Question:
    from dataclasses import replace

    return replace(q, id=new_id)
