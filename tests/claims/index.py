"""Claims of the guide (00_index) and the glossary (99_glossary): the running
example's IDs, computed by the engine's encoder; the glossary states no number, only
names and citations."""

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
    NotClaim("SmolLM2-135M-Instruct", "a released model's name"),
    NotClaim("Allal et al., 2025", "citation: the SmolLM2 paper"),
    NotClaim("SHA-256", "the name of a hash function"),
    _NotClaim("UTF-8", "the name of an encoding", chapter="99_glossary"),
    _NotClaim("GPT-2", "a model's name", chapter="99_glossary"),
    _NotClaim("GPT-3", "a model's name", chapter="99_glossary"),
    _NotClaim("Llama 3", "a model's name", chapter="99_glossary"),
    _NotClaim("Kudo, 2018", "citation: the Unigram tokenizer paper", chapter="99_glossary"),
    _NotClaim("Shazeer, 2019", "citation: the multi-query attention paper", chapter="99_glossary"),
    _NotClaim("Shazeer, 2020", "citation: GLU variants (SwiGLU)", chapter="99_glossary"),
    _NotClaim("Zhang and Sennrich, 2019", "citation: the RMSNorm paper", chapter="99_glossary"),
]
