"""The book's own trained model, for the reader: where its folder is, what its training
record says, its parameters counted stored and per token, its loss figure, and two views
of a forward trace (the weight each head puts on the previous token; the experts each
token was routed to).

Pure NumPy and the standard library: reading the committed folder needs no PyTorch.
Training it is :mod:`tokenpath._train` (``make model``), which imports PyTorch.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from .examples import trained as ex

FOLDER = Path(ex.TRAINED_FOLDER)
TRAINING_NAME = "training.json"
SAMPLES_NAME = "samples.json"
HELD_OUT_NAME = "held_out.txt"
LOSS_FIGURE = "loss"


def trained_folder() -> Path:
    """The committed model folder of this checkout (``models/stdlib-moe``)."""
    return Path(__file__).resolve().parents[2] / FOLDER


def read_training(folder=None) -> dict:
    """The committed training record (``training.json``)."""
    folder = trained_folder() if folder is None else Path(folder)
    return json.loads((folder / TRAINING_NAME).read_text(encoding="utf-8"))


def read_samples(folder=None) -> dict:
    """The completions the training script recorded (``samples.json``)."""
    folder = trained_folder() if folder is None else Path(folder)
    return json.loads((folder / SAMPLES_NAME).read_text(encoding="utf-8"))


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

    folder = trained_folder() if folder is None else Path(folder)
    cfg = json.loads((folder / "config.json").read_text(encoding="utf-8"))
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
    ys = record["loss_curve"]["mean_train_loss"]
    return (f"Training loss of the book's model over {record['steps']} steps, falling from {ys[0]:.2f} to "
            f"{ys[-1]:.2f} nats per token; held-out loss {record['held_out_loss']:.2f}; "
            f"the uniform guess ln V is {record['ln_vocab']:.2f}.")


def previous_token_weight(trace):
    """[L, H] mean attention weight each head puts on the position just before the
    query (queries 1…T−1), from a :class:`tokenpath.model.ForwardTrace`.

    >>> import numpy as np
    >>> from types import SimpleNamespace as NS
    >>> w = np.eye(3, k=-1)[None, None]; w[0, 0, 0, 0] = 1
    >>> previous_token_weight(NS(layers=[NS(weights=w)]))
    array([[1.]])
    """
    import numpy as np

    rows = []
    for layer in trace.layers:
        w = layer.weights[0]  # [H, T, T]: query rows, source columns
        t = np.arange(1, w.shape[-1])
        rows.append(w[:, t, t - 1].mean(axis=-1))
    return np.array(rows)


def routing_rows(trace, pieces) -> list[tuple[str, ...]]:
    """One row per token: the token's text and, per layer, its chosen experts (best first)."""
    return [(piece, *(" ".join(str(int(e)) for e in layer.chosen_experts[0, t]) for layer in trace.layers))
            for t, piece in enumerate(pieces)]


class LossFigure:
    """The committed ``loss.png`` for a notebook cell, shown the way
    :class:`tokenpath.figures.FigureDisplay` shows a figure (image, alt text, caption)."""

    title = "The book's model · training loss"

    def __init__(self, folder=None):
        self.folder = trained_folder() if folder is None else Path(folder)
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

    layer = as_int("layer", layer, low=0, high=len(trace.layers) - 1)
    w = trace.layers[layer].weights[0]  # [H, T, T]
    head = as_int("head", head, low=0, high=w.shape[0] - 1)
    pieces = tuple(pieces)
    if len(pieces) != w.shape[-1]:
        raise ValueError(f"pieces must have one text per token ({w.shape[-1]}), got {len(pieces)}")
    weights = np.array(w[head], dtype=float)
    weights.setflags(write=False)
    return AttentionMap(layer, head, pieces, weights)


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
    trained on); neighbouring pairs are counted across window borders too."""
    import numpy as np
    from . import model as M

    folder = trained_folder() if folder is None else Path(folder)
    model = M.load(folder) if model is None else model
    ids = model.encode((folder / HELD_OUT_NAME).read_text(encoding="utf-8"))
    n = model.config.max_position_embeddings
    parts = [model.forward(ids[i: i + n]) for i in range(0, len(ids), n)]
    chosen = np.stack([np.concatenate([p.layers[l].chosen_experts[0] for p in parts])
                       for l in range(len(parts[0].layers))])  # [L, T, k]
    return routing_stats(chosen, model.config.num_local_experts)
