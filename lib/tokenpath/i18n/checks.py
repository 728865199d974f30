"""What keeps the two editions one book: the checks ``make test`` runs on the catalogs
(tests/test_i18n_catalogs.py).

- :func:`numbers`: a translation holds the same numbers as its English (full-width
  digits, separators and thousands commas normalised), so every number of the Chinese
  text is the English text's, which tests/test_prose_numbers.py checks against the engine;
- :func:`coverage`: per page, how many messages are untranslated or fuzzy;
- :func:`glossary_terms` and :func:`term_problems`: where the English uses a term of the
  glossary (book/99_glossary.md, its Chinese column), the translation uses the Chinese term.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import lru_cache
from pathlib import Path

from .catalogs import ROOT, read

GLOSSARY = ROOT / "book" / "99_glossary.md"
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
#: What a message's text is read for numbers without: link targets, which are the
#: English anchors in both languages, and inline code is kept (it is the same text).
_TARGET = re.compile(r"\](\([^)\s]*\))")


def numbers(text: str) -> Counter:
    """The numbers of ``text`` as a multiset of normalised strings: full-width digits
    and punctuation folded (NFKC), thousands commas dropped, signs ignored.

    >>> sorted(numbers("V = 32,000 and d = 4096, 0.5 nats; ５ 个").elements())
    ['0.5', '32000', '4096', '5']
    >>> numbers("第 1.1 节（第１．１节）") == numbers("section 1.1 (section 1.1)")
    True
    """
    text = _TARGET.sub("]()", unicodedata.normalize("NFKC", text))
    found = Counter()
    for m in _NUMBER.finditer(text):
        token = m.group()
        if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", token):
            token = token.replace(",", "")
        for part in token.split(","):  # "1,2" lists are separate numbers
            if part:
                found[part] += 1
    return found


def number_problems(catalog) -> list[str]:
    """Each translated entry of ``catalog`` whose numbers differ from its English."""
    problems = []
    for m in catalog:
        if not m.id or not m.string or m.fuzzy:
            continue
        english, chinese = (m.id[0], m.string[0]) if isinstance(m.id, tuple) else (m.id, m.string)
        a, b = numbers(english), numbers(chinese)
        if a != b:
            problems.append(f"{english[:70]!r}: English has {sorted((a - b).elements())} more, "
                            f"the translation {sorted((b - a).elements())} more")
    return problems


def coverage(path: Path) -> tuple[int, int, int]:
    """(messages, untranslated, fuzzy) of the catalog at ``path``."""
    messages = [m for m in read(path) if m.id]
    return len(messages), sum(1 for m in messages if not m.string), sum(1 for m in messages if m.fuzzy)


@lru_cache(maxsize=None)
def glossary_terms(path: Path = GLOSSARY) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The glossary's term list: (English term, the Chinese forms that count as using
    it). Each entry is a ``### Term`` heading whose paragraph starts with the Chinese
    term and `` · ``; the forms are the Chinese before any parenthesis, each side of a
    ``/``, and what a parenthesis gives (``词元（token）`` → 词元, token).

    >>> dict(glossary_terms())["Residual stream"]
    ('残差流',)
    >>> dict(glossary_terms())["Token"]
    ('词元', 'token')
    """
    text = path.read_text(encoding="utf-8")
    terms = []
    for m in re.finditer(r"^### (.+)\n\n(.+?) · ", text, re.M):
        english, chinese = m.group(1).strip(), m.group(2).strip()
        if "," in english:  # "Query, key and value": its parts are words of every sentence
            continue
        forms = []
        outside = re.sub(r"（[^）]*）", "", chinese)
        latin = re.match(r"([A-Za-z][\w-]*) +[\u4e00-\u9fff]", outside)  # "Unigram 语言模型": Unigram
        if latin:
            forms.append(latin.group(1))
        for part in re.split(r"\s*/\s*", outside):
            part = part.strip().strip("`")
            if part:
                forms.append(part)
        for inside in re.findall(r"（([^）]*)）", chinese):
            head = re.split(r"[，,；;]", inside)[0].strip().strip("`")
            if head and not re.search(r"[\u4e00-\u9fff]", head):
                forms.append(head)
        if sum(c.isupper() for c in english) >= 2:  # an abbreviation or a name (EOS, KV cache, RMSNorm)
            forms.append(english)
        terms.append((english, tuple(dict.fromkeys(forms))))
    return tuple(terms)


def _plain(text: str) -> str:
    """``text`` without code spans, link targets and math: the words a term can be in."""
    text = re.sub(r"`[^`]*`", " ", text)
    text = _TARGET.sub("]", text)
    return re.sub(r"\$[^$]*\$", " ", text)


def term_problems(catalog, terms=None) -> list[str]:
    """Each translated entry whose English uses a glossary term (as a word, any case,
    plural allowed) while its translation has none of that term's Chinese forms. A
    translator's comment ``# glossary: not Term: why`` above an entry waives one term
    there, where the English word means something else (the "activation" of "the
    activation SiLU" is a function, not an activation value)."""
    terms = glossary_terms() if terms is None else terms
    patterns = [(english, forms, re.compile(rf"(?<![\w-]){re.escape(english)}(?:s|es)?(?![\w-])",
                                            0 if english.isupper() else re.I))  # PAD, not "pad"
                for english, forms in terms]
    problems = []
    for m in catalog:
        if not m.id or not m.string or m.fuzzy or isinstance(m.id, tuple):
            continue
        english, chinese = _plain(m.id), _plain(m.string).lower()
        waived = {w.strip() for c in m.user_comments for w in re.findall(r"^glossary: not ([^:]+)", c)}
        found = [(term, forms, hit.span()) for term, forms, pattern in patterns if term not in waived
                 for hit in pattern.finditer(english)]
        said = set()
        for term, forms, (start, end) in found:
            if any(s <= start and end <= e and (e - s) > (end - start) for _, _, (s, e) in found):
                continue  # inside a longer term ("normalisation" of "text normalisation")
            if term not in said and not any(f.lower() in chinese for f in forms):
                said.add(term)
                problems.append(f"{m.id[:60]!r} uses {term!r}; its translation has none of {list(forms)}")
    return problems
