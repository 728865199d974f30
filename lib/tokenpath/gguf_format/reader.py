"""Reading a GGUF file: the header, the metadata and the tensor table, every count and
length checked against the file's size before anything is built from it.

A GGUF file (version 2 or 3; little-endian throughout) is::

    4 bytes    the magic b"GGUF"
    uint32     version
    uint64     tensor count, then uint64 metadata count
    metadata   key (string), value type (uint32), value — a string is a uint64
               length and that many UTF-8 bytes; an ARRAY is an element type
               (uint32), a uint64 count, then the elements (arrays may nest)
    tensors    name (string), n_dims (uint32), ne[n_dims] (uint64 each),
               ggml type (uint32), offset (uint64, from the start of the data)
    padding    to a multiple of ``general.alignment`` (32 when absent)
    data       every tensor's bytes, each at its offset (a multiple of the alignment)

ggml lists a tensor's extents fastest-varying first (``ne[0]`` is the length of a
row), the reverse of numpy's order: :class:`GGUFTensor.shape` is ``ne`` reversed, so an
embedding stored with ``ne = [576, 49152]`` has ``shape == (49152, 576)``, one row per
token, as ``model.embed_tokens.weight`` has in a safetensors file.

Like the safetensors header (:mod:`tokenpath.safetensors_format`), the table tells every
tensor's name, type and shape without reading a weight. The file comes from anywhere,
so a count, a length, an extent or an offset larger than the bytes that could hold it is
refused before anything of that size is allocated, and every refusal is one
:class:`~tokenpath.safefiles.ModelFileError` naming the file and the field.
"""

from __future__ import annotations

import collections
import math
import mmap
import os
import struct
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

import numpy as np

from ..safefiles import ModelFileError, _fail, as_path, open_regular_file, short_repr
from .quants import DEQUANTIZABLE, GGML_TYPES, dequantize

__all__ = [
    "DEFAULT_ALIGNMENT",
    "MAGIC",
    "MAX_ARRAY_DEPTH",
    "MAX_DIMS",
    "VALUE_TYPES",
    "VERSIONS",
    "GGUFFile",
    "GGUFTensor",
    "read_gguf",
]

MAGIC = b"GGUF"
#: The versions read here (version 1 used 32-bit counts and is long retired).
VERSIONS = (2, 3)
#: ``general.alignment`` when the file does not set it.
DEFAULT_ALIGNMENT = 32
#: ggml tensors have at most four axes (``GGML_MAX_DIMS``).
MAX_DIMS = 4
#: Arrays of arrays may nest this deep.
MAX_ARRAY_DEPTH = 8

#: Metadata value type id → (name, struct format of one scalar, or None).
VALUE_TYPES = {
    0: ("UINT8", "<B"), 1: ("INT8", "<b"), 2: ("UINT16", "<H"), 3: ("INT16", "<h"), 4: ("UINT32", "<I"),
    5: ("INT32", "<i"), 6: ("FLOAT32", "<f"), 7: ("BOOL", "<B"), 8: ("STRING", None), 9: ("ARRAY", None),
    10: ("UINT64", "<Q"), 11: ("INT64", "<q"), 12: ("FLOAT64", "<d"),
}
_NUMPY = {"UINT8": "<u1", "INT8": "<i1", "UINT16": "<u2", "INT16": "<i2", "UINT32": "<u4", "INT32": "<i4",
          "FLOAT32": "<f4", "UINT64": "<u8", "INT64": "<i8", "FLOAT64": "<f8"}
_STRING, _ARRAY = 8, 9
_HEADER_BYTES = 24  # magic, version, two counts


@dataclass(frozen=True)
class GGUFTensor:
    """One entry of the tensor table."""

    name: str
    shape: tuple[int, ...]  # numpy order: ggml's ne reversed (the last axis is ne[0], a row)
    type_name: str  # ggml type: "F32", "Q4_1", "Q8_0", …
    offset: int  # first byte, counted from the start of the data section
    nbytes: int  # bytes the tensor's blocks take

    @property
    def size(self) -> int:
        """Number of elements, the product of the shape."""
        return math.prod(self.shape)


