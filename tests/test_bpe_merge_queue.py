"""The encoder's merge loop (tokenpath.bpe.merge_queue): the priority queue equals the
plain loop that rescans every pair (lowest rank first, leftmost first) on random merge
tables and texts, starting a word from its characters merged alone changes no token, and
the chapter-1 teaching trace (merges applied in rank order to a word's characters) gives
the engine's tokens on every table a trainer learns.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenpath import bpe
from tokenpath import examples as ex
from tokenpath.bpe.merge_queue import NO_RULE, _junction_ranks, _merge_ranked, _rescan, _start_symbols
from tokenpath.lessons import bpe as lesson1

BYTES = b"ab \xe7\x8c\xab\xc3\xa9"  # a small alphabet, so random rules meet often: a, b, space, 猫, é


@st.composite
def merge_tables(draw, alphabet=BYTES):
    """Random rules over a small alphabet in any order (a rule's parts need not be made
    before it, as a file's table allows), with a numbering that gives every token an ID."""
    tokens = [bytes([b]) for b in alphabet]
    merges = []
    for _ in range(draw(st.integers(0, 25))):
        a, b = draw(st.sampled_from(tokens)), draw(st.sampled_from(tokens))
        merges.append((a, b))
        if a + b not in tokens and len(a + b) <= 6:
            tokens.append(a + b)
    merges = [m for m in merges if len(m[0] + m[1]) <= 6]
    order = draw(st.permutations(merges))  # ranks that need not follow the order tokens were made in
    ids = {bytes([b]): b for b in range(256)}
    for t in tokens:
        ids.setdefault(t, len(ids))
    return list(order), ids


def _merge_rescan(symbols, ranks):
    return _rescan(symbols, ranks)[0]


SYMBOL_LISTS = st.lists(st.integers(0, 5), max_size=40)
RANK_TABLES = st.dictionaries(st.tuples(st.integers(0, 5), st.integers(0, 5)),
                              st.tuples(st.integers(0, 30), st.integers(0, 5)), max_size=20)


@settings(max_examples=200, deadline=None)
@given(SYMBOL_LISTS, RANK_TABLES)
def test_the_queue_equals_the_rescanning_loop_on_random_rank_tables(symbols, ranks):
    # merged IDs fall among the symbols, so a merge can make a pair of lower rank, and
    # equal ranks occur (tiktoken's rule ranks a pair by the token it makes)
    assert _merge_ranked(list(symbols), ranks) == _merge_rescan(symbols, ranks)


@settings(max_examples=100, deadline=None)
@given(merge_tables(), st.lists(st.sampled_from([*"ab ", "猫", "é", "ab猫", "猫猫", "é猫a", "aaaa", "a b"]), max_size=12))
def test_a_tokenizer_encodes_as_the_rescanning_loop_on_random_tables_and_texts(table, parts):
    merges, ids = table
    tok = bpe.Tokenizer(merges, vocab=ids, pattern=r"\S+|\s+")
    text = "".join(parts)
    byte_ids = {b: ids[bytes([b])] for b in range(256)}
    expected = [i for word in tok._split(text)
                for i in _merge_rescan([byte_ids[b] for b in word.encode()], tok._ranks)]
    assert tok.encode_ordinary(text) == expected  # words started from their characters merged alone
    assert tok.encode_ordinary(text, use_cache=False) == expected  # every word started from its bytes
    assert tok.encode_ordinary(text) == expected  # the words and characters the first call cached


@settings(max_examples=150, deadline=None)
@given(merge_tables(b"\xe7\x8c\xab\xc3\xa9"), st.text(alphabet="猫é", min_size=2, max_size=8))
def test_starting_from_characters_merged_alone_changes_no_token_on_random_tables(table, word):
    # only the bytes of 猫 and é: rules across the edges between characters, ranked below
    # or above the characters' own merges, are common
    merges, ids = table
    tok = bpe.Tokenizer(merges, vocab=ids)
    expected = _merge_rescan([ids[bytes([b])] for b in word.encode()], tok._ranks)
    assert tok.encode_word(word) == expected
    assert tok.encode_word(word, use_cache=False) == expected


def test_lowest_rank_first_merges_one_pair_at_a_time_not_every_occurrence():
    # merging every (a, b) at once would give ab ab; one at a time, the first ab meets the
    # next a, and (ab, a) outranks (a, b): aba b (Hugging Face's and tiktoken's order)
    tok = bpe.Tokenizer([(b"ab", b"a"), (b"a", b"b")],
                        vocab={bytes([b]): b for b in range(256)} | {b"aba": 256, b"ab": 257})
    assert [tok.vocab[i] for i in tok.encode("abab")] == [b"aba", b"b"]


def test_equal_ranks_merge_the_leftmost_pair_first():
    assert _merge_ranked([1, 1, 1], {(1, 1): (0, 4)}) == (4, 1)
    assert _merge_ranked([2, 1, 3], {(2, 1): (5, 7), (1, 3): (5, 7)}) == (7, 3)


def test_junction_ranks_hold_the_lowest_rank_across_each_byte_pair():
    tok = bpe.Tokenizer([(b"a", b"b"), (b"ab", b"c"), (b"b", b"c")])
    table = _junction_ranks(tok._ranks, tok.vocab)
    assert table[ord("a") << 8 | ord("b")] == 0 and table[ord("b") << 8 | ord("c")] == 1
    assert sum(r != NO_RULE for r in table) == 2


def test_a_character_starts_whole_only_where_no_rule_across_its_edges_ranks_below_its_own_merges():
    # 猫 = E7 8C AB; its own merges, then a rule across its edge AB|E7 ranked after them
    # (it starts whole) or before them (it starts as bytes, and that rule merges first)
    cat = [(b"\xe7", b"\x8c"), (b"\xe7\x8c", b"\xab")]
    ids = {bytes([b]): b for b in range(256)} | {b"\xe7\x8c": 256, b"\xe7\x8c\xab": 257, b"\xab\xe7": 258}
    after = bpe.Tokenizer([*cat, (b"\xab", b"\xe7")], vocab=ids)
    before = bpe.Tokenizer([(b"\xab", b"\xe7"), *cat], vocab=ids)
    assert after._char(ord("猫"))[:2] == ((257,), 1) and before._char(ord("猫"))[:2] == ((257,), 2)
    assert _start_symbols([after._char(ord("猫"))] * 2, after._junctions) == [257, 257]
    assert _start_symbols([before._char(ord("猫"))] * 2, before._junctions) == [0xE7, 0x8C, 0xAB] * 2
    assert after.encode_word("猫猫") == (257, 257)
    assert before.encode_word("猫猫") == (256, 258, 0x8C, 0xAB)  # AB E7 first: 猫 never whole
    for tok in (after, before):
        assert tok.encode_word("猫猫") == _merge_rescan(list("猫猫".encode()), tok._ranks)


def test_characters_are_cached_under_their_code_points_beside_the_words():
    tok = bpe.Tokenizer([(b"\xe7", b"\x8c"), (b"\xe7\x8c", b"\xab")])  # 猫 = E7 8C AB, one token
    assert tok.encode_word("猫猫") == (257, 257)
    assert set(tok._cache) == {"猫猫", ord("猫")} and tok._cache[ord("猫")][0] == (257,)
    tok._cache[ord("猫")] = ((1, 2), 1, 0xE7, 0xAB << 8, (0xE7, 0x8C, 0xAB))  # a poisoned entry is read
    assert tok.encode_word("猫猫猫") == (1, 2) * 3
    assert tok.encode_word("猫猫猫", use_cache=False) == (257,) * 3  # no cache: from the bytes


def test_ascii_words_start_from_their_bytes():
    tok = bpe.Tokenizer([(b"a", b"b")])
    tok.encode_word("abab")
    assert list(tok._cache) == ["abab"]


def test_a_long_word_costs_lookups_per_merge_not_per_pair():
    # one word of 200,000 bytes with 17 doubling rules: the rescanning loop would look up
    # every pair for each of its ~200,000 merges (about 2e10 lookups)
    merges = [(b"a" * 2 ** k, b"a" * 2 ** k) for k in range(17)]
    tok = bpe.Tokenizer(merges)
    start = time.process_time()
    ids = tok.encode_word("a" * 200_000, use_cache=False)
    assert time.process_time() - start < 10
    # each round of one rule leaves its odd token at the end: 200,000's binary digits, largest first
    assert [len(tok.vocab[i]) for i in ids] == [1 << k for k in range(17, -1, -1) if 200_000 >> k & 1]


# --------------------------------------------------------- the chapter-1 teaching trace


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(alphabet="lowenrst", min_size=1, max_size=7), st.integers(1, 9), min_size=1, max_size=8),
       st.integers(1, 12), st.lists(st.text(alphabet="lowenrst", min_size=1, max_size=9), min_size=1, max_size=5))
