"""How dense the book's prose is, chapter by chapter: words per sentence, long sentences,
long paragraphs and semicolons, measured the same way for every page.

The clearest chapters of the books this one is compared with (the Hugging Face course,
d2l, LLMs-from-scratch, minbpe's lecture) average 16-20 words a sentence and almost never
pass 40. The budget here is theirs:

- at most 18 words per sentence on average;
- at most 3 % of sentences over 40 words;
- no paragraph or list item over 120 words.

What is measured: the prose of ``book/*.md`` and of ``README.md``, outside code (fenced
code and code cells), display math (``$$ … $$``), tables, headings, HTML comments and the
front matter. The bodies of prose directives (``{note}``, ``{admonition}``, dropdowns)
are prose and count. Each paragraph and each list item is one unit; a unit is split into
sentences at ``.``, ``!`` or ``?`` followed by a space and a capital, a digit, a quote or
a bracket; abbreviations such as "e.g.", "i.e." and "et al." do not end a sentence. A word
is a run of non-space characters holding a letter or a digit; link targets are dropped
and inline code counts as written.

    python benchmarks/prose.py [FILE ...]      (default: every page of book/ and README.md)

It prints one row per file and exits with status 1 when a file is over the budget. It is
a measurement, not a test: ``make test`` does not run it; ``make bench`` does.
"""

from __future__ import annotations

import re
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

MEAN_WORDS = 18.0  # budget: mean words per sentence
LONG_WORDS = 40  # a sentence longer than this is long
LONG_SHARE = 0.03  # budget: share of long sentences
UNIT_WORDS = 120  # budget: words in one paragraph or list item

FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,}|:{3,})\s*(?P<info>.*)$")
CODE_DIRECTIVES = {"code-cell", "code", "code-block", "sourcecode", "literalinclude", "raw", "eval-rst", "math"}
LIST_ITEM = re.compile(r"^\s*(?:[*+-]|\d+[.)])\s+")
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
HTML_TAG = re.compile(r"</?[a-zA-Z][^>]*>")
ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "etc.", "cf.", "vs.", "Fig.", "Eq.", "approx.", "resp.", "No.")
SENTENCE_END = re.compile(r"(?<=[.!?])[)\]\"'”’*_]*\s+(?=[A-Z0-9\"'“‘(\[`*_\u4e00-\u9fff])")
WORD = re.compile(r"\S*[^\W_]\S*")


@dataclass(frozen=True)
class Density:
    """The measures of one file."""

    name: str
    sentences: int
    mean_words: float
    long_share: float  # sentences over LONG_WORDS words, as a share of all
    longest_unit: int  # words in the longest paragraph or list item
    long_units: int  # paragraphs or list items over UNIT_WORDS words
    semicolons: float  # per sentence

    @property
    def within_budget(self) -> bool:
        return (self.mean_words <= MEAN_WORDS and self.long_share <= LONG_SHARE
                and self.longest_unit <= UNIT_WORDS)


def _strip_front_matter(text: str) -> str:
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        if end != -1:
            return text[end + 5:]
    return text


def prose_lines(text: str) -> list[str]:
    """The lines of ``text`` that are prose: code, display math, tables, headings, comments
    and directive option lines removed; a removed block leaves a blank line, so paragraphs
    stay apart."""
    text = HTML_COMMENT.sub("\n", _strip_front_matter(text))
    out: list[str] = []
    lines = text.split("\n")
    k = 0
    in_math = False
    while k < len(lines):
        line = lines[k]
        stripped = line.strip()
        if in_math:
            if stripped.endswith("$$"):
                in_math = False
            out.append("")
            k += 1
            continue
        if stripped.startswith("$$"):
            in_math = not (stripped.endswith("$$") and len(stripped) > 2)
            out.append("")
            k += 1
            continue
        m = FENCE.match(stripped)
        if m:
            fence, info = m.group("fence"), m.group("info").strip()
            name = re.match(r"\{([\w-]+)\}", info)
            plain_code = fence[0] != ":" and (name is None or name.group(1) in CODE_DIRECTIVES)
            closing = re.compile(re.escape(fence[0]) + "{%d,}\\s*$" % len(fence))
            end = next((j for j in range(k + 1, len(lines)) if closing.match(lines[j].strip())), len(lines))
            if plain_code or (name is not None and name.group(1) in CODE_DIRECTIVES):
                out.append("")
            else:  # a prose directive: its title and body are prose, its :options: are not
                title = re.sub(r"^\{[\w-]+\}", "", info).strip()
                body = [ln for ln in lines[k + 1:end] if not re.match(r"^\s*:[\w-]+:", ln)]
                out += ["", title, ""] + prose_lines("\n".join(body)) + [""]
            k = end + 1
            continue
        if stripped.startswith("#") or stripped.startswith("|") or stripped.startswith("!["):
            out.append("")
        else:
            out.append(line)
        k += 1
    return out


