"""The book's own trained model, for the reader: where its folder is, what its training
record says, its parameters counted stored and per token, its loss figure, and two views
of a forward trace (the weight each head puts on the previous token; the experts each
token was routed to). For chapter 8: every router's probabilities, choices and gates over
the committed held-out text (one pass per process, :func:`held_out_routes`), cut per line
(:func:`line_routing`), figure 24's view of one layer and line (:func:`routing_view`) and
whether one token text keeps its experts (:func:`text_agreement`).

Pure NumPy and the standard library: reading the committed folder needs no PyTorch.
Training it is :mod:`tokenpath._train` (``make model``), which imports PyTorch.
"""

from __future__ import annotations

import functools
import json
import math
import stat
from dataclasses import dataclass
from pathlib import Path

from .examples import trained as ex

__all__ = [
    "attention_map",
    "committed_model",
    "count_moe_parameters",
    "draw_loss",
    "greedy_steps",
    "head_stats",
    "held_out_heads",
    "held_out_lines",
    "held_out_routes",
    "held_out_routing",
    "held_out_windows",
    "line_attention",
    "line_routing",
    "line_tokens",
    "loss_alt",
    "next_token",
    "pieces_of",
    "previous_token_weight",
    "query_measures",
    "read_samples",
    "read_training",
    "route_lines",
    "routes_of",
    "routing_rows",
    "routing_stats",
    "routing_view",
    "text_agreement",
    "trained_folder",
    "uniform_weights",
]

FOLDER = Path(ex.TRAINED_FOLDER)
TRAINING_NAME = "training.json"
SAMPLES_NAME = "samples.json"
HELD_OUT_NAME = "held_out.txt"
LOSS_FIGURE = "loss"


def trained_folder() -> Path:
    """The committed model folder of this checkout (``models/stdlib-moe``)."""
    return Path(__file__).resolve().parents[2] / FOLDER


# ------------------------------------------------ checks of the arguments

def _folder_path(folder) -> Path:
    """``folder`` as a :class:`~pathlib.Path` (default: :func:`trained_folder`), if it
    names an existing folder; otherwise an error naming ``folder``."""
    import os

    from .safefiles import as_path, short_repr

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


def _read_text(folder: Path, name: str) -> str:
    """The text of file ``name`` in ``folder`` (universal newlines, as ``Path.read_text``);
    a missing or unreadable file is a ``ModelFileError`` naming it."""
    import io

    from .safefiles import open_regular_file

    with open_regular_file(folder / name, what=name) as f:
        return io.TextIOWrapper(f, encoding="utf-8").read()


def _check_model(model) -> None:
    from .model import Model

    if model is not None and not isinstance(model, Model):
        raise TypeError(f"model must be None or a tokenpath.model.Model (the folder's model), got {type(model).__name__}")


def _check_texts(name: str, pieces) -> tuple[str, ...]:
    """``pieces`` as a tuple of str (the tokens' texts), or an error naming ``name``."""
    from ._checks import as_list

    def item(k, v):
        if not isinstance(v, str):
            raise TypeError(f"{name}[{k}] must be a str (a token's text), got {type(v).__name__}")

    return tuple(as_list(name, pieces, "token texts (str)", item=item))


def _trace_layers(name: str, trace, field: str) -> list:
    """The layers of forward trace ``trace`` after checking that each has ``field``
    (``"weights"``: ``[1, H, T, T]``; ``"chosen_experts"``: ``[1, T, k]``; ``"moe"``: a
    routed layer), or an error naming ``name``."""
    import numpy as np

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
    from ._checks import as_list

    one = hasattr(traces, "layers")
    out = [traces] if one else as_list(name, traces, "forward traces")
    if not out:
        raise ValueError(f"{name} must hold at least one forward trace")
    for k, t in enumerate(out):
        _trace_layers(name if one else f"{name}[{k}]", t, field)
    return out


def _check_record(record) -> None:
    """``record`` must be a training record as ``training.json`` holds it."""
    from ._checks import as_float, as_float_array, as_int

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


def read_training(folder=None) -> dict:
    """The committed training record (``training.json``)."""
    return json.loads(_read_text(_folder_path(folder), TRAINING_NAME))


def read_samples(folder=None) -> dict:
    """The completions the training script recorded (``samples.json``)."""
    return json.loads(_read_text(_folder_path(folder), SAMPLES_NAME))


@dataclass(frozen=True)
class MoeCount:
    """Parameters of a Mixtral-style folder, read from its safetensors header.

    ``total`` counts every stored number; ``active`` what one token uses: everything
    but the experts its router did not choose (``num_experts_per_tok`` of
    ``num_local_experts`` in each layer)."""

    total: int
    experts: int          # all experts of all layers
    per_expert: int       # one expert of one layer (gate, up and down matrices)
    embedding: int
    head: int
    attention: int        # all layers
    routers: int          # all layers
    norms: int
    layers: int
    num_experts: int
    top_k: int

    @property
    def active(self) -> int:
        return self.total - self.layers * (self.num_experts - self.top_k) * self.per_expert


