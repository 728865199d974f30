"""The prose of the real-model asides states what their cells print.

An aside computes its numbers inline, in a code cell; its claims (tests/claims/) compute
the same numbers again, as a copy, so that the prose can be checked. That copy could drift
from the cell: an edited cell, re-executed, would print new numbers while the claims and the
prose kept the old ones. This test closes the loop on the stored outputs of the English
notebooks (which nbval holds to the cells): every number that a listed claim states must be
printed by the aside's cells.

So the chain is: prose == claim as stated (test_prose_numbers), stated == the copy's
rendering (test_claims), stated numbers ⊂ the cell's printed output (here), printed output ==
the cell run again (nbval).

A stated number matches a printed one if both are whole numbers and equal, or if the printed
one, rounded to the stated decimals, reads the same ("0.03" matches a printed "0.030").
Thousands separators are ignored, and a printed fraction "8/3" also counts as its two parts.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from claims import CLAIMS

ROOT = Path(__file__).resolve().parents[1]
NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?(?:/\d+)?")

#: (chapter, a line that identifies each of the aside's code cells, the claims its cells print).
#: Claims whose numbers are derived in the prose (53.5 = 438,460 / 8,192) are not listed.
ASIDES = [
    ("03_embedding_lookup", ['smol_file = real_vocab.smollm2_header()', 'near = real_layers.nearest_rows(" lower")'],
     ["aside3.table", "aside3.ggml_order", "aside3.layers_worth", "aside3.share", "aside3.width",
      "aside3.median", "aside3.neighbours"]),
    ("06_rope_discs", ["theta_smol = P.rope_frequencies("],
     ["rope.smol.head_dim", "rope.smol.base", "rope.smol.context", "rope.smol.reference_base",
      "rope.smol.slowest_turn", "rope.smol.reference_slowest_turn", "rope.smol.full_turns",
      "rope.smol.last_slowdown", "rope.smol.pair16"]),
    ("08_rmsnorm_swiglu", ["ratio = Fraction(d_ff, d)"], ["norms.smol.ratio", "norms.smol.attention"]),
    ("09_moe_routing", ["found = lessons.file_experts(smol_file)", "width_mix = d_ff // k_mix"],
     ["moe.smol.width", "moe.smol.plan", "moe.smol.dense", "moe.smol.mixture"]),
    ("10_model_files", ['magic, version, n_tensors, n_keys = struct.unpack("<4sIQQ", raw)',
                        "gguf = read_gguf(path)  # the engine's reader",
                        "by_type.setdefault(t.type_name, []).append(t)"],
     ["real.first_bytes", "real.version", "real.tensors", "real.keys", "real.n_q41", "real.n_f32", "real.n_q8",
      "real.norm_numbers", "real.embedding_share"]),
]


def _number(token: str) -> tuple[str, int, float]:
    """(token without separators, its decimals, its value); a fraction's value is a/b."""
    plain = token.replace(",", "")
    if "/" in plain:
        a, b = plain.split("/")
        return plain, 0, float(a) / float(b)
    return plain, len(plain.split(".")[1]) if "." in plain else 0, float(plain)


def printed_numbers(text: str) -> list[tuple[str, int, float]]:
    out = []
    for token in NUMBER.findall(text):
        out.append(_number(token))
        if "/" in token:
            out.extend(_number(part) for part in token.replace(",", "").split("/"))
    return out


def is_printed(stated: str, printed: list[tuple[str, int, float]]) -> bool:
    plain, decimals, value = _number(stated)
    if "/" in plain or decimals == 0:
        return any(p == plain or (d == 0 and "/" not in p and v == value) for p, d, v in printed)
    return any(d >= decimals and "/" not in p and f"{v:.{decimals}f}" == plain for p, d, v in printed)


def test_a_stated_number_matches_only_what_is_printed():
    printed = printed_numbers("E [49,152, 576]: 8/3 = 2.6667, cosine 0.030, turn 438,460 tokens")
    for stated in ("49,152", "576", "8/3", "3", "2.667", "0.03", "438,460"):
        assert is_printed(stated, printed), stated
    for stated in ("49,153", "2", "2.6", "0.3", "438", "460", "0.0300", "5/3"):
        assert not is_printed(stated, printed), stated


def _stored_output(chapter: str, markers: list[str]) -> str:
    nb = json.loads((ROOT / "notebooks" / f"{chapter}.ipynb").read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    texts = []
    for marker in markers:
        found = [c for c in code if marker in "".join(c["source"])]
        assert len(found) == 1, f"{chapter}: {len(found)} code cells hold {marker!r}, expected one"
        texts += ["".join(o.get("text", "")) for o in found[0].get("outputs", []) if o.get("output_type") == "stream"]
    return "".join(texts)


@pytest.mark.parametrize("chapter, markers, names", ASIDES, ids=[a[0] for a in ASIDES])
def test_the_asides_prose_states_what_its_cells_print(chapter, markers, names):
    claims = {c.name: c for c in CLAIMS if c.chapter == chapter}
    assert set(names) <= set(claims), f"unknown claims: {set(names) - set(claims)}"
    output = _stored_output(chapter, markers)
    assert output, f"{chapter}: the aside's cells have no stored output"
    printed = printed_numbers(output)
    missing = [f"{name}: {stated!r} in {text!r}" for name in names for text in claims[name].stated().values()
               for stated in NUMBER.findall(text) if not is_printed(stated, printed)]
    assert not missing, f"{chapter}: numbers the prose states that its aside's cells do not print:\n" + "\n".join(missing)
    assert not re.search(r"^(same as|runs as many)[^\n]*: False$", output, re.M), output
