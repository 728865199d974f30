"""Chapter 2's "Check yourself" questions (``02_utf8_splits``): bytes per character, a role
marker against the word, marker injection, the cost of a larger vocabulary, and the
double BOS, and what a tool that decodes token by token shows. Every answer is computed by the engine when the questions are built.
"""

from __future__ import annotations

from .. import examples as ex
from ..i18n import _
from ..lessons import bpe as lesson1
from ..lessons import utf8 as lesson2
from ..selfcheck import Question, choice, exact, sequence

__all__ = ["questions"]


def questions() -> tuple[Question, ...]:
    """The chapter's questions, in the order it asks them."""
    cat, smile = lesson2.utf8_trace("猫").n_bytes, lesson2.utf8_trace("🙂").n_bytes
    split = lesson2.split_char(ex.FIG1_CHAR, ex.FIG1_SPLIT_AT)
    q1 = sequence("utf8-bytes", _("How many UTF-8 bytes do 猫 and 🙂 have? Write [bytes of 猫, bytes of 🙂]."),
                  [cat, smile], source='lessons.utf8.utf8_trace("猫").n_bytes, lessons.utf8.utf8_trace("🙂").n_bytes',
                  hint=_("a list of two whole numbers"), why=_(
                      "UTF-8 spends one to four bytes per character. A token that ends inside a character "
                      "cannot be decoded alone: {reason}.").format(reason=split.first.reason))
    tok = lesson1.demo_tokenizer()
    word, marker = tok.encode(" assistant"), tok.special_tokens["<|assistant|>"]
    q2 = sequence("utf8-assistant", _('Which ID is " assistant" in the user\'s message, and which is the role marker? '
                  "Write [word ID, marker ID]."), [*word, marker],
                  source='tok.encode(" assistant"), tok.special_tokens["<|assistant|>"]',
                  hint=_("a list of two token IDs"), why=_(
                      "The word is an ordinary token with its leading space; the marker is a special token "
                      "that only the chat template inserts."))
    leaked = set(tok.encode(ex.INJECTION, disallowed_special=())) & set(tok.special_tokens.values())
    inject = {
        "a": _("it becomes the marker's special ID, and the model sees a new turn (as when the rendered string is "
               "encoded whole)"),
        "b": _("it stays ordinary text: several ordinary IDs, never the marker's ID"),
        "c": _("the tokenizer silently drops it"),
        "d": _("the chat template stops with an error"),
    }
    q3 = choice("utf8-injection", _("A message body contains the spelling of a marker, and the chat is encoded body by "
                "body, as render_chat does. What happens to the spelling?"),
                inject, "a" if leaked else "b",
                source="set(tok.encode(INJECTION, disallowed_special=())) & set(tok.special_tokens.values())",
                why=_("Body by body, each body is encoded as ordinary text, so the special IDs it produces form the set "
                      "{leaked}. Encoding the whole rendered string with every special token allowed, as "
                      "Hugging Face's apply_chat_template does, turns the spelling into the marker instead.").format(
                    leaked=leaked or '{}'))
    g = lesson2.vocab_growth(ex.FIG2_VOCAB_OLD, ex.FIG2_VOCAB_NEW, ex.FIG2_WIDTH)
    q4 = exact("utf8-growth", _("How many parameters does growing the vocabulary from {old} to {new} entries "
               "({old_k}K to {new_k}K, counting 1K = {kilo}) add to one matrix of width {width}?").format(
                   old=f"{g.old:,}", new=f"{g.new:,}", old_k=g.old // ex.KILO, new_k=g.new // ex.KILO, kilo=ex.KILO,
                   width=g.width), g.added_per_matrix,
               source="lessons.utf8.vocab_growth(FIG2_VOCAB_OLD, FIG2_VOCAB_NEW, FIG2_WIDTH).added_per_matrix",
               hint=_("a whole number (written 1234 or \"1,234\")"),
               why=_("{rows} new rows, each of width {width}: {rows} × {width} = {added}.").format(
                   rows=g.added_rows, width=g.width, added=f"{g.added_per_matrix:,}"))
    with_bos = tok.with_special_tokens([ex.BOS_TOKEN]).with_template((ex.BOS_TOKEN, "$A"))
    bos = with_bos.special_tokens[ex.BOS_TOKEN]
    rendered = ex.BOS_TOKEN + lesson2.render_chat(tok, ex.CHAT_MESSAGES).text
    ids = with_bos.encode(rendered, allowed_special="all")
    leading = next(k for k, i in enumerate(ids) if i != bos)
    q5 = exact("utf8-double-bos", _("A chat template writes BOS at the start of its string, and the string is then "
               "encoded by a tokenizer whose post-processor adds BOS, with the default add_special_tokens=True. "
               "How many BOS tokens does the sequence start with?"), leading,
               source='with_bos.encode(BOS_TOKEN + chat.text, allowed_special="all")',
               hint=_("a whole number"),
               why=_("The template wrote one BOS ({bos}) and the post-processor put another in front of it. "
                     "Encode a rendered template with add_special_tokens=False, or let the chat template "
                     "tokenize.").format(bos=bos))
    smile_ids = tok.encode("🙂")
    shown = "".join(tok.decode([i], errors="replace") for i in smile_ids)
    q6 = exact("utf8-stream", _("What if a tool shows the demo tokenizer's tokens of 🙂 as they arrive, decoding each "
               'token on its own with errors="replace"? How many characters does it show for the one emoji?'),
               len(shown), source='"".join(tok.decode([i], errors="replace") for i in tok.encode("🙂"))',
               hint=_("a whole number"),
               why=_("The emoji is {n} byte tokens, and no byte of a four-byte character is valid UTF-8 "
                     "on its own, so each token shows as U+FFFD: {shown}. Joining the bytes first gives back "
                     "the one character.").format(n=len(smile_ids), shown=repr(shown)))
    return q1, q2, q3, q4, q5, q6
