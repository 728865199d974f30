"""Hostile ``tokenizer.json`` files: every malformed or unsupported file is one
``ModelFileError`` that names the file and the field, quickly, and never a Python
internals error (KeyError, TypeError, AttributeError, RecursionError …)."""

from __future__ import annotations

import copy
import json
import os
import time

import pytest
from hypothesis import HealthCheck, given, settings

from hypothesis import strategies as st

from _fuzz_budget import examples
from tokenpath import bpe
from tokenpath import model as M


@pytest.fixture(scope="module")
def tok():
    t = bpe.train("low lower newer lowest wider " * 20, 280).with_special_tokens(["<s>", "</s>"])
    assert t.special_tokens["<s>"] == BOS_ID
    return t


@pytest.fixture(scope="module")
def good(tok):
    return M.tokenizer_json(tok)


def _refused(tmp_path, d, *words):
    path = tmp_path / "tokenizer.json"
    path.write_text(d if isinstance(d, str) else json.dumps(d), encoding="utf-8")
    start = time.perf_counter()
    with pytest.raises(M.ModelFileError) as info:
        M.read_tokenizer(path)
    assert time.perf_counter() - start < 1.0
    msg = str(info.value)
    assert msg.startswith(f"{path}: ")
    for w in words:
        assert w in msg, msg
    return msg


def _changed(good, change):
    d = json.loads(json.dumps(good))
    change(d)
    return d


