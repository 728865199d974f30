"""Chapter 9's exercise: top-k routing with the gates renormalised over the chosen
experts (a softmax over the chosen scores only). The worked example is figure 20's
scores ``[2, 1, 0, −1]`` with ``k = 2``; random cases vary ``E_n`` and ``k`` (``k = 1`` and
``k = E_n`` included) and have tied scores, which go to the lower expert ID; the last has
64 experts with whole-number scores, where an unstable sort or ``np.argpartition`` (whose
order of ties is not guaranteed) shows.
"""

from __future__ import annotations

import numpy as np

from .. import moe
from ..examples import moe as ex
from ..i18n import N_, _
from .checker import Case, Exercise, Field, Mistake

__all__ = ["EXERCISES", "ROUTE_TOP_K"]

_STUB = '''\
def route_top_k(scores, k):
    """Top-k routing of one token.

    scores [E_n] float (the router scores a, column = expert ID), k an int, 1 <= k <= E_n.
    Returns a dict with
      "chosen": the k expert IDs with the highest scores, highest first; equal scores
                go to the lower ID first                            [k] ints
      "gates":  g_i = exp(a_i) / Σ_{j chosen} exp(a_j) for a chosen expert i,
                exactly 0 for the others                            [E_n]
    """
    ...
'''


def _reference(scores, k):
    r = moe.route(scores, k)
    return {"chosen": r.chosen, "gates": r.gates}


#: The case where np.argsort's default sort and a stable sort break ties differently. A
#: mistake in the choice is named whether the reader sorted stably or not, so the mistakes
#: below that sort leave this case out of their comparison.
_MANY_TIES = N_("random case 5 (seed 20): E_n = 64 with many tied scores, k = 8 (a stable sort keeps tied "
                 "experts in ID order; np.argsort's default sort and np.argpartition need not)")


def _cases() -> tuple[Case, ...]:
    cases = [Case(_("the worked example (figure 20: a = [2, 1, 0, −1], k = {k})").format(k=ex.FIG20_K),
                  (ex.FIG20_SCORES, ex.FIG20_K)),
             Case(_("tied scores a = [1, 3, 3, 0], k = 1"), (np.array([1.0, 3.0, 3.0, 0.0]), 1)),
             Case(_("every expert chosen: a = [0.5, -1, 2], k = 3"), (np.array([0.5, -1.0, 2.0]), 3))]
    rng = np.random.default_rng(20)
    for n, (e, k) in enumerate([(6, 2), (8, 3), (5, 1), (4, 2)]):
        a = np.round(rng.normal(size=e), 1)
        a[int(rng.integers(0, e))] = a[int(rng.integers(0, e))]  # often a tie
        cases.append(Case(_("random case {n} (seed 20): E_n = {e}, k = {k}").format(n=n + 1, e=e, k=k), (a, k)))
    a = rng.integers(-3, 4, size=64).astype(float)  # many experts, whole-number scores: many ties
    cases.append(Case(_MANY_TIES, (a, 8)))
    return tuple(cases)


def _order(a, k):
    return np.argsort(-np.asarray(a, dtype=float), kind="stable")[:k]


def _gates_over(a, chosen, among_all):
    a = np.asarray(a, dtype=float)
    e = np.exp(a - a.max())
    g = np.zeros_like(a)
    g[chosen] = e[chosen] / (e.sum() if among_all else e[chosen].sum())
    return g


def _not_renormalised(a, k):
    c = _order(a, k)
    return {"chosen": c, "gates": _gates_over(a, c, among_all=True)}


def _dense(a, k):
    a = np.asarray(a, dtype=float)
    e = np.exp(a - a.max())
    return {"chosen": _order(a, k), "gates": e / e.sum()}


def _bottom(a, k):
    c = np.argsort(np.asarray(a, dtype=float))[:k]  # as readers write it: the default sort
    return {"chosen": c, "gates": _gates_over(a, c, among_all=False)}


def _id_order(a, k):
    c = _order(a, k)
    return {"chosen": np.sort(c), "gates": _gates_over(a, c, among_all=False)}


def _by_rank(a, k):
    c = _order(a, k)
    g = np.zeros(len(a))
    g[:k] = _gates_over(a, c, among_all=False)[c]
    return {"chosen": c, "gates": g}


def _no_exp(a, k):
    a = np.asarray(a, dtype=float)
    c = _order(a, k)
    g = np.zeros_like(a)
    with np.errstate(divide="ignore", invalid="ignore"):
        g[c] = a[c] / a[c].sum()
    return {"chosen": c, "gates": g}


def _higher_id_on_ties(a, k):
    c = np.argsort(np.asarray(a, dtype=float))[::-1][:k]
    return {"chosen": c, "gates": _gates_over(a, c, among_all=False)}


