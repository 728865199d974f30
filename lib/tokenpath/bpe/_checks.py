"""Input checks of the BPE engine, one small helper per kind of argument, so that each
core function opens with its checks in a line or two and then does its work.

Every helper returns the checked value (converted where that helps) or raises a
``TypeError``/``ValueError`` that names the argument and says what was expected.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from .._checks import as_int

#: The template piece that stands for the encoded text (Hugging Face's ``$A``).
TEMPLATE_TEXT = "$A"
#: The rules for breaking a tie between pairs of equal count (see :func:`tokenpath.bpe.train`).
TIE_BREAKS = ("smallest", "hf")


def check_text(text, name: str = "text") -> str:
    """Return ``text`` if it is a ``str`` that UTF-8 can encode, else raise naming ``name``.

    >>> check_text("猫")
    '猫'
    >>> check_text("a\\ud800")
    Traceback (most recent call last):
    ...
    ValueError: text holds a lone surrogate U+D800 at index 1; it has no UTF-8 bytes, so it cannot be tokenized
    """
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a str, got {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        bad = text[err.start]
        raise ValueError(
            f"{name} holds a lone surrogate U+{ord(bad):04X} at index {err.start}; "
            "it has no UTF-8 bytes, so it cannot be tokenized"
        ) from None
    return text


def check_name_list(name: str, names) -> list:
    """A list of special-token names, as a list (one string on its own is refused: it
    would otherwise be read as its characters); :func:`check_names` checks the items."""
    if isinstance(names, (str, bytes)) or not isinstance(names, Iterable):
        raise TypeError(f"{name} must be a list of names, "
                        f"got {'one string' if isinstance(names, str) else type(names).__name__}")
    return list(names)


def check_names(name: str, names) -> list[str]:
    """A list of special-token names: non-empty strings that UTF-8 can encode."""
    names = check_name_list(name, names)
    for k, item in enumerate(names):
        if not isinstance(item, str) or not item:
            raise TypeError(f"{name} must be non-empty strings, got {item!r}")
        check_text(item, f"{name}[{k}]")
    return names


def check_merges(merges, *, ordered: bool = True) -> list[tuple[bytes, bytes]]:
    """Merge rules in rank order: pairs of non-empty bytes, each part a byte or a token
    an earlier rule made (unless not ``ordered``: tiktoken's pairs, ranked by the token
    they make, may join a token made later)."""
    if isinstance(merges, (str, bytes)) or not isinstance(merges, Iterable):
        raise TypeError(f"merges must be a list of (bytes, bytes) pairs, got {type(merges).__name__}")
    merges = list(merges)
    known = {bytes([b]) for b in range(256)}
    for rank, pair in enumerate(merges):
        if not isinstance(pair, tuple) or len(pair) != 2 or not all(isinstance(p, bytes) and p for p in pair):
            raise TypeError(f"merges[{rank}] must be a pair of non-empty bytes, got {pair!r}")
        if ordered and (pair[0] not in known or pair[1] not in known):
            raise ValueError(f"merges[{rank}] = {pair!r} uses a token no earlier merge made")
        known.add(pair[0] + pair[1])
    return merges


def check_pattern(pattern) -> str | tuple[str, ...]:
    """A split pattern: one regex, or a non-empty sequence of regexes applied in turn
    (each cuts the pieces of the one before, as Hugging Face's ``Sequence`` of
    pre-tokenizers and llama.cpp's list of regexes do). Compiling is checked where the
    pattern is compiled (:func:`tokenpath.bpe.compile_pattern`)."""
    if isinstance(pattern, str):
        return pattern
    if isinstance(pattern, bytes) or not isinstance(pattern, Iterable):
        raise TypeError(f"pattern must be a str (a regex) or a sequence of them, got {type(pattern).__name__}")
    stages = tuple(pattern)
    if not stages or not all(isinstance(p, str) for p in stages):
        raise TypeError(f"pattern must be a str (a regex) or a non-empty sequence of str, got {short(stages)}")
    return stages


def short(value, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def check_chat_template(template) -> str | None:
    """A Jinja chat template (a string) or None."""
    if template is not None and not isinstance(template, str):
        raise TypeError(f"chat_template must be a str (a Jinja template) or None, got {type(template).__name__}")
    return template


#: The roles a special token can play, as Hugging Face names them (``bos`` → ``bos_token``).
ROLES = ("bos", "eos", "pad", "unk")


def check_roles(roles, special_tokens: Mapping[str, int]) -> dict[str, str]:
    """``roles`` (role → special token name, roles from :data:`ROLES`) as a dict."""
    if roles is None:
        return {}
    if not isinstance(roles, Mapping):
        raise TypeError(f"roles must be a mapping such as {{'eos': '<|end|>'}}, got {type(roles).__name__}")
    for role, name in roles.items():
        if role not in ROLES:
            raise ValueError(f"roles has the role {role!r}; the roles are {ROLES}")
        if name not in special_tokens:
            raise ValueError(f"roles[{role!r}] is {short(name)}, which is not a registered special token")
    return dict(roles)


def check_template(template, special_tokens: Mapping[str, int]) -> tuple[str, ...] | None:
    """``template`` as a tuple of pieces, each ``"$A"`` (exactly once) or a registered
    special token's name; ``None`` stays ``None``."""
    if template is None:
        return None
    if isinstance(template, (str, bytes)) or not isinstance(template, Iterable):
        raise TypeError("template must be a sequence of pieces such as ('<s>', '$A'), "
                        f"got {'one string' if isinstance(template, str) else type(template).__name__}")
    pieces = tuple(template)
    for k, piece in enumerate(pieces):
        if not isinstance(piece, str):
            raise TypeError(f"template[{k}] must be '$A' or a special token's name, got {type(piece).__name__}")
        if piece != TEMPLATE_TEXT and piece not in special_tokens:
            raise ValueError(f"template[{k}] is {piece!r}, which is not a registered special token "
                             f"(registered: {list(special_tokens)})")
    if pieces.count(TEMPLATE_TEXT) != 1:
        raise ValueError(f"template must hold '$A' (the encoded text) exactly once, got {pieces!r}")
    return pieces


def check_flag(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return value


def special_set(name: str, value, registered: Mapping[str, int]) -> set[str]:
    """``allowed_special`` or ``disallowed_special`` as a set of registered names
    (``"all"`` is every registered name)."""
    if isinstance(value, str) and value == "all":
        return set(registered)
    if isinstance(value, str):
        raise TypeError(f"{name} must be a set of special-token names or 'all', got the string {value!r}")
    try:
        names = set(value)
    except TypeError:
        raise TypeError(f"{name} must be a set of special-token names or 'all', got {type(value).__name__}") from None
    unknown = sorted(n for n in names if n not in registered)
    if unknown:
        raise ValueError(f"{name} names unregistered special tokens {unknown}; registered: {sorted(registered)}")
    return names


def special_sets(allowed_special, disallowed_special, registered: Mapping[str, int]) -> tuple[set[str], set[str]]:
    """The names a text may spell as markers, and the names it must not spell at all
    (``disallowed_special="all"``: every registered name not allowed)."""
    allowed = special_set("allowed_special", allowed_special, registered)
    if isinstance(disallowed_special, str) and disallowed_special == "all":
        return allowed, set(registered) - allowed
    return allowed, special_set("disallowed_special", disallowed_special, registered)


def refuse_disallowed(text: str, disallowed: set[str]) -> None:
    """Raise if ``text`` spells any disallowed special token (the longest names first)."""
    for name in sorted(disallowed, key=len, reverse=True):
        at = text.find(name)
        if at >= 0:
            raise ValueError(
                f"text contains the special token {name!r} at index {at}, which is disallowed; "
                f"pass allowed_special={{{name!r}}} to encode it as the marker, "
                "or disallowed_special=() to encode it as ordinary text"
            )


def check_errors(errors) -> str:
    if errors not in ("strict", "replace"):
        raise ValueError(f"errors must be 'strict' or 'replace', got {errors!r}")
    return errors


def check_train_args(text, vocab_size, min_frequency, tie_break) -> tuple[str, int, int, str]:
    """The training arguments, checked: UTF-8-encodable text, a vocabulary of at least
    the 256 byte symbols, a positive minimum count and a known tie rule."""
    text = check_text(text)
    vocab_size = as_int("vocab_size", vocab_size)
    if vocab_size < 256:
        raise ValueError(f"vocab_size must be >= 256 (the byte symbols come first), got {vocab_size}")
    min_frequency = as_int("min_frequency", min_frequency, low=1)
    if not isinstance(tie_break, str) or tie_break not in TIE_BREAKS:
        raise ValueError(f"tie_break must be one of {TIE_BREAKS}, got {tie_break!r}")
    return text, vocab_size, min_frequency, tie_break
