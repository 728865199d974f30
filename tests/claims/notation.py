"""Claims of the page "Notation" (98_notation): it states no number in its prose; the
sizes of the book's examples are printed by its cell from ``tokenpath.examples``."""

from __future__ import annotations

from functools import partial

from . import Claim as _Claim
from . import NotClaim as _NotClaim

CHAPTER = "98_notation"
NotClaim = partial(_NotClaim, chapter=CHAPTER)

CLAIMS: list[_Claim] = []

NOT_CLAIMS: list[_NotClaim] = [
    NotClaim("Vaswani et al. (2017)", "citation: the Transformer paper"),
    NotClaim("float16", "the name of a number format"),
]
