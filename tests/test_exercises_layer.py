"""Chapter 8's capstone, one decoder layer: the inputs the reader is handed are SmolLM2's
layer 0 in the book's notation, the check runs without the model file (and says how to
get it), it is fast, and it names the first intermediate that differs."""

from __future__ import annotations

import time

import numpy as np
import pytest

from tokenpath import decoder, exercises, pretrained
from tokenpath.examples import asides
from tokenpath.exercises import layer

from _capstone_twins import layer_right, layer_unscaled

try:
    pretrained.smollm2_path()
    HAVE_SMOLLM2 = True
except FileNotFoundError:
    HAVE_SMOLLM2 = False

needs_smollm2 = pytest.mark.skipif(not HAVE_SMOLLM2, reason="SmolLM2's GGUF file is missing (make smollm2)")


@needs_smollm2
def test_the_inputs_are_smollm2_layer_0_in_the_books_notation():
    x, weights, config = layer.layer_inputs()
    assert config == {"Hq": 9, "Hkv": 3, "d_h": 64, "rope_base": 100000.0, "eps": pytest.approx(1e-5)}
    assert set(weights) == set(layer.WEIGHT_NAMES)
    d, inner, kv, d_ff = 576, 9 * 64, 3 * 64, 1536
    shapes = {"attn_norm": (d,), "W_Q": (d, inner), "W_K": (d, kv), "W_V": (d, kv), "W_O": (inner, d),
              "ffn_norm": (d,), "W_g": (d, d_ff), "W_u": (d, d_ff), "W_d": (d_ff, d)}
    assert {k: v.shape for k, v in weights.items()} == shapes
    sizes = {"d": d, "Hq": 9, "Hkv": 3, "d_h": 64, "d_ff": d_ff}
    documented = {k: tuple(eval(part.replace("·", "*"), {}, sizes) for part in shape.strip("[]").split(", "))
                  for k, (shape, _) in layer.WEIGHT_NAMES.items()}
    assert documented == shapes
    assert x.dtype == np.float32 and all(v.dtype == np.float32 for v in weights.values())
    assert all(v.flags.c_contiguous and v.flags.writeable for v in weights.values())
    # the numbers chapter 4's aside runs layer 0 on (there as transposed views, so BLAS
    # sums in another order: equal to float32 precision, not bit for bit)
    from tokenpath.lessons import real_layers

    trace = decoder.decoder_layer(x[None], layer._layer_of(weights, config))
    reading = real_layers.real_head_weights(asides.REAL_ATTENTION_TEXT)
    np.testing.assert_allclose(trace.weights[0], reading.weights, rtol=1e-5, atol=1e-6)


@needs_smollm2
def test_the_check_on_smollm2_takes_well_under_three_seconds_of_cpu():
    exercises.check("decoder_layer", layer.decoder_layer)  # loads and keeps the file's layer once
    start = time.process_time()  # this process's CPU time: other jobs on a loaded machine do not count
    result = exercises.check("decoder_layer", layer_right)
    assert result.passed, result.text()
    assert "SmolLM2-135M-Instruct's layer 0" in result.text()
    assert time.process_time() - start < 3.0


def test_without_the_file_the_random_layers_are_checked_and_the_message_names_make_smollm2(monkeypatch, tmp_path):
    monkeypatch.setenv("TOKENPATH_MODEL_DIR", str(tmp_path))
    monkeypatch.setenv("TOKENPATH_NO_FETCH", "1")  # layer_inputs would fetch the file on first use
    cases = layer._cases()
    assert len(cases) == 2 and "run `make smollm2`" in cases[0].label
    result = exercises.check("decoder_layer", layer.decoder_layer)
    assert result.passed and "make smollm2" in result.text(), result.text()
    with pytest.raises(FileNotFoundError, match="make smollm2"):
        layer.layer_inputs("a text not loaded before")


def test_the_first_intermediate_that_differs_is_named():
    def late(x, weights, config):
        out = layer_right(x, weights, config)
        out["hidden"] = out["hidden"] * 1.01  # right up to SwiGLU's product
        out["out"] = out["out"] + 1.0
        return out

    result = exercises.check("decoder_layer", late)
    assert result.difference.field == "hidden" and result.mistake is None
    assert "SiLU(a) ⊙ c at [t=0, ffn feature=0]" in result.text()


def test_the_chapters_prediction_without_the_scale_the_scores_differ_first():
    result = exercises.check("decoder_layer", layer_unscaled)
    assert result.difference.field == "scores" and result.mistake.name == "no 1/√d_h"


def test_the_random_cases_have_smollm2s_structure_and_catch_each_mistake_alone():
    x, weights, config = layer.random_layer_inputs(8)
    assert config["Hq"] > config["Hkv"] > 1 and x.dtype == np.float64
    for m in layer.DECODER_LAYER.mistakes:  # every mistake differs without the file too
        ex = layer.DECODER_LAYER
        expected = ex.expected(ex.cases()[-2])
        assert ex._compare(ex._run(m.fn, ex.cases()[-2]), expected) is not None, m.name


def test_the_teaching_solution_is_one_readable_function():
    shown = exercises.show_solution("decoder_layer").text()
    assert shown.startswith("tokenpath/exercises/layer.py · decoder_layer")
    assert "raise" not in shown and len(shown.splitlines()) <= 45
    engine = exercises.show_solution("decoder_layer", engine=True).text()
    assert "· decoder_layer" in engine and "· _layer_core" in engine


def test_a_partial_answer_is_compared_key_by_key_and_told_what_to_write_next():
    def started(x, weights, config):
        out = layer_right(x, weights, config)
        return {name: out[name] for name in ("attn_in", "q", "k")}

    text = exercises.check("decoder_layer", started).text()
    assert "has no 'u'" in text and "('attn_in', 'q', 'k') agree with the engine's; write 'u' next" in text, text

    def started_wrong(x, weights, config):
        out = started(x, weights, config)
        return {**out, "q": out["q"] * 2.0}

    result = exercises.check("decoder_layer", started_wrong)
    assert result.difference.field == "q" and result.mistake is None, result.text()
