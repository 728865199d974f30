"""The capstone's last check: the reader's ``encode`` and ``decode`` against SmolLM2's own
tokenizer (the engine's, read from the GGUF file and cross-checked against Hugging
Face ``tokenizers`` in the tests) on 1,000 lines of text.

* :func:`capstone_lines`, the lines: first every line of the book's own teaching
  strings (:mod:`tokenpath.examples.bpe`: Chinese, emoji, chat markers), the lines of the
  package's own ``.py`` files that hold Chinese (translated labels, examples), then lines of
  the interpreter's standard library ``.py`` files (:func:`tokenpath.corpus.corpus_files`,
  sorted; code, docstrings and comments in English, digits), each stripped and cut to
  :data:`WIDTH` characters, without control characters and repeats;
* :func:`smollm2_parts`, SmolLM2's merges, token IDs, vocabulary and pattern as the
  reader's functions take them (None without the file);
* :func:`match_smollm2`, the comparison: at the first line that differs, the line, the
  token position, the expected and got tokens and the likely cause (the pattern, the
  merge rank, the byte mapping, special tokens).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import regex

from .. import pretrained
from ..bpe import GPT2_PATTERN, bytes_to_unicode
from ..corpus import corpus_files
from ..examples import bpe as ex
from ..i18n import N_, _
from ._running import run
from .capstone import SMOLLM_PATTERN, as_gguf_strings

__all__ = ["N_LINES", "WIDTH", "MatchResult", "SmolLM2Parts", "capstone_lines", "match_smollm2", "smollm2_parts"]

#: How many lines the capstone compares, and the most characters a line keeps.
N_LINES, WIDTH = 1000, 80
#: Lines taken from one standard-library file, at most (so the lines span many files).
PER_FILE = 3
#: The reader's encode and decode together may take this long over all the lines.
SECONDS = 120.0


def _teaching_strings() -> list[str]:
    out = []
    for name in sorted(vars(ex)):
        value = getattr(ex, name)
        items = value.items() if isinstance(value, dict) else [value]
        for item in items:
            for v in (item if isinstance(item, tuple) else (item,)):
                if isinstance(v, str):
                    out.append(v)
    return out


@functools.cache
def capstone_lines() -> tuple[str, ...]:
    """The capstone's :data:`N_LINES` lines (see the module's docstring), the same for
    the same interpreter and package.

    >>> lines = capstone_lines()
    >>> len(lines), max(map(len, lines)) <= WIDTH
    (1000, True)
    >>> any("猫" in s for s in lines), any(c.isdigit() for s in lines for c in s)
    (True, True)
    """
    n, out, seen = N_LINES, [], set()

    def add(line: str) -> None:
        line = line.strip()[:WIDTH].rstrip()
        if line and line not in seen and all(c >= " " and c != "\x7f" for c in line) and len(out) < n:
            seen.add(line)
            out.append(line)

    for s in _teaching_strings():
        for line in s.splitlines():
            add(line)
    package = Path(__file__).resolve().parents[1]
    for path in sorted(package.rglob("*.py")):  # the package's own lines in Chinese
        for line in path.read_text(encoding="utf-8").splitlines():
            if regex.search(r"\p{Han}", line):
                add(line)
    for path in corpus_files():
        if len(out) >= n:
            break
        lines = [s for s in path.read_text(encoding="utf-8", errors="replace").splitlines() if len(s.strip()) > 12]
        for line in lines[::max(1, len(lines) // PER_FILE)][:PER_FILE]:
            add(line)
    return tuple(out)


@dataclass(frozen=True)
class SmolLM2Parts:
    """What the reader's functions take, as SmolLM2's GGUF file stores it."""

    merges: dict  # (left, right) -> rank, 48,900 of them, rank 0 first
    token_id: dict  # token string -> ID (ordinary tokens)
    vocab: list  # token string of each ID (special tokens under their spelling)
    pattern: list  # the regexes applied in turn: each digit alone, then GPT-2's pattern


def _tokenizer():
    from ..lessons.real_vocab import smollm2_tokenizer
    return smollm2_tokenizer()


@functools.cache
def _parts() -> SmolLM2Parts:
    merges, token_id, vocab = as_gguf_strings(_tokenizer())
    return SmolLM2Parts(merges, token_id, vocab, list(SMOLLM_PATTERN))


def smollm2_parts() -> SmolLM2Parts | None:
    """SmolLM2's merges, token IDs, vocabulary and pre-tokenizer pattern, read from its
    GGUF file; None, with a one-line message, when the file is missing.

    >>> parts = smollm2_parts()
    >>> len(parts.merges), parts.vocab[parts.token_id["Ġthe"]]
    (48900, 'Ġthe')
    """
    try:
        pretrained.smollm2_path()
    except FileNotFoundError:
        print(_("SmolLM2's file is missing: {how}, then run this cell again.").format(how=pretrained.HOW_TO_FETCH))
        return None
    return _parts()


@functools.cache
def _expected() -> tuple[tuple[int, ...], ...]:
    tok = _tokenizer()
    return tuple(tuple(tok.encode_ordinary(line)) for line in capstone_lines())


@dataclass(frozen=True)
class MatchResult:
    """The verdict of :func:`match_smollm2`: ``.passed`` and the message (its ``str()``)."""

    passed: bool
    message: str
    line: int = -1  # the first line that differs (0-based), -1 when none
    cause: str = ""  # "pattern", "merge rank", "byte mapping", "special tokens", "decode", "raised", ""

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return self.message


#: How a message names each cause (``MatchResult.cause`` keeps the English key).
CAUSES = {"pattern": N_("pattern"), "merge rank": N_("merge rank"), "byte mapping": N_("byte mapping"),
          "special tokens": N_("special tokens"), "decode": N_("decode"), "raised": N_("raised")}


def _loop(encode, decode, parts, lines):
    """Run the reader's functions line by line; stop at the first exception, keeping which line."""
    got, texts = [], []
    for k, line in enumerate(lines):
        try:
            got.append(encode(line, parts.merges, parts.token_id, parts.pattern))
        except Exception as err:  # the reader's code: reported, never raised
            return got, texts, (k, "encode", err)
    expected = _expected()
    for k, ids in enumerate(expected):
        try:
            texts.append(decode(list(ids), parts.vocab))
        except Exception as err:
            return got, texts, (k, "decode", err)
    return got, texts, None


