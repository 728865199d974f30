"""A graded question and its kinds: :class:`Question`, and one constructor per kind
(:func:`exact`, :func:`number`, :func:`vector`, :func:`set_of`, :func:`sequence`,
:func:`choice`), each with the comparison that grades a reader's answer against the
engine's value. Answers are read by :mod:`tokenpath.selfcheck._reading` (bounded
work; "can't read" with advice) and graded into a
:class:`~tokenpath.selfcheck.result.Result`.

>>> number("g", "g0?", 0.7310586, tolerance=5e-4, source="demo", why="e²/(e²+e)").check("0.73").status
'not yet'
"""

from __future__ import annotations

import html
import math
import numbers
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Mapping

import numpy as np

from .. import fmt
from ..i18n import N_, _
from .._checks import as_array, as_bool, as_float_array, as_list
from ._reading import (
    MAX_BITS,
    MAX_ITEMS,
    MAX_TEXT,
    Unreadable,
    bounded_items,
    is_unanswered,
    read_fraction,
    read_ints,
    read_item,
    read_real,
    read_reals,
    shown,
    type_name,
)
from .result import Result

__all__ = ["KINDS", "Question", "choice", "exact", "number", "sequence", "set_of", "vector"]

#: The kinds of question, by the kind of answer they compare.
KINDS = ("exact", "number", "vector", "set", "sequence", "choice")


def _tolerance(tolerance) -> float:
    """A tolerance as a float: positive and finite (an infinite one would grade every answer right).

    >>> _tolerance(float("inf"))
    Traceback (most recent call last):
    ...
    ValueError: tolerance must be a positive finite number, got inf
    """
    if isinstance(tolerance, bool) or not isinstance(tolerance, numbers.Real) or not 0 < tolerance < math.inf:
        raise ValueError(f"tolerance must be a positive finite number, got {tolerance!r}")
    return float(tolerance)


def _digits(tolerance: float) -> int:
    """Decimals that show a value to the precision a tolerance asks for."""
    if tolerance <= 0:
        return 6
    return max(0, min(6, math.ceil(-math.log10(tolerance))))


