"""The browser component's side in the kernel: the messages a slider widget answers.

The component (``tokenpath/widgets/frames.js``) asks for the state a reader moved to
(``want``), for several neighbours at once while the reader rests (``prefetch``) and says which held
frame it shows (``shown``). The kernel answers with frames drawn by the same
partial-redraw renderer; a prefetch never moves the reader's state, and a state the
engine refuses is never offered ahead. ``make check-lab`` drives the component itself
in a browser.
"""

from __future__ import annotations

import importlib
import itertools

import pytest

from tokenpath import widgets
from tokenpath.widgets.view import control_specs, index_of, value_at

from _widget_fixtures import DEFAULTS, built, full_draw, widget_fixture

groups = widget_fixture("head_groups")
routing = widget_fixture("routing_choice")
magnitude = widget_fixture("value_magnitude")


class Sent(list):
    """What the widget sends to its component: ``(content, buffers)`` pairs."""


@pytest.fixture
def sent(monkeypatch):
    out = Sent()

    def catch(w):
        monkeypatch.setattr(w.view, "send", lambda content, buffers=None: out.append((content, buffers)))
        return w

    out.catch = catch
    return out


def neighbour(w):
    index = w.index
    index[0] = index[0] - 1 if index[0] > 0 else index[0] + 1
    return index


@pytest.mark.parametrize("name", sorted(widgets.SLIDERS))
def test_the_component_starts_at_the_default_state_with_its_frame_and_caption(name):
    w = built(name)
    assert w.value == DEFAULTS[name]
    assert value_at(w._positions, w.view.index) == w.value
    assert w.view.png == w.png() and w.view.caption == w.describe()
    assert len(w.view.controls) == len(w.sliders)
    for spec, values in zip(w.view.controls, w._positions):
        assert len(spec["readouts"]) == len(values) >= 2


def test_a_prefetch_answers_the_neighbours_frame_and_leaves_the_readers_state(magnitude, sent):
    w = sent.catch(magnitude)
    value, png, index = w.value, w.png(), neighbour(w)
    w._on_message(w.view, {"type": "prefetch", "indices": [index]}, [])
    (content, buffers), = sent
    (frame,) = content["frames"]
    assert content["type"] == "frames" and content["skipped"] == [] and frame["index"] == frame["asked"] == index
    assert (w.value, w.png(), w.view.png) == (value, png, png)
    assert full_draw(w) == png  # the figure's artists are back at the reader's state
    w.update(value_at(w._positions, index))
    assert buffers[0] == w.png() == full_draw(w) and frame["caption"] == w.describe()


def test_a_prefetch_draws_several_states_in_order_within_its_time(magnitude, sent, monkeypatch):
    w = sent.catch(magnitude)
    prefetch = importlib.import_module("tokenpath.widgets.slider")
    monkeypatch.setattr(prefetch, "PREFETCH_SECONDS", 60.0)  # time for every state, however slow the machine
    n = len(w._positions[0])
    indices = [[k] for k in range(n) if k != w.index[0]][:3]
    w._on_message(w.view, {"type": "prefetch", "indices": [*indices, [n], "x"]}, [])
    (content, buffers), = sent
    assert [f["asked"] for f in content["frames"]] == indices and content["skipped"] == [[n], "x"]
    assert len(buffers) == 3 and buffers[1] == w.frame(value_at(w._positions, indices[1]))[1]
    sent.clear()
    monkeypatch.setattr(prefetch, "PREFETCH_SECONDS", 0.0)  # no time: the first state only, the rest unanswered
    w.forget_frames()
    w._on_message(w.view, {"type": "prefetch", "indices": indices}, [])
    assert [f["asked"] for f in sent[0][0]["frames"]] == indices[:1] and sent[0][0]["skipped"] == []
    sent.clear()
    w._on_message(w.view, {"type": "prefetch", "indices": None}, [])  # not a list: nothing drawn
    assert sent == [({"type": "frames", "frames": [], "skipped": [None]}, None)]


def test_a_want_moves_the_widget_and_the_component_sees_why(magnitude, sent):
    w = sent.catch(magnitude)
    seq, index = w.view.seq, neighbour(w)
    w._on_message(w.view, {"type": "want", "index": index}, [])
    assert w.view.index == index and w.view.origin == "want" and w.view.seq == seq + 1
    assert w.view.png == w.png() == full_draw(w) and w.view.caption == w.describe()
    w._on_message(w.view, {"type": "shown", "index": index[:0] + [0]}, [])
    assert w.view.origin == "shown" and w.value == value_at(w._positions, [0])
    w.update(DEFAULTS["value_magnitude"])
    assert w.view.origin == "kernel" and w.view.index == index_of(w._positions, w.value)
    assert not sent


def test_states_the_engine_refuses_are_never_offered_ahead(groups, sent):
    w = sent.catch(groups)
    values = w._positions
    refused = [[i, j] for i, j in itertools.product(range(len(values[0])), range(len(values[1])))
               if values[0][i] % values[1][j]]
    accepted = [[i, j] for i, j in itertools.product(range(len(values[0])), range(len(values[1])))
                if not values[0][i] % values[1][j]]
    w._on_message(w.view, {"type": "prefetch", "indices": [refused[0], accepted[-1]]}, [])
    ((content, buffers),) = sent
    assert content["skipped"] == [refused[0]] and [f["asked"] for f in content["frames"]] == [accepted[-1]]
    w._on_message(w.view, {"type": "want", "index": refused[0]}, [])  # the reader goes there
    assert not w.view.keep and "refused by the engine" in w.view.caption
    w.update(DEFAULTS["head_groups"])
    assert w.view.keep


@pytest.mark.parametrize("index", [[10**6], [-1], ["3"], [True], [0, 0], "0", None])
def test_a_position_outside_the_grid_is_skipped(magnitude, sent, index):
    w = sent.catch(magnitude)
    value = w.value
    w._on_message(w.view, {"type": "want", "index": index}, [])
    assert sent == [({"type": "skip", "for": "want", "asked": index}, None)] and w.value == value


def test_the_component_clamps_a_dependent_range_as_the_controls_do(routing):
    values, specs = control_specs(routing.slider)
    names = routing.slider.names
    k = names.index("k")
    limits = specs[k]["limits"]
    assert limits["others"] == [names.index("n_experts")]
    for row, allowed in limits["table"].items():
        n_experts = values[names.index("n_experts")][int(row)]
        assert [values[k][p] for p in allowed] == list(range(1, n_experts + 1))


def test_value_at_and_index_of_are_inverse():
    values = [[1, 2, 3], [0.5, 1.0]]
    for index in itertools.product(range(3), range(2)):
        assert index_of(values, value_at(values, list(index))) == list(index)
    with pytest.raises(ValueError, match="outside 0 … 2"):
        value_at(values, [3, 0])
    with pytest.raises(ValueError, match="must list 2"):
        value_at(values, [0])
