"""Chapter 6's exercise: RoPE for one head with the rotate-half pairing the book uses
(feature ``i`` turns with feature ``i + d_h/2`` by the angle ``p·θ_i``,
``θ_i = base^(−2i/d_h)``). The worked example is the chapter's four-wide case
(``d_h = 4``, position 3, base 10000: angles ``[3, 0.03]``) with ``x = [1, 2, 3, 4]``;
random cases vary ``T``, ``d_h`` (2 included), the positions and the base.
"""

from __future__ import annotations

import numpy as np

from ..examples import position as ex
from ..position import rope, rope_angles
from ..i18n import N_, _
from .checker import Case, Exercise, Field, Mistake

__all__ = ["EXERCISES", "ROPE"]

_STUB = '''\
def rope_head(x, positions, base):
    """Rotary position embedding of one head, rotate-half pairing.

    x [T, d_h] float (d_h even), positions [T] (the absolute position p of each row),
    base a float (10000 in the chapter).  Pair i (i = 0 … d_h/2 − 1) is feature i
    with feature i + d_h/2; it turns by the angle p·θ_i, θ_i = base^(−2i/d_h):
      a' = a·cos − b·sin,  b' = a·sin + b·cos.
    Returns a dict with
      "angles": p·θ_i                [T, d_h/2]
      "output": the rotated rows     [T, d_h]
    """
    ...
'''


class _RowIndexWhy(str):
    """The row-number mistake's sentence, with the worked example's position filled in:
    English as a plain string, in the reader's language where the checker formats it."""

    TEMPLATE = N_("you turned row t by t·θ_i; the angle is p·θ_i with p the row's absolute position from "
                  "positions (the worked example's one row is at position {position}).")

    def __new__(cls, position: int):
        self = super().__new__(cls, cls.TEMPLATE.format(position=position))
        self.position = position
        return self

    def __format__(self, spec: str) -> str:
        return format(_(self.TEMPLATE).format(position=self.position), spec)


def _reference(x, positions, base):
    x = np.asarray(x, dtype=float)
    return {"angles": rope_angles(positions, x.shape[-1], base), "output": rope(x, positions, base=base)}


def _cases() -> tuple[Case, ...]:
    d = ex.ROPE_EXAMPLE_HEAD_DIM
    cases = [Case(_("the worked example (d_h = {d}, position {position}, base {base}, x = [1, 2, 3, 4])").format(
                      d=d, position=ex.ROPE_EXAMPLE_POSITION, base=f"{ex.ROPE_EXAMPLE_BASE:g}"),
                  (np.arange(1.0, d + 1)[None, :], np.array([ex.ROPE_EXAMPLE_POSITION]), ex.ROPE_EXAMPLE_BASE))]
    rng = np.random.default_rng(15)
    for n, (t, dh, base) in enumerate([(3, 4, 10000.0), (2, 2, 100.0), (4, 8, 10000.0), (1, 6, 500.0)]):
        x = rng.normal(size=(t, dh))
        pos = np.sort(rng.integers(0, 20, size=t))
        cases.append(Case(_("random case {n} (seed 15): T = {t}, d_h = {dh}, base {base}").format(
            n=n + 1, t=t, dh=dh, base=f"{base:g}"), (x, pos, base)))
    return tuple(cases)


