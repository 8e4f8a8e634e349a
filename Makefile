# The two commands in the README: `make demo` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup demo test lint typecheck pytest bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

demo: setup
	$(BIN)/python -m bot.demo

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: setup
	$(BIN)/mypy

pytest: setup
	$(BIN)/pytest -q

test: lint typecheck pytest

bench: setup
	$(BIN)/python bench/notes.py
	$(BIN)/python bench/search.py
	$(BIN)/python bench/slack.py
	$(BIN)/python bench/dream.py
	$(BIN)/python bench/claims.py
	$(BIN)/python bench/duplicates.py
	$(BIN)/python bench/truth.py

clean:
	rm -rf $(VENV) .hippo .pytest_cache .mypy_cache .ruff_cache
