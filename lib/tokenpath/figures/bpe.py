"""Figures 1 and 2: BPE merges, split UTF-8 bytes, and what an ID means.

Laid out like the attention figures: one canvas axes in inch units, origin top-left.
``draw_*`` helpers take that axes and an engine trace and return named artists;
:func:`update_replay` moves figure 1's training panel to another merge step in place
(the merge-step slider uses it).

Colours keep their book-wide meaning (:mod:`tokenpath.figures.style`): orange = the
pair or token the text follows, vermilion = a failure (an invalid byte sequence, a
refused marker), blue = a path that reads a row, green = content that decodes.
"""

from __future__ import annotations

from matplotlib.artist import Artist
from matplotlib.patches import Rectangle

from .. import examples as ex
from ..i18n import _
from ..lessons import bpe as lesson1
from ..lessons import utf8 as lesson2
from ..lessons.bpe import ReplayState
from ..lessons.utf8 import IdCollision, SplitCharTrace, VocabGrowth
from . import Drawn, FigureDisplay, register, register_panel, style
from .draw import (
    BLOCKED_FACE,
    QUERY_FACE,
    VALUE_FACE,
    VISIBLE_FACE,
    add_arrow,
    add_cell,
    add_heading,
    add_text,
    check_at,
    check_ax,
    check_trace,
    figure_title,
    new_canvas,
)

__all__ = [
    "build_fig01",
    "build_fig02",
    "describe_replay",
    "draw_id_rows",
    "draw_replay",
    "draw_split_char",
    "draw_vocab_growth",
    "fig01_split",
    "fig01_top",
    "pair_row_text",
    "replay_alt",
    "update_replay",
]

MONO = "DejaVu Sans Mono"
NOTE = 9
SMALL = 8.5
ROW_H = 0.3
#: Rows drawn for pair counts; the figure-1 table never has more distinct pairs.
PAIR_ROWS = 6
REPLACEMENT = "\N{REPLACEMENT CHARACTER}"


def _symbols(symbols) -> str:
    """A segmentation as the prose writes it: symbols separated by spaces."""
    return " ".join(symbols)


def _pair(pair) -> str:
    return " ".join(pair)


def _hex(data: bytes) -> str:
    return data.hex(" ").upper()


# =========================================================================== figure 1


def draw_replay(ax, state: ReplayState, *, at=(0.0, 0.0)) -> dict[str, Artist]:
    """Figure 1 (top): the word-count table with each word's symbols after
    ``state.step`` merges, the weighted pair counts of that segmentation (each word's
    share, then the total), the pair merged next, and the merge order of the run."""
    ax = check_ax(ax)
    state = check_trace(state, ReplayState, "state")
    x0, y0 = check_at(at)
    art: dict[str, Artist] = {}
    words = list(state.table)

    art["heading"] = add_heading(ax, x0 + 0.1, y0 + 0.05,
                                 "(a) Training: count weighted pairs, merge the largest")
    art["step"] = add_text(ax, x0 + 6.8, y0 + 0.05, "", ha="right", size=NOTE + 1, color=style.QUERY,
                           weight="bold")
    # --- word-count table
    ty = y0 + 0.5
    add_text(ax, x0 + 0.1, ty, "word", size=SMALL, style="italic")
    add_text(ax, x0 + 0.95, ty, "count", size=SMALL, style="italic")
    art["symbols.title"] = add_text(ax, x0 + 1.55, ty, "symbols", size=SMALL, style="italic")
    for r, w in enumerate(words):
        y = ty + 0.34 * (r + 1)
        add_text(ax, x0 + 0.1, y, w, size=NOTE + 1, family=MONO)
        add_text(ax, x0 + 0.95, y, f"×{state.table[w]}", size=NOTE + 1)
        art[f"seg[{w}]"] = add_text(ax, x0 + 1.55, y, "", size=NOTE + 1, family=MONO, weight="bold")

    # --- pair counts: one monospace line per row (pair, each word's share, total), one
    # filled box for the pair merged next and one outline around the pairs tied with it
    # (tied rows are adjacent, as rows are sorted by count, then pair): few artists, so a
    # slider step stays fast
    px = x0 + 3.15
    add_text(ax, px, ty, "pair", size=SMALL, style="italic")
    add_text(ax, px + 0.68, ty, "per word: " + " + ".join(words), size=SMALL, style="italic")
    art["chosen.box"] = ax.add_patch(Rectangle((px - 0.08, 0), 3.75, ROW_H, facecolor=QUERY_FACE,
                                               edgecolor="none", zorder=1))
    art["tied.box"] = ax.add_patch(Rectangle((px - 0.08, 0), 3.75, ROW_H, facecolor="none",
                                             edgecolor=style.QUERY, linewidth=1.2, zorder=1))
    for r in range(PAIR_ROWS):
        art[f"pair[{r}]"] = add_text(ax, px, _row_y(ty, r), "", size=NOTE + 1, family=MONO)
    art["tie"] = add_text(ax, px, _row_y(ty, PAIR_ROWS) + 0.05, "", size=NOTE, color=style.INK)

    # --- merge order of the whole run (static), with a pointer at the next merge
    my = ty + 0.34 * (len(words) + 1) + 0.12
    add_text(ax, x0 + 0.1, my, "merge order", size=SMALL, style="italic")
    for k, s in enumerate(state.learned):
        art[f"merge[{k}]"] = add_text(ax, x0 + 0.1, my + 0.27 * (k + 1),
                                      f"{k + 1}.  {_pair(s.chosen)} → {''.join(s.chosen)}   ({s.count})",
                                      size=NOTE + 0.5, family=MONO)
    art["pointer"] = add_text(ax, x0 + 2.1, my, "", size=SMALL, color=style.QUERY, weight="bold")
    update_replay(art, state)
    return art


