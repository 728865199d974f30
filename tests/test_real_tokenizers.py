"""Tokenizers with any numbering: an ID table instead of the book's build order, and the
tokenizer a GGUF file carries (:func:`tokenpath.model.tokenizer_from_gguf`)."""

from __future__ import annotations

import base64

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenpath import bpe
from tokenpath.gguf_format import read_gguf
from tokenpath.model import tokenizer_from_gguf
from tokenpath.pretrained import smollm2_path
from tokenpath.safefiles import ModelFileError

MERGES = [(b"h", b"i"), (b" ", b"hi"), (b"hi", b"!")]
CHARS = bpe.bytes_to_unicode()


def shifted(offset=5, specials=None):
    """The book's vocabulary, every ID moved up by ``offset``, specials below it."""
    book = bpe.Tokenizer(MERGES)
    table = {data: i + offset for i, data in book.vocab.items()}
    return book, bpe.Tokenizer(MERGES, specials or {"<s>": 0, "</s>": 1}, vocab=table)


def test_the_book_numbering_is_kept_without_a_table():
    tok = bpe.Tokenizer(MERGES, ["<s>"])
    assert tok.vocab[256] == b"hi" and tok.vocab[258] == b"hi!" and tok.special_tokens == {"<s>": 259}
    assert tok.n_vocab == 260 and tok.encode(" hi!") == [257, 33]  # " hi" (rank 1) takes "hi" before "hi!" (rank 2)


def test_a_table_gives_the_same_tokens_under_other_ids():
    book, tok = shifted()
    for text in ["hi hi!", "hi!", "猫 hi"]:
        assert [i + 5 for i in book.encode(text)] == tok.encode(text)
        assert tok.decode(tok.encode(text)) == text
    assert tok.token_bytes(0) == b"<s>" and tok.token_pieces([5 + 104, 1]) == [b"h", b"</s>"]
    assert tok.encode("<s>hi", allowed_special="all") == [0, 5 + 256]
    assert tok.n_vocab == 5 + 259  # the largest ID + 1


def test_ids_may_leave_gaps_and_n_vocab_counts_them():
    table = {bytes([b]): 2 * b for b in range(256)} | {b"hi": 1001, b" hi": 1003, b"hi!": 1005}
    tok = bpe.Tokenizer(MERGES, {"<e>": 2000}, vocab=table)
    assert tok.n_vocab == 2001 and tok.encode("hi") == [1001]
    with pytest.raises(ValueError, match="token_id 3 is not in this tokenizer"):
        tok.token_bytes(3)


def test_special_tokens_added_to_a_table_come_after_its_largest_id():
    _, tok = shifted()
    more = tok.with_special_tokens(["<pad>"]).with_template(["<s>", "$A"])
    assert more.special_tokens == {"<s>": 0, "</s>": 1, "<pad>": 264} and more.encode("hi") == [0, 261]
    assert more.vocab == tok.vocab


def test_a_bad_table_is_refused_by_name():
    table = {bytes([b]): b for b in range(256)}
    with pytest.raises(ValueError, match=r"merges\[0\] = \(b'h', b'i'\) makes b'hi', which vocab gives no ID"):
        bpe.Tokenizer(MERGES, vocab=table)
    with pytest.raises(ValueError, match="vocab gives ID 0 to both"):
        bpe.Tokenizer([], vocab=table | {b"xy": 0})
    with pytest.raises(ValueError, match=r"special_tokens gives '<s>' the ID 7, which vocab gives to b'\\x07'"):
        bpe.Tokenizer([], {"<s>": 7}, vocab=table)
    with pytest.raises(ValueError, match="special_tokens gives ID 300 to two names"):
        bpe.Tokenizer([], {"<s>": 300, "<t>": 300}, vocab=table)
    with pytest.raises(TypeError, match="vocab keys must be non-empty bytes"):
        bpe.Tokenizer([], vocab={"a": 1})
    with pytest.raises(ValueError, match="roles has the role 'cls'"):
        bpe.Tokenizer([], ["<s>"], roles={"cls": "<s>"})


def test_a_byte_without_an_id_is_refused_not_dropped():
    table = {bytes([b]): b for b in range(256) if b != 4}
    tok = bpe.Tokenizer([], vocab=table)
    assert tok.encode("a") == [97]
    with pytest.raises(ValueError, match="byte 0x04 .* has no ID in this vocabulary"):
        tok.encode("a\x04")