def units(text: str) -> list[str]:
    """Paragraphs and list items of the prose, each joined into one line."""
    found: list[str] = []
    current: list[str] = []

    def flush():
        if current:
            joined = " ".join(s.strip() for s in current).strip()
            if joined:
                found.append(joined)
            current.clear()

    for line in prose_lines(text):
        if not line.strip():
            flush()
        elif LIST_ITEM.match(line):
            flush()
            current.append(LIST_ITEM.sub("", line, count=1))
        else:
            current.append(line.lstrip("> "))
    flush()
    return found


def sentences(unit: str) -> list[str]:
    """``unit`` split into sentences (abbreviations do not end one)."""
    text = LINK.sub(r"\1", unit)
    text = HTML_TAG.sub(" ", text)
    protected = text
    for i, abbr in enumerate(ABBREVIATIONS):
        protected = protected.replace(abbr, abbr.replace(".", f"\x00{i}\x00"))
    parts = [p.strip() for p in SENTENCE_END.split(protected) if p.strip()]
    return [re.sub(r"\x00\d+\x00", ".", p) for p in parts]


def words(sentence: str) -> int:
    return len(WORD.findall(sentence))


def measure(path: Path) -> Density:
    """The density of one markdown file."""
    text = path.read_text(encoding="utf-8")
    us = units(text)
    counts = [words(s) for u in us for s in sentences(u)]
    counts = [c for c in counts if c > 0]
    unit_words = [words(LINK.sub(r"\1", u)) for u in us]
    semis = sum(u.count(";") for u in us)
    n = len(counts)
    return Density(
        name=path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path),
        sentences=n,
        mean_words=statistics.fmean(counts) if counts else 0.0,
        long_share=(sum(c > LONG_WORDS for c in counts) / n) if n else 0.0,
        longest_unit=max(unit_words, default=0),
        long_units=sum(w > UNIT_WORDS for w in unit_words),
        semicolons=semis / n if n else 0.0,
    )


def default_files() -> list[Path]:
    return sorted((ROOT / "book").glob("*.md")) + [ROOT / "README.md"]


def table(rows: list[Density]) -> str:
    head = (f"{'file':32} {'sentences':>9} {'words/sent':>10} {'>40 words':>9} "
            f"{'longest unit':>12} {'units>120':>9} {'; /sent':>7}  budget")
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r.name:32} {r.sentences:9d} {r.mean_words:10.1f} {r.long_share:9.1%} "
                     f"{r.longest_unit:12d} {r.long_units:9d} {r.semicolons:7.2f}  "
                     f"{'within' if r.within_budget else 'over'}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    files = [Path(a).resolve() for a in argv] or default_files()
    for f in files:
        if not f.is_file():
            print(f"prose.py: no such file: {f}", file=sys.stderr)
            return 2
    rows = [measure(f) for f in files]
    print(f"Budget: ≤ {MEAN_WORDS:g} words per sentence on average, ≤ {LONG_SHARE:.0%} of sentences over "
          f"{LONG_WORDS} words, no paragraph or list item over {UNIT_WORDS} words.")
    print(table(rows))
    over = [r.name for r in rows if not r.within_budget]
    print(f"{len(rows) - len(over)} of {len(rows)} files within the budget" + (f"; over: {', '.join(over)}" if over else ""))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