def _row_y(top: float, r: int) -> float:
    return top + 0.05 + ROW_H * (r + 1)


def update_replay(artists: dict, state: ReplayState) -> None:
    """Move the replay panel's artists to ``state`` (text, highlights, pointer)."""
    state = check_trace(state, ReplayState, "state")
    if len(state.rows) > PAIR_ROWS:
        raise ValueError(f"state has {len(state.rows)} pairs; the panel draws at most {PAIR_ROWS}")
    n = len(state.learned)
    artists["step"].set_text(f"after {state.step} of {n} merges")
    for w, symbols in state.segmentation.items():
        artists[f"seg[{w}]"].set_text(_symbols(symbols))
    chosen = tied = None
    for r in range(PAIR_ROWS):
        row = state.rows[r] if r < len(state.rows) else None
        mark = ""
        if row is not None and row.pair == state.next_pair:
            chosen, mark = r, "  ◀ merge"
        elif row is not None and row.pair in state.tied:
            tied, mark = r, "  ◀ tie"
        artists[f"pair[{r}]"].set_text(pair_row_text(row) + mark if row else "")
    top = artists["pair[0]"].get_position()[1] - 0.05 - ROW_H  # the table's header line
    for name, r in (("chosen.box", chosen), ("tied.box", tied if tied is not None else chosen)):
        box = artists[name]
        box.set_visible(r is not None)
        if r is not None:
            first = chosen if chosen is not None else r
            box.set_y(_row_y(top, first) - ROW_H / 2)
            box.set_height(ROW_H * (r - first + 1))
    artists["tie"].set_text(
        f"tie at {state.rows[0].count}: the smallest pair, {_pair(state.next_pair)}, goes first"
        if len(state.tied) > 1 else "")
    row = min(state.step, n - 1)
    x, y = artists[f"merge[{row}]"].get_position()
    artists["pointer"].set_position((x + 2.0, y))
    artists["pointer"].set_text("◀ next" if state.step < n else "✓ all done")


def pair_row_text(row) -> str:
    """One row of the pair-count table: the pair, each word's share, the total.

    >>> pair_row_text(lesson1.PairRow(("e", "r"), 8, (0, 2, 6)))
    'e r     0 + 2 + 6  = 8'
    """
    return f"{_pair(row.pair):<7} {' + '.join(str(t) for t in row.terms):<10} = {row.count}"


