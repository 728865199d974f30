"""From IDs to rows, from rows to logits, from logits back to the next ID (chapter 3).

* **Lookup.** ``X[b, t, :] = E[s[b, t], :]``: an ID is an *index* into the rows of the
  embedding matrix ``E [V, d]``, not a quantity (ID 17 is not "9 more" than ID 8).
  It equals a one-hot row times ``E``, which nobody computes: it multiplies by
  ``V − 1`` zeros to copy one row.
* **Output projection.** ``Z = RMSNorm(X_L) W_out``, ``X_L`` the last layer's output,
  with ``W_out [d, V]`` either its own matrix (untied) or ``Eᵀ`` (tied: the same
  numbers serve as input rows and output columns).
* **Probabilities and sampling.** Softmax over the *vocabulary* (last) axis; a sampled
  ID goes back into the lookup as the next input. The hidden vector is never turned
  into a token by searching for its nearest embedding row.
* **Training.** Cross-entropy over the shifted targets, and its gradient with respect
  to a tied ``E``, split into what the input lookup sends (only rows that were read)
  and what the output classifier sends (every row).

* **Scale.** :func:`parameter_count` counts what a model of given shapes stores, so
  the toy numbers can stand beside a real vocabulary and width.

ID 0 is an ordinary ID here. No ID is padding by its value: a pipeline declares a
padding ID and masks it twice, out of the loss and out of attention (chapter 4).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import attention as att
from . import examples as ex
from . import norms
from ._checks import as_float, as_float_array, as_int, as_int_array
from .decoder import LayerTrace, LayerWeights, decoder_layer, random_layer

__all__ = [
    "CrossEntropyTrace",
    "GenerationStep",
    "LogitPanels",
    "LookupTrace",
    "ParameterCount",
    "SamplingTrace",
    "TiedGradient",
    "batch_ids",
    "check_ids",
    "cross_entropy",
    "draw_ids",
    "generate",
    "layer_trace",
    "logit_panels",
    "logits",
    "lookup",
    "lookup_grad",
    "lookup_one_hot",
    "lookup_trace",
    "next_token_probs",
    "one_hot",
    "parameter_count",
    "sample_next",
    "sampling_trace",
    "seeded_embedding",
    "teaching_embedding",
    "teaching_layer",
    "tied_gradient",
    "tied_head",
    "tied_loss",
]


# ------------------------------------------------------------------------ the table


def seeded_embedding(vocab: int, d: int, *, seed: int, scale: float = ex.EMBED_SCALE) -> np.ndarray:
    """A random ``[vocab, d]`` embedding matrix: normal entries with standard deviation
    ``scale``, rounded to one decimal so a printed row stays readable.

    >>> seeded_embedding(5, 3, seed=0).shape
    (5, 3)
    """
    vocab = as_int("vocab", vocab, low=1)
    d = as_int("d", d, low=1)
    seed = as_int("seed", seed, low=0)
    scale = as_float("scale", scale, low=0.0)
    return np.round(np.random.default_rng(seed).normal(0.0, scale, (vocab, d)), 1) + 0.0


def teaching_embedding() -> np.ndarray:
    """The chapter's ``E [V, d] = [1000, 8]``: seeded, except that row 3 begins with the
    hand-set features :data:`~tokenpath.examples.FIG3_E3_HEAD`.

    >>> teaching_embedding()[3, :4].tolist()
    [0.2, -0.1, 0.4, 0.0]
    """
    e = seeded_embedding(ex.V, ex.D_MODEL, seed=ex.EMBED_SEED)
    e[3, : ex.FIG3_E3_HEAD.size] = ex.FIG3_E3_HEAD
    e.setflags(write=False)
    return e


def batch_ids() -> np.ndarray:
    """The ID tensor ``s [B, T]``: sequence 0 is "abac", sequence 1 is
    :data:`~tokenpath.examples.SECOND_TEXT`.

    >>> batch_ids().tolist()
    [[3, 7, 3, 2], [7, 2, 3, 7]]
    """
    return np.stack([ex.encode_chars(ex.TEXT), ex.encode_chars(ex.SECOND_TEXT)])


def _table(table) -> np.ndarray:
    e = as_float_array("table", table, ndim=2)
    if e.shape[0] < 1 or e.shape[1] < 1:
        raise ValueError(f"table must be [V, d] with V, d >= 1, got shape {list(e.shape)}")
    return e


def check_ids(ids, vocab: int, *, name: str = "ids") -> np.ndarray:
    """``ids`` as an int64 array ``[T]`` or ``[B, T]`` of valid row numbers ``0 … vocab−1``.

    >>> check_ids([[0, 999]], 1000).tolist()       # ID 0 is an ordinary ID
    [[0, 999]]
    >>> check_ids([3, 1000], 1000)
    Traceback (most recent call last):
    ...
    ValueError: ids must be row numbers 0 … 999 of a 1000-row table; got 1000 at index (1,)
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be the argument's name (a str), got {type(name).__name__}")
    vocab = as_int("vocab", vocab, low=1)
    arr = as_int_array(name, ids)
    if arr.ndim not in (1, 2):
        raise ValueError(f"{name} must be [T] or [B, T] (one ID per position), got shape {list(arr.shape)}")
    bad = np.argwhere((arr < 0) | (arr >= vocab))
    if bad.size:
        where = tuple(int(i) for i in bad[0])
        raise ValueError(
            f"{name} must be row numbers 0 … {vocab - 1} of a {vocab}-row table; got {arr[where]} at index {where}"
        )
    return arr


