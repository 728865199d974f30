"""Chapter 12's lessons on SmolLM2-135M-Instruct (tokenpath.lessons.real_model and
real_model_heads): the file's summary against its header, the chat answer, the
next-token cuts against their definitions, the logit lens against the model's own
logits and an independent recomputation, the committed measurements read and refused,
and every bad argument refused by name."""

from __future__ import annotations

import json
import math

from pathlib import Path

import numpy as np
import pytest

from tokenpath import pretrained, sampling
from tokenpath.examples import real_model as ex
from tokenpath.gguf_format import read_gguf
from tokenpath.lessons import real_model as R
from tokenpath.lessons import real_model_heads as RH
from tokenpath.safefiles import ModelFileError


@pytest.fixture(scope="module")
def m(smollm2_file):
    return R.real_model()


def test_the_summary_counts_the_header(m):
    g = read_gguf(pretrained.smollm2_path())
    s = R.file_summary()
    assert s.tensors == len(g.tensors) and sum(n for _, n in s.types) == s.tensors
    assert dict(s.items)["llama.block_count"] == m.config.num_hidden_layers
    assert s.tokens == m.config.vocab_size and s.bytes == pretrained.SMOLLM2.size
    assert s.lines()[0].startswith(pretrained.SMOLLM2.filename)


@pytest.mark.parametrize("bad, error", [(3, TypeError), (b"x.gguf", TypeError), ("", ValueError)])
def test_the_summary_refuses_a_bad_path_by_name(bad, error):
    with pytest.raises(error, match="path"):
        R.file_summary(bad)


def test_the_chat_answer_is_the_greedy_continuation_of_the_template(m):
    a = R.chat_answer()
    assert np.array_equal(a.prompt_ids, m.chat_ids(list(ex.REAL_CHAT)))
    z = m.logits(a.prompt_ids)[-1]
    assert int(a.answer_ids[0]) == int(np.argmax(z))
    assert a.ended and int(a.answer_ids[-1]) == m.config.eos_token_id
    assert a.answer == m.tokenizer.decode([int(i) for i in a.answer_ids[:-1]])


@pytest.mark.parametrize("bad, error, name", [
    ([], TypeError, "messages"), ([{"role": "user"}], TypeError, r"messages\[0\]"),
    ([{"role": "user", "content": 3}], TypeError, r"messages\[0\]"), ("hi", TypeError, "messages"),
])
def test_the_chat_answer_refuses_bad_messages_by_name(bad, error, name):
    with pytest.raises(error, match=name):
        R.chat_answer(bad)


def test_the_chat_answer_refuses_bad_steps():
    with pytest.raises(ValueError, match="steps"):
        R.chat_answer(steps=0)


def test_next_token_cuts_are_those_generate_samples_with(m):
    z = np.asarray(m.logits(m.encode(ex.REAL_PROMPTS[2]))[-1], dtype=np.float64)
    for t, k, p in ((1.0, None, 1.0), (0.7, 3, 1.0), (1.3, None, 0.8), (1.0, 5, 0.5)):
        nxt = R.next_token(2, t, k, p)
        want = sampling.next_token_probs(z, temperature=t, top_k=k, top_p=p)
        assert np.allclose(nxt.probs, want, atol=1e-12) and math.isclose(float(nxt.probs.sum()), 1.0)
        assert nxt.kept == int((want > 0).sum())
    assert R.next_token(2, 1.0, 4).kept == 4
    nucleus = R.next_token(2, 1.0, 0, 0.9)
    mass = np.sort(nucleus.probs_t1)[::-1]
    assert mass[: nucleus.kept - 1].sum() < 0.9 <= mass[: nucleus.kept].sum() + 1e-12


def test_next_token_at_zero_temperature_is_greedy():
    nxt = R.next_token(0, 0.0)
    assert nxt.kept == 1 and nxt.probs[nxt.greedy] == 1.0 and nxt.entropy == 0.0


@pytest.mark.parametrize("kwargs, error, name", [
    (dict(prompt=len(ex.REAL_PROMPTS)), ValueError, "prompt"), (dict(prompt=1.5), TypeError, "prompt"),
    (dict(temperature=-1.0), ValueError, "temperature"), (dict(top_k=-2), ValueError, "top_k"),
    (dict(top_k=np.array([])), TypeError, "top_k"), (dict(top_p=0.0), ValueError, "top_p"),
    (dict(top_p=1.5), ValueError, "top_p"), (dict(cover_share=2.0), ValueError, "cover_share"),
    (dict(top=0), ValueError, "top"),
])
def test_next_token_refuses_bad_arguments_by_name(kwargs, error, name):
    with pytest.raises(error, match=name):
        R.next_token(**kwargs)


