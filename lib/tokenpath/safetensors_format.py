"""The safetensors file format, read by hand and through the ``safetensors`` package.

A ``.safetensors`` file is three things in a row::

    8 bytes     N, the length of the header, an unsigned little-endian integer
    N bytes     the header: UTF-8 JSON, one entry per tensor
                  {"model.norm.weight": {"dtype": "F32", "shape": [16],
                                         "data_offsets": [0, 64]}, …}
                plus an optional "__metadata__" entry of strings
    the rest    the raw numbers of every tensor, back to back; a tensor's
                ``data_offsets [start, end)`` count bytes from the end of the header

There is no code in it, only numbers and a table of contents, so opening a weight
file cannot run anything (a pickled PyTorch checkpoint can). The header alone tells
every tensor's name, dtype and shape without reading a single weight.

:func:`read_header` parses the header by hand and checks it against the file's size,
so a truncated or corrupt file is refused with a message that names the tensor and
the byte counts. :func:`read_tensor_by_hand` then reads one tensor straight from the
bytes, which the tests compare with the ``safetensors`` package, and
:func:`load_tensors` reads every weight the same way, one tensor at a time into an
array of its own (``bfloat16``, which NumPy has no type for, widened to ``float32``):
the file is never mapped into memory whole, so loading a model costs its weights'
memory once, not the weights plus the file's pages (the package's ``safe_open`` maps
the file). Tensors of other dtypes (integers, booleans, 8-bit floats) are read
through the package.

A model folder may come from anywhere, so every file of it is opened through
:func:`tokenpath.safefiles.open_regular_file` (a regular file of bounded size, never a
directory, a pipe, a device or a broken link) and every JSON text in it, the header
included, is parsed by :func:`tokenpath.safefiles.parse_json` with bounded depth and
number sizes. Whatever the package refuses, :func:`read_header` refuses too, with a
:class:`ModelFileError` naming the file.
"""

from __future__ import annotations

import math
import os
import struct
from dataclasses import dataclass, field

import numpy as np

# the bounded file and JSON readers moved to tokenpath.safefiles; their names stay importable from here
from .safefiles import (MAX_INT_DIGITS, MAX_JSON_DEPTH, ModelFileError, _fail, _parse_int,  # noqa: F401
                        _read, as_path, open_regular_file, parse_json, read_json, short_repr)

__all__ = [
    "DTYPE_SIZES",
    "FLOAT_DTYPES",
    "ModelFileError",
    "SafetensorsHeader",
    "TensorEntry",
    "load_tensors",
    "open_regular_file",
    "raw_header",
    "read_header",
    "read_json",
    "read_tensor_by_hand",
    "save_tensors",
]

#: Bytes per element of every dtype the format names.
DTYPE_SIZES = {
    "BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1,
    "I16": 2, "U16": 2, "F16": 2, "BF16": 2,
    "I32": 4, "U32": 4, "F32": 4,
    "I64": 8, "U64": 8, "F64": 8,
}
#: The floating-point dtypes a model weight may have here, with the NumPy type that
#: holds them on disk (bfloat16 has none: it is widened by hand).
FLOAT_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": None}
_NUMPY_TO_DTYPE = {np.dtype("<f8"): "F64", np.dtype("<f4"): "F32", np.dtype("<f2"): "F16"}
#: The largest header the reference implementation accepts (100 MB).
MAX_HEADER = 100_000_000
#: Tensors have at most this many axes.
MAX_NDIM = 32


@dataclass(frozen=True)
class TensorEntry:
    """One line of the header's table of contents."""

    name: str
    dtype: str  # "F32", "BF16", …
    shape: tuple[int, ...]
    start: int  # first byte, counted from the end of the header
    end: int  # one past the last byte

    @property
    def nbytes(self) -> int:
        return self.end - self.start

    @property
    def size(self) -> int:
        """Number of elements, the product of the shape (1 for a scalar)."""
        return math.prod(self.shape)


@dataclass(frozen=True)
class SafetensorsHeader:
    """The parsed header of one file, entries in the order their bytes are stored."""

    path: str
    header_length: int  # N, the 8-byte little-endian number at the start
    file_size: int
    tensors: tuple[TensorEntry, ...]
    metadata: dict = field(default_factory=dict)  # "__metadata__": str -> str

    @property
    def data_start(self) -> int:
        """Byte position in the file where the tensor data begins: 8 + N."""
        return 8 + self.header_length

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.tensors]

    def entry(self, name: str) -> TensorEntry:
        for t in self.tensors:
            if t.name == name:
                return t
        raise ModelFileError(f"{self.path}: no tensor named {name!r} in the header")

