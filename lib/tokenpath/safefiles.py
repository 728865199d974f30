"""Files from a model folder read with bounds: a folder may come from anywhere, so
each of its files is opened only if it is a regular file of bounded size
(:func:`open_regular_file`: never a directory, a pipe, a device or a broken link), and
each JSON text in it is parsed with bounded depth and number sizes (:func:`parse_json`,
:func:`read_json`). Every refusal is a :class:`ModelFileError` naming the file."""

from __future__ import annotations

import errno
import json
import math
import os
import re
import reprlib
import stat
import sys
from pathlib import Path

__all__ = [
    "ModelFileError",
    "open_regular_file",
    "read_json",
]

#: JSON read from a model folder may nest at most this deep (the ``safetensors``
#: package stops at 128; a header needs 3, a config a handful).
MAX_JSON_DEPTH = 64
#: An integer in such JSON may have at most this many digits (2**64 has 20).
MAX_INT_DIGITS = 40


class ModelFileError(ValueError):
    """A model file that cannot be used as it is: the message names the file and the
    tensor or field at fault, and what was expected."""


def _fail(path, message: str):
    raise ModelFileError(f"{path}: {message}")


def as_path(name: str, value) -> Path:
    """``value`` as a :class:`~pathlib.Path`, or a ``TypeError`` naming the argument.

    >>> as_path("path", 5)
    Traceback (most recent call last):
    ...
    TypeError: path must be a path (str or os.PathLike), got int
    """
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path (str or os.PathLike), got {type(value).__name__}")
    try:
        text = os.fspath(value)
    except TypeError as err:  # an os.PathLike whose __fspath__ fails
        raise TypeError(f"{name} must be a path that gives text: {err}") from None
    if not isinstance(text, str):  # an os.PathLike that gives bytes
        raise TypeError(f"{name} must be a path that gives text, got {type(text).__name__}")
    if not text:
        raise ValueError(f"{name} must not be empty (an empty path would mean the current folder)")
    if "\x00" in text:
        raise ValueError(f"{name} {short_repr(text)} holds a NUL character, which no file name can")
    try:
        text.encode(sys.getfilesystemencoding(), "surrogateescape")
    except UnicodeEncodeError:
        raise ValueError(f"{name} {short_repr(text)} holds a character that is not text (a lone surrogate), "
                         "which no file name can") from None
    return Path(text)


class _ShortRepr(reprlib.Repr):
    def repr_int(self, x, level):
        if abs(x) < 10**30:
            return repr(x)
        bits = x.bit_length()
        if bits > 1_000_000:
            return f"<an integer of {bits} bits>"
        digits = int((bits - 1) * 0.30102999566398120) + 1  # without printing it: Python stops at 4300 digits
        return f"<an integer of {digits + (abs(x) >= 10**digits)} digits>"


_SHORT = _ShortRepr()
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxstring, _SHORT.maxother = 3, 6, 4, 60, 60


def short_repr(value) -> str:
    """``repr(value)`` cut to a few dozen characters, for error messages about values
    read from a file (which may be huge or deeply nested).

    >>> short_repr(list(range(100))), short_repr(10**5000)
    ('[0, 1, 2, 3, 4, 5, ...]', '<an integer of 5001 digits>')
    """
    return _SHORT.repr(value)


# ----------------------------------------------------------- files and JSON, bounded


