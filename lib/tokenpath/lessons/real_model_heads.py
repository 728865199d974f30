"""Chapter 12's heads of SmolLM2-135M-Instruct, measured and tested by ablation, as
chapter 11 tests its own model's heads (:mod:`tokenpath.trained.heads`,
:mod:`tokenpath.trained.ablation`, the same functions).

The test: random runs of tokens, each repeated once
(:func:`tokenpath.trained.repeated_tokens`). Nothing predicts the first copy; the second
can be read off the first by a head that looks from a token back to the token that
followed its earlier occurrence (an *induction* read, score in
:class:`tokenpath.trained.Induction`). The head of largest score is then silenced
(:func:`tokenpath.trained.zero_head`: its rows of W_O zeroed) and the loss of both
copies measured again; the control is the same removal of heads drawn at random.

It costs about a minute on one core, so :func:`measure` runs once into the committed
``models/smollm2-measurements.json`` (with the file's sha256 and the engine's version);
:func:`read_measurements` reads it back, checked, and :func:`head_finding` states the
finding from it. ``python -m tokenpath.lessons.real_model_heads`` writes it again.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import pretrained
from .._checks import as_int, as_int_array
from ..examples import real_model as ex
from ..model import ForwardTrace, Model, load
from ..safefiles import ModelFileError, as_path, read_json
from ..trained.ablation import zero_head
from ..trained.heads import induction_scores, repeated_tokens, second_copy_loss
from .real_model import real_model

__all__ = ["MEASUREMENTS", "DirectLogits", "HeadFinding", "ablate_heads", "control_heads", "direct_logits",
           "head_finding", "induction_runs", "measure", "read_measurements", "write_measurements"]

#: The committed measurement file.
MEASUREMENTS = Path(__file__).resolve().parents[3] / "models" / "smollm2-measurements.json"
#: It is small: a few kilobytes.
MAX_BYTES = 1 << 20
_KEYS = {"file", "sha256", "engine", "induction", "top", "control", "top_five", "control_five"}


def induction_runs(vocab_size: int = 49152) -> np.ndarray:
    """``[sequences, 2 · length]`` the chapter's repeated random runs
    (:data:`~tokenpath.examples.real_model.REAL_INDUCTION_SEQUENCES` of
    :data:`~tokenpath.examples.real_model.REAL_INDUCTION_LENGTH` tokens, seed
    :data:`~tokenpath.examples.real_model.REAL_INDUCTION_SEED`).

    >>> induction_runs().shape
    (8, 64)
    """
    return repeated_tokens(vocab_size, sequences=ex.REAL_INDUCTION_SEQUENCES, length=ex.REAL_INDUCTION_LENGTH,
                           seed=ex.REAL_INDUCTION_SEED)


def _pairs(name: str, pairs, layers: int, heads: int) -> list[tuple[int, int]]:
    """``pairs`` checked as a list of (layer, head) pairs inside ``layers`` × ``heads``."""
    if not isinstance(pairs, (list, tuple)):
        raise TypeError(f"{name} must be a list of (layer, head) pairs, got {type(pairs).__name__}")
    out = []
    for i, pair in enumerate(pairs):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(f"{name}[{i}] must be a (layer, head) pair, got {pair!r:.40}")
        out.append((as_int(f"{name}[{i}]'s layer", pair[0], low=0, high=layers - 1),
                     as_int(f"{name}[{i}]'s head", pair[1], low=0, high=heads - 1)))
    return out


def ablate_heads(model: Model, heads) -> dict:
    """The ``replace`` argument of ``model.forward`` with every ``(layer, head)`` of
    ``heads`` silenced (several heads of one layer in one replaced layer).

    >>> from tokenpath.model import load
    >>> from tokenpath.model.gguf_model import _tiny_gguf   # a 1-layer Llama with 4 heads
    >>> replace = ablate_heads(load(_tiny_gguf()), [(0, 1), (0, 3)]); sorted(replace)
    [0]
    """
    if not isinstance(model, Model):
        raise TypeError(f"model must be a tokenpath.model.Model, got {type(model).__name__}")
    c, out = model.config, {}
    for layer, head in _pairs("heads", heads, c.num_hidden_layers, c.num_attention_heads):
        out[layer] = zero_head(out.get(layer) or model.layer_weights(layer), head)
    return out


def control_heads(layers: int, heads: int, exclude, count: int = ex.REAL_CONTROL_HEADS,
                  seed: int = ex.REAL_CONTROL_SEED) -> list[tuple[int, int]]:
    """``count`` distinct (layer, head) pairs drawn at random (seeded), none in ``exclude``.

    >>> control_heads(30, 9, [(18, 6)], count=3)
    [(29, 1), (13, 6), (15, 6)]
    """
    layers, heads = as_int("layers", layers, low=1), as_int("heads", heads, low=1)
    excluded = set(_pairs("exclude", exclude, layers, heads))
    pool = [(l, h) for l in range(layers) for h in range(heads) if (l, h) not in excluded]
    count = as_int("count", count, low=1, high=len(pool))
    order = np.random.default_rng(as_int("seed", seed, low=0)).permutation(layers * heads)
    picked = [divmod(int(o), heads) for o in order]
    return [p for p in picked if p not in excluded][:count]


def _r(x) -> float | list:
    return np.round(np.asarray(x, dtype=float), 6).tolist()


def measure(path, *, controls: int = ex.REAL_CONTROL_HEADS) -> dict:
    """The model in the GGUF file ``path``, measured: every head's induction and
    previous-token scores on :func:`induction_runs`, the loss of both copies, and the same
    losses with the top induction head silenced, with the five top heads silenced
    together, with each of ``controls`` heads drawn at random silenced, and with five
    heads drawn at random (none of the top five) silenced together. The record
    names the file it measured (its name and sha256). About a minute for SmolLM2 on one
    core, so ``path`` is asked for, never defaulted; a tiny file takes milliseconds:

    >>> from tokenpath.model.gguf_model import _tiny_gguf   # a 1-layer Llama with 4 heads, 10 IDs
    >>> r = measure(_tiny_gguf(), controls=2)
    >>> r["file"], r["induction"]["sequences"], len(r["top_five"]["heads"]), len(r["control"])
    ('tiny.gguf', 8, 4, 2)
    >>> len(r["control_five"]["heads"])   # the tiny model has 4 heads, none outside its top five
    0
    """
    path = as_path("path", path)
    controls = as_int("controls", controls, low=1)
    pinned = (pretrained.model_dir() / pretrained.SMOLLM2.filename).resolve()
    model = real_model() if path.resolve() == pinned else load(path)  # load checks the file first
    c = model.config
    as_int("controls", controls, high=c.num_hidden_layers * c.num_attention_heads - 1)
    runs = induction_runs(c.vocab_size)
    ind = induction_scores(model, runs)
    order = np.argsort(-ind.score, axis=None, kind="stable")
    ranked = [tuple(int(v) for v in np.unravel_index(o, ind.score.shape)) for o in order]
    top = ranked[0]

    def losses(heads):
        first, second = second_copy_loss(model, runs, replace=ablate_heads(model, heads))
        return {"first_copy_loss": _r(first), "second_copy_loss": _r(second),
                "first_copy_delta": _r(first - ind.first_loss), "second_copy_delta": _r(second - ind.second_loss)}

    pool = c.num_hidden_layers * c.num_attention_heads - len(ranked[:5])
    five_control = control_heads(c.num_hidden_layers, c.num_attention_heads, ranked[:5], count=min(5, pool),
                                 seed=ex.REAL_CONTROL_SEED) if pool else []
    control = [{"layer": l, "head": h, **losses([(l, h)])}
               for l, h in control_heads(c.num_hidden_layers, c.num_attention_heads, [top], count=controls)]
    return {
        "file": path.name, "sha256": pretrained._sha256(path), "engine": importlib.metadata.version("tokenpath"),
        "induction": {"sequences": ind.sequences, "length": ind.length, "seed": ex.REAL_INDUCTION_SEED,
                      "first_copy_loss": _r(ind.first_loss), "second_copy_loss": _r(ind.second_loss),
                      "score": _r(ind.score), "previous": _r(ind.previous)},
        "top": {"layer": top[0], "head": top[1], **losses([top])},
        "top_five": {"heads": [list(p) for p in ranked[:5]], **losses(ranked[:5])},
        "control": control,
        "control_five": {"heads": [list(p) for p in five_control], **losses(five_control)},
    }


def write_measurements(path, source, *, controls: int = ex.REAL_CONTROL_HEADS) -> Path:
    """:func:`measure` of the GGUF file ``source``, written as JSON to ``path``
    (:data:`MEASUREMENTS` of :func:`tokenpath.pretrained.smollm2_path` is the committed
    file, which :func:`read_measurements` accepts only for the pinned file):

    >>> import os, tempfile
    >>> from tokenpath.model.gguf_model import _tiny_gguf
    >>> out = write_measurements(os.path.join(tempfile.mkdtemp(), "m.json"), _tiny_gguf(), controls=1)
    >>> read_measurements(out)   # doctest: +ELLIPSIS
    Traceback (most recent call last):
    tokenpath.safefiles.ModelFileError: m.json: field sha256 is ..., not the pinned file's ...: it measured another file
    """
    path = as_path("path", path)
    record = measure(as_path("source", source), controls=controls)
    path.write_text(json.dumps(record, indent=1) + "\n")
    return path


def read_measurements(path=MEASUREMENTS) -> dict:
    """The committed measurements, checked: its fields, and that it was measured on the
    pinned file (its sha256).

    >>> m = read_measurements(); m["file"], len(m["control"])
    ('SmolLM2-135M-Instruct.Q4_1.gguf', 20)
    """
    if not isinstance(path, (str, os.PathLike)) or isinstance(path, bytes) or not str(path):
        raise TypeError(f"path must be the path of a measurement file (str or os.PathLike), got {path!r:.40}")
    record = read_json(Path(path), max_bytes=MAX_BYTES, what=Path(path).name)
    if not isinstance(record, dict) or set(record) != _KEYS:
        raise ModelFileError(f"{Path(path).name}: must be an object with exactly the fields {sorted(_KEYS)}")
    if record["sha256"] != pretrained.SMOLLM2.sha256:
        raise ModelFileError(f"{Path(path).name}: field sha256 is {record['sha256']!r:.20}, not the pinned file's "
                             f"{pretrained.SMOLLM2.sha256[:16]}…: it measured another file")
    score = np.asarray(record["induction"].get("score"), dtype=float)
    if score.ndim != 2 or not np.isfinite(score).all():
        raise ModelFileError(f"{Path(path).name}: field induction.score must be a [layers, heads] table of numbers")
    return record


@dataclass(frozen=True)
class HeadFinding:
    """The induction finding, as the measurement file states it."""

    first_loss: float  # mean loss on the first copy, intact model (nats)
    second_loss: float  # on the second copy
    score: np.ndarray  # [L, H] induction score of every head
    previous: np.ndarray  # [L, H] mean weight on the previous token
    top: tuple[int, int]  # (layer, head) of the largest score
    top_second_delta: float  # second copy's loss change with it silenced
    top_first_delta: float  # first copy's (the control on the text)
    top_five: tuple[tuple[int, int], ...]
    top_five_second_delta: float
    control_five: tuple[tuple[int, int], ...]  # five random heads, none of the top five
    control_five_second_delta: float  # second copy's loss change with them silenced together
    control: tuple[tuple[int, int], ...]  # the random heads
    control_second_delta: np.ndarray  # [n] each one's change of the second copy's loss
    control_first_delta: np.ndarray  # [n]

    @property
    def top_score(self) -> float:
        return float(self.score[self.top])

    @property
    def control_worst(self) -> tuple[tuple[int, int], float]:
        """The control head whose removal costs the second copy most, and that cost."""
        k = int(np.argmax(self.control_second_delta))
        return self.control[k], float(self.control_second_delta[k])


def head_finding(record: dict | None = None) -> HeadFinding:
    """:class:`HeadFinding` of ``record`` (default: the committed measurements).

    >>> f = head_finding(); f.top_second_delta > f.control_worst[1]
    True
    """
    record = read_measurements() if record is None else record
    if not isinstance(record, dict) or not _KEYS <= set(record):
        raise TypeError("record must be the dict read_measurements() returns")
    ind, top, five = record["induction"], record["top"], record["top_five"]
    arrays = [np.array(ind["score"]), np.array(ind["previous"]),
              np.array([c["second_copy_delta"] for c in record["control"]]),
              np.array([c["first_copy_delta"] for c in record["control"]])]
    for a in arrays:
        a.setflags(write=False)
    return HeadFinding(ind["first_copy_loss"], ind["second_copy_loss"], arrays[0], arrays[1],
                       (top["layer"], top["head"]), top["second_copy_delta"], top["first_copy_delta"],
                       tuple(tuple(p) for p in five["heads"]), five["second_copy_delta"],
                       tuple(tuple(p) for p in record["control_five"]["heads"]),
                       record["control_five"]["second_copy_delta"],
                       tuple((c["layer"], c["head"]) for c in record["control"]), arrays[2], arrays[3])


@dataclass(frozen=True)
class DirectLogits:
    """What each head writes straight into the next-token logits on a run's second copy.

    A head's own update (its ``heads_out`` row times its ``d_h`` rows of W_O) is read like
    the logit lens reads a stream: scaled by the final RMSNorm of the last layer's stream
    at that position (its gain and 1/RMS, held at the intact model's), then through the tied
    head Eᵀ. Positions ``n … 2n−2`` of the second copy, each scored on the ID after it.
    """

    above: np.ndarray  # [L, H] mean over those positions of the next ID's direct logit minus the row's mean
    rank: dict  # {(layer, head): median rank of the next ID among the head's direct logits, 1 = top}

    def writers(self, k: int = 3) -> list[tuple[int, int]]:
        """The ``k`` heads whose own output raises the next ID's logit most."""
        order = np.argsort(-self.above, axis=None, kind="stable")[:as_int("k", k, low=1, high=self.above.size)]
        return [tuple(int(v) for v in np.unravel_index(o, self.above.shape)) for o in order]


def direct_logits(model: Model, ids, heads=(), *, trace=None) -> DirectLogits:
    """:class:`DirectLogits` of every head on ``ids``, a run written twice (``[2n]`` IDs),
    with the median rank for each ``(layer, head)`` of ``heads``. ``trace`` is
    ``model.forward(ids)`` if the caller has it already (it is run otherwise).

    >>> from tokenpath.model import load
    >>> from tokenpath.model.gguf_model import _tiny_gguf   # a 1-layer Llama with 4 heads, 10 IDs
    >>> d = direct_logits(load(_tiny_gguf()), [1, 2, 3, 1, 2, 3], [(0, 2)])
    >>> d.above.shape, sorted(d.rank), 1 <= d.rank[0, 2] <= 10
    ((1, 4), [(0, 2)], True)
    """
    if not isinstance(model, Model):
        raise TypeError(f"model must be a tokenpath.model.Model, got {type(model).__name__}")
    ids = as_int_array("ids", ids, low=0)
    if ids.ndim != 1 or ids.size < 4 or ids.size % 2:
        raise ValueError(f"ids must be one run written twice: an even number (at least 4) of IDs, got shape {ids.shape}")
    c = model.config
    pairs = _pairs("heads", heads, c.num_hidden_layers, c.num_attention_heads)
    if trace is None:
        trace = model.forward(ids)
    elif not isinstance(trace, ForwardTrace) or not np.array_equal(trace.ids, ids):
        raise TypeError("trace must be model.forward(ids), the ForwardTrace of these same ids")
    n, E = ids.size // 2, model.embedding
    d_h = model.layer_weights(0).d_h
    x = trace.layers[-1].out[0, n:-1]  # [n−1, d] the last layer's stream on the second copy
    scale = model.tensors["model.norm.weight"] / np.sqrt((x ** 2).mean(-1, keepdims=True) + c.rms_norm_eps)
    y, rows = ids[n + 1:], np.arange(n - 1)  # the ID each position should predict
    mean_row = E.mean(0)

    def update(layer: int, head: int) -> np.ndarray:  # [n−1, d] the head's own output, scaled by the final norm
        w_o = model.layer_weights(layer).w_o[head * d_h:(head + 1) * d_h]
        return trace.layers[layer].heads_out[0, head, n:-1] @ w_o * scale

    above = np.zeros((c.num_hidden_layers, c.num_attention_heads))
    for layer in range(c.num_hidden_layers):
        for head in range(c.num_attention_heads):
            u = update(layer, head)
            above[layer, head] = ((u * E[y]).sum(-1) - u @ mean_row).mean()
    rank = {}
    for layer, head in pairs:
        z = update(layer, head) @ E.T  # [n−1, V]
        rank[layer, head] = float(np.median(1 + (z > z[rows, y][:, None]).sum(-1)))
    above.setflags(write=False)
    return DirectLogits(above, rank)


if __name__ == "__main__":  # pragma: no cover (run by hand: about a minute)
    print(write_measurements(sys.argv[1] if len(sys.argv) > 1 else MEASUREMENTS, pretrained.smollm2_path()))