# ----------------------------------------------------------------- the header


def _parse_entry(path, name, value) -> TensorEntry:
    if not isinstance(value, dict) or not {"dtype", "shape", "data_offsets"} <= set(value):
        _fail(path, f"header entry {name!r} must be an object with dtype, shape and data_offsets, "
                    f"got {short_repr(value)}")
    dtype, shape, offsets = value["dtype"], value["shape"], value["data_offsets"]
    if not isinstance(dtype, str) or dtype not in DTYPE_SIZES:
        _fail(path, f"tensor {name!r} has unknown dtype {short_repr(dtype)}; the format knows {sorted(DTYPE_SIZES)}")
    if (not isinstance(shape, list) or len(shape) > MAX_NDIM
            or not all(type(s) is int and 0 <= s < 2**64 for s in shape)):
        _fail(path, f"tensor {name!r} has shape {short_repr(shape)}; expected a list of at most {MAX_NDIM} "
                    "non-negative integers")
    if (not isinstance(offsets, list) or len(offsets) != 2
            or not all(type(o) is int and 0 <= o < 2**64 for o in offsets) or offsets[0] > offsets[1]):
        _fail(path, f"tensor {name!r} has data_offsets {short_repr(offsets)}; expected [start, end] with "
                    "0 <= start <= end")
    elements = 1
    for s in shape:  # stop as soon as it overflows: a shape of many huge numbers is not multiplied out
        elements *= s or 1
        if elements * DTYPE_SIZES[dtype] >= 2**63:
            _fail(path, f"tensor {name!r} has shape {short_repr(shape)}, more bytes than any file holds")
    entry = TensorEntry(name, dtype, tuple(shape), offsets[0], offsets[1])
    need = entry.size * DTYPE_SIZES[dtype]
    if entry.nbytes != need:
        _fail(path, f"tensor {name!r} spans {entry.nbytes} bytes (data_offsets {offsets}) but "
                    f"{dtype} {list(shape)} needs {need}")
    return entry


class _NegativeZero:
    """``-0`` in a header, which the format's own reader takes for a float: kept as a
    non-integer so the entry check refuses it."""

    def __repr__(self):
        return "-0"


def _header_int(text: str):
    if text == "-0":
        return _NegativeZero()
    return _parse_int(text)


def _check_length_field(path, head: bytes, size: int) -> int:
    """N from the file's first 8 bytes, checked against the file's ``size``."""
    if len(head) < 8:
        _fail(path, f"the file has {size} bytes, too short for the 8-byte header length; it is truncated or not safetensors")
    (n,) = struct.unpack("<Q", head)
    if n > size - 8:
        _fail(path, f"the header claims {n} bytes but only {size - 8} follow the 8-byte length; "
                    "the file is truncated or not safetensors")
    if n > MAX_HEADER:
        _fail(path, f"the header claims {n} bytes, more than the format's limit of {MAX_HEADER}")
    return n


def _parse_header_json(path, raw: bytes, n: int) -> dict:
    """The header's ``n`` bytes ``raw`` parsed as one JSON object (UTF-8, bounded)."""
    if len(raw) < n:  # pragma: no cover - the file shrank while being read
        _fail(path, f"the header claims {n} bytes but only {len(raw)} could be read; the file is truncated")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as err:
        _fail(path, f"the header is not UTF-8 text (byte {err.start}); the file is corrupt or not safetensors")
    try:
        header = parse_json(path, raw, parse_int=_header_int)
    except ModelFileError as err:
        _fail(path, f"the header is {str(err)[len(str(path)) + 2:]}; the file is corrupt")
    if not isinstance(header, dict):
        _fail(path, f"the header must be a JSON object of tensors, got {type(header).__name__}")
    return header


def _check_metadata(path, metadata) -> dict:
    """The ``__metadata__`` entry (absent: empty), which must map strings to strings."""
    if metadata is None:
        metadata = {}
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        _fail(path, f"the header's __metadata__ must map strings to strings, got {short_repr(metadata)}")
    return dict(metadata)


def _check_tiling(path, entries: list[TensorEntry], data: int) -> None:
    """The entries, sorted by offset, must fill the ``data`` bytes after the header
    exactly: each starts where the one before it ends, and the last ends with the file."""
    at = 0
    for e in entries:
        if e.start != at:
            what = "overlaps the tensor before it" if e.start < at else f"leaves a gap of {e.start - at} bytes before it"
            _fail(path, f"tensor {e.name!r} starts at data byte {e.start}, which {what}")
        at = e.end
    if at > data:
        last = next(e for e in entries if e.end > data)
        _fail(path, f"tensor {last.name!r} ends at data byte {last.end} but the file holds only {data} data bytes; "
                    "the file is truncated")
    if at < data:
        _fail(path, f"{data - at} bytes follow the last tensor; the header does not account for them")