def count_moe_parameters(folder=None) -> MoeCount:
    """Count a Mixtral folder's parameters by tensor name from its header and config.

    >>> c = count_moe_parameters()
    >>> c.total == c.experts + c.embedding + c.head + c.attention + c.routers + c.norms
    True
    """
    from . import safetensors_format as S

    folder = _folder_path(folder)
    cfg = json.loads(_read_text(folder, "config.json"))
    keys = ("num_hidden_layers", "num_local_experts", "num_experts_per_tok")
    if not isinstance(cfg, dict) or not all(type(cfg.get(k)) is int and cfg[k] >= 1 for k in keys):
        raise S.ModelFileError(f"{folder / 'config.json'}: must be a Mixtral config with positive integers "
                               f"{', '.join(keys)}")
    sizes: dict[str, int] = {}
    for e in S.read_header(folder / "model.safetensors").tensors:
        sizes[e.name] = math.prod(e.shape)

    def part(test):
        return sum(n for name, n in sizes.items() if test(name))

    experts = part(lambda n: ".experts." in n)
    per_expert = part(lambda n: n.startswith("model.layers.0.") and ".experts.0." in n)
    return MoeCount(
        total=sum(sizes.values()), experts=experts, per_expert=per_expert,
        embedding=part(lambda n: "embed_tokens" in n), head=part(lambda n: n.startswith("lm_head")),
        attention=part(lambda n: ".self_attn." in n), routers=part(lambda n: n.endswith(".gate.weight")),
        norms=part(lambda n: "norm" in n), layers=cfg["num_hidden_layers"],
        num_experts=cfg["num_local_experts"], top_k=cfg["num_experts_per_tok"])


def draw_loss(ax, record: dict) -> dict:
    """The training-loss curve, the held-out loss and ln V on ``ax``; returns the artists."""
    if not all(callable(getattr(ax, a, None)) for a in ("plot", "axhline", "set_xlim", "legend")):
        raise TypeError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")
    _check_record(record)
    from .figures import style

    every = record["loss_curve"]["every"]
    ys = record["loss_curve"]["mean_train_loss"]
    xs = [every * (i + 1) for i in range(len(ys))]
    (line,) = ax.plot(xs, ys, color=style.VISIBLE, lw=1.5, label="training loss (mean of 10 steps)")
    held = ax.axhline(record["held_out_loss"], color=style.VALUE, lw=1.2, ls="--",
                      label=f"held-out loss {record['held_out_loss']:.2f}")
    base = ax.axhline(record["ln_vocab"], color=style.NEUTRAL, lw=1.2, ls=":",
                      label=f"uniform guess ln V = {record['ln_vocab']:.2f}")
    ax.set_xlabel("training step")
    ax.set_ylabel("cross-entropy (nats per token)")
    ax.set_ylim(0, math.ceil(max(max(ys), record["ln_vocab"])) + 0.5)
    ax.set_xlim(0, xs[-1])
    ax.legend(loc="upper right", frameon=False)
    return {"line": line, "held": held, "base": base}


def loss_alt(record: dict) -> str:
    """The alt text of the loss figure, from training record ``record``."""
    _check_record(record)
    ys = record["loss_curve"]["mean_train_loss"]
    return (f"Training loss of the book's model over {record['steps']} steps, falling from {ys[0]:.2f} to "
            f"{ys[-1]:.2f} nats per token; held-out loss {record['held_out_loss']:.2f}; "
            f"the uniform guess ln V is {record['ln_vocab']:.2f}.")


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


def routing_rows(trace, pieces) -> list[tuple[str, ...]]:
    """One row per token: the token's text and, per layer, its chosen experts (best first)."""
    layers = _trace_layers("trace", trace, "chosen_experts")
    pieces = _check_texts("pieces", pieces)
    if any(len(pieces) != layer.chosen_experts.shape[1] for layer in layers):
        raise ValueError(f"pieces must have one text per token of trace ({layers[0].chosen_experts.shape[1]}), "
                         f"got {len(pieces)}")
    return [(piece, *(" ".join(str(int(e)) for e in layer.chosen_experts[0, t]) for layer in trace.layers))
            for t, piece in enumerate(pieces)]


class LossFigure:
    """The committed ``loss.png`` for a notebook cell, shown the way
    :class:`tokenpath.figures.FigureDisplay` shows a figure (image, alt text, caption)."""

    title = "The book's model · training loss"

    def __init__(self, folder=None):
        self.folder = _folder_path(folder)
        self.alt = loss_alt(read_training(self.folder))

    def _repr_mimebundle_(self, include=None, exclude=None):
        from .figures import figure_bundle

        png = (self.folder / f"{LOSS_FIGURE}.png").read_bytes()
        return figure_bundle(png, self.alt, self.title, "trained-loss")

    def __repr__(self) -> str:
        return "LossFigure()"


# ------------------------------------------------ attention of one head, routing over a text

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
        import numpy as np
        from ._checks import as_int

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
    import numpy as np
    from ._checks import as_int

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

#: The per-head measures, in the order of :func:`query_measures` and the chapter's table.
HEAD_MEASURES = ("previous", "itself", "first", "entropy")
#: The position each weight measure is about, as the prose names it.
MEASURE_NAMES = {"previous": "the previous token", "itself": "the token itself", "first": "the first token"}


