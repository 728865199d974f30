"""Chapter 1's "Check yourself" questions (``01_bpe_merges``): the tie rule, the third
merge, an unencodable word, the space, and what a smaller count changes. Every answer is computed by the engine when the
questions are built.
"""

from __future__ import annotations

from .. import examples as ex
from ..i18n import _
from ..lessons import bpe as lesson1
from ..selfcheck import Question, choice, exact, sequence

__all__ = ["questions"]


def questions() -> tuple[Question, ...]:
    """The chapter's questions, in the order it asks them."""
    run = lesson1.teach_merges(ex.FIG1_TABLE, ex.FIG1_MERGES)
    first, third = run.steps[0], run.steps[2]
    a, b = (" ".join(p) for p in first.tied[:2])
    rule = {
        "a": _("{pair}: of the pairs tied at {count}, the one that sorts first wins").format(pair=a, count=first.count),
        "b": _("{pair}: of the pairs tied at {count}, the one that sorts last wins").format(pair=b, count=first.count),
        "c": _("both are merged in the same step"),
        "d": _("the pair whose symbols are rarer on their own"),
    }
    key = "a" if first.chosen == min(first.tied) else "b" if first.chosen == max(first.tied) else "c"
    q1 = choice("bpe-tie", _("Figure 1: which of the tied pairs is merged first, and by what rule?"), rule, key,
                source="lessons.bpe.teach_merges(FIG1_TABLE, FIG1_MERGES).steps[0].chosen",
                why=_("Tied pairs: {pairs}; the engine breaks a tie by the smaller pair, so '{chosen}' is merged "
                      "first.").format(pairs=", ".join(" ".join(p) for p in first.tied), chosen=" ".join(first.chosen)))
    others = max(c for p, c in third.counts.items() if p != third.chosen)
    q2 = exact("bpe-third-count", _("After two merges, how often is '{pair}' counted in the table?").format(
                   pair=" ".join(third.chosen)),
               third.count, source="lessons.bpe.teach_merges(FIG1_TABLE, FIG1_MERGES).steps[2].count",
               hint=_("a whole number"),
               why=_("It is the most frequent pair at step 3: {count} against at most {others} for any other "
                     "pair.").format(count=third.count, others=others))
    lower = run.segmentation(3)["lower"]
    q3 = sequence("bpe-lower", _("After three merges, which pieces is 'lower' cut into?"), lower,
                  source='lessons.bpe.teach_merges(FIG1_TABLE, FIG1_MERGES).segmentation(3)["lower"]',
                  hint=_('a list of strings in order, such as ["l", "ow"]'),
                  why=_("Each merge joins a pair wherever it occurs; three merges leave 'lower' as {pieces}.").format(
                      pieces=" + ".join(repr(p) for p in lower)))
    missing = lesson1.encode_word("lowest", run.merges, run.alphabet).missing
    why_not = {
        "a": _("the merge list is too short: one more merge would encode it"),
        "b": _("{symbols} are not base symbols of the table, so no merge can produce them").format(
            symbols=_(" and ").join(missing)),
        "c": _("'lowest' is longer than any word in the table"),
        "d": _("the word is not in the table, and only table words can be encoded"),
    }
    q4 = choice("bpe-lowest", _("Why can the table's merges not encode 'lowest'?"), why_not, "b" if missing else "a",
                source='lessons.bpe.encode_word("lowest", run.merges, run.alphabet).missing',
                why=_("The encoder reports the missing base symbols {missing}. Adding them to the alphabet (or "
                      "starting from bytes, as a byte-level tokenizer does) fixes it without a new merge.").format(
                    missing=list(missing)))
    tok = lesson1.demo_tokenizer()
    plain, spaced = tok.encode("the"), tok.encode(" the")
    space = {
        "a": _("the leading space is part of the token, so \" the\" is a vocabulary entry of its own"),
        "b": _("IDs are handed out afresh on every call"),
        "c": _("the tokenizer lowercases one of them"),
        "d": _("they get the same IDs; only their printing differs"),
    }
    q5 = choice("bpe-space", _('Why do "the" and " the" get different IDs?'), space,
                "a" if plain != spaced else "d", source='lessons.bpe.demo_tokenizer().encode("the"), .encode(" the")',
                why=_('"the" -> {plain}, " the" -> {spaced}: the space belongs to the word that follows it.').format(
                    plain=plain, spaced=spaced))
    fewer = dict(ex.FIG1_TABLE, newer=ex.FIG1_WHAT_IF_NEWER)
    what_if = lesson1.teach_merges(fewer, 1).steps[0]
    er = what_if.counts[("e", "r")]
    lo = what_if.counts[("l", "o")]
    options = {
        "a": _("e r again: the tie rule still puts it before every other pair"),
        "b": _("l o: e r and w e drop to {er}, below the {lo} of l o and o w, and l o sorts before o w").format(
            er=er, lo=lo),
        "c": _("o w: it occurs in low and lower, the two most frequent words together"),
        "d": _("e r and l o together, since each is the most frequent pair of its own words"),
    }
    key = {("e", "r"): "a", ("l", "o"): "b", ("o", "w"): "c"}.get(what_if.chosen, "d")
    q6 = choice("bpe-what-if", _("What if newer occurred {fewer} times instead of {count}: which pair would be "
                "merged first, and why?").format(fewer=ex.FIG1_WHAT_IF_NEWER, count=ex.FIG1_TABLE["newer"]),
                options, key,
                source='lessons.bpe.teach_merges(dict(FIG1_TABLE, newer=FIG1_WHAT_IF_NEWER), 1).steps[0]',
                why=_("The counts that include newer fall by the same amount: e r = {er}, w e = {we}, while "
                      "l o = {lo} does not depend on newer. The highest count decides first; the tie rule only "
                      "chooses among pairs with that count.").format(er=er, we=what_if.counts[("w", "e")], lo=lo))
    return q1, q2, q3, q4, q5, q6