def lookup(table, ids) -> np.ndarray:
    """Read one row of ``table [V, d]`` per ID: ``X[..., t, :] = table[ids[..., t], :]``.

    ``ids`` is ``[T]`` or ``[B, T]``; the result adds the feature axis: ``[T, d]`` or
    ``[B, T, d]``. Equal IDs give equal rows.

    >>> lookup([[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]], [2, 0, 2]).tolist()
    [[3.0, 4.0], [0.0, 0.0], [3.0, 4.0]]
    """
    e = _table(table)
    return e[check_ids(ids, e.shape[0])]


def one_hot(ids, vocab: int) -> np.ndarray:
    """One-hot rows ``[..., vocab]``: a 1 in column ``ids[...]`` and 0 elsewhere.

    >>> one_hot([2, 0], 3).tolist()
    [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    """
    ids = check_ids(ids, vocab)
    return (ids[..., None] == np.arange(vocab)).astype(np.float64)


def lookup_one_hot(table, ids) -> np.ndarray:
    """The lookup written as a matrix product, ``one_hot(ids) @ table``: the same rows,
    at the cost of ``V·d`` multiply-adds per position instead of ``d`` copies.

    >>> e = [[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]]
    >>> bool(np.array_equal(lookup_one_hot(e, [2, 0, 2]), lookup(e, [2, 0, 2])))
    True
    """
    e = _table(table)
    return one_hot(ids, e.shape[0]) @ e


@dataclass(frozen=True)
class LookupTrace:
    """Figure 3: the ID tensor, the table, the looked-up rows and one followed cell."""

    ids: np.ndarray  # [B, T] s: row = sequence b, column = position t; entries are IDs
    table: np.ndarray  # [V, d] E: row = vocabulary ID, column = feature f (parameters)
    x: np.ndarray  # [B, T, d] X = E[s]: for fixed b, row = position t, column = feature f
    cell: tuple[int, int, int]  # (b, t, f): the entry the text follows

    @property
    def row_id(self) -> int:
        """The ID at the followed position, ``s[b, t]``: which row of E is read."""
        b, t, _ = self.cell
        return int(self.ids[b, t])

    @property
    def value(self) -> float:
        """The followed entry ``X[b, t, f] = E[s[b, t], f]``."""
        b, t, f = self.cell
        return float(self.x[b, t, f])

    @property
    def same_id(self) -> np.ndarray:
        """Positions ``[n, 2]`` (b, t) anywhere in the batch that hold the followed ID."""
        return np.argwhere(self.ids == self.row_id)

    @property
    def copies(self) -> int:
        """Numbers copied by the lookup: ``B·T·d``."""
        return int(self.x.size)

    @property
    def one_hot_macs(self) -> int:
        """Multiply-adds of the same lookup as ``one_hot(s) @ E``: ``B·T·V·d``."""
        return int(self.ids.size * self.table.size)


