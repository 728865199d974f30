"""The evidence behind chapter 11's comparisons (``models/stdlib-evidence.json``;
``python -m tokenpath._evidence``, which needs the crosscheck extra).

``evaluation.json`` scores the model against unigram, bigram and trigram tables on the
three streams the recipe was chosen on. This module adds what a sceptic asks for:

1. **Stronger tables.** 4- and 5-gram interpolated Kneser–Ney and the 5-gram mixed with a
   unigram cache of the window's earlier tokens (weight :data:`CACHE_LAMBDA`), each fitted
   on exactly the training tokens and scored on exactly the model's windows; and the
   discount Chen & Goodman estimate from the counts, ``n1 / (n1 + 2·n2)``, per order.
2. **A test stream.** The three streams of ``evaluation.json`` were used to choose the
   recipe (``benchmarks/explore_model.py``), so they are validation data. :data:`TEST_RULE`
   names, fixed before anything was scored on it, code that neither the model, its
   tokenizer nor the recipe search read; the model and every table are scored on it once.
3. **Intervals.** A paired bootstrap over windows (:func:`paired_bootstrap`, seed
   :data:`BOOTSTRAP_SEED`, :data:`BOOTSTRAP_B` resamples) for every gap between the model
   and a table, and between the model and the dense baseline
   (``models/stdlib-dense/training.json``) when it is there; and the same gaps resampled
   by file (:func:`file_bootstrap`: the windows of one file stay together, since they
   are alike), with the file each window starts in (:func:`window_files`).
4. **Coverage.** How many files of each stream its evaluation windows touch.
5. **Routing, read two more ways.** The agreement of repeated texts per text as well as
   per pair (:func:`agreement_by_text`), and the expert shares that the pooled
   load-balancing loss sees beside each layer's own (:func:`pooled_balance`).
6. **Verbatim overlap.** Held out is not unseen: how many long lines of the held-out
   files of code also occur in a training file of code (:func:`verbatim_overlap`, the
   rule :data:`OVERLAP_RULE`), file by file, and which lines of the committed held-out
   sample they are.

``python -m tokenpath._evidence --without-models`` recomputes, without PyTorch, what needs
only the corpus and the stored per-window losses: the overlap, the file of each window
and the intervals by file.

NumPy and the standard library, apart from :func:`main` (PyTorch and ``transformers``
score the models' windows).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np

from . import corpus as C
from . import ngram as N
from ._evaluate import rebuild, window_table_losses
from ._train_data import token_stream, windows
from .trained.files import EVIDENCE_NAME

#: The test stream, fixed before any model or table was scored on it.
TEST_PACKAGES = ("jinja2", "packaging")
TEST_RULE = ("the .py files of the installed jinja2 and packaging packages (the versions pinned in "
             "constraints.txt; test folders left out), in sorted order, cut into windows as the other streams "
             "are; chosen before any model or table was scored on them: neither the model's training, its "
             "tokenizer's nor the recipe search (benchmarks/explore_model.py) read them")
TEST = "test code"
#: The weight of the within-window unigram cache mixed into the 5-gram.
CACHE_LAMBDA = 0.1
BOOTSTRAP_B = 10_000
BOOTSTRAP_SEED = 0
#: Other cache weights the 5-gram is scored with, to show how much the choice of
#: :data:`CACHE_LAMBDA` matters (a sensitivity check, made after the test stream was scored).
CACHE_SWEEP = (0.05, 0.1, 0.15, 0.2, 0.3)
#: A line shorter than this, once stripped, is not counted as overlap: blank lines,
#: brackets, ``else:``, ``return self`` and other short idioms repeat in any code.
OVERLAP_MIN_CHARS = 30
OVERLAP_RULE = (f"a line counts when it has at least {OVERLAP_MIN_CHARS} characters once its leading and trailing "
                "white space is stripped; every occurrence of such a line in a held-out file of code is counted "
                "(a line twice in one file counts twice), and it is repeated when the same stripped line occurs "
                "anywhere in a training file of code")
#: The tables of the record, by name: (order, cache weight).
TABLES = {"unigram": (1, 0.0), "bigram": (2, 0.0), "trigram": (3, 0.0), "4-gram": (4, 0.0), "5-gram": (5, 0.0),
          "5-gram + cache": (5, CACHE_LAMBDA)}


def cache_losses(table: N.NgramModel, window, lam: float = CACHE_LAMBDA) -> np.ndarray:
    """[targets] −ln p of each target of ``window`` under ``(1 − lam)·table + lam·cache``,
    the cache being the share of the window's tokens so far (up to and including the
    input position) that equal the target.

    >>> t = N.unigram([0, 1, 0, 1], 2)
    >>> cache_losses(t, [0, 0, 0], 0.5).round(3).tolist()
    [0.288, 0.288]
    """
    if not 0 <= lam < 1:
        raise ValueError(f"lam must be in [0, 1), got {lam!r}")
    p_table, cache = _cache_parts(table, window)
    return -np.log((1 - lam) * p_table + lam * cache)


def _cache_parts(table: N.NgramModel, window) -> tuple[np.ndarray, np.ndarray]:
    """([targets] the table's probability of each target, [targets] the cache's)."""
    w = np.asarray(window, dtype=np.int64)
    p_table = np.exp(-N.token_losses(table, w))
    seen = w[:-1, None] == w[None, 1:]                     # [inputs, targets]: input i equals target j
    upto = np.tril(np.ones((len(w) - 1, len(w) - 1), dtype=bool)).T  # input i at or before target j's input
    return p_table, (seen & upto).sum(axis=0) / np.arange(1, len(w))


def discount_estimate(ids, order: int) -> float:
    """Chen & Goodman's estimate of the absolute discount for the ``order``-grams of
    ``ids``: ``n1 / (n1 + 2·n2)``, n_r the number of distinct n-grams seen exactly r times.

    >>> discount_estimate([0, 1, 0, 1, 2], 2)  # 01 ×2, 10 ×1, 12 ×1: n1 = 2, n2 = 1
    0.5
    """
    a = np.asarray(ids, dtype=np.int64)
    if order < 1 or len(a) < order:
        raise ValueError(f"order must be in 1..len(ids), got {order!r}")
    grams = np.stack([a[i:len(a) - order + 1 + i] for i in range(order)], axis=1)
    _, counts = np.unique(grams, axis=0, return_counts=True)
    n1, n2 = int((counts == 1).sum()), int((counts == 2).sum())
    return n1 / (n1 + 2 * n2)


def paired_bootstrap(a, b, B: int = BOOTSTRAP_B, seed: int = BOOTSTRAP_SEED) -> dict:
    """The mean of ``a − b`` over paired items (windows) and its 95 % percentile interval
    from ``B`` resamples of the items with replacement (``numpy`` generator seeded ``seed``).

    >>> r = paired_bootstrap([2.0, 3.0, 4.0], [1.0, 1.0, 1.0], B=200)
    >>> r["mean"], r["low"] >= 1.0, r["high"] <= 3.0
    (2.0, True, True)
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or a.size < 2:
        raise ValueError(f"a and b must be 1-D of one length >= 2, got shapes {a.shape} and {b.shape}")
    d = a - b
    idx = np.random.default_rng(seed).integers(0, d.size, size=(B, d.size))
    means = d[idx].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return {"mean": round(float(d.mean()), 4), "low": round(float(lo), 4), "high": round(float(hi), 4)}


