"""The data of the book's own model: every choice of a run (:class:`Settings`), the
corpus split into training and held-out files, the tokenizer trained on the training
side, the token streams, the windows each training step reads and the evaluation
streams (``make model``; ``python -m tokenpath._train``).

Everything here is fixed in advance so a rerun reads the same data: the corpus (sorted
paths, a stated set of skipped folders, a SHA-256 of what was read), the held-out files
(``Settings.split_rule``), the tokenizer (:func:`tokenpath.bpe.train` with Hugging
Face tie-breaking) and the data order (seeded by the seed and the step alone). The
training loop and the files written after it are :mod:`tokenpath._train`.

NumPy and the standard library; nothing here imports ``torch``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from . import bpe
from . import corpus as C

#: The committed model's split: every this-many-th file in sorted order is held out.
HELD_OUT_EVERY = C.HELD_OUT_EVERY
EOS = "<|endoftext|>"
#: Characters taken from each held-out file of code for the committed sample
#: (``held_out.json``), so the checks and the chapters measure the same text on any interpreter.
HELD_OUT_CHARS = 3000


@dataclass(frozen=True)
class Settings:
    """Every choice of a training run (written to ``training.json``)."""

    vocab_size: int = 2048          # 256 bytes + merges + the EOS token
    hidden_size: int = 128
    intermediate_size: int = 256    # per expert
    num_hidden_layers: int = 4
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    num_local_experts: int = 4
    num_experts_per_tok: int = 2
    rope_theta: float = 10000.0
    rms_norm_eps: float = 1e-5
    tie_word_embeddings: bool = False
    router_aux_loss_coef: float = 0.02
    seq_len: int = 256
    batch_size: int = 16
    steps: int = 4000
    warmup: int = 30
    lr: float = 3e-3
    min_lr: float = 3e-4
    weight_decay: float = 0.1
    seed: int = 0
    threads: int = 2
    eval_tokens: int = 32768        # targets per evaluation stream, in windows spread over its files
    curve_every: int = 10
    split_rule: str = "hash"        # "hash": corpus.is_held_out; "index": every HELD_OUT_EVERY-th file
    data_rule: str = "drop"         # "drop" generated data files from training (corpus.is_data); "keep" them
    schedule: str = "cosine"        # "cosine"; "wsd": warm-up, constant, linear decay over the last WSD_DECAY
    eval_every: int = 250           # held-out losses every this many steps (0: only at the end)

    def __post_init__(self):
        for name, allowed in (("split_rule", ("index", "hash")), ("data_rule", ("keep", "drop")),
                              ("schedule", ("cosine", "wsd"))):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {getattr(self, name)!r}")
        for name in ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers",
                     "num_attention_heads", "num_key_value_heads", "num_local_experts",
                     "num_experts_per_tok", "seq_len", "batch_size", "steps", "threads", "curve_every"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ValueError(f"{name} must be a positive integer, got {getattr(self, name)!r}")
        if self.hidden_size % self.num_attention_heads:
            raise ValueError(f"hidden_size ({self.hidden_size}) must be a multiple of "
                             f"num_attention_heads ({self.num_attention_heads})")
        if self.num_attention_heads % self.num_key_value_heads:
            raise ValueError(f"num_attention_heads ({self.num_attention_heads}) must be a multiple of "
                             f"num_key_value_heads ({self.num_key_value_heads})")
        if self.num_experts_per_tok > self.num_local_experts:
            raise ValueError(f"num_experts_per_tok ({self.num_experts_per_tok}) must be <= "
                             f"num_local_experts ({self.num_local_experts})")
        if self.vocab_size < 257:
            raise ValueError(f"vocab_size must be >= 257 (256 bytes and EOS), got {self.vocab_size}")


def recorded_settings(s: Settings) -> dict:
    """The settings as ``training.json`` records them: every field, in order.

    >>> list(recorded_settings(Settings()))[:2]
    ['vocab_size', 'hidden_size']
    """
    return asdict(s)


def split(texts: list[str], every: int = HELD_OUT_EVERY) -> tuple[list[str], list[str]]:
    """(training texts, held-out texts): every ``every``-th text is held out.

    >>> split(list("abcdef"), 3)
    (['b', 'c', 'e', 'f'], ['a', 'd'])
    """
    held = [t for i, t in enumerate(texts) if i % every == 0]
    train = [t for i, t in enumerate(texts) if i % every != 0]
    return train, held


def keep(f: C.CorpusFile, s: Settings) -> bool:
    """Whether the run reads file ``f`` at all (the data rule)."""
    return s.data_rule == "keep" or not f.data


def train_tokenizer(texts: list[str], vocab_size: int) -> bpe.Tokenizer:
    """Byte-level BPE on the joined texts with ``vocab_size - 1`` entries, then EOS."""
    tok = bpe.train("".join(texts), vocab_size - 1, tie_break="hf")
    return tok.with_special_tokens([EOS])


def token_stream(tok: bpe.Tokenizer, texts: list[str]) -> list[int]:
    """Every text encoded, each followed by EOS.

    >>> tok = bpe.Tokenizer([]).with_special_tokens([EOS])
    >>> token_stream(tok, ["ab", "c"])
    [97, 98, 256, 99, 256]
    """
    eos = tok.special_tokens[EOS]
    out: list[int] = []
    for t in texts:
        out.extend(tok.encode(t, disallowed_special=()))
        out.append(eos)
    return out


@dataclass(frozen=True)
class Data:
    """A run's text and tokens: the corpus with its flags, the tokenizer trained on the
    training side, the training token stream and the held-out one."""

    corpus: C.Corpus
    tok: bpe.Tokenizer
    train_ids: object       # numpy int64 array
    held_ids: list
    held_files: int


def prepare_data(s: Settings) -> Data:
    """Read the corpus, split it by ``s.split_rule``, apply ``s.data_rule``, train the
    tokenizer on the training texts and encode both sides."""
    corpus = C.load(split=s.split_rule)
    train_texts = [f.text for f in corpus.files if not f.held_out and keep(f, s)]
    held_texts = [f.text for f in corpus.files if f.held_out and keep(f, s)]
    tok = train_tokenizer(train_texts, s.vocab_size)
    train_ids = np.asarray(token_stream(tok, train_texts), dtype=np.int64)
    return Data(corpus, tok, train_ids, token_stream(tok, held_texts), len(held_texts))


def batch_starts(n_tokens: int, s: Settings, step: int):
    """The start offsets of step ``step``'s windows: seeded by (seed, step) alone, so
    the data order does not depend on anything else the run did."""
    rng = np.random.default_rng([s.seed, step])
    return rng.integers(0, n_tokens - s.seq_len - 1, size=s.batch_size)


def windows(ids, seq_len: int, limit: int):
    """Windows of ``seq_len + 1`` tokens of the stream ``ids`` (window ``j`` starts at
    ``j * seq_len``), every ``k``-th one so that about ``limit`` targets remain, spread
    over the whole stream (so over all its files). Shape (windows, seq_len + 1).

    >>> windows(list(range(10)), 2, 4).tolist()
    [[0, 1, 2], [4, 5, 6]]
    """
    ids = np.asarray(ids, dtype=np.int64)
    n = (len(ids) - 1) // seq_len
    if n < 1:
        raise ValueError(f"ids must hold more than seq_len ({seq_len}) tokens, got {len(ids)}")
    k = max(1, -(-n * seq_len // limit))
    return np.stack([ids[j * seq_len: j * seq_len + seq_len + 1] for j in range(0, n, k)])


#: The evaluation streams, in the order training.json lists them.
STREAMS = ("stdlib code", "stdlib data", "outside code")


def eval_streams(d: Data, s: Settings) -> tuple[dict, dict]:
    """({stream: its evaluation windows}, a description of each stream): the held-out
    ordinary code, the held-out generated data files, and the sources of the outside
    packages (:data:`tokenpath.corpus.OUTSIDE_PACKAGES`), each cut by :func:`windows`
    to about ``s.eval_tokens`` targets."""
    files = d.corpus.files
    versions, outside, outside_bytes = C.outside_texts()
    code = [f for f in files if f.held_out and not f.data]
    data = [f for f in files if f.held_out and f.data]
    streams, info = {}, {}
    for name, texts, n_files, n_bytes in (
            ("stdlib code", [f.text for f in code], len(code), sum(f.n_bytes for f in code)),
            ("stdlib data", [f.text for f in data], len(data), sum(f.n_bytes for f in data)),
            ("outside code", outside, len(outside), outside_bytes)):
        ids = token_stream(d.tok, texts)
        streams[name] = windows(ids, s.seq_len, s.eval_tokens)
        info[name] = {"files": n_files, "bytes": n_bytes, "tokens": len(ids),
                      "eval_tokens": int(streams[name][:, 1:].size)}
    info["outside code"]["packages"] = versions
    return streams, info


def held_out_sample(corpus: C.Corpus, chars: int = HELD_OUT_CHARS) -> list[dict]:
    """The held-out sample the chapters measure heads and routes on: from every held-out
    file of ordinary code (sorted by path), up to ``chars`` characters of whole lines
    starting at its first top-level ``def`` or ``class`` line (so past the licence,
    imports and module docstring), or at its start when it has none. Each entry is
    ``{"path", "line", "text"}`` with ``line`` the 1-based line the excerpt starts at."""
    out = []
    for f in corpus.files:
        if not f.held_out or f.data:
            continue
        lines = f.text.splitlines(keepends=True)
        start = next((i for i, ln in enumerate(lines) if ln.startswith(("def ", "class "))), 0)
        text = "".join(lines[start:])[:chars]
        text = text[: text.rfind("\n") + 1]
        if text.strip():
            out.append({"path": f.relpath, "line": start + 1, "text": text})
    return out