def query_measures(weights) -> "np.ndarray":
    """``[4, …, T−1]``: for each query row q = 1…T−1 of causal ``weights [..., T, T]``
    (rows = queries, columns = sources), the weight on source q−1 (*previous*), on q
    (*itself*) and on 0 (*first*), and the row's entropy in nats. Row 0 is left out:
    it can read nothing but itself, so it says nothing about the head.

    >>> import numpy as np
    >>> w = np.array([[1, 0, 0], [0.5, 0.5, 0], [0, 1, 0]])
    >>> query_measures(w).round(3).tolist()
    [[0.5, 1.0], [0.5, 0.0], [0.5, 0.0], [0.693, 0.0]]
    """
    import numpy as np
    from ._checks import as_float_array

    w = as_float_array("weights", weights, min_ndim=2)
    t = w.shape[-1]
    if w.shape[-2] != t or t < 2:
        raise ValueError(f"weights must be [..., T, T] with T >= 2 (query rows, source columns), got shape {w.shape}")
    q = np.arange(1, t)
    rows = w[..., 1:, :]                                    # [..., T−1, T]
    entropy = (rows * np.log(1.0 / np.where(rows > 0, rows, 1.0))).sum(axis=-1)  # 0 log 0 = 0
    return np.stack([w[..., q, q - 1], w[..., q, q], rows[..., 0], entropy])


def uniform_weights(t: int) -> "np.ndarray":
    """``[T, T]`` causal weights of a head that spreads every row evenly over what it may read.

    >>> uniform_weights(3).tolist()
    [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.3333333333333333, 0.3333333333333333, 0.3333333333333333]]
    """
    import numpy as np
    from ._checks import as_int

    t = as_int("t", t, low=1)
    return np.tril(np.ones((t, t))) / np.arange(1, t + 1)[:, None]


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
        import numpy as np

        m = self.measure(name)
        return tuple(int(i) for i in np.unravel_index(np.argmax(m), m.shape))

    def role(self, layer: int, head: int, share: float) -> str | None:
        """The position (``"previous"``, ``"itself"`` or ``"first"``) the head puts more
        than ``share`` of its weight on, averaged over the rows; ``None`` if none."""
        from ._checks import as_float, as_int

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
            return (f"not named: at most {self.measure(top)[layer, head]:.2f} on {MEASURE_NAMES[top]}, "
                    f"mean entropy {self.entropy[layer, head]:.2f} nats")
        return (f"a {ROLE_NAMES[role]}: {self.measure(role)[layer, head]:.2f} of its weight on {MEASURE_NAMES[role]}, "
                f"mean over {self.rows:,} held-out queries")


#: What a head is called when more than the chosen share of its weight goes to one position.
ROLE_NAMES = {"previous": "previous-token head", "itself": "self head", "first": "first-token head"}


def head_stats(traces) -> HeadStats:
    """Per-head measures of one forward trace or of several (windows of one text).

    >>> import numpy as np
    >>> from types import SimpleNamespace as NS
    >>> w = np.eye(3, k=-1)[None, None]; w[0, 0, 0, 0] = 1
    >>> s = head_stats(NS(layers=[NS(weights=w)]))
    >>> s.previous.tolist(), s.itself.tolist(), s.rows
    ([[1.0]], [[0.0]], 2)
    """
    import numpy as np

    traces = _check_traces("traces", traces, "weights")
    weights = [np.stack([layer.weights[0] for layer in t.layers]) for t in traces]  # each [L, H, T, T]
    per_row = np.concatenate([query_measures(w) for w in weights], axis=-1)         # [4, L, H, rows]
    even = np.concatenate([query_measures(uniform_weights(w.shape[-1])) for w in weights], axis=-1)
    means = [*per_row.mean(axis=-1), even.mean(axis=-1)]  # four [L, H] arrays, then [4]
    for m in means:
        m.setflags(write=False)
    return HeadStats(sum(w.shape[-1] for w in weights), per_row.shape[-1], *means)


def _folder(folder) -> Path:
    return _folder_path(folder).resolve()


def committed_model(folder=None):
    """The model of ``folder`` (default: the committed one), loaded once per process.

    >>> committed_model() is committed_model()
    True
    """
    return _load_model(_folder(folder))


@functools.lru_cache(maxsize=2)
def _load_model(folder: Path):
    from . import model as M

    return M.load(folder)


def held_out_windows(model=None, folder=None) -> tuple:
    """Forward traces of the committed held-out text, in consecutive windows of
    ``max_position_embeddings`` tokens (the context the model was trained on).

    The one held-out pass of the book: computed once per process, model and folder,
    and shared by the head measures (chapter 4) and the routing views (chapters 8, 10).
    ``model``, if given, must be the folder's model (it spares loading it again)."""
    _check_model(model)
    folder = _folder(folder)
    return _held_out_windows(committed_model(folder) if model is None else model, folder)


@functools.lru_cache(maxsize=2)
def _held_out_windows(model, folder: Path) -> tuple:
    ids = model.encode(_read_text(folder, HELD_OUT_NAME))
    n = model.config.max_position_embeddings
    return tuple(model.forward(ids[i: i + n]) for i in range(0, len(ids), n))


@functools.lru_cache(maxsize=4)
def _held_out_heads(model, folder: Path) -> HeadStats:
    return head_stats(held_out_windows(model, folder))


