"""Slider frames rendered beside Sphinx, and kept between builds.

Rendering the sliders' frames is most of ``make book``'s work. So that it runs while
Sphinx reads and writes pages, and spreads over every CPU whatever page holds the
heaviest slider:

- when the build starts (:func:`start`), one worker process per CPU takes the book's
  slider calls (every ``.ipynb`` of the source folder) one by one and renders each
  (:func:`~tokenpath._sphinx.frames.precompute`) into a folder of its own under
  ``build/frame-cache/``;
- a page that shows a slider (:func:`frames_for`) takes its frames from there: done,
  or being rendered (then it waits), or not started (then it renders them itself);
  each slider is rendered once, by whoever takes its lock first;
- a folder is named by a hash of everything the frames depend on (:func:`fingerprint`:
  the call, every file of the ``tokenpath`` package, the book's model folder, the
  versions of the package and of the libraries that draw and encode). A later build
  with the same inputs copies the files instead of rendering them again; any change
  of the engine, the figures, the widgets or this extension renders every slider
  anew, so a cached frame is always the one a clean build would write. Folders not
  used by a build are removed at its end.

A fresh clone has no ``build/``: its first ``make book`` renders every frame (a
clean build, what CI runs and ``benchmarks/suite_time.py`` times after removing the
cache); ``make clean`` removes the cache with the rest of ``build/``.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import time
from functools import lru_cache
from pathlib import Path

from .calls import SliderCall, slider_calls
from .frames import Frames, precompute

CACHE = "frame-cache"
DONE, LOCK = "frames.pickle", "lock"
#: Seconds between two looks at a slider another process is rendering.
POLL = 0.1


@lru_cache(maxsize=None)
def fingerprint() -> str:
    """A hash of what every slider's frames depend on besides its call."""
    import ipywidgets
    import matplotlib
    import numpy
    import PIL

    import tokenpath

    package = Path(tokenpath.__file__).resolve().parent
    models = package.parents[1] / "models"
    h = hashlib.sha256()
    for v in (tokenpath.__version__, numpy.__version__, matplotlib.__version__, PIL.__version__,
              ipywidgets.__version__):
        h.update(f"{v}\0".encode())
    for root in (package, models):
        for f in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                        and p.suffix != ".po"):  # the engine's catalogs: words(), per language
            h.update(f"{f.relative_to(root)}\0".encode())
            h.update(hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()


def words() -> str:
    """The language the engine speaks and a hash of its catalog: a slider's captions
    are in it, its pixels are not (the frames are always drawn in English, and both
    editions show the same files)."""
    from .. import i18n

    lang = i18n.language()
    path = i18n.catalog_path(lang)
    return lang if lang == "en" or not path.exists() else f"{lang}-{hashlib.sha256(path.read_bytes()).hexdigest()}"


def key(call: SliderCall) -> str:
    """The folder name of ``call``'s frames: its name and a hash of the call and :func:`fingerprint`."""
    text = json.dumps([call.name, list(call.args), [list(kv) for kv in call.kwargs], fingerprint()], default=repr)
    return f"{call.name}-{hashlib.sha256(text.encode()).hexdigest()[:20]}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _take(folder: Path) -> bool:
    """Take ``folder``'s lock (a file holding this process's id); take over the lock
    of a process that died."""
    folder.mkdir(parents=True, exist_ok=True)
    lock = folder / LOCK
    try:
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        try:
            owner = int(lock.read_text() or "0")
        except (OSError, ValueError):
            return False
        if owner and not _alive(owner):
            lock.unlink(missing_ok=True)
            return _take(folder)
        return False
    with os.fdopen(fd, "w") as f:
        f.write(str(os.getpid()))
    return True


def render(call: SliderCall, cache: Path) -> Path | None:
    """Render ``call``'s frames into its cache folder unless they are there or another
    process is rendering them; the folder, or ``None`` when another process has it."""
    folder = cache / key(call)
    if (folder / DONE).exists():
        return folder
    if not _take(folder):
        return None
    try:
        from .. import i18n

        started = time.perf_counter()
        with i18n.using("en"):
            frames = precompute(call, folder)
        frames.seconds = time.perf_counter() - started
        part = folder / f"{DONE}.{os.getpid()}"
        part.write_bytes(pickle.dumps(frames))
        part.replace(folder / DONE)
    finally:
        (folder / LOCK).unlink(missing_ok=True)
    return folder


def frames_for(call: SliderCall, out: Path, cache: Path) -> Frames:
    """``call``'s frames, their files linked (or copied) into ``out``: from the cache,
    waiting for a process that is rendering them, or rendered here."""
    while True:
        folder = render(call, cache)
        if folder is not None:
            break
        time.sleep(POLL)
    frames = pickle.loads((folder / DONE).read_bytes())
    frames.captions = captions(call, frames, folder)
    out.mkdir(parents=True, exist_ok=True)
    used = set(frames.files) | {p[0] for ps in (frames.patches or []) for p in ps}
    for name in used:
        if not (out / name).exists():
            try:
                os.link(folder / name, out / name)
            except OSError:
                shutil.copyfile(folder / name, out / name)
    (folder / "used").touch()
    return frames


def captions(call: SliderCall, frames: Frames, folder: Path) -> list[str]:
    """Each frame's caption in the engine's language: the English ones rendered with the
    frames, any other computed once by moving the widget through the frames' values
    (``describe()``, no drawing) and kept beside them as ``captions-<language>-<hash>.json``."""
    from .grids import accepted

    lang = words()
    if lang == "en":
        return frames.captions
    path = folder / f"captions-{lang[:40]}.json"
    if path.exists():
        return json.loads(path.read_text(encoding="utf-8"))
    widget = call.build()
    found = []
    for values in frames.values:
        if not accepted(widget, tuple(values)):
            raise ValueError(f"{call.name}: the frame at {values} is refused in another language")
        found.append(widget.describe())
    from ..figures import style

    style.close(widget.figure)
    part = path.with_suffix(f".{os.getpid()}")
    part.write_text(json.dumps(found, ensure_ascii=False), encoding="utf-8")
    part.replace(path)
    return found


def book_calls(source: Path) -> list[SliderCall]:
    """Every slider call of the notebooks in ``source``, in page order."""
    from ..widgets import SLIDERS

    calls = []
    for nb in sorted(source.glob("*.ipynb")):
        cells = [c for c in json.loads(nb.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
        sources = ["".join(c["source"]) for c in cells]
        code = "\n".join(sources)
        for text in sources:
            calls += slider_calls(text, set(SLIDERS), code)
    return calls


def _work(calls, cache: Path) -> None:
    for call in calls:
        try:
            render(call, cache)
        except Exception:  # the page that shows it renders it again and reports the error
            pass


def _order(calls, cache: Path) -> list:
    """Slowest first, by the seconds the last build of each slider took (``timings.json``)."""
    try:
        seconds = json.loads((cache / "timings.json").read_text())
    except (OSError, ValueError):
        seconds = {}
    return sorted(calls, key=lambda c: -seconds.get(c.name, 0.0))


def start(app) -> None:
    """Start the workers (``builder-inited``)."""
    import multiprocessing

    app.tokenpath_workers = []
    if app.builder.format != "html":  # the message catalogs (gettext) need no frames
        return
    cache = cache_folder(app)
    for folder in cache.glob("*"):
        if folder.is_dir():  # a slider's frames; timings.json sits beside them
            (folder / "used").unlink(missing_ok=True)
    calls = _order(book_calls(Path(app.srcdir)), cache)
    context = multiprocessing.get_context("fork")
    for _ in range(min(len(calls), os.cpu_count() or 1)):
        worker = context.Process(target=_work, args=(calls, cache), daemon=True)
        worker.start()
        app.tokenpath_workers.append(worker)


def finish(app, exception) -> None:
    """Stop the workers, record each slider's time, drop folders this build did not use."""
    for worker in getattr(app, "env_tokenpath_workers", []):  # done: every page has its frames
        worker.join(timeout=None if exception is None else 0)
        if worker.is_alive():
            worker.terminate()
    if exception is not None or app.builder.format != "html":
        return
    cache = cache_folder(app)
    seconds = {}
    for folder in sorted(cache.glob("*")):
        if not folder.is_dir():
            continue
        if not (folder / "used").exists():
            shutil.rmtree(folder, ignore_errors=True)
            continue
        frames = pickle.loads((folder / DONE).read_bytes())
        seconds[frames.call.name] = round(getattr(frames, "seconds", 0.0), 2)
    cache.mkdir(parents=True, exist_ok=True)  # a build without sliders made none
    (cache / "timings.json").write_text(json.dumps(seconds, indent=1, sort_keys=True))


def cache_folder(app) -> Path:
    """``build/frame-cache``: beside the editions' folder (``build/html/en`` or ``zh``),
    shared by both."""
    from .editions import FOLDERS

    out = Path(app.outdir).resolve()
    return (out.parent.parent if out.name in FOLDERS.values() else out.parent) / CACHE


def setup(app):
    app.connect("builder-inited", start)
    app.connect("build-finished", finish, priority=400)