def read_header(path) -> SafetensorsHeader:
    """Parse a safetensors header by hand and check it against the file.

    Refuses, naming the problem: a file shorter than the 8-byte length, a length
    larger than the file, a header that is not UTF-8 JSON, an entry without dtype,
    shape or offsets, offsets that disagree with dtype × shape, tensors that overlap
    or leave gaps, and data that ends before the last tensor (a truncated file).

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "w.safetensors")
    >>> save_tensors(p, {"norm": np.ones(4, dtype=np.float32)})
    >>> h = read_header(p)
    >>> h.tensors[0], h.data_start + h.tensors[0].end == h.file_size
    (TensorEntry(name='norm', dtype='F32', shape=(4,), start=0, end=16), True)
    """
    path = as_path("path", path)
    with open_regular_file(path, what="safetensors file") as f:
        size = os.fstat(f.fileno()).st_size
        n = _check_length_field(path, _read(path, f, 8), size)  # 8 bytes: N, unsigned little-endian
        raw = _read(path, f, n)  # N bytes: the JSON header
    header = _parse_header_json(path, raw, n)  # {name: {dtype, shape, data_offsets}, "__metadata__": …}
    metadata = _check_metadata(path, header.pop("__metadata__", None))
    entries = [_parse_entry(path, name, value) for name, value in header.items()]
    entries.sort(key=lambda e: (e.start, e.end))  # in the order their bytes are stored
    _check_tiling(path, entries, data=size - 8 - n)  # back to back, up to the end of the file
    return SafetensorsHeader(str(path), n, size, tuple(entries), metadata)


def raw_header(path) -> tuple[bytes, int, str]:
    """The first two parts of a file as they lie on disk: the 8 length bytes, the
    number they spell (little-endian), and that many bytes of JSON text.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "w.safetensors")
    >>> save_tensors(p, {"b": np.zeros(1, dtype=np.float32)})
    >>> length_bytes, n, text = raw_header(p)
    >>> length_bytes.hex(" "), n, text[:40]
    ('38 00 00 00 00 00 00 00', 56, '{"b":{"dtype":"F32","shape":[1],"data_of')
    """
    header = read_header(path)  # checks everything first
    with open_regular_file(path) as f:
        length_bytes = f.read(8)
        text = f.read(header.header_length).decode("utf-8")
    return length_bytes, header.header_length, text


def _bf16_to_f32(raw: np.ndarray) -> np.ndarray:
    """bfloat16 is the top half of a float32: put its 16 bits back on top."""
    return (raw.astype(np.uint32) << 16).view(np.float32)


def _read_into(path, f, data_start: int, e: TensorEntry) -> np.ndarray:
    """Tensor ``e``'s bytes read from the open file ``f`` straight into an array of its
    own, little-endian, with ``readinto`` (no intermediate bytes object, no mapping):
    F16/F32/F64 as they are, BF16 widened to float32 (the only transient: the 16-bit
    numbers of this one tensor)."""
    on_disk = np.dtype("<u2") if e.dtype == "BF16" else np.dtype(FLOAT_DTYPES[e.dtype])
    out = np.empty(e.shape, dtype=on_disk)
    buffer = memoryview(out.reshape(-1).view(np.uint8))
    f.seek(data_start + e.start)
    done = 0
    while done < e.nbytes:
        got = f.readinto(buffer[done:])
        if not got:  # pragma: no cover - the file shrank after its header was checked
            _fail(path, f"tensor {e.name!r} ends after {done} of its {e.nbytes} bytes; the file is truncated")
        done += got
    return _bf16_to_f32(out) if e.dtype == "BF16" else out


