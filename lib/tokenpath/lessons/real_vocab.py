"""The "In a real model" asides of chapters 01_bpe_merges and 02_utf8_splits: SmolLM2's
own tokenizer, read from the pretrained GGUF file, on the book's strings.

Everything here is the engine's tokenizer (:func:`tokenpath.model.tokenizer_from_gguf`)
built from the file's ``tokenizer.*`` metadata; this module only asks it questions:

* :func:`smollm2_tokenizer`, the file's tokenizer, built once;
* :func:`cut`, a text's tokens with the merge that built each of them;
* :func:`special_table`, the control tokens at the start of the vocabulary;
* :func:`chat_rendering`, one conversation rendered by the file's chat template;
* :func:`token_cost`, tokens per character and per UTF-8 byte of a text;
* :func:`missing_bytes`, the byte values that are not tokens of their own.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Sequence

from .. import chat_template, pretrained
from ..bpe import Tokenizer, check_text
from ..gguf_format import GGUFFile, read_gguf
from ..i18n import _
from ..model import tokenizer_from_gguf

__all__ = [
    "ChatRendering",
    "MissingBytes",
    "TokenCost",
    "TokenCut",
    "chat_rendering",
    "cut",
    "cuts",
    "missing_bytes",
    "smollm2_header",
    "smollm2_tokenizer",
    "special_table",
    "token_cost",
]


@functools.cache
def smollm2_header() -> GGUFFile:
    """The pretrained SmolLM2 file's header (metadata and tensor table), read once.

    >>> smollm2_header().metadata["tokenizer.ggml.pre"]
    'smollm'
    """
    return read_gguf(pretrained.smollm2_path())


@functools.cache
def smollm2_tokenizer() -> Tokenizer:
    """SmolLM2's tokenizer as its file describes it, built once.

    >>> smollm2_tokenizer().n_vocab
    49152
    """
    return tokenizer_from_gguf(smollm2_header().metadata)


def _encode(tok: Tokenizer, text: str, name: str = "text") -> list[int]:
    """``text`` encoded by ``tok`` as ordinary text; an encoding error names ``name``."""
    try:
        return tok.encode(text, disallowed_special=())
    except ValueError as err:
        raise ValueError(f"{name} cannot be encoded: {err}") from None


def _check_tokenizer(tokenizer) -> Tokenizer:
    if tokenizer is None:
        return smollm2_tokenizer()
    if not isinstance(tokenizer, Tokenizer):
        raise TypeError(f"tokenizer must be a tokenpath.bpe.Tokenizer or None, got {type(tokenizer).__name__}")
    return tokenizer


@functools.cache
def _built_by(tokenizer: Tokenizer) -> dict[bytes, tuple[int, bytes, bytes]]:
    """token bytes → (merge rank, left, right) of the merge that made it."""
    return {a + b: (rank, a, b) for rank, (a, b) in enumerate(tokenizer.merges)}


@dataclass(frozen=True)
class TokenCut:
    """A text's tokens, each with the merge that made it (None: a single byte)."""

    text: str
    ids: tuple[int, ...]  #                     [n_tokens]
    pieces: tuple[bytes, ...]  #                [n_tokens] each token's bytes
    merges: tuple[tuple[int, bytes, bytes] | None, ...]  # [n_tokens] (rank, left, right)

    def rows(self) -> list[str]:
        """One line per token: ID, bytes and the merge that made it (rank 0 is the first learned)."""
        out = []
        for i, piece, m in zip(self.ids, self.pieces, self.merges):
            made = (_("a single byte") if m is None
                    else _("merge rank {rank}: {left} + {right}").format(rank=f"{m[0]:,}", left=repr(m[1]),
                                                                         right=repr(m[2])))
            out.append(f"{i:>6}  {piece!r:<20} {made}")
        return out


def cut(text: str, tokenizer: Tokenizer | None = None) -> TokenCut:
    """``text`` encoded as ordinary text (a marker's spelling stays text), with the merge
    that built each token; ``tokenizer`` defaults to SmolLM2's.

    >>> from tokenpath.bpe import Tokenizer
    >>> c = cut(" low", Tokenizer([(b"l", b"o"), (b" ", b"lo"), (b" lo", b"w")]))
    >>> c.ids, c.merges[0][0]
    ((258,), 2)
    """
    text = check_text(text)
    tok = _check_tokenizer(tokenizer)
    ids = tuple(_encode(tok, text))
    pieces = tuple(tok.token_bytes(i) for i in ids)
    built = _built_by(tok)
    return TokenCut(text, ids, pieces, tuple(built.get(p) if len(p) > 1 else None for p in pieces))