def held_out_heads(model=None, folder=None) -> HeadStats:
    """Per-head measures of the trained model over the whole committed held-out text,
    in windows of its context (:func:`held_out_windows`); computed once per model.

    >>> s = held_out_heads()
    >>> s.shape, s.rows == s.tokens - 5  # five windows of at most 256 tokens
    ((4, 6), True)
    """
    _check_model(model)
    folder = _folder(folder)
    return _held_out_heads(committed_model(folder) if model is None else model, folder)


@dataclass(frozen=True)
class LineAttention:
    """Figure 23's trace: every head's weights over one held-out line (one forward
    pass), one (layer, head, query) picked, and every head's held-out measures."""

    line: int                 # index of the line in held_out.txt
    text: str
    weights: "np.ndarray"     # [L, H, T, T] query rows, source columns
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
    def row(self) -> "np.ndarray":
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
        import dataclasses

        from ._checks import as_int

        heads = _AsTrace(self.weights)
        m = attention_map(heads, self.pieces, layer, head)
        query = as_int("query", query, low=0, high=len(self.pieces) - 1)
        return dataclasses.replace(self, map=m, query=query)


class _AsTrace:
    """``weights [L, H, T, T]`` seen as a forward trace's layers (batch of one)."""

    def __init__(self, weights):
        from types import SimpleNamespace

        self.layers = [SimpleNamespace(weights=w[None]) for w in weights]


def line_attention(model=None, folder=None, *, line: int = ex.FIG23_LINE_INDEX, layer: int | None = None,
                   head: int | None = None, query: int | None = None,
                   share: float = ex.FIG23_ROLE_SHARE) -> LineAttention:
    """Figure 23's trace for held-out ``line``: by default the head with the largest mean
    weight on the previous token over the held-out text (:data:`~tokenpath.examples.FIG23_DEFAULT_MEASURE`),
    and the line's last token as the query (it may read the whole line).

    >>> t = line_attention()
    >>> (t.layer, t.head), t.query == len(t.pieces) - 1, t.role
    ((2, 1), True, 'previous')
    """
    from ._checks import as_float, as_int

    _check_model(model)
    share = as_float("share", share, low=0.5)
    line = as_int("line", line, low=0)
    for name, value in (("layer", layer), ("head", head), ("query", query)):
        if value is not None:
            as_int(name, value, low=0)
    folder = _folder_path(folder)
    model = committed_model(folder) if model is None else model
    text, pieces, weights = _line_weights(model, folder, line)
    stats = held_out_heads(model, folder)
    best = stats.strongest(ex.FIG23_DEFAULT_MEASURE)
    layer = best[0] if layer is None else layer
    head = best[1] if head is None else head
    query = len(pieces) - 1 if query is None else query
    m = attention_map(_AsTrace(weights), pieces, layer, head)
    return LineAttention(line, text, weights, stats, share, m, 0).pick(layer, head, query)


@functools.lru_cache(maxsize=8)
def _line_weights(model, folder: Path, line: int):
    """One forward pass over held-out ``line``: its text, its tokens' texts and every
    head's weights ``[L, H, T, T]`` (read-only), once per model and line."""
    import numpy as np

    lines = _read_text(folder, HELD_OUT_NAME).splitlines()
    if line >= len(lines):
        raise ValueError(f"line must be below {len(lines)}, the held-out text's number of lines, got {line}")
    ids = model.encode(lines[line])
    if len(ids) < 2:
        raise ValueError(f"line must have at least 2 tokens to show attention, line {line} has {len(ids)}")
    trace = model.forward(ids)
    weights = np.stack([layer_.weights[0] for layer_ in trace.layers])  # [L, H, T, T]
    weights.setflags(write=False)
    return lines[line], tuple(model.tokenizer.decode([int(i)]) for i in ids), weights


@dataclass(frozen=True)
class RoutingStats:
    """How the routers of every layer spread a text's tokens over the experts.

    ``load[l, e]`` counts the tokens whose top-k in layer ``l`` includes expert ``e``
    (each token counts once for each of its k experts); ``changes[l]`` counts the
    neighbouring token pairs whose top-k *set* differs in layer ``l``."""

    tokens: int
    top_k: int
    load: "np.ndarray"     # [L, E] tokens per expert
    changes: "np.ndarray"  # [L] neighbouring pairs with a different top-k set

    @property
    def pairs(self) -> int:
        return self.tokens - 1

    @property
    def change_rate(self) -> "np.ndarray":
        """[L] share of neighbouring pairs whose top-k set changes."""
        return self.changes / self.pairs

    @property
    def load_share(self) -> "np.ndarray":
        """[L, E] share of the layer's k · tokens choices each expert received."""
        return self.load / (self.tokens * self.top_k)


