"""The committed model against count-based tables on the same tokens, per stream.

    .venv/bin/python benchmarks/model_baselines.py              # print evaluation.json's table
    .venv/bin/python benchmarks/model_baselines.py --recompute  # measure again (crosscheck extra)

The measurement itself is part of the training script's finishing step
(:mod:`tokenpath._evaluate`, written to ``models/stdlib-moe/evaluation.json`` by
``make model`` and ``python -m tokenpath._train --finish-only``): unigram (add-one),
bigram and trigram (interpolated Kneser–Ney, D = 0.75) tables fitted on exactly the
model's training tokens and scored on exactly its evaluation windows, beside the model.
This script prints that table, or with ``--recompute`` measures it again into a
scratch copy of the folder and says whether it matches the committed file. It then
prints the stronger tables of ``models/stdlib-evidence.json`` (4- and 5-gram, the 5-gram
with a cache, the test stream, paired bootstrap intervals; ``python -m tokenpath._evidence``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

from tokenpath import trained as T  # noqa: E402


def table(evaluation: dict) -> str:
    lines = [f"{'stream':13s} {'targets':>8s} {'unigram':>8s} {'bigram':>8s} {'trigram':>8s} {'model':>8s} "
             f"{'best − model':>13s}"]
    for name, row in evaluation["streams"].items():
        best = min(row[t] for t in ("unigram", "bigram", "trigram"))
        lines.append(f"{name:13s} {row['targets']:8,d} {row['unigram']:8.3f} {row['bigram']:8.3f} "
                     f"{row['trigram']:8.3f} {row['model']:8.3f} {best - row['model']:+13.3f}")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--recompute", action="store_true", help="measure again (needs PyTorch and transformers)")
    a = p.parse_args(argv)
    committed = T.read_evaluation()
    print(table(committed))
    evidence = T.read_evidence()
    print(f"\nagainst the strongest table (5-gram + cache), 95 % paired bootstrap over windows, "
          f"B = {evidence['bootstrap']['B']:,}:")
    for name, row in evidence["streams"].items():
        g = row["gap"]["5-gram + cache"]
        print(f"{name:13s} model {row['model']:.3f}  table {row['tables']['5-gram + cache']:.3f}  "
              f"gap {g['mean']:.3f} [{g['low']:.3f}, {g['high']:.3f}]")
    if not a.recompute:
        return 0
    from tokenpath import _train

    with tempfile.TemporaryDirectory() as tmp:
        for f in T.trained_folder().iterdir():
            shutil.copy(f, tmp)
        _train.finish(tmp)
        again = json.loads((Path(tmp) / T.EVALUATION_NAME).read_text(encoding="utf-8"))
    print("\nmeasured again:\n" + table(again))
    print("identical to the committed evaluation.json:", again == committed)
    return 0 if again == committed else 1


if __name__ == "__main__":
    raise SystemExit(main())
