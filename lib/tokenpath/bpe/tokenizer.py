"""The tokenizer: merge rules applied to new text, and IDs turned back into text.

Encoding learns nothing. It cuts the text into words (:mod:`.pretokenizer`), starts each
word from its UTF-8 bytes, and merges the adjacent pair with the lowest rank (the
earliest learned rule; the leftmost of equal ones) until no rule applies, with a priority
queue of pairs (:mod:`.merge_queue`). IDs, in the book's numbering: 0–255 are
the bytes themselves, 256 + k is the token made by merge k, and special tokens
(``<|user|>`` …) come after the learned vocabulary; a real model's file gives its own
numbering as a table (``vocab``, :mod:`.vocab`), and the same loop runs on its IDs. A special token's spelling becomes its ID only when the caller
allows it (tiktoken's rules); a ``template`` adds markers around every encoded text
(Hugging Face's post-processor).

Decoding joins the tokens' bytes first and decodes UTF-8 once, because a token can end
inside a character (chapter 2).
"""

from __future__ import annotations

import unicodedata
from typing import Iterable, Mapping, Sequence

import regex

from .._checks import as_int
from ._checks import (TEMPLATE_TEXT, check_chat_template, check_errors, check_flag, check_name_list, check_pattern,
                      check_roles, check_template, check_text, refuse_disallowed,
                      special_sets)
from .merge_queue import _junction_ranks, _merge_word_symbols, _rescan, _start_symbols
from .pretokenizer import GPT2_PATTERN, _split_words, compile_pattern, split_covering
from .vocab import id_table

__all__ = ["TEMPLATE_TEXT", "Tokenizer", "utf8_error"]


def utf8_error(pieces: Sequence[bytes], err: UnicodeDecodeError) -> str:
    """The message for bytes that are not valid UTF-8: which bytes, where, in which token.

    >>> try:
    ...     b"a\\xab".decode("utf-8")
    ... except UnicodeDecodeError as err:
    ...     print(utf8_error([b"a", b"\\xab"], err))
    bytes AB at byte 1 (token 1) are not valid UTF-8: invalid start byte; decode the tokens together with their neighbours, or pass errors='replace'
    """
    if not isinstance(err, UnicodeDecodeError):
        raise TypeError(f"err must be the UnicodeDecodeError of decoding the joined pieces, got {type(err).__name__}")
    if isinstance(pieces, (str, bytes)) or not isinstance(pieces, Sequence) \
            or not all(isinstance(p, bytes) for p in pieces):
        raise TypeError("pieces must be a sequence of bytes, one per token")
    data = err.object
    bad = data[err.start:err.end]
    ends, token = 0, 0  # which token holds the first offending byte
    for k, p in enumerate(pieces):
        ends += len(p)
        if ends > err.start:
            token = k
            break
    return (
        f"bytes {bad.hex(' ').upper()} at byte {err.start} (token {token}) are not valid UTF-8: "
        f"{err.reason}; decode the tokens together with their neighbours, or pass errors='replace'"
    )


def _missing_byte_error(data: bytes, at: int) -> str:
    """The message for a byte the vocabulary gives no ID.

    >>> _missing_byte_error(b"a\\x04", 1)
    "byte 0x04 (at byte 1 of b'a\\\\x04') has no ID in this vocabulary, so it cannot be encoded; Hugging Face tokenizers and llama.cpp drop such a byte silently, this engine refuses it"
    """
    return (f"byte 0x{data[at]:02X} (at byte {at} of {data!r}) has no ID in this vocabulary, so it cannot be "
            "encoded; Hugging Face tokenizers and llama.cpp drop such a byte silently, this engine refuses it")


