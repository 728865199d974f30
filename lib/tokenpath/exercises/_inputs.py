"""Whether a reader's function changed the inputs it was given: the checker runs it on
copies of a case's arguments and, after the run, compares each copy with the case's own
value (cheap: one comparison per argument). A function that pops the words of the table
it counts, or shifts the logits in place, gets a sentence naming the argument it changed.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping

import numpy as np

from ..i18n import _

__all__ = ["input_changed"]


def _same_value(a, b) -> bool:
    """Whether an input is unchanged: arrays element by element (numbers bit for bit, so a
    NaN is equal to the same NaN), dicts, lists and tuples item by item, numbers, strings
    and sets by ``==``; any other object (and a value that cannot be compared) counts as
    unchanged."""
    try:
        if isinstance(b, np.ndarray):
            if not (isinstance(a, np.ndarray) and a.shape == b.shape and a.dtype == b.dtype):
                return False
            if a.dtype.kind in "biufc" and a.dtype.itemsize in (1, 2, 4, 8) and a.flags.c_contiguous \
                    and b.flags.c_contiguous:  # as unsigned integers: a tenth of the time of
                kind = np.dtype(f"u{a.dtype.itemsize}")  # array_equal with equal_nan on a real layer
                return bool(np.array_equal(a.view(kind), b.view(kind)))
            return np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
        if isinstance(b, Mapping):
            return isinstance(a, Mapping) and list(a.keys()) == list(b.keys()) and \
                all(_same_value(a[k], b[k]) for k in b)
        if isinstance(b, (list, tuple)):
            return type(a) is type(b) and len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
        if isinstance(b, (set, bytearray, str, bytes, int, float, complex, np.generic)):
            return bool(a == b) or (a != a and b != b)  # NaN is unchanged
        return True  # an engine object (a tokenizer): its caches may change, its content is not the reader's to edit
    except Exception:
        return True


def input_changed(fn, case, args: tuple, kwargs: dict) -> str | None:
    """What the reader's ``fn`` changed in the inputs it was given (``args``, ``kwargs``,
    copies of ``case``'s), named by the function's own parameter names, or None.

    >>> from types import SimpleNamespace
    >>> def drain(words):
    ...     return {k: words.pop(k) for k in list(words)}
    >>> input_changed(drain, SimpleNamespace(args=({"a": 1},), kwargs={}), ({},), {})
    'your function changed its input `words`; a caller may still need it as it was. Work on a copy, or build a new value.'
    """
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []
    changed = [names[k] if k < len(names) else _("argument {n}").format(n=k + 1)
               for k, (a, b) in enumerate(zip(args, case.args)) if not _same_value(a, b)]
    changed += [k for k, v in kwargs.items() if k in case.kwargs and not _same_value(v, case.kwargs[k])]
    if not changed:
        return None
    what = ", ".join(f"`{n}`" for n in changed)
    if len(changed) == 1:
        return _("your function changed its input {what}; a caller may still need it as it was. Work on a copy, "
                 "or build a new value.").format(what=what)
    return _("your function changed its input {what}; a caller may still need them as it was. Work on a copy, "
             "or build a new value.").format(what=what)  # English as before translation existed