def lookup_trace(cell=ex.FIG3_CELL, *, ids=None, table=None) -> LookupTrace:
    """Figure 3's trace for the chapter's batch and table, following ``cell = (b, t, f)``.

    >>> tr = lookup_trace((0, 2, 0))
    >>> tr.row_id, tr.value, tr.same_id.tolist()
    (3, 0.2, [[0, 0], [0, 2], [1, 2]])
    """
    s = batch_ids() if ids is None else check_ids(ids, ex.V if table is None else _table(table).shape[0])
    e = teaching_embedding() if table is None else _table(table)
    if s.ndim != 2:
        raise ValueError(f"ids must be [B, T] for figure 3, got shape {list(s.shape)}")
    try:
        b, t, f = cell
    except (TypeError, ValueError):
        raise TypeError(f"cell must be a (b, t, f) triple of ints, got {cell!r}") from None
    bound = (s.shape[0] - 1, s.shape[1] - 1, e.shape[1] - 1)
    b, t, f = (as_int(n, v, low=0, high=hi) for n, v, hi in zip(("b", "t", "f"), (b, t, f), bound))
    return LookupTrace(ids=s, table=e, x=lookup(e, s), cell=(b, t, f))


# ------------------------------------------------------------------- the output head


def tied_head(table) -> np.ndarray:
    """The tied output projection ``W_out = Eᵀ``, ``[d, V]``: column ``v`` is row ``v``
    of E, so one set of numbers is both an input row and an output column.

    >>> tied_head([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]).shape
    (2, 3)
    """
    return _table(table).T


def logits(hidden, w_out) -> np.ndarray:
    """``Z = H @ W_out``: one unnormalised score per vocabulary entry, ``[..., V]``.

    ``hidden`` is ``[..., d]`` (the final hidden states), ``w_out`` is ``[d, V]``.

    >>> logits([1.0, 0.0], [[2.0, 3.0, 4.0], [5.0, 6.0, 7.0]]).tolist()
    [2.0, 3.0, 4.0]
    """
    h = as_float_array("hidden", hidden, min_ndim=1)
    w = as_float_array("w_out", w_out, ndim=2)
    if w.shape[0] != h.shape[-1]:
        raise ValueError(
            f"w_out must be [d, V] with d = {h.shape[-1]} (hidden's last axis), got shape {list(w.shape)}"
        )
    return h @ w


# ------------------------------------------------------------ probabilities, sampling


def next_token_probs(z, *, temperature: float = 1.0, top_k: int | None = None) -> np.ndarray:
    """The distribution of the next ID from logits ``z [..., V]``, over the last
    (vocabulary) axis: keep the ``top_k`` largest logits (all when ``None``), divide by
    ``temperature``, softmax. Temperature 0 is greedy: all mass on the largest logit
    (the lowest ID among equals).

    >>> next_token_probs([np.log(3), 0.0]).round(6).tolist()
    [0.75, 0.25]
    >>> next_token_probs([np.log(3), 0.0], temperature=0.0).tolist()
    [1.0, 0.0]
    >>> next_token_probs([1.0, 3.0, 2.0], top_k=1).tolist()
    [0.0, 1.0, 0.0]
    """
    z = as_float_array("z (the logits)", z, min_ndim=1)
    if z.shape[-1] == 0:
        raise ValueError(f"z (the logits) must hold at least one logit, got shape {list(z.shape)}")
    temperature = as_float("temperature", temperature, low=0.0)
    v = z.shape[-1]
    if top_k is not None:
        top_k = as_int("top_k", top_k, low=1, high=v)
        # rank by logit (stable: lower ID first among equals), keep the first top_k
        rank = np.argsort(np.argsort(-z, axis=-1, kind="stable"), axis=-1, kind="stable")
        z = np.where(rank < top_k, z, -np.inf)
    if temperature == 0.0:
        return (np.arange(v) == np.argmax(z, axis=-1)[..., None]).astype(np.float64)
    # subtract the top logit first: the largest entry becomes 0, so dividing by a tiny
    # temperature sends the others towards −∞ and never overflows to +∞
    top = z.max(axis=-1, keepdims=True)
    with np.errstate(over="ignore"):
        return att.softmax((z - top) / temperature, axis=-1)


