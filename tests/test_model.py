"""tokenpath.model: config, names and counts, the forward pass, save/load round trips,
shards, tokenizer.json, the sampling loop."""

from __future__ import annotations

import filecmp
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenpath import attention as att
from tokenpath import sampling
from tokenpath import bpe, embedding, gqa, norms
from tokenpath import examples as ex
from tokenpath import model as M
from tokenpath import safetensors_format as S
from tokenpath.lessons.model_files import tiny_config, tiny_model
from tokenpath.position import rope

SMALL = M.LlamaConfig(vocab_size=40, hidden_size=8, intermediate_size=12, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, rope_theta=50.0)


@pytest.fixture(scope="module")
def tiny():
    return tiny_model()


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory, tiny):
    return M.save(tmp_path_factory.mktemp("tiny"), tiny)


# ------------------------------------------------------------------ config


def _hf_dict(**over):
    d = SMALL.to_dict()
    d.update(over)
    return d


def test_rope_base_is_read_from_rope_parameters_or_the_top_level():
    d = _hf_dict()
    assert M.LlamaConfig.from_dict(d).rope_theta == 50.0
    del d["rope_parameters"]
    d["rope_theta"] = 123.0  # transformers 4 layout
    assert M.LlamaConfig.from_dict(d).rope_theta == 123.0
    del d["rope_theta"]
    assert M.LlamaConfig.from_dict(d).rope_theta == 10000.0  # Llama's default


def test_config_round_trips_through_its_dict():
    assert M.LlamaConfig.from_dict(SMALL.to_dict()) == SMALL
    assert M.LlamaConfig.from_dict(json.loads(json.dumps(SMALL.to_dict()))) == SMALL


def test_head_dim_and_kv_heads_default_like_transformers():
    d = _hf_dict()
    del d["head_dim"], d["num_key_value_heads"]
    c = M.LlamaConfig.from_dict(d)
    assert c.head_dim == 2 and c.num_key_value_heads == 4


@pytest.mark.parametrize("over, words", [
    ({"architectures": ["GPT2LMHeadModel"]}, "architectures"),
    ({"model_type": "mistral"}, "model_type"),
    ({"hidden_act": "gelu"}, "hidden_act"),
    ({"attention_bias": "yes"}, "attention_bias must be true or false"),
    ({"mlp_bias": True}, "mlp_bias"),
    ({"rope_parameters": {"rope_theta": 50.0, "rope_type": "yarn"}}, "RoPE scaling 'yarn'"),
    ({"rope_parameters": {"rope_theta": 50.0, "rope_type": "llama3"}}, "'llama3' scaling but has no 'factor'"),
    ({"rope_theta": 7.0}, "disagree"),
    ({"num_key_value_heads": 3}, "n_q_heads=4 is not divisible by n_kv_heads=3"),
    ({"head_dim": 3}, "head_dim must be even"),
    ({"vocab_size": "many"}, "vocab_size must be an integer"),
    ({"rope_parameters": {"rope_theta": "big"}}, "rope_theta must be a number"),
])
def test_unsupported_or_inconsistent_configs_are_refused_by_field(over, words):
    with pytest.raises(M.ModelFileError, match="config.json") as err:
        M.LlamaConfig.from_dict(_hf_dict(**over))
    assert words in str(err.value)


def test_config_without_a_required_field_or_an_architecture_is_refused():
    d = _hf_dict()
    del d["hidden_size"]
    with pytest.raises(M.ModelFileError, match="has no 'hidden_size'"):
        M.LlamaConfig.from_dict(d)
    d = _hf_dict()
    del d["architectures"], d["model_type"]
    with pytest.raises(M.ModelFileError, match="names neither"):
        M.LlamaConfig.from_dict(d)
    with pytest.raises(M.ModelFileError, match="JSON object"):
        M.LlamaConfig.from_dict([1, 2])


# ---------------------------------------------------------- names and counts


configs = st.builds(
    lambda v, d_h, hkv, g, layers, ff, tied: M.LlamaConfig(
        vocab_size=v, hidden_size=d_h * hkv * g, intermediate_size=ff, num_hidden_layers=layers,
        num_attention_heads=hkv * g, num_key_value_heads=hkv, tie_word_embeddings=tied),
    st.integers(1, 500), st.sampled_from([2, 4, 8]), st.integers(1, 3), st.integers(1, 3),
    st.integers(1, 4), st.integers(1, 64), st.booleans())


