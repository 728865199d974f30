"""Teaching constants of chapter 06_rope_discs (figure 15, the four-wide RoPE example,
the sinusoidal heat map, the learned table, the order-blindness demonstration and
ALiBi).

Teaching assignments, not any vendor's numbers; see :mod:`tokenpath.examples`.
"""

from __future__ import annotations

import math

import numpy as np

# --- figure 15: one feature pair turning at one frequency --------------------------
#: The angle one feature pair turns per position step, rad/position (π/2: a quarter turn).
FIG15_OMEGA = math.pi / 2
#: The query pair and the key pair before any rotation.
FIG15_Q = np.array([1.0, 0.0])
FIG15_K = np.array([1.0, 0.0])
#: How far back the key sits in the three discs, m − n (query at m, key at n ≤ m, as a
#: decoder sees it); the key is turned by (n − m)ω, i.e. clockwise by (m − n)ω.
FIG15_DISTANCES = (0, 1, 2)
#: How far back the key of the live disc (b) starts, m − n, and the largest distance its
#: curve and slider reach.
FIG15_DISTANCE = 2
FIG15_MAX_DISTANCE = 16

# --- figure 15 (c): one pair of a wider head ------------------------------------------
#: Head width, RoPE base, pair index and distance of panel (c): pair 16 of a 64-wide
#: head turns at 10000^(−32/64) = 1/100 rad per position, the speed of pair 1 in the
#: four-wide example.
FIG15_HEAD_DIM = 64
FIG15_BASE = 10000.0
FIG15_PAIR = 16
FIG15_PAIR_DISTANCE = 3
#: log₁₀ of the smallest and largest base panel (c)'s slider offers.
FIG15_LOG_BASE_RANGE = (2.0, 6.0)

# --- the four-wide worked example --------------------------------------------------------
#: d_h = 4, a token at position 3, base 10000: θ = [1, 1/100], angles [3, 0.03].
ROPE_EXAMPLE_HEAD_DIM = 4
ROPE_EXAMPLE_POSITION = 3
ROPE_EXAMPLE_BASE = 10000.0
#: One query pair and one key pair, turned at θ₀ = 1 rad per position (a head of width
#: 2, whose only pair is pair 0), and the (query position m, key position n) pairs the
#: chapter turns them to, the key before the query as in a decoder: the first three
#: share the distance m − n = 2, the last has distance 1.
ROPE_PAIR_Q = np.array([1.0, 0.5])
ROPE_PAIR_K = np.array([0.0, 1.0])
ROPE_PAIR_POSITIONS = ((5, 3), (12, 10), (102, 100), (4, 3))

# --- sinusoidal encoding and a learned table ---------------------------------------------
#: The printed table of section 6.2: positions 0 … SINUSOID_TABLE_POSITIONS − 1, width SINUSOID_TABLE_WIDTH.
SINUSOID_TABLE_POSITIONS = 4
SINUSOID_TABLE_WIDTH = 8
#: The heat map's positions and width.
SINUSOID_POSITIONS = 64
SINUSOID_D_MODEL = 16
#: A learned position table: rows for positions 0 … LEARNED_MAX_LEN − 1 only.
LEARNED_MAX_LEN = 8
LEARNED_SEED = 5

# --- order blindness ---------------------------------------------------------------------
#: Seed of the random embedding rows and projections of the order-blindness check.
ORDER_SEED = 15
#: The reordering applied to "abac": new position p holds old position ORDER_PERMUTATION[p].
ORDER_PERMUTATION = (3, 2, 1, 0)

# --- ALiBi ------------------------------------------------------------------------------
#: Heads whose slopes the chapter lists (ALiBi's geometric slopes 1/2 … 1/256); the
#: first head's slope is applied to figure 8's scores.
ALIBI_HEADS = 8
#: A steeper head's slope, for the "what if" question of "Check yourself": with it row 2
#: of figure 8 reads its own position most.
ALIBI_STEEP_SLOPE = 1.0

__all__ = [name for name in dir() if name.isupper()]
