"""One pass of the trained model over the committed held-out sample (``held_out.json``),
kept small: every file encoded on its own and run in consecutive windows of the
context the model was trained on (``max_position_embeddings`` tokens, the last one
shorter), and of every forward trace only what the chapters measure: each token's
loss, each head's four weight measures per query row, each router's choices, and how
close each layer's expert-block input stays to the token's embedding row. Computed
once per process, model and folder (:func:`sample_pass`); the traces themselves are
not kept.

The sample's lines (:func:`held_out_lines`) are its files' texts one after the other;
:func:`line_tokens` maps them to the pass's tokens by their bytes, and
:func:`line_source` names the file and line a sample line comes from.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._checks import as_float_array, as_int
from ..examples import trained as ex
from ..model import Model
from .files import SampleFile, _folder, _model, _pieces, held_out_sample

#: The per-head measures, in the order of :func:`query_measures` and the chapter's table.
HEAD_MEASURES = ("previous", "itself", "first", "entropy")


def query_measures(weights) -> np.ndarray:
    """``[4, …, T−1]``: for each query row q = 1…T−1 of causal ``weights [..., T, T]``
    (rows = queries, columns = sources), the weight on source q−1 (*previous*), on q
    (*itself*) and on 0 (*first*), and the row's entropy in nats. Row 0 is left out:
    it can read nothing but itself, so it says nothing about the head.

    >>> w = np.array([[1, 0, 0], [0.5, 0.5, 0], [0, 1, 0]])
    >>> query_measures(w).round(3).tolist()
    [[0.5, 1.0], [0.5, 0.0], [0.5, 0.0], [0.693, 0.0]]
    """
    w = as_float_array("weights", weights, min_ndim=2)
    t = w.shape[-1]
    if w.shape[-2] != t or t < 2:
        raise ValueError(f"weights must be [..., T, T] with T >= 2 (query rows, source columns), got shape {w.shape}")
    q = np.arange(1, t)
    rows = w[..., 1:, :]                                    # [..., T−1, T]
    entropy = (rows * np.log(1.0 / np.where(rows > 0, rows, 1.0))).sum(axis=-1)  # 0 log 0 = 0
    return np.stack([w[..., q, q - 1], w[..., q, q], rows[..., 0], entropy])


def uniform_weights(t: int) -> np.ndarray:
    """``[T, T]`` causal weights of a head that spreads every row evenly over what it may read.

    >>> uniform_weights(3).tolist()
    [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.3333333333333333, 0.3333333333333333, 0.3333333333333333]]
    """
    t = as_int("t", t, low=1)
    return np.tril(np.ones((t, t))) / np.arange(1, t + 1)[:, None]


def window_spans(n: int, size: int) -> tuple[tuple[int, int], ...]:
    """(start, stop) of consecutive windows of at most ``size`` over ``n`` tokens.

    >>> window_spans(5, 2)
    ((0, 2), (2, 4), (4, 5))
    """
    n, size = as_int("n", n, low=0), as_int("size", size, low=1)
    return tuple((s, min(s + size, n)) for s in range(0, n, size))


def token_losses(logits: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """``[T−1]`` −ln softmax(logits[t])[ids[t+1]]: the loss of every target of one
    window, from the logits ``[T, V]`` of its positions.

    >>> token_losses(np.zeros((3, 4)), np.array([0, 1, 2])).round(4).tolist()
    [1.3863, 1.3863]
    """
    z = logits[:-1] - logits[:-1].max(axis=-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    return -logp[np.arange(len(ids) - 1), ids[1:]]


def _cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))


@dataclass(frozen=True)
class SamplePass:
    """What one pass of the model over the held-out sample keeps (``N`` tokens of all
    files, in file order; ``R`` query rows: every token but each window's first)."""

    files: tuple[SampleFile, ...]
    ids: np.ndarray            # [N] token IDs
    file_of: np.ndarray        # [N] index of the file each token comes from
    pieces: tuple[str, ...]    # [N] each token's text (U+FFFD for a part of a character)
    spans: tuple[tuple[int, int], ...]  # (start, stop) in [0, N) of every window
    losses: np.ndarray         # [N] loss of the token given its window before it; NaN at a window's first
    measures: np.ndarray       # [4, L, H, R] HEAD_MEASURES of every head per query row
    uniform: np.ndarray        # [4, R] the same for an even spread over what the row may read
    probs: np.ndarray          # [L, N, E] router probabilities over all experts
    chosen: np.ndarray         # [L, N, k] chosen experts, best first
    gates: np.ndarray          # [L, N, k] in-set gates, in ``chosen`` order
    cosine: np.ndarray         # [L, N] cos(expert block's input stream Y, the token's embedding row)

    @property
    def tokens(self) -> int:
        return int(self.ids.size)

    @property
    def targets(self) -> np.ndarray:
        """[N] True where the token is a target (not a window's first token)."""
        return ~np.isnan(self.losses)

    @property
    def loss(self) -> float:
        """Mean loss over every target of the sample, nats per token."""
        return float(np.nanmean(self.losses))


def file_windows(model: Model, files) -> tuple[np.ndarray, np.ndarray, tuple[tuple[int, int], ...]]:
    """(ids [N], file_of [N], window spans): every file encoded on its own, cut into
    windows of the model's context."""
    encoded = [model.encode(f.text) for f in files]
    ids = np.concatenate(encoded)
    file_of = np.repeat(np.arange(len(encoded)), [e.size for e in encoded])
    spans, start = [], 0
    for e in encoded:
        spans += [(start + a, start + b) for a, b in window_spans(e.size, model.config.max_position_embeddings)]
        start += e.size
    return ids, file_of, tuple(spans)


def window_losses(model: Model, ids: np.ndarray, spans, *, replace=None) -> np.ndarray:
    """``[N]`` every target's loss, each window run on its own (NaN at each window's
    first token); ``replace`` swaps layers' weights (:meth:`tokenpath.model.Model.forward`)."""
    out = np.full(ids.size, np.nan)
    for a, b in spans:
        if b - a >= 2:
            out[a + 1:b] = token_losses(model.forward(ids[a:b], replace=replace).logits, ids[a:b])
    return out


def run_sample(model: Model, files) -> SamplePass:
    """The pass itself (see :class:`SamplePass`)."""
    ids, file_of, spans = file_windows(model, files)
    losses = np.full(ids.size, np.nan)
    measures, uniform, probs, chosen, gates, cosine = [], [], [], [], [], []
    for a, b in spans:
        tr = model.forward(ids[a:b])
        if b - a >= 2:
            losses[a + 1:b] = token_losses(tr.logits, tr.ids)
            measures.append(query_measures(np.stack([layer.weights[0] for layer in tr.layers])))  # [4, L, H, rows]
            uniform.append(query_measures(uniform_weights(b - a)))
        probs.append(np.stack([layer.moe.route.probs[0] for layer in tr.layers]))
        chosen.append(np.stack([layer.moe.route.chosen[0] for layer in tr.layers]))
        gates.append(np.stack([layer.moe.route.chosen_gates[0] for layer in tr.layers]))
        cosine.append(np.stack([_cosine(layer.y[0], tr.x) for layer in tr.layers]))
    arrays = [losses, np.concatenate(measures, axis=-1), np.concatenate(uniform, axis=-1),
              *(np.concatenate(a, axis=1) for a in (probs, chosen, gates, cosine))]
    for arr in (ids, file_of, *arrays):
        arr.setflags(write=False)
    return SamplePass(tuple(files), ids, file_of, _pieces(model, ids), spans, *arrays)


def sample_pass(model=None, folder=None) -> SamplePass:
    """The one pass of the book over the held-out sample, computed once per process,
    model and folder. ``model``, if given, must be the folder's model.

    >>> p = sample_pass()
    >>> p.tokens >= 20_000, len(set(p.file_of.tolist())) >= 10, p.measures.shape[:3]
    (True, True, (4, 4, 4))
    """
    folder = _folder(folder)
    return _sample_pass(_model(model, folder), folder)


@functools.lru_cache(maxsize=2)
def _sample_pass(model: Model, folder: Path) -> SamplePass:
    return run_sample(model, held_out_sample(folder))


# ------------------------------------------------ the sample's lines

def held_out_lines(folder=None) -> list[str]:
    """The lines of the held-out sample, file after file, without their ends (the last
    entry is the empty text after the final newline)."""
    return list(_lines(_folder(folder)))


@functools.lru_cache(maxsize=2)
def _lines(folder: Path) -> tuple[str, ...]:
    return tuple("".join(f.text for f in held_out_sample(folder)).split("\n"))


@functools.lru_cache(maxsize=2)
def _line_files(folder: Path) -> tuple[str, ...]:
    """The file each sample line (but the last, empty one) comes from."""
    return tuple(f.path for f in held_out_sample(folder) for _ in range(f.text.count("\n")))


def line_source(line: int, folder=None) -> tuple[str, int]:
    """(file, 1-based line in that file) of sample line ``line`` (0-based).

    >>> f = held_out_sample()[0]
    >>> line_source(0) == (f.path, f.line)
    True
    """
    files = held_out_sample(folder)
    line = as_int("line", line, low=0, high=len(held_out_lines(folder)) - 2)
    for f in files:
        n = f.text.count("\n")
        if line < n:
            return f.path, f.line + line
        line -= n
    raise AssertionError("unreachable: the line was checked against the sample's lines")


@functools.lru_cache(maxsize=2)
def sample_windows(model: Model, folder: Path) -> tuple[np.ndarray, tuple[tuple[int, int], ...]]:
    """(ids [N], window spans) of the held-out sample, as the sample pass cuts it: the
    tokenizer only, no forward pass (what a line or a window of the pass needs)."""
    ids, _, spans = file_windows(model, held_out_sample(folder))
    ids.setflags(write=False)
    return ids, spans


@functools.lru_cache(maxsize=2)
def _line_tokens(model: Model, folder: Path) -> tuple[range, ...]:
    ids, _ = sample_windows(model, folder)
    lines = held_out_lines(folder)
    size = np.array([len(model.tokenizer.token_bytes(int(i))) for i in ids])
    starts = np.cumsum(np.append(0, size[:-1]))                                   # [N] first byte
    lengths = np.array([len(l.encode("utf-8")) for l in lines])
    line_starts = np.cumsum(np.append(0, lengths[:-1] + 1))                       # [lines]
    owner = np.searchsorted(line_starts, starts, side="right") - 1                # [N] line of each token
    inside = starts < line_starts[owner] + lengths[owner]                         # not its newline
    out = []
    for n in range(len(lines)):
        ts = np.flatnonzero((owner == n) & inside)
        out.append(range(int(ts[0]), int(ts[-1]) + 1) if ts.size else range(0))
    return tuple(out)


def line_tokens(folder=None) -> tuple[range, ...]:
    """For every sample line, the positions of its tokens in the sample pass: the
    tokens that *start* in the line. A newline token belongs to the line it ends, with
    the next line's indentation it carries.

    >>> spans, p = line_tokens(), sample_pass()
    >>> "".join(p.pieces[t] for t in spans[example_line()]) in held_out_lines()[example_line()]
    True
    """
    folder = _folder(folder)
    return _line_tokens(_model(None, folder), folder)


def route_lines(folder=None, *, low: int = ex.ROUTE_LINE_TOKENS[0], high: int = ex.ROUTE_LINE_TOKENS[1]) -> tuple[int, ...]:
    """The sample lines (0-based) the chapter offers: every line that is neither blank
    nor a comment (a line starting with ``#``; docstring lines pass) and has ``low`` to
    ``high`` tokens in the sample pass (:func:`line_tokens`).

    >>> example_line() in route_lines()
    True
    """
    low = as_int("low", low, low=2)
    high = as_int("high", high, low=low)
    spans = line_tokens(folder)
    return tuple(n for n, line in enumerate(held_out_lines(folder))
                 if line.strip() and not line.strip().startswith("#") and low <= len(spans[n]) <= high)


def example_lines(folder=None) -> tuple[int, ...]:
    """The sample lines (0-based) the chapter's views offer, chosen by a rule, not by
    hand: from every file of the sample, the first line of :func:`route_lines` that
    defines a method (its code starts with :data:`~tokenpath.examples.TRAINED_LINE_START`
    and has an argument after ``self``), if it has one.

    >>> lines = held_out_lines()
    >>> all(lines[n].strip().startswith(ex.TRAINED_LINE_START) for n in example_lines())
    True
    """
    folder = _folder(folder)
    lines, files = _lines(folder), _line_files(folder)
    out: dict[str, int] = {}
    for n in route_lines(folder):
        code = lines[n].strip()
        if code.startswith(ex.TRAINED_LINE_START) and "(self, " in code:
            out.setdefault(files[n], n)
    if not out:
        raise ValueError("the held-out sample must hold a method definition of the offered length")
    return tuple(sorted(out.values()))


def example_line(folder=None) -> int:
    """The line the chapter opens: the first of :func:`example_lines`."""
    return example_lines(folder)[0]
