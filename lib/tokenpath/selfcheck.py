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
bounded work: a string of at most :data:`MAX_TEXT` characters, a decimal exponent of at
most :data:`MAX_EXPONENT`, whole numbers of at most :data:`MAX_BITS` bits, collections
of at most :data:`MAX_ITEMS` items (``range(10**18)`` or an endless generator is
refused, not iterated); anything bigger gets a "can't read" message at once. ``None`` or ``...``
(what a chapter leaves in the answer variable until the reader answers) gives a
neutral prompt that reveals nothing; an answer of the wrong type gives a message that
says what to write.

>>> q = exact("demo", "What is 1 + 1/2?", Fraction(3, 2), source="arithmetic", why="1 = 2/2.")
>>> q.check("3/2").status, q.check(1.5).status, q.check(2).status, q.check(None).status
('right', 'right', 'not yet', 'unanswered')
>>> print(q.check([1, 2]).text())   # doctest: +ELLIPSIS
[can't read] demo: What is 1 + 1/2?
  ... a list ...
"""

from __future__ import annotations

import html
import itertools
import math
import numbers
import re
import reprlib
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Mapping

import numpy as np

from . import fmt
from ._checks import as_array, as_float_array, as_list

__all__ = ["KINDS", "Question", "Result", "choice", "exact", "number", "sequence", "set_of", "vector"]

KINDS = ("exact", "number", "vector", "set", "sequence", "choice")
STATUSES = ("right", "not yet", "unanswered", "can't read")

_COLOURS = {"right": "#009E73", "not yet": "#E69F00", "unanswered": "#999999", "can't read": "#D55E00"}


#: Bounds on what :meth:`Question.check` reads (see the module docstring).
MAX_TEXT = 200
MAX_EXPONENT = 400
MAX_BITS = 4096
MAX_ITEMS = 10_000

_SHOW = reprlib.Repr()
_SHOW.maxstring, _SHOW.maxother, _SHOW.maxlevel, _SHOW.maxlist, _SHOW.maxtuple = 40, 40, 2, 6, 6
_SHOW.maxset = _SHOW.maxfrozenset = _SHOW.maxdict = 6
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE](?P<exp>[+-]?\d+))?(?:/\d+)?")


class _Unreadable(Exception):
    """The reader's answer cannot be read as the question's kind (carries the advice)."""


def _show(x) -> str:
    """A short repr of a reader's value for a message (long or nested values elided)."""
    try:
        return _SHOW.repr(x)
    except Exception:  # a reader's object whose repr fails
        return f"a {type(x).__name__}"


def _items(x, what: str) -> list:
    """The items of a reader's collection, at most :data:`MAX_ITEMS` of them."""
    try:
        n = len(x)
    except Exception:  # no len (a generator), or one too big for an index
        n = None
    if n is not None and n > MAX_ITEMS:
        raise _Unreadable(f"{what} has {n} items; an answer here has at most {MAX_ITEMS}")
    items = list(itertools.islice(iter(x), MAX_ITEMS + 1))
    if len(items) > MAX_ITEMS:
        raise _Unreadable(f"{what} has more than {MAX_ITEMS} items; an answer here has at most {MAX_ITEMS}")
    return items


def _small_int(x) -> int:
    v = int(x)
    if v.bit_length() > MAX_BITS:
        raise _Unreadable(f"a whole number of {v.bit_length()} bits is too large to be an answer here")
    return v


def _is_unanswered(answer) -> bool:
    return answer is None or answer is Ellipsis


def _type_name(x) -> str:
    names = {list: "a list", tuple: "a tuple", dict: "a dict", set: "a set", str: "a string",
             bool: "True/False", float: "a float", int: "an int"}
    return names.get(type(x), f"a {type(x).__name__}")


# ------------------------------------------------------------------- parsing


def _fraction(x) -> Fraction:
    """Read one exact number: int, Fraction, "a/b" or an integral/rational string."""
    if isinstance(x, bool):
        raise _Unreadable("True/False is not a number")
    if isinstance(x, numbers.Integral):
        return Fraction(_small_int(x))
    if isinstance(x, Fraction):
        return Fraction(_small_int(x.numerator), _small_int(x.denominator))
    if isinstance(x, str):
        if len(x) > MAX_TEXT:
            raise _Unreadable(f"a string of {len(x)} characters is too long to be a number here")
        text = x.strip().replace("−", "-").replace(" ", "")
        if re.fullmatch(r"-?\d{1,3}(,\d{3})+", text):  # thousands separators: 402,653,184
            text = text.replace(",", "")
        m = _NUMBER.fullmatch(text)
        if m is None:
            raise _Unreadable(f"the string {_show(x)} is not a number or fraction such as \"1/3\"")
        if m["exp"] is not None and abs(int(m["exp"])) > MAX_EXPONENT:
            raise _Unreadable(f"the exponent of {_show(x)} is beyond ±{MAX_EXPONENT}; write the number itself")
        try:
            return Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise _Unreadable(f"the string {_show(x)} is not a number or fraction such as \"1/3\"") from None
    raise _Unreadable(f"{_type_name(x)} is not a single exact number")


def _real(x) -> float:
    if isinstance(x, bool):
        raise _Unreadable("True/False is not a number")
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x.item()
    try:
        if isinstance(x, (numbers.Integral, Fraction)):
            v = float(_fraction(x))
        elif isinstance(x, numbers.Real):
            v = float(x)
        elif isinstance(x, str):
            try:
                v = float(_fraction(x))
            except _Unreadable as why:
                raise _Unreadable(str(why).replace("is not a number or fraction such as \"1/3\"",
                                                   "is not a number")) from None
        else:
            raise _Unreadable(f"{_type_name(x)} is not a single number")
    except OverflowError:
        raise _Unreadable(f"{_show(x)} is too large to be a finite number") from None
    if not math.isfinite(v):
        raise _Unreadable(f"{v} is not a finite number")
    return v


def _reals(x) -> np.ndarray:
    if isinstance(x, (str, bytes, dict, set, frozenset)) or not hasattr(x, "__iter__"):
        raise _Unreadable(f"{_type_name(x)} is not a list of numbers")
    values = [_real(v) for v in _items(x, "the list")]
    return np.array(values, dtype=float)


def _ints(x) -> frozenset[int]:
    if isinstance(x, (str, bytes, dict)) or not hasattr(x, "__iter__"):
        raise _Unreadable(f"{_type_name(x)} is not a collection of whole numbers")
    out = set()
    for v in _items(x, "the collection"):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise _Unreadable(f"{_show(v)} is not a whole number")
        out.add(_small_int(v))
    return frozenset(out)


# ------------------------------------------------------------------- results


@dataclass(frozen=True)
class Result:
    """What :meth:`Question.check` says about one answer."""

    question: "Question"
    status: str  # "right", "not yet", "unanswered" or "can't read"
    message: str  # why, in a sentence or two
    given: Any = None

    @property
    def correct(self) -> bool:
        return self.status == "right"

    def _engine_line(self) -> str | None:
        if self.status in ("right", "not yet"):
            q = self.question
            return f"Engine: {q.answer_text()}, from {q.source}"
        return None

    def text(self) -> str:
        """The result as plain text (what a notebook shows without HTML)."""
        q = self.question
        lines = [f"[{self.status}] {q.id}: {q.prompt}"]
        lines += [f"  ({key}) {text}" for key, text in q.options]
        lines.append(f"  {self.message}")
        if self.status in ("right", "not yet"):
            lines.append(f"  Why: {q.why}")
            lines.append(f"  {self._engine_line()}")
        return "\n".join(lines)

    def html(self) -> str:
        q = self.question
        colour = _COLOURS[self.status]
        parts = [
            f'<div class="tokenpath-selfcheck" data-status="{html.escape(self.status)}" '
            f'style="border-left:4px solid {colour};padding:0.3em 0.8em;margin:0.3em 0">',
            f'<p><strong style="color:{colour}">{html.escape(self.status)}</strong> · '
            f"<code>{html.escape(q.id)}</code> · {html.escape(q.prompt)}</p>",
        ]
        if q.options:
            parts.append("<ul style=\"list-style:none;margin:0;padding-left:1em\">"
                         + "".join(f"<li>({html.escape(k)}) {html.escape(t)}</li>" for k, t in q.options)
                         + "</ul>")
        parts.append(f"<p>{html.escape(self.message)}</p>")
        if self.status in ("right", "not yet"):
            parts.append(f"<p><em>Why:</em> {html.escape(q.why)}</p>")
            parts.append(f"<p><em>Engine:</em> {html.escape(q.answer_text())}, from "
                         f"<code>{html.escape(q.source)}</code></p>")
        parts.append("</div>")
        return "".join(parts)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/html": self.html(), "text/plain": self.text()}

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Result({self.question.id!r}, {self.status!r})"


# ------------------------------------------------------------------ questions


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
    options: tuple[tuple[str, str], ...] = ()  # choice: (key, text) pairs
    _compare: Callable[["Question", Any], tuple[str, str]] = field(default=None, repr=False, compare=False)

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
        if _is_unanswered(answer):
            return Result(self, "unanswered",
                          f"Not answered yet. Put {self.hint} into the answer variable, then run the cell again.", answer)
        try:
            status, message = self._compare(self, answer)
        except _Unreadable as why:
            return Result(self, "can't read",
                          f"Could not read your answer: {why}. Write {self.hint}.", answer)
        except Exception as err:  # whatever a reader's object does, answer with a message
            try:
                said = str(err)
            except Exception:
                said = ""
            said = said if len(said) <= 200 else said[:200] + " …"
            return Result(self, "can't read",
                          f"Could not read your answer ({type(err).__name__}: {said}). Write {self.hint}.", answer)
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


def _digits(tolerance: float) -> int:
    """Decimals that show a value to the precision a tolerance asks for."""
    if tolerance <= 0:
        return 6
    return max(0, min(6, math.ceil(-math.log10(tolerance))))


def _check_common(id: str, prompt: str, source: str, why: str) -> None:
    for name, value in (("id", id), ("prompt", prompt), ("source", source), ("why", why)):
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"{name} must be a non-empty string, got {value!r}")


