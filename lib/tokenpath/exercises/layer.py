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
from ..i18n import N_, _
from ..layer_weights import LayerWeights, random_layer
from ._running import Outcome
from .checker import Case, Exercise, Field, Mistake
from .compare import tolerances

__all__ = ["DECODER_LAYER", "EXERCISES", "WEIGHT_NAMES", "layer_inputs", "random_layer_inputs"]

#: The layer's weight arrays: name → (shape in the book's notation, what it is).
WEIGHT_NAMES = {
    "attn_norm": ("[d]", N_("γ of the RMSNorm before attention")),
    "W_Q": ("[d, Hq·d_h]", N_("query projection")),
    "W_K": ("[d, Hkv·d_h]", N_("key projection")),
    "W_V": ("[d, Hkv·d_h]", N_("value projection (to U)")),
    "W_O": ("[Hq·d_h, d]", N_("output projection of the joined heads")),
    "ffn_norm": ("[d]", N_("γ of the RMSNorm before the FFN")),
    "W_g": ("[d, d_ff]", N_("SwiGLU's gate projection")),
    "W_u": ("[d, d_ff]", N_("SwiGLU's up (content) projection")),
    "W_d": ("[d_ff, d]", N_("SwiGLU's down projection")),
}

_STUB = '''\
def decoder_layer(x, params, config):
    """One pre-norm decoder layer on one sequence, x [T, d] (row t = position t).

    params: a dict of arrays  attn_norm [d] (γ), W_Q [d, Hq·d_h], W_K and W_V
      [d, Hkv·d_h], W_O [Hq·d_h, d], ffn_norm [d] (γ), W_g and W_u [d, d_ff], W_d [d_ff, d].
    config: a dict with "Hq", "Hkv", "d_h", "rope_base" and "eps" (ε).
    RoPE: rotate-half pairing, positions 0 … T−1, θ_i = base^(−2i/d_h).
    Query head h reads K/V head h // (Hq // Hkv); attention is causal.
    Returns a dict with
      "attn_in":  RMSNorm(x) with attn_norm                      [T, d]
      "q", "k", "u": the projections split into heads            [Hq or Hkv, T, d_h]
      "q_rot", "k_rot": q and k turned by RoPE                   [Hq or Hkv, T, d_h]
      "scores":   S = q_rot k_rotᵀ/√d_h per query head,
                  before the mask (no −∞ in it)                  [Hq, T, T]
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
        cases.append(Case(_("the worked example (SmolLM2-135M-Instruct's layer 0 on {text})").format(text=repr(text)),
                          _smollm2_inputs(text)))
    except FileNotFoundError:
        missing = _(" (SmolLM2's layer 0 was skipped: its file is missing; run `make smollm2`)")
    cases.append(Case(_("random case 1 (seed 8): T = 5, d = 16, Hq = 4, Hkv = 2, ε = 0.1") + missing,
                      random_layer_inputs(8)))
    cases.append(Case(_("random case 2 (seed 9): T = 3, d = 16, Hq = 4, Hkv = 1, ε = 0.1"),
                      random_layer_inputs(9, t=3, hkv=1)))
    return tuple(cases)


# ------------------------------------------------------------------ the teaching solution


def decoder_layer(x, params, config):
    """The teaching solution: each line one step of the layer, in the book's notation."""
    W, Hq, Hkv, d_h, eps = params, config["Hq"], config["Hkv"], config["d_h"], config["eps"]
    T, half = x.shape[0], d_h // 2

    def rms_norm(v, gamma):  # chapter 8: ε inside the root, no mean subtracted
        return gamma * v / np.sqrt(np.mean(v**2, axis=-1, keepdims=True) + eps)

    def split(m, n):  # [T, n·d_h] -> [T, n, d_h] -> [n, T, d_h], as split_heads does
        return m.reshape(T, n, d_h).transpose(1, 0, 2)

    angle = np.arange(T)[:, None] * config["rope_base"] ** (-2 * np.arange(half) / d_h)  # [T, d_h/2]
    cos, sin = np.cos(angle), np.sin(angle)

    def rope(v):  # chapter 6, rotate-half: feature i turns with feature i + d_h/2
        a, b = v[..., :half], v[..., half:]
        return np.concatenate([a * cos - b * sin, a * sin + b * cos], axis=-1)

    attn_in = rms_norm(x, W["attn_norm"])
    q, k, u = split(attn_in @ W["W_Q"], Hq), split(attn_in @ W["W_K"], Hkv), split(attn_in @ W["W_V"], Hkv)
    q_rot, k_rot = rope(q), rope(k)  # never the values
    Qg = q_rot.reshape(Hkv, Hq // Hkv, T, d_h)  # [Hkv, Hq/Hkv, T, d_h]: each group's query heads share K/V head j
    Kt = k_rot[:, None].swapaxes(-1, -2)  # [Hkv, 1, d_h, T]: broadcast over the group's heads
    S = Qg @ Kt / d_h**0.5  # [Hkv, Hq/Hkv, T, T]
    S_masked = np.where(np.tril(np.ones((T, T), bool)), S, -np.inf)  # chapter 5: a masked copy; S stays
    expS = np.exp(S_masked - S_masked.max(axis=-1, keepdims=True))
    A = expS / expS.sum(axis=-1, keepdims=True)  # chapter 4: softmax over the keys j
    O = (A @ u[:, None]).reshape(Hq, T, d_h)  # u[:, None]: [Hkv, 1, T, d_h]
    attn_out = O.transpose(1, 0, 2).reshape(T, Hq * d_h) @ W["W_O"]  # join: [T, Hq, d_h] -> [T, Hq·d_h]
    y = x + attn_out  # first residual
    ffn_in = rms_norm(y, W["ffn_norm"])
    gate, up = ffn_in @ W["W_g"], ffn_in @ W["W_u"]
    hidden = gate / (1 + np.exp(-gate)) * up  # SiLU(gate) ⊙ up
    ffn_out = hidden @ W["W_d"]
    return {"attn_in": attn_in, "q": q, "k": k, "u": u, "q_rot": q_rot, "k_rot": k_rot,
            "scores": S.reshape(Hq, T, T), "weights": A.reshape(Hq, T, T), "heads": O, "attn_out": attn_out,
            "y": y, "ffn_in": ffn_in, "gate": gate, "up": up, "hidden": hidden, "ffn_out": ffn_out, "out": y + ffn_out}


# ------------------------------------------------------------------ the known mistakes


def _wrong(x, weights, config, *, pairing="half", rope_u=False, modulo=False, scale="sqrt", axis=-1, eps=True,
           norm="square", gamma="w", residual=("x", "y"), order="pre", gate="gate", swap_gu=False, split="moved",
           joined="moved", mask="before", scores_of="rot", scores_out="raw", first_position=0):
    """The layer with one known mistake of chapters 4–8 switched on (the catalogue's runs)."""
    W, Hq, Hkv, d_h = weights, config["Hq"], config["Hkv"], config["d_h"]
    T, half, g = x.shape[0], d_h // 2, Hq // Hkv
    e = config["eps"] if eps else 0.0

    def rms(v, w):
        if norm == "centred":
            v = v - v.mean(axis=-1, keepdims=True)
        m = np.mean(v if norm == "mean" else v**2, axis=-1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (1 + w if gamma == "1+w" else w) * v / np.sqrt(m + e)

    def split_(m, n):
        return m.reshape(n, T, d_h) if split == "flat" else m.reshape(T, n, d_h).transpose(1, 0, 2)

    angle = (np.arange(T)[:, None] + first_position) * config["rope_base"] ** (-2 * np.arange(half) / d_h)
    cos, sin = np.cos(angle).astype(x.dtype), np.sin(angle).astype(x.dtype)

    def rope(v):
        if pairing == "adjacent":
            out = np.empty_like(v)
            out[..., 0::2] = v[..., 0::2] * cos - v[..., 1::2] * sin
            out[..., 1::2] = v[..., 0::2] * sin + v[..., 1::2] * cos
            return out
        a, b = v[..., :half], v[..., half:]
        return np.concatenate([a * cos - b * sin, a * sin + b * cos], axis=-1)

    attn_in = x if order == "post" else rms(x, W["attn_norm"])
    q, k, u = split_(attn_in @ W["W_Q"], Hq), split_(attn_in @ W["W_K"], Hkv), split_(attn_in @ W["W_V"], Hkv)
    q_rot, k_rot = rope(q), rope(k)
    kv_of = [h % Hkv if modulo else h // g for h in range(Hq)]
    qs, ks = (q_rot, k_rot) if scores_of == "rot" else (q, k)
    S = np.stack([qs[h] @ ks[kv_of[h]].T for h in range(Hq)]) / {"sqrt": d_h**0.5, "none": 1.0, "d_h": d_h}[scale]
    visible = np.tril(np.ones((T, T), bool)) if mask != "none" else np.ones((T, T), bool)
    if mask == "zero":
        S_masked = np.where(visible, S, 0.0)
    else:
        S_masked = S if mask == "after" else np.where(visible, S, -np.inf)
    E = np.exp(S_masked - S_masked.max(axis=axis, keepdims=True))
    A = E / E.sum(axis=axis, keepdims=True)
    if mask == "after":
        A = np.where(visible, A, 0.0)
    values = rope(u) if rope_u else u
    O = np.stack([A[h] @ values[kv_of[h]] for h in range(Hq)])
    flat = joined == "flat" or split == "flat"
    merged = O.reshape(T, Hq * d_h) if flat else O.transpose(1, 0, 2).reshape(T, Hq * d_h)
    attn_out = merged @ W["W_O"]
    first = {"x": x, "normed": attn_in, "none": 0.0}[residual[0]]
    y = first + attn_out
    if order == "post":
        y = rms(y, W["attn_norm"])
    ffn_in = y if order == "post" else rms(y, W["ffn_norm"])
    a, c = (ffn_in @ W["W_u"], ffn_in @ W["W_g"]) if swap_gu else (ffn_in @ W["W_g"], ffn_in @ W["W_u"])
    with np.errstate(over="ignore"):  # e^(−a) overflows to ∞ for a very negative a: SiLU is then 0
        hidden = a / (1 + np.exp(-a)) * c if gate == "gate" else c / (1 + np.exp(-c)) * a
    ffn_out = hidden @ W["W_d"]
    out = {"y": y, "normed": ffn_in, "none": 0.0}[residual[1]] + ffn_out
    if order == "post":
        out = rms(out, W["ffn_norm"])
    return {"attn_in": attn_in, "q": q, "k": k, "u": u, "q_rot": q_rot, "k_rot": k_rot,
            "scores": S_masked if scores_out == "masked" else S, "weights": A, "heads": O, "attn_out": attn_out,
            "y": y, "ffn_in": ffn_in, "gate": a, "up": c, "hidden": hidden, "ffn_out": ffn_out, "out": out}


def _mistake(name: str, why: str, **wrong) -> Mistake:
    return Mistake(name, why, lambda x, weights, config: _wrong(x, weights, config, **wrong))


@dataclass(frozen=True)
class _LayerExercise(Exercise):
    """The capstone's exercise. Whether a reader's layer makes a known mistake is judged
    relative to each intermediate's largest entry, not entry by entry: a float32 layer
    sums hundreds of products, so two ways of writing the same wrong layer differ by more
    than a few units of rounding of a small entry. On the float32 case the bound is
    1e-3 of that entry: a wrong layer's scores can reach a thousand, and the softmax
    turns their rounding into differences far above float32's. The float64 random cases,
    judged to float64 precision, keep the mistakes apart."""

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
                if np.float32 in (x.dtype, y.dtype):
                    rtol, atol = 1e-3, 1e-3
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
_AXES_FF = ("t", "ffn feature")

DECODER_LAYER = _LayerExercise(
    "decoder_layer", 8, N_("one decoder layer of a real model (capstone)"), _STUB, _reference, (_engine_layer, _layer_core),
    (Field("attn_in", N_("RMSNorm(X) before attention"), _AXES_TD), Field("q", N_("Q = RMSNorm(X) W_Q, split into heads"), _AXES_HEAD),
     Field("k", N_("K = RMSNorm(X) W_K, split into heads"), _AXES_HEAD),
     Field("u", N_("U = RMSNorm(X) W_V, split into heads"), _AXES_HEAD), Field("q_rot", N_("Q after RoPE"), _AXES_HEAD),
     Field("k_rot", N_("K after RoPE"), _AXES_HEAD), Field("scores", "S = q_rot k_rotᵀ/√d_h", _AXES_TT),
     Field("weights", N_("A = causal softmax(S)"), _AXES_TT, sums_to_one=True), Field("heads", "O = AU", _AXES_HEAD),
     Field("attn_out", N_("the joined heads @ W_O"), _AXES_TD), Field("y", N_("Y = X + attention output"), _AXES_TD),
     Field("ffn_in", N_("RMSNorm(Y) before the FFN"), _AXES_TD), Field("gate", "a = RMSNorm(Y) W_g", _AXES_FF),
     Field("up", "c = RMSNorm(Y) W_u", _AXES_FF), Field("hidden", "SiLU(a) ⊙ c", _AXES_FF),
     Field("ffn_out", "(SiLU(a) ⊙ c) W_d", _AXES_TD), Field("out", N_("X' = Y + FFN output"), _AXES_TD)),
    _cases,
    (_mistake(N_("RoPE's interleaved pairing where rotate_half is used"), N_("you turned feature 2i with feature 2i+1 "
              "(the interleaved pairing); Llama and SmolLM2 turn feature i with feature i + d_h/2 (rotate_half, "
              "chapter 6)."), pairing="adjacent"),
     _mistake(N_("RoPE applied to the values"), N_("you turned U by RoPE as well; RoPE turns only the queries and the "
              "keys, whose dot product it makes depend on the distance (chapter 6). The values are read as they are."),
              rope_u=True),
     _mistake(N_("query heads grouped by h % Hkv"), N_("you gave query head h the K/V head h % Hkv, which interleaves "
              "the groups; query head h reads K/V head h // (Hq/Hkv) (chapter 7)."), modulo=True),
     _mistake(N_("no 1/√d_h"), N_("your scores are QKᵀ without the division by √d_h (chapter 4)."), scale="none"),
     _mistake(N_("softmax over the query axis"), N_("your softmax normalised over the queries i (axis −2); each row "
              "of A sums over the keys j, the last axis (chapter 4)."), axis=-2),
     _mistake(N_("the causal mask left out"), N_("every position read the positions after it too; a decoder hides "
              "the keys j > i before the softmax (chapter 5)."), mask="none"),
     _mistake(N_("RMSNorm without ε"), N_("you divided by √mean(x²) with no ε; the layer's RMS is √(mean(x²) + ε), "
              "with the ε that config gives (chapter 8)."), eps=False),
     _mistake(N_("the mean of x, not of x²"), N_("your RMSNorm averaged x itself, so positive and negative features "
              "cancel; RMSNorm averages the squares, mean(x²) (chapter 8)."), norm="mean"),
     _mistake(N_("RMSNorm subtracting the mean"), N_("you centred x first, which is LayerNorm's step; RMSNorm keeps "
              "the mean of x (chapter 8)."), norm="centred"),
     _mistake(N_("the residual taken from the normed input"), N_("you added the sub-layer's output to its normalised "
              "input, Y = RMSNorm(X) + Attn(RMSNorm(X)), instead of Y = X + Attn(RMSNorm(X)); the residual goes "
              "around the whole block, norm included, in both adds (chapter 8)."), residual=("normed", "normed")),
     _mistake(N_("the first residual taken from the normed input"), N_("your first add is Y = RMSNorm(X) + "
              "Attn(RMSNorm(X)); it is Y = X + Attn(RMSNorm(X)), as your second add does (chapter 8)."),
              residual=("normed", "y")),
     _mistake(N_("the second residual taken from the normed input"), N_("your second add is RMSNorm(Y) + "
              "FFN(RMSNorm(Y)); it is X' = Y + FFN(RMSNorm(Y)), as your first add does (chapter 8)."),
              residual=("x", "normed")),
     _mistake(N_("the first residual left out"), N_("your y is the attention output alone; the first residual adds "
              "the layer's input, Y = X + Attn(RMSNorm(X)) (chapter 8)."), residual=("none", "y")),
     _mistake(N_("the second residual left out"), N_("your out is the FFN output alone; the second residual adds Y, "
              "X' = Y + FFN(RMSNorm(Y)) (chapter 8)."), residual=("x", "none")),
     _mistake(N_("post-norm"), N_("you normalised after each add, Y = RMSNorm(X + Attn(X)), as the first "
              "transformer did; SmolLM2, like Llama, normalises each sub-layer's input and adds around it: "
              "Y = X + Attn(RMSNorm(X)) (chapter 8)."), order="post"),
     _mistake(N_("γ = 1 + w"), N_("you scaled by 1 + w, Gemma's convention; Llama and SmolLM2 multiply by the stored "
              "weight itself, γ = w (chapter 8)."), gamma="1+w"),
     _mistake(N_("W_g and W_u swapped"), N_("your gate is RMSNorm(Y) W_u and your up is RMSNorm(Y) W_g; "
              "the gate a = x W_g goes through SiLU, the content c = x W_u is scaled by it (chapter 8)."),
              swap_gu=True),
     _mistake(N_("heads split without moving the axis"), N_("you reshaped [T, H·d_h] straight to [H, T, d_h], "
              "which mixes positions and heads; reshape to [T, H, d_h], then move the head axis first "
              "(transpose(1, 0, 2)), as split_heads does in chapter 4."), split="flat"),
     _mistake(N_("scores returned after the mask"), N_("your scores hold −∞ above the diagonal; S is the scores "
              "before the mask. Keep S, and mask a copy for the softmax (chapter 5)."), scores_out="masked"),
     _mistake(N_("scores from q and k, not q_rot and k_rot"), N_("you computed S from the projections before RoPE, "
              "so your attention ignores the positions; the scores use the turned q_rot and k_rot (chapter 6)."),
              scores_of="plain"),
     _mistake(N_("divided by d_h, not √d_h"), N_("your scores are QKᵀ/d_h; the scale is 1/√d_h (chapter 4)."),
              scale="d_h"),
     _mistake(N_("hidden scores set to 0"), N_("you set the hidden scores to 0, and e⁰ = 1 is not nothing: the "
              "softmax still gives the hidden keys weight. Set them to −∞ (chapter 5)."), mask="zero"),
     _mistake(N_("the mask applied after the softmax"), N_("you zeroed the hidden weights after the softmax, so "
              "each row no longer sums to 1; mask the scores before the softmax (chapter 5)."), mask="after"),
     _mistake(N_("positions counted from 1"), N_("your RoPE turns the first token by θ already; positions count "
              "from 0, so position 0 is not turned (chapter 6)."), first_position=1),
     _mistake(N_("heads joined without moving the head axis"), N_("you reshaped O [Hq, T, d_h] straight to "
              "[T, Hq·d_h], which mixes positions; move the head axis next to d_h first "
              "(O.transpose(1, 0, 2)), so that row t holds every head's output at position t."), joined="flat"),
     _mistake(N_("SiLU on the up branch"), N_("you applied SiLU to the content c = x W_u and multiplied by a; "
              "the gate a = x W_g goes through SiLU and scales the content (chapter 8)."), gate="up")),
    teaching=decoder_layer,
)

EXERCISES = (DECODER_LAYER,)
