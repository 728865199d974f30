"""The post-processing template: what ``Tokenizer.encode`` puts around the encoded text."""

from __future__ import annotations

import pytest

from tokenpath import bpe
from tokenpath import model as M


@pytest.fixture(scope="module")
def tok():
    return bpe.train("low lower newer lowest " * 20, 270).with_special_tokens(["<s>", "</s>", "<|user|>"])


TEXTS = ["lower newer", "", "猫 lowest"]


@pytest.mark.parametrize("template", [("<s>", "$A"), ("<s>", "$A", "</s>"), ("$A", "</s>"), ("$A",),
                                      ("<s>", "<s>", "$A")])
def test_template_wraps_encode_and_nothing_else(tok, template):
    t = tok.with_template(template)
    assert t.template == template
    for text in TEXTS:
        plain = tok.encode(text)
        at = template.index("$A")
        want = ([tok.special_tokens[p] for p in template[:at]] + plain
                + [tok.special_tokens[p] for p in template[at + 1:]])
        assert t.encode(text) == want
        assert t.encode(text, add_special_tokens=False) == plain
        assert t.encode_ordinary(text) == tok.encode_ordinary(text)
        assert t.decode(t.encode(text)) == "".join(template).replace("$A", text)


def test_template_wraps_allowed_special_markers_too(tok):
    t = tok.with_template(["<s>", "$A"])
    ids = t.encode("a<|user|>b", allowed_special={"<|user|>"})
    assert ids == [t.special_tokens["<s>"]] + tok.encode("a<|user|>b", allowed_special={"<|user|>"})
    with pytest.raises(ValueError, match="disallowed"):
        t.encode("a<|user|>b")


def test_without_a_template_encode_is_unchanged(tok):
    assert tok.template is None
    for text in TEXTS:
        assert tok.encode(text) == tok.encode(text, add_special_tokens=False) == tok.encode_ordinary(text)
    assert "template" not in repr(tok)
    assert "template=('<s>', '$A')" in repr(tok.with_template(["<s>", "$A"]))


def test_template_survives_with_special_tokens_and_can_be_removed(tok):
    t = tok.with_template(["<s>", "$A"]).with_special_tokens(["<|end|>"])
    assert t.template == ("<s>", "$A") and "<|end|>" in t.special_tokens
    assert t.with_template(None).template is None
    assert bpe.Tokenizer(tok.merges, ["<s>"], template=["<s>", "$A"]).template == ("<s>", "$A")


@pytest.mark.parametrize("template, error, words", [
    ("<s> $A", TypeError, "template must be a sequence of pieces"),
    (5, TypeError, "template must be a sequence"),
    (["<s>", 7], TypeError, r"template\[1\] must be '\$A'"),
    (["<s>"], ValueError, r"template must hold '\$A' .* exactly once"),
    (["$A", "$A"], ValueError, "exactly once"),
    ([], ValueError, "exactly once"),
    (["$A", "<unk>"], ValueError, r"template\[1\] is '<unk>', which is not a registered special token"),
    (["$B"], ValueError, r"template\[0\] is '\$B'"),
])
def test_bad_templates_are_refused_by_name(tok, template, error, words):
    with pytest.raises(error, match=words):
        tok.with_template(template)
    with pytest.raises(error, match=words):
        bpe.Tokenizer(tok.merges, tok.special_tokens, template=template)


def test_add_special_tokens_must_be_a_bool(tok):
    with pytest.raises(TypeError, match="add_special_tokens must be True or False"):
        tok.encode("a", add_special_tokens="yes")


def test_template_round_trips_through_tokenizer_json(tmp_path, tok):
    t = tok.with_template(["<s>", "$A", "</s>"])
    back = M.read_tokenizer(M.write_tokenizer(tmp_path, t))
    assert back.template == t.template and back.special_tokens == t.special_tokens
    assert back.encode("lower newer") == t.encode("lower newer")
    assert M.tokenizer_json(tok)["post_processor"] is None
