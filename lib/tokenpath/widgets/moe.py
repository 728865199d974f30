"""Widgets of chapter 08_moe_routing: δ at the top-1 boundary (figure 21), the number of
experts and k of one token's routing (figure 20), and the second token of a batch
(figure 22).

All three are :class:`CellSliderFigure`: their moving artists fall into separate
regions (a table cell, a line of text, the inside of a plot), and a step redraws only
the regions whose artists changed. The tests compare every state they visit, after any
sequence of steps, with a full draw of the same state.
"""

from __future__ import annotations

import io
import time
from collections import OrderedDict

import ipywidgets
import matplotlib as mpl
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from .. import examples as ex
from .. import figures
from ..figures import moe as fm
from ..figures import style
from . import SliderFigure, int_in, real_in, slider

__all__ = ["CellSliderFigure", "RoutingFigure", "batch_token", "boundary_delta", "routing_choice"]

#: Pixels added around a group's extent: room for antialiased edges.
_PAD = 3
#: Most bytes of drawn group images one widget keeps for reuse.
CACHE_BYTES = 24 * 2**20


def _look(artist) -> tuple:
    """What decides how ``artist`` is drawn, for deciding whether it must be redrawn."""
    if isinstance(artist, Text):
        patch = artist.get_bbox_patch()
        return (artist.get_visible(), artist.get_text(), artist.get_color(), artist.get_fontsize(),
                artist.get_weight(), artist.get_position(),
                None if patch is None else (tuple(patch.get_facecolor()), tuple(patch.get_edgecolor())))
    if isinstance(artist, Patch):
        return (artist.get_visible(), tuple(artist.get_facecolor()), tuple(artist.get_edgecolor()))
    if isinstance(artist, Line2D):
        return (artist.get_visible(), artist.get_xydata().tobytes(), artist.get_color())
    raise TypeError(f"cannot tell whether a {type(artist).__name__} changed; group only texts, patches and lines")


class _CellRenderer:
    """PNG of a figure whose moving artists come in spatially separate *groups* (a
    table cell and its texts, a line of text): each call redraws only the groups whose
    look changed, over the background restored inside the group's region (or pastes
    the pixels the group had the last time it looked the same), and encodes the canvas
    as :func:`~tokenpath.figures.style.png_bytes` does.

    Built on the background a :class:`~tokenpath.widgets._PartialRenderer` captured.
    Equal to a full draw as long as the regions do not overlap one another or any still
    artist drawn above them (the figure tests compare every state with a full draw).
    """

    def __init__(self, base, groups):
        self.figure, self.canvas = base.figure, base.canvas
        with style.book_style():
            # the canvas holds the frame ``base`` just drew; keep it, and take the
            # background (the figure without its moving artists) from ``base``
            frame = np.array(self.canvas.buffer_rgba())
            self.canvas.restore_region(base._background)
            self._background = np.array(self.canvas.buffer_rgba())
            np.asarray(self.canvas.buffer_rgba())[:] = frame
            renderer = self.canvas.get_renderer()
            order = {id(a): k for k, a in enumerate(base.moving)}
            height = self._background.shape[0]
            self.groups = []
            for artists, region in groups:
                artists = sorted(artists, key=lambda a: order[id(a)])
                if callable(region):  # computed now, at the canvas's resolution
                    region = region()
                if region is None:  # a cell: its rectangle holds its texts
                    patches = [a for a in artists if isinstance(a, Patch)] or artists
                    region = Bbox.union([a.get_window_extent(renderer) for a in patches])
                x0, y0, x1, y1 = region.extents
                rows = slice(max(0, int(height - y1) - _PAD), min(height, int(np.ceil(height - y0)) + _PAD))
                cols = slice(max(0, int(x0) - _PAD), int(np.ceil(x1)) + _PAD)
                self.groups.append((artists, (rows, cols)))
        self._looks = [tuple(_look(a) for a in artists) for artists, _ in self.groups]
        # the pixels of a group are a function of its look alone (its region overlaps
        # nothing else), so each drawn look is kept, up to CACHE_BYTES in all
        self._cache: OrderedDict = OrderedDict()
        self._cached_bytes = 0
        self.timings: dict[str, float] = {}

    def _remember(self, key, block: np.ndarray) -> None:
        self._cache[key] = block
        self._cached_bytes += block.nbytes
        while self._cached_bytes > CACHE_BYTES and len(self._cache) > 1:
            _, old = self._cache.popitem(last=False)
            self._cached_bytes -= old.nbytes

    def png(self) -> bytes:
        with style.book_style():
            t0 = time.perf_counter()
            renderer = self.canvas.get_renderer()
            pixels = np.asarray(self.canvas.buffer_rgba())
            for k, (artists, (rows, cols)) in enumerate(self.groups):
                look = tuple(_look(a) for a in artists)
                if look == self._looks[k]:
                    continue
                self._looks[k] = look
                block = self._cache.get((k, look))
                if block is not None:  # this group has looked like this before
                    self._cache.move_to_end((k, look))
                    pixels[rows, cols] = block
                    continue
                pixels[rows, cols] = self._background[rows, cols]
                for a in artists:
                    a.draw(renderer)
                self._remember((k, look), pixels[rows, cols].copy())
            t1 = time.perf_counter()
            buf = io.BytesIO()
            mpl.image.imsave(
                buf, self.canvas.buffer_rgba(), format="png", origin="upper",
                dpi=self.figure.dpi, metadata={"Software": None},
                pil_kwargs={"compress_level": style.PNG_COMPRESS_LEVEL},
            )
            t2 = time.perf_counter()
        self.timings = {"draw": t1 - t0, "encode": t2 - t1}
        return buf.getvalue()


