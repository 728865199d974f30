"""Chapter 12's "Check yourself" questions (``12_real_model``): the tokens the chat
template adds, what a nucleus leaves, what it leaves at a hotter temperature, why the top
induction head matters though its own output hardly writes the copied token, and why
silencing it leaves the first copy's loss almost unchanged. Every answer is computed by
the engine (and the committed measurements) when the questions are built.
"""

from __future__ import annotations

from ..i18n import _
from ..selfcheck import Question, choice, exact

__all__ = ["questions"]


def questions() -> tuple[Question, ...]:
    """The chapter's questions, in the order it asks them."""
    from ..examples import real_model as ex
    from ..lessons import real_model as R
    from ..lessons import real_model_heads as RH

    m = R.real_model()
    answer = R.chat_answer()
    asked = m.encode(ex.REAL_CHAT[0]["content"])
    added = int(answer.prompt_ids.size - asked.size)
    q1 = exact("real-template", _("Section 12.2's chat prompt: encode its question on its own with `m.encode` and "
               "compare with `answer.prompt_ids.size`. How many tokens did the template add around the question?"),
               added, source="answer.prompt_ids.size - m.encode(question).size", hint=_("a whole number of tokens"),
               why=_("The prompt holds {prompt} tokens and the question alone encodes to {asked}: the other {added} "
                     "are the system message the template writes when none is given, the <|im_start|> and "
                     "<|im_end|> markers, the role names and the line breaks.").format(
                   prompt=answer.prompt_ids.size, asked=asked.size, added=added))
    nucleus = R.next_token(2, 1.0, 0, 0.9)
    q2 = exact("real-nucleus", _("Ask `R.next_token` for prompt 2 ({prompt}) at T = 1, with no top-k and top-p 0.9, "
                                 "and read its `kept`. How many IDs can sampling still draw?").format(
                   prompt=repr(ex.REAL_PROMPTS[2])), nucleus.kept,
               source="R.next_token(2, 1.0, 0, 0.9).kept", hint=_("a whole number of IDs"),
               why=_("The nucleus keeps the most likely IDs until their mass reaches 0.9: {kept} of them, "
                     "of {total}.").format(kept=nucleus.kept, total=f"{nucleus.probs.size:,}"))
    hot = R.next_token(2, 2.0, 0, 0.9)
    q3 = exact("real-nucleus-hot", _("What if the temperature were 2? Ask `R.next_token` for the same prompt 2 at "
               "T = 2 with top-p 0.9, and read its `kept`. How many IDs can sampling now draw?"), hot.kept,
               source="R.next_token(2, 2.0, 0, 0.9).kept", hint=_("a whole number of IDs"),
               why=_("Dividing the logits by 2 flattens the distribution (entropy {before} → {after} nats), so the "
                     "nucleus needs {hot} IDs instead of {kept} to hold 0.9 of the mass.").format(
                   before=f"{nucleus.entropy:.2f}", after=f"{hot.entropy:.2f}", hot=f"{hot.kept:,}",
                   kept=nucleus.kept))
    finding = RH.head_finding()
    run = RH.induction_runs()[0]
    direct = RH.direct_logits(m, run, [finding.top])
    writer = direct.writers(1)[0]
    # the key below says the cost comes through later layers: hold its premise, or fail loudly
    if not (direct.above[finding.top] < 0.2 * direct.above[writer] and writer[0] > finding.top[0]):
        raise RuntimeError("the direct reading no longer supports the key of real-direct-why")
    q4 = choice("real-direct-why", _("Silencing layer {layer}, head {head} raises the second copy's loss by {delta} "
                "nats, yet read through the final norm and head, its own output hardly raises the copied token's "
                "logit. What does that leave?").format(layer=finding.top[0], head=finding.top[1],
                                                       delta=f"{finding.top_second_delta:.2f}"),
                {"a": _("its output is read by the layers after it, and the removal costs copying through them"),
                 "b": _("silencing a head cannot change the loss, so the measurement is noise"),
                 "c": _("the head writes the copied token, but the final norm removes it")}, "a",
                source="RH.direct_logits(m, RH.induction_runs()[0], [top]).above",
                why=_("On run 0 its own output raises the next token's logit by {above} above the mean, median rank "
                      "{rank} of {vocab}, while layer {wl}, head {wh} gives {writer}. A removal changes the loss "
                      "through every path (b is wrong). The direct reading already includes the final norm (c is "
                      "wrong). What is left is the path through later layers.").format(
                    above=f"{direct.above[finding.top]:+.2f}", rank=f"{direct.rank[finding.top]:,.0f}",
                    vocab=f"{m.config.vocab_size:,}", wl=writer[0], wh=writer[1],
                    writer=f"{direct.above[writer]:+.2f}"))
    first, second = finding.top_first_delta, finding.top_second_delta
    # the key is (a) because the first copy barely moves next to the second: hold that, or fail loudly
    if not abs(first) < 0.1 * second:
        raise RuntimeError("the first copy's change is no longer small: review real-first-copy's key")
    q5 = choice("real-first-copy", _("Section 12.5: silencing layer {layer}, head {head} raises the second copy's "
                "loss a lot but leaves the first copy's almost unchanged. Why?").format(
                    layer=finding.top[0], head=finding.top[1]),
                {"a": _("in the first copy almost no token has occurred before, so there is almost nothing to copy "
                        "from"),
                 "b": _("the head only runs on the second half of the sequence"),
                 "c": _("the first copy's loss is already as high as it can be")}, "a",
                source="RH.head_finding().top_first_delta, .top_second_delta",
                why=_("The change is {first} nats on the first copy and {second} on the second. Every head runs at "
                      "every position (b is wrong), and a loss has no ceiling (c is wrong). In the first copy the "
                      "head has almost nothing earlier to look back to, so removing it costs almost nothing there."
                      ).format(first=f"{first:+.2f}", second=f"{second:+.2f}"))
    return q1, q2, q3, q4, q5
