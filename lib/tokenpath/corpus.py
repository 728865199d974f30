"""The book's training text, stated: which standard-library files are read, which of
them are generated data rather than code, and which are held out.

Three rules, each a pure function of a file's path or bytes, so any reader's
interpreter gives the same answer for the same file:

- **Listing** (:func:`corpus_files`): every ``.py`` file under the interpreter's
  standard library, in sorted path order, leaving out the folders in ``SKIP_PARTS`` (the
  test suites, IDLE, third-party packages). :func:`corpus_sha256` hashes what was read.
- **Data, not code** (:func:`is_data`): Python's own tokenizer (:mod:`tokenize`) splits
  the file; of its name, string and number tokens, count the string and number
  literals. A file with at least ``DATA_MIN_WORDS`` such tokens of which at least
  ``DATA_LITERAL_SHARE`` are literals is a *data* file: a table written as Python, such
  as the codec tables ``encodings/cp*.py``, ``html/entities.py`` or
  ``pydoc_data/topics.py``. Ordinary code, docstrings included, stays far below
  (a docstring is one literal among hundreds of names). A file that the tokenizer
  rejects counts as code.
- **Held out** (:func:`is_held_out`): a file is held out when the SHA-256 of its path
  relative to the library, read as a number, is divisible by ``HELD_OUT_MOD``. The rule
  looks at the path only, so adding or removing another file never moves a file from
  one side to the other.

An older split, every 20th file in sorted order (:func:`held_out_by_index`), is kept
for comparison; the committed model uses the hash split.

>>> is_data("x = 1\\n")
False
>>> is_data("t = (" + "'a', " * 60 + ")\\n")
True
"""

from __future__ import annotations

import hashlib
import io
import sysconfig
import tokenize
from dataclasses import dataclass
from pathlib import Path

from ._checks import as_int

#: Folders of the standard library that are not read: the test suites (large and
#: repetitive), IDLE, and third-party packages.
SKIP_PARTS = frozenset({"test", "tests", "idlelib", "site-packages", "dist-packages", "__pycache__"})
#: A file is data when at least this share of its name/string/number tokens are literals …
DATA_LITERAL_SHARE = 0.7
#: … and it has at least this many such tokens (a two-line ``__init__.py`` with a
#: docstring is not a data table).
DATA_MIN_WORDS = 50
#: A file is held out when int(sha256(relative path)) % HELD_OUT_MOD == 0 (about 1 in 20).
HELD_OUT_MOD = 20
#: The older split of the committed model: every this-many-th file in sorted order.
HELD_OUT_EVERY = 20
#: The two rules in words, as the book prints them (the numbers are the constants above).
SPLIT_RULE = (f"a file is held out when the SHA-256 of its path relative to the standard library, read as a "
              f"number, is divisible by {HELD_OUT_MOD}")
DATA_RULE = (f"a file is a data file when Python's tokenizer finds at least {DATA_MIN_WORDS} name, string and "
             f"number tokens and at least {DATA_LITERAL_SHARE:.0%} of them are string or number literals")


def stdlib_root() -> Path:
    """The running interpreter's standard-library folder."""
    return Path(sysconfig.get_paths()["stdlib"])


def corpus_files(root=None) -> list[Path]:
    """The ``.py`` files under ``root`` (default: the standard library) in sorted order,
    the folders in ``SKIP_PARTS`` left out.

    >>> files = corpus_files(Path(__file__).parent)  # this package, a small tree
    >>> files == sorted(files) and all(f.suffix == ".py" for f in files)
    True
    """
    root = Path(root) if root is not None else stdlib_root()
    if not root.is_dir():
        raise ValueError(f"root must be an existing folder, got {str(root)!r}")
    return [p for p in sorted(root.rglob("*.py")) if not (SKIP_PARTS & set(p.relative_to(root).parts))]


def read_corpus(files) -> list[str]:
    """The files' texts (UTF-8; a file that does not decode is read with replacement)."""
    return [Path(p).read_bytes().decode("utf-8", errors="replace") for p in files]


