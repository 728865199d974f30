"""Claims of the "Practise again" parts of chapters 1-3 and 6-9: how many seeds give
different versions of the chapter's practised questions (``variant(seed)``), none of
them the question itself."""

from __future__ import annotations

from functools import cache

from tokenpath import questions
from tokenpath.exercises import variants

from . import Claim

#: The chapters whose "Practise again" states the claim.
CHAPTERS = ("01_bpe_merges", "02_utf8_splits", "03_embedding_lookup", "06_rope_discs", "07_gqa", "08_rmsnorm_swiglu", "09_moe_routing")


@cache
def distinct_versions(chapter: str) -> int:
    """The fewest different versions, over the chapter's questions with variants, that seeds
    0 … DISTINCT − 1 give, counting none that repeats the question's own prompt."""
    quiz = questions.for_chapter(chapter)
    counts = []
    for q in quiz.values():
        if q._variant is not None:
            counts.append(len({q.variant(s).prompt for s in range(variants.DISTINCT)} - {q.prompt}))
    return min(counts)


def _stated(n: int) -> str:
    return f"seeds 0 to {variants.DISTINCT - 1} give {n} different versions"


CLAIMS = [
    Claim(f"practice.distinct.{chapter}", lambda chapter=chapter: distinct_versions(chapter),
          text=(f"seeds 0 to 59 give 60 different versions", _stated), chapter=chapter)
    for chapter in CHAPTERS
]