def _band(text: Text, above: float, below: float, *, left: float | None = None,
          right: float | None = None):
    """A function giving the region (display units) across a canvas axes from ``left``
    to ``right`` (inches; default its edges), from ``above`` inches above ``text``'s
    anchor to ``below`` inches below it (the canvas's y axis grows downwards)."""
    ax = text.axes
    x, y = text.get_position()
    x0 = ax.get_xlim()[0] if left is None else left
    x1 = ax.get_xlim()[1] if right is None else right
    return lambda: Bbox(ax.transData.transform([(x0, y + below), (x1, y - above)]))


def _above(text: Text, rect: Patch, above: float, below: float) -> Bbox:
    """The region of a column heading ``text``: the width of the cell ``rect`` under it,
    from ``above`` to ``below`` inches around the text's anchor."""
    ax = text.axes
    y = text.get_position()[1]
    x0, x1 = rect.get_x(), rect.get_x() + rect.get_width()
    return Bbox(ax.transData.transform([(x0, y + below), (x1, y - above)]))


class CellSliderFigure(SliderFigure):
    """A :class:`~tokenpath.widgets.SliderFigure` whose moving artists come in groups
    ``[(artists, region), …]`` (``region``: a display ``Bbox``, a function returning
    one, or ``None`` for the extent of the group's patches); a step redraws only the
    groups that changed (see :class:`_CellRenderer`)."""

    def __init__(self, drawn, *, groups, **kwargs):
        super().__init__(drawn, moving=[a for artists, _ in groups for a in artists], **kwargs)
        # built on the frame the first renderer drew, which stays the current image
        self._renderer = _CellRenderer(self._renderer, groups)


