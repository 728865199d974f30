"""Lessons of chapter 02_utf8_splits: UTF-8 bytes, split characters, special tokens in
a chat, and what an ID and a vocabulary size mean.

The engine's algorithm is :mod:`tokenpath.bpe`; this module holds what the chapter
shows about it:

* :func:`utf8_trace`, each character and its bytes; :func:`decode_trace` and
  :func:`split_char`, a character split across two tokens and decoded each way
  (figure 1, bottom);
* :func:`render_chat`, a conversation rendered body by body with markers as IDs (the
  injection guard);
* :func:`id_collision` (figure 2, panel a) and :func:`vocab_growth` (figure 2, panel c);
* :func:`token_chips` and :func:`chips_text`, what the text box shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from .._checks import as_bool, as_int, as_list
from ..bpe import Tokenizer, check_text
from ..bpe.tokenizer import utf8_error
from .bpe import demo_tokenizer

__all__ = [
    "ChatTrace",
    "Chip",
    "DecodeTrace",
    "IdCollision",
    "SplitCharTrace",
    "Utf8Trace",
    "VocabGrowth",
    "chips_text",
    "decode_trace",
    "id_collision",
    "render_chat",
    "split_char",
    "token_chips",
    "utf8_trace",
    "vocab_growth",
]


# ------------------------------------------------------------------ UTF-8 lengths


@dataclass(frozen=True)
class Utf8Trace:
    """Each character of a text and its UTF-8 bytes."""

    text: str
    chars: tuple[str, ...]
    codes: tuple[bytes, ...]  # [n_chars]  the bytes of each character

    @property
    def n_bytes(self) -> int:
        return sum(len(c) for c in self.codes)

    def hex(self) -> str:
        """All bytes as upper-case hex pairs."""
        return b"".join(self.codes).hex(" ").upper()


def utf8_trace(text: str) -> Utf8Trace:
    """Split ``text`` into characters and their UTF-8 bytes.

    >>> t = utf8_trace("a猫"); t.hex(), t.n_bytes
    ('61 E7 8C AB', 4)
    """
    text = check_text(text)
    return Utf8Trace(text, tuple(text), tuple(c.encode("utf-8") for c in text))


# ------------------------------------------------------------ decoding, and a split character


@dataclass(frozen=True)
class DecodeTrace:
    """What decoding a list of IDs did: the bytes of each token, all of them joined,
    and the text (or the error) in each mode."""

    ids: tuple[int, ...]
    pieces: tuple[bytes, ...]  # [n_tokens]  the bytes each ID stands for
    joined: bytes  #                    the bytes concatenated in order
    strict: str | None  #               joined bytes decoded, or None if invalid UTF-8
    error: str | None  #                why strict decoding failed (the whole message)
    reason: str | None  #               UTF-8's short reason ("invalid start byte" …)
    replaced: str  #                    decoding with U+FFFD for invalid bytes


def decode_trace(tokenizer: Tokenizer, ids) -> DecodeTrace:
    """Decode ``ids`` both ways and keep every piece (figure 1, bottom).

    >>> t = decode_trace(Tokenizer([]), [0xE7, 0x8C])
    >>> t.joined.hex(" ").upper(), t.strict, t.replaced
    ('E7 8C', None, '�')
    """
    if not isinstance(tokenizer, Tokenizer):
        raise TypeError(f"tokenizer must be a Tokenizer, got {type(tokenizer).__name__}")
    pieces = tuple(tokenizer.token_pieces(ids))
    joined = b"".join(pieces)
    try:
        strict, error, reason = joined.decode("utf-8"), None, None
    except UnicodeDecodeError as err:
        strict, error, reason = None, utf8_error(pieces, err), err.reason
    return DecodeTrace(tuple(int(i) for i in ids), pieces, joined, strict, error, reason,
                       joined.decode("utf-8", errors="replace"))


def _tokens_for(tok: Tokenizer, data: bytes) -> list[int]:
    """The IDs of raw bytes (not necessarily whole characters) under ``tok``'s merges."""
    return list(tok.merge_bytes(data))