class _Cursor:
    """Reads little-endian fields from the mapped file, refusing a read past its end."""

    def __init__(self, path, buf, size: int):
        self.path, self.buf, self.size, self.at = path, buf, size, 0

    def left(self) -> int:
        return self.size - self.at

    def take(self, n: int, field: str) -> int:
        """Claim ``n`` bytes for ``field``; return where they start."""
        if n > self.left():
            _fail(self.path, f"{field} needs {n:,} bytes at byte {self.at:,} but the file ends after "
                             f"{self.left():,} more; the file is truncated or corrupt")
        start, self.at = self.at, self.at + n
        return start

    def scalar(self, fmt: str, field: str):
        return struct.unpack_from(fmt, self.buf, self.take(struct.calcsize(fmt), field))[0]

    def u32(self, field: str) -> int:
        return self.scalar("<I", field)

    def u64(self, field: str) -> int:
        return self.scalar("<Q", field)

    def string(self, field: str) -> str:
        n = self.u64(f"the length of {field}")
        if n > self.left():
            _fail(self.path, f"{field} claims a length of {n:,} bytes but only {self.left():,} remain in the file")
        start = self.take(n, field)
        try:
            return self.buf[start:start + n].decode("utf-8")
        except UnicodeDecodeError as err:
            _fail(self.path, f"{field} is not UTF-8 text (byte {err.start} of its {n}, file byte {start + err.start:,})")

    def count(self, field: str, min_item_bytes: int) -> int:
        """A uint64 count of items each at least ``min_item_bytes`` long, bounded by the bytes left."""
        n = self.u64(field)
        if n * min_item_bytes > self.left():
            _fail(self.path, f"{field} is {n:,}, but {n:,} items of at least {min_item_bytes} bytes do not fit in "
                             f"the {self.left():,} bytes left in the file")
        return n


def _value_type(cur: _Cursor, field: str) -> int:
    t = cur.u32(f"the value type of {field}")
    if t not in VALUE_TYPES:
        _fail(cur.path, f"{field} has value type {t}, which GGUF does not define (0–12: "
                        f"{', '.join(n for n, _ in VALUE_TYPES.values())})")
    return t


def _read_value(cur: _Cursor, t: int, field: str, depth: int = 0):
    """One value of type ``t``: (value, type name)."""
    name, fmt = VALUE_TYPES[t]
    if t == _STRING:
        return cur.string(field), name
    if t == _ARRAY:
        return _read_array(cur, field, depth + 1)
    value = cur.scalar(fmt, field)
    if name == "BOOL":
        if value > 1:
            _fail(cur.path, f"{field} is a BOOL stored as {value}; a BOOL must be 0 or 1")
        return bool(value), name
    return value, name


def _read_array(cur: _Cursor, field: str, depth: int):
    """An ARRAY: numbers as one read-only numpy array, strings and arrays as tuples."""
    if depth > MAX_ARRAY_DEPTH:
        _fail(cur.path, f"{field} nests arrays more than {MAX_ARRAY_DEPTH} deep")
    t = _value_type(cur, f"the elements of {field}")
    name, fmt = VALUE_TYPES[t]
    if t == _STRING:
        n = cur.count(f"the length of array {field}", 8)
        items = tuple(cur.string(f"{field}[{k}]") for k in range(n))
        return items, f"ARRAY[{name}]"
    if t == _ARRAY:
        n = cur.count(f"the length of array {field}", 12)
        items, kinds = [], set()
        for k in range(n):
            value, kind = _read_array(cur, f"{field}[{k}]", depth + 1)
            items.append(value)
            kinds.add(kind)
        inner = kinds.pop() if len(kinds) == 1 else "ARRAY[…]" if kinds else "ARRAY"
        return tuple(items), f"ARRAY[{inner}]"
    width = struct.calcsize(fmt)
    n = cur.count(f"the length of array {field}", width)
    start = cur.take(n * width, field)
    raw = np.frombuffer(cur.buf, dtype=np.uint8, count=n * width, offset=start)
    if name == "BOOL":
        if raw.size and raw.max() > 1:
            _fail(cur.path, f"{field}[{int(np.argmax(raw > 1))}] is a BOOL stored as {int(raw.max())}; a BOOL must be "
                            "0 or 1")
        values = raw.astype(bool)
    else:
        values = raw.view(_NUMPY[name]).copy()  # copied out of the mapping, which closes
    values.flags.writeable = False
    return values, f"ARRAY[{name}]"