# each case: a change to a good file, and the field the error must name
CASES = {
    "added token without id": (lambda d: d["added_tokens"][0].pop("id"), "added_tokens[0] has no 'id'"),
    "added token without content": (lambda d: d["added_tokens"][0].pop("content"), "added_tokens[0] has no 'content'"),
    "added_tokens null": (lambda d: d.update(added_tokens=None), "added_tokens is None"),
    "added_tokens a dict": (lambda d: d.update(added_tokens={"a": 1}), "added_tokens is"),
    "added token a string": (lambda d: d["added_tokens"].__setitem__(0, "<s>"), "added_tokens[0] is '<s>'"),
    "added token id a string": (lambda d: d["added_tokens"][0].update(id="280"), "added_tokens[0].id is '280'"),
    "added token id a float": (lambda d: d["added_tokens"][0].update(id=280.0), "added_tokens[0].id is 280.0"),
    "added token id a bool": (lambda d: d["added_tokens"][0].update(id=True), "added_tokens[0].id is True"),
    "added token id out of range": (lambda d: d["added_tokens"][0].update(id=10**19), "added_tokens[0].id"),
    "added token id negative": (lambda d: d["added_tokens"][0].update(id=-1), "added_tokens[0].id"),
    "added token content a number": (lambda d: d["added_tokens"][0].update(content=5), "added_tokens[0].content is 5"),
    "added token empty": (lambda d: d["added_tokens"][0].update(content=""), "added_tokens"),
    "added token lone surrogate": (lambda d: d["added_tokens"][0].update(content="<\ud800>"), "lone surrogate"),
    "duplicate added tokens": (lambda d: d["added_tokens"].append(dict(d["added_tokens"][0])),
                               "added_tokens lists '<s>' more than once"),
    "same id twice": (lambda d: d["added_tokens"][1].update(id=d["added_tokens"][0]["id"]), "added_tokens["),
    "added token lstrip": (lambda d: d["added_tokens"][0].update(lstrip=True), "added_tokens[0].lstrip is True"),
    "added token rstrip": (lambda d: d["added_tokens"][0].update(rstrip=True), "added_tokens[0].rstrip"),
    "added token single_word": (lambda d: d["added_tokens"][0].update(single_word=True), "single_word"),
    "added token unknown field": (lambda d: d["added_tokens"][0].update(weight=2), "added_tokens[0].weight"),
    "merges a number": (lambda d: d["model"].update(merges=7), "model.merges is 7"),
    "merges null": (lambda d: d["model"].update(merges=None), "model.merges is None"),
    "merge a number": (lambda d: d["model"]["merges"].__setitem__(1, 5), "model.merges[1] is 5"),
    "merge of three": (lambda d: d["model"]["merges"].__setitem__(1, ["l", "o", "w"]), "model.merges[1]"),
    "merge string of three": (lambda d: d["model"].update(merges=["l o w"]), "model.merges[0]"),
    "merge part a number": (lambda d: d["model"]["merges"].__setitem__(0, ["l", 3]), "model.merges[0][1] is 3"),
    "merge part empty": (lambda d: d["model"]["merges"].__setitem__(0, ["", "l"]), "model.merges[0][0]"),
    "merge of unmade tokens": (lambda d: d["model"]["merges"].__setitem__(0, ["lowe", "r"]), "model.merges"),
    "merges in both formats": (lambda d: d["model"]["merges"].__setitem__(1, " ".join(d["model"]["merges"][1])),
                               "model.merges[1]"),
    "duplicate merge": (lambda d: d["model"]["merges"].append(d["model"]["merges"][0]), "repeats model.merges[0]"),
    "vocab a list": (lambda d: d["model"].update(vocab=list(d["model"]["vocab"])), "model.vocab is ["),
    "vocab null": (lambda d: d["model"].update(vocab=None), "model.vocab is None"),
    "vocab id a string": (lambda d: d["model"]["vocab"].update(l="108"), "model.vocab['l'] is '108'"),
    "vocab id a float": (lambda d: d["model"]["vocab"].update(l=108.0), "model.vocab['l'] is 108.0"),
    "vocab id out of range": (lambda d: d["model"]["vocab"].update(l=10**18),
                              "model.vocab['l'] is 1000000000000000000; IDs are from 0 to 2147483647"),
    "vocab missing a token": (lambda d: d["model"]["vocab"].pop("l"), "model.vocab has"),
    "vocab extra token": (lambda d: d["model"]["vocab"].update({"lolo": 999}), "added_tokens[0].id"),
    "vocab token not ByteLevel": (lambda d: d["model"]["vocab"].update({"☃": d["model"]["vocab"].pop("l")}),
                                  "not a ByteLevel character"),
    "model null": (lambda d: d.update(model=None), "model is None"),
    "model a list": (lambda d: d.update(model=[1]), "model is [1]"),
    "model type": (lambda d: d["model"].update(type="WordPiece"), "model.type is 'WordPiece'"),
    "model unknown field": (lambda d: d["model"].update(foo=1), "model.foo"),
    "unknown field": (lambda d: d.update(foo=1), "foo is a field"),
    "dropout": (lambda d: d["model"].update(dropout=0.1), "model.dropout is 0.1"),
    "dropout a string": (lambda d: d["model"].update(dropout="0"), "model.dropout is '0'"),
    "continuing_subword_prefix": (lambda d: d["model"].update(continuing_subword_prefix="##"),
                                  "model.continuing_subword_prefix is '##'"),
    "end_of_word_suffix": (lambda d: d["model"].update(end_of_word_suffix="</w>"), "model.end_of_word_suffix"),
    "byte_fallback": (lambda d: d["model"].update(byte_fallback=True), "model.byte_fallback is True"),
    "ignore_merges a string": (lambda d: d["model"].update(ignore_merges="no"), "model.ignore_merges is 'no'"),
    "unk_token a number": (lambda d: d["model"].update(unk_token=3), "model.unk_token is 3"),
    "normalizer": (lambda d: d.update(normalizer={"type": "Lowercase"}), "normalizer is"),
    "pre_tokenizer null": (lambda d: d.update(pre_tokenizer=None), "pre_tokenizer is None"),
    "pre_tokenizer a string": (lambda d: d.update(pre_tokenizer="ByteLevel"), "pre_tokenizer is 'ByteLevel'"),
    "add_prefix_space after Digits": (lambda d: d.update(pre_tokenizer={"type": "Sequence", "pretokenizers": [
        {"type": "Digits", "individual_digits": True}, {**d["pre_tokenizer"], "add_prefix_space": True}]}),
        "pre_tokenizer.pretokenizers[1].add_prefix_space is true on a ByteLevel after another"),
    "add_prefix_space missing": (lambda d: d["pre_tokenizer"].pop("add_prefix_space"),
                                 "pre_tokenizer.add_prefix_space is missing"),
    "add_prefix_space a list": (lambda d: d["pre_tokenizer"].update(add_prefix_space=[False]),
                                "pre_tokenizer.add_prefix_space is [False]"),
    "decoder null": (lambda d: d.update(decoder=None), "decoder is None"),
    "decoder other": (lambda d: d.update(decoder={"type": "WordPiece", "prefix": "##"}), "decoder is"),
    "truncation": (lambda d: d.update(truncation={"max_length": 3}), "truncation is"),
    "padding": (lambda d: d.update(padding={"length": 3}), "padding is"),
    "post_processor other": (lambda d: d.update(post_processor={"type": "BertProcessing", "sep": ["</s>", 281],
                                                                "cls": ["<s>", 280]}),
                             "post_processor has type 'BertProcessing'"),
    "post_processor a list": (lambda d: d.update(post_processor=[1]), "post_processor is [1]"),
}


