"""What chapter 11, its figures and its sliders read from ``evaluation.json`` instead of
running the pass over the held-out sample (tokenpath.trained.measured_heads,
measured_routing, measured_agreement, and the cosines) is what the engine's pass gives
again, here, from the committed weights; a line's routing cut from the windows that hold
it is the pass's; and a damaged record is refused with the field named."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from tokenpath import trained as T
from tokenpath.safefiles import ModelFileError


@pytest.fixture(scope="module")
def model():
    return T.committed_model()


@pytest.fixture(scope="module")
def evaluation():
    return T.read_evaluation()


def test_the_stored_head_measures_are_the_pass_s(model):
    stored, again = T.measured_heads(), T.held_out_heads(model)
    assert (stored.tokens, stored.rows) == (again.tokens, again.rows)
    for name in T.HEAD_MEASURES:
        np.testing.assert_allclose(stored.measure(name), again.measure(name), rtol=0, atol=5e-7, err_msg=name)
    np.testing.assert_allclose(stored.uniform, again.uniform, rtol=0, atol=5e-7)
    assert stored.strongest("previous") == again.strongest("previous")


def test_the_stored_routing_is_the_pass_s(model):
    stored, again = T.measured_routing(), T.held_out_routing(model)
    assert (stored.tokens, stored.top_k) == (again.tokens, again.top_k)
    np.testing.assert_array_equal(stored.load, again.load)
    np.testing.assert_array_equal(stored.changes, again.changes)


def test_the_stored_text_agreement_and_cosines_are_the_pass_s(model, evaluation):
    stored, again = T.measured_agreement(), T.text_agreement(T.held_out_routes(model))
    assert (stored.texts, stored.same_text_pairs) == (again.texts, again.same_text_pairs)
    np.testing.assert_allclose(stored.same_text, again.same_text, rtol=0, atol=5e-7)
    np.testing.assert_allclose(stored.any_pair, again.any_pair, rtol=0, atol=5e-7)
    cosine = np.nanmean(T.sample_pass(model).cosine, axis=1)
    np.testing.assert_allclose(evaluation["cosine"], cosine, rtol=0, atol=5e-5)


def test_a_line_across_a_window_border_is_routed_as_the_pass_routed_it(model):
    p = T.sample_pass(model)
    spans = T.line_tokens()
    starts = {a for a, _ in p.spans}
    line = next(n for n in T.route_lines() if any(spans[n].start < a < spans[n].stop for a in starts))
    lr = T.line_routing(line)
    cut = slice(spans[line].start, spans[line].stop)
    np.testing.assert_array_equal(lr.routes.chosen, p.chosen[:, cut])
    np.testing.assert_array_equal(lr.routes.probs, p.probs[:, cut])
    np.testing.assert_array_equal(lr.routes.gates, p.gates[:, cut])
    assert lr.routes.pieces == p.pieces[cut]


def _damaged(tmp_path, change):
    folder = tmp_path / "model"
    folder.mkdir()
    record = json.loads((T.trained_folder() / T.EVALUATION_NAME).read_text(encoding="utf-8"))
    change(record)
    (folder / T.EVALUATION_NAME).write_text(json.dumps(record), encoding="utf-8")
    return folder


def _set(path, value):
    def change(record):
        *parents, last = path
        for key in parents:
            record = record[key]
        if value is KeyError:
            del record[last]
        else:
            record[last] = value
    return change


@pytest.mark.parametrize("read, path, value, message", [
    (T.measured_heads, ("sample", "heads"), KeyError, "'sample' must hold an object 'heads'"),
    (T.measured_heads, ("sample", "heads"), [1, 2], "'sample' must hold an object 'heads'"),
    (T.measured_heads, ("sample", "heads", "previous"), KeyError, "sample.heads must have 'previous'"),
    (T.measured_heads, ("sample", "heads", "previous"), [[0.5, "x"]], "sample.heads.previous"),
    (T.measured_heads, ("sample", "heads", "first"), [[0.1, 1.5]] * 4, "sample.heads.first must hold shares"),
    (T.measured_heads, ("sample", "heads", "entropy"), [[1.0, 2.0]], "four [layers, heads] tables of one shape"),
    (T.measured_heads, ("sample", "heads", "rows"), -3, "sample.heads.rows"),
    (T.measured_routing, ("sample", "routing", "load"), [[1, 2], [3, 4]], "load summing to tokens"),
    (T.measured_routing, ("sample", "routing", "changes"), 7, "sample.routing.changes"),
    (T.measured_routing, ("sample", "routing", "tokens"), True, "sample.routing.tokens"),
    (T.measured_agreement, ("sample", "agreement", "any_pair"), [0.5], "one share per layer in both lists"),
    (T.measured_agreement, ("sample", "agreement", "same_text"), [-0.25] * 4, "sample.agreement.same_text must hold shares"),
])
def test_a_damaged_record_is_refused_naming_the_field(tmp_path, read, path, value, message):
    folder = _damaged(tmp_path, _set(path, value))
    with pytest.raises(ModelFileError) as err:
        read(folder)
    assert message in str(err.value)


def test_a_record_without_the_sample_is_refused(tmp_path):
    folder = _damaged(tmp_path, _set(("sample",), KeyError))
    with pytest.raises(ModelFileError, match="'sample' must hold an object 'routing'"):
        T.measured_routing(folder)