def read_tensor_by_hand(path, name: str) -> np.ndarray:
    """Read one tensor straight from the file's bytes, using only the header: seek to
    ``8 + N + start`` and interpret ``end − start`` bytes as dtype × shape
    (little-endian).

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "w.safetensors")
    >>> save_tensors(p, {"a": np.arange(3, dtype=np.float32), "b": np.eye(2, dtype=np.float64)})
    >>> read_tensor_by_hand(p, "b").tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a tensor name (str), got {type(name).__name__}")
    header = read_header(path)
    if name not in header.names:
        _fail(path, f"no tensor named {short_repr(name)} in the header; name must be one of "
                    f"{short_repr(header.names)}")
    e = header.entry(name)
    if e.dtype not in FLOAT_DTYPES:
        _fail(path, f"tensor {name!r} has dtype {e.dtype}; this reader handles {sorted(FLOAT_DTYPES)}")
    with open_regular_file(path) as f:
        return _read_into(path, f, header.data_start, e)


def check_float_dtypes(header: SafetensorsHeader) -> None:
    """Refuse, by tensor, a header with a dtype that is not a weight dtype here
    (integers, booleans, 8-bit floats)."""
    for e in header.tensors:
        if e.dtype not in FLOAT_DTYPES:
            _fail(header.path, f"tensor {e.name!r} has dtype {e.dtype}, which is not a supported weight dtype "
                               f"({', '.join(FLOAT_DTYPES)})")


def load_tensors(path, *, float_only: bool = True) -> tuple[dict[str, np.ndarray], SafetensorsHeader]:
    """Every tensor of one file, after the header has been checked by
    :func:`read_header`: each floating-point tensor read by hand into an array of its
    own (:func:`read_tensor_by_hand`'s reading; bfloat16 widened to float32), one at a
    time, so the peak memory is the arrays plus one tensor's 16-bit numbers, never a
    mapping of the whole file; any other dtype through the ``safetensors`` package.

    With ``float_only`` a tensor of any other dtype (integers, booleans, 8-bit floats)
    is refused by name: a weight file of a model holds floating-point numbers.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "w.safetensors")
    >>> save_tensors(p, {"w": np.ones((2, 3), dtype=np.float16)})
    >>> t, h = load_tensors(p); t["w"].dtype, t["w"].shape
    (dtype('float16'), (2, 3))
    """
    from safetensors import SafetensorError, safe_open

    if not isinstance(float_only, bool):
        raise TypeError(f"float_only must be True or False, got {type(float_only).__name__}")
    header = read_header(path)
    if float_only:
        check_float_dtypes(header)
    out = {}
    with open_regular_file(path, what="safetensors file") as f:
        for e in header.tensors:
            if e.dtype in FLOAT_DTYPES:
                out[e.name] = _read_into(path, f, header.data_start, e)
    others = [e for e in header.tensors if e.dtype not in FLOAT_DTYPES]
    if not others:
        return out, header
    try:
        with safe_open(str(path), framework="numpy") as f:
            for e in others:
                out[e.name] = f.get_tensor(e.name)
    except ModelFileError:
        raise
    except (SafetensorError, OSError, ValueError, TypeError) as err:  # pragma: no cover - read_header checks first
        _fail(path, f"the safetensors package refused the file: {err}")
    return {e.name: out[e.name] for e in header.tensors}, header  # in the order of their bytes


def save_tensors(path, tensors: dict, metadata: dict | None = None) -> None:
    """Write ``{name: array}`` with the ``safetensors`` package. Arrays must be
    float16, float32 or float64 (what :func:`load_tensors` reads back exactly).

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "w.safetensors")
    >>> save_tensors(p, {"w": np.zeros(2, dtype=np.int64)})
    Traceback (most recent call last):
    ...
    TypeError: tensors['w'] must be float16, float32 or float64, got int64
    """
    from safetensors import SafetensorError
    from safetensors.numpy import save_file

    path = as_path("path", path)
    if path.is_dir():
        raise ValueError(f"path {str(path)!r} is a directory; give the name of the file to write")
    if not isinstance(tensors, dict) or not tensors:
        raise TypeError("tensors must be a non-empty dict of name -> numpy array")
    if metadata is not None and (not isinstance(metadata, dict)
                                 or not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())):
        raise TypeError(f"metadata must be a dict of str -> str or None, got {short_repr(metadata)}")
    clean = {}
    for name, arr in tensors.items():
        if not isinstance(name, str):
            raise TypeError(f"tensor names must be strings, got {name!r}")
        arr = np.asarray(arr)
        if arr.dtype.newbyteorder("<") not in _NUMPY_TO_DTYPE:
            raise TypeError(f"tensors[{name!r}] must be float16, float32 or float64, got {arr.dtype}")
        clean[name] = np.ascontiguousarray(arr.astype(arr.dtype.newbyteorder("<")))
    try:
        save_file(clean, str(path), metadata=metadata)
    except (SafetensorError, OSError) as err:  # a missing parent folder, no permission, a full disk
        raise ValueError(f"path {str(path)!r} cannot be written: {err}") from None
