"""The committed measurements (``evaluation.json``) agree with the committed weights: the
suite repeats what it affordably can. With ``--corpus`` (``make check-model``, CI), the
n-gram tables are refitted on the training tokens and rescored on one stream and the
engine scores a window of every stream (both rebuild the data from the whole standard
library, seconds); always, the
held-out sample's pass, the induction test and the ablations of the heads and the
expert the chapter names are run again (the ablations on two files of the sample)."""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import _evaluate as E
from tokenpath import corpus as C
from tokenpath import trained as T

#: Bound for a number the engine recomputes exactly as the script did (both NumPy
#: float64; the file keeps 6 decimals).
EXACT = 2e-6
#: Bound between PyTorch's loss on a window (float32, 5 decimals kept) and the engine's.
ACROSS = 1e-3


@pytest.fixture(scope="module")
def evaluation():
    return T.read_evaluation()


@pytest.fixture(scope="module")
def model():
    return T.committed_model()


@pytest.fixture(scope="module")
def sample(model):
    return T.sample_pass(model)


def test_every_stream_has_the_three_tables_and_the_model_on_the_recorded_windows(evaluation):
    record = T.read_training()
    assert list(evaluation["streams"]) == list(record["streams"])
    for name, row in evaluation["streams"].items():
        assert row["targets"] == record["streams"][name]["eval_tokens"] == row["windows"] * record["settings"]["seq_len"]
        assert len(row["window_model"]) == row["windows"]
        assert row["model"] == pytest.approx(np.mean(row["window_model"]), abs=1e-4)
        assert row["model"] == pytest.approx(record["held_out"][name], abs=ACROSS)  # measured during training
        assert row["unigram"] > row["bigram"] > row["trigram"] or name == "stdlib data"
    assert evaluation["rules"] == {"split": C.SPLIT_RULE, "data": C.DATA_RULE}


@pytest.fixture(scope="module")
def rebuilt():
    try:
        return E.rebuild(T.trained_folder())
    except ValueError as err:  # another interpreter's standard library: nothing to compare
        pytest.skip(str(err))


@pytest.mark.corpus
def test_the_tables_refitted_on_the_training_tokens_give_the_committed_losses(rebuilt, evaluation):
    s, d, streams, _ = rebuilt
    assert len(d.train_ids) == evaluation["train_tokens"]
    row = evaluation["streams"]["outside code"]
    for name in ("unigram", "trigram"):
        table = E.fit_table(d.train_ids, s.vocab_size, name)
        assert E.window_table_losses(table, streams["outside code"]).mean() == pytest.approx(row[name], abs=1e-4)


@pytest.mark.corpus
def test_the_engine_scores_a_window_of_every_stream_as_the_script_recorded(rebuilt, evaluation, model):
    _, _, streams, _ = rebuilt
    for name, windows in streams.items():
        k = len(windows) // 2
        ours = T.token_losses(model.forward(windows[k]).logits, windows[k]).mean()
        assert ours == pytest.approx(evaluation["streams"][name]["window_model"][k], abs=ACROSS), name


def test_the_sample_and_its_ablation_windows_are_the_committed_ones(evaluation, sample):
    assert evaluation["sample"]["tokens"] == sample.tokens >= 20_000
    assert evaluation["sample"]["files"] == len(sample.files) >= 10
    assert evaluation["sample"]["loss"] == pytest.approx(sample.loss, abs=EXACT)
    base = T.intact_losses(sample)
    windows = evaluation["ablation_windows"]
    assert windows["windows"] == len(T.ablation_spans(sample)) == len(sample.files)
    assert windows["targets"] == int((~np.isnan(base)).sum())
    np.testing.assert_allclose(T.file_means(sample, base), windows["file_loss"], atol=EXACT)


def test_the_induction_test_is_repeated_exactly(evaluation, model):
    ind = T.induction_scores(model)
    stored = evaluation["induction"]
    assert (ind.sequences, ind.length) == (stored["sequences"], stored["length"])
    np.testing.assert_allclose(ind.score, stored["score"], atol=EXACT)
    assert (ind.first_loss, ind.second_loss) == pytest.approx((stored["first_copy_loss"], stored["second_copy_loss"]),
                                                              abs=EXACT)


