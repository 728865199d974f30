"""The parts of a Hugging Face ``tokenizer.json`` beside its BPE model, read for
:func:`tokenpath.model.read_tokenizer`: the pre-tokenizer as split patterns, the
``TemplateProcessing`` post-processor as the engine's template, and the chat template
and special-token roles of the ``tokenizer_config.json`` beside it. Each reader takes the
``fail(field, message)`` of the file being read, so every error names the file and the field.
"""

from __future__ import annotations

from pathlib import Path

import regex

from .. import bpe
from ..safefiles import ModelFileError, open_regular_file, read_json, short_repr
from .config import MAX_CONFIG_BYTES, TOKENIZER_CONFIG_NAME

__all__ = ["CHAT_TEMPLATE_NAME", "MAX_ID", "PREFIX_SPACE"]

#: The stage :func:`_pre_tokenizer` returns for ``ByteLevel(add_prefix_space=true)``
#: first: a space before every text between two added tokens that does not start with one.
PREFIX_SPACE = "add_prefix_space"

_BYTE_LEVEL_FIELDS = ("type", "add_prefix_space", "trim_offsets", "use_regex")


def _want(fail, field: str, value, kind, what: str):
    """``value`` if it is a ``kind`` (a bool is not an int), else fail naming ``field``."""
    if isinstance(value, bool) and kind is not bool or not isinstance(value, kind):
        fail(field, f"is {short_repr(value)}; expected {what}")
    return value


def _known(fail, field: str, obj: dict, names: tuple[str, ...]) -> None:
    """Fail on the first key of ``obj`` not in ``names``."""
    extra = [k for k in obj if k not in names]
    if extra:
        fail(f"{field}.{extra[0]}" if field else extra[0],
             "is a field this engine does not know; refused rather than ignored")


def _byte_level(fail, field: str, value) -> bool:
    """Whether ``value`` is a well-formed ``ByteLevel`` component (fail if it is one
    with unknown, missing or mistyped fields)."""
    if not isinstance(value, dict) or value.get("type") != "ByteLevel":
        return False
    _known(fail, field, value, _BYTE_LEVEL_FIELDS)
    for key in _BYTE_LEVEL_FIELDS[1:]:
        if key in value:
            _want(fail, f"{field}.{key}", value[key], bool, "true or false")
        elif key != "use_regex":  # Hugging Face requires these two and defaults use_regex to true
            fail(f"{field}.{key}", "is missing")
    return True


#: The largest ID a file may give (Hugging Face and llama.cpp store IDs as 32-bit ints).
MAX_ID = 1 << 31

#: Hugging Face's ``Digits`` pre-tokenizer as a pattern whose pieces cover the text
#: (Rust's ``char::is_numeric`` is the categories Nd, Nl and No, that is ``\p{N}``).
_DIGITS = {True: r"\p{N}|[^\p{N}]+", False: r"\p{N}+|[^\p{N}]+"}


def _isolated(pattern: str) -> str:
    """A ``Split`` regex with ``behavior: Isolated`` as a pattern that covers the text:
    Hugging Face keeps the text between two matches as a piece of its own, which is a
    run of characters where the regex does not match: ``(?:(?!R)[\\s\\S])+``.

    >>> import regex
    >>> regex.findall(_isolated("a"), "xxaya")
    ['xx', 'a', 'y', 'a']
    """
    return f"(?:{pattern})|(?:(?!(?:{pattern}))[\\s\\S])+"


