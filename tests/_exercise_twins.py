"""The wrong twins of the exercises of chapters 2, 3 and 6-9 (the capstones of chapters 8
and 9 are in tests/_capstone_twins.py), written the way a reader would write them (loops,
other numpy calls), not copied from the package's catalogue; tests/test_exercises.py
lists them in TWINS with the mistake each must be named by."""

from __future__ import annotations

import codecs
import math
import unicodedata

import numpy as np

from tokenpath.attention import attention


def _softmax_rows(s):
    with np.errstate(invalid="ignore"):  # a row with nothing visible is NaN (the callers that can make one zero it)
        e = np.exp(s - np.max(s, axis=-1, keepdims=True))
        return e / np.sum(e, axis=-1, keepdims=True)


# ------------------------------------------------------------------- chapter 2

def decode_each_strictly(tokenizer, ids):
    out = ""
    for i in ids:
        out += bytes(tokenizer.token_bytes(i)).decode()  # UTF-8, strict by default
    return out


def decode_each(tokenizer, ids):
    return "".join(tokenizer.token_bytes(i).decode(errors="replace") for i in ids)


def decode_ignoring(tokenizer, ids):
    data = bytearray()
    for i in ids:
        data += tokenizer.token_bytes(i)
    return bytes(data).decode("utf-8", "ignore")


def decode_streaming(tokenizer, ids):
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    text = ""
    for i in ids:
        text += decoder.decode(tokenizer.token_bytes(i))  # holds back an unfinished character
    return text  # ... but never calls decoder.decode(b"", final=True)


def decode_nfc(tokenizer, ids):
    data = b"".join(tokenizer.token_bytes(i) for i in ids)
    return unicodedata.normalize("NFC", data.decode("utf-8", errors="replace"))


def decode_nfkc(tokenizer, ids):
    return unicodedata.normalize("NFKC", b"".join(map(tokenizer.token_bytes, ids)).decode(errors="replace"))


def decode_with_the_tokenizer(tokenizer, ids):
    return tokenizer.decode(ids)  # the tokenizer's own decode, strict by default


def decode_ids_as_bytes(tokenizer, ids):
    return bytes(ids).decode("utf-8", errors="replace")


def decode_latin(tokenizer, ids):
    return "".join(chr(b) for i in ids for b in tokenizer.token_bytes(i))


def decode_strict(tokenizer, ids):
    return b"".join(map(tokenizer.token_bytes, ids)).decode()


def decode_sig(tokenizer, ids):
    data = b"".join(tokenizer.token_bytes(i) for i in ids)
    return data.decode("utf-8-sig", errors="replace")


# ------------------------------------------------------------------- chapter 3

def embed_from_one(table, ids):
    return np.take(table, np.asarray(ids) - 1, axis=0)


def embed_summed(table, ids):
    return np.stack([table[i] for i in np.ravel(ids)]).reshape(*np.shape(ids), -1).sum(axis=-2)


def embed_scaled(table, ids):
    return np.take(table, ids, axis=0) * np.sqrt(table.shape[1])


def embed_columns(table, ids):
    return table[:, ids]


def embed_take_flat(table, ids):
    return np.take(table, ids)


def ce_positive_log(z, y):
    p = np.exp(z - z.max()); p /= p.sum()
    with np.errstate(divide="ignore"):
        return {"probs": p, "loss": np.log(p[y])}


def ce_raw(z, y):
    p = np.exp(z - np.max(z)); p = p / np.sum(p)
    return {"probs": p, "loss": -float(z[y])}


def ce_naive(z, y):
    with np.errstate(all="ignore"):
        p = np.exp(z) / np.exp(z).sum()
        return {"probs": p, "loss": -np.log(p[y])}


def ce_log10(z, y):
    p = np.exp(z - z.max()); p /= p.sum()
    with np.errstate(divide="ignore"):
        return {"probs": p, "loss": -np.log10(p[y])}


def ce_log_of_p(z, y):
    e = np.exp(z - np.max(z))
    p = e / e.sum()
    with np.errstate(divide="ignore"):
        return {"probs": p, "loss": -np.log(p[y])}


def ce_stable_no_minus(z, y):
    zs = z - z.max()
    e = np.exp(zs)
    return {"probs": e / e.sum(), "loss": zs[y] - np.log(e.sum())}  # the stable form, minus sign forgotten