# exact ------------------------------------------------------------------------


def _compare_exact(q: Question, answer) -> tuple[str, str]:
    if isinstance(answer, (float, np.floating)):
        v = float(answer)
        if not math.isfinite(v):
            raise _Unreadable(f"{v} is not a finite number")
        target = float(q.answer)
        if abs(v - target) <= 1e-12 * max(1.0, abs(target)):
            return "right", f"Your answer {v!r} equals {q.answer_text()} (as a float)."
        if abs(v - target) <= 0.01 * max(1.0, abs(target)):
            return "not yet", (f"{v!r} is close to the exact value but not equal to it; "
                               f"write the exact number, e.g. as a fraction \"a/b\".")
        return "not yet", f"{v!r} is not the value asked for."
    if isinstance(answer, np.integer):
        answer = int(answer)
    value = _fraction(answer)  # bounded: at most MAX_BITS bits each way
    shown = str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    if value == q.answer:
        return "right", f"Your answer {shown} is exactly right."
    return "not yet", f"Your answer {shown} is not the value asked for."


def exact(id: str, prompt: str, answer, *, source: str, why: str,
          hint: str = "a whole number or a fraction such as 1/3") -> Question:
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
    return Question(id, prompt, "exact", value, source, why, hint, _compare=_compare_exact)