def draw_ids(probs, uniforms) -> np.ndarray:
    """Turn uniform numbers ``u`` in [0, 1) into IDs by the inverse of the cumulative
    distribution: ID ``v`` when ``cdf[v−1] <= u < cdf[v]``. ``probs [V]``, ``uniforms [n]``.

    >>> draw_ids([0.75, 0.25], [0.1, 0.74, 0.76, 0.99]).tolist()
    [0, 0, 1, 1]
    """
    p = as_float_array("probs", probs, ndim=1)
    if p.size < 1 or np.any(p < 0) or abs(p.sum() - 1.0) > 1e-9:
        raise ValueError("probs must be a non-empty distribution: entries >= 0 summing to 1")
    u = as_float_array("uniforms", uniforms, ndim=1)
    if np.any((u < 0) | (u >= 1)):
        raise ValueError("uniforms must lie in [0, 1)")
    cdf = np.cumsum(p)
    ids = np.searchsorted(cdf, u, side="right")
    # rounding can leave cdf[-1] a hair below 1; never return an ID past the last one
    # with probability > 0
    return np.minimum(ids, np.flatnonzero(p > 0)[-1])


def sample_next(z, rng: np.random.Generator, *, temperature: float = 1.0, top_k: int | None = None) -> int:
    """Draw one ID from the logits ``z [V]`` with the seeded generator ``rng``.

    >>> sample_next([np.log(3), 0.0], np.random.default_rng(0), temperature=0.0)
    0
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator (np.random.default_rng(seed)), got {type(rng).__name__}")
    z = as_float_array("z (the logits)", z, ndim=1)
    if z.shape[-1] == 0:
        raise ValueError(f"z (the logits) must hold at least one logit, got shape {list(z.shape)}")
    p = next_token_probs(z, temperature=temperature, top_k=top_k)
    return int(draw_ids(p, [rng.random()])[0])


@dataclass(frozen=True)
class SamplingTrace:
    """One position's logits, the distribution at a temperature, and seeded draws."""

    logits: np.ndarray  # [V] one score per candidate ID
    temperature: float  # 0 means greedy
    probs: np.ndarray  # [V] softmax(logits / temperature) over the vocabulary axis
    uniforms: np.ndarray  # [n] the seeded uniform numbers behind the draws
    draws: np.ndarray  # [n] sampled IDs
    counts: np.ndarray  # [V] how often each ID was drawn

    @property
    def shares(self) -> np.ndarray:
        """``counts / n``: the observed frequency of each ID."""
        return self.counts / self.draws.size


def sampling_trace(z, temperature: float = 1.0, *, draws: int = ex.FIG5_DRAWS, seed: int = ex.FIG5_SEED) -> SamplingTrace:
    """Probabilities of logits ``z`` at ``temperature`` and ``draws`` seeded samples.

    The uniforms depend only on ``(draws, seed)``, so moving the temperature changes
    which IDs the same uniforms select, not the random numbers themselves.

    >>> tr = sampling_trace([np.log(3), 0.0], 1.0)
    >>> tr.probs.round(2).tolist(), int(tr.counts.sum())
    ([0.75, 0.25], 1000)
    """
    z = as_float_array("z (the logits)", z, ndim=1)
    if z.shape[-1] == 0:
        raise ValueError(f"z (the logits) must hold at least one logit, got shape {list(z.shape)}")
    draws = as_int("draws", draws, low=1)
    seed = as_int("seed", seed, low=0)
    p = next_token_probs(z, temperature=temperature)
    u = np.random.default_rng(seed).random(draws)
    ids = draw_ids(p, u)
    return SamplingTrace(z, float(temperature), p, u, ids, np.bincount(ids, minlength=z.size))


