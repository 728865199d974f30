"""Every chapter's "Check yourself" questions (tokenpath.questions): each question is
fed right and wrong answers, the unanswered placeholder reveals nothing, every chapter
asks its questions through the same API, and the stored notebooks show the unanswered
state."""

from __future__ import annotations

import functools
import re
from fractions import Fraction
from pathlib import Path

import nbformat
import numpy as np
import pytest

from tokenpath import guide, questions, selfcheck

ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def all_questions() -> dict:
    """{chapter: {id: question}}, built once, when a test first asks (chapter 12's load
    the pretrained model, which collection should not wait for)."""
    return {ch: questions.for_chapter(ch) for ch in questions.CHAPTERS}


@functools.cache
def by_id() -> dict:
    return {qid: q for qs in all_questions().values() for qid, q in qs.items()}


#: For every question of every chapter (08's are in test_selfcheck.py): right answers and wrong ones.
RIGHT = {
    "bpe-tie": ["a", "(A)"], "bpe-third-count": [7, "7"], "bpe-lower": [["lo", "wer"], ("lo", "wer")],
    "bpe-lowest": ["b"], "bpe-space": ["a"], "bpe-what-if": ["b"],
    "utf8-bytes": [[3, 4], (3, 4), [3.0, 4.0], np.array([3.0, 4.0])], "utf8-assistant": [[279, 403]], "utf8-injection": ["b"],
    "utf8-growth": [402653184, "402,653,184", 402_653_184.0], "utf8-double-bos": [2, "2"],
    "utf8-stream": [4, "4"],
    "emb-row": [7], "emb-same-row": [3], "emb-shift": ["a"], "emb-tied": ["a"], "emb-untied": ["b", "B"], "emb-wide": [24, "24"],
    "emb-scale": ["a", "A"],
    "att-A10": ["a"], "att-reads": [{0, 1, 2}, range(3)], "att-cache-row": [3], "att-longer": [1],
    "att-A20": ["1/2", 0.5], "att-scale": [4, "4"], "att-target": [9, "9"], "att-axis": ["b"], "att-cache-dropped": [{1, 2}, [2, 1]],
    "att-column-softmax": [{0, 1, 2}, [2, 1, 0]],
    "att-cache-size": [536_870_912, "536870912"],
    "rope-score": [1, 1.0, 0.999], "rope-swap": ["b"], "rope-pos8": [[8, 0.08]], "rope-speed": [100],
    "rope-alibi": [2, "2"], "rope-shift": ["b"],
    "gqa-head6": [1], "gqa-weights": [8], "gqa-mqa-cache": [12], "gqa-leftover": [2], "gqa-layer-bytes": [4096, "4,096"],
    "norm-rms": [[1.697, 0.566]], "norm-layer": [[-1, 1]], "norm-two": ["a"], "norm-silu": [-0.238],
    "norm-add": ["a", "(A)"], "norm-offset": [[0.424, -0.566]],
    "files-data-start": [120], "files-tied": ["a"], "files-tied-count": [16000], "files-kproj": [[4, 16]],
    "files-kv1-count": [16752], "files-layers": ["a"], "files-partial": [{2, 3, 4}],
    "files-gguf-row": [34, "34"], "files-q41-weights": [[3.5, 0.0], (3.5, 0)],
    "files-bf16-bytes": [34016, "34016"],
    "trained-expert-share": [0.685, "0.685"], "trained-first-gap": [0.15, 0.1477], "trained-tabs": ["b"],
    "trained-head-read": [10, "10"], "trained-prev-head": [2], "trained-load": [[5, 4, 8, 7]], "trained-idle": [1, "1"],
    "trained-even-loss": [4.159, "4.16", 4.15],
    "real-template": [30, "30"], "real-nucleus": [17], "real-nucleus-hot": [17854, "17854"], "real-direct-why": ["a", "(A)"],
    "real-first-copy": ["a", "(A)"],
}
WRONG = {
    "bpe-tie": ["b", "c"], "bpe-third-count": [8, 6], "bpe-lower": [["low", "er"], ["lo", "w", "er"]],
    "bpe-lowest": ["a", "d"], "bpe-space": ["b", "d"], "bpe-what-if": ["a", "c", "d"],
    "utf8-bytes": [[1, 1], [3, 3], [3], [3.0, 3.0]], "utf8-assistant": [[403, 279]], "utf8-injection": ["a"],
    "utf8-growth": [98304, "402653185"], "utf8-double-bos": [1, 0],
    "utf8-stream": [1, 0],
    "emb-row": [3], "emb-same-row": [2], "emb-shift": ["d"], "emb-tied": ["b"], "emb-untied": ["a", "c"], "emb-wide": [8],
    "emb-scale": ["b", "c"],
    "att-A10": ["c"], "att-reads": [{0, 1, 2, 3}], "att-cache-row": [0], "att-longer": [0],
    "att-A20": ["1/3", "1/6"], "att-scale": [16, 2, 12], "att-target": [2, 0], "att-axis": ["a", "d"], "att-cache-dropped": [{0}, {4}, {0, 1, 2, 3}, {1, 2, 3}],
    "att-column-softmax": [{0}, {2}, {0, 1}, set()],
    "att-cache-size": [268_435_456, 65_536, 4_294_967_296],
    "rope-score": [-1, 0], "rope-swap": ["a"], "rope-pos8": [[0, 0], [8], [8, 0.076]], "rope-speed": [10, 2],
    "rope-alibi": [0, 1], "rope-shift": ["a", "c"],
    "gqa-head6": [0, 6], "gqa-weights": [2], "gqa-mqa-cache": [24, 48], "gqa-leftover": [0, 1, 3],
    "gqa-layer-bytes": [16384, 2048, 131072],
    "norm-rms": [[0.849, 1.131], [1.2, 0.4], [6, 8]], "norm-layer": [[1, -1]], "norm-two": ["b"],
    "norm-silu": [0, -2, -0.269], "norm-add": ["b", "c"], "norm-offset": [[1.273, 0.566], [0.849, 1.131], [0, 0]],
    "files-data-start": [112, 8, 2096], "files-tied": ["b"], "files-tied-count": [0, 6160, 32000],
    "files-kproj": [[16, 4], [8, 16]],
    "files-kv1-count": [17008, 17264], "files-layers": ["b", "d"], "files-partial": [{2}, {0, 1, 2, 3, 4}],
    "files-gguf-row": [5, 10, 2], "files-q41-weights": [[0.0, 3.5], [5.5, 2.0]],
    "files-bf16-bytes": [68032, 17008, 8504, 36112],
    "trained-expert-share": [0.5, 1], "trained-first-gap": [1.0, 7.62, 0.13, 0.165], "trained-tabs": ["a", "c"],
    "trained-head-read": [11, 0], "trained-prev-head": [0], "trained-load": [[6, 6, 6, 6], [7, 8, 4, 5]],
    "trained-idle": [0, 2, 3], "trained-even-loss": [64, 7.62, 2.55, 4.0, 6.0],
    "real-template": [37, 7], "real-nucleus": [10, 49152], "real-nucleus-hot": [17, 13307], "real-direct-why": ["b", "c"],
    "real-first-copy": ["b", "c"],
}


