"""Follow your own line (chapter 11): one line of Python that a reader types, run once
through the book's trained model, and everything a reader is shown about it kept in a
small frozen :class:`LineTrace`.

For a line of ``T`` tokens with IDs ``x_0 … x_{T-1}`` the model's forward pass gives
logits ``z_t [V]`` at every position ``t``: its scores for the token *after* ``t``.

* **surprisal** of token ``t ≥ 1``: ``−ln softmax(z_{t−1})[x_t]``, in nats, the loss the
  model pays for that token (chapter 11's training loss, token by token). The first
  token has none: nothing before it predicts it (stored as NaN).
* **top next tokens** at ``t``: the ``top`` IDs of largest ``softmax(z_t)``, best first
  (ties: the lower ID first).
* **routes**: in every layer the experts each token ran, best router score first, and
  their gates (chapter 9's in-set softmax; they sum to 1 per token).
* **attention**: every layer's and head's causal softmax weights ``[L, H, T, T]``;
  row ``t`` (the query) is over sources ``j ≤ t`` (the last axis) and sums to 1.

The line is checked before the model sees it (:func:`check_line`): a ``str``, one line,
no control characters but the tab, UTF-8-encodable, at most :func:`max_tokens` tokens.
Each distinct line runs forward once (:func:`line_trace` keeps the last few), so a
widget that moves only its position, layer or head does no forward pass.

Pure NumPy, through the public names of :mod:`tokenpath.model` and
:mod:`tokenpath.trained`; any Mixtral-layout folder works, its shapes read from its
config.
"""

from __future__ import annotations

import functools
import math
import unicodedata
from dataclasses import dataclass

import numpy as np

from ._checks import as_int
from .i18n import _
from .examples import trained as ex

__all__ = ["LineTrace", "check_line", "line_trace", "max_tokens", "token_pieces"]

#: Distinct lines whose traces :func:`line_trace` keeps (a reader's last few edits).
CACHED_LINES = 16


@dataclass(frozen=True)
class LineTrace:
    """One line through the model: its tokens and what the model made of each.

    Axes: ``t`` = position in the line (the query, for attention), ``j`` = source
    position, ``l`` = layer, ``h`` = query head, ``c`` = candidate rank."""

    line: str  # the line as typed
    ids: np.ndarray  # [T] token IDs
    pieces: tuple[str, ...]  # [T] each token's text (U+FFFD where a token holds part of a character)
    surprisal: np.ndarray  # [T] nats, −ln p(x_t | x_<t); NaN at t = 0 (nothing predicts it)
    top_ids: np.ndarray  # [T, top] most likely IDs of the token after t, best first
    top_pieces: tuple[tuple[str, ...], ...]  # [T][top] their texts
    top_probs: np.ndarray  # [T, top] their probabilities softmax(z_t)
    experts: np.ndarray  # [L, T, k] experts each token ran in each layer, best score first (k = 0: dense)
    gates: np.ndarray  # [L, T, k] their gates, in the same order; sum to 1 over k
    attention: np.ndarray  # [L, H, T, T] causal softmax over sources j (last axis) for query t

    @property
    def tokens(self) -> int:
        """T, the number of tokens."""
        return int(self.ids.size)

    @property
    def layers(self) -> int:
        return int(self.attention.shape[0])

    @property
    def heads(self) -> int:
        return int(self.attention.shape[1])

    @property
    def mean_surprisal(self) -> float | None:
        """Mean surprisal over tokens 1 … T−1 (the line's loss); None for one token."""
        return None if self.tokens < 2 else float(np.mean(self.surprisal[1:]))

    def position(self, position) -> int:
        """``position`` checked against the line: an int in ``[0, T−1]``."""
        return as_int("position", position, low=0, high=self.tokens - 1)

    def attention_row(self, layer, head, position) -> np.ndarray:
        """``[position + 1]`` the weights query ``position`` of head ``head`` in layer
        ``layer`` puts on sources ``0 … position`` (the causal part of its row)."""
        layer = as_int("layer", layer, low=0, high=self.layers - 1)
        head = as_int("head", head, low=0, high=self.heads - 1)
        t = self.position(position)
        return self.attention[layer, head, t, : t + 1]


def max_tokens(model) -> int:
    """The longest line :func:`line_trace` runs: :data:`~tokenpath.examples.trained.OWNLINE_MAX_TOKENS`,
    or the model's context (``max_position_embeddings``) if shorter."""
    _check_model(model)
    return min(ex.OWNLINE_MAX_TOKENS, int(model.config.max_position_embeddings))


def _check_model(model) -> None:
    from .model import Model

    if not isinstance(model, Model):
        raise TypeError(f"model must be a tokenpath.model.Model, got {type(model).__name__}")
    if model.tokenizer is None:
        raise ValueError("model must have a tokenizer (a folder with tokenizer.json) to read a typed line")


def token_pieces(model) -> tuple[str, ...]:
    """The text of every ID of ``model``'s tokenizer, decoded alone (U+FFFD for bytes
    that are only part of a character); computed once per model."""
    _check_model(model)
    return _token_pieces(model)


@functools.lru_cache(maxsize=4)
def _token_pieces(model) -> tuple[str, ...]:
    tok = model.tokenizer
    return tuple(tok.decode([i], errors="replace") for i in range(tok.n_vocab))


