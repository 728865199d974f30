"""The checker: an :class:`Exercise` runs a reader's function on the chapter's worked
example and on seeded random cases, compares every named intermediate with the
engine's, and says where the reader's numbers first differ and, when they match a
known wrong implementation on every case, which mistake that is.

An exercise's function returns its intermediates under the names its docstring gives
(a dict such as ``{"scores": S, "weights": A, "output": O}``, or an object with those
attributes); one that returns a single value has one field. Each :class:`Field` knows
its name in the chapter's notation (``A = softmax(S)``) and the names of its axes
(``i`` the receiving query, ``j`` the source), so a difference reads
``A at [i=1, j=0]: expected 0.5, got 0.333333``.

>>> from tokenpath.attention import causal_mask
>>> ex = Exercise("demo_mask", 4, "the causal mask", "def causal_mask(t): ...", causal_mask,
...               (causal_mask,), (Field("mask", "M", ("i", "j"), "bool"),),
...               lambda: (Case("t = 3", (3,)),))
>>> ex.check(causal_mask).passed
True
>>> print(ex.check(lambda t: causal_mask(t).T).text())   # doctest: +ELLIPSIS
[differs] demo_mask: ...M at [i=0, j=1]: expected False, got True.
(No known mistake gives your results on all 1 case. Reread the docstring's line for 'mask' and compare it with ...)
"""

from __future__ import annotations

import contextlib
import copy
import dis
import importlib
import io
import math
import sys
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..i18n import _, pgettext
from ._inputs import input_changed as _input_changed
from ._running import Outcome, run
from .result import CheckResult, Difference

__all__ = ["KINDS", "Case", "Exercise", "Field", "Mistake"]

#: The kinds of value a field holds, and how each is compared.
KINDS = ("float", "bool", "int", "exact")
#: Relative and absolute tolerance for floating-point fields computed in float64.
RTOL, ATOL = 1e-6, 1e-9
#: Units of rounding (eps of the dtype) a result in a coarser dtype (float32, float16) may be off by.
ULPS = 32
#: Seconds one case may take, and all cases of one check together.
CASE_SECONDS, TOTAL_SECONDS = 2.0, 10.0


@dataclass(frozen=True)
class Field:
    """One named intermediate of an exercise's result."""

    name: str  # the key the reader returns it under: "weights"
    label: str  # the chapter's notation: "A = softmax(S)"
    axes: tuple[str, ...] = ()  # the chapter's name of each axis: ("i", "j")
    kind: str = "float"  # one of KINDS
    sums_to_one: bool = False  # each row (last axis) sums to 1: say so when it does not
    #: the absolute tolerance grows with the field's largest expected magnitude (RTOL times it):
    #: for results made by cancellation, such as a·cos − b·sin, where a near-zero entry
    #: carries the rounding of its large inputs
    scaled: bool = False


@dataclass(frozen=True)
class Mistake:
    """A typical wrong implementation, run on the same cases as the reader's."""

    name: str  # "softmax over the query axis"
    why: str  # one sentence: what the code did and what the chapter does instead
    fn: Callable
    #: labels of cases left out of the comparison: the mistake is named whatever the
    #: reader's function gives there (e.g. −inf or −1800 where p[y] underflows to 0)
    skip: tuple[str, ...] = ()


@dataclass(frozen=True)
class Case:
    """The inputs of one run: the worked example or a seeded random case."""

    label: str  # "the worked example (figure 8)", "random case 2: T = 4, d_h = 2"
    args: tuple
    kwargs: Mapping = field(default_factory=dict)
    max_bytes: int | None = None  # the most the call may allocate at once (measured), if bounded
    budget: str = ""  # what max_bytes allows for, in the chapter's words


#: The only instructions of a function whose body is a docstring and ``...`` (or ``pass``).
_STUB_OPS = frozenset({"RESUME", "NOP", "CACHE", "LOAD_CONST", "RETURN_VALUE", "RETURN_CONST", "POP_TOP"})


