"""How the book writes numbers: one formatter for prose, printed output, figure labels
and alt text, so the same value always reads the same way.

* ``num(x, 3)`` keeps exactly three decimals (``0.670``), as a rounded hand value;
* ``num(x)`` writes the shortest clean form (``1.5``, ``10``, ``-1``);
* ``frac(x)`` writes a small exact fraction (``1/3``) and refuses values that are not one;
* ``vec``/``mat`` bracket those, comma-separated, the way the prose writes vectors.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

__all__ = ["frac", "mat", "num", "print_options", "subscript", "vec"]

MINUS = "\N{MINUS SIGN}"
_SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def num(x, digits: int | None = None, *, minus: str = "-", bare_ints: bool = False) -> str:
    """Format one number. ``bare_ints`` writes exact integers without decimals even
    when ``digits`` is given, as in "exp ≈ [2.028, 1]".

    >>> num(0.66976, 3), num(1.5), num(10.0), num(-1.0), num(0.70710678, 4)
    ('0.670', '1.5', '10', '-1', '0.7071')
    >>> num(1.0, 3, bare_ints=True), num(2.0281, 3, bare_ints=True)
    ('1', '2.028')
    """
    x = float(x)
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
    x = float(x)
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
    arr = np.asarray(v, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"v must be 1-D, got shape {arr.shape}")
    cell = frac if fractions else (lambda x: num(x, digits, bare_ints=bare_ints))
    return "[" + sep.join(cell(x) for x in arr) + "]"


def mat(
    m, digits: int | None = None, *, fractions: bool = False, sep: str = ", ", bare_ints: bool = False
) -> str:
    """Bracket a 2-D array row by row.

    >>> mat([[2, 0], [2 / 3, 2], [2, 2]], fractions=True)
    '[[2, 0], [2/3, 2], [2, 2]]'
    """
    arr = np.asarray(m, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"m must be 2-D, got shape {arr.shape}")
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
