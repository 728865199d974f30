"""Reading a reader's answer with bounded work, for :mod:`tokenpath.selfcheck`.

A reader may type anything into an answer variable: a fraction as a string, a float, a
list, ``range(10**18)``, an endless generator, a number with a million-digit exponent.
The readers here turn an answer into the value a question compares (an exact
:class:`~fractions.Fraction`, a float, an array of floats, a set of whole numbers, a
sequence item) or raise :class:`Unreadable` with advice the reader can act on, and
never do unbounded work: a string of at most :data:`MAX_TEXT` characters, a decimal
exponent of at most :data:`MAX_EXPONENT`, whole numbers of at most :data:`MAX_BITS`
bits, collections of at most :data:`MAX_ITEMS` items.

>>> read_fraction("−1/3"), read_ints(range(3))
(Fraction(-1, 3), frozenset({0, 1, 2}))
>>> read_real("1e999999")
Traceback (most recent call last):
...
tokenpath.selfcheck._reading.Unreadable: the exponent of '1e999999' is beyond ±400; write the number itself
"""

from __future__ import annotations

import itertools
import math
import numbers
import re
import reprlib
from fractions import Fraction

import numpy as np

from ..i18n import N_, _

#: Bounds on what :meth:`tokenpath.selfcheck.Question.check` reads (see the module docstring).
MAX_TEXT = 200
MAX_EXPONENT = 400
MAX_BITS = 4096
MAX_ITEMS = 10_000

_SHOW = reprlib.Repr()
_SHOW.maxstring, _SHOW.maxother, _SHOW.maxlevel, _SHOW.maxlist, _SHOW.maxtuple = 40, 40, 2, 6, 6
_SHOW.maxset = _SHOW.maxfrozenset = _SHOW.maxdict = 6
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE](?P<exp>[+-]?\d+))?(?:/\d+)?")


class Unreadable(Exception):
    """The reader's answer cannot be read as the question's kind (carries the advice)."""


def shown(x) -> str:
    """A short repr of a reader's value for a message (long or nested values elided)."""
    try:
        return _SHOW.repr(x)
    except Exception:  # a reader's object whose repr fails
        return f"a {type(x).__name__}"


def bounded_items(x, what: str) -> list:
    """The items of a reader's collection, at most :data:`MAX_ITEMS` of them."""
    try:
        n = len(x)
    except Exception:  # no len (a generator), or one too big for an index
        n = None
    if n is not None and n > MAX_ITEMS:
        raise Unreadable(_("{what} has {n} items; an answer here has at most {most}").format(what=what, n=n, most=MAX_ITEMS))
    items = list(itertools.islice(iter(x), MAX_ITEMS + 1))
    if len(items) > MAX_ITEMS:
        raise Unreadable(_("{what} has more than {most} items; an answer here has at most {most}").format(
            what=what, most=MAX_ITEMS))
    return items


def small_int(x) -> int:
    v = int(x)
    if v.bit_length() > MAX_BITS:
        raise Unreadable(_("a whole number of {bits} bits is too large to be an answer here").format(bits=v.bit_length()))
    return v


def is_unanswered(answer) -> bool:
    return answer is None or answer is Ellipsis


def type_name(x) -> str:
    """What ``x`` is, in words of the engine's language (``"an int"``)."""
    names = {list: N_("a list"), tuple: N_("a tuple"), dict: N_("a dict"), set: N_("a set"), str: N_("a string"),
             bool: "True/False", float: N_("a float"), int: N_("an int")}
    name = names.get(type(x))
    return _(name) if name else _("a {type}").format(type=type(x).__name__)


def _not_a_number(x, *, fraction: bool) -> str:
    """Why a string is not an answer: not a number (nor a fraction, where one is allowed)."""
    text = (_("the string {text} is not a number or fraction such as \"1/3\"") if fraction
            else _("the string {text} is not a number"))
    return text.format(text=shown(x))


def read_fraction(x) -> Fraction:
    """Read one exact number: int, Fraction, "a/b" or an integral/rational string."""
    if isinstance(x, bool):
        raise Unreadable(_("True/False is not a number"))
    if isinstance(x, numbers.Integral):
        return Fraction(small_int(x))
    if isinstance(x, Fraction):
        return Fraction(small_int(x.numerator), small_int(x.denominator))
    if isinstance(x, str):
        if len(x) > MAX_TEXT:
            raise Unreadable(_("a string of {n} characters is too long to be a number here").format(n=len(x)))
        text = x.strip().replace("−", "-").replace(" ", "")
        if re.fullmatch(r"-?\d{1,3}(,\d{3})+", text):  # thousands separators: 402,653,184
            text = text.replace(",", "")
        m = _NUMBER.fullmatch(text)
        if m is None:
            raise Unreadable(_not_a_number(x, fraction=True))
        if m["exp"] is not None and abs(int(m["exp"])) > MAX_EXPONENT:
            raise Unreadable(_("the exponent of {text} is beyond ±{most}; write the number itself").format(
                text=shown(x), most=MAX_EXPONENT))
        try:
            return Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise Unreadable(_not_a_number(x, fraction=True)) from None
    raise Unreadable(_("{what} is not a single exact number").format(what=type_name(x)))


def read_real(x) -> float:
    if isinstance(x, bool):
        raise Unreadable(_("True/False is not a number"))
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x.item()
    try:
        if isinstance(x, (numbers.Integral, Fraction)):
            v = float(read_fraction(x))
        elif isinstance(x, numbers.Real):
            v = float(x)
        elif isinstance(x, str):
            try:
                v = float(read_fraction(x))
            except Unreadable as why:
                plain = str(why) == _not_a_number(x, fraction=True)  # a real number here, not a fraction
                raise Unreadable(_not_a_number(x, fraction=False) if plain else str(why)) from None
        else:
            raise Unreadable(_("{what} is not a single number").format(what=type_name(x)))
    except OverflowError:
        raise Unreadable(_("{text} is too large to be a finite number").format(text=shown(x))) from None
    if not math.isfinite(v):
        raise Unreadable(_("{value} is not a finite number").format(value=v))
    return v


def read_reals(x) -> np.ndarray:
    if isinstance(x, (str, bytes, dict, set, frozenset)) or not hasattr(x, "__iter__"):
        raise Unreadable(_("{what} is not a list of numbers").format(what=type_name(x)))
    values = [read_real(v) for v in bounded_items(x, _("the list"))]
    return np.array(values, dtype=float)


def read_ints(x) -> frozenset[int]:
    if isinstance(x, (str, bytes, dict)) or not hasattr(x, "__iter__"):
        raise Unreadable(_("{what} is not a collection of whole numbers").format(what=type_name(x)))
    out = set()
    for v in bounded_items(x, _("the collection")):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise Unreadable(_("{text} is not a whole number").format(text=shown(v)))
        out.add(small_int(v))
    return frozenset(out)


def read_item(x, like):
    """Read one item of a sequence as the type of the engine's item ``like``."""
    if isinstance(like, str):
        if not isinstance(x, str):
            raise Unreadable(_("{text} is not a string; write each piece in quotes").format(text=shown(x)))
        return x
    if isinstance(x, (float, np.floating)) and math.isfinite(x) and float(x).is_integer():
        x = int(x)  # 3.0 is the whole number 3, as a single exact answer accepts it
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise Unreadable(_("{text} is not a whole number").format(text=shown(x)))
    return small_int(x)
