"""How the book writes numbers: one formatter for prose, printed output, figure labels
and alt text, so the same value always reads the same way.

* ``num(x, 3)`` keeps exactly three decimals (``0.670``), as a rounded hand value;
* ``num(x)`` writes the shortest clean form (``1.5``, ``10``, ``-1``);
* ``frac(x)`` writes a small exact fraction (``1/3``) and refuses values that are not one;
* ``vec``/``mat`` bracket those, comma-separated, the way the prose writes vectors.
"""

from __future__ import annotations

import numbers
from fractions import Fraction

import numpy as np

from ._checks import as_bool, as_int, as_real_array

__all__ = ["frac", "mat", "num", "print_options", "subscript", "vec"]

MINUS = "\N{MINUS SIGN}"
_SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _number(name: str, x) -> float:
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x.item()
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(x).__name__}")
    return float(x)


def _text(name: str, x) -> str:
    if not isinstance(x, str):
        raise TypeError(f"{name} must be a str, got {type(x).__name__}")
    return x


def _array(name: str, x, ndim: int) -> np.ndarray:
    arr = as_real_array(name, x)
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {arr.shape}")
    if np.isnan(arr).any():
        raise ValueError(f"{name} holds NaN: nothing in the book should print NaN")
    return arr


def num(x, digits: int | None = None, *, minus: str = "-", bare_ints: bool = False) -> str:
    """Format one number. ``bare_ints`` writes exact integers without decimals even
    when ``digits`` is given, as in "exp ≈ [2.028, 1]".

    >>> num(0.66976, 3), num(1.5), num(10.0), num(-1.0), num(0.70710678, 4)
    ('0.670', '1.5', '10', '-1', '0.7071')
    >>> num(1.0, 3, bare_ints=True), num(2.0281, 3, bare_ints=True)
    ('1', '2.028')
    """
    x = _number("x", x)
    digits = None if digits is None else as_int("digits", digits, low=0, high=20)
    minus, bare_ints = _text("minus", minus), as_bool("bare_ints", bare_ints)
    if bare_ints and x.is_integer():
        digits = None
    if not np.isfinite(x):
        text = "∞" if x > 0 else f"{minus}∞"
        if np.isnan(x):
            raise ValueError("x is NaN: nothing in the book should print NaN")
        return text
    if digits is None:
        text = f"{x:.10f}".rstrip("0").rstrip(".")
    else:
        text = f"{x:.{digits}f}"
    if text in ("-0", "-0." + "0" * (digits or 0)):
        text = text[1:]
    return text.replace("-", minus)


def frac(x, max_denominator: int = 64, *, minus: str = "-") -> str:
    """Write ``x`` as an exact small fraction, or raise if it is not one.

    >>> frac(1 / 3), frac(2.0), frac(11 / 6), frac(0.0)
    ('1/3', '2', '11/6', '0')
    """
    x = _number("x", x)
    max_denominator = as_int("max_denominator", max_denominator, low=1)
    minus = _text("minus", minus)
    if not np.isfinite(x):
        raise ValueError(f"x must be finite to be written as a fraction, got {x}")
    f = Fraction(x).limit_denominator(max_denominator)
    if abs(float(f) - x) > 1e-12 * max(1.0, abs(x)):
        raise ValueError(f"x={x!r} is not a fraction with denominator <= {max_denominator}")
    text = str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"
    return text.replace("-", minus)


def vec(
    v, digits: int | None = None, *, fractions: bool = False, sep: str = ", ", bare_ints: bool = False
) -> str:
    """Bracket a 1-D array.

    >>> vec([0.669762, 0.330238], 3), vec([1.5, 1.0]), vec([1 / 3, 2 / 3, 0], fractions=True)
    ('[0.670, 0.330]', '[1.5, 1]', '[1/3, 2/3, 0]')
    """
    arr = _array("v", v, 1)
    fractions, sep = as_bool("fractions", fractions), _text("sep", sep)
    cell = frac if fractions else (lambda x: num(x, digits, bare_ints=bare_ints))
    return "[" + sep.join(cell(x) for x in arr) + "]"


def mat(
    m, digits: int | None = None, *, fractions: bool = False, sep: str = ", ", bare_ints: bool = False
) -> str:
    """Bracket a 2-D array row by row.

    >>> mat([[2, 0], [2 / 3, 2], [2, 2]], fractions=True)
    '[[2, 0], [2/3, 2], [2, 2]]'
    """
    arr = _array("m", m, 2)
    fractions, sep = as_bool("fractions", fractions), _text("sep", sep)
    return "[" + sep.join(
        vec(row, digits, fractions=fractions, sep=sep, bare_ints=bare_ints) for row in arr
    ) + "]"


def subscript(n) -> str:
    """Unicode subscript digits for an index, as in ``o₂`` or ``a₁u₁``.

    >>> "o" + subscript(2)
    'o₂'
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise TypeError(f"n must be a non-negative int index, got {n!r}")
    return str(int(n)).translate(_SUBSCRIPT)


def print_options():
    """The fixed NumPy print options every notebook uses, as a context-free dict.

    >>> print_options()["precision"]
    6
    """
    return {"precision": 6, "suppress": True, "linewidth": 88, "floatmode": "maxprec"}