@dataclass(frozen=True)
class LogitPanels:
    """Figure 5: one position of an independent two-candidate vocabulary (IDs 0, 1)."""

    equal: SamplingTrace  # logits [0, 0] → [0.5, 0.5]
    gap: SamplingTrace  # logits [log 3, 0] → [0.75, 0.25]
    shifted: SamplingTrace  # logits [log 3 + 100, 100] → the same probabilities
    shift: float  # the constant added to every logit


def logit_panels(temperature: float = ex.FIG5_TEMPERATURE) -> LogitPanels:
    """Figure 5's three cases at ``temperature`` (1 in the static figure).

    >>> p = logit_panels()
    >>> p.equal.probs.tolist(), bool(np.allclose(p.shifted.probs, p.gap.probs))
    ([0.5, 0.5], True)
    """
    return LogitPanels(
        equal=sampling_trace(ex.FIG5_EQUAL, temperature),
        gap=sampling_trace(ex.FIG5_GAP, temperature),
        shifted=sampling_trace(ex.FIG5_GAP + ex.FIG5_SHIFT, temperature),
        shift=ex.FIG5_SHIFT,
    )


# ----------------------------------------------------------------------- real scale


@dataclass(frozen=True)
class ParameterCount:
    """Numbers stored by a decoder of the chapter's structure (Figure 4: two RMSNorm
    weights, W_Q, W_K, W_V, W_O of [d, d], a SwiGLU FFN of width d_ff), by part."""

    vocab: int  # V
    d: int  # width of the residual stream
    d_ff: int  # width of the FFN's hidden layer
    layers: int  # decoder layers stacked
    tied: bool  # W_out = Eᵀ: the head stores nothing of its own
    embedding: int  # E: V·d
    head: int  # W_out: d·V, or 0 when tied
    layer: int  # one decoder layer: 2·d + 4·d² + 3·d·d_ff
    final_norm: int  # the RMSNorm weight before the head: d

    @property
    def vocab_matrices(self) -> int:
        """E and W_out together."""
        return self.embedding + self.head

    @property
    def all_layers(self) -> int:
        return self.layers * self.layer

    @property
    def total(self) -> int:
        return self.vocab_matrices + self.all_layers + self.final_norm


def parameter_count(vocab: int, d: int, d_ff: int, layers: int, *, tied: bool = False) -> ParameterCount:
    """Count the stored numbers of a decoder with the chapter's structure (multi-head
    attention whose heads together are d wide).

    >>> c = parameter_count(1000, 8, 24, 1)
    >>> c.embedding, c.head, c.layer, c.total
    (8000, 8000, 848, 16856)
    """
    vocab, d = as_int("vocab", vocab, low=1), as_int("d", d, low=1)
    d_ff, layers = as_int("d_ff", d_ff, low=1), as_int("layers", layers, low=0)
    if not isinstance(tied, (bool, np.bool_)):
        raise TypeError(f"tied must be True or False, got {tied!r}")
    layer = 2 * d + 4 * d * d + 3 * d * d_ff  # norms, W_Q W_K W_V W_O, W_gate W_up W_down
    return ParameterCount(vocab, d, d_ff, layers, bool(tied), embedding=vocab * d,
                          head=0 if tied else vocab * d, layer=layer, final_norm=d)


# ---------------------------------------------------------------- the sampling loop


