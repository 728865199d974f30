"""Every public engine function, fed bad inputs one argument at a time, raises a
``ValueError``/``TypeError`` that names the argument (see ``_public_fuzz``): no numpy
message such as "inhomogeneous shape", no ``AttributeError`` or ``IndexError``."""

from __future__ import annotations

import warnings

import pytest
from _public_fuzz import MODULES, fuzz, public_functions, recorded_calls, trained_calls


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    import os

    cwd = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("fuzz"))  # a bad directory argument writes here
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            calls = recorded_calls(per_function=2) + trained_calls()
            return calls, *fuzz(calls)
    finally:
        os.chdir(cwd)


def test_every_public_function_is_exercised(outcomes):
    calls, counts, _ = outcomes
    fuzzed = {(c.module, c.name) for c in calls}
    assert [f"{m}.{n}" for m, n, _ in public_functions().values() if (m, n) not in fuzzed] == []
    assert sum(counts.values()) > 10_000
    assert counts["clear"] > 10 * counts["vague"]


def test_bad_inputs_get_errors_that_name_the_argument(outcomes):
    _, _, vague = outcomes
    assert not vague, "\n".join(map(str, vague[:20]))


def test_a_package_s_modules_are_fuzzed_one_by_one():
    # selfcheck is a package: its constructors are fuzzed in the module that defines them
    assert {"selfcheck", "selfcheck.question", "selfcheck.result"} <= set(MODULES)
    assert ("selfcheck.question", "exact") in {(m, n) for m, n, _ in public_functions().values()}
