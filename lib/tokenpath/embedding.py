"""From IDs to rows, from rows to logits, from logits back to the next ID (chapter 3).

* **Lookup.** ``X[b, t, :] = E[s[b, t], :]``: an ID is an *index* into the rows of the
  embedding matrix ``E [V, d]``, not a quantity (ID 17 is not "9 more" than ID 8).
  It equals a one-hot row times ``E``, which nobody computes: it multiplies by
  ``V − 1`` zeros to copy one row.
* **Output projection.** ``Z = RMSNorm(X_L) W_out``, ``X_L`` the last layer's output,
  with ``W_out [d, V]`` either its own matrix (untied) or ``Eᵀ`` (tied: the same
  numbers serve as input rows and output columns).
* **Backward.** The lookup's gradient is a scatter-add (:func:`lookup_grad`): only
  rows that were read receive anything through it.

Turning logits into the next ID, and the loss that trains them, is
:mod:`tokenpath.sampling`.

* **Scale.** :func:`parameter_count` counts what a model of given shapes stores, so
  the toy numbers can stand beside a real vocabulary and width.

ID 0 is an ordinary ID here. No ID is padding by its value: a pipeline declares a
padding ID and masks it twice, out of the loss and out of attention (chapter 5).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import as_float_array, as_int, as_int_array

__all__ = [
    "ParameterCount",
    "check_ids",
    "check_table",
    "logits",
    "lookup",
    "lookup_grad",
    "lookup_one_hot",
    "one_hot",
    "parameter_count",
    "tied_head",
]


# ------------------------------------------------------------------------ the table


def check_table(table) -> np.ndarray:
    """An embedding table ``[V, d]`` as a float array, with ``V, d >= 1``.

    >>> check_table([[0.5, 1.0]]).shape
    (1, 2)
    """
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
    e = check_table(table)
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
    e = check_table(table)
    return one_hot(ids, e.shape[0]) @ e


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


# ------------------------------------------------------------------- the output head


def tied_head(table) -> np.ndarray:
    """The tied output projection ``W_out = Eᵀ``, ``[d, V]``: column ``v`` is row ``v``
    of E, so one set of numbers is both an input row and an output column.

    >>> tied_head([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]).shape
    (2, 3)
    """
    return check_table(table).T


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


# ----------------------------------------------------------------------- real scale


@dataclass(frozen=True)
class ParameterCount:
    """Numbers stored by a decoder of the chapter's structure (two RMSNorm weights,
    W_Q, W_K, W_V, W_O of [d, d], a SwiGLU FFN of width d_ff), by part."""

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


def __getattr__(name: str):
    """``next_token_probs`` lives in :mod:`tokenpath.sampling` now; reading it from here
    still works for the callers that import it by its old address."""
    if name == "next_token_probs":
        from .sampling import next_token_probs

        return next_token_probs
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
