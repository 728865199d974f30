"""Chapter 12's lessons: SmolLM2-135M-Instruct, the one pretrained model the book reads
(:mod:`tokenpath.pretrained`), run by the engine that ran the book's toy numbers.

* :func:`real_model`: the GGUF file loaded once per process (:func:`tokenpath.model.load`).
* :func:`file_summary`: what the file's header says, in a few lines (chapter 10 reads
  the format itself).
* :func:`chat_answer`: a chat prompt in the model's own template, answered greedily.
* :func:`next_token`: the next-token distribution after a prompt at a temperature,
  top-k and top-p (:func:`tokenpath.sampling.next_token_probs`, the filters
  :meth:`~tokenpath.model.Model.generate` samples with).
* :func:`logit_lens`: the final RMSNorm and the tied head applied to the residual stream
  after every layer (nostalgebraist, 2020): what the stream would predict if the model
  stopped there.

The heads and their ablation are in :mod:`tokenpath.lessons.real_model_heads`.
"""

from __future__ import annotations

import functools
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import norms
from .. import pretrained
from .._checks import as_float, as_float_array, as_int
from ..examples import real_model as ex
from ..gguf_format import read_gguf
from ..i18n import _
from ..model import Model, load
from ..sampling import next_token_probs
from ..trained.sampling import NextToken, _entropy, _top_and_cover

__all__ = ["ChatAnswer", "FileSummary", "LogitLens", "RealNextToken", "chat_answer", "file_summary", "lens_rows", "logit_lens",
           "next_token", "real_model"]


def real_model() -> Model:
    """SmolLM2-135M-Instruct from its Q4_1 GGUF file, loaded (dequantized to float32) once
    per process.

    It loads :func:`tokenpath.pretrained.smollm2_path` (about 2 s: the examples below
    run on a tiny file instead, and ``tests/test_real_model.py`` on this one).

    >>> pretrained.smollm2_path().name
    'SmolLM2-135M-Instruct.Q4_1.gguf'
    """
    return _real_model(pretrained.smollm2_path())


@functools.lru_cache(maxsize=1)
def _real_model(path: Path) -> Model:
    return load(path)


# ------------------------------------------------------------------ the file

#: The metadata keys the chapter prints, in this order.
SUMMARY_KEYS = ("general.architecture", "general.name", "llama.context_length", "llama.embedding_length",
                "llama.block_count", "llama.attention.head_count", "llama.attention.head_count_kv",
                "llama.feed_forward_length", "llama.rope.freq_base", "tokenizer.ggml.model", "tokenizer.ggml.pre")


@dataclass(frozen=True)
class FileSummary:
    """What the GGUF file's header says about itself: size, version, counts, a few keys."""

    name: str  # the file's name
    bytes: int
    version: int  # GGUF version
    metadata_keys: int
    tensors: int
    types: tuple[tuple[str, int], ...]  # (GGML type, tensors stored in it), most first
    items: tuple[tuple[str, object], ...]  # (key, value) of SUMMARY_KEYS
    tokens: int  # entries of tokenizer.ggml.tokens
    merges: int  # entries of tokenizer.ggml.merges

    def lines(self) -> list[str]:
        """The summary as the chapter prints it."""
        types = ", ".join(f"{n} {t}" for t, n in self.types)
        out = [_("{name}: {size} bytes, GGUF version {version}").format(name=self.name, size=f"{self.bytes:,}",
                                                                      version=self.version),
               _("{keys} metadata keys, {tensors} tensors ({types})").format(keys=self.metadata_keys,
                                                                          tensors=self.tensors, types=types)]
        out += [f"  {k:30s} {v}" for k, v in self.items]
        out.append(f"  {'tokenizer.ggml.tokens':30s} " + _("{tokens} entries; merges {merges}").format(
            tokens=f"{self.tokens:,}", merges=f"{self.merges:,}"))
        return out