# number -----------------------------------------------------------------------


def _compare_number(q: Question, answer) -> tuple[str, str]:
    v = _real(answer)
    off = abs(v - q.answer)
    if off <= q.tolerance:
        return "right", f"Your answer {fmt.num(v)} is within {fmt.num(q.tolerance)} of the engine's value."
    return "not yet", f"Your answer {fmt.num(v)} is off by {fmt.num(off, _digits(q.tolerance))}."


def number(id: str, prompt: str, answer, *, tolerance: float, source: str, why: str,
           hint: str = "a number") -> Question:
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
    if isinstance(tolerance, bool) or not isinstance(tolerance, numbers.Real) or not tolerance > 0:
        raise ValueError(f"tolerance must be a positive number, got {tolerance!r}")
    return Question(id, prompt, "number", value, source, why, hint, float(tolerance),
                    _compare=_compare_number)


# vector -----------------------------------------------------------------------


def _compare_vector(q: Question, answer) -> tuple[str, str]:
    if isinstance(answer, np.ndarray) and answer.ndim != 1:
        raise _Unreadable(f"an array of shape {answer.shape} is not a flat list of numbers")
    v = _reals(answer)
    if v.shape != q.answer.shape:
        return "not yet", f"Your answer has {v.size} entries; the vector asked for has {q.answer.size}."
    off = np.abs(v - q.answer)
    if np.all(off <= q.tolerance):
        return "right", f"Every entry of {fmt.vec(v)} is within {fmt.num(q.tolerance)} of the engine's value."
    bad = [int(i) for i in np.flatnonzero(off > q.tolerance)]
    return "not yet", f"Entr{'y' if len(bad) == 1 else 'ies'} {', '.join(map(str, bad))} of {fmt.vec(v)} differ."


