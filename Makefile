# pitchpass: `make demo` and `make test` work on a fresh machine; each installs what it needs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install demo test test-postgres lint docs bench lock clean

install: $(STAMP)

# The versions CI tested, from requirements.lock (`make lock` writes it anew from
# pyproject.toml's ranges); then pitchpass itself, whose dependencies are all there.
$(STAMP): pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.lock
	$(BIN)/pip install --quiet --no-deps -e .
	touch $(STAMP)

lock:
	$(BIN)/pip install --quiet pip-tools
	$(BIN)/pip-compile --quiet --strip-extras --no-emit-index-url --no-emit-find-links \
		--extra dev --output-file requirements.lock pyproject.toml

# Migrates, loads the seed match (moved to this week), prints a user per role, serves.
DEMO_PORT ?= 8000
demo: install
	$(BIN)/pitchpass demo --serve --port $(DEMO_PORT)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports  # the layers of pyproject.toml [tool.importlinter]
	PITCHPASS_SECRET_KEY=lint-only $(BIN)/mypy  # the Django plugin reads settings

# The browser tests drive Debian's Chromium (Playwright never downloads its own here).
CHROMIUM ?= /usr/bin/chromium
$(CHROMIUM):
	apt-get update -q && apt-get install -y -q chromium

# CHROMIUM is set above this rule: make reads a prerequisite when it reads the rule.
test: lint $(CHROMIUM)
	$(BIN)/pytest

# The web tests again, on the local PostgreSQL (CI runs this after `make test`).
PG_URL ?= postgres://postgres@127.0.0.1:5432/test
test-postgres: install
	# The CLI tests of tests/web start their own processes on SQLite: run once, not twice.
	DATABASE_URL=$(PG_URL) $(BIN)/pytest tests/web -m "not slow"

# The documentation site (docs/, mkdocs.yml) into site/: the command reference written
# anew from the CLI's help first; --strict fails on any broken link or page left out.
docs: install
	$(BIN)/python -m pitchpass.cli.reference docs/commands.md
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

bench: install
	$(BIN)/pip install --quiet -e '.[dev,bench]'  # PuLP, the baseline
	$(BIN)/python benchmarks/decide_season.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis site
