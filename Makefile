# Taskchat: the two commands are `make run` and `make test`; both work on a fresh machine.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat requirements-dev.lock pyproject.toml | sha256sum | cut -c1-16)

.PHONY: install run test lint fmt migrate bench eval clean lock

install: $(STAMP)

$(STAMP): requirements-dev.lock pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-dev.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	@rm -f $(VENV)/.installed-*
	@touch $@

run: install
	$(BIN)/taskchat migrate
	$(BIN)/taskchat serve --host 127.0.0.1 --port 8000

test: install
	bash scripts/ensure-postgres.sh
	bash scripts/ensure-browser.sh
	$(BIN)/ruff check backend tests
	$(BIN)/mypy backend
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check backend tests
	$(BIN)/mypy backend

fmt: install
	$(BIN)/ruff format backend tests
	$(BIN)/ruff check --fix backend tests

migrate: install
	$(BIN)/taskchat migrate

bench: install
	bash scripts/ensure-postgres.sh
	$(BIN)/taskchat bench

eval: install
	$(BIN)/taskchat eval

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis

lock:
	rm -rf /tmp/taskchat-lock && $(PYTHON) -m venv /tmp/taskchat-lock
	/tmp/taskchat-lock/bin/pip install --quiet pip-tools
	/tmp/taskchat-lock/bin/pip-compile --quiet --strip-extras --no-emit-index-url -o requirements.lock pyproject.toml
	/tmp/taskchat-lock/bin/pip-compile --quiet --strip-extras --no-emit-index-url --extra dev -o requirements-dev.lock pyproject.toml
