"""Train the book's own model: a tiny Mixtral-style decoder on the interpreter's
standard-library ``.py`` files (``make model``; ``python -m tokenpath._train``).

Everything is fixed in advance so a rerun gives the same model up to floating-point
noise: the data (:mod:`tokenpath._train_data`: the corpus, the split, the tokenizer,
the data order), the seed, the number of steps and the schedule. After training,
:func:`finish` writes the files that depend only on the weights: the held-out sample,
the completions and the measurements.

The helpers that need no model (config, schedule) import nothing heavy; the training
and the finishing import ``torch`` and ``transformers`` (the crosscheck extra) when
they are called.
"""

from __future__ import annotations

import json
import math
import platform
import time
from dataclasses import fields
from pathlib import Path

from . import _evaluate
from . import corpus as C
from ._train_data import (EOS, HELD_OUT_CHARS, HELD_OUT_EVERY, Settings, batch_starts, eval_streams,
                          held_out_sample, keep, prepare_data, recorded_settings)
from .corpus import SKIP_PARTS
from .examples import trained as ex
from .trained import FOLDER, HELD_OUT_NAME, SAMPLES_NAME, TRAINING_NAME, read_training  # the reader's side

PROMPTS = ex.TRAINED_PROMPTS
NEW_TOKENS = ex.TRAINED_NEW_TOKENS
TEMPERATURE = ex.TRAINED_TEMPERATURE


def mixtral_config_dict(s: Settings) -> dict:
    """The keyword arguments of ``transformers.MixtralConfig`` for ``s``.

    >>> d = mixtral_config_dict(Settings())
    >>> d["num_local_experts"], d["num_experts_per_tok"], d["head_dim"]
    (4, 2, 32)
    """
    return dict(
        vocab_size=s.vocab_size, hidden_size=s.hidden_size, intermediate_size=s.intermediate_size,
        num_hidden_layers=s.num_hidden_layers, num_attention_heads=s.num_attention_heads,
        num_key_value_heads=s.num_key_value_heads, head_dim=s.hidden_size // s.num_attention_heads,
        num_local_experts=s.num_local_experts, num_experts_per_tok=s.num_experts_per_tok,
        max_position_embeddings=s.seq_len, rms_norm_eps=s.rms_norm_eps, tie_word_embeddings=s.tie_word_embeddings,
        rope_parameters={"rope_type": "default", "rope_theta": s.rope_theta},
        router_aux_loss_coef=s.router_aux_loss_coef, output_router_logits=False, sliding_window=None,
        attention_dropout=0.0, router_jitter_noise=0.0, eos_token_id=s.vocab_size - 1,
        bos_token_id=None, pad_token_id=None,
    )


def dense_config_dict(s: Settings) -> dict:
    """The keyword arguments of ``transformers.LlamaConfig`` for the dense baseline of
    ``s``: the same width, layers, attention, positions, norms and vocabulary as
    :func:`mixtral_config_dict`, with one SwiGLU block per layer whose width is
    ``num_experts_per_tok × intermediate_size`` (the hidden units a token passes through
    in the mixture), so a token meets as many feed-forward weights as it does there
    (the routers' ``hidden_size × num_local_experts`` weights per layer aside).

    >>> d = dense_config_dict(Settings())
    >>> d["intermediate_size"], d["head_dim"], d["num_key_value_heads"]
    (512, 32, 2)
    """
    moe = mixtral_config_dict(s)
    keep = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
            "head_dim", "max_position_embeddings", "rms_norm_eps", "tie_word_embeddings", "rope_parameters",
            "attention_dropout", "eos_token_id", "bos_token_id", "pad_token_id")
    return {**{k: moe[k] for k in keep}, "intermediate_size": s.num_experts_per_tok * s.intermediate_size,
            "attention_bias": False, "mlp_bias": False}


#: The share of the steps over which the "wsd" schedule decays linearly to ``min_lr``.
WSD_DECAY = 0.2


