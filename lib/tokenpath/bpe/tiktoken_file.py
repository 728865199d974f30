"""tiktoken rank files: one token a line, ``base64(bytes) rank``, the rank being the ID.

A tiktoken file holds no merges. Its encoder merges, inside each piece of the split
pattern, the two adjacent tokens whose joined bytes have the lowest rank (the leftmost of
equal ones), until no joined pair is a token; a piece that is a token as a whole is that
token at once. :func:`read_tiktoken` turns that into the engine's BPE: every split of
every token into two tokens becomes a merge ranked by the token it makes
(``rank_by="token"``), and ``ignore_merges`` takes whole pieces; the merge loop is the
one every other tokenizer here runs.
"""

from __future__ import annotations

import base64
import binascii
from typing import Mapping

from ..safefiles import ModelFileError, as_path, open_regular_file
from .tokenizer import Tokenizer

__all__ = ["TIKTOKEN_MAX_BYTES", "read_tiktoken", "tiktoken_merges"]

#: The largest rank file read (cl100k's is 1.7 MB, o200k's 3.6 MB, Qwen 3.6's 4.6 MB).
TIKTOKEN_MAX_BYTES = 64 << 20


def tiktoken_merges(ranks: Mapping[bytes, int]) -> list[tuple[bytes, bytes]]:
    """Every way to write a token as two tokens, in the order of the token they make
    (then of the left part's rank): the pairs tiktoken's encoder can join.

    >>> tiktoken_merges({b"a": 0, b"b": 1, b"ab": 2, b"ba": 3, b"aba": 4})
    [(b'a', b'b'), (b'b', b'a'), (b'a', b'ba'), (b'ab', b'a')]
    """
    if not isinstance(ranks, Mapping):
        raise TypeError(f"ranks must be a mapping from token bytes to rank, got {type(ranks).__name__}")
    out = []
    for token, _ in sorted(ranks.items(), key=lambda kv: kv[1]):
        if not isinstance(token, bytes):
            raise TypeError(f"ranks keys must be bytes, got {type(token).__name__}")
        pairs = [(token[:k], token[k:]) for k in range(1, len(token))
                 if token[:k] in ranks and token[k:] in ranks]
        out += sorted(pairs, key=lambda p: ranks[p[0]])
    return out


def read_tiktoken(path, *, pattern: str, special_tokens: Mapping[str, int]) -> Tokenizer:
    """A tokenizer from a tiktoken rank file: IDs are the ranks, ``pattern`` the split
    regex (the file holds none), ``special_tokens`` each special token's name → ID.
    A malformed file (bad base64, a repeated token or rank, a byte with no rank, a
    non-integer rank) is one :class:`~tokenpath.safefiles.ModelFileError` naming the
    file and the line.

    >>> import base64, tempfile, pathlib
    >>> lines = [base64.b64encode(bytes([b])).decode() + f" {b}" for b in range(256)] + ["aGk= 256"]
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.tiktoken"
    >>> _ = path.write_text("\\n".join(lines) + "\\n")
    >>> tok = read_tiktoken(path, pattern=r"\\w+|\\W", special_tokens={"<|end|>": 257})
    >>> tok.encode("hi!<|end|>", allowed_special="all"), tok.n_vocab
    ([256, 33, 257], 258)
    """
    path = as_path("path", path)
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a str (the split regex), got {type(pattern).__name__}")
    if not isinstance(special_tokens, Mapping):
        raise TypeError(f"special_tokens must map each special token's name to its ID, "
                        f"got {type(special_tokens).__name__}")
    with open_regular_file(path, max_bytes=TIKTOKEN_MAX_BYTES, what="tiktoken rank file") as f:
        raw = f.read(TIKTOKEN_MAX_BYTES + 1)
    ranks: dict[bytes, int] = {}
    line_of_rank: dict[int, int] = {}
    for n, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ModelFileError(f"{path}: line {n}: expected 'base64 rank', got {line[:60]!r}")
        try:
            token = base64.b64decode(parts[0], validate=True)
        except (binascii.Error, ValueError):
            raise ModelFileError(f"{path}: line {n}: {parts[0][:60]!r} is not base64") from None
        if not token:
            raise ModelFileError(f"{path}: line {n}: the token is empty")
        if not parts[1].isdigit() or len(parts[1]) > 10:
            raise ModelFileError(f"{path}: line {n}: the rank {parts[1][:20].decode('ascii', 'replace')!r} is not a non-negative integer")
        rank = int(parts[1])
        if token in ranks:
            raise ModelFileError(f"{path}: line {n}: token {token!r} is listed again (rank {ranks[token]} before)")
        if rank in line_of_rank:
            raise ModelFileError(f"{path}: line {n}: rank {rank} is given twice (line {line_of_rank[rank]} first)")
        ranks[token] = rank
        line_of_rank[rank] = n
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        raise ModelFileError(f"{path}: line {len(line_of_rank) + 1}: the file ends with {len(missing)} single bytes "
                             f"unranked (the first is 0x{missing[0]:02X}); tiktoken needs every byte")
    try:
        return Tokenizer(tiktoken_merges(ranks), dict(special_tokens), pattern=pattern, vocab=ranks,
                         rank_by="token", ignore_merges=True)
    except ValueError as err:
        if "pattern" in str(err):
            raise
        raise ValueError(f"special_tokens: {err}") from None