def _shown(parts, ids) -> list[str]:
    return [parts.vocab[i] if isinstance(i, int) and 0 <= i < len(parts.vocab) else repr(i) for i in ids]


def _pieces(line: str) -> list[str]:
    pieces = [line]
    for p in SMOLLM_PATTERN:
        pieces = [w for piece in pieces for w in regex.findall(p, piece)]
    return pieces


def _cause(line: str, expected: list[int], got: list, parts: SmolLM2Parts) -> tuple[str, str]:
    """The likely cause of a line's difference, and one sentence on it."""
    tok = _tokenizer()
    if any(i in tok.special_tokens.values() for i in got):
        return "special tokens", _("Your IDs hold a special token, but the line is ordinary text: "
                                   "encode it with the merges alone.")
    if not all(isinstance(i, int) and i in tok.vocab for i in got):
        return "byte mapping", _("Some of your IDs are not tokens of the vocabulary.")
    spelled = b"".join(tok.vocab[i] for i in got)
    if spelled != line.encode("utf-8"):
        if len(spelled) < len(line.encode("utf-8")):
            return "pattern", _("Your tokens spell fewer bytes than the line: your patterns' pieces do not cover "
                                "the whole line (regex.findall keeps only what the pattern matches).")
        return "byte mapping", _("Your tokens spell other bytes than the line: the table from bytes to symbols "
                                 "differs from GPT-2's bytes_to_unicode().")
    for name, stages in ((N_("GPT-2's pattern alone, or GPT-2's pattern before the digits' (digits not cut alone "
                             "first)"), [GPT2_PATTERN]),
                         (N_("no pre-tokenisation"), [])):
        if _with_stages(tok, line, stages) == list(got):
            return "pattern", _("The pieces differ before merging: your IDs are what {name} gives. SmolLM2 cuts "
                                "every digit alone, then applies GPT-2's pattern to each piece.").format(name=_(name))
    cuts, at = set(), 0
    for piece in _pieces(line):
        at += len(piece.encode("utf-8"))
        cuts.add(at)
    ends, at = set(), 0
    for i in got:
        at += len(tok.vocab[i])
        ends.add(at)
    if not cuts <= ends:
        return "pattern", _("The pieces differ before merging: one of your tokens runs across two pieces of the "
                            "pre-tokenizer (each digit alone, then GPT-2's pattern).")
    at = _first_difference(expected, got)
    made = _made_by()
    said = [_("{token} is {how}").format(token=repr(s), how=_how(made, s))
            for s in dict.fromkeys(_shown(parts, [expected[at], got[at]]))]
    return "merge rank", _("Same pieces, different merges: the lowest-rank pair present must merge first "
                           "(the leftmost of equal ranks), and ranks come from the file's order. {said}.").format(
        said=_("; ").join(said))


@functools.cache
def _made_by() -> dict:
    """SmolLM2's token string -> (rank, left, right) of the merge that makes it."""
    return {a + b: (r, a, b) for (a, b), r in _parts().merges.items()}


def _how(made: dict, token: str) -> str:
    if token not in made:
        return _("a single byte")
    r, a, b = made[token]
    return _("made by merge rank {rank} ({left} + {right})").format(rank=f"{r:,}", left=repr(a), right=repr(b))