def cosine_lr(step: int, s: Settings) -> float:
    """Linear warm-up, then cosine decay from ``lr`` to ``min_lr`` at the last step
    (or, for ``s.schedule == "wsd"``, constant ``lr`` and a linear decay to ``min_lr``
    over the last ``WSD_DECAY`` of the steps).

    >>> s = Settings(steps=100, warmup=10, lr=1.0, min_lr=0.0)
    >>> cosine_lr(0, s), cosine_lr(9, s), round(cosine_lr(99, s), 6)
    (0.1, 1.0, 0.0)
    >>> w = Settings(steps=100, warmup=10, lr=1.0, min_lr=0.0, schedule="wsd")
    >>> cosine_lr(50, w), cosine_lr(80, w), round(cosine_lr(99, w), 6)
    (1.0, 1.0, 0.0)
    """
    if step < s.warmup:
        return s.lr * (step + 1) / s.warmup
    if s.schedule == "wsd":
        start = s.steps - max(1, round(WSD_DECAY * s.steps))
        if step < start:
            return s.lr
        frac = (step - start) / max(1, s.steps - 1 - start)
        return s.lr + (s.min_lr - s.lr) * frac
    frac = (step - s.warmup) / max(1, s.steps - 1 - s.warmup)
    return s.min_lr + 0.5 * (s.lr - s.min_lr) * (1 + math.cos(math.pi * frac))