def replay_alt(state: ReplayState) -> str:
    """Words for the replay panel, from its trace."""
    counts = ", ".join(f"{_pair(r.pair)} = {r.count}" for r in state.rows)
    segs = "; ".join(f"{w} (×{state.table[w]}) → {_symbols(s)}" for w, s in state.segmentation.items())
    tie = (_(" ({pairs} tie; the smallest pair goes first)").format(
        pairs=_(" and ").join(_pair(p) for p in state.tied)) if len(state.tied) > 1 else "")
    nxt = (_("next merge {pair}{tie}").format(pair=_pair(state.next_pair), tie=tie) if state.next_pair
           else _("no pair left"))
    return _("after {step} of {merges} merges: {segs}; pair counts weighted by the word counts {counts}; "
             "{next}").format(step=state.step, merges=len(state.learned), segs=segs, counts=counts, next=nxt)


def describe_replay(state: ReplayState) -> str:
    """What the merge-step slider shows, in one sentence (printed under the widget)."""
    return _("Figure 1 (a), {state}.").format(state=replay_alt(state))


def draw_split_char(ax, trace: SplitCharTrace, *, at=(0.0, 0.0)) -> dict[str, Artist]:
    """Figure 1 (bottom): a character's UTF-8 bytes split over two tokens; each token
    decoded alone fails (strict) or gives U+FFFD (replace); joined they decode."""
    ax = check_ax(ax)
    trace = check_trace(trace, SplitCharTrace)
    x0, y0 = check_at(at)
    art: dict[str, Artist] = {}
    cw, ch = 0.62, 0.44
    bx, by = x0 + 0.35, y0 + 0.75
    art["char"] = add_text(ax, bx + 1.5 * cw, y0 + 0.25, f"{trace.char} = UTF-8 {_hex(trace.code)}",
                           ha="center", size=NOTE + 2)
    k = 0
    for t, token in enumerate((trace.first, trace.second)):
        data = token.joined
        start = k
        for b in data:
            art[f"byte[{k}]"] = add_cell(ax, bx + k * cw, by, cw, ch, f"{b:02X}", face=QUERY_FACE,
                                         edge=style.QUERY, size=NOTE + 2)[1]
            art[f"byte[{k}]"].set_family(MONO)
            k += 1
        # a bracket under the bytes of this token
        left, right = bx + start * cw + 0.05, bx + k * cw - 0.05
        yb = by + ch + 0.1
        ax.plot([left, left, right, right], [yb - 0.04, yb + 0.04, yb + 0.04, yb - 0.04],
                color=style.QUERY, lw=1.4)
        art[f"token[{t}]"] = add_text(ax, (left + right) / 2, yb + 0.2, f"token {t + 1}", ha="center",
                                      size=NOTE, color=style.INK)
    rx = x0 + 2.6
    rows = [
        ("token 1 alone", trace.first),
        ("token 2 alone", trace.second),
        ("tokens 1 + 2", trace.joined),
    ]
    add_text(ax, rx + 1.65, y0 + 0.25, "strict", size=SMALL, style="italic")
    add_text(ax, rx + 3.65, y0 + 0.25, "replace", size=SMALL, style="italic")
    for r, (label, dec) in enumerate(rows):
        y = y0 + 0.6 + 0.42 * r
        add_text(ax, rx, y, f"{label}", size=NOTE)
        add_text(ax, rx + 0.95, y, _hex(dec.joined), size=NOTE, family=MONO)
        ok = dec.strict is not None
        art[f"strict[{r}]"] = add_cell(ax, rx + 1.65, y - 0.16, 1.9, 0.32,
                                       dec.strict if ok else f"error: {dec.reason}",
                                       face=VALUE_FACE if ok else BLOCKED_FACE,
                                       edge=style.VALUE if ok else style.BLOCKED,
                                       size=NOTE + (2 if ok else -0.5))[1]
        art[f"replace[{r}]"] = add_cell(ax, rx + 3.65, y - 0.16, 0.55, 0.32, dec.replaced,
                                        face=VALUE_FACE if ok else "white",
                                        edge=style.VALUE if ok else style.NEUTRAL, size=NOTE + 2)[1]
    return art


def _fig1_bottom_alt(t: SplitCharTrace) -> str:
    return _("{char} is UTF-8 {code}; token 1 holds {first}, token 2 holds {second}; decoded alone, token 1 "
             "fails ({first_reason}) and token 2 fails ({second_reason}) in strict mode, and each gives U+FFFD "
             "{replacement} in replace mode; joined they decode to {joined}").format(
        char=t.char, code=_hex(t.code), first=_hex(t.first.joined), second=_hex(t.second.joined),
        first_reason=t.first.reason, second_reason=t.second.reason, replacement=REPLACEMENT,
        joined=t.joined.strict)


