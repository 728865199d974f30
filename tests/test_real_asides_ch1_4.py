"""The "In a real model" asides of chapters 1–4 (``lessons.real_vocab``,
``lessons.real_layers``): their functions on tiny inputs, their refusals, and what they
report on the pretrained SmolLM2 file (skipped, saying how to fetch it, when the file is
missing). A cross-check against ``transformers`` pins the chapter-2 statement that the
file's template, rendered and encoded by the engine, is what ``apply_chat_template`` gives,
an injected marker included.
"""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath.bpe import Tokenizer
from tokenpath.examples import asides
from tokenpath.gguf_format import read_gguf
from tokenpath.lessons import real_layers, real_vocab
from tokenpath.model.gguf_model import _tiny_gguf

ABC = Tokenizer([(b"a", b"b")], vocab={b"a": 0, b"b": 1, b"c": 2, b"ab": 3})


# ------------------------------------------------------------------ tiny inputs


def test_cut_names_the_merge_that_made_each_token_and_none_for_a_byte():
    c = real_vocab.cut("abc", ABC)
    assert c.ids == (3, 2) and c.pieces == (b"ab", b"c")
    assert c.merges == ((0, b"a", b"b"), None)
    assert "merge rank 0" in c.rows()[0] and "a single byte" in c.rows()[1]


def test_token_cost_counts_characters_bytes_and_tokens():
    c = real_vocab.token_cost("猫a", Tokenizer([]))
    assert (c.characters, c.n_bytes, c.tokens) == (2, 4, 4)
    assert c.per_character == 2.0 and c.per_byte == 1.0


def test_missing_bytes_splits_by_whether_utf8_can_hold_them():
    vocab = {bytes([b]): b for b in range(256) if b not in (0x04, 0xC0)}
    m = real_vocab.missing_bytes(Tokenizer([], vocab=vocab))
    assert m.present == 254 and m.in_utf8 == (0x04,) and m.never_in_utf8 == (0xC0,)


def test_the_tiny_files_layer_0_weights_are_causal_and_sum_to_one():
    r = real_layers.real_head_weights("abcab", g=read_gguf(_tiny_gguf()), tokenizer=ABC)
    assert r.ids == (3, 2, 3) and r.repeat == (0, 2)
    assert np.allclose(r.weights.sum(-1), 1) and not np.triu(r.weights, 1).any()
    assert r.same_queries_before_rope and not r.same_queries_after_rope
    assert len(r.table()) == 1 + len(r.ids)


def test_the_yardsticks_an_even_head_and_the_median_row():
    r = real_layers.real_head_weights("abcab", g=read_gguf(_tiny_gguf()), tokenizer=ABC)  # 3 tokens
    assert r.even == pytest.approx((1 / 2 + 1 / 3) / 2)
    e = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.0]])
    n = real_layers.nearest_rows("a", 2, table=e, tokenizer=ABC)
    assert n.median == pytest.approx(np.median([1.0, 0.0, 2 ** -0.5, -1.0]))


