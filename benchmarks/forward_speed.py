"""The engine's forward pass beside ``transformers.LlamaForCausalLM``, same weights, same run.

The model is a seeded random Llama of SmolLM2-135M's shape (V = 49,152, d = 576, 30
layers, 9 query heads on 3 K/V heads, d_ff = 1536, RoPE base 100000, ε 1e-5, tied
embedding: 134,515,008 numbers), written once with ``tokenpath.model.save`` as float32.
Each side then runs in a fresh process of its own, with one thread
(``OPENBLAS_NUM_THREADS=1``; ``torch.set_num_threads(1)``), so that its peak resident
memory is its own:

* load: ``tokenpath.model.load(dir)`` vs ``LlamaForCausalLM.from_pretrained(dir, dtype=torch.float32)``;
* prompt: the logits of a 64-token prompt, every row (best of ``--repeat`` runs);
* decode: one new token with the K/V cache, averaged over ``--steps`` greedy steps after
  the 64-token prefill (``Model.logits(ids, cache=…)`` vs ``model(ids, past_key_values=…)``),
  best of ``--repeat`` runs;
* peak RSS (the process's ``VmHWM``, ``resource.getrusage`` off Linux) against the float32 weights.

Times are the best of ``--repeat`` runs in wall time and in CPU time of the process; the
machine may be shared, so the budget is on CPU time. Both sides must pick the same greedy
tokens. Prints a table; exits with status 1 when the engine takes longer than
``transformers`` on prompt or decode (CPU ratio > 1.0), when the model built in memory
(``random_model``) peaks above 1.5× its float32 weights, or when the tokens differ. The
peak after ``load`` is shown too (the reader copies tensor by tensor and maps no file:
within 1.5× the float32 weights, ``tests/test_load_peak.py``).

    .venv/bin/python benchmarks/forward_speed.py [--repeat 5] [--steps 16]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

PROMPT_LEN = 64
SEED = 0


def smollm2_shape():
    from tokenpath import model as M

    return M.LlamaConfig(49152, 576, 1536, 30, 9, 3, rms_norm_eps=1e-5, rope_theta=100000.0,
                         tie_word_embeddings=True, max_position_embeddings=8192)


def prompt_ids() -> list[int]:
    return [(7 * i + 11) % 49152 for i in range(PROMPT_LEN)]


def peak_rss() -> int:
    """This process's peak resident bytes. Linux's ``getrusage`` maximum is carried from the
    parent across ``fork``/``exec`` (a child would report at least the parent's size), so
    the kernel's per-image high-water mark ``VmHWM`` is read where it exists."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:  # pragma: no cover (not Linux)
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux and BSD report KiB


def best(repeat: int, fn) -> tuple[float, float, object]:
    """Smallest wall time and smallest CPU time of ``repeat`` calls, and the last result."""
    wall, cpu, out = float("inf"), float("inf"), None
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        wall, cpu = min(wall, time.perf_counter() - t), min(cpu, time.process_time() - c)
    return wall, cpu, out


def decode_timed(repeat: int, steps: int, run) -> tuple[float, float, list[int]]:
    """Per-token wall and CPU time of ``steps`` cached greedy steps (best of ``repeat``);
    ``run(steps)`` prefills, then returns the tokens, timing only the steps."""
    wall, cpu, tokens = float("inf"), float("inf"), []
    for _ in range(repeat):
        w, c, tokens = run(steps)
        wall, cpu = min(wall, w / steps), min(cpu, c / steps)
    return wall, cpu, tokens


def time_engine(m, ids, repeat: int, steps: int) -> dict:
    """Prompt and cached-decode times of an engine ``Model`` on ``ids`` (also the greedy tokens)."""
    import numpy as np

    ids = np.asarray(ids)
    m.logits(ids)  # warm-up
    prompt, prompt_cpu, _ = best(repeat, lambda: m.logits(ids))

    def run(n):
        cache = m.new_cache()
        nxt = int(m.logits(ids, cache=cache)[-1].argmax())  # prefill
        out, t0, c0 = [nxt], time.perf_counter(), time.process_time()
        for _ in range(n):
            nxt = int(m.logits([nxt], cache=cache)[-1].argmax())
            out.append(nxt)
        return time.perf_counter() - t0, time.process_time() - c0, out

    decode, decode_cpu, tokens = decode_timed(repeat, steps, run)
    return dict(prompt=prompt, prompt_cpu=prompt_cpu, decode=decode, decode_cpu=decode_cpu, tokens=tokens,
                weights=4 * m.parameter_count, dtype=str(m.dtype))


def time_transformers(model, ids, repeat: int, steps: int) -> dict:
    """The same for a ``transformers`` causal LM (``model(ids, past_key_values=…)``)."""
    import torch

    ids = torch.tensor([list(ids)])
    with torch.inference_mode():
        model(ids)  # warm-up
        prompt, prompt_cpu, _ = best(repeat, lambda: model(ids).logits)

        def run(n):
            out = model(ids, use_cache=True)  # prefill
            past, nxt = out.past_key_values, int(out.logits[0, -1].argmax())
            tokens, t0, c0 = [nxt], time.perf_counter(), time.process_time()
            for _ in range(n):
                out = model(torch.tensor([[nxt]]), past_key_values=past, use_cache=True)
                past, nxt = out.past_key_values, int(out.logits[0, -1].argmax())
                tokens.append(nxt)
            return time.perf_counter() - t0, time.process_time() - c0, tokens

        decode, decode_cpu, tokens = decode_timed(repeat, steps, run)
    return dict(prompt=prompt, prompt_cpu=prompt_cpu, decode=decode, decode_cpu=decode_cpu, tokens=tokens)


def run_engine(folder: str, repeat: int, steps: int) -> dict:
    from tokenpath import model as M

    t = time.perf_counter()
    m = M.load(folder)
    load = time.perf_counter() - t
    return dict(load=load, **time_engine(m, prompt_ids(), repeat, steps), peak=peak_rss())


def run_random(steps: int) -> dict:
    """Peak memory of the same model built in memory (``random_model``), prompt and decode run."""
    import numpy as np

    from tokenpath import model as M

    m = M.random_model(smollm2_shape(), seed=SEED)
    m.logits(np.array(prompt_ids()))
    m.generate(prompt_ids(), steps, temperature=0)
    return dict(peak=peak_rss(), weights=4 * m.parameter_count)


def run_transformers(folder: str, repeat: int, steps: int) -> dict:
    import torch
    from transformers import LlamaForCausalLM

    torch.set_num_threads(1)
    t = time.perf_counter()
    model = LlamaForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
    load = time.perf_counter() - t
    return dict(load=load, **time_transformers(model, prompt_ids(), repeat, steps), peak=peak_rss())


def child(script, *args) -> dict:
    """Run ``script`` with ``args`` in a fresh process on one thread; its last line of output, as JSON."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, str(script), *map(str, args)], env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"{Path(script).name} {' '.join(map(str, args))} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def print_table(ours: dict, theirs: dict) -> dict[str, float]:
    """Print load, prompt, decode and peak RSS of both sides; return engine / transformers per row."""
    mib = 1 << 20
    print(f"{'':28s} {'engine':>12s} {'transformers':>14s} {'ratio':>7s}")
    ratios = {}
    rows = (("load", "load", 1, "s"), ("prompt", f"prompt ({PROMPT_LEN} tokens), wall", 1, "s"),
            ("prompt_cpu", f"prompt ({PROMPT_LEN} tokens), CPU", 1, "s"), ("decode", "decode per token, wall", 1e3, "ms"),
            ("decode_cpu", "decode per token, CPU", 1e3, "ms"), ("peak", "peak RSS after loading", 1 / mib, "MiB"))
    for key, label, scale, unit in rows:
        ratios[key] = ours[key] / theirs[key]
        print(f"{label:28s} {ours[key] * scale:8.3f} {unit:3s} {theirs[key] * scale:10.3f} {unit:3s} "
              f"{ratios[key]:7.2f}")
    return ratios


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--steps", type=int, default=16, help="greedy decode steps after the prefill")
    p.add_argument("--side", choices=("engine", "random", "transformers", "write"), help=argparse.SUPPRESS)
    p.add_argument("--folder", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.repeat < 1 or a.steps < 1:
        p.error("--repeat and --steps must be at least 1")
    if a.side:
        if a.side == "random":
            print(json.dumps(run_random(a.steps)))
        elif a.side == "write":
            from tokenpath import model as M

            M.save(a.folder, M.random_model(smollm2_shape(), seed=SEED))
        else:
            run = run_engine if a.side == "engine" else run_transformers
            print(json.dumps(run(a.folder, a.repeat, a.steps)))
        return 0

    # every step in a child of this small process: a child's getrusage maximum would
    # start at the parent's size, and each side's peak must be its own
    with tempfile.TemporaryDirectory() as tmp:
        folder = str(Path(tmp) / "smollm2-shaped")
        t = time.perf_counter()
        subprocess.run([sys.executable, __file__, "--side", "write", "--folder", folder], check=True)
        made = time.perf_counter() - t
        ours, theirs, built = (child(__file__, "--side", side, "--folder", folder, "--repeat", a.repeat,
                                     "--steps", a.steps) for side in ("engine", "transformers", "random"))

    mib = 1 << 20
    print(f"SmolLM2-135M-shaped random Llama, float32, one thread; {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}; model written in {made:.1f} s")
    ratios = print_table(ours, theirs)
    loaded, in_memory = ours["peak"] / ours["weights"], built["peak"] / built["weights"]
    print(f"engine peak RSS / float32 weights ({ours['weights'] / mib:.0f} MiB), dtype {ours['dtype']}: "
          f"{in_memory:.2f} built by random_model, {loaded:.2f} read by load (goal ≤ 1.5)")
    same = ours["tokens"] == theirs["tokens"]
    print(f"greedy tokens after the prompt ({a.steps + 1}) identical: {same}")
    # the machine may be shared: CPU time is the budget, wall time is shown beside it
    failed = [k for k in ("prompt_cpu", "decode_cpu") if ratios[k] > 1.0]
    if failed:
        print("over budget (engine ≤ 1.0× transformers):", ", ".join(failed))
    if in_memory > 1.5:
        print("over budget: peak RSS of the model built in memory above 1.5× the float32 weights")
    return 1 if failed or in_memory > 1.5 or not same else 0


if __name__ == "__main__":
    raise SystemExit(main())
