"""Teaching constants of chapters 04_attention and 05_masks (figures 7–14, packing, cross-attention).

Teaching assignments, not any vendor's numbers; see :mod:`tokenpath.examples`.
"""

from __future__ import annotations

import math

import numpy as np

# --- section 4.1: attention without weights, on three words ----------------------
#: A phrase whose last word needs an earlier one: "bank" means the riverside here.
WORDS = ("the", "river", "bank")
#: The features each word's row is given by hand (a teaching choice, not learned).
WORD_FEATURES = ("water", "money", "grammar")
#: One row per word: "river" is all water, "bank" half water and half money, "the" grammar.
WORD_X = np.array([[0.0, 0.0, 1.0], [3.0, 0.0, 0.0], [1.0, 1.0, 0.0]])
#: The row that replaces "river" in the what-if: a word that is all money.
WORD_MONEY = np.array([0.0, 3.0, 0.0])

#: The receiving position figure 7 follows.
FIG7_RECEIVER = 2

# --- figure 8/9: the asymmetric three-position hand calculation --------------------
#: Query rows for positions 0, 1, 2 (B = H = 1, T = 3, d_h = 2). The √2 cancels the
#: 1/√d_h scale so the scaled scores are exactly ln 3, ln 2 and 0.
FIG8_Q = math.sqrt(2) * np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
#: Key rows for positions 0, 1, 2.
FIG8_K = np.array([[math.log(3), 0.0], [0.0, math.log(2)], [0.0, 0.0]])
#: Value rows (U, so that V can stay the vocabulary size).
FIG8_U = np.array([[2.0, 0.0], [0.0, 3.0], [6.0, 6.0]])

# --- figure 10: two sources, no projections ----------------------------------------
FIG10_Q = np.array([[1.0, 0.0]])
FIG10_K = np.array([[1.0, 0.0], [0.0, 1.0]])
FIG10_U = np.array([[2.0, 0.0], [0.0, 4.0]])
#: Decimals the figure rounds weights to before multiplying (the hand-calculation path).
FIG10_DIGITS = 3

# --- figure 11: same weights, different value magnitude ----------------------------
#: Scores whose softmax is exactly [0.75, 0.25].
FIG11_SCORES = np.array([math.log(3), 0.0])
#: The fixed first value row; the second is [0, m].
FIG11_U0 = np.array([2.0, 0.0])
#: Magnitudes compared in the static figure (the widget slides between them).
FIG11_M_SMALL, FIG11_M_LARGE = 4.0, 40.0

# --- section 4.3: why large scores make the softmax one-hot -----------------------------
#: Two rows of scores whose softmax the chapter compares: a gap of 1 and a gap of 10.
SOFTMAX_MILD = np.array([1.0, 0.0])
SOFTMAX_SHARP = np.array([10.0, 0.0])

# --- figure 12: score variance versus head width ------------------------------------
FIG12_D_H = (1, 4, 16)
FIG12_SAMPLES = 20_000
#: Pairs drawn per width in the interactive close-up (smaller, so a slider step is fast).
FIG12_WIDGET_SAMPLES = 4_000
FIG12_SEED = 0

# --- figure 13: shift versus visibility ----------------------------------------------
#: In the generation half of figure 13 the next token is drawn from the last row's
#: distribution; the book takes the draw to be ID 2 (c).
FIG13_SAMPLED = 2
#: The column of figure 13 that the text follows.
FIG13_COLUMN = 2

# --- figure 14: a KV cache -------------------------------------------------------------
#: Cached positions already in the K/V cache, and new query rows in this block.
FIG14_PAST, FIG14_NEW = 3, 2

# --- packing and cross-attention ------------------------------------------
#: Three short documents packed into fixed blocks, each closed by EOS.
PACKED_DOCUMENTS = ([3, 7, 3, 2], [7, 7], [2, 3, 3])
PACK_BLOCK = 5
#: Teaching padding ID for the tail of the last block (ID 0 is an ordinary ID
#: elsewhere; here it is declared padding and the `valid` flags say so).
PAD = 0

#: Encoder–decoder contrast: source length (last position is padding), target prefix
#: length, head width, and the seed of the random projections.
CROSS_SOURCE_VALID = (True, True, True, False)
CROSS_TARGET_LEN = 2
CROSS_D_HEAD = 4
CROSS_SEED = 4

#: Seed for the random multi-head tensors (figure 23) of the main shape configuration.
MULTIHEAD_SEED = 0
#: Positions of the multi-head example: the main configuration's B, d and H with
#: T = 3, so that no two of B·H, T and d_h are confused in the shapes [B, H, T, d_h] = [2, 2, 3, 4]
#: and [B, H, T, T] = [2, 2, 3, 3].
MULTIHEAD_T = 3

__all__ = [name for name in dir() if name.isupper()]
