"""What a learner may type into an exercise: a function that raises, returns the wrong
type, shape or dtype, NaN, prints a flood, or never returns. ``check`` answers each with
a message, in bounded time, and never with a traceback from its own internals."""

from __future__ import annotations

import dataclasses
import threading
import time
from types import SimpleNamespace

import numpy as np
import pytest

from tokenpath import exercises
from tokenpath.attention import attention, causal_mask
from tokenpath.exercises import _running, checker


def _att(q, k, v, m):
    t = attention(q, k, v, m)
    return {"scores": t.scores, "weights": t.weights, "output": t.output}


def test_a_function_that_raises_gets_its_error_and_its_line():
    def broken(t):
        x = [1, 2]
        return x[t]

    r = exercises.check("causal_mask", broken)
    assert r.status == "raised" and not r.passed
    text = str(r)
    assert "Your function raised IndexError: list index out of range on the worked example" in text
    assert "in broken: return x[t]" in text
    assert "Traceback" not in text and "checker.py" not in text


def test_a_function_that_never_returns_is_stopped_per_case():
    def forever(t):
        while True:
            pass

    assert exercises.exercise("causal_mask").case_seconds == checker.CASE_SECONDS == 2.0
    quick = dataclasses.replace(exercises.exercise("causal_mask"), case_seconds=0.3)
    start = time.perf_counter()
    r = quick.check(forever)
    took = time.perf_counter() - start
    assert r.status == "timeout" and "did not return within 0.3 s" in str(r)
    assert took < 1.5  # stops at the first case, runs no more


def test_a_function_that_swallows_the_timeout_is_stopped_all_the_same():
    def stubborn(t):
        while True:
            try:
                while True:
                    time.sleep(0.01)
            except BaseException:  # a bare except: in a reader's loop
                continue

    out = _running.run(stubborn, (3,), seconds=0.2)
    assert out.status == "timeout" and out.seconds < 2.0


def test_sleeping_is_interrupted_and_the_timer_is_restored():
    import signal
    before = signal.getsignal(signal.SIGALRM)
    out = _running.run(time.sleep, (30,), seconds=0.1)
    assert out.status == "timeout" and out.seconds < 1.0
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_outside_the_main_thread_the_check_refuses_clearly():
    box = {}
    th = threading.Thread(target=lambda: box.setdefault("r", exercises.check("causal_mask", causal_mask)))
    th.start()
    th.join(10)
    r = box["r"]
    assert r.status == "refused" and not r.passed
    assert "outside the main thread" in str(r)


def test_printing_a_flood_is_captured_and_cut():
    def chatty(t):
        for i in range(40_000):
            print("line", i)
        return causal_mask(t)

    r = exercises.check("causal_mask", chatty)
    assert r.passed
    text = str(r)
    assert "Your function printed" in text and "more characters printed, not shown" in text
    assert len(text) < 5_000
    page = r.html()
    assert page.count("<pre") == 1 and "line 0\n" in page and len(page) < 6_000


@pytest.mark.parametrize("value,says", [
    ("mask", "is a str, expected a numpy array of shape [3, 3]"),
    ([[1, 0, 0], [1, 1, 0], [1, 1, 1]], "has dtype int64, expected bool (True where visible)"),
    (np.ones((3, 4), dtype=bool), "has shape [3, 4], expected [3, 3] (i, j)"),
    ({"mask": 3}, "has shape [], expected [3, 3]"),
    (object(), "numpy reads as objects"),
])
def test_a_wrong_type_shape_or_dtype_is_said_in_a_sentence(value, says):
    r = exercises.check("causal_mask", lambda t: value)
    assert r.status == "differs" and says in str(r), str(r)


def test_nan_is_reported_where_it_first_appears():
    def nan_weights(q, k, v, m):
        out = _att(q, k, v, m)
        w = out["weights"].copy()
        w[1, 1] = np.nan
        return {**out, "weights": w}

    r = exercises.check("masked_attention", nan_weights)
    assert "A = softmax(S) at [i=1, j=1]: expected 0.666667, got nan." in str(r)


