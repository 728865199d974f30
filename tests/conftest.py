"""Settings shared by every test.

What this file provides:

- matplotlib draws with the non-interactive Agg backend in the test process. It is
  selected with ``matplotlib.use`` rather than the ``MPLBACKEND`` environment variable,
  because the environment is inherited by the kernels nbval starts, and the notebooks
  must run there with the same (inline) backend as in JupyterLab.
- One Hypothesis profile, ``tokenpath``, loaded for every run: derandomized (the same
  examples on every run and machine), a modest number of examples, no deadline (timing
  on a shared 2-core machine is noise), and no example database on disk.
- After collection, everything built so far is frozen out of the cyclic garbage
  collector's view (``gc.freeze``): it lives to the end of the run anyway, and the full
  collections during the run otherwise rescan it each time.
- PyTorch, for cross-checks against a production implementation. torch comes with the
  ``crosscheck`` extra (``make test EXTRAS=dev,crosscheck``); without it, such tests are
  skipped and the reason is shown in the summary. Two equivalent ways:

  * the ``torch`` fixture, which returns the module::

        def test_attention_matches_sdpa(torch):
            out = torch.nn.functional.scaled_dot_product_attention(...)

  * the ``torch`` marker, for a test that imports torch itself::

        @pytest.mark.torch
        def test_rope_matches_llama():
            import torch
            ...

  A module made only of cross-checks can instead start with
  ``torch = pytest.importorskip("torch", reason="needs the crosscheck extra")``.
- The ``corpus`` marker, for a test that rebuilds the trained model's data from the whole
  standard library (the 2.66 M training tokens encoded again, every file classified by
  the data rule: seconds) to re-derive a committed measurement. ``make test`` skips such
  tests with the reason shown; ``make check-model`` (and CI) runs them with ``--corpus``.
- The ``heavy`` marker, for a slow cross-check (seconds each: a real model or vocabulary
  loaded in ``transformers``, ``tokenizers``, ``tiktoken`` or ``gguf`` beside the engine).
  ``make test`` skips it with the reason shown; ``make check-model`` (and CI) runs it with
  ``--heavy``.
- The ``pdf`` marker, for a check of the PDF edition that ``make pdf`` writes
  (``tests/test_pdf.py``). ``make test`` skips it with the reason shown; ``make
  check-pdf`` (and CI) builds the PDFs and runs it with ``--pdf``.
- Under ``make test``'s ``--dist loadscope``, each test module runs on one worker, and
  the modules of :data:`SHARED_SCOPES` run on the same worker, one after another: they
  read the same expensive per-process caches (every widget built and drawn, every figure
  rendered, the pretrained model's prompts, the trained model's pass over the held-out
  sample), which a second worker would otherwise compute again.
"""

from __future__ import annotations

import gc
import importlib.util

import matplotlib
import pytest
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")

settings.register_profile(
    "tokenpath",
    derandomize=True,
    max_examples=50,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("tokenpath")

TORCH_MISSING = (
    "PyTorch is not installed; the cross-checks need the crosscheck extra "
    "(make test EXTRAS=dev,crosscheck)"
)

HAVE_TORCH = importlib.util.find_spec("torch") is not None


@pytest.fixture(scope="session")
def torch():
    """The ``torch`` module, or a skip with the reason shown when it is missing."""
    return pytest.importorskip("torch", reason=TORCH_MISSING)


CORPUS_SKIPPED = "rebuilds the training data from the whole standard library: run by make check-model (CI runs it)"
HEAVY_SKIPPED = "a slow cross-check (a real model or vocabulary in a reference library): run by make check-model (CI runs it)"
PDF_SKIPPED = "checks the PDF edition that make pdf writes: run by make check-pdf (CI runs it)"


@pytest.fixture(scope="session")
def smollm2_file():
    """The path of the pretrained SmolLM2 GGUF file (``tokenpath.pretrained``), or a skip
    that says how to fetch it when it is missing or not the pinned size (a test run does
    not fetch it on first use: ``make test`` runs ``make smollm2`` first)."""
    from tokenpath import pretrained

    try:
        return pretrained.smollm2_path(fetch_missing=False)
    except FileNotFoundError as err:
        pytest.skip(str(err))


def pytest_addoption(parser):
    parser.addoption("--corpus", action="store_true", default=False,
                     help="also run the tests marked corpus (make check-model)")
    parser.addoption("--heavy", action="store_true", default=False,
                     help="also run the tests marked heavy (make check-model)")
    parser.addoption("--pdf", action="store_true", default=False,
                     help="also run the tests marked pdf, on the PDFs in build/pdf/ (make check-pdf)")


def pytest_runtest_setup(item):
    if item.get_closest_marker("torch") is not None and not HAVE_TORCH:
        pytest.skip(TORCH_MISSING)
    if item.get_closest_marker("corpus") is not None and not item.config.getoption("--corpus"):
        pytest.skip(CORPUS_SKIPPED)
    if item.get_closest_marker("heavy") is not None and not item.config.getoption("--heavy"):
        pytest.skip(HEAVY_SKIPPED)
    if item.get_closest_marker("pdf") is not None and not item.config.getoption("--pdf"):
        pytest.skip(PDF_SKIPPED)


def pytest_collection_finish(session):
    """Hide what start-up and collection built (modules, test items: alive to the end
    anyway) from the cyclic garbage collector, so each full collection during the run
    scans only the objects the tests create: about half the collector's time."""
    gc.freeze()


#: Test modules (and doctest modules) that share per-process caches, by the name of the
#: scope they run in together under ``--dist loadscope``: every widget built and drawn,
#: every figure rendered, the pretrained model loaded and its prompts run, and the trained
#: model's pass over the held-out sample (each a few seconds, computed once per worker).
#: The figures of chapters 11 and 12 draw from both models, and so do the claims, so the
#: two groups share one scope; it is the largest, and xdist sends it out first.
SHARED_SCOPES = dict.fromkeys((
    "tests/test_widgets.py", "tests/test_frame_view.py", "tests/test_figures.py", "tests/test_accessibility.py",
    "tests/test_sphinx_sliders.py", "tests/test_claims.py", "tests/test_public_fuzz.py", "tests/test_questions.py",
    "tests/test_trained.py", "tests/test_trained_attention.py", "tests/test_trained_checks.py",
    "tests/test_trained_evaluation.py", "tests/test_trained_measured.py", "tests/test_trained_overlap.py",
    "tests/test_trained_routing.py", "tests/test_trained_sampling.py", "tests/test_real_model.py",
    "tests/test_real_model_widgets.py", "tests/test_exercises_layer.py", "lib/tokenpath/trained/heads.py",
    "lib/tokenpath/trained/sample.py", "lib/tokenpath/trained/routing.py", "lib/tokenpath/lessons/attention.py",
    "lib/tokenpath/exercises/layer.py"), "shared caches")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadscope`` with :data:`SHARED_SCOPES` merged (other modes as xdist has them)."""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SharedScopes(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return SHARED_SCOPES.get(scope.split("::", 1)[0], scope)

    return SharedScopes(config, log)
