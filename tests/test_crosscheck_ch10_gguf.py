"""Chapter 10's statements about GGUF, llama.cpp, safetensors and transformers, checked against
them (sections 10.1, 10.2, 10.10 and 10.11–10.17):

* the files ``save_pretrained`` writes, and ``rope_parameters`` (section 10.1); ``torch.load``
  refusing a pickled object that is not a tensor or plain container (section 10.2);
* the by-hand Q8_0 and Q4_1 readers (``lessons.model_files_gguf``) read blocks as the
  ``gguf`` package (llama.cpp's Python quantizer, written after ``ggml-quants.c``'s
  reference quantizers) writes them: Δ, m, low nibbles first;
* ``safetensors`` stores tensors widest dtype first, then by name (section 10.2);
* Mixtral's ``save_pretrained`` writes per-expert names while Transformers 5 holds the
  experts fused, gate rows before up rows (section 10.10);
* the rounding bound the chapter states holds for that reference quantizer: every weight
  within Δ/2 plus the float16 rounding of Δ and m, and every block using its extreme
  codes;
* ``unpermute_rows`` equals the reverse permutation of ``transformers``' GGUF loader
  (``TENSOR_PROCESSORS["llama"]``) and undoes llama.cpp's converter permutation (row i of
  a head's first half to 2i, of its second half to 2i + 1); the loader un-permutes only a
  llama file's rows, not a qwen2 or qwen3 file's (section 10.15);
* on the real file: the neighbour pairing on the file's rows gives the scores of
  ``rotate_half`` on the unpermuted rows, and the chapter's chat IDs (injection
  included) equal ``apply_chat_template``.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from _gguf_files import T, gguf, write_gguf
from tokenpath import chat_template
from tokenpath import examples as ex
from tokenpath.gguf_format import read_gguf
from tokenpath.lessons import model_files_gguf as G
from tokenpath.model import tokenizer_from_gguf
from tokenpath.model.gguf_model import unpermute_rows

RNG_SEED = 9


def _converter_permute(w: np.ndarray, n_heads: int) -> np.ndarray:
    """llama.cpp's ``LlamaModel.permute`` as convert_hf_to_gguf.py describes it, written by
    its row indices: within each head, row i of the first half goes to 2i, row i of the
    second half to 2i + 1."""
    rows = w.shape[0] // n_heads
    half = rows // 2
    out = np.empty_like(w)
    for h in range(n_heads):
        for i in range(half):
            out[h * rows + 2 * i] = w[h * rows + i]
            out[h * rows + 2 * i + 1] = w[h * rows + half + i]
    return out


@pytest.fixture(scope="module")
def quantized_file(tmp_path_factory):
    """A GGUF file of two matrices quantized by the gguf package, and their float32 originals."""
    rng = np.random.default_rng(RNG_SEED)
    x8 = (rng.standard_normal((64, 128)) * 0.05).astype(np.float32)
    x4 = (rng.standard_normal((64, 128)) * 0.05).astype(np.float32)
    x4[3, 5] = 0.9  # one outlier: its block's step widens
    path = write_gguf(tmp_path_factory.mktemp("ch10") / "q.gguf", tensors=[
        ("a.weight", gguf.quants.quantize(x8, T.Q8_0), T.Q8_0),
        ("b.weight", gguf.quants.quantize(x4, T.Q4_1), T.Q4_1)])
    return read_gguf(path), {"a.weight": x8, "b.weight": x4}


def _q8_0_as_the_chapter_reads_it(block):
    """Section 10.13's cell: a float16 Δ in bytes 0–1, 32 signed codes after it, Δ·q."""
    delta = block.raw[0:2].view("<f2")[0]
    q = block.raw[2:34].view(np.int8)
    return SimpleNamespace(weights=np.float32(delta) * q.astype(np.float32))