def open_regular_file(path, *, max_bytes: int | None = None, what: str = "file"):
    """Open ``path`` for reading in binary mode, if it is a regular file (a symbolic
    link to one is followed) of at most ``max_bytes`` bytes; otherwise raise a
    :class:`ModelFileError` that names the file and what it is instead: missing, a
    dangling or looping link, a directory, a named pipe, a device, too large.

    Every reader of a model folder opens its files through here, so that nothing
    waits on a pipe or reads a device without end.

    >>> import tempfile
    >>> open_regular_file(tempfile.mkdtemp())
    Traceback (most recent call last):
    ...
    tokenpath.safefiles.ModelFileError: ...: is a directory, not a file
    """
    path = as_path("path", path)
    if max_bytes is not None and (isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0):
        raise TypeError(f"max_bytes must be a non-negative integer or None, got {short_repr(max_bytes)}")
    _check_what(what)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            _fail(path, f"is a symbolic link to {short_repr(os.readlink(path))}, which does not exist")
        _fail(path, "no such file")
    except OSError as err:
        if err.errno == errno.ELOOP:
            _fail(path, "is a symbolic link that loops (it leads back to itself)")
        _fail(path, f"cannot be read ({err.strerror})")
    except ValueError as err:  # an embedded NUL byte
        _fail(path, f"is not a usable file name ({err})")
    if not stat.S_ISREG(st.st_mode):
        kind = ("a directory, not a file" if stat.S_ISDIR(st.st_mode) else
                "a named pipe (FIFO), not a regular file" if stat.S_ISFIFO(st.st_mode) else
                "a device, not a regular file" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else
                "a socket, not a regular file" if stat.S_ISSOCK(st.st_mode) else "not a regular file")
        _fail(path, f"is {kind}")
    if max_bytes is not None and st.st_size > max_bytes:
        _fail(path, f"has {st.st_size:,} bytes, more than the {max_bytes:,} this reader accepts for a {what}")
    try:  # O_NONBLOCK: should the file have become a pipe since the check, do not wait on it
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as err:
        _fail(path, f"cannot be read ({err.strerror})")
    f = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # pragma: no cover - replaced between the two looks
        f.close()
        _fail(path, "is not a regular file")
    return f


def _check_what(what) -> None:
    if not isinstance(what, str):
        raise TypeError(f"what must be a str naming the kind of file (for messages), got {type(what).__name__}")


def _read_bounded(path, max_bytes: int, what: str) -> bytes:
    chunks, total = [], 0
    with open_regular_file(path, max_bytes=max_bytes, what=what) as f:
        want = os.fstat(f.fileno()).st_size + 1  # one more, to see a file that grew
        while chunk := _read(path, f, want):  # a file that grows (or lies about its size) is cut off at the limit
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                _fail(path, f"has more than the {max_bytes:,} bytes this reader accepts for a {what}")
            want = min(1 << 16, max_bytes + 1 - total)
    return b"".join(chunks)


def _read(path, f, n: int) -> bytes:
    try:
        return f.read(n)
    except OSError as err:  # e.g. EIO from a special file that claims to be regular (/proc/self/mem)
        _fail(path, f"cannot be read ({err.strerror or err})")


class _JSONRefusal(Exception):
    """Raised inside the JSON parser's hooks; turned into a ModelFileError with the file."""


def _parse_int(text: str):
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _JSONRefusal(f"has an integer of {len(text.lstrip('-'))} digits (at most {MAX_INT_DIGITS} are read)",
                           text)
    return int(text)


def _parse_float(text: str):
    value = float(text)
    if not math.isfinite(value):
        raise _JSONRefusal(f"has the number {short_repr(text)}, too large for a float", text)
    return value


def _parse_constant(text: str):
    raise _JSONRefusal(f"has {text}, which is not a JSON number", text)


def _unique_keys(pairs):
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        for k, _ in pairs:
            if k in seen:
                raise _JSONRefusal(f"has the key {short_repr(k)} twice in one object", json.dumps(k))
            seen.add(k)
    return out


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _field_near(text: str, needle: str | None) -> str:
    """The last object key before ``needle`` in ``text``, for an error message."""
    if not needle:
        return ""
    at = text.find(needle)
    if at < 0:
        return ""
    keys = re.findall(r'"((?:[^"\\]|\\.){0,200})"\s*:', text[max(0, at - 4000):at])
    return f" (field {keys[-1]!r})" if keys else ""


