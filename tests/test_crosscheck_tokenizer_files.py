"""Cross-check the engine's ``tokenizer.json`` reader and writer against Hugging Face
``tokenizers`` (the crosscheck extra). Every tokenizer is built here, in memory.

* Template post-processing: a ``TemplateProcessing`` post-processor built with the
  ``tokenizers`` API (BOS, or BOS and EOS) is read by :func:`tokenpath.model.read_tokenizer`
  into the engine's ``template``, and the engine's own file with a template opens in
  ``tokenizers``; both give the same IDs with and without ``add_special_tokens``.
"""

from __future__ import annotations

import json

import pytest

from tokenpath import bpe
from tokenpath import examples as ex
from tokenpath import model as M

tokenizers = pytest.importorskip("tokenizers", reason="needs the crosscheck extra (HF tokenizers)")

TEXTS = ["hello world", "大语言模型 and 猫 😀, 12345!\n\n  spaces", ex.MODEL_CORPUS[:200], ""]
SPECIALS = ["<s>", "</s>", "<|endoftext|>"]
TEMPLATES = [("<s>", "$A"), ("<s>", "$A", "</s>"), ("$A", "<|endoftext|>")]


@pytest.fixture(scope="module")
def base():
    return bpe.train(ex.MODEL_CORPUS, 300, tie_break="hf").with_special_tokens(SPECIALS)


def _hf_from_engine(tok: bpe.Tokenizer):
    return tokenizers.Tokenizer.from_str(json.dumps(M.tokenizer_json(tok)))


def _write(tmp_path, d: dict):
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    return path


@pytest.mark.parametrize("template", TEMPLATES)
def test_hf_template_processing_is_read_as_the_engines_template(tmp_path, base, template):
    from tokenizers import processors

    hf = _hf_from_engine(base)
    hf.post_processor = processors.TemplateProcessing(
        single=list(template), special_tokens=[(s, base.special_tokens[s]) for s in SPECIALS])
    ours = M.read_tokenizer(_write(tmp_path, json.loads(hf.to_str())))
    assert ours.template == template
    for text in TEXTS:
        assert hf.encode(text).ids == ours.encode(text)
        assert hf.encode(text, add_special_tokens=False).ids == ours.encode(text, add_special_tokens=False)
        assert ours.encode(text) != ours.encode(text, add_special_tokens=False)  # the template adds IDs


@pytest.mark.parametrize("template", TEMPLATES)
def test_the_engines_template_opens_in_hf_and_gives_its_ids(base, template):
    ours = base.with_template(template)
    hf = _hf_from_engine(ours)
    for text in TEXTS:
        assert hf.encode(text).ids == ours.encode(text)
        assert hf.encode(text, add_special_tokens=False).ids == ours.encode(text, add_special_tokens=False)
        assert hf.encode(text, add_special_tokens=False).ids == ours.encode_ordinary(text)
