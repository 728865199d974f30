"""Chapter 10's "Check yourself" questions (``10_model_files``): where the tensor data
starts, the tied head, a config edit, a mismatched layer count and the tiny tokenizer's
partial characters; then, on the pretrained GGUF file, where llama.cpp's row order puts a
row of W_Q, and two weights of a Q4_1 block read by hand; last, what if the tiny weights
were stored as bfloat16. Every answer is computed by the
engine when the questions are built.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from pathlib import Path

from .. import fmt
from ..i18n import _
from ..selfcheck import Question, choice, exact, sequence, set_of, vector

__all__ = ["questions"]


def questions() -> tuple[Question, ...]:
    """The chapter's questions, in the order it asks them."""
    from .. import model as M
    from ..lessons.model_files import tiny_config, tiny_model, tiny_tokenizer
    from .. import examples as ex
    from .. import safetensors_format as S

    with tempfile.TemporaryDirectory() as tmp:
        directory = M.save(Path(tmp) / "tiny-llama", tiny_model())
        sharded = M.save(Path(tmp) / "tiny-llama-sharded", tiny_model(), max_shard_size=ex.MODEL_SHARD_BYTES)
        last_shard = sorted(p.name for p in sharded.glob("model-*.safetensors"))[-1]
        n = S.raw_header(sharded / last_shard)[1]
        config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
        config["num_hidden_layers"] -= 1
        (directory / "config.json").write_text(json.dumps(config), encoding="utf-8")
        try:
            M.load(directory)
            error = ""
        except M.ModelFileError as err:
            error = str(err).replace(str(directory) + "/", "").replace(str(directory), "tiny-llama")
    q1 = exact("files-data-start", _("Read the 8 length bytes of tiny-llama-sharded/{shard} (section 10.8) with "
               "int.from_bytes(..., \"little\"). At which byte of that file does the first tensor's data "
               "begin?").format(shard=last_shard),
               8 + n, source=f'8 + safetensors_format.raw_header(".../{last_shard}")[1]',
               hint=_("a byte offset (a whole number)"),
               why=_("8 bytes of length, then the JSON header of N = {n} bytes: the data starts at 8 + {n} = "
                     "{start}.").format(n=n, start=8 + n))
    untied, tied = tiny_config(), tiny_config(tied=True)
    (gone,) = set(M.tensor_shapes(untied)) - set(M.tensor_shapes(tied))
    names = sorted(M.tensor_shapes(untied))
    missing = {"a": gone, "b": "model.embed_tokens.weight", "c": "model.norm.weight", "d": _("none: only config.json changes")}
    q2 = choice("files-tied", _("Save tiny_model(tied=True): which tensor name is missing?"), missing, "a",
                source="set(M.tensor_shapes(tiny_config())) - set(M.tensor_shapes(tiny_config(tied=True)))",
                why=_("The tied head reuses model.embed_tokens.weight; of the {count} untied names, {gone} is not "
                      "stored.").format(count=len(names), gone=gone))
    big = 1000
    wide, wide_tied = tiny_config(vocab_size=big), tiny_config(tied=True, vocab_size=big)
    fewer = M.count_parameters(wide).total - M.count_parameters(wide_tied).total
    q3 = exact("files-tied-count", _("With a vocabulary of {big} instead (tiny_config(vocab_size={big}) and "
               "tiny_config(tied=True, vocab_size={big})), how many parameters fewer does the tied model "
               "store?").format(big=big), fewer,
               source=f"M.count_parameters(tiny_config(vocab_size={big})).total - "
                      f"M.count_parameters(tiny_config(tied=True, vocab_size={big})).total",
               hint=_("a whole number"), why=_("Tying drops the head, [V, d] = {big} × {d} = {fewer}.").format(
                   big=big, d=wide.hidden_size, fewer=fewer))
    kv1 = dataclasses.replace(untied, num_key_value_heads=1)
    k_shape = M.tensor_shapes(kv1)["model.layers.0.self_attn.k_proj.weight"]
    q4 = sequence("files-kproj", _("Make a copy of the config with one K/V head, "
                  "kv1 = dataclasses.replace(tiny.config, num_key_value_heads=1). What is the stored shape of "
                  "k_proj.weight (M.tensor_shapes(kv1) lists them)?"), list(k_shape),
                  source='M.tensor_shapes(replace(config, num_key_value_heads=1))["model.layers.0.self_attn.k_proj.weight"]',
                  hint=_("a shape [rows, columns] such as [2, 3]"),
                  why=_("PyTorch stores [out, in]: out = Hkv × d_h = 1 × {d_h}, in = d = {d}.").format(
                      d_h=untied.head_dim, d=untied.hidden_size))
    q5 = exact("files-kv1-count", _("And its parameter count? Check it with M.count_parameters(kv1).total."),
               M.count_parameters(kv1).total,
               source="M.count_parameters(replace(config, num_key_value_heads=1)).total", hint=_("a whole number"),
               why=_("Only k_proj and v_proj shrink, in every layer: {before} becomes {after}.").format(
                   before=M.count_parameters(untied).total, after=M.count_parameters(kv1).total))
    last = f"model.layers.{untied.num_hidden_layers - 1}."
    named = {
        "a": _("a tensor of the last layer ({prefix}…) that the shorter config does not describe").format(prefix=last),
        "b": "model.embed_tokens.weight",
        "c": "lm_head.weight",
        "d": _("none: the extra layer is silently ignored"),
    }
    # The key is the option the error actually names; an error that names none of them is a bug here.
    key = ("d" if not error else "a" if last in error else "b" if "embed_tokens" in error
           else "c" if "lm_head" in error else None)
    if key is None:
        raise AssertionError(f"the loader's error names none of the options: {error}")
    q6 = choice("files-layers", _("Edit config.json so that it declares one layer fewer, and load "
                "the directory. Which tensor does the loader's error name?"),
                named, key, source="M.load(directory) after editing num_hidden_layers",
                why=_("The loader checks every stored tensor against the config: {error}").format(
                    error=error or _("no error")))
    tok = tiny_tokenizer()
    ids = tok.encode("大语言模型")
    broken = [i for i, t in enumerate(ids) if "\ufffd" in tok.decode_bytes([t]).decode("utf-8", errors="replace")]
    q7 = set_of("files-partial", _('Encode "{text}" with the tiny tokenizer. Which token positions (0, 1, …) hold '
                "part of a character when decoded alone?").format(text="大语言模型"), broken,
                source='[tiny_tokenizer().decode_bytes([i]).decode("utf-8", errors="replace") for i in ids]',
                hint=_("a set of token positions such as {0, 1}"),
                why=_("IDs {ids}; a token whose bytes end or start inside a character decodes to �.").format(
                    ids=fmt.vec(ids)))
    bf16 = S.DTYPE_SIZES["BF16"] * M.count_parameters(untied).total
    q_bf16 = exact("files-bf16-bytes", _("What if the tiny Llama's weights were saved as bfloat16 instead of float32: "
                   "how many bytes of tensor data would model.safetensors hold after its header? (A bfloat16 takes "
                   "2 bytes, chapter 7.)"), bf16,
                   source='safetensors_format.DTYPE_SIZES["BF16"] * M.count_parameters(tiny_config()).total',
                   hint=_("a number of bytes (a whole number)"),
                   why=_("The shapes do not change, only the bytes per number: {count} parameters × {width} bytes = "
                         "{nbytes}, half of float32's {f32}.").format(
                       count=M.count_parameters(untied).total, width=S.DTYPE_SIZES["BF16"], nbytes=bf16,
                       f32=S.DTYPE_SIZES["F32"] * M.count_parameters(untied).total))
    return q1, q2, q3, q4, q5, q6, q7, *_gguf_questions(), q_bf16


