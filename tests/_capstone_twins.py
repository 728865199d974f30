"""The wrong twins of the capstones of chapters 8 (one decoder layer) and 9 (a shared
expert), written the way a reader would write them (per-position loops, einsum, a loop
over the heads), not copied from the package's catalogue; tests/test_exercises.py lists
them in TWINS with the mistake each must be named by."""

from __future__ import annotations

import math

import numpy as np

from _exercise_twins import _softmax_rows


# ------------------------------------------------------------------- chapter 8's capstone: one layer

def _layer_twin(x, weights, config, *, rope="half", rope_values=False, head_of=None, scale="sqrt", softmax_axis=-1,
                eps=True, mean_of="square", residual_from=("x", "y"), silu_on="gate", join="transpose", causal="before",
                post_norm=False, one_plus_gamma=False, swap_gate_up=False, split="slices", return_masked=False,
                scores_from_rotated=True, start=0):
    """A reader's layer: per-position RMSNorm, einsum projections, a loop over the heads."""
    Hq, Hkv, d_h = config["Hq"], config["Hkv"], config["d_h"]
    T = len(x)
    e = config["eps"] if eps else 0.0

    def norm(v, g):
        rows = []
        for row in v:
            if mean_of == "centred":
                row = row - row.mean()
            ms = row.mean() if mean_of == "x" else (row * row).sum() / len(row)
            with np.errstate(invalid="ignore"):
                rows.append(row / math.sqrt(ms + e) if ms + e >= 0 else row * np.nan)
        return np.array(rows) * (1.0 + g if one_plus_gamma else g)

    def heads(m, n):
        if split == "reshape":  # [T, n·d_h] read straight as [n, T, d_h]
            return m.reshape(n, T, d_h)
        return np.stack([m[:, h * d_h:(h + 1) * d_h] for h in range(n)])

    inv = np.array([config["rope_base"] ** (-2 * i / d_h) for i in range(d_h // 2)])
    ang = np.outer(np.arange(start, start + T), inv)

    def turn(v):
        c, s = np.cos(ang).astype(v.dtype), np.sin(ang).astype(v.dtype)
        if rope == "adjacent":
            out = v.copy()
            for i in range(d_h // 2):
                a, b = v[..., 2 * i].copy(), v[..., 2 * i + 1].copy()
                out[..., 2 * i], out[..., 2 * i + 1] = a * c[:, i] - b * s[:, i], a * s[:, i] + b * c[:, i]
            return out
        x1, x2 = v[..., : d_h // 2], v[..., d_h // 2:]
        return v * np.concatenate([c, c], axis=1) + np.concatenate([-x2, x1], axis=-1) * np.concatenate([s, s], axis=1)

    h1 = x.copy() if post_norm else norm(x, weights["attn_norm"])
    q = heads(np.einsum("td,de->te", h1, weights["W_Q"]), Hq)
    k = heads(np.einsum("td,de->te", h1, weights["W_K"]), Hkv)
    u = heads(np.einsum("td,de->te", h1, weights["W_V"]), Hkv)
    qr, kr = turn(q), turn(k)
    pick = head_of or (lambda h: h // (Hq // Hkv))
    qs, ks = (qr, kr) if scores_from_rotated else (q, k)
    s = np.stack([qs[h] @ ks[pick(h)].T for h in range(Hq)])
    s = s / {"sqrt": math.sqrt(d_h), "none": 1.0, "width": d_h}[scale]
    keep = np.tril(np.ones((T, T))) > 0 if causal != "none" else np.ones((T, T)) > 0
    if causal == "zero":
        s_in = s * keep  # the hidden scores set to 0
    elif causal == "after":
        s_in = s
    else:
        s_in = np.where(keep, s, -np.inf)
    if return_masked:
        s = s_in  # the reader overwrote S with its masked copy
    a = _softmax_rows(s_in) if softmax_axis == -1 else np.swapaxes(_softmax_rows(np.swapaxes(s_in, 1, 2)), 1, 2)
    if causal == "after":
        a = a * keep
    vals = turn(u) if rope_values else u
    o = np.stack([a[h] @ vals[pick(h)] for h in range(Hq)])
    joined = o.reshape(T, -1) if join == "flat" or split == "reshape" else np.concatenate(list(o), axis=1)
    attn = joined @ weights["W_O"]
    y = {"x": x, "normed": h1, "none": 0}[residual_from[0]] + attn
    if post_norm:
        y = norm(y, weights["attn_norm"])
    h2 = y.copy() if post_norm else norm(y, weights["ffn_norm"])
    gate, up = (h2 @ weights["W_u"], h2 @ weights["W_g"]) if swap_gate_up else (h2 @ weights["W_g"], h2 @ weights["W_u"])
    silu = (lambda z: z / (1 + np.exp(np.minimum(-z, 700))))  # no overflow for a very negative z
    hid = silu(gate) * up if silu_on == "gate" else gate * silu(up)
    f = hid @ weights["W_d"]
    out = {"y": y, "normed": h2, "none": 0}[residual_from[1]] + f
    if post_norm:
        out = norm(out, weights["ffn_norm"])
    return {"attn_in": h1, "q": q, "k": k, "u": u, "q_rot": qr, "k_rot": kr, "scores": s, "weights": a, "heads": o,
            "attn_out": attn, "y": y, "ffn_in": h2, "gate": gate, "up": up, "hidden": hid, "ffn_out": f, "out": out}


def layer_right(x, weights, config):
    return _layer_twin(x, weights, config)


def layer_interleaved(x, weights, config):
    return _layer_twin(x, weights, config, rope="adjacent")


def layer_rope_values(x, weights, config):
    return _layer_twin(x, weights, config, rope_values=True)


def layer_modulo(x, weights, config):
    return _layer_twin(x, weights, config, head_of=lambda h: h % config["Hkv"])


def layer_unscaled(x, weights, config):
    return _layer_twin(x, weights, config, scale="none")


def layer_over_width(x, weights, config):
    return _layer_twin(x, weights, config, scale="width")


def layer_query_axis(x, weights, config):
    return _layer_twin(x, weights, config, softmax_axis=-2)


def layer_unmasked(x, weights, config):
    return _layer_twin(x, weights, config, causal="none")


def layer_hidden_zero(x, weights, config):
    return _layer_twin(x, weights, config, causal="zero")


def layer_mask_late(x, weights, config):
    return _layer_twin(x, weights, config, causal="after")


def layer_masked_scores(x, weights, config):
    return _layer_twin(x, weights, config, return_masked=True)


def layer_scores_unrotated(x, weights, config):
    return _layer_twin(x, weights, config, scores_from_rotated=False)


def layer_positions_from_one(x, weights, config):
    return _layer_twin(x, weights, config, start=1)


def layer_no_eps(x, weights, config):
    return _layer_twin(x, weights, config, eps=False)


def layer_mean_not_squared(x, weights, config):
    return _layer_twin(x, weights, config, mean_of="x")


def layer_centred(x, weights, config):
    return _layer_twin(x, weights, config, mean_of="centred")


def layer_one_plus_gamma(x, weights, config):
    return _layer_twin(x, weights, config, one_plus_gamma=True)


def layer_residual_normed(x, weights, config):
    return _layer_twin(x, weights, config, residual_from=("normed", "normed"))


def layer_first_residual_normed(x, weights, config):
    return _layer_twin(x, weights, config, residual_from=("normed", "y"))


def layer_second_residual_normed(x, weights, config):
    return _layer_twin(x, weights, config, residual_from=("x", "normed"))


def layer_first_residual_left_out(x, weights, config):
    return _layer_twin(x, weights, config, residual_from=("none", "y"))


def layer_second_residual_left_out(x, weights, config):
    return _layer_twin(x, weights, config, residual_from=("x", "none"))


def layer_post_norm(x, weights, config):
    return _layer_twin(x, weights, config, post_norm=True)


def layer_split_flat(x, weights, config):
    return _layer_twin(x, weights, config, split="reshape")


def layer_flat_join(x, weights, config):
    return _layer_twin(x, weights, config, join="flat")


def layer_silu_on_up(x, weights, config):
    return _layer_twin(x, weights, config, silu_on="up")


def layer_gate_up_swapped(x, weights, config):
    return _layer_twin(x, weights, config, swap_gate_up=True)


# ------------------------------------------------------- chapter 9's capstone


def _ffn_loop(x, w, swapped=False):
    w_gate, w_up, w_down = (w[1], w[0], w[2]) if swapped else w
    hidden = []
    for j in range(w_gate.shape[1]):
        g = float(x @ w_gate[:, j])
        hidden.append(g / (1.0 + math.exp(-g)) * float(x @ w_up[:, j]))
    return np.array(hidden) @ w_down


def _shared_moe(x, w_router, experts, k, shared, w_sg, norm, *, renorm=None, gate="sigmoid", where="output",
                ties="low", swapped=False, order="score"):
    scores = [float(x @ w_router[:, i]) for i in range(w_router.shape[1])]
    top = max(scores)
    e = [math.exp(a - top) for a in scores]
    probs = np.array([v / sum(e) for v in e])
    if ties == "low":
        chosen = sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:k]
    else:  # an ascending sort, reversed: among equal scores the higher ID comes first
        chosen = sorted(range(len(scores)), key=lambda i: (scores[i], i))[::-1][:k]
    if order == "id":
        chosen = sorted(chosen)
    renorm = norm if renorm is None else renorm
    total = sum(probs[i] for i in chosen) if renorm else 1.0
    gates = np.array([probs[i] / total for i in chosen])
    routed = np.zeros(len(x))
    for g, i in zip(gates, chosen):
        routed = routed + g * _ffn_loop(x, experts[i], swapped)
    logit = float(x @ w_sg)
    if gate == "softmax":
        s = math.exp(logit - logit) / math.exp(logit - logit)
    elif gate == "router":
        s = math.exp(logit - max(top, logit)) / (sum(math.exp(a - max(top, logit)) for a in scores)
                                                  + math.exp(logit - max(top, logit)))
    elif gate == "logit":
        s = logit
    else:
        s = 1.0 / (1.0 + math.exp(-logit))
    h = _ffn_loop(s * x if where == "input" else x, shared, swapped)
    out = {"probs": probs, "chosen": np.array(chosen), "gates": gates, "routed": routed, "shared_gate": s,
           "shared_output": h}
    if where == "sum":
        return {**out, "output": s * (routed + h)}
    if where in ("none", "input"):
        return {**out, "output": routed + h}
    if where == "residual":
        return {**out, "output": x + routed + s * h}
    return {**out, "output": routed + s * h}


def shared_softmax_gate(x, w_router, experts, k, shared, w_sg, norm):
    return _shared_moe(x, w_router, experts, k, shared, w_sg, norm, gate="softmax")


def shared_router_gate(x, w_router, experts, k, shared, w_sg, norm):
    return _shared_moe(x, w_router, experts, k, shared, w_sg, norm, gate="router")


def shared_logit_gate(x, w_router, experts, k, shared, w_sg, norm):
    return _shared_moe(x, w_router, experts, k, shared, w_sg, norm, gate="logit")


def shared_never_renormalised(x, w_router, experts, k, shared, w_sg, norm):
    return _shared_moe(x, w_router, experts, k, shared, w_sg, norm, renorm=False)


def shared_always_renormalised(x, w_router, experts, k, shared, w_sg, norm):
    return _shared_moe(x, w_router, experts, k, shared, w_sg, norm, renorm=True)


def shared_high_ties(x, w_router, experts, k, shared, w_sg, norm):
    return _shared_moe(x, w_router, experts, k, shared, w_sg, norm, ties="high")


def shared_weights_swapped(x, w_router, experts, k, shared, w_sg, norm):
    return _shared_moe(x, w_router, experts, k, shared, w_sg, norm, swapped=True)


def shared_gate_on_sum(x, w_router, experts, k, shared, w_sg, norm):
    return _shared_moe(x, w_router, experts, k, shared, w_sg, norm, where="sum")


def shared_gate_left_out(x, w_router, experts, k, shared, w_sg, norm):
    return _shared_moe(x, w_router, experts, k, shared, w_sg, norm, where="none")


def shared_gate_on_input(x, w_router, experts, k, shared, w_sg, norm):
    return _shared_moe(x, w_router, experts, k, shared, w_sg, norm, where="input")


def shared_residual_inside(x, w_router, experts, k, shared, w_sg, norm):
    return _shared_moe(x, w_router, experts, k, shared, w_sg, norm, where="residual")


def shared_chosen_sorted(x, w_router, experts, k, shared, w_sg, norm):
    """The top k listed by ID (np.sort(chosen)): no catalogued mistake, caught on the worked example."""
    return _shared_moe(x, w_router, experts, k, shared, w_sg, norm, order="id")


def shared_right_in_loops(x, w_router, experts, k, shared, w_sg, norm):
    return _shared_moe(x, w_router, experts, k, shared, w_sg, norm)