@pytest.mark.parametrize("name, reader", [("a.weight", _q8_0_as_the_chapter_reads_it), ("b.weight", G.q4_1_by_hand)])
def test_blocks_read_by_hand_equal_gguf_dequantize_bit_for_bit(quantized_file, name, reader):
    g, _ = quantized_file
    t = g.tensors[name]
    want = gguf.quants.dequantize(np.asarray(g.raw(name)), T[t.type_name]).reshape(t.shape)  # [64, 128]
    for row in (0, 3, 63):
        for block in range(t.shape[1] // 32):
            got = reader(G.block_bytes(g, name, row, block)).weights
            assert np.array_equal(got.view(np.uint32), want[row, 32 * block:32 * block + 32].view(np.uint32))


def test_q4_1_codes_are_low_nibbles_then_high_as_gguf_quantizes():
    x = np.linspace(-1.0, 0.5, 32, dtype=np.float32)[None]  # increasing: codes 0 … 15 in order
    b = G.q4_1_by_hand(gguf.quants.quantize(x, T.Q4_1)[0])
    assert b.q.tolist() == sorted(b.q.tolist()) and b.q[0] == 0 and b.q[-1] == 15
    assert b.low.tolist() == b.q[:16].tolist() and b.high.tolist() == b.q[16:].tolist()
    assert float(b.m) == pytest.approx(-1.0, abs=1e-3) and float(b.delta) == pytest.approx(1.5 / 15, rel=1e-3)


@pytest.mark.parametrize("name", ["a.weight", "b.weight"])
def test_every_weight_lies_within_the_stated_bound_of_what_was_quantized(quantized_file, name):
    g, original = quantized_file
    rb = G.rounding_bound(g, name)
    got = g.dequantize(name).reshape(-1, 32)
    x = original[name].reshape(-1, 32)
    delta = 2 * rb.half_step[:, None]
    error = np.abs(got - x)
    assert np.all(error <= rb.half_step[:, None] + rb.float16_extra[:, None] * delta + 1e-7)
    assert np.any(error > 0.9 * rb.half_step[:, None])  # the bound is nearly reached: not a vacuous one
    assert rb.full_range == 1.0  # the reference quantizer puts the block's extremes on both ends of the codes
    if rb.type_name == "Q8_0":  # codes −127 … 127 only: −128 is an int8 the quantizer never writes
        assert np.asarray(g.raw(name)).reshape(-1, 34)[:, 2:].view(np.int8).min() > -128


def test_one_outlier_widens_its_blocks_step(quantized_file):
    g, _ = quantized_file
    rb = G.rounding_bound(g, "b.weight")
    outlier_block = 3 * 4 + 5 // 32  # row 3, block 0 of 4 per row
    assert rb.half_step[outlier_block] > 3 * np.median(rb.half_step)


@pytest.mark.heavy  # importing transformers takes seconds
def test_unpermute_rows_equals_transformers_reverse_permute():
    processors = pytest.importorskip("transformers.modeling_gguf_pytorch_utils",
                                     reason="needs the crosscheck extra (transformers)")
    proc = processors.TENSOR_PROCESSORS["llama"](config={"num_attention_heads": 9, "num_key_value_heads": 3})
    rng = np.random.default_rng(RNG_SEED)
    for name, rows, heads in (("blk.0.attn_q.weight", 576, 9), ("blk.0.attn_k.weight", 192, 3)):
        w = rng.standard_normal((rows, 16)).astype(np.float32)
        assert np.array_equal(proc.process(w, name).weights, unpermute_rows(w, heads)), name


@pytest.mark.heavy  # importing transformers takes seconds
def test_transformers_unpermutes_q_and_k_of_a_llama_file_only():
    """Section 10.15: the row order is the llama architecture's (llama.cpp's rope type NORM,
    neighbour pairs); for a qwen2 file (rope type NEOX, the rotate_half pairing) the
    converter leaves the rows alone, and transformers' loader keeps them as stored."""
    processors = pytest.importorskip("transformers.modeling_gguf_pytorch_utils",
                                     reason="needs the crosscheck extra (transformers)")
    config = {"num_attention_heads": 9, "num_key_value_heads": 3}
    w = np.random.default_rng(RNG_SEED).standard_normal((576, 16)).astype(np.float32)
    llama = processors.TENSOR_PROCESSORS["llama"](config=config).process(w, "blk.0.attn_q.weight").weights
    assert not np.array_equal(llama, w)
    for arch in ("qwen2", "qwen3"):
        assert arch not in processors.TENSOR_PROCESSORS  # the plain processor: tensors as stored
        kept = processors.TensorProcessor(config=config).process(w, "blk.0.attn_q.weight").weights
        assert np.array_equal(kept, w), arch


@pytest.mark.parametrize("rows, heads", [(576, 9), (192, 3), (8, 1)])
def test_unpermute_rows_undoes_the_converters_permutation(rows, heads):
    w = np.arange(rows * 2, dtype=np.float64).reshape(rows, 2)
    assert np.array_equal(unpermute_rows(_converter_permute(w, heads), heads), w)
    assert not np.array_equal(_converter_permute(w, heads), w)


@pytest.mark.heavy  # builds the file's tokenizer; tests/claims/model.py's real.pairing_same checks the same in every run
def test_on_the_real_file_the_file_order_with_neighbour_pairs_gives_the_engines_scores(smollm2_file):
    g = read_gguf(smollm2_file)
    c = G.pairing_check(g, tokenizer_from_gguf(g.metadata).encode(ex.SMOL_PAIRING_TEXT))
    assert c.largest_gap < 1e-9 * c.scale
    assert c.mixed_gap > 0.1 * c.scale
    assert c.visible_gap > 0.1 * c.scale and c.weights_gap > 0.1  # the mistake moves the scores attention uses
    assert c.diagonal_gap < 1e-9 * c.scale  # a query reading its own position: the rotations cancel


@pytest.mark.torch
@pytest.mark.heavy
def test_the_chapters_chat_ids_and_injection_equal_apply_chat_template(smollm2_file):
    transformers = pytest.importorskip("transformers", reason="needs the crosscheck extra (transformers)")
    hf = transformers.AutoTokenizer.from_pretrained(str(smollm2_file.parent), gguf_file=smollm2_file.name)
    engine = tokenizer_from_gguf(read_gguf(smollm2_file).metadata)
    for messages in (list(ex.SMOL_CHAT), [{"role": "user", "content": ex.SMOL_INJECTION}]):
        want = hf.apply_chat_template(messages, tokenize=True, add_generation_prompt=True, return_dict=False)
        assert chat_template.chat_ids(engine, messages) == list(want)
    injected = list(want)
    assert sum(i == hf.convert_tokens_to_ids("<|im_end|>") for i in injected) == 3  # system, typed, user turn


def test_safetensors_stores_tensors_widest_dtype_first_then_by_name(tmp_path):
    """Section 10.2: why lm_head.weight comes first in a file of float32 tensors."""
    from safetensors.numpy import save_file

    from tokenpath import safetensors_format as S

    path = tmp_path / "order.safetensors"
    save_file({"z": np.zeros(2, np.float16), "a": np.zeros(2, np.float16), "m": np.zeros(3, np.float64),
               "b": np.zeros(1, np.float32), "c": np.zeros(1, np.float32)}, str(path))
    assert [e.name for e in S.read_header(path).tensors] == ["m", "b", "c", "a", "z"]


@pytest.mark.torch
@pytest.mark.heavy  # importing transformers takes seconds
def test_mixtral_save_pretrained_writes_per_expert_names_and_holds_them_fused(tmp_path):
    """Section 10.10: the file has block_sparse_moe.experts.e.w1/w2/w3; in memory, Transformers 5
    holds gate_up_proj [E, 2·d_ff, d] (each expert's gate rows, then its up rows) and down_proj."""
    transformers = pytest.importorskip("transformers", reason="needs the crosscheck extra (transformers)")
    torch = pytest.importorskip("torch", reason="needs the crosscheck extra (torch)")
    from safetensors.numpy import load_file

    torch.manual_seed(RNG_SEED)
    cfg = transformers.MixtralConfig(vocab_size=50, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                     num_attention_heads=4, num_key_value_heads=2, num_local_experts=4,
                                     num_experts_per_tok=2)
    ref = transformers.MixtralForCausalLM(cfg)
    ref.save_pretrained(tmp_path)
    stored = load_file(str(tmp_path / "model.safetensors"))
    p = "model.layers.0."
    assert {k for k in stored if "experts" in k or ".gate." in k} == {
        p + f"block_sparse_moe.experts.{e}.{w}.weight" for e in range(4) for w in ("w1", "w2", "w3")
    } | {p + "block_sparse_moe.gate.weight"}
    memory = {k: v.detach().numpy() for k, v in ref.state_dict().items()}
    gate_up, down = memory[p + "mlp.experts.gate_up_proj"], memory[p + "mlp.experts.down_proj"]
    assert gate_up.shape == (4, 64, 16) and down.shape == (4, 16, 32)
    for e in range(4):
        assert np.array_equal(gate_up[e, :32], stored[p + f"block_sparse_moe.experts.{e}.w1.weight"])
        assert np.array_equal(gate_up[e, 32:], stored[p + f"block_sparse_moe.experts.{e}.w3.weight"])
        assert np.array_equal(down[e], stored[p + f"block_sparse_moe.experts.{e}.w2.weight"])


@pytest.mark.torch
@pytest.mark.heavy  # importing transformers takes seconds
def test_save_pretrained_writes_the_files_section_9_1_names(tmp_path):
    """Section 10.1: a model's save_pretrained writes config.json, model.safetensors and
    generation_config.json; a tokenizer's writes tokenizer.json and tokenizer_config.json;
    Transformers 5 keeps the RoPE base inside rope_parameters."""
    transformers = pytest.importorskip("transformers", reason="needs the crosscheck extra (transformers)")
    from tokenizers import Tokenizer, models

    cfg = transformers.LlamaConfig(vocab_size=50, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                   num_attention_heads=4, num_key_value_heads=2)
    transformers.LlamaForCausalLM(cfg).save_pretrained(tmp_path / "model")
    assert {p.name for p in (tmp_path / "model").iterdir()} == {"config.json", "model.safetensors",
                                                                "generation_config.json"}
    import json

    written = json.loads((tmp_path / "model" / "config.json").read_text())
    assert "rope_theta" not in written and written["rope_parameters"]["rope_theta"] == 10000.0
    # dtype records the precision written (older files: torch_dtype, still accepted on reading)
    assert written["dtype"] == "float32" and "torch_dtype" not in written
    assert str(transformers.LlamaConfig(torch_dtype="bfloat16").dtype).endswith("bfloat16")
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.BPE({"a": 0}, [])))
    fast.save_pretrained(tmp_path / "tok")
    assert {"tokenizer.json", "tokenizer_config.json"} <= {p.name for p in (tmp_path / "tok").iterdir()}