@dataclass(frozen=True)
class Question:
    """One graded question; build it with :func:`exact`, :func:`number`, :func:`vector`,
    :func:`set_of` or :func:`choice`."""

    id: str
    prompt: str
    kind: str
    answer: Any  # the engine's value: Fraction, float, ndarray, frozenset or option key
    source: str  # the engine call the answer comes from
    why: str  # the explanation shown with a graded answer
    hint: str  # how to write an answer, shown when unanswered or unreadable
    tolerance: float = 0.0
    relative: bool = False  # vector: the tolerance is a fraction of each entry's size
    options: tuple[tuple[str, str], ...] = ()  # choice: (key, text) pairs
    _compare: Callable[["Question", Any], tuple[str, str]] = field(default=None, repr=False, compare=False)
    #: draws a fresh variant: ``_variant(question, seed)``; None for a question whose answer cannot be redrawn
    _variant: Callable[["Question", int], "Question"] | None = field(default=None, repr=False, compare=False)

    def variant(self, seed: int) -> "Question":
        """The same question on freshly drawn numbers, its answer computed by the engine
        (deterministic in ``seed``), for practice; a ``ValueError`` for a question that has
        no variants (a choice, or a fact about one figure).

        >>> q = choice("c", "Which axis?", {"a": "positions", "b": "vocabulary"}, "b", source="demo", why="V")
        >>> q.variant(1)
        Traceback (most recent call last):
        ...
        ValueError: question 'c' has no variants: its answer is not a number drawn afresh
        """
        if self._variant is None:
            raise ValueError(f"question {self.id!r} has no variants: its answer is not a number drawn afresh")
        return self._variant(self, seed)

    def answer_text(self) -> str:
        """The engine's value, written the book's way."""
        if self.kind == "exact":
            a = self.answer
            return str(a.numerator) if a.denominator == 1 else f"{a.numerator}/{a.denominator}"
        if self.kind == "number":
            return fmt.num(self.answer, _digits(self.tolerance))
        if self.kind == "vector":
            return fmt.vec(self.answer, _digits(self.tolerance))
        if self.kind == "set":
            return "{" + ", ".join(str(v) for v in sorted(self.answer)) + "}"
        if self.kind == "sequence":
            return "[" + ", ".join(repr(v) if isinstance(v, str) else str(v) for v in self.answer) + "]"
        return f"({self.answer}) {dict(self.options)[self.answer]}"

    def check(self, answer) -> Result:
        """Grade ``answer``; never raises for a reader's input."""
        if is_unanswered(answer):
            return Result(self, "unanswered",
                          _("Not answered yet. Put {hint} into the answer variable, then run the cell again.").format(
                              hint=_(self.hint)), answer)
        try:
            status, message = self._compare(self, answer)
        except Unreadable as why:
            return Result(self, "can't read",
                          _("Could not read your answer: {why}. Write {hint}.").format(why=why, hint=_(self.hint)), answer)
        except Exception as err:  # whatever a reader's object does, answer with a message
            try:
                said = str(err)
            except Exception:
                said = ""
            said = said if len(said) <= 200 else said[:200] + " …"
            return Result(self, "can't read",
                          _("Could not read your answer ({error}: {said}). Write {hint}.").format(
                              error=type(err).__name__, said=said, hint=_(self.hint)), answer)
        return Result(self, status, message, answer)

    def text(self) -> str:
        lines = [f"{self.id}: {self.prompt}"]
        lines += [f"  ({key}) {text}" for key, text in self.options]
        return "\n".join(lines)

    def _repr_mimebundle_(self, include=None, exclude=None):
        items = "".join(f"<li>({html.escape(k)}) {html.escape(t)}</li>" for k, t in self.options)
        body = (f"<p><code>{html.escape(self.id)}</code> · {html.escape(self.prompt)}</p>"
                + (f"<ul style='list-style:none'>{items}</ul>" if items else ""))
        return {"text/html": body, "text/plain": self.text()}


def _check_common(id: str, prompt: str, source: str, why: str) -> None:
    for name, value in (("id", id), ("prompt", prompt), ("source", source), ("why", why)):
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"{name} must be a non-empty string, got {value!r}")


# An answer no reader can give ------------------------------------------------
# The reader's answer is read with bounded work (see ._reading); a question whose own
# answer lies outside those bounds could never be graded right, so the constructors
# refuse it by name, as choice() refuses a key that is none of its options.


def _within_items(n: int) -> None:
    if n > MAX_ITEMS:
        raise ValueError(f"answer has {n} items, more than the {MAX_ITEMS} a reader's answer may have")


def _within_bits(v: int) -> None:
    if abs(int(v)).bit_length() > MAX_BITS:
        raise ValueError(f"answer has a whole number of {abs(int(v)).bit_length()} bits, more than the "
                         f"{MAX_BITS} a reader's answer may have")


# exact ------------------------------------------------------------------------


def _compare_exact(q: Question, answer) -> tuple[str, str]:
    if isinstance(answer, (float, np.floating)):
        v = float(answer)
        if not math.isfinite(v):
            raise Unreadable(_("{value} is not a finite number").format(value=v))
        target = float(q.answer)
        if abs(v - target) <= 1e-12 * max(1.0, abs(target)):
            return "right", _("Your answer {given} equals {answer} (as a float).").format(
                given=repr(v), answer=q.answer_text())
        if abs(v - target) <= 0.01 * max(1.0, abs(target)):
            return "not yet", _("{given} is close to the exact value but not equal to it; "
                                "write the exact number, e.g. as a fraction \"a/b\".").format(given=repr(v))
        return "not yet", _("{given} is not the value asked for.").format(given=repr(v))
    if isinstance(answer, np.integer):
        answer = int(answer)
    value = read_fraction(answer)  # bounded: at most MAX_BITS bits each way
    shown = str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    if value == q.answer:
        return "right", _("Your answer {given} is exactly right.").format(given=shown)
    return "not yet", _("Your answer {given} is not the value asked for.").format(given=shown)


