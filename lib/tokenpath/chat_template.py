"""A model's own chat template, rendered as ``transformers`` renders it.

A chat model's file carries its prompt format as a Jinja template
(``tokenizer.chat_template`` in GGUF, ``chat_template`` in ``tokenizer_config.json`` or
``chat_template.jinja``): a loop over ``messages`` that writes each turn between the
model's markers, and, with ``add_generation_prompt``, the opening of the assistant's turn.
``transformers.apply_chat_template`` renders it in an ``ImmutableSandboxedEnvironment``
(the template is code from a file) with ``trim_blocks`` and ``lstrip_blocks``, the
``loopcontrols`` extension (``{% break %}``), a ``tojson`` filter that does not escape
HTML, and the globals ``raise_exception`` and ``strftime_now``; the special tokens
(``bos_token``, ``eos_token``, …) are in the context. :func:`render_chat_template` does
the same; :func:`chat_ids` then encodes the text with the special tokens' spellings
parsed as markers and no template around it, as ``apply_chat_template(tokenize=True)``
does. Chapter 2's ``render_chat`` writes one fixed format of the book's own; this module
runs whichever format a real model was trained on.
"""

from __future__ import annotations

import functools
import json
from datetime import datetime
from typing import Mapping, Sequence

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

from .bpe import Tokenizer

__all__ = ["chat_ids", "check_messages", "render_chat_template"]


def _raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def _tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def _strftime_now(fmt):
    return datetime.now().strftime(fmt)


@functools.lru_cache(maxsize=16)
def _compiled(template: str):
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    try:
        return env.from_string(template)
    except jinja2.exceptions.TemplateSyntaxError as err:
        raise ValueError(f"template does not compile as Jinja: {err} (line {err.lineno})") from None


def check_messages(messages) -> list[dict]:
    """``messages`` as a fresh list of plain dicts, each with a str ``role`` and a str
    ``content`` (other str keys kept), or a ``TypeError``/``ValueError`` naming ``messages``.

    >>> check_messages([{"role": "user", "content": "hi"}])
    [{'role': 'user', 'content': 'hi'}]
    >>> check_messages([{"role": "user"}])
    Traceback (most recent call last):
    ...
    ValueError: messages[0] has no 'content'; each message is {'role': str, 'content': str}
    """
    if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Sequence):
        raise TypeError(f"messages must be a list of {{'role': str, 'content': str}} dicts, "
                        f"got {type(messages).__name__}")
    out = []
    for k, m in enumerate(messages):
        if not isinstance(m, Mapping):
            raise TypeError(f"messages[{k}] must be a dict with 'role' and 'content', got {type(m).__name__}")
        for key in ("role", "content"):
            if key not in m:
                raise ValueError(f"messages[{k}] has no {key!r}; each message is {{'role': str, 'content': str}}")
            if not isinstance(m[key], str):
                raise TypeError(f"messages[{k}][{key!r}] must be a str, got {type(m[key]).__name__}")
        out.append(json.loads(json.dumps(dict(m))))  # a plain, deep copy the template cannot reach through
    return out


def render_chat_template(template: str, messages, *, add_generation_prompt: bool = False,
                         special_tokens: Mapping[str, str] | None = None) -> str:
    """``template`` rendered for ``messages`` as ``transformers`` renders it;
    ``special_tokens`` maps context names (``"bos_token"``, ``"eos_token"``, …) to their
    spellings.

    >>> t = "{% for m in messages %}<{{ m['role'] }}>{{ m['content'] }}{{ eos_token }}\\n{% endfor %}"
    >>> render_chat_template(t, [{"role": "user", "content": "hi"}], special_tokens={"eos_token": "</s>"})
    '<user>hi</s>\\n'
    >>> render_chat_template("{{ raise_exception('no system role') }}", [])
    Traceback (most recent call last):
    ...
    ValueError: template raised: no system role
    """
    if not isinstance(template, str):
        raise TypeError(f"template must be a str (a Jinja chat template), got {type(template).__name__}")
    messages = check_messages(messages)
    if not isinstance(add_generation_prompt, bool):
        raise TypeError(f"add_generation_prompt must be True or False, got {add_generation_prompt!r}")
    if special_tokens is not None and not isinstance(special_tokens, Mapping):
        raise TypeError(f"special_tokens must map names such as 'eos_token' to spellings, "
                        f"got {type(special_tokens).__name__}")
    special_tokens = dict(special_tokens or {})
    for name, value in special_tokens.items():
        if not isinstance(name, str) or not isinstance(value, str):
            raise TypeError(f"special_tokens must map str names to str spellings, got {name!r}: {value!r}")
    compiled = _compiled(template)
    try:
        return compiled.render(**special_tokens, messages=messages, add_generation_prompt=add_generation_prompt)
    except jinja2.exceptions.TemplateError as err:
        raise ValueError(f"template raised: {err}") from None


def _context(tokenizer: Tokenizer) -> dict[str, str]:
    return {f"{role}_token": name for role, name in tokenizer.roles.items()}


def chat_ids(tokenizer: Tokenizer, messages, *, add_generation_prompt: bool = True) -> list[int]:
    """The IDs of ``messages`` in ``tokenizer``'s own chat template: rendered
    (:func:`render_chat_template`, the tokenizer's BOS/EOS/PAD/UNK spellings in the
    context), then encoded with every special token's spelling parsed as its marker and
    no post-processing template, as ``apply_chat_template(tokenize=True)`` does.

    >>> tok = Tokenizer([], ["<|u|>", "<|e|>"], chat_template="{% for m in messages %}<|u|>{{ m.content }}<|e|>{% endfor %}")
    >>> chat_ids(tok, [{"role": "user", "content": "hi"}])
    [256, 104, 105, 257]
    """
    if not isinstance(tokenizer, Tokenizer):
        raise TypeError(f"tokenizer must be a tokenpath.bpe.Tokenizer, got {type(tokenizer).__name__}")
    if tokenizer.chat_template is None:
        raise ValueError("tokenizer has no chat_template (read one from a GGUF file or tokenizer_config.json)")
    text = render_chat_template(tokenizer.chat_template, messages, add_generation_prompt=add_generation_prompt,
                                special_tokens=_context(tokenizer))
    return tokenizer.encode(text, allowed_special="all", add_special_tokens=False)
