"""The count-based baselines: every distribution sums to 1 and is positive, the
scores are the distributions' own, a tiny example computed by hand, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenpath import ngram as N

D = N.DISCOUNT


@st.composite
def corpora(draw):
    V = draw(st.integers(1, 6))
    ids = draw(st.lists(st.integers(0, V - 1), min_size=3, max_size=40))
    order = draw(st.integers(1, 3))
    ctx = draw(st.lists(st.integers(0, V - 1), max_size=4))
    return V, ids, order, ctx


def fit(ids, V, order):
    return N.unigram(ids, V) if order == 1 else N.kneser_ney(ids, V, order)


@settings(max_examples=150, deadline=None)
@given(corpora())
def test_every_conditional_distribution_sums_to_one_and_is_positive(case):
    V, ids, order, ctx = case
    p = fit(ids, V, order).distribution(ctx)
    assert p.shape == (V,) and (p > 0).all()
    assert p.sum() == pytest.approx(1.0, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(corpora(), st.lists(st.integers(0, 5), min_size=2, max_size=12))
def test_token_losses_are_minus_log_of_the_distribution_after_each_prefix(case, held):
    V, ids, order, _ = case
    held = [h % V for h in held]
    m = fit(ids, V, order)
    losses = N.token_losses(m, held)
    expected = [-np.log(m.distribution(held[:t])[held[t]]) for t in range(1, len(held))]
    np.testing.assert_allclose(losses, expected, rtol=1e-12)
    assert N.mean_loss(m, held) == pytest.approx(np.mean(expected))


# Training stream 0 1 0 1 2 1 over V = 3. Bigrams: (0,1) twice, (1,0), (1,2), (2,1).
# Continuation counts of the unigram level: 1 follows two distinct tokens (0 and 2),
# 0 and 2 one each: total 4 over 3 types, so P1 = (max(c - D, 0) + D * 3 * 1/3) / 4.
STREAM = [0, 1, 0, 1, 2, 1]
P1 = np.array([(1 - D) + D, (2 - D) + D, (1 - D) + D]) / 4          # 0.25, 0.5, 0.25


def test_add_one_unigram_by_hand():
    np.testing.assert_allclose(N.unigram(STREAM, 3).distribution([]), np.array([2 + 1, 3 + 1, 1 + 1]) / (6 + 3))
    np.testing.assert_allclose(N.unigram(STREAM, 4).distribution([2]), np.array([3, 4, 2, 1]) / (6 + 4))


def test_kneser_ney_bigram_by_hand():
    m = N.kneser_ney(STREAM, 3, 2)
    np.testing.assert_allclose(m.distribution([]), P1)
    # after 0: seen once as a context type (1, twice): (2 - D) / 2 + D * 1 / 2 * P1
    np.testing.assert_allclose(m.distribution([0]), np.array([0, 2 - D, 0]) / 2 + D * 1 / 2 * P1)
    # after 1: 0 and 2 once each
    np.testing.assert_allclose(m.distribution([1]), np.array([1 - D, 0, 1 - D]) / 2 + D * 2 / 2 * P1)
    np.testing.assert_allclose(m.distribution([0]), [0.09375, 0.8125, 0.09375])


def test_kneser_ney_trigram_by_hand():
    m = N.kneser_ney(STREAM, 3, 3)
    # trigrams 010, 101, 012, 121: every bigram suffix has continuation count 1;
    # context 1 is followed by 0 and 2 (one each), so P2(. | 1) = (1-D)/2 [0,_,2] + D * 2/2 * P1
    p2 = np.array([1 - D, 0, 1 - D]) / 2 + D * P1
    # context (0, 1) was followed by 0 and by 2 once each
    p3 = np.array([1 - D, 0, 1 - D]) / 2 + D * 2 / 2 * p2
    np.testing.assert_allclose(m.distribution([0, 1]), p3)
    assert m.distribution([0, 1])[2] == pytest.approx(0.359375)
    # an unseen context (2, 2) hands everything to the bigram level, and (2) to P1 in turn
    np.testing.assert_allclose(m.distribution([2, 2]), m.distribution([2]))


def test_a_longer_context_pays_where_the_pattern_needs_it():
    # after 0 comes 1 or 3, decided only by the token before the 0
    pattern = np.array([0, 1, 2, 0, 3, 4])
    train, held = np.tile(pattern, 30), np.tile(pattern, 3)
    assert N.mean_loss(N.kneser_ney(train, 20, 3), held) < N.mean_loss(N.kneser_ney(train, 20, 2), held) \
        < N.mean_loss(N.unigram(train, 20), held)


@pytest.mark.parametrize("call, match", [
    (lambda: N.kneser_ney([0, 1, 5], 3), "ids"),
    (lambda: N.kneser_ney([0, 1, -1], 3), "ids"),
    (lambda: N.kneser_ney([0.5, 1.0, 2.0], 3), "ids"),
    (lambda: N.kneser_ney([0, 1], 3, 3), "ids"),
    (lambda: N.kneser_ney([0, 1, 2], 0), "vocab_size"),
    (lambda: N.kneser_ney([0, 1, 2], 3, order=6), "order"),
    (lambda: N.kneser_ney([0, 1, 2], 3, order=1), "order"),
    (lambda: N.kneser_ney([0, 1, 2], 3, discount=1.0), "discount"),
    (lambda: N.kneser_ney([0, 1, 2], 3, discount="0.75"), "discount"),
    (lambda: N.unigram([], 3), "ids"),
    (lambda: N.unigram([0, 1], 3).distribution([7]), "context"),
    (lambda: N.token_losses(N.unigram([0, 1], 3), [0]), "ids"),
    (lambda: N.token_losses(N.unigram([0, 1], 3), [0, 3]), "ids"),
    (lambda: N.token_losses("model", [0, 1]), "model"),
])
def test_bad_input_names_the_argument(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