def _with_stages(tok, line: str, stages: list[str]) -> list[int]:
    pieces = [line]
    for p in stages:
        pieces = [w for piece in pieces for w in regex.findall(p, piece)]
    return [i for piece in pieces for i in tok.merge_bytes(piece.encode("utf-8"))]


def _first_difference(expected, got) -> int:
    return next((k for k, (e, g) in enumerate(zip(expected, got)) if e != g), min(len(expected), len(got)))


def match_smollm2(encode, decode) -> MatchResult | None:
    """Run the reader's ``encode(text, merges, token_id, pattern)`` and ``decode(ids,
    vocab)`` over :func:`capstone_lines` against SmolLM2's tokenizer; None (with the
    one-line message of :func:`smollm2_parts`) when the file is missing.

    >>> from tokenpath.exercises.capstone import encode, decode
    >>> print(str(match_smollm2(encode, decode)).split(" (")[0])
    Passed: your encode gives SmolLM2's IDs on all 1,000 lines
    >>> match_smollm2(encode, "decode")
    Traceback (most recent call last):
    ...
    TypeError: decode must be your function decode(ids, vocab), got str
    """
    for name, fn, args in (("encode", encode, "text, merges, token_id, pattern"), ("decode", decode, "ids, vocab")):
        if not callable(fn):
            raise TypeError(f"{name} must be your function {name}({args}), got {type(fn).__name__}")
    parts = smollm2_parts()
    if parts is None:
        return None
    lines = capstone_lines()
    out = run(_loop, (encode, decode, parts, lines), seconds=SECONDS)
    if out.status != "returned":
        return MatchResult(False, _("Your functions did not finish the {n} lines: {error}").format(
            n=f"{len(lines):,}", error=out.error), cause="raised")
    got, texts, error = out.value
    for name, first in (("encode", got[:1]), ("decode", texts[:1])):
        if first and (first[0] is None or first[0] is Ellipsis):
            return MatchResult(False, _("[not written yet] Your {name} returns {value}. Write its body, run its "
                                        "cell, then run this one again.").format(name=name, value=repr(first[0])),
                               cause="not written yet")
    expected = _expected()
    names = {"encode": "encode", "decode": "decode"}
    for k, (e, g) in enumerate(zip(expected, got)):
        g_list = list(g) if isinstance(g, (list, tuple)) else g
        if g_list != list(e):
            line = lines[k]
            if not isinstance(g_list, list):
                return MatchResult(False, _("Line {n} ({line}): your encode returned a {type}, not a list of "
                                            "IDs.").format(n=k + 1, line=repr(line), type=type(g).__name__), k, "raised")
            at = _first_difference(e, g_list)
            cause, why = _cause(line, list(e), g_list, parts)
            return MatchResult(False, (
                _("Line {n} of {total} differs: {line}").format(n=k + 1, total=f"{len(lines):,}", line=repr(line))
                + "\n" + _("At token {at}: expected {expected}, got {got}.").format(
                    at=at + 1, expected=_shown(parts, e[at:at + 3]), got=_shown(parts, g_list[at:at + 3]))
                + "\n" + _("Likely cause, {cause}: {why}").format(cause=_(CAUSES[cause]), why=why)), k, cause)
    if error is not None:
        k, which, err = error
        key = err.args[0] if isinstance(err, KeyError) and err.args else None
        cause, why = "raised", ""
        if which == "encode" and isinstance(key, str) and any(c not in parts.token_id for c in key) \
                and not all(c in set(bytes_to_unicode().values()) for c in key):
            cause, why = "byte mapping", " " + _("{key} is not written in GPT-2's characters: map every byte with "
                                                 "bytes_to_unicode() before merging (a space is 'Ġ').").format(key=repr(key))
        elif which == "decode" and isinstance(key, str) and len(key) == 1:
            cause, why = "byte mapping", " " + _("{key} is a token's character: map the characters back to bytes "
                                                 "with the inverse of bytes_to_unicode(), then decode.").format(key=repr(key))
        return MatchResult(False, _("Line {n} ({line}): your {name} raised {error}: {message}.{why}").format(
            n=k + 1, line=repr(lines[k]), name=names[which], error=type(err).__name__, message=err,
            why=why).replace("..", "."), k, cause)
    for k, (line, text) in enumerate(zip(lines, texts)):
        if text != line:
            hint = (" " + _("Your text holds GPT-2's characters ('Ġ' for a space): map them back to bytes first.")
                    if isinstance(text, str) and "Ġ" in text else "")
            cause = "byte mapping" if hint else "decode"
            return MatchResult(False, _("Line {n}: your decode of SmolLM2's IDs gave {text}, expected "
                                        "{line}.").format(n=k + 1, text=repr(text), line=repr(line)) + hint, k, cause)
    return MatchResult(True, _("Passed: your encode gives SmolLM2's IDs on all {n} lines "
                               "({tokens} tokens), and your decode gives every line back.").format(
        n=f"{len(lines):,}", tokens=f"{sum(map(len, expected)):,}"))