@settings(max_examples=25, deadline=None)
@given(configs)
def test_parameter_count_from_the_config_equals_the_sum_of_tensor_sizes(c):
    count = M.count_parameters(c)
    assert count.total == sum(math.prod(s) for s in M.tensor_shapes(c).values())
    assert count.rows()[-1] == ("total", count.total)
    untied = M.count_parameters(M.LlamaConfig(**{**c.__dict__, "tie_word_embeddings": False}))
    assert untied.total - M.count_parameters(M.LlamaConfig(**{**c.__dict__, "tie_word_embeddings": True})).total \
        == c.vocab_size * c.hidden_size


def test_random_model_stores_exactly_the_counted_parameters(tiny):
    assert tiny.parameter_count == M.count_parameters(tiny.config).total
    tied = tiny_model(tied=True)
    assert "lm_head.weight" not in tied.tensors
    assert tied.parameter_count == M.count_parameters(tied.config).total


def test_tensor_names_follow_hugging_face_and_each_has_a_place_in_figure_4(tiny):
    names = list(tiny.tensors)
    assert names[0] == "model.embed_tokens.weight" and names[-1] == "lm_head.weight"
    assert "model.layers.1.self_attn.q_proj.weight" in names
    for row in tiny.tensor_table():
        assert row[3]
    with pytest.raises(ValueError, match="not a Llama tensor name"):
        M.tensor_role("transformer.h.0.attn.c_attn.weight")


def test_kv_projections_are_narrower_than_the_query_projection_by_the_group_size(tiny):
    c = tiny.config
    q = tiny.tensors["model.layers.0.self_attn.q_proj.weight"]
    k = tiny.tensors["model.layers.0.self_attn.k_proj.weight"]
    assert q.shape == (c.num_attention_heads * c.head_dim, c.hidden_size)
    assert q.shape[0] == c.group_size * k.shape[0]


# -------------------------------------------------------------- forward pass


