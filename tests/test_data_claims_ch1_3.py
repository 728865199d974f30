"""Statements of chapters 1-3 and the glossary about the book's own data, checked on that data.

Section 1.4 says the demo corpus has the word "assistant" only after a space, which is
why " assistant" is one token and "assistant" is not. The glossary's entry *Held-out
text* and section 11.3 say that held-out is not unseen: a held-out file was never trained
on, yet some of its lines also occur, verbatim, in training files (the standard library
repeats itself). The rule is stated once, ``tokenpath._evidence.OVERLAP_RULE`` (lines of
at least 30 characters once stripped, every occurrence counted, held-out files of code
against training files of code); the counts are stored in ``models/stdlib-evidence.json``
and measured again here on the corpus the model was trained on (marked ``corpus``: it
reads the whole standard library, so ``make check-model`` runs it)."""

from __future__ import annotations

import pytest

import regex

from tokenpath import _evidence as V
from tokenpath import examples as ex
from tokenpath import trained as T


@pytest.mark.corpus
def test_the_verbatim_overlap_measured_again_on_the_corpus_is_the_committed_one():
    try:
        measured = V.corpus_overlap(T.trained_folder())
    except (FileNotFoundError, OSError) as err:  # the standard library's sources are not installed
        pytest.skip(f"no standard-library corpus: {err}")
    assert measured == T.read_evidence()["overlap"]
    assert 0 < measured["repeated"] < measured["lines"]


def test_the_demo_corpus_has_assistant_only_after_a_space():
    every = [m.start() for m in regex.finditer("assistant", ex.DEMO_CORPUS)]
    assert every and all(ex.DEMO_CORPUS[k - 1] == " " for k in every)
