"""Claims of the glossary (99_glossary) about the book's own model: the verbatim overlap
of held-out and training code that the entry *Held-out text* states, read from
``models/stdlib-evidence.json`` as chapter 10's claims are (the guide's claims and the
glossary's names and citations are in :mod:`claims.index`)."""

from __future__ import annotations

from functools import partial

from tokenpath import trained as T

from . import Claim as _Claim

CHAPTER = "99_glossary"
Claim = partial(_Claim, chapter=CHAPTER)


def _overlap() -> dict:
    return T.read_evidence()["overlap"]


CLAIMS: list[_Claim] = [
    Claim("gloss.overlap_share", lambda: _overlap()["repeated"] / _overlap()["lines"],
          text=("7.6", lambda v: f"{100 * v:.1f}")),
    Claim("gloss.overlap_min_chars", lambda: _overlap()["min_chars"], text=("30", str)),
]
