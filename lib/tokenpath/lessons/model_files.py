"""Chapter 10's lessons: the chapter's tiny Llama (or Mixtral) and its tokenizer, built
from the teaching constants of :mod:`tokenpath.examples` with the engine's
:func:`tokenpath.bpe.train` and :func:`tokenpath.model.random_model`; and the readings of
the pretrained SmolLM2 GGUF file that sections 10.11–10.17 do by hand
(:mod:`tokenpath.lessons.model_files_gguf`).

The tiny model is a teaching assignment, not any vendor's tokenizer or weights: a
byte-level BPE trained on a few sentences and seeded random numbers in a Llama's layout.
"""

from __future__ import annotations

from .. import bpe
from .. import examples as ex
from .._checks import as_int
from ..model import LlamaConfig, MixtralConfig, Model, random_model

__all__ = ["tiny_config", "tiny_model", "tiny_tokenizer"]


def tiny_tokenizer() -> bpe.Tokenizer:
    """The chapter's tokenizer: byte-level BPE trained on
    :data:`~tokenpath.examples.MODEL_CORPUS` (HF's tie rule), with the EOS marker.

    >>> tiny_tokenizer().n_vocab
    385
    """
    tok = bpe.train(ex.MODEL_CORPUS, ex.MODEL_BPE_VOCAB, min_frequency=2, tie_break="hf")
    return tok.with_special_tokens([ex.MODEL_EOS_TOKEN])


def _check_flags(**flags) -> None:
    for name, value in flags.items():
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be True or False, got {type(value).__name__}")


def tiny_config(*, tied: bool = False, vocab_size: int | None = None, mixtral: bool = False) -> LlamaConfig:
    """The chapter's skeleton: V = the tokenizer's IDs, d=16, 2 layers, 4 query heads
    over 2 K/V heads, d_ff=32; the head tied to E or not. ``mixtral=True`` gives the
    same skeleton as a :class:`~tokenpath.model.MixtralConfig` with 4 experts per layer, 2 per token.

    >>> c = tiny_config(); c.vocab_size, c.head_dim, c.eos_token_id
    (385, 4, 384)
    >>> tiny_config(mixtral=True).n_experts
    4
    """
    _check_flags(tied=tied, mixtral=mixtral)
    if vocab_size is None:
        vocab_size = tiny_tokenizer().n_vocab
    vocab_size = as_int("vocab_size", vocab_size, low=1)
    kw = dict(
        vocab_size=vocab_size, hidden_size=ex.MODEL_HIDDEN, intermediate_size=ex.MODEL_FF,
        num_hidden_layers=ex.MODEL_LAYERS, num_attention_heads=ex.MODEL_HEADS,
        num_key_value_heads=ex.MODEL_KV_HEADS, rms_norm_eps=ex.MODEL_NORM_EPS,
        rope_theta=ex.MODEL_ROPE_THETA, tie_word_embeddings=tied,
        eos_token_id=vocab_size - 1, bos_token_id=None,
    )
    if mixtral:
        return MixtralConfig(num_local_experts=ex.MODEL_EXPERTS, num_experts_per_tok=ex.MODEL_EXPERTS_PER_TOKEN, **kw)
    return LlamaConfig(**kw)


def tiny_model(*, tied: bool = False, seed: int = ex.MODEL_SEED, mixtral: bool = False) -> Model:
    """The chapter's tiny random Llama (or, with ``mixtral=True``, Mixtral) with its
    tokenizer, ready for :func:`tokenpath.model.save`.

    >>> tiny_model().parameter_count, tiny_model(tied=True).parameter_count
    (17008, 10848)
    """
    _check_flags(tied=tied, mixtral=mixtral)
    seed = as_int("seed", seed, low=0)
    tok = tiny_tokenizer()
    return random_model(tiny_config(tied=tied, vocab_size=tok.n_vocab, mixtral=mixtral), seed=seed, tokenizer=tok)