@dataclass(frozen=True)
class SplitCharTrace:
    """Figure 1, bottom: one character's bytes split over two tokens."""

    char: str
    code: bytes  #            all its UTF-8 bytes
    first: DecodeTrace  #     the first token decoded alone
    second: DecodeTrace  #    the second token decoded alone
    joined: DecodeTrace  #    both tokens decoded together


def split_char(char: str, at: int) -> SplitCharTrace:
    """Put the first ``at`` bytes of ``char`` in one token and the rest in a second,
    and decode each alone and both together.

    >>> t = split_char("猫", 2)
    >>> t.first.joined.hex(" ").upper(), t.second.joined.hex(" ").upper(), t.joined.strict
    ('E7 8C', 'AB', '猫')
    """
    char = check_text(char, "char")
    if len(char) != 1:
        raise ValueError(f"char must be one character, got {len(char)}: {char!r}")
    code = char.encode("utf-8")
    at = as_int("at", at, low=1, high=len(code) - 1) if len(code) > 1 else None
    if at is None:
        raise ValueError(f"char {char!r} is a single byte; it cannot be split")
    tok = Tokenizer([(code[:1], code[1:2])] if at == 2 else [])  # token 1 = first two bytes
    first = _tokens_for(tok, code[:at])
    second = _tokens_for(tok, code[at:])
    return SplitCharTrace(char, code, decode_trace(tok, first), decode_trace(tok, second),
                          decode_trace(tok, first + second))


# ------------------------------------------------------------------ chat template


@dataclass(frozen=True)
class ChatTrace:
    """A conversation rendered by :func:`render_chat`."""

    text: str  #                     the marked string, as a reader would see it
    ids: tuple[int, ...]  #          its IDs: markers as special IDs, bodies as ordinary text
    pieces: tuple[str, ...]  #       each ID's text (markers by name)
    marker_positions: tuple[int, ...]  # indices into ids that are special tokens


def render_chat(tokenizer: Tokenizer, messages: Sequence[Mapping[str, str]], *,
                add_generation_prompt: bool = False, end: str = "<|end|>") -> ChatTrace:
    """Render messages as ``<|role|>`` + body + ``<|end|>``, and encode them.

    Markers are inserted by the template as special IDs; message bodies are always
    encoded as ordinary text, so a body that spells a marker stays text (the injection
    guard).

    >>> tok = Tokenizer([]).with_special_tokens(["<|user|>", "<|assistant|>", "<|end|>"])
    >>> t = render_chat(tok, [{"role": "user", "content": "hi"}])
    >>> t.text, t.ids
    ('<|user|>hi<|end|>', (256, 104, 105, 258))
    """
    if not isinstance(tokenizer, Tokenizer):
        raise TypeError(f"tokenizer must be a Tokenizer, got {type(tokenizer).__name__}")
    if isinstance(messages, (str, Mapping)):
        raise TypeError("messages must be a list of {'role': …, 'content': …} dicts")
    messages = as_list("messages", messages, "{'role': …, 'content': …} dicts")
    add_generation_prompt = as_bool("add_generation_prompt", add_generation_prompt)
    if not isinstance(end, str):
        raise TypeError(f"end must be a special token's name, got {type(end).__name__}")
    if end not in tokenizer.special_tokens:
        raise ValueError(f"end marker {end!r} is not a special token of this tokenizer")
    text, ids, pieces, markers = [], [], [], []

    def marker(name):
        markers.append(len(ids))
        ids.append(tokenizer.special_tokens[name])
        pieces.append(name)
        text.append(name)

    for k, msg in enumerate(messages):
        if not isinstance(msg, Mapping) or set(msg) != {"role", "content"}:
            raise TypeError(f"messages[{k}] must be a dict with exactly 'role' and 'content'")
        role, body = msg["role"], check_text(msg["content"], f"messages[{k}]['content']")
        name = f"<|{role}|>"
        if name not in tokenizer.special_tokens:
            raise ValueError(f"messages[{k}] has role {role!r}, but {name!r} is not a special token of this tokenizer")
        marker(name)
        body_ids = tokenizer.encode_ordinary(body)
        ids.extend(body_ids)
        pieces.extend(tokenizer.decode_bytes([i]).decode("utf-8", errors="replace") for i in body_ids)
        text.append(body)
        marker(end)
    if add_generation_prompt:
        marker("<|assistant|>")
    return ChatTrace("".join(text), tuple(ids), tuple(pieces), tuple(markers))