def _template(single, special_tokens=None, **extra):
    return {"type": "TemplateProcessing", "single": single, "pair": [],
            "special_tokens": {"<s>": {"id": "<s>", "ids": [BOS_ID], "tokens": ["<s>"]}}
            if special_tokens is None else special_tokens, **extra}


BOS_ID = 272  # 256 bytes, 16 merges, then "<s>" (the fixture checks it)
SEQ = {"Sequence": {"id": "A", "type_id": 0}}
BOS = {"SpecialToken": {"id": "<s>", "type_id": 0}}
CASES.update({
    "template without the text": (lambda d: d.update(post_processor=_template([BOS])), "post_processor.single"),
    "template with the text twice": (lambda d: d.update(post_processor=_template([SEQ, SEQ])), "exactly once"),
    "template single null": (lambda d: d.update(post_processor=_template(None)), "post_processor.single is None"),
    "template pair missing": (lambda d: d.update(post_processor={k: v for k, v in _template([SEQ]).items()
                                                                 if k != "pair"}), "post_processor.pair"),
    "template piece a string": (lambda d: d.update(post_processor=_template(["$A"])), "post_processor.single[0]"),
    "template sequence B": (lambda d: d.update(post_processor=_template([{"Sequence": {"id": "B", "type_id": 0}}])),
                            "post_processor.single[0].Sequence.id is 'B'"),
    "template type id": (lambda d: d.update(post_processor=_template([{"SpecialToken": {"id": "<s>", "type_id": 1}},
                                                                      SEQ])),
                         "post_processor.single[0].SpecialToken.type_id is 1"),
    "template unlisted token": (lambda d: d.update(post_processor=_template([BOS, SEQ], {})),
                                "post_processor.single[0].SpecialToken.id is '<s>', which post_processor"),
    "template other ids": (lambda d: d.update(post_processor=_template(
        [BOS, SEQ], {"<s>": {"id": "<s>", "ids": [5, 6], "tokens": ["<s>", "x"]}})),
        "post_processor.special_tokens['<s>']"),
    "template token not added": (lambda d: d.update(post_processor=_template(
        [{"SpecialToken": {"id": "<x>", "type_id": 0}}, SEQ],
        {"<x>": {"id": "<x>", "ids": [5], "tokens": ["<x>"]}})), "which is not an added token"),
    "template unknown field": (lambda d: d.update(post_processor=_template([SEQ], foo=1)), "post_processor.foo"),
    "template special_tokens a list": (lambda d: d.update(post_processor=_template([BOS, SEQ], [])),
                                       "post_processor.special_tokens is []"),
})


@pytest.mark.parametrize("name", list(CASES))
def test_malformed_tokenizer_json_is_one_clear_error_naming_file_and_field(tmp_path, good, name):
    change, words = CASES[name]
    _refused(tmp_path, _changed(good, change), words)