@pytest.mark.parametrize("call, match", [
    (lambda: real_vocab.cut(3, ABC), "text"),
    (lambda: real_vocab.cut("a", tokenizer="gpt2"), "tokenizer"),
    (lambda: real_vocab.cuts("abc", ABC), "texts"),
    (lambda: real_vocab.cuts(["a", 3], ABC), r"texts\[1\]"),
    (lambda: real_vocab.token_cost("", ABC), "text must not be empty"),
    (lambda: real_vocab.token_cost("a\x04", ABC), "text cannot be encoded"),
    (lambda: real_layers.nearest_rows("abc", table=np.eye(4), tokenizer=ABC), "word must be one token"),
    (lambda: real_layers.nearest_rows("c", table=np.eye(2), tokenizer=ABC), "table has 2 rows"),
    (lambda: real_layers.nearest_rows("a", 0, table=np.eye(4), tokenizer=ABC), "k"),
    (lambda: real_layers.real_head_weights("ab", g=read_gguf(_tiny_gguf()), tokenizer=ABC), "at least two tokens"),
    (lambda: real_layers.real_head_weights("abc", 1, g=read_gguf(_tiny_gguf()), tokenizer=ABC), "layer"),
    (lambda: real_layers.file_layer(5, read_gguf(_tiny_gguf())), "i"),
])
def test_bad_input_is_refused_by_name(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


# ------------------------------------------------------------------ the SmolLM2 file


def test_chapter_3_counts_the_files_numbers_so_they_add_up_and_its_head_is_tied(smollm2_file):
    """A copy of the count in section 3.4's aside cell (tests/test_aside_outputs.py holds the prose
    to what the cell itself prints): E is V·d, there is no output.weight, and E, the layers (all
    the size of blk.0) and the final norm add up to the file's total."""
    g = read_gguf(smollm2_file)
    size = {name: t.size for name, t in g.tensors.items()}
    emb, tied = g.tensors["token_embd.weight"], "output.weight" not in size
    per_layer = sum(n for name, n in size.items() if name.startswith("blk.0."))
    n_layers = len({name.split(".")[1] for name in size if name.startswith("blk.")})
    assert tied and size[emb.name] == emb.shape[0] * emb.shape[1] == emb.size
    assert all(sum(n for name, n in size.items() if name.startswith(f"blk.{i}.")) == per_layer for i in range(n_layers))
    assert sum(size.values()) == size[emb.name] + n_layers * per_layer + size["output_norm.weight"]
    assert sum(size.values()) == sum(t.size for t in real_vocab.smollm2_header().tensors.values())


@pytest.mark.heavy
def test_every_merged_token_of_the_asides_is_its_two_halves_and_both_are_tokens(smollm2_file):
    tok = real_vocab.smollm2_tokenizer()
    for c in real_vocab.cuts(asides.REAL_WORDS + asides.REAL_STRINGS):
        assert real_vocab.smollm2_tokenizer().decode_bytes(list(c.ids)) == c.text.encode()
        for piece, m in zip(c.pieces, c.merges):
            if m is not None:
                rank, left, right = m
                assert left + right == piece and tok.merges[rank] == (left, right)


def test_the_missing_bytes_are_refused_by_the_engine(smollm2_file):
    gaps = real_vocab.missing_bytes()
    assert gaps.present + len(gaps.in_utf8) + len(gaps.never_in_utf8) == 256
    for b in gaps.in_utf8[:2]:
        with pytest.raises(ValueError, match=f"byte 0x{b:02X}"):
            real_vocab.smollm2_tokenizer().encode(f"a{chr(b)}b")


@pytest.mark.heavy
def test_a_tokens_nearest_row_is_its_own(smollm2_file):
    n = real_layers.nearest_rows(" lower")
    assert n.ids[0] == n.token_id and np.isclose(n.cosines[0], 1, atol=1e-5)
    assert list(n.cosines) == sorted(n.cosines, reverse=True)


def test_layer_0_on_the_chapters_sentence(smollm2_file):
    r = real_layers.real_head_weights(asides.REAL_ATTENTION_TEXT)
    assert r.weights.shape == (9, len(r.ids), len(r.ids))
    assert np.allclose(r.weights.sum(-1), 1, atol=1e-5) and not np.triu(r.weights, 1).any()
    assert np.allclose(r.own + r.previous + r.first <= 1 + 1e-5, True)
    assert r.same_queries_before_rope and not r.same_queries_after_rope


@pytest.mark.torch
@pytest.mark.heavy
def test_the_chapter_2_rendering_and_injection_equal_apply_chat_template(smollm2_file):
    transformers = pytest.importorskip("transformers", reason="needs the crosscheck extra (transformers)")
    hf = transformers.AutoTokenizer.from_pretrained(str(smollm2_file.parent), gguf_file=smollm2_file.name)
    for messages in (list(asides.REAL_CHAT_MESSAGE), [{"role": "user", "content": asides.REAL_INJECTION}]):
        ours = real_vocab.chat_rendering(messages)
        assert list(ours.ids) == list(hf.apply_chat_template(messages, tokenize=True, add_generation_prompt=True,
                                                              return_dict=False))
        assert ours.text == hf.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
