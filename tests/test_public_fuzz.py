"""Every public engine function, fed bad inputs one argument at a time, raises a
``ValueError``/``TypeError`` that names the argument (see ``_public_fuzz``): no numpy
message such as "inhomogeneous shape", no ``AttributeError`` or ``IndexError``."""

from __future__ import annotations

import warnings

import pytest
from _public_fuzz import fuzz, recorded_calls

#: Functions that still give vague errors for some bad inputs, and why they are left.
#: The test fails when one of them no longer does, so the list only shrinks.
NOT_YET = {
    # the model-folder readers and writers, being reworked separately
    **{f"model.{n}": "model files" for n in ("figure4_place", "list_files", "load", "random_model",
                                            "random_tensors", "read_config", "save", "tensor_shapes",
                                            "tiny_config", "tiny_model")},
    **{f"safetensors_format.{n}": "model files" for n in ("load_tensors", "raw_header", "read_header",
                                                         "read_tensor_by_hand", "save_tensors")},
}


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    import os

    cwd = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("fuzz"))  # a bad directory argument writes here
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fuzz(recorded_calls(per_function=2))
    finally:
        os.chdir(cwd)


def test_every_public_function_is_exercised(outcomes):
    counts, _ = outcomes
    assert sum(counts.values()) > 10_000
    assert counts["clear"] > 10 * counts["vague"]


def test_bad_inputs_get_errors_that_name_the_argument(outcomes):
    _, vague = outcomes
    left = [v for v in vague if v[0] not in NOT_YET]
    assert not left, "\n".join(map(str, left[:20]))


def test_the_list_of_functions_left_only_shrinks(outcomes):
    _, vague = outcomes
    assert set(NOT_YET) <= {v[0] for v in vague}