def test_the_lens_ends_at_the_model_s_logits_and_starts_at_the_embedding_row(m):
    lens = R.logit_lens()
    ids = m.encode(lens.text)
    z = np.asarray(m.logits(ids)[-1], dtype=np.float64)
    assert lens.target == int(np.argmax(z)) and lens.rank[-1] == 1 and lens.top_ids[-1] == lens.target
    # row 0 recomputed by hand: RMSNorm of the last token's embedding row, times Eᵀ
    e = m.embedding[ids[-1]].astype(np.float64)
    g = m.tensors["model.norm.weight"].astype(np.float64)
    row = (e / np.sqrt(np.mean(e * e) + m.config.rms_norm_eps) * g) @ m.embedding.T.astype(np.float64)
    assert lens.rank[0] == 1 + int((row > row[lens.target]).sum())
    assert lens.top_ids[0] == int(np.argmax(row))
    assert lens.rank.shape == (m.config.num_hidden_layers + 1,) and (lens.rank >= 1).all()


def test_the_lens_of_a_middle_layer_is_the_head_on_that_layer_s_output(m):
    # row l is the final norm and the head on the output of layer l − 1, read from a fresh trace
    ids = m.encode("One, two, three")
    lens = R.logit_lens("One, two, three")
    keep = 12
    trace = m.forward(ids)
    z = np.asarray(R.lens_rows(m, trace.layers[keep - 1].out[0]), dtype=np.float64)[-1]
    assert lens.top_ids[keep] == int(np.argmax(z))
    assert lens.rank[keep] == 1 + int((z > z[lens.target]).sum())


def test_first_within_reads_the_ranks():
    lens = R.logit_lens()
    k = lens.first_within(10)
    assert (lens.rank[k:] <= 10).all() and lens.rank[k - 1] > 10
    assert lens.first_top() == lens.first_within(1)
    with pytest.raises(ValueError, match="k"):
        lens.first_within(0)


@pytest.mark.parametrize("bad, error", [("", ValueError), (3, ValueError), ("x" * 2001, ValueError)])
def test_the_lens_refuses_bad_text_by_name(bad, error):
    with pytest.raises(error, match="text"):
        R.logit_lens(bad)


def test_lens_rows_refuses_bad_streams_by_name(m):
    with pytest.raises(ValueError, match="streams"):
        R.lens_rows(m, np.zeros((2, 5)))
    with pytest.raises(TypeError, match="model"):
        R.lens_rows("m", np.zeros((2, 576)))


# ------------------------------------------------------------ the committed measurements

def test_the_measurements_are_of_the_pinned_file_and_state_the_finding():
    record = RH.read_measurements()
    assert record["sha256"] == pretrained.SMOLLM2.sha256
    f = RH.head_finding(record)
    score = np.array(record["induction"]["score"])
    assert f.top == tuple(int(v) for v in np.unravel_index(np.argmax(score), score.shape))
    assert f.top not in f.control and len(set(f.control)) == len(f.control) == ex.REAL_CONTROL_HEADS
    assert f.control == tuple(RH.control_heads(*score.shape, [f.top]))
    assert f.top_second_delta > f.control_worst[1] and f.top_five[0] == f.top
    # the five random heads removed together: the seeded draw outside the top five
    assert f.control_five == tuple(RH.control_heads(*score.shape, list(f.top_five), count=5))
    assert set(f.control_five).isdisjoint(f.top_five) and f.top_five_second_delta > f.control_five_second_delta


def test_measure_names_the_file_it_measured_and_refuses_bad_arguments_by_name():
    from tokenpath.model.gguf_model import _tiny_gguf

    tiny = _tiny_gguf()  # 1 layer, 4 heads
    r = RH.measure(tiny, controls=3)
    assert r["file"] == "tiny.gguf" and r["sha256"] == pretrained._sha256(Path(tiny)) != pretrained.SMOLLM2.sha256
    assert len(r["control"]) == 3 and r["top_five"]["heads"][0] == [r["top"]["layer"], r["top"]["head"]]
    for bad, error, name in ((dict(controls=0), ValueError, "controls"), (dict(controls=4), ValueError, "controls"),
                             (dict(path=""), ValueError, "path"), (dict(path=3), TypeError, "path")):
        with pytest.raises(error, match=name):
            RH.measure(**{"path": tiny, **bad})


def test_the_notebook_prints_the_committed_finding():
    from pathlib import Path

    nb = json.loads((Path(__file__).resolve().parents[1] / "notebooks" / "12_real_model.ipynb").read_text())
    text = "".join("".join(o.get("text", "")) for c in nb["cells"] if c["cell_type"] == "code"
                   for o in c.get("outputs", []))
    f = RH.head_finding()
    runs = RH.read_measurements()["induction"]["sequences"]
    assert f"largest induction score over the {runs} runs: layer {f.top[0]}, head {f.top[1]}, {f.top_score:.2f}" in text
    assert f"silenced: second copy {f.top_second_delta:+.2f} nats" in text
    assert f"five random heads silenced together {f.control_five}: second copy {f.control_five_second_delta:+.2f}" in text
    # the logit lens, the induction score and one head's direct logits computed inline, each equal to the engine's
    assert text.count("same as the engine: True") == 3 and "same as the engine: False" not in text


