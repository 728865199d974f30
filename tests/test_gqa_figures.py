"""Figure 16 draws the engine's head map, shapes and cache counts, for any Hq and Hkv
the widget can reach, and shows the engine's refusal for a pair that does not divide."""

from __future__ import annotations

import pytest

from tokenpath import examples as ex
from tokenpath import figures, fmt, gqa
from tokenpath.figures import gqa as G
from tokenpath.figures import style
from tokenpath.lessons import gqa as LG

from test_figures import rendered  # the session's one render of each figure


@pytest.fixture(scope="module")
def fig16():
    return rendered(16).drawn


def _visible(drawn, prefix):
    return [k for k, a in drawn.artists.items() if k.startswith(prefix) and a.get_visible()]


def test_fig16_shows_eight_query_heads_two_kv_heads_and_the_map(fig16):
    s = LG.head_sharing(ex.FIG16_N_Q_HEADS, ex.FIG16_N_KV_HEADS)
    assert len(_visible(fig16, "q.box[")) == s.n_q_heads == 8
    assert len(_visible(fig16, "kv.box[")) == s.n_kv_heads == 2
    for h in range(8):
        link = fig16.artists[f"link[{h}]"]
        kv = fig16.artists[f"kv.box[{s.groups[h]}]"]
        x_end = link.get_xdata()[1]
        assert kv.get_x() <= x_end <= kv.get_x() + kv.get_width()  # the link lands on its group
    assert fig16.artists["kv.text[0]"].get_text() == "K₀, U₀ · read by q0–q3"
    assert fig16.artists["kv.text[1]"].get_text() == "K₁, U₁ · read by q4–q7"


def test_fig16_cache_numbers_and_shapes_come_from_the_engine(fig16):
    s = LG.head_sharing(8, 2, layers=1, requests=1, seq_len=3, head_dim=2)
    texts = " ".join(fig16.artists[k].get_text() for k in ("shapes", "cache", "mha", "ratio", "ratio.label"))
    for piece in ("Q [B, 8, T, d_h]", "K and U [B, 2, T, d_h]", "2×1×2×3×2 = 24", "2×1×8×3×2 = 96",
                  f"24/96 = {fmt.frac(float(s.ratio))}", "K/V body only"):
        assert piece in texts
    assert "2×1×2×3×2 = 24" in fig16.alt and "1/4" in fig16.alt


def test_fig16_update_draws_mha_mqa_and_a_refusal():
    drawn = figures.render(16)
    G.update_head_sharing(drawn.artists, G.head_sharing_or_refusal(8, 8))
    assert len(_visible(drawn, "kv.box[")) == 8
    G.update_head_sharing(drawn.artists, G.head_sharing_or_refusal(16, 1))
    assert len(_visible(drawn, "q.box[")) == 16 and len(_visible(drawn, "kv.box[")) == 1
    refused = G.head_sharing_or_refusal(8, 3)
    G.update_head_sharing(drawn.artists, refused)
    assert not _visible(drawn, "kv.box[") and not _visible(drawn, "link[")
    assert "n_q_heads=8 is not divisible by n_kv_heads=3" in drawn.artists["refusal"].get_text()
    assert "refused by the engine: n_q_heads=8 is not divisible" in G.describe_head_sharing(refused)
    style.close(drawn.figure)


def test_fig16_helpers_check_their_arguments(fig16):
    with pytest.raises(TypeError, match="trace"):
        G.update_head_sharing(dict(fig16.artists), "8, 2")
    with pytest.raises(ValueError, match="query heads"):
        G.update_head_sharing(dict(fig16.artists), G.head_sharing_or_refusal(32, 2))
    with pytest.raises(ValueError, match="n_kv_heads"):
        G.head_sharing_or_refusal(8, 0)  # out of range is an error, not a refusal
