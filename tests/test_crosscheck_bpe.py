"""Cross-check the BPE engine against production tokenizers on a corpus nobody here
wrote: the first MiB of the running interpreter's standard-library ``.py`` files.

* Hugging Face ``tokenizers``: ``BpeTrainer(vocab_size=1024, min_frequency=2,
  initial_alphabet=ByteLevel.alphabet())`` behind ``ByteLevel(add_prefix_space=False)``
  learns the same 768 merges as ``bpe.train(text, 1024, tie_break="hf")`` and encodes
  the corpus into the same tokens. HF numbers its tokens differently (its 256 byte
  symbols in the order of their GPT-2 characters, then the merges), so tokens are
  compared as bytes.
* ``tiktoken``: an ``Encoding`` built from our ranks and the same pattern (never
  ``get_encoding``, which would download) gives the same IDs as ours.

Both sides are trained once per session (module-scoped fixtures).
"""

from __future__ import annotations

import json

import pytest

from tokenpath import bpe
from tokenpath import examples as ex
from tokenpath.lessons import bpe as lesson1

tokenizers = pytest.importorskip("tokenizers", reason="needs the crosscheck extra (HF tokenizers)")
tiktoken = pytest.importorskip("tiktoken", reason="needs the crosscheck extra (tiktoken)")

VOCAB_SIZE = ex.CROSSCHECK_VOCAB_SIZE


@pytest.fixture(scope="module")
def corpus():
    text = lesson1.stdlib_corpus()
    if len(text.encode("utf-8")) < (1 << 20) - 3:  # at most a cut character short of a MiB
        pytest.skip("this interpreter ships less than a MiB of standard-library .py source")
    return text


@pytest.fixture(scope="module")
def ours(corpus):
    return bpe.train(corpus, VOCAB_SIZE, tie_break="hf")


def hf_train(text: str, vocab_size: int, min_frequency: int = 2):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, min_frequency=min_frequency, show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator([text], trainer=trainer)
    return tok


@pytest.fixture(scope="module")
def hf(corpus):
    return hf_train(corpus, VOCAB_SIZE)


BYTE_OF_CHAR = {c: b for b, c in bpe.bytes_to_unicode().items()}


def _hf_bytes(token: str) -> bytes:
    return bytes(BYTE_OF_CHAR[c] for c in token)


def _hf_merges(tok) -> list[tuple[bytes, bytes]]:
    merges = json.loads(tok.to_str())["model"]["merges"]
    pairs = [m if isinstance(m, list) else m.split(" ") for m in merges]
    return [(_hf_bytes(a), _hf_bytes(b)) for a, b in pairs]


def test_hf_learns_the_same_768_merges_in_the_same_order(ours, hf):
    assert len(ours.merges) == VOCAB_SIZE - 256 == 768
    assert _hf_merges(hf) == ours.merges


@pytest.mark.parametrize("min_frequency", [1, 2])
def test_hf_tie_rule_holds_on_a_small_corpus_full_of_ties(min_frequency):
    # the demo corpus repeats a few sentences, so many pairs share a count at every step
    ours = bpe.train(ex.DEMO_CORPUS, 1000, min_frequency=min_frequency, tie_break="hf")
    assert _hf_merges(hf_train(ex.DEMO_CORPUS, 1000, min_frequency)) == ours.merges
    smallest = bpe.train(ex.DEMO_CORPUS, 1000, min_frequency=min_frequency)
    assert smallest.merges != ours.merges  # the tie rule matters on this corpus


def test_hf_numbers_bytes_in_gpt2_character_order_then_merges(ours, hf):
    vocab = hf.get_vocab()
    chars = bpe.bytes_to_unicode()
    order = bpe.hf_symbol_order()
    assert all(vocab[chars[b]] == order[b] for b in range(256))
    for k in (0, 1, 767):
        token = ours.vocab[256 + k]
        assert vocab["".join(chars[b] for b in token)] == 256 + k


@pytest.mark.heavy
def test_encoding_the_corpus_gives_hfs_tokens(ours, hf, corpus):
    ids = ours.encode_ordinary(corpus)
    # HF ID → our ID, through the token's bytes (1024 entries, so comparing IDs is cheap)
    ours_by_bytes = {b: i for i, b in ours.vocab.items()}
    ours_of_hf = {i: ours_by_bytes[_hf_bytes(t)] for t, i in hf.get_vocab().items()}
    assert [ours_of_hf[i] for i in hf.encode(corpus).ids] == ids
    assert ours.decode(ids) == corpus


def test_tiktoken_with_our_ranks_gives_our_ids(ours, corpus):
    enc = tiktoken.Encoding(
        name="tokenpath-stdlib", pat_str=bpe.GPT2_PATTERN,
        mergeable_ranks={b: i for i, b in ours.vocab.items()}, special_tokens={},
    )
    sample = corpus[: 1 << 18] + " 猫 大语言模型 🙂 e\u0301  \t\n"
    assert enc.encode_ordinary(sample) == ours.encode_ordinary(sample)


def test_special_tokens_follow_tiktoken_allowed_and_disallowed_rules(ours):
    names = ["<|endoftext|>", "<|user|>"]
    tok = ours.with_special_tokens(names)
    enc = tiktoken.Encoding(
        name="tokenpath-special", pat_str=bpe.GPT2_PATTERN,
        mergeable_ranks={b: i for i, b in ours.vocab.items()},
        special_tokens=dict(tok.special_tokens),
    )
    text = "say <|user|> then <|endoftext|>"
    assert tok.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")
    assert tok.encode(text, allowed_special={"<|user|>"}, disallowed_special=()) == enc.encode(
        text, allowed_special={"<|user|>"}, disallowed_special=())
    assert tok.encode(text, disallowed_special=()) == enc.encode(text, disallowed_special=())
    with pytest.raises(ValueError):
        enc.encode(text)
    with pytest.raises(ValueError, match="disallowed"):
        tok.encode(text)