def test_a_good_file_and_harmless_settings_are_read(tmp_path, tok, good):
    for change in (lambda d: None,
                   lambda d: d["model"].update(dropout=0, unk_token="<unk>", fuse_unk=True),
                   lambda d: d["model"].update(continuing_subword_prefix="", end_of_word_suffix=""),
                   lambda d: d["model"].pop("type"),
                   lambda d: d["added_tokens"][0].update(normalized=True),
                   lambda d: d["pre_tokenizer"].pop("use_regex"),
                   lambda d: d.update(post_processor=dict(d["decoder"])),
                   lambda d: d["model"].update(merges=[" ".join(p) for p in d["model"]["merges"]]),
                   lambda d: d["model"].update(ignore_merges=True)):  # trained merges make every token
        path = tmp_path / "tokenizer.json"
        path.write_text(json.dumps(_changed(good, change)), encoding="utf-8")
        back = M.read_tokenizer(path)
        assert back.merges == tok.merges and back.special_tokens == tok.special_tokens


def test_ignore_merges_takes_a_word_that_is_a_token_whole(tmp_path):
    # (b, c) outranks (a, b), so the merges never make "abc" from "abc", but the vocabulary holds it
    t = bpe.Tokenizer([(b"b", b"c"), (b"a", b"b"), (b"ab", b"c")])
    assert t.encode_ordinary("abc") == [97, 256]
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(_changed(M.tokenizer_json(t), lambda d: d["model"].update(ignore_merges=True))))
    back = M.read_tokenizer(path)
    assert back.ignore_merges and back.encode_ordinary("abc") == [258] and back.encode_ordinary("abcbc") == [97, 256, 256]
    assert M.tokenizer_json(back)["model"]["ignore_merges"] is True


@pytest.mark.parametrize("text, words", [
    ("", "not valid JSON"),
    ("[]", "holds a JSON list, not an object"),
    ("7", "holds a JSON int"),
    ("{\"model\": NaN}", "has NaN, which is not a JSON number"),
    ("{\"model\": 1" + "0" * 5000 + "}", "has an integer of 5001 digits"),
    ("{\"model\": {}, \"model\": {}}", "has the key 'model' twice in one object"),
    ("[" * 100_000 + "]" * 100_000, "nested more than 64 levels deep"),
    ("{\"a\":" * 100_000 + "1" + "}" * 100_000, "nested more than 64 levels deep"),
])
def test_unreadable_json_is_refused(tmp_path, text, words):
    _refused(tmp_path, text, words)


def test_non_utf8_and_oversized_files_are_refused(tmp_path, good):
    path = tmp_path / "tokenizer.json"
    path.write_bytes(b"{\"model\": \"\xff\"}")
    with pytest.raises(M.ModelFileError, match="not valid JSON \\(not UTF-8 text at byte 11\\)"):
        M.read_tokenizer(path)
    with open(path, "wb") as f:  # a sparse file: big on paper, nothing read
        f.truncate(M.TOKENIZER_MAX_BYTES + 1)
    with pytest.raises(M.ModelFileError, match=f"has {M.TOKENIZER_MAX_BYTES + 1:,} bytes, more than the {M.TOKENIZER_MAX_BYTES:,} "
                       "this reader accepts for a tokenizer.json"):
        M.read_tokenizer(path)
    path.write_text("[" * (M.TOKENIZER_MAX_CONTAINERS + 1), encoding="utf-8")
    with pytest.raises(M.ModelFileError, match=f"holds more than {M.TOKENIZER_MAX_CONTAINERS:,} arrays and objects"):
        M.read_tokenizer(path)


def test_what_is_not_a_regular_file_is_refused(tmp_path):
    (tmp_path / "dir").mkdir()
    with pytest.raises(M.ModelFileError, match="dir: is a directory, not a file"):
        M.read_tokenizer(tmp_path / "dir")
    with pytest.raises(M.ModelFileError, match="missing.json: no such file"):
        M.read_tokenizer(tmp_path / "missing.json")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    with pytest.raises(M.ModelFileError, match="dangling: is a symbolic link to .*nowhere.*, which does not exist"):
        M.read_tokenizer(tmp_path / "dangling")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    with pytest.raises(M.ModelFileError, match="loop: is a symbolic link that loops"):
        M.read_tokenizer(tmp_path / "loop")
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(M.ModelFileError, match="fifo: is a named pipe \\(FIFO\\), not a regular file"):
        M.read_tokenizer(tmp_path / "fifo")
    with pytest.raises(M.ModelFileError, match="/dev/zero: is a device, not a regular file"):
        M.read_tokenizer("/dev/zero")
    with pytest.raises(TypeError, match="path must be a path"):
        M.read_tokenizer(None)


