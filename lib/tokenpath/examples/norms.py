"""Teaching constants of chapter 08_rmsnorm_swiglu (figures 17 and 18).

Teaching assignments, not any vendor's weights; see :mod:`tokenpath.examples`. The
RMSNorm, gate and residual examples are independent small configurations.
"""

from __future__ import annotations

import numpy as np

# --- figure 17, left: RMSNorm over the features of one position ---------------------
#: The feature vector of one position (fixed b, t), d = 2.
FIG17_X = np.array([3.0, 4.0])
#: RMSNorm's trainable scale γ (Llama's ``weight``), here all ones.
FIG17_WEIGHT = np.array([1.0, 1.0])
#: ε is ignored in the hand calculation.
FIG17_EPS = 0.0
#: How much the widget's reader scales x to see RMSNorm ignore it (shown in the text).
FIG17_SCALE = 10.0
#: A second input for LayerNorm, to predict before its cell runs (figure 17 shows [3, 4]'s).
LN_X = np.array([2.0, 6.0])
#: Two pairs for the widget's reader: each pair lies on one ray from the origin.
RAY_PAIR = (np.array([1.0, 2.0]), np.array([2.0, 4.0]))

# --- figure 17, right: one SwiGLU feature ------------------------------------------
#: Gate pre-activation (x W_gate) and content (x W_up) of one intermediate feature.
FIG17_GATE_PRE, FIG17_CONTENT = 1.0, 2.0
#: The widget's range for the gate pre-activation.
FIG17_GATE_RANGE = (-6.0, 6.0)

# --- "Check yourself": fresh numbers the chapter does not print ---------------------------
#: RMSNorm with a γ that is not uniform.
QUIZ_RMS_X, QUIZ_RMS_GAMMA = np.array([6.0, 8.0]), np.array([2.0, 0.5])
#: The gate pre-activation whose SiLU the reader computes.
QUIZ_SILU_A = -2.0
#: A norm weight stored for the 1 + w convention, read as γ = w.
QUIZ_OFFSET_W = np.array([0.5, -0.5])

# --- figure 18: the residual add -------------------------------------------------------
#: The residual stream at one position and a sub-layer's update to it.
FIG18_STREAM = np.array([1.0, 2.0])
FIG18_UPDATE = np.array([0.5, -1.0])
#: An update of width one: numpy broadcasts it across the features, the engine refuses it.
SHORT_UPDATE = np.array([0.5])

# --- the FFN widening d -> d_ff -> d ---------------------------------------------------
#: Seed of the random input and weights of the chapter's SwiGLU shape example, which
#: uses the main configuration's width D_MODEL = 8 and SwiGLU width D_FF = 24 (figure 4).
FFN_SEED = 7

__all__ = [name for name in dir() if name.isupper()]
