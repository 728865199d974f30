"""A dense model beside the book's mixture of experts, on the same tokens and recipe.

    nice -n 19 .venv/bin/python benchmarks/dense_baseline.py          # train (about an hour, one thread)
    .venv/bin/python benchmarks/dense_baseline.py --show              # print the committed record

The dense model is the committed run's settings (``models/stdlib-moe/training.json``)
with the mixture replaced by one SwiGLU block per layer of width ``num_experts_per_tok ×
intermediate_size`` (2 × 256 = 512: the hidden units a token passes through in the
mixture, so it meets as many feed-forward weights; only the routers' 128 × 4 weights per
layer are missing) — :func:`tokenpath._train.dense_config_dict`. Everything else is the
MoE's: the tokenizer and the training tokens (rebuilt from the committed folder and
checked against its counts), the data order (seeded by the seed and the step), the
schedule, the optimizer, the steps, the seed and the evaluation streams. The one
difference in the run is the number of threads (one here, two for the MoE), which
changes floating-point sums only.

It writes ``models/stdlib-dense/training.json``: the settings, the training curve, the
held-out curve (every ``eval_every`` steps, on the same three streams), and the mean
loss of every evaluation window (the windows of ``evaluation.json``, in the same order,
so gaps can be paired window by window). The weights go to
``models/stdlib-dense/model.safetensors`` (not committed).
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

from tokenpath import _evaluate, _train  # noqa: E402
from tokenpath import trained as T  # noqa: E402

OUT = ROOT / "models" / "stdlib-dense"
RECORD = "training.json"


def n_params(model) -> int:
    return sum(p.numel() for p in model.parameters())


def run(out: Path, threads: int, steps: int | None = None, progress: bool = True) -> dict:
    import torch
    import transformers

    t0 = time.perf_counter()
    s, d, streams, info = _evaluate.rebuild(T.trained_folder())
    s = replace(s, threads=threads, **({"steps": steps} if steps else {}))
    evals = []

    def on_eval(step, model):
        evals.append([step, {k: round(_train.model_loss(model, v), 4) for k, v in streams.items()}])
        print(f"step {step}: {evals[-1][1]}", flush=True)

    model, curve, t_train = _train.train_loop(s, d.train_ids, on_eval=on_eval, progress=progress, dense=True)
    model.eval()
    windows = {k: _train.window_losses(model, v) for k, v in streams.items()}
    cfg = _train.dense_config_dict(s)
    record = {
        "python": platform.python_version(),
        "torch": torch.__version__.split("+")[0],
        "transformers": transformers.__version__,
        "model": "LlamaForCausalLM",
        "config": cfg,
        "parameters": n_params(model),
        "feed_forward_width": cfg["intermediate_size"],
        "settings": _train.recorded_settings(s),
        "steps": s.steps,
        "tokens_seen": s.steps * s.batch_size * s.seq_len,
        "train_tokens": int(len(d.train_ids)),
        "streams": info,
        "seconds_train": round(t_train, 1),
        "seconds_total": round(time.perf_counter() - t0, 1),
        "final_train_loss": curve[-1],
        "held_out": evals[-1][1],
        "ln_vocab": round(math.log(s.vocab_size), 4),
        "loss_curve": {"every": s.curve_every, "mean_train_loss": curve},
        "held_out_curve": evals,
        "window_model": windows,
    }
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    (out / "generation_config.json").unlink(missing_ok=True)
    (out / RECORD).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return record


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=str(OUT))
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--steps", type=int, default=None, help="fewer steps, for a trial run (not the committed one)")
    p.add_argument("--show", action="store_true", help="print the committed record's losses")
    a = p.parse_args(argv)
    if a.show:
        rec = json.loads((Path(a.out) / RECORD).read_text(encoding="utf-8"))
        moe = T.read_training(T.trained_folder())
        for name, loss in rec["held_out"].items():
            print(f"{name:13s} dense {loss:.4f}  MoE {moe['held_out'][name]:.4f}")
        return 0
    rec = run(Path(a.out), a.threads, a.steps)
    print(f"{rec['steps']} steps in {rec['seconds_total']:.0f} s; {rec['parameters']:,} parameters; "
          f"held-out {rec['held_out']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
