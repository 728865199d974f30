"""The registry of claims: every number the book states, with the engine computation
that produces it.

A :class:`Claim` ties a name to

* ``compute`` — a call into the engine (never a literal);
* the value the book states, as text, at each precision it is written in
  (``rounded`` and/or ``full`` with their decimals, ``exact`` for fractions and
  integers, or ``text`` with a custom formatter);
* the chapter (``book/NAME.md``) whose prose states it.

Each chapter registers its claims in its own module of this package (``attention``
for ``04_attention`` …) as ``CLAIMS`` and ``NOT_CLAIMS``; this module gathers every
module it finds here, so a new chapter only adds a file.

``tests/test_claims.py`` checks that each computed value, formatted the book's way
(:mod:`tokenpath.fmt`), reads exactly as stated. ``tests/test_prose_numbers.py`` then
scans every markdown cell of ``book/*.md`` and accepts a number only if it is one of
these renderings (or a reference the scanner recognises, or listed in
``NOT_CLAIMS``). A number typed into the prose that no claim produces fails.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from tokenpath import doctor, fmt

__all__ = ["CLAIMS", "NOT_CLAIMS", "Claim", "NotClaim", "claims_for", "not_claims_for", "render"]


def pinned(package: str) -> str:
    """The version of ``package`` pinned in constraints.txt: what the cross-checks run
    against, and what a chapter's Sources name."""
    pins, _ = doctor.read_constraints()
    if package not in pins:
        raise LookupError(f"{package} is not pinned in constraints.txt")
    return pins[package]


def pinned_as_source(package: str) -> str:
    """How a chapter's Sources write a pinned package: ```transformers` 5.24.0``."""
    return f"`{package}` {pinned(package)}"


def render(value, *, digits: int | None = None, fractions: bool = False) -> str:
    """Format a scalar, vector or matrix the way the prose writes it."""
    arr = np.asarray(value)
    if arr.ndim == 0:
        return fmt.frac(arr) if fractions else fmt.num(arr, digits)
    if arr.ndim == 1:
        return fmt.vec(arr, digits, fractions=fractions)
    if arr.ndim == 2:
        return fmt.mat(arr, digits, fractions=fractions)
    raise ValueError(f"cannot render a {arr.ndim}-D claim")


@dataclass(frozen=True)
class Claim:
    name: str
    compute: Callable[[], Any]
    #: stated value at display precision, and its number of decimals
    rounded: tuple[str, int] | None = None
    #: stated value at full precision, and its number of decimals
    full: tuple[str, int] | None = None
    #: stated exact value: integers and small fractions
    exact: str | None = None
    #: stated value written with a custom formatter ``(value) -> str``
    text: tuple[str, Callable[[Any], str]] | None = None
    chapter: str = field(kw_only=True)

    def renderings(self) -> dict[str, str]:
        """What the engine's value reads as, for each stated form: {form: text}."""
        value = self.compute()
        out = {}
        if self.rounded is not None:
            out["rounded"] = render(value, digits=self.rounded[1])
        if self.full is not None:
            out["full"] = render(value, digits=self.full[1])
        if self.exact is not None:
            out["exact"] = render(value, fractions=True)
        if self.text is not None:
            out["text"] = self.text[1](value)
        return out

    def stated(self) -> dict[str, str]:
        out = {}
        if self.rounded is not None:
            out["rounded"] = self.rounded[0]
        if self.full is not None:
            out["full"] = self.full[0]
        if self.exact is not None:
            out["exact"] = self.exact
        if self.text is not None:
            out["text"] = self.text[0]
        return out


@dataclass(frozen=True)
class NotClaim:
    """A phrase in the prose whose digits are not a computed claim, with the reason."""

    phrase: str
    why: str
    chapter: str = field(kw_only=True)


# ------------------------------------------------------------- the registry

def _gather() -> tuple[list[Claim], list[NotClaim]]:
    claims, not_claims = [], []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        claims.extend(module.CLAIMS)
        not_claims.extend(getattr(module, "NOT_CLAIMS", []))
    return claims, not_claims


#: Every claim of every chapter, and every digit in the prose that is not one.
CLAIMS, NOT_CLAIMS = _gather()


def claims_for(chapter: str) -> list[Claim]:
    return [c for c in CLAIMS if c.chapter == chapter]


def not_claims_for(chapter: str) -> list[NotClaim]:
    return [n for n in NOT_CLAIMS if n.chapter == chapter]
