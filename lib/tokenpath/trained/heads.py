"""What each head of the trained model does with its attention weights, measured: the
four per-head measures over the held-out sample (:func:`held_out_heads`, from the one
sample pass, and as stored when the folder was written, :func:`measured_heads`), one head's map over one line (:func:`attention_map`,
:func:`line_attention`), and the induction score of every head on repeated random
tokens (:func:`induction_scores`)."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from .._checks import as_float, as_float_array, as_int, as_int_array, as_list
from ..examples import trained as ex
from ..i18n import N_, _
from ..model import Model
from ..safefiles import ModelFileError
from .files import _check_texts, _folder, _folder_path, _model, _pieces, as_shares, measure_field, sample_measures
from .sample import HEAD_MEASURES, held_out_lines, query_measures, sample_pass, uniform_weights, example_line

#: The position each weight measure is about, as the prose names it.
MEASURE_NAMES = {"previous": N_("the previous token"), "itself": N_("the token itself"), "first": N_("the first token")}
#: What a head is called when more than the chosen share of its weight goes to one position.
ROLE_NAMES = {"previous": N_("previous-token head"), "itself": N_("self head"), "first": N_("first-token head")}


def _trace_layers(name: str, trace, field: str) -> list:
    """The layers of forward trace ``trace`` after checking that each has ``field``
    (``"weights"``: ``[1, H, T, T]``; ``"chosen_experts"``: ``[1, T, k]``; ``"moe"``: a
    routed layer), or an error naming ``name``."""
    layers = getattr(trace, "layers", None)
    if not isinstance(layers, (list, tuple)):
        raise TypeError(f"{name} must be a forward trace (tokenpath.model.ForwardTrace), got {type(trace).__name__}")
    if not layers:
        raise ValueError(f"{name} must be a forward trace with at least one layer")
    for i, layer in enumerate(layers):
        if field == "moe":
            route = getattr(getattr(layer, "moe", None), "route", None)
            if route is None:
                raise ValueError(f"{name} must come from a mixture-of-experts model (every layer routed); "
                                 f"layer {i} is not")
            continue
        a = getattr(layer, field, None)
        ndim = 4 if field == "weights" else 3
        if not isinstance(a, np.ndarray) or a.ndim != ndim or a.shape[0] != 1:
            shape = "[1, H, T, T]" if field == "weights" else "[1, T, k]"
            raise TypeError(f"{name} must be a forward trace whose layers have {field} {shape} (batch of one); "
                            f"layer {i} has {type(a).__name__ if not isinstance(a, np.ndarray) else a.shape}")
        if field == "weights" and a.shape[-1] != a.shape[-2]:
            raise ValueError(f"{name} must be a forward trace whose attention weights are [1, H, T, T]; "
                             f"layer {i} has shape {a.shape}")
    return list(layers)


def _check_traces(name: str, traces, field: str) -> list:
    """``traces`` (one forward trace or several) as a non-empty list, each checked."""
    one = hasattr(traces, "layers")
    out = [traces] if one else as_list(name, traces, "forward traces")
    if not out:
        raise ValueError(f"{name} must hold at least one forward trace")
    for k, t in enumerate(out):
        _trace_layers(name if one else f"{name}[{k}]", t, field)
    return out


def previous_token_weight(trace):
    """[L, H] mean attention weight each head puts on the position just before the
    query (queries 1…T−1), from a :class:`tokenpath.model.ForwardTrace`: the
    ``previous`` measure of :func:`head_stats`.

    >>> import numpy as np
    >>> from types import SimpleNamespace as NS
    >>> w = np.eye(3, k=-1)[None, None]; w[0, 0, 0, 0] = 1
    >>> previous_token_weight(NS(layers=[NS(weights=w)]))
    array([[1.]])
    """
    _trace_layers("trace", trace, "weights")
    return head_stats(trace).previous


@dataclass(frozen=True)
class AttentionMap:
    """The attention weights of one head of one layer over a line: ``weights[q, s]`` is
    what query position ``q`` (row) puts on source position ``s`` (column); each row
    sums to one and is zero right of the diagonal (causal)."""
    layer: int
    head: int
    pieces: tuple[str, ...]  # [T] the tokens' texts
    weights: "np.ndarray"    # [T, T] query rows, source columns

    def top_sources(self, query: int, k: int = 3) -> list[tuple[int, str, float]]:
        """The ``k`` source positions ``query`` attends to most: (position, text, weight)."""
        q = as_int("query", query, low=0, high=len(self.pieces) - 1)
        k = as_int("k", k, low=1)
        order = np.argsort(-self.weights[q, : q + 1], kind="stable")[:k]
        return [(int(s), self.pieces[s], float(self.weights[q, s])) for s in order]


def attention_map(trace, pieces, layer: int, head: int) -> AttentionMap:
    """The [T, T] weights of ``head`` in ``layer`` of a forward trace, with the pieces.

    >>> import numpy as np
    >>> from types import SimpleNamespace as NS
    >>> w = np.tril(np.ones((2, 2)))[None, None] / np.array([1, 2])[:, None]
    >>> m = attention_map(NS(layers=[NS(weights=w)]), ["a", "b"], 0, 0)
    >>> m.weights.tolist(), m.top_sources(1, k=1)
    ([[1.0, 0.0], [0.5, 0.5]], [(0, 'a', 0.5)])
    """
    _trace_layers("trace", trace, "weights")
    pieces = _check_texts("pieces", pieces)
    layer = as_int("layer", layer, low=0, high=len(trace.layers) - 1)
    w = trace.layers[layer].weights[0]  # [H, T, T]
    head = as_int("head", head, low=0, high=w.shape[0] - 1)
    if len(pieces) != w.shape[-1]:
        raise ValueError(f"pieces must have one text per token ({w.shape[-1]}), got {len(pieces)}")
    weights = np.array(w[head], dtype=float)
    weights.setflags(write=False)
    return AttentionMap(layer, head, pieces, weights)


# ------------------------------------------- what each head does with its weights, measured


@dataclass(frozen=True)
class HeadStats:
    """What every head of every layer does with its weights over a text: each measure of
    :func:`query_measures` averaged over the query rows 1…T−1 of each window, and the
    same averages for a head that spreads its weights evenly (``uniform``)."""
    tokens: int
    rows: int              # query rows averaged: tokens minus one per window
    previous: "np.ndarray"  # [L, H] mean weight on the source just before the query
    itself: "np.ndarray"    # [L, H] mean weight on the query's own position
    first: "np.ndarray"     # [L, H] mean weight on the window's first position
    entropy: "np.ndarray"   # [L, H] mean entropy of a row, nats
    uniform: "np.ndarray"   # [4] the four measures of an even spread, HEAD_MEASURES order

    @property
    def shape(self) -> tuple[int, int]:
        """(layers, heads per layer)."""
        return self.previous.shape

    def measure(self, name: str) -> "np.ndarray":
        """``[L, H]`` measure ``name`` (one of :data:`HEAD_MEASURES`)."""
        if name not in HEAD_MEASURES:
            raise ValueError(f"name must be one of {HEAD_MEASURES}, got {name!r}")
        return getattr(self, name)

    def strongest(self, name: str) -> tuple[int, int]:
        """(layer, head) with the largest value of measure ``name``."""
        m = self.measure(name)
        return tuple(int(i) for i in np.unravel_index(np.argmax(m), m.shape))

    def role(self, layer: int, head: int, share: float) -> str | None:
        """The position (``"previous"``, ``"itself"`` or ``"first"``) the head puts more
        than ``share`` of its weight on, averaged over the rows; ``None`` if none."""
        layer = as_int("layer", layer, low=0, high=self.shape[0] - 1)
        head = as_int("head", head, low=0, high=self.shape[1] - 1)
        share = as_float("share", share, low=0.5)  # above one half, at most one position qualifies
        return next((n for n in MEASURE_NAMES if self.measure(n)[layer, head] > share), None)

    def heads(self, role: str | None, share: float) -> list[tuple[int, int]]:
        """Every (layer, head) whose :meth:`role` is ``role``, in layer order."""
        return [(l, h) for l in range(self.shape[0]) for h in range(self.shape[1]) if self.role(l, h, share) == role]

    def describe(self, layer: int, head: int, share: float) -> str:
        """The head's role in words, with the measurement that shows it."""
        role = self.role(layer, head, share)
        if role is None:
            top = max(MEASURE_NAMES, key=lambda n: self.measure(n)[layer, head])
            return _("not named: at most {weight} on {measure}, mean entropy {entropy} nats").format(
                weight=f"{self.measure(top)[layer, head]:.2f}", measure=_(MEASURE_NAMES[top]),
                entropy=f"{self.entropy[layer, head]:.2f}")
        return _("a {role}: {weight} of its weight on {measure}, mean over {rows} held-out queries").format(
            role=_(ROLE_NAMES[role]), weight=f"{self.measure(role)[layer, head]:.2f}", measure=_(MEASURE_NAMES[role]),
            rows=f"{self.rows:,}")