def test_the_teaching_trace_gives_the_engines_tokens_on_learned_merges(table, n_merges, words):
    # lessons.bpe.encode_word applies each learned merge in rank order over the whole word
    # (the chapter's hand method); the engine merges the lowest-rank pair present. On the
    # merges a trainer learns (each part made before it is used) the two agree.
    run = lesson1.teach_merges(table, n_merges)
    tok = bpe.Tokenizer([(a.encode(), b.encode()) for a, b in run.merges])
    for word in words:
        trace = lesson1.encode_word(word, run.merges, "lowenrst")
        assert trace.symbols == tuple(tok.vocab[i].decode() for i in tok.encode_word(word))


def test_the_chapters_new_words_encode_as_the_engine_does():
    state = lesson1.merge_replay(ex.FIG1_MERGES)
    tok = bpe.Tokenizer([(a.encode(), b.encode()) for a, b in (s.chosen for s in state.learned)])
    for trace in state.encoded_extra:
        assert trace.symbols == tuple(tok.vocab[i].decode() for i in tok.encode_word(trace.word))
    assert [t.symbols for t in state.encoded_extra][:1] == [("lo", "wer")]


@pytest.mark.parametrize("text", ["大语言模型把文字切成词元。" * 3, "def lower(self):\n    return self\n"])
def test_the_demo_tokenizer_encodes_as_the_rescanning_loop(text):
    tok = lesson1.demo_tokenizer()
    expected = [i for w in tok._split(text) for i in _merge_rescan(list(w.encode()), tok._ranks)]
    assert tok.encode(text) == expected
