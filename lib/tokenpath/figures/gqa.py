"""Figure 16: eight query heads reading two shared K/V heads (grouped-query attention).

Drawn on one canvas in inch units (y grows downwards), like the attention figures. The
drawing keeps a pool of :data:`~tokenpath.examples.GQA_MAX_HEADS` query boxes, K/V
boxes and links; :func:`update_head_sharing` places, labels and shows the ones a
:class:`~tokenpath.lessons.gqa.HeadSharing` trace needs, so the widget moves the same artists
for any Hq and Hkv. A pair that does not divide is drawn as a refusal carrying the
engine's message.

Colours: orange = query heads, sky blue = cached K/V heads, green = the read paths.
"""

from __future__ import annotations

from dataclasses import dataclass

from matplotlib.artist import Artist

from .. import examples as ex
from .. import fmt
from ..gqa import KVCacheSize
from ..i18n import _
from ..lessons.gqa import HeadSharing, head_sharing
from . import Drawn, register, style
from .draw import (
    CACHE_FACE,
    NOTE_SIZE,
    QUERY_FACE,
    SMALL_SIZE,
    add_cell,
    add_heading,
    add_text,
    check_ax,
    figure_title,
    new_canvas,
)

__all__ = [
    "Refused",
    "build_fig16",
    "describe_head_sharing",
    "draw_head_sharing",
    "head_sharing_or_refusal",
    "product_text",
    "update_head_sharing",
]

#: Horizontal span of the head rows, inches.
X0, X1 = 1.7, 6.85
Y_Q, Y_KV = 0.78, 1.98  # top of the query row and of the K/V row
H_BOX = 0.44
GAP = 0.06
VALUE_X = 2.75  # left edge of the numbers under the figure


@dataclass(frozen=True)
class Refused:
    """A head configuration the engine refuses, with its message."""

    n_q_heads: int
    n_kv_heads: int
    message: str


def head_sharing_or_refusal(n_q_heads: int, n_kv_heads: int) -> HeadSharing | Refused:
    """Figure 16's trace for ``(Hq, Hkv)``, or the engine's refusal (a pair whose Hq is
    not a multiple of Hkv) as a :class:`Refused` instead of an exception.

    >>> head_sharing_or_refusal(8, 3).message.startswith("n_q_heads=8 is not divisible")
    True
    """
    size = dict(layers=ex.FIG16_LAYERS, requests=ex.FIG16_REQUESTS, seq_len=ex.FIG16_SEQ_LEN,
                head_dim=ex.FIG16_HEAD_DIM)
    try:
        return head_sharing(n_q_heads, n_kv_heads, **size)
    except ValueError as err:
        if "not divisible" not in str(err):
            raise
        return Refused(int(n_q_heads), int(n_kv_heads), str(err))


def product_text(size: KVCacheSize) -> str:
    """``2×1×2×3×2 = 24``: the cache count written out."""
    return "×".join(fmt.num(f) for f in size.factors) + f" = {fmt.num(size.elements)}"


