"""How the trained model's routers spread tokens over the experts: every router's
probabilities, choices and gates over the held-out sample (:func:`held_out_routes`, from
the one sample pass), their load and top-k changes (:func:`routing_stats`), one line's
routing in its place (:func:`line_routing`), one layer and line beside the layer's load
(:func:`routing_view`), and whether one token text keeps its experts
(:func:`text_agreement`); the load, changes and agreement as stored when the folder was
written (:func:`measured_routing`, :func:`measured_agreement`)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._checks import as_int, as_int_array
from ..model import Model
from ..safefiles import ModelFileError
from .files import _check_texts, _folder, _model, _pieces, as_shares, measure_field, sample_measures
from .heads import _check_traces, _trace_layers
from .sample import example_line, held_out_lines, line_tokens, sample_pass, sample_windows


def routing_rows(trace, pieces) -> list[tuple[str, ...]]:
    """One row per token: the token's text and, per layer, its chosen experts (best first)."""
    layers = _trace_layers("trace", trace, "chosen_experts")
    pieces = _check_texts("pieces", pieces)
    if any(len(pieces) != layer.chosen_experts.shape[1] for layer in layers):
        raise ValueError(f"pieces must have one text per token of trace ({layers[0].chosen_experts.shape[1]}), "
                         f"got {len(pieces)}")
    return [(piece, *(" ".join(str(int(e)) for e in layer.chosen_experts[0, t]) for layer in trace.layers))
            for t, piece in enumerate(pieces)]


@dataclass(frozen=True)
class RoutingStats:
    """How the routers of every layer spread a text's tokens over the experts.

    ``load[l, e]`` counts the tokens whose top-k in layer ``l`` includes expert ``e``
    (each token counts once for each of its k experts); ``changes[l]`` counts the
    neighbouring token pairs whose top-k *set* differs in layer ``l``."""
    tokens: int
    top_k: int
    load: np.ndarray     # [L, E] tokens per expert
    changes: np.ndarray  # [L] neighbouring pairs with a different top-k set

    @property
    def pairs(self) -> int:
        return self.tokens - 1

    @property
    def change_rate(self) -> np.ndarray:
        """[L] share of neighbouring pairs whose top-k set changes."""
        return self.changes / self.pairs

    @property
    def load_share(self) -> np.ndarray:
        """[L, E] share of the layer's k · tokens choices each expert received."""
        return self.load / (self.tokens * self.top_k)


def routing_stats(chosen, num_experts: int) -> RoutingStats:
    """Expert load and top-k changes from ``chosen [L, T, k]`` (each layer's chosen
    experts per token, in text order).

    >>> s = routing_stats([[[0, 1], [1, 0], [2, 1]]], num_experts=3)
    >>> s.load.tolist(), s.changes.tolist(), s.change_rate.tolist()
    ([[2, 3, 1]], [1], [0.5])
    """
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
    folder = _folder(folder)
    return _stats(_model(model, folder), folder)


def measured_routing(folder=None) -> RoutingStats:
    """The same statistics as stored in ``evaluation.json`` when the folder was written
    (the chapter, its figure and its slider read these; the suite checks that
    :func:`held_out_routing` gives them again).

    >>> s = measured_routing()
    >>> s.load.shape, int(s.load[0].sum()) == s.tokens * s.top_k
    ((4, 4), True)
    """
    return _measured_routing(_folder(folder))


