"""Reading a reader's result and comparing it with the engine's, field by field: each
:class:`Field` is read as an array of its kind (``float``, ``bool``, ``int``, ``exact``),
checked for shape and dtype, and compared within the tolerance its dtype allows; the first
entry that differs is named by the chapter's axes (``A at [i=1, j=0]``), with a hint when a
shape, a sum or a kept axis shows what went wrong (:mod:`.checker` runs the cases).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..i18n import _

__all__ = ["ATOL", "KINDS", "RTOL", "ULPS", "Field"]

#: The kinds of value a field holds, and how each is compared.
KINDS = ("float", "bool", "int", "exact")
#: Relative and absolute tolerance for floating-point fields computed in float64.
RTOL, ATOL = 1e-6, 1e-9
#: Units of rounding (eps of the dtype) a result in a coarser dtype (float32, float16) may be off by.
ULPS = 32


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
    axis = ((_("the {name} axis").format(name=f.axes[-2]) if len(f.axes) >= 2 else _("the first axis"))
            if columns else "")
    if where:
        note = (_(" Row {where} of {name} sums to {sum}, not 1: its columns sum to 1, so softmax ran over {axis}, "
                  "not over the sources.") if columns else _(" Row {where} of {name} sums to {sum}, not 1."))
    else:
        note = (_(" The entries of {name} sum to {sum}, not 1: its columns sum to 1, so softmax ran over {axis}, "
                  "not over the sources.") if columns else _(" The entries of {name} sum to {sum}, not 1."))
    return note.format(where=where, name=name, sum=_num(rows[bad]), axis=axis)