def routing_stats(chosen, num_experts: int) -> RoutingStats:
    """Expert load and top-k changes from ``chosen [L, T, k]`` (each layer's chosen
    experts per token, in text order).

    >>> s = routing_stats([[[0, 1], [1, 0], [2, 1]]], num_experts=3)
    >>> s.load.tolist(), s.changes.tolist(), s.change_rate.tolist()
    ([[2, 3, 1]], [1], [0.5])
    """
    import numpy as np
    from ._checks import as_int, as_int_array

    num_experts = as_int("num_experts", num_experts, low=1)
    chosen = as_int_array("chosen", chosen, ndim=3, low=0)
    if chosen.shape[1] < 2:
        raise ValueError(f"chosen must hold at least 2 tokens, got {chosen.shape[1]}")
    if chosen.max() >= num_experts:
        raise ValueError(f"chosen must hold expert indices below num_experts={num_experts}, got {chosen.max()}")
    L, n, k = chosen.shape
    load = np.stack([np.bincount(c.ravel(), minlength=num_experts) for c in chosen])  # [L, E]
    sets = np.sort(chosen, axis=-1)                                                  # order-free
    changes = (sets[:, 1:] != sets[:, :-1]).any(axis=-1).sum(axis=-1)                 # [L]
    load.setflags(write=False)
    changes.setflags(write=False)
    return RoutingStats(n, k, load, changes)


def held_out_routing(model=None, folder=None) -> RoutingStats:
    """Routing statistics of the trained model over the whole committed held-out text,
    run in consecutive windows of ``max_position_embeddings`` tokens (the context it was
    trained on); neighbouring pairs are counted across window borders too. The forward
    passes run once per process (:func:`held_out_routes`)."""
    _check_model(model)
    return held_out_routes(model, folder).stats()


# ------------------------------------------- routing of a line and of the held-out text (chapter 8)

@dataclass(frozen=True)
class Routes:
    """Every layer's routing of a run of tokens: what each router scored, chose and
    weighted, one row per token in text order.

    ``probs[l, t]`` is the softmax of layer ``l``'s router scores for token ``t`` over
    *all* experts (before the choice); ``chosen[l, t]`` the top-k experts, best first;
    ``gates[l, t]`` their gates, renormalised inside the chosen set (chapter 8)."""

    pieces: tuple[str, ...]  # [T] the tokens' texts
    probs: "np.ndarray"      # [L, T, E] router probabilities over all experts
    chosen: "np.ndarray"     # [L, T, k] chosen experts, best first
    gates: "np.ndarray"      # [L, T, k] in-set gates, in ``chosen`` order

    @property
    def layers(self) -> int:
        return self.probs.shape[0]

    @property
    def tokens(self) -> int:
        return self.probs.shape[1]

    @property
    def num_experts(self) -> int:
        return self.probs.shape[2]

    @property
    def top_k(self) -> int:
        return self.chosen.shape[2]

    def stats(self) -> RoutingStats:
        """Load and top-k changes of these tokens (:func:`routing_stats`)."""
        return routing_stats(self.chosen, self.num_experts)


def routes_of(traces, pieces) -> Routes:
    """The :class:`Routes` of consecutive forward traces (windows of one text, in
    order) whose tokens' texts are ``pieces``.

    >>> import numpy as np
    >>> from tokenpath import moe
    >>> from types import SimpleNamespace as NS
    >>> r = moe.route(np.array([[[2.0, 1.0, 0.0], [0.0, 0.0, 1.0]]]), 2)  # [B=1, T=2, E=3]
    >>> out = routes_of([NS(layers=[NS(moe=NS(route=r))])], ["a", "b"])
    >>> out.chosen.tolist(), out.gates.round(3).tolist()
    ([[[0, 1], [2, 0]]], [[[0.731, 0.269], [0.731, 0.269]]])
    """
    import numpy as np

    traces = _check_traces("traces", traces, "moe")
    pieces = _check_texts("pieces", pieces)
    n_layers = len(traces[0].layers)
    if any(len(t.layers) != n_layers for t in traces):
        raise ValueError("traces must all have the same number of layers")
    if any(layer.moe is None for t in traces for layer in t.layers):
        raise ValueError("traces must come from a mixture-of-experts model (every layer routed)")

    def stack(get):  # [L, T, ·]: each layer's rows of every window, in text order
        return np.stack([np.concatenate([get(t.layers[l].moe.route)[0] for t in traces])
                         for l in range(n_layers)])

    probs, chosen = stack(lambda r: r.probs), stack(lambda r: r.chosen)
    gates = stack(lambda r: r.chosen_gates)
    if len(pieces) != probs.shape[1]:
        raise ValueError(f"pieces must have one text per token ({probs.shape[1]}), got {len(pieces)}")
    for a in (probs, chosen, gates):
        a.setflags(write=False)
    return Routes(pieces, probs, chosen, gates)


def _pieces(model, ids) -> tuple[str, ...]:
    return tuple(model.tokenizer.decode([int(i)]) for i in ids)


def held_out_routes(model=None, folder=None) -> Routes:
    """Every layer's routing of the whole committed held-out text, run in consecutive
    windows of ``max_position_embeddings`` tokens (the context it was trained on).

    Computed once per process and folder from :func:`held_out_windows`; ``model``, if
    given, must be the folder's model (it spares loading it again)."""
    _check_model(model)
    folder = _folder(folder)
    return _held_out_routes(committed_model(folder) if model is None else model, folder)


@functools.lru_cache(maxsize=2)
def _held_out_routes(model, folder: Path) -> Routes:
    traces = held_out_windows(model, folder)
    ids = [int(i) for t in traces for i in t.ids]
    return routes_of(traces, _pieces(model, ids))


def held_out_lines(folder=None) -> list[str]:
    """The lines of the committed held-out text (``held_out.txt``), without their ends."""
    return _read_text(_folder_path(folder), HELD_OUT_NAME).split("\n")