def _shape(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _slots(n: int) -> list[tuple[float, float]]:
    """``n`` equal boxes (x, width) across the row."""
    pitch = (X1 - X0) / n
    return [(X0 + k * pitch + GAP / 2, pitch - GAP) for k in range(n)]


def draw_head_sharing(ax, trace: HeadSharing | Refused, *, pool: int = ex.GQA_MAX_HEADS) -> dict[str, Artist]:
    """Draw ``pool`` query boxes, K/V boxes and links, then place them for ``trace``."""
    ax = check_ax(ax)
    art: dict[str, Artist] = {}
    art["label.q"] = add_text(ax, X0 - 0.12, Y_Q + H_BOX / 2, "query heads\n(own Q, own A)",
                              ha="right", size=NOTE_SIZE, linespacing=1.3)
    art["label.kv"] = add_text(ax, X0 - 0.12, Y_KV + H_BOX / 2, "K/V heads\n(each cached once)",
                               ha="right", size=NOTE_SIZE, linespacing=1.3)
    for h in range(pool):
        art[f"q.box[{h}]"] = add_cell(ax, X0, Y_Q, 0.3, H_BOX, "", face=QUERY_FACE, edge=style.QUERY, lw=1.2)[0]
        art[f"link[{h}]"] = ax.plot([0, 0], [Y_Q + H_BOX, Y_KV], color=style.VALUE, lw=1.5, zorder=1)[0]
    for g in range(pool):
        art[f"kv.box[{g}]"], art[f"kv.text[{g}]"] = add_cell(ax, X0, Y_KV, 0.3, H_BOX, "", face=CACHE_FACE,
                                                             edge=style.CACHE, lw=1.4, size=SMALL_SIZE + 1)
    # one label for the whole row (a text per box would cost a slider step dearly)
    art["q.range"] = add_text(ax, (X0 + X1) / 2, Y_Q - 0.16, "", ha="center", size=NOTE_SIZE)
    art["refusal"] = add_text(ax, (X0 + X1) / 2, Y_KV + H_BOX / 2, "", ha="center", size=NOTE_SIZE,
                              color=style.BLOCKED, wrap=False)
    rows = ("shapes", "K/V cache with Hkv heads", "one K/V head per query head", "ratio (K/V body only)")
    for k, (name, label) in enumerate(zip(("shapes", "cache", "mha", "ratio"), rows)):
        y = 2.95 + 0.3 * k
        bold = "bold" if name == "ratio" else "normal"
        art[f"{name}.label"] = add_text(ax, 0.15, y, label, size=NOTE_SIZE + 0.5, weight=bold)
        art[name] = add_text(ax, VALUE_X, y, "", size=NOTE_SIZE + 0.5, weight=bold)
    if isinstance(trace, HeadSharing):
        c = trace.cache
        art["cache.note"] = add_text(
            ax, 0.15, 2.95 + 0.3 * 4,
            f"counted for {fmt.num(c.layers)} layer, {fmt.num(c.requests)} request, P = {fmt.num(c.seq_len)} "
            f"cached positions, d_h = {fmt.num(c.head_dim)}; no allocator, workspace or latency",
            size=SMALL_SIZE + 0.5, color="#333333", style="italic")
    update_head_sharing(art, trace)
    return art


def _kv_name(g: int, joiner: str = ", ") -> str:
    """K/V head ``g`` named by its keys and values, "K₀, U₀" (the alt text joins them in the reader's language)."""
    return f"K{fmt.subscript(g)}{joiner}U{fmt.subscript(g)}"


def _group_label(g: int, readers, width: float) -> str:
    first, last = int(readers[0]), int(readers[-1])
    who = f"q{first}" if first == last else f"q{first}–q{last}"
    name = _kv_name(g)
    if width >= 1.1:
        return f"{name} · read by {who}"
    return f"{g}" if width < 0.5 else name


def update_head_sharing(artists: dict, trace: HeadSharing | Refused) -> None:
    """Place, label and show the pooled artists for ``trace``; hide the rest."""
    if not isinstance(trace, (HeadSharing, Refused)):
        raise TypeError(f"trace must be a HeadSharing or Refused, got {type(trace).__name__}")
    pool = sum(1 for k in artists if k.startswith("q.box["))
    h_q = trace.n_q_heads
    if h_q > pool:
        raise ValueError(f"trace has {h_q} query heads but the figure holds {pool}")
    q_slots = _slots(h_q)
    refused = isinstance(trace, Refused)
    h_kv = 0 if refused else trace.n_kv_heads
    for h in range(pool):
        box, link = artists[f"q.box[{h}]"], artists[f"link[{h}]"]
        on = h < h_q
        box.set_visible(on)
        link.set_visible(on and not refused)
        if not on:
            continue
        x, w = q_slots[h]
        box.set_x(x)
        box.set_width(w)
        box.set_facecolor(style.LIGHT if refused else QUERY_FACE)
        box.set_edgecolor(style.NEUTRAL if refused else style.QUERY)
    last = f"q{h_q - 1}"
    artists["q.range"].set_text(f"{h_q} query head: q0" if h_q == 1 else
                                f"{h_q} query heads, left to right: q0, q1, … {last}" if h_q > 2 else
                                f"{h_q} query heads: q0, q1")
    kv_box = {}
    for g in range(pool):
        box, text = artists[f"kv.box[{g}]"], artists[f"kv.text[{g}]"]
        on = g < h_kv
        box.set_visible(on)
        text.set_visible(on)
        if not on:
            continue
        readers = trace.readers(g)
        x = q_slots[readers[0]][0]
        last_x, last_w = q_slots[readers[-1]]
        w = last_x + last_w - x
        box.set_x(x)
        box.set_width(w)
        text.set_position((x + w / 2, Y_KV + H_BOX / 2))
        text.set_text(_group_label(g, readers, w))
        kv_box[g] = (x, w)
    if not refused:
        for h in range(h_q):
            qx, qw = q_slots[h]
            g = int(trace.groups[h])
            gx, gw = kv_box[g]
            n = trace.group_size
            r = h - g * n
            end_x = gx + gw * (r + 0.5) / n if n > 1 else gx + gw / 2
            artists[f"link[{h}]"].set_data([qx + qw / 2, end_x], [Y_Q + H_BOX, Y_KV])
    artists["refusal"].set_visible(refused)
    if refused:
        artists["refusal"].set_text("refused: " + trace.message.replace(": every", ":\nevery"))
        artists["shapes"].set_text(f"Hq = {h_q}, Hkv = {trace.n_kv_heads}: no head mapping")
        for k in ("cache", "mha", "ratio"):
            artists[k].set_text("—")
        return
    s, c, m = trace, trace.cache, trace.mha_cache
    artists["shapes"].set_text(f"Q {_shape(s.query_shape)},  K and U {_shape(s.kv_shape)}")
    artists["cache"].set_text(f"{product_text(c)} numbers")
    artists["mha"].set_text(f"{product_text(m)} numbers")
    artists["ratio"].set_text(f"{fmt.num(c.elements)}/{fmt.num(m.elements)} = {fmt.frac(float(s.ratio))}")


def describe_head_sharing(trace: HeadSharing | Refused) -> str:
    """The state in words, every number from ``trace``.

    >>> print(describe_head_sharing(head_sharing_or_refusal(8, 2)))
    Hq = 8 query heads read Hkv = 2 K/V heads, 4 query heads per K/V head (query head h reads K/V head h // 4). Q is [B, 8, T, d_h], K and U are [B, 2, T, d_h]. One layer, one request, P = 3 cached positions, d_h = 2: the cache holds 2×1×2×3×2 = 24 numbers against 2×1×8×3×2 = 96 with one K/V head per query head, a ratio of 1/4 (K/V body only).
    """
    if isinstance(trace, Refused):
        return _("Hq = {hq}, Hkv = {hkv}: refused by the engine: {message}.").format(
            hq=trace.n_q_heads, hkv=trace.n_kv_heads, message=trace.message)
    s, c, m = trace, trace.cache, trace.mha_cache
    kind = _(" (multi-head attention)") if s.n_kv_heads == s.n_q_heads else (
        _(" (multi-query attention)") if s.n_kv_heads == 1 else "")
    return _(
        "Hq = {hq} query heads read Hkv = {hkv} K/V heads{kind}, {size} query heads per K/V head (query head h "
        "reads K/V head h // {size}). Q is {q_shape}, K and U are {kv_shape}. One layer, one request, P = {p} "
        "cached positions, d_h = {d_h}: the cache holds {cache} numbers against {mha} with one K/V head per query "
        "head, a ratio of {ratio} (K/V body only).").format(
        hq=s.n_q_heads, hkv=s.n_kv_heads, kind=kind, size=s.group_size, q_shape=_shape(s.query_shape),
        kv_shape=_shape(s.kv_shape), p=c.seq_len, d_h=c.head_dim, cache=product_text(c), mha=product_text(m),
        ratio=fmt.frac(float(s.ratio)))


@register(16, "Grouped-query attention: query heads share K/V heads")
def build_fig16() -> Drawn:
    trace = head_sharing_or_refusal(ex.FIG16_N_Q_HEADS, ex.FIG16_N_KV_HEADS)
    fig, ax = new_canvas(style.WIDTH, 4.3)
    art: dict[str, Artist] = {}
    art["heading"] = add_heading(ax, 0.15, 0.25, "Each K/V head is stored once and read by a group of query heads")
    art.update(draw_head_sharing(ax, trace))
    art["note"] = add_text(ax, 0.15, 2.58, "The two rows are two kinds of head and the map between them, "
                           "not two time steps.", size=SMALL_SIZE + 0.5, color="#333333", style="italic")
    reads = _("; ").join(
        _("{who} read {name}").format(who=_group_label(g, trace.readers(g), 2.0).split(" · read by ")[1],
                                      name=_kv_name(g, _(", "))) for g in range(trace.n_kv_heads))
    alt = _("Two rows of boxes: {hq} query heads above, {hkv} K/V heads below, each K/V head linked to the {size} "
            "query heads that read it ({reads}). {state}").format(
        hq=trace.n_q_heads, hkv=trace.n_kv_heads, size=trace.group_size, reads=reads,
        state=describe_head_sharing(trace))
    return Drawn(16, figure_title(16), fig, alt, art, trace)
