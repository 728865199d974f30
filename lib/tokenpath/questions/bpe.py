"""Chapter 1's "Check yourself" questions (``01_bpe_merges``): the tie rule, the third
merge, an unencodable word, the space, and what a smaller count changes. Every answer is computed by the engine when the
questions are built.
"""

from __future__ import annotations

from .. import examples as ex
from ..lessons import bpe as lesson1
from ..selfcheck import Question, choice, exact, sequence

__all__ = ["questions"]


def questions() -> tuple[Question, ...]:
    """The chapter's questions, in the order it asks them."""
    run = lesson1.teach_merges(ex.FIG1_TABLE, ex.FIG1_MERGES)
    first, third = run.steps[0], run.steps[2]
    a, b = (" ".join(p) for p in first.tied[:2])
    rule = {
        "a": f"{a}: of the pairs tied at {first.count}, the one that sorts first wins",
        "b": f"{b}: of the pairs tied at {first.count}, the one that sorts last wins",
        "c": "both are merged in the same step",
        "d": "the pair whose symbols are rarer on their own",
    }
    key = "a" if first.chosen == min(first.tied) else "b" if first.chosen == max(first.tied) else "c"
    q1 = choice("bpe-tie", "Figure 1: which of the tied pairs is merged first, and by what rule?", rule, key,
                source="lessons.bpe.teach_merges(FIG1_TABLE, FIG1_MERGES).steps[0].chosen",
                why=(f"Tied pairs: {', '.join(' '.join(p) for p in first.tied)}; the engine breaks a tie by the "
                     f"smaller pair, so '{' '.join(first.chosen)}' is merged first."))
    others = max(c for p, c in third.counts.items() if p != third.chosen)
    q2 = exact("bpe-third-count", f"After two merges, how often is '{' '.join(third.chosen)}' counted in the table?",
               third.count, source="lessons.bpe.teach_merges(FIG1_TABLE, FIG1_MERGES).steps[2].count",
               hint="a whole number",
               why=f"It is the most frequent pair at step 3: {third.count} against at most {others} for any other pair.")
    lower = run.segmentation(3)["lower"]
    q3 = sequence("bpe-lower", "After three merges, which pieces is 'lower' cut into?", lower,
                  source='lessons.bpe.teach_merges(FIG1_TABLE, FIG1_MERGES).segmentation(3)["lower"]',
                  hint='a list of strings in order, such as ["l", "ow"]',
                  why="Each merge joins a pair wherever it occurs; three merges leave 'lower' as "
                      + " + ".join(repr(p) for p in lower) + ".")
    missing = lesson1.encode_word("lowest", run.merges, run.alphabet).missing
    why_not = {
        "a": "the merge list is too short: one more merge would encode it",
        "b": f"{' and '.join(missing)} are not base symbols of the table, so no merge can produce them",
        "c": "'lowest' is longer than any word in the table",
        "d": "the word is not in the table, and only table words can be encoded",
    }
    q4 = choice("bpe-lowest", "Why can the table's merges not encode 'lowest'?", why_not, "b" if missing else "a",
                source='lessons.bpe.encode_word("lowest", run.merges, run.alphabet).missing',
                why=(f"The encoder reports the missing base symbols {list(missing)}. Adding them to the alphabet "
                     "(or starting from bytes, as a byte-level tokenizer does) fixes it without a new merge."))
    tok = lesson1.demo_tokenizer()
    plain, spaced = tok.encode("the"), tok.encode(" the")
    space = {
        "a": "the leading space is part of the token, so \" the\" is a vocabulary entry of its own",
        "b": "IDs are handed out afresh on every call",
        "c": "the tokenizer lowercases one of them",
        "d": "they get the same IDs; only their printing differs",
    }
    q5 = choice("bpe-space", 'Why do "the" and " the" get different IDs?', space,
                "a" if plain != spaced else "d", source='lessons.bpe.demo_tokenizer().encode("the"), .encode(" the")',
                why=f'"the" -> {plain}, " the" -> {spaced}: the space belongs to the word that follows it.')
    fewer = dict(ex.FIG1_TABLE, newer=ex.FIG1_WHAT_IF_NEWER)
    what_if = lesson1.teach_merges(fewer, 1).steps[0]
    er = what_if.counts[("e", "r")]
    lo = what_if.counts[("l", "o")]
    options = {
        "a": "e r again: the tie rule still puts it before every other pair",
        "b": f"l o: e r and w e drop to {er}, below the {lo} of l o and o w, and l o sorts before o w",
        "c": "o w: it occurs in low and lower, the two most frequent words together",
        "d": "e r and l o together, since each is the most frequent pair of its own words",
    }
    key = {("e", "r"): "a", ("l", "o"): "b", ("o", "w"): "c"}.get(what_if.chosen, "d")
    q6 = choice("bpe-what-if", f"What if newer occurred {ex.FIG1_WHAT_IF_NEWER} times instead of "
                f"{ex.FIG1_TABLE['newer']}: which pair would be merged first, and why?", options, key,
                source='lessons.bpe.teach_merges(dict(FIG1_TABLE, newer=FIG1_WHAT_IF_NEWER), 1).steps[0]',
                why=(f"The counts that include newer fall by the same amount: e r = {er}, w e = "
                     f"{what_if.counts[('w', 'e')]}, while l o = {lo} does not depend on newer. The highest "
                     f"count decides first; the tie rule only chooses among pairs with that count."))
    return q1, q2, q3, q4, q5, q6
