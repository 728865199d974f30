"""The pretrained SmolLM2-135M-Instruct GGUF file, run by the engine and by ``transformers``.

Both read the same file (``tokenpath.pretrained``; ``make smollm2`` fetches it):
``tokenpath.model.load(path)`` dequantizes its Q4_1/Q8_0 blocks to float32 with the
engine's own reader, ``AutoModelForCausalLM.from_pretrained(dir, gguf_file=name,
dtype=torch.float32)`` with the ``gguf`` package. Measured, in the same run:

* accuracy (one process holding both models): the logits of three real prompts (a chat
  prompt in the file's own template, a line of Python, a Chinese sentence), max
  |engine − transformers| against the logits' standard deviation (budget 1e-4×), and a
  greedy continuation of 32 tokens of the chat prompt, which must be identical;
* speed and memory (each side in a fresh process of its own, one thread): load, the
  logits of a 64-token prompt made of those texts, one cached decode step, peak RSS
  against the float32 weights — the procedure of ``benchmarks/forward_speed.py``,
  whose functions this script runs.

Exits with status 1 when a budget is missed: accuracy, identical tokens, CPU time of
prompt or decode above 1.0× ``transformers``.

    .venv/bin/python benchmarks/real_model.py [--repeat 3] [--steps 16]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import forward_speed as fs  # noqa: E402  (the shared timing procedure)

QUESTION = "What is a token in a language model?"
CODE = "def add(a, b):\n    return a + b\n"
CHINESE = "我喜欢猫。大语言模型把文字切成词元。"
MESSAGES = [{"role": "user", "content": QUESTION}]
GREEDY_STEPS = 32
LOGIT_BUDGET = 1e-4


def _engine(path):
    from tokenpath import model as M

    return M.load(path)


def _reference(path):
    import torch
    from transformers import AutoModelForCausalLM

    torch.set_num_threads(1)
    return AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name, dtype=torch.float32).eval()


def prompts(tok) -> dict[str, list[int]]:
    """The three texts as IDs of the file's tokenizer ``tok``: the chat prompt through the
    file's template (what ``Model.chat_ids`` runs), the others plain (``Model.encode``)."""
    from tokenpath.chat_template import chat_ids

    return {"chat prompt": chat_ids(tok, MESSAGES), "Python": tok.encode(CODE, disallowed_special=()),
            "Chinese": tok.encode(CHINESE, disallowed_special=())}


def long_prompt(tok) -> list[int]:
    """64 IDs of real text: the three prompts, repeated as needed, cut to 64."""
    ids: list[int] = []
    while len(ids) < fs.PROMPT_LEN:
        for p in prompts(tok).values():
            ids += p
    return ids[:fs.PROMPT_LEN]


def _file_tokenizer(path):
    """The file's tokenizer alone, without its weights (for the transformers side's memory)."""
    from tokenpath.gguf_format import read_gguf
    from tokenpath.model import tokenizer_from_gguf

    return tokenizer_from_gguf(read_gguf(path).metadata)


def run_accuracy(path) -> dict:
    import numpy as np
    import torch

    m, ref = _engine(path), _reference(path)
    rows = {}
    with torch.inference_mode():
        for name, ids in prompts(m.tokenizer).items():
            ours = m.logits(ids)
            theirs = ref(torch.tensor([ids])).logits[0].numpy()
            rows[name] = dict(tokens=len(ids), max_diff=float(np.abs(ours - theirs).max()), std=float(theirs.std()))
        chat = prompts(m.tokenizer)["chat prompt"]
        theirs = ref.generate(torch.tensor([chat]), max_new_tokens=GREEDY_STEPS, do_sample=False)[0, len(chat):]
    g = m.generate(chat, GREEDY_STEPS, temperature=0, stop_at_eos=False)
    return dict(rows=rows, ours=g.sampled.tolist(), theirs=theirs.tolist(), text=m.tokenizer.decode(g.sampled.tolist()))


def run_side(side: str, path, repeat: int, steps: int) -> dict:
    """One side's load, prompt and decode times and its peak RSS (forward_speed's procedure)."""
    t = time.perf_counter()
    if side == "engine":
        m = _engine(path)
        load = time.perf_counter() - t
        return dict(load=load, **fs.time_engine(m, long_prompt(m.tokenizer), repeat, steps), peak=fs.peak_rss())
    model = _reference(path)
    load = time.perf_counter() - t
    ids = long_prompt(_file_tokenizer(path))  # the engine side's 64 IDs, without the engine's weights in memory
    return dict(load=load, **fs.time_transformers(model, ids, repeat, steps), peak=fs.peak_rss())


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--steps", type=int, default=16, help="greedy decode steps timed after the prefill")
    p.add_argument("--side", choices=("accuracy", "engine", "transformers"), help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.repeat < 1 or a.steps < 1:
        p.error("--repeat and --steps must be at least 1")
    sys.path.insert(0, str(fs.ROOT / "lib"))
    from tokenpath import pretrained

    try:
        path = pretrained.smollm2_path()
    except FileNotFoundError as err:
        print(err)
        return 1
    if a.side:
        out = run_accuracy(path) if a.side == "accuracy" else run_side(a.side, path, a.repeat, a.steps)
        print(json.dumps(out))
        return 0

    acc, ours, theirs = (fs.child(__file__, "--side", side, "--repeat", a.repeat, "--steps", a.steps)
                         for side in ("accuracy", "engine", "transformers"))
    print(f"{pretrained.SMOLLM2.filename}, float32 after dequantization, one thread")
    print(f"{'logits':14s} {'tokens':>6s} {'max |diff|':>11s} {'std':>8s} {'diff/std':>9s}")
    worst = 0.0
    for name, r in acc["rows"].items():
        worst = max(worst, r["max_diff"] / r["std"])
        print(f"{name:14s} {r['tokens']:6d} {r['max_diff']:11.3e} {r['std']:8.3f} {r['max_diff'] / r['std']:9.2e}")
    same = acc["ours"] == acc["theirs"]
    print(f"greedy {GREEDY_STEPS} tokens of the chat prompt identical: {same}; the engine's: {acc['text']!r}")
    ratios = fs.print_table(ours, theirs)
    mib = 1 << 20
    print(f"engine peak RSS / float32 weights ({ours['weights'] / mib:.0f} MiB): {ours['peak'] / ours['weights']:.2f} "
          f"(goal ≤ 1.5); decode tokens identical: {ours['tokens'] == theirs['tokens']}")
    failed = [k for k in ("prompt_cpu", "decode_cpu") if ratios[k] > 1.0]
    if worst > LOGIT_BUDGET:
        failed.append(f"logits {worst:.2e}× std > {LOGIT_BUDGET}")
    if not same or ours["tokens"] != theirs["tokens"]:
        failed.append("greedy tokens differ")
    if failed:
        print("over budget:", ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