#: Height of the part of figure 1 the merge-step slider shows: the training panel down
#: to the merge order (the lines below it do not move with the slider).
FIG1_TOP = 3.0


#: Where figure 1 places the replay panel.
FIG1_REPLAY_AT = (0.05, 0.1)


def _draw_fig01_top(ax, state: ReplayState) -> dict[str, Artist]:
    art = draw_replay(ax, state, at=FIG1_REPLAY_AT)
    y_enc = 3.2
    lower, lowest = state.encoded
    lowest_st = state.encoded_extra[1]
    art["encode.heading"] = add_text(ax, 0.15, y_enc, f"encoding new words with the {len(state.learned)} merges:",
                                     size=SMALL, style="italic")
    art["encode.lower"] = add_text(ax, 0.15, y_enc + 0.3, f"{lower.word} → {_symbols(lower.symbols)}",
                                   size=NOTE + 0.5, family=MONO)
    art["encode.lowest"] = add_text(
        ax, 2.0, y_enc + 0.3,
        f"{lowest.word}: {' and '.join(lowest.missing)} are not base symbols → cannot be encoded",
        size=NOTE + 0.5, family=MONO)
    art["encode.lowest_st"] = add_text(
        ax, 2.0, y_enc + 0.58,
        f"{lowest_st.word}, with {' and '.join(lowest.missing)} as base symbols → {_symbols(lowest_st.symbols)}",
        size=NOTE + 0.5, family=MONO)
    return art


def _fig01_top_alt(state: ReplayState) -> str:
    lower, lowest = state.encoded
    lowest_st = state.encoded_extra[1]
    return _("{state}; merge order {order}; {lower} becomes {lower_symbols}; {lowest} cannot be encoded "
             "because {missing} are not base symbols, and with them as base symbols it becomes "
             "{lowest_symbols}").format(
        state=replay_alt(state), order=" → ".join(f"{_pair(s.chosen)} ({s.count})" for s in state.learned),
        lower=lower.word, lower_symbols=_symbols(lower.symbols), lowest=lowest.word,
        missing=_(" and ").join(lowest.missing), lowest_symbols=_symbols(lowest_st.symbols))


def fig01_top(step: int = 0) -> Drawn:
    """Figure 1's training panel alone, at ``step`` merges: the canvas of the
    merge-step slider. At step 0 its pixels are the top rows of figure 1."""
    state = lesson1.merge_replay(step)
    with style.book_style():
        fig, ax = new_canvas(style.WIDTH, FIG1_TOP)
        art = draw_replay(ax, state, at=FIG1_REPLAY_AT)
    return Drawn(1, figure_title(1), fig, _fig01_top_alt(state) + ".", art, state)


#: Height of figure 1's panel (b) drawn on its own (chapter 2 shows only that panel).
FIG1_BOTTOM = 2.2


def _fig01_bottom_heading(split: SplitCharTrace) -> str:
    return f"(b) Decoding: the bytes of {split.char} split across two tokens"


@register_panel(1, "b")
def fig01_split() -> FigureDisplay:
    """Figure 1's panel (b) alone, for chapter 2 (``show(1, panel="b")``): the same
    drawing as the bottom of figure 1, captioned as that panel.

    >>> fig01_split().caption
    'Figure 1 (b) · the bytes of 猫 split across two tokens'
    """
    split = lesson2.split_char(ex.FIG1_CHAR, ex.FIG1_SPLIT_AT)
    with style.book_style():
        fig, ax = new_canvas(style.WIDTH, FIG1_BOTTOM)
        art = {"bottom.heading": add_heading(ax, 0.15, 0.2, _fig01_bottom_heading(split))}
        art.update(draw_split_char(ax, split, at=(0.05, 0.4)))
    drawn = Drawn(1, figure_title(1), fig, _("Panel (b) of figure 1: {panel}.").format(panel=_fig1_bottom_alt(split)),
                  art, split)
    display = FigureDisplay(drawn, caption=_("Figure 1 (b) · the bytes of {char} split across two tokens").format(
        char=split.char), label="fig01b")
    style.close(fig)
    return display


