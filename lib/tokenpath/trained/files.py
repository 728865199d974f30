"""The committed model folder (``models/stdlib-moe``): where it is, its files read
bounded and checked (the training record, the recorded completions, the held-out
sample, the measurements), its parameters counted stored and per token, and its model
loaded once per process."""

from __future__ import annotations

import functools
import io
import json
import math
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from .. import safetensors_format as S
from .._checks import as_float, as_float_array, as_int, as_list
from ..examples import trained as ex
from ..model import Model, load
from ..safefiles import ModelFileError, as_path, open_regular_file, read_json, short_repr

FOLDER = Path(ex.TRAINED_FOLDER)
TRAINING_NAME = "training.json"
SAMPLES_NAME = "samples.json"
HELD_OUT_NAME = "held_out.json"
EVALUATION_NAME = "evaluation.json"
#: Beside the folder: the stronger baselines, the test stream, the intervals and the dense model (tokenpath._evidence).
EVIDENCE_NAME = "stdlib-evidence.json"
#: Bounds on the folder's JSON files (each is far smaller).
MAX_RECORD_BYTES = 4 << 20


def trained_folder() -> Path:
    """The committed model folder of this checkout (``models/stdlib-moe``)."""
    return Path(__file__).resolve().parents[3] / FOLDER


# ------------------------------------------------ checks of the arguments

def _folder_path(folder) -> Path:
    """``folder`` as a :class:`~pathlib.Path` (default: :func:`trained_folder`), if it
    names an existing folder; otherwise an error naming ``folder``."""
    if folder is None:
        return trained_folder()
    path = as_path("folder", folder)
    try:
        st = os.stat(path)
    except OSError as err:
        raise ValueError(f"folder {short_repr(str(path))} must be a model folder, but it cannot be opened "
                         f"({err.strerror})") from None
    if not stat.S_ISDIR(st.st_mode):
        raise ValueError(f"folder {short_repr(str(path))} must be a model folder (a directory), not a file")
    return path


def _folder(folder) -> Path:
    return _folder_path(folder).resolve()


def _read_text(folder: Path, name: str) -> str:
    """The text of file ``name`` in ``folder`` (universal newlines, as ``Path.read_text``);
    a missing or unreadable file is a ``ModelFileError`` naming it."""
    with open_regular_file(folder / name, max_bytes=MAX_RECORD_BYTES, what=name) as f:
        return io.TextIOWrapper(f, encoding="utf-8").read()


def _read_json(folder, name: str):
    return read_json(_folder_path(folder) / name, max_bytes=MAX_RECORD_BYTES, what=name)


def _check_model(model) -> None:
    if model is not None and not isinstance(model, Model):
        raise TypeError(f"model must be None or a tokenpath.model.Model (the folder's model), got {type(model).__name__}")


def _check_texts(name: str, pieces) -> tuple[str, ...]:
    """``pieces`` as a tuple of str (the tokens' texts), or an error naming ``name``."""
    def item(k, v):
        if not isinstance(v, str):
            raise TypeError(f"{name}[{k}] must be a str (a token's text), got {type(v).__name__}")

    return tuple(as_list(name, pieces, "token texts (str)", item=item))


def check_record(record) -> None:
    """``record`` must be a training record as ``training.json`` holds it."""
    if not isinstance(record, dict):
        raise TypeError(f"record must be a training record (the dict read from training.json), got {type(record).__name__}")
    for key in ("loss_curve", "held_out_loss", "ln_vocab", "steps"):
        if key not in record:
            raise ValueError(f"record must have the field {key!r} of training.json")
    curve = record["loss_curve"]
    if not isinstance(curve, dict) or not {"every", "mean_train_loss"} <= set(curve):
        raise ValueError("record['loss_curve'] must be a dict with 'every' and 'mean_train_loss'")
    as_int("record['loss_curve']['every']", curve["every"], low=1)
    ys = as_float_array("record['loss_curve']['mean_train_loss']", curve["mean_train_loss"], ndim=1)
    if ys.size == 0:
        raise ValueError("record['loss_curve']['mean_train_loss'] must hold at least one loss")
    as_float("record['held_out_loss']", record["held_out_loss"])
    as_float("record['ln_vocab']", record["ln_vocab"])
    as_int("record['steps']", record["steps"], low=1)
    evals = record.get("held_out_curve", [])
    for i, row in enumerate(as_list("record['held_out_curve']", evals, "[step, {stream: loss}] pairs")):
        if not (isinstance(row, list) and len(row) == 2 and isinstance(row[1], dict)):
            raise ValueError(f"record['held_out_curve'][{i}] must be [step, {{stream: loss}}], got {short_repr(row)}")
        as_int(f"record['held_out_curve'][{i}][0]", row[0], low=1)
        for k, v in row[1].items():
            as_float(f"record['held_out_curve'][{i}][1][{k!r}]", v)