def _pre_tokenizer(fail, pre, field: str = "pre_tokenizer") -> tuple[str, ...]:
    """The split stages of a pre-tokenizer: ``ByteLevel`` (its GPT-2 regex, or none with
    ``use_regex: false``; ``add_prefix_space`` on the first pre-tokenizer only, as
    :data:`PREFIX_SPACE`), ``Split`` (a regex or a
    string, ``Isolated``, not inverted), ``Digits`` and ``Sequence`` of them."""
    if not isinstance(pre, dict):
        fail(field, f"is {short_repr(pre)}; expected ByteLevel, Split, Digits or a Sequence of them")
    kind = pre.get("type")
    if _byte_level(fail, field, pre):
        prefix = ()
        if pre.get("add_prefix_space", True):
            if field not in ("pre_tokenizer", "pre_tokenizer.pretokenizers[0]"):
                fail(f"{field}.add_prefix_space", "is true on a ByteLevel after another pre-tokenizer, which adds a "
                     "space to every piece; this engine implements it on the first pre-tokenizer only")
            prefix = (PREFIX_SPACE,)
        return prefix + ((bpe.GPT2_PATTERN,) if pre.get("use_regex", True) else ())
    if kind == "Sequence":
        _known(fail, field, pre, ("type", "pretokenizers"))
        items = pre.get("pretokenizers")
        if not isinstance(items, list):
            fail(f"{field}.pretokenizers", f"is {short_repr(items)}; expected a list")
        return tuple(p for k, item in enumerate(items) for p in _pre_tokenizer(fail, item, f"{field}.pretokenizers[{k}]"))
    if kind == "Digits":
        _known(fail, field, pre, ("type", "individual_digits"))
        return (_DIGITS[_want(fail, f"{field}.individual_digits", pre.get("individual_digits", False), bool,
                              "true or false")],)
    if kind == "Split":
        _known(fail, field, pre, ("type", "pattern", "behavior", "invert"))
        if pre.get("behavior") != "Isolated":
            fail(f"{field}.behavior", f"is {short_repr(pre.get('behavior'))}; this engine implements 'Isolated' only")
        if pre.get("invert", False) is not False:
            fail(f"{field}.invert", f"is {short_repr(pre.get('invert'))}; it must be false")
        pat = pre.get("pattern")
        if not isinstance(pat, dict) or len(pat) != 1 or next(iter(pat)) not in ("Regex", "String") \
                or not isinstance(next(iter(pat.values())), str):
            fail(f"{field}.pattern", f"is {short_repr(pat)}; expected {{'Regex': str}} or {{'String': str}}")
        regex_text = pat["Regex"] if "Regex" in pat else regex.escape(pat["String"])
        try:
            bpe.compile_pattern(regex_text)
        except ValueError as err:
            fail(f"{field}.pattern", f"is refused: {err}")
        return (_isolated(regex_text),)
    fail(field, f"has type {short_repr(kind)}; this engine implements ByteLevel, Split (Isolated), Digits and "
         "Sequence")


#: The chat template ``transformers`` 5 writes next to ``tokenizer_config.json``.
CHAT_TEMPLATE_NAME = "chat_template.jinja"


def _read_tokenizer_config(folder: Path, tok: bpe.Tokenizer) -> tuple[str | None, dict[str, str]]:
    """The chat template and the special-token roles of the ``tokenizer_config.json``
    (and ``chat_template.jinja``) beside a ``tokenizer.json``, if there are any: its
    ``chat_template`` (a string), and ``bos_token``, ``eos_token``, ``pad_token``,
    ``unk_token`` (a string, or ``{"content": …}``), each an added token of the file."""
    config_path, chat = folder / TOKENIZER_CONFIG_NAME, None
    cfg = {}
    if config_path.is_file():
        cfg = read_json(config_path, max_bytes=MAX_CONFIG_BYTES, what=TOKENIZER_CONFIG_NAME)
        if not isinstance(cfg, dict):
            raise ModelFileError(f"{config_path}: must hold a JSON object, not a JSON {type(cfg).__name__}")
    if "chat_template" in cfg and cfg["chat_template"] is not None:
        chat = cfg["chat_template"]
        if not isinstance(chat, str):
            raise ModelFileError(f"{config_path}: chat_template is {short_repr(chat)}; this engine reads one template "
                                 "string (not a list of named templates)")
    jinja_path = folder / CHAT_TEMPLATE_NAME
    if chat is None and jinja_path.is_file():
        raw = open_regular_file(jinja_path, max_bytes=MAX_CONFIG_BYTES, what=CHAT_TEMPLATE_NAME)
        with raw:
            data = raw.read(MAX_CONFIG_BYTES + 1)
        try:
            chat = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise ModelFileError(f"{jinja_path}: is not UTF-8 text ({err.reason} at byte {err.start})") from None
    roles = {}
    for role in bpe.ROLES:
        value = cfg.get(f"{role}_token")
        if isinstance(value, dict):
            value = value.get("content")
        if value is None:
            continue
        if not isinstance(value, str) or value not in tok.special_tokens:
            raise ModelFileError(f"{config_path}: {role}_token is {short_repr(value)}, which is not an added token "
                                 "of the tokenizer.json beside it")
        roles[role] = value
    return chat, roles