# ---------------------------------------------------------------------- the fuzzer

HOSTILE = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False),
    st.text(max_size=8), st.just([]), st.just({}), st.just(["Ġ", "l"]), st.just("l o"),
    st.lists(st.integers(0, 300), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(0, 300), max_size=3),
    st.recursive(st.none() | st.integers(), lambda c: st.lists(c, max_size=2), max_leaves=4),
)


def _paths(value, prefix=()):
    """Every (path, value) inside a JSON value, skipping the long vocab and merges bodies
    except for their first few entries."""
    yield prefix, value
    if isinstance(value, dict):
        for i, (k, v) in enumerate(value.items()):
            if i < 6 or prefix[-1:] != ("vocab",):
                yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value[:4]):
            yield from _paths(v, prefix + (i,))


def _get(d, path):
    for key in path:
        d = d[key]
    return d


def _set(d, path, value):
    if not path:
        return value
    parent = d
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return d


def mutate(good: dict, data) -> dict:
    """A copy of ``good`` with one to three values replaced by hostile ones or deleted."""
    d = json.loads(json.dumps(good))
    for _ in range(data.draw(st.integers(1, 3), label="n_changes")):
        paths = [p for p, _ in _paths(d)]
        path = data.draw(st.sampled_from(paths), label="path")
        parent = _get(d, path[:-1])
        if path and isinstance(parent, dict) and data.draw(st.booleans(), label="delete"):
            del parent[path[-1]]
            continue
        d = _set(d, path, copy.deepcopy(data.draw(HOSTILE, label="value")))
    return d


@settings(max_examples=examples(150), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_fuzzed_tokenizer_json_reads_or_is_one_clear_error(tmp_path, good, data):
    d = mutate(good, data)
    file = tmp_path / "tokenizer.json"
    file.write_text(json.dumps(d), encoding="utf-8")
    start = time.perf_counter()
    try:
        result = M.read_tokenizer(file)
    except M.ModelFileError as err:
        assert str(err).startswith(f"{file}: ")
    else:
        assert isinstance(result, bpe.Tokenizer)
    assert time.perf_counter() - start < 1.0


def test_tokenizer_config_beside_the_file_gives_chat_template_and_roles(tmp_path):
    tok = bpe.Tokenizer([(b"h", b"i")], ["<s>", "</s>"])
    path = M.write_tokenizer(tmp_path, tok, eos_token="</s>")
    back = M.read_tokenizer(path)
    assert back.roles == {"eos": "</s>"} and back.chat_template is None
    (tmp_path / "chat_template.jinja").write_text("{{ messages[0]['content'] }}{{ eos_token }}")
    assert M.read_tokenizer(path).chat_template == "{{ messages[0]['content'] }}{{ eos_token }}"
    cfg = tmp_path / "tokenizer_config.json"
    cfg.write_text(json.dumps({"chat_template": "{{ bos_token }}", "bos_token": {"content": "<s>"}}))
    back = M.read_tokenizer(path)
    assert back.chat_template == "{{ bos_token }}" and back.roles == {"bos": "<s>"}
    for bad, words in [({"chat_template": [{"name": "default", "template": "x"}]}, "chat_template is"),
                       ({"eos_token": "<|end|>"}, "eos_token is '<|end|>', which is not an added token"),
                       ([], "must hold a JSON object")]:
        cfg.write_text(json.dumps(bad))
        with pytest.raises(M.ModelFileError, match=str(cfg).replace(".", r"\.") + ": " + words.replace("|", r"\|")):
            M.read_tokenizer(path)
