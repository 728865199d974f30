"""Teaching constants of chapter 03_embedding_lookup (figures 3–6).

Teaching assignments, not any vendor's numbers; see :mod:`tokenpath.examples`. The
shape configuration (B=2, T=4, V=1000, d=8, H=2, d_h=4) and the character IDs are the
running example's, defined once in :mod:`tokenpath.examples`.
"""

from __future__ import annotations

import math

import numpy as np

# --- figure 3: the lookup -------------------------------------------------------------
#: Sequence 1 of the batch, chosen for this chapter: "bcab" = [7, 2, 3, 7]. It reuses
#: the characters of sequence 0, so both sequences read rows of the same E (row 3
#: and row 7 are each read by both), and it repeats ID 7 at positions 0 and 3.
SECOND_TEXT = "bcab"
#: The first four features of row 3 of E, set by hand; every other entry of E is seeded.
FIG3_E3_HEAD = np.array([0.2, -0.1, 0.4, 0.0])
#: Seed of the generator that fills the rest of E.
EMBED_SEED = 3
#: Standard deviation of the seeded entries of E (rounded to one decimal).
EMBED_SCALE = 0.3
#: The cell figure 3 follows: sequence b, position t, feature f (s[0,2]=3, E[3,0]=0.2).
FIG3_CELL = (0, 2, 0)
#: Rows of E that figure 3 draws (every ID of the batch is among them); the rest are
#: summarised by an ellipsis and the last row.
FIG3_ROWS_SHOWN = 8

# --- figure 4: one pre-norm decoder layer -----------------------------------------------
#: Width of the SwiGLU hidden layer of the teaching layer (Llama uses about 8/3·d,
#: rounded up; 3·d keeps the numbers small).
D_FF = 24
#: RoPE base and RMSNorm ε of the teaching layer (Llama 2's values).
ROPE_BASE = 10000.0
NORM_EPS = 1e-5
#: Seed of the random weights of the teaching layer (a random, untrained layer).
LAYER_SEED = 4

# --- figure 5: an independent two-candidate vocabulary ------------------------------------
#: Candidate IDs 0 and 1 of a separate two-entry teaching vocabulary (not two entries
#: picked out of the 1,000).
FIG5_IDS = (0, 1)
#: Equal logits, then a gap of log 3, then the same gap with 100 added to both.
FIG5_EQUAL = np.array([0.0, 0.0])
FIG5_GAP = np.array([math.log(3), 0.0])
FIG5_SHIFT = 100.0
#: Number of seeded draws shown beside the probabilities, and their seed.
FIG5_DRAWS = 1000
FIG5_SEED = 5
#: The temperature of the static figure, and the range of the widget's slider (0 is greedy).
FIG5_TEMPERATURE = 1.0
FIG5_TEMPERATURE_RANGE = (0.0, 3.0)

# --- figure 6: the two gradient paths of a tied matrix ----------------------------------
#: Rows of E whose gradient figure 6 draws: 0–11 hold every ID of x and y.
FIG6_ROWS_SHOWN = 12

# --- the sampling loop --------------------------------------------------------------------
#: Steps, seed and top-k of the chapter's generation loop.
GENERATE_STEPS = 4
GENERATE_SEED = 0
GENERATE_TOP_K = 5


# --- real scale beside the toy shapes ----------------------------------------------------
#: A real vocabulary of 32,000 entries at the width 4096 of chapter 2's vocabulary
#: arithmetic, with the FFN width and the depth that go with them: the published
#: configuration of Llama 2 7B (its config.json's vocab_size, hidden_size,
#: intermediate_size and num_hidden_layers; 32 heads of width 128, untied head). Not a
#: teaching assignment but published shapes, used only for counting parameters.
SCALE_VOCAB = 32_000
SCALE_D = 4096
SCALE_D_FF = 11_008
SCALE_LAYERS = 32

__all__ = [name for name in dir() if name.isupper()]
