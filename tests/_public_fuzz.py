"""Feed bad inputs to every public engine function and sort the outcomes.

The valid calls come from the engine's own doctests: they are run once with a profile
hook that records the arguments of every call to a public function (the names in each
topic module's ``__all__``). Only recorded calls that succeed when repeated are kept: a
doctest that shows an error (``read_json`` refusing a 50-digit number) would raise that
same error whatever other argument is replaced, and the fuzzer would blame the replaced
one. Then each kept call is repeated with one argument at a time replaced by a bad
value (from ``BAD``, and for a file or folder argument also from ``BAD_PATH``). An
outcome is

* ``clear``: a ``ValueError`` or ``TypeError`` (or a subclass such as ``ModelFileError``)
  whose message names the replaced argument, or another argument of the function (a
  bad value can break a relation: ``new must be >= old``), or, for a path, starts with
  the path (as given or made absolute: a reader of a folder names the file in it that
  is wrong);
* ``accepted``: the call returned (a bad value may be valid for some arguments, such as
  an empty list of messages);
* ``vague``: any other exception, or a ``ValueError``/``TypeError`` that does not name
  the argument (numpy's own "inhomogeneous shape", an ``IndexError`` …).

``tokenpath.trained`` gets its valid calls from a table instead (:func:`trained_calls`):
its doctests load and run the trained model (about 7 s to record, against the 1–2 s
this whole fuzzer takes), while one small call of each function on the committed model,
loaded once per process, reuses what the chapters' tests compute anyway (the model, the
held-out pass and the greedy rows are cached per process). Every argument check in
``trained`` runs before any forward pass, so a bad value costs no model time.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import os
import pkgutil
import re
import signal
import sys
from collections import Counter
from dataclasses import dataclass

import numpy as np

TOP_MODULES = ("attention", "bpe", "chat_template", "decoder", "embedding", "exercises", "fmt", "gguf_format", "gqa", "lessons", "model",
               "moe", "moe_dispatch", "norms", "ownline", "packing", "position", "safefiles", "safetensors_format", "sampling", "selfcheck",
               "shared_expert", "subword", "trained")


#: Packages whose ``__init__`` lists every public name of their modules, fuzzed as one.
WHOLE_PACKAGES = ("trained",)


def _with_submodules(names):
    """``names`` and, after a package, each of its public modules (``model.config`` …):
    a package's doctests live in its modules, which the doctest finder does not reach
    from the package, and each module's ``__all__`` is checked as well as the package's."""
    out = []
    for m in names:
        out.append(m)
        path = getattr(importlib.import_module(f"tokenpath.{m}"), "__path__", None)
        if path is not None and m not in WHOLE_PACKAGES:
            out += [f"{m}.{info.name}" for info in sorted(pkgutil.iter_modules(path), key=lambda i: i.name)
                    if not info.name.startswith("_")]
    return tuple(out)


MODULES = _with_submodules(TOP_MODULES)
#: Modules whose valid calls are recorded from their doctests; the others have a table.
DOCTEST_MODULES = tuple(m for m in MODULES if m != "trained")


def _ragged():
    return [[1.0, 2.0], [3.0]]


#: Bad values, each built afresh for every call (a function may not mutate its input,
#: but a bug that did would otherwise leak into the next call).
BAD = {
    "None": lambda: None,
    "str for number": lambda: "3",
    "huge int": lambda: 10**30,
    "bool": lambda: True,
    "nan": lambda: float("nan"),
    "inf": lambda: float("inf"),
    "complex": lambda: 1 + 2j,
    "ragged list": _ragged,
    "ragged nested": lambda: [[[1.0, 2.0]], [[3.0]]],
    "empty list": lambda: [],
    "empty array": lambda: np.zeros((0,)),
    "rank 5": lambda: np.zeros((2, 2, 2, 2, 2)),
    "string array": lambda: np.array(["a", "b"]),
    "nan array": lambda: np.array([1.0, np.nan]),
    "object": lambda: object(),
}


#: More bad values for an argument that names a file or folder: none of them can be
#: one ("" would quietly mean the current folder; the operating system refuses the rest
#: with its own messages).
BAD_PATH = {
    "empty path": lambda: "",
    "NUL in path": lambda: "a\x00b",
    "lone surrogate in path": lambda: "\ud800.json",
    "bytes path": lambda: b"config.json",
}
PATH_PARAMS = ("path", "directory", "folder")


@dataclass(frozen=True)
class Call:
    module: str
    name: str
    args: dict  # parameter name -> value, as recorded


def public_functions(modules=MODULES) -> dict:
    """code object -> (module name, function name, function) for every public function."""
    out = {}
    for m in modules:
        mod = importlib.import_module(f"tokenpath.{m}")
        for name in mod.__all__:
            f = getattr(mod, name)
            if inspect.isfunction(f) or hasattr(f, "__wrapped__"):
                inner = inspect.unwrap(f)
                # a name re-exported elsewhere (the package, a compatibility import) counts under the module defining it
                if inspect.isfunction(inner) and (inner.__code__ not in out or inner.__module__ == f"tokenpath.{m}"):
                    out[inner.__code__] = (m, name, f)
    return out


def invoke(f, args: dict):
    """``f`` called with the recorded ``args`` (parameter name -> value); a ``*args``
    parameter is recorded as the tuple of its values and passed by position, as are
    the parameters before it."""
    params = inspect.signature(inspect.unwrap(f)).parameters
    var = any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params.values())
    pos, kw = [], {}
    for name, p in params.items():
        if name not in args:
            continue
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            pos.extend(args[name])
        elif p.kind is inspect.Parameter.POSITIONAL_ONLY or (var and p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD):
            pos.append(args[name])
        else:
            kw[name] = args[name]
    return f(*pos, **kw)


def _succeeds(f, args: dict) -> bool:
    try:
        invoke(f, args)
    except Exception:  # noqa: BLE001 — any failure disqualifies the call as a starting point
        return False
    return True


def recorded_calls(per_function: int = 2) -> list[Call]:
    """Run every module's doctests, record up to ``per_function`` calls of each
    public function (the first ones, in doctest order) and keep those that succeed
    when repeated with the recorded arguments.

    A doctest call that raises (an example of the error itself) is no starting
    point: whatever argument is replaced, the intended error comes first and would
    be counted against the replaced argument. Calls that succeed are what the fuzzer
    varies, so every error it sorts is caused by the one replaced argument."""
    funcs = public_functions(DOCTEST_MODULES)
    seen: dict = {}
    calls: list[Call] = []

    def hook(frame, event, arg):
        if event != "call":
            return
        hit = funcs.get(frame.f_code)
        if hit is None or seen.get(frame.f_code, 0) >= per_function:
            return
        m, name, f = hit
        params = inspect.signature(inspect.unwrap(f)).parameters
        values = {p: frame.f_locals[p] for p in params if p in frame.f_locals}
        if any(params[p].kind is inspect.Parameter.VAR_KEYWORD for p in params):
            return
        seen[frame.f_code] = seen.get(frame.f_code, 0) + 1
        calls.append(Call(m, name, values))

    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    old = sys.getprofile()
    sys.setprofile(hook)
    try:
        for m in DOCTEST_MODULES:
            for test in finder.find(importlib.import_module(f"tokenpath.{m}")):
                runner.run(test, out=lambda s: None, clear_globs=False)  # recorded calls may use its names
    finally:
        sys.setprofile(old)
    by_name = {(m, name): f for m, name, f in funcs.values()}
    calls = [call for call in calls if _succeeds(by_name[call.module, call.name], call.args)]
    # functions no doctest calls: one call with every argument left at its default, if
    # they all have one (without, the call would fail for the missing argument whatever
    # the bad value, and that failure would pass for a clear error)
    for m, name, f in funcs.values():
        params = inspect.signature(inspect.unwrap(f)).parameters.values()
        if (not any(c.module == m and c.name == name for c in calls)
                and all(p.default is not inspect.Parameter.empty
                        or p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD) for p in params)):
            calls.append(Call(m, name, {}))
    return calls


def trained_calls() -> list[Call]:
    """One valid call of every public function of ``tokenpath.trained``, on the committed
    model (loaded once per process) and one short line run through it; the held-out
    pass and the greedy rows are computed once per process and shared with the
    chapters' tests. Each call is checked to succeed, as the recorded ones are."""
    from tokenpath import trained as T
    from tokenpath.examples import trained as ex

    model = T.committed_model()
    ids = model.encode("def f(x):")
    trace = model.forward(ids)
    pieces = [model.tokenizer.decode([int(i)]) for i in ids]
    held = T.held_out_routes(model)
    table = {
        "trained_folder": {},
        "read_training": {"folder": str(T.trained_folder())},
        "read_samples": {"folder": str(T.trained_folder())},
        "count_moe_parameters": {"folder": str(T.trained_folder())},
        "read_evaluation": {"folder": str(T.trained_folder())},
        "read_evidence": {"folder": str(T.trained_folder())},
        "held_out_sample": {"folder": None},
        "held_out_text": {"folder": None},
        "example_lines": {"folder": None},
        "example_line": {"folder": None},
        "line_source": {"line": 0, "folder": None},
        "sample_pass": {"model": model, "folder": None},
        "induction_scores": {"model": model, "runs": T.repeated_tokens(model.config.vocab_size, sequences=1, length=3)},
        "zero_head": {"weights": model.layer_weights(0), "head": 0},
        "drop_expert": {"weights": model.layer_weights(0), "expert": 0},
        "ablated": {"model": model, "kind": "head", "layer": 0, "index": 0},
        "previous_token_weight": {"trace": trace},
        "routing_rows": {"trace": trace, "pieces": pieces},
        "attention_map": {"trace": trace, "pieces": pieces, "layer": 0, "head": 0},
        "query_measures": {"weights": T.uniform_weights(3)},
        "uniform_weights": {"t": 3},
        "head_stats": {"traces": [trace]},
        "committed_model": {"folder": None},
        "held_out_heads": {"model": model, "folder": None},
        "measured_heads": {"folder": None},
        "measured_routing": {"folder": None},
        "measured_agreement": {"folder": None},
        "line_attention": {"model": model, "folder": None, "line": T.example_line(), "layer": 0, "head": 0,
                           "query": 1, "share": ex.HEAD_ROLE_SHARE},
        "routing_stats": {"chosen": [[[0, 1], [1, 0], [2, 1]]], "num_experts": 3},
        "held_out_routing": {"model": model, "folder": None},
        "routes_of": {"traces": [trace], "pieces": pieces},
        "held_out_routes": {"model": model, "folder": None},
        "held_out_lines": {"folder": None},
        "line_tokens": {"folder": None},
        "route_lines": {"folder": None, "low": ex.ROUTE_LINE_TOKENS[0], "high": ex.ROUTE_LINE_TOKENS[1]},
        "line_routing": {"line": T.example_line(), "folder": None},
        "routing_view": {"layer": 0, "line": T.example_line(), "folder": None},
        "text_agreement": {"routes": held},
        "greedy_steps": {"prompt": 0, "folder": None},
        "next_token": {"prompt": 0, "step": 0, "temperature": ex.TRAINED_TEMPERATURE, "top": ex.NEXT_TOP,
                       "cover_share": ex.NEXT_COVER, "folder": None},
        "pieces_of": {"ids": ids, "folder": None},
    }
    calls = [Call("trained", name, args) for name, args in table.items()]
    funcs = {name: f for m, name, f in public_functions(("trained",)).values()}
    failing = [c.name for c in calls if not _succeeds(funcs[c.name], c.args)]
    if failing:
        raise AssertionError(f"these valid calls of tokenpath.trained fail: {failing}")
    return calls