def head_stats(traces) -> HeadStats:
    """Per-head measures of one forward trace or of several (windows of one text).

    >>> from types import SimpleNamespace as NS
    >>> w = np.eye(3, k=-1)[None, None]; w[0, 0, 0, 0] = 1
    >>> s = head_stats(NS(layers=[NS(weights=w)]))
    >>> s.previous.tolist(), s.itself.tolist(), s.rows
    ([[1.0]], [[0.0]], 2)
    """
    traces = _check_traces("traces", traces, "weights")
    weights = [np.stack([layer.weights[0] for layer in t.layers]) for t in traces]  # each [L, H, T, T]
    per_row = np.concatenate([query_measures(w) for w in weights], axis=-1)         # [4, L, H, rows]
    even = np.concatenate([query_measures(uniform_weights(w.shape[-1])) for w in weights], axis=-1)
    return _stats(sum(w.shape[-1] for w in weights), per_row, even)


def _stats(tokens: int, per_row: np.ndarray, even: np.ndarray) -> HeadStats:
    means = [*per_row.mean(axis=-1), even.mean(axis=-1)]  # four [L, H] arrays, then [4]
    for m in means:
        m.setflags(write=False)
    return HeadStats(tokens, per_row.shape[-1], *means)


@functools.lru_cache(maxsize=4)
def _held_out_heads(model: Model, folder: Path) -> HeadStats:
    p = sample_pass(model, folder)
    return _stats(p.tokens, p.measures, p.uniform)