def file_summary(path=None) -> FileSummary:
    """The header of ``path`` (default: the pretrained file) in a few facts.

    >>> from tokenpath.model.gguf_model import _tiny_gguf   # a 1-layer Llama written for the examples
    >>> s = file_summary(_tiny_gguf()); s.version, s.tensors, dict(s.items)["llama.block_count"], s.types
    (3, 11, 1, (('F32', 11),))
    """
    if path is None:
        path = pretrained.smollm2_path()
    elif not isinstance(path, (str, os.PathLike)) or isinstance(path, bytes):
        raise TypeError(f"path must be None or the path of a GGUF file (str or os.PathLike), got {type(path).__name__}")
    elif not str(path):
        raise ValueError("path must name a GGUF file, got an empty path")
    path = Path(path)
    g = read_gguf(path)
    types = Counter(t.type_name for t in g.tensors.values())
    items = tuple((k, _plain(g.metadata[k])) for k in SUMMARY_KEYS if k in g.metadata)
    return FileSummary(path.name, g.file_size, g.version, len(g.metadata), len(g.tensors),
                       tuple(sorted(types.items(), key=lambda kv: (-kv[1], kv[0]))), items,
                       len(g.metadata.get("tokenizer.ggml.tokens", ())), len(g.metadata.get("tokenizer.ggml.merges", ())))


def _plain(value):
    if isinstance(value, (np.floating, float)):
        return float(value) if float(value) != int(value) else int(value)
    if isinstance(value, np.integer):
        return int(value)
    return value


# ------------------------------------------------------------------ a chat prompt

@dataclass(frozen=True)
class ChatAnswer:
    """A conversation in the model's chat template and the model's greedy answer."""

    prompt_ids: np.ndarray  # [T0] the template's IDs, ending with the assistant's opening
    answer_ids: np.ndarray  # [n] greedy IDs, the end-of-turn token included when drawn
    prompt_text: str  # the prompt decoded (special tokens as their text)
    answer: str  # the answer decoded, without the end-of-turn token
    ended: bool  # the answer ended with the end-of-turn token (not cut at the step limit)


def chat_answer(messages=ex.REAL_CHAT, steps: int = ex.REAL_CHAT_STEPS) -> ChatAnswer:
    """``messages`` rendered by the file's chat template and answered greedily (temperature
    0, the KV cache) for at most ``steps`` tokens.

    Each message is a dict of two strings, ``role`` and ``content``; the model answers
    the conversation's last turn (``tests/test_real_model.py`` runs it):

    >>> chat_answer([{"role": "user"}])
    Traceback (most recent call last):
    TypeError: messages[0] must be a dict with the str keys 'role' and 'content', got {'role': 'user'}
    """
    steps = as_int("steps", steps, low=1)
    return _chat_answer(_messages(messages), steps)


def _messages(messages) -> tuple:
    if not isinstance(messages, (list, tuple)) or not messages:
        raise TypeError(f"messages must be a non-empty list of {{'role': …, 'content': …}} dicts, got {messages!r:.80}")
    out = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or set(m) != {"role", "content"} or not all(isinstance(v, str) for v in m.values()):
            raise TypeError(f"messages[{i}] must be a dict with the str keys 'role' and 'content', got {m!r:.80}")
        out.append((m["role"], m["content"]))
    return tuple(out)


@functools.lru_cache(maxsize=8)
def _chat_answer(messages: tuple, steps: int) -> ChatAnswer:
    m = real_model()
    ids = m.chat_ids([{"role": r, "content": c} for r, c in messages])
    g = m.generate(ids, steps, temperature=0.0)
    eos = m.config.eos_token_id
    ended = bool(g.sampled.size and g.sampled[-1] == eos)
    words = g.sampled[:-1] if ended else g.sampled
    return ChatAnswer(ids, g.sampled, m.tokenizer.decode([int(i) for i in ids]),
                      m.tokenizer.decode([int(i) for i in words], errors="replace"), ended)


# ------------------------------------------------------------------ next-token distribution

@dataclass(frozen=True)
class RealNextToken(NextToken):
    """Chapter 11's next-token trace (:class:`~tokenpath.trained.NextToken`, which the
    figure draws) after one of :data:`~tokenpath.examples.real_model.REAL_PROMPTS`, with
    the two cuts of sampling: ``top_k`` (None: none) and ``top_p`` (1: none). ``probs``
    is the distribution sampling draws from; ``kept`` how many IDs it leaves possible."""

    top_k: int | None
    top_p: float
    kept: int

    def settings(self) -> str:
        """The sampling settings and what they leave: ``T = 1.00, no top-k, top-p 1.00: 49,152 IDs possible``."""
        k = "no top-k" if self.top_k is None else f"top-k {self.top_k}"
        return (f"T = {self.temperature:.2f}, {k}, top-p {self.top_p:.2f}: {self.kept:,} "
                f"ID{'' if self.kept == 1 else 's'} possible")