@slider
def boundary_delta(delta: float = ex.FIG21_DELTA) -> CellSliderFigure:
    """Figure 21 with a slider for δ (scores a₀ = δ, a₁ = −δ, top-1): the chosen expert,
    both gates and both router gradients move; the expert flips as δ crosses 0. The
    default, δ = 0.5, is the static figure.

    >>> w = boundary_delta(-0.5)
    >>> w.trace.chosen, w.trace.in_set.grad.tolist()
    (1, [0.0, 0.0])
    """
    low, high = ex.FIG21_DELTA_RANGE
    check = real_in("delta", low, high)
    delta = check(delta)
    drawn = figures.render(21)
    art = drawn.artists
    control = ipywidgets.FloatSlider(
        value=ex.FIG21_DELTA, min=low, max=high, step=0.05, description="δ", readout_format="+.2f",
        continuous_update=True, layout=ipywidgets.Layout(width="28em"),
    )
    ax_a, ax_g, ledger = art["axes.a"], art["axes.g"], art["ledger"]

    def title_band():
        box = ax_a.bbox
        return Bbox([[0.0, box.y1 + 4], [box.x1, drawn.figure.bbox.y1]])

    def ledger_band(top, bottom):
        # from a little left of the ledger: the box around "expert … runs" reaches past x = 0
        return lambda: Bbox(ledger.transData.transform([(-0.035, bottom), (1.2, top)]))

    groups = [
        ([art["now.a"], art["dot.a0"], art["dot.a1"]], lambda: ax_a.bbox.frozen()),
        ([art["now.g"], art["dot.in_set"], art["dot.full"]], lambda: ax_g.bbox.frozen()),
        ([art["title"]], title_band),
        ([art["ledger.runs"]], ledger_band(0.0, 0.125)),
        ([art["ledger.scores"]], ledger_band(0.135, 0.19)),
        ([art["ledger.in_set"]], ledger_band(0.435, 0.49)),
        ([art["ledger.full"]], ledger_band(0.655, 0.76)),
        ([art["ledger.fd"]], ledger_band(0.87, 1.0)),
    ]
    widget = CellSliderFigure(
        drawn,
        name="delta",
        slider=control,
        check=check,
        compute=fm.fig21_trace,
        move=lambda trace: fm.update_boundary(art, trace),
        describe=fm.describe_boundary,
        groups=groups,
        trace=drawn.trace[0],
    )
    if delta != widget.value:
        widget.update(delta)
    return widget


class RoutingFigure(CellSliderFigure):
    """Figure 20 with two sliders: the number of experts E and k. :attr:`slider` is k
    (the one the latency benchmark sweeps); :attr:`experts_slider` is E. ``update(k)``
    keeps E, ``update((E, k))`` moves both; k is clamped to E when E shrinks below it.
    """

    def __init__(self, drawn, *, experts_slider: ipywidgets.IntSlider, **kwargs):
        self.experts_slider = experts_slider
        self.n_experts = experts_slider.value
        self._check_n = int_in("n_experts", 1, fm.E_MAX)
        super().__init__(drawn, **kwargs)
        self.box = ipywidgets.VBox([ipywidgets.HBox([experts_slider, self.slider]), self.image, self.caption])
        experts_slider.observe(self._on_experts, names="value")

    def update(self, value) -> None:
        if isinstance(value, tuple):
            if len(value) != 2:
                raise ValueError(f"value must be k or a pair (n_experts, k), got {value!r}")
            n, k = self._check_n(value[0]), value[1]
        else:
            n, k = self.n_experts, value
        k = self._check(k)
        if k > n:
            raise ValueError(f"k must be <= n_experts = {n}, got {k}")
        old = self.n_experts
        self.n_experts = n
        try:
            self._syncing = True
            self.slider.max = n
            self.experts_slider.value = n
        finally:
            self._syncing = False
        try:
            super().update(k)
        except Exception:
            self.n_experts = old
            raise

    def _on_experts(self, change) -> None:
        if not self._syncing:
            n = self._check_n(change["new"])
            self.update((n, min(self.value, n)))

    def __repr__(self) -> str:
        return f"RoutingFigure(figure={self.drawn.number}, n_experts={self.n_experts}, k={self.value})"


