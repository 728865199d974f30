"""The prose is checked too: every number in a markdown cell of book/*.md must be the
engine's rendering of a registered claim (tests/claims.py), a reference the scanner
recognises (figure, section or chapter numbers, heading numbers, citation years), or a
phrase listed in NOT_CLAIMS with its reason.

How a cell is read:
1. fenced code listings and link targets are dropped (code and URLs, not prose);
2. references are removed (``Figure 8``, ``figures 7–14``, ``section 4.2``, ``§4.2``,
   ``chapter 3``, a heading's own number, ``et al. (2017)``);
3. every rendering of every claim of the chapter is removed, longest first, where it
   stands as a whole (not inside a longer number);
4. NOT_CLAIMS phrases are removed;
5. any digit left over fails the test, with its context.
"""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import pytest

from claims import claims_for, not_claims_for

BOOK = Path(__file__).resolve().parents[1] / "book"
CHAPTERS = sorted(p.stem for p in BOOK.glob("[0-9][0-9]_*.md"))

FENCE = re.compile(r"^(```|~~~).*?^\1\s*$", re.S | re.M)
LINK_TARGET = re.compile(r"\]\([^)]*\)")
HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
REFERENCES = [
    re.compile(r"^#+\s+\d+(?:\.\d+)*", re.M),  # a heading's own number
    re.compile(r"^\s*\d+\.\s", re.M),  # an ordered-list marker
    re.compile(r"\b[A-Za-z]\w*\[[\d,: ]+\]"),  # an index into a named array: S[1,0], x[0:3]
    re.compile(r"\b[Ff]ig(?:ure)?s?\.?\s+\d+(?:\s*(?:[–,-]|and|to)\s*\d+)*"),
    re.compile(r"\b[Ss]ections?\s+\d+(?:\.\d+)*(?:\s*(?:[–,]|and)\s*\d+(?:\.\d+)*)*"),
    re.compile(r"§\s*\d+(?:\.\d+)*"),
    re.compile(r"\b[Cc]hapters?\s+\d+(?:\s*(?:[–,]|and)\s*\d+)*"),
    re.compile(r"\bet al\.?,?\s*\(?(?:19|20)\d\d\)?"),
]
DIGIT = re.compile(r"(?<![A-Za-z_\\])[−-]?\d+(?:[.,/]\d+)*|[½⅓⅔¼¾⅕⅙⅛⁰¹²³⁴⁵⁶⁷⁸⁹]")


def _remove_whole(text: str, phrase: str) -> str:
    """Remove ``phrase`` where it is not glued to a longer number."""
    pattern = r"(?<![\d.])" + re.escape(phrase) + r"(?![\d]|\.\d)"
    return re.sub(pattern, " ⟨claim⟩ ", text)


def leftover_numbers(text: str, renderings: list[str], phrases: list[str]) -> list[str]:
    """Numbers in ``text`` not accounted for; each with a little context."""
    text = FENCE.sub(" ", text)
    text = HTML_COMMENT.sub(" ", text)
    text = LINK_TARGET.sub("]", text)
    for ref in REFERENCES:
        text = ref.sub(" ⟨ref⟩ ", text)
    for phrase in sorted(set(phrases), key=len, reverse=True):
        text = text.replace(phrase, " ⟨not a claim⟩ ")
    for r in sorted(set(renderings), key=len, reverse=True):
        text = _remove_whole(text, r)
    found = []
    for m in DIGIT.finditer(text):
        a, b = max(0, m.start() - 40), min(len(text), m.end() + 40)
        found.append(f"{m.group()!r} in …{text[a:b]!r}…".replace("\n", " "))
    return found


def test_scanner_catches_an_unregistered_number_and_accepts_claims_and_references():
    text = "## 4.2 Scaling\nFigure 10 shows weights [0.670, 0.330], then 0.671 sneaks in (Vaswani et al., 2017)."
    left = leftover_numbers(text, ["[0.670, 0.330]", "0.670"], [])
    assert len(left) == 1 and "0.671" in left[0]


def test_scanner_does_not_accept_a_claim_inside_a_longer_number():
    assert leftover_numbers("the weight is 0.6701", ["0.670"], [])
    assert leftover_numbers("value 40", ["4"], [])


@pytest.fixture(scope="module", params=CHAPTERS)
def chapter(request):
    nb = jupytext.read(BOOK / f"{request.param}.md")
    return request.param, [c for c in nb.cells if c.cell_type == "markdown"]


def _renderings(name):
    return [r for c in claims_for(name) for r in c.renderings().values()]


def test_every_number_in_the_prose_is_a_registered_claim(chapter):
    name, cells = chapter
    renderings = _renderings(name)
    phrases = [n.phrase for n in not_claims_for(name)]
    problems = []
    for k, cell in enumerate(cells):
        for item in leftover_numbers(cell.source, renderings, phrases):
            problems.append(f"book/{name}.md markdown cell {k}: {item}")
    assert not problems, (
        "numbers in the prose that no registered claim produces "
        "(add a Claim in tests/claims.py, or a NotClaim with its reason):\n" + "\n".join(problems)
    )


def test_every_registered_claim_is_stated_in_its_chapter(chapter):
    name, cells = chapter
    prose = "\n".join(c.source for c in cells)
    unused = [
        c.name for c in claims_for(name) if not any(r in prose for r in c.renderings().values())
    ]
    assert not unused, f"claims registered for {name} but never stated in its prose: {unused}"