def _read_template(post, tok: bpe.Tokenizer, fail) -> tuple[str, ...] | None:
    """The single-sequence template of a ``TemplateProcessing`` post-processor (``None``
    for none, or for ``ByteLevel``, which changes only offsets)."""
    if post is None:
        return None
    if not isinstance(post, dict):
        fail("post_processor", f"is {short_repr(post)}; expected null, ByteLevel or TemplateProcessing")
    kind = post.get("type")
    if _byte_level(fail, "post_processor", post):
        return None
    if kind != "TemplateProcessing":
        fail("post_processor", f"has type {short_repr(kind)}; this engine implements only TemplateProcessing "
             "(and ByteLevel, which changes only offsets)")
    _known(fail, "post_processor", post, ("type", "single", "pair", "special_tokens"))
    single, table = post.get("single"), post.get("special_tokens", {})
    if not isinstance(single, list) or not single:
        fail("post_processor.single", f"is {short_repr(single)}; expected a list of pieces")
    if not isinstance(post.get("pair"), list):
        fail("post_processor.pair", f"is {short_repr(post.get('pair'))}; expected a list of pieces (the engine "
             "encodes no pairs, but Hugging Face requires the field)")
    if not isinstance(table, dict):
        fail("post_processor.special_tokens", f"is {short_repr(table)}; expected an object of name -> ids")
    pieces = []
    for k, item in enumerate(single):
        field = f"post_processor.single[{k}]"
        if not isinstance(item, dict) or len(item) != 1 or next(iter(item)) not in ("Sequence", "SpecialToken"):
            fail(field, f"is {short_repr(item)}; expected {{'Sequence': …}} or {{'SpecialToken': …}}")
        (kind, body), = item.items()
        if not isinstance(body, dict) or set(body) != {"id", "type_id"}:
            fail(field, f"is {short_repr(item)}; expected {{'id': …, 'type_id': 0}} inside {kind!r}")
        if type(body["type_id"]) is not int or body["type_id"] != 0:
            fail(f"{field}.{kind}.type_id", f"is {short_repr(body['type_id'])}; this engine has no type IDs "
                 "(it must be 0)")
        if kind == "Sequence":
            if body["id"] != "A":
                fail(f"{field}.Sequence.id", f"is {short_repr(body['id'])}; a single sequence is 'A'")
            pieces.append(bpe.TEMPLATE_TEXT)
            continue
        name = body["id"]
        entry = table.get(name) if isinstance(name, str) else None
        if entry is None:
            fail(f"{field}.SpecialToken.id",
                 f"is {short_repr(name)}, which post_processor.special_tokens does not list")
        if name not in tok.special_tokens:
            fail(f"{field}.SpecialToken.id", f"is {short_repr(name)}, which is not an added token")
        want_entry = {"id": name, "ids": [tok.special_tokens[name]], "tokens": [name]}
        if entry != want_entry:
            fail(f"post_processor.special_tokens[{name!r}]", f"is {short_repr(entry)}; the engine's is {want_entry}")
        pieces.append(name)
    if pieces.count(bpe.TEMPLATE_TEXT) != 1:
        fail("post_processor.single", "must hold the sequence 'A' exactly once")
    return tuple(pieces)
