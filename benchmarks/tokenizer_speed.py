"""Speed of the BPE engine beside the production tokenizers, measured in one run.

Corpus: the first MiB of the running interpreter's standard-library ``.py`` files
(``tokenpath.lessons.bpe.stdlib_corpus``), the same corpus the cross-checks use.

* Training to 1024 tokens (768 merges, min_frequency 2, HF tie rule):
  ``bpe.train`` (incremental) vs ``bpe.train_naive`` (recounts every step) vs Hugging
  Face ``tokenizers`` (``BpeTrainer`` behind the ``ByteLevel`` pre-tokenizer).
* Encoding the same MiB with the trained merges: ``Tokenizer.encode_ordinary`` on a
  fresh tokenizer (empty word cache) vs HF ``Tokenizer.encode`` vs a ``tiktoken``
  ``Encoding`` built from the same ranks.
* Encoding with SmolLM2's real vocabulary (when ``make smollm2`` has fetched it) a Chinese
  paragraph (``benchmarks/texts/zh_prose.txt``), 100,000 characters of that Python code
  and 100,000 of the book's English prose: the engine vs the plain loop that rescans every
  pair after every merge vs HF ``tokenizers``, all caches empty.

Each fast measurement is the best of ``--repeat`` runs, in wall time and in CPU time
(the machine may be shared); the naive trainer runs once (it takes about a minute). Prints seconds and ratios; exits with status 1 when a goal
is missed: incremental ≥ 100× faster than naive, training and encoding no slower
than ``tokenizers`` (ratio ≤ 1), with the real vocabulary ≤ 1.5× ``tokenizers`` on
Chinese and ≤ 1 on code and prose, and no slower than the rescanning loop (within 5 %).
``--skip-naive`` leaves the slow reference out.

    .venv/bin/python benchmarks/tokenizer_speed.py [--repeat 5] [--skip-naive] [--chinese FILE]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

from tokenpath import bpe
from tokenpath import examples as ex
from tokenpath.lessons import bpe as lesson1

VOCAB_SIZE = ex.CROSSCHECK_VOCAB_SIZE


def best_of(repeat: int, fn) -> tuple[float, float, object]:
    """Smallest wall time and smallest CPU time (all threads of this process) of
    ``repeat`` calls, and the last result."""
    wall, cpu, out = float("inf"), float("inf"), None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall = min(wall, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
    return wall, cpu, out


def line(name: str, wall: float, cpu: float, extra: str = "") -> None:
    print(f"  {name:<22}{wall:8.3f} s wall {cpu:8.3f} s CPU   {extra}")


def hf_train(text: str):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE, min_frequency=2, show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator([text], trainer=trainer)
    return tok


CHINESE = Path(__file__).with_name("texts") / "zh_prose.txt"
#: The largest ratio to ``tokenizers`` allowed: Chinese (long words) and the rest.
CHINESE_BUDGET, OTHER_BUDGET = 1.5, 1.0
#: "No slower than the rescanning loop", allowing the spread of two runs of the same work.
SAME_WORK_NOISE = 1.05


def book_prose(limit: int = 100_000) -> str:
    """The book's English prose: the chapter sources outside their code cells."""
    lines, code = [], False
    for md in sorted((Path(__file__).resolve().parents[1] / "book").glob("*.md")):
        for row in md.read_text(encoding="utf-8").splitlines():
            if row.startswith("```"):
                code = not code
            elif not code:
                lines.append(row)
    return "\n".join(lines)[:limit]


def rescanning_encode(tok, text: str) -> list[int]:
    """The baseline: the same split and word cache, each new word merged by the plain loop
    that rescans every pair after every merge (``merge_queue._rescan``)."""
    from tokenpath.bpe.merge_queue import _rescan
    cache, out = {}, []
    for word in tok._split(text):
        ids = cache.get(word)
        if ids is None:
            ids = cache[word] = _rescan(tok._byte_symbols(word.encode("utf-8")), tok._ranks)[0]
        out.extend(ids)
    return out