def _angles(positions, d, base, exponent=2.0, first=0, step=1):
    theta = base ** (-exponent * np.arange(first, first + step * (d // 2), step) / d)
    return np.asarray(positions, dtype=float)[:, None] * theta


def _interleaved(x, positions, base):
    x = np.asarray(x, dtype=float)
    ang = _angles(positions, x.shape[-1], base)
    a, b = x[:, 0::2], x[:, 1::2]
    out = np.empty_like(x)
    out[:, 0::2] = a * np.cos(ang) - b * np.sin(ang)
    out[:, 1::2] = a * np.sin(ang) + b * np.cos(ang)
    return {"angles": ang, "output": out}


def _rotate(x, ang, sign=1.0):
    h = x.shape[-1] // 2
    a, b = x[:, :h], x[:, h:]
    c, s = np.cos(ang), sign * np.sin(ang)
    return np.concatenate([a * c - b * s, a * s + b * c], axis=-1)


def _backwards(x, positions, base):
    x = np.asarray(x, dtype=float)
    ang = _angles(positions, x.shape[-1], base)
    return {"angles": ang, "output": _rotate(x, ang, -1.0)}


def _wrong_angles(rows=False, **angles):
    """A rotate-half RoPE whose angles are wrong: the row numbers as positions, or other frequencies."""
    def fn(x, positions, base):
        x = np.asarray(x, dtype=float)
        ang = _angles(np.arange(x.shape[0]) if rows else positions, x.shape[-1], base, **angles)
        return {"angles": ang, "output": _rotate(x, ang)}
    return fn


_from_one = _wrong_angles(first=1)
_even_index = _wrong_angles(step=2)
_row_index = _wrong_angles(rows=True)
_exponent_i = _wrong_angles(exponent=1.0)


def _repeated_per_feature(x, positions, base):
    x = np.asarray(x, dtype=float)
    h = x.shape[-1] // 2
    ang = _angles(positions, x.shape[-1], base)
    wide = np.repeat(ang, 2, axis=-1)  # [θ0, θ0, θ1, θ1, …]: the adjacent layout's angles
    rotated = np.concatenate([-x[:, h:], x[:, :h]], axis=-1)  # rotate_half
    return {"angles": ang, "output": x * np.cos(wide) + rotated * np.sin(wide)}


def rope_head(x, positions, base):
    """The teaching solution: the angles p·θ_i, then each pair (i, i + d_h/2) turned."""
    d_h = x.shape[-1]
    i = np.arange(d_h // 2)
    theta = base ** (-2 * i / d_h)  # one frequency per pair
    angles = np.outer(positions, theta)  # p·θ_i, [T, d_h/2]
    cos, sin = np.cos(angles), np.sin(angles)
    a, b = x[:, : d_h // 2], x[:, d_h // 2 :]  # pair i: feature i with feature i + d_h/2
    output = np.concatenate([a * cos - b * sin, a * sin + b * cos], axis=-1)
    return {"angles": angles, "output": output}


ROPE = Exercise(
    "rope_head", 6, N_("RoPE for one head (rotate-half pairing)"), _STUB, _reference, (rope, rope_angles),
    (Field("angles", "p·θ_i", ("row", "i")), Field("output", "RoPE(x, p)", ("row", "feature"), scaled=True)), _cases,
    (Mistake(N_("RoPE's adjacent pairing where rotate_half is used"), N_("you turned feature 2i with feature 2i + 1 "
             "(the adjacent pairing the RoPE paper writes); the book pairs feature i with feature i + d_h/2 "
             "(rotate_half), so the same weights give other numbers."), _interleaved),
     Mistake(N_("turned the wrong way"), N_("your sin has the wrong sign, so each pair turns clockwise by p·θ_i; "
             "a' = a·cos − b·sin and b' = a·sin + b·cos turn it counter-clockwise."), _backwards),
     Mistake("θ_i = base^(−i/d_h)", N_("your frequencies use i/d_h in the exponent; RoPE's are base^(−2i/d_h), "
             "one per pair, so the slowest pair turns at about 1/base per position."), _exponent_i),
     Mistake(N_("the row number used as the position"), _RowIndexWhy(ex.ROPE_EXAMPLE_POSITION), _row_index),
     Mistake(N_("θ_i counted from i = 1"), N_("your first pair turns at base^(−2/d_h) instead of 1 radian per "
             "position: i counts the pairs from 0, so θ_0 = base⁰ = 1."), _from_one),
     Mistake("θ_i = base^(−4i/d_h)", N_("your exponent is −4i/d_h: you took 2i from np.arange(0, d_h, 2) and then "
             "multiplied it by 2 again (or divided 2i by d_h/2). Either write −j/d_h for j in np.arange(0, d_h, 2), "
             "or −2i/d_h for i in np.arange(d_h // 2)."),
             _even_index),
     Mistake(N_("cos and sin repeated per feature with rotate_half"), N_("you repeated each angle twice in a row "
             "(θ0, θ0, θ1, θ1, …, np.repeat), which is the adjacent layout's order, but paired features with "
             "rotate_half; with rotate_half, feature i and feature i + d_h/2 share angle i, so the angles are "
             "tiled: np.concatenate([angles, angles])."), _repeated_per_feature)),
    teaching=rope_head,
)

EXERCISES = (ROPE,)
