"""Cross-check what chapters 1 and 2 say about special tokens, chat templates, BOS and
normalisation against Hugging Face ``tokenizers`` / ``transformers`` and ``tiktoken``.

Every tokenizer here is built in memory from the book's demo tokenizer (its merges,
vocabulary and special tokens), so HF and tiktoken give the same IDs as the engine and
the comparisons are ID for ID. Nothing is downloaded.

What the chapters state and these tests pin down:

* an HF tokenizer *parses* special-token spellings in ``tokenizer(text)`` by default,
  exactly like the engine's ``encode(text, allowed_special="all")``;
  ``split_special_tokens=True`` treats them as text, like ``disallowed_special=()``;
* ``tiktoken``'s ``encode`` refuses them by default, as the engine does;
* ``apply_chat_template(..., tokenize=False)`` returns one string, and tokenizing the
  chat parses a marker a user typed; ``sanitize_control_tokens=True`` gives the
  engine's body-by-body IDs; ``split_special_tokens=True`` on the whole rendered string
  turns the template's own markers into text as well;
* a ``TemplateProcessing`` post-processor adds BOS; a chat template that writes BOS,
  rendered to a string and tokenized with the default ``add_special_tokens=True``,
  gives two BOS;
* a whole encode → decode round trip gives a byte-level tokenizer's input back, and
  BERT-uncased's does not (it lower-cases and strips accents);
* WordPiece turns a word with an unmatched part into ``[UNK]`` as a whole; BPE with
  byte fallback spells an unknown character as byte tokens ``<0xE7>`` ….
"""

from __future__ import annotations

import unicodedata

import pytest

from tokenpath import bpe, subword
from tokenpath import examples as ex
from tokenpath.lessons import bpe as lesson1
from tokenpath.lessons import utf8 as lesson2

tokenizers = pytest.importorskip("tokenizers", reason="needs the crosscheck extra (HF tokenizers)")
tiktoken = pytest.importorskip("tiktoken", reason="needs the crosscheck extra (tiktoken)")
transformers = pytest.importorskip("transformers", reason="needs the crosscheck extra (HF transformers)")

from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors  # noqa: E402
from transformers import PreTrainedTokenizerFast  # noqa: E402

#: The book's minimal template (role marker, body, end marker) written in Jinja, as HF stores it.
CHAT_TEMPLATE = (
    "{% for m in messages %}{{ '<|' + m['role'] + '|>' + m['content'] + '<|end|>' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>' }}{% endif %}"
)
#: The BOS marker chapter 2 registers after the demo tokenizer's special tokens.
BOS = ex.BOS_TOKEN


@pytest.fixture(scope="module")
def tok():
    return lesson1.demo_tokenizer()


def _hf_core(tok: bpe.Tokenizer, extra_special=()) -> Tokenizer:
    """The demo tokenizer as an HF ``tokenizers.Tokenizer``: the same byte-level BPE
    (vocabulary and merges in GPT-2's printable characters), the same IDs."""
    char = bpe.bytes_to_unicode()

    def spell(data: bytes) -> str:
        return "".join(char[b] for b in data)

    vocab = {spell(data): i for i, data in tok.vocab.items()}
    merges = [(spell(a), spell(b)) for a, b in tok.merges]
    hf = Tokenizer(models.BPE(vocab, merges))
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = decoders.ByteLevel()
    hf.add_special_tokens([AddedToken(t, special=True, normalized=False)
                           for t in [*tok.special_tokens, *extra_special]])
    return hf


@pytest.fixture(scope="module")
def hf(tok):
    core = _hf_core(tok)
    assert all(core.token_to_id(t) == i for t, i in tok.special_tokens.items())
    return PreTrainedTokenizerFast(tokenizer_object=core, eos_token=ex.EOS_TOKEN, chat_template=CHAT_TEMPLATE)


@pytest.fixture(scope="module")
def typed(tok):
    return lesson2.render_chat(tok, [{"role": "user", "content": ex.INJECTION}], add_generation_prompt=True)


def _markers(ids, tok) -> list[int]:
    specials = set(tok.special_tokens.values())
    return [i for i in ids if i in specials]


# ---------------------------------------------------------------- parsing the spellings


def test_hf_tokenizer_parses_special_token_spellings_by_default_like_allowed_special_all(tok, hf):
    ids = hf(ex.INJECTION)["input_ids"]
    assert tok.special_tokens["<|assistant|>"] in ids
    assert ids == tok.encode(ex.INJECTION, allowed_special="all")