def held_out_heads(model=None, folder=None) -> HeadStats:
    """Per-head measures of the trained model over the whole held-out sample, every
    file in windows of its context (:func:`~tokenpath.trained.sample_pass`).

    >>> s, p = held_out_heads(), sample_pass()
    >>> s.shape, s.rows == s.tokens - len(p.spans)  # every window's first row left out
    ((4, 4), True)
    """
    folder = _folder(folder)
    return _held_out_heads(_model(model, folder), folder)


def measured_heads(folder=None) -> HeadStats:
    """The same measures as stored in ``evaluation.json`` when the folder was written
    (the pass takes seconds; the chapter, its figure and its slider read these, and the
    suite checks that :func:`held_out_heads` gives them again).

    >>> s = measured_heads()
    >>> s.shape, s.strongest("previous")
    ((4, 4), (2, 1))
    """
    return _measured_heads(_folder(folder))


@functools.lru_cache(maxsize=4)
def _measured_heads(folder: Path) -> HeadStats:
    sample, part = sample_measures(folder, "heads")
    rows = measure_field(part, "sample.heads", "rows", lambda n, v: as_int(n, v, low=1))
    tables = [measure_field(part, "sample.heads", m, lambda n, v: as_shares(n, v, 2)) for m in HEAD_MEASURES[:3]]
    tables.append(measure_field(part, "sample.heads", "entropy", lambda n, v: as_float_array(n, v, ndim=2)))
    uniform = measure_field(part, "sample.heads", "uniform", lambda n, v: as_float_array(n, v, ndim=1))
    if len({t.shape for t in tables}) != 1 or uniform.shape != (len(HEAD_MEASURES),):
        raise ModelFileError("evaluation.json: sample.heads must hold four [layers, heads] tables of one shape "
                             f"and {len(HEAD_MEASURES)} even-spread values")
    tokens = measure_field(sample, "sample", "tokens", lambda n, v: as_int(n, v, low=rows))
    return HeadStats(tokens, rows, *tables, uniform)


