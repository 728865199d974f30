"""The training script's fixed choices (corpus, split, schedule, config) and the
committed folder's own consistency. No torch: these run in every ``make test``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tokenpath import _train as T
from tokenpath import _train_data as D
from tokenpath import corpus as C
from tokenpath import trained as R
from tokenpath import model as M

FOLDER = Path(__file__).resolve().parents[1] / T.FOLDER


def test_corpus_is_sorted_py_files_without_the_skipped_folders(tmp_path):
    for rel in ("b.py", "a/x.py", "test/t.py", "a/tests/t.py", "idlelib/i.py", "site-packages/s.py", "c.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n")
    files = C.corpus_files(tmp_path)
    assert [str(f.relative_to(tmp_path)) for f in files] == ["a/x.py", "b.py"]


def test_corpus_hash_changes_with_a_path_or_a_byte(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    files = C.corpus_files(tmp_path)
    before = C.corpus_sha256(files, tmp_path)
    (tmp_path / "a.py").write_text("x = 2\n")
    assert C.corpus_sha256(files, tmp_path) != before


def test_held_out_slice_is_every_twentieth_file_and_disjoint_from_training():
    texts = [str(i) for i in range(45)]
    train, held = D.split(texts)
    assert held == ["0", "20", "40"] and not set(train) & set(held) and len(train) + len(held) == 45


def test_cosine_schedule_warms_up_then_decays_to_the_floor():
    s = D.Settings()
    lrs = [T.cosine_lr(i, s) for i in range(s.steps)]
    assert max(lrs) == pytest.approx(s.lr) and lrs[-1] == pytest.approx(s.min_lr)
    assert all(a >= b for a, b in zip(lrs[s.warmup:], lrs[s.warmup + 1:]))


def test_data_order_depends_on_seed_and_step_only():
    s = D.Settings()
    assert (D.batch_starts(10_000, s, 3) == D.batch_starts(10_000, s, 3)).all()
    assert (D.batch_starts(10_000, s, 3) != D.batch_starts(10_000, s, 4)).any()


def test_committed_folder_holds_every_file_and_its_record_agrees_with_its_config():
    for name in ("config.json", "model.safetensors", "tokenizer.json", "training.json", "samples.json",
                 "held_out.json", "evaluation.json"):
        assert (FOLDER / name).is_file(), name
    for name in T.RETIRED:
        assert not (FOLDER / name).exists(), name
    record = T.read_training(FOLDER)
    cfg = json.loads((FOLDER / "config.json").read_text())
    assert cfg["model_type"] == "mixtral" and cfg["vocab_size"] == record["settings"]["vocab_size"]
    assert record["ln_vocab"] == pytest.approx(math.log(cfg["vocab_size"]), abs=1e-4)
    assert record["held_out_loss"] < record["ln_vocab"] - 2
    tok = M.read_tokenizer(FOLDER / M.TOKENIZER_NAME)
    assert len(tok.vocab) + len(tok.special_tokens) == cfg["vocab_size"]
    assert tok.special_tokens[D.EOS] == cfg["eos_token_id"]


def test_counting_by_tensor_name_agrees_with_the_engine_counting_from_the_config():
    c = R.count_moe_parameters(FOLDER)
    e = M.count_parameters(M.read_config(FOLDER / "config.json"))
    assert (c.total, c.active_with_table) == (e.total, e.active)
    # what one token reads: one row of the embedding table, not all of it
    assert c.active == c.active_with_table - c.embedding + c.hidden
    assert c.embedding == c.hidden * R.read_training(FOLDER)["settings"]["vocab_size"]


def test_the_default_settings_are_recorded_with_the_committed_keys_only():
    record = T.read_training(FOLDER)
    assert list(D.recorded_settings(D.Settings())) == list(record["settings"])
    assert D.recorded_settings(D.Settings(**record["settings"])) == record["settings"]


def test_the_wsd_schedule_holds_the_peak_then_decays_linearly_to_the_floor():
    s = D.Settings(steps=200, warmup=10, schedule="wsd")
    lrs = [T.cosine_lr(i, s) for i in range(s.steps)]
    start = s.steps - round(T.WSD_DECAY * s.steps)
    assert all(lr == s.lr for lr in lrs[s.warmup:start + 1]) and lrs[-1] == pytest.approx(s.min_lr)
    steps = [a - b for a, b in zip(lrs[start:], lrs[start + 1:])]
    assert max(steps) == pytest.approx(min(steps))


@pytest.mark.parametrize("kwargs, match", [
    ({"split_rule": "random"}, "split_rule"),
    ({"data_rule": "some"}, "data_rule"),
    ({"schedule": "step"}, "schedule"),
    ({"hidden_size": 130}, "hidden_size"),
    ({"num_key_value_heads": 3}, "num_attention_heads"),
    ({"num_experts_per_tok": 5}, "num_experts_per_tok"),
    ({"steps": 0}, "steps"),
    ({"vocab_size": 100}, "vocab_size"),
])
def test_bad_settings_name_the_setting(kwargs, match):
    with pytest.raises(ValueError, match=match):
        D.Settings(**kwargs)
