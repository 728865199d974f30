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
        f"With the scores {fmt.vec(ex.FIG20_SCORES)} of Figure 20, k = {ex.MOE_QUESTION_K} and gates renormalised "
        "inside the chosen set, what is the gate of expert 0?",
        k3.gates[0], tolerance=5e-4,
        source=f"moe.route(FIG20_SCORES, {ex.MOE_QUESTION_K}).gates[0]",
        hint="a number between 0 and 1",
        why=(f"S = {{{', '.join(map(str, sorted(k3.chosen.tolist())))}}}; the denominator runs over S only: "
             f"e^{fmt.num(k3.scores[0])}/({' + '.join(f'e^{fmt.num(k3.scores[i])}' for i in sorted(k3.chosen.tolist()))}) "
             f"= {fmt.num(k3.gates[0], 4)}. With k = {ex.FIG20_K} it was "
             f"{fmt.num(moe.route(ex.FIG20_SCORES, ex.FIG20_K).gates[0], 4)}: adding an expert to S shrinks every gate in it."),
    )

    b21 = lessons_moe.top1_boundary(ex.MOE_QUESTION_DELTA, ex.FIG21_OUTPUTS, ex.FIG21_TARGET)
    p = b21.full.route.probs
    q2 = vector(
        "moe-top1-grad",
        f"What if, in Figure 21 at δ = {fmt.num(ex.MOE_QUESTION_DELTA)} (expert {b21.chosen} runs, top-1), the gate "
        f"kept expert {b21.chosen}'s full-softmax probability instead of the in-set gate's constant "
        f"{fmt.num(b21.gate_in_set)}? What gradient would the task loss send to the two router scores?",
        b21.full.grad, tolerance=5e-4,
        source=(f"lessons.moe.top1_boundary({fmt.num(ex.MOE_QUESTION_DELTA)}, FIG21_OUTPUTS, FIG21_TARGET)"
                ".full.grad"),
        hint="a list of two numbers such as [1, 2]",
        why=(f"Expert {b21.chosen} runs with the gate p{b21.chosen} = {fmt.num(b21.gate_full, 3)}, and "
             f"∂L/∂p{b21.chosen} = F{b21.chosen} · (o − y) = "
             f"{fmt.num(b21.full.expert_outputs[b21.chosen] @ (b21.full.output - b21.full.target), 3)}. Since "
             f"p{b21.chosen} depends on both scores, ∂p{b21.chosen}/∂a = p{b21.chosen}·[{'1 − p0, −p1' if b21.chosen == 0 else '−p0, 1 − p1'}] = p{b21.chosen}·"
             f"{fmt.vec(np.round(np.where(np.arange(2) == b21.chosen, 1.0, 0.0) - p, 3))}, which gives "
             f"{fmt.vec(np.round(b21.full.grad, 3))}. The in-set gate is renormalised over a set of one: it is the "
             f"constant {fmt.num(b21.gate_in_set)}, and a constant passes no gradient "
             f"({fmt.vec(b21.in_set.grad)})."),
    )

    batch = moe_dispatch.route_batch(ex.FIG22_SCORES, ex.FIG22_K)
    per_token = "; ".join(f"token {n} runs {{{', '.join(map(str, sorted(row.tolist())))}}}"
                          for n, row in enumerate(batch.route.chosen))
    used = batch.experts_used
    if not used.size > batch.route.k:  # the question's premise; option (b) is right only then
        raise ValueError(f"figure 22's batch must use more than k = {batch.route.k} experts, got {used.size}")
    store = {"a": "every token secretly runs all four experts; the gates only hide it",
             "b": "another token can choose other experts: not executed is not the same as not stored",
             "c": "the chosen experts' outputs are computed from the unchosen experts' weights",
             "d": "they are spares that stand in when a chosen expert fails"}
    q3 = choice(
        "fig22-store",
        f"Figure 22: every token runs only k = {batch.route.k} experts. Why store all {batch.route.n_experts}?",
        store, "b",
        source=f"moe_dispatch.route_batch(FIG22_SCORES, k={batch.route.k}).experts_used",
        why=(f"{per_token}; together the batch uses {used.size} experts, more than k = {batch.route.k}. "
             "Any expert may be needed by the next token, so all of them must stay stored (or be fetched); "
             "unchosen experts are not run for this token, and their gates are exactly 0."),
    )

    second = ex.FIG22_CANDIDATES[ex.MOE_QUESTION_CANDIDATE]
    crowded = moe_dispatch.route_batch(np.vstack([ex.FIG22_SCORES[0], second]), ex.FIG22_K,
                                       capacity=ex.FIG22_CAPACITY)
    shared = sorted(set(crowded.route.chosen[0].tolist()) & set(crowded.route.chosen[1].tolist()))
    q4 = exact(
        "moe-dropped",
        f"Section 9.4: the second token has the scores {fmt.vec(second)} instead, and every expert accepts "
        f"at most {ex.FIG22_CAPACITY} token. How many (token, expert) assignments are dropped?",
        len(crowded.dropped),
        source=(f"moe_dispatch.route_batch(np.vstack([FIG22_SCORES[0], FIG22_CANDIDATES[{ex.MOE_QUESTION_CANDIDATE}]]), "
                f"{ex.FIG22_K}, capacity={ex.FIG22_CAPACITY}).dropped"),
        hint="a whole number",
        why=(f"Token 0 runs {{{', '.join(map(str, sorted(crowded.route.chosen[0].tolist())))}}} and token 1 runs "
             f"{{{', '.join(map(str, sorted(crowded.route.chosen[1].tolist())))}}}. They share "
             f"{'expert ' + ', '.join(map(str, shared)) if shared else 'no expert'}, whose load is "
             f"{int(crowded.load.max())}. Token 0 comes first and fills it, so only the shared assignments of "
             f"token 1 are turned away: {crowded.dropped}."),
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
