"""Train the book's own model: a tiny Mixtral-style decoder on the interpreter's
standard-library ``.py`` files (``make model``; ``python -m tokenpath._train``).

Everything is fixed in advance so a rerun gives the same model up to floating-point
noise: the corpus (sorted paths, a stated set of skipped folders, a SHA-256 of what was
read), the held-out slice (every ``HELD_OUT_EVERY``-th file), the tokenizer
(:func:`tokenpath.bpe.train` with Hugging Face tie-breaking), the seed, the data order,
the number of steps and the schedule.

The pure-Python helpers (corpus, split, config) import nothing heavy; :func:`train_model`
imports ``torch`` and ``transformers`` (the crosscheck extra) when it is called.
"""

from __future__ import annotations

import json
import math
import platform
import sysconfig
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from . import bpe
from . import corpus as C
from .corpus import SKIP_PARTS, corpus_files, corpus_sha256, read_corpus  # noqa: F401 (re-exported)
from .examples import trained as ex
from .trained import FOLDER, HELD_OUT_NAME, SAMPLES_NAME, TRAINING_NAME, read_training  # the reader's side

#: The committed model's split: every this-many-th file in sorted order is held out.
HELD_OUT_EVERY = C.HELD_OUT_EVERY
EOS = "<|endoftext|>"
#: Characters taken from each held-out file of code for the committed sample
#: (``held_out.json``), so the checks and the chapters measure the same text on any interpreter.
HELD_OUT_CHARS = 3000
PROMPTS = ex.TRAINED_PROMPTS
NEW_TOKENS = ex.TRAINED_NEW_TOKENS
TEMPERATURE = ex.TRAINED_TEMPERATURE


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


#: The share of the steps over which the "wsd" schedule decays linearly to ``min_lr``.
WSD_DECAY = 0.2


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


def batch_starts(n_tokens: int, s: Settings, step: int):
    """The start offsets of step ``step``'s windows: seeded by (seed, step) alone, so
    the data order does not depend on anything else the run did."""
    import numpy as np

    rng = np.random.default_rng([s.seed, step])
    return rng.integers(0, n_tokens - s.seq_len - 1, size=s.batch_size)


def windows(ids, seq_len: int, limit: int):
    """Windows of ``seq_len + 1`` tokens of the stream ``ids`` (window ``j`` starts at
    ``j * seq_len``), every ``k``-th one so that about ``limit`` targets remain, spread
    over the whole stream (so over all its files). Shape (windows, seq_len + 1).

    >>> windows(list(range(10)), 2, 4).tolist()
    [[0, 1, 2], [4, 5, 6]]
    """
    import numpy as np

    ids = np.asarray(ids, dtype=np.int64)
    n = (len(ids) - 1) // seq_len
    if n < 1:
        raise ValueError(f"ids must hold more than seq_len ({seq_len}) tokens, got {len(ids)}")
    k = max(1, -(-n * seq_len // limit))
    return np.stack([ids[j * seq_len: j * seq_len + seq_len + 1] for j in range(0, n, k)])


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


#: The evaluation streams, in the order training.json lists them.
STREAMS = ("stdlib code", "stdlib data", "outside code")


def eval_streams(d: "Data", s: Settings) -> tuple[dict, dict]:
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


@dataclass(frozen=True)
class Data:
    """A run's text and tokens: the corpus with its flags, the tokenizer trained on the
    training side, the training token stream and the held-out one."""

    corpus: C.Corpus
    tok: bpe.Tokenizer
    train_ids: object       # numpy int64 array
    held_ids: list
    held_files: int


def keep(f: C.CorpusFile, s: Settings) -> bool:
    """Whether the run reads file ``f`` at all (the data rule)."""
    return s.data_rule == "keep" or not f.data


def prepare_data(s: Settings) -> Data:
    """Read the corpus, split it by ``s.split_rule``, apply ``s.data_rule``, train the
    tokenizer on the training texts and encode both sides."""
    import numpy as np

    corpus = C.load(split=s.split_rule)
    train_texts = [f.text for f in corpus.files if not f.held_out and keep(f, s)]
    held_texts = [f.text for f in corpus.files if f.held_out and keep(f, s)]
    tok = train_tokenizer(train_texts, s.vocab_size)
    train_ids = np.asarray(token_stream(tok, train_texts), dtype=np.int64)
    return Data(corpus, tok, train_ids, token_stream(tok, held_texts), len(held_texts))


def train_loop(s: Settings, train_ids, *, on_eval=None, progress: bool = True):
    """Train a fresh model on ``train_ids`` for ``s.steps`` steps; returns
    ``(model, curve, seconds)`` with ``curve`` the mean training loss of every
    ``s.curve_every`` steps. ``on_eval(step, model)`` is called after every
    ``s.eval_every``-th step (when that is > 0) and after the last, under ``no_grad``
    and in eval mode; it must not touch the model's weights. Seeds ``torch`` itself."""
    import torch
    import transformers
    from tqdm.auto import tqdm

    torch.manual_seed(s.seed)
    torch.set_num_threads(s.threads)
    torch.use_deterministic_algorithms(True)
    cfg = transformers.MixtralConfig(**mixtral_config_dict(s))
    model = transformers.MixtralForCausalLM(cfg).float()
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
        outputs = model(x, output_router_logits=True)
        ce = torch.nn.functional.cross_entropy(outputs.logits.reshape(-1, s.vocab_size), y.reshape(-1))
        loss = ce + s.router_aux_loss_coef * outputs.aux_loss
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

    from . import _evaluate  # it imports this module (the streams and the settings)

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
