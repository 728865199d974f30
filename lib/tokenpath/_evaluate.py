"""The measurements of a trained folder (``evaluation.json``), written by the training
script after training (``make model``; ``python -m tokenpath._train --finish-only``).

1. **Streams and baselines.** The training tokens and the three evaluation streams are
   rebuilt exactly as the run built them (:func:`tokenpath._train_data.eval_streams`, with
   the folder's tokenizer, checked against the counts in ``training.json``). Unigram,
   bigram and trigram tables (:mod:`tokenpath.ngram`) are fitted on exactly the training
   tokens and scored on exactly the model's evaluation windows, each window on its own.
   The model is scored on the same windows, each window's mean loss recorded (the
   training script passes PyTorch's; the suite repeats a few with the engine).
2. **The held-out sample and the ablations.** The engine's pass over ``held_out.json``
   (:func:`tokenpath.trained.sample_pass`) and what it measures of every head and router
   (:func:`sample_record`), the induction test, and every head and
   expert ablated in turn (:func:`tokenpath.trained.ablation_record`).

NumPy and the standard library; the model's loss per window comes from the caller.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from . import corpus as C
from . import ngram as N
from . import trained as T
from ._train_data import Data, Settings, eval_streams, keep, token_stream
from .model import TOKENIZER_NAME, read_tokenizer

#: The tables, by the names evaluation.json uses, and their orders.
TABLES = {"unigram": 1, "bigram": 2, "trigram": 3}


def fit_table(train_ids, vocab_size: int, name: str) -> N.NgramModel:
    """Table ``name`` (a key of :data:`TABLES`) fitted on ``train_ids``."""
    order = TABLES[name]
    return N.unigram(train_ids, vocab_size) if order == 1 else N.kneser_ney(train_ids, vocab_size, order)


def window_table_losses(table: N.NgramModel, windows) -> np.ndarray:
    """[windows] mean loss of ``table`` on each window, scored on its own."""
    return np.array([N.token_losses(table, w).mean() for w in windows])


def rebuild(folder) -> tuple[Settings, Data, dict, dict]:
    """(settings, data, {stream: windows}, stream info) of the run that wrote ``folder``,
    rebuilt with the folder's tokenizer; an error if the counts differ from the record."""
    folder = Path(folder)
    record = T.read_training(folder)
    s = Settings(**record["settings"])
    corpus = C.load(split=s.split_rule)
    if corpus.sha256 != record["corpus"]["sha256"]:
        raise ValueError("this interpreter's standard library is not the one the folder's model was trained on "
                         f"(SHA-256 {corpus.sha256[:12]}…, training.json says {record['corpus']['sha256'][:12]}…)")
    tok = read_tokenizer(folder / TOKENIZER_NAME)
    train_ids = np.asarray(token_stream(tok, [f.text for f in corpus.files if not f.held_out and keep(f, s)]),
                           dtype=np.int64)
    if len(train_ids) != record["corpus"]["train_tokens"]:
        raise ValueError(f"{len(train_ids)} training tokens rebuilt, training.json says "
                         f"{record['corpus']['train_tokens']}")
    d = Data(corpus, tok, train_ids, [], 0)
    streams, info = eval_streams(d, s)
    for name, row in info.items():
        if row["eval_tokens"] != record["streams"][name]["eval_tokens"]:
            raise ValueError(f"stream {name!r}: {row['eval_tokens']} evaluation targets rebuilt, training.json says "
                             f"{record['streams'][name]['eval_tokens']}")
    return s, d, streams, info


def _r(x, digits: int = 6):
    return np.round(np.asarray(x, dtype=float), digits).tolist()


def sample_record(model, folder) -> dict:
    """What the sample pass (:func:`tokenpath.trained.sample_pass`) measures of every head
    and router of the folder's ``model``, as ``evaluation.json`` keeps it under
    ``"sample"`` and :func:`tokenpath.trained.measured_heads`,
    :func:`~tokenpath.trained.measured_routing` and
    :func:`~tokenpath.trained.measured_agreement` read it."""
    heads, routes = T.held_out_heads(model, folder), T.held_out_routes(model, folder)
    routing, agree = routes.stats(), T.text_agreement(routes)
    return {
        "heads": {"rows": heads.rows, **{m: _r(heads.measure(m)) for m in T.HEAD_MEASURES},
                  "uniform": _r(heads.uniform)},
        "routing": {"tokens": routing.tokens, "top_k": routing.top_k, "load": routing.load.tolist(),
                    "changes": routing.changes.tolist()},
        "agreement": {"texts": agree.texts, "same_text_pairs": agree.same_text_pairs,
                      "same_text": _r(agree.same_text), "any_pair": _r(agree.any_pair)},
    }


def evaluation_record(folder, window_loss) -> dict:
    """Everything ``evaluation.json`` holds (see the module's docstring);
    ``window_loss(windows)`` gives the model's mean loss on each window."""
    folder = Path(folder)
    record = T.read_training(folder)
    s, d, streams, info = rebuild(folder)
    model = T.committed_model(folder)
    tables = {name: fit_table(d.train_ids, s.vocab_size, name) for name in TABLES}
    rows = {}
    for name, win in streams.items():
        row = {"files": info[name]["files"], "windows": int(len(win)), "targets": int(win[:, 1:].size)}
        for t, table in tables.items():
            row[t] = _r(window_table_losses(table, win).mean(), 4)
        per_window = np.asarray(window_loss(win), dtype=float)
        row["model"] = _r(per_window.mean(), 4)
        row["model_torch"] = record["held_out"][name]
        row["window_model"] = _r(per_window)
        rows[name] = row
    sample = T.sample_pass(model, folder)
    out = {
        "rules": {"split": C.SPLIT_RULE, "data": C.DATA_RULE},
        "train_tokens": int(len(d.train_ids)),
        "streams": rows,
        "cosine": _r(np.nanmean(sample.cosine, axis=1), 4),
        **T.ablation_record(model, sample),
    }
    out["sample"].update(sample_record(model, folder))
    return out


def write_evaluation(folder, window_loss) -> dict:
    """Write ``evaluation.json`` into ``folder``; returns what it wrote."""
    out = evaluation_record(folder, window_loss)
    (Path(folder) / T.EVALUATION_NAME).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return out