def _check_nesting(path, value, max_depth: int, check_text: bool) -> None:
    """Walk the parsed value without recursion: no deeper than ``max_depth``, and (if
    the text had surrogate escapes) no string that is not Unicode text."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, (dict, list)):
            if depth > max_depth:
                _fail(path, f"not valid JSON here: nested more than {max_depth} levels deep")
            if isinstance(v, dict):
                if check_text:
                    stack.extend((k, depth) for k in v)
                stack.extend((x, depth + 1) for x in v.values())
            else:
                stack.extend((x, depth + 1) for x in v)
        elif check_text and isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                _fail(path, f"not valid JSON here: the string {short_repr(v)} holds a lone surrogate "
                            "escape (\\ud800–\\udfff), which is not text")


def parse_json(path, raw: bytes, *, max_depth: int = MAX_JSON_DEPTH, max_containers: int | None = None,
               parse_int=_parse_int):
    """Parse ``raw`` (the bytes of ``path``) as UTF-8 JSON, or raise a
    :class:`ModelFileError` naming the file: not UTF-8, not JSON, nested deeper than
    ``max_depth``, more than ``max_containers`` arrays and objects (if given: each costs
    memory far beyond its two bytes of text), NaN or Infinity, a float that overflows,
    an integer of more than :data:`MAX_INT_DIGITS` digits, a key repeated in one object,
    a lone surrogate."""
    if not isinstance(raw, (bytes, bytearray)):
        raise TypeError(f"raw must be bytes, got {type(raw).__name__}")
    _check_limit("max_containers", max_containers)
    # counted before parsing, brackets inside strings too: an upper bound on what parsing would build
    if max_containers is not None and raw.count(b"[") + raw.count(b"{") > max_containers:
        _fail(path, f"not valid JSON here: it holds more than {max_containers:,} arrays and objects "
                    "(brackets), more than this reader accepts")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        _fail(path, f"not valid JSON (not UTF-8 text at byte {err.start})")
    try:
        value = json.loads(text, parse_int=parse_int, parse_float=_parse_float, parse_constant=_parse_constant,
                           object_pairs_hook=_unique_keys)
    except _JSONRefusal as err:
        _fail(path, f"not valid JSON here: it {err.args[0]}{_field_near(text, err.args[1])}")
    except json.JSONDecodeError as err:
        _fail(path, f"not valid JSON ({err.msg} at character {err.pos})")
    except RecursionError:
        _fail(path, f"not valid JSON here: nested more than {max_depth} levels deep")
    except ValueError as err:  # pragma: no cover - the hooks above catch what is known
        _fail(path, f"not valid JSON ({err})")
    _check_nesting(path, value, max_depth, bool(_SURROGATE_ESCAPE.search(text)))
    return value


def _check_limit(name: str, value) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise TypeError(f"{name} must be a non-negative integer or None, got {short_repr(value)}")


def read_json(path, *, max_bytes: int, what: str = "JSON file", max_containers: int | None = None):
    """The JSON value in ``path``, read through :func:`open_regular_file` (at most
    ``max_bytes``) and :func:`parse_json` (at most ``max_containers`` arrays and
    objects, if given); every failure is a :class:`ModelFileError` naming the file.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "c.json")
    >>> _ = open(p, "w").write('{"n": ' + "9" * 50 + "}")
    >>> read_json(p, max_bytes=1000)
    Traceback (most recent call last):
    ...
    tokenpath.safefiles.ModelFileError: ...c.json: not valid JSON here: it has an integer of 50 digits (at most 40 are read) (field 'n')
    >>> _ = open(p, "w").write('{"n": 12}')
    >>> read_json(p, max_bytes=1000)
    {'n': 12}
    """
    path = as_path("path", path)
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
        raise TypeError(f"max_bytes must be a non-negative integer, got {short_repr(max_bytes)}")
    _check_what(what)
    _check_limit("max_containers", max_containers)
    return parse_json(path, _read_bounded(path, max_bytes, what), max_containers=max_containers)
