""""Check yourself" without a kernel.

In a notebook, each question of a chapter's "Check yourself" is a cell
``answer_N = ...`` / ``quiz["id"].check(answer_N)`` whose stored output is the
unanswered checker, which prints the question's prompt. In the HTML edition that cell
is replaced, for each question it checks, by the prompt, the question's choices (or an
answer box with the checker's hint) and a reveal that gives the engine's answer and the
checker's explanation, computed by :mod:`tokenpath.questions` when the book is built.
The cell that builds ``quiz`` is left out; the question's words live once, in its
:class:`~tokenpath.selfcheck.Question`.
"""

from __future__ import annotations

import html
import re

from docutils import nodes
from sphinx.transforms import SphinxTransform

from ..i18n import N_, _

CHECK = re.compile(r"""quiz\[["']([\w-]+)["']\]\.check\(""")
BUILD = re.compile(r"""questions\.for_chapter\(["']([\w-]+)["']\)""")
QUIZ_CLASS = "tp-quiz"
#: Put before a page's first question: how the questions work here and in the notebook.
NOTE = N_("In this edition, choose or write your answer, then open \"Show the engine's answer\". "
          "In the notebook, the checker grades the answer you put into the cell.")


SHOW = N_("Show the engine's answer")


def note() -> str:
    return f'<p class="tp-quiz-note">{html.escape(_(NOTE), quote=False)}</p>'


def quiz_html(question) -> str:
    """One question's offline form: choices or an answer box, and the reveal.

    >>> from tokenpath.selfcheck import exact
    >>> q = exact("q1", "Two plus two?", 4, source="2 + 2", why="Add them.", hint="a whole number")
    >>> print(quiz_html(q))  # doctest: +ELLIPSIS
    <div class="tp-quiz" data-question="q1" data-kind="exact">...<summary>Show the engine's answer</summary><p class="tp-answer">Answer: <strong>4</strong> <span class="tp-source">(computed by <code>2 + 2</code>)</span></p><p class="tp-why">Add them.</p></details></div>
    """
    qid = html.escape(question.id)
    if question.options:
        items = "".join(
            f'<li><label><input type="radio" name="tp-{qid}" value="{html.escape(k)}"> '
            f'({html.escape(k)}) {html.escape(t)}</label></li>' for k, t in question.options)
        ask = f'<ul class="tp-choices">{items}</ul>'
    else:
        ask = ('<label class="tp-answer-box">' + html.escape(_("Your answer ({hint}):").format(hint=_(question.hint)))
               + f' <input type="text" name="tp-{qid}" autocomplete="off"></label>')
    key = f' data-key="{html.escape(question.answer)}"' if question.options else ""
    prompt = f'<p class="tp-prompt">{html.escape(question.prompt)}</p>'
    said = html.escape(_("Answer:"))
    return (f'<div class="{QUIZ_CLASS}" data-question="{qid}" data-kind="{html.escape(question.kind)}"{key}>{prompt}{ask}'
            f'<details class="tp-reveal"><summary>{html.escape(_(SHOW), quote=False)}</summary>'
            f'<p class="tp-answer">{said} <strong>{html.escape(question.answer_text())}</strong> '
            f'<span class="tp-source">' + html.escape(_("(computed by {source})")).replace(
                "{source}", f"<code>{html.escape(question.source)}</code>") + '</span></p>'
            f'<p class="tp-why">{html.escape(question.why)}</p></details></div>')


class QuizTransform(SphinxTransform):
    """Replace each checker cell by its offline question; drop the cell building the quiz."""

    default_priority = 871

    def apply(self):
        if self.app.builder.format != "html":
            return
        from .. import questions
        from .sliders import _cell_source

        quiz, first = None, True
        for cell in list(self.document.findall(nodes.container)):
            if cell.get("nb_element") != "cell_code":
                continue
            block = _cell_source(cell)
            text = block.astext() if block is not None else ""
            built, asked = BUILD.search(text), CHECK.findall(text)
            if built:
                quiz = questions.for_chapter(built.group(1))
                cell.parent.remove(cell)
            elif asked:
                if quiz is None:
                    raise ValueError(f"{self.env.docname}: quiz[{asked[0]!r}] is checked before a cell builds quiz")
                markup = "".join(quiz_html(quiz[qid]) for qid in asked)
                if first:
                    markup, first = note() + markup, False
                cell.parent.replace(cell, nodes.raw("", markup, format="html"))


def setup(app):
    app.add_transform(QuizTransform)