@dataclass(frozen=True)
class LineAttention:
    """Every head's weights over one held-out line (one forward pass, the line on its
    own), one (layer, head, query) picked, and every head's measures over the sample."""
    line: int                 # the sample line, 0-based (held_out_lines)
    text: str
    weights: np.ndarray       # [L, H, T, T] query rows, source columns
    stats: HeadStats
    share: float              # a head is named after a position holding more than this share
    map: AttentionMap         # the picked layer and head
    query: int

    @property
    def pieces(self) -> tuple[str, ...]:
        return self.map.pieces

    @property
    def layer(self) -> int:
        return self.map.layer

    @property
    def head(self) -> int:
        return self.map.head

    @property
    def row(self) -> np.ndarray:
        """[T] what the picked query puts on each source (zero right of it)."""
        return self.map.weights[self.query]

    @property
    def role(self) -> str | None:
        return self.stats.role(self.layer, self.head, self.share)

    def pick(self, layer: int, head: int, query: int) -> "LineAttention":
        """The same line with another layer, head and query: no forward pass, only a pick.

        >>> t = line_attention().pick(0, 2, 3)
        >>> t.layer, t.head, t.query, round(float(t.row.sum()), 6)
        (0, 2, 3, 1.0)
        """
        m = attention_map(_AsTrace(self.weights), self.pieces, layer, head)
        query = as_int("query", query, low=0, high=len(self.pieces) - 1)
        return dataclasses.replace(self, map=m, query=query)


class _AsTrace:
    """``weights [L, H, T, T]`` seen as a forward trace's layers (batch of one)."""

    def __init__(self, weights):
        self.layers = [SimpleNamespace(weights=w[None]) for w in weights]


def line_attention(model=None, folder=None, *, line: int | None = None, layer: int | None = None,
                   head: int | None = None, query: int | None = None,
                   share: float = ex.HEAD_ROLE_SHARE) -> LineAttention:
    """The attention of held-out ``line`` (default: :func:`~tokenpath.trained.example_line`):
    by default the head with the largest mean weight on the previous token over the
    sample (:data:`~tokenpath.examples.HEAD_DEFAULT_MEASURE`), and the line's last token
    as the query (it may read the whole line).

    >>> t = line_attention()
    >>> t.query == len(t.pieces) - 1, t.role
    (True, 'previous')
    """
    share = as_float("share", share, low=0.5)
    for name, value in (("line", line), ("layer", layer), ("head", head), ("query", query)):
        if value is not None:
            as_int(name, value, low=0)
    folder = _folder(folder)
    model = _model(model, folder)
    line = example_line(folder) if line is None else line
    text, pieces, weights = _line_weights(model, folder, line)
    stats = measured_heads(folder)
    best = stats.strongest(ex.HEAD_DEFAULT_MEASURE)
    layer = best[0] if layer is None else layer
    head = best[1] if head is None else head
    query = len(pieces) - 1 if query is None else query
    m = attention_map(_AsTrace(weights), pieces, layer, head)
    return LineAttention(line, text, weights, stats, share, m, 0).pick(layer, head, query)


@functools.lru_cache(maxsize=8)
def _line_weights(model: Model, folder: Path, line: int):
    """One forward pass over held-out ``line``: its text, its tokens' texts and every
    head's weights ``[L, H, T, T]`` (read-only), once per model and line."""
    lines = held_out_lines(folder)
    if line >= len(lines):
        raise ValueError(f"line must be below {len(lines)}, the held-out sample's number of lines, got {line}")
    ids = model.encode(lines[line])
    if len(ids) < 2:
        raise ValueError(f"line must have at least 2 tokens to show attention, line {line} has {len(ids)}")
    trace = model.forward(ids)
    weights = np.stack([layer_.weights[0] for layer_ in trace.layers])  # [L, H, T, T]
    weights.setflags(write=False)
    return lines[line], _pieces(model, ids), weights


# ------------------------------------------------ induction: repeated random tokens