def own_ids() -> set:
    return {qid for ch, qs in all_questions().items() if ch != "09_moe_routing" for qid in qs}


def test_every_chapter_with_a_notebook_has_questions():
    stems = {p.stem for p in (ROOT / "book").glob("[0-9][0-9]_*.md")} - set(guide.GUIDE_PAGES)
    assert stems <= set(questions.CHAPTERS), f"chapters without questions: {sorted(stems - set(questions.CHAPTERS))}"
    assert all(len(qs) >= 4 for qs in all_questions().values())


def test_every_question_is_fed_right_and_wrong_answers_and_ids_are_unique():
    assert set(RIGHT) == set(WRONG) == own_ids()
    assert len(by_id()) == sum(len(qs) for qs in all_questions().values())


@pytest.mark.parametrize("qid", sorted(RIGHT))
def test_right_answers_are_right_and_wrong_ones_not_yet(qid):
    q = by_id()[qid]
    for answer in RIGHT[qid]:
        result = q.check(answer)
        assert result.correct, result.text()
        assert f"Engine: {q.answer_text()}, from {q.source}" in result.text()
    for answer in WRONG[qid]:
        result = q.check(answer)
        assert result.status == "not yet", result.text()
        assert q.why in result.text()
    blank = q.check(...)
    assert blank.status == "unanswered" and "Engine" not in blank.text() and q.why not in blank.text()
    for bad in ({"a": 1}, object(), b"x", float("nan")):
        assert q.check(bad).status in ("can't read", "not yet")


def test_answers_come_from_the_engine():
    from tokenpath import gqa, norms
    from tokenpath import examples as ex
    from tokenpath.lessons import bpe as lesson1
    from tokenpath.lessons import utf8 as lesson2

    assert by_id()["utf8-growth"].answer == lesson2.vocab_growth(ex.FIG2_VOCAB_OLD, ex.FIG2_VOCAB_NEW, ex.FIG2_WIDTH).added_per_matrix
    assert by_id()["gqa-head6"].answer == gqa.kv_groups(ex.FIG16_N_Q_HEADS, ex.FIG16_N_KV_HEADS)[ex.GQA_QUESTION_HEAD]
    assert by_id()["gqa-head6"].answer != ex.GQA_QUESTION_HEAD % ex.FIG16_N_KV_HEADS  # not the interleaved map's
    assert by_id()["gqa-layer-bytes"].answer == gqa.kv_cache_size(
        layers=1, requests=1, kv_heads=ex.KV_REAL_N_KV_HEADS, seq_len=1, head_dim=ex.KV_REAL_HEAD_DIM).nbytes(ex.KV_REAL_DTYPE)
    np.testing.assert_allclose(by_id()["norm-rms"].answer, norms.rms_norm(ex.QUIZ_RMS_X, ex.QUIZ_RMS_GAMMA))
    np.testing.assert_allclose(by_id()["norm-offset"].answer, norms.rms_norm(ex.FIG17_X, ex.QUIZ_OFFSET_W))
    assert by_id()["norm-silu"].answer == pytest.approx(float(norms.silu(ex.QUIZ_SILU_A)))
    assert by_id()["bpe-lower"].answer == tuple(lesson1.teach_merges(ex.FIG1_TABLE, ex.FIG1_MERGES).segmentation(3)["lower"])


