"""Teaching constants of chapter 07_gqa (figure 16): query heads sharing K/V heads.

Teaching assignments, not any vendor's configuration; see :mod:`tokenpath.examples`.
This head configuration is separate from the main shape configuration (H = 2): do not
mix the two.
"""

from __future__ import annotations

#: Figure 16: query heads and the K/V heads (groups) they share.
FIG16_N_Q_HEADS, FIG16_N_KV_HEADS = 8, 2
#: Figure 16's cache count: one layer, one request, P = 3 cached positions, d_h = 2.
FIG16_LAYERS, FIG16_REQUESTS, FIG16_SEQ_LEN, FIG16_HEAD_DIM = 1, 1, 3, 2
#: The widget's ranges for Hq and Hkv.
GQA_MAX_HEADS = 16

#: A K/V head count that does not divide Hq = 8 (the engine refuses it).
GQA_BAD_KV_HEADS = 3
#: The query head the chapter's first question follows (h // 4 = 1, but h % 2 = 0: the
#: question tells the grouping from the interleaving).
GQA_QUESTION_HEAD = 6

#: A K/V cache at a realistic size (section 7.1): 32 layers, 32 query heads sharing 8
#: K/V heads of width 128, stored in bfloat16, for one request of 8,192 tokens. These
#: are the attention shapes the Llama 3 report gives for its 8B model; the count is
#: the K/V body only.
KV_REAL_LAYERS, KV_REAL_N_Q_HEADS, KV_REAL_N_KV_HEADS, KV_REAL_HEAD_DIM = 32, 32, 8, 128
KV_REAL_SEQ_LEN, KV_REAL_DTYPE = 8192, "bfloat16"

#: Chapter 7's aside on SmolLM2: the context its K/V cache is counted for, and the two
#: precisions it is counted in (the shapes come from the model's GGUF header).
SMOLLM2_KV_SEQ_LEN = 2048
SMOLLM2_KV_DTYPES = ("float32", "float16")

#: A small random GQA layer used in the chapter's cells: batch, positions, head width.
GQA_B, GQA_T, GQA_D_HEAD = 1, 4, 2
GQA_SEED = 6

__all__ = [name for name in dir() if name.isupper()]
