"""Chapter 3's lessons: the teaching table, the running batch and the traces its
figures draw.

The chapter's ``E [1000, 8]`` (seeded, with a hand-set row 3), the ID batch of "abac"
and "bcab", the random teaching layer, and the traces of figure 3 (one followed cell of
the lookup), figure 4 (the layer), figure 5 (logits, temperature and seeded draws) and
figure 6 (the gradient of a tied ``E`` split by path), all computed with the engine's
:mod:`tokenpath.embedding`, :mod:`tokenpath.sampling` and :mod:`tokenpath.decoder`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import examples as ex
from .._checks import as_float, as_float_array, as_int
from ..decoder import LayerTrace, LayerWeights, decoder_layer, random_layer
from ..embedding import check_ids, check_table, logits, lookup, lookup_grad, tied_head
from ..packing import shift_targets
from ..sampling import CrossEntropyTrace, cross_entropy, draw_ids, next_token_probs

__all__ = [
    "LogitPanels",
    "LookupTrace",
    "SamplingTrace",
    "TiedGradient",
    "batch_ids",
    "layer_trace",
    "logit_panels",
    "lookup_trace",
    "sampling_trace",
    "seeded_embedding",
    "teaching_embedding",
    "teaching_layer",
    "tied_gradient",
]


# ------------------------------------------------------ the chapter's table and batch


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


# ------------------------------------------------------ figure 3: one looked-up cell


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
    s = batch_ids() if ids is None else check_ids(ids, ex.V if table is None else check_table(table).shape[0])
    e = teaching_embedding() if table is None else check_table(table)
    if s.ndim != 2:
        raise ValueError(f"ids must be [B, T] for figure 3, got shape {list(s.shape)}")
    try:
        b, t, f = cell
    except (TypeError, ValueError):
        raise TypeError(f"cell must be a (b, t, f) triple of ints, got {cell!r}") from None
    bound = (s.shape[0] - 1, s.shape[1] - 1, e.shape[1] - 1)
    b, t, f = (as_int(n, v, low=0, high=hi) for n, v, hi in zip(("b", "t", "f"), (b, t, f), bound))
    return LookupTrace(ids=s, table=e, x=lookup(e, s), cell=(b, t, f))


# ---------------------------------------------------------- figure 4: the layer


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


# --------------------------------------------------- figure 5: logits and draws


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


# ---------------------------------------------- figure 6: two gradient paths


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


def tied_gradient(table=None, inputs=None, targets=None, mask=None) -> TiedGradient:
    """``∂L/∂E`` of the tied model, split by path. Defaults: the chapter's ``E``,
    ``x = [3, 7, 3, 2]`` and ``y = shift_targets(x, EOS) = [7, 3, 2, 9]``.

    >>> g = tied_gradient()
    >>> g.rows_input.tolist(), g.rows_output.size
    ([2, 3, 7], 1000)
    """
    e = teaching_embedding() if table is None else check_table(table)
    x = ex.encode_chars(ex.TEXT) if inputs is None else inputs
    x = check_ids(x, e.shape[0], name="inputs")
    if x.shape[-1] == 0:
        raise ValueError(f"inputs must hold at least one position, got shape {list(x.shape)}")
    y = shift_targets(x, eos=ex.EOS) if targets is None else check_ids(targets, e.shape[0], name="targets")
    xs = lookup(e, x)  # [..., T, d]
    ce = cross_entropy(logits(xs, tied_head(e)), y, mask)
    dz = ce.d_logits  # [..., T, V]
    grad_output = dz.reshape(-1, e.shape[0]).T @ xs.reshape(-1, e.shape[1])  # [V, d]
    d_x = dz @ e  # [..., T, d]: Z = X Eᵀ, so ∂L/∂X = ∂L/∂Z · E
    grad_input = lookup_grad(d_x, x, e.shape[0])
    return TiedGradient(x, y, ce, grad_input, grad_output)