def test_float32_passes_at_its_precision_and_whole_numbers_and_missing_fields_are_named():
    r = exercises.check("masked_attention", lambda q, k, v, m: {k_: a.astype(np.float32) for k_, a in _att(q, k, v, m).items()})
    assert r.passed, str(r)
    r = exercises.check("cross_entropy_one", lambda z, y: {"probs": _softmax32(z), "loss": _loss32(z, y)})
    assert r.passed, str(r)  # float32 throughout, its loss a numpy float32 scalar

    def off(z, y):  # right in float32, then off by 1e-4: more than float32's rounding
        p = _softmax32(z)
        return {"probs": p + np.float32(1e-4) * (np.arange(p.size) == 0), "loss": _loss32(z, y)}

    r = exercises.check("cross_entropy_one", off)
    assert r.status == "differs" and "p = softmax(z) at [v=0]" in str(r), str(r)
    r = exercises.check("embed", lambda table, ids: np.rint(table[ids] * 100).astype(int))
    assert "has dtype int64, expected floating-point numbers" in str(r), str(r)
    r = exercises.check("masked_attention", lambda q, k, v, m: {"scores": _att(q, k, v, m)["scores"]})
    assert "has no 'weights': return a dict with the keys scores, weights, output" in str(r)
    r = exercises.check("masked_attention", lambda q, k, v, m: _att(q, k, v, m)["output"])
    assert "is a ndarray; return a dict with the keys scores, weights, output" in str(r)


def _loss32(z, y):
    """−log p[y] in float32 as log Σ exp(z − max) − (z[y] − max), finite where p[y] underflows."""
    s = np.asarray(z, dtype=np.float32) - np.max(z).astype(np.float32)
    return np.log(np.exp(s).sum()) - s[y]


def _softmax32(z):
    e = np.exp(np.asarray(z, dtype=np.float32) - np.max(z).astype(np.float32))
    return e / e.sum()


def test_an_object_with_the_named_attributes_is_read_like_a_dict():
    r = exercises.check("masked_attention", lambda q, k, v, m: SimpleNamespace(**_att(q, k, v, m)))
    assert r.passed, str(r)


class _Hostile:
    def __array__(self, *a, **k):
        raise RuntimeError("no")

    def __eq__(self, other):
        raise RuntimeError("no")

    __hash__ = object.__hash__


@pytest.mark.parametrize("fn", [
    lambda *a: _Hostile(),
    lambda *a: {"counts": _Hostile()},
    lambda *a: iter(range(10**12)),
    lambda *a: (_ for _ in ()).throw(SystemExit(3)),
    lambda *a: (_ for _ in ()).throw(KeyboardInterrupt()),
    lambda *a: [[[]]] * 3,
    lambda *a: np.full((10**3, 10**3), np.nan),
])
@pytest.mark.parametrize("name", ["pair_counts", "causal_mask", "route_top_k", "decode"])
def test_check_never_raises_for_what_a_function_returns_or_raises(name, fn):
    r = exercises.check(name, fn)
    assert not r.passed and isinstance(str(r), str) and r.status in exercises.result.STATUSES
    assert "Traceback" not in str(r)


def test_an_interrupt_from_the_reader_stops_the_check_at_that_case():
    calls = []

    def interrupted(t):
        calls.append(t)
        raise KeyboardInterrupt

    r = exercises.check("causal_mask", interrupted)
    assert r.status == "raised" and "KeyboardInterrupt" in str(r)
    assert len(calls) == 1


def test_passing_the_result_instead_of_the_function_is_explained():
    r = exercises.check("causal_mask", causal_mask(3))
    assert r.status == "not callable"
    assert "pass the function itself" in str(r)


def test_raising_not_implemented_error_is_not_written_yet():
    def todo(t):
        raise NotImplementedError

    assert exercises.check("causal_mask", todo).status == "not written yet"


def test_the_readers_inputs_are_copies():
    def vandal(q, k, v, m):
        out = _att(q, k, v, m)
        q[...] = 0.0
        m[...] = False
        return out

    r = exercises.check("masked_attention", vandal)  # told what it changed; the cases themselves stay intact
    assert not r.passed and "your function changed its input `q`, `m`" in str(r), str(r)
    assert exercises.check("masked_attention", _att).passed


def test_capped_text_counts_what_it_does_not_keep():
    s = _running.CappedText(limit=10)
    for _ in range(1000):
        s.write("abcdef")
    assert s.total == 6000 and len(s.text) == 10
    assert "5,990 more characters" in s.summary()