#: The file row asked about, and the Q4_1 block of the last question: Δ = 0.5, m = −2 as
#: float16 bytes, then nibble byte 3 = 0x4B (weights 3 and 19).
GGUF_ROW = 5
Q41_HEAD = bytes.fromhex("0038 00c0")
Q41_BYTE, Q41_VALUE = 3, 0x4B


def _gguf_questions() -> tuple[Question, ...]:
    import numpy as np

    from .. import pretrained
    from ..gguf_format import read_gguf
    from ..lessons.model_files_gguf import q4_1_by_hand
    from ..model.gguf_model import gguf_config, unpermute_rows

    d_h = gguf_config(read_gguf(pretrained.smollm2_path())).head_dim
    order = unpermute_rows(np.arange(d_h)[:, None], 1)[:, 0]  # Hugging Face row j comes from file row order[j]
    hf_row = int(np.flatnonzero(order == GGUF_ROW)[0])
    q8 = exact("files-gguf-row", _("In the GGUF file, each head of W_Q has d_h = {d_h} rows in llama.cpp's order. "
               "unpermute_rows(np.arange({d_h})[:, None], 1) lists, for every row in Hugging Face's order, the file "
               "row it comes from. Which row, in Hugging Face's order, is the file's row {row}?").format(
                   d_h=d_h, row=GGUF_ROW), hf_row,
               source=f"np.flatnonzero(unpermute_rows(np.arange({d_h})[:, None], 1)[:, 0] == {GGUF_ROW})[0]",
               hint=_("a row index (a whole number)"),
               why=(_("The converter sent row i of a head's first half to 2i and row i of its second half to 2i + 1: "
                      "file row {row} is odd, so it is row {half_row} of the second half, row {hf_row} in Hugging "
                      "Face's order.") if GGUF_ROW % 2 else
                    _("The converter sent row i of a head's first half to 2i and row i of its second half to 2i + 1: "
                      "file row {row} is even, so it is row {half_row} of the first half, row {hf_row} in Hugging "
                      "Face's order.")).format(row=GGUF_ROW, half_row=GGUF_ROW // 2, hf_row=hf_row))
    raw = np.zeros(20, np.uint8)
    raw[:4] = np.frombuffer(Q41_HEAD, np.uint8)
    raw[4 + Q41_BYTE] = Q41_VALUE
    block = q4_1_by_hand(raw)
    lo, hi = Q41_BYTE, Q41_BYTE + block.low.size
    q9 = vector("files-q41-weights", _("A Q4_1 block starts with the bytes {head} (Δ, then m, each a "
                "little-endian float16), and its nibble byte {j} (byte {at} of the block) is "
                "{value}. What are weights {lo} and {hi}? Check with "
                "G.q4_1_by_hand(np.frombuffer(bytes.fromhex(\"{raw}\"), np.uint8)).").format(
                    head=Q41_HEAD.hex(" "), j=Q41_BYTE, at=4 + Q41_BYTE, value=f"0x{Q41_VALUE:02X}", lo=lo, hi=hi,
                    raw=bytes(raw).hex()),
                [float(block.weights[lo]), float(block.weights[hi])], tolerance=1e-6,
                source=f"q4_1_by_hand(the block's 20 bytes).weights[[{lo}, {hi}]]",
                hint=_("two numbers such as [1.5, -0.5]"),
                why=_("Δ = {delta}, m = {m}; {value} holds code {low} (low nibble, weight {lo}) and {high} (high "
                      "nibble, weight {hi}): {delta} · {low} + {m} and {delta} · {high} + {m}.").format(
                    delta=float(block.delta), m=float(block.m), value=f"0x{Q41_VALUE:02X}", low=int(block.low[lo]),
                    lo=lo, high=int(block.high[lo]), hi=hi))
    return q8, q9