def vector(id: str, prompt: str, answer, *, tolerance: float, source: str, why: str,
           hint: str = "a list of numbers such as [1, 2]") -> Question:
    """A question whose answer is a vector, right when every entry is within ``tolerance``.

    >>> vector("o", "o?", [2.075766, 2.462117], tolerance=5e-4, source="demo", why="Σ g F").check([2.076, 2.462]).correct
    True
    """
    _check_common(id, prompt, source, why)
    value = as_float_array("answer", answer)
    if value.ndim != 1 or not np.all(np.isfinite(value)):
        raise ValueError(f"answer must be a finite 1-D vector, got shape {value.shape}")
    if isinstance(tolerance, bool) or not isinstance(tolerance, numbers.Real) or not tolerance > 0:
        raise ValueError(f"tolerance must be a positive number, got {tolerance!r}")
    value.setflags(write=False)
    return Question(id, prompt, "vector", value, source, why, hint, float(tolerance),
                    _compare=_compare_vector)


# set --------------------------------------------------------------------------


def _compare_set(q: Question, answer) -> tuple[str, str]:
    given = _ints(answer)
    if given == q.answer:
        return "right", f"Your set {{{', '.join(map(str, sorted(given)))}}} has exactly the right members."
    missing, extra = sorted(q.answer - given), sorted(given - q.answer)
    parts = []
    if missing:
        parts.append(f"{len(missing)} member{'s are' if len(missing) > 1 else ' is'} missing")
    if extra:
        parts.append(f"{', '.join(map(str, extra))} should not be in it")
    return "not yet", "Not the right set: " + "; ".join(parts) + "."


def set_of(id: str, prompt: str, answer, *, source: str, why: str,
           hint: str = "a set of whole numbers such as {0, 1}") -> Question:
    """A question whose answer is a set of integers (order and repeats do not matter).

    >>> set_of("k", "keys?", [0, 1, 2, 3], source="demo", why="j <= 3").check(range(4)).correct
    True
    """
    _check_common(id, prompt, source, why)
    arr = as_array("answer", answer)
    if arr.ndim != 1 or not (np.issubdtype(arr.dtype, np.integer) or arr.size == 0):
        raise ValueError(f"answer must be a 1-D collection of integers, got {answer!r}")
    return Question(id, prompt, "set", frozenset(int(v) for v in arr), source, why, hint,
                    _compare=_compare_set)