def test_forward_is_the_composition_of_the_engines_pieces():
    m = M.random_model(SMALL, seed=3)
    ids = np.array([5, 1, 5, 39, 0])
    tr = m.forward(ids)
    # rebuild layer 0 by hand from the same pieces (MHA with K/V repeated per group)
    w = m.layer_weights(0)
    x = embedding.lookup(m.embedding, ids)
    np.testing.assert_array_equal(tr.x, x)
    h = norms.rms_norm(x, w.attn_norm, eps=SMALL.rms_norm_eps)
    pos = np.arange(ids.size)
    q = rope(att.split_heads((h @ w.w_q)[None], 4), pos, base=50.0)
    k = gqa.repeat_kv(rope(att.split_heads((h @ w.w_k)[None], 2), pos, base=50.0), 2)
    v = gqa.repeat_kv(att.split_heads((h @ w.w_v)[None], 2), 2)
    o = att.merge_heads(att.causal_attention(q, k, v).output)[0] @ w.w_o
    y = x + o
    out = y + norms.swiglu(norms.rms_norm(y, w.ffn_norm, eps=SMALL.rms_norm_eps), w.w_gate, w.w_up, w.w_down)
    np.testing.assert_allclose(tr.layers[0].out[0], out, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(tr.logits, tr.final @ m.tensors["lm_head.weight"].T, rtol=1e-12)


def test_trace_keeps_hkv_heads_for_keys_and_values_and_hq_for_queries(tiny):
    tr = tiny.forward(tiny.encode(ex.MODEL_PROMPT))
    t, c = tr.ids.size, tiny.config
    layer = tr.layers[0]  # the decoder's trace of a batch of one sequence
    assert layer.q.shape == (1, c.num_attention_heads, t, c.head_dim)
    assert layer.k.shape == layer.v.shape == (1, c.num_key_value_heads, t, c.head_dim)
    assert layer.weights.shape == (1, c.num_attention_heads, t, t)
    np.testing.assert_allclose(layer.weights.sum(-1), 1.0)
    assert tr.logits.shape == (t, c.vocab_size)
    assert dict(tr.shape_table())["logits"] == (t, c.vocab_size)


def test_a_later_id_never_changes_an_earlier_row_of_logits(tiny):
    a = tiny.logits([10, 20, 30, 40])
    b = tiny.logits([10, 20, 30, 41])
    np.testing.assert_array_equal(a[:3], b[:3])
    assert not np.allclose(a[3], b[3])


def test_tied_model_uses_the_embedding_as_its_head():
    m = tiny_model(tied=True)
    np.testing.assert_array_equal(m.w_out, m.embedding.T)


def test_logits_refuse_bad_ids(tiny):
    with pytest.raises(ValueError, match="row numbers 0 … 384"):
        tiny.logits([1, 385])
    with pytest.raises(ValueError, match="1-D"):
        tiny.logits([[1, 2]])
    with pytest.raises(TypeError, match="integers"):
        tiny.logits([1.5])


def test_model_refuses_a_tokenizer_with_more_ids_than_embedding_rows(tiny):
    small = M.LlamaConfig(**{**tiny.config.__dict__, "vocab_size": 300, "eos_token_id": None})
    with pytest.raises(M.ModelFileError, match="385 IDs but config vocab_size is 300"):
        M.random_model(small, seed=0, tokenizer=tiny.tokenizer)


def test_generation_is_seeded_and_feeds_back_sampled_ids(tiny):
    g1 = tiny.generate(ex.MODEL_PROMPT, 4, seed=3)
    g2 = tiny.generate(ex.MODEL_PROMPT, 4, seed=3)
    np.testing.assert_array_equal(g1.sampled, g2.sampled)
    assert g1.text.startswith(ex.MODEL_PROMPT)
    np.testing.assert_allclose(g1.probs.sum(-1), 1.0)
    greedy = tiny.generate([3, 7], 2, temperature=0.0)
    assert greedy.sampled[0] == int(np.argmax(tiny.logits([3, 7])[-1]))


# -------------------------------------------------------------- files


def test_save_then_load_gives_identical_tensors_logits_and_tokenizer(tiny, tiny_dir):
    back = M.load(tiny_dir)
    assert back.config == tiny.config
    assert set(back.tensors) == set(tiny.tensors)
    for name in tiny.tensors:
        np.testing.assert_array_equal(back.tensors[name], tiny.tensors[name])
    assert set(back.dtypes.values()) == {"F32"}
    ids = tiny.encode(ex.MODEL_PROMPT)
    np.testing.assert_array_equal(back.logits(ids), tiny.logits(ids))
    assert back.tokenizer.merges == tiny.tokenizer.merges
    assert back.tokenizer.special_tokens == tiny.tokenizer.special_tokens


def test_the_tiny_checkpoint_is_regenerated_byte_for_byte(tmp_path, tiny_dir):
    again = M.save(tmp_path, tiny_model())
    for name in ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"):
        assert filecmp.cmp(tiny_dir / name, again / name, shallow=False), name


def test_config_json_keeps_the_rope_base_where_transformers_5_reads_it(tiny_dir):
    cfg = json.loads((tiny_dir / "config.json").read_text())
    assert cfg["rope_parameters"] == {"rope_theta": ex.MODEL_ROPE_THETA, "rope_type": "default"}
    assert cfg["architectures"] == ["LlamaForCausalLM"]


def test_sharded_checkpoint_loads_to_the_same_model(tmp_path, tiny):
    M.save(tmp_path, tiny, max_shard_size=ex.MODEL_SHARD_BYTES)
    index = json.loads((tmp_path / M.INDEX_NAME).read_text())
    shards = sorted(set(index["weight_map"].values()))
    assert len(shards) > 1 and shards[0] == f"model-00001-of-{len(shards):05d}.safetensors"
    assert not (tmp_path / M.WEIGHTS_NAME).exists()
    assert index["metadata"]["total_size"] == 4 * tiny.parameter_count
    back = M.load(tmp_path)
    np.testing.assert_array_equal(back.logits([1, 2, 3]), tiny.logits([1, 2, 3]))
    # saving unsharded into the same directory removes the shards
    M.save(tmp_path, tiny)
    assert not list(tmp_path.glob("model-*-of-*.safetensors")) and not (tmp_path / M.INDEX_NAME).exists()


def test_float16_weights_load_as_their_rounded_values(tmp_path, tiny):
    M.save(tmp_path, tiny, dtype="float16")
    back = M.load(tmp_path)
    assert set(back.dtypes.values()) == {"F16"}
    name = "model.layers.0.mlp.up_proj.weight"
    np.testing.assert_array_equal(back.tensors[name], tiny.tensors[name].astype(np.float16).astype(np.float64))


def test_save_refuses_bad_arguments(tmp_path, tiny):
    with pytest.raises(TypeError, match="Model"):
        M.save(tmp_path, {"a": 1})
    with pytest.raises(ValueError, match="dtype"):
        M.save(tmp_path, tiny, dtype="int8")
    with pytest.raises(ValueError, match="max_shard_size must be >= 1"):
        M.save(tmp_path, tiny, max_shard_size=0)


# -------------------------------------------------------------- tokenizer.json


def test_tokenizer_json_is_byte_level_bpe_with_the_engines_ids(tiny):
    d = M.tokenizer_json(tiny.tokenizer)
    assert d["model"]["type"] == "BPE" and d["pre_tokenizer"]["type"] == "ByteLevel"
    assert d["model"]["vocab"]["Ġ"] == 32 and d["model"]["vocab"]["!"] == 33
    assert len(d["model"]["merges"]) == len(tiny.tokenizer.merges)
    assert d["added_tokens"][0] == {"id": 384, "content": ex.MODEL_EOS_TOKEN, "single_word": False,
                                    "lstrip": False, "rstrip": False, "normalized": False, "special": True}


def _rewrite(path, change):
    d = json.loads(path.read_text())
    change(d)
    path.write_text(json.dumps(d))


@pytest.mark.parametrize("change, words", [
    (lambda d: d.__setitem__("normalizer", {"type": "NFKC"}), "normalizer is {'type': 'NFKC'}"),
    (lambda d: d.__setitem__("pre_tokenizer", {"type": "Sequence", "pretokenizers": [
        {"type": "Digits", "individual_digits": True}, {**d["pre_tokenizer"], "add_prefix_space": True}]}),
     r"pre_tokenizer.pretokenizers\[1\].add_prefix_space is true"),
    (lambda d: d["model"].__setitem__("type", "WordPiece"), "model.type is 'WordPiece'"),
    (lambda d: d["model"]["merges"].__setitem__(0, ["Ġ"]), "merges\\[0\\]"),
    (lambda d: d["model"]["merges"].__setitem__(0, ["Ġ", "☃"]), "not a ByteLevel character"),
    (lambda d: d["added_tokens"][0].__setitem__("id", 999), "Hugging Face gives it 384"),
    (lambda d: d["model"]["vocab"].pop("Ġ"), "model.vocab has no ID for 'Ġ'"),
])
def test_tokenizer_json_the_engine_cannot_reproduce_is_refused(tmp_path, tiny, change, words):
    path = M.write_tokenizer(tmp_path, tiny.tokenizer)
    _rewrite(path, change)
    with pytest.raises(M.ModelFileError, match=words):
        M.read_tokenizer(path)


def test_tokenizer_json_ids_come_from_its_table_not_from_byte_order(tmp_path, tiny):
    path = M.write_tokenizer(tmp_path, tiny.tokenizer)
    _rewrite(path, lambda d: d["model"]["vocab"].update({"Ġ": 33, "!": 32}))  # space and "!" swap IDs
    ids, again = tiny.tokenizer.encode("Hello world!"), M.read_tokenizer(path).encode("Hello world!")
    assert again == [{32: 33, 33: 32}.get(i, i) for i in ids] and 32 in ids and 33 in ids


def test_tokenizer_json_round_trips_merge_strings_in_the_older_format(tmp_path, tiny):
    path = M.write_tokenizer(tmp_path, tiny.tokenizer)
    _rewrite(path, lambda d: d["model"].__setitem__("merges", [" ".join(p) for p in d["model"]["merges"]]))
    assert M.read_tokenizer(path).merges == tiny.tokenizer.merges


def test_tokenizer_with_a_different_pattern_cannot_be_written():
    tok = bpe.Tokenizer([], pattern=r"\S+|\s+")
    with pytest.raises(ValueError, match="GPT-2 pattern"):
        M.tokenizer_json(tok)


def test_model_refuses_wrong_argument_types(tiny):
    with pytest.raises(TypeError, match="config must be a LlamaConfig"):
        M.Model(tiny.config.to_dict(), tiny.tensors)
    with pytest.raises(TypeError, match="tokenizer must be a tokenpath.bpe.Tokenizer"):
        M.Model(tiny.config, tiny.tensors, tokenizer="gpt2")
    with pytest.raises(TypeError, match="tensors must be a mapping"):
        M.Model(tiny.config, list(tiny.tensors.values()))
    with pytest.raises(TypeError, match="config must be a LlamaConfig"):
        M.count_parameters({"vocab_size": 3})
    ints = {**tiny.tensors, "model.norm.weight": np.ones(16, dtype=np.int32)}
    with pytest.raises(M.ModelFileError, match="'model.norm.weight' has dtype int32"):
        M.Model(tiny.config, ints)


def test_a_model_without_tokenizer_refuses_text_but_runs_ids():
    m = M.random_model(SMALL, seed=0)
    with pytest.raises(ValueError, match="no tokenizer"):
        m.generate("hello", 1)
    g = m.generate([1, 2], 2, seed=0)
    assert g.text is None and g.ids.size == 4


def test_list_files_and_raw_header_describe_the_directory(tiny_dir):
    files = dict(M.list_files(tiny_dir))
    length_bytes, n, text = S.raw_header(tiny_dir / M.WEIGHTS_NAME)
    assert int.from_bytes(length_bytes, "little") == n == len(text.encode("utf-8"))
    assert files[M.WEIGHTS_NAME] == 8 + n + 4 * M.count_parameters(tiny_config()).total
    with pytest.raises(M.ModelFileError, match="not a directory"):
        M.list_files(tiny_dir / M.WEIGHTS_NAME)


def test_config_values_out_of_range_are_refused():
    with pytest.raises(ValueError, match="rope_theta must be > 0"):
        M.LlamaConfig(10, 8, 16, 1, 4, 2, rope_theta=0.0)
    with pytest.raises(ValueError, match="eos_token_id must be <= 9"):
        M.LlamaConfig(10, 8, 16, 1, 4, 2, eos_token_id=10)
    with pytest.raises(TypeError, match="tie_word_embeddings"):
        M.LlamaConfig(10, 8, 16, 1, 4, 2, tie_word_embeddings="yes")
    with pytest.raises(ValueError, match="give head_dim"):
        M.LlamaConfig(10, 9, 16, 1, 4, 2)


@settings(max_examples=8, deadline=None)
@given(configs, st.integers(0, 2**16), st.sampled_from([None, 600, 5_000]))
def test_any_config_survives_save_and_load_with_identical_logits(c, seed, shard):
    import tempfile

    m = M.random_model(c, seed=seed)
    with tempfile.TemporaryDirectory() as d:
        back = M.load(M.save(d, m, max_shard_size=shard))
    assert back.config == c
    ids = np.arange(min(c.vocab_size, 5))
    np.testing.assert_array_equal(back.logits(ids), m.logits(ids))


# ------------------------------------------------------------------ Mixtral

MIX = M.MixtralConfig(vocab_size=40, hidden_size=8, intermediate_size=12, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, rope_theta=50.0, num_local_experts=4,
                      num_experts_per_tok=2)


def test_mixtral_config_round_trips_and_is_recognised_by_the_llama_reader():
    d = MIX.to_dict()
    assert d["architectures"] == ["MixtralForCausalLM"] and d["model_type"] == "mixtral"
    assert d["num_local_experts"] == 4 and d["num_experts_per_tok"] == 2 and d["sliding_window"] is None
    assert M.LlamaConfig.from_dict(d) == MIX == M.MixtralConfig.from_dict(json.loads(json.dumps(d)))
    bare = {k: v for k, v in d.items() if k not in ("rms_norm_eps", "rope_parameters", "num_local_experts")}
    c = M.LlamaConfig.from_dict(bare)  # transformers' Mixtral defaults
    assert (c.rms_norm_eps, c.rope_theta, c.num_local_experts) == (1e-5, 1e6, 8)


@pytest.mark.parametrize("change, words", [
    ({"sliding_window": 4096}, "sliding_window is 4096"),
    ({"num_experts_per_tok": 5}, "num_experts_per_tok must be <= 4"),
    ({"num_local_experts": 0}, "num_local_experts must be >= 1"),
    ({"architectures": ["MixtralForCausalLM"], "model_type": "llama"}, "model_type is 'llama'"),
])
def test_mixtral_configs_the_engine_cannot_run_are_refused(change, words):
    with pytest.raises(M.ModelFileError, match=words):
        M.LlamaConfig.from_dict({**MIX.to_dict(), **change})


def test_mixtral_tensor_names_and_counts_total_and_active():
    s = M.tensor_shapes(MIX)
    assert s["model.layers.1.block_sparse_moe.gate.weight"] == (4, 8)
    assert s["model.layers.0.block_sparse_moe.experts.3.w1.weight"] == (12, 8)
    assert s["model.layers.0.block_sparse_moe.experts.3.w2.weight"] == (8, 12)
    assert not any(".mlp." in n for n in s)
    n = M.count_parameters(MIX)
    assert n.total == sum(math.prod(v) for v in s.values())
    assert n.router == 8 * 4 and n.mlp == 4 * 3 * 8 * 12 and n.active_mlp == 2 * 3 * 8 * 12
    assert n.active == n.total - 2 * 2 * 3 * 8 * 12
    assert dict(n.rows())["active per token"] == n.active
    assert M.tensor_role("model.layers.1.block_sparse_moe.experts.2.w3.weight").startswith("layer 1, expert 2: W_up")
    assert "router" in M.tensor_role("model.layers.0.block_sparse_moe.gate.weight")


def test_mixtral_round_trips_and_its_trace_shows_router_choices(tmp_path):
    m = M.random_model(MIX, seed=5)
    assert "experts=4, k=2" in repr(m)
    back = M.load(M.save(tmp_path, m))
    assert back.config == MIX
    ids = [5, 1, 5, 39, 0]
    np.testing.assert_array_equal(back.logits(ids), m.logits(ids))
    layer = m.forward(ids).layers[1]
    assert layer.chosen_experts.shape == layer.expert_gates.shape == (1, 5, 2)
    np.testing.assert_allclose(layer.expert_gates.sum(-1), 1.0)
    w = m.layer_weights(1)
    assert w.n_experts == 4 and w.w_gate.shape == (4, 8, 12)
    np.testing.assert_array_equal(w.w_up[2], m.tensors["model.layers.1.block_sparse_moe.experts.2.w3.weight"].T)


def test_fused_expert_tensors_load_as_the_per_expert_names():
    m = M.random_model(MIX, seed=5)
    fused = dict(m.tensors)
    for i in range(2):
        p = f"model.layers.{i}."
        ex_ = [[fused.pop(p + f"block_sparse_moe.experts.{e}.{w}.weight") for e in range(4)] for w in ("w1", "w3", "w2")]
        fused[p + "mlp.experts.gate_up_proj"] = np.concatenate([np.stack(ex_[0]), np.stack(ex_[1])], axis=1)
        fused[p + "mlp.experts.down_proj"] = np.stack(ex_[2])
        fused[p + "mlp.gate.weight"] = fused.pop(p + "block_sparse_moe.gate.weight")
    again = M.Model(MIX, fused, dtypes={n: "F32" for n in fused})
    assert set(again.tensors) == set(m.tensors) and set(again.dtypes.values()) == {"F32"}
    np.testing.assert_array_equal(again.logits([1, 2, 3]), m.logits([1, 2, 3]))


def test_model_generate_is_the_chapter_3_loop_on_the_models_logits(tiny):
    g = tiny.generate([3, 7], 3, seed=4, top_k=5)
    steps = sampling.generate([3, 7], 3, seed=4, top_k=5, logits_fn=tiny.logits)
    assert g.sampled.tolist() == [s.sampled for s in steps]
    # the model's loop reads a K/V cache: the same distributions, up to float64 rounding
    np.testing.assert_allclose(g.probs, [s.probs for s in steps], rtol=0, atol=1e-12)
    assert steps[0].x is None and steps[0].hidden is None


def test_generate_with_a_logits_fn_refuses_bad_arguments(tiny):
    with pytest.raises(TypeError, match="logits_fn must be callable"):
        sampling.generate([3], 1, logits_fn=3)
    with pytest.raises(ValueError, match="give either logits_fn or table/layer/w_out"):
        sampling.generate([3], 1, logits_fn=tiny.logits, table=np.ones((4, 2)))
    with pytest.raises(ValueError, match=r"must return \[T, V\] with T = 2"):
        sampling.generate([3, 7], 1, logits_fn=lambda ids: np.ones((1, 5)))
    with pytest.raises(ValueError, match="row numbers 0 … 4"):
        sampling.generate([3, 7], 1, logits_fn=lambda ids: np.ones((ids.size, 5)))
    with pytest.raises(ValueError, match="prompt must have 1 axes"):
        sampling.generate([[3, 7]], 1, logits_fn=tiny.logits)
