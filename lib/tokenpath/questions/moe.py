"""Chapter 9's "Check yourself" questions (``09_moe_routing``): a gate renormalised inside
a set of three, the router's gradient at top-1 with in-set gates, why figure 22 stores
four experts, what a capacity of one drops, and what a higher score of an unchosen expert
changes. Every answer is computed by the engine
when the questions are built.
"""

from __future__ import annotations

import numpy as np

from .. import fmt
from .. import examples as ex
from ..selfcheck import Question, choice, exact, number, vector

__all__ = ["questions"]


def questions() -> tuple[Question, ...]:
    """The chapter's questions, in the order it asks them."""
    from .. import moe, moe_dispatch
    from ..lessons import moe as lessons_moe

    k3 = moe.route(ex.FIG20_SCORES, ex.MOE_QUESTION_K)
    q1 = number(
        "moe-k3-gate",
        f"With the scores {fmt.vec(ex.FIG20_SCORES)} of Figure 20 and k = {ex.MOE_QUESTION_K}, what is the gate "
        "of expert 0?",
        k3.gates[0], tolerance=5e-4,
        source=f"moe.route(FIG20_SCORES, {ex.MOE_QUESTION_K}).gates[0]",
        hint="a number between 0 and 1",
        why=(f"S = {{{', '.join(map(str, sorted(k3.chosen.tolist())))}}}; the denominator runs over S only: "
             f"e^{fmt.num(k3.scores[0])}/({' + '.join(f'e^{fmt.num(k3.scores[i])}' for i in sorted(k3.chosen.tolist()))}) "
             f"= {fmt.num(k3.gates[0], 4)}. With k = {ex.FIG20_K} it was "
             f"{fmt.num(moe.route(ex.FIG20_SCORES, ex.FIG20_K).gates[0], 4)}: adding an expert to S shrinks every gate in it."),
    )

    b21 = lessons_moe.top1_boundary(ex.FIG21_DELTA, ex.FIG21_OUTPUTS, ex.FIG21_TARGET)
    q2 = vector(
        "moe-top1-grad",
        f"Figure 21, top-1 with the gate renormalised inside the chosen set: at δ = {fmt.num(ex.FIG21_DELTA)}, what "
        "gradient does the task loss send to the two router scores?",
        b21.in_set.grad, tolerance=5e-4,
        source=f"lessons.moe.top1_boundary({fmt.num(ex.FIG21_DELTA)}, FIG21_OUTPUTS, FIG21_TARGET).in_set.grad",
        hint="a list of two numbers such as [1, 2]",
        why=(f"The only gate is renormalised over a set of one, so it is the constant {fmt.num(b21.gate_in_set)}: "
             f"a constant passes no gradient. With the full-softmax gate the same loss gives "
             f"{fmt.vec(np.round(b21.full.grad, 3))}."),
    )

    batch = moe_dispatch.route_batch(ex.FIG22_SCORES, ex.FIG22_K)
    per_token = "; ".join(f"token {n} runs {{{', '.join(map(str, sorted(row.tolist())))}}}"
                          for n, row in enumerate(batch.route.chosen))
    used = batch.experts_used
    store = {"a": "every token secretly runs all four experts; the gates only hide it",
             "b": "another token can choose other experts: not executed is not the same as not stored",
             "c": "the gates of the chosen experts are computed from the unchosen experts' weights",
             "d": "they are spares that stand in when a chosen expert fails"}
    q3 = choice(
        "fig22-store",
        f"Figure 22: every token runs only k = {batch.route.k} experts. Why store all {batch.route.n_experts}?",
        store, "b" if used.size > batch.route.k else "a",
        source=f"moe_dispatch.route_batch(FIG22_SCORES, k={batch.route.k}).experts_used",
        why=(f"{per_token}; together the batch uses {used.size} experts, more than k = {batch.route.k}. "
             "Any expert may be needed by the next token, so all of them must stay stored (or be fetched); "
             "unchosen experts are not run for this token, and their gates are exactly 0."),
    )

    crowded = moe_dispatch.route_batch(np.vstack([ex.FIG22_SCORES[0], ex.FIG22_CANDIDATES[0]]), ex.FIG22_K,
                                       capacity=ex.FIG22_CAPACITY)
    q4 = exact(
        "moe-dropped",
        f"Section 9.4: the second token has the scores {fmt.vec(ex.FIG22_CANDIDATES[0])} and every expert accepts "
        f"at most {ex.FIG22_CAPACITY} token. How many (token, expert) assignments are dropped?",
        len(crowded.dropped),
        source=(f"moe_dispatch.route_batch(np.vstack([FIG22_SCORES[0], FIG22_CANDIDATES[0]]), {ex.FIG22_K}, "
                f"capacity={ex.FIG22_CAPACITY}).dropped"),
        hint="a whole number",
        why=(f"Both tokens choose experts {{{', '.join(map(str, sorted(crowded.route.chosen[0].tolist())))}}}, so "
             f"each of them has a load of {int(crowded.load.max())}; token 0 comes first and fills them, and both "
             f"of token 1's assignments are turned away: {crowded.dropped}."),
    )

    raised = np.array(ex.FIG20_SCORES, dtype=float)
    raised[ex.MOE_WHATIF_EXPERT] = ex.MOE_WHATIF_SCORE
    before, after = moe.route(ex.FIG20_SCORES, ex.FIG20_K), moe.route(raised, ex.FIG20_K)
    full_before = moe.route(ex.FIG20_SCORES, ex.FIG20_K, gate="full_softmax")
    full_after = moe.route(raised, ex.FIG20_K, gate="full_softmax")
    same_set = np.array_equal(before.chosen, after.chosen)
    unchanged = same_set and np.allclose(before.gates, after.gates)
    chosen = ", ".join(map(str, sorted(before.chosen.tolist())))
    chosen_words = " and ".join(map(str, sorted(before.chosen.tolist())))
    whatif = {"a": f"both shrink: the denominator now holds a larger e^a{ex.MOE_WHATIF_EXPERT}",
              "b": "they stay the same: the denominator runs over the chosen experts only",
              "c": f"expert {ex.MOE_WHATIF_EXPERT} now gets a small gate of its own",
              "d": "they become the full-softmax probabilities"}
    q5 = choice(
        "moe-unchosen-score",
        f"What if, in Figure 20, expert {ex.MOE_WHATIF_EXPERT}'s score rose from "
        f"{fmt.num(ex.FIG20_SCORES[ex.MOE_WHATIF_EXPERT])} to {fmt.num(ex.MOE_WHATIF_SCORE)}, with k = {ex.FIG20_K} and "
        f"gates renormalised inside the chosen set? What happens to the gates of experts {chosen_words}?",
        whatif, "b" if unchanged else ("c" if not same_set else "a"),
        source=(f"moe.route(scores with a{ex.MOE_WHATIF_EXPERT} = {fmt.num(ex.MOE_WHATIF_SCORE)}, "
                f"{ex.FIG20_K}).gates"),
        why=(f"Expert {ex.MOE_WHATIF_EXPERT} is still outside S = {{{chosen}}}, and the denominator runs over S "
             f"only, so the gates stay {fmt.vec(np.round(after.chosen_gates, 3))} and expert "
             f"{ex.MOE_WHATIF_EXPERT}'s gate stays {fmt.num(after.gates[ex.MOE_WHATIF_EXPERT])}. Full-softmax gates "
             f"would shrink, from {fmt.vec(np.round(full_before.chosen_gates, 3))} to "
             f"{fmt.vec(np.round(full_after.chosen_gates, 3))}: their denominator runs over every expert."),
    )

    return q1, q2, q3, q4, q5
