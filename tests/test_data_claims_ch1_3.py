"""Statements of chapters 1-3 and the glossary about the book's own data, checked on that data.

Section 1.4 says the demo corpus has the word "assistant" only after a space, which is
why " assistant" is one token and "assistant" is not. The glossary's entry *Held-out text* says that held-out is not unseen: a held-out file
was never trained on, yet some of its lines also occur, verbatim, in training files
(the standard library repeats itself). Measured here on the corpus the model was
trained on, with lines of at least 30 characters so that blank lines, brackets and
short idioms do not count."""

from __future__ import annotations

import pytest

import regex

from tokenpath import corpus
from tokenpath import examples as ex

MIN_CHARS = 30


@pytest.fixture(scope="module")
def split():
    try:
        c = corpus.load()
    except (FileNotFoundError, OSError) as err:  # the standard library's sources are not installed
        pytest.skip(f"no standard-library corpus: {err}")
    return c.texts(held_out=False), c.texts(held_out=True)


def _long_lines(texts):
    return [s for t in texts for line in t.splitlines() if len(s := line.strip()) >= MIN_CHARS]


def test_some_held_out_lines_occur_verbatim_in_training_files_but_not_all(split):
    train, held = split
    seen = set(_long_lines(train))
    lines = _long_lines(held)
    repeated = sum(line in seen for line in lines)
    assert lines and 0 < repeated < len(lines)


def test_the_demo_corpus_has_assistant_only_after_a_space():
    every = [m.start() for m in regex.finditer("assistant", ex.DEMO_CORPUS)]
    assert every and all(ex.DEMO_CORPUS[k - 1] == " " for k in every)
