"""Chapter 12's "Check yourself" questions (``12_real_model``): the tokens the chat
template adds, what a nucleus leaves, where the logit lens first finds the answer among
its top ten, the layer of the strongest induction head, and why silencing that head leaves
the first copy's loss almost unchanged. Every answer is computed by
the engine (and the committed measurements) when the questions are built.
"""

from __future__ import annotations

from ..selfcheck import Question, choice, exact

__all__ = ["questions"]


def questions() -> tuple[Question, ...]:
    """The chapter's questions, in the order it asks them."""
    from ..examples import real_model as ex
    from ..lessons import real_model as R
    from ..figures import real_model as fr
    from ..lessons import real_model_heads as RH

    m = R.real_model()
    answer = R.chat_answer()
    asked = m.encode(ex.REAL_CHAT[0]["content"])
    added = int(answer.prompt_ids.size - asked.size)
    q1 = exact("real-template", "Section 12.2's chat prompt: encode its question on its own with `m.encode` and "
               "compare with `answer.prompt_ids.size`. How many tokens did the template add around the question?", added,
               source="answer.prompt_ids.size - m.encode(question).size", hint="a whole number of tokens",
               why=f"The prompt holds {answer.prompt_ids.size} tokens and the question alone encodes to "
                   f"{asked.size}: the other {added} are the system message the template writes when none is given, "
                   "the <|im_start|> and <|im_end|> markers, the role names and the line breaks.")
    nucleus = R.next_token(2, 1.0, 0, 0.9)
    q2 = exact("real-nucleus", f"Ask `R.next_token` for prompt 2 ({ex.REAL_PROMPTS[2]!r}) at T = 1, with no top-k "
               "and top-p 0.9, and read its `kept`. How many IDs can sampling still draw?", nucleus.kept,
               source="R.next_token(2, 1.0, 0, 0.9).kept", hint="a whole number of IDs",
               why=f"The nucleus keeps the most likely IDs until their mass reaches 0.9: {nucleus.kept} of them, "
                   f"of {nucleus.probs.size:,}.")
    lens = R.logit_lens()
    within = lens.first_within(10)
    q3 = exact("real-lens-ten", f"In the logit lens on {lens.text!r} (`lens.rank` holds the rank after "
               f"every number of layers), after how many layers is {lens.target_piece!r} among the 10 top tokens "
               "and stays there?", within,
               source="lens.first_within(10)", hint="a number of layers (0 = the embedding row)",
               why=f"Its rank is {int(lens.rank[within - 1]):,} after {within - 1} layers and "
                   f"{int(lens.rank[within]):,} after {within}.")
    finding = RH.head_finding()
    q4 = exact("real-induction-layer", f"Figure {fr.HEADS}, left: which layer holds the head with the largest "
               "induction score?", finding.top[0],
               source="RH.head_finding().top[0]", hint="a layer index (0 … 29)",
               why=f"Layer {finding.top[0]}, head {finding.top[1]}: a mean weight of {finding.top_score:.2f} on the "
                   "token after the earlier occurrence.")
    first, second = finding.top_first_delta, finding.top_second_delta
    why_first = "a" if abs(first) < 0.1 * second else "b"  # the first copy barely moves next to the second
    q5 = choice("real-first-copy", f"Section 12.5: silencing layer {finding.top[0]}, head {finding.top[1]} raises the "
                "second copy's loss a lot but leaves the first copy's almost unchanged. Why?",
                {"a": "in the first copy no token has an earlier occurrence, so there is nothing to copy from",
                 "b": "the head only runs on the second half of the sequence",
                 "c": "the first copy's loss is already as high as it can be"}, why_first,
                source="RH.head_finding().top_first_delta, .top_second_delta",
                why=f"The change is {first:+.2f} nats on the first copy and {second:+.2f} on the second. Every head "
                    "runs at every position (b is wrong), and a loss has no ceiling (c is wrong). In the first copy "
                    "the head has nothing earlier to look back to, so removing it costs almost nothing there.")
    return q1, q2, q3, q4, q5