@functools.lru_cache(maxsize=4)
def _longest_token(model) -> int:
    """Most UTF-8 bytes one token of ``model``'s tokenizer covers."""
    tok = model.tokenizer
    return max(len(tok.token_bytes(i)) for i in range(tok.n_vocab))


def _describe_char(c: str) -> str:
    name = unicodedata.name(c, "")
    return f"U+{ord(c):04X}" + (f" {name}" if name else "")


def check_line(line) -> str:
    """``line`` if it is one line the model can read (its length aside: :func:`line_trace`
    checks that against the model), else a ``TypeError``/``ValueError`` that says what is
    wrong with it.

    >>> check_line("x = 1")
    'x = 1'
    >>> check_line("x = 1\\ny = 2")
    Traceback (most recent call last):
    ...
    ValueError: line must be one line, but it has a line break (U+000A) at index 5
    """
    if not isinstance(line, str):
        raise TypeError(f"line must be a str (one line of text), got {type(line).__name__}")
    if not line:
        raise ValueError(_("line is empty: type one line of text"))
    try:
        line.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ValueError(_("line holds a lone surrogate {code} at index {index}: it has no UTF-8 bytes, so it cannot "
                           "be tokenized").format(code=f"U+{ord(line[err.start]):04X}", index=err.start)) from None
    for i, c in enumerate(line):
        cat = unicodedata.category(c)
        if c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029":
            raise ValueError(_("line must be one line, but it has a line break ({code}) at index {index}").format(
                code=f"U+{ord(c):04X}", index=i))
        if cat == "Cc" and c != "\t":
            raise ValueError(_("line holds the control character {char} at index {index}; only printable text and "
                               "tabs can be followed").format(char=_describe_char(c), index=i))
    return line


def line_trace(line, model=None, *, folder=None, top: int = ex.OWNLINE_TOP) -> LineTrace:
    """Run ``line`` through ``model`` (default: the model of ``folder``, the
    committed one by default) once, and keep what chapter 11's widget shows.

    >>> tr = line_trace("def f(x):")
    >>> "".join(tr.pieces), tr.surprisal.shape == tr.ids.shape, bool(np.isnan(tr.surprisal[0]))
    ('def f(x):', True, True)
    >>> np.allclose(tr.attention.sum(axis=-1), 1.0)
    True
    """
    from . import model as M
    from . import trained as T

    if model is None:
        model = T.committed_model(folder)
    elif not isinstance(model, M.Model):
        raise TypeError(f"model must be None or a tokenpath.model.Model, got {type(model).__name__}")
    elif folder is not None:
        raise TypeError("give the model or its folder, not both")
    if model.tokenizer is None:
        raise ValueError("model must have a tokenizer (a folder with tokenizer.json) to read a typed line")
    top = as_int("top", top, low=1, high=model.config.vocab_size)
    limit = max_tokens(model)
    line = check_line(line)
    n_bytes = len(line.encode("utf-8"))
    at_least = math.ceil(n_bytes / _longest_token(model))
    if at_least > limit:
        raise ValueError(_("line is too long: at most {limit} tokens, and its {n_bytes} UTF-8 bytes make at least "
                           "{at_least}").format(limit=limit, n_bytes=n_bytes, at_least=at_least))
    return _line_trace(model, line, top)


@functools.lru_cache(maxsize=CACHED_LINES)
def _line_trace(model, line: str, top: int) -> LineTrace:
    limit = max_tokens(model)
    ids = model.encode(line)
    if ids.size > limit:
        raise ValueError(_("line is too long: at most {limit} tokens, and it has {n}").format(limit=limit, n=ids.size))
    trace = model.forward(ids)
    z = trace.logits  # [T, V]: row t scores the token after t
    z = z - z.max(axis=-1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))  # [T, V] log softmax
    surprisal = np.full(ids.size, np.nan)
    surprisal[1:] = -log_p[np.arange(ids.size - 1), ids[1:]]
    top_ids = np.argsort(-log_p, axis=-1, kind="stable")[:, :top]  # [T, top]
    top_probs = np.exp(np.take_along_axis(log_p, top_ids, axis=-1))
    names = token_pieces(model)
    pieces = tuple(names[i] if i < len(names) else "\ufffd" for i in ids)
    top_pieces = tuple(tuple(names[i] if i < len(names) else "\ufffd" for i in row) for row in top_ids)
    k = int(model.config.num_experts_per_tok) if model.config.n_experts else 0
    experts = np.zeros((len(trace.layers), ids.size, k), dtype=np.int64)
    gates = np.zeros((len(trace.layers), ids.size, k))
    for layer, lt in enumerate(trace.layers):
        if lt.moe is not None:
            experts[layer] = lt.chosen_experts[0]
            gates[layer] = lt.expert_gates[0]
    attention = np.stack([lt.weights[0] for lt in trace.layers])  # [L, H, T, T]
    ids = np.array(ids, dtype=np.int64)
    for a in (ids, surprisal, top_ids, top_probs, experts, gates, attention):
        a.setflags(write=False)
    return LineTrace(line, ids, pieces, surprisal, top_ids, top_pieces, top_probs, experts, gates, attention)
