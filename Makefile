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
	$(VENV)/bin/python -P -m kcjax demo $(GRAPH)

test: build
	$(VENV)/bin/python -P -m pytest -q $(PYTEST_ARGS) tests

bench: build
	$(VENV)/bin/python -P experiments/cliques/bench.py --graphs email-Enron com-dblp --ks 3-6 \
		--methods kcminer binary_search static_l2 pivot dense --repeats 3 \
		--out experiments/results/cliques/cpu.json

lint: build
	$(VENV)/bin/python -m ruff --version >/dev/null 2>&1 || $(VENV)/bin/python -m pip install -q ruff
	$(VENV)/bin/python -m ruff check kcjax tests experiments
	$(VENV)/bin/python -m ruff format --check kcjax tests experiments

clean:
	rm -rf build $(VENV) .pytest_cache