@pytest.mark.torch
def test_torch_load_refuses_an_arbitrary_pickled_object_unless_told_otherwise(tmp_path):
    """Section 10.2: torch.load reads tensors and plain containers, and refuses other pickled
    objects (which could run code when unpickled) unless weights_only=False."""
    torch = pytest.importorskip("torch", reason="needs the crosscheck extra (torch)")
    import pickle

    torch.save({"w": torch.zeros(2), "n": [1, 2]}, tmp_path / "ok.pt")
    assert torch.load(tmp_path / "ok.pt")["n"] == [1, 2]
    torch.save({"w": torch.zeros(2), "x": _Anything()}, tmp_path / "code.pt")
    with pytest.raises(pickle.UnpicklingError):
        torch.load(tmp_path / "code.pt")
    assert isinstance(torch.load(tmp_path / "code.pt", weights_only=False)["x"], _Anything)


class _Anything:
    """A class pickle stores by reference: unpickling it imports and runs code named in the file."""


def test_the_real_files_float32_tensors_are_its_one_axis_norm_weights(smollm2_file):
    """Section 10.11: llama.cpp's quantizer (``src/llama-quant.cpp``) quantizes only tensors
    of two or more axes and never a ``*_norm.weight``; the file's F32 tensors are exactly
    its one-axis tensors, all of them norm weights, and every other tensor is quantized."""
    g = read_gguf(smollm2_file)
    f32 = {n for n, t in g.tensors.items() if t.type_name == "F32"}
    assert f32 == {n for n, t in g.tensors.items() if len(t.shape) == 1}
    assert f32 and all(n.endswith("_norm.weight") for n in f32)
    assert all(t.type_name in ("Q4_1", "Q8_0") for n, t in g.tensors.items() if n not in f32)


