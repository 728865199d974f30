"""Chapter 2's exercise: decoding a list of token IDs by joining the tokens' bytes first,
and why decoding each token on its own fails. The worked example is figure 1's split
character (猫 = E7 8C AB with E7 8C one token and AB another, as
:func:`tokenpath.lessons.utf8.split_char` builds it); random cases are texts of
one- to four-byte characters, some cut in the middle of a character.
"""

from __future__ import annotations

import codecs
import unicodedata

import numpy as np

from ..bpe import Tokenizer
from ..examples import bpe as ex
from ..i18n import N_, _
from .checker import Case, Exercise, Field, Mistake

__all__ = ["DECODE", "EXERCISES"]

_STUB = '''\
def decode(tokenizer, ids):
    """The text of a list of token IDs.

    tokenizer.token_bytes(i) gives the bytes of token i.  Join the bytes of all the
    tokens first, then decode them as UTF-8, writing U+FFFD (the replacement
    character) where the bytes are not valid UTF-8 (errors="replace").
    Returns a str.
    """
    ...
'''

_CHARS = ("a", " ", "é", "猫", "语", "🙂")


def _reference(tokenizer, ids):
    return tokenizer.decode(ids, errors="replace")


def _cases() -> tuple[Case, ...]:
    code = ex.FIG1_CHAR.encode("utf-8")
    split = Tokenizer([(code[:1], code[1:2])])  # token 256 = the first two bytes, as figure 1 splits them
    cases = [Case(_("the worked example (figure 1: {char} as E7 8C + AB)").format(char=ex.FIG1_CHAR),
                  (split, list(split.merge_bytes(code[:ex.FIG1_SPLIT_AT])) + list(split.merge_bytes(code[ex.FIG1_SPLIT_AT:])))),
             Case(_("{char} cut after its first two bytes").format(char=ex.FIG1_CHAR), (split, [256])),
             Case(_("{char} cut after its first two bytes, then a and b: the cut is in the middle of the "
                    "text").format(char=ex.FIG1_CHAR),
                  (split, [256, *b"ab"])),
             Case(_("{text}: an e followed by a combining acute accent (two characters), which decoding keeps "
                    "apart").format(text="cafe\u0301"),
                  (Tokenizer([]), list("cafe\u0301".encode("utf-8")))),
             Case(_("plain ASCII"), (Tokenizer([]), list(b"abc"))),
             Case(_("a text that begins with U+FEFF (the byte-order mark, EF BB BF), which decoding keeps"),
                  (Tokenizer([]), list("\ufeffab".encode("utf-8"))))]
    rng = np.random.default_rng(2)
    byte_level = Tokenizer([])
    for n in range(4):
        text = "".join(rng.choice(_CHARS, size=int(rng.integers(2, 6))))
        data = text.encode("utf-8")
        cut = len(data) if n % 2 == 0 else int(rng.integers(1, len(data)))
        what = _("whole") if cut == len(data) else _("cut after byte {cut}").format(cut=cut)
        cases.append(Case(_("random text {n} (seed 2): {text}, {what}").format(n=n + 1, text=repr(text), what=what),
                          (byte_level, list(data[:cut]))))
    return tuple(cases)


def _per_token(tokenizer, ids):
    return "".join(tokenizer.token_bytes(i).decode("utf-8", errors="replace") for i in ids)


def _per_token_strict(tokenizer, ids):
    return "".join(tokenizer.token_bytes(i).decode("utf-8") for i in ids)


def _ignore(tokenizer, ids):
    return b"".join(tokenizer.token_bytes(i) for i in ids).decode("utf-8", errors="ignore")


def _latin1(tokenizer, ids):
    return b"".join(tokenizer.token_bytes(i) for i in ids).decode("latin-1")


def _strict(tokenizer, ids):
    return b"".join(tokenizer.token_bytes(i) for i in ids).decode("utf-8")


