"""What a graded answer looks like: the :class:`Result` of
:meth:`tokenpath.selfcheck.Question.check`, shown in a notebook as HTML (a coloured
bar, the prompt, the verdict and, once answered, why and the engine's value) and as
plain text.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from ..i18n import N_, _

__all__ = ["STATUSES", "Result"]

#: Every status a result can have.
STATUSES = ("right", "not yet", "unanswered", "can't read")
#: The statuses as a reader sees them (marked for the catalog; shown through ``_``).
_SHOWN = (N_("right"), N_("not yet"), N_("unanswered"), N_("can't read"))

_COLOURS = {"right": "#009E73", "not yet": "#E69F00", "unanswered": "#999999", "can't read": "#D55E00"}


@dataclass(frozen=True)
class Result:
    """What :meth:`Question.check` says about one answer."""

    question: "Question"
    status: str  # "right", "not yet", "unanswered" or "can't read"
    message: str  # why, in a sentence or two
    given: Any = None

    @property
    def correct(self) -> bool:
        return self.status == "right"

    def _engine_line(self) -> str | None:
        if self.status in ("right", "not yet"):
            q = self.question
            return _("Engine: {answer}, from {source}").format(answer=q.answer_text(), source=q.source)
        return None

    def text(self) -> str:
        """The result as plain text (what a notebook shows without HTML)."""
        q = self.question
        lines = [f"[{_(self.status)}] {q.id}: {q.prompt}"]
        lines += [f"  ({key}) {text}" for key, text in q.options]
        lines.append(f"  {self.message}")
        if self.status in ("right", "not yet"):
            lines.append("  " + _("Why: {why}").format(why=q.why))
            lines.append(f"  {self._engine_line()}")
        return "\n".join(lines)

    def html(self) -> str:
        q = self.question
        colour = _COLOURS[self.status]
        parts = [
            f'<div class="tokenpath-selfcheck" data-status="{html.escape(self.status)}" '
            f'style="border-left:4px solid {colour};padding:0.3em 0.8em;margin:0.3em 0">',
            f'<p><strong style="color:{colour}">{html.escape(_(self.status))}</strong> · '
            f"<code>{html.escape(q.id)}</code> · {html.escape(q.prompt)}</p>",
        ]
        if q.options:
            parts.append("<ul style=\"list-style:none;margin:0;padding-left:1em\">"
                         + "".join(f"<li>({html.escape(k)}) {html.escape(t)}</li>" for k, t in q.options)
                         + "</ul>")
        parts.append(f"<p>{html.escape(self.message)}</p>")
        if self.status in ("right", "not yet"):
            why, engine = html.escape(_("Why:")), html.escape(_("Engine:"))
            parts.append(f"<p><em>{why}</em> {html.escape(q.why)}</p>")
            parts.append(f"<p><em>{engine}</em> " + html.escape(_("{answer}, from {source}")).format(
                answer=html.escape(q.answer_text()), source=f"<code>{html.escape(q.source)}</code>") + "</p>")
        parts.append("</div>")
        return "".join(parts)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/html": self.html(), "text/plain": self.text()}

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Result({self.question.id!r}, {self.status!r})"