def teaching_layer() -> LayerWeights:
    """The chapter's random, untrained decoder layer at the running shapes
    (d=8, H=2, d_h=4, d_ff=24).

    >>> teaching_layer().shapes()["w_gate"]
    (8, 24)
    """
    return random_layer(ex.D_MODEL, ex.H, ex.D_FF, d_h=ex.D_HEAD, seed=ex.LAYER_SEED,
                        rope_base=ex.ROPE_BASE, eps=ex.NORM_EPS)


def layer_trace() -> LayerTrace:
    """Figure 4's trace: the chapter's batch looked up in ``E`` and run through the
    teaching layer.

    >>> layer_trace().out.shape
    (2, 4, 8)
    """
    return decoder_layer(lookup(teaching_embedding(), batch_ids()), teaching_layer())


@dataclass(frozen=True)
class GenerationStep:
    """One step of the loop: look the prefix up, run the layer, score, sample."""

    prefix: np.ndarray  # [T] the IDs fed in at this step
    x: np.ndarray | None  # [T, d] their looked-up rows, E[prefix] (None when a logits_fn runs the model)
    hidden: np.ndarray | None  # [d] the last position's final hidden state (None with a logits_fn)
    logits: np.ndarray  # [V] hidden @ W_out
    probs: np.ndarray  # [V] next-ID distribution after temperature and top-k
    sampled: int  # the drawn ID: appended to the prefix, looked up next step


def generate(prompt, steps: int, *, table=None, layer: LayerWeights | None = None, w_out=None,
             temperature: float = 1.0, top_k: int | None = None, seed: int = 0,
             logits_fn=None) -> list[GenerationStep]:
    """Autoregressive sampling with a one-layer model: IDs → ``E`` rows → decoder layer
    → final RMSNorm → ``W_out`` (tied to ``E`` unless given) → sample → append the ID →
    look it up again. Seeded by ``seed``; ``temperature=0`` is greedy.

    The next input is always ``E[sampled ID]``, a row of the table; the hidden vector
    itself is never fed back, and no search for the nearest embedding takes place.

    Any other model runs the same loop through ``logits_fn(ids [T]) -> logits [T, V]``
    (a whole model's forward pass, e.g. :meth:`tokenpath.model.Model.logits`); then
    ``table``, ``layer`` and ``w_out`` are not used and the steps keep no ``x`` or
    ``hidden``.

    >>> out = generate([3, 7, 3], 2, seed=0)
    >>> [s.prefix.size for s in out], out[1].prefix[:3].tolist()
    ([3, 4], [3, 7, 3])
    >>> e = teaching_embedding()
    >>> same = generate([3, 7, 3], 2, seed=0, logits_fn=lambda ids: logits(lookup(e, ids), tied_head(e)))
    >>> [s.prefix.size for s in same], same[0].x is None
    ([3, 4], True)
    """
    steps = as_int("steps", steps, low=1)
    if logits_fn is not None:
        if not callable(logits_fn):
            raise TypeError(f"logits_fn must be callable as logits_fn(ids) -> [T, V], got {type(logits_fn).__name__}")
        if table is not None or layer is not None or w_out is not None:
            raise ValueError("give either logits_fn or table/layer/w_out: logits_fn runs the whole model")
        ids = as_int_array("prompt", prompt, ndim=1, low=0)

        def run(ids):
            z = as_float_array("logits_fn(ids)", logits_fn(ids), ndim=2)
            if z.shape[0] != ids.size:
                raise ValueError(f"logits_fn(ids) must return [T, V] with T = {ids.size}, got {list(z.shape)}")
            check_ids(ids, z.shape[1])
            return None, None, z[-1]
    else:
        e = teaching_embedding() if table is None else _table(table)
        layer = teaching_layer() if layer is None else layer
        if not isinstance(layer, LayerWeights):
            raise TypeError(f"layer must be a LayerWeights, got {type(layer).__name__}")
        w = tied_head(e) if w_out is None else as_float_array("w_out", w_out, ndim=2)
        ids = check_ids(prompt, e.shape[0], name="prompt")

        def run(ids):
            x = lookup(e, ids)  # [T, d]: rows of E, never hidden vectors
            h = decoder_layer(x[None], layer).out[0]  # [T, d]
            final = norms.rms_norm(h[-1], eps=layer.eps)  # final norm (weight 1 here)
            return x, final, logits(final, w)  # z [V]
    if ids.ndim != 1 or ids.size < 1:
        raise ValueError(f"prompt must be a non-empty [T] ID sequence, got shape {list(ids.shape)}")
    rng = np.random.default_rng(as_int("seed", seed, low=0))
    out = []
    for _ in range(steps):
        x, final, z = run(ids)
        p = next_token_probs(z, temperature=temperature, top_k=top_k)
        nxt = int(draw_ids(p, [rng.random()])[0])
        out.append(GenerationStep(ids, x, final, z, p, nxt))
        ids = np.append(ids, nxt)
    return out


