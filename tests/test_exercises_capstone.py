"""Chapter 2's capstone: the reader's encode and decode against SmolLM2's tokenizer on
1,000 lines. The teaching solutions pass; each wrong twin gets the cause it shows (the
pattern, the merge rank, the byte mapping, special tokens) at the line where it first
differs; a missing file gives one line naming `make smollm2`."""

from __future__ import annotations

import pytest
import regex

from tokenpath import pretrained
from tokenpath.exercises import capstone, capstone_match

from _exercise_twins import (
    decode_each_token,
    decode_unmapped,
    encode_gpt2_only,
    encode_latin1_chars,
    encode_leftmost,
    encode_patterns_reversed,
    encode_unsplit,
)


def test_the_lines_are_a_thousand_of_code_prose_chinese_digits_and_emoji():
    lines = capstone_match.capstone_lines()
    assert len(lines) == capstone_match.N_LINES == 1000 and len(set(lines)) == 1000
    assert max(map(len, lines)) <= capstone_match.WIDTH
    assert sum(bool(regex.search(r"\p{Han}", s)) for s in lines) >= 30
    assert sum(any(ord(c) > 0xFFFF for c in s) for s in lines) >= 2  # emoji
    assert sum(any(c.isdigit() for c in s) for s in lines) >= 100
    assert sum(s.startswith(("def ", "return ", "import ", "if ")) for s in lines) >= 50  # code
    assert all(c >= " " for s in lines for c in s)


@pytest.fixture(scope="module")
def parts(smollm2_file):
    return capstone_match.smollm2_parts()


def test_the_parts_are_the_files_merges_and_pattern(parts):
    assert len(parts.merges) == 48_900 and min(parts.merges.values()) == 0
    assert parts.pattern == list(capstone.SMOLLM_PATTERN)
    assert len(parts.vocab) == 49_152 and parts.token_id[parts.vocab[1000]] == 1000


def test_the_teaching_solutions_match_smollm2_on_every_line(parts):
    result = capstone_match.match_smollm2(capstone.encode, capstone.decode)
    assert result.passed, str(result)
    assert "all 1,000 lines" in str(result)


CAUSES = [
    (encode_gpt2_only, capstone.decode, "pattern", "GPT-2's pattern alone"),
    (encode_patterns_reversed, capstone.decode, "pattern", "before the digits'"),
    (encode_unsplit, capstone.decode, "pattern", "no pre-tokenisation"),
    (encode_leftmost, capstone.decode, "merge rank", "is made by merge rank"),
    (encode_latin1_chars, capstone.decode, "byte mapping", "bytes_to_unicode"),
    (capstone.encode, decode_unmapped, "byte mapping", "map them back to bytes"),
    (capstone.encode, decode_each_token, "decode", "your decode"),
]


@pytest.mark.parametrize("encode,decode,cause,says", CAUSES, ids=[f"{e.__name__}-{d.__name__}" for e, d, *_ in CAUSES])
def test_a_wrong_twin_is_stopped_at_its_first_line_with_its_cause(parts, encode, decode, cause, says):
    result = capstone_match.match_smollm2(encode, decode)
    assert not result.passed and result.cause == cause, str(result)
    assert says in str(result) and f"Line {result.line + 1}" in str(result)
    line = capstone_match.capstone_lines()[result.line]
    assert repr(line) in str(result)


def test_a_split_token_across_pieces_is_the_pattern_and_a_special_token_is_named(parts):
    def glued(text, merges, token_id, pattern):  # digits merged with what precedes them
        ids = capstone.encode(text, merges, token_id, pattern[1:])
        return ids

    assert capstone_match.match_smollm2(glued, capstone.decode).cause == "pattern"
    eos = parts.vocab.index("<|endoftext|>")  # a control token: not in token_id

    def with_eos(text, merges, token_id, pattern):
        return capstone.encode(text, merges, token_id, pattern) + [eos]

    result = capstone_match.match_smollm2(with_eos, capstone.decode)
    assert result.cause == "special tokens" and result.line == 0, str(result)


def test_a_missing_file_gives_one_line_naming_make_smollm2(monkeypatch, capsys):
    def missing(**_):
        raise FileNotFoundError("no file")

    monkeypatch.setattr(pretrained, "smollm2_path", missing)
    assert capstone_match.match_smollm2(capstone.encode, capstone.decode) is None
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "make smollm2" in out


def test_the_expected_ids_are_hugging_face_tokenizers_ids_on_every_line(smollm2_file):
    """The engine's SmolLM2 IDs of the capstone's lines are Hugging Face ``tokenizers``'
    own, built from the file's token strings and merges with llama.cpp's ``smollm`` rule
    (each digit alone, then ByteLevel), no special tokens: the lines are ordinary text."""
    tokenizers = pytest.importorskip("tokenizers", reason="needs the crosscheck extra (HF tokenizers)")
    parts = capstone_match.smollm2_parts()
    merges = sorted(parts.merges, key=parts.merges.get)
    hf = tokenizers.Tokenizer(tokenizers.models.BPE(dict(parts.token_id), merges))
    hf.pre_tokenizer = tokenizers.pre_tokenizers.Sequence([
        tokenizers.pre_tokenizers.Digits(individual_digits=True),
        tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
    lines = capstone_match.capstone_lines()
    got = [e.ids for e in hf.encode_batch(list(lines))]
    first = next((k for k, (a, b) in enumerate(zip(got, capstone_match._expected())) if list(a) != list(b)), None)
    assert first is None, lines[first]


def test_the_answer_to_the_prediction_is_what_the_check_finds(parts):
    """The chapter's answer: a draft without the byte mapping fails at the first line with a
    space, and fails on Chinese alone too; GPT-2's pattern alone gives a number the same IDs
    (SmolLM2 has no merges of digits) and fails where spaces stand before a digit."""
    lines = capstone_match.capstone_lines()
    unmapped = capstone_match.match_smollm2(encode_latin1_chars, capstone.decode)
    assert unmapped.cause == "byte mapping" and " " in lines[unmapped.line]
    assert all(" " not in s for s in lines[:unmapped.line])
    chinese = "我喜欢猫。"
    with pytest.raises(KeyError):
        encode_latin1_chars(chinese, parts.merges, parts.token_id, parts.pattern)
    assert not any(a.isdigit() and b.isdigit() for a, b in parts.merges)
    for number in ("2024", " 2024", "x = 12345"):
        assert encode_gpt2_only(number, parts.merges, parts.token_id, parts.pattern) == \
            capstone.encode(number, parts.merges, parts.token_id, parts.pattern)
    gpt2 = capstone_match.match_smollm2(encode_gpt2_only, capstone.decode)
    assert gpt2.cause == "pattern" and regex.search(r"\s\s\d", lines[gpt2.line]), str(gpt2)
    assert not any(regex.search(r"\p{Han}", s) for s in lines[gpt2.line:gpt2.line + 1])
