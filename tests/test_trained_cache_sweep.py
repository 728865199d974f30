"""How much section 11.4's cache weight matters (``cache_sweep`` in
``models/stdlib-evidence.json``): the 5-gram mixed with the window's cache at other weights.
Always: the sweep's entry at the chosen weight is the strongest table the record scores.
With ``--corpus`` (``make check-model``): the 5-gram refitted on the training tokens gives
the stored sweep on every stream."""

from __future__ import annotations

import pytest

from tokenpath import _evidence as V
from tokenpath import trained as T


@pytest.fixture(scope="module")
def evidence():
    return T.read_evidence()


def test_the_sweep_holds_every_weight_and_the_chosen_one_is_the_recorded_table(evidence):
    sweep = evidence["cache_sweep"]
    assert set(sweep) == set(evidence["streams"])
    for name, row in sweep.items():
        assert list(row) == [str(lam) for lam in V.CACHE_SWEEP]
        assert row[str(V.CACHE_LAMBDA)] == pytest.approx(evidence["streams"][name]["tables"]["5-gram + cache"], abs=1e-4)


def test_no_cache_weight_outside_zero_to_one_is_scored():
    table = V.N.unigram([0, 1, 0, 1], 2)
    with pytest.raises(ValueError, match="lams"):
        V.cache_sweep(table, {"s": [[0, 1, 0]]}, (1.0,))


@pytest.mark.corpus
def test_the_refitted_5_gram_gives_the_stored_sweep(evidence):
    streams = V.stream_infos(T.trained_folder())[2]
    assert V.cache_sweep(V.fitted_table(T.trained_folder(), 5), streams) == evidence["cache_sweep"]
