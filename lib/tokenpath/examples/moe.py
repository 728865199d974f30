"""Teaching constants of chapter 09_moe_routing (figures 19–22).

Teaching assignments, not any vendor's router, experts or parameter counts; see
:mod:`tokenpath.examples`. The hand-calculation configurations below are independent of
each other and of the running example.
"""

from __future__ import annotations

import numpy as np

# --- figures 19/20: one token, four experts, top-2 ----------------------------------
#: Router scores a = x W_r of one token over experts 0–3 (columns are expert IDs).
FIG20_SCORES = np.array([2.0, 1.0, 0.0, -1.0])
#: Experts each token runs.
FIG20_K = 2
#: Outputs F_i(x) of the experts the token runs, in expert order (experts 0 and 1);
#: the columns of each row are features, not expert IDs.
FIG20_OUTPUTS = np.array([[1.0, 3.0], [5.0, 1.0]])
#: Decimals the figure rounds the gates to before multiplying (the hand calculation).
FIG20_DIGITS = 3

#: The widget of figures 19/20 lets the number of experts grow to six. Scores and
#: outputs of every expert it can show; the first four scores and the first two
#: outputs are those of figure 20.
FIG20_WIDGET_SCORES = np.array([2.0, 1.0, 0.0, -1.0, 0.5, -0.5])
FIG20_WIDGET_OUTPUTS = np.array(
    [[1.0, 3.0], [5.0, 1.0], [2.0, -2.0], [0.0, 4.0], [3.0, 3.0], [-1.0, 1.0]]
)

# --- figure 21: the top-1 boundary ------------------------------------------------------
#: The control δ of the static figure: scores a₀ = δ, a₁ = −δ.
FIG21_DELTA = 0.5
#: The slider's range of δ.
FIG21_DELTA_RANGE = (-2.0, 2.0)
#: The two experts' outputs and the target of the small task loss L = ½‖o − y‖² whose
#: gradient with respect to the router scores the figure shows.
FIG21_OUTPUTS = np.array([[1.0, 0.0], [0.0, 2.0]])
FIG21_TARGET = np.array([0.0, 1.0])

# --- figure 22: a batch of two tokens -------------------------------------------------
#: Router scores of the two tokens of the batch (rows = tokens, columns = expert IDs).
FIG22_SCORES = np.array([[2.0, 1.0, 0.0, -1.0], [-1.0, 0.0, 1.0, 2.0]])
FIG22_K = 2
#: Second tokens the widget can put into the batch (the last is figure 22's token 1).
FIG22_CANDIDATES = np.array([[1.0, 2.0, -1.0, 0.0], [-1.0, 2.0, 1.0, 0.0], [-1.0, 0.0, 1.0, 2.0]])
#: A capacity limit: at most this many tokens per expert in one batch.
FIG22_CAPACITY = 1

# --- section 9.2: stored and active parameters (an independent setting) ---------------
MOE_EXPERTS = 16
MOE_EXPERT_PARAMS = 100_000_000
MOE_K = 2
#: The k of the chapter's first question: figure 20's scores with three experts chosen.
MOE_QUESTION_K = 3
#: The gradient question of "Check yourself": figure 21 at this δ, where expert 1 runs.
MOE_QUESTION_DELTA = -1.0
#: The drop question of "Check yourself": this row of FIG22_CANDIDATES is the second token.
MOE_QUESTION_CANDIDATE = 1
#: The what-if question of "Check yourself": figure 20's unchosen expert 3 gets this score
#: (still below expert 1's), and the question asks what happens to the chosen gates.
MOE_WHATIF_EXPERT, MOE_WHATIF_SCORE = 3, 0.5
#: Section 9.2's aside: the mixture SmolLM2's dense SwiGLU is set beside (top-2 of 4).
SMOLLM2_MIXTURE_EXPERTS, SMOLLM2_MIXTURE_K = 4, 2

# --- a small MoE layer with SwiGLU experts, for the chapter's forward pass -------------
MOE_D, MOE_D_FF, MOE_N_EXPERTS, MOE_SEED = 4, 6, 4, 8

# --- the capstone: a shared expert beside that layer's routed experts -------------------
#: the shared expert's hidden width d_s and the seed of its weights and gate vector w_sg
SHARED_D_FF, SHARED_SEED = 8, 9
#: the tiny random Qwen2-MoE whose layer 0 the capstone is also checked on
QWEN2_MOE_TINY = dict(vocab_size=32, hidden_size=8, intermediate_size=16, num_hidden_layers=1,
                      num_attention_heads=2, num_key_value_heads=1, num_experts=6, num_experts_per_tok=2,
                      moe_intermediate_size=4, shared_expert_intermediate_size=8)
QWEN2_MOE_SEED, QWEN2_MOE_IDS = 9, (3, 17, 5, 29)

__all__ = [name for name in dir() if name.isupper()]