def exact(id: str, prompt: str, answer, *, source: str, why: str,
          hint: str = N_("a whole number or a fraction such as 1/3")) -> Question:
    """A question whose answer is an exact integer or fraction. The engine's value may
    be a float that is a small fraction (it is converted exactly, denominator ≤ 1000).

    >>> exact("a", "A[1,0]?", 1 / 3, source="demo", why="1 of 3").check("1/3").correct
    True
    """
    _check_common(id, prompt, source, why)
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        raise TypeError(f"answer must be a number, got {type(answer).__name__}")
    if isinstance(answer, (numbers.Integral, Fraction)):
        value = Fraction(answer)
    else:
        x = float(answer)
        if not math.isfinite(x):
            raise ValueError(f"answer must be finite, got {x}")
        value = Fraction(x).limit_denominator(1000)
        if abs(float(value) - x) > 1e-12 * max(1.0, abs(x)):
            raise ValueError(f"answer {x!r} is not a fraction with denominator <= 1000; use number()")
    _within_bits(value.numerator)
    _within_bits(value.denominator)
    return Question(id, prompt, "exact", value, source, why, hint, _compare=_compare_exact)


# number -----------------------------------------------------------------------


def _compare_number(q: Question, answer) -> tuple[str, str]:
    v = read_real(answer)
    off = abs(v - q.answer)
    if off <= q.tolerance:
        return "right", _("Your answer {given} is within {tolerance} of the engine's value.").format(
            given=fmt.num(v), tolerance=fmt.num(q.tolerance))
    return "not yet", _("Your answer {given} is off by {off}.").format(given=fmt.num(v),
                                                                     off=fmt.num(off, _digits(q.tolerance)))


def number(id: str, prompt: str, answer, *, tolerance: float, source: str, why: str,
           hint: str = N_("a number")) -> Question:
    """A question whose answer is a real number, right within ``tolerance``.

    >>> number("g", "g0?", 0.7310586, tolerance=5e-4, source="demo", why="e²/(e²+e)").check(0.731).correct
    True
    """
    _check_common(id, prompt, source, why)
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        raise TypeError(f"answer must be a number, got {type(answer).__name__}")
    value = float(answer)
    if not math.isfinite(value):
        raise ValueError(f"answer must be finite, got {value}")
    tolerance = _tolerance(tolerance)
    return Question(id, prompt, "number", value, source, why, hint, tolerance,
                    _compare=_compare_number)


# vector -----------------------------------------------------------------------


def _compare_vector(q: Question, answer) -> tuple[str, str]:
    if isinstance(answer, np.ndarray) and answer.ndim != 1:
        raise Unreadable(_("an array of shape {shape} is not a flat list of numbers").format(shape=answer.shape))
    v = read_reals(answer)
    if v.shape != q.answer.shape:
        return "not yet", _("Your answer has {n} entries; the vector asked for has {wanted}.").format(
            n=v.size, wanted=q.answer.size)
    off = np.abs(v - q.answer)
    allowed = q.tolerance * np.abs(q.answer) if q.relative else q.tolerance
    within = f"{fmt.num(100 * q.tolerance)} %" if q.relative else fmt.num(q.tolerance)
    if np.all(off <= allowed):
        return "right", _("Every entry of {vector} is within {within} of the engine's value.").format(
            vector=fmt.vec(v), within=within)
    bad = [int(i) for i in np.flatnonzero(off > allowed)]
    text = _("Entry {items} of {vector} differ.") if len(bad) == 1 else _("Entries {items} of {vector} differ.")
    return "not yet", text.format(items=", ".join(map(str, bad)), vector=fmt.vec(v))


