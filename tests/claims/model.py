"""Claims of chapter 10_model_files: the tiny Llama directory, its files, counts and shapes
(sections 10.1–10.10; the pretrained GGUF file of 9.11–9.17 is in :mod:`.model_gguf`)."""

from __future__ import annotations

import json
import tempfile
from functools import cache, partial
from pathlib import Path

import numpy as np

from tokenpath import examples as ex
from tokenpath import fmt
from tokenpath import model as M
from tokenpath import safetensors_format as S
from tokenpath.lessons.model_files import tiny_config, tiny_model

from . import Claim as _Claim
from . import NotClaim as _NotClaim
from . import pinned_as_source

CHAPTER = "10_model_files"
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


@cache
def _generated():
    """(ID, bytes) of each token section 10.7 samples."""
    g = tiny().generate(ex.MODEL_PROMPT, ex.MODEL_GENERATE_STEPS, seed=ex.MODEL_GENERATE_SEED)
    return [(int(i), tiny().tokenizer.token_bytes(int(i))) for i in g.sampled]


def _stored(name):
    return tiny().tensors[name].shape


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
    Claim("model.d_h_split", lambda: config(),
          text=("d_h = 16/4 = 4", lambda c: f"d_h = {c.hidden_size}/{c.num_attention_heads} = {c.head_dim}")),
    Claim("model.eos", lambda: (config().eos_token_id, tiny().tokenizer.special_tokens.get("<|endoftext|>"),
                                config().vocab_size),
          text=("`eos_token_id` is 384, the ID of `<|endoftext|>`: the last of the vocabulary's 385 IDs",
                lambda v: f"`eos_token_id` is {v[0]}, the ID of `<|endoftext|>`: the last of the vocabulary's {v[2]} IDs"
                if v[0] == v[1] == v[2] - 1 else "")),
    Claim("model.max_length", lambda: json.loads((directory() / "tokenizer_config.json").read_text())["model_max_length"],
          text=("writes 1048576 there", lambda n: f"writes {n} there")),
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
          text=("width d = 8; H = 2 heads, each with its own keys and values; SwiGLU width 24",
                lambda c: f"width d = {c[0]}; H = {c[1]} heads, each with its own keys and values; SwiGLU width {c[2]}")),
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
    Claim("tok.big_tokens", lambda: len(tiny().tokenizer.encode("大语言模型")),
          text=("大语言模型 takes 5 tokens", lambda n: f"大语言模型 takes {n} tokens")),
    Claim("tok.first_id", lambda: prompt_ids()[0], exact="271"),
    Claim("tok.second_id", lambda: prompt_ids()[1], exact="341"),
    # -- 9.6 the forward pass ---------------------------------------------------------------
    Claim("fwd.weights_per_head", lambda: trace().layers[0].weights.shape[2:], text=("[6, 6]", _shape)),
    Claim("fwd.batch", lambda: trace().layers[0].x.shape[0], exact="1"),
    Claim("fwd.stream", lambda: trace().final.shape, text=("[6, 16]", _shape)),
    # -- 9.7 generation ---------------------------------------------------------------------------
    Claim("gen.tokens", lambda: _generated(),
          text=("the 5 sampled tokens follow: 。 (ID 279); the lone byte 0x94, which decodes to �; the control byte 0x12, "
                "which `repr` prints as `\\x12`",
                lambda g: f"the {len(g)} sampled tokens follow: {g[0][1].decode()} (ID {g[0][0]}); the lone byte "
                          f"0x{g[1][1][0]:02x}, which decodes to �; the control byte 0x{g[2][1][0]:02x}, "
                          f"which `repr` prints as `{repr(g[2][1].decode())[1:-1]}`"
                if len(g[1][1]) == 1 and g[1][1].decode("utf-8", "replace") == "\ufffd" and g[2][1][0] < 0x20 else "")),
    Claim("gen.tail", lambda: _generated(),
          text=("`!`; and the bytes E5 96, the start of a character cut short",
                lambda g: f"`{g[3][1].decode()}`; and the bytes {g[4][1].hex(' ').upper()}, the start of a character cut short"
                if g[4][1][0] >= 0xC0 and g[4][1].decode("utf-8", "replace").endswith("\ufffd") else "")),
    # -- 9.8 shards ------------------------------------------------------------------------------
    Claim("shard.first_name", lambda: shard_names()[0], text=("model-00001-of-00003.safetensors", str)),
    Claim("shard.limit", lambda: ex.MODEL_SHARD_BYTES, exact="32000"),
    # -- 9.9 the cross-check bounds (asserted by tests/test_crosscheck_model.py) -----------------
    Claim("xcheck.measured", lambda: ex.MODEL_CROSSCHECK_MEASURED, text=("1e-5", _sci)),
    # -- 9.10 Mixtral -------------------------------------------------------------------------------
    Claim("mix.experts", lambda: mixtral().config.num_local_experts, exact="4"),
    Claim("mix.per_token", lambda: mixtral().config.num_experts_per_tok, exact="2"),
    Claim("mix.router_shape", lambda: _mix_stored("block_sparse_moe.gate.weight"), text=("[4, 16]", _shape)),
    Claim("mix.router_T", lambda: _mix_stored("block_sparse_moe.gate.weight")[::-1],
          text=("W_r of shape [d, E_n] = [16, 4]", lambda s: f"W_r of shape [d, E_n] = {_shape(s)}")),
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
    # -- Sources: the versions the cross-checks run against ---------------------------------
    Claim("model.pin.safetensors", lambda: "safetensors", text=("`safetensors` 0.8.0", pinned_as_source)),
    Claim("model.pin.transformers", lambda: "transformers", text=("`transformers` 5.24.0", pinned_as_source)),
    Claim("model.pin.tokenizers", lambda: "tokenizers", text=("`tokenizers` 0.23.3", pinned_as_source)),
    Claim("model.pin.torch", lambda: "torch", text=("`torch` 2.13.0", pinned_as_source)),
]

NOT_CLAIMS: list[_NotClaim] = [
    NotClaim("Transformers 5", "the major version of the transformers library, a name"),
    NotClaim("Llama 3.1", "a model's name (its rope_type \"llama3\" scaling)"),
    NotClaim("model.layers.0.", "a layer index inside a stored tensor name"),
    NotClaim("model.layers.1.", "a layer index inside a stored tensor name"),
    NotClaim("64-bit floats", "the float width the engine computes in, a fact about its code"),
    NotClaim("32-bit floats", "the float width of transformers' float32 reference, a fact about its code"),
    NotClaim("32-bit ones", "the float width of transformers' float32 reference, a fact about its code"),
    NotClaim("arXiv:2302.13971", "citation: the LLaMA paper's arXiv identifier"),
    NotClaim("arXiv:2401.04088", "citation: the Mixtral paper's arXiv identifier"),
]