def real_vocabulary(texts: dict[str, str], repeat: int) -> list[str]:
    """Encoding each text with SmolLM2's 49,152-token vocabulary (read from its GGUF file):
    the engine (priority queue, characters merged alone), the rescanning baseline, and
    ``tokenizers`` running the same vocabulary, merges and pre-tokenizer (each digit alone,
    then ByteLevel). Every run starts with empty caches on all three sides (the engine's
    words and characters, the baseline's words, ``tokenizers``' BPE cache)."""
    from tokenpath.model import tokenizer_from_gguf
    from tokenpath.pretrained import smollm2_path
    path = smollm2_path()
    if not path.is_file():
        print(f"\nreal vocabulary: skipped, {path} is missing (make smollm2)")
        return []
    import gguf
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    fields = gguf.GGUFReader(path).fields
    tok = tokenizer_from_gguf({k: f.contents() for k, f in fields.items() if k.startswith("tokenizer.")})
    chars = bpe.bytes_to_unicode()
    spell = lambda data: "".join(chars[b] for b in data)  # noqa: E731
    hf = Tokenizer(models.BPE({spell(d): i for i, d in tok.vocab.items()},
                              [(spell(a), spell(b)) for a, b in tok.merges]))
    hf.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),
                                                pre_tokenizers.ByteLevel(add_prefix_space=False)])
    hf.decoder = decoders.ByteLevel()

    def ours(text):
        tok._cache.clear()
        return tok.encode_ordinary(text)

    def theirs(text):
        hf.model._clear_cache()
        return hf.encode(text).ids

    failed = []
    print(f"\nencoding with SmolLM2's {tok.n_vocab:,}-token vocabulary, every cache empty; ratios of CPU time "
          "(all three run on one thread, and CPU time is steadier than wall time on a shared machine)")
    for name, text in texts.items():
        t_hf, c_hf, hf_ids = best_of(repeat, lambda: theirs(text))
        t_enc, c_enc, ids = best_of(repeat, lambda: ours(text))
        t_old, c_old, old_ids = best_of(repeat, lambda: rescanning_encode(tok, text))
        assert ids == hf_ids == old_ids, name
        budget = CHINESE_BUDGET if name == "Chinese" else OTHER_BUDGET
        print(f"  {name}: {len(text):,} characters, {len(ids):,} tokens")
        line("tokenpath", t_enc, c_enc, f"ours/HF = {c_enc / c_hf:.2f} (budget {budget})")
        line("rescanning loop", t_old, c_old, f"ours/rescanning = {c_enc / c_old:.2f}")
        line("HF tokenizers", t_hf, c_hf)
        if c_enc / c_hf > budget:
            failed.append(f"{name}: encoding {c_enc / c_hf:.2f}x tokenizers (budget {budget})")
        if c_enc > SAME_WORK_NOISE * c_old:  # ASCII words under 12 symbols run the same loop in both
            failed.append(f"{name}: encoding {c_enc / c_old:.2f}x the rescanning loop")
    return failed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per fast measurement (default 5)")
    parser.add_argument("--skip-naive", action="store_true", help="leave out the naive trainer")
    parser.add_argument("--chinese", type=Path, default=CHINESE, help=f"the Chinese text (default {CHINESE.name})")
    args = parser.parse_args(argv)

    import tiktoken
    import tokenizers

    text = lesson1.stdlib_corpus()
    size = len(text.encode("utf-8"))
    print(f"corpus: {size:,} bytes of stdlib .py files; Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs, tokenizers {tokenizers.__version__}, tiktoken {tiktoken.__version__}")

    t_inc, c_inc, ours = best_of(args.repeat, lambda: bpe.train(text, VOCAB_SIZE, tie_break="hf"))
    t_hf, c_hf, hf = best_of(args.repeat, lambda: hf_train(text))
    print(f"\ntraining to {VOCAB_SIZE} tokens ({len(ours.merges)} merges); ratios of wall time "
          "(HF may use several threads), naive/incremental of CPU time (both one thread)")
    line("tokenpath incremental", t_inc, c_inc)
    line("HF tokenizers", t_hf, c_hf, f"ours/HF = {t_inc / t_hf:.2f} wall, {c_inc / c_hf:.2f} CPU")
    failed = []
    if t_inc / t_hf > 1.0:
        failed.append("training slower than tokenizers")
    if not args.skip_naive:
        t_naive, c_naive, naive = best_of(1, lambda: bpe.train_naive(text, VOCAB_SIZE, tie_break="hf"))
        same = naive.merges == ours.merges
        line("tokenpath naive", t_naive, c_naive,
             f"naive/incremental = {c_naive / c_inc:.0f}× CPU (same merges: {same})")
        if c_naive / c_inc < 100 or not same:
            failed.append("incremental trainer not 100× faster than naive (or merges differ)")

    enc = tiktoken.Encoding(
        name="tokenpath-stdlib", pat_str=bpe.GPT2_PATTERN,
        mergeable_ranks={b: i for i, b in ours.vocab.items()}, special_tokens={},
    )
    # a fresh Tokenizer per run: the word cache starts empty every time
    t_enc, c_enc, ids = best_of(args.repeat, lambda: bpe.Tokenizer(ours.merges).encode_ordinary(text))
    t_hf_enc, c_hf_enc, hf_ids = best_of(args.repeat, lambda: hf.encode(text).ids)
    t_tik, c_tik, tik_ids = best_of(args.repeat, lambda: enc.encode_ordinary(text))
    assert tik_ids == ids and len(hf_ids) == len(ids)
    print(f"\nencoding the same {size:,} bytes ({len(ids):,} tokens; ours starts with an empty word cache)")
    line("tokenpath", t_enc, c_enc)
    line("HF tokenizers", t_hf_enc, c_hf_enc, f"ours/HF = {t_enc / t_hf_enc:.2f} wall")
    line("tiktoken", t_tik, c_tik, f"ours/tiktoken = {t_enc / t_tik:.2f} wall")
    if t_enc / t_hf_enc > 1.0:
        failed.append("encoding slower than tokenizers")

    failed += real_vocabulary({"Chinese": args.chinese.read_text(encoding="utf-8"), "Python code": text[:100_000],
                               "English prose": book_prose()}, args.repeat)
    if failed:
        print("\nMISSED: " + "; ".join(failed))
        return 1
    print("\nall goals met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
