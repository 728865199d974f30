"""The argument checks of ``tokenpath.trained``: a wrong folder, trace, model, record or
list of texts is refused before any work, with an error naming the argument (the
public-function fuzzer covers every argument; these are the cases readers meet)."""

from __future__ import annotations

import json

import pytest

from tokenpath import trained as T
from tokenpath.figures import trained_loss as FL
from tokenpath.safetensors_format import ModelFileError


@pytest.mark.parametrize("fn", [T.read_training, T.read_samples, T.held_out_lines, T.count_moe_parameters,
                                T.committed_model, T.line_tokens, T.held_out_routes])
def test_a_folder_that_is_missing_or_a_file_is_named(fn, tmp_path):
    with pytest.raises(ValueError, match=r"^folder .*does not exist|^folder .*cannot be opened"):
        fn(folder=tmp_path / "missing")
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match=r"^folder .*not a file"):
        fn(folder=tmp_path / "file")
    with pytest.raises(TypeError, match=r"^folder must be a path"):
        fn(folder=3)


def test_a_folder_without_the_file_names_the_file(tmp_path):
    with pytest.raises(ModelFileError, match=r"training\.json: no such file"):
        T.read_training(tmp_path)
    with pytest.raises(ModelFileError, match=r"held_out\.json: no such file"):
        T.held_out_lines(tmp_path)


def test_a_config_that_is_not_mixtral_names_config_json(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"num_hidden_layers": 2}))
    with pytest.raises(ModelFileError, match=r"config\.json: must be a Mixtral config"):
        T.count_moe_parameters(tmp_path)


def test_read_training_is_the_committed_file():
    raw = (T.trained_folder() / T.TRAINING_NAME).read_text(encoding="utf-8")
    assert T.read_training() == json.loads(raw)


@pytest.mark.parametrize("fn", [T.sample_pass, T.held_out_heads, T.held_out_routes, T.held_out_routing,
                                T.line_attention])
def test_model_must_be_a_model(fn):
    source = T.read_training  # any object that is not a Model: a function, a str
    for bad in (source, "fractions.py", []):
        with pytest.raises(TypeError, match=r"^model must be None or a tokenpath\.model\.Model"):
            fn(model=bad)


def test_traces_and_pieces_must_be_what_they_say():
    for bad in (None, 3.0, [None]):
        with pytest.raises(TypeError, match=r"^traces"):
            T.head_stats(bad)
        with pytest.raises(TypeError, match=r"^traces"):
            T.routes_of(bad, ["a"])
        with pytest.raises(TypeError, match=r"^trace "):
            T.previous_token_weight(bad)
        with pytest.raises(TypeError, match=r"^trace "):
            T.routing_rows(bad, ["a"])
    with pytest.raises(ValueError, match=r"^traces must hold at least one"):
        T.head_stats([])
    model = T.committed_model()
    ids = model.encode("def f(x):")
    trace = model.forward(ids)
    pieces = [model.tokenizer.decode([int(i)]) for i in ids]
    for bad in (None, "abc", [1, 2]):
        with pytest.raises(TypeError, match=r"^pieces"):
            T.routing_rows(trace, bad)
        with pytest.raises(TypeError, match=r"^pieces"):
            T.attention_map(trace, bad, 0, 0)
    with pytest.raises(ValueError, match=r"^pieces must have one text per token"):
        T.routing_rows(trace, pieces[:-1])
    with pytest.raises(TypeError, match=r"^ids"):
        T.pieces_of(None)


def test_a_record_must_be_a_training_record():
    record = T.read_training()
    for bad in (None, [], {}, {**record, "held_out_loss": float("nan")},
                {**record, "loss_curve": {"every": 10, "mean_train_loss": []}}):
        with pytest.raises((TypeError, ValueError), match=r"^record"):
            FL.loss_alt(bad, T.read_evaluation())
    with pytest.raises(TypeError, match=r"^ax"):
        FL.draw_loss(None, record, T.read_evaluation())
    with pytest.raises(TypeError, match=r"^evaluation"):
        FL.best_baselines([])


def test_the_held_out_sample_and_the_measurements_are_checked_on_reading(tmp_path):
    (tmp_path / T.HELD_OUT_NAME).write_text(json.dumps({"rule": "r", "files": [{"path": "a.py", "line": 0,
                                                                               "text": "x\n"}]}))
    with pytest.raises(ModelFileError, match=r"held_out\.json: files\[0\]\.line"):
        T.held_out_sample(tmp_path)
    (tmp_path / T.EVALUATION_NAME).write_text(json.dumps({"streams": {}}))
    with pytest.raises(ModelFileError, match=r"evaluation\.json: must be an object"):
        T.read_evaluation(tmp_path)