@functools.lru_cache(maxsize=4)
def _measured_routing(folder: Path) -> RoutingStats:
    _, part = sample_measures(folder, "routing")
    where = "sample.routing"
    tokens = measure_field(part, where, "tokens", lambda n, v: as_int(n, v, low=2))
    top_k = measure_field(part, where, "top_k", lambda n, v: as_int(n, v, low=1))
    load = measure_field(part, where, "load", lambda n, v: as_int_array(n, v, ndim=2, low=0))
    changes = measure_field(part, where, "changes", lambda n, v: as_int_array(n, v, ndim=1, low=0))
    if changes.shape[0] != load.shape[0] or (load.sum(axis=1) != tokens * top_k).any() or changes.max() >= tokens:
        raise ModelFileError(f"evaluation.json: {where} must give every layer a load summing to tokens · top_k "
                             "and fewer changes than tokens")
    load.setflags(write=False)
    changes.setflags(write=False)
    return RoutingStats(tokens, top_k, load, changes)


# ------------------------------------------- routing of a line and of the held-out text (chapter 9)

@dataclass(frozen=True)
class Routes:
    """Every layer's routing of a run of tokens: what each router scored, chose and
    weighted, one row per token in text order.

    ``probs[l, t]`` is the softmax of layer ``l``'s router scores for token ``t`` over
    *all* experts (before the choice); ``chosen[l, t]`` the top-k experts, best first;
    ``gates[l, t]`` their gates, renormalised inside the chosen set (chapter 9)."""
    pieces: tuple[str, ...]  # [T] the tokens' texts
    probs: np.ndarray      # [L, T, E] router probabilities over all experts
    chosen: np.ndarray     # [L, T, k] chosen experts, best first
    gates: np.ndarray      # [L, T, k] in-set gates, in ``chosen`` order

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


def held_out_routes(model=None, folder=None) -> Routes:
    """Every layer's routing of the whole held-out sample, every file in windows of the
    model's context, from the one sample pass (:func:`~tokenpath.trained.sample_pass`).
    ``model``, if given, must be the folder's model."""
    folder = _folder(folder)
    return _routes(_model(model, folder), folder)


@functools.lru_cache(maxsize=2)
def _routes(model: Model, folder: Path) -> Routes:
    p = sample_pass(model, folder)
    return Routes(p.pieces, p.probs, p.chosen, p.gates)


@functools.lru_cache(maxsize=2)
def _stats(model: Model, folder: Path) -> RoutingStats:
    return _routes(model, folder).stats()


@dataclass(frozen=True)
class LineRouting:
    """The routing of one held-out line as the held-out pass routed it (in its place in
    the file, with the text before it as context)."""
    line: int     # the line of the sample, 0-based
    text: str
    start: int    # position of its first token in the held-out pass
    routes: Routes


def line_routing(line: int, folder=None) -> LineRouting:
    """Every layer's routing of the tokens of held-out line ``line`` (0-based), cut from
    the held-out pass (:func:`held_out_routes`, :func:`line_tokens`).

    >>> r = line_routing(example_line())
    >>> r.routes.chosen.shape[0], "".join(r.routes.pieces) in r.text
    (4, True)
    """
    as_int("line", line, low=0)
    folder = _folder(folder)
    lines = held_out_lines(folder)
    line = as_int("line", line, low=0, high=len(lines) - 1)
    span = line_tokens(folder)[line]
    if not lines[line].strip() or not span:
        raise ValueError(f"line must name a held-out line that is not blank; line {line} is")
    model = _model(None, folder)
    _, spans = sample_windows(model, folder)
    # the windows of the pass that hold the line (a line may cross a window's border)
    windows = [(a, b) for a, b in spans if a < span.stop and span.start < b]
    parts = [_window_routes(model, folder, a, b) for a, b in windows]
    start = windows[0][0]
    cut = slice(span.start - start, span.stop - start)

    def part(name):
        a = np.concatenate([getattr(r, name) for r in parts], axis=1)[:, cut]
        a.setflags(write=False)
        return a

    pieces = sum((r.pieces for r in parts), ())[cut]
    routes = Routes(pieces, part("probs"), part("chosen"), part("gates"))
    return LineRouting(line, lines[line], span.start, routes)