class Tokenizer:
    """A trained byte-level BPE tokenizer: merge rules in rank order, the vocabulary
    they build, optional special tokens, and an optional ``template`` that
    :meth:`encode` wraps the IDs in (e.g. ``("<s>", "$A")`` adds BOS; see
    :meth:`with_template`).

    ``special_tokens`` is a list of names (IDs after the vocabulary) or a mapping name →
    ID; ``vocab`` maps token bytes → ID (None: the book's numbering); ``pattern`` is one
    split regex or a sequence applied in turn, whose pieces must cover the text;
    ``chat_template`` the model's Jinja template (:mod:`tokenpath.chat_template`);
    ``roles`` which special token is BOS, EOS, PAD, UNK; ``normalize="NFC"`` normalises
    the text first; ``add_prefix_space`` puts a space before every text between two markers
    that lacks one (Hugging Face's ``ByteLevel`` option); ``rank_by`` and ``ignore_merges`` give tiktoken's rules
    (:func:`tokenpath.bpe.read_tiktoken`).

    >>> tok = Tokenizer([(b"e", b"r"), (b"l", b"o"), (b"lo", b"w"), (b" ", b"low"), (b" low", b"er")])
    >>> tok.encode(" lower"), tok.vocab[260]
    ([260], b' lower')
    >>> tok.decode(tok.encode(" lower"))
    ' lower'
    >>> moved = Tokenizer([(b"h", b"i")], {"<s>": 0}, vocab={bytes([b]): b + 1 for b in range(256)} | {b"hi": 257})
    >>> moved.encode("<s>hi!", allowed_special="all"), moved.n_vocab
    ([0, 257, 34], 258)
    """

    def __init__(self, merges: Iterable[tuple[bytes, bytes]], special_tokens: Iterable[str] | Mapping[str, int] = (),
                 *, pattern: str | Sequence[str] = GPT2_PATTERN, template: Sequence[str] | None = None,
                 vocab: Mapping[bytes, int] | None = None, chat_template: str | None = None,
                 roles: Mapping[str, str] | None = None, normalize: str | None = None,
                 rank_by: str = "merge", ignore_merges: bool = False, add_prefix_space: bool = False):
        self.pattern: str | tuple[str, ...] = check_pattern(pattern)
        self._stages = [None if p == GPT2_PATTERN else compile_pattern(p) for p in
                        ((self.pattern,) if isinstance(self.pattern, str) else self.pattern)]
        table = id_table(merges, special_tokens, vocab, rank_by=rank_by)  # checks the merges and the names
        self.rank_by: str = rank_by
        #: A word that is a token as a whole is that token, whatever the merges say (tiktoken's rule)
        self.ignore_merges: bool = check_flag("ignore_merges", ignore_merges)
        #: A space before every text between markers that does not start with one (HF's ByteLevel option)
        self.add_prefix_space: bool = check_flag("add_prefix_space", add_prefix_space)
        self.merges: list[tuple[bytes, bytes]] = table.merges
        self.vocab: dict[int, bytes] = table.vocab  # ID → its bytes (ordinary tokens)
        self._ids: dict[bytes, int] = table.ids  # bytes → ID
        self._byte_ids = None if vocab is None else table.byte_ids  # None: byte b is ID b
        self._lacks_bytes = None in table.byte_ids  # some byte has no ID: refused when met
        self._ranks: dict[tuple[int, int], tuple[int, int]] = table.ranks  # (left, right) → (rank, new ID)
        self._table = None if vocab is None else dict(table.ids)  # the numbering given, kept for copies
        self.special_tokens: dict[str, int] = table.special_tokens
        self._special_ids = {i: s for s, i in self.special_tokens.items()}
        self._n_vocab = table.n_vocab
        self.template: tuple[str, ...] | None = check_template(template, self.special_tokens)
        self.chat_template: str | None = check_chat_template(chat_template)
        self.roles: dict[str, str] = check_roles(roles, self.special_tokens)
        if normalize not in (None, "NFC"):
            raise ValueError(f"normalize must be None or 'NFC' (Unicode normal form C), got {normalize!r}")
        self.normalize: str | None = normalize
        self._junctions = _junction_ranks(self._ranks, self.vocab)  # [65536]  lowest rank joining across u|v
        self._missing = bytes(b for b in range(256) if table.byte_ids[b] is None)  # bytes with no ID
        #: word (str) → its IDs; code point (int) → that character merged alone (:mod:`.merge_queue`)
        self._cache: dict[str | int, tuple] = {}

    def _split(self, text: str) -> list[str]:
        """Pre-tokenise: each stage's pattern cuts every piece of the stage before."""
        if len(self._stages) == 1:  # one pattern (the usual case): no list of pieces to re-cut
            stage = self._stages[0]
            return _split_words(text) if stage is None else split_covering(stage, text)
        pieces = [text]
        for stage in self._stages:
            pieces = [w for p in pieces for w in (_split_words(p) if stage is None else split_covering(stage, p))]
        return pieces

    # ------------------------------------------------------------ construction

    def _replace(self, **changes) -> "Tokenizer":
        """A copy with some constructor arguments changed."""
        args = dict(merges=self.merges, special_tokens=dict(self.special_tokens) if self._table is not None
                    else list(self.special_tokens), pattern=self.pattern, template=self.template,
                    vocab=self._table, chat_template=self.chat_template, roles=self.roles,
                    normalize=self.normalize, rank_by=self.rank_by, ignore_merges=self.ignore_merges,
                    add_prefix_space=self.add_prefix_space)
        args.update(changes)
        return Tokenizer(args.pop("merges"), args.pop("special_tokens"), **args)

    def with_special_tokens(self, names: Iterable[str]) -> "Tokenizer":
        """The same merges with ``names`` registered as special tokens (IDs after the
        vocabulary, in the order given).

        >>> tok = Tokenizer([]).with_special_tokens(["<|user|>", "<|end|>"])
        >>> tok.special_tokens
        {'<|user|>': 256, '<|end|>': 257}
        """
        names = check_name_list("names", names)  # the constructor checks each name
        if self._table is None:
            return self._replace(special_tokens=[*self.special_tokens, *names])
        new = [n for n in dict.fromkeys(names) if n not in self.special_tokens]
        return self._replace(special_tokens={**self.special_tokens,
                                             **{n: self.n_vocab + k for k, n in enumerate(new)}})

    def with_template(self, pieces: Sequence[str] | None) -> "Tokenizer":
        """The same tokenizer with a post-processing template: what :meth:`encode` puts
        around the encoded text. ``pieces`` is a sequence of ``"$A"`` (the encoded text,
        exactly once) and names of registered special tokens, e.g. ``("<s>", "$A")``
        to add BOS; ``None`` removes the template. This is the single-sequence form of
        Hugging Face's ``TemplateProcessing`` post-processor.

        >>> tok = Tokenizer([]).with_special_tokens(["<s>", "</s>"]).with_template(["<s>", "$A", "</s>"])
        >>> tok.template, tok.encode("hi"), tok.encode("hi", add_special_tokens=False)
        (('<s>', '$A', '</s>'), [256, 104, 105, 257], [104, 105])
        >>> tok.with_template(["$A", "<unk>"])
        Traceback (most recent call last):
        ...
        ValueError: template[1] is '<unk>', which is not a registered special token (registered: ['<s>', '</s>'])
        """
        return self._replace(template=pieces)

    @property
    def n_vocab(self) -> int:
        """Every ID this tokenizer can emit or decode: the largest ID + 1 (ordinary and
        special tokens; a file whose IDs leave gaps counts the gaps too).

        >>> Tokenizer([(b"a", b"b")], ["<s>"]).n_vocab
        258
        """
        return self._n_vocab

    def __repr__(self) -> str:
        extra = "" if self.template is None else f", template={self.template!r}"
        return (f"Tokenizer(merges={len(self.merges)}, vocab={len(self.vocab)}, "
                f"special={len(self.special_tokens)}{extra})")

    # ---------------------------------------------------------------- encoding

    def merge_bytes(self, data: bytes) -> tuple[int, ...]:
        """One word's bytes → IDs: merge the lowest-rank pair present (the leftmost of
        equal ranks), until none is (:mod:`.merge_queue`). The bytes need not be whole
        characters.

        >>> Tokenizer([(b"\\xe7", b"\\x8c")]).merge_bytes(b"\\xe7\\x8c\\xab")
        (256, 171)
        """
        if not isinstance(data, bytes):
            raise TypeError(f"data must be bytes, got {type(data).__name__}")
        return _merge_word_symbols(self._byte_symbols(data), self._ranks)

    def _byte_symbols(self, data: bytes) -> list[int]:
        """The ID of each byte of ``data``; the first byte without one is refused by name."""
        self._check_bytes(data)
        return list(data) if self._byte_ids is None else [self._byte_ids[b] for b in data]

    def _check_bytes(self, data: bytes) -> None:
        """Refuse, naming it, the first byte of ``data`` that has no ID."""
        if self._lacks_bytes and len(data.translate(None, self._missing)) != len(data):
            at = next(k for k, b in enumerate(data) if self._byte_ids[b] is None)
            raise ValueError(_missing_byte_error(data, at))

    def _char(self, code: int) -> tuple:
        """One character merged alone, cached under its code point: ``(tokens, highest rank
        merged, first byte, last byte << 8, byte IDs)`` (what :func:`.merge_queue._start_symbols` reads)."""
        data = chr(code).encode("utf-8")
        raw = tuple(data) if self._byte_ids is None else tuple(map(self._byte_ids.__getitem__, data))
        tokens, top = _rescan(raw, self._ranks) if len(raw) > 1 else (raw, -1)
        self._cache[code] = info = (tokens, top, data[0], data[-1] << 8, raw)
        return info

    def _merge_word(self, word: str, data: bytes, use_cache: bool) -> tuple[int, ...]:
        """A word's IDs: the queue started from its characters merged alone where that
        changes nothing (with the cache; without it, from the bytes)."""
        if not use_cache or len(data) == len(word):  # no cache, or ASCII: start from the bytes
            return _merge_word_symbols(self._byte_symbols(data), self._ranks)
        self._check_bytes(data)
        get, char = self._cache.get, self._char
        chars = [get(code) or char(code) for code in map(ord, word)]
        return _merge_word_symbols(_start_symbols(chars, self._junctions), self._ranks)

    def encode_word(self, word: str, *, use_cache: bool = True) -> tuple[int, ...]:
        """One pre-tokenised word → IDs, merging the lowest-rank pair first.

        >>> tok = Tokenizer([(b"e", b"r"), (b"w", b"er")])
        >>> tok.encode_word("wer"), tok.vocab[257]
        ((257,), b'wer')
        """
        if use_cache:
            hit = self._cache.get(word)
            if hit is not None:
                return hit
        data = word.encode("utf-8")
        whole = self._ids.get(data) if self.ignore_merges else None
        ids = (whole,) if whole is not None else self._merge_word(word, data, use_cache)
        if use_cache:
            self._cache[word] = ids
        return ids

    def encode_ordinary(self, text: str, *, use_cache: bool = True) -> list[int]:
        """Encode ``text`` with every character treated as ordinary text (no special
        tokens are recognised at all).

        >>> Tokenizer([]).encode_ordinary("hi")
        [104, 105]
        """
        text = check_text(text)
        if self.normalize is not None:  # Hugging Face's NFC normalizer, before the split
            text = unicodedata.normalize(self.normalize, text)
        if self.add_prefix_space and text and not text.startswith(" "):
            text = " " + text
        out: list[int] = []
        for word in self._split(text):
            out.extend(self.encode_word(word, use_cache=use_cache))
        return out

    def encode(self, text: str, *, allowed_special=frozenset(), disallowed_special="all",
               add_special_tokens: bool = True, use_cache: bool = True) -> list[int]:
        """Encode ``text`` (tiktoken's rules for special tokens), then wrap the IDs in the
        tokenizer's :attr:`template`, if it has one and ``add_special_tokens`` is true
        (Hugging Face's default; :meth:`encode_ordinary` never wraps).

        A special token's spelling becomes its ID only if it is in ``allowed_special``
        (a set of names, or ``"all"``). By default every other special token is
        *disallowed*: text that contains its spelling is refused, because user text must
        never turn into a protocol marker. Pass ``disallowed_special=()`` to encode such
        spellings as ordinary text instead.

        >>> tok = Tokenizer([]).with_special_tokens(["<|user|>"])
        >>> tok.encode("<|user|>", allowed_special={"<|user|>"})
        [256]
        >>> len(tok.encode("<|user|>", disallowed_special=()))
        8
        >>> tok.encode("<|user|>")
        Traceback (most recent call last):
        ...
        ValueError: text contains the special token '<|user|>' at index 0, which is disallowed; pass allowed_special={'<|user|>'} to encode it as the marker, or disallowed_special=() to encode it as ordinary text

        With a template that adds BOS, the marker comes first unless
        ``add_special_tokens=False``:

        >>> bos = Tokenizer([], ["<s>"], template=("<s>", "$A"))
        >>> bos.encode("hi"), bos.encode("hi", add_special_tokens=False), bos.encode_ordinary("hi")
        ([256, 104, 105], [104, 105], [104, 105])
        """
        text, wrap = check_text(text), check_flag("add_special_tokens", add_special_tokens)
        allowed, disallowed = special_sets(allowed_special, disallowed_special, self.special_tokens)
        refuse_disallowed(text, disallowed)  # user text never turns into a marker unasked
        ids: list[int] = []
        if allowed:  # cut at each allowed marker: its ID, and the text between as ordinary text
            markers, start = "|".join(map(regex.escape, sorted(allowed, key=len, reverse=True))), 0
            for m in regex.finditer(markers, text):
                ids += self.encode_ordinary(text[start:m.start()], use_cache=use_cache)
                ids.append(self.special_tokens[m.group()])
                start = m.end()
            text = text[start:]
        ids += self.encode_ordinary(text, use_cache=use_cache)
        if self.template is None or not wrap:
            return ids
        return [i for piece in self.template  # the post-processor: "$A" is the encoded text
                for i in (ids if piece == TEMPLATE_TEXT else [self.special_tokens[piece]])]

    # ---------------------------------------------------------------- decoding

    def token_bytes(self, token_id) -> bytes:
        """The bytes one ID stands for (a special token's spelling for a marker).

        >>> Tokenizer([]).token_bytes(0xE7)
        b'\\xe7'
        """
        token_id = as_int("token_id", token_id)
        if token_id in self.vocab:
            return self.vocab[token_id]
        if token_id in self._special_ids:
            return self._special_ids[token_id].encode("utf-8")
        raise ValueError(f"token_id {token_id} is not in this tokenizer (valid IDs are 0 to {self.n_vocab - 1})")

    def token_pieces(self, ids) -> list[bytes]:
        """The bytes of each ID, with an error that names the first bad ID's index.

        >>> Tokenizer([]).token_pieces([0xE7, 0x8C])
        [b'\\xe7', b'\\x8c']
        """
        if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
            raise TypeError(f"ids must be a sequence of integers, got {type(ids).__name__}")
        vocab, pieces = self.vocab, []
        for k, i in enumerate(ids):
            hit = vocab.get(i) if type(i) is int else None  # fast path: an ordinary ID
            if hit is not None:
                pieces.append(hit)
                continue
            try:
                pieces.append(self.token_bytes(i))
            except TypeError as err:
                raise TypeError(f"ids[{k}]: {err}") from None
            except ValueError as err:
                raise ValueError(f"ids[{k}]: {err}") from None
        return pieces

    def decode_bytes(self, ids) -> bytes:
        """The bytes of ``ids`` joined in order (no UTF-8 decoding yet).

        >>> Tokenizer([]).decode_bytes([0xE7, 0x8C])
        b'\\xe7\\x8c'
        """
        return b"".join(self.token_pieces(ids))

    def decode(self, ids, errors: str = "strict") -> str:
        """Join the tokens' bytes, then decode them as UTF-8.

        ``errors="strict"`` raises a ``ValueError`` naming the bytes that are not valid
        UTF-8 and where they sit; ``errors="replace"`` writes U+FFFD in their place.

        >>> tok = Tokenizer([])
        >>> tok.decode([0xE7, 0x8C, 0xAB])
        '猫'
        >>> tok.decode([0xE7, 0x8C], errors="replace")
        '�'
        >>> tok.decode([0xAB])
        Traceback (most recent call last):
        ...
        ValueError: bytes AB at byte 0 (token 0) are not valid UTF-8: invalid start byte; decode the tokens together with their neighbours, or pass errors='replace'
        """
        errors = check_errors(errors)
        pieces = self.token_pieces(ids)
        data = b"".join(pieces)
        if errors == "replace":
            return data.decode("utf-8", errors="replace")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise ValueError(utf8_error(pieces, err)) from None
