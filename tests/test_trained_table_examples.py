"""Section 11.4's examples of what a trigram table knows, checked on the table itself:
refitted on exactly the training tokens of the committed model (marked ``corpus``: it
rebuilds them from the whole standard library, so ``make check-model`` runs it)."""

from __future__ import annotations

import numpy as np
import pytest

from tokenpath import ngram as N
from tokenpath import trained as T


@pytest.fixture(scope="module")
def trigram():
    from tokenpath._evidence import stream_infos

    s, d, _, _ = stream_infos(T.trained_folder())
    return N.kneser_ney(d.train_ids, s.vocab_size, 3), d.tok, s.vocab_size


def _likeliest(trigram, context: str, k: int) -> list[str]:
    table, tok, V = trigram
    history = np.array(tok.encode(context)[-2:])
    p = table.prob(np.tile(history, (V, 1)), np.arange(V))
    return [tok.decode([int(i)]) for i in np.argsort(-p, kind="stable")[:k]]


@pytest.mark.corpus
def test_after_an_indent_self_is_most_often_followed_by_a_dot(trigram):
    assert _likeliest(trigram, "    self", 1) == ["."]


@pytest.mark.corpus
def test_after_def_dunder_the_likeliest_pieces_are_get_dir_and_new(trigram):
    assert _likeliest(trigram, "def __", 3) == ["get", "dir", "new"]
