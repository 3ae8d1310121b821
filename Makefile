# Taskchat: the two commands are `make run` and `make test`; both work on a fresh machine.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := install
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
# The stamp's name is the hash of what the install depends on: a changed lock or pyproject gives a
# new name (so `make install` reinstalls); unchanged content is a no-op whatever the files' mtimes.
INSTALL_HASH := $(shell cat requirements-dev.lock requirements.lock pyproject.toml 2>/dev/null | sha256sum | cut -c1-16)
STAMP := $(VENV)/.installed-$(INSTALL_HASH)
PYTEST_ARGS ?=
# Python may keep compiled modules (and pytest its rewritten test modules) in __pycache__ even where
# the environment says not to: without them every test process compiles ~400 modules again (~10 s).
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest
# `mypy` with no arguments checks backend and tests, --strict (pyproject.toml's [tool.mypy] `files`):
# ~16 s from a cold cache, under a second warm.

.PHONY: help install run test test-fast lint fmt migrate bench eval clean lock messages heldout docs

help:
	@echo "make run      create .venv, install, migrate, serve on 127.0.0.1:8000"
	@echo "make test     create .venv, install, ensure Postgres, ruff + mypy + the docs build + pytest (PYTEST_ARGS=...)"
	@echo "make test-fast  the loop's lane: ruff, mypy and the suite less its slow tests, two workers (~2 min)"
	@echo "make install  .venv with every dependency and the taskchat command (idempotent)"
	@echo "make docs     the docs site (mkdocs.yml, docs/) built strictly into site/ (SITE_DIR=...)"
	@echo "make lint | fmt | migrate | bench | eval | clean | lock"

install: $(STAMP)

$(STAMP):
	@test -n "$(PYTHON)" || { echo "make install: python3 not found" >&2; exit 1; }
	@if ! $(BIN)/python -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then \
	  rm -rf $(VENV); \
	  echo "make install: creating $(VENV) with $(PYTHON)"; \
	  if ! $(PYTHON) -m venv $(VENV); then \
	    rm -rf $(VENV); \
	    echo "make install: $(PYTHON) -m venv failed; installing Debian's python3-venv"; \
	    SUDO=$$( [ "$$(id -u)" -eq 0 ] || echo sudo ); \
	    $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq python3-venv >/dev/null; \
	    $(PYTHON) -m venv $(VENV); \
	  fi; \
	fi
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-dev.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	@rm -f $(VENV)/.installed-*
	@touch $@
	@echo "make install: $(VENV) is up to date"

run: install
	$(BIN)/taskchat migrate
	$(BIN)/taskchat serve --host 127.0.0.1 --port 8000

test: install
	bash scripts/ensure-postgres.sh
	bash scripts/ensure-browser.sh
	bash scripts/ensure-node.sh
	bash scripts/ensure-valgrind.sh
	$(BIN)/ruff check backend tests
	$(BIN)/mypy
	site=$$(mktemp -d); trap 'rm -rf "$$site"' EXIT; $(BIN)/mkdocs build --strict --site-dir "$$site"
	TASKCHAT_NODE_REQUIRED=1 $(PYTEST) -q -n 2 $(PYTEST_ARGS)

# The fast lane for a development loop: everything but what tests/conftest.py calls slow (held-out,
# browser, Node clients, reliability, perf, CLI subprocesses, the PgBouncer reruns), on two workers,
# each with a database of its own (tests/support/db.py). CI runs `make test`.
test-fast: install
	bash scripts/ensure-postgres.sh
	$(BIN)/ruff check backend tests
	$(BIN)/mypy
	$(PYTEST) -q --fast -n 2 $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check backend tests
	$(BIN)/mypy

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

# The docs site: every page of docs/ in mkdocs.yml's nav, every link and anchor checked (--strict).
docs: install
	$(BIN)/mkdocs build --strict --site-dir $(or $(SITE_DIR),site)

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis build dist *.egg-info
	find . -path ./.git -prune -o -path './.venv*' -prune -o -type d -name __pycache__ -print0 | xargs -0 rm -rf

# Both locks from pyproject.toml, in a throwaway venv. The dev lock is resolved under the runtime
# lock's pins, so the two always agree (tests/test_packaging.py checks it). Existing pins are kept
# unless pyproject.toml needs otherwise; add --upgrade to PIP_COMPILE_ARGS to move them.
# --no-emit-find-links/--no-emit-index-url: this machine's pip configuration stays out of the locks.
PIP_COMPILE_ARGS ?=
lock:
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(PYTHON) -m venv "$$tmp/venv"; \
	"$$tmp/venv/bin/python" -m pip install --quiet 'pip-tools>=7.4'; \
	compile="$$tmp/venv/bin/pip-compile --quiet --strip-extras --no-emit-index-url --no-emit-find-links $(PIP_COMPILE_ARGS)"; \
	set -x; \
	$$compile -o requirements.lock pyproject.toml; \
	$$compile --extra dev -c requirements.lock -o requirements-dev.lock pyproject.toml

# The catalogs' template: every message the backend writes to users (backend/app/language/catalog.py).
messages: install
	$(BIN)/pybabel extract --no-location --omit-header --sort-output --no-default-keywords -k t -k n:1,2 -k N_ \
	  -o backend/app/language/catalogs/messages.pot backend/app

# The held-out honesty set (tests/heldout): its counts by variant, language and kind.
heldout: install
	bash scripts/ensure-postgres.sh
	HELDOUT_REPORT=specs/heldout/results.json $(PYTEST) -q -p no:randomly tests/heldout
