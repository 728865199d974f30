"""Graded "check yourself" questions: the reader writes an answer, the engine says
whether it is right and why.

A :class:`Question` holds an id, the prompt, the answer *computed by the engine*, the
call that computed it (``source``), a short explanation (``why``) and a comparison suited
to its kind:

========== ============================================ ===============================
kind       the reader may write                          right when
========== ============================================ ===============================
exact      ``1/3``, ``"1/3"``, ``Fraction(1, 3)``, ``2``   equal to the exact value
number     ``0.731``                                     within ``tolerance``
vector     ``[2.076, 2.462]``                            same length, each within tol.
set        ``{0, 1, 2, 3}``, ``[3, 2, 1, 0]``, ``range``   the same members, any order
sequence   ``[279, 403]``, ``["lo", "wer"]``              the same items in the same order
choice     ``"b"`` (an option's key)                     the key of the right option
========== ============================================ ===============================

``question.check(answer)`` never raises for what a reader types: it returns a
:class:`Result` that renders as HTML and as text in a notebook. Answers are read with
bounded work (:mod:`tokenpath.selfcheck._reading`): a string of at most ``MAX_TEXT``
characters, a decimal exponent of at most ``MAX_EXPONENT``, whole numbers of at most
``MAX_BITS`` bits, collections of at most ``MAX_ITEMS`` items (``range(10**18)`` or an
endless generator is refused, not iterated); anything bigger gets a "can't read"
message at once. ``None`` or ``...``
(what a chapter leaves in the answer variable until the reader answers) gives a
neutral prompt that reveals nothing; an answer of the wrong type gives a message that
says what to write.

>>> from fractions import Fraction
>>> q = exact("demo", "What is 1 + 1/2?", Fraction(3, 2), source="arithmetic", why="1 = 2/2.")
>>> q.check("3/2").status, q.check(1.5).status, q.check(2).status, q.check(None).status
('right', 'right', 'not yet', 'unanswered')
>>> print(q.check([1, 2]).text())   # doctest: +ELLIPSIS
[can't read] demo: What is 1 + 1/2?
  ... a list ...

The package holds three ideas, one module each: reading an answer with bounded work
(:mod:`._reading`), the question and its kinds (:mod:`.question`), and how a graded
answer is shown (:mod:`.result`). The chapters' questions are in
:mod:`tokenpath.questions`.
"""

from __future__ import annotations

from .question import KINDS, Question, choice, exact, number, sequence, set_of, vector
from .result import STATUSES, Result

__all__ = ["KINDS", "Question", "Result", "choice", "exact", "number", "sequence", "set_of", "vector"]