def test_a_float16_is_1_sign_5_exponent_10_fraction_bits_read_little_endian():
    """Section 10.13's note: two little-endian bytes, 1 sign, 5 exponent and 10 fraction
    bits, bias 15; numpy's ``view("<f2")`` and ``struct``'s ``e`` read them alike."""
    import struct

    assert (np.finfo(np.float16).nmant, np.finfo(np.float16).nexp, np.dtype(np.float16).itemsize) == (10, 5, 2)
    rng = np.random.default_rng(RNG_SEED)
    for raw in rng.integers(0, 256, size=(200, 2), dtype=np.uint8):
        n = int.from_bytes(bytes(raw), "little")
        sign, exponent, fraction = n >> 15, (n >> 10) & 0x1F, n & 0x3FF
        if 0 < exponent < 31:  # normal numbers: (1 + fraction/1024) · 2^(exponent − 15)
            want = (-1) ** sign * (1 + fraction / 1024) * 2.0 ** (exponent - 15)
            assert float(raw.view("<f2")[0]) == want == struct.unpack("<e", bytes(raw))[0]


def test_the_gguf_packages_codes_name_what_section_10_11_says():
    """Section 10.11's note on the other keys and on the embedding's type: file type 3 is
    "mostly Q4_1", token type 3 a control token and 1 a normal one; Q6_K blocks hold 256
    numbers, so a row of 576 cannot be Q6_K."""
    assert gguf.LlamaFileType.MOSTLY_Q4_1 == 3
    assert (gguf.TokenType.CONTROL, gguf.TokenType.NORMAL) == (3, 1)
    assert gguf.GGML_QUANT_SIZES[T.Q6_K][0] == 256 and 576 % 256 != 0
    assert gguf.GGML_QUANT_SIZES[T.Q8_0] == (32, 34) and gguf.GGML_QUANT_SIZES[T.Q4_1] == (32, 20)