def _no_final(tokenizer, ids):
    step = codecs.getincrementaldecoder("utf-8")(errors="replace")
    return "".join(step.decode(tokenizer.token_bytes(i)) for i in ids)


def _nfc(tokenizer, ids):
    return unicodedata.normalize("NFC", b"".join(tokenizer.token_bytes(i) for i in ids).decode("utf-8", errors="replace"))


def decode(tokenizer, ids):
    """The teaching solution: join every token's bytes, then decode them once."""
    data = b"".join(tokenizer.token_bytes(i) for i in ids)
    return data.decode("utf-8", errors="replace")


def _engine_strict(tokenizer, ids):
    return tokenizer.decode(ids)


def _ids_as_bytes(tokenizer, ids):
    return bytes(ids).decode("utf-8", errors="replace")


def _sig(tokenizer, ids):
    return b"".join(tokenizer.token_bytes(i) for i in ids).decode("utf-8-sig", errors="replace")


DECODE = Exercise(
    "decode", 2, N_("decoding joined bytes"), _STUB, _reference, (Tokenizer.decode,),
    (Field("text", N_("the decoded text"), (), "exact"),), _cases,
    (Mistake(N_("per-token decoding"), N_("you decoded each token's bytes on their own; a character whose bytes are "
             "split over two tokens is then two invalid pieces (two U+FFFD) instead of one character. Join "
             "all the bytes, then decode once."), _per_token),
     Mistake(N_("per-token decoding, strict"), N_("you decoded each token's bytes on their own with the default "
             "errors=\"strict\", which raises as soon as a character's bytes are split over two tokens, as 猫's "
             "are in the worked example. Join all the bytes, then decode once."), _per_token_strict),
     Mistake(N_("invalid bytes dropped"), N_("you decoded with errors=\"ignore\", so a cut character vanishes "
             "without a trace; errors=\"replace\" leaves U+FFFD where it was."), _ignore),
     Mistake(N_("no final flush"), N_("you decoded token by token with an incremental decoder (or held back an unfinished "
             "character's bytes) and never flushed it at the end: decoder.decode(b\"\", final=True) writes the "
             "U+FFFD of a character cut by the end of the list; without it the cut character vanishes."), _no_final),
     Mistake(N_("the text normalised to NFC (or NFKC)"), N_("you normalised the decoded text (unicodedata.normalize(\"NFC\", "
             "…), or \"NFKC\"), "
             "which joins e and a combining accent into é; decoding gives back the characters the bytes spell, "
             "no more and no fewer."), _nfc),
     Mistake(N_("the bytes read as Latin-1"), N_("you decoded with latin-1, which turns each byte into its own "
             "character (E7 8C AB becomes 'ç\\x8c«'); tokens' bytes are UTF-8."), _latin1),
     Mistake(N_("strict decoding"), N_("you decoded with errors=\"strict\", which raises on a character cut by the "
             "end of the list; the exercise asks for errors=\"replace\"."), _strict),
     Mistake(N_("strict decoding with the tokenizer's own decode"), N_("you called tokenizer.decode(ids), which is strict by "
             "default: it raises a ValueError on a character cut by the end of the list. The exercise asks for "
             "errors=\"replace\": join the tokens' bytes and decode them yourself."), _engine_strict),
     Mistake(N_("IDs taken as bytes"), N_("you wrote bytes(ids), which reads each token ID as one byte: it works only "
             "while every ID is below 256 (a single-byte token), and raises \"bytes must be in range(0, 256)\" "
             "for a merged token such as 256. Join tokenizer.token_bytes(i) of every ID instead."), _ids_as_bytes),
     Mistake(N_("the byte-order mark dropped"), N_("you decoded with \"utf-8-sig\", which drops a U+FEFF at the start "
             "of the text; a token's bytes are plain UTF-8, and a U+FEFF the text holds is part of it."), _sig)),
    teaching=decode,
)

EXERCISES = (DECODE,)
