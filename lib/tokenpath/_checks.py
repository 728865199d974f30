"""Input checks shared by the engine.

Every public function validates what it is given and raises an error that names the
argument and says what was expected, so a wrong axis or an empty mask row fails at the
call instead of turning into NaN three cells later.
"""

from __future__ import annotations

import numbers

import numpy as np


def as_array(name: str, x) -> np.ndarray:
    """``np.asarray(x)``, with numpy's own complaints about ragged nesting or
    unconvertible items turned into an error naming ``name``.

    >>> as_array("q", [[1, 2], [3]])
    Traceback (most recent call last):
    ...
    ValueError: q must be a rectangular array, but its nested lists have different lengths
    """
    if isinstance(x, np.ndarray):
        return x
    try:
        return np.asarray(x)
    except ValueError as err:
        if "inhomogeneous" in str(err) or "sequence" in str(err):
            raise ValueError(f"{name} must be a rectangular array, but its nested lists have different lengths") from None
        raise ValueError(f"{name} cannot be read as an array ({err})") from None
    except (TypeError, OverflowError) as err:
        raise TypeError(f"{name} cannot be read as an array ({err})") from None


def _read_only(arr: np.ndarray, dtype) -> np.ndarray:
    """``arr`` as ``dtype``, read-only: a view when it already has that dtype (a model's
    weights are not copied on every call), a converted copy otherwise. The engine never
    writes into a checked input, and the flag makes a write fail loudly if it tried.

    >>> a = np.zeros(2)
    >>> v = _read_only(a, np.float64)
    >>> np.shares_memory(a, v), v.flags.writeable, a.flags.writeable
    (True, False, True)
    """
    out = arr.astype(dtype, copy=False).view()
    out.flags.writeable = False
    return out


def as_float_array(name: str, x, *, min_ndim: int = 0, ndim: int | None = None) -> np.ndarray:
    """Return ``x`` as a finite, read-only float64 array (a view of ``x`` when it is one
    already), or raise naming ``name``.

    >>> as_float_array("q", [[1, 0]]).dtype
    dtype('float64')
    >>> as_float_array("q", [1.0, float("nan")])
    Traceback (most recent call last):
    ...
    ValueError: q must be finite; found non-finite value(s) at index (1,)
    """
    if isinstance(x, (str, bytes)) or x is None:
        raise TypeError(f"{name} must be a numeric array, got {type(x).__name__}")
    arr = as_array(name, x)
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.bool_)
    ):
        raise TypeError(f"{name} must be a numeric array, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"{name} must be real-valued, got dtype {arr.dtype}")
    arr = _read_only(arr, np.float64)
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


def as_real_array(name: str, x) -> np.ndarray:
    """Return ``x`` as a float64 array that may hold ``±inf`` or NaN (for callers that
    give those a meaning, such as a softmax's ``-inf``), or raise naming ``name``.

    >>> as_real_array("x", [0, float("-inf")]).tolist()
    [0.0, -inf]
    """
    if isinstance(x, (str, bytes)) or x is None:
        raise TypeError(f"{name} must be a numeric array, got {type(x).__name__}")
    arr = as_array(name, x)
    if arr.dtype == object or np.issubdtype(arr.dtype, np.complexfloating) or not (
        np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.bool_)
    ):
        raise TypeError(f"{name} must be a real numeric array, got dtype {arr.dtype}")
    return _read_only(arr, np.float64)


def as_bool_array(name: str, x) -> np.ndarray:
    """Return ``x`` as a boolean array; accept 0/1 integers but not other numbers.

    >>> as_bool_array("mask", [1, 0]).tolist()
    [True, False]
    """
    arr = as_array(name, x)
    if arr.dtype == np.bool_ or (np.issubdtype(arr.dtype, np.integer) and np.isin(arr, (0, 1)).all()):
        return _read_only(arr, bool)
    raise TypeError(f"{name} must be a boolean array (True = visible), got dtype {arr.dtype}")


def as_int_array(name: str, x, *, ndim: int | None = None, low: int | None = None) -> np.ndarray:
    """Return ``x`` as an int64 array, rejecting floats, bools and values below ``low``.

    >>> as_int_array("ids", [3, 7, 3, 2]).tolist()
    [3, 7, 3, 2]
    """
    arr = as_array(name, x)
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        if arr.size == 0 and arr.dtype == np.float64:
            arr = arr.astype(np.int64)
        else:
            raise TypeError(f"{name} must hold integers, got dtype {arr.dtype}")
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} axes, got shape {arr.shape}")
    if low is not None and arr.size and arr.min() < low:
        raise ValueError(f"{name} must be >= {low}, got {arr.min()}")
    return _read_only(arr, np.int64)


_INT64_MAX = 2**63 - 1


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
    if abs(x) > _INT64_MAX:  # numpy would fail on it with a message of its own
        raise ValueError(f"{name} must fit in 64 bits, got an integer of {x.bit_length()} bits")
    if low is not None and x < low:
        raise ValueError(f"{name} must be >= {low}, got {x}")
    if high is not None and x > high:
        raise ValueError(f"{name} must be <= {high}, got {x}")
    return x


def as_pair_width(name: str, x) -> int:
    """Return ``x`` as a feature width that splits into pairs (an even integer >= 2),
    or raise naming ``name``.

    >>> as_pair_width("head_dim", 4)
    4
    >>> as_pair_width("head_dim", 3)
    Traceback (most recent call last):
    ...
    ValueError: head_dim must be even (features are used in pairs), got 3
    """
    x = as_int(name, x, low=2)
    if x % 2:
        raise ValueError(f"{name} must be even (features are used in pairs), got {x}")
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


def as_bool(name: str, x) -> bool:
    """Return ``x`` if it is ``True`` or ``False`` (or a numpy bool), else raise naming ``name``.

    >>> as_bool("lowercase", True)
    True
    >>> as_bool("lowercase", "yes")
    Traceback (most recent call last):
    ...
    TypeError: lowercase must be True or False, got str
    """
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    raise TypeError(f"{name} must be True or False, got {type(x).__name__}")


def as_list(name: str, x, what: str = "items", *, item=None) -> list:
    """Return the items of a list-like ``x`` (not a string, bytes, mapping or scalar) as a
    list, each checked by ``item(k, value)`` if given, or raise naming ``name``.

    >>> as_list("merges", [("a", "b")])
    [('a', 'b')]
    >>> as_list("merges", 7, "pairs")
    Traceback (most recent call last):
    ...
    TypeError: merges must be a list of pairs, got int
    """
    from collections.abc import Iterable, Mapping

    if isinstance(x, (str, bytes, Mapping)) or not isinstance(x, Iterable):
        raise TypeError(f"{name} must be a list of {what}, got {type(x).__name__}")
    if isinstance(x, np.ndarray) and x.ndim != 1:
        raise TypeError(f"{name} must be a list of {what}, got an array of shape {x.shape}")
    out = list(x)
    if item is not None:
        for k, v in enumerate(out):
            item(k, v)
    return out