def test_sequence_questions_need_the_items_in_order_and_of_the_right_kind():
    q = by_id()["bpe-lower"]
    assert q.check(["wer", "lo"]).status == "not yet" and "Items 0, 1 differ" in q.check(["wer", "lo"]).message
    assert q.check([1, 2]).status == "can't read" and q.check("lower").status == "can't read"
    n = by_id()["utf8-bytes"]
    assert n.check(["3", "4"]).status == "can't read" and n.check(np.array([3, 4])).correct
    assert n.answer_text() == "[3, 4]" and q.answer_text() == "['lo', 'wer']"
    with pytest.raises(ValueError, match="one kind"):
        selfcheck.sequence("s", "p?", [1, "a"], source="s", why="w")
    with pytest.raises(ValueError, match="list"):
        selfcheck.sequence("s", "p?", "abc", source="s", why="w")


def test_exact_answers_accept_thousands_separators_only_where_they_are_separators():
    q = by_id()["utf8-growth"]
    assert q.check("402,653,184").correct and q.check("4,02653184").status == "can't read"
    assert by_id()["emb-wide"].check(Fraction(24)).correct


def test_unknown_chapter_is_refused_by_name():
    with pytest.raises(ValueError, match="chapter must be one of"):
        questions.for_chapter("10_nothing")


ANSWER_CELL = re.compile(r"^(answer_\w+) = \.\.\.", re.M)


@pytest.mark.parametrize("chapter", sorted(questions.CHAPTERS))
def test_each_chapter_asks_every_question_in_a_cell_and_stores_the_unanswered_state(chapter):
    nb = nbformat.read(ROOT / "notebooks" / f"{chapter}.ipynb", as_version=4)
    asked, stored = [], []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        ids = re.findall(r'quiz\["([\w-]+)"\]\.check\((answer_\w+)\)', cell.source)
        if not ids:
            continue
        placeholders = set(ANSWER_CELL.findall(cell.source))
        assert {a for _, a in ids} <= placeholders, f"{chapter}: an answer variable is not set to ... in its cell"
        asked += [q for q, _ in ids]
        stored += [o for o in cell.get("outputs", []) if o.get("output_type") in ("execute_result", "display_data")]
    assert asked == list(all_questions()[chapter]), f"{chapter} asks {asked}, its questions are {list(all_questions()[chapter])}"
    texts = [o["data"]["text/plain"] for o in stored]
    assert len(texts) == len(asked) and all(t.startswith("[unanswered]") for t in texts)


#: Chapters whose questions are printed once, by the question object in its cell's output: the
#: markdown around the answer cells holds no second copy of a prompt that could drift from it.
PROMPTED_ONCE = ["01_bpe_merges", "02_utf8_splits", "03_embedding_lookup", "04_attention", "05_masks", "06_rope_discs", "07_gqa", "08_rmsnorm_swiglu", "09_moe_routing", "10_model_files", "11_trained_model", "12_real_model"]
NUMBERED_ITEM = re.compile(r"^\s*\d+\.\s", re.M)
ANSWER_COMMENT = re.compile(r"^answer_\w+ = \.\.\.\s*#", re.M)


@pytest.mark.parametrize("chapter", PROMPTED_ONCE)
def test_a_question_is_worded_once_by_its_checker_and_the_chapter_holds_no_copy(chapter):
    nb = nbformat.read(ROOT / "notebooks" / f"{chapter}.ipynb", as_version=4)
    heading = re.compile(r"^## (.*)$", re.M)
    start = next(k for k, c in enumerate(nb.cells)
                 if c.cell_type == "markdown" and "Check yourself" in heading.findall(c.source))
    end = next(k for k, c in enumerate(nb.cells)
               if k > start and c.cell_type == "markdown" and heading.search(c.source))
    section = nb.cells[start:end + 1]
    for k, cell in enumerate(section):
        if cell.cell_type == "markdown":
            text = cell.source
            if k == 0:
                text = text.split("## Check yourself", 1)[1]
            if k == len(section) - 1:
                text = text[:heading.search(text).start()]
            assert not NUMBERED_ITEM.search(text), f"{chapter}: a prompt is written out in the markdown"
            assert not any(q.prompt in text for q in all_questions()[chapter].values())
        else:
            assert not ANSWER_COMMENT.search(cell.source), f"{chapter}: an answer cell describes its answer itself"
    shown = [o["data"]["text/plain"] for c in section if c.cell_type == "code"
             for o in c.get("outputs", []) if o.get("output_type") in ("execute_result", "display_data")]
    for qid, q in all_questions()[chapter].items():
        assert any(f"{qid}: {q.prompt}" in t and q.hint in t for t in shown), f"{chapter}: {qid} is not shown"