def vector(id: str, prompt: str, answer, *, tolerance: float, source: str, why: str,
           hint: str = N_("a list of numbers such as [1, 2]"), relative: bool = False) -> Question:
    """A question whose answer is a vector, right when every entry is within ``tolerance``
    (with ``relative``, within ``tolerance`` times the entry's size).

    >>> vector("o", "o?", [2.075766, 2.462117], tolerance=5e-4, source="demo", why="Σ g F").check([2.076, 2.462]).correct
    True
    >>> r = vector("a", "a?", [8, 0.08], tolerance=1e-3, source="demo", why="p·θ", relative=True)
    >>> r.check([8, 0.08]).correct, r.check([8, 0.076]).correct
    (True, False)
    """
    _check_common(id, prompt, source, why)
    value = as_float_array("answer", answer)
    if value.ndim != 1 or value.size < 1 or not np.all(np.isfinite(value)):
        raise ValueError(f"answer must be a finite 1-D vector of at least one entry, got shape {value.shape}")
    _within_items(value.size)
    tolerance = _tolerance(tolerance)
    value.setflags(write=False)
    return Question(id, prompt, "vector", value, source, why, hint, tolerance, as_bool("relative", relative),
                    _compare=_compare_vector)


# set --------------------------------------------------------------------------


def _compare_set(q: Question, answer) -> tuple[str, str]:
    given = read_ints(answer)
    if given == q.answer:
        return "right", _("Your set {members} has exactly the right members.").format(
            members="{" + ", ".join(map(str, sorted(given))) + "}")
    missing, extra = sorted(q.answer - given), sorted(given - q.answer)
    parts = []
    if missing:
        parts.append((_("{n} members are missing") if len(missing) > 1 else _("{n} member is missing")).format(
            n=len(missing)))
    if extra:
        parts.append(_("{items} should not be in it").format(items=", ".join(map(str, extra))))
    return "not yet", _("Not the right set: {parts}.").format(parts=_("; ").join(parts))


def set_of(id: str, prompt: str, answer, *, source: str, why: str,
           hint: str = N_("a set of whole numbers such as {0, 1}")) -> Question:
    """A question whose answer is a set of integers (order and repeats do not matter).

    >>> set_of("k", "keys?", [0, 1, 2, 3], source="demo", why="j <= 3").check(range(4)).correct
    True
    """
    _check_common(id, prompt, source, why)
    arr = as_array("answer", answer)
    if arr.ndim != 1 or not (np.issubdtype(arr.dtype, np.integer) or arr.size == 0):
        raise ValueError(f"answer must be a 1-D collection of integers, got {answer!r}")
    members = frozenset(int(v) for v in arr)
    _within_items(len(members))
    return Question(id, prompt, "set", members, source, why, hint,
                    _compare=_compare_set)


# sequence ---------------------------------------------------------------------


def _compare_sequence(q: Question, answer) -> tuple[str, str]:
    if isinstance(answer, (str, bytes, dict, set, frozenset)) or not hasattr(answer, "__iter__"):
        raise Unreadable(_("{what} is not a list; write the items in order, in [ ]").format(what=type_name(answer)))
    given = bounded_items(answer, _("the list"))
    if len(given) != len(q.answer):
        text = (_("Your answer has {n} item; the sequence asked for has {wanted}.") if len(given) == 1 else
                _("Your answer has {n} items; the sequence asked for has {wanted}."))
        return "not yet", text.format(n=len(given), wanted=len(q.answer))
    items = [read_item(x, like) for x, like in zip(given, q.answer)]
    if tuple(items) == q.answer:
        return "right", _("Every item is right, in the right order.")
    bad = [str(i) for i, (a, b) in enumerate(zip(items, q.answer)) if a != b]
    text = _("Item {items} differs (counting from 0).") if len(bad) == 1 else _("Items {items} differ (counting from 0).")
    return "not yet", text.format(items=", ".join(bad))


