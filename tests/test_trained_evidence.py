"""The evidence file beside the trained model (``models/stdlib-evidence.json``,
:mod:`tokenpath._evidence`) agrees with itself, with ``evaluation.json`` and with the
engine. Always: every mean and every bootstrap interval is derived again from the
stored per-window losses, the model's windows are the ones ``evaluation.json`` keeps,
the pooled balance is derived again from the stored routing load. With ``--corpus``
(``make check-model``): the tables are refitted and rescored on every stream, the
coverage counted again, the test stream rebuilt by its rule and two of its windows
scored by the engine, and the per-text agreement measured again on the sample's routes."""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import _evidence as V
from tokenpath import ngram as N
from tokenpath import trained as T

#: PyTorch's loss on a window (float32, 5 decimals kept) against the engine's.
ACROSS = 1e-3


@pytest.fixture(scope="module")
def evidence():
    return T.read_evidence()


@pytest.fixture(scope="module")
def evaluation():
    return T.read_evaluation()


def test_every_stream_holds_every_table_and_the_test_stream_is_the_one_the_rule_names(evidence):
    assert set(evidence["streams"]) == {"stdlib code", "stdlib data", "outside code", V.TEST}
    assert evidence["test_rule"] == V.TEST_RULE
    assert set(evidence["streams"][V.TEST]["packages"]) == set(V.TEST_PACKAGES)
    for name, row in evidence["streams"].items():
        assert set(row["tables"]) == set(V.TABLES)
        assert 0 < row["files_touched"] <= row["files"]


def test_the_means_and_the_intervals_follow_from_the_stored_windows(evidence):
    assert evidence["bootstrap"] == {"B": V.BOOTSTRAP_B, "seed": V.BOOTSTRAP_SEED,
                                     "interval": "95 % percentile, windows resampled"}
    for name, row in evidence["streams"].items():
        model = evidence["window_model"][name]
        assert row["windows"] == len(model)
        assert row["model"] == pytest.approx(np.mean(model), abs=1e-4)
        for t, per in evidence["window_tables"][name].items():
            assert len(per) == len(model)
            assert row["tables"][t] == pytest.approx(np.mean(per), abs=1e-4)
            assert row["gap"][t] == V.paired_bootstrap(per, model)
        if evidence["window_dense"] is not None:
            dense = evidence["window_dense"][name]
            assert row["dense"] == pytest.approx(np.mean(dense), abs=1e-4)
            assert row["gap"]["dense"] == V.paired_bootstrap(dense, model)
        # the stronger the table, the smaller its gap: each order is at least as good as the one below
        means = [row["tables"][t] for t in ("bigram", "trigram", "4-gram", "5-gram", "5-gram + cache")]
        assert means == sorted(means, reverse=True)


def test_the_dense_record_is_the_committed_training_record(evidence):
    import json

    rec = json.loads((T.trained_folder().parent / "stdlib-dense" / "training.json").read_text(encoding="utf-8"))
    for name, per in rec["window_model"].items():
        assert evidence["window_dense"][name] == per
    assert evidence["dense"]["held_out"] == rec["held_out"]
    assert evidence["dense"]["parameters"] == rec["parameters"]
    assert rec["settings"] == {**T.read_training()["settings"], "threads": 1}


def test_the_validation_streams_are_evaluation_json_s_windows(evidence, evaluation):
    for name, row in evaluation["streams"].items():
        assert evidence["window_model"][name] == row["window_model"]
        assert evidence["streams"][name]["tables"]["trigram"] == pytest.approx(row["trigram"], abs=1e-4)
        assert evidence["streams"][name]["files"] == row["files"]


def test_the_pooled_balance_follows_from_the_stored_load(evidence, evaluation):
    routing = evaluation["sample"]["routing"]
    assert evidence["balance"] == V.pooled_balance(routing["load"], routing["top_k"])
    load = np.array(routing["load"])
    np.testing.assert_allclose(np.array(evidence["balance"]["token_share"]).sum(axis=1), routing["top_k"], atol=1e-3)
    assert load.sum() == routing["tokens"] * routing["top_k"] * load.shape[0]


