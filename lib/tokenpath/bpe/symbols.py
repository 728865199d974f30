"""The 256 byte symbols as the file formats write them.

Byte-level BPE starts from the 256 byte values. Hugging Face ``tokenizers`` and
``tiktoken`` files write each byte as one printable character (GPT-2's map,
:func:`bytes_to_unicode`), and Hugging Face numbers the byte symbols in the order of
those characters (:func:`hf_symbol_order`), which decides its tie rule in training.
"""

from __future__ import annotations

import functools

__all__ = ["bytes_to_unicode", "hf_symbol_order"]


@functools.cache
def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's map from each byte to a printable character (used by HF and tiktoken
    files to write byte tokens as text). Printable ASCII and Latin-1 map to themselves;
    the other 68 bytes map to U+0100 onwards.

    >>> m = bytes_to_unicode(); m[ord("a")], m[ord(" ")], len(set(m.values()))
    ('a', 'Ġ', 256)
    """
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    out, extra = {}, 0
    for b in range(256):
        if b in keep:
            out[b] = chr(b)
        else:
            out[b] = chr(256 + extra)
            extra += 1
    return out


@functools.cache
def hf_symbol_order() -> tuple[int, ...]:
    """Hugging Face's ID for each byte: the bytes sorted by their GPT-2 character.

    >>> order = hf_symbol_order(); order[ord("!")], order[0]
    (0, 188)
    """
    chars = bytes_to_unicode()
    ranked = sorted(range(256), key=lambda b: ord(chars[b]))
    ids = [0] * 256
    for hf_id, b in enumerate(ranked):
        ids[b] = hf_id
    return tuple(ids)

