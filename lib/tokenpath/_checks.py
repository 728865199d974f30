"""Input checks shared by the engine.

Every public function validates what it is given and raises an error that names the
argument and says what was expected, so a wrong axis or an empty mask row fails at the
call instead of turning into NaN three cells later.
"""

from __future__ import annotations

import numbers

import numpy as np


def as_float_array(name: str, x, *, min_ndim: int = 0, ndim: int | None = None) -> np.ndarray:
    """Return ``x`` as a finite float64 array, or raise naming ``name``.

    >>> as_float_array("q", [[1, 0]]).dtype
    dtype('float64')
    >>> as_float_array("q", [1.0, float("nan")])
    Traceback (most recent call last):
    ...
    ValueError: q must be finite; found non-finite value(s) at index (1,)
    """
    if isinstance(x, (str, bytes)) or x is None:
        raise TypeError(f"{name} must be a numeric array, got {type(x).__name__}")
    arr = np.asarray(x)
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.bool_)
    ):
        raise TypeError(f"{name} must be a numeric array, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"{name} must be real-valued, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} axes, got shape {arr.shape}")
    if arr.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} axes, got shape {arr.shape}")
    if not np.isfinite(arr).all():  # the index is looked up only for the message
        bad = np.argwhere(~np.isfinite(arr))
        raise ValueError(
            f"{name} must be finite; found non-finite value(s) at index {tuple(int(i) for i in bad[0])}"
        )
    return arr


def as_bool_array(name: str, x) -> np.ndarray:
    """Return ``x`` as a boolean array; accept 0/1 integers but not other numbers.

    >>> as_bool_array("mask", [1, 0]).tolist()
    [True, False]
    """
    arr = np.asarray(x)
    if arr.dtype == np.bool_:
        return arr
    if np.issubdtype(arr.dtype, np.integer) and np.isin(arr, (0, 1)).all():
        return arr.astype(bool)
    raise TypeError(f"{name} must be a boolean array (True = visible), got dtype {arr.dtype}")


def as_int_array(name: str, x, *, ndim: int | None = None, low: int | None = None) -> np.ndarray:
    """Return ``x`` as an int64 array, rejecting floats, bools and values below ``low``.

    >>> as_int_array("ids", [3, 7, 3, 2]).tolist()
    [3, 7, 3, 2]
    """
    arr = np.asarray(x)
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        if arr.size == 0 and arr.dtype == np.float64:
            arr = arr.astype(np.int64)
        else:
            raise TypeError(f"{name} must hold integers, got dtype {arr.dtype}")
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} axes, got shape {arr.shape}")
    if low is not None and arr.size and arr.min() < low:
        raise ValueError(f"{name} must be >= {low}, got {arr.min()}")
    return arr.astype(np.int64)


def as_int(name: str, x, *, low: int | None = None, high: int | None = None) -> int:
    """Return ``x`` as a Python int in ``[low, high]``, or raise naming ``name``.

    >>> as_int("P", 3, low=0)
    3
    >>> as_int("d_h", 0, low=1)
    Traceback (most recent call last):
    ...
    ValueError: d_h must be >= 1, got 0
    """
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(x).__name__}")
    x = int(x)
    if low is not None and x < low:
        raise ValueError(f"{name} must be >= {low}, got {x}")
    if high is not None and x > high:
        raise ValueError(f"{name} must be <= {high}, got {x}")
    return x


def as_float(name: str, x, *, low: float | None = None) -> float:
    """Return ``x`` as a finite Python float (``low`` inclusive), or raise naming ``name``."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(x).__name__}")
    x = float(x)
    if not np.isfinite(x):
        raise ValueError(f"{name} must be finite, got {x}")
    if low is not None and x < low:
        raise ValueError(f"{name} must be >= {low}, got {x}")
    return x
