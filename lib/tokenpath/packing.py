"""Training text as blocks, masks and targets (chapter 4): documents packed into
fixed-length rows, the visibility that keeps them apart, and the training shift.

Pre-training concatenates documents, each closed by an EOS token, and cuts the stream
into blocks of one length, so a document may start in one block and end in the next.
Inside a block a query sees only earlier positions (:func:`~tokenpath.attention.causal_mask`)
of its own document (:func:`document_mask`), and never padding. The targets are the
inputs shifted by one (:func:`shift_targets`), and a third mask, over targets, says
which of them count in the loss (:func:`loss_mask`).

Conventions are those of :mod:`tokenpath.attention`: a mask is boolean with ``True``
where the source is visible, rows are queries and columns sources.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import as_int, as_int_array
from .attention import causal_mask, combine_masks, padding_mask

__all__ = [
    "PackedBlocks",
    "document_ids",
    "document_mask",
    "loss_mask",
    "pack_documents",
    "shift_targets",
]


# ------------------------------------------------------------------ documents


def document_ids(tokens, eos: int) -> np.ndarray:
    """Number the documents of a packed row: the ``eos`` token closes its document.

    >>> document_ids([3, 7, 9, 2, 9, 3], eos=9).tolist()
    [0, 0, 0, 1, 1, 2]
    """
    tokens = as_int_array("tokens", tokens, low=0)
    if tokens.ndim < 1:
        raise ValueError(f"tokens must have a position axis, got shape {tokens.shape}")
    eos = as_int("eos", eos, low=0)
    ends = (tokens == eos).astype(np.int64)
    # a position belongs to the document that the EOS tokens *before* it have closed
    before = np.cumsum(ends, axis=-1) - ends
    return before


def document_mask(doc_ids) -> np.ndarray:
    """Visibility that keeps packed documents apart: ``j`` is visible to ``i`` only
    when both belong to the same document. Shape ``[..., T, T]``.

    >>> document_mask([0, 0, 1]).astype(int)
    array([[1, 1, 0],
           [1, 1, 0],
           [0, 0, 1]])
    """
    doc_ids = as_int_array("doc_ids", doc_ids)
    if doc_ids.ndim < 1:
        raise ValueError(f"doc_ids must have a position axis, got shape {doc_ids.shape}")
    return doc_ids[..., :, None] == doc_ids[..., None, :]


# ----------------------------------------------------------------- packing


@dataclass(frozen=True)
class PackedBlocks:
    """Documents concatenated (each closed by EOS) and cut into fixed-length blocks."""

    tokens: np.ndarray  # [N, L] token IDs; the tail of the last block is pad_id
    doc_ids: np.ndarray  # [N, L] document number of each position (pad positions: -1)
    valid: np.ndarray  # [N, L] False on padding

    @property
    def continued(self) -> np.ndarray:
        """[N] True where a block starts in the middle of a document that an earlier
        block began (its first position belongs to the document of the previous
        block's last position).

        >>> pack_documents([[3, 7, 3], [2]], block=2, eos=9, pad_id=0).continued.tolist()
        [False, True, False]
        """
        starts = self.doc_ids[1:, 0]
        return np.r_[False, (starts >= 0) & (starts == self.doc_ids[:-1, -1])]

    def mask(self) -> np.ndarray:
        """Causal ∧ padding ∧ document visibility, shape ``[N, L, L]``.

        Padded query rows keep their diagonal so no row is empty; their outputs are
        never read.
        """
        n, length = self.tokens.shape
        visible = combine_masks(
            causal_mask(length), padding_mask(self.valid), document_mask(self.doc_ids)
        )
        return visible | (np.eye(length, dtype=bool) & ~self.valid[:, :, None])


def pack_documents(documents, block: int, *, eos: int, pad_id: int) -> PackedBlocks:
    """Pack token lists into ``[N, block]`` rows, closing each document with ``eos``.

    Documents flow across block edges, as in fixed-block pre-training; the last
    block is filled with ``pad_id`` and marked invalid.

    >>> p = pack_documents([[3, 7], [2]], block=3, eos=9, pad_id=0)
    >>> p.tokens.tolist(), p.doc_ids.tolist()
    ([[3, 7, 9], [2, 9, 0]], [[0, 0, 0], [1, 1, -1]])
    """
    block = as_int("block", block, low=1)
    eos = as_int("eos", eos, low=0)
    pad_id = as_int("pad_id", pad_id, low=0)
    if isinstance(documents, (str, bytes)) or not hasattr(documents, "__iter__"):
        raise TypeError("documents must be a sequence of token-ID sequences")
    stream: list[int] = []
    owner: list[int] = []
    for k, doc in enumerate(documents):
        ids = as_int_array(f"documents[{k}]", doc, ndim=1, low=0)
        if np.any(ids == eos):
            raise ValueError(f"documents[{k}] already contains eos={eos}; pass raw documents")
        stream.extend(ids.tolist() + [eos])
        owner.extend([k] * (len(ids) + 1))
    if not stream:
        raise ValueError("documents must hold at least one document")
    n = -(-len(stream) // block)
    fill = n * block - len(stream)
    tokens = np.array(stream + [pad_id] * fill, dtype=np.int64).reshape(n, block)
    doc_ids = np.array(owner + [-1] * fill, dtype=np.int64).reshape(n, block)
    return PackedBlocks(tokens=tokens, doc_ids=doc_ids, valid=doc_ids >= 0)


# ------------------------------------------------------------------ training shift


def shift_targets(ids, eos: int) -> np.ndarray:
    """Next-token training targets: ``y[t] = x[t + 1]``, and the last position's
    target is ``eos``. The shift decides *which token each position predicts*; it is
    a different rule from the causal mask, which decides *which positions a query
    reads*. Works on ``[T]`` or ``[B, T]`` (shifted along the last, position axis).

    >>> shift_targets([3, 7, 3, 2], eos=9).tolist()
    [7, 3, 2, 9]
    """
    ids = as_int_array("ids", ids, low=0)
    if ids.ndim < 1 or ids.shape[-1] < 1:
        raise ValueError(f"ids must have a non-empty position axis, got shape {ids.shape}")
    eos = as_int("eos", eos, low=0)
    tail = np.full(ids.shape[:-1] + (1,), eos, dtype=np.int64)
    return np.concatenate([ids[..., 1:], tail], axis=-1)


def loss_mask(targets, *, pad_id: int | None = None) -> np.ndarray:
    """Which targets count in the loss: 1 for a real target, 0 for padding.

    This is a third kind of mask, over *targets*, unrelated to attention visibility.
    In plain language modelling with no padding every target counts. ID 0 is an
    ordinary ID unless it is declared as ``pad_id``.

    >>> loss_mask([7, 3, 2, 9]).tolist()
    [1, 1, 1, 1]
    >>> loss_mask([2, 9, 0, 0], pad_id=0).tolist()
    [1, 1, 0, 0]
    """
    targets = as_int_array("targets", targets, low=0)
    if targets.ndim < 1:
        raise ValueError(f"targets must have a position axis, got shape {targets.shape}")
    if pad_id is None:
        return np.ones(targets.shape, dtype=np.int64)
    pad_id = as_int("pad_id", pad_id, low=0)
    return (targets != pad_id).astype(np.int64)