def _lowest_first(a, k):
    c = np.argsort(np.asarray(a, dtype=float))[-k:]  # the right set, but in ascending order
    return {"chosen": c, "gates": _gates_over(a, c, among_all=False)}


def route_top_k(scores, k):
    """The teaching solution: the k highest scores, then a softmax over those k only."""
    a = scores
    chosen = np.argsort(-a, kind="stable")[:k]  # highest first; a stable sort keeps ties in ID order
    e = np.exp(a[chosen] - a[chosen].max())
    gates = np.zeros(len(a))
    gates[chosen] = e / e.sum()  # renormalised over the chosen experts
    return {"chosen": chosen, "gates": gates}


ROUTE_TOP_K = Exercise(
    "route_top_k", 9, N_("top-k routing with renormalised gates"), _STUB, _reference, (moe.route, moe.top_k),
    (Field("chosen", N_("the chosen set S"), ("rank",), "int"), Field("gates", "g_i", ("expert",), sums_to_one=True)),
    _cases,
    (Mistake(N_("top-k without renormalising"), N_("your gates are the chosen experts' probabilities under a softmax "
             "over all E_n scores, so they sum to less than 1; the chapter renormalises over the chosen set: "
             "a softmax of the chosen scores only."), _not_renormalised),
     Mistake(N_("gates left on the unchosen experts"), N_("your gates are the softmax over every expert, so experts "
             "that do not run get a weight; a gate is exactly 0 outside the chosen set."), _dense),
     Mistake(N_("the lowest scores chosen"), N_("you took the first k of an ascending sort; top-k takes the k highest "
             "scores (sort by −a, or reverse)."), _bottom, skip=(_MANY_TIES,)),
     Mistake(N_("the chosen experts listed by ID"), N_("your set is right but sorted by expert ID; list the chosen "
             "experts highest score first, as the engine's trace does."), _id_order),
     Mistake(N_("ties broken towards the higher ID"), N_("reversing an ascending sort puts the higher of two equal "
             "scores first; the chapter gives a tie to the lower expert ID (a stable sort of −a)."),
             _higher_id_on_ties, skip=(_MANY_TIES,)),
     Mistake(N_("the top k listed lowest first"), N_("you took the last k of an ascending sort: the right experts, but the "
             "k-th highest comes first; list the chosen experts highest score first (sort by −a)."), _lowest_first,
             skip=(_MANY_TIES,)),
     Mistake(N_("the gates placed by rank"), N_("you wrote the k gates into positions 0 … k − 1 (the order of the "
             "chosen list); g is indexed by expert ID, so the gate of expert chosen[r] goes to gates[chosen[r]]."),
             _by_rank),
     Mistake(N_("the scores divided by their sum"), N_("you normalised the chosen scores themselves, a_i / Σ a_j, "
             "which breaks on negative scores; the gates are a softmax: exp(a_i) / Σ exp(a_j) over the chosen."),
             _no_exp)),
    teaching=route_top_k,
    figure=lambda case, expected, got: _routing_figure(case, expected, got),
)


def _route_of(scores, k, fields) -> moe.Route:
    a = np.asarray(scores, dtype=float)
    chosen = np.asarray(fields["chosen"]).astype(int)
    gates = np.asarray(fields["gates"], dtype=float)
    mask = np.zeros(a.shape, dtype=bool)
    mask[chosen] = True
    return moe.Route(a, k, "in_set", chosen, mask, moe.route(a, k).probs, gates)


def _routing_figure(case: Case, expected: dict, got: dict):
    """Figure 20's routing table, the book's beside the one drawn from the reader's gates."""
    from ..figures import Drawn, FigureDisplay
    from ..figures.draw import add_heading, new_canvas
    from ..figures.moe import draw_routing_table

    scores, k = case.args
    fig, ax = new_canvas(14.8, 6.3)
    traces = []
    for x0, title, fields in ((1.4, "The book's routing (the engine)", expected), (8.4, "Your routing", got)):  # drawn once
        add_heading(ax, x0 - 1.2, 0.3, title)
        # each chosen expert keeps its own output, whatever order the reader listed it in
        outputs = ex.FIG20_WIDGET_OUTPUTS[np.asarray(fields["chosen"]).astype(int)]
        t = moe.combine(_route_of(scores, k, fields), outputs)
        draw_routing_table(ax, t, at=(x0, 0.8), columns=len(scores))
        traces.append(t)
    alt = _("Figure 20's routing table twice: the engine's gates {book}, yours {yours}.").format(
        book=np.round(expected["gates"], 3).tolist(), yours=np.round(np.asarray(got["gates"], float), 3).tolist())
    return FigureDisplay(Drawn(0, _("Your routing beside the book's"), fig, alt, trace=tuple(traces)),
                         caption=_("Your routing beside the book's (figure 20)"))


EXERCISES = (ROUTE_TOP_K,)