def files_touched(lengths, seq_len: int, limit: int) -> int:
    """How many of the files whose streams have ``lengths`` tokens (in order, joined)
    the windows of :func:`tokenpath._train_data.windows` touch.

    >>> files_touched([3, 3, 3, 3], 2, 4)  # 12 tokens, windows over tokens 0-2 and 6-8
    2
    """
    ends = np.cumsum(lengths)
    starts = ends - np.asarray(lengths)
    n = (int(ends[-1]) - 1) // seq_len
    k = max(1, -(-n * seq_len // limit))
    hit = np.zeros(len(lengths), dtype=bool)
    for j in range(0, n, k):
        lo, hi = j * seq_len, j * seq_len + seq_len  # inclusive token range of the window
        hit |= (starts <= hi) & (ends > lo)
    return int(hit.sum())


def window_files(lengths, seq_len: int, limit: int) -> list[int]:
    """For each window of :func:`tokenpath._train_data.windows` over the files whose
    streams have ``lengths`` tokens (in order, joined), the index of the file its first
    token belongs to.

    >>> window_files([3, 3, 3, 3], 2, 4)  # windows start at tokens 0 and 6
    [0, 2]
    """
    ends = np.cumsum(lengths)
    n = (int(ends[-1]) - 1) // seq_len
    k = max(1, -(-n * seq_len // limit))
    return np.searchsorted(ends, np.arange(0, n, k) * seq_len, side="right").tolist()


def file_bootstrap(a, b, groups, B: int = BOOTSTRAP_B, seed: int = BOOTSTRAP_SEED) -> dict:
    """The mean of ``a − b`` over paired windows and its 95 % percentile interval when
    whole groups (files: ``groups[i]`` is window ``i``'s) are resampled with replacement,
    each drawn group bringing all its windows; ``B`` resamples, generator seeded ``seed``.

    >>> r = file_bootstrap([2.0, 2.0, 4.0], [1.0, 1.0, 1.0], [0, 0, 1], B=200)
    >>> r["mean"], r["groups"], r["low"] >= 1.0, r["high"] <= 3.0
    (1.6667, 2, True, True)
    """
    a, b, g = np.asarray(a, dtype=float), np.asarray(b, dtype=float), np.asarray(groups)
    if a.shape != b.shape or a.shape != g.shape or a.ndim != 1 or a.size < 2:
        raise ValueError(f"a, b and groups must be 1-D of one length >= 2, got shapes {a.shape}, {b.shape}, {g.shape}")
    _, gid = np.unique(g, return_inverse=True)
    G = int(gid.max()) + 1
    if G < 2:
        raise ValueError("groups must name at least two groups")
    d = a - b
    sums, counts = np.bincount(gid, weights=d, minlength=G), np.bincount(gid, minlength=G)
    idx = np.random.default_rng(seed).integers(0, G, size=(B, G))
    means = sums[idx].sum(axis=1) / counts[idx].sum(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return {"mean": round(float(d.mean()), 4), "low": round(float(lo), 4), "high": round(float(hi), 4), "groups": G}


def scored_test_stream(folder):
    """(settings, data, windows, info) of the test stream under the folder's tokenizer."""
    s, d, streams, info = rebuild(folder)
    versions, texts, n_bytes = C.outside_texts(TEST_PACKAGES)
    ids = token_stream(d.tok, texts)
    win = windows(ids, s.seq_len, s.eval_tokens)
    lengths = [len(token_stream(d.tok, [t])) for t in texts]
    return s, d, streams, info, win, {"files": len(texts), "bytes": n_bytes, "tokens": len(ids),
                                      "eval_tokens": int(win[:, 1:].size), "packages": versions,
                                      "files_touched": files_touched(lengths, s.seq_len, s.eval_tokens),
                                      "window_files": window_files(lengths, s.seq_len, s.eval_tokens)}


def stream_lengths(d, s, name: str) -> list[int]:
    """Token counts of each file of evaluation stream ``name``, in stream order."""
    files = d.corpus.files
    if name == "outside code":
        texts = C.outside_texts()[1]
    else:
        texts = [f.text for f in files if f.held_out and f.data == (name == "stdlib data")]
    return [len(token_stream(d.tok, [t])) for t in texts]


def stream_infos(folder) -> tuple:
    """(settings, data, {stream: windows}, {stream: info}) for the three streams and the
    test stream, each info with the files its windows touch and the file of each window.
    Rebuilt from the corpus once per folder and process (callers must not change it)."""
    return _stream_infos(Path(folder).resolve())


@functools.lru_cache(maxsize=1)
def _stream_infos(folder: Path) -> tuple:
    s, d, streams, info, test_win, test_info = scored_test_stream(folder)
    streams = {**streams, TEST: test_win}
    for name in info:
        lengths = stream_lengths(d, s, name)
        info[name] = {**info[name], "files_touched": files_touched(lengths, s.seq_len, s.eval_tokens),
                      "window_files": window_files(lengths, s.seq_len, s.eval_tokens)}
    return s, d, streams, {**info, TEST: test_info}


def fitted_table(folder, order: int) -> N.NgramModel:
    """The ``order``-gram table (add-one unigram for 1, interpolated Kneser–Ney above)
    fitted on the training tokens of the run that wrote ``folder``; fitted once per
    folder, order and process."""
    return _fitted_table(Path(folder).resolve(), order)


@functools.lru_cache(maxsize=8)
def _fitted_table(folder: Path, order: int) -> N.NgramModel:
    s, d, _, _ = stream_infos(folder)
    return N.unigram(d.train_ids, s.vocab_size) if order == 1 else N.kneser_ney(d.train_ids, s.vocab_size, order)


def table_window_losses(folder) -> tuple[dict, dict, dict, dict]:
    """({stream: {table: [windows] mean loss}}, {stream: info}, {order: discount
    estimate}, {stream: windows}) for the three streams and the test stream."""
    s, d, streams, info = stream_infos(folder)
    fitted = {o: fitted_table(folder, o) for o in {o for o, _ in TABLES.values()}}
    out = {}
    for name, win in streams.items():
        out[name] = {}
        for t, (order, lam) in TABLES.items():
            table = fitted[order]
            per = (np.array([cache_losses(table, w, lam).mean() for w in win]) if lam
                   else window_table_losses(table, win))
            out[name][t] = np.round(per, 5).tolist()
    discounts = {o: round(discount_estimate(d.train_ids, o), 4) for o in range(2, 6)}
    return out, info, discounts, streams


def cache_sweep(table: N.NgramModel, streams: dict, lams=CACHE_SWEEP) -> dict:
    """{stream: {weight: mean loss over the stream's windows}} of ``table`` mixed with the
    window's cache at each weight of ``lams`` (keys written as text, for JSON).

    >>> t = N.unigram([0, 1, 0, 1], 2)
    >>> cache_sweep(t, {"s": [[0, 0, 0]]}, (0.0, 0.5))
    {'s': {'0.0': 0.6931, '0.5': 0.2877}}
    """
    if not all(0 <= lam < 1 for lam in lams):
        raise ValueError(f"lams must be weights in [0, 1), got {lams!r}")
    out = {}
    for name, win in streams.items():
        parts = [_cache_parts(table, w) for w in win]
        out[name] = {str(lam): round(float(np.mean([-np.log((1 - lam) * p + lam * c).mean() for p, c in parts])), 4)
                     for lam in lams}
    return out


def long_lines(text: str, min_chars: int = OVERLAP_MIN_CHARS) -> list[str]:
    """Every line of ``text`` that has at least ``min_chars`` characters once stripped,
    stripped, in order, each occurrence kept.

    >>> long_lines("    x = 1\\n        return self.value + other.value\\n", 20)
    ['return self.value + other.value']
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if isinstance(min_chars, bool) or not isinstance(min_chars, int) or min_chars < 1:
        raise ValueError(f"min_chars must be a whole number >= 1, got {min_chars!r}")
    return [s for line in text.splitlines() if len(s := line.strip()) >= min_chars]


def verbatim_overlap(train_texts, held_files, sample_lines=(), min_chars: int = OVERLAP_MIN_CHARS) -> dict:
    """How much of the held-out code occurs verbatim in the training code, by
    :data:`OVERLAP_RULE`: ``held_files`` maps each held-out file's path to its text.
    Counted over every occurrence (``lines``, ``repeated``, ``share``) and over
    distinct lines (``distinct_*``); ``files`` holds ``[path, lines, repeated]`` per
    file in the order given; ``sample_lines`` the indices of the given sample lines
    (the committed held-out sample's, :func:`tokenpath.trained.held_out_lines`) that
    count and are repeated.

    >>> a, b = "x = compute_something(first, second)", "y = compute_something(second, first)"
    >>> r = verbatim_overlap([a + "\\n"], {"h.py": a + "\\n" + b + "\\n" + a + "\\n"}, [b, "    " + a])
    >>> r["lines"], r["repeated"], r["distinct_lines"], r["distinct_repeated"], r["files"], r["sample_lines"]
    (3, 2, 2, 1, [['h.py', 3, 2]], [1])
    """
    if isinstance(train_texts, str) or not isinstance(held_files, dict):
        raise TypeError("train_texts must be a list of texts and held_files a dict {path: text}")
    seen = {line for t in train_texts for line in long_lines(t, min_chars)}
    files, every, distinct = [], 0, set()
    repeated = 0
    for path, text in held_files.items():
        lines = long_lines(text, min_chars)
        hits = sum(line in seen for line in lines)
        files.append([str(path), len(lines), hits])
        every, repeated = every + len(lines), repeated + hits
        distinct.update(lines)
    if not every:
        raise ValueError(f"held_files must hold at least one line of {min_chars} characters or more")
    shared = distinct & seen
    hit_lines = [n for n, line in enumerate(sample_lines)
                 if len(s := line.strip()) >= min_chars and s in seen]
    return {"rule": OVERLAP_RULE if min_chars == OVERLAP_MIN_CHARS else None, "min_chars": min_chars,
            "counted": "every occurrence", "lines": every, "repeated": repeated, "share": round(repeated / every, 4),
            "distinct_lines": len(distinct), "distinct_repeated": len(shared),
            "distinct_share": round(len(shared) / len(distinct), 4), "files": files, "sample_lines": hit_lines}


def overlap_losses(losses, spans, lines, hit_lines, min_chars: int = OVERLAP_MIN_CHARS) -> dict:
    """What the verbatim overlap does to a measured loss: ``losses`` [N] holds each
    token's loss (NaN where nothing is predicted), ``spans`` the token positions of each
    of ``lines`` (:func:`tokenpath.trained.line_tokens`), ``hit_lines`` the lines that
    occur in training (``verbatim_overlap(...)["sample_lines"]``). Returns the number of
    scored tokens in those lines, their mean loss, the mean loss of the tokens of the
    other lines of at least ``min_chars`` characters, and the mean over every scored
    token with and without the repeated lines' tokens.

    >>> r = overlap_losses([np.nan, 1.0, 3.0, 2.0], [range(0, 2), range(2, 4)], ["a" * 30, "b" * 30], [0])
    >>> r["tokens"], r["repeated"], r["other_long"], r["all"], r["without"]
    (1, 1.0, 2.5, 2.0, 2.5)
    """
    losses = np.asarray(losses, dtype=float)
    if losses.ndim != 1 or len(spans) != len(lines):
        raise ValueError(f"losses must be 1-D and spans one per line, got shape {losses.shape}, "
                         f"{len(spans)} spans for {len(lines)} lines")
    hit = np.zeros(losses.size, dtype=bool)
    long_ = np.zeros(losses.size, dtype=bool)
    for n in hit_lines:
        if not 0 <= n < len(lines) or len(lines[n].strip()) < min_chars:
            raise ValueError(f"hit_lines must index lines of at least {min_chars} characters, got {n!r}")
        hit[list(spans[n])] = True
    for n, line in enumerate(lines):
        if len(line.strip()) >= min_chars:
            long_[list(spans[n])] = True
    scored = ~np.isnan(losses)
    return {"tokens": int((hit & scored).sum()), "scored": int(scored.sum()),
            "repeated": float(losses[hit & scored].mean()), "other_long": float(losses[long_ & ~hit & scored].mean()),
            "all": float(losses[scored].mean()), "without": float(losses[~hit & scored].mean())}


def corpus_overlap(folder) -> dict:
    """:func:`verbatim_overlap` of the run that wrote ``folder``: its held-out files of
    code against its training files of code (the corpus read again by the run's split
    rule), with the lines of the committed held-out sample."""
    from . import trained as T

    record = T.read_training(folder)
    corpus = C.load(split=record["settings"]["split_rule"])
    if corpus.sha256 != record["corpus"]["sha256"]:
        raise ValueError("this interpreter's standard library is not the one the folder's model was trained on "
                         f"(SHA-256 {corpus.sha256[:12]}…, training.json says {record['corpus']['sha256'][:12]}…)")
    train = [f.text for f in corpus.files if not f.held_out and not f.data]
    held = {f.relpath: f.text for f in corpus.files if f.held_out and not f.data}
    return verbatim_overlap(train, held, T.held_out_lines(folder))


def agreement_by_text(routes, top: int = 5) -> dict:
    """Layer by layer, the same-set agreement of repeated token texts averaged two ways:
    over pairs of occurrences (``"pairs"``, as :func:`tokenpath.trained.text_agreement`
    does, so frequent texts weigh with the square of their count) and over texts
    (``"texts"``, each text with at least two occurrences counting once); and the
    ``top`` texts with the most pairs and their share of all pairs.

    >>> import numpy as np
    >>> from tokenpath.trained import Routes
    >>> r = Routes(("a", "a", "a", "b", "b"), np.zeros((1, 5, 3)),
    ...            np.array([[[0, 1], [0, 1], [0, 1], [1, 2], [0, 2]]]), np.zeros((1, 5, 2)))
    >>> a = agreement_by_text(r, top=1)
    >>> a["pairs"], a["texts"], a["top_texts"], a["top_share"]
    ([0.75], [0.5], ['a'], 0.75)
    """
    pieces = np.array(routes.pieces, dtype=object).astype(str)
    names, text_id, text_n = np.unique(pieces, return_inverse=True, return_counts=True)
    pairs = text_n * (text_n - 1) // 2
    rep = pairs > 0
    E = routes.num_experts
    by_pairs, by_texts = [], []
    for chosen in routes.chosen:  # [T, k]
        sets = np.sort(chosen, axis=-1) @ (E ** np.arange(routes.top_k))
        _, set_id = np.unique(sets, return_inverse=True)
        both = np.zeros((names.size, set_id.max() + 1), dtype=np.int64)
        np.add.at(both, (text_id, set_id), 1)
        same = (both * (both - 1) // 2).sum(axis=1)
        by_pairs.append(round(float(same.sum() / pairs.sum()), 4))
        by_texts.append(round(float((same[rep] / pairs[rep]).mean()), 4))
    order = np.argsort(-pairs, kind="stable")[:top]
    return {"pairs": by_pairs, "texts": by_texts, "top_texts": names[order].tolist(),
            "top_share": round(float(pairs[order].sum() / pairs.sum()), 4)}


def pooled_balance(load, top_k: int) -> dict:
    """What Hugging Face's ``load_balancing_loss_func`` balances when it is given every
    layer's router logits at once: it concatenates the layers' tokens before counting,
    so expert ``i``'s share is pooled over the layers. ``load[l][e]`` is how often
    layer ``l`` chose expert ``e``, each token making ``top_k`` choices; returns the
    per-layer shares of the choices, the pooled shares and the share of tokens (not of
    choices) that chose each expert.

    >>> b = pooled_balance([[3, 1], [1, 3]], 1)
    >>> b["pooled"], b["per_layer"][0]
    ([0.5, 0.5], [0.75, 0.25])
    """
    load = np.asarray(load, dtype=float)
    per_layer = load / load.sum(axis=1, keepdims=True)
    tokens = load.sum(axis=1, keepdims=True) / top_k
    return {"per_layer": np.round(per_layer, 4).tolist(),
            "pooled": np.round(load.sum(axis=0) / load.sum(), 4).tolist(),
            "token_share": np.round(load / tokens, 4).tolist()}


def gaps_by_file(per_table: dict, model, dense, files) -> dict:
    """:func:`file_bootstrap` of every table − model gap, and of dense − model when
    ``dense`` is given, with ``files`` the file of each window."""
    out = {t: file_bootstrap(v, model, files) for t, v in per_table.items()}
    if dense is not None:
        out["dense"] = file_bootstrap(dense, model, files)
    return out


def evidence_record(tables: dict, info: dict, discounts: dict, model: dict, dense: dict | None,
                    agreement: dict | None = None, balance: dict | None = None) -> dict:
    """The record: per stream the mean of every table, the model and the dense model,
    and the paired bootstrap of every table − model and dense − model gap.
    ``model`` and ``dense`` are ``{stream: [windows] mean loss}``."""
    rows = {}
    for name, per_table in tables.items():
        m = np.asarray(model[name])
        row = {**info[name], "windows": int(m.size), "model": round(float(m.mean()), 4)}
        row["tables"] = {t: round(float(np.mean(v)), 4) for t, v in per_table.items()}
        row["gap"] = {t: paired_bootstrap(v, m) for t, v in per_table.items()}
        if dense is not None and name in dense:
            row["dense"] = round(float(np.mean(dense[name])), 4)
            row["gap"]["dense"] = paired_bootstrap(dense[name], m)
        row["gap_by_file"] = gaps_by_file(per_table, m, dense.get(name) if dense else None, row["window_files"])
        rows[name] = row
    return {"test_rule": TEST_RULE, "cache_lambda": CACHE_LAMBDA,
            "bootstrap": {"B": BOOTSTRAP_B, "seed": BOOTSTRAP_SEED, "interval": "95 % percentile, windows resampled"},
            "discount_estimate": {str(k): v for k, v in discounts.items()},
            "streams": rows, "agreement": agreement, "balance": balance, "window_model": {k: list(v) for k, v in model.items()},
            "window_dense": None if dense is None else {k: list(v) for k, v in dense.items()},
            "window_tables": tables}


def main(argv=None) -> int:
    import argparse

    from . import trained as T

    p = argparse.ArgumentParser(prog="python -m tokenpath._evidence", description=__doc__.split("\n\n")[0])
    p.add_argument("--dense", default=str(T.trained_folder().parent / "stdlib-dense"))
    p.add_argument("--without-models", action="store_true",
                   help="recompute only what needs no model (the verbatim overlap, the file of each window, the "
                        "intervals by file) and write it into the existing file")
    a = p.parse_args(argv)
    folder = T.trained_folder()
    path = folder.parent / EVIDENCE_NAME
    if a.without_models:
        out = T.read_evidence(folder)
        out["overlap"] = corpus_overlap(folder)
        s, d, streams, info = stream_infos(folder)
        out["cache_sweep"] = cache_sweep(fitted_table(folder, 5), streams)
        for name, row in out["streams"].items():
            row["window_files"] = info[name]["window_files"]
            dense = out["window_dense"].get(name) if out["window_dense"] else None
            row["gap_by_file"] = gaps_by_file(out["window_tables"][name], out["window_model"][name], dense,
                                              row["window_files"])
        path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
        print({k: v for k, v in out["overlap"].items() if k not in ("files", "sample_lines")})
        return 0
    import torch
    import transformers

    from . import _train

    torch.set_num_threads(1)
    tables, info, discounts, streams = table_window_losses(folder)
    ev = T.read_evaluation(folder)
    moe = transformers.AutoModelForCausalLM.from_pretrained(folder).float().eval()
    model = {k: ev["streams"][k]["window_model"] for k in ev["streams"]}
    model[TEST] = _train.window_losses(moe, streams[TEST])
    dense, dense_summary = None, None
    dense_dir = Path(a.dense)
    if (dense_dir / "training.json").exists():
        rec = json.loads((dense_dir / "training.json").read_text(encoding="utf-8"))
        dense = dict(rec["window_model"])
        dense_summary = {k: rec[k] for k in ("model", "config", "parameters", "feed_forward_width", "steps",
                                             "seconds_train", "final_train_loss", "held_out", "held_out_curve")}
        dense_summary["threads"] = rec["settings"]["threads"]
        if (dense_dir / "model.safetensors").exists():
            dm = transformers.AutoModelForCausalLM.from_pretrained(dense_dir).float().eval()
            dense[TEST] = _train.window_losses(dm, streams[TEST])
    routing = ev["sample"]["routing"]
    out = evidence_record(tables, info, discounts, model, dense,
                          agreement_by_text(T.held_out_routes(T.committed_model(folder), folder)),
                          pooled_balance(routing["load"], routing["top_k"]))
    out["dense"] = dense_summary
    out["overlap"] = corpus_overlap(folder)
    out["cache_sweep"] = cache_sweep(fitted_table(folder, 5), streams)
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    for name, row in out["streams"].items():
        print(name, row["model"], row.get("dense"), row["tables"], {k: v["mean"] for k, v in row["gap"].items()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