def line_tokens(folder=None) -> list[range]:
    """For every held-out line, the positions of its tokens in the held-out pass
    (:func:`held_out_routes`): the tokens that *start* in the line. A newline token
    belongs to the line it ends, with the next line's indentation it carries.

    >>> spans = line_tokens()
    >>> lines, pieces = held_out_lines(), held_out_routes().pieces
    >>> "".join(pieces[t] for t in spans[ex.FIG24_LINE]) in lines[ex.FIG24_LINE]
    True
    """
    import numpy as np

    folder = _folder_path(folder)
    held = held_out_routes(folder=folder)
    lines = held_out_lines(folder)
    if "".join(held.pieces) != "\n".join(lines):
        raise ValueError("the held-out tokens' texts must spell the held-out text")
    starts = np.cumsum([0] + [len(p) for p in held.pieces[:-1]])              # [T] first character
    line_starts = np.cumsum([0] + [len(l) + 1 for l in lines[:-1]])           # [lines]
    owner = np.searchsorted(line_starts, starts, side="right") - 1            # [T] line of each token
    inside = starts < line_starts[owner] + np.array([len(l) for l in lines])[owner]  # not its newline
    out = []
    for n in range(len(lines)):
        ts = np.flatnonzero((owner == n) & inside)
        out.append(range(int(ts[0]), int(ts[-1]) + 1) if ts.size else range(0))
    return out


def route_lines(folder=None, *, low: int = ex.ROUTE_LINE_TOKENS[0], high: int = ex.ROUTE_LINE_TOKENS[1]) -> tuple[int, ...]:
    """The held-out lines (0-based) whose routing chapter 8 offers: every line that is
    neither blank nor a comment (a line starting with ``#``; docstring lines pass) and
    has ``low`` to ``high`` tokens in the held-out pass (:func:`line_tokens`).

    >>> ex.FIG24_LINE in route_lines()
    True
    """
    from ._checks import as_int

    low = as_int("low", low, low=2)
    high = as_int("high", high, low=low)
    folder = _folder_path(folder)
    spans = line_tokens(folder)
    return tuple(n for n, line in enumerate(held_out_lines(folder))
                 if line.strip() and not line.strip().startswith("#") and low <= len(spans[n]) <= high)


@dataclass(frozen=True)
class LineRouting:
    """The routing of one held-out line as the held-out pass routed it (in its place in
    the file, with the text before it as context)."""

    line: int     # the line of held_out.txt, 0-based
    text: str
    start: int    # position of its first token in the held-out pass
    routes: Routes


def line_routing(line: int, folder=None) -> LineRouting:
    """Every layer's routing of the tokens of held-out line ``line`` (0-based), cut from
    the held-out pass (:func:`held_out_routes`, :func:`line_tokens`).

    >>> r = line_routing(ex.FIG24_LINE)
    >>> r.routes.chosen.shape[0], "".join(r.routes.pieces) in r.text
    (4, True)
    """
    from ._checks import as_int

    as_int("line", line, low=0)
    folder = _folder_path(folder)
    lines = held_out_lines(folder)
    line = as_int("line", line, low=0, high=len(lines) - 1)
    span = line_tokens(folder)[line]
    if not lines[line].strip() or not span:
        raise ValueError(f"line must name a held-out line that is not blank; line {line} is")
    held = held_out_routes(folder=folder)
    cut = slice(span.start, span.stop)

    def part(a):
        a = a[:, cut]
        a.setflags(write=False)
        return a

    routes = Routes(held.pieces[cut], part(held.probs), part(held.chosen), part(held.gates))
    return LineRouting(line, lines[line], span.start, routes)


@dataclass(frozen=True)
class RoutingView:
    """Figure 24: one layer's routing of one held-out line (each token's router
    probabilities, its top-k and their gates) beside that layer's load and top-k
    change rate over the whole held-out text."""

    layer: int
    line: int                 # the line of held_out.txt, 0-based
    text: str
    pieces: tuple[str, ...]   # [T]
    probs: "np.ndarray"       # [T, E] router probabilities over all experts
    chosen: "np.ndarray"      # [T, k] best first
    gates: "np.ndarray"       # [T, k] in-set gates, in ``chosen`` order
    load: "np.ndarray"        # [E] this layer's choices per expert over the held-out text
    held_tokens: int          # tokens of the held-out text
    changes: int              # held-out neighbouring pairs whose top-k set differs here
    scale: float              # the largest load share of any layer (the bars' full width)

    @property
    def top_k(self) -> int:
        return self.chosen.shape[1]

    @property
    def load_share(self) -> "np.ndarray":
        """[E] share of this layer's k · tokens held-out choices each expert received."""
        return self.load / (self.held_tokens * self.top_k)

    @property
    def pairs(self) -> int:
        return self.held_tokens - 1

    @property
    def change_rate(self) -> float:
        return self.changes / self.pairs

    @property
    def line_changes(self) -> int:
        """Neighbouring pairs of this line whose top-k set differs."""
        import numpy as np

        sets = np.sort(self.chosen, axis=-1)
        return int((sets[1:] != sets[:-1]).any(axis=-1).sum())