def special_table(tokenizer: Tokenizer | None = None) -> tuple[tuple[int, str], ...]:
    """(ID, spelling) of every special token, in ID order.

    >>> from tokenpath.bpe import Tokenizer
    >>> special_table(Tokenizer([], ["<|end|>"]))
    ((256, '<|end|>'),)
    """
    tok = _check_tokenizer(tokenizer)
    return tuple(sorted((i, s) for s, i in tok.special_tokens.items()))


@dataclass(frozen=True)
class ChatRendering:
    """One conversation in a tokenizer's own chat template: the string and its IDs."""

    text: str  #                    what the template renders
    ids: tuple[int, ...]  #         that string encoded, every marker spelling parsed as its marker
    markers: tuple[int, ...]  #     positions of special tokens in ids


def chat_rendering(messages, tokenizer: Tokenizer | None = None, *, add_generation_prompt: bool = True) -> ChatRendering:
    """``messages`` rendered by the tokenizer's chat template and encoded as
    ``apply_chat_template(tokenize=True)`` does (:func:`tokenpath.chat_template.chat_ids`).

    >>> from tokenpath.bpe import Tokenizer
    >>> t = Tokenizer([], ["<u>", "<e>"], chat_template="{% for m in messages %}<u>{{ m.content }}<e>{% endfor %}")
    >>> chat_rendering([{"role": "user", "content": "hi"}], t).ids
    (256, 104, 105, 257)
    """
    tok = _check_tokenizer(tokenizer)
    ids = tuple(chat_template.chat_ids(tok, messages, add_generation_prompt=add_generation_prompt))
    text = chat_template.render_chat_template(tok.chat_template, messages, add_generation_prompt=add_generation_prompt,
                                              special_tokens=chat_template._context(tok))
    specials = set(tok.special_tokens.values())
    return ChatRendering(text, ids, tuple(k for k, i in enumerate(ids) if i in specials))


@dataclass(frozen=True)
class TokenCost:
    """What one text costs in a tokenizer: its characters, bytes and tokens."""

    text: str
    characters: int
    n_bytes: int  #     UTF-8
    tokens: int

    @property
    def per_character(self) -> float:
        return self.tokens / self.characters

    @property
    def per_byte(self) -> float:
        return self.tokens / self.n_bytes


def token_cost(text: str, tokenizer: Tokenizer | None = None) -> TokenCost:
    """Characters, UTF-8 bytes and tokens of ``text`` (encoded as ordinary text).

    >>> from tokenpath.bpe import Tokenizer
    >>> c = token_cost("猫 a", Tokenizer([]))
    >>> c.characters, c.n_bytes, c.tokens, round(c.per_byte, 2)
    (3, 5, 5, 1.0)
    """
    text = check_text(text)
    if not text:
        raise ValueError("text must not be empty: a cost per character needs at least one character")
    tok = _check_tokenizer(tokenizer)
    return TokenCost(text, len(text), len(text.encode("utf-8")), len(_encode(tok, text)))


def cuts(texts: Sequence[str], tokenizer: Tokenizer | None = None) -> tuple[TokenCut, ...]:
    """:func:`cut` of each text.

    >>> from tokenpath.bpe import Tokenizer
    >>> [c.ids for c in cuts(["a", "b"], Tokenizer([]))]
    [(97,), (98,)]
    """
    if isinstance(texts, str) or not isinstance(texts, Sequence):
        raise TypeError(f"texts must be a sequence of strings, got {type(texts).__name__}")
    return tuple(cut(check_text(t, f"texts[{k}]"), tokenizer) for k, t in enumerate(texts))


#: Bytes that no valid UTF-8 text contains (RFC 3629): C0, C1 and F5–FF.
_NEVER_IN_UTF8 = frozenset([0xC0, 0xC1, *range(0xF5, 0x100)])


@dataclass(frozen=True)
class MissingBytes:
    """The byte values a tokenizer has no single-byte token for."""

    present: int  #                  how many of the 256 bytes are tokens
    never_in_utf8: tuple[int, ...]  # missing bytes no valid UTF-8 text contains
    in_utf8: tuple[int, ...]  #       missing bytes that valid UTF-8 text can contain


def missing_bytes(tokenizer: Tokenizer | None = None) -> MissingBytes:
    """Which of the 256 byte values are not tokens of ``tokenizer`` (default SmolLM2's),
    split by whether valid UTF-8 can contain them.

    >>> from tokenpath.bpe import Tokenizer
    >>> m = missing_bytes(Tokenizer([], vocab={bytes([b]): b for b in range(255)}))
    >>> m.present, m.never_in_utf8, m.in_utf8
    (255, (255,), ())
    """
    tok = _check_tokenizer(tokenizer)
    have = {p[0] for p in tok.vocab.values() if len(p) == 1}
    gone = [b for b in range(256) if b not in have]
    return MissingBytes(len(have), tuple(b for b in gone if b in _NEVER_IN_UTF8),
                        tuple(b for b in gone if b not in _NEVER_IN_UTF8))