# ------------------------------------------------------------------- what an ID means


@dataclass(frozen=True)
class IdCollision:
    """Figure 2: one ID, two vocabularies, one embedding row."""

    token_id: int
    token_a: str  #                 what ID means in vocabulary A
    token_b: str  #                 what it means in vocabulary B
    row: tuple[float, ...]  #       the embedding row both read


def id_collision(token_id: int, vocab_a: Mapping[int, str], vocab_b: Mapping[int, str],
                 rows: Mapping[int, Sequence[float]]) -> IdCollision:
    """The row an ID reads does not depend on which tokenizer produced the ID.

    >>> id_collision(1, {1: "猫"}, {1: "return"}, {1: (0.5, 0.1)}).row
    (0.5, 0.1)
    """
    token_id = as_int("token_id", token_id, low=0)
    for name, table in (("vocab_a", vocab_a), ("vocab_b", vocab_b), ("rows", rows)):
        if not isinstance(table, Mapping) or token_id not in table:
            raise ValueError(f"{name} must map ID {token_id} to an entry")
    return IdCollision(token_id, vocab_a[token_id], vocab_b[token_id], tuple(float(x) for x in rows[token_id]))


# ------------------------------------------------------------------- vocabulary size


@dataclass(frozen=True)
class VocabGrowth:
    """What a bigger vocabulary costs at a fixed width: rows of the embedding (and of
    the LM head) grow with the vocabulary."""

    old: int
    new: int
    width: int
    added_rows: int
    added_per_matrix: int  # added_rows × width


def vocab_growth(old: int, new: int, width: int) -> VocabGrowth:
    """Parameters added to one [vocab, width] matrix when the vocabulary grows.

    >>> vocab_growth(32 * 1024, 128 * 1024, 4096).added_per_matrix
    402653184
    """
    old = as_int("old", old, low=1)
    new = as_int("new", new, low=old)
    width = as_int("width", width, low=1)
    return VocabGrowth(old, new, width, new - old, (new - old) * width)


# ------------------------------------------------------------------- the text box


@dataclass(frozen=True)
class Chip:
    """One token as the text box shows it."""

    token_id: int
    data: bytes  #     its bytes
    text: str  #       its bytes decoded for display (U+FFFD where a character is split)
    special: bool


def token_chips(text: str, tokenizer: Tokenizer | None = None, *, allowed_special=frozenset()) -> tuple[Chip, ...]:
    """Encode ``text`` and describe every token: ID, bytes and printable text.
    Marker spellings are ordinary text unless ``allowed_special`` names them.

    >>> [(c.data.hex(), c.text) for c in token_chips("猫", Tokenizer([(b"\\xe7", b"\\x8c")]))]
    [('e78c', '�'), ('ab', '�')]
    """
    tok = demo_tokenizer() if tokenizer is None else tokenizer
    if not isinstance(tok, Tokenizer):
        raise TypeError(f"tokenizer must be a Tokenizer, got {type(tok).__name__}")
    ids = tok.encode(text, allowed_special=allowed_special, disallowed_special=())
    out = []
    for i in ids:
        data = tok.token_bytes(i)
        out.append(Chip(i, data, data.decode("utf-8", errors="replace"), i in tok.special_tokens.values()))
    return tuple(out)


def chips_text(chips: Sequence[Chip]) -> str:
    """One line per token: ID, its text (repr, so spaces show) and its bytes in hex.

    >>> print(chips_text(token_chips("猫", Tokenizer([]))))
    231  '\ufffd'  E7
    140  '\ufffd'  8C
    171  '\ufffd'  AB
    """
    chips = as_list("chips", chips, "Chip objects (from token_chips)")
    for k, c in enumerate(chips):
        if not isinstance(c, Chip):
            raise TypeError(f"chips[{k}] must be a Chip (from token_chips), got {type(c).__name__}")
    return "\n".join(f"{c.token_id:>3}  {c.text!r:<14}  {c.data.hex(' ').upper()}" for c in chips)