def repeated_tokens(vocab_size: int, *, sequences: int = ex.INDUCTION_SEQUENCES,
                    length: int = ex.INDUCTION_LENGTH, seed: int = ex.INDUCTION_SEED) -> np.ndarray:
    """``[sequences, 2 · length]`` random token IDs below ``vocab_size − 1`` (seeded; the
    last ID is left out, the book's own model's EOS; another model's special tokens may
    be drawn), each row a
    random run of ``length`` tokens followed by the same run again: text no model has
    seen, whose second half can only be predicted by finding the first.

    >>> r = repeated_tokens(50, sequences=2, length=3)
    >>> r.shape, bool((r[:, :3] == r[:, 3:]).all())
    ((2, 6), True)
    """
    vocab_size = as_int("vocab_size", vocab_size, low=3)
    sequences, length = as_int("sequences", sequences, low=1), as_int("length", length, low=2)
    run = np.random.default_rng(seed).integers(0, vocab_size - 1, size=(sequences, length))
    return np.concatenate([run, run], axis=1)


@dataclass(frozen=True)
class Induction:
    """Every head on repeated random tokens: ``score[l, h]`` is the mean weight a query
    in the second copy (position t ≥ n) puts on the source t − n + 1, the token that
    followed the query's own token the first time (an *induction* read); ``previous``
    the mean weight on t − 1 over the same queries. ``first_loss`` and ``second_loss``
    are the model's mean loss on the targets of each copy (the second copy's targets
    t = n + 1 … 2n − 1, each with its first occurrence in view)."""
    length: int
    sequences: int
    score: np.ndarray      # [L, H]
    previous: np.ndarray   # [L, H]
    first_loss: float
    second_loss: float

    def strongest(self) -> tuple[int, int]:
        return tuple(int(i) for i in np.unravel_index(np.argmax(self.score), self.score.shape))


def second_copy_loss(model: Model, runs: np.ndarray, *, replace=None) -> tuple[float, float]:
    """(mean loss on the first copy's targets 1…n−1, on the second's n+1…2n−1)."""
    n = runs.shape[1] // 2
    first, second = [], []
    for row in runs:
        z = model.forward(row, replace=replace).logits
        z = z - z.max(axis=-1, keepdims=True)
        nll = -(z - np.log(np.exp(z).sum(-1, keepdims=True)))[np.arange(2 * n - 1), row[1:]]  # target t+1
        first.append(nll[: n - 1])
        second.append(nll[n:])
    return float(np.mean(first)), float(np.mean(second))


def induction_scores(model: Model, runs: np.ndarray | None = None) -> Induction:
    """:class:`Induction` of ``model`` on ``runs`` (default :func:`repeated_tokens`).

    >>> from tokenpath.trained import committed_model
    >>> m = committed_model()
    >>> i = induction_scores(m, repeated_tokens(m.config.vocab_size, sequences=2, length=16))
    >>> i.score.shape, i.sequences, i.length
    ((4, 4), 2, 16)
    """
    if not isinstance(model, Model):
        raise TypeError(f"model must be a tokenpath.model.Model, got {type(model).__name__}")
    if runs is None:
        runs = repeated_tokens(model.config.vocab_size)
    runs = as_int_array("runs", runs, ndim=2, low=0)
    if runs.shape[1] < 4 or runs.shape[1] % 2 or not (runs[:, : runs.shape[1] // 2] == runs[:, runs.shape[1] // 2:]).all():
        raise ValueError(f"runs must be [sequences, 2·n] token IDs, each row a run repeated once, got shape {runs.shape}")
    if runs.max() >= model.config.vocab_size:
        raise ValueError(f"runs must hold IDs below vocab_size={model.config.vocab_size}, got {runs.max()}")
    n = runs.shape[1] // 2
    t = np.arange(n, 2 * n)
    score, prev = [], []
    for row in runs:
        w = np.stack([layer.weights[0] for layer in model.forward(row).layers])  # [L, H, T, T]
        score.append(w[..., t, t - n + 1].mean(-1))
        prev.append(w[..., t, t - 1].mean(-1))
    first, second = second_copy_loss(model, runs)
    return Induction(n, len(runs), np.mean(score, 0), np.mean(prev, 0), first, second)