def _is_stub(fn) -> bool:
    """Whether ``fn``'s body does nothing (the stub as given): only then is a None or
    ``...`` result "not written yet"; a written body that returns None has lost a return.
    A callable without Python code (a builtin, a class) is never a stub."""
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    if code is None:
        return False
    return all(ins.opname in _STUB_OPS for ins in dis.get_instructions(code))


def _imported_names(fn) -> list[str]:
    """The absolute module names ``fn``'s own code imports (``import torch`` inside the
    function, nested functions included), in the order they first appear."""
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    names: list[str] = []
    todo = [code] if isinstance(code, types.CodeType) else []
    while todo:
        c = todo.pop()
        ops = list(dis.get_instructions(c))
        for k, ins in enumerate(ops):
            level = ops[k - 2].argval if k >= 2 and ops[k - 2].opname == "LOAD_CONST" else 0
            if ins.opname == "IMPORT_NAME" and level == 0 and ins.argval and ins.argval not in names:
                names.append(ins.argval)
        todo.extend(x for x in c.co_consts if isinstance(x, types.CodeType))
    return names


def _warm_up(fn) -> None:
    """Import, once and with no time limit, the modules ``fn`` imports in its body. A
    first ``import torch`` can take longer than a case may; counting it would reject a
    right answer. An import that fails is left for the timed run to report.

    >>> def f():
    ...     import json
    ...     return json.dumps(1)
    >>> _warm_up(f); "json" in sys.modules
    True
    """
    for name in _imported_names(fn):
        if name in sys.modules:
            continue
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                importlib.import_module(name)
        except (Exception, SystemExit):
            pass


class _Unreadable(Exception):
    """The reader's result cannot be read as the field asks (wrong type, shape …)."""


def _index(axes: tuple[str, ...], where: tuple[int, ...]) -> str:
    names = list(axes)[-len(where):] if len(axes) >= len(where) else [""] * (len(where) - len(axes)) + list(axes)
    return "[" + ", ".join(f"{n}={w}" if n else str(w) for n, w in zip(names, where)) + "]"


