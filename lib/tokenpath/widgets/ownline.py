"""Widget of chapter 11_trained_model, "Follow your own line": a text box whose line runs
through the book's trained model (:func:`tokenpath.ownline.line_trace`), shown as HTML.

The reader types one line of Python; the view shows its tokens, each token's surprisal
(a colour band *and* its value in nats), the most likely next tokens at a chosen
position, the experts every layer ran for every token, and one head's attention row
(query = the chosen position). Three sliders choose the position, the layer and the
head; moving them reads the cached trace and runs no forward pass.

Everything typed is shown as escaped HTML, drawn by the browser's own fonts (the
figures' font is a subset). A line the engine refuses (empty, too long, a lone
surrogate, a control character) shows the engine's message instead of the view; the
widget catches exactly the ``ValueError``/``TypeError`` of :func:`~tokenpath.ownline.line_trace`.
"""

from __future__ import annotations

import html
import math
import time

import ipywidgets
import numpy as np

from .. import ownline
from ..examples import trained as ex
from ..i18n import _, pgettext

__all__ = ["COLOURS", "OwnLine", "band", "line_html", "own_line", "surprisal_colour"]

#: The book's palette (:mod:`tokenpath.figures.style`), repeated here so that the HTML
#: is built without matplotlib; the tests keep the two equal. Surprisal is ACCENT (a
#: quantity of its own), attention to a visible source VISIBLE, the query QUERY, masked
#: (future) sources LIGHT, text INK.
COLOURS = {"ACCENT": "#CC79A7", "VISIBLE": "#0072B2", "QUERY": "#E69F00", "NEUTRAL": "#999999",
           "LIGHT": "#E8E8E8", "INK": "#000000"}
#: Share of ACCENT in the background of each surprisal band, lowest band first.
BAND_SHARES = (0.08, 0.25, 0.45, 0.7, 1.0)
#: Share of VISIBLE in an attention cell of weight 1 (lighter, so black text stays legible).
ATTENTION_SHARE = 0.6