@functools.lru_cache(maxsize=16)
def _window_routes(model: Model, folder: Path, start: int, stop: int) -> Routes:
    """The routing of the sample pass's window ``[start, stop)``, that window run again
    on its own (as the pass ran it): no pass over the whole sample for one line."""
    ids, _ = sample_windows(model, folder)
    ids = ids[start:stop]
    return routes_of([model.forward(ids)], _pieces(model, ids))


@dataclass(frozen=True)
class RoutingView:
    """Figure 27: one layer's routing of one held-out line (each token's router
    probabilities, its top-k and their gates) beside that layer's load and top-k
    change rate over the whole held-out text."""
    layer: int
    line: int                 # the line of the sample, 0-based
    text: str
    pieces: tuple[str, ...]   # [T]
    probs: np.ndarray       # [T, E] router probabilities over all experts
    chosen: np.ndarray      # [T, k] best first
    gates: np.ndarray       # [T, k] in-set gates, in ``chosen`` order
    load: np.ndarray        # [E] this layer's choices per expert over the held-out text
    held_tokens: int          # tokens of the held-out text
    changes: int              # held-out neighbouring pairs whose top-k set differs here
    scale: float              # the largest load share of any layer (the bars' full width)

    @property
    def top_k(self) -> int:
        return self.chosen.shape[1]

    @property
    def load_share(self) -> np.ndarray:
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
        sets = np.sort(self.chosen, axis=-1)
        return int((sets[1:] != sets[:-1]).any(axis=-1).sum())


def routing_view(layer: int, line: int | None = None, folder=None) -> RoutingView:
    """The trace of figure 27 for ``layer`` and held-out line ``line`` (0-based).

    >>> v = routing_view(0, example_line())
    >>> v.probs.shape[1], int(v.load.sum()) == v.held_tokens * v.top_k
    (4, True)
    """
    as_int("layer", layer, low=0)
    folder = _folder(folder)
    line = example_line(folder) if line is None else as_int("line", line, low=0)
    stats = measured_routing(folder)
    layer = as_int("layer", layer, low=0, high=stats.load.shape[0] - 1)
    lr = line_routing(line, folder)
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
    same_text: np.ndarray  # [L] share of those pairs with equal top-k sets
    any_pair: np.ndarray   # [L] share of all pairs of tokens with equal top-k sets


def text_agreement(routes: Routes) -> TextAgreement:
    """:class:`TextAgreement` of ``routes``.

    >>> import numpy as np
    >>> r = Routes(("a", "b", "a"), np.zeros((1, 3, 3)), np.array([[[0, 1], [1, 2], [1, 0]]]), np.zeros((1, 3, 2)))
    >>> t = text_agreement(r)
    >>> t.texts, t.same_text.tolist(), t.any_pair.round(3).tolist()
    (1, [1.0], [0.333])
    """
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


def measured_agreement(folder=None) -> TextAgreement:
    """:func:`text_agreement` of the held-out routes as stored in ``evaluation.json`` when
    the folder was written (the suite checks that the pass gives it again).

    >>> a = measured_agreement()
    >>> len(a.same_text), bool(a.same_text[0] > a.any_pair[0])
    (4, True)
    """
    return _measured_agreement(_folder(folder))


@functools.lru_cache(maxsize=4)
def _measured_agreement(folder: Path) -> TextAgreement:
    _, part = sample_measures(folder, "agreement")
    where = "sample.agreement"
    texts = measure_field(part, where, "texts", lambda n, v: as_int(n, v, low=0))
    pairs = measure_field(part, where, "same_text_pairs", lambda n, v: as_int(n, v, low=0))
    same = measure_field(part, where, "same_text", lambda n, v: as_shares(n, v, 1))
    any_pair = measure_field(part, where, "any_pair", lambda n, v: as_shares(n, v, 1))
    if same.shape != any_pair.shape:
        raise ModelFileError(f"evaluation.json: {where} must give one share per layer in both lists")
    return TextAgreement(texts, pairs, same, any_pair)