def _named_heads(evaluation):
    score = np.array(evaluation["induction"]["score"])
    induction = tuple(int(i) for i in np.unravel_index(score.argmax(), score.shape))
    return sorted({T.held_out_heads().strongest("previous"), induction})


def test_the_named_heads_ablated_again_give_the_committed_losses(evaluation, model, sample):
    runs = T.repeated_tokens(model.config.vocab_size)
    for layer, head in _named_heads(evaluation):
        row = next(r for r in evaluation["heads"] if (r["layer"], r["head"]) == (layer, head))
        losses = T.ablated_losses(model, sample, "head", layer, head, files=[0, 1])
        np.testing.assert_allclose(T.file_means(sample, losses, files=[0, 1]), row["file_loss"][:2], atol=EXACT)
        first, second = T.second_copy_loss(model, runs, replace=T.ablated(model, "head", layer, head))
        assert (first, second) == pytest.approx((row["first_copy_loss"], row["second_copy_loss"]), abs=EXACT)
        assert row["first_copy_delta"] == pytest.approx(first - evaluation["induction"]["first_copy_loss"], abs=EXACT)


def test_the_costliest_expert_removed_again_gives_the_committed_losses(evaluation, model, sample):
    row = max(evaluation["experts"], key=lambda r: r["delta"])
    losses = T.ablated_losses(model, sample, "expert", row["layer"], row["expert"], files=[0, 1])
    np.testing.assert_allclose(T.file_means(sample, losses, files=[0, 1]), row["file_loss"][:2], atol=EXACT)
    with pytest.raises(ValueError, match="file 2 of the sample has no measured loss"):
        T.file_means(sample, losses)  # the other files were not ablated
    ok = ~np.isnan(T.intact_losses(sample))
    served = T.served_targets(sample, row["layer"], row["expert"]) & ok
    assert row["served"] == int(served.sum())


def test_an_expert_of_the_last_layer_changes_only_the_predictions_made_where_it_ran(evaluation, model, sample):
    """Token i is predicted at position i − 1; in the last layer no attention carries an
    expert's output to another position, so its removal leaves every other target's loss
    as it was: the served targets are the ones whose prediction ran it."""
    layer = model.config.num_hidden_layers - 1
    row = next(r for r in evaluation["experts"] if (r["layer"], r["expert"]) == (layer, 0))
    losses = T.ablated_losses(model, sample, "expert", layer, 0)
    base = T.intact_losses(sample)
    ok = ~np.isnan(losses)
    served = T.served_targets(sample, layer, 0) & ok
    np.testing.assert_allclose(losses[ok & ~served], base[ok & ~served], atol=1e-9)
    assert np.abs(losses[served] - base[served]).max() > 1e-3
    assert row["served"] == int(served.sum())
    assert row["served_delta"] == pytest.approx((losses[served] - base[served]).mean(), abs=EXACT)


def test_removing_a_head_or_an_expert_leaves_the_model_itself_unchanged(model):
    ids = model.encode("def f(self, x):\n    return x\n")
    before = model.logits(ids)
    changed = model.forward(ids, replace=T.ablated(model, "head", 0, 0)).logits
    assert not np.allclose(changed, before)
    np.testing.assert_array_equal(model.logits(ids), before)
    dropped = model.forward(ids, replace=T.ablated(model, "expert", 0, 0)).layers[0]
    assert dropped.moe.route.scores.shape[-1] == model.config.n_experts - 1


@pytest.mark.parametrize("call, error, name", [
    (lambda m: T.ablated(m, "layer", 0, 0), ValueError, "kind"),
    (lambda m: T.ablated(m, "head", 9, 0), ValueError, "layer"),
    (lambda m: T.ablated(m, "head", 0, 9), ValueError, "head"),
    (lambda m: T.ablated(m, "expert", 0, 9), ValueError, "expert"),
    (lambda m: T.ablated("model", "head", 0, 0), TypeError, "model"),
    (lambda m: T.zero_head("weights", 0), TypeError, "weights"),
    (lambda m: m.forward([1, 2], replace={0: "weights"}), TypeError, "replace"),
    (lambda m: m.forward([1, 2], replace={9: m.layer_weights(0)}), ValueError, "layer index"),
    (lambda m: T.repeated_tokens(2), ValueError, "vocab_size"),
])
def test_bad_ablations_are_refused_by_name(model, call, error, name):
    with pytest.raises(error, match=name):
        call(model)
