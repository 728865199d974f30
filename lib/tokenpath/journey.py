"""The journey map at the top of every chapter: the path of a string through a decoder,
from its characters to the probabilities of the next token, with the stages the chapter
teaches marked.

    string → bytes → tokens → IDs → rows → L × (norm → attention · RoPE · GQA → norm → SwiGLU or MoE)
    → norm → head → probabilities

Which stages a chapter teaches is stated once, in :data:`CHAPTER_STAGES`; every word the
map shows is in :data:`LABELS`, so that a translation replaces one table. The map is
plain HTML (inline styles, no script, no picture), so it renders the same in JupyterLab,
in the HTML edition and in print, and wraps at phone width; its text form marks the
stages with brackets.

>>> print(journey("04_attention").text().splitlines()[0])
string → bytes → tokens → IDs → rows → L × ( norm → [attention] · RoPE · GQA → norm → SwiGLU or MoE ) → norm → head → probabilities
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from .i18n import N_, _, using

__all__ = ["CHAPTER_STAGES", "LABELS", "LAYER", "LINKS", "PATH", "STAGES", "Journey", "journey", "label"]

#: Every word the map shows, by key: the stages, then the few words around them (in
#: English; :func:`label` gives one in the engine's language).
LABELS = {
    "string": N_("string"),
    "bytes": N_("bytes"),
    "tokens": N_("tokens"),
    "ids": N_("IDs"),
    "rows": N_("rows"),
    "norm": N_("norm"),
    "attention": N_("attention"),
    "rope": N_("RoPE"),
    "gqa": N_("GQA"),
    "swiglu": N_("SwiGLU"),
    "moe": N_("MoE"),
    "head": N_("head"),
    "probabilities": N_("probabilities"),
    "layers": N_("L ×"),
    "or": N_("or"),
    "title": N_("Where this chapter sits on the path from text to probabilities"),
    "marked": N_("marked: this chapter"),
    "before": N_("Before you start"),
    "notation": N_("Notation"),
}

#: The stages before the decoder layers, in order.
BEFORE = ("string", "bytes", "tokens", "ids", "rows")
#: One decoder layer, repeated L times: norm, attention (with RoPE and GQA), norm, then
#: SwiGLU or MoE. A tuple inside is a group of stages written together.
LAYER = ("norm", ("attention", "rope", "gqa"), "norm", ("swiglu", "moe"))
#: The stages after the last layer.
AFTER = ("norm", "head", "probabilities")
#: The whole path, flat, in order (``norm`` appears three times: one stage, three places).
PATH = (*BEFORE, "norm", "attention", "rope", "gqa", "norm", "swiglu", "moe", *AFTER)
#: Every stage a chapter can mark.
STAGES = tuple(dict.fromkeys(PATH))

#: The stages each chapter teaches: the one table the map reads.
CHAPTER_STAGES: dict[str, tuple[str, ...]] = {
    "01_bpe_merges": ("string", "tokens"),
    "02_utf8_splits": ("bytes", "tokens", "ids"),
    "03_embedding_lookup": ("ids", "rows", "head", "probabilities"),
    "04_attention": ("attention",),
    "05_masks": ("attention",),
    "06_rope_discs": ("rope",),
    "07_gqa": ("gqa",),
    "08_rmsnorm_swiglu": ("norm", "swiglu"),
    "09_moe_routing": ("moe",),
    "10_model_files": STAGES,  # a model's files hold every stage: its tokenizer and all its weights
    "11_trained_model": STAGES,
    "12_real_model": STAGES,
}

#: The two pages the map links to: (label key, notebook).
LINKS = (("before", "00_prerequisites.ipynb"), ("notation", "98_notation.ipynb"))

# Inline styles only (JupyterLab keeps them in a stored output; the HTML edition and print
# need no stylesheet); a border with no colour takes the text's, so light and dark themes
# both work.
_BOX = "display:inline-block;padding:0 0.3em;border-radius:4px;white-space:nowrap;"
_PLAIN = _BOX + "border:1px solid;"
_MARKED = _BOX + "border:2px solid;font-weight:bold;"


def label(key: str) -> str:
    """The map's word for ``key`` (a key of :data:`LABELS`) in the engine's language.

    >>> label("probabilities")
    'probabilities'
    """
    return _(LABELS[key])


@dataclass(frozen=True)
class Journey:
    """The map for one chapter; a notebook shows its HTML, a terminal its text."""

    chapter: str
    marked: tuple[str, ...]
    lang: str | None = None  # the language it is shown in (None: the engine's current one)

    def _items(self, stage, word):
        """The path as a list of pieces, each written by ``stage(key)`` or ``word(text)``."""
        out = [stage(k) for k in BEFORE]
        inner = []
        for part in LAYER:
            if isinstance(part, tuple) and part[0] == "swiglu":
                inner.append(f"{stage(part[0])} {word(label('or'))} {stage(part[1])}")
            elif isinstance(part, tuple):
                inner.append(" · ".join(stage(k) for k in part))
            else:
                inner.append(stage(part))
        out.append(("layer", " → ".join(inner)))
        out += [stage(k) for k in AFTER]
        return out

    def text(self) -> str:
        def stage(k):
            return f"[{label(k)}]" if k in self.marked else label(k)

        parts = [p if isinstance(p, str) else f"{label('layers')} ( {p[1]} )"
                 for p in self._items(stage, lambda w: w)]
        links = " · ".join(f"{label(k)}: {target}" for k, target in LINKS)
        return f"{' → '.join(parts)}\n[ ] {label('marked')}\n{links}"

    def html(self) -> str:
        def stage(k):
            shown = html.escape(label(k))
            if k in self.marked:
                return f'<mark style="{_MARKED}">{shown}</mark>'
            return f'<span style="{_PLAIN}">{shown}</span>'

        parts = []
        for p in self._items(stage, html.escape):
            if isinstance(p, str):
                parts.append(p)
            else:
                parts.append(f'<span style="border:1px dashed;border-radius:6px;padding:0.1em 0.3em">'
                             f"{html.escape(label('layers'))} ( {p[1]} )</span>")
        links = " · ".join(f'<a href="{target}">{html.escape(label(k))}</a>' for k, target in LINKS)
        legend = f'<mark style="{_MARKED}">{html.escape(label("marked"))}</mark>'
        return (f'<nav class="tokenpath-journey" aria-label="{html.escape(label("title"))}" '
                f'style="line-height:2;margin:0.25em 0 0.5em;overflow-wrap:anywhere">'
                f'<p style="margin:0">{" → ".join(parts)}</p>'
                f'<p style="margin:0;font-size:0.9em">{legend} · {links}</p></nav>')

    def _repr_html_(self) -> str:
        if self.lang is None:
            return self.html()
        with using(self.lang):
            return self.html()

    def __repr__(self) -> str:
        if self.lang is None:
            return self.text()
        with using(self.lang):
            return self.text()


def journey(chapter: str, lang: str | None = None) -> Journey:
    """The journey map of ``chapter`` (a book file name without ``.md``, e.g.
    ``"04_attention"``), its stages from :data:`CHAPTER_STAGES`, shown in ``lang``
    (a Chinese notebook's map cell passes it: the cell runs before the one that
    chooses the language), else in the engine's language.

    >>> "<mark" in journey("07_gqa").html() and "[GQA]" in repr(journey("07_gqa"))
    True
    >>> repr(journey("07_gqa", lang="zh_CN")).split(" → ")[0]
    '字符串'
    """
    if chapter not in CHAPTER_STAGES:
        raise ValueError(f"no journey stages for {chapter!r}; add it to CHAPTER_STAGES in tokenpath.journey "
                         f"(chapters: {', '.join(CHAPTER_STAGES)})")
    return Journey(chapter, CHAPTER_STAGES[chapter], lang)
