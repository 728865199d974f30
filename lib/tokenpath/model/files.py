"""A whole model directory: :func:`load` (config, weights in one file or shards, the
tokenizer, all checked before a weight is used), :func:`save` and :func:`list_files`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from .._checks import as_int
from ..safefiles import ModelFileError, as_path, open_regular_file, short_repr
from ..safetensors_format import SafetensorsHeader, check_float_dtypes, load_tensors, read_header, save_tensors
from .config import (CONFIG_NAME, INDEX_NAME, MAX_CONFIG_BYTES, MAX_JSON_BYTES, TOKENIZER_CONFIG_NAME,
                     TOKENIZER_NAME, WEIGHTS_NAME, LlamaConfig, _read_json, _writable_directory, read_config)
from .forward import Model, random_model  # noqa: F401 (random_model: the doctests' model)
from .gguf_model import load_gguf
from .tensors import _match_names_and_shapes
from .tokenizer_file import read_tokenizer, write_tokenizer

__all__ = [
    "list_files",
    "load",
    "save",
]


def _shard_name_ok(fname) -> bool:
    return (isinstance(fname, str) and fname not in ("", ".", "..") and "/" not in fname and "\\" not in fname
            and "\x00" not in fname and Path(fname).name == fname)


def _weight_files(directory: Path) -> tuple[list[Path], Path, dict | None]:
    """The weight files to read, the file that lists them (the index, or the single
    weight file) and the index's weight_map (None for a single file). An index or
    weight file that exists in any form (a directory, a pipe, a broken link) is read
    and refused by name, never passed over."""
    single, index = directory / WEIGHTS_NAME, directory / INDEX_NAME
    if os.path.lexists(index):
        idx = _read_json(index)
        if not isinstance(idx, dict):
            raise ModelFileError(f"{index}: must hold a JSON object, got {type(idx).__name__}")
        weight_map = idx.get("weight_map")
        if not isinstance(weight_map, dict) or not weight_map:
            raise ModelFileError(f"{index}: has no 'weight_map' of tensor name -> shard file")
        for name, fname in weight_map.items():  # every value checked before any is compared or sorted
            if not _shard_name_ok(fname):
                raise ModelFileError(f"{index}: weight_map[{short_repr(name)}] gives shard name {short_repr(fname)}, "
                                     "which must be a file name in the directory")
        files = []
        for fname in sorted(set(weight_map.values())):
            if not os.path.lexists(directory / fname):
                raise ModelFileError(f"{index}: lists shard {fname!r}, which is not in the directory")
            files.append(directory / fname)
        return files, index, weight_map
    if os.path.lexists(single):
        return [single], single, None
    raise ModelFileError(f"{directory}: has neither {WEIGHTS_NAME} nor {INDEX_NAME}")


def _check_headers(config: LlamaConfig, headers: list[SafetensorsHeader], source: Path,
                   weight_map: dict | None) -> None:
    """Everything that can be checked from the headers alone, before a single weight is
    read: each shard holds what the index places in it, every dtype is a float, and
    the names and shapes are those the config implies (the config's numbers are
    compared with the headers without listing more names than the headers hold)."""
    entries = {}
    for h in headers:
        check_float_dtypes(h)
        for e in h.tensors:
            if weight_map is not None and weight_map.get(e.name) != Path(h.path).name:
                raise ModelFileError(f"{h.path}: holds tensor {e.name!r}, which the index places in "
                                     f"{short_repr(weight_map.get(e.name))}")
            entries[e.name] = e
    for name, fname in (weight_map or {}).items():
        if name not in entries:
            raise ModelFileError(f"{source}: places tensor {name!r} in {fname!r}, but that shard does not hold it")
    no_bytes = np.zeros((), np.float32)  # every stand-in below is this one number, seen with another shape
    _match_names_and_shapes(config, {n: np.broadcast_to(no_bytes, e.shape) for n, e in entries.items()}, str(source),
                            compare_tied_head=False)


def load(directory) -> Model:
    """Read a Hugging Face-layout Llama directory: ``config.json``, the weights
    (``model.safetensors`` or shards with ``model.safetensors.index.json``) and, if
    present, ``tokenizer.json``. A ``.gguf`` file is read by
    :func:`tokenpath.model.gguf_model.load_gguf`.

    Whatever the directory holds, the answer is a :class:`Model` or one
    :class:`ModelFileError` naming the file and the field or tensor at fault: every
    file is opened only if it is a regular file of bounded size, its JSON is read with
    bounded depth and number sizes, and the work done before the weights are compared
    with the config is bounded by the size of the files, not by numbers in them.

    >>> import tempfile
    >>> d = save(tempfile.mkdtemp(), random_model(LlamaConfig(10, 8, 16, 1, 4, 2), seed=0))
    >>> load(d).logits([1, 2]).shape
    (2, 10)
    """
    directory = as_path("directory", directory)
    if directory.suffix == ".gguf" and not directory.is_dir():
        return load_gguf(directory)  # one GGUF file: config, tokenizer and weights in one
    if not directory.is_dir():
        raise ModelFileError(f"{directory}: not a directory")
    config = read_config(directory / CONFIG_NAME)
    files, source, weight_map = _weight_files(directory)
    headers = [read_header(f) for f in files]
    _check_headers(config, headers, source, weight_map)
    tensors, dtypes = {}, {}
    for f in files:  # only now are the weights read
        part, header = load_tensors(f)
        tensors.update(part)
        dtypes.update((e.name, e.dtype) for e in header.tensors)
    tokenizer = None
    tok_path = directory / TOKENIZER_NAME
    if os.path.lexists(tok_path):
        open_regular_file(tok_path, max_bytes=MAX_JSON_BYTES, what=TOKENIZER_NAME).close()
        tokenizer = read_tokenizer(tok_path)
        if tokenizer.n_vocab > config.vocab_size:
            raise ModelFileError(f"{tok_path}: the tokenizer has {tokenizer.n_vocab} IDs but config vocab_size is "
                                 f"{config.vocab_size}; IDs >= {config.vocab_size} would have no embedding row")
    tok_config = directory / TOKENIZER_CONFIG_NAME
    if os.path.lexists(tok_config):  # not used here, but a folder with a broken one is broken
        if not isinstance(_read_json(tok_config, max_bytes=MAX_CONFIG_BYTES), dict):
            raise ModelFileError(f"{tok_config}: must hold a JSON object")
    return Model(config, tensors, tokenizer, dtypes=dtypes, source=str(source))


def list_files(directory) -> list[tuple[str, int]]:
    """(file name, size in bytes) of every file in a model directory, sorted by name.

    >>> import tempfile
    >>> d = save(tempfile.mkdtemp(), random_model(LlamaConfig(10, 8, 16, 1, 4, 2), seed=0))
    >>> [name for name, _ in list_files(d)]
    ['config.json', 'model.safetensors']
    """
    directory = as_path("directory", directory)
    if not directory.is_dir():
        raise ModelFileError(f"{directory}: not a directory")
    return sorted((p.name, p.stat().st_size) for p in directory.iterdir() if p.is_file())


def _shards(names: list[str], sizes: dict[str, int], limit: int | None) -> list[list[str]]:
    """Cut the tensors, in order, into groups of at most ``limit`` bytes (a tensor
    larger than the limit gets a shard of its own)."""
    if limit is None:
        return [names]
    groups, current, used = [], [], 0
    for n in names:
        if current and used + sizes[n] > limit:
            groups.append(current)
            current, used = [], 0
        current.append(n)
        used += sizes[n]
    groups.append(current)
    return groups


def save(directory, model: Model, *, max_shard_size: int | None = None, dtype: str = "float32") -> Path:
    """Write ``model`` as a Hugging Face-layout directory: ``config.json``, the
    weights as ``model.safetensors`` (or, when ``max_shard_size`` bytes are exceeded,
    ``model-00001-of-0000N.safetensors`` … with ``model.safetensors.index.json``), and
    ``tokenizer.json`` if the model has a tokenizer. A tied head is not stored.
    Returns the directory.
    """
    if not isinstance(model, Model):
        raise TypeError(f"model must be a tokenpath.model.Model, got {type(model).__name__}")
    if not isinstance(dtype, str) or dtype not in ("float32", "float64", "float16"):
        raise ValueError(f"dtype must be 'float16', 'float32' or 'float64', got {dtype!r}")
    if max_shard_size is not None:
        max_shard_size = as_int("max_shard_size", max_shard_size, low=1)
    directory = _writable_directory(directory)
    for old in [directory / WEIGHTS_NAME, directory / INDEX_NAME, *directory.glob("model-*-of-*.safetensors")]:
        old.unlink(missing_ok=True)
    cfg = model.config.to_dict()
    cfg["dtype"] = dtype
    (directory / CONFIG_NAME).write_text(json.dumps(cfg, indent=2) + "\n", encoding="utf-8")
    arrays = {n: np.asarray(a, dtype=dtype) for n, a in model.tensors.items()}
    names = list(arrays)
    groups = _shards(names, {n: arrays[n].nbytes for n in names}, max_shard_size)
    metadata = {"format": "pt"}
    if len(groups) == 1:
        save_tensors(directory / WEIGHTS_NAME, arrays, metadata)
    else:
        weight_map = {}
        for k, group in enumerate(groups, start=1):
            fname = f"model-{k:05d}-of-{len(groups):05d}.safetensors"
            save_tensors(directory / fname, {n: arrays[n] for n in group}, metadata)
            weight_map.update({n: fname for n in group})
        index = {"metadata": {"total_size": int(sum(a.nbytes for a in arrays.values()))}, "weight_map": weight_map}
        (directory / INDEX_NAME).write_text(json.dumps(index, indent=2) + "\n", encoding="utf-8")
    if model.tokenizer is not None:
        eos = None
        if model.config.eos_token_id is not None:
            eos = {i: s for s, i in model.tokenizer.special_tokens.items()}.get(model.config.eos_token_id)
        write_tokenizer(directory, model.tokenizer, eos_token=eos)
    return directory
