"""GGUF, the single-file model format of llama.cpp, read by the engine itself.

One file holds what a Hugging Face folder spreads over three: the configuration and
the tokenizer as typed metadata (``llama.block_count``, ``tokenizer.ggml.tokens`` …),
and the weights, most of them quantized in blocks. :func:`read_gguf` reads the header
(:mod:`.reader`); :meth:`GGUFFile.dequantize` turns one tensor's blocks into float32
(:mod:`.quants`). :func:`tokenpath.model.load` builds a model from such a file.
Chapter 10 shows the header of the pretrained SmolLM2 file next to a safetensors header.

The package is named ``gguf_format`` so that it never shadows the ``gguf`` package of
llama.cpp, which the tests use as the reference.
"""

from ..safefiles import ModelFileError
from .quants import DEQUANTIZABLE, GGML_TYPES, dequantize, row_bytes
from .reader import DEFAULT_ALIGNMENT, MAGIC, VALUE_TYPES, VERSIONS, GGUFFile, GGUFTensor, read_gguf

__all__ = [
    "DEFAULT_ALIGNMENT",
    "DEQUANTIZABLE",
    "GGML_TYPES",
    "MAGIC",
    "VALUE_TYPES",
    "VERSIONS",
    "GGUFFile",
    "GGUFTensor",
    "ModelFileError",
    "dequantize",
    "read_gguf",
    "row_bytes",
]
