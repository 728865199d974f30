"""Claims of the page "Before you start" (00_prerequisites): the UTF-8 byte counts of
its first cell, computed by chapter 2's lesson code; the rest of the page states rules
of Python and numpy, not values."""

from __future__ import annotations

from functools import partial

from tokenpath.lessons import utf8 as lesson2

from . import Claim as _Claim
from . import NotClaim as _NotClaim

CHAPTER = "00_prerequisites"
Claim = partial(_Claim, chapter=CHAPTER)
NotClaim = partial(_NotClaim, chapter=CHAPTER)

CLAIMS: list[_Claim] = [
    Claim("bytes.letter", lambda: lesson2.utf8_trace("a").n_bytes, text=("takes 1 byte", lambda n: f"takes {n} byte")),
    Claim("bytes.cat", lambda: lesson2.utf8_trace("猫").n_bytes, text=("猫 takes 3", lambda n: f"猫 takes {n}")),
]

NOT_CLAIMS: list[_NotClaim] = [
    NotClaim("Axis 0 is the first", "numpy numbers axes from 0"),
    NotClaim("axis −1", "numpy's name for the last axis"),
    NotClaim("An axis of length 1", "the broadcasting rule"),
    NotClaim("with length 1", "what keepdims keeps"),
    NotClaim('"utf-8"', "code: the codec's name as Python spells it"),
    NotClaim("`K.swapaxes(-1, -2)`", "code: the last two axes, as numpy numbers them"),
]