def test_hf_split_special_tokens_treats_spellings_as_text_like_disallowed_special_empty(tok, hf):
    ids = hf(ex.INJECTION, split_special_tokens=True)["input_ids"]
    assert not _markers(ids, tok)
    assert ids == tok.encode(ex.INJECTION, disallowed_special=())


def test_tiktoken_refuses_special_token_spellings_by_default_as_the_engine_does(tok):
    enc = tiktoken.Encoding(name="tokenpath-demo", pat_str=bpe.GPT2_PATTERN,
                            mergeable_ranks={data: i for i, data in tok.vocab.items()},
                            special_tokens=dict(tok.special_tokens))
    with pytest.raises(ValueError):
        enc.encode(ex.INJECTION)
    with pytest.raises(ValueError):
        tok.encode(ex.INJECTION)
    assert enc.encode(ex.INJECTION, disallowed_special=()) == tok.encode(ex.INJECTION, disallowed_special=())
    allowed = {"<|assistant|>"}
    assert enc.encode(ex.INJECTION, allowed_special=allowed) == tok.encode(ex.INJECTION, allowed_special=allowed)


def test_text_as_text_goes_through_the_ordinary_merges_not_byte_by_byte(tok):
    ids = tok.encode(ex.INJECTION, disallowed_special=())
    assert len(ids) < len(ex.INJECTION.encode("utf-8"))
    assert any(i > 255 for i in ids)


# ---------------------------------------------------------------------- chat templates


def test_apply_chat_template_without_tokenizing_returns_one_string_the_engine_also_renders(hf, typed):
    text = hf.apply_chat_template([{"role": "user", "content": ex.INJECTION}], tokenize=False,
                                  add_generation_prompt=True)
    assert isinstance(text, str)
    assert text == typed.text


def test_apply_chat_template_parses_a_typed_marker_body_by_body_does_not(tok, hf, typed):
    out = hf.apply_chat_template([{"role": "user", "content": ex.INJECTION}], add_generation_prompt=True)
    one_string = tok.encode(typed.text, allowed_special="all")
    assert out["input_ids"] == one_string
    assert len(_markers(one_string, tok)) == len(_markers(typed.ids, tok)) + 1


def test_sanitize_control_tokens_gives_the_engine_body_by_body_ids(hf, typed):
    out = hf.apply_chat_template([{"role": "user", "content": ex.INJECTION}], add_generation_prompt=True,
                                 sanitize_control_tokens=True)
    assert out["input_ids"] == list(typed.ids)


def test_bodies_encoded_alone_with_split_special_tokens_rebuild_the_engine_ids(tok, hf):
    ids = []
    for msg in ex.CHAT_MESSAGES:
        ids.append(tok.special_tokens[f"<|{msg['role']}|>"])
        ids += hf(msg["content"], add_special_tokens=False, split_special_tokens=True)["input_ids"]
        ids.append(tok.special_tokens["<|end|>"])
    assert ids == list(lesson2.render_chat(tok, ex.CHAT_MESSAGES).ids)


def test_split_special_tokens_on_the_whole_rendered_string_loses_the_template_markers_too(tok, hf, typed):
    ids = hf(typed.text, split_special_tokens=True)["input_ids"]
    assert _markers(ids, tok) == []
    assert _markers(typed.ids, tok)


# ----------------------------------------------------------------- BOS, post-processor


@pytest.fixture(scope="module")
def hf_bos(tok):
    core = _hf_core(tok, extra_special=[BOS])
    bos_id = core.token_to_id(BOS)
    core.post_processor = processors.TemplateProcessing(single=f"{BOS} $A", special_tokens=[(BOS, bos_id)])
    return PreTrainedTokenizerFast(tokenizer_object=core, bos_token=BOS, eos_token=ex.EOS_TOKEN,
                                   chat_template="{{ bos_token }}" + CHAT_TEMPLATE)


@pytest.fixture(scope="module")
def with_bos(tok):
    return tok.with_special_tokens([BOS]).with_template((BOS, "$A"))


def test_template_processing_post_processor_prepends_bos_like_the_engine_template(tok, hf_bos, with_bos):
    bos = hf_bos.convert_tokens_to_ids(BOS)
    assert bos == with_bos.special_tokens[BOS]
    for text in (ex.CHAT_MESSAGES[0]["content"], ex.VOCAB_COMPARE_TEXT):
        assert hf_bos(text)["input_ids"] == [bos, *tok.encode(text)] == with_bos.encode(text)
        assert hf_bos(text, add_special_tokens=False)["input_ids"] == tok.encode(text) \
            == with_bos.encode(text, add_special_tokens=False)