def _num(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    v = float(v)
    return repr(v) if not math.isfinite(v) else f"{v:.6g}"


def _type_name(v) -> str:
    return type(v).__name__


def _axes_of(f: Field, shape: tuple[int, ...]) -> str:
    """The chapter's names of the axes of an array of ``shape``, aligned from the last
    axis as :func:`_index` aligns them; an axis without a name that has length 1 is the
    reduced one kept by ``keepdims``."""
    names = list(f.axes)[-len(shape):] if shape else []
    names = [""] * (len(shape) - len(names)) + names
    shown = [n or (_("the kept axis of length 1") if d == 1 else _("axis {k}").format(k=k))
             for k, (n, d) in enumerate(zip(names, shape))]
    return ", ".join(shown) or _("a scalar")


def _shape_hint(got: tuple[int, ...], expected: tuple[int, ...]) -> str:
    """What a shape that differs only by axes of length 1 means."""
    if got == expected or [d for d in got if d != 1] != [d for d in expected if d != 1]:
        return ""
    if len(got) < len(expected):
        return _("; keep the axis you averaged over as length 1 (keepdims=True)")
    return _("; drop the extra axes of length 1")


def _nothing(got) -> str:
    """Why ``got`` is no value, when the reader's function returned None."""
    return _("is None (what a function gives when a path through it ends without a return)") if got is None else ""


def _as_array(f: Field, got, expected: np.ndarray) -> np.ndarray:
    """``got`` as an array of the field's kind and the expected shape, or _Unreadable."""
    if got is None:
        raise _Unreadable(_("{nothing}, expected a numpy array of shape {shape}").format(
            nothing=_nothing(got), shape=list(expected.shape)))
    if isinstance(got, (str, bytes, Mapping)) or got is Ellipsis:
        raise _Unreadable(_("is a {type}, expected a numpy array of shape {shape}").format(
            type=_type_name(got), shape=list(expected.shape)))
    try:
        arr = np.asarray(got)
    except Exception as err:
        raise _Unreadable(_("could not be read as an array ({error})").format(error=type(err).__name__)) from None
    if arr.dtype == object:
        raise _Unreadable(_("is a {type} that numpy reads as objects, not numbers").format(type=_type_name(got)))
    if arr.shape != expected.shape:
        raise _Unreadable(_("has shape {shape}, expected {expected} ({axes}){hint}").format(
            shape=list(arr.shape), expected=list(expected.shape), axes=_axes_of(f, expected.shape),
            hint=_shape_hint(arr.shape, expected.shape)))
    if f.kind == "bool" and arr.dtype != np.bool_:
        raise _Unreadable(_("has dtype {dtype}, expected bool (True where visible)").format(dtype=arr.dtype))
    if f.kind == "int" and not np.issubdtype(arr.dtype, np.integer):
        raise _Unreadable(_("has dtype {dtype}, expected whole numbers (an integer dtype)").format(dtype=arr.dtype))
    if f.kind == "float" and not np.issubdtype(arr.dtype, np.floating):
        raise _Unreadable(_("has dtype {dtype}, expected floating-point numbers (float64 or float32)").format(
            dtype=arr.dtype))
    if f.kind == "float" and np.finfo(arr.dtype).eps > np.finfo(np.float32).eps:
        raise _Unreadable(_("has dtype {dtype}, too coarse to tell a right answer from a near one; "
                            "compute in float64 or float32").format(dtype=arr.dtype))
    return arr


def tolerances(*dtypes) -> tuple[float, float]:
    """``(rtol, atol)`` for comparing floating-point results of ``dtypes``: :data:`RTOL`
    and :data:`ATOL` in float64, and :data:`ULPS` units of the coarsest dtype's rounding
    (its ``eps``) when that is wider, so a right answer computed in float32 passes at the
    precision float32 has.

    >>> tolerances(np.float64)
    (1e-06, 1e-09)
    >>> [f"{t:.2g}" for t in tolerances(np.float64, np.float32)]
    ['3.8e-06', '3.8e-06']
    """
    eps = max(float(np.finfo(d).eps) if np.issubdtype(d, np.floating) else 0.0 for d in dtypes)
    return max(RTOL, ULPS * eps), max(ATOL, ULPS * eps)


def _field_tolerances(f: Field, got: np.ndarray, expected: np.ndarray) -> tuple[float, float]:
    """:func:`tolerances` of the two arrays; for a ``scaled`` field the absolute tolerance
    is at least ``rtol`` times the largest finite ``|expected|``.

    >>> f = Field("output", "RoPE(x, p)", scaled=True)
    >>> [f"{t:.2g}" for t in _field_tolerances(f, np.zeros(2), np.array([0.01, -2.5]))]
    ['1e-06', '2.5e-06']
    """
    rtol, atol = tolerances(got.dtype, expected.dtype)
    if f.scaled:
        finite = np.abs(expected[np.isfinite(expected)])
        if finite.size:
            atol = max(atol, rtol * float(finite.max()))
    return rtol, atol


def _shown_pair(e, g, shown) -> tuple[str, str]:
    """Expected and got as text, with more digits when six do not tell them apart.

    >>> _shown_pair(0.0125712031, 0.0125712291, _num)
    ('0.0125712031', '0.0125712291')
    """
    a, b = shown(e), shown(g)
    if a != b or shown is not _num or not all(isinstance(v, (float, np.floating)) for v in (e, g)):
        return a, b
    for digits in (9, 12, 17):
        a, b = f"{float(e):.{digits}g}", f"{float(g):.{digits}g}"
        if a != b:
            break
    return a, b


def _exact(got, expected):
    """A reader's exact value in the expected value's form (tuple, str, dict of counts)."""
    if got is None:
        raise _Unreadable(_("{nothing}, expected a {type}").format(nothing=_nothing(got), type=_type_name(expected)))
    if isinstance(expected, Mapping):
        if not isinstance(got, Mapping):
            raise _Unreadable(_("is a {type}, expected a dict (a Counter will do)").format(type=_type_name(got)))
        return {k: v for k, v in dict(got).items() if v != 0}
    if isinstance(expected, tuple):
        if not isinstance(got, (tuple, list)):
            raise _Unreadable(_("is a {type}, expected a tuple").format(type=_type_name(got)))
        return tuple(got)
    if not isinstance(got, type(expected)):
        raise _Unreadable(_("is a {type}, expected a {expected}").format(type=_type_name(got),
                                                                        expected=_type_name(expected)))
    return got


def _first_difference(f: Field, got, expected) -> tuple[str, Any, Any] | None:
    """``(where, expected, got)`` of the first entry that differs, or None when equal."""
    if f.kind == "exact":
        if got == expected:
            return None
        if isinstance(expected, Mapping):
            for key in sorted(set(expected) | set(got), key=repr):
                if expected.get(key, 0) != got.get(key, 0):
                    return f"[{key!r}]", expected.get(key, 0), got.get(key, 0)
        if isinstance(expected, tuple):
            if len(got) != len(expected):
                return "length", len(expected), len(got)
            for k, (a, b) in enumerate(zip(expected, got)):
                if a != b:
                    return f"[{k}]", a, b
        return "", expected, got
    if f.kind == "float":
        nan = np.argwhere(np.atleast_1d(~np.isfinite(got) & np.isfinite(expected)))
        if nan.size and got.ndim == 0:
            return "", expected[()], got[()]
        if nan.size:
            where = tuple(int(v) for v in nan[0])
            return _index(f.axes, where), expected[where], got[where]
        rtol, atol = _field_tolerances(f, got, expected)
        bad = ~np.isclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        bad = got != expected
    if np.ndim(bad) == 0:
        return ("", expected[()], got[()]) if bool(bad) else None
    hits = np.argwhere(bad)
    if not hits.size:
        return None
    where = tuple(int(v) for v in hits[0])
    return _index(f.axes, where), expected[where] if where else expected[()], got[where] if where else got[()]


def _sum_note(f: Field, got: np.ndarray) -> str:
    """Why a weight matrix is wrong, when its sums say so."""
    if not f.sums_to_one or got.ndim < 1 or not np.all(np.isfinite(got)):
        return ""
    rows = got.sum(axis=-1)
    if np.allclose(rows, 1.0):
        return ""
    bad = tuple(int(v) for v in np.argwhere(~np.isclose(rows, 1.0))[0])
    where = _index(f.axes[:-1], bad)[1:-1] if bad else ""
    name = f.label.split(" ")[0]
    columns = got.ndim >= 2 and np.allclose(got.sum(axis=-2), 1.0)
    axis = (f.axes[-2] if len(f.axes) >= 2 else pgettext("axis", "first")) if columns else ""
    if where:
        note = (_(" Row {where} of {name} sums to {sum}, not 1: its columns sum to 1, so softmax ran over the {axis} "
                  "axis, not over the sources.") if columns else _(" Row {where} of {name} sums to {sum}, not 1."))
    else:
        note = (_(" The entries of {name} sum to {sum}, not 1: its columns sum to 1, so softmax ran over the {axis} "
                  "axis, not over the sources.") if columns else _(" The entries of {name} sum to {sum}, not 1."))
    return note.format(where=where, name=name, sum=_num(rows[bad]), axis=axis)



def _more_cases(rest) -> str:
    """The cases after the worked example, in words: how many were chosen by hand and how
    many drawn at random (a random case's label starts with "random", or with its translation).

    >>> _more_cases([Case("t = 1", ()), Case("random case 1 (seed 3)", ()), Case("random case 2 (seed 3)", ())])
    '3 more cases (1 chosen case and 2 seeded random ones)'
    >>> _more_cases([Case("t = 1", ())])
    '1 more case (chosen by hand)'
    """
    # TRANSLATORS: the first word of every random case's label (its translation starts the translated labels)
    drawn = sum(c.label.startswith(("random", _("random"))) for c in rest)
    chosen = len(rest) - drawn
    if not drawn:
        parts = _("chosen by hand")
    elif not chosen:
        parts = _("all seeded random ones") if drawn > 1 else _("a seeded random one")
    else:
        parts = (_("{chosen} chosen case") if chosen == 1 else _("{chosen} chosen cases")).format(chosen=chosen) + (
            _(" and {drawn} seeded random one") if drawn == 1 else _(" and {drawn} seeded random ones")).format(drawn=drawn)
    more = _("{n} more case ({parts})") if len(rest) == 1 else _("{n} more cases ({parts})")
    return more.format(n=len(rest), parts=parts)


@dataclass(frozen=True)
class Exercise:
    """One exercise: the function the reader writes, the engine's reference, the cases,
    the fields compared, the known mistakes and (optionally) the figure drawn from the
    reader's numbers."""

    name: str  # "masked_attention"
    chapter: int  # 4
    title: str  # "attention with a mask"
    stub: str  # the signature and docstring the reader starts from, body `...`
    reference: Callable  # the engine's function (or the engine called with the exercise's arguments)
    engine: tuple  # the engine objects a solution cell shows with show_source
    fields: tuple[Field, ...]  # what the result holds, in the order the computation makes it
    cases: Callable[[], tuple[Case, ...]]  # the worked example first, then seeded random cases
    mistakes: tuple[Mistake, ...] = ()
    figure: Callable | None = None  # figure(expected, got) -> a figure display, from the first case
    teaching: Callable | None = None  # the minimal solution a chapter shows: the loop or array lines, no checks
    case_seconds: float = CASE_SECONDS

    # -- reading a result ----------------------------------------------------------

    def _fields_of(self, value) -> dict:
        """The reader's result split into fields; _Unreadable when it is not in that form."""
        if len(self.fields) == 1 and not (isinstance(value, Mapping) and self.fields[0].name in value):
            return {self.fields[0].name: value}
        names = [f.name for f in self.fields]
        out = {}
        for name in names:
            if isinstance(value, Mapping):
                if name not in value:
                    raise _Unreadable(_("has no {key}: return a dict with the keys {keys}").format(
                        key=repr(name), keys=", ".join(names)))
                out[name] = value[name]
            elif hasattr(value, name):
                out[name] = getattr(value, name)
            else:
                what = _nothing(value) or _("is a {type}").format(type=_type_name(value))
                raise _Unreadable(_("{what}; return a dict with the keys {keys}").format(what=what, keys=", ".join(names)))
        return out

    def expected(self, case: Case) -> dict:
        """The engine's fields for ``case``."""
        value = self.reference(*copy.deepcopy(case.args), **copy.deepcopy(dict(case.kwargs)))
        out = self._fields_of(value)
        return {f.name: (np.asarray(out[f.name]) if f.kind != "exact" else out[f.name]) for f in self.fields}

    def _compare(self, outcome: Outcome, expected: dict) -> Difference | None:
        """The first field that differs (None when all agree)."""
        if outcome.status != "returned":
            return Difference("", "", outcome.status, None, None, outcome.error)
        missing = None
        try:
            got = self._fields_of(outcome.value)
        except _Unreadable as why:
            got = self._present(outcome.value)
            if not got:
                return Difference("", "your result", "unreadable", None, None, _("Your result {why}.").format(why=why))
            missing = why  # a partial answer: its keys are compared first, in order
        for f in self.fields:
            if f.name not in got:
                continue
            try:
                g = _exact(got[f.name], expected[f.name]) if f.kind == "exact" else _as_array(f, got[f.name], expected[f.name])
                diff = _first_difference(f, g, expected[f.name])
            except _Unreadable as why:
                return Difference(f.name, f.label, "unreadable", None, None, _("{label} ({name}) {why}.").format(
                    label=_(f.label), name=repr(f.name), why=why))
            except Exception as err:  # a reader's object that misbehaves when compared
                return Difference(f.name, f.label, "unreadable", None, None,
                                  _("{label} ({name}) could not be compared ({error}).").format(
                                      label=_(f.label), name=repr(f.name), error=type(err).__name__))
            if diff is not None:
                where, e, g_ = diff
                note = _sum_note(f, g) if f.kind == "float" else ""
                at = _("'s length") if where == "length" else _(" at {where}").format(where=where)
                shown_e, shown_g = _shown_pair(e, g_, _num if f.kind != "exact" else repr)
                text = _("{label}{at}: expected {expected}, got {got}.{note}").format(
                    label=_(f.label), at=at if where else "", expected=shown_e, got=shown_g, note=note)
                return Difference(f.name, f.label, "differs", e, g_, text)
        if missing is not None:
            first = next(f.name for f in self.fields if f.name not in got)
            return Difference("", "your result", "unreadable", None, None,
                              _("Your result {why}. The keys you returned ({keys}) agree with the engine's; "
                                "write {first} next.").format(why=missing, keys=", ".join(map(repr, got)),
                                                              first=repr(first)))
        return None

    def _present(self, value) -> dict:
        """The fields a dict holds, in the exercise's order (a partial answer), or {}."""
        if len(self.fields) < 2 or not isinstance(value, Mapping):
            return {}
        return {f.name: value[f.name] for f in self.fields if f.name in value}

    def _same(self, a: Outcome, b: Outcome) -> bool:
        """Whether two runs gave the same result (both raising the same error type counts)."""
        if a.status != b.status:
            return False
        if a.status != "returned":
            return a.status in ("raised", "memory") and a.error_type == b.error_type
        try:
            fa, fb = self._fields_of(a.value), self._fields_of(b.value)
            for f in self.fields:
                if f.kind == "exact":
                    ea, eb = fa[f.name], fb[f.name]
                    if isinstance(eb, Mapping):
                        ea, eb = _exact(ea, eb), _exact(eb, eb)
                    elif isinstance(eb, tuple):
                        ea = _exact(ea, eb)
                    if ea != eb:
                        return False
                    continue
                x, y = np.asarray(fa[f.name]), np.asarray(fb[f.name])
                if x.shape != y.shape or x.dtype.kind != y.dtype.kind:
                    return False
                if f.kind == "float":
                    rtol, atol = _field_tolerances(f, x, y)
                    if not np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True):
                        return False
                elif not np.array_equal(x, y):
                    return False
        except Exception:
            return False
        return True

    # -- checking -----------------------------------------------------------------

    def _run(self, fn, case: Case) -> Outcome:
        """One bounded run of ``fn`` on a fresh copy of ``case``'s inputs; a run that
        allocates more than the case allows becomes a "memory" outcome, and one that
        changes its inputs a "mutated" one (:func:`_input_changed`)."""
        args, kwargs = copy.deepcopy(case.args), copy.deepcopy(dict(case.kwargs))
        out = run(fn, args, kwargs=kwargs, seconds=self.case_seconds, measure=case.max_bytes is not None)
        changed = _input_changed(fn, case, args, kwargs) if out.status == "returned" else None
        if changed is not None:
            return Outcome("mutated", error=changed, error_type="mutated", seconds=out.seconds,
                           peak_bytes=out.peak_bytes, printed=out.printed)
        if case.max_bytes is not None and out.status == "returned" and out.peak_bytes > case.max_bytes:
            return Outcome("memory", error=_("your function allocated {peak} MB at once, more than the {limit} MB "
                                             "{budget}.").format(peak=f"{out.peak_bytes / 1e6:.1f}",
                                                                limit=f"{case.max_bytes / 1e6:.1f}", budget=case.budget),
                           error_type="memory",
                           seconds=out.seconds, peak_bytes=out.peak_bytes, printed=out.printed)
        return out

    def check(self, fn) -> CheckResult:
        """Run ``fn`` on every case and compare it with the engine; never raises for
        anything ``fn`` does."""
        if not callable(fn):
            return CheckResult(self, "not callable", _("{type} is not a function: pass the function itself, "
                                                       "{call}, without calling it.").format(
                type=_type_name(fn), call=f"check({self.name!r}, {self.name})"))
        cases = self.cases()
        _warm_up(fn)  # a slow first import inside fn is not the reader's loop: do it untimed
        outcomes: list[Outcome] = []
        spent = 0.0
        for k, case in enumerate(cases):
            if spent > TOTAL_SECONDS:
                break
            out = self._run(fn, case)
            spent += out.seconds
            outcomes.append(out)
            if out.status == "refused":
                return CheckResult(self, "refused", out.error)
            if k == 0 and out.status == "returned" and (out.value is Ellipsis or out.value is None) and _is_stub(fn):
                return CheckResult(self, "not written yet",
                                   _("Not written yet: your {name} returns {value}. Replace the `...` with your "
                                     "code (ending in a return), run its cell, then run this one again.").format(
                                       name=self.name, value=repr(out.value)),
                                   printed=out.printed)
            if k == 0 and out.status == "raised" and out.error_type == "NotImplementedError":
                return CheckResult(self, "not written yet", _("Not written yet: your {name} raises "
                                   "NotImplementedError. Write its body, then run this cell again.").format(
                                       name=self.name),
                                   printed=out.printed)
            if out.status == "timeout" or out.error_type == "KeyboardInterrupt":  # the reader stopped it: run no more
                break
        expected = [self.expected(c) for c in cases[:len(outcomes)]]
        first = next(((k, d) for k, (o, e) in enumerate(zip(outcomes, expected))
                      if (d := self._compare(o, e)) is not None), None)
        printed = next((o.printed for o in outcomes if o.printed.total), None)
        if first is None:
            if len(outcomes) < len(cases):
                return CheckResult(self, "timeout", _("Your function took more than {seconds} s over {done} of "
                                                      "{total} cases (a slow import or file read inside the function "
                                                      "counts too); the rest were not run.").format(
                    seconds=f"{TOTAL_SECONDS:g}", done=len(outcomes), total=len(cases)), printed=printed)
            return CheckResult(self, "passed", _("Passed: your {name} agrees with the engine on {first} and on "
                                                 "{more}.").format(name=self.name, first=_(cases[0].label),
                                                                   more=_more_cases(cases[1:])), cases=cases,
                               outcomes=tuple(outcomes), expected=tuple(expected), printed=printed)
        k, diff = first
        mistake = self._diagnose(cases[:len(outcomes)], outcomes) if len(outcomes) == len(cases) else None
        status = {"raised": "raised", "timeout": "timeout"}.get(diff.status, "differs")
        return CheckResult(self, status, "", case=cases[k], case_index=k, difference=diff, mistake=mistake,
                           outcome=outcomes[k], cases=cases, outcomes=tuple(outcomes), expected=tuple(expected),
                           printed=printed)

    def _diagnose(self, cases, outcomes) -> Mistake | None:
        """The known mistake whose output equals the reader's on every case, if one does.
        Each mistake runs on the cases the reader's function ran fastest first: most
        mistakes differ on the first case tried, so a large case (a real model's layer)
        runs only for a mistake that matched the small ones."""
        order = sorted(range(len(cases)), key=lambda k: outcomes[k].seconds)
        for m in self.mistakes:
            if all(cases[k].label in m.skip or self._same(outcomes[k], self._run(m.fn, cases[k])) for k in order):
                return m
        return None
