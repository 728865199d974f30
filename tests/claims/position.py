"""Claims of chapter 05_rope_discs (figure 15, seed 004's RoPE example): positions."""

from __future__ import annotations

import math
from functools import cache, partial

import numpy as np

from tokenpath import examples as ex
from tokenpath import fmt
from tokenpath import position as P

from . import Claim as _Claim
from . import NotClaim as _NotClaim

CHAPTER = "05_rope_discs"
Claim = partial(_Claim, chapter=CHAPTER)
NotClaim = partial(_NotClaim, chapter=CHAPTER)


# ------------------------------------------------------------------ engine calls

@cache
def fig15():
    return P.fig15_trace()


@cache
def seed004():
    d, pos, base = ex.ROPE_EXAMPLE_HEAD_DIM, ex.ROPE_EXAMPLE_POSITION, ex.ROPE_EXAMPLE_BASE
    return P.rope_frequencies(d, base), P.rope_angles([pos], d, base)[0]


def _listed(values, unit: str = "") -> str:
    """``0°, 90°, 180°``: a comma list with the book's minus sign."""
    return ", ".join(fmt.num(v, minus=fmt.MINUS) + unit for v in np.asarray(values, dtype=float))


def _pi_over(v) -> str:
    return "π/" + fmt.num(math.pi / v)


def _one_over(v) -> str:
    return "1/" + fmt.num(1 / v)


# ------------------------------------------------------------------------ claims

CLAIMS: list[_Claim] = [
    # -- figure 15: one pair, one frequency ----------------------------------------
    Claim("fig15.omega", lambda: ex.FIG15_OMEGA, text=("π/2", _pi_over)),
    Claim("fig15.q", lambda: fig15().discs[0].q, exact="[1, 0]"),
    Claim("fig15.k", lambda: fig15().discs[0].k, exact="[1, 0]"),
    Claim("fig15.distances", lambda: [d.distance for d in fig15().discs], text=("0, 1, 2", _listed)),
    Claim("fig15.degrees", lambda: [round(d.degrees, 9) for d in fig15().discs],
          text=("0°, 90°, 180°", lambda v: _listed(v, "°"))),
    Claim("fig15.dots", lambda: [round(d.dot, 12) for d in fig15().discs], text=("1, 0, −1", _listed)),
    Claim("fig15.turned_keys", lambda: np.round([d.turned_key for d in fig15().discs], 12),
          exact="[[1, 0], [0, 1], [-1, 0]]"),
    # -- seed 004's worked example ------------------------------------------------
    Claim("seed004.head_dim", lambda: ex.ROPE_EXAMPLE_HEAD_DIM, text=("head_dim = 4", lambda v: f"head_dim = {v}")),
    Claim("seed004.position", lambda: ex.ROPE_EXAMPLE_POSITION, text=("pos = 3", lambda v: f"pos = {v}")),
    Claim("seed004.base", lambda: ex.ROPE_EXAMPLE_BASE, text=("base = 10000", lambda v: f"base = {fmt.num(v)}")),
    Claim("seed004.theta", lambda: seed004()[0], text=("θ₀ = 1, θ₁ = 1/100",
          lambda v: f"θ₀ = {fmt.num(v[0])}, θ₁ = {_one_over(v[1])}")),
    Claim("seed004.angles", lambda: seed004()[1], text=("[3, 0.03]", fmt.vec)),
]

#: Digits in the prose that are not computed claims, each with its reason.
NOT_CLAIMS: list[_NotClaim] = []
