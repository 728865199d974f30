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
        import base64
        import html

        b64 = base64.b64encode((self.folder / f"{LOSS_FIGURE}.png").read_bytes()).decode("ascii")
        body = (f'<figure class="tokenpath-figure" id="trained-loss">'
                f'<img src="data:image/png;base64,{b64}" alt="{html.escape(self.alt, quote=True)}" '
                f'style="max-width:100%"/><figcaption>{html.escape(self.title)}</figcaption></figure>')
        return {"text/html": body, "text/plain": f"{self.title}\n{self.alt}"}

    def __repr__(self) -> str:
        return "LossFigure()"
