"""Byte-level BPE: learn merge rules from a corpus, then encode and decode with them.

Two phases that must not be confused:

* **training** counts adjacent symbol pairs over a corpus, merges the most frequent
  pair into a new symbol, records that merge rule, and repeats until the vocabulary
  has the size asked for (:mod:`.trainer`);
* **encoding** applies the recorded rules, lowest rank first, to new text. Nothing is
  learned while encoding (:mod:`.tokenizer`).

The symbols start as the 256 byte values, so every string can be encoded (no
``[UNK]``). Text is first cut into "words" by the GPT-2 pre-tokenisation regex
(:mod:`.pretokenizer`), and merges never cross a word boundary. Both phases share the
two primitives of :mod:`.pairs`; the encoder merges with the priority queue of
:mod:`.merge_queue`; :mod:`.symbols` writes the byte symbols the way the file formats do. Chapters 1 and 2 teach this package; their worked examples and traces
live in :mod:`tokenpath.lessons.bpe` and :mod:`tokenpath.lessons.utf8`.

A tokenizer's IDs come from a table (:mod:`.vocab`): the book's own numbering (byte ``b``
is ID ``b``, merge ``k`` is ID ``256 + k``) or any numbering a real model's file gives.

Reading order: ``pretokenizer`` → ``pairs`` → ``vocab`` → ``merge_queue`` → ``tokenizer`` → ``symbols`` → ``trainer``.
"""

from __future__ import annotations

from ._checks import ROLES, check_text
from .pairs import apply_merge, pair_counts
from .pretokenizer import (GPT2_PATTERN, NEWER_UNICODE_WORD_CHARS, compile_pattern, pretokenize, split_covering,
                           word_counts)
from .symbols import bytes_to_unicode, hf_symbol_order
from .tiktoken_file import TIKTOKEN_MAX_BYTES, read_tiktoken, tiktoken_merges
from .tokenizer import TEMPLATE_TEXT, Tokenizer
from .vocab import IdTable, id_table
from .trainer import TIE_BREAKS, train, train_naive

__all__ = [
    "GPT2_PATTERN",
    "NEWER_UNICODE_WORD_CHARS",
    "ROLES",
    "TEMPLATE_TEXT",
    "TIE_BREAKS",
    "TIKTOKEN_MAX_BYTES",
    "IdTable",
    "Tokenizer",
    "apply_merge",
    "bytes_to_unicode",
    "check_text",
    "compile_pattern",
    "hf_symbol_order",
    "id_table",
    "pair_counts",
    "pretokenize",
    "read_tiktoken",
    "split_covering",
    "tiktoken_merges",
    "train",
    "train_naive",
    "word_counts",
]