def _read_metadata(cur: _Cursor, n: int) -> tuple[dict, dict]:
    metadata, types = {}, {}
    for k in range(n):
        key = cur.string(f"metadata key {k}")
        if key in metadata:
            _fail(cur.path, f"metadata key {short_repr(key)} appears twice")
        value, kind = _read_value(cur, _value_type(cur, f"metadata {short_repr(key)}"), f"metadata {short_repr(key)}")
        metadata[key], types[key] = value, kind
    return metadata, types


def _alignment(path, metadata: dict, types: dict) -> int:
    if "general.alignment" not in metadata:
        return DEFAULT_ALIGNMENT
    value = metadata["general.alignment"]
    if types["general.alignment"] != "UINT32" or value == 0 or value & (value - 1):
        _fail(path, f"metadata 'general.alignment' is {short_repr(value)} ({types['general.alignment']}); it must be "
                    "a UINT32 power of two")
    return value


def _read_tensor_info(cur: _Cursor, k: int) -> tuple[GGUFTensor, int]:
    """Entry ``k`` of the tensor table, its byte count checked against its type and shape."""
    name = cur.string(f"the name of tensor {k}")
    label = f"tensor {short_repr(name)}"
    n_dims = cur.u32(f"n_dims of {label}")
    if not 1 <= n_dims <= MAX_DIMS:
        _fail(cur.path, f"{label} has n_dims {n_dims}; a ggml tensor has 1 to {MAX_DIMS}")
    ne = [cur.u64(f"ne[{d}] of {label}") for d in range(n_dims)]
    type_id = cur.u32(f"the type of {label}")
    if type_id not in GGML_TYPES:
        _fail(cur.path, f"{label} has ggml type {type_id}, which is not a ggml type this reader knows")
    type_name, block, size = GGML_TYPES[type_id]
    offset = cur.u64(f"the offset of {label}")
    if 0 in ne:
        _fail(cur.path, f"{label} has shape ne = {ne}, with no numbers; a tensor holds at least one")
    if ne[0] % block:
        _fail(cur.path, f"{label} has rows of ne[0] = {ne[0]:,} numbers, not a whole number of {type_name} blocks of "
                        f"{block}")
    nbytes = ne[0] // block * size
    for extent in ne[1:]:
        nbytes *= extent
        if nbytes > cur.size:  # stop at once: a product of huge extents is never multiplied out
            break
    if nbytes > cur.size:
        _fail(cur.path, f"{label} has shape ne = {ne} of {type_name}, more bytes than the file's {cur.size:,}")
    return GGUFTensor(name, tuple(reversed(ne)), type_name, offset, nbytes), type_id


def _check_data(path, tensors: list[GGUFTensor], data_offset: int, alignment: int, size: int) -> None:
    """Each tensor aligned, inside the file, and apart from the others."""
    end_of_previous, previous = 0, None
    for t in sorted(tensors, key=lambda t: (t.offset, t.nbytes)):
        if t.offset % alignment:
            _fail(path, f"tensor {short_repr(t.name)} starts at data offset {t.offset:,}, not a multiple of the "
                        f"alignment {alignment}")
        if data_offset + t.offset + t.nbytes > size:
            _fail(path, f"tensor {short_repr(t.name)} spans data bytes {t.offset:,}–{t.offset + t.nbytes:,} "
                        f"but the data section (from byte {data_offset:,}) holds only {max(0, size - data_offset):,}; "
                        "the file is truncated")
        if t.offset < end_of_previous:
            _fail(path, f"tensor {short_repr(t.name)} starts at data offset {t.offset:,}, inside tensor "
                        f"{short_repr(previous)} (which ends at {end_of_previous:,}): tensor data overlaps")
        end_of_previous, previous = t.offset + t.nbytes, t.name


