"""Loading a real-sized folder costs its float32 weights' memory about once: the
safetensors reader copies each tensor from the file into an array of its own, one at a
time, and never maps the whole file (whose pages would count as the process's memory
beside the copies: 2.07× the weights, measured before). Measured at SmolLM2-135M's shape
(134,515,008 numbers, 538 MB in float32), in a fresh process, by the kernel's
high-water mark of resident memory."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tokenpath import model as M
from tokenpath import safetensors_format as S

SMOLLM2_SHAPE = dict(vocab_size=49152, hidden_size=576, intermediate_size=1536, num_hidden_layers=30,
                     num_attention_heads=9, num_key_value_heads=3, tie_word_embeddings=True, rms_norm_eps=1e-5,
                     rope_theta=100000.0)


@pytest.mark.heavy
def test_loading_a_smollm2_shaped_folder_peaks_within_1_5x_its_float32_weights(tmp_path):
    folder = M.save(tmp_path / "smol", M.random_model(M.LlamaConfig(**SMOLLM2_SHAPE), seed=0))
    script = textwrap.dedent(f"""
        import json, sys
        import numpy as np
        from tokenpath import model as M
        m = M.load({str(folder)!r})
        m.logits(np.arange(64) * 7)
        status = open("/proc/self/status").read() if sys.platform == "linux" else ""
        hwm = [int(l.split()[1]) * 1024 for l in status.splitlines() if l.startswith("VmHWM:")]
        print(json.dumps({{"dtype": str(m.dtype), "weights": 4 * m.parameter_count, "peak": hwm[0] if hwm else None}}))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=300)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    if got["peak"] is None:
        pytest.skip("VmHWM is Linux's; this platform does not report it")
    assert got["dtype"] == "float32" and got["weights"] == 4 * 134_515_008
    assert got["peak"] <= 1.5 * got["weights"], got


def test_each_tensor_is_read_into_an_array_of_its_own_not_a_view_of_the_file(tmp_path):
    path = tmp_path / "w.safetensors"
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    S.save_tensors(path, {"a": a, "b": np.ones(4, dtype=np.float16)})
    tensors, header = S.load_tensors(path)
    assert list(tensors) == header.names == ["a", "b"]
    for t in tensors.values():
        assert t.flags.owndata and t.flags.writeable  # a copy the file can change under without harm
    np.testing.assert_array_equal(tensors["a"], a)
    assert tensors["b"].dtype == np.float16