@functools.lru_cache(maxsize=len(ex.REAL_PROMPTS))
def _prompt_probs(prompt: int) -> np.ndarray:
    """softmax of the prompt's last logits at T = 1, read-only: it does not move with the sliders."""
    p = next_token_probs(_prompt_logits(prompt)[2])
    p.setflags(write=False)
    return p


@functools.lru_cache(maxsize=len(ex.REAL_PROMPTS))
def _prompt_logits(prompt: int):
    m = real_model()
    ids = m.encode(ex.REAL_PROMPTS[prompt])
    z = np.array(m.logits(ids)[-1], dtype=np.float64)  # [V] the last position's scores
    pieces = tuple(m.tokenizer.decode([int(i)], errors="replace") for i in ids)
    for a in (ids, z):
        a.setflags(write=False)
    return ids, pieces, z


def _piece(i: int) -> str:
    return real_model().tokenizer.decode([int(i)], errors="replace")


def next_token(prompt: int = 0, temperature: float = ex.REAL_TEMPERATURE, top_k: int | None = None,
               top_p: float = 1.0, *, top: int = ex.REAL_NEXT_TOP, cover_share: float = ex.REAL_NEXT_COVER
               ) -> RealNextToken:
    """The distribution SmolLM2 samples its next token from after prompt ``prompt`` (an
    index into :data:`~tokenpath.examples.real_model.REAL_PROMPTS`): its logits cut to
    the ``top_k`` largest (None or 0: no cut), divided by ``temperature``, softmax, then
    cut to the nucleus holding ``top_p``. One forward pass per prompt and process.

    The arguments are checked before the model runs (``tests/test_real_model.py`` runs
    it, against :func:`~tokenpath.sampling.next_token_probs` and ``transformers``):

    >>> next_token(0, 1.0, top_p=0.0)
    Traceback (most recent call last):
    ValueError: top_p must be in (0, 1]: the probability the nucleus holds, got 0
    """
    prompt = as_int("prompt", prompt, low=0, high=len(ex.REAL_PROMPTS) - 1)
    temperature = as_float("temperature", temperature, low=0.0)
    top_k = None if top_k is None else as_int("top_k", top_k, low=0) or None  # 0: no cut
    top_p = as_float("top_p", top_p)
    if not 0.0 < top_p <= 1.0:
        raise ValueError(f"top_p must be in (0, 1]: the probability the nucleus holds, got {top_p:g}")
    cover_share = as_float("cover_share", cover_share, low=0.0)
    if cover_share > 1.0:
        raise ValueError(f"cover_share must be at most 1, got {cover_share}")
    ids, pieces, z = _prompt_logits(prompt)
    top = as_int("top", top, low=1, high=z.size)
    probs = next_token_probs(z, temperature=temperature, top_k=top_k, top_p=top_p)
    probs_t1 = _prompt_probs(prompt)
    best, top_probs, top_probs_t1, cover = _top_and_cover(z, probs, probs_t1, top, cover_share)
    return RealNextToken(prompt, 0, temperature, ids, pieces, z, probs, probs_t1, best,
                         tuple(_piece(i) for i in best), top_probs, top_probs_t1, float(probs[best[0]]),
                         max(0.0, _entropy(probs)), cover, cover_share, float(max(0.0, 1.0 - top_probs.sum())),
                         top_k, top_p, int((probs > 0).sum()))


# ------------------------------------------------------------------ the logit lens

