"""Chapter 4's new pieces: attention without weights (section 4.1), the heads of figure 23
(split, attend, merge) and the inline computations the chapter prints beside the engine.

Expected values come from independent engine calls or from the definition written out in
plain numpy here; nothing is a hand-typed number.
"""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import attention as A
from tokenpath import examples as ex
from tokenpath import figures
from tokenpath.figures import attention_heads as FH
from tokenpath.lessons import attention as LA


def _weightless(X):
    """Section 4.1's loop, one position at a time: dot products with the visible rows,
    softmax, weighted sum."""
    out = []
    for i in range(len(X)):
        s = np.array([X[i] @ X[j] for j in range(i + 1)])
        a = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
        out.append(sum(a[j] * X[j] for j in range(i + 1)))
    return np.array(out)


def test_the_weightless_loop_is_the_engine_with_q_and_k_equal_to_x_rescaled():
    X = ex.WORD_X
    d = X.shape[1]
    # attention divides by √d, so feeding X·d^(1/4) as query and key gives X·Xᵀ back
    engine = A.causal_attention(X * d**0.25, X * d**0.25, X)
    assert np.allclose(_weightless(X), engine.output)


def test_bank_reads_river_most_and_money_flips_its_meaning():
    X = ex.WORD_X
    i = len(ex.WORDS) - 1
    water, money = ex.WORD_FEATURES.index("water"), ex.WORD_FEATURES.index("money")
    out = _weightless(X)[i]
    assert out[water] > out[money]
    X2 = X.copy()
    X2[1] = ex.WORD_MONEY
    out2 = _weightless(X2)[i]
    assert out2[money] > out2[water]
    # the weight goes to the earlier word, not to "bank" itself
    s = X[: i + 1] @ X[i]
    assert int(np.argmax(s)) == 1


def test_a_long_row_reads_mostly_itself_without_learned_views():
    X = ex.WORD_X
    w = A.softmax(np.where(A.causal_mask(3), X @ X.T, -np.inf))
    assert w[1, 1] > 0.99


def test_the_chapter_s_figure_8_lines_equal_the_engine():
    Q, K, U = ex.FIG8_Q, ex.FIG8_K, ex.FIG8_U
    S = Q @ K.T / np.sqrt(Q.shape[-1])
    M = np.where(np.tril(np.ones((3, 3), dtype=bool)), 0.0, -np.inf)
    E = np.exp(S + M)
    W = E / E.sum(axis=-1, keepdims=True)
    t = A.causal_attention(Q, K, U)
    assert np.allclose(S, t.scores) and np.allclose(E, t.exp_scores) and np.allclose(W, t.weights)
    assert np.allclose(W @ U, t.output)
    # and the check is not vacuous: a softmax over the columns would differ
    assert not np.allclose(E / E.sum(axis=0, keepdims=True), t.weights)


# ------------------------------------------------------------------ figure 23


def test_split_heads_is_a_reshape_of_the_wide_projection():
    s = LA.multi_head()
    b, t, d = s.q_wide.shape
    for h in range(s.heads):
        assert np.array_equal(s.q[:, h], s.q_wide[..., h * s.d_h:(h + 1) * s.d_h])
    assert s.q.shape == (b, ex.H, t, d // ex.H)
    assert np.array_equal(A.merge_heads(s.q), s.q_wide)


def test_each_head_attends_on_its_own_and_merge_concatenates():
    s = LA.multi_head()
    for b in range(s.q.shape[0]):
        for h in range(s.heads):
            one = A.causal_attention(s.q[b, h], s.k[b, h], s.u[b, h])
            assert np.allclose(one.weights, s.attention.weights[b, h])
            assert np.allclose(s.merged[b, :, h * s.d_h:(h + 1) * s.d_h], one.output)


def test_figure_23_draws_the_trace_s_numbers():
    drawn = figures.render(23)
    s = drawn.trace
    art = drawn.artists
    for i in range(s.q_wide.shape[1]):
        for j in range(s.q_wide.shape[2]):
            assert art[f"Qwide[{i},{j}]"].get_text() == FH._val(s.q_wide[0, i, j])
            assert art[f"merged[{i},{j}]"].get_text() == FH._val(s.merged[0, i, j])
    for h in range(s.heads):
        for i in range(s.q.shape[2]):
            for j in range(s.d_h):
                assert art[f"Q[{h}][{i},{j}]"].get_text() == FH._val(s.q[0, h, i, j])
                assert art[f"O[{h}][{i},{j}]"].get_text() == FH._val(s.attention.output[0, h, i, j])
    assert f"{list(s.q.shape)}".replace(" ", "") in drawn.alt.replace(" ", "")
    figures.style.close(drawn.figure)


@pytest.mark.parametrize("x, out", [(-0.04, "0.0"), (-0.06, "−0.1"), (1.25, "1.2"), (2.0, "2.0")])
def test_figure_23_writes_one_decimal_with_the_book_s_minus_and_no_negative_zero(x, out):
    assert FH._val(x) == out
