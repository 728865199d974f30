"""The ID table: which ID each token's bytes carry, and the merge table the encoder runs.

The book's own tokenizer numbers its tokens in the order it builds them: byte ``b`` is
ID ``b``, merge ``k`` makes ID ``256 + k``, special tokens come next (chapter 1). A real
model's file numbers them as it likes: SmolLM2 puts its 17 special tokens at IDs 0–16 and
the byte ``!`` at 17; a tiktoken file's IDs are its ranks. The merges are the same rules
either way, so the encoder is the same loop (:meth:`tokenpath.bpe.Tokenizer.merge_bytes`);
only the table that turns bytes into IDs differs. :func:`id_table` builds that table, from
the book's numbering or from a given ``bytes → ID`` mapping, and checks it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from .._checks import as_int
from ._checks import check_merges, check_names

__all__ = ["IdTable", "id_table"]


@dataclass(frozen=True)
class IdTable:
    """Every ID of a tokenizer and the merge table over them."""
    merges: list           # the merges, checked, in rank order: (bytes, bytes)
    vocab: dict            # ID → bytes, ordinary tokens (what BPE can emit)
    ids: dict              # bytes → ID, ordinary tokens
    byte_ids: tuple        # [256]  the ID of each single byte (byte b is ID b in the book's numbering);
    #                        None for a byte the vocabulary lacks (SmolLM2 lacks 21, such as 0x04)
    ranks: dict            # (left ID, right ID) → (rank, merged ID)
    special_tokens: dict   # special token name → ID
    n_vocab: int           # max ID + 1: every ID the tokenizer can emit or decode


def _check_table(vocab) -> dict[bytes, int]:
    if not isinstance(vocab, Mapping):
        raise TypeError(f"vocab must be a mapping from token bytes to ID, got {type(vocab).__name__}")
    out, seen = {}, {}
    for data, i in vocab.items():
        if not isinstance(data, bytes) or not data:
            raise TypeError(f"vocab keys must be non-empty bytes, got {data!r}")
        i = as_int(f"vocab[{data!r}]", i, low=0)
        if i in seen:
            raise ValueError(f"vocab gives ID {i} to both {seen[i]!r} and {data!r}; each ID names one token")
        seen[i] = data
        out[data] = i
    return out


def id_table(merges, special_tokens=(), vocab: Mapping[bytes, int] | None = None, *,
             rank_by: str = "merge") -> IdTable:
    """The ID table of ``merges`` (pairs of bytes in rank order) and ``special_tokens`` (a list of names,
    numbered after the vocabulary, or a mapping name → ID), with the book's numbering when
    ``vocab`` is None, else the IDs ``vocab`` gives (every byte and every merge result must
    have one; it may hold more tokens, which then decode but are never emitted by merges).
    ``rank_by="merge"`` ranks a pair by its place in ``merges`` (Hugging Face, GGUF);
    ``rank_by="token"`` by the ID of the token it makes (tiktoken, whose IDs are its ranks:
    any two adjacent tokens whose bytes join into a token merge, the lowest such token first).
    A byte without an ID cannot be encoded (:meth:`~tokenpath.bpe.Tokenizer.merge_bytes`
    refuses it by name; Hugging Face and llama.cpp drop it silently).

    >>> t = id_table([(b"a", b"b")], ["<s>"])
    >>> t.ids[b"ab"], t.special_tokens, t.n_vocab
    (256, {'<s>': 257}, 258)
    >>> table = {bytes([b]): b + 3 for b in range(256)} | {b"ab": 0}
    >>> t = id_table([(b"a", b"b")], {"<s>": 1}, table)
    >>> t.byte_ids[ord("a")], t.ranks[(100, 101)], t.special_tokens, t.n_vocab
    (100, (0, 0), {'<s>': 1}, 259)
    """
    if not isinstance(rank_by, str) or rank_by not in ("merge", "token"):
        raise ValueError(f"rank_by must be 'merge' or 'token', got {rank_by!r}")
    if rank_by == "token" and vocab is None:
        raise ValueError("rank_by='token' needs a vocab: the merged token's ID is its rank")
    # the book's numbering needs each part made before it is used (it numbers tokens as they
    # are made); a given table need not: a pair whose part is not made yet is never adjacent
    merges, names = check_merges(merges, ordered=vocab is None), special_tokens
    if isinstance(names, Mapping):
        check_names("special_tokens", list(names))
    else:
        names = check_names("special_tokens", names)
    if vocab is None:
        ids = {bytes([b]): b for b in range(256)}
        for a, b in merges:
            ids.setdefault(a + b, len(ids))  # a later rule may make the same bytes again
    else:
        ids = _check_table(vocab)
        for rank, (a, b) in enumerate(merges):
            for part, verb in ((a, "uses"), (b, "uses"), (a + b, "makes")):
                if part not in ids:
                    raise ValueError(f"merges[{rank}] = {(a, b)!r} {verb} {part!r}, which vocab gives no ID")
    ranks: dict[tuple[int, int], tuple[int, int]] = {}
    by_token = rank_by == "token"
    for rank, (a, b) in enumerate(merges):
        new = ids[a + b]
        ranks.setdefault((ids[a], ids[b]), (new if by_token else rank, new))
    by_id = {i: data for data, i in ids.items()}
    end = max(by_id) + 1
    if isinstance(names, Mapping):
        specials = {}
        for name, i in names.items():
            i = as_int(f"special_tokens[{name!r}]", i, low=0)
            if i in by_id and by_id[i] != name.encode("utf-8"):
                raise ValueError(f"special_tokens gives {name!r} the ID {i}, which vocab gives to {by_id[i]!r}")
            if i in specials.values():
                raise ValueError(f"special_tokens gives ID {i} to two names; each ID names one token")
            specials[name] = i
    else:
        specials = {s: end + k for k, s in enumerate(dict.fromkeys(names))}
    n_vocab = max([end, *(i + 1 for i in specials.values())])
    return IdTable(merges, by_id, ids, tuple(ids.get(bytes([b])) for b in range(256)), ranks, specials, n_vocab)