@dataclass(frozen=True, eq=False)
class GGUFFile:
    """The header of a GGUF file: its metadata and tensor table, read by :func:`read_gguf`.

    ``metadata`` maps each key, in file order, to its value: a number, a bool, a str, a
    read-only numpy array (a numeric ARRAY) or a tuple (an ARRAY of strings or of
    arrays). ``value_types`` names each key's type (``"UINT32"``, ``"ARRAY[STRING]"`` …).
    """

    path: str
    version: int
    alignment: int
    metadata: Mapping[str, object]
    value_types: Mapping[str, str]
    tensors: Mapping[str, GGUFTensor]  # name → entry, in file order
    data_offset: int  # file byte where the data section starts
    file_size: int
    header_end: int  # file byte where the tensor table ends; data_offset rounds it up to the alignment

    def __repr__(self) -> str:  # the metadata of a real file runs to megabytes: counts only
        return (f"GGUFFile({self.path!r}, version={self.version}, {len(self.metadata)} metadata keys, "
                f"{len(self.tensors)} tensors)")

    def _tensor(self, name) -> GGUFTensor:
        if not isinstance(name, str):
            raise TypeError(f"name must be a tensor name (str), got {type(name).__name__}")
        if name not in self.tensors:
            _fail(self.path, f"no tensor named {short_repr(name)}; the file holds {short_repr(list(self.tensors))}")
        return self.tensors[name]

    def raw(self, name: str) -> np.ndarray:
        """The bytes of tensor ``name`` as they lie in the file: a read-only uint8 memmap, nothing copied.

        >>> g = read_gguf(_example_file())
        >>> g.raw("w").shape, g.raw("w").flags.writeable
        ((16,), False)
        """
        t = self._tensor(name)
        with open_regular_file(self.path, what="GGUF file") as f:
            if os.fstat(f.fileno()).st_size != self.file_size:
                _fail(self.path, f"has changed size since its header was read ({self.file_size:,} bytes then)")
            return np.memmap(f, dtype=np.uint8, mode="r", offset=self.data_offset + t.offset, shape=(t.nbytes,))

    def dequantize(self, name: str) -> np.ndarray:
        """Tensor ``name`` as float32 of its shape, dequantized block by block
        (:func:`tokenpath.gguf_format.quants.dequantize`). A type this reader does not
        dequantize, or a scale or value that is not finite, is refused naming the tensor.

        >>> read_gguf(_example_file()).dequantize("w").tolist()
        [[0.0, 1.0], [2.0, 3.0]]
        """
        t = self._tensor(name)
        if t.type_name not in DEQUANTIZABLE:
            _fail(self.path, f"tensor {short_repr(name)} has ggml type {t.type_name}, which this reader does not "
                             f"dequantize (it reads {', '.join(DEQUANTIZABLE)})")
        try:
            return dequantize(self.raw(name), t.type_name, t.shape)
        except ValueError as err:
            if isinstance(err, ModelFileError):
                raise
            _fail(self.path, f"tensor {short_repr(name)} ({t.type_name}): {err}")

    def summary(self, *, max_keys: int = 40) -> str:
        """A few lines for a chapter: version, counts, the tensor types by count, then each
        metadata key with its type and its value (an array by its length, text cut short).

        >>> print(read_gguf(_example_file()).summary())
        GGUF version 3: 1 tensor, 3 metadata keys, alignment 32, data from byte 224 of 256
        tensor types: F32 1
        general.architecture   STRING          'llama'
        general.name           STRING          'tiny'
        tokenizer.ggml.tokens  ARRAY[STRING]   2 items: ('a', 'b')
        """
        if isinstance(max_keys, bool) or not isinstance(max_keys, int) or max_keys < 0:
            raise TypeError(f"max_keys must be a non-negative integer, got {short_repr(max_keys)}")
        counts = collections.Counter(t.type_name for t in self.tensors.values())
        lines = [f"GGUF version {self.version}: {len(self.tensors):,} tensor{'s' * (len(self.tensors) != 1)}, "
                 f"{len(self.metadata):,} metadata keys, alignment {self.alignment}, data from byte "
                 f"{self.data_offset:,} of {self.file_size:,}",
                 "tensor types: " + ", ".join(f"{n} {c:,}" for n, c in counts.most_common())]
        keys = list(self.metadata)[:max_keys]
        width = max((len(k) for k in keys), default=0)
        for key in keys:
            value = self.metadata[key]
            if isinstance(value, (tuple, np.ndarray)):
                head = tuple(value[:2].tolist()) if isinstance(value, np.ndarray) else value[:2]
                shown = f"{len(value):,} item{'s' * (len(value) != 1)}: {_cut(repr(head))}"
            else:
                shown = _cut(repr(value))
            lines.append(f"{key:<{width}}  {self.value_types[key]:<14}  {shown}")
        if len(self.metadata) > max_keys:
            lines.append(f"… and {len(self.metadata) - max_keys:,} more keys")
        return "\n".join(lines)