def ce_stable_log10(z, y):
    zs = z - z.max()
    e = np.exp(zs)
    return {"probs": e / e.sum(), "loss": (np.log(e.sum()) - zs[y]) / np.log(10)}


def ce_epsilon(z, y):
    e = np.exp(z - np.max(z))
    p = e / e.sum()
    return {"probs": p, "loss": -np.log(p[y] + 1e-9)}  # another ε than the catalogue's


def ce_clipped(z, y):
    e = np.exp(z - np.max(z))
    p = e / e.sum()
    return {"probs": p, "loss": -np.log(max(p[y], 1e-12))}  # clipped so the log is finite: still wrong


def ce_min_shift(z, y):
    with np.errstate(all="ignore"):
        e = np.exp(z - np.min(z))
        p = e / np.sum(e)
        return {"probs": p, "loss": -np.log(p[y])}


# ------------------------------------------------------------------- chapter 6

def _theta(d, base, two=2):
    return np.array([base ** (-two * i / d) for i in range(d // 2)])


def rope_adjacent(x, positions, base):
    d = x.shape[1]
    ang = np.outer(positions, _theta(d, base))
    out = x.copy()
    for i in range(d // 2):
        a, b = x[:, 2 * i], x[:, 2 * i + 1]
        out[:, 2 * i] = a * np.cos(ang[:, i]) - b * np.sin(ang[:, i])
        out[:, 2 * i + 1] = a * np.sin(ang[:, i]) + b * np.cos(ang[:, i])
    return {"angles": ang, "output": out}


def _rope_half(x, ang, sign):
    d = x.shape[1] // 2
    out = x.copy()
    for i in range(d):
        a, b = x[:, i], x[:, i + d]
        out[:, i] = a * np.cos(ang[:, i]) + sign * b * np.sin(ang[:, i])
        out[:, i + d] = -sign * a * np.sin(ang[:, i]) + b * np.cos(ang[:, i])
    return out


def rope_clockwise(x, positions, base):
    ang = np.outer(positions, _theta(x.shape[1], base))
    return {"angles": ang, "output": _rope_half(x, ang, 1.0)}


def rope_slow_exponent(x, positions, base):
    ang = np.outer(positions, _theta(x.shape[1], base, two=1))
    return {"angles": ang, "output": _rope_half(x, ang, -1.0)}


def rope_row_numbers(x, positions, base):
    ang = np.outer(np.arange(x.shape[0]), _theta(x.shape[1], base))
    return {"angles": ang, "output": _rope_half(x, ang, -1.0)}


def rope_theta_from_one(x, positions, base):
    d = x.shape[1]
    theta = np.array([base ** (-2 * i / d) for i in range(1, d // 2 + 1)])
    ang = np.outer(positions, theta)
    return {"angles": ang, "output": _rope_half(x, ang, -1.0)}


def rope_hf_inv_freq_doubled(x, positions, base):
    d = x.shape[1]
    inv_freq = 1.0 / base ** (2 * np.arange(0, d, 2) / d)  # arange(0, d, 2) is already 2i
    ang = np.outer(positions, inv_freq)
    return {"angles": ang, "output": _rope_half(x, ang, -1.0)}


def rope_repeat_interleave(x, positions, base):
    d = x.shape[1]
    ang = np.outer(positions, _theta(d, base))
    emb = np.repeat(ang, 2, axis=1)  # torch's repeat_interleave: θ0, θ0, θ1, θ1, …
    x1, x2 = x[:, : d // 2], x[:, d // 2 :]
    rotate_half = np.concatenate([-x2, x1], axis=1)
    return {"angles": ang, "output": x * np.cos(emb) + rotate_half * np.sin(emb)}


# ------------------------------------------------------------------- chapter 7

def _per_head(q, k, v, mask, head_of, scale=True, axis=-1):
    hq = q.shape[0]
    s = np.stack([q[h] @ k[head_of(h)].T for h in range(hq)]) / (math.sqrt(q.shape[-1]) if scale else 1.0)
    x = np.where(mask, s, -np.inf)
    if axis == -1:
        a = _softmax_rows(x)
    else:
        a = np.nan_to_num(np.swapaxes(_softmax_rows(np.swapaxes(x, -1, -2)), -1, -2))
    return {"scores": s, "weights": a, "output": np.stack([a[h] @ v[head_of(h)] for h in range(hq)])}


def gqa_tiled(q, k, v, mask):
    g = q.shape[0] // k.shape[0]
    k_all = np.concatenate([np.tile(k[i:i + 1], (g, 1, 1)) for i in range(k.shape[0])])
    v_all = np.concatenate([np.tile(v[i:i + 1], (g, 1, 1)) for i in range(v.shape[0])])
    t = attention(q, k_all, v_all, mask)
    return {"scores": t.scores, "weights": t.weights, "output": t.output}


def gqa_concatenated(q, k, v, mask):  # whole copies of all K/V heads one after another
    g = q.shape[0] // k.shape[0]
    t = attention(q, np.concatenate([k] * g), np.concatenate([v] * g), mask)
    return {"scores": t.scores, "weights": t.weights, "output": t.output}


def repeat_kv(x, n_rep):  # Hugging Face's repeat_kv, in numpy: expand, then reshape
    h, t, d = x.shape
    return np.broadcast_to(x[:, None, :, :], (h, n_rep, t, d)).reshape(h * n_rep, t, d)


def gqa_repeat_kv(q, k, v, mask):
    g = q.shape[0] // k.shape[0]
    t = attention(q, repeat_kv(k, g), repeat_kv(v, g), mask)
    return {"scores": t.scores, "weights": t.weights, "output": t.output}


def gqa_modulo(q, k, v, mask):
    return _per_head(q, k, v, mask, lambda h: h % k.shape[0])


def gqa_unscaled(q, k, v, mask):
    g = q.shape[0] // k.shape[0]
    return _per_head(q, k, v, mask, lambda h: h // g, scale=False)


def gqa_query_axis(q, k, v, mask):
    g = q.shape[0] // k.shape[0]
    return _per_head(q, k, v, mask, lambda h: h // g, axis=-2)


def gqa_mask_late(q, k, v, mask):
    g = q.shape[0] // k.shape[0]
    s = np.stack([q[h] @ k[h // g].T for h in range(q.shape[0])]) / math.sqrt(q.shape[-1])
    a = _softmax_rows(s) * mask
    return {"scores": s, "weights": a, "output": np.stack([a[h] @ v[h // g] for h in range(q.shape[0])])}


# ------------------------------------------------------------------- chapter 8

def rms_centred(x, w, eps):
    c = x - np.mean(x, axis=-1, keepdims=True)
    ms = np.mean(c ** 2, axis=-1, keepdims=True)
    return {"mean_square": ms, "rms": np.sqrt(ms + eps), "output": w * c / np.sqrt(ms + eps)}


def rms_eps_outside(x, w, eps):
    ms = (x ** 2).sum(axis=-1, keepdims=True) / x.shape[-1]
    r = ms ** 0.5 + eps
    return {"mean_square": ms, "rms": r, "output": w * (x / r)}


def rms_positions(x, w, eps):
    ms = (x ** 2).mean(axis=0, keepdims=True)
    return {"mean_square": ms, "rms": np.sqrt(ms + eps), "output": w * x / np.sqrt(ms + eps)}


def rms_no_gamma(x, w, eps):
    ms = np.mean(np.square(x), axis=-1, keepdims=True)
    return {"mean_square": ms, "rms": np.sqrt(ms + eps), "output": x / np.sqrt(ms + eps)}


def rms_mean_not_squared(x, w, eps):
    m = x.mean(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore"):
        r = np.sqrt(m + eps)
    return {"mean_square": m, "rms": r, "output": w * x / r}


def rms_variance(x, w, eps):
    v = x.var(axis=-1, keepdims=True)
    return {"mean_square": v, "rms": np.sqrt(v + eps), "output": x / np.sqrt(v + eps) * w}


def rms_no_eps(x, w, eps):
    ms = np.mean(x * x, axis=-1, keepdims=True)
    rms = np.sqrt(ms)
    return {"mean_square": ms, "rms": rms, "output": w * x / rms}


def rms_one_plus_w(x, w, eps):
    ms = (x ** 2).mean(-1, keepdims=True)
    r = np.sqrt(ms + eps)
    return {"mean_square": ms, "rms": r, "output": (1 + w) * x / r}


def rms_rsqrt(x, w, eps):
    ms = np.mean(x ** 2, axis=-1, keepdims=True)
    inv = 1 / np.sqrt(ms + eps)  # what torch.rsqrt gives
    return {"mean_square": ms, "rms": inv, "output": x * inv * w}


def _ffn(x, wg, wu, wd, gate):
    a, c = np.matmul(x, wg), np.matmul(x, wu)
    h = gate(a, c)
    return {"gate": a, "up": c, "hidden": h, "output": np.matmul(h, wd)}


def swiglu_swapped(x, wg, wu, wd):
    return _ffn(x, wg, wu, wd, lambda a, c: a * (c / (1 + np.exp(-c))))


def swiglu_sigmoid(x, wg, wu, wd):
    return _ffn(x, wg, wu, wd, lambda a, c: c / (1 + np.exp(-a)))


def swiglu_relu(x, wg, wu, wd):
    return _ffn(x, wg, wu, wd, lambda a, c: np.where(a > 0, a, 0.0) * c)


def swiglu_weights_swapped(x, wg, wu, wd):
    return _ffn(x, wu, wg, wd, lambda a, c: a / (1 + np.exp(-a)) * c)


# ------------------------------------------------------------------- chapter 9

def _chosen(a, k):
    return np.array(sorted(range(len(a)), key=lambda i: (-a[i], i))[:k])


def _gates(a, chosen, denominator):
    g = np.zeros(len(a))
    for i in chosen:
        g[i] = math.exp(a[i]) / denominator
    return g


def route_unnormalised(a, k):
    c = _chosen(a, k)
    return {"chosen": c, "gates": _gates(a, c, sum(math.exp(v) for v in a))}


def route_dense(a, k):
    e = np.exp(a - a.max())
    return {"chosen": _chosen(a, k), "gates": e / e.sum()}


def route_lowest(a, k):
    c = np.array(sorted(range(len(a)), key=lambda i: (a[i], i))[:k])
    return {"chosen": c, "gates": _gates(a, c, sum(math.exp(a[i]) for i in c))}


def route_lowest_default_sort(a, k):
    c = np.argsort(a)[:k]  # numpy's default sort, as a reader writes it
    return {"chosen": c, "gates": _gates(a, c, sum(math.exp(a[i]) for i in c))}


def route_high_tie_default_sort(a, k):
    c = np.argsort(a)[::-1][:k]
    return {"chosen": c, "gates": _gates(a, c, sum(math.exp(a[i]) for i in c))}


def route_top_lowest_first(a, k):
    c = np.argsort(a)[-k:]  # the k highest, but listed in ascending order
    return {"chosen": c, "gates": _gates(a, c, sum(math.exp(a[i]) for i in c))}


def route_by_id(a, k):
    c = _chosen(a, k)
    return {"chosen": np.sort(c), "gates": _gates(a, c, sum(math.exp(a[i]) for i in c))}


def route_high_tie(a, k):
    c = np.array(sorted(range(len(a)), key=lambda i: (-a[i], -i))[:k])
    return {"chosen": c, "gates": _gates(a, c, sum(math.exp(a[i]) for i in c))}


def route_by_rank(a, k):
    c = _chosen(a, k)
    total = sum(math.exp(a[i]) for i in c)
    return {"chosen": c, "gates": np.array([math.exp(a[i]) / total for i in c] + [0.0] * (len(a) - k))}


def route_no_exp(a, k):
    c = _chosen(a, k)
    g = np.zeros(len(a))
    with np.errstate(all="ignore"):
        g[c] = a[c] / a[c].sum()
    return {"chosen": c, "gates": g}


# ------------------------------------------------- chapter 2: the capstone

import regex  # noqa: E402

from tokenpath.bpe import GPT2_PATTERN, bytes_to_unicode  # noqa: E402


def _words(text, split=True):
    if split == "spaces":
        return text.split()
    if split == "space":
        return text.split(" ")
    return regex.findall(GPT2_PATTERN, text) if split else [text]


def _train_twin(text, vocab_size, *, split=True, distinct=False, pick=min, least=2, backwards=False):
    table = {}
    for w in _words(text, split):
        key = tuple(w.encode("utf-8")[k:k + 1] for k in range(len(w.encode("utf-8"))))
        table[key] = 1 if distinct else table.get(key, 0) + 1
    merges = []
    while len(merges) + 256 < vocab_size:
        counts = {}
        for w, n in table.items():
            for k in range(len(w) - 1):
                counts[(w[k], w[k + 1])] = counts.get((w[k], w[k + 1]), 0) + n
        if not counts:
            break
        top = max(counts.values())
        best = pick(p for p, c in counts.items() if c == top)
        if top < least:
            break
        merges.append(best)
        new = {}
        for w, n in table.items():
            if backwards:  # a reader's loop that walks the word from its end
                out, k = [], len(w) - 1
                while k >= 0:
                    if k > 0 and (w[k - 1], w[k]) == best:
                        out.insert(0, w[k - 1] + w[k])
                        k -= 2
                    else:
                        out.insert(0, w[k])
                        k -= 1
                new[tuple(out)] = n
                continue
            out, k = [], 0
            while k < len(w):
                if k + 1 < len(w) and (w[k], w[k + 1]) == best:
                    out.append(w[k] + w[k + 1])
                    k += 2
                else:
                    out.append(w[k])
                    k += 1
            new[tuple(out)] = n
        table = new
    return merges


def train_largest_tie(text, vocab_size):
    return _train_twin(text, vocab_size, pick=max)


def train_first_counted(text, vocab_size):
    """A reader's tie rule: max over the counts, which returns the first pair counted."""
    return _train_twin(text, vocab_size, pick=lambda tied: next(iter(tied)))


def train_split_at_spaces(text, vocab_size):
    return _train_twin(text, vocab_size, split="spaces")


def train_split_at_single_spaces(text, vocab_size):
    """A reader's cut: text.split(" "), which keeps line breaks and empty strings."""
    return _train_twin(text, vocab_size, split="space")


def train_right_to_left(text, vocab_size):
    return _train_twin(text, vocab_size, backwards=True)


def train_whole_text(text, vocab_size):
    return _train_twin(text, vocab_size, split=False)


def train_distinct_words(text, vocab_size):
    return _train_twin(text, vocab_size, distinct=True)


def train_merge_singletons(text, vocab_size):
    return _train_twin(text, vocab_size, least=1)


def _encode_twin(pieces, merges, token_id, chars, leftmost=False):
    ids = []
    for piece in pieces:
        word = [chars[b] for b in piece.encode("utf-8")]
        while True:
            ranked = [(merges[(a, b)], k) for k, (a, b) in enumerate(zip(word, word[1:])) if (a, b) in merges]
            if not ranked:
                break
            k = ranked[0][1] if leftmost else min(ranked)[1]
            word = word[:k] + [word[k] + word[k + 1]] + word[k + 2:]
        ids.extend(token_id[s] for s in word)
    return ids


def encode_gpt2_only(text, merges, token_id, pattern):
    return _encode_twin(regex.findall(GPT2_PATTERN, text), merges, token_id, bytes_to_unicode())


def encode_patterns_reversed(text, merges, token_id, pattern):
    """GPT-2's pattern (the last) first, then the digits' pattern on each piece."""
    pieces = [text]
    for p in reversed(pattern):
        pieces = [w for q in pieces for w in regex.findall(p, q)]
    return _encode_twin(pieces, merges, token_id, bytes_to_unicode())


def encode_unsplit(text, merges, token_id, pattern):
    return _encode_twin([text], merges, token_id, bytes_to_unicode())


def encode_latin1_chars(text, merges, token_id, pattern):
    pieces = [text]
    for p in pattern:
        pieces = [w for q in pieces for w in regex.findall(p, q)]
    return _encode_twin(pieces, merges, token_id, {b: bytes([b]).decode("latin-1") for b in range(256)})


def encode_leftmost(text, merges, token_id, pattern):
    pieces = [text]
    for p in pattern:
        pieces = [w for q in pieces for w in regex.findall(p, q)]
    return _encode_twin(pieces, merges, token_id, bytes_to_unicode(), leftmost=True)


def decode_unmapped(ids, vocab):
    return "".join(vocab[i] for i in ids)


def decode_each_token(ids, vocab):
    back = {c: b for b, c in bytes_to_unicode().items()}
    return "".join(bytes(back[c] for c in vocab[i]).decode("utf-8", "replace") for i in ids)