def train_loop(s: Settings, train_ids, *, on_eval=None, progress: bool = True, dense: bool = False):
    """Train a fresh model on ``train_ids`` for ``s.steps`` steps; returns
    ``(model, curve, seconds)`` with ``curve`` the mean training loss of every
    ``s.curve_every`` steps. ``on_eval(step, model)`` is called after every
    ``s.eval_every``-th step (when that is > 0) and after the last, under ``no_grad``
    and in eval mode; it must not touch the model's weights. Seeds ``torch`` itself.
    ``dense=True`` trains the dense baseline (:func:`dense_config_dict`, a
    ``LlamaForCausalLM``; the loss is the cross-entropy alone, there being no router)."""
    import torch
    import transformers
    from tqdm.auto import tqdm

    torch.manual_seed(s.seed)
    torch.set_num_threads(s.threads)
    torch.use_deterministic_algorithms(True)
    if dense:
        model = transformers.LlamaForCausalLM(transformers.LlamaConfig(**dense_config_dict(s))).float()
    else:
        model = transformers.MixtralForCausalLM(transformers.MixtralConfig(**mixtral_config_dict(s))).float()
    model.train()
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2 and "norm" not in n]
    no_decay = [p for n, p in model.named_parameters() if not (p.dim() >= 2 and "norm" not in n)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": s.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=s.lr, betas=(0.9, 0.95))
    data = torch.from_numpy(train_ids)
    curve, window = [], []
    bar = tqdm(range(s.steps), desc="training", disable=not progress, mininterval=2.0)
    t1 = time.perf_counter()
    for step in bar:
        for g in opt.param_groups:
            g["lr"] = cosine_lr(step, s)
        starts = torch.from_numpy(batch_starts(len(train_ids), s, step))
        idx = starts[:, None] + torch.arange(s.seq_len + 1)[None, :]
        chunk = data[idx]
        x, y = chunk[:, :-1], chunk[:, 1:]
        outputs = model(x) if dense else model(x, output_router_logits=True)
        ce = torch.nn.functional.cross_entropy(outputs.logits.reshape(-1, s.vocab_size), y.reshape(-1))
        loss = ce if dense else ce + s.router_aux_loss_coef * outputs.aux_loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        window.append(ce.item())
        if len(window) == s.curve_every:
            curve.append(round(sum(window) / len(window), 4))
            window = []
            bar.set_postfix(loss=f"{curve[-1]:.3f}")
        if on_eval is not None and ((s.eval_every and (step + 1) % s.eval_every == 0) or step + 1 == s.steps):
            model.eval()
            with torch.no_grad():
                on_eval(step + 1, model)
            model.train()
    return model, curve, time.perf_counter() - t1


def model_loss(model, win) -> float:
    """Mean next-token cross-entropy (nats) of the PyTorch ``model`` on every target of
    every window of ``win`` (each window alone, from its own first token)."""
    import torch

    win = torch.as_tensor(win)
    total = 0.0
    with torch.no_grad():
        for i in range(0, len(win), 16):
            chunk = win[i:i + 16]
            logits = model(chunk[:, :-1]).logits
            total += torch.nn.functional.cross_entropy(
                logits.reshape(-1, logits.shape[-1]), chunk[:, 1:].reshape(-1), reduction="sum").item()
    return total / win[:, 1:].numel()


def window_losses(model, win) -> list[float]:
    """The mean next-token cross-entropy (nats) of the PyTorch ``model`` on each window
    of ``win`` on its own: :func:`model_loss` window by window."""
    import torch

    win = torch.as_tensor(win)
    out = []
    with torch.no_grad():
        for i in range(0, len(win), 16):
            chunk = win[i:i + 16]
            logits = model(chunk[:, :-1]).logits
            ce = torch.nn.functional.cross_entropy(logits.transpose(1, 2), chunk[:, 1:], reduction="none")
            out.extend(round(v, 5) for v in ce.double().mean(dim=1).tolist())
    return out


def train_model(out=FOLDER, s: Settings = Settings(), *, progress: bool = True) -> dict:
    """Train and write ``config.json``, ``model.safetensors``, ``tokenizer.json``,
    ``training.json`` and the finishing files (:func:`finish`) into ``out``. Returns
    the training record."""
    import torch
    import transformers

    from . import model as M

    t0 = time.perf_counter()
    out = Path(out)
    d = prepare_data(s)
    streams, info = eval_streams(d, s)
    t_data = time.perf_counter() - t0

    evals = []

    def on_eval(step, model):
        evals.append([step, {k: round(model_loss(model, v), 4) for k, v in streams.items()}])

    model, curve, t_train = train_loop(s, d.train_ids, on_eval=on_eval, progress=progress)
    model.eval()

    out.mkdir(parents=True, exist_ok=True)
    model.config.output_router_logits = False
    model.save_pretrained(out)
    M.write_tokenizer(out, d.tok, eos_token=EOS)
    for extra in ("generation_config.json",):
        (out / extra).unlink(missing_ok=True)
    final = evals[-1][1]
    files = d.corpus.files
    record = {
        "python": platform.python_version(),
        "torch": torch.__version__.split("+")[0],
        "transformers": transformers.__version__,
        "corpus": {"files": len(files), "split_rule": s.split_rule, "data_rule": s.data_rule,
                   "held_out_mod": C.HELD_OUT_MOD, "held_out_every": HELD_OUT_EVERY,
                   "data_files": sum(f.data for f in files),
                   "train_files": sum(not f.held_out and keep(f, s) for f in files),
                   "held_out_files": sum(f.held_out for f in files),
                   "skipped_folders": sorted(SKIP_PARTS), "sha256": d.corpus.sha256,
                   "train_tokens": int(len(d.train_ids)), "held_out_tokens": len(d.held_ids),
                   "bytes": sum(f.n_bytes for f in files)},
        "streams": info,
        "settings": recorded_settings(s),
        "steps": s.steps,
        "tokens_seen": s.steps * s.batch_size * s.seq_len,
        "seconds_data": round(t_data, 1),
        "seconds_train": round(t_train, 1),
        "seconds_total": round(time.perf_counter() - t0, 1),
        "final_train_loss": curve[-1],
        "held_out_loss": final["stdlib code"],
        "held_out": final,
        "ln_vocab": round(math.log(s.vocab_size), 4),
        "loss_curve": {"every": s.curve_every, "mean_train_loss": curve},
        "held_out_curve": evals,
    }
    (out / TRAINING_NAME).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    finish(out)
    return record


def complete(model, ids: list[int], n: int, *, temperature: float = 0.0, seed: int = 0) -> list[int]:
    """``n`` new token IDs after ``ids``: the argmax at temperature 0, otherwise drawn
    from softmax(logits / temperature) with a generator seeded by ``seed``. No cache:
    every step runs the whole sequence again, as the engine's chapters do."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    out = list(ids)
    with torch.no_grad():
        for _ in range(n):
            logits = model(torch.tensor([out])).logits[0, -1].double()
            if temperature == 0:
                out.append(int(torch.argmax(logits)))
            else:
                p = torch.softmax(logits / temperature, dim=-1)
                out.append(int(torch.multinomial(p, 1, generator=gen)))
    return out[len(ids):]


def write_samples(folder=FOLDER) -> dict:
    """Complete ``PROMPTS`` greedily and at ``TEMPERATURE`` with the model as
    ``transformers`` loads it from ``folder``; write ``samples.json``."""
    import transformers

    from . import model as M

    folder = Path(folder)
    model = transformers.AutoModelForCausalLM.from_pretrained(folder).float().eval()
    tok = M.read_tokenizer(folder / M.TOKENIZER_NAME)
    rows = []
    for prompt in PROMPTS:
        ids = tok.encode(prompt)
        greedy = complete(model, ids, NEW_TOKENS)
        warm = complete(model, ids, NEW_TOKENS, temperature=TEMPERATURE, seed=0)
        rows.append({"prompt": prompt, "prompt_ids": ids, "greedy_ids": greedy,
                     "greedy_text": tok.decode(greedy, errors="replace"),
                     "sampled_ids": warm, "sampled_text": tok.decode(warm, errors="replace")})
    record = {"new_tokens": NEW_TOKENS, "temperature": TEMPERATURE, "seed": 0, "completions": rows}
    (folder / SAMPLES_NAME).write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return record


#: Files of older folders that the finishing step no longer writes (removed if present).
RETIRED = ("held_out.txt", "loss.png", "loss.svg")


def finish(folder=FOLDER) -> None:
    """The files written after training: the held-out sample, the completions and the
    measurements (``evaluation.json``). Each depends only on the weights, the
    tokenizer, ``training.json`` and the interpreter's standard library."""
    import torch
    import transformers

    folder = Path(folder)
    rule = read_training(folder)["settings"]["split_rule"]
    sample = {"rule": f"from each held-out file of code, up to {HELD_OUT_CHARS} characters of whole lines "
                      "from its first top-level def or class line",
              "files": held_out_sample(C.load(split=rule))}
    (folder / HELD_OUT_NAME).write_text(json.dumps(sample, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for name in RETIRED:
        (folder / name).unlink(missing_ok=True)
    write_samples(folder)
    model = transformers.AutoModelForCausalLM.from_pretrained(folder).float().eval()
    torch.set_num_threads(read_training(folder)["settings"]["threads"])
    _evaluate.write_evaluation(folder, lambda win: window_losses(model, win))


def main(argv=None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="python -m tokenpath._train", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=str(FOLDER))
    for f in fields(Settings):  # every setting is an option; the defaults are the committed run's
        kind = {"bool": lambda v: v.lower() in ("1", "true", "yes")}.get(type(f.default).__name__, type(f.default))
        p.add_argument("--" + f.name.replace("_", "-"), dest=f.name, type=kind, default=f.default,
                       help=f"default {f.default!r}")
    p.add_argument("--finish-only", action="store_true",
                   help="rewrite held_out.json, samples.json and evaluation.json of a trained folder")
    a = p.parse_args(argv)
    if a.finish_only:
        finish(a.out)
        return 0
    rec = train_model(a.out, Settings(**{f.name: getattr(a, f.name) for f in fields(Settings)}))
    print(f"{rec['steps']} steps in {rec['seconds_total']:.0f} s; final train loss {rec['final_train_loss']:.3f}, "
          f"held-out loss {rec['held_out_loss']:.3f}, ln V {rec['ln_vocab']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
