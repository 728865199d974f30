"""Every chapter's "Check yourself" questions, graded by :mod:`tokenpath.selfcheck`.

One module per chapter, named like the chapter's modules of examples, figures and
claims (:mod:`.bpe`, :mod:`.utf8`, :mod:`.embedding`, :mod:`.attention`, :mod:`.masks`,
:mod:`.position`, :mod:`.gqa`, :mod:`.norms`, :mod:`.moe`, :mod:`.model`,
:mod:`.trained`, :mod:`.real_model`), builds that chapter's questions with ``questions()``; each answer is
computed by the engine's public functions at the moment the questions are built, never
typed in. This module is what the chapters call: a chapter asks for its questions by
its file name and grades the reader's answer in a cell:

>>> quiz = for_chapter("07_gqa")
>>> quiz["gqa-head6"].check(1).status, quiz["gqa-head6"].check(0).status
('right', 'not yet')

Each question has one shape: its answer lies in one cell of a figure, one
path through it, or one operation. A numeric question also draws fresh variants for
practice (``quiz["gqa-head6"].variant(seed)``, from :mod:`tokenpath.exercises.variants`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from ..exercises.variants import VARIANTS, variant
from ..selfcheck import Question
from . import attention, bpe, embedding, gqa, masks, model, moe, norms, position, real_model, trained, utf8

__all__ = ["CHAPTERS", "for_chapter"]

#: Each chapter's question builder, by the chapter's file name.
CHAPTERS: dict[str, Callable[[], tuple[Question, ...]]] = {
    "01_bpe_merges": bpe.questions,
    "02_utf8_splits": utf8.questions,
    "03_embedding_lookup": embedding.questions,
    "04_attention": attention.questions,
    "05_masks": masks.questions,
    "06_rope_discs": position.questions,
    "07_gqa": gqa.questions,
    "08_rmsnorm_swiglu": norms.questions,
    "09_moe_routing": moe.questions,
    "10_model_files": model.questions,
    "11_trained_model": trained.questions,
    "12_real_model": real_model.questions,
}


def for_chapter(chapter: str) -> dict[str, Question]:
    """The questions of ``chapter`` (a file name such as ``"04_attention"``), by id,
    in the order the chapter asks them.

    >>> list(for_chapter("04_attention"))
    ['att-A10', 'att-longer', 'att-A20', 'att-scale', 'att-column-softmax']
    """
    if chapter not in CHAPTERS:
        raise ValueError(f"chapter must be one of {sorted(CHAPTERS)}, got {chapter!r}")
    return {q.id: replace(q, _variant=variant) if q.id in VARIANTS else q for q in CHAPTERS[chapter]()}