@dataclass(frozen=True)
class LogitLens:
    """The residual stream at the last position of ``ids``, read through the final
    RMSNorm and the tied head after every layer. Row 0 is the embedding row itself
    (before layer 0), row ``l + 1`` the stream after layer ``l``; the last row is the
    model's own logits. A rank is 1 + the number of IDs scored strictly higher (1 = the top)."""

    text: str
    ids: np.ndarray  # [T]
    pieces: tuple[str, ...]  # [T]
    target: int  # the ID followed: the model's own greedy next token
    target_piece: str
    rank: np.ndarray  # [L + 1] rank of target in each row, 1 = the top
    prob: np.ndarray  # [L + 1] softmax probability of target in each row
    top_ids: np.ndarray  # [L + 1] each row's top ID
    top_pieces: tuple[str, ...]  # [L + 1]
    top_probs: np.ndarray  # [L + 1] its probability

    @property
    def layers(self) -> int:
        return int(self.rank.size - 1)

    def first_within(self, k: int) -> int | None:
        """The first row (layers passed) from which on the target stays among the top ``k``
        (None: not even in the last row).

        >>> ranks = np.array([900, 40, 3, 12, 4, 1])   # rows 0 … 5
        >>> lens = LogitLens("x", np.array([7]), ("x",), 7, "x", ranks, ranks * 0.0, ranks * 0, ("x",) * 6, ranks * 0.0)
        >>> lens.first_within(10), lens.first_within(1), lens.first_within(100)
        (4, 5, 1)
        """
        k = as_int("k", k, low=1)
        inside = self.rank <= k
        if not inside[-1]:
            return None
        row = inside.size - 1
        while row > 0 and inside[row - 1]:
            row -= 1
        return int(row)

    def first_top(self) -> int | None:
        """The first row from which on the target stays the top token (None: never)."""
        return self.first_within(1)


def lens_rows(model: Model, streams: np.ndarray) -> np.ndarray:
    """The logit lens of residual streams ``[n, d]``: the final RMSNorm and the head,
    logits ``[n, V]``; applied to the last layer's output they are the model's logits.

    >>> from tokenpath.model import load
    >>> from tokenpath.model.gguf_model import _tiny_gguf   # a 1-layer Llama, 10 IDs
    >>> m = load(_tiny_gguf()); tr = m.forward([1, 4, 2])
    >>> z = lens_rows(m, tr.layers[-1].out[0]); z.shape, bool(np.allclose(z, tr.logits, atol=1e-5))
    ((3, 10), True)
    """
    if not isinstance(model, Model):
        raise TypeError(f"model must be a tokenpath.model.Model, got {type(model).__name__}")
    streams = as_float_array("streams", streams, ndim=2)
    if streams.ndim != 2 or streams.shape[1] != model.config.hidden_size:
        raise ValueError(f"streams must be [n, {model.config.hidden_size}] residual rows, got shape "
                         f"{list(streams.shape)}")
    rows = norms._rms_norm(streams.astype(model.dtype), model.tensors["model.norm.weight"], model.config.rms_norm_eps)
    return rows @ model.w_out


def logit_lens(text: str = ex.REAL_PROMPTS[0]) -> LogitLens:
    """The logit lens of SmolLM2 on ``text``'s last position, following the token the
    model finally predicts, from one traced forward pass.

    ``tests/test_real_model.py`` runs it on the chapter's prompt (and
    ``tests/test_crosscheck_real_model.py`` against ``transformers``); the text is
    checked first:

    >>> logit_lens("")
    Traceback (most recent call last):
    ValueError: text must be a non-empty str, got ''
    """
    if not isinstance(text, str) or not text:
        raise ValueError(f"text must be a non-empty str, got {text!r:.60}")
    if len(text) > 2000:
        raise ValueError(f"text must be at most 2000 characters for the lens, got {len(text)}")
    return _logit_lens(text)


@functools.lru_cache(maxsize=8)
def _logit_lens(text: str) -> LogitLens:
    m = real_model()
    ids = m.encode(text)
    trace = m.forward(ids)
    streams = np.stack([trace.x[-1]] + [layer.out[0, -1] for layer in trace.layers])  # [L + 1, d]
    z = np.asarray(lens_rows(m, streams), dtype=np.float64)  # [L + 1, V]
    target = int(np.argmax(trace.logits[-1]))
    p = np.exp(z - z.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    rank = 1 + (z > z[:, target:target + 1]).sum(axis=-1)
    top = np.argmax(z, axis=-1)
    arrays = (ids, rank, p[:, target], top, p[np.arange(top.size), top])
    for a in arrays:
        a.setflags(write=False)
    pieces = tuple(_piece(i) for i in ids)
    return LogitLens(text, arrays[0], pieces, target, _piece(target), arrays[1], arrays[2], arrays[3],
                     tuple(_piece(i) for i in top), arrays[4])