# -------------------------------------------------------------------------- training


@dataclass(frozen=True)
class CrossEntropyTrace:
    """Next-token cross-entropy, averaged over the targets the loss mask counts."""

    logits: np.ndarray  # [..., T, V]
    targets: np.ndarray  # [..., T] y, the shifted inputs
    mask: np.ndarray  # [..., T] 1 where the target counts
    probs: np.ndarray  # [..., T, V] softmax over the vocabulary axis
    nll: np.ndarray  # [..., T] −log p(target) per position (0 where masked)
    loss: float  # Σ mask·nll / Σ mask
    d_logits: np.ndarray  # [..., T, V] ∂loss/∂logits = mask·(probs − one_hot(y)) / Σ mask


def cross_entropy(z, targets, mask=None) -> CrossEntropyTrace:
    """Mean cross-entropy of ``targets`` under ``softmax(z)``, and its gradient with
    respect to the logits.

    >>> tr = cross_entropy([[np.log(3), 0.0]], [0])
    >>> round(tr.loss, 6), tr.d_logits.round(6).tolist()
    (0.287682, [[-0.25, 0.25]])
    """
    z = as_float_array("z (the logits)", z, min_ndim=2)
    y = check_ids(targets, z.shape[-1], name="targets")
    if y.shape != z.shape[:-1]:
        raise ValueError(f"targets must have shape {list(z.shape[:-1])} (one per position of logits), got {list(y.shape)}")
    m = att.loss_mask(y) if mask is None else as_int_array("mask", mask)
    if m.shape != y.shape or np.any((m != 0) & (m != 1)):
        raise ValueError(f"mask must be 0/1 with the targets' shape {list(y.shape)}, got shape {list(m.shape)}")
    count = int(m.sum())
    if count == 0:
        raise ValueError("mask counts no target: the mean loss would be 0/0")
    p = att.softmax(z, axis=-1)
    picked = np.take_along_axis(p, y[..., None], axis=-1)[..., 0]
    nll = np.where(m == 1, -np.log(picked), 0.0)
    d = (p - one_hot(y, z.shape[-1])) * (m[..., None] / count)
    return CrossEntropyTrace(z, y, m, p, nll, float(nll.sum() / count), d)


def lookup_grad(d_x, ids, vocab: int) -> np.ndarray:
    """The lookup's backward pass: row ``v`` of the result is the sum of ``d_x`` over
    every position whose ID is ``v`` (a scatter-add). Rows of IDs that were not read
    get exactly zero. ``d_x [..., T, d]``, ``ids [..., T]`` → ``[vocab, d]``.

    >>> lookup_grad([[1.0], [2.0], [4.0]], [2, 0, 2], 4).ravel().tolist()
    [2.0, 0.0, 5.0, 0.0]
    """
    ids = check_ids(ids, vocab)
    g = as_float_array("d_x", d_x, min_ndim=2)
    if g.shape[:-1] != ids.shape:
        raise ValueError(f"d_x must be {list(ids.shape)} + [d] (one row per ID), got shape {list(g.shape)}")
    out = np.zeros((vocab, g.shape[-1]))
    np.add.at(out, ids.ravel(), g.reshape(-1, g.shape[-1]))
    return out


