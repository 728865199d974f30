"""Ablations of the trained model in the engine: a head's output removed (its rows of
W_O zeroed, so it adds nothing to the residual stream) or an expert removed from its
layer (the router then chooses the top k of the remaining experts and renormalises
the gates over them, exactly as if the layer had been built without it). The model's
own weights are never touched: :meth:`tokenpath.model.Model.forward` takes the
replaced layers.

:func:`ablation_record` measures every head and every expert this way on the held-out
sample (and every head on repeated random tokens); the training script writes the
result to ``evaluation.json`` and the suite repeats parts of it
(:func:`ablated_losses`).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .._checks import as_int
from ..decoder import LayerWeights
from ..model import Model
from .heads import Induction, induction_scores, repeated_tokens, second_copy_loss
from .sample import SamplePass, window_losses

#: The two kinds of ablation.
KINDS = ("head", "expert")


def zero_head(weights: LayerWeights, head: int) -> LayerWeights:
    """The layer with query head ``head`` silenced: its ``d_h`` rows of W_O
    ``[H·d_h, d]`` set to zero, so its output adds nothing to the stream.

    >>> from tokenpath.decoder import random_layer
    >>> w = zero_head(random_layer(8, 2, 16, seed=0), 1)
    >>> bool((w.w_o[4:] == 0).all()), bool((w.w_o[:4] != 0).any())
    (True, True)
    """
    if not isinstance(weights, LayerWeights):
        raise TypeError(f"weights must be a LayerWeights, got {type(weights).__name__}")
    head = as_int("head", head, low=0, high=weights.heads - 1)
    w_o = np.array(weights.w_o)
    w_o[head * weights.d_h:(head + 1) * weights.d_h] = 0.0
    return dataclasses.replace(weights, w_o=w_o)


def drop_expert(weights: LayerWeights, expert: int) -> LayerWeights:
    """The layer without expert ``expert``: its router column and its three matrices
    removed, so the router's top k and the renormalised gates range over the others.

    >>> from tokenpath.decoder import random_layer
    >>> w = drop_expert(random_layer(8, 2, 16, seed=0, experts=4, top_k=2), 0)
    >>> w.w_router.shape, w.w_gate.shape[0], w.experts_per_token
    ((8, 3), 3, 2)
    """
    if not isinstance(weights, LayerWeights):
        raise TypeError(f"weights must be a LayerWeights, got {type(weights).__name__}")
    if weights.w_router is None:
        raise ValueError("weights must be a mixture-of-experts layer (with w_router) to drop an expert")
    n = weights.w_router.shape[1]
    expert = as_int("expert", expert, low=0, high=n - 1)
    if n < 2:
        raise ValueError("weights must have at least 2 experts to drop one")
    keep = [e for e in range(n) if e != expert]
    return dataclasses.replace(weights, w_router=weights.w_router[:, keep], w_gate=weights.w_gate[keep],
                               w_up=weights.w_up[keep], w_down=weights.w_down[keep],
                               experts_per_token=min(weights.experts_per_token, n - 1))


def ablated(model: Model, kind: str, layer: int, index: int) -> dict[int, LayerWeights]:
    """The ``replace`` argument of ``model.forward`` for one ablation: ``kind`` is
    ``"head"`` (``index`` a query head) or ``"expert"`` (``index`` an expert) of ``layer``."""
    if not isinstance(model, Model):
        raise TypeError(f"model must be a tokenpath.model.Model, got {type(model).__name__}")
    if not isinstance(kind, str) or kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    layer = as_int("layer", layer, low=0, high=model.config.num_hidden_layers - 1)
    c = model.config
    count = c.num_attention_heads if kind == "head" else c.num_local_experts
    index = as_int(f"index (a {kind} of the layer)", index, low=0, high=count - 1)
    w = model.layer_weights(layer)
    return {layer: zero_head(w, index) if kind == "head" else drop_expert(w, index)}


def ablation_spans(sample: SamplePass, files=None) -> tuple[tuple[int, int], ...]:
    """The windows the ablations are measured on: the first window of every file of the
    sample (each starts at the file's first top-level ``def`` or ``class``), or of the
    files listed in ``files`` (indices into the sample's files)."""
    firsts: dict[int, tuple[int, int]] = {}
    for a, b in sample.spans:
        firsts.setdefault(int(sample.file_of[a]), (a, b))
    keep = firsts if files is None else [as_int("files[...]", f, low=0, high=len(sample.files) - 1) for f in files]
    return tuple(firsts[f] for f in sorted(set(keep)))


def ablated_losses(model: Model, sample: SamplePass, kind: str, layer: int, index: int, *,
                   files=None) -> np.ndarray:
    """``[N]`` per-token losses on the ablation windows (:func:`ablation_spans`) with one
    head or expert ablated; NaN outside them and at each window's first token."""
    return window_losses(model, np.asarray(sample.ids), ablation_spans(sample, files),
                         replace=ablated(model, kind, layer, index))


def intact_losses(sample: SamplePass) -> np.ndarray:
    """``[N]`` the intact model's losses on the same windows (NaN elsewhere)."""
    out = np.full(sample.tokens, np.nan)
    for a, b in ablation_spans(sample):
        out[a + 1:b] = sample.losses[a + 1:b]
    return out


def file_means(sample: SamplePass, losses: np.ndarray, files=None) -> list[float]:
    """Mean of ``losses`` (its NaN-free entries) over every file of the sample, or over
    the files listed in ``files`` (indices into the sample's files), in that order. A
    file with no loss measured is refused by index, not given a NaN mean."""
    ok = ~np.isnan(losses)
    out = []
    for f in range(len(sample.files)) if files is None else files:
        mine = losses[ok & (sample.file_of == f)]
        if not mine.size:
            raise ValueError(f"file {f} of the sample has no measured loss in losses (ablated on other files?)")
        out.append(float(mine.mean()))
    return out


def served_targets(sample: SamplePass, layer: int, expert: int) -> np.ndarray:
    """``[N]`` True for each target token whose prediction ran expert ``expert`` of
    ``layer``: token i is predicted at position i − 1, so it is the router's choice
    there that counts (token 0 is predicted nowhere).

    >>> from types import SimpleNamespace
    >>> s = SimpleNamespace(chosen=np.array([[[0, 1], [2, 3], [0, 2]]]))  # [L, N, k]
    >>> served_targets(s, 0, 0).tolist()
    [False, True, False]
    """
    chosen = np.asarray(sample.chosen)  # [L, N, k]
    layer = as_int("layer", layer, low=0, high=chosen.shape[0] - 1)
    expert = as_int("expert", expert, low=0)
    at = (chosen[layer] == expert).any(axis=-1)  # [N] positions routed to the expert
    out = np.zeros_like(at)
    out[1:] = at[:-1]
    return out


def _round(x, digits: int = 6):
    return np.round(np.asarray(x, dtype=float), digits).tolist()


def ablation_record(model: Model, sample: SamplePass, induction: Induction | None = None) -> dict:
    """Every head and every expert of ``model`` ablated in turn: the loss on the
    ablation windows (:func:`ablation_spans`; overall and per file) and its change from
    the intact model's on the same targets; for a head also
    the loss on both copies of the repeated random tokens (the first copy is the
    control: no head can help there, so a head whose removal costs the second copy
    more than the first is one the copying needs), for an expert the loss on the
    tokens the intact router sent to it in that layer (the tokens it serves)."""
    induction = induction_scores(model) if induction is None else induction
    runs = repeated_tokens(model.config.vocab_size, sequences=induction.sequences, length=induction.length)
    base = intact_losses(sample)
    ok = ~np.isnan(base)
    heads, experts = [], []
    c = model.config
    for layer in range(c.num_hidden_layers):
        for head in range(c.num_attention_heads):
            losses = ablated_losses(model, sample, "head", layer, head)
            first, second = second_copy_loss(model, runs, replace=ablated(model, "head", layer, head))
            heads.append({"layer": layer, "head": head, "loss": _round(losses[ok].mean()),
                          "delta": _round((losses[ok] - base[ok]).mean()),
                          "first_copy_loss": _round(first),
                          "first_copy_delta": _round(first - induction.first_loss),
                          "second_copy_loss": _round(second),
                          "second_copy_delta": _round(second - induction.second_loss),
                          "file_loss": _round(file_means(sample, losses))})
        for expert in range(c.n_experts):
            losses = ablated_losses(model, sample, "expert", layer, expert)
            served = served_targets(sample, layer, expert) & ok
            experts.append({"layer": layer, "expert": expert, "loss": _round(losses[ok].mean()),
                            "delta": _round((losses[ok] - base[ok]).mean()),
                            "served": int(served.sum()),
                            "served_delta": _round((losses[served] - base[served]).mean()) if served.any() else None,
                            "file_loss": _round(file_means(sample, losses))})
    return {
        "sample": {"files": len(sample.files), "tokens": sample.tokens, "targets": int(sample.targets.sum()),
                   "loss": _round(sample.loss)},
        "ablation_windows": {"windows": len(ablation_spans(sample)), "targets": int(ok.sum()),
                             "loss": _round(base[ok].mean()), "file_loss": _round(file_means(sample, base))},
        "induction": {"sequences": induction.sequences, "length": induction.length,
                      "first_copy_loss": _round(induction.first_loss),
                      "second_copy_loss": _round(induction.second_loss),
                      "score": _round(induction.score), "previous": _round(induction.previous)},
        "heads": heads,
        "experts": experts,
    }
