# The two commands in the README: `make demo` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup demo test lint typecheck pytest bench lock manifests clean

setup: $(STAMP)

# The versions the tests passed with: requirements-dev.lock (pinned by `make lock`), then hippo
# itself without resolving again. A dependency added to pyproject.toml needs `make lock`.
$(STAMP): pyproject.toml requirements-dev.lock
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip uninstall -q -y hippo 2>/dev/null || true  # the distribution is now hippo-memory
	$(BIN)/pip install -q -r requirements-dev.lock
	$(BIN)/pip install -q -e . --no-deps
	$(BIN)/pip check >/dev/null || { $(BIN)/pip check; \
	  echo "pyproject.toml asks for something requirements-dev.lock lacks: run make lock"; exit 1; }
	touch $(STAMP)

# Regenerate both lock files from pyproject.toml, keeping every pin that still fits;
# `make lock UPGRADE=1` moves every pin to the newest release that fits.
LOCK := $(BIN)/pip-compile --quiet --strip-extras --no-emit-index-url --no-emit-find-links \
	--no-emit-trusted-host $(if $(UPGRADE),--upgrade)
lock:
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	test -x $(BIN)/pip-compile || $(BIN)/pip install -q pip-tools
	$(LOCK) --output-file requirements.lock pyproject.toml
	$(LOCK) --extra dev --output-file requirements-dev.lock pyproject.toml

demo: setup
	$(BIN)/python -m demo.main

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: setup
	$(BIN)/mypy

# The suite mostly waits (on servers, workers and subprocesses), so more workers than cores
# pays: 3 on a 2-core machine. `make pytest PYTEST_WORKERS=0` runs it in one process.
# With PYTHONDONTWRITEBYTECODE set (this machine sets it), every Python process the suite starts
# (hippo's CLI, web, worker and MCP, many times over) compiled hippo's modules again: compiled here
# once (up-to-date files are skipped), they are read instead, ~0.3 s of CPU less per process.
PYTEST_WORKERS ?= 3
pytest: setup
	$(BIN)/python -m compileall -q bot demo integrations jobs memory
	$(BIN)/pytest -q -n $(PYTEST_WORKERS)

# mypy (about 25 s of CPU without its cache, as in a fresh clone) runs beside the suite, which
# mostly waits.
test: lint
	$(MAKE) --no-print-directory -j2 typecheck pytest

bench: setup
	$(BIN)/python bench/notes.py
	$(BIN)/python bench/search.py
	$(BIN)/python bench/history.py
	$(BIN)/python bench/growth.py
	$(BIN)/python bench/cli.py
	$(BIN)/python bench/slack.py
	$(BIN)/python bench/dream.py
	$(BIN)/python bench/claims.py
	$(BIN)/python bench/duplicates.py
	$(BIN)/python bench/truth.py

# manifest.socket-mode.yml from manifest.yml (tests/manifests.py); a test checks it is current.
manifests: setup
	$(BIN)/python -m tests.manifests

clean:
	rm -rf $(VENV) .hippo .pytest_cache .mypy_cache .ruff_cache