@settings(max_examples=60, derandomize=True, deadline=None)
@given(st.text(max_size=40))
def test_a_table_round_trips_any_text(text):
    book, tok = shifted()
    assert tok.encode(text) == [i + 5 for i in book.encode(text)]
    assert tok.decode(tok.encode(text)) == text


# ------------------------------------------------------------------ GGUF metadata

def gguf_metadata(**changes):
    tokens = ["<|end|>", *(CHARS[b] for b in range(256)), "hi", "Ġhi"]
    md = {"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "smollm", "tokenizer.ggml.tokens": tokens,
          "tokenizer.ggml.merges": ["h i", "Ġ hi"], "tokenizer.ggml.token_type": np.array([3] + [1] * 258),
          "tokenizer.ggml.eos_token_id": np.uint32(0), "tokenizer.chat_template": "{{ messages[0]['content'] }}"}
    md.update(changes)
    return {k: v for k, v in md.items() if v is not None}


def test_gguf_metadata_makes_a_tokenizer_numbered_by_position():
    tok = tokenizer_from_gguf(gguf_metadata())
    assert tok.encode("hi hi12<|end|>", allowed_special="all") == [257, 258, ord("1") + 1, ord("2") + 1, 0]
    assert tok.roles == {"eos": "<|end|>"} and tok.chat_template == "{{ messages[0]['content'] }}"
    assert tok.pattern == (r"\p{N}|[^\p{N}]+", bpe.GPT2_PATTERN)
    with_eos = tokenizer_from_gguf(gguf_metadata(**{"tokenizer.ggml.add_eos_token": True}))
    assert with_eos.template == ("$A", "<|end|>") and with_eos.encode("hi") == [257, 0]


@pytest.mark.parametrize("key, value, error, match", [
    ("tokenizer.ggml.model", "llama", ValueError, "reads only 'gpt2'"),
    ("tokenizer.ggml.model", None, ValueError, "metadata has no 'tokenizer.ggml.model'"),
    ("tokenizer.ggml.pre", "deepseek-llm", ValueError, r"'tokenizer.ggml.pre'\] is 'deepseek-llm', a pre-tokenizer"),
    ("tokenizer.ggml.tokens", "abc", TypeError, r"'tokenizer.ggml.tokens'\] must be a list of strings"),
    ("tokenizer.ggml.token_type", np.array([3, 1]), ValueError, "must hold one int per token"),
    ("tokenizer.ggml.token_type", np.array([3] + [1] * 257 + [6]), ValueError, r"token_type'\]\[258\] is 6"),
    ("tokenizer.ggml.merges", ["h i", "hi"], ValueError, r"merges'\]\[1\] is 'hi'; expected two tokens"),
    ("tokenizer.ggml.merges", ["h \x00"], ValueError, r"merges'\]\[0\] is '\\x00', which holds"),
    ("tokenizer.ggml.eos_token_id", 5, ValueError, r"eos_token_id'\] is 5, which is not a control token"),
    ("tokenizer.ggml.eos_token_id", "0", TypeError, r"eos_token_id'\] must be an int"),
    ("tokenizer.ggml.add_bos_token", True, ValueError, "names no BOS token"),
    ("tokenizer.chat_template", 3, TypeError, r"'tokenizer.chat_template'\] must be a str"),
])
def test_bad_gguf_metadata_is_refused_by_key(key, value, error, match):
    md = gguf_metadata(**{key: value})
    if value is None:
        md.pop(key, None)
    with pytest.raises(error, match=match):
        tokenizer_from_gguf(md)


def test_gguf_metadata_must_be_a_mapping():
    with pytest.raises(TypeError, match="metadata must be a mapping"):
        tokenizer_from_gguf([("tokenizer.ggml.model", "gpt2")])


@pytest.fixture(scope="module")
def smollm2_metadata():
    """The real file's tokenizer keys, read by the engine's reader (equal to the gguf
    package's reading of the same file: tests/test_gguf_format.py, which takes seconds)."""
    path = smollm2_path()
    if not path.is_file():
        pytest.skip(f"the pretrained model file is missing ({path}); run make smollm2")
    return {k: v for k, v in read_gguf(path).metadata.items() if k.startswith("tokenizer.")}


