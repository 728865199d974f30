"""Claims of the guide (00_index) and the glossary (99_glossary): the running
example's IDs, computed by the engine's encoder."""

from __future__ import annotations

from functools import partial

from tokenpath import examples as ex

from . import Claim as _Claim
from . import NotClaim as _NotClaim

CHAPTER = "00_index"
Claim = partial(_Claim, chapter=CHAPTER)
NotClaim = partial(_NotClaim, chapter=CHAPTER)


def _ids() -> str:
    ids = ex.encode_chars(ex.TEXT)
    pairs = dict(zip(ex.TEXT, ids.tolist()))
    return ", ".join(f"{ch}={i}" for ch, i in pairs.items())


CLAIMS: list[_Claim] = [
    Claim("main.ids", lambda: None, text=("a=3, b=7, c=2", lambda _: _ids())),
    Claim("main.eos", lambda: ex.EOS, text=("EOS=9", lambda n: f"EOS={n}")),
]

NOT_CLAIMS: list[_NotClaim] = [
    NotClaim("UTF-8", "the name of an encoding"),
    _NotClaim("UTF-8", "the name of an encoding", chapter="99_glossary"),
]
