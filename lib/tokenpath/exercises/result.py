"""What a check says: a :class:`CheckResult`, whose ``str()`` is the message the reader
sees (plain text; a notebook shows it as HTML), with ``.passed`` and, where the exercise
has one, ``.figure()``: the chapter's figure drawn from the reader's numbers beside the
book's.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from ..i18n import N_, _

__all__ = ["STATUSES", "CheckResult", "Difference"]

#: Every status a check can end in.
STATUSES = (N_("passed"), N_("not written yet"), N_("differs"), N_("raised"), N_("timeout"), N_("refused"),
            N_("not callable"))

_COLOURS = {"passed": "#009E73", "not written yet": "#999999", "differs": "#E69F00"}


@dataclass(frozen=True)
class Difference:
    """The first intermediate of one case that differs from the engine's."""

    field: str  # "weights" ("" when the function raised or timed out)
    label: str  # "A = softmax(S)"
    status: str  # "differs", "unreadable", "raised" or "timeout"
    expected: Any
    got: Any
    text: str  # the sentence the reader sees


@dataclass(frozen=True)
class CheckResult:
    """The verdict of :meth:`Exercise.check` on one function."""

    exercise: Any  # the Exercise
    status: str  # one of STATUSES
    summary: str = ""  # the message, when no case differs
    case: Any = None  # the first case that differs
    case_index: int = -1
    difference: Difference | None = None
    mistake: Any = None  # the known Mistake the function matches, if any
    outcome: Any = None  # the run of that case
    cases: tuple = ()
    outcomes: tuple = ()
    expected: tuple = ()
    printed: Any = None  # the first case's captured output, when it printed

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def lines(self) -> list[str]:
        """The message, one sentence a line."""
        ex = self.exercise
        head = _("[{status}] {name}: {title} (chapter {chapter}).").format(
            status=_(self.status), name=ex.name, title=_(ex.title), chapter=ex.chapter)
        out = [head]
        if self.summary:
            out.append(self.summary)
        elif self.difference is not None:
            d, o = self.difference, self.outcome
            case = _(self.case.label)
            if d.status == "raised":
                out.append(_("Your function raised {error} on {case} ({where}).").format(
                    error=o.error, case=case, where=o.where) if o.where else
                    _("Your function raised {error} on {case}.").format(error=o.error, case=case))
            elif d.status == "timeout":
                out.append(_("Your function did not return within {seconds} s on {case}; the checker stopped it. "
                             "Look for a loop whose condition never changes.").format(
                    seconds=f"{ex.case_seconds:g}", case=case))
            else:
                out.append(_("First difference, on {case}: {text}").format(case=case, text=d.text))
            if self.mistake is not None:
                out.append(_("This is a known mistake, {name}: {why}").format(
                    name=_(self.mistake.name), why=_(self.mistake.why)))
            elif d.status not in ("timeout", "raised"):  # an error is its own diagnosis
                n = len(self.outcomes)
                known = (_("(No known mistake gives your results on all {n} case.)") if n == 1 else
                         _("(No known mistake gives your results on all {n} cases.)")).format(n=n)
                if d.field:
                    known = known[:-1] + _(" Reread the docstring's line for {field} and compare it with "
                                           "your code.").format(field=repr(d.field)) + known[-1]  # its closing bracket
                out.append(known)
        if self.printed is not None and self.printed.total:
            cut = self.printed.total > self.printed.limit
            said = (_("Your function printed {n} characters; the first of them:") if cut else
                    _("Your function printed {n} characters:"))
            out.append(said.format(n=f"{self.printed.total:,}"))
            out.append(self.printed.summary().rstrip("\n"))
        return out

    def text(self) -> str:
        return "\n".join(self.lines())

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"CheckResult({self.exercise.name!r}, {self.status!r})"

    def figure(self):
        """The chapter's figure from the reader's numbers on the worked example beside the
        book's (a display for a notebook cell), or None when the exercise has no figure or
        the reader's numbers on the worked example cannot be read."""
        ex = self.exercise
        if ex.figure is None or not self.outcomes or self.outcomes[0].status != "returned":
            return None
        try:
            got = ex._fields_of(self.outcomes[0].value)
            return ex.figure(self.cases[0], self.expected[0], got)
        except Exception:  # the reader's numbers cannot be drawn (wrong shape …): the text says why
            return None

    def html(self) -> str:
        colour = _COLOURS.get(self.status, "#D55E00")
        lines = self.lines()
        printed = self.printed is not None and self.printed.total
        said = lines[1:-1] if printed else lines[1:]  # the printed text (last line) goes in a <pre>
        body = "".join(f"<p>{html.escape(t)}</p>" for t in said)
        if printed:
            body += f'<pre style="max-height:12em;overflow:auto">{html.escape(lines[-1])}</pre>'
        return (f'<div class="tokenpath-exercise" data-status="{html.escape(self.status)}" '
                f'style="border-left:4px solid {colour};padding:0.3em 0.8em;margin:0.3em 0">'
                f'<p><strong style="color:{colour}">{html.escape(_(self.status))}</strong> · '
                f"<code>{html.escape(self.exercise.name)}</code> · {html.escape(_(self.exercise.title))}</p>"
                f"{body}</div>")

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {"text/html": self.html(), "text/plain": self.text()}
        fig = self.figure()
        if fig is not None:
            drawn = fig._repr_mimebundle_()
            bundle = {"text/html": bundle["text/html"] + drawn["text/html"],
                      "text/plain": bundle["text/plain"] + "\n" + drawn["text/plain"]}
        return bundle