@pytest.mark.heavy  # reads the 49,152 tokens twice
def test_the_real_files_header_as_the_gguf_package_reads_it(smollm2_file):
    """Section 10.11: the file's type and token types, and a data section that starts where
    the tensor table ends (no padding), as llama.cpp's own reader finds them."""
    g = read_gguf(smollm2_file)
    r = gguf.GGUFReader(smollm2_file)
    assert r.data_offset == g.data_offset == g.header_end
    assert g.metadata["general.file_type"] == gguf.LlamaFileType.MOSTLY_Q4_1
    types = g.metadata["tokenizer.ggml.token_type"]
    tokens = g.metadata["tokenizer.ggml.tokens"]
    assert types[tokens.index("<|im_start|>")] == gguf.TokenType.CONTROL and types[tokens.index("a")] == gguf.TokenType.NORMAL
    assert g.tensors["token_embd.weight"].type_name == "Q8_0" and "output.weight" not in g.tensors


@pytest.mark.heavy  # dequantizes every tensor of the file
def test_every_block_of_the_real_file_uses_its_extreme_codes(smollm2_file):
    """Section 10.14's note: not only the two matrices the cell reads, but every Q4_1 block
    of the file uses codes 0 and 15, and every Q8_0 block 127 or −127."""
    g = read_gguf(smollm2_file)
    for name, t in g.tensors.items():
        if t.type_name in ("Q4_1", "Q8_0"):
            assert G.rounding_bound(g, name).full_range == 1.0, name