@pytest.mark.parametrize("change, match", [
    (lambda r: r.update(sha256="0" * 64), "sha256"),
    (lambda r: r.pop("control"), "fields"),
    (lambda r: r["induction"].update(score=[1, 2]), "induction.score"),
])
def test_a_measurement_file_that_is_not_the_committed_kind_is_refused(tmp_path, change, match):
    record = json.loads(RH.MEASUREMENTS.read_text())
    change(record)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(record))
    with pytest.raises(ModelFileError, match=match):
        RH.read_measurements(path)


def test_head_finding_refuses_what_is_not_a_record():
    with pytest.raises(TypeError, match="record"):
        RH.head_finding({"file": 1})


def test_control_heads_are_distinct_seeded_and_exclude():
    a = RH.control_heads(4, 3, [(0, 0), (1, 1)], count=10)
    assert len(set(a)) == 10 and (0, 0) not in a and (1, 1) not in a
    assert a == RH.control_heads(4, 3, [(0, 0), (1, 1)], count=10)
    with pytest.raises(ValueError, match="count"):
        RH.control_heads(2, 2, [], count=5)


def test_ablate_heads_silences_exactly_the_heads_named(m):
    rep = RH.ablate_heads(m, [(3, 1), (3, 4)])
    w, d_h = rep[3].w_o, m.config.head_dim
    assert (w[d_h:2 * d_h] == 0).all() and (w[4 * d_h:5 * d_h] == 0).all()
    assert np.array_equal(w[:d_h], m.layer_weights(3).w_o[:d_h])
    for bad, error, name in (([(30, 0)], ValueError, "layer"), ([(0, 9)], ValueError, "head"),
                             ([3], TypeError, r"heads\[0\]")):
        with pytest.raises(error, match=name):
            RH.ablate_heads(m, bad)


@pytest.mark.torch
def test_the_cuts_equal_transformers_warpers_on_smollm2_s_logits():
    """transformers' sampling chain (temperature, then top-k, then top-p, the order its
    generate builds them in) gives the chapter's distributions on the real logits."""
    torch = pytest.importorskip("torch")
    tr = pytest.importorskip("transformers")
    for prompt, t, k, p in ((0, 1.0, None, 0.9), (2, 0.7, 5, 1.0), (2, 1.3, 10, 0.8), (3, 2.0, None, 0.5)):
        nxt = R.next_token(prompt, t, k, p)
        chain = [tr.TemperatureLogitsWarper(t)] + ([tr.TopKLogitsWarper(k)] if k else []) + [tr.TopPLogitsWarper(p)]
        z = torch.tensor(nxt.logits[None])
        for warp in chain:
            z = warp(None, z)
        theirs = torch.softmax(z, dim=-1)[0].numpy()
        np.testing.assert_allclose(nxt.probs, theirs, rtol=0, atol=1e-9)


def test_direct_logits_read_each_head_through_the_final_norm_and_the_tied_head(m):
    """Section 12.5's direct reading, recomputed head by head from the trace: the mean over
    the second copy of (next ID's logit − the row's mean) and the median rank, and the
    finding it supports: the top induction head hardly writes the copied token; the heads
    that write it most sit after it, in later layers."""
    run = RH.induction_runs()[0]
    n, tr = run.size // 2, m.forward(run)
    top = RH.head_finding().top
    d = RH.direct_logits(m, run, [top, (29, 1)], trace=tr)
    x = tr.layers[-1].out[0, n:-1]
    s = m.tensors["model.norm.weight"] / np.sqrt((x ** 2).mean(-1, keepdims=True) + m.config.rms_norm_eps)
    d_h = m.config.hidden_size // m.config.num_attention_heads
    for l, h in (top, (29, 1)):
        z = (tr.layers[l].heads_out[0, h, n:-1] @ m.layer_weights(l).w_o[h * d_h:(h + 1) * d_h] * s) @ m.embedding.T
        zt = z[np.arange(n - 1), run[n + 1:]]
        assert d.above[l, h] == pytest.approx((zt - z.mean(-1)).mean(), abs=1e-4)
        assert d.rank[l, h] == np.median(1 + (z > zt[:, None]).sum(-1))
    assert d.rank[top] > 10_000 and d.rank[29, 1] < 100
    assert all(layer > top[0] for layer, _ in d.writers(3))
    assert d.above[top] < 0.2 * d.above[d.writers(1)[0]]


@pytest.mark.parametrize("ids, error", [([1, 2, 3], ValueError), ([[1, 2], [1, 2]], ValueError)])
def test_direct_logits_refuse_what_is_not_a_run_written_twice(m, ids, error):
    with pytest.raises(error, match="ids"):
        RH.direct_logits(m, ids)
