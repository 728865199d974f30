"""Chat templates rendered as ``transformers`` renders them (:mod:`tokenpath.chat_template`),
and ``chat_ids`` equal to ``apply_chat_template(tokenize=True)`` for SmolLM2's template
(single and multi-turn, with and without a system message)."""

from __future__ import annotations

import pytest

from tokenpath import bpe
from tokenpath.chat_template import chat_ids, check_messages, render_chat_template
from tokenpath.pretrained import smollm2_path

USER = {"role": "user", "content": "What is a token in a language model?"}
CHATS = {
    "single": [USER],
    "system": [{"role": "system", "content": "You answer in one line."}, USER],
    "multi": [USER, {"role": "assistant", "content": "A piece of text, as an ID."}, {"role": "user", "content": "猫?"}],
    "multi with system": [{"role": "system", "content": "Be brief."}, USER,
                          {"role": "assistant", "content": "An ID."}, {"role": "user", "content": "  and 12345 😀"}],
}


def test_blocks_are_trimmed_and_stripped_as_transformers_configures_jinja():
    template = "{% for m in messages %}\n    {% if m.role == 'user' %}\nU:{{ m.content }}\n    {% endif %}\n{% endfor %}"
    assert render_chat_template(template, [{"role": "user", "content": "a"}, {"role": "x", "content": "b"}]) == "U:a\n"


def test_loop_controls_tojson_and_the_generation_prompt():
    template = ("{% for m in messages %}{% if loop.index > 1 %}{% break %}{% endif %}{{ m | tojson }}{% endfor %}"
                "{% if add_generation_prompt %}<go>{% endif %}")
    msgs = [{"role": "user", "content": "<b>猫</b>"}, {"role": "user", "content": "never"}]
    assert render_chat_template(template, msgs) == '{"role": "user", "content": "<b>猫</b>"}'
    assert render_chat_template(template, msgs, add_generation_prompt=True).endswith("<go>")


def test_the_sandbox_refuses_reaching_python_internals():
    with pytest.raises(Exception, match="unsafe|not safely|access"):
        render_chat_template("{{ messages.__class__.__mro__ }}", [])
    with pytest.raises(ValueError, match="template does not compile as Jinja"):
        render_chat_template("{% for %}", [])


@pytest.mark.parametrize("messages, error, match", [
    ("hi", TypeError, "messages must be a list"),
    ({"role": "user", "content": "hi"}, TypeError, "messages must be a list"),
    ([["user", "hi"]], TypeError, r"messages\[0\] must be a dict"),
    ([{"role": "user"}], ValueError, r"messages\[0\] has no 'content'"),
    ([{"role": 1, "content": "hi"}], TypeError, r"messages\[0\]\['role'\] must be a str"),
    ([USER, {"role": "user", "content": None}], TypeError, r"messages\[1\]\['content'\] must be a str"),
])
def test_bad_messages_are_refused_naming_messages(messages, error, match):
    with pytest.raises(error, match=match):
        check_messages(messages)
    tok = bpe.Tokenizer([], chat_template="{{ messages }}")
    with pytest.raises(error, match=match):
        chat_ids(tok, messages)


def test_chat_ids_parse_the_markers_and_add_no_post_processing_template():
    tok = bpe.Tokenizer([], ["<s>", "<|u|>"], template=("<s>", "$A"), roles={"bos": "<s>"},
                        chat_template="{{ bos_token }}{% for m in messages %}<|u|>{{ m['content'] }}{% endfor %}")
    assert chat_ids(tok, [{"role": "user", "content": "hi"}]) == [256, 257, 104, 105]
    with pytest.raises(ValueError, match="tokenizer has no chat_template"):
        chat_ids(bpe.Tokenizer([]), [USER])


def test_the_messages_given_are_not_changed():
    msgs = [{"role": "user", "content": "hi"}]
    with pytest.raises(Exception):
        render_chat_template("{{ messages[0].update({'content': 'x'}) }}", msgs)  # immutable sandbox
    assert msgs == [{"role": "user", "content": "hi"}]


# ------------------------------------------------------------- against transformers

@pytest.fixture(scope="module")
def smollm2():
    transformers = pytest.importorskip("transformers", reason="needs the crosscheck extra (transformers)")
    gguf = pytest.importorskip("gguf", reason="needs the gguf package")
    from tokenpath.model import tokenizer_from_gguf
    path = smollm2_path()
    if not path.is_file():
        pytest.skip(f"the pretrained model file is missing ({path}); run make smollm2")
    reader = gguf.GGUFReader(path)
    engine = tokenizer_from_gguf({k: f.contents() for k, f in reader.fields.items() if k.startswith("tokenizer.")})
    return engine, transformers.AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)


@pytest.mark.torch
@pytest.mark.heavy
@pytest.mark.parametrize("add_generation_prompt", [True, False])
@pytest.mark.parametrize("name", list(CHATS))
def test_chat_ids_equal_apply_chat_template_for_smollm2(smollm2, name, add_generation_prompt):
    engine, hf = smollm2
    messages = CHATS[name]
    want = hf.apply_chat_template(messages, tokenize=True, add_generation_prompt=add_generation_prompt,
                                  return_dict=False)
    assert chat_ids(engine, messages, add_generation_prompt=add_generation_prompt) == list(want)
    text = hf.apply_chat_template(messages, tokenize=False, add_generation_prompt=add_generation_prompt)
    assert render_chat_template(engine.chat_template, messages, add_generation_prompt=add_generation_prompt) == text
