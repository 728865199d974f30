"""Chapter 8's capstone: one whole decoder layer of a real model. The reader writes
``decoder_layer(x, weights, config)`` from the layer's weight arrays: RMSNorm, attention
with RoPE (rotate-half pairing) and grouped-query heads, the first residual, RMSNorm,
SwiGLU, the second residual. The checker compares every intermediate with the engine's
:func:`tokenpath.decoder.decoder_layer` and names the first that differs.

The worked example is SmolLM2-135M-Instruct's layer 0 on chapter 4's prompt
(:data:`~tokenpath.examples.asides.REAL_ATTENTION_TEXT`), read from the GGUF file in
float32 (:func:`layer_inputs`); without the file that case is left out and the check
says how to fetch it. Two small random layers with the same structure follow
(:func:`random_layer_inputs`, float64, a large ε so that where ε goes shows).

>>> x, weights, config = random_layer_inputs(0)
>>> x.shape, weights["W_Q"].shape, weights["W_K"].shape, config["Hq"], config["Hkv"]
((5, 16), (16, 16), (16, 8), 4, 2)
>>> check = DECODER_LAYER.check(decoder_layer)
>>> check.passed
True
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from .. import gqa as _gqa
from .. import pretrained
from .._checks import as_int
from ..attention import causal_mask
from ..decoder import _layer_core, decoder_layer as _engine_layer
from ..examples import asides
from ..layer_weights import LayerWeights, random_layer
from ._running import Outcome
from .checker import Case, Exercise, Field, Mistake, tolerances

__all__ = ["DECODER_LAYER", "EXERCISES", "WEIGHT_NAMES", "layer_inputs", "random_layer_inputs"]

#: The layer's weight arrays: name → (shape in the book's notation, what it is).
WEIGHT_NAMES = {
    "attn_norm": ("[d]", "γ of the RMSNorm before attention"),
    "W_Q": ("[d, Hq·d_h]", "query projection"),
    "W_K": ("[d, Hkv·d_h]", "key projection"),
    "W_V": ("[d, Hkv·d_h]", "value projection (to U)"),
    "W_O": ("[Hq·d_h, d]", "output projection of the joined heads"),
    "ffn_norm": ("[d]", "γ of the RMSNorm before the FFN"),
    "W_g": ("[d, d_ff]", "SwiGLU's gate projection"),
    "W_u": ("[d, d_ff]", "SwiGLU's up (content) projection"),
    "W_d": ("[d_ff, d]", "SwiGLU's down projection"),
}

_STUB = '''\
def decoder_layer(x, weights, config):
    """One pre-norm decoder layer on one sequence, x [T, d] (row t = position t).

    weights: a dict of arrays  attn_norm [d] (γ), W_Q [d, Hq·d_h], W_K and W_V
      [d, Hkv·d_h], W_O [Hq·d_h, d], ffn_norm [d] (γ), W_g and W_u [d, d_ff], W_d [d_ff, d].
    config: a dict with "Hq", "Hkv", "d_h", "rope_base" and "eps" (ε).
    RoPE: rotate-half pairing, positions 0 … T−1, θ_i = base^(−2i/d_h).
    Query head h reads K/V head h // (Hq // Hkv); attention is causal.
    Returns a dict with
      "attn_in":  RMSNorm(x) with attn_norm                      [T, d]
      "q", "k", "u": the projections split into heads            [Hq or Hkv, T, d_h]
      "q_rot", "k_rot": q and k turned by RoPE                   [Hq or Hkv, T, d_h]
      "scores":   S = Q Kᵀ/√d_h per query head, before the mask   [Hq, T, T]
      "weights":  A = causal softmax of S over the keys j        [Hq, T, T]
      "heads":    O = A U per query head                         [Hq, T, d_h]
      "attn_out": the heads joined to [T, Hq·d_h], then @ W_O    [T, d]
      "y":        x + attn_out (first residual)                  [T, d]
      "ffn_in":   RMSNorm(y) with ffn_norm                       [T, d]
      "gate", "up": ffn_in @ W_g and ffn_in @ W_u                [T, d_ff]
      "hidden":   SiLU(gate) ⊙ up                                [T, d_ff]
      "ffn_out":  hidden @ W_d                                   [T, d]
      "out":      y + ffn_out (second residual)                  [T, d]
    """
    ...
'''

# ------------------------------------------------------------------ the inputs


def _as_inputs(w: LayerWeights, x: np.ndarray) -> tuple[np.ndarray, dict, dict]:
    """The engine's layer as the reader's ``(x, weights, config)``: plain C-ordered arrays."""
    arrays = {"attn_norm": w.attn_norm, "W_Q": w.w_q, "W_K": w.w_k, "W_V": w.w_v, "W_O": w.w_o,
              "ffn_norm": w.ffn_norm, "W_g": w.w_gate, "W_u": w.w_up, "W_d": w.w_down}
    weights = {name: np.ascontiguousarray(a) for name, a in arrays.items()}
    config = {"Hq": w.heads, "Hkv": w.kv_heads, "d_h": w.d_h, "rope_base": w.rope_base, "eps": w.eps}
    return np.ascontiguousarray(x), weights, config


@functools.cache
def _smollm2_inputs(text: str):
    from ..lessons import real_layers
    from ..lessons.real_vocab import smollm2_tokenizer

    ids = smollm2_tokenizer().encode(text)
    x = real_layers.embedding_table()[ids]  # [T, d] float32: the rows of E, layer 0's input
    x, weights, config = _as_inputs(real_layers.file_layer(0), x)
    for a in (x, *weights.values()):
        a.flags.writeable = False  # kept for every check: a reader's in-place edit cannot reach it
    return x, weights, config


def layer_inputs(text: str = asides.REAL_ATTENTION_TEXT) -> tuple[np.ndarray, dict, dict]:
    """SmolLM2-135M-Instruct's layer 0 and its input on ``text`` (default chapter 4's
    prompt), as ``(x, weights, config)``: ``x [T, d]`` float32, the rows of E for the
    text's token IDs; ``weights`` the nine arrays of :data:`WEIGHT_NAMES`, dequantized
    from the GGUF file (float32, ``y = x @ W`` layout, W_Q and W_K rows in Hugging Face's
    order); ``config`` the head counts, d_h, RoPE's base and ε from the file. Raises
    ``FileNotFoundError`` saying how to fetch the file when it is missing. Copies, so
    that the reader may change them freely.

    >>> x, weights, config = layer_inputs("The cat")
    >>> x.shape, weights["W_K"].shape, config["Hq"], config["Hkv"], config["d_h"]
    ((2, 576), (576, 192), 9, 3, 64)
    """
    if not isinstance(text, str) or not text:
        raise ValueError(f"text must be a non-empty str, got {text!r}")
    pretrained.smollm2_path()  # the file, or a FileNotFoundError saying how to fetch it
    x, weights, config = _smollm2_inputs(text)
    return x.copy(), {k: v.copy() for k, v in weights.items()}, dict(config)


def random_layer_inputs(seed: int, *, t: int = 5, hkv: int = 2) -> tuple[np.ndarray, dict, dict]:
    """A small random layer with SmolLM2's structure and a random input ``x [t, d]``, as
    ``(x, weights, config)`` in float64: d = 16, Hq = 4 query heads sharing ``hkv`` K/V
    heads (1, 2 or 4), d_ff = 24, and ε = 0.1, large enough that where ε goes shows.
    The checker's fast cases, which need no file.

    >>> x, w, c = random_layer_inputs(1, hkv=1)
    >>> x.shape, w["W_V"].shape, c["d_h"], c["eps"]
    ((5, 16), (16, 4), 4, 0.1)
    """
    seed = as_int("seed", seed, low=0)
    t = as_int("t", t, low=1, high=64)
    hkv = as_int("hkv", hkv, low=1, high=4)
    if 4 % hkv:
        raise ValueError(f"hkv must divide the 4 query heads (1, 2 or 4), got {hkv}")
    w = random_layer(16, 4, 24, seed=seed, kv_heads=hkv, eps=0.1, rope_base=100.0)
    x = np.random.default_rng(seed + 100).normal(size=(t, 16)) * 0.5 + 0.1
    return _as_inputs(w, x)


# ------------------------------------------------------------------ the engine's answer


def _layer_of(weights: dict, config: dict) -> LayerWeights:
    return LayerWeights(attn_norm=weights["attn_norm"], w_q=weights["W_Q"], w_k=weights["W_K"], w_v=weights["W_V"],
                        w_o=weights["W_O"], ffn_norm=weights["ffn_norm"], w_gate=weights["W_g"], w_up=weights["W_u"],
                        w_down=weights["W_d"], heads=config["Hq"], kv_heads=config["Hkv"],
                        rope_base=config["rope_base"], eps=config["eps"])


def _reference(x, weights, config):
    """The engine's trace of the layer, read into the exercise's fields (one sequence)."""
    t = _engine_layer(np.asarray(x)[None], _layer_of(weights, config))
    scores, _, _ = _gqa._grouped(t.q_rot, t.k_rot, t.v, causal_mask(x.shape[0]))  # S before the mask
    return {"attn_in": t.attn_in[0], "q": t.q[0], "k": t.k[0], "u": t.v[0], "q_rot": t.q_rot[0],
            "k_rot": t.k_rot[0], "scores": scores[0], "weights": t.weights[0], "heads": t.heads_out[0],
            "attn_out": t.attn_out[0], "y": t.y[0], "ffn_in": t.ffn_in[0], "gate": t.ffn_in[0] @ weights["W_g"],
            "up": t.ffn_in[0] @ weights["W_u"], "hidden": t.ffn_hidden[0], "ffn_out": t.ffn_out[0], "out": t.out[0]}


def _cases() -> tuple[Case, ...]:
    cases = []
    text = asides.REAL_ATTENTION_TEXT
    missing = ""
    try:
        pretrained.smollm2_path(fetch_missing=False)  # a check never downloads; the chapter's cell fetched it
        cases.append(Case(f"the worked example (SmolLM2-135M-Instruct's layer 0 on {text!r})", _smollm2_inputs(text)))
    except FileNotFoundError:
        missing = " (SmolLM2's layer 0 was skipped: its file is missing; run `make smollm2`)"
    cases.append(Case(f"random case 1 (seed 8): T = 5, d = 16, Hq = 4, Hkv = 2, ε = 0.1{missing}",
                      random_layer_inputs(8)))
    cases.append(Case("random case 2 (seed 9): T = 3, d = 16, Hq = 4, Hkv = 1, ε = 0.1",
                      random_layer_inputs(9, t=3, hkv=1)))
    return tuple(cases)


# ------------------------------------------------------------------ the teaching solution


def decoder_layer(x, weights, config):
    """The teaching solution: each line one step of the layer, in the book's notation."""
    W, Hq, Hkv, d_h, eps = weights, config["Hq"], config["Hkv"], config["d_h"], config["eps"]
    T, half = x.shape[0], d_h // 2

    def rms_norm(v, gamma):  # chapter 8: ε inside the root, no mean subtracted
        return gamma * v / np.sqrt(np.mean(v**2, axis=-1, keepdims=True) + eps)

    def split(m, n):  # [T, n·d_h] -> [n, T, d_h]
        return m.reshape(T, n, d_h).transpose(1, 0, 2)

    angle = np.arange(T)[:, None] * config["rope_base"] ** (-2 * np.arange(half) / d_h)  # [T, d_h/2]
    cos, sin = np.cos(angle).astype(x.dtype), np.sin(angle).astype(x.dtype)

    def rope(v):  # chapter 6, rotate-half: feature i turns with feature i + d_h/2
        a, b = v[..., :half], v[..., half:]
        return np.concatenate([a * cos - b * sin, a * sin + b * cos], axis=-1)

    attn_in = rms_norm(x, W["attn_norm"])
    q, k, u = split(attn_in @ W["W_Q"], Hq), split(attn_in @ W["W_K"], Hkv), split(attn_in @ W["W_V"], Hkv)
    q_rot, k_rot = rope(q), rope(k)  # never the values
    Q = q_rot.reshape(Hkv, Hq // Hkv, T, d_h)  # chapter 7: head h is in group h // (Hq/Hkv)
    S = Q @ k_rot[:, None].swapaxes(-1, -2) / d_h**0.5  # [Hkv, Hq/Hkv, T, T]
    S_masked = np.where(np.tril(np.ones((T, T), bool)), S, -np.inf)  # chapter 5: causal
    E = np.exp(S_masked - S_masked.max(axis=-1, keepdims=True))
    A = E / E.sum(axis=-1, keepdims=True)  # chapter 4: softmax over the keys j
    O = (A @ u[:, None]).reshape(Hq, T, d_h)
    attn_out = O.transpose(1, 0, 2).reshape(T, Hq * d_h) @ W["W_O"]
    y = x + attn_out  # first residual
    ffn_in = rms_norm(y, W["ffn_norm"])
    gate, up = ffn_in @ W["W_g"], ffn_in @ W["W_u"]
    hidden = gate / (1 + np.exp(-gate)) * up  # SiLU(gate) ⊙ up
    ffn_out = hidden @ W["W_d"]
    return {"attn_in": attn_in, "q": q, "k": k, "u": u, "q_rot": q_rot, "k_rot": k_rot,
            "scores": S.reshape(Hq, T, T), "weights": A.reshape(Hq, T, T), "heads": O, "attn_out": attn_out,
            "y": y, "ffn_in": ffn_in, "gate": gate, "up": up, "hidden": hidden, "ffn_out": ffn_out, "out": y + ffn_out}


# ------------------------------------------------------------------ the known mistakes


def _wrong(x, weights, config, *, pairing="half", rope_u=False, modulo=False, scale=True, axis=-1, eps=True,
           norm="square", residual="around", gate="gate", joined="moved", masked=True):
    """The layer with one known mistake of chapters 4–8 switched on (the catalogue's runs)."""
    W, Hq, Hkv, d_h = weights, config["Hq"], config["Hkv"], config["d_h"]
    T, half, g = x.shape[0], d_h // 2, Hq // Hkv
    e = config["eps"] if eps else 0.0

    def rms(v, gamma):
        if norm == "centred":
            v = v - v.mean(axis=-1, keepdims=True)
        m = np.mean(v if norm == "mean" else v**2, axis=-1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            return gamma * v / np.sqrt(m + e)

    def split(m, n):
        return m.reshape(T, n, d_h).transpose(1, 0, 2)

    angle = np.arange(T)[:, None] * config["rope_base"] ** (-2 * np.arange(half) / d_h)
    cos, sin = np.cos(angle).astype(x.dtype), np.sin(angle).astype(x.dtype)

    def rope(v):
        if pairing == "adjacent":
            out = np.empty_like(v)
            out[..., 0::2] = v[..., 0::2] * cos - v[..., 1::2] * sin
            out[..., 1::2] = v[..., 0::2] * sin + v[..., 1::2] * cos
            return out
        a, b = v[..., :half], v[..., half:]
        return np.concatenate([a * cos - b * sin, a * sin + b * cos], axis=-1)

    attn_in = rms(x, W["attn_norm"])
    q, k, u = split(attn_in @ W["W_Q"], Hq), split(attn_in @ W["W_K"], Hkv), split(attn_in @ W["W_V"], Hkv)
    q_rot, k_rot = rope(q), rope(k)
    kv_of = [h % Hkv if modulo else h // g for h in range(Hq)]
    S = np.stack([q_rot[h] @ k_rot[kv_of[h]].T for h in range(Hq)]) / (d_h**0.5 if scale else 1.0)
    visible = np.tril(np.ones((T, T), bool)) if masked else np.ones((T, T), bool)
    S_masked = np.where(visible, S, -np.inf)
    E = np.exp(S_masked - S_masked.max(axis=axis, keepdims=True))
    A = E / E.sum(axis=axis, keepdims=True)
    values = rope(u) if rope_u else u
    O = np.stack([A[h] @ values[kv_of[h]] for h in range(Hq)])
    merged = O.transpose(1, 0, 2).reshape(T, Hq * d_h) if joined == "moved" else O.reshape(T, Hq * d_h)
    attn_out = merged @ W["W_O"]
    y = (attn_in if residual == "normed" else x) + attn_out
    ffn_in = rms(y, W["ffn_norm"])
    a, c = ffn_in @ W["W_g"], ffn_in @ W["W_u"]
    hidden = a / (1 + np.exp(-a)) * c if gate == "gate" else c / (1 + np.exp(-c)) * a
    ffn_out = hidden @ W["W_d"]
    return {"attn_in": attn_in, "q": q, "k": k, "u": u, "q_rot": q_rot, "k_rot": k_rot, "scores": S, "weights": A,
            "heads": O, "attn_out": attn_out, "y": y, "ffn_in": ffn_in, "gate": a, "up": c, "hidden": hidden,
            "ffn_out": ffn_out, "out": (ffn_in if residual == "normed" else y) + ffn_out}


def _mistake(name: str, why: str, **wrong) -> Mistake:
    return Mistake(name, why, lambda x, weights, config: _wrong(x, weights, config, **wrong))


@dataclass(frozen=True)
class _LayerExercise(Exercise):
    """The capstone's exercise. Whether a reader's layer makes a known mistake is judged
    to float32 precision of each intermediate's largest entry, not of each entry: a
    float32 layer sums hundreds of products, so two ways of writing the same wrong layer
    differ by more than a few units of rounding of a small entry."""

    def _same(self, a: Outcome, b: Outcome) -> bool:
        if a.status != "returned" or b.status != "returned":
            return super()._same(a, b)
        try:
            fa, fb = self._fields_of(a.value), self._fields_of(b.value)
            for f in self.fields:
                x, y = np.asarray(fa[f.name]), np.asarray(fb[f.name])
                if x.shape != y.shape or x.dtype.kind != "f" or y.dtype.kind != "f":
                    return False
                rtol, atol = tolerances(x.dtype, y.dtype)
                finite = np.abs(y[np.isfinite(y)])
                scale = max(1.0, float(finite.max())) if finite.size else 1.0
                if not np.allclose(x, y, rtol=rtol, atol=atol * scale, equal_nan=True):
                    return False
        except Exception:
            return False
        return True


_AXES_TD = ("t", "feature")
_AXES_HEAD = ("head", "t", "feature")
_AXES_TT = ("head", "i", "j")

DECODER_LAYER = _LayerExercise(
    "decoder_layer", 8, "one decoder layer of a real model (capstone)", _STUB, _reference, (_engine_layer, _layer_core),
    (Field("attn_in", "RMSNorm(X) before attention", _AXES_TD), Field("q", "Q = RMSNorm(X) W_Q, split into heads", _AXES_HEAD),
     Field("k", "K = RMSNorm(X) W_K, split into heads", _AXES_HEAD),
     Field("u", "U = RMSNorm(X) W_V, split into heads", _AXES_HEAD), Field("q_rot", "Q after RoPE", _AXES_HEAD),
     Field("k_rot", "K after RoPE", _AXES_HEAD), Field("scores", "S = QKᵀ/√d_h", _AXES_TT),
     Field("weights", "A = causal softmax(S)", _AXES_TT, sums_to_one=True), Field("heads", "O = AU", _AXES_HEAD),
     Field("attn_out", "the joined heads @ W_O", _AXES_TD), Field("y", "Y = X + attention output", _AXES_TD),
     Field("ffn_in", "RMSNorm(Y) before the FFN", _AXES_TD), Field("gate", "a = RMSNorm(Y) W_g", ("t", "k")),
     Field("up", "c = RMSNorm(Y) W_u", ("t", "k")), Field("hidden", "SiLU(a) ⊙ c", ("t", "k")),
     Field("ffn_out", "(SiLU(a) ⊙ c) W_d", _AXES_TD), Field("out", "X' = Y + FFN output", _AXES_TD)),
    _cases,
    (_mistake("RoPE's interleaved pairing where rotate_half is used", "you turned feature 2i with feature 2i+1 "
              "(the interleaved pairing); Llama and SmolLM2 turn feature i with feature i + d_h/2 (rotate_half, "
              "chapter 6).", pairing="adjacent"),
     _mistake("RoPE applied to the values", "you turned U by RoPE as well; RoPE turns only the queries and the "
              "keys, whose dot product it makes depend on the distance (chapter 6). The values are read as they are.",
              rope_u=True),
     _mistake("query heads grouped by h % Hkv", "you gave query head h the K/V head h % Hkv, which interleaves "
              "the groups; query head h reads K/V head h // (Hq/Hkv) (chapter 7).", modulo=True),
     _mistake("no 1/√d_h", "your scores are QKᵀ without the division by √d_h (chapter 4).", scale=False),
     _mistake("softmax over the query axis", "your softmax normalised over the queries i (axis −2); each row "
              "of A sums over the keys j, the last axis (chapter 4).", axis=-2),
     _mistake("the causal mask left out", "every position read the positions after it too; a decoder hides "
              "the keys j > i before the softmax (chapter 5).", masked=False),
     _mistake("RMSNorm without ε", "you divided by √mean(x²) with no ε; the layer's RMS is √(mean(x²) + ε), "
              "with the ε that config gives (chapter 8).", eps=False),
     _mistake("the mean of x, not of x²", "your RMSNorm averaged x itself, so positive and negative features "
              "cancel; RMSNorm averages the squares, mean(x²) (chapter 8).", norm="mean"),
     _mistake("RMSNorm subtracting the mean", "you centred x first, which is LayerNorm's step; RMSNorm keeps "
              "the mean of x (chapter 8).", norm="centred"),
     _mistake("the residual added after the norm", "you added the sub-layer's output to the normalised input, "
              "RMSNorm(X) + Attn(RMSNorm(X)); the residual goes around the whole block, norm included: "
              "Y = X + Attn(RMSNorm(X)) (chapter 8).", residual="normed"),
     _mistake("heads joined without moving the head axis", "you reshaped O [Hq, T, d_h] straight to "
              "[T, Hq·d_h], which mixes positions; move the head axis next to d_h first "
              "(O.transpose(1, 0, 2)), so that row t holds every head's output at position t.", joined="flat"),
     _mistake("SiLU on the up branch", "you applied SiLU to the content c = x W_u and multiplied by a; "
              "the gate a = x W_g goes through SiLU and scales the content (chapter 8).", gate="up")),
    teaching=decoder_layer,
)

EXERCISES = (DECODER_LAYER,)
