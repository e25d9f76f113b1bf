# Every target sets itself up from nothing (see scripts/bootstrap.sh).
VENV ?= .venv
PYTHON ?= python3
GRAPH ?=
PYTEST_ARGS ?=

export VENV PYTHON

.PHONY: demo test build bench lint clean

build:
	@bash scripts/bootstrap.sh

demo: build
	$(VENV)/bin/python -P -m kcjax.cli demo $(GRAPH)

test: build
	$(VENV)/bin/python -P -m pytest -q $(PYTEST_ARGS) tests

bench: build
	$(VENV)/bin/python experiments/bench_cpu.py

lint:
	ruff check kcjax tests experiments
	ruff format --check kcjax tests experiments

clean:
	rm -rf build $(VENV) .pytest_cache
