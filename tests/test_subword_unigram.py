"""Unigram Viterbi (tokenpath.subword.unigram_encode): the trie walk gives the plain
Viterbi's segmentation, its work is bounded (long texts finish or are refused by name),
and an unknown character may not score better than a known piece.
"""

from __future__ import annotations

import math
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenpath import examples as ex
from tokenpath import subword


def plain_viterbi(text: str, pieces: dict, unk: str = "<unk>", unk_score: float = -10.0):
    """Every end position tries every start, the longest piece first (strictly better wins)."""
    s = subword.SPACE + text.replace(" ", subword.SPACE)
    best, back = [0.0] + [-math.inf] * len(s), [None] * (len(s) + 1)
    for end in range(1, len(s) + 1):
        for start in range(end):
            piece = s[start:end]
            if piece in pieces and best[start] + pieces[piece] > best[end]:
                best[end], back[end] = best[start] + pieces[piece], (start, piece)
        if best[end] == -math.inf:
            best[end], back[end] = best[end - 1] + unk_score, (end - 1, unk)
    out, k = [], len(s)
    while k:
        k, piece = back[k]
        out.append(piece)
    return tuple(reversed(out)), best[-1], tuple(best)


PIECES = st.dictionaries(st.text(alphabet="ab▁", min_size=1, max_size=5),
                         st.sampled_from([-1.0, -2.0, -3.0, -1.5, -0.5]), min_size=1, max_size=15)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abc ", max_size=25), PIECES, st.sampled_from([-10.0, -2.0, 0.0]))
def test_the_trie_walk_gives_the_plain_viterbis_segmentation(text, pieces, unk_score):
    # few distinct scores, so equal totals are common and the tie rule is exercised
    t = subword.unigram_encode(text, pieces, unk_score=unk_score)
    assert (t.pieces, t.total, t.best) == plain_viterbi(text, pieces, unk_score=unk_score)


def test_a_positive_unk_score_is_refused_because_an_unknown_character_would_beat_known_pieces():
    with pytest.raises(ValueError, match="unk_score must be a log-probability <= 0, got 5.0: an unknown character "
                                         "must not score better than a known piece"):
        subword.unigram_encode("low", {"low": -1.0}, unk_score=+5)
    assert subword.unigram_encode("x", {"▁": -1.0}, unk_score=0).pieces == ("▁", "<unk>")


def test_200k_characters_of_text_finish_well_under_a_second():
    text = ("the lowest newer lower " * 9000)[:200_000]
    start = time.process_time()
    t = subword.unigram_encode(text, ex.UNIGRAM_PIECES)
    assert time.process_time() - start < 1.0
    assert len(t.best) == len(t.text) + 1 == 200_002 and t.total == pytest.approx(sum(t.scores))
    assert t.pieces[:12] == plain_viterbi(text[:46], ex.UNIGRAM_PIECES)[0][:12]  # two repeats of the phrase


def test_a_text_whose_pieces_all_match_far_is_refused_by_name_in_bounded_time():
    # every position of a 200,000-character run could try 500 pieces (10⁸ candidates)
    pieces = {"a" * k: -1.0 for k in range(1, 501)}
    start = time.process_time()
    with pytest.raises(ValueError, match=r"^text of 200,000 characters needs more than 750,000 candidate pieces "
                                         r"with these pieces \(the longest has 500 characters\)"):
        subword.unigram_encode("a" * 200_000, pieces)
    assert time.process_time() - start < 1.5


def test_a_piece_longer_than_the_text_is_never_walked():
    assert subword._piece_trie({"ab": -1.0, "a": -2.0}) == {"a": [-2.0, {"b": [-1.0, {}]}]}
    t = subword.unigram_encode("a", {"a": -1.0, "▁": -1.0, "x" * 1_000_000: -1.0})
    assert t.pieces == ("▁", "a")
