"""Running a reader's function with bounded time and bounded output.

A function typed in a notebook may raise, print a million lines or never return. The
checker runs it through :func:`run`, which gives back an :class:`Outcome` instead of
letting any of that reach the reader as a traceback from the checker or a stuck kernel:

- **time**: ``signal.setitimer`` arms a timer in the main thread; when it fires the
  handler raises :class:`_Timeout` inside the reader's code, and keeps firing every
  ``RETRY`` seconds. Once one has been caught (a bare ``except:`` in the reader's
  loop), every line runs under a trace function that raises it again, so the handler
  that caught it raises outside its ``try`` and the loop cannot swallow it. A thread
  cannot be stopped from outside, so where there is no ``SIGALRM`` or the check runs
  outside the main thread, :func:`run` refuses at once and says why. One long numpy
  call (a single C loop) is interrupted only when it returns to Python.
- **output**: what the function prints goes into a :class:`CappedText`, which keeps the
  first ``limit`` characters and counts the rest.

>>> out = run(lambda: print("hi") or 3, (), seconds=1.0)
>>> out.status, out.value, out.printed.text
('returned', 3, 'hi\\n')
>>> run(lambda: 1 / 0, (), seconds=1.0).error
'ZeroDivisionError: division by zero'
"""

from __future__ import annotations

import contextlib
import io
import signal
import sys
import threading
import time
import traceback
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..i18n import _

__all__ = ["CappedText", "Outcome", "can_bound_time", "run"]

#: How often the timer fires again once the time is up (seconds).
RETRY = 0.05
#: Characters of printed output kept (the rest is counted, not kept).
PRINT_LIMIT = 2_000
#: Characters of an error message kept.
ERROR_LIMIT = 300

_HERE = str(Path(__file__).resolve().parent)


class _Timeout(BaseException):
    """Raised inside the reader's function when its time is up (a BaseException, so
    ``except Exception`` in the reader's code does not catch it)."""


class CappedText(io.TextIOBase):
    """A text stream that keeps the first ``limit`` characters written and counts all.

    >>> s = CappedText(limit=3); _ = s.write("abcdef"); s.text, s.total
    ('abc', 6)
    """

    def __init__(self, limit: int = PRINT_LIMIT):
        super().__init__()
        self.limit = limit
        self.total = 0
        self._parts: list[str] = []
        self._kept = 0

    def writable(self) -> bool:
        return True

    def write(self, s) -> int:
        s = s if isinstance(s, str) else str(s)
        self.total += len(s)
        room = self.limit - self._kept
        if room > 0:
            self._parts.append(s[:room])
            self._kept += min(room, len(s))
        return len(s)

    @property
    def text(self) -> str:
        return "".join(self._parts)

    def summary(self) -> str:
        """What was printed, cut: empty when nothing was."""
        if not self.total:
            return ""
        if self.total <= self.limit:
            return self.text
        return self.text + "\n" + _("… ({n} more characters printed, not shown)").format(
            n=f"{self.total - self.limit:,}")


@dataclass(frozen=True)
class Outcome:
    """What one run of a reader's function did."""

    status: str  # "returned", "raised", "timeout" or "refused"
    value: Any = None  # what it returned
    error: str = ""  # "ZeroDivisionError: division by zero", the reason for a refusal
    error_type: str = ""  # "ZeroDivisionError"
    where: str = ""  # "line 3, in my_fn": the reader's last line that ran
    seconds: float = 0.0
    peak_bytes: int = 0  # the most memory Python and numpy held at once during the call (when measured)
    printed: CappedText = field(default_factory=CappedText, repr=False)


def can_bound_time() -> str | None:
    """None when :func:`run` can stop a function that runs too long here, else why not.

    >>> can_bound_time() is None   # a doctest runs in the main thread
    True
    """
    if not hasattr(signal, "setitimer") or not hasattr(signal, "SIGALRM"):
        return _("this Python has no SIGALRM timer (Windows?), so a function that never returns could not be stopped")
    if threading.current_thread() is not threading.main_thread():
        return _("the check is running outside the main thread, where no timer can interrupt it; "
                 "call it from a notebook cell or a script's main thread")
    return None


def _short(text: str, limit: int = ERROR_LIMIT) -> str:
    return text if len(text) <= limit else text[:limit] + " …"


def _describe(err: BaseException) -> tuple[str, str, str]:
    """``(message, type name, the reader's last line)`` of an exception, never raising."""
    name = type(err).__name__
    try:
        said = str(err)
    except Exception:
        said = "(its message could not be shown)"
    where = ""
    try:
        frames = [f for f in traceback.extract_tb(err.__traceback__) if not f.filename.startswith(_HERE)]
        if frames:
            f = frames[-1]
            where = f"line {f.lineno}, in {f.name}" + (f": {f.line.strip()}" if f.line else "")
    except Exception:
        pass
    return _short(f"{name}: {said}" if said else name), name, _short(where, 160)


def run(fn: Callable, args: tuple, *, seconds: float, kwargs: dict | None = None, measure: bool = False) -> Outcome:
    """Call ``fn(*args, **kwargs)`` with at most ``seconds`` of wall time and its printed
    output captured; never raises for what ``fn`` does. With ``measure``, the peak of
    what the call allocates is traced (``tracemalloc``, which numpy reports to).

    >>> import numpy as np
    >>> run(lambda: np.ones(10**6).sum(), (), seconds=1.0, measure=True).peak_bytes >= 8 * 10**6
    True
    >>> run(lambda: time.sleep(5), (), seconds=0.1).status
    'timeout'
    """
    printed = CappedText()
    why_not = can_bound_time()
    if why_not is not None:
        return Outcome("refused", error=_("The checker cannot bound the time of your function: {why}.").format(
                           why=why_not),
                       printed=printed)
    state = {"armed": True, "fired": False}
    old_trace = sys.gettrace()

    def on_line(frame, event, arg):
        if state["armed"] and event == "line":
            raise _Timeout()
        return on_line if state["armed"] else None

    def on_alarm(signum, frame):
        if state["armed"]:
            if state["fired"]:  # the first _Timeout was caught: raise on every line from now on,
                sys.settrace(on_line)  # so the handler that caught it raises again, outside its try
                f = frame
                while f is not None:
                    f.f_trace = on_line
                    f = f.f_back
            state["fired"] = True
            raise _Timeout()

    old = signal.signal(signal.SIGALRM, on_alarm)
    start = time.perf_counter()
    value, err, peak = None, None, 0
    tracing = measure and not tracemalloc.is_tracing()
    if tracing:
        tracemalloc.start()
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds, RETRY)
        try:
            with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
                value = fn(*args, **(kwargs or {}))
        except BaseException as caught:  # whatever the reader's code does, it becomes a message
            err = caught
        finally:
            state["armed"] = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            sys.settrace(old_trace)
    except _Timeout:  # fired between the call's end and the timer's cancel
        state["fired"] = True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if tracing:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
    took = time.perf_counter() - start
    if state["fired"]:
        return Outcome("timeout", error=f"did not return within {seconds:g} s", seconds=took, printed=printed)
    if err is not None:
        message, name, where = _describe(err)
        return Outcome("raised", error=message, error_type=name, where=where, seconds=took, printed=printed)
    return Outcome("returned", value=value, seconds=took, peak_bytes=peak, printed=printed)
