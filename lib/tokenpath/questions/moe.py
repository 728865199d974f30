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
from ..i18n import _
from ..selfcheck import Question, choice, exact, number, vector

__all__ = ["questions"]


def questions() -> tuple[Question, ...]:
    """The chapter's questions, in the order it asks them."""
    from .. import moe, moe_dispatch
    from ..lessons import moe as lessons_moe

    k3 = moe.route(ex.FIG20_SCORES, ex.MOE_QUESTION_K)
    q1 = number(
        "moe-k3-gate",
        _("With the scores {scores} of Figure 20, k = {k} and gates renormalised inside the chosen set, what is "
          "the gate of expert 0?").format(scores=fmt.vec(ex.FIG20_SCORES), k=ex.MOE_QUESTION_K),
        k3.gates[0], tolerance=5e-4,
        source=f"moe.route(FIG20_SCORES, {ex.MOE_QUESTION_K}).gates[0]",
        hint=_("a number between 0 and 1"),
        why=_("S = {{{chosen}}}; the denominator runs over S only: e^{score}/({terms}) = {gate}. With k = {k} it "
              "was {before}: adding an expert to S shrinks every gate in it.").format(
            chosen=", ".join(map(str, sorted(k3.chosen.tolist()))), score=fmt.num(k3.scores[0]),
            terms=" + ".join(f"e^{fmt.num(k3.scores[i])}" for i in sorted(k3.chosen.tolist())),
            gate=fmt.num(k3.gates[0], 4), k=ex.FIG20_K, before=fmt.num(moe.route(ex.FIG20_SCORES, ex.FIG20_K).gates[0], 4)),
    )

    b21 = lessons_moe.top1_boundary(ex.MOE_QUESTION_DELTA, ex.FIG21_OUTPUTS, ex.FIG21_TARGET)
    p = b21.full.route.probs
    q2 = vector(
        "moe-top1-grad",
        _("What if, in Figure 21 at δ = {delta} (expert {chosen} runs, top-1), the gate kept expert {chosen}'s "
          "full-softmax probability instead of the in-set gate's constant {constant}? What gradient would the "
          "task loss send to the two router scores?").format(
            delta=fmt.num(ex.MOE_QUESTION_DELTA), chosen=b21.chosen, constant=fmt.num(b21.gate_in_set)),
        b21.full.grad, tolerance=5e-4,
        source=(f"lessons.moe.top1_boundary({fmt.num(ex.MOE_QUESTION_DELTA)}, FIG21_OUTPUTS, FIG21_TARGET)"
                ".full.grad"),
        hint=_("a list of two numbers such as [1, 2]"),
        why=_("Expert {c} runs with the gate p{c} = {gate}, and ∂L/∂p{c} = F{c} · (o − y) = {dp}. Since p{c} "
              "depends on both scores, ∂p{c}/∂a = p{c}·[{pattern}] = p{c}·{factor}, which gives {grad}. The in-set "
              "gate is renormalised over a set of one: it is the constant {constant}, and a constant passes no "
              "gradient ({zero}).").format(
            c=b21.chosen, gate=fmt.num(b21.gate_full, 3),
            dp=fmt.num(b21.full.expert_outputs[b21.chosen] @ (b21.full.output - b21.full.target), 3),
            pattern="1 − p0, −p1" if b21.chosen == 0 else "−p0, 1 − p1",
            factor=fmt.vec(np.round(np.where(np.arange(2) == b21.chosen, 1.0, 0.0) - p, 3)),
            grad=fmt.vec(np.round(b21.full.grad, 3)), constant=fmt.num(b21.gate_in_set), zero=fmt.vec(b21.in_set.grad)),
    )

    batch = moe_dispatch.route_batch(ex.FIG22_SCORES, ex.FIG22_K)
    per_token = _("; ").join(_("token {n} runs {{{ids}}}").format(n=n, ids=", ".join(map(str, sorted(row.tolist()))))
                             for n, row in enumerate(batch.route.chosen))
    used = batch.experts_used
    if not used.size > batch.route.k:  # the question's premise; option (b) is right only then
        raise ValueError(f"figure 22's batch must use more than k = {batch.route.k} experts, got {used.size}")
    store = {"a": _("every token secretly runs all four experts; the gates only hide it"),
             "b": _("another token can choose other experts: not executed is not the same as not stored"),
             "c": _("the chosen experts' outputs are computed from the unchosen experts' weights"),
             "d": _("they are spares that stand in when a chosen expert fails")}
    q3 = choice(
        "fig22-store",
        _("Figure 22: every token runs only k = {k} experts. Why store all {n}?").format(
            k=batch.route.k, n=batch.route.n_experts),
        store, "b",
        source=f"moe_dispatch.route_batch(FIG22_SCORES, k={batch.route.k}).experts_used",
        why=_("{per_token}; together the batch uses {used} experts, more than k = {k}. Any expert may be needed by "
              "the next token, so all of them must stay stored (or be fetched); unchosen experts are not run for "
              "this token, and their gates are exactly 0.").format(per_token=per_token, used=used.size, k=batch.route.k),
    )

    second = ex.FIG22_CANDIDATES[ex.MOE_QUESTION_CANDIDATE]
    crowded = moe_dispatch.route_batch(np.vstack([ex.FIG22_SCORES[0], second]), ex.FIG22_K,
                                       capacity=ex.FIG22_CAPACITY)
    shared = sorted(set(crowded.route.chosen[0].tolist()) & set(crowded.route.chosen[1].tolist()))
    q4 = exact(
        "moe-dropped",
        _("Section 9.4: the second token has the scores {scores} instead, and every expert accepts at most "
          "{limit} token. How many (token, expert) assignments are dropped?").format(
            scores=fmt.vec(second), limit=ex.FIG22_CAPACITY),
        len(crowded.dropped),
        source=(f"moe_dispatch.route_batch(np.vstack([FIG22_SCORES[0], FIG22_CANDIDATES[{ex.MOE_QUESTION_CANDIDATE}]]), "
                f"{ex.FIG22_K}, capacity={ex.FIG22_CAPACITY}).dropped"),
        hint=_("a whole number"),
        why=_("Token 0 runs {{{first}}} and token 1 runs {{{second}}}. They share {shared}, whose load is {load}. "
              "Token 0 comes first and fills it, so only the shared assignments of token 1 are turned away: "
              "{dropped}.").format(
            first=", ".join(map(str, sorted(crowded.route.chosen[0].tolist()))),
            second=", ".join(map(str, sorted(crowded.route.chosen[1].tolist()))),
            shared=_("expert {ids}").format(ids=", ".join(map(str, shared))) if shared else _("no expert"),
            load=int(crowded.load.max()), dropped=crowded.dropped),
    )

    raised = np.array(ex.FIG20_SCORES, dtype=float)
    raised[ex.MOE_WHATIF_EXPERT] = ex.MOE_WHATIF_SCORE
    before, after = moe.route(ex.FIG20_SCORES, ex.FIG20_K), moe.route(raised, ex.FIG20_K)
    full_before = moe.route(ex.FIG20_SCORES, ex.FIG20_K, gate="full_softmax")
    full_after = moe.route(raised, ex.FIG20_K, gate="full_softmax")
    same_set = np.array_equal(before.chosen, after.chosen)
    unchanged = same_set and np.allclose(before.gates, after.gates)
    chosen = ", ".join(map(str, sorted(before.chosen.tolist())))
    chosen_words = _(" and ").join(map(str, sorted(before.chosen.tolist())))
    whatif = {"a": _("both shrink: the denominator now holds a larger e^a{i}").format(i=ex.MOE_WHATIF_EXPERT),
              "b": _("they stay the same: the denominator runs over the chosen experts only"),
              "c": _("expert {expert} now gets a small gate of its own").format(expert=ex.MOE_WHATIF_EXPERT),
              "d": _("they become the full-softmax probabilities")}
    q5 = choice(
        "moe-unchosen-score",
        _("What if, in Figure 20, expert {expert}'s score rose from {before} to {after}, with k = {k} and gates "
          "renormalised inside the chosen set? What happens to the gates of experts {chosen}?").format(
            expert=ex.MOE_WHATIF_EXPERT, before=fmt.num(ex.FIG20_SCORES[ex.MOE_WHATIF_EXPERT]),
            after=fmt.num(ex.MOE_WHATIF_SCORE), k=ex.FIG20_K, chosen=chosen_words),
        whatif, "b" if unchanged else ("c" if not same_set else "a"),
        source=(f"moe.route(scores with a{ex.MOE_WHATIF_EXPERT} = {fmt.num(ex.MOE_WHATIF_SCORE)}, "
                f"{ex.FIG20_K}).gates"),
        why=_("Expert {expert} is still outside S = {{{chosen}}}, and the denominator runs over S only, so the gates "
              "stay {gates} and expert {expert}'s gate stays {gate}. Full-softmax gates would shrink, from {before} "
              "to {after}: their denominator runs over every expert.").format(
            expert=ex.MOE_WHATIF_EXPERT, chosen=chosen, gates=fmt.vec(np.round(after.chosen_gates, 3)),
            gate=fmt.num(after.gates[ex.MOE_WHATIF_EXPERT]), before=fmt.vec(np.round(full_before.chosen_gates, 3)),
            after=fmt.vec(np.round(full_after.chosen_gates, 3))),
    )

    return q1, q2, q3, q4, q5