# sequence ---------------------------------------------------------------------


def _item(x, like):
    """Read one item of a sequence as the type of the engine's item ``like``."""
    if isinstance(like, str):
        if not isinstance(x, str):
            raise _Unreadable(f"{_show(x)} is not a string; write each piece in quotes")
        return x
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise _Unreadable(f"{_show(x)} is not a whole number")
    return _small_int(x)


def _compare_sequence(q: Question, answer) -> tuple[str, str]:
    if isinstance(answer, (str, bytes, dict, set, frozenset)) or not hasattr(answer, "__iter__"):
        raise _Unreadable(f"{_type_name(answer)} is not a list; write the items in order, in [ ]")
    given = _items(answer, "the list")
    if len(given) != len(q.answer):
        return "not yet", f"Your answer has {len(given)} item{'s' * (len(given) != 1)}; the sequence asked for has {len(q.answer)}."
    items = [_item(x, like) for x, like in zip(given, q.answer)]
    if tuple(items) == q.answer:
        return "right", "Every item is right, in the right order."
    bad = [str(i) for i, (a, b) in enumerate(zip(items, q.answer)) if a != b]
    return "not yet", f"Item{'s' * (len(bad) > 1)} {', '.join(bad)} differ{'s' * (len(bad) == 1)} (counting from 0)."


def sequence(id: str, prompt: str, answer, *, source: str, why: str,
             hint: str = "a list in order, such as [1, 2] or [\"lo\", \"wer\"]") -> Question:
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
    return Question(id, prompt, "sequence", tuple(items), source, why, hint, _compare=_compare_sequence)


# choice -----------------------------------------------------------------------


def _compare_choice(q: Question, answer) -> tuple[str, str]:
    keys = [k for k, _ in q.options]
    if not isinstance(answer, str):
        raise _Unreadable(f"{_type_name(answer)} is not one of the option letters {', '.join(keys)}")
    if len(answer) > max(MAX_TEXT, *(len(t) + 10 for _, t in q.options)):
        raise _Unreadable(f"a string of {len(answer)} characters is not one of the option letters {', '.join(keys)}")
    key = answer.strip().strip("()").strip().lower()
    if key not in keys:
        texts = {t.strip().lower(): k for k, t in q.options}
        key = texts.get(answer.strip().lower(), key)
    if key not in keys:
        raise _Unreadable(f"{_show(answer)} is not one of the option letters {', '.join(keys)}")
    if key == q.answer:
        return "right", f"({key}) is right."
    return "not yet", f"({key}) is not the best answer."


def choice(id: str, prompt: str, options, answer: str, *, source: str, why: str) -> Question:
    """A multiple-choice question: ``options`` maps keys (``"a"``, ``"b"`` …) to texts;
    ``answer`` is the right key, found by the engine.

    >>> q = choice("c", "Which axis?", {"a": "positions", "b": "vocabulary"}, "b", source="demo", why="V")
    >>> q.check("b").correct, q.check("(B)").correct, q.check("a").status
    (True, True, 'not yet')
    """
    _check_common(id, prompt, source, why)
    if not isinstance(options, Mapping):
        raise TypeError(f"options must be a mapping key → text, got {type(options).__name__}")
    if not isinstance(answer, str):
        raise TypeError(f"answer must be an option key, got {type(answer).__name__}")
    pairs = tuple((str(k).lower(), str(t)) for k, t in dict(options).items())
    if len(pairs) < 2:
        raise ValueError("options must offer at least two choices")
    if answer not in dict(pairs):
        raise ValueError(f"answer must be one of the option keys {[k for k, _ in pairs]}, got {answer!r}")
    hint = "the letter of one option (e.g. \"" + pairs[0][0] + "\")"
    return Question(id, prompt, "choice", answer, source, why, hint, options=pairs,
                    _compare=_compare_choice)
