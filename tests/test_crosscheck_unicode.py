"""Pin where the engine's pre-tokenisation differs from tiktoken's and Hugging Face
``tokenizers``': the code points of :data:`tokenpath.bpe.NEWER_UNICODE_WORD_CHARS`,
which the ``regex`` module's newer Unicode tables call letters or numbers and theirs
do not. An upgrade on either side that changes the set fails here.

Each probe puts one code point after ``a`` (for a letter) or ``1`` (for a number) in a
tokenizer whose merges join ``a`` or ``1`` with any UTF-8 lead byte: the merged token
appears exactly when the pattern keeps the two characters in one word, that is, when
the library calls the code point a letter (or number) too.
"""

from __future__ import annotations

import json

import pytest
import regex

from tokenpath import bpe
from tokenpath import model as M

tiktoken = pytest.importorskip("tiktoken", reason="needs the crosscheck extra (tiktoken)")
tokenizers = pytest.importorskip("tokenizers", reason="needs the crosscheck extra (HF tokenizers)")

PROBES = {"L": b"a", "N": b"1"}
LEADS = [bytes([b]) for b in range(0x80, 0x100)]


@pytest.fixture(scope="module")
def probe():
    tok = bpe.Tokenizer([(p, lead) for p in PROBES.values() for lead in LEADS])
    enc = tiktoken.Encoding(name="tokenpath-probe", pat_str=bpe.GPT2_PATTERN,
                            mergeable_ranks={b: i for i, b in tok.vocab.items()}, special_tokens={})
    hf = tokenizers.Tokenizer.from_str(json.dumps(M.tokenizer_json(tok)))
    return tok, enc, hf


def _listed() -> dict[int, str]:
    return {cp: cls for first, last, cls in bpe.NEWER_UNICODE_WORD_CHARS for cp in range(first, last + 1)}


def _joined(tok: bpe.Tokenizer, lines: list[list[int]]) -> list[bool]:
    """For each probe's IDs: did its first token merge the probe letter with the lead byte?"""
    return [ids[0] >= 256 for ids in lines]


def _split_lines(ids: list[int]) -> list[list[int]]:
    out, line = [], []
    for i in ids:
        if i == 10:  # "\n" ends a probe (every probed character is outside ASCII)
            out.append(line)
            line = []
        else:
            line.append(i)
    return out


def test_the_list_is_what_the_regex_module_calls_letters_and_numbers():
    listed = _listed()
    assert len(listed) == sum(last - first + 1 for first, last, _ in bpe.NEWER_UNICODE_WORD_CHARS)
    for cp, cls in listed.items():
        assert regex.match(r"\p{L}" if cls == "L" else r"\p{N}", chr(cp))


@pytest.mark.heavy
def test_tiktoken_and_hf_disagree_exactly_on_the_listed_letters_and_numbers(probe):
    tok, enc, hf = probe
    chars = "".join(chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c < 0xE000)
    cases = [(cls, c) for cls, pat in (("L", r"\p{L}"), ("N", r"\p{N}")) for c in regex.findall(pat, chars)]
    text = "".join(PROBES[cls].decode() + c + "\n" for cls, c in cases)
    theirs_tt = _joined(tok, _split_lines(enc.encode_ordinary(text)))
    chunks = [text[i:i + 3000] for i in range(0, len(text), 3000)]  # every probe is 3 characters
    theirs_hf = _joined(tok, _split_lines([i for e in hf.encode_batch(chunks) for i in e.ids]))
    assert len(theirs_tt) == len(theirs_hf) == len(cases)
    differ_tt = {ord(c): cls for (cls, c), j in zip(cases, theirs_tt) if not j}
    differ_hf = {ord(c): cls for (cls, c), j in zip(cases, theirs_hf) if not j}
    assert differ_tt == differ_hf == _listed()


def test_the_engine_joins_every_probe_that_the_libraries_split(probe):
    tok, enc, hf = probe
    for first, last, cls in bpe.NEWER_UNICODE_WORD_CHARS:
        for cp in (first, last):
            text = PROBES[cls].decode() + chr(cp)
            assert tok.encode_ordinary(text)[0] >= 256  # one word here
            assert enc.encode_ordinary(text)[0] < 256 and hf.encode(text).ids[0] < 256  # two words there


def test_a_letter_of_unicode_16_is_a_letter_everywhere_and_one_of_17_only_here(probe):
    tok, enc, hf = probe
    garay, ext_j = "\U00010d50", "\U000323b0"  # GARAY CAPITAL LETTER A; the first of CJK Extension J
    assert regex.match(r"\p{Block=Garay}", garay) and regex.match(r"\p{Block=CJK_Ext_J}", ext_j)
    for text, everywhere in (("a" + garay, True), ("a" + ext_j, False)):
        assert tok.encode_ordinary(text)[0] >= 256
        assert (enc.encode_ordinary(text)[0] >= 256) is everywhere
        assert (hf.encode(text).ids[0] >= 256) is everywhere


def test_the_reported_text_gets_other_ids_than_tiktoken_and_hf():
    tok = bpe.Tokenizer([(b"'", b"s")])
    enc = tiktoken.Encoding(name="tokenpath-s", pat_str=bpe.GPT2_PATTERN,
                            mergeable_ranks={b: i for i, b in tok.vocab.items()}, special_tokens={})
    hf = tokenizers.Tokenizer.from_str(json.dumps(M.tokenizer_json(tok)))
    text = "\U000324bd's"
    char = list(text[0].encode("utf-8"))
    assert tok.encode_ordinary(text) == char + [256]  # the letter, then "'s" as a contraction
    assert enc.encode_ordinary(text) == hf.encode(text).ids == char + [39, 115]  # "\U000324bd'" and "s"
    plain = "\u732b's"  # 猫: a letter everywhere
    assert tok.encode_ordinary(plain) == enc.encode_ordinary(plain) == hf.encode(plain).ids