@register(1, "BPE learns merges from counts; bytes decode only when joined")
def build_fig01() -> Drawn:
    state = lesson1.merge_replay(0)
    split = lesson2.split_char(ex.FIG1_CHAR, ex.FIG1_SPLIT_AT)
    fig, ax = new_canvas(style.WIDTH, 6.3)
    art = _draw_fig01_top(ax, state)
    ax.plot([0.1, style.WIDTH - 0.1], [4.05, 4.05], color=style.NEUTRAL, lw=0.6)
    art["bottom.heading"] = add_heading(ax, 0.15, 4.25, _fig01_bottom_heading(split))
    art.update(draw_split_char(ax, split, at=(0.05, 4.45)))
    alt = _("Panel (a), training: {top}. Panel (b), decoding: {bottom}.").format(
        top=_fig01_top_alt(state), bottom=_fig1_bottom_alt(split))
    return Drawn(1, figure_title(1), fig, alt, art, (state, split))


# =========================================================================== figure 2


def draw_id_rows(ax, trace: IdCollision, vocab_a, vocab_b, rows, *, at=(0.0, 0.0)) -> dict[str, Artist]:
    """Two vocabularies side by side, both pointing one ID at the same embedding row."""
    ax = check_ax(ax)
    trace = check_trace(trace, IdCollision)
    x0, y0 = check_at(at)
    art: dict[str, Artist] = {}
    ids = sorted(rows)
    cw, ch = 0.5, 0.32
    ex_, ey = x0 + 2.55, y0 + 0.55  # embedding block
    width = len(rows[ids[0]])
    art["E.title"] = add_text(ax, ex_ + width * cw / 2, y0 + 0.2, f"embedding E (rows {ids[0]}–{ids[-1]} shown)",
                              ha="center", size=SMALL, style="italic")
    for r, i in enumerate(ids):
        y = ey + r * ch
        hit = i == trace.token_id
        add_text(ax, ex_ - 0.08, y + ch / 2, f"{i}", ha="right", size=SMALL)
        for f, v in enumerate(rows[i]):
            art[f"E[{i},{f}]"] = add_cell(ax, ex_ + f * cw, y, cw, ch, bpe_num(v),
                                          face=VISIBLE_FACE if hit else "white",
                                          edge=style.VISIBLE if hit else style.NEUTRAL, size=SMALL)[1]
    for side, (name, vocab, x) in enumerate((("tokenizer A", vocab_a, x0 + 0.1),
                                             ("tokenizer B", vocab_b, x0 + 5.1))):
        add_text(ax, x + 0.55, y0 + 0.2, name, ha="center", size=SMALL, style="italic")
        for r, i in enumerate(ids):
            y = ey + r * ch
            hit = i == trace.token_id
            art[f"{'AB'[side]}[{i}]"] = add_cell(ax, x, y, 1.1, ch, f"{i} → {vocab[i]}",
                                                 face=QUERY_FACE if hit else "white",
                                                 edge=style.QUERY if hit else style.NEUTRAL, size=SMALL)[1]
    r17 = ids.index(trace.token_id)
    yy = ey + r17 * ch + ch / 2
    art["arrow.A"] = add_arrow(ax, (x0 + 1.22, yy), (ex_ - 0.3, yy), color=style.VISIBLE)
    art["arrow.B"] = add_arrow(ax, (x0 + 5.02, yy), (ex_ + width * cw + 0.05, yy), color=style.VISIBLE)
    art["note"] = add_text(ax, x0 + 3.55, ey + len(ids) * ch + 0.25,
                           f"{trace.token_a} and {trace.token_b} both become ID {trace.token_id} and read the same row "
                           f"[{', '.join(bpe_num(v) for v in trace.row)}]",
                           ha="center", size=NOTE)
    return art


def bpe_num(v: float) -> str:
    """An embedding entry as the figure writes it (minus sign, shortest form)."""
    from .. import fmt

    return fmt.num(v, minus=fmt.MINUS)