def corpus_sha256(files, root=None) -> str:
    """SHA-256 over every file's path (relative to the library) and bytes, in order.

    >>> len(corpus_sha256([]))
    64
    """
    root = Path(root) if root is not None else stdlib_root()
    h = hashlib.sha256()
    for p in files:
        h.update(str(Path(p).relative_to(root)).encode() + b"\0")
        data = Path(p).read_bytes()
        h.update(len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


def literal_share(text: str) -> tuple[int, float]:
    """(name, string and number tokens; the share of them that are string or number
    literals) under Python's tokenizer. ``(0, 0.0)`` for a file it rejects.

    >>> literal_share("x = 'a' + 2\\n")
    (3, 0.6666666666666666)
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    names = literals = 0
    try:
        for t in tokenize.generate_tokens(io.StringIO(text).readline):
            if t.type == tokenize.NAME:
                names += 1
            elif t.type in (tokenize.STRING, tokenize.NUMBER):
                literals += 1
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return 0, 0.0
    words = names + literals
    return words, (literals / words if words else 0.0)


def is_data(text: str) -> bool:
    """True when ``text`` is a table of literals written as Python (the rule above)."""
    words, share = literal_share(text)
    return words >= DATA_MIN_WORDS and share >= DATA_LITERAL_SHARE


def is_held_out(relpath, mod: int = HELD_OUT_MOD) -> bool:
    """True when the file at ``relpath`` (relative to the library, ``/``-separated) is
    held out: its path's SHA-256, read as a big-endian number, is divisible by ``mod``.

    >>> is_held_out("fractions.py") == (int(hashlib.sha256(b"fractions.py").hexdigest(), 16) % 20 == 0)
    True
    """
    mod = as_int("mod", mod, low=1)
    rel = Path(relpath).as_posix() if not isinstance(relpath, str) else relpath.replace("\\", "/")
    if not rel or rel.startswith("/"):
        raise ValueError(f"relpath must be a path relative to the library, got {relpath!r}")
    return int(hashlib.sha256(rel.encode("utf-8")).hexdigest(), 16) % mod == 0


def held_out_by_index(n_files: int, every: int = HELD_OUT_EVERY) -> list[bool]:
    """The committed model's split: file ``i`` (sorted order) is held out when
    ``i % every == 0``.

    >>> held_out_by_index(5, 2)
    [True, False, True, False, True]
    """
    n_files = as_int("n_files", n_files, low=0)
    every = as_int("every", every, low=1)
    return [i % every == 0 for i in range(n_files)]


@dataclass(frozen=True)
class CorpusFile:
    """One file of the corpus: its path relative to the library, its size, its text,
    whether the data rule flags it and whether it is held out."""

    relpath: str
    n_bytes: int
    text: str
    data: bool
    held_out: bool

    @property
    def group(self) -> str:
        """``"code"`` or ``"data"``."""
        return "data" if self.data else "code"


@dataclass(frozen=True)
class Corpus:
    """The listed files with their flags, the split rule used and the corpus hash."""

    root: str
    split: str          # "hash" (HELD_OUT_MOD) or "index" (HELD_OUT_EVERY, the committed model's)
    files: tuple[CorpusFile, ...]
    sha256: str

    def texts(self, *, held_out: bool, group: str | None = None) -> list[str]:
        """The texts on one side of the split, optionally of one group only."""
        if group not in (None, "code", "data"):
            raise ValueError(f"group must be None, 'code' or 'data', got {group!r}")
        return [f.text for f in self.files if f.held_out == held_out and (group is None or f.group == group)]

    def summary(self) -> list[tuple[str, str, int, int]]:
        """Rows ``(side, group, files, bytes)`` for side in training/held-out and group in
        code/data."""
        rows = []
        for side, held in (("training", False), ("held-out", True)):
            for group in ("code", "data"):
                fs = [f for f in self.files if f.held_out == held and f.group == group]
                rows.append((side, group, len(fs), sum(f.n_bytes for f in fs)))
        return rows


def load(root=None, *, split: str = "hash") -> Corpus:
    """Read the corpus under ``root`` (default: the standard library) and flag every file.

    ``split="hash"`` holds files out by :func:`is_held_out`; ``split="index"`` by
    :func:`held_out_by_index` (the committed model's split)."""
    if split not in ("hash", "index"):
        raise ValueError(f"split must be 'hash' or 'index', got {split!r}")
    root = Path(root) if root is not None else stdlib_root()
    paths = corpus_files(root)
    texts = read_corpus(paths)
    rels = [p.relative_to(root).as_posix() for p in paths]
    held = [is_held_out(r) for r in rels] if split == "hash" else held_out_by_index(len(rels))
    files = tuple(CorpusFile(r, p.stat().st_size, t, is_data(t), h)
                  for r, p, t, h in zip(rels, paths, texts, held))
    return Corpus(str(root), split, files, corpus_sha256(paths, root))


#: Installed pure-Python packages whose sources serve as code the model never saw
#: (both pinned in constraints.txt, so the text is fixed by their versions).
OUTSIDE_PACKAGES = ("jupytext", "nbformat")


def package_files(name: str) -> tuple[str, list[Path]]:
    """(version, ``.py`` files in sorted order) of the installed package ``name``, its
    ``test``/``tests`` folders left out."""
    import importlib.metadata
    import importlib.util

    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a package name, got {name!r}")
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"name must be an installed package, got {name!r}")
    root = Path(list(spec.submodule_search_locations)[0])
    files = [p for p in sorted(root.rglob("*.py")) if not ({"test", "tests", "__pycache__"} & set(p.relative_to(root).parts))]
    return importlib.metadata.version(name), files


def outside_texts(names=OUTSIDE_PACKAGES) -> tuple[dict[str, str], list[str], int]:
    """({package: version}, the packages' ``.py`` texts in order, their byte count)."""
    versions, texts, n_bytes = {}, [], 0
    for name in names:
        versions[name], files = package_files(name)
        texts += read_corpus(files)
        n_bytes += sum(p.stat().st_size for p in files)
    return versions, texts, n_bytes