def read_training(folder=None) -> dict:
    """The committed training record (``training.json``)."""
    return _read_json(folder, TRAINING_NAME)


def read_samples(folder=None) -> dict:
    """The completions the training script recorded (``samples.json``)."""
    return _read_json(folder, SAMPLES_NAME)


def read_evaluation(folder=None) -> dict:
    """The measurements the training script wrote after training (``evaluation.json``):
    the n-gram baselines and the model per evaluation stream, and the ablations."""
    record = _read_json(folder, EVALUATION_NAME)
    if not isinstance(record, dict) or not {"streams", "heads", "experts", "induction"} <= set(record):
        raise ModelFileError(f"{EVALUATION_NAME}: must be an object with 'streams', 'heads', 'experts' and "
                             "'induction'")
    return record


def read_evidence(folder=None) -> dict:
    """What ``python -m tokenpath._evidence`` measured beside the folder (``stdlib-evidence.json``
    in the folder's parent): per stream the model, the dense baseline and every table
    up to a 5-gram with a cache, each gap with its paired bootstrap interval, and the
    test stream's rule.

    >>> e = read_evidence()
    >>> sorted(e["streams"])[-1], e["bootstrap"]["B"] > 0
    ('test code', True)
    """
    path = _folder_path(folder).parent / EVIDENCE_NAME
    try:
        record = read_json(path, max_bytes=MAX_RECORD_BYTES, what=EVIDENCE_NAME)
    except ModelFileError as e:
        raise ModelFileError(f"{e} (read beside folder {short_repr(str(folder))}, in its parent)") from None
    if not isinstance(record, dict) or not {"streams", "bootstrap", "test_rule"} <= set(record):
        raise ModelFileError(f"{EVIDENCE_NAME}: must be an object with 'streams', 'bootstrap' and 'test_rule'")
    return record


def sample_measures(folder: Path, name: str) -> tuple[dict, dict]:
    """(``evaluation.json``'s ``"sample"`` object, its part ``name``): what the sample
    pass measured when the folder was written, or a ``ModelFileError``."""
    sample = read_evaluation(folder).get("sample")
    part = sample.get(name) if isinstance(sample, dict) else None
    if not isinstance(part, dict):
        raise ModelFileError(f"{EVALUATION_NAME}: 'sample' must hold an object {name!r} (written by make model)")
    return sample, part


def measure_field(part: dict, where: str, key: str, read):
    """``read(name, part[key])``, each failure a ``ModelFileError`` naming the field."""
    try:
        return read(f"{EVALUATION_NAME}: {where}.{key}", part[key])
    except KeyError:
        raise ModelFileError(f"{EVALUATION_NAME}: {where} must have {key!r}") from None
    except (TypeError, ValueError) as err:
        raise ModelFileError(str(err)) from None


def as_shares(name: str, x, ndim: int):
    """``x`` as a float array of ``ndim`` axes holding shares in [0, 1]."""
    arr = as_float_array(name, x, ndim=ndim)
    if arr.size and (arr.min() < 0 or arr.max() > 1):
        raise ValueError(f"{name} must hold shares between 0 and 1")
    return arr


@dataclass(frozen=True)
class SampleFile:
    """One file's excerpt in the held-out sample: ``text`` starts at line ``line``
    (1-based) of the file ``path`` (relative to the standard library)."""

    path: str
    line: int
    text: str


def _sample_file(i: int, row) -> SampleFile:
    where = f"{HELD_OUT_NAME}: files[{i}]"
    if not isinstance(row, dict) or set(row) != {"path", "line", "text"}:
        raise ModelFileError(f"{where} must be an object with exactly 'path', 'line' and 'text'")
    if not isinstance(row["path"], str) or not row["path"].endswith(".py"):
        raise ModelFileError(f"{where}.path must be the path of a .py file, got {short_repr(row['path'])}")
    if type(row["line"]) is not int or row["line"] < 1:
        raise ModelFileError(f"{where}.line must be a line number >= 1, got {short_repr(row['line'])}")
    if not isinstance(row["text"], str) or not row["text"].strip() or not row["text"].endswith("\n"):
        raise ModelFileError(f"{where}.text must be whole lines of code (non-empty, ending in a newline)")
    return SampleFile(row["path"], row["line"], row["text"])


