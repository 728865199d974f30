"""Moving pictures of the sliders: each chapter's main slider swept across its range, as
an animated lossless WebP made from the frames the widget itself draws (``make media``,
``python -m tokenpath._media``).

* Which widget: the first slider widget a chapter calls (:func:`main_widgets`, read from
  the chapters by :func:`tokenpath.guide.book_map`); which of its sliders: the one with
  the most positions, the first on a tie (:func:`plan`).
* Which frames: that slider's grid (:func:`~tokenpath.widgets.controls.slider_grid`, at
  most :data:`MAX_POSITIONS` positions), the other sliders held at their defaults, drawn
  by :meth:`SliderFigure.frame` (states the engine refuses are left out). The animation
  starts at the default state (the static figure, which is also what a printed page and
  the HTML edition's widget show), steps up to the top of the range, then up from the
  bottom to the default again, and loops: each position once, half the bytes of a sweep
  up and back down.
* Its alt text is computed from the sweep: figure, slider, range, positions, default; the
  manifest keeps those words as data too, so the Chinese edition says them in Chinese.
* The encoding: lossless WebP (Pillow), about a third to a tenth of a GIF's bytes for
  these flat-coloured plots, and the same bytes on every run with the pinned Pillow.

``docs/media/`` holds one ``NAME.webp`` per widget and ``media.json`` (file, chapter,
figure, size, alt text), which the README and the HTML edition read
(:mod:`tokenpath._sphinx.sliders` puts each animation above its widget).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image

from .i18n import _
from .widgets.controls import Controls, readout, slider_grid

__all__ = ["MAX_BYTES", "MAX_POSITIONS", "Sweep", "alt_text", "build", "caption_text", "encode", "main", "main_widgets",
           "plan", "render"]

#: Most positions of the swept slider (an even grid through the default beyond that).
MAX_POSITIONS = 9
#: Milliseconds each frame shows; the default state, first, shows for HOLD_MS.
FRAME_MS = 500
HOLD_MS = 1500
#: Most bytes of one animation (a test keeps every one under it).
MAX_BYTES = 400_000
#: Where ``make media`` writes, relative to the checkout's root.
OUT = Path("docs/media")
MANIFEST = "media.json"


@dataclass(frozen=True)
class Sweep:
    """One animation: the widget, the slider it moves and the states in play order."""

    widget: str  # the constructor's name in tokenpath.widgets.SLIDERS
    chapter: str  # the chapter whose main slider it is
    figure: int  # the figure the widget draws
    slider: str  # the swept slider's label, as the widget shows it
    positions: tuple  # the slider's values, low to high (the engine's refusals left out)
    default: object  # its value in the default state
    values: tuple  # the widget's values, in the order the frames play
    readouts: tuple = field(default=(), compare=False)  # (position, the slider's text for it)

    @property
    def words(self) -> dict:
        """What the alt text says, as data (:func:`alt_text` puts it into words in the
        language chosen; the manifest keeps it, so the HTML edition can say it in its own)."""
        text = dict(self.readouts)
        lo, hi, d = (text.get(v, str(v)) for v in (self.positions[0], self.positions[-1], self.default))
        path = ("stays" if len(self.positions) == 1 else "up" if self.default == self.positions[0]
                else "top" if self.default == self.positions[-1] else "around")
        return {"figure": self.figure, "widget": self.widget, "slider": self.slider, "path": path, "low": lo,
                "high": hi, "default": d, "positions": len(self.positions)}

    @property
    def alt(self) -> str:
        """The animation's alt text, from the sweep itself.

        >>> Sweep("w", "01_x", 3, "T", (0.1, 1.0, 2.0), 1.0, (), ((0.1, "0.10"), (1.0, "1.00"), (2.0, "2.00"))).alt
        'Animation of figure 3 (w widget): the slider T steps from its default 1.00 up to 2.00, then from 0.10 up to 1.00 again, 3 positions, each frame drawn by the widget'
        >>> Sweep("w", "01_x", 3, "m", (4, 40), 40, ()).alt.split(": ")[1]
        'the slider m starts at its default 40, the top of its range, then steps from 4 up to 40 again, 2 positions, each frame drawn by the widget'
        """
        return alt_text(self.words)


def alt_text(words: dict) -> str:
    """The alt text of an animation from its :attr:`Sweep.words`, in the language chosen
    (:mod:`tokenpath.i18n`), with the slider's label as the widget shows it in that language.

    >>> from tokenpath.i18n import using
    >>> w = {"figure": 11, "widget": "value_magnitude", "slider": "m", "path": "top", "low": "4.0",
    ...      "high": "40.0", "default": "40.0", "positions": 9}
    >>> with using("zh_CN"):
    ...     alt_text(w).startswith("图 11")
    True
    """
    path = {"stays": _("stays at {default}"),
            "up": _("steps from its default {default} up to {high}"),
            "top": _("starts at its default {default}, the top of its range, then steps from {low} up to {default} "
                     "again"),
            "around": _("steps from its default {default} up to {high}, then from {low} up to {default} again"),
            }[words["path"]].format(**words)
    rest = {k: v for k, v in words.items() if k not in ("path", "slider")}
    return _("Animation of figure {figure} ({widget} widget): the slider {slider} {path}, {positions} positions, "
             "each frame drawn by the widget").format(path=path, slider=_(words["slider"]), **rest)


def caption_text(slider: str) -> str:
    """The caption under an animation, in the language chosen (the slider's label too, as
    the widget shows it: "merges" is 合并次数 in Chinese)."""
    return _("The slider {slider} moving across its range by itself; below, move it yourself.").format(slider=_(slider))


def main_widgets(uses=None) -> dict[str, str]:
    """``{chapter: widget}``: the first slider widget each chapter calls, in book order."""
    from . import guide
    from .widgets import SLIDERS

    out = {}
    for use in guide.book_map() if uses is None else uses:
        sliders = [w for w in use.widgets if w in SLIDERS]
        if sliders:
            out[use.chapter] = sliders[0]
    return out


def _grid(widget, index: int) -> list:
    """The positions of slider ``index`` of ``widget``, the others at their defaults."""
    s = widget.sliders[index]
    if not isinstance(widget.slider, Controls):
        return slider_grid(s, MAX_POSITIONS)
    c, held = widget.slider, widget.value
    name = c.names[index]
    allowed = c.allowed(name, held)
    if allowed is not None:
        n = min(MAX_POSITIONS, len(allowed))
        return list(dict.fromkeys(allowed[round(i * (len(allowed) - 1) / max(1, n - 1))] for i in range(n)))
    return slider_grid(s, MAX_POSITIONS, bounds=c.range(name, held))


def _value(widget, index: int, position):
    if not isinstance(widget.slider, Controls):
        return position
    c = widget.slider
    return c._clamp(widget.value._replace(**{c.names[index]: position}), given=(c.names[index],))


def plan(name: str, chapter: str = "", widget=None) -> tuple[Sweep, object]:
    """The sweep of widget ``name`` (built in its default state unless ``widget`` is
    given) and the widget: its slider with the most positions (the first on a tie), at
    the positions the engine accepts."""
    from .widgets import SLIDERS

    widget = SLIDERS[name]() if widget is None else widget
    grids = [_grid(widget, i) for i in range(len(widget.sliders))]
    index = max(range(len(grids)), key=lambda i: (len(grids[i]), -i))
    positions = [p for p in grids[index] if widget.frame(_value(widget, index, p)) is not None]
    s = widget.sliders[index]
    default = s.value
    if default not in positions:  # the default state is the first frame whatever the grid
        positions = sorted([*positions, default])
    at = positions.index(default)
    order = positions[at:] + positions[:at]  # default → top, then bottom → just below the default
    label = s.description or (widget.slider.names[index] if isinstance(widget.slider, Controls) else name)
    sweep = Sweep(name, chapter, widget.drawn.number, label, tuple(positions), default,
                  tuple(_value(widget, index, p) for p in order), tuple((p, readout(s, p)) for p in positions))
    return sweep, widget


def render(sweep: Sweep, widget) -> list[bytes]:
    """The PNG of every frame of ``sweep``, in play order, drawn by ``widget``."""
    return [widget.frame(v)[1] for v in sweep.values]


def encode(pngs: list[bytes]) -> bytes:
    """Frames (PNG bytes) as one looping, lossless, animated WebP: the first frame shows
    for :data:`HOLD_MS`, the others for :data:`FRAME_MS` each."""
    frames = [Image.open(io.BytesIO(p)).convert("RGB") for p in pngs]
    out = io.BytesIO()
    # method 4 at effort ("quality") 50: within 3 % of method 6's bytes at a fiftieth of its time
    frames[0].save(out, "WEBP", save_all=True, append_images=frames[1:], loop=0, lossless=True, quality=50,
                   method=4, duration=[HOLD_MS] + [FRAME_MS] * (len(frames) - 1))
    return out.getvalue()


def build(out: Path = OUT, only: list[str] | None = None, log=print) -> dict[str, dict]:
    """Write ``NAME.webp`` for every chapter's main slider (or those named in ``only``)
    and the manifest ``media.json`` into ``out``; returns the manifest's entries."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    manifest_path = out / MANIFEST
    manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.exists() else {}
    for chapter, name in main_widgets().items():
        if only and name not in only:
            continue
        t = time.perf_counter()
        sweep, widget = plan(name, chapter)
        data = encode(render(sweep, widget))
        width, height = Image.open(io.BytesIO(data)).size
        (out / f"{name}.webp").write_bytes(data)
        manifest[name] = {"file": f"{name}.webp", "chapter": chapter, "figure": sweep.figure, "slider": sweep.slider,
                          "frames": len(sweep.values), "width": width, "height": height, "bytes": len(data),
                          "alt": sweep.alt, "words": sweep.words}
        log(f"{out / (name + '.webp')}: {len(sweep.values)} frames, {width}×{height}, {len(data) / 1000:.0f} kB "
            f"({time.perf_counter() - t:.1f} s)")
    known = set(main_widgets().values())
    manifest = {k: v for k, v in sorted(manifest.items(), key=lambda kv: (kv[1]["chapter"], kv[0])) if k in known}
    manifest_path.write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    total = sum(v["bytes"] for v in manifest.values())
    log(f"{len(manifest)} animations, {total / 1000:.0f} kB in all ({manifest_path})")
    return manifest


def main(argv: list[str] | None = None) -> int:
    from .widgets import SLIDERS

    parser = argparse.ArgumentParser(prog="python -m tokenpath._media", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"folder to write into (default {OUT})")
    parser.add_argument("--only", nargs="+", metavar="WIDGET", choices=sorted(SLIDERS), help="only these widgets")
    args = parser.parse_args(argv)
    build(args.out, args.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
