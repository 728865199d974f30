"""Teaching constants of chapter 06_gqa (figure 16): query heads sharing K/V heads.

Teaching assignments, not any vendor's configuration; see :mod:`tokenpath.examples`.
This head configuration is separate from the main shape configuration (H = 2): do not
mix the two.
"""

from __future__ import annotations

#: Figure 16: query heads and the K/V heads (groups) they share.
FIG16_N_Q_HEADS, FIG16_N_KV_HEADS = 8, 2
#: Figure 16's cache count: one layer, one request, S = 3 cached positions, d_h = 2.
FIG16_LAYERS, FIG16_REQUESTS, FIG16_SEQ_LEN, FIG16_HEAD_DIM = 1, 1, 3, 2
#: The widget's ranges for Hq and Hkv.
GQA_MAX_HEADS = 16

#: A K/V head count that does not divide Hq = 8 (the engine refuses it).
GQA_BAD_KV_HEADS = 3
#: The query head the chapter's first question follows.
GQA_QUESTION_HEAD = 5

#: A small random GQA layer used in the chapter's cells: batch, positions, head width.
GQA_B, GQA_T, GQA_D_HEAD = 1, 4, 2
GQA_SEED = 6

__all__ = [name for name in dir() if name.isupper()]