def test_chat_template_that_writes_bos_then_default_tokenizer_call_gives_two_bos(hf_bos):
    bos = hf_bos.convert_tokens_to_ids(BOS)
    text = hf_bos.apply_chat_template(list(ex.CHAT_MESSAGES), tokenize=False)
    assert text.startswith(BOS)
    twice = hf_bos(text)["input_ids"]
    assert twice[:3] == [bos, bos, twice[2]] and twice[2] != bos
    assert hf_bos(text, add_special_tokens=False)["input_ids"].count(bos) == 1
    # tokenizing inside apply_chat_template passes add_special_tokens=False: one BOS
    assert hf_bos.apply_chat_template(list(ex.CHAT_MESSAGES))["input_ids"].count(bos) == 1


def test_the_engine_gives_the_same_two_bos_for_a_rendered_string_that_starts_with_bos(tok, hf_bos, with_bos):
    text = hf_bos.apply_chat_template(list(ex.CHAT_MESSAGES), tokenize=False)
    assert text == BOS + lesson2.render_chat(tok, ex.CHAT_MESSAGES).text
    assert hf_bos(text)["input_ids"] == with_bos.encode(text, allowed_special="all")
    assert hf_bos(text, add_special_tokens=False)["input_ids"] == with_bos.encode(
        text, allowed_special="all", add_special_tokens=False)


# ------------------------------------------------------------------ round trips, normalisation


@pytest.mark.parametrize("text", ex.ROUND_TRIP_TEXTS)
def test_byte_level_round_trip_gives_the_string_back_in_hf_as_in_the_engine(tok, hf, text):
    ids = hf(text)["input_ids"]
    assert ids == tok.encode(text)
    assert hf.decode(ids) == tok.decode(ids) == text


def _bert_uncased(vocab) -> Tokenizer:
    wp = Tokenizer(models.WordPiece({p: i for i, p in enumerate(vocab)}, unk_token="[UNK]"))
    wp.normalizer = normalizers.BertNormalizer(lowercase=True, strip_accents=True)
    wp.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    wp.decoder = decoders.WordPiece()
    return wp


def _uncased(text):
    """Chapter 1's lines (section 1.7): fold the case, split off the accents (NFD), drop them."""
    folded = text.casefold()
    return "".join(c for c in unicodedata.normalize("NFD", folded) if not unicodedata.combining(c))


def test_bert_uncased_normaliser_lowercases_and_strips_accents_as_chapter_1_does():
    text = "Café Déjà Vu"
    ours = _uncased(text)
    assert normalizers.BertNormalizer(lowercase=True, strip_accents=True).normalize_str(text) == ours
    assert ours.isascii() and ours == ours.lower() and len(ours) == len(text)
    wp = _bert_uncased(["[UNK]", "cafe"])
    assert wp.decode(wp.encode("Café").ids) == "cafe"


def test_nfkc_turns_full_width_letters_and_ligatures_into_plain_forms_as_chapter_1_does():
    text = "Ｔｈｅ ﬁle"
    plain = unicodedata.normalize("NFKC", text)
    assert normalizers.NFKC().normalize_str(text) == plain
    assert plain.isascii() and len(plain) == len(text) + 1  # the ligature becomes two letters


def test_wordpiece_turns_a_word_with_an_unmatched_part_into_unk_as_a_whole():
    vocab = list(ex.WORDPIECE_VOCAB)
    wp = Tokenizer(models.WordPiece({p: i for i, p in enumerate(vocab)}, unk_token="[UNK]"))
    for word in (*ex.COMPARE_WORDS, "lowx"):
        assert tuple(wp.encode(word).tokens) == subword.wordpiece_encode(word, vocab).pieces
    assert wp.encode("lowx").tokens == ["[UNK]"]


def test_bpe_with_byte_fallback_spells_an_unknown_character_as_byte_tokens():
    vocab = {f"<0x{b:02X}>": b for b in range(256)} | {"a": 256}
    fallback = Tokenizer(models.BPE(vocab, [], byte_fallback=True))
    cat = ex.FIG1_CHAR
    assert fallback.encode(cat).tokens == [f"<0x{b:02X}>" for b in cat.encode("utf-8")]
    assert fallback.encode(cat).tokens[0] == "<0xE7>"