def sequence(id: str, prompt: str, answer, *, source: str, why: str,
             hint: str = N_("a list in order, such as [1, 2] or [\"lo\", \"wer\"]")) -> Question:
    """A question whose answer is an ordered list of whole numbers or of strings
    (token IDs, pieces of a word, a shape).

    >>> q = sequence("s", "pieces?", ("lo", "wer"), source="demo", why="two merges")
    >>> q.check(["lo", "wer"]).correct, q.check(("lo", "w", "er")).status, q.answer_text()
    (True, 'not yet', "['lo', 'wer']")
    """
    _check_common(id, prompt, source, why)
    if isinstance(answer, (str, bytes)):
        raise ValueError(f"answer must be a list of whole numbers or strings, got {answer!r}")
    items = []
    for v in as_list("answer", answer, "whole numbers or strings"):
        if isinstance(v, str):
            items.append(v)
        elif isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, bool):
            items.append(int(v))
        else:
            raise ValueError(f"answer must be a list of whole numbers or strings, got item {v!r}")
    if not items or len({type(v) for v in items}) != 1:
        raise ValueError("answer must be a non-empty list of items of one kind (all ints or all strings)")
    _within_items(len(items))
    for v in items:
        if isinstance(v, int):
            _within_bits(v)
    return Question(id, prompt, "sequence", tuple(items), source, why, hint, _compare=_compare_sequence)


# choice -----------------------------------------------------------------------


def _compare_choice(q: Question, answer) -> tuple[str, str]:
    keys = [k for k, _text in q.options]
    letters = _(", ").join(keys)
    if not isinstance(answer, str):
        raise Unreadable(_("{what} is not one of the option letters {letters}").format(
            what=type_name(answer), letters=letters))
    if len(answer) > max(MAX_TEXT, *(len(t) + 10 for _k, t in q.options)):
        raise Unreadable(_("a string of {n} characters is not one of the option letters {letters}").format(
            n=len(answer), letters=letters))
    key = answer.strip().strip("()").strip().lower()
    if key not in keys:
        texts = {t.strip().lower(): k for k, t in q.options}
        key = texts.get(answer.strip().lower(), key)
    if key not in keys:
        raise Unreadable(_("{what} is not one of the option letters {letters}").format(
            what=shown(answer), letters=letters))
    if key == q.answer:
        return "right", _("({key}) is right.").format(key=key)
    return "not yet", _("({key}) is not the best answer.").format(key=key)


def choice(id: str, prompt: str, options, answer: str, *, source: str, why: str) -> Question:
    """A multiple-choice question: ``options`` maps keys (``"a"``, ``"b"`` …) to texts;
    ``answer`` is the right key, found by the engine, written exactly as one of the keys
    (a reader's answer is read without case; the question's own key is not).

    >>> choice("c", "Which axis?", {"a": "positions", "b": "vocabulary"}, "A", source="demo", why="V")
    Traceback (most recent call last):
    ...
    ValueError: answer must be one of the option keys ['a', 'b'] as written, got 'A'

    >>> q = choice("c", "Which axis?", {"a": "positions", "b": "vocabulary"}, "b", source="demo", why="V")
    >>> q.check("b").correct, q.check("(B)").correct, q.check("a").status
    (True, True, 'not yet')
    """
    _check_common(id, prompt, source, why)
    if not isinstance(options, Mapping):
        raise TypeError(f"options must be a mapping key → text, got {type(options).__name__}")
    if not isinstance(answer, str):
        raise TypeError(f"answer must be an option key, got {type(answer).__name__}")
    if not all(isinstance(k, str) and k.strip() for k in options):
        raise TypeError(f"options' keys must be non-empty strings, got {[k for k in options]!r}")
    for k in options:
        if k != k.strip().strip("()").strip():
            raise ValueError(f"options' keys must be what a reader types, without spaces or brackets around "
                             f"them (a reader's answer is read without them), got {k!r}")
    if answer not in options:
        raise ValueError(f"answer must be one of the option keys {list(options)!r} as written, got {answer!r}")
    pairs = tuple((str(k).lower(), str(t)) for k, t in dict(options).items())
    if len({k for k, _ in pairs}) != len(pairs):
        raise ValueError(f"options' keys must differ in more than letter case (a reader's answer is read "
                         f"without case), got {list(options)!r}")
    if len(pairs) < 2:
        raise ValueError("options must offer at least two choices")
    answer = answer.lower()
    hint = _("the letter of one option (e.g. \"{letter}\")").format(letter=pairs[0][0])
    return Question(id, prompt, "choice", answer, source, why, hint, options=pairs,
                    _compare=_compare_choice)