@slider
def routing_choice(k: int = ex.FIG20_K, n_experts: int = ex.FIG20_SCORES.size) -> RoutingFigure:
    """Figure 20 with sliders for the number of experts (up to six) and k: which experts
    are chosen, their in-set gates, the full-softmax alternative and the combined
    output. The default, four experts and k = 2, is the static figure.

    Each state shows :func:`tokenpath.figures.moe.fig20_trace` of (experts, k), e.g.

    >>> fm.fig20_trace(6, 3).route.chosen.tolist()
    [0, 1, 4]
    """
    n_check = int_in("n_experts", 1, fm.E_MAX)
    n_experts = n_check(n_experts)
    check = int_in("k", 1, fm.E_MAX)
    k = check(k)
    drawn = figures.render(20)
    art = drawn.artists
    default_n = ex.FIG20_SCORES.size
    experts = ipywidgets.IntSlider(value=default_n, min=1, max=fm.E_MAX, step=1, description="experts",
                                   continuous_update=True, layout=ipywidgets.Layout(width="20em"))
    control = ipywidgets.IntSlider(value=ex.FIG20_K, min=1, max=default_n, step=1, description="k",
                                   continuous_update=True, layout=ipywidgets.Layout(width="20em"))
    widget: RoutingFigure

    def compute(k_value):
        return fm.fig20_trace(widget.n_experts, k_value)

    groups = [([art[f"head[{j}]"]], _above(art[f"head[{j}]"], art[f"score.cell[{j}]"], 0.12, 0.12))
              for j in range(fm.E_MAX)]
    for key, _ in fm._ROWS:
        for j in range(fm.E_MAX):
            extra = [art[f"gate.full[{j}]"]] if key == "gate" else []
            groups.append(([art[f"{key}.cell[{j}]"], art[f"{key}[{j}]"], *extra], None))
    groups += [([art["heading"]], _band(art["heading"], 0.17, 0.17, right=fm.FIG20_HEADING_SPLIT - 0.05)),
               ([art["out.sum"]], _band(art["out.sum"], 0.15, 0.15)),
               ([art["out.full"]], _band(art["out.full"], 0.13, 0.13)),
               ([art["out.note"]], _band(art["out.note"], 0.11, 0.11))]
    widget = RoutingFigure(
        drawn,
        experts_slider=experts,
        name="k",
        slider=control,
        check=check,
        compute=compute,
        move=lambda trace: fm.update_fig20(art, trace),
        describe=fm.describe_routing,
        groups=groups,
        trace=drawn.trace,
    )
    if (n_experts, k) != (widget.n_experts, widget.value):
        widget.update((n_experts, k))
    return widget


@slider
def batch_token(candidate: int = len(ex.FIG22_CANDIDATES) - 1) -> SliderFigure:
    """Figure 22 with a picker for the batch's second token (one of
    :data:`~tokenpath.examples.FIG22_CANDIDATES`): per-token choices, the experts the
    batch uses, the load and what a capacity of one token per expert drops. The
    default, the last candidate, is the static figure.

    Each state shows :func:`tokenpath.figures.moe.fig22_trace` of the candidate, e.g.

    >>> t = fm.fig22_trace(0)
    >>> t.experts_used.tolist(), t.dropped
    ([0, 1], [(1, 0), (1, 1)])
    """
    last = len(ex.FIG22_CANDIDATES) - 1
    check = int_in("candidate", 0, last)
    candidate = check(candidate)
    drawn = figures.render(22)
    art = drawn.artists
    control = ipywidgets.IntSlider(value=last, min=0, max=last, step=1, description="token 1",
                                   continuous_update=True, layout=ipywidgets.Layout(width="20em"))
    n_e = ex.FIG22_SCORES.shape[1]
    cell = lambda key, j: [art[f"{key}.cell[{j}]"], art[f"{key}[{j}]"]]  # noqa: E731
    used = [a for j in range(n_e) for a in cell("used", j)] + [art["outline.used"]]
    groups = [(cell("token[1]", j) + [art[f"token[1].score[{j}]"]], None) for j in range(n_e)]
    groups += [(cell(key, j), None) for key in ("load", "kept") for j in range(n_e)]
    groups += [(used, None), ([art["heading"]], _band(art["heading"], 0.17, 0.17))]
    side_x = art["token[1].side"].get_position()[0] - 0.05
    groups += [([art[f"{key}.side"]], _band(art[f"{key}.side"], 0.25, 0.25, left=side_x))
               for key in ("token[1]", "used", "load", "kept")]
    widget = CellSliderFigure(
        drawn,
        name="candidate",
        slider=control,
        check=check,
        compute=fm.fig22_trace,
        move=lambda trace: fm.update_fig22(art, trace),
        describe=fm.describe_batch,
        groups=groups,
        trace=drawn.trace[0],
    )
    if candidate != widget.value:
        widget.update(candidate)
    return widget
