"""Cross-check the engine's ``tokenizer.json`` reader and writer against Hugging Face
``tokenizers`` (the crosscheck extra). Every tokenizer is built here, in memory.

* Template post-processing: a ``TemplateProcessing`` post-processor built with the
  ``tokenizers`` API (BOS, or BOS and EOS) is read by :func:`tokenpath.model.read_tokenizer`
  into the engine's ``template``, and the engine's own file with a template opens in
  ``tokenizers``; both give the same IDs with and without ``add_special_tokens``.
* Every setting the reader refuses changes what ``tokenizers`` does with the file (or,
  for ``byte_fallback``, is refused for the stated reason), and every setting it
  accepts leaves ``tokenizers``' IDs as they were.
* Fuzzed files: whatever the reader accepts, ``tokenizers`` encodes to the same IDs
  (or cannot load).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_tokenizer_files import mutate

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


# ------------------------------------------------ settings the reader refuses or accepts

#: Text that shows every refused setting: capitals (a normaliser), a letter next to
#: punctuation (merges across the GPT-2 pattern), markers with spaces around them.
PROBE = "Hello world, (a!) (xyz) lower  <s> x </s> y<s>z 猫"


def _probe_tokenizer():
    # trained merges, one merge across the pattern's boundary (a + !), which the GPT-2
    # pattern never lets apply, and a token "xyz" that the merges never make from "xyz"
    # (y + z outranks x + y)
    trained = bpe.train(ex.MODEL_CORPUS, 300, tie_break="hf")
    extra = [(b"a", b"!"), (b"y", b"z"), (b"x", b"y"), (b"xy", b"z")]
    assert not set(extra) & set(trained.merges)
    return bpe.Tokenizer([*trained.merges, *extra], ["<s>", "</s>"])


def _hf_outcome(d: dict, text: str = PROBE):
    """What HF does with the file: its IDs and decoded text, or the failure's type name
    (a Rust panic is a BaseException)."""
    try:
        hf = tokenizers.Tokenizer.from_str(json.dumps(d))
        ids = hf.encode(text).ids
        return ids, hf.decode(ids, skip_special_tokens=False), hf.decode(ids)
    except BaseException as err:  # noqa: BLE001 — pyo3's PanicException is not an Exception
        return type(err).__name__


REFUSED = {
    "model.dropout": lambda d: d["model"].update(dropout=1.0),
    "model.continuing_subword_prefix": lambda d: d["model"].update(continuing_subword_prefix="##"),
    "model.end_of_word_suffix": lambda d: d["model"].update(end_of_word_suffix="</w>"),
    "normalizer": lambda d: d.update(normalizer={"type": "Lowercase"}),
    "pre_tokenizer.pretokenizers[1].add_prefix_space": lambda d: d.update(pre_tokenizer={
        "type": "Sequence", "pretokenizers": [{"type": "Digits", "individual_digits": True},
                                              {**d["pre_tokenizer"], "add_prefix_space": True}]}),
    "decoder": lambda d: d.update(decoder=None),
    "truncation": lambda d: d.update(truncation={"direction": "Right", "max_length": 3,
                                                 "strategy": "LongestFirst", "stride": 0}),
    "post_processor (BertProcessing)": lambda d: d.update(
        post_processor={"type": "BertProcessing", "sep": ["</s>", d["added_tokens"][1]["id"]],
                        "cls": ["<s>", d["added_tokens"][0]["id"]]}),
    "added_tokens[0].lstrip": lambda d: d["added_tokens"][0].update(lstrip=True),
    "added_tokens[1].rstrip": lambda d: d["added_tokens"][1].update(rstrip=True),
    "added_tokens[0].single_word": lambda d: d["added_tokens"][0].update(single_word=True),
}


@pytest.mark.parametrize("field", list(REFUSED))
def test_each_refused_setting_changes_what_hf_does(tmp_path, field):
    tok = _probe_tokenizer()
    good = M.tokenizer_json(tok)
    changed = json.loads(json.dumps(good))
    REFUSED[field](changed)
    with pytest.raises(M.ModelFileError, match=field.split(" ")[0].replace("[", r"\[").replace("]", r"\]")):
        M.read_tokenizer(_write(tmp_path, changed))
    assert _hf_outcome(changed) != _hf_outcome(good)


def test_byte_fallback_is_refused_though_a_byte_level_vocabulary_never_uses_it(tmp_path):
    # every character of the ByteLevel alphabet is a token, so HF never falls back to
    # <0x..> tokens; the engine refuses the flag anyway, since it implements no fallback
    good = M.tokenizer_json(_probe_tokenizer())
    changed = json.loads(json.dumps(good))
    changed["model"]["byte_fallback"] = True
    with pytest.raises(M.ModelFileError, match="model.byte_fallback is True; this engine has no <0x..> byte tokens"):
        M.read_tokenizer(_write(tmp_path, changed))
    assert _hf_outcome(changed) == _hf_outcome(good)


@pytest.mark.parametrize("change", [
    lambda d: d["model"].update(dropout=0.0),
    lambda d: d["model"].update(unk_token="<s>", fuse_unk=True),
    lambda d: d["model"].update(continuing_subword_prefix="", end_of_word_suffix=""),
    lambda d: d["added_tokens"][0].update(normalized=True),
    lambda d: d.update(post_processor={"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False,
                                       "use_regex": True}),
], ids=["dropout 0", "unk_token", "empty prefix and suffix", "normalized added token", "ByteLevel post_processor"])
def test_settings_the_reader_accepts_leave_hfs_ids_unchanged(tmp_path, change):
    tok = _probe_tokenizer()
    good = M.tokenizer_json(tok)
    changed = json.loads(json.dumps(good))
    change(changed)
    ours = M.read_tokenizer(_write(tmp_path, changed))
    assert _hf_outcome(changed) == _hf_outcome(good)
    assert ours.encode(PROBE, allowed_special="all") == _hf_outcome(good)[0]


def _swap_ids(d):
    v = d["model"]["vocab"]
    v["l"], v["m"] = v["m"], v["l"]


def _digits_then_byte_level(d):
    d["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        {"type": "Digits", "individual_digits": True}, d["pre_tokenizer"]]}


def _split_then_bytes(d):
    d["normalizer"] = {"type": "NFC"}
    d["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": r"\p{L}+| ?\d"}, "behavior": "Isolated", "invert": False},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}]}


@pytest.mark.parametrize("change", [
    lambda d: d["pre_tokenizer"].update(use_regex=False),
    lambda d: d["added_tokens"][0].update(special=False),
    _swap_ids, _digits_then_byte_level, _split_then_bytes,
    lambda d: d["model"].update(ignore_merges=True),
    lambda d: d["pre_tokenizer"].update(add_prefix_space=True),
    lambda d: d.update(pre_tokenizer={"type": "Sequence", "pretokenizers": [
        {**d["pre_tokenizer"], "add_prefix_space": True}, {"type": "Digits", "individual_digits": True}]}),
], ids=["ByteLevel without its regex", "a non-special added token", "swapped IDs", "Digits then ByteLevel",
        "NFC, a Split regex with gaps, ByteLevel without regex", "ignore_merges (xyz is a token the merges never make)",
        "add_prefix_space", "add_prefix_space, then Digits"])
def test_settings_the_reader_implements_give_hfs_ids(tmp_path, change):
    good = M.tokenizer_json(_probe_tokenizer())
    changed = json.loads(json.dumps(good))
    change(changed)
    ours = M.read_tokenizer(_write(tmp_path, changed))
    hf = tokenizers.Tokenizer.from_str(json.dumps(changed))
    for text in [PROBE, "Cafe\u0301 12 345 x9 猫猫 ", "<s>", "x<s>", "<s> y</s>z", "\nhi", *TEXTS]:
        assert ours.encode(text, allowed_special="all") == hf.encode(text).ids, text


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_fuzzed_files_the_engine_reads_give_hfs_ids(tmp_path, data):
    # nothing is silently accepted: a file the engine reads either fails to load in HF
    # or encodes as HF does
    good = M.tokenizer_json(_probe_tokenizer().with_template(["<s>", "$A"]))
    d = mutate(good, data)
    try:
        ours = M.read_tokenizer(_write(tmp_path, d))
    except M.ModelFileError:
        return
    hf = _hf_outcome(d)
    if isinstance(hf, tuple):
        assert ours.encode(PROBE, allowed_special="all") == hf[0]