def routing_view(layer: int, line: int, folder=None) -> RoutingView:
    """The trace of figure 24 for ``layer`` and held-out line ``line`` (0-based).

    >>> v = routing_view(0, ex.TRAINED_LINE_INDEX)
    >>> v.probs.shape[1], int(v.load.sum()) == v.held_tokens * v.top_k
    (4, True)
    """
    from ._checks import as_int

    as_int("layer", layer, low=0)
    as_int("line", line, low=0)
    folder = _folder_path(folder)
    held = held_out_routes(folder=folder)
    layer = as_int("layer", layer, low=0, high=held.layers - 1)
    lr = line_routing(line, folder)
    stats = held.stats()
    r = lr.routes
    return RoutingView(layer, lr.line, lr.text, r.pieces, r.probs[layer], r.chosen[layer], r.gates[layer],
                       stats.load[layer], stats.tokens, int(stats.changes[layer]),
                       float(stats.load_share.max()))


@dataclass(frozen=True)
class TextAgreement:
    """Whether the same token text goes to the same experts: per layer, the share of
    pairs of occurrences of one text (texts seen at least twice) whose top-k *sets* are
    equal, beside the share for pairs of any two tokens (what chance gives with this
    layer's load)."""

    texts: int              # distinct texts that occur at least twice
    same_text_pairs: int    # pairs of occurrences of one text
    same_text: "np.ndarray"  # [L] share of those pairs with equal top-k sets
    any_pair: "np.ndarray"   # [L] share of all pairs of tokens with equal top-k sets


def text_agreement(routes: Routes) -> TextAgreement:
    """:class:`TextAgreement` of ``routes``.

    >>> import numpy as np
    >>> r = Routes(("a", "b", "a"), np.zeros((1, 3, 3)), np.array([[[0, 1], [1, 2], [1, 0]]]), np.zeros((1, 3, 2)))
    >>> t = text_agreement(r)
    >>> t.texts, t.same_text.tolist(), t.any_pair.round(3).tolist()
    (1, [1.0], [0.333])
    """
    import numpy as np

    if not isinstance(routes, Routes):
        raise TypeError(f"routes must be a Routes, got {type(routes).__name__}")
    if routes.tokens < 2:
        raise ValueError(f"routes must hold at least 2 tokens, got {routes.tokens}")
    _, text_id, text_n = np.unique(np.array(routes.pieces, dtype=object).astype(str), return_inverse=True,
                                   return_counts=True)
    pairs = lambda n: n * (n - 1) // 2  # noqa: E731
    same_pairs = int(pairs(text_n).sum())
    if same_pairs == 0:
        raise ValueError("routes must hold some token text at least twice")
    E = routes.num_experts
    same, anyp = [], []
    for chosen in routes.chosen:  # [T, k]
        sets = np.sort(chosen, axis=-1) @ (E ** np.arange(routes.top_k))  # one code per set
        _, set_id = np.unique(sets, return_inverse=True)
        both = np.zeros((text_n.size, set_id.max() + 1), dtype=np.int64)
        np.add.at(both, (text_id, set_id), 1)
        same.append(pairs(both).sum() / same_pairs)
        anyp.append(pairs(both.sum(axis=0)).sum() / pairs(routes.tokens))
    return TextAgreement(int((text_n >= 2).sum()), same_pairs, np.array(same), np.array(anyp))


# ------------------------------------------- the next-token distribution after a prompt (chapter 10)

def _entropy(p) -> float:
    """Entropy in nats of a distribution ``p [V]`` (0 log 0 = 0)."""
    import numpy as np

    return float(-(p * np.log(np.where(p > 0, p, 1.0))).sum())


@dataclass(frozen=True)
class NextToken:
    """Figure 25's trace: what the trained model predicts after prompt ``prompt`` of
    :data:`~tokenpath.examples.TRAINED_PROMPTS` followed by the first ``step`` tokens of
    its greedy completion, at temperature ``temperature``.

    ``probs`` is softmax(logits / T) over the whole vocabulary, ``probs_t1`` the same at
    T = 1; ``top`` the IDs of the largest logits, best first (their order does not
    depend on T)."""

    prompt: int
    step: int
    temperature: float
    ids: "np.ndarray"          # [n] the prompt's IDs, then `step` greedy IDs
    pieces: tuple[str, ...]    # [n] their texts
    logits: "np.ndarray"       # [V] the last position's logits
    probs: "np.ndarray"        # [V] at temperature T
    probs_t1: "np.ndarray"     # [V] at T = 1
    top: "np.ndarray"          # [K] IDs of the K largest logits, best first
    top_pieces: tuple[str, ...]  # [K] their texts
    top_probs: "np.ndarray"    # [K] probs of the top IDs, at T
    top_probs_t1: "np.ndarray"  # [K] the same at T = 1
    greedy_prob: float         # probability at T of the ID greedy decoding picks
    entropy: float             # of probs, nats
    cover: int                 # fewest tokens holding at least `cover_share` of probs
    cover_share: float
    outside: float             # probability mass at T on every token outside the top K

    @property
    def prompt_tokens(self) -> int:
        return len(self.ids) - self.step

    @property
    def greedy(self) -> int:
        """The ID greedy decoding picks (the largest logit)."""
        return int(self.top[0])