def _mix(colour: str, share: float) -> str:
    """``colour`` (``#RRGGBB``) laid over white at ``share`` ∈ [0, 1].

    >>> _mix("#000000", 0.5), _mix("#CC79A7", 1.0)
    ('#808080', '#CC79A7')
    """
    rgb = [int(colour[i: i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(255 + (c - 255) * share):02X}" for c in rgb)


def band(nats: float, edges=ex.OWNLINE_SURPRISAL_EDGES) -> int:
    """The surprisal band of ``nats``: 0 below the first edge, … ``len(edges)`` at or
    above the last.

    >>> [band(x) for x in (0.5, 1.0, 3.0, 9.0)]
    [0, 1, 2, 4]
    """
    return int(np.searchsorted(np.asarray(edges), nats, side="right"))


def surprisal_colour(nats: float) -> str:
    """Background of a token of surprisal ``nats`` (NaN, the first token: none)."""
    if not math.isfinite(nats):
        return "#FFFFFF"
    return _mix(COLOURS["ACCENT"], BAND_SHARES[band(nats)])


def _band_label(k: int, edges=ex.OWNLINE_SURPRISAL_EDGES) -> str:
    if k == 0:
        return _("below {edge}").format(edge=f"{edges[0]:g}")
    if k == len(edges):
        return _("{edge} or more").format(edge=f"{edges[-1]:g}")
    return _("{low} to {high}").format(low=f"{edges[k - 1]:g}", high=f"{edges[k]:g}")


def _shown(piece: str) -> str:
    """A token's text as HTML, its whitespace made visible as in chapter 2's box (␣ space,
    ⇥ tab, ↵ line break: a candidate next token may hold one)."""
    return html.escape(piece.replace(" ", "␣").replace("\t", "⇥").replace("\r", "␍").replace("\n", "↵"))


def _nats(x: float) -> str:
    return _("none") if not math.isfinite(x) else f"{x:.2f}"


CELL = "padding:1px 6px;border:1px solid #CCCCCC;text-align:right;font-variant-numeric:tabular-nums"
TOKEN = "padding:1px 6px;border:1px solid #CCCCCC;font-family:monospace;white-space:pre"


def _legend() -> str:
    swatches = "".join(
        f'<span style="display:inline-block;margin:0 4px;padding:0 6px;border:1px solid {COLOURS["NEUTRAL"]};'
        f'background:{_mix(COLOURS["ACCENT"], s)}">{html.escape(_band_label(k))}</span>'
        for k, s in enumerate(BAND_SHARES))
    return '<p style="margin:4px 0">{}</p>'.format(
        _("Surprisal of each token, −ln p(token | the tokens before it), in nats: {swatches} (the first token has "
          "none: nothing comes before it)").format(swatches=swatches))


def _line_chips(trace, position: int, ids: bool = False) -> str:
    chips = []
    for t, (piece, s) in enumerate(zip(trace.pieces, trace.surprisal)):
        tag = f'<br><span style="font-size:0.7em">#{int(trace.ids[t])}</span>' if ids else ""
        outline = f"2px solid {COLOURS['QUERY']}" if t == position else f"1px solid {COLOURS['NEUTRAL']}"
        title = (_("token {t}: {piece}, surprisal {s} nats").format(t=t, piece=repr(piece), s=f"{s:.2f}")
                 if math.isfinite(s) else _("token {t}: {piece}, the first: no surprisal").format(t=t, piece=repr(piece)))
        chips.append(
            f'<span title="{html.escape(title)}" style="display:inline-block;margin:1px;padding:1px 3px;'
            f'border:{outline};background:{surprisal_colour(s)};text-align:center">'
            f'<span style="font-family:monospace;white-space:pre">{_shown(piece)}</span><br>'
            f'<span style="font-size:0.75em">{_nats(s)}</span>{tag}</span>')
    return '<div style="line-height:1.2">' + "".join(chips) + "</div>"


def _next_table(trace, position: int) -> str:
    t = position
    after = repr(trace.pieces[t])
    rows = []
    actual = int(trace.ids[t + 1]) if t + 1 < trace.tokens else None
    for rank, (i, piece, p) in enumerate(zip(trace.top_ids[t], trace.top_pieces[t], trace.top_probs[t]), 1):
        mark = " " + _("(the line's next token)") if actual is not None and int(i) == actual else ""
        rows.append(f'<tr><th scope="row" style="{CELL}">{rank}</th><td style="{TOKEN}">{_shown(piece)}</td>'
                    f'<td style="{CELL}">{p:.3f}</td><td style="padding:1px 6px">{html.escape(mark)}</td></tr>')
    if actual is None:
        foot = _("This is the line's last token: the table says what the model expects after the line.")
    else:
        foot = _("The line continues with {piece}, surprisal {s} nats (probability {p}).").format(
            piece=repr(trace.pieces[t + 1]), s=f"{trace.surprisal[t + 1]:.2f}",
            p=f"{math.exp(-trace.surprisal[t + 1]):.3f}")
    rank, token, probability = _("rank"), _("token"), _("probability")
    caption = _("The {n} most likely next tokens after position {t} ({after})").format(
        n=len(rows), t=t, after=html.escape(after))
    return (f'<table style="border-collapse:collapse;margin:6px 0">'
            f'<caption style="text-align:left">{caption}</caption>'
            f'<tr><th scope="col" style="{CELL}">{rank}</th><th scope="col" style="{CELL}">{token}</th>'
            f'<th scope="col" style="{CELL}">{probability}</th><th></th></tr>'
            + "".join(rows) + f'</table><p style="margin:2px 0">{html.escape(foot)}</p>')


def _token_table(trace, position: int, layer: int, head: int, ids: bool = False) -> str:
    row = trace.attention_row(layer, head, position)
    k = trace.experts.shape[-1]
    head_cells = "".join('<th scope="col" style="{}">{}</th>'.format(CELL, _("layer {l} experts").format(l=l))
                         for l in range(trace.layers)) if k else ""
    words = {"position": _("position"), "token": _("token"), "surprisal": _("surprisal (nats)"),
             "from": _("attention from {position}").format(position=position)}
    masked = '<td style="{};background:{}" title="{}">{}</td>'.format(CELL, COLOURS["LIGHT"], _("after the query: masked"),
                                                                     _("masked"))
    caption = _("Every token: its surprisal, the experts each layer ran for it (best first, gates in brackets) and "
                "the attention weight the query, position {position}, puts on it in layer {layer}, head {head}").format(
        position=position, layer=layer, head=head)
    out = [f'<table style="border-collapse:collapse;margin:6px 0">'
           f'<caption style="text-align:left">{caption}</caption>'
           f'<tr><th scope="col" style="{CELL}">{words["position"]}</th><th scope="col" style="{CELL}">{words["token"]}</th>'
           + (f'<th scope="col" style="{CELL}">ID</th>' if ids else "")
           + f'<th scope="col" style="{CELL}">{words["surprisal"]}</th>{head_cells}'
           f'<th scope="col" style="{CELL}">{words["from"]}</th></tr>']
    for t in range(trace.tokens):
        s = trace.surprisal[t]
        experts = "".join(
            f'<td style="{CELL}">' + ", ".join(f"{e} ({g:.2f})" for e, g in zip(trace.experts[l, t], trace.gates[l, t]))
            + "</td>" for l in range(trace.layers)) if k else ""
        if t <= position:
            w = float(row[t])
            att = f'<td style="{CELL};background:{_mix(COLOURS["VISIBLE"], ATTENTION_SHARE * w)}">{w:.3f}</td>'
        else:
            att = masked
        query = f";outline:2px solid {COLOURS['QUERY']}" if t == position else ""
        label = _("{t} (query)").format(t=t) if t == position else str(t)
        out.append(f'<tr style="{query[1:]}"><th scope="row" style="{CELL}">{label}</th>'
                   f'<td style="{TOKEN};background:{surprisal_colour(s)}">{_shown(trace.pieces[t])}</td>'
                   + (f'<td style="{CELL}">{int(trace.ids[t])}</td>' if ids else "")
                   + f'<td style="{CELL}">{_nats(s)}</td>{experts}{att}</tr>')
    out.append("</table>")
    return "".join(out)


def line_html(trace, position: int, layer: int, head: int, *, ids: bool = False) -> str:
    """The whole view of ``trace`` as HTML: legend, the line's tokens coloured by
    surprisal (with their values), the next-token table at ``position`` and the table
    of every token's surprisal, experts and attention from ``position`` in head
    ``head`` of layer ``layer`` (with ``ids``, each token's ID too). Every typed character
    is escaped.

    >>> view = line_html(ownline.line_trace("s = '<script>'"), 0, 0, 0)
    >>> "<script" in view, "&lt;" in view
    (False, True)
    """
    position = trace.position(position)
    trace.attention_row(layer, head, position)  # checks layer and head by name
    mean = trace.mean_surprisal
    summary = (_("{n} tokens").format(n=trace.tokens) if mean is None
               else _("{n} tokens, mean surprisal {mean} nats").format(n=trace.tokens, mean=f"{mean:.2f}"))
    return (f'<div class="tp-ownline" style="max-width:100%;overflow-x:auto">'
            f'<p style="margin:4px 0">{html.escape(summary)}</p>{_legend()}{_line_chips(trace, position, ids)}'
            f"{_next_table(trace, position)}{_token_table(trace, position, layer, head, ids)}</div>")


def describe_line(trace, position: int, layer: int, head: int) -> str:
    """The view's numbers in one plain-text paragraph."""
    t = trace.position(position)
    row = trace.attention_row(layer, head, t)
    mean = trace.mean_surprisal
    parts = [(_("{line}: {n} tokens.").format(line=repr(trace.line), n=trace.tokens) if mean is None
              else _("{line}: {n} tokens, mean surprisal {mean} nats.").format(line=repr(trace.line), n=trace.tokens,
                                                                              mean=f"{mean:.2f}"))]
    worst = None if trace.tokens < 2 else 1 + int(np.argmax(trace.surprisal[1:]))
    if worst is not None:
        parts.append(_("Most surprising: token {t} {piece}, {s} nats.").format(
            t=worst, piece=repr(trace.pieces[worst]), s=f"{trace.surprisal[worst]:.2f}"))
    best = _(", ").join(f"{p!r} {q:.3f}" for p, q in zip(trace.top_pieces[t], trace.top_probs[t]))
    parts.append(_("After position {t} {piece} the model expects {best}.").format(
        t=t, piece=repr(trace.pieces[t]), best=best))
    if trace.experts.shape[-1]:
        routes = _("; ").join(_("layer {l}: {experts}").format(
            l=l, experts=_(", ").join(str(int(e)) for e in trace.experts[l, t])) for l in range(trace.layers))
        parts.append(_("Experts of position {t}: {routes}.").format(t=t, routes=routes))
    strongest = np.argsort(-row, kind="stable")[:3]
    reads = _(", ").join(f"{int(j)} {trace.pieces[j]!r} {row[j]:.3f}" for j in strongest)
    parts.append(_("Layer {layer}, head {head}: position {t} reads most from {reads}.").format(
        layer=layer, head=head, t=t, reads=reads))
    return " ".join(parts)


class OwnLine:
    """The text box, three sliders and the HTML view (see the module docstring).

    :meth:`update` takes a new line and/or slider values; the trace of a line is
    computed once (:func:`tokenpath.ownline.line_trace` caches it). :attr:`error` holds
    the engine's message for a refused line (and :attr:`trace` the last line shown)."""

    def __init__(self, line: str = ex.OWNLINE_DEFAULT, *, model=None, hint: str | None = None, ids: bool = False):
        from .. import trained as T

        self.model = T.committed_model() if model is None else model
        self.ids = bool(ids)  # show each token's ID (chapter 12's real model)
        config = self.model.config
        layout = ipywidgets.Layout(width="36em")
        style = {"description_width": "5em"}
        self.input = ipywidgets.Text(value="", description=_("your line"), continuous_update=True, style=style,
                                     layout=ipywidgets.Layout(width="100%"))
        what = _("One line of Python") if hint is None else _(hint)
        self.hint = ipywidgets.HTML(html.escape(_("{what}, at most {n} tokens.").format(
            what=what, n=ownline.max_tokens(self.model))))
        self.position = ipywidgets.IntSlider(value=0, min=0, max=0, description=_("position"), style=style,
                                             layout=layout, continuous_update=True)
        self.layer = ipywidgets.IntSlider(value=config.num_hidden_layers - 1, min=0,
                                          max=config.num_hidden_layers - 1, description=_("layer"), style=style,
                                          layout=layout, continuous_update=True)
        self.head = ipywidgets.IntSlider(value=0, min=0, max=config.num_attention_heads - 1, description=pgettext("attention head", "head"),
                                         style=style, layout=layout, continuous_update=True)
        self.message = ipywidgets.HTML()
        self.view = ipywidgets.HTML()
        self.box = ipywidgets.VBox([self.input, self.hint, self.message, self.position, self.layer, self.head, self.view])
        for part, name in ((self.box, "widget"), (self.message, "message"), (self.view, "view")):
            part.add_class(f"tp-ownline-{name}")  # hooks for the browser check (tests/lab_smoke.py)
        self.trace = None
        self.error: str | None = None
        self.timings: dict[str, float] = {}
        self._syncing = False
        self.update(line)
        if self.error is not None:
            raise ValueError(self.error)
        self.input.observe(lambda change: self._on_change("line", change), names="value")
        for name in ("position", "layer", "head"):
            getattr(self, name).observe(lambda change, name=name: self._on_change(name, change), names="value")

    def _on_change(self, name: str, change) -> None:
        if not self._syncing:
            self.update(**{name: change["new"]})

    def update(self, line=None, *, position=None, layer=None, head=None) -> None:
        """Show ``line`` (a new line; ``None`` keeps the current one) at the given slider
        values (``None`` keeps each). When the line grows or shrinks, a position at the
        line's last token stays at its last token; another is clamped into the line.
        A line the engine refuses shows its message, and the view is emptied."""
        t0 = time.perf_counter()
        old = self.trace
        if line is not None:
            if old is None or line != old.line:  # a new text runs forward: say so while it does
                self.message.value = '<p role="status">{}</p>'.format(html.escape(_(
                    "Running the text through {n} layers…").format(n=self.model.config.num_hidden_layers)))
            try:
                trace = ownline.line_trace(line, self.model)
            except (ValueError, TypeError) as err:
                self.error = str(err)
                self.message.value = (f'<p role="alert" style="color:{COLOURS["INK"]};border-left:4px solid '
                                      f'{COLOURS["QUERY"]};padding-left:6px">{html.escape(self.error)}</p>')
                self.view.value = ""
                for s in (self.position, self.layer, self.head):
                    s.disabled = True
                self._set(self.input, line if isinstance(line, str) else self.input.value)
                self.timings = {"compute": time.perf_counter() - t0, "render": 0.0}
                return
            self.error, self.message.value, self.trace = None, "", trace
            for s in (self.position, self.layer, self.head):
                s.disabled = False
        if self.trace is None:
            return
        t1 = time.perf_counter()
        last = self.trace.tokens - 1
        if position is None:
            at_end = old is None or self.position.value >= old.tokens - 1
            position = last if at_end else min(self.position.value, last)
        position = self.trace.position(position)
        layer = self.layer.value if layer is None else layer
        head = self.head.value if head is None else head
        self.view.value = line_html(self.trace, position, layer, head, ids=self.ids)  # checks layer and head
        self._set(self.position, position, high=last)
        self._set(self.layer, layer)
        self._set(self.head, head)
        self._set(self.input, self.trace.line)
        self.timings = {"compute": t1 - t0, "render": time.perf_counter() - t1}

    def _set(self, control, value, high=None) -> None:
        """Move ``control`` to ``value`` (and its maximum to ``high``) without calling back."""
        self._syncing = True
        try:
            if high is not None and control.max != high:
                control.max = high  # a shorter range clamps the value; it is set right below
            if control.value != value:
                control.value = value
        finally:
            self._syncing = False

    @property
    def state(self) -> tuple:
        """(position, layer, head) shown."""
        return (self.position.value, self.layer.value, self.head.value)

    def html(self) -> str:
        """The view's HTML (empty while a refused line is shown)."""
        return self.view.value

    def describe(self) -> str:
        """The numbers of the current view in plain text, or the message for a refused line."""
        if self.error is not None:
            return _("refused: {error}").format(error=self.error)
        text = describe_line(self.trace, *self.state)
        return text + (f" IDs: {[int(i) for i in self.trace.ids]}." if self.ids else "")

    def snapshot(self) -> "Snapshot":
        """The current view as a static output: HTML for the page, :meth:`describe` as text."""
        return Snapshot(self.view.value if self.error is None else self.message.value, self.describe())

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        if self.error is not None:
            return "OwnLine(refused)"
        return f"OwnLine(tokens={self.trace.tokens}, position={self.position.value}, layer={self.layer.value}, head={self.head.value})"


class Snapshot:
    """A widget state shown without a kernel: the HTML view, and its text for plain displays."""

    def __init__(self, html_text: str, text: str):
        self.html_text, self.text = html_text, text

    def _repr_html_(self) -> str:
        return self.html_text

    def __repr__(self) -> str:
        return self.text


def own_line(line: str = ex.OWNLINE_DEFAULT, *, model=None) -> OwnLine:
    """The "Follow your own line" widget, showing ``line`` (default: the chapter's line)
    run through ``model`` (default: the committed model).

    >>> w = own_line("x = 1")
    >>> w.trace.tokens == len(w.model.encode("x = 1")), w.state[0] == w.trace.tokens - 1
    (True, True)
    >>> w.update(""); w.error
    'line is empty: type one line of text'
    """
    return OwnLine(line, model=model)