def test_the_smollm2_file_gives_its_tokenizer(smollm2_metadata):
    tok = tokenizer_from_gguf(smollm2_metadata)
    assert (len(tok.merges), len(tok.vocab), len(tok.special_tokens), tok.n_vocab) == (48900, 49135, 17, 49152)
    assert tok.roles == {"bos": "<|im_start|>", "eos": "<|im_end|>", "pad": "<|im_end|>", "unk": "<|endoftext|>"}
    assert tok.special_tokens["<|endoftext|>"] == 0 and tok.encode("!") == [17]
    assert tok.template is None and tok.chat_template.startswith("{% for message in messages %}")
    text = "<|im_start|>user\nWhat is a token in a language model?<|im_end|>\n"
    assert tok.decode(tok.encode(text, allowed_special="all")) == text


# ------------------------------------------------------------------ tiktoken rank files

def _rank_file(tmp_path, lines, name="ranks.tiktoken"):
    path = tmp_path / name
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def _byte_lines():
    return [base64.b64encode(bytes([b])) + b" %d" % b for b in range(256)]


def test_a_rank_file_reads_with_ranks_as_ids(tmp_path):
    lines = _byte_lines() + [base64.b64encode(b"ab") + b" 256", base64.b64encode(b"abc") + b" 257"]
    tok = bpe.read_tiktoken(_rank_file(tmp_path, lines), pattern=r"\w+|\W", special_tokens={"<|e|>": 300})
    assert tok.encode("abc ab<|e|>", allowed_special="all") == [257, 32, 256, 300] and tok.n_vocab == 301


def test_tiktoken_joins_the_pair_whose_token_ranks_lowest_and_takes_whole_pieces(tmp_path):
    # "aba" is rank 258 from "ab"+"a" or "a"+"ba"; "ba" (256) outranks "ab" (257): a, ba -> aba
    lines = _byte_lines() + [base64.b64encode(t) + b" %d" % r for t, r in [(b"ba", 256), (b"ab", 257), (b"aba", 258),
                                                                            (b"xyz", 259)]]
    tok = bpe.read_tiktoken(_rank_file(tmp_path, lines), pattern=r"\w+|\W", special_tokens={})
    assert tok.encode("aba") == [258] and tok.encode("abab") == [258, 98]  # a, ba, b -> aba, b
    assert tok.encode("xyz") == [259]  # no pair of "x", "y", "z" joins, but the whole piece is a token


@pytest.mark.parametrize("lines, match", [
    (lambda l: l[:10] + [b"@@@ 10"] + l[11:], r"line 11: b'@@@' is not base64"),
    (lambda l: l + [base64.b64encode(b"\x00")], r"line 257: expected 'base64 rank'"),
    (lambda l: l + [base64.b64encode(b"ab") + b" 5"], r"line 257: rank 5 is given twice \(line 6 first\)"),
    (lambda l: l + [base64.b64encode(b"\x01") + b" 300"], r"line 257: token b'\\x01' is listed again"),
    (lambda l: l + [base64.b64encode(b"ab") + b" -3"], r"line 257: the rank '-3' is not a non-negative integer"),
    (lambda l: l[:200], r"line 201: the file ends with 56 single bytes unranked \(the first is 0xC8\)"),
])
def test_a_bad_rank_file_is_one_error_naming_file_and_line(tmp_path, lines, match):
    path = _rank_file(tmp_path, lines(_byte_lines()))
    with pytest.raises(ModelFileError, match=str(path).replace(".", r"\.") + ": " + match):
        bpe.read_tiktoken(path, pattern=r"\w+|\W", special_tokens={})


def test_read_tiktoken_checks_its_arguments(tmp_path):
    path = _rank_file(tmp_path, _byte_lines())
    with pytest.raises(TypeError, match="pattern must be a str"):
        bpe.read_tiktoken(path, pattern=None, special_tokens={})
    with pytest.raises(ValueError, match="pattern '\\(' does not compile"):
        bpe.read_tiktoken(path, pattern="(", special_tokens={})
    with pytest.raises(TypeError, match="special_tokens must map"):
        bpe.read_tiktoken(path, pattern="a", special_tokens=["<s>"])
    with pytest.raises(ValueError, match="special_tokens gives '<s>' the ID 5"):
        bpe.read_tiktoken(path, pattern=r"\w+|\W", special_tokens={"<s>": 5})
