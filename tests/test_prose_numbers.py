"""The prose is checked too: every number in a markdown cell of book/*.md must be the
engine's rendering of a registered claim (tests/claims.py), a reference the scanner
recognises (figure, section or chapter numbers, heading numbers, citation years), or a
phrase listed in NOT_CLAIMS with its reason.

How a cell is read:
1. fenced code listings and link targets are dropped (code and URLs, not prose); a
   fenced MyST directive that holds prose, such as ``{note}`` or ``{admonition}``,
   keeps its body (and title) and loses only its fence lines and ``:option:`` lines;
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

FENCE_OPEN = re.compile(r"^(?P<fence>`{3,}|~{3,})\s*(?P<info>.*)$")
#: Fenced directives whose body is code, not prose; any other ``{name}`` fence
#: (note, tip, warning, admonition, dropdown …) is an aside and is scanned.
CODE_DIRECTIVES = {"code-cell", "code", "code-block", "sourcecode", "literalinclude", "raw", "eval-rst"}
DIRECTIVE_OPTION = re.compile(r"^\s*:[\w-]+:")


def _is_code_fence(info: str) -> bool:
    """A plain fence or one with a language (```python, ```text) is code; so is
    ``{code-cell}``; a ``{note}``-style directive is prose."""
    m = re.match(r"\{([\w-]+)\}", info)
    return m is None or m.group(1) in CODE_DIRECTIVES


def drop_code_fences(text: str) -> str:
    """``text`` without its code listings; the bodies of prose directives stay.

    A fence closes at a line of the same character, at least as long, with nothing
    after it (CommonMark), so a four-backtick aside can hold a three-backtick listing.
    """
    lines = text.split("\n")
    out: list[str] = []
    k = 0
    while k < len(lines):
        m = FENCE_OPEN.match(lines[k])
        if not m:
            out.append(lines[k])
            k += 1
            continue
        fence, info = m.group("fence"), m.group("info").strip()
        end = next((j for j in range(k + 1, len(lines))
                    if re.fullmatch(re.escape(fence[0]) + "{%d,}\\s*" % len(fence), lines[j])), len(lines))
        body = lines[k + 1:end]
        if _is_code_fence(info):
            out.append(" ")
        else:
            title = re.sub(r"^\{[\w-]+\}", "", info).strip()
            while body and DIRECTIVE_OPTION.match(body[0]):
                body = body[1:]
            out.append(title)
            out.append(drop_code_fences("\n".join(body)))
        k = end + 1
    return "\n".join(out)


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
    text = drop_code_fences(text)
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


def test_scanner_skips_code_fences_of_every_kind():
    listing = "Before.\n```python\nx = 41\n```\n```{code-cell} ipython3\n:tags: [x]\n\ny = 42\n```\n"
    listing += "```\nplain 43\n```\n~~~text\nsin(44)\n~~~\nAfter."
    assert leftover_numbers(listing, [], []) == []


def test_scanner_reads_the_body_and_title_of_an_aside():
    for fence in ("```{note}\nThe cache holds 45 rows.\n```",
                  "```{admonition} Checked 46 times\n:class: dropdown\nNothing else.\n```",
                  "````{tip}\nA listing inside:\n```python\nz = 47\n```\nand 48 in prose.\n````"):
        left = leftover_numbers(fence, [], [])
        assert len(left) == 1, (fence, left)
    assert "45" in leftover_numbers("```{note}\nThe cache holds 45 rows.\n```", [], [])[0]
    assert "46" in leftover_numbers("```{admonition} Checked 46 times\n:class: dropdown\nx\n```", [], [])[0]
    assert leftover_numbers("```{warning}\n:name: w1\nfine\n```", [], []) == []


def test_scanner_accepts_a_claim_inside_an_aside():
    assert leftover_numbers("```{note}\nThe weight is 0.670.\n```", ["0.670"], []) == []


@pytest.fixture(scope="module", params=CHAPTERS)
def chapter(request):
    nb = jupytext.read(BOOK / f"{request.param}.md")
    return request.param, [c for c in nb.cells if c.cell_type == "markdown"]


def _renderings(name):
    """The chapter's claims as the book states them. tests/test_claims.py checks that each
    stated form is the engine's rendering of its computed value, so the scan needs no
    computation of its own (and a chapter's expensive claims are computed once)."""
    return [r for c in claims_for(name) for r in c.stated().values()]


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
        c.name for c in claims_for(name) if not any(r in prose for r in c.stated().values())
    ]
    assert not unused, f"claims registered for {name} but never stated in its prose: {unused}"
