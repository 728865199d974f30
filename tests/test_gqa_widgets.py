"""The Hq/Hkv widget of figure 16: default = static figure, two sliders as one control,
the head map and cache ratio follow the sliders, Hkv offers only the divisors of Hq (in
the kernel and in the component's table), a pair that does not divide given in code
shows the engine's refusal instead of raising, out-of-range values are refused by name."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tokenpath import gqa
from tokenpath.widgets.view import control_specs

from _widget_fixtures import built, full_draw, static, widget_fixture

groups = widget_fixture("head_groups")


def test_default_is_the_static_figure_16():
    w = built("head_groups")
    assert w.value == (8, 2) and w.value._fields == ("n_q_heads", "n_kv_heads")
    assert w.png() == static(16)


def test_sliders_drive_the_head_map_and_the_ratio(groups):
    hq, hkv = groups.sliders
    hkv.value = 1  # MQA
    assert groups.value == (8, 1)
    assert groups.trace.groups.tolist() == [0] * 8 and groups.trace.ratio == Fraction(1, 8)
    hq.value = 4
    assert groups.trace.groups.tolist() == gqa.kv_groups(4, 1).tolist()
    assert "2×1×1×3×2 = 12" in groups.artists["cache"].get_text()
    groups.update((8, 8))  # MHA
    assert hq.value == 8 and hkv.value == 8
    assert "(multi-head attention)" in groups.describe() and groups.trace.ratio == 1


def test_hkv_offers_only_the_divisors_of_hq(groups):
    hq, hkv = groups.sliders
    assert groups.slider.allowed("n_kv_heads") == gqa.kv_head_counts(8) == [1, 2, 4, 8]
    hkv.value = 3  # a reader's step up from 2 goes on to the next divisor
    assert groups.value == (8, 4)
    hkv.value = 3  # and a step down from 4 to the one below
    assert groups.value == (8, 2)
    hq.value = 9  # Hq moves: Hkv goes to the nearest divisor of 9 (the lower of 1 and 3)
    assert groups.value == (9, 1) and (hkv.min, hkv.max) == (1, 9)
    groups.update({"n_kv_heads": 3})
    assert groups.value == (9, 3) and groups.describe().startswith("Hq = 9 query heads read Hkv = 3")
    assert groups.png() == full_draw(groups)


def test_a_pair_that_does_not_divide_shows_the_engine_message(groups):
    groups.update((8, 3))  # from code: the sliders never offer it
    try:
        gqa.kv_groups(8, 3)
    except ValueError as err:
        message = str(err)
    assert groups.value == (8, 3) and groups.describe().endswith(message + ".")
    assert message.split(":")[0] in groups.artists["refusal"].get_text()
    assert message.split(":")[0] in groups.view.caption
    assert groups.png() == full_draw(groups)


def test_the_component_is_told_only_the_divisors(groups):
    values, specs = control_specs(groups.slider)
    limits = specs[1]["limits"]
    assert limits["others"] == [0] and specs[0]["limits"] is None
    for row, allowed in limits["table"].items():
        n_q_heads = values[0][int(row)]
        assert [values[1][p] for p in allowed] == gqa.kv_head_counts(n_q_heads)


@pytest.mark.parametrize("bad, error, name", [((0, 2), ValueError, "n_q_heads"), ((8, 17), ValueError, "n_kv_heads"),
                                              ((8.0, 2), TypeError, "n_q_heads"), (8, TypeError, "n_q_heads, n_kv_heads"),
                                              ((8, True), TypeError, "n_kv_heads")])
def test_out_of_range_values_are_refused_by_name(groups, bad, error, name):
    with pytest.raises(error, match=name):
        groups.update(bad)
    assert groups.value == (8, 2)


def test_describe_cell_output_and_sweep():
    w = built("head_groups")
    assert w.describe().startswith("Hq = 8 query heads read Hkv = 2 K/V heads")
    pairs = w.sweep(6)
    assert pairs[0] == (1, 1) and pairs[2] == (16, 2) and pairs[3:] == [(8, 1), (8, 4), (8, 8)]
    assert all(isinstance(v, int) for pair in pairs for v in pair)
