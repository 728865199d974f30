"""The BPE engine (tokenpath.bpe) and its siblings (tokenpath.subword): unit tests,
property tests and every bad-input path.

Expected values are either the seed's stated numbers (figure 1, seed 004) or
independent recomputations; the cross-checks against Hugging Face ``tokenizers`` and
``tiktoken`` live in ``test_crosscheck_bpe.py``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenpath import bpe, subword
from tokenpath.bpe import pretokenizer as pretok
from tokenpath import examples as ex
from tokenpath.lessons import bpe as lesson1
from tokenpath.lessons import utf8 as lesson2

SMALL = ("low lower newer lowest " * 6 + "def return(self): 猫猫 大语言模型 🙂🙂\n" * 5
         + "the the assistant assistant\t\t  spaces   here\n" * 4)


@pytest.fixture(scope="module")
def tok():
    return bpe.train(SMALL, 330).with_special_tokens(ex.SPECIAL_TOKENS)


# ------------------------------------------------------------------ figure 1 (top)


def test_fig01_first_counts_are_er_8_we_8_lo_7_ow_7():
    first = lesson1.teach_merges(ex.FIG1_TABLE, 1).steps[0]
    assert {p: first.counts[p] for p in [("e", "r"), ("w", "e"), ("l", "o"), ("o", "w")]} == {
        ("e", "r"): 8, ("w", "e"): 8, ("l", "o"): 7, ("o", "w"): 7}


def test_fig01_tie_between_er_and_we_goes_to_the_smallest_pair_er():
    first = lesson1.teach_merges(ex.FIG1_TABLE, 1).steps[0]
    assert first.tied == (("e", "r"), ("w", "e")) and first.chosen == ("e", "r")


def test_fig01_merge_order_is_er_then_w_er_then_lo_and_lower_becomes_lo_wer():
    trace = lesson1.teach_merges(ex.FIG1_TABLE, ex.FIG1_MERGES)
    assert trace.merges == [("e", "r"), ("w", "er"), ("l", "o")]
    assert trace.steps[1].count == 8 and trace.steps[2].count == 7
    assert trace.segmentation(3)["lower"] == ("lo", "wer")
    assert lesson1.encode_word("lower", trace.merges, trace.alphabet).symbols == ("lo", "wer")


def test_fig01_after_er_and_wer_lo_at_7_beats_every_other_pair():
    third = lesson1.teach_merges(ex.FIG1_TABLE, 3).steps[2]
    assert third.chosen == ("l", "o")
    assert all(c < 7 for p, c in third.counts.items() if p != ("l", "o"))


def test_fig01_lowest_is_encodable_only_when_s_and_t_are_base_symbols():
    trace = lesson1.teach_merges(ex.FIG1_TABLE, 3)
    without = lesson1.encode_word("lowest", trace.merges, trace.alphabet)
    assert without.symbols is None and without.missing == ("s", "t")
    with_st = lesson1.encode_word("lowest", trace.merges, trace.alphabet + tuple(ex.FIG1_EXTRA_LETTERS))
    assert with_st.symbols == ("lo", "w", "e", "s", "t")


def test_three_words_merge_lo_then_low_then_on_to_lowest_never_er_or_est():
    trace = lesson1.teach_merges(ex.THREE_WORD_TABLE, ex.THREE_WORD_MERGES)
    first = trace.steps[0]
    assert first.counts[("l", "o")] == first.counts[("o", "w")] == 3 and first.chosen == ("l", "o")
    assert trace.merges[:3] == [("l", "o"), ("lo", "w"), ("low", "e")]
    # from merge 4 every pair occurs once; a min_frequency of 2 stops after lowe
    strict = lesson1.teach_merges(ex.THREE_WORD_TABLE, ex.THREE_WORD_MERGES, min_frequency=2)
    assert strict.merges == trace.merges[:3] and "2" in strict.stopped
    # accepting single occurrences, the last merge is lowes t -> lowest, and er / est never appear
    assert trace.merges[3:] == [("lowe", "r"), ("lowe", "s"), ("lowes", "t")]
    assert all(trace.segmentation(len(trace.merges))[w] == (w,) for w in ex.THREE_WORD_TABLE)
    assert not {("e", "r"), ("e", "s"), ("es", "t")} & set(trace.merges)


def test_teaching_segmentation_zero_is_characters_and_bad_step_is_refused():
    trace = lesson1.teach_merges(ex.FIG1_TABLE, 2)
    assert trace.segmentation(0)["low"] == ("l", "o", "w")
    with pytest.raises(ValueError, match="after"):
        trace.segmentation(3)


# ---------------------------------------------------------------- figure 1 (bottom)


def test_fig01_cat_is_e7_8c_ab_split_into_e7_8c_and_ab():
    t = lesson2.split_char(ex.FIG1_CHAR, ex.FIG1_SPLIT_AT)
    assert t.code == bytes.fromhex("E78CAB")
    assert t.first.joined == bytes.fromhex("E78C") and t.second.joined == bytes.fromhex("AB")


def test_fig01_each_half_fails_strictly_and_replaces_and_joined_gives_cat():
    t = lesson2.split_char(ex.FIG1_CHAR, ex.FIG1_SPLIT_AT)
    for half in (t.first, t.second):
        assert half.strict is None and "not valid UTF-8" in half.error
        assert half.replaced == "\N{REPLACEMENT CHARACTER}"
    assert t.joined.strict == "猫" and t.joined.error is None


def test_strict_decode_names_the_offending_bytes_and_position():
    tok = bpe.Tokenizer([])
    with pytest.raises(ValueError, match=r"bytes E7 8C at byte 1 \(token 1\)"):
        tok.decode([ord("a"), 0xE7, 0x8C])
    assert tok.decode([ord("a"), 0xE7, 0x8C], errors="replace") == "a\N{REPLACEMENT CHARACTER}"


# ------------------------------------------------------------------- training


def test_incremental_trainer_learns_exactly_the_naive_trainers_merges():
    for tie in bpe.TIE_BREAKS:
        assert bpe.train(SMALL, 330, tie_break=tie).merges == bpe.train_naive(SMALL, 330, tie_break=tie).merges


@settings(max_examples=25)
@given(st.text(alphabet="ab c\n猫!", max_size=60), st.integers(256, 290), st.integers(1, 3),
       st.sampled_from(bpe.TIE_BREAKS))
def test_incremental_and_naive_agree_on_random_corpora(text, size, freq, tie):
    fast = bpe.train(text, size, min_frequency=freq, tie_break=tie)
    assert fast.merges == bpe.train_naive(text, size, min_frequency=freq, tie_break=tie).merges


def test_training_stops_at_vocab_size_or_when_no_pair_reaches_min_frequency():
    tok = bpe.train(SMALL, 300)
    assert len(tok.vocab) == 300 and len(tok.merges) == 44
    rare = bpe.train("abcdef", 1000)
    assert rare.merges == []  # every pair occurs once, below min_frequency=2
    assert bpe.train("abcdef", 1000, min_frequency=1).merges[0] == (b"a", b"b")


def test_tie_break_hf_uses_hugging_faces_byte_order():
    # "!" (33) comes before every other byte in HF's order but "\n" (10) sorts first by
    # value; both pairs occur twice, so the two rules pick different first merges.
    text = "!! !! \n\n \n\n"
    assert bpe.train(text, 257, min_frequency=1, tie_break="smallest").merges[0][0] == b"\n"
    assert bpe.train(text, 257, min_frequency=1, tie_break="hf").merges[0][0] == b"!"
    order = bpe.hf_symbol_order()
    assert sorted(order) == list(range(256)) and order[ord("!")] == 0


def test_pretokenizer_keeps_a_leading_space_with_the_word():
    assert bpe.pretokenize("hello world  again") == ["hello", " world", " ", " again"]
    assert bpe.pretokenize("我喜欢 Transformer。") == ["我喜欢", " Transformer", "。"]


def test_ascii_fast_path_classes_match_the_unicode_pattern_on_all_128_characters():
    import regex

    for c in map(chr, range(128)):
        assert bool(regex.fullmatch(r"\s", c)) == (c in "\t\n\x0b\x0c\r "), repr(c)
        assert bool(regex.fullmatch(r"\p{L}", c)) == (c.isascii() and c.isalpha()), repr(c)
        assert bool(regex.fullmatch(r"\p{N}", c)) == (c in "0123456789"), repr(c)


@settings(max_examples=300)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=60)
       | st.text(alphabet="ab 1'\t\n.  srvlmdte", max_size=60))
def test_ascii_fast_path_splits_exactly_like_the_gpt2_pattern(text):
    assert pretok._SPLIT_ASCII.findall(text) == pretok._SPLIT.findall(text)


@settings(max_examples=100)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=60) | st.text(alphabet="ab 猫\n's", max_size=40))
def test_corpus_words_count_the_pretokenised_words_as_bytes(text):
    words, counts = pretok._distinct_words(text)
    assert {bytes(w): n for w, n in zip(words, counts)} == dict(bpe.word_counts(text))


def test_word_and_leading_space_word_are_different_tokens(tok):
    assert tok.encode("the") != tok.encode(" the")


# ------------------------------------------------------------------- encoding


def test_encode_merges_by_rank_not_by_length():
    tok = bpe.Tokenizer([(b"b", b"c"), (b"a", b"b")])
    # rank 0 (b c) applies first, so "abc" becomes a + bc, never ab + c
    assert [tok.vocab[i] for i in tok.encode("abc")] == [b"a", b"bc"]


def test_special_tokens_get_ids_after_the_vocabulary(tok):
    assert list(tok.special_tokens.values()) == list(range(len(tok.vocab), tok.n_vocab))


def test_marker_spelling_in_text_is_refused_by_default(tok):
    with pytest.raises(ValueError, match="disallowed"):
        tok.encode(ex.INJECTION)


def test_marker_spelling_is_ordinary_text_when_the_caller_says_so(tok):
    ids = tok.encode(ex.INJECTION, disallowed_special=())
    assert not set(ids) & set(tok.special_tokens.values())
    assert tok.decode(ids) == ex.INJECTION


def test_allowed_marker_becomes_its_id(tok):
    ids = tok.encode("hi<|end|>", allowed_special={"<|end|>"})
    assert ids[-1] == tok.special_tokens["<|end|>"] and tok.decode(ids) == "hi<|end|>"
    assert tok.encode("<|end|>", allowed_special="all") == [tok.special_tokens["<|end|>"]]


def test_chat_template_body_word_assistant_and_role_marker_are_different_ids(tok):
    chat = lesson2.render_chat(tok, ex.CHAT_MESSAGES)
    marker = tok.special_tokens["<|assistant|>"]
    body = tok.encode(" assistant")
    assert marker in chat.ids and marker not in body
    assert all(set(tok.encode_ordinary(m["content"])) <= set(chat.ids) for m in ex.CHAT_MESSAGES)
    assert chat.text.startswith("<|user|>") and [chat.pieces[i] for i in chat.marker_positions][0] == "<|user|>"


def test_chat_template_keeps_an_injected_marker_as_text(tok):
    chat = lesson2.render_chat(tok, [{"role": "user", "content": ex.INJECTION}], add_generation_prompt=True)
    markers = [chat.ids[i] for i in chat.marker_positions]
    assert markers == [tok.special_tokens[m] for m in ("<|user|>", "<|end|>", "<|assistant|>")]
    assert sum(i in tok.special_tokens.values() for i in chat.ids) == 3


# ------------------------------------------------------------------ properties

TEXTS = st.lists(
    st.one_of(
        st.characters(blacklist_categories=("Cs",)),
        st.sampled_from(list("猫大语言模型🙂\u0301 \t\n") + ["<|user|>", "<|end|>", "   ", "e\u0301"]),
    ),
    max_size=40,
).map("".join)


@settings(max_examples=200)
@given(st.lists(TEXTS, min_size=5, max_size=15))
def test_decode_of_encode_is_the_identity_no_special_id_unless_allowed_and_cache_agnostic(tok, texts):
    # A batch of strings per example: about two thousand strings over the run, each
    # checked for three properties (drawing the strings is most of the cost):
    # - decoding the encoding gives the text back;
    # - no text yields a special-token ID unless specials are allowed, and with no
    #   marker in the text the default (specials disallowed) encodes the same;
    # - the word cache changes nothing: the uncached encoding equals the cached one,
    #   whether a word is encoded afresh (first call) or read back from it (second).
    specials = set(tok.special_tokens.values())
    for text in texts:
        ids = tok.encode(text, disallowed_special=())
        assert tok.decode(ids) == text
        assert not set(ids) & specials
        if not any(s in text for s in tok.special_tokens):
            assert tok.encode(text) == ids
        assert tok.encode(text, disallowed_special=(), use_cache=False) == ids
        assert tok.encode(text, disallowed_special=()) == ids


# ------------------------------------------------------------------ chapter 2 numbers


def test_utf8_lengths_of_ascii_cat_llm_and_emoji():
    assert [lesson2.utf8_trace(s).n_bytes for s in ex.UTF8_EXAMPLES] == [1, 3, 15, 4]
    assert lesson2.utf8_trace("猫").hex() == "E7 8C AB"


def test_fig02_32k_to_128k_at_4096_adds_402653184_per_matrix():
    g = lesson2.vocab_growth(ex.FIG2_VOCAB_OLD, ex.FIG2_VOCAB_NEW, ex.FIG2_WIDTH)
    assert g.added_rows == 96 * 1024 and g.added_per_matrix == 402_653_184


def test_fig02_one_id_reads_one_row_whichever_vocabulary_made_it():
    c = lesson2.id_collision(ex.FIG2_ID, ex.FIG2_VOCAB_A, ex.FIG2_VOCAB_B, ex.FIG2_ROWS)
    assert (c.token_a, c.token_b, c.row) == ("猫", "return", ex.FIG2_ROWS[17])


def test_demo_tokenizer_is_deterministic_and_round_trips_the_demo_text():
    a = bpe.train(ex.DEMO_CORPUS, ex.DEMO_VOCAB_SIZE)
    assert a.merges == lesson1.demo_tokenizer().merges
    chips = lesson2.token_chips(ex.DEMO_TEXT)
    assert b"".join(c.data for c in chips).decode() == ex.DEMO_TEXT


# ------------------------------------------------------------ WordPiece and Unigram


def test_wordpiece_is_greedy_longest_match_with_continuations_and_unk():
    vocab = ex.WORDPIECE_VOCAB
    assert subword.wordpiece_encode("lowest", vocab).pieces == ("low", "##est")
    assert subword.wordpiece_encode("playing", vocab).pieces == ("play", "##ing")
    assert subword.wordpiece_encode("xyz", vocab).pieces == ("[UNK]",)
    trace = subword.wordpiece_encode("lower", vocab)
    assert trace.tries[0] == (0, "lower", False) and (3, "##er", True) in trace.tries


def test_unigram_work_grows_with_the_piece_lengths_present_not_the_longest_piece():
    # one 5,000-character piece once made every position try 5,000 slices (54 s on 10k characters)
    import time
    pieces = {"▁": -4.0, "a": -1.0, "b": -2.0, "a" * 5000: -3.0}
    start = time.perf_counter()
    t = subword.unigram_encode("ab" * 5000, pieces)
    assert time.perf_counter() - start < 2.0
    assert t.pieces[:3] == ("▁", "a", "b") and len(t.pieces) == 10001


def test_unigram_viterbi_finds_the_best_total_log_probability():
    t = subword.unigram_encode("newest", ex.UNIGRAM_PIECES)
    assert t.pieces == ("▁new", "est") and t.total == pytest.approx(-7.0)
    # every alternative that covers the text scores lower
    p = ex.UNIGRAM_PIECES
    assert p["▁new"] + p["e"] + p["st"] < t.total
    assert subword.unigram_encode("x", ex.UNIGRAM_PIECES).pieces == ("▁", "<unk>")


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize("call, error, match", [
    (lambda: bpe.train(b"bytes", 300), TypeError, "text must be a str"),
    (lambda: bpe.train("abc", 255), ValueError, "vocab_size must be >= 256"),
    (lambda: bpe.train("abc", 300.0), TypeError, "vocab_size"),
    (lambda: bpe.train("abc", 300, min_frequency=0), ValueError, "min_frequency"),
    (lambda: bpe.train("abc", 300, tie_break="largest"), ValueError, "tie_break"),
    (lambda: bpe.train("a\ud800b", 300), ValueError, "lone surrogate U\\+D800 at index 1"),
    (lambda: bpe.train_naive(None, 300), TypeError, "text"),
    (lambda: bpe.Tokenizer([]).encode(3), TypeError, "text must be a str"),
    (lambda: bpe.Tokenizer([]).encode("\udfff"), ValueError, "lone surrogate"),
    (lambda: bpe.Tokenizer([]).decode([256]), ValueError, r"ids\[0\].*256 is not in this tokenizer"),
    (lambda: bpe.Tokenizer([]).decode([-1]), ValueError, "-1"),
    (lambda: bpe.Tokenizer([]).decode([1.0]), TypeError, "token_id must be an integer"),
    (lambda: bpe.Tokenizer([]).decode("abc"), TypeError, "ids must be a sequence"),
    (lambda: bpe.Tokenizer([]).decode([97], errors="ignore"), ValueError, "errors"),
    (lambda: bpe.Tokenizer([(b"a", b"bc")]), ValueError, "no earlier merge made"),
    (lambda: bpe.Tokenizer([("a", "b")]), TypeError, "pair of non-empty bytes"),
    (lambda: bpe.Tokenizer([]).with_special_tokens("<|x|>"), TypeError, "names"),
    (lambda: bpe.Tokenizer([]).encode("x", allowed_special={"<|x|>"}), ValueError, "unregistered"),
    (lambda: bpe.Tokenizer([]).encode("x", allowed_special="<|x|>"), TypeError, "allowed_special"),
    (lambda: lesson1.teach_merges({}, 1), TypeError, "table"),
    (lambda: lesson1.teach_merges({"low": 0}, 1), ValueError, "table\\['low'\\]"),
    (lambda: lesson1.teach_merges({"low": 1}, -1), ValueError, "n_merges"),
    (lambda: lesson2.split_char("ab", 1), ValueError, "one character"),
    (lambda: lesson2.split_char("a", 1), ValueError, "single byte"),
    (lambda: lesson2.split_char("猫", 3), ValueError, "at must be <= 2"),
    (lambda: lesson2.vocab_growth(10, 5, 4), ValueError, "new must be >= 10"),
    (lambda: lesson2.id_collision(99, ex.FIG2_VOCAB_A, ex.FIG2_VOCAB_B, ex.FIG2_ROWS), ValueError, "vocab_a"),
    (lambda: lesson2.render_chat(lesson1.demo_tokenizer(), [{"role": "robot", "content": "x"}]), ValueError, "robot"),
    (lambda: lesson2.render_chat(lesson1.demo_tokenizer(), {"role": "user", "content": "x"}), TypeError, "messages"),
    (lambda: lesson2.render_chat(lesson1.demo_tokenizer(), [{"role": "user"}]), TypeError, r"messages\[0\]"),
    (lambda: subword.wordpiece_encode("two words", ex.WORDPIECE_VOCAB), ValueError, "word"),
    (lambda: subword.wordpiece_encode("low", ["low"]), ValueError, "UNK"),
    (lambda: subword.unigram_encode("low", {"low": 0.5}), ValueError, "log-probability"),
    (lambda: subword.unigram_encode("low", {}), TypeError, "pieces"),
    (lambda: subword.unigram_encode("low", {"low": -1.0}, unk_score=5), ValueError, "unk_score"),
    (lambda: lesson2.token_chips("x", tokenizer="gpt2"), TypeError, "tokenizer"),
])
def test_bad_input_is_refused_with_a_message_naming_it(call, error, match):
    with pytest.raises(error, match=match):
        call()
