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
import sys
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..i18n import _
from ._inputs import input_changed as _input_changed
from .compare import (KINDS, Field, _as_array, _exact, _field_tolerances, _first_difference, _nothing, _num,
                      _shown_pair, _sum_note, _type_name, _Unreadable)
from ._running import Outcome, run
from .result import CheckResult, Difference

__all__ = ["KINDS", "Case", "Exercise", "Field", "Mistake"]

#: Seconds one case may take, and all cases of one check together.
CASE_SECONDS, TOTAL_SECONDS = 2.0, 10.0


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