@dataclass(frozen=True)
class TiedGradient:
    """Figure 6: the gradient of the loss with respect to a tied ``E``, by path.

    The model is the shortest one with both uses of E: ``Z = E[x] @ Eᵀ`` (the layers in
    between are left out, so every number can be followed by hand; a layer changes
    ``∂L/∂X`` but not which rows the lookup can reach).
    """

    inputs: np.ndarray  # [..., T] x
    targets: np.ndarray  # [..., T] y = shift_targets(x)
    loss: CrossEntropyTrace  # logits Z = X Eᵀ, probabilities, loss, ∂L/∂Z
    grad_input: np.ndarray  # [V, d] through the lookup X = E[x]: scatter-add of ∂L/∂X
    grad_output: np.ndarray  # [V, d] through the classifier Z = X Eᵀ: (∂L/∂Z)ᵀ X

    @property
    def grad(self) -> np.ndarray:
        """The whole gradient ``∂L/∂E``: both paths added, ``[V, d]``."""
        return self.grad_input + self.grad_output

    @property
    def rows_input(self) -> np.ndarray:
        """IDs whose row gets a non-zero gradient through the input lookup."""
        return np.flatnonzero(np.any(self.grad_input != 0, axis=-1))

    @property
    def rows_output(self) -> np.ndarray:
        """IDs whose row gets a non-zero gradient through the output classifier."""
        return np.flatnonzero(np.any(self.grad_output != 0, axis=-1))

    @property
    def norms_input(self) -> np.ndarray:
        """``‖∂L/∂E[v]‖`` through the lookup, per row ``[V]``."""
        return np.linalg.norm(self.grad_input, axis=-1)

    @property
    def norms_output(self) -> np.ndarray:
        """``‖∂L/∂E[v]‖`` through the classifier, per row ``[V]``."""
        return np.linalg.norm(self.grad_output, axis=-1)


def tied_loss(table, inputs, targets, mask=None) -> float:
    """The loss of the tied model ``Z = E[x] @ Eᵀ``; a function of ``E`` alone, for
    finite differences.

    >>> round(tied_loss(np.eye(2), [0], [0]), 6)
    0.313262
    """
    e = _table(table)
    inputs = check_ids(inputs, e.shape[0], name="inputs")
    return cross_entropy(logits(lookup(e, inputs), tied_head(e)), targets, mask).loss


def tied_gradient(table=None, inputs=None, targets=None, mask=None) -> TiedGradient:
    """``∂L/∂E`` of the tied model, split by path. Defaults: the chapter's ``E``,
    ``x = [3, 7, 3, 2]`` and ``y = shift_targets(x, EOS) = [7, 3, 2, 9]``.

    >>> g = tied_gradient()
    >>> g.rows_input.tolist(), g.rows_output.size
    ([2, 3, 7], 1000)
    """
    e = teaching_embedding() if table is None else _table(table)
    x = ex.encode_chars(ex.TEXT) if inputs is None else inputs
    x = check_ids(x, e.shape[0], name="inputs")
    if x.shape[-1] == 0:
        raise ValueError(f"inputs must hold at least one position, got shape {list(x.shape)}")
    y = att.shift_targets(x, eos=ex.EOS) if targets is None else check_ids(targets, e.shape[0], name="targets")
    xs = lookup(e, x)  # [..., T, d]
    ce = cross_entropy(logits(xs, tied_head(e)), y, mask)
    dz = ce.d_logits  # [..., T, V]
    grad_output = dz.reshape(-1, e.shape[0]).T @ xs.reshape(-1, e.shape[1])  # [V, d]
    d_x = dz @ e  # [..., T, d]: Z = X Eᵀ, so ∂L/∂X = ∂L/∂Z · E
    grad_input = lookup_grad(d_x, x, e.shape[0])
    return TiedGradient(x, y, ce, grad_input, grad_output)
