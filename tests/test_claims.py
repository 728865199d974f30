"""Every number the book states, recomputed with the engine and compared with the text.

Each claim in tests/claims.py is checked at every precision the book writes it in:
rounded (e.g. weights [0.670, 0.330]), full precision ([0.669762, 0.330238]) and
exact fractions ([1/3, 2/3, 0]).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from claims import CLAIMS, NOT_CLAIMS

NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:/\d+)?")


def _numbers(text: str) -> list[float]:
    out = []
    for tok in NUMBER.findall(text.replace("−", "-").replace(",", " ")):
        if "/" in tok:
            a, b = tok.split("/")
            out.append(float(a) / float(b))
        else:
            out.append(float(tok))
    return out


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.name for c in CLAIMS])
def test_claim_reads_as_stated(claim):
    assert claim.renderings() == claim.stated(), f"{claim.name}: the engine no longer gives the stated value"


@pytest.mark.parametrize(
    "claim", [c for c in CLAIMS if c.full is not None], ids=[c.name for c in CLAIMS if c.full is not None]
)
def test_full_precision_claims_agree_to_half_a_unit_in_the_last_digit(claim):
    stated = np.array(_numbers(claim.full[0]))
    computed = np.ravel(np.asarray(claim.compute(), dtype=float))
    assert np.all(np.abs(stated - computed) <= 0.5 * 10.0 ** -claim.full[1] + 1e-15)


@pytest.mark.parametrize(
    "claim", [c for c in CLAIMS if c.exact is not None], ids=[c.name for c in CLAIMS if c.exact is not None]
)
def test_exact_claims_are_exact_to_machine_precision(claim):
    stated = np.array(_numbers(claim.exact))
    computed = np.ravel(np.asarray(claim.compute(), dtype=float))
    np.testing.assert_allclose(computed, stated, rtol=1e-12, atol=1e-12)


def test_claim_names_are_unique():
    names = [c.name for c in CLAIMS]
    assert len(names) == len(set(names))


def test_every_claim_states_something_and_every_exception_has_a_reason():
    assert all(c.stated() for c in CLAIMS)
    assert all(n.why.strip() for n in NOT_CLAIMS)


def test_fig08_column_sums_are_not_all_one_so_a_column_softmax_would_be_caught():
    (claim,) = [c for c in CLAIMS if c.name == "fig08.column_sums"]
    assert not np.allclose(claim.compute(), 1)