class _Slow(Exception):
    pass


def _alarm(signum, frame):
    raise _Slow()


def _names(msg: str, names) -> bool:
    return any(re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])", msg) for n in names)


#: Seconds a fuzzed call may take before it counts as hanging. It catches a bad value
#: that sends a function into an endless loop or a huge allocation; a valid value that
#: means "the default" (``runs=None`` is the induction test's default runs) may do a
#: second or two of real work, several times that on a machine busy with other jobs.
HANG_SECONDS = 15.0


def outcome(f, kwargs: dict, param: str, seconds: float = HANG_SECONDS) -> tuple[str, str]:
    """Call ``f`` with ``kwargs`` (see :func:`invoke`) and sort what happens (see the
    module docstring)."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        invoke(f, kwargs)
    except _Slow:
        return "vague", f"no answer within {seconds} s"
    except (ValueError, TypeError) as err:
        msg = str(err)
        value = kwargs[param]
        if _names(msg, [param, *kwargs]) or (isinstance(value, str) and value
                                             and msg.startswith((value, os.path.abspath(value)))):
            return "clear", msg
        return "vague", f"{type(err).__name__}: {msg}"
    except Exception as err:  # noqa: BLE001 — sorting every failure is the point
        return "vague", f"{type(err).__name__}: {err}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return "accepted", ""


def fuzz(calls: list[Call]) -> tuple[Counter, list[tuple[str, str, str, str]]]:
    """Counts of each outcome, and every vague one as (function, argument, bad value, what happened)."""
    funcs = {(m, n): f for m, n, f in public_functions().values()}
    counts: Counter = Counter()
    vague = []
    for call in calls:
        f = funcs[call.module, call.name]
        params = inspect.signature(inspect.unwrap(f)).parameters
        for param in params:
            if param == "self":
                continue
            bad = {**BAD, **BAD_PATH} if param in PATH_PARAMS else BAD
            for bad_name, make in bad.items():
                kwargs = dict(call.args)
                if params[param].kind is inspect.Parameter.VAR_POSITIONAL:  # one more value among the rest
                    kwargs[param] = (*call.args.get(param, ()), make())
                else:
                    kwargs[param] = make()
                kind, what = outcome(f, kwargs, param)
                counts[kind] += 1
                if kind == "vague":
                    vague.append((f"{call.module}.{call.name}", param, bad_name, what[:200]))
    return counts, vague