def _cut(text: str, n: int = 60) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= n else text[:n - 1] + "…"


def read_gguf(path) -> GGUFFile:
    """Read the header of the GGUF file ``path``: metadata, tensor table, data offset.

    Refused, naming the file and the field: a bad magic or version, a count, string
    length, array length, n_dims or extent larger than the file could hold, an unknown
    value or tensor type, a key or tensor name twice, a string that is not UTF-8, an
    alignment that is not a power of two, tensor data that is misaligned, overlaps
    another tensor's or runs past the end of the file.

    >>> g = read_gguf(_example_file()); g
    GGUFFile('.../tiny.gguf', version=3, 3 metadata keys, 1 tensors)
    >>> g.version, g.tensors["w"], g.metadata["general.architecture"]
    (3, GGUFTensor(name='w', shape=(2, 2), type_name='F32', offset=0, nbytes=16), 'llama')
    """
    path = as_path("path", path)
    with open_regular_file(path, what="GGUF file") as f:
        size = os.fstat(f.fileno()).st_size
        if size < _HEADER_BYTES:
            _fail(path, f"has {size} bytes, fewer than the {_HEADER_BYTES} of a GGUF header; it is truncated or not GGUF")
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            return _parse(path, buf, size)


def _parse(path, buf, size: int) -> GGUFFile:
    cur = _Cursor(path, buf, size)
    magic = bytes(buf[cur.take(4, "the magic"):4])
    if magic != MAGIC:
        _fail(path, f"starts with {magic!r}, not the GGUF magic {MAGIC!r}; it is not a GGUF file")
    version = cur.u32("the version")
    if version not in VERSIONS:
        _fail(path, f"has GGUF version {version}; this reader reads versions {' and '.join(map(str, VERSIONS))}")
    n_tensors = cur.count("the tensor count", 24)  # name length, n_dims, type, offset: at least 24 bytes each
    n_keys = cur.count("the metadata count", 13)  # key length, type, and at least a one-byte value
    metadata, types = _read_metadata(cur, n_keys)
    alignment = _alignment(path, metadata, types)
    tensors = {}
    for k in range(n_tensors):
        t, _ = _read_tensor_info(cur, k)
        if t.name in tensors:
            _fail(path, f"tensor name {short_repr(t.name)} appears twice in the tensor table")
        tensors[t.name] = t
    data_offset = -(-cur.at // alignment) * alignment
    _check_data(path, list(tensors.values()), data_offset, alignment, size)
    return GGUFFile(str(path), version, alignment, MappingProxyType(metadata), MappingProxyType(types),
                    MappingProxyType(tensors), data_offset, size, cur.at)


def _example_file() -> str:
    """A tiny GGUF file written byte by byte, for the doctests: one 2 × 2 float32 tensor."""
    import tempfile

    def text(s: str) -> bytes:
        return struct.pack("<Q", len(s)) + s.encode()

    kv = (text("general.architecture") + struct.pack("<I", 8) + text("llama")
          + text("general.name") + struct.pack("<I", 8) + text("tiny")
          + text("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 2) + text("a") + text("b"))
    info = text("w") + struct.pack("<IQQIQ", 2, 2, 2, 0, 0)
    head = MAGIC + struct.pack("<IQQ", 3, 1, 3) + kv + info
    head += b"\0" * (-len(head) % DEFAULT_ALIGNMENT)
    path = os.path.join(tempfile.mkdtemp(), "tiny.gguf")
    with open(path, "wb") as f:
        f.write(head + np.arange(4, dtype="<f4").tobytes() + b"\0" * 16)
    return path
