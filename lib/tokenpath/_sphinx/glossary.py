"""The glossary as a Sphinx glossary, links between it and the chapters, and Chinese
marked as Chinese.

- Each entry of the glossary page (a ``###`` heading and its paragraph) becomes a
  glossary term of Sphinx's standard domain, with an index entry, at the entry's own
  anchor: ``{term}`` roles and the general index reach it, and the chapters' links
  (``99_glossary.ipynb#Residual-stream``) land on it.
- Links go both ways: under each entry, the sections of the chapters that link to it
  ("Used in …").
- Every run of CJK text on every page of the English edition is wrapped in
  ``<span lang="zh">`` so browsers, screen readers and the font stack treat it as
  Chinese (the Chinese edition's pages are Chinese as a whole, and their text stays
  text, which the search indexes).
- A notebook link whose anchor names no heading, but is the start of exactly one
  heading's anchor, is pointed at that heading, with a warning.
"""

from __future__ import annotations

import html
import json
import re
from functools import lru_cache
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

from ..i18n import _

logger = logging.getLogger(__name__)
GLOSSARY = "99_glossary"
#: CJK ideographs, kana, CJK punctuation and full-width forms, with a parenthesised
#: gloss written in full-width parentheses (词元（token）).
CJK = re.compile(r"[\u2e80-\u2fdf\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]+"
                 r"(?:[^\u3000-\u303f\uff08\uff09]*?\uff09)?")


def cjk_runs(text: str) -> list[tuple[str, bool]]:
    """``text`` cut into (piece, is_chinese) runs.

    >>> cjk_runs("词元（token） · One unit")
    [('词元（token）', True), (' · One unit', False)]
    >>> cjk_runs("no Chinese")
    [('no Chinese', False)]
    """
    out, at = [], 0
    for m in CJK.finditer(text):
        if m.start() > at:
            out.append((text[at:m.start()], False))
        out.append((m.group(), True))
        at = m.end()
    if at < len(text):
        out.append((text[at:], False))
    return out


@lru_cache(maxsize=None)
def _headings(path: str, mtime: float) -> frozenset:
    from . import heading_slug

    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    found = set()
    for cell in cells:
        if cell["cell_type"] == "markdown":
            found |= {heading_slug(m) for m in re.findall(r"^#{1,6} +(.+?)\s*$", "".join(cell["source"]), re.M)}
    return frozenset(found)


def nearest_anchor(anchor: str, anchors) -> str | None:
    """``anchor`` itself when it names a heading, else the only heading anchor it is
    the start of, else None.

    >>> nearest_anchor("2.4-Chat-templates", {"2.4-Chat-templates:-one-string", "2.5-Sizes"})
    '2.4-Chat-templates:-one-string'
    """
    if anchor in anchors:
        return anchor
    starts = [a for a in anchors if a.startswith(anchor)]
    return starts[0] if len(starts) == 1 else None


class GlossaryLinks(SphinxTransform):
    """Fix near-miss anchors, note which chapter sections link to which glossary entry,
    register the glossary's terms, and mark Chinese text."""

    default_priority = 880

    def apply(self):
        env, docname = self.env, self.env.docname
        uses = env.tp_glossary_uses.setdefault(docname, [])
        for ref in self.document.findall(addnodes.pending_xref):
            if ref.get("reftype") != "myst" or not ref.get("reftargetid"):
                continue
            path = Path(self.app.srcdir) / f"{ref['reftarget']}.ipynb"
            if not path.is_file():
                continue
            anchors = _headings(str(path), path.stat().st_mtime)
            fixed = nearest_anchor(ref["reftargetid"], anchors)
            if fixed and fixed != ref["reftargetid"]:
                logger.warning(f"link to {ref['reftarget']}#{ref['reftargetid']} names no heading; "
                               f"pointed at #{fixed}", location=ref)
                ref["reftargetid"] = fixed
            if ref["reftarget"] == GLOSSARY and docname != GLOSSARY:
                section = _section(ref)
                if section is not None:
                    uses.append((ref["reftargetid"], section["ids"][0], section[0].astext()))
        if docname == GLOSSARY:
            self._terms()
        from .editions import chinese

        if chinese(self.app):  # the whole page is Chinese already; its text stays text, for the search
            return
        for text in list(self.document.findall(nodes.Text)):
            if isinstance(text.parent, (nodes.literal, nodes.literal_block, nodes.raw, nodes.math, nodes.math_block)):
                continue
            runs = cjk_runs(str(text))
            if len(runs) == 1 and not runs[0][1]:
                continue
            parts = [nodes.raw("", f'<span lang="zh">{html.escape(p)}</span>', format="html") if zh else nodes.Text(p)
                     for p, zh in runs]
            text.parent.replace(text, parts)

    def _terms(self):
        from . import heading_slug

        std = self.env.domains.standard_domain
        top = next(iter(self.document.findall(nodes.section)), None)
        for section in (top.findall(nodes.section) if top is not None else ()):
            if section is top or section.parent is not top:
                continue
            term = section[0].astext()
            std._note_term(term, section["ids"][0], location=section)
            index = addnodes.index(entries=[("single", f"{term}; glossary", section["ids"][0], "main", None)])
            section.insert(1, index)
            section["classes"].append("tp-term")
            section["tp_anchor"] = heading_slug(term)


def _section(node):
    while node is not None and not isinstance(node, nodes.section):
        node = node.parent
    return node


def _used_in(app, doctree, docname):
    """Under each glossary entry, the chapter sections that link to it."""
    if docname != GLOSSARY:
        return
    by_term: dict[str, list] = {}
    for doc in sorted(app.env.tp_glossary_uses):
        for anchor, section_id, title in app.env.tp_glossary_uses[doc]:
            entry = (doc, section_id, title)
            if entry not in by_term.setdefault(anchor, []):
                by_term[anchor].append(entry)
    for section in doctree.findall(nodes.section):
        users = by_term.get(section.get("tp_anchor"))
        if not users:
            continue
        links = ", ".join(
            f'<a href="{app.builder.get_relative_uri(docname, doc)}#{sid}">{html.escape(title)}</a>'
            for doc, sid, title in users)
        words = html.escape(_("Used in: {links}.")).replace("{links}", links)
        section.append(nodes.raw("", f'<p class="tp-used-in">{words}</p>', format="html"))


def _init(app, env, docnames):
    if not hasattr(env, "tp_glossary_uses"):
        env.tp_glossary_uses = {}


def _purge(app, env, docname):
    getattr(env, "tp_glossary_uses", {}).pop(docname, None)


def _merge(app, env, docnames, other):
    env.tp_glossary_uses.update({d: other.tp_glossary_uses.get(d, []) for d in docnames})


def setup(app):
    app.add_transform(GlossaryLinks)
    app.connect("env-before-read-docs", _init)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("doctree-resolved", _used_in)
