"""Training exploration for the book's model: one configuration trained on one thread,
its held-out loss measured during training, beside the n-gram baselines on the same tokens.

    .venv/bin/python benchmarks/explore_model.py NAME [--steps 2000 --hidden-size 256 ...]

Without arguments (as ``make bench`` runs it) it trains nothing: it says how to start a
run and reports the runs already logged in ``build/explore/``.

Every setting of ``tokenpath._train_data.Settings`` is an option (``--hidden-size``,
``--num-hidden-layers``, ``--vocab-size``, ``--seq-len``, ``--batch-size``, ``--steps``,
``--lr``, ``--schedule wsd`` …). Unlike ``make model`` the defaults here are the stated
data rules (``--split-rule hash --data-rule drop``: held out by path hash, generated data
files out of training), one thread (``--threads 1``) and an evaluation every 200 steps.

What it does, in order:

1. reads the corpus (:mod:`tokenpath.corpus`), trains the tokenizer on the training files
   and encodes three evaluation streams, each cut into ``seq_len`` windows of which an
   evenly spaced subset of about ``--stream-tokens`` targets is kept (all files covered):
   held-out ordinary code, held-out generated data files, and the sources of the outside
   packages (``corpus.OUTSIDE_PACKAGES``, pinned in constraints.txt);
2. fits the unigram, bigram and Kneser–Ney trigram tables (:mod:`tokenpath.ngram`) on
   exactly the training tokens and scores them on exactly those evaluation tokens;
3. trains (``tokenpath._train.train_loop``) and, every ``--eval-every`` steps, scores the
   model on the same windows (each window alone, for the tables as for the model).

Each line of ``build/explore/NAME.jsonl`` is one JSON record (``baselines``, then one
``eval`` per evaluation with the step, the training seconds so far, evaluation time
excluded, and the loss on each stream). It prints the same as it goes. Training time on
one thread converts to ``make model``'s two idle cores by the ratio measured for the same
configuration (``--threads 2`` on an idle machine); see the report of the run.

``--time-steps N`` only times N steps of the given settings (CPU seconds of this
process, which other jobs' load hardly changes) into ``build/explore/step_times.jsonl``;
``--report NAME ...`` prints the logged curves with the training time converted to two
idle cores (the committed run's seconds per step over the same settings' CPU seconds per
step on one thread).

This is a measurement, not a test: ``make test`` does not run it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import fields
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

from tokenpath import _train as T  # noqa: E402
from tokenpath import _train_data as D  # noqa: E402
from tokenpath import corpus as C  # noqa: E402
from tokenpath import ngram as N  # noqa: E402

EXPLORE_DEFAULTS = {"split_rule": "hash", "data_rule": "drop", "threads": 1, "eval_every": 200}


def windows(ids, seq_len: int, limit: int) -> np.ndarray:
    """Windows of ``seq_len + 1`` tokens of the stream ``ids`` (window ``j`` starts at
    ``j * seq_len``), every ``k``-th one so that about ``limit`` targets remain, spread
    over the whole stream (so over all its files). Shape (windows, seq_len + 1)."""
    ids = np.asarray(ids, dtype=np.int64)
    n = (len(ids) - 1) // seq_len
    k = max(1, -(-n * seq_len // limit))
    return np.stack([ids[j * seq_len: j * seq_len + seq_len + 1] for j in range(0, n, k)])


def model_loss(model, win: np.ndarray) -> float:
    """Mean next-token loss (nats) of ``model`` on every target of every window."""
    import torch

    win = torch.as_tensor(win)
    total = 0.0
    for i in range(0, len(win), 16):
        chunk = win[i:i + 16]
        logits = model(chunk[:, :-1]).logits
        total += torch.nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), chunk[:, 1:].reshape(-1), reduction="sum").item()
    return total / win[:, 1:].numel()


def ngram_loss(m, win: np.ndarray) -> float:
    """The same for an n-gram table: each window scored on its own, as the model sees it."""
    return float(np.mean([N.token_losses(m, w) for w in win]))


def eval_streams(d: D.Data, s: D.Settings, limit: int) -> tuple[dict, dict]:
    """({stream: its evaluation windows}, a description of each stream)."""
    files = d.corpus.files
    versions, outside, outside_bytes = C.outside_texts()
    streams, info = {}, {}
    for name, texts, n_files, n_bytes in (
            ("stdlib code", [f.text for f in files if f.held_out and not f.data],
             sum(f.held_out and not f.data for f in files), sum(f.n_bytes for f in files if f.held_out and not f.data)),
            ("stdlib data", [f.text for f in files if f.held_out and f.data],
             sum(f.held_out and f.data for f in files), sum(f.n_bytes for f in files if f.held_out and f.data)),
            ("outside code", outside, len(outside), outside_bytes)):
        ids = D.token_stream(d.tok, texts)
        streams[name] = windows(ids, s.seq_len, limit)
        info[name] = {"files": n_files, "bytes": n_bytes, "tokens": len(ids),
                      "eval_tokens": int(streams[name][:, 1:].size)}
    info["outside code"]["packages"] = versions
    return streams, info


def time_steps(s: D.Settings, n: int) -> int:
    """Print the CPU seconds (this process, so hardly changed by other jobs' load) of
    each of ``n`` training steps of ``s`` on random tokens; the first step is left out
    of the median."""
    import dataclasses
    import statistics

    s = dataclasses.replace(s, steps=n, eval_every=1)
    ids = np.random.default_rng(0).integers(0, s.vocab_size, 200_000)
    marks = [time.process_time()]
    model, _, _ = T.train_loop(s, ids, on_eval=lambda step, model: marks.append(time.process_time()),
                               progress=False)
    per_step = [b - a for a, b in zip(marks, marks[1:])][1:]
    total = sum(p.numel() for p in model.parameters())
    active = total - s.num_hidden_layers * (s.num_local_experts - s.num_experts_per_tok) * 3 * s.hidden_size \
        * s.intermediate_size
    line = json.dumps({"kind": "step_time", "settings": D.recorded_settings(s), "cpu_s_per_step":
                       round(statistics.median(per_step), 3), "params_total": total, "params_active": active})
    print(line, flush=True)
    path = ROOT / "build" / "explore" / "step_times.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as f:
        f.write(line + "\n")
    return 0


def report(names: list[str]) -> int:
    """Print each named run's held-out curve beside its best table, with the training
    CPU seconds converted to wall seconds on two idle cores: the committed run's
    seconds per step there (``training.json``) over the committed recipe's CPU seconds
    per step on one thread (the ``--time-steps`` record of the default settings in
    ``build/explore/step_times.jsonl``), taken to hold for every configuration."""
    from tokenpath import trained as R

    rec = R.read_training()
    two_core = rec["seconds_train"] / rec["steps"]
    recipe = {k: v for k, v in D.recorded_settings(D.Settings(**EXPLORE_DEFAULTS)).items() if k != "eval_every"}
    one_thread = None
    times = ROOT / "build" / "explore" / "step_times.jsonl"
    if times.exists():
        for line in times.read_text().splitlines():
            r = json.loads(line)
            st = {k: v for k, v in r["settings"].items() if k not in ("steps", "eval_every")}
            if st == {k: v for k, v in recipe.items() if k != "steps"}:
                one_thread = r["cpu_s_per_step"]
    factor = two_core / one_thread if one_thread else None
    print(f"two idle cores: {two_core:.3f} s/step (committed run); one thread: {one_thread} CPU s/step "
          f"(same settings); factor {factor and round(factor, 3)}")
    for name in names:
        recs = [json.loads(x) for x in (ROOT / "build" / "explore" / f"{name}.jsonl").read_text().splitlines()]
        base = next(r for r in recs if r["kind"] == "baselines")["losses"]
        streams = list(next(iter(base.values())))
        best = {k: min(b[k] for b in base.values()) for k in streams}
        print(f"\n{name}: best table " + ", ".join(f"{k} {v:.3f}" for k, v in best.items()))
        print(f"{'step':>6} {'CPU s':>8} {'2-core s':>9} " + " ".join(f"{k:>13}" for k in streams)
              + "   model - best table")
        for r in recs:
            if r["kind"] != "eval":
                continue
            conv = f"{r['cpu_seconds_train'] * factor:>9.0f}" if factor else f"{'?':>9}"
            print(f"{r['step']:>6} {r['cpu_seconds_train']:>8.0f} {conv} "
                  + " ".join(f"{r['losses'][k]:>13.3f}" for k in streams) + "   "
                  + " ".join(f"{r['losses'][k] - best[k]:+.3f}" for k in streams))
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("name", nargs="?", default="recipe",
                   help="the run's name: its log is build/explore/NAME.jsonl (default: recipe)")
    p.add_argument("--stream-tokens", type=int, default=32768, help="tokens per evaluation stream (default 32768)")
    for f in fields(D.Settings):
        default = EXPLORE_DEFAULTS.get(f.name, f.default)
        kind = {"bool": lambda v: v.lower() in ("1", "true", "yes")}.get(type(f.default).__name__, type(f.default))
        p.add_argument("--" + f.name.replace("_", "-"), dest=f.name, type=kind, default=default)
    p.add_argument("--time-steps", type=int, default=0,
                   help="only time this many training steps on random tokens (CPU seconds per step)")
    p.add_argument("--report", nargs="+", metavar="NAME", help="print the curves of these runs' logs and stop")
    argv = sys.argv[1:] if argv is None else argv
    a = p.parse_args(argv)
    if a.report:
        return report(a.report)
    if not argv:
        # As `make bench` runs it: a training run takes many minutes, so only say how to
        # start one and report the runs already logged.
        logged = sorted(q.stem for q in (ROOT / "build" / "explore").glob("*.jsonl") if q.stem != "step_times")
        print("explore_model: no run named; start one with `python benchmarks/explore_model.py NAME [--steps N ...]`")
        return report(logged) if logged else 0
    try:
        import torch  # noqa: F401
    except ImportError:
        print("explore_model: it needs the crosscheck extra (PyTorch): make venv EXTRAS=dev,crosscheck")
        return 1
    s = D.Settings(**{f.name: getattr(a, f.name) for f in fields(D.Settings)})
    if a.time_steps:
        return time_steps(s, a.time_steps)
    log_path = ROOT / "build" / "explore" / f"{a.name}.jsonl"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log = log_path.open("w", encoding="utf-8")

    def write(rec):
        log.write(json.dumps(rec) + "\n")
        log.flush()
        print(json.dumps(rec), flush=True)

    t0 = time.perf_counter()
    d = D.prepare_data(s)
    streams, info = eval_streams(d, s, a.stream_tokens)
    write({"kind": "settings", "settings": D.recorded_settings(s), "train_tokens": int(len(d.train_ids)),
           "train_files": sum(not f.held_out and D.keep(f, s) for f in d.corpus.files),
           "corpus_sha256": d.corpus.sha256, "streams": info, "seconds_data": round(time.perf_counter() - t0, 1)})
    baselines = {}
    for m in (N.unigram(d.train_ids, s.vocab_size), N.kneser_ney(d.train_ids, s.vocab_size, 2),
              N.kneser_ney(d.train_ids, s.vocab_size, 3)):
        baselines[m.name] = {k: round(ngram_loss(m, v), 4) for k, v in streams.items()}
    write({"kind": "baselines", "losses": baselines})

    spent = {"eval": 0.0, "cpu_eval": 0.0}
    t_start, c_start = time.perf_counter(), time.process_time()

    def on_eval(step, model):
        e0, c0 = time.perf_counter(), time.process_time()
        losses = {k: round(model_loss(model, v), 4) for k, v in streams.items()}
        e1, c1 = time.perf_counter(), time.process_time()
        write({"kind": "eval", "step": step, "seconds_train": round(e0 - t_start - spent["eval"], 1),
               "cpu_seconds_train": round(c0 - c_start - spent["cpu_eval"], 1),
               "seconds_eval": round(e1 - e0, 1), "lr": round(T.cosine_lr(step - 1, s), 6), "losses": losses})
        spent["eval"] += e1 - e0
        spent["cpu_eval"] += c1 - c0

    model, curve, _ = T.train_loop(s, d.train_ids, on_eval=on_eval, progress=False)
    write({"kind": "train_curve", "every": s.curve_every, "mean_train_loss": curve})
    log.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
