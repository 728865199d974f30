"""Bad input to the tokenizer's constructor and decoder: clear errors naming the argument."""

from __future__ import annotations

import pytest

from tokenpath import bpe


def test_a_special_token_name_with_a_lone_surrogate_is_refused_at_registration():
    with pytest.raises(ValueError, match=r"special_tokens\[0\] holds a lone surrogate U\+D800 at index 2"):
        bpe.Tokenizer([]).with_special_tokens(["<|\ud800|>"])
    with pytest.raises(ValueError, match=r"special_tokens\[1\] holds a lone surrogate"):
        bpe.Tokenizer([], ["<a>", "\udfff"])


def test_decode_reports_a_bad_id_with_its_own_error_type():
    tok = bpe.Tokenizer([]).with_special_tokens(["<|end|>"])
    assert tok.decode([256]) == "<|end|>"
    with pytest.raises(ValueError, match=r"ids\[1\]: token_id 999 is not in this tokenizer"):
        tok.decode([1, 999])
    with pytest.raises(TypeError, match=r"ids\[0\]: token_id must be an integer, got str"):
        tok.decode(["a"])


@pytest.mark.parametrize("value", ["<|x|>", b"<|x|>", 5])
def test_special_tokens_must_be_a_list_of_names(value):
    with pytest.raises(TypeError, match="special_tokens must be a list of names"):
        bpe.Tokenizer([], special_tokens=value)
    with pytest.raises(TypeError, match="names must be a list of names"):
        bpe.Tokenizer([]).with_special_tokens(value)


@pytest.mark.parametrize("merges", ["ab", b"ab", 7, None])
def test_merges_must_be_a_list_of_pairs(merges):
    with pytest.raises(TypeError, match="merges must be a list of"):
        bpe.Tokenizer(merges)


def test_a_pattern_that_does_not_compile_is_refused_naming_pattern():
    with pytest.raises(ValueError, match=r"pattern '\(' does not compile: missing \)"):
        bpe.Tokenizer([], pattern="(")
    with pytest.raises(ValueError, match=r"pattern '\[a' does not compile"):
        bpe.Tokenizer([], pattern=(r"\p{N}|[^\p{N}]+", "[a"))
    with pytest.raises(TypeError, match="pattern must be a str"):
        bpe.Tokenizer([], pattern=b"a")
    with pytest.raises(TypeError, match="pattern must be a str"):
        bpe.Tokenizer([], pattern=())


def test_a_pattern_that_skips_text_is_refused_at_encode_naming_the_character():
    tok = bpe.Tokenizer([], pattern="a")
    assert tok.encode("aaa") == [97, 97, 97]  # covered: encoded as before
    with pytest.raises(ValueError, match=r"pattern 'a' does not cover the text: it skips 'b' \(U\+0062\) at index 1"):
        tok.encode("abc")
    staged = bpe.Tokenizer([], pattern=(r"\p{N}|[^\p{N}]+", r"\p{L}+|\d"))
    assert staged.decode(staged.encode("ab12")) == "ab12"
    with pytest.raises(ValueError, match=r"skips ' ' \(U\+0020\) at index 2"):
        staged.encode("ab 1")


def test_a_pattern_with_groups_still_yields_whole_pieces():
    tok = bpe.Tokenizer([], pattern=r"(a)b|(c)|\s")
    assert tok.decode(tok.encode("ab c")) == "ab c"