def test_bad_input_is_refused_by_name():
    with pytest.raises(ValueError, match="a and b"):
        V.paired_bootstrap([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="lam"):
        V.cache_losses(N.unigram([0, 1], 2), [0, 1, 0], 1.0)
    with pytest.raises(ValueError, match="order"):
        V.discount_estimate([0, 1], 3)


def test_the_bootstrap_is_seeded_and_its_interval_moves_with_the_seed():
    rng = np.random.default_rng(3)
    a, b = rng.normal(1, 1, 50), rng.normal(0, 1, 50)
    assert V.paired_bootstrap(a, b, B=500, seed=1) == V.paired_bootstrap(a, b, B=500, seed=1)
    assert V.paired_bootstrap(a, b, B=500, seed=1) != V.paired_bootstrap(a, b, B=500, seed=2)


def test_files_touched_counts_what_the_windows_read():
    from tokenpath._train_data import windows

    lengths = [5, 1, 1, 9, 2, 30, 3]
    ids = np.concatenate([np.full(n, i) for i, n in enumerate(lengths)])
    for seq_len, limit in ((4, 8), (3, 30), (2, 4), (6, 100)):
        win = windows(ids, seq_len, limit)
        assert V.files_touched(lengths, seq_len, limit) == len(np.unique(win))


def test_the_cache_mixture_is_the_table_where_nothing_repeats():
    table = N.kneser_ney([0, 1, 2, 3, 0, 1, 2, 3], 4, 2)
    w = [0, 1, 2, 3]
    np.testing.assert_allclose(V.cache_losses(table, w, 0.1), N.token_losses(table, w) - np.log(0.9))


@pytest.mark.corpus
def test_the_tables_refitted_and_the_test_stream_rebuilt_give_the_committed_file(evidence):
    tables, info, discounts, streams = V.table_window_losses(T.trained_folder())
    assert {str(k): v for k, v in discounts.items()} == evidence["discount_estimate"]
    for name, per_table in tables.items():
        for key in ("files", "files_touched", "eval_tokens"):
            assert info[name][key] == evidence["streams"][name][key], (name, key)
        for t, per in per_table.items():
            np.testing.assert_allclose(per, evidence["window_tables"][name][t], atol=2e-5)
    model = T.committed_model()
    for j in (0, len(streams[V.TEST]) - 1):  # the engine scores two test windows as PyTorch did
        w = streams[V.TEST][j]
        assert T.token_losses(model.forward(w).logits, w).mean() == pytest.approx(evidence["window_model"][V.TEST][j], abs=ACROSS)


@pytest.mark.corpus
def test_the_agreement_per_text_is_measured_again(evidence):
    assert V.agreement_by_text(T.held_out_routes()) == evidence["agreement"]


def test_the_dense_baseline_has_the_moe_s_active_feed_forward_width():
    from tokenpath import _train
    from tokenpath._train_data import Settings

    s = Settings(**T.read_training()["settings"])
    d = _train.dense_config_dict(s)
    assert d["intermediate_size"] == s.num_experts_per_tok * s.intermediate_size
    moe = _train.mixtral_config_dict(s)
    assert {k: v for k, v in d.items() if k in moe} == {k: moe[k] for k in d if k in moe and k != "intermediate_size"} | {
        "intermediate_size": d["intermediate_size"]}


def test_the_dense_baseline_stores_what_one_moe_token_reads_but_the_routers():
    transformers = pytest.importorskip("transformers", reason="transformers not installed: the crosscheck extra")
    from tokenpath import _train
    from tokenpath._train_data import Settings

    s = Settings(**T.read_training()["settings"])
    model = transformers.LlamaForCausalLM(transformers.LlamaConfig(**_train.dense_config_dict(s)))
    count = T.count_moe_parameters()
    routers = s.num_hidden_layers * s.hidden_size * s.num_local_experts
    assert sum(p.numel() for p in model.parameters()) == count.active_with_table - routers
