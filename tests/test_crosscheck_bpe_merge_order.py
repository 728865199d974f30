"""Cross-check the encoder's merge order against the production libraries: Hugging Face
``tokenizers`` (``Word::merge_all``, a priority queue of (rank, position)) and
``tiktoken`` merge one pair at a time, the lowest rank first and the leftmost of equal
ranks, as :mod:`tokenpath.bpe.merge_queue` does; merging every occurrence of the best pair
at once would give other tokens on a table whose merges can make a pair of lower rank.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenpath import bpe

tokenizers = pytest.importorskip("tokenizers", reason="needs the crosscheck extra (HF tokenizers)")
tiktoken = pytest.importorskip("tiktoken", reason="needs the crosscheck extra (tiktoken)")

BYTE_IDS = {bytes([b]): b for b in range(256)}


def hf_bpe(merges, ids):
    """A Hugging Face BPE model of the same table, tokens spelled in GPT-2's byte characters."""
    chars = bpe.bytes_to_unicode()
    spell = lambda data: "".join(chars[b] for b in data)  # noqa: E731
    model = tokenizers.models.BPE({spell(t): i for t, i in ids.items()}, [(spell(a), spell(b)) for a, b in merges])
    return lambda word: [t.id for t in model.tokenize(spell(word.encode("utf-8")))]


def test_a_merge_that_makes_a_lower_ranked_pair_is_followed_at_once_as_in_tokenizers_and_tiktoken():
    # (ab, a) outranks (a, b): after the first ab is made, ab+a is merged before the second
    # a+b; merging every a+b at once would give ab ab
    ids = BYTE_IDS | {b"aba": 256, b"ab": 257}
    ours = bpe.Tokenizer([(b"ab", b"a"), (b"a", b"b")], vocab=ids)
    assert ours.encode("abab") == hf_bpe(ours.merges, ids)("abab") == [256, ord("b")]
    enc = tiktoken.Encoding(name="order", pat_str=r"\S+|\s+", mergeable_ranks=ids, special_tokens={})
    ranked = bpe.Tokenizer(bpe.tiktoken_merges(ids), vocab=ids, pattern=r"\S+|\s+", rank_by="token",
                           ignore_merges=True)
    assert ranked.encode("abab") == enc.encode_ordinary("abab") == [256, ord("b")]


@st.composite
def tables(draw):
    """Random rules over four bytes in any rank order, each pair and each token made once
    (Hugging Face keeps the last of repeated pairs, this engine the first)."""
    tokens, merges = [b"a", b"b", b"\xe7", b"\x8c"], []
    for _ in range(draw(st.integers(1, 30))):
        a, b = draw(st.sampled_from(tokens)), draw(st.sampled_from(tokens))
        if a + b not in tokens and len(a + b) <= 8:
            merges.append((a, b))
            tokens.append(a + b)
    ids = dict(BYTE_IDS)
    for t in tokens:
        ids.setdefault(t, len(ids))
    return list(draw(st.permutations(merges))), ids


@settings(max_examples=60, deadline=None)
@given(tables(), st.lists(st.text(alphabet="ab猫", min_size=1, max_size=12), min_size=1, max_size=6))
def test_random_tables_encode_as_in_tokenizers(table, words):
    merges, ids = table
    ours, theirs = bpe.Tokenizer(merges, vocab=ids), hf_bpe(merges, ids)
    for word in words:
        assert list(ours.encode_word(word)) == theirs(word)
