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