def draw_vocab_growth(ax, trace: VocabGrowth, *, at=(0.0, 0.0), length: float = 4.6) -> dict[str, Artist]:
    """Two bars, rows of a [vocab, width] matrix before and after; the added part hatched."""
    ax = check_ax(ax)
    trace = check_trace(trace, VocabGrowth)
    x0, y0 = check_at(at)
    art: dict[str, Artist] = {}
    k = ex.KILO
    scale = length / trace.new
    for r, (label, rows) in enumerate(((f"{trace.old // k}K × {trace.width}", trace.old),
                                       (f"{trace.new // k}K × {trace.width}", trace.new))):
        y = y0 + 0.35 * r
        ax.add_patch(Rectangle((x0 + 1.3, y), trace.old * scale, 0.24, facecolor=VISIBLE_FACE,
                               edgecolor=style.VISIBLE, lw=0.8))
        if rows > trace.old:
            ax.add_patch(Rectangle((x0 + 1.3 + trace.old * scale, y), (rows - trace.old) * scale, 0.24,
                                   facecolor="white", edgecolor=style.QUERY, hatch="///", lw=0.8))
        art[f"bar[{r}]"] = add_text(ax, x0 + 1.2, y + 0.12, label, ha="right", size=SMALL)
    art["added"] = add_text(ax, x0 + 1.3, y0 + 0.35 + 0.5,
                            f"+{trace.added_rows // k}K rows × {trace.width} = {trace.added_per_matrix:,} "
                            "parameters per matrix (1K = 1024)", size=NOTE)
    return art


@register(2, "An ID means something only with its own vocabulary")
def build_fig02() -> Drawn:
    coll = lesson2.id_collision(ex.FIG2_ID, ex.FIG2_VOCAB_A, ex.FIG2_VOCAB_B, ex.FIG2_ROWS)
    growth = lesson2.vocab_growth(ex.FIG2_VOCAB_OLD, ex.FIG2_VOCAB_NEW, ex.FIG2_WIDTH)
    tok = lesson1.demo_tokenizer()
    body = tok.encode(" assistant")
    marker = tok.special_tokens["<|assistant|>"]
    typed = tok.encode("<|assistant|>", disallowed_special=())
    fig, ax = new_canvas(style.WIDTH, 5.6)
    art: dict[str, Artist] = {}
    art["a.heading"] = add_heading(ax, 0.15, 0.2, f"(a) ID {coll.token_id} in two vocabularies, one embedding")
    art.update(draw_id_rows(ax, coll, ex.FIG2_VOCAB_A, ex.FIG2_VOCAB_B, ex.FIG2_ROWS, at=(0.1, 0.35)))

    art["b.heading"] = add_heading(ax, 0.15, 2.85, "(b) Body text and role marker are different IDs")
    lines = [
        (f'body word " assistant" → {", ".join(map(str, body))}  (ordinary text)', VALUE_FACE, style.VALUE),
        (f"role marker <|assistant|> → {marker}  (special token, inserted by the template)",
         QUERY_FACE, style.QUERY),
        (f'"<|assistant|>" typed in a message → {len(typed)} ordinary IDs, never {marker}',
         BLOCKED_FACE, style.BLOCKED),
    ]
    for r, (s, face, edge) in enumerate(lines):
        art[f"b.line[{r}]"] = add_cell(ax, 0.3, 3.1 + 0.36 * r, 6.4, 0.3, s, face=face, edge=edge, size=NOTE)[1]

    art["c.heading"] = add_heading(ax, 0.15, 4.35, "(c) A bigger vocabulary adds rows to E and to the LM head")
    art.update(draw_vocab_growth(ax, growth, at=(0.1, 4.55)))
    k = ex.KILO
    alt = _("Tokenizer A maps {a} to ID {id}, tokenizer B maps {b} to ID {id}; both read row {id} of one embedding, "
            "[{row}]. In the demo tokenizer the body word ' assistant' is ID {body}, the role marker <|assistant|> "
            "is ID {marker}, and the marker's spelling typed into a message becomes {typed} ordinary IDs. Growing "
            "the vocabulary from {old}K to {new}K at width {width} adds {added}K × {width} = {params} parameters "
            "per matrix (1K = 1024).").format(
        a=coll.token_a, b=coll.token_b, id=coll.token_id, row=", ".join(bpe_num(v) for v in coll.row),
        body=", ".join(map(str, body)), marker=marker, typed=len(typed), old=growth.old // k, new=growth.new // k,
        width=growth.width, added=growth.added_rows // k, params=f"{growth.added_per_matrix:,}")
    return Drawn(2, figure_title(2), fig, alt, art, (coll, growth))
