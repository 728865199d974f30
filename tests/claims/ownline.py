"""Claims of chapter 11_trained_model's "Follow your own line" section: the widget's
limit on a typed line, computed from the committed model's context."""

from __future__ import annotations

from functools import partial

from tokenpath import ownline
from tokenpath import trained as T

from . import Claim as _Claim

CHAPTER = "11_trained_model"
Claim = partial(_Claim, chapter=CHAPTER)

CLAIMS: list[_Claim] = [
    Claim("ownline.max_tokens", lambda: ownline.max_tokens(T.committed_model()), exact="128"),
]