@functools.lru_cache(maxsize=4)
def _held_out(folder: Path) -> tuple[str, tuple[SampleFile, ...]]:
    record = _read_json(folder, HELD_OUT_NAME)
    if not isinstance(record, dict) or set(record) != {"rule", "files"} or not isinstance(record["rule"], str):
        raise ModelFileError(f"{HELD_OUT_NAME}: must be an object with exactly 'rule' (a str) and 'files'")
    if not isinstance(record["files"], list) or not record["files"]:
        raise ModelFileError(f"{HELD_OUT_NAME}: 'files' must be a non-empty list")
    return record["rule"], tuple(_sample_file(i, row) for i, row in enumerate(record["files"]))


def held_out_sample(folder=None) -> tuple[SampleFile, ...]:
    """The committed held-out sample (``held_out.json``): an excerpt of every held-out
    file of code, read once per process and folder.

    >>> files = held_out_sample()
    >>> len(files) >= 10, all(f.text.endswith("\\n") for f in files)
    (True, True)
    """
    return _held_out(_folder(folder))[1]


def held_out_text(folder=None) -> str:
    """The sample's excerpts one after the other (each ends in a newline)."""
    return "".join(f.text for f in held_out_sample(folder))


def held_out_rule(folder=None) -> str:
    """How the sample was cut from the held-out files, as ``held_out.json`` states it."""
    return _held_out(_folder(folder))[0]


# ------------------------------------------------ parameters, stored and per token

@dataclass(frozen=True)
class MoeCount:
    """Parameters of a Mixtral-style folder, read from its safetensors header.

    ``total`` counts every stored number; ``active`` what one token reads on its way
    through: one row of the embedding table, all of attention, the norms, the routers
    and the output head, and ``top_k`` of the ``num_experts`` experts of each layer."""

    total: int
    experts: int          # all experts of all layers
    per_expert: int       # one expert of one layer (gate, up and down matrices)
    embedding: int        # the whole table, V × d
    hidden: int           # d: one row of it
    head: int
    attention: int        # all layers
    routers: int          # all layers
    norms: int
    layers: int
    num_experts: int
    top_k: int

    @property
    def skipped(self) -> int:
        """Expert parameters one token does not run: (E − k) experts in every layer."""
        return self.layers * (self.num_experts - self.top_k) * self.per_expert

    @property
    def active(self) -> int:
        return self.total - self.skipped - (self.embedding - self.hidden)

    @property
    def active_with_table(self) -> int:
        """The usual published count: the same, but with the whole embedding table."""
        return self.total - self.skipped


def count_moe_parameters(folder=None) -> MoeCount:
    """Count a Mixtral folder's parameters by tensor name from its header and config.

    >>> c = count_moe_parameters()
    >>> c.total == c.experts + c.embedding + c.head + c.attention + c.routers + c.norms
    True
    """
    folder = _folder_path(folder)
    cfg = json.loads(_read_text(folder, "config.json"))
    keys = ("num_hidden_layers", "num_local_experts", "num_experts_per_tok", "hidden_size")
    if not isinstance(cfg, dict) or not all(type(cfg.get(k)) is int and cfg[k] >= 1 for k in keys):
        raise S.ModelFileError(f"{folder / 'config.json'}: must be a Mixtral config with positive integers "
                               f"{', '.join(keys)}")
    sizes: dict[str, int] = {}
    for e in S.read_header(folder / "model.safetensors").tensors:
        sizes[e.name] = math.prod(e.shape)

    def part(test):
        return sum(n for name, n in sizes.items() if test(name))

    return MoeCount(
        total=sum(sizes.values()), experts=part(lambda n: ".experts." in n),
        per_expert=part(lambda n: n.startswith("model.layers.0.") and ".experts.0." in n),
        embedding=part(lambda n: "embed_tokens" in n), hidden=cfg["hidden_size"],
        head=part(lambda n: n.startswith("lm_head")), attention=part(lambda n: ".self_attn." in n),
        routers=part(lambda n: n.endswith(".gate.weight")), norms=part(lambda n: "norm" in n),
        layers=cfg["num_hidden_layers"], num_experts=cfg["num_local_experts"], top_k=cfg["num_experts_per_tok"])


# ------------------------------------------------ the model, once per process

def committed_model(folder=None) -> Model:
    """The model of ``folder`` (default: the committed one), loaded once per process.

    >>> committed_model() is committed_model()
    True
    """
    return _load_model(_folder(folder))


@functools.lru_cache(maxsize=2)
def _load_model(folder: Path) -> Model:
    return load(folder)


def _model(model, folder: Path) -> Model:
    """``model`` if given (checked), else the folder's."""
    _check_model(model)
    return committed_model(folder) if model is None else model


def _pieces(model, ids) -> tuple[str, ...]:
    return tuple(model.tokenizer.decode([int(i)], errors="replace") for i in ids)
