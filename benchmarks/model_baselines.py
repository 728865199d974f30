"""The committed model against count-based tables on the same tokens, per file group.

    .venv/bin/python benchmarks/model_baselines.py [--threads 1] [--json build/model_baselines.json]

Needs the crosscheck extra (PyTorch and transformers load ``models/stdlib-moe``).

1. **Data groups.** The corpus (:mod:`tokenpath.corpus`) read twice: with the committed
   model's split (every 20th file in sorted order) and with the path-hash split, each
   side cut into ordinary code and generated data files by ``corpus.is_data``; files,
   bytes and tokens (the committed tokenizer, each file followed by EOS) per group.
2. **Baselines.** Unigram (add-one), bigram and trigram (interpolated Kneser–Ney,
   D = 0.75) tables (:mod:`tokenpath.ngram`) fitted on exactly the committed model's
   training tokens (every training file of its split, data files included, as it was
   trained), and the committed model, scored on exactly the same held-out tokens:
   per group, and on the sources of the outside packages (``corpus.OUTSIDE_PACKAGES``,
   pinned in constraints.txt), which neither the model nor the tables saw. Each stream
   is cut into non-overlapping windows of the model's ``seq_len + 1`` tokens (a last
   shorter piece is left out); every window is scored on its own, by the model and by
   the tables alike, and every target in it counts.

This is a measurement, not a test: ``make test`` does not run it. About 2–4 minutes on
one thread.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from explore_model import model_loss, ngram_loss, windows  # noqa: E402
from tokenpath import _train as T  # noqa: E402
from tokenpath import corpus as C  # noqa: E402
from tokenpath import model as M  # noqa: E402
from tokenpath import ngram as N  # noqa: E402
from tokenpath import trained as R  # noqa: E402


def group_rows(tok, split: str) -> list[dict]:
    """Files, bytes and tokens per (side, group) under ``split``."""
    corpus = C.load(split=split)
    rows = []
    for side, held in (("training", False), ("held-out", True)):
        for group in ("code", "data"):
            fs = [f for f in corpus.files if f.held_out == held and f.group == group]
            rows.append({"split": split, "side": side, "group": group, "files": len(fs),
                         "bytes": sum(f.n_bytes for f in fs),
                         "tokens": len(T.token_stream(tok, [f.text for f in fs]))})
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--json", default=str(ROOT / "build" / "model_baselines.json"))
    a = p.parse_args(argv)
    try:
        import torch
        import transformers
    except ImportError:
        print("model_baselines: skipped, it needs the crosscheck extra (PyTorch and transformers):"
              " make bench EXTRAS=dev,crosscheck")
        return 0

    torch.set_num_threads(a.threads)
    folder = R.trained_folder()
    record = R.read_training(folder)
    tok = M.read_tokenizer(folder / M.TOKENIZER_NAME)
    seq_len = record["settings"]["seq_len"]
    V = record["settings"]["vocab_size"]

    t0 = time.perf_counter()
    print("Data groups (committed tokenizer; each file followed by EOS)")
    print(f"{'split':6} {'side':9} {'group':5} {'files':>6} {'bytes':>11} {'tokens':>10}")
    groups = group_rows(tok, "index") + group_rows(tok, "hash")
    for r in groups:
        print(f"{r['split']:6} {r['side']:9} {r['group']:5} {r['files']:>6} {r['bytes']:>11,} {r['tokens']:>10,}")
    print(f"data rule: >= {C.DATA_MIN_WORDS} name/string/number tokens, >= {C.DATA_LITERAL_SHARE:.0%} of them "
          f"literals; hash split: sha256(path) % {C.HELD_OUT_MOD} == 0; index split: every "
          f"{C.HELD_OUT_EVERY}th file (the committed model's)")

    corpus = C.load(split="index")
    if corpus.sha256 != record["corpus"]["sha256"]:
        print("warning: this interpreter's standard library is not the one the model was trained on")
    train_ids = np.asarray(T.token_stream(tok, corpus.texts(held_out=False)), dtype=np.int64)
    if len(train_ids) != record["corpus"]["train_tokens"]:
        print(f"warning: {len(train_ids)} training tokens, training.json says {record['corpus']['train_tokens']}")
    versions, outside, outside_bytes = C.outside_texts()
    streams = {
        "held-out, all": corpus.texts(held_out=True),
        "held-out code": corpus.texts(held_out=True, group="code"),
        "held-out data": corpus.texts(held_out=True, group="data"),
        "outside code": outside,
    }
    wins = {k: windows(T.token_stream(tok, v), seq_len, 1 << 40) for k, v in streams.items()}
    tables = [N.unigram(train_ids, V), N.kneser_ney(train_ids, V, 2), N.kneser_ney(train_ids, V, 3)]
    model = transformers.AutoModelForCausalLM.from_pretrained(folder).float().eval()
    rows = []
    for name, w in wins.items():
        row = {"stream": name, "files": len(streams[name]), "targets": int(w[:, 1:].size)}
        for m in tables:
            row[m.name] = round(ngram_loss(m, w), 4)
        with torch.no_grad():
            row["model"] = round(model_loss(model, w), 4)
        rows.append(row)

    print(f"\nLoss in nats per token; tables fitted on the model's {len(train_ids):,} training tokens; "
          f"outside code: {', '.join(f'{k} {v}' for k, v in versions.items())} ({outside_bytes:,} bytes)")
    names = [m.name for m in tables] + ["model"]
    short = {"unigram (add-one)": "unigram", "bigram (interpolated KN)": "bigram KN",
             "trigram (interpolated KN)": "trigram KN", "model": "model"}
    print(f"{'stream':15} {'files':>5} {'targets':>8} " + " ".join(f"{short[n]:>10}" for n in names)
          + f" {'model - best table':>19}")
    for r in rows:
        best = min(r[n] for n in names[:-1])
        print(f"{r['stream']:15} {r['files']:>5} {r['targets']:>8,} " + " ".join(f"{r[n]:>10.3f}" for n in names)
              + f" {r['model'] - best:>+19.3f}")
    print(f"({time.perf_counter() - t0:.0f} s)")
    out = Path(a.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"groups": groups, "losses": rows, "outside_packages": versions,
                               "train_tokens": int(len(train_ids))}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