@functools.lru_cache(maxsize=8)
def _greedy_rows(model, folder: Path, prompt: int):
    """Prompt ``prompt`` and its first :data:`~tokenpath.examples.TRAINED_NEXT_STEPS`
    greedy tokens (IDs and texts), and the logits ``[steps + 1, V]`` that choose each of
    them and the one after, read-only, once per model and prompt.

    Greedy decoding asks for one forward pass per token; a causal model's pass over
    prompt + completion gives the same rows at once, so the recorded greedy completion
    (``samples.json``) serves as a draft: one pass checks it, and where the argmax of a
    row disagrees, the engine's choice replaces the draft from there and the pass runs
    again. The tokens are therefore the engine's own greedy tokens."""
    import numpy as np

    steps = ex.TRAINED_NEXT_STEPS
    prompt_ids = [int(i) for i in model.encode(ex.TRAINED_PROMPTS[prompt])]
    n = len(prompt_ids)
    draft = [int(i) for i in read_samples(folder)["completions"][prompt]["greedy_ids"][:steps]]
    while True:
        logits = model.logits(prompt_ids + draft)[n - 1:]          # [len(draft) + 1, V]
        chosen = [int(i) for i in np.argmax(logits, axis=-1)]      # what greedy picks after each prefix
        agree = next((k for k in range(len(draft)) if chosen[k] != draft[k]), len(draft))
        if agree == len(draft) == steps:
            break
        draft = draft[:agree] + [chosen[agree]]
    ids = np.array(prompt_ids + draft)
    logits = np.array(logits[: steps + 1], dtype=float)
    for a in (ids, logits):
        a.setflags(write=False)
    return ids, _pieces(model, ids), logits


def greedy_steps(prompt: int = 0, folder=None) -> tuple[int, ...]:
    """The first :data:`~tokenpath.examples.TRAINED_NEXT_STEPS` greedy tokens after prompt
    ``prompt`` (an index into :data:`~tokenpath.examples.TRAINED_PROMPTS`), computed by the
    engine once per process.

    >>> greedy_steps(0)[:2] == tuple(read_samples()["completions"][0]["greedy_ids"][:2])
    True
    """
    from ._checks import as_int

    prompt = as_int("prompt", prompt, low=0, high=len(ex.TRAINED_PROMPTS) - 1)
    folder = _folder(folder)
    ids = _greedy_rows(committed_model(folder), folder, prompt)[0]
    return tuple(int(i) for i in ids[len(ids) - ex.TRAINED_NEXT_STEPS:])


def next_token(prompt: int = 0, step: int = 0, temperature: float = ex.TRAINED_TEMPERATURE, *,
               top: int = ex.FIG25_TOP, cover_share: float = ex.FIG25_COVER, folder=None) -> NextToken:
    """Figure 25's trace: the next-token distribution after prompt ``prompt`` and
    ``step`` of its greedy tokens, at ``temperature`` (chapter 3's
    :func:`~tokenpath.embedding.next_token_probs`). No forward pass after the first
    call for a prompt: every step's logits come from its one cached pass.

    >>> t = next_token(0, 0, 1.0)
    >>> t.greedy == greedy_steps(0)[0], round(float(t.probs.sum()), 6), t.cover >= 1
    (True, 1.0, True)
    """
    import numpy as np

    from ._checks import as_float, as_int
    from .embedding import next_token_probs

    prompt = as_int("prompt", prompt, low=0, high=len(ex.TRAINED_PROMPTS) - 1)
    step = as_int("step", step, low=0, high=ex.TRAINED_NEXT_STEPS)
    temperature = as_float("temperature", temperature, low=0.0)
    as_int("top", top, low=1)
    cover_share = as_float("cover_share", cover_share, low=0.0)
    if cover_share > 1.0:
        raise ValueError(f"cover_share must be at most 1, got {cover_share}")
    folder = _folder(folder)
    ids, pieces, rows = _greedy_rows(committed_model(folder), folder, prompt)
    top = as_int("top", top, low=1, high=rows.shape[-1])
    n = len(ids) - ex.TRAINED_NEXT_STEPS + step                     # tokens the model has read
    logits = rows[step]                                             # [V]
    probs = next_token_probs(logits, temperature=temperature)
    probs_t1 = next_token_probs(logits)
    order = np.argsort(-logits, kind="stable")                      # best first, lower ID among equals
    mass = np.cumsum(probs[np.argsort(-probs, kind="stable")])
    cover = int(min(np.searchsorted(mass, cover_share - 1e-12) + 1, mass.size))
    best = order[:top]
    top_probs, top_probs_t1 = probs[best], probs_t1[best]
    for a in (probs, probs_t1, best, top_probs, top_probs_t1):
        a.setflags(write=False)
    return NextToken(prompt, step, temperature, ids[:n], pieces[:n], logits, probs, probs_t1, best,
                     pieces_of(best, folder), top_probs, top_probs_t1, float(probs[best[0]]), _entropy(probs),
                     cover, cover_share, float(max(0.0, 1.0 - top_probs.sum())))


def pieces_of(ids, folder=None) -> tuple[str, ...]:
    """The texts of token ``ids`` in the folder's tokenizer.

    >>> "".join(pieces_of(committed_model().encode("def __init__(self")))
    'def __init__(self'
    """
    from ._checks import as_int_array

    as_int_array("ids", ids, ndim=1, low=0)
    return _pieces(committed_model(_folder(folder)), ids)
