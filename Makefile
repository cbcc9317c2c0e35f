# Two commands on a fresh machine with Python 3.11 and make:
#   make play    set up, then start the web app: open http://127.0.0.1:8000/ (PORT=8001 ...)
#   make test    set up, then run the whole test suite (ruff, mypy --strict, pytest with the
#                browser, PostgreSQL and nginx tests; installs Debian's chromium, postgresql
#                and nginx when they are missing and it can)
# Also: make terminal GAME=widelec   the same games in the terminal

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
GAME   ?= luzak
PORT   ?= 8000
ARGS   ?=

.PHONY: play terminal test lint typecheck pytest browser postgresql nginx icu bench screenshots clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# the native fast path (C, built by pip with the machine's gcc; without a compiler the
# package still installs and runs on the pure-Python path): a changed source reinstalls
NATIVE := setup.py $(wildcard src/dominolab/native/csrc/*.c src/dominolab/native/csrc/*.h)

# playing needs the package alone; the tests also need the test tools and the adapters' extras
$(VENV)/.installed: pyproject.toml $(NATIVE) | $(BIN)/python icu
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml $(NATIVE) | $(BIN)/python icu
	$(BIN)/python -m pip install --quiet -e '.[test,openspiel,pettingzoo,lab,cluster,train]'
	touch $(VENV)/.installed $@

play: $(VENV)/.installed
	$(BIN)/dominolab serve --port $(PORT) $(ARGS)

terminal: $(VENV)/.installed
	$(BIN)/dominolab play $(GAME) $(ARGS)

test: lint typecheck browser postgresql nginx pytest

lint: $(VENV)/.installed-test
	$(BIN)/ruff check src tests

typecheck: $(VENV)/.installed-test
	$(BIN)/mypy

# the tests marked slow (long runs of searching players, the docs' slowest commands) run as a
# sample of SLOW_SAMPLE, drawn anew each day (the header says which seed); SLOW_SAMPLE=all
# runs every one
SLOW_SAMPLE ?= 10
pytest: $(VENV)/.installed-test
	$(BIN)/pytest $(if $(filter all,$(SLOW_SAMPLE)),,--slow-sample $(SLOW_SAMPLE))

# PyICU (the look-alike check of display names, web/community/names.py) is built by pip
# against Debian's libicu-dev with g++; with root and apt-get (as in CI) they are installed
# here, otherwise pip's error says what is missing
icu:
	@pkg-config --exists icu-i18n 2>/dev/null && command -v g++ >/dev/null || { \
	  command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ] && (apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libicu-dev pkg-config g++ \
	  >/dev/null) || echo "note: PyICU needs Debian's libicu-dev, pkg-config and g++ to build"; }

# the end-to-end tests drive Debian's Chromium (/usr/bin/chromium) with Playwright; with
# root and apt-get (as in CI) it is installed here, otherwise the tests say what is missing
browser:
	@test -x /usr/bin/chromium || { command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ] \
	  && (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium \
	      >/dev/null) || echo "note: /usr/bin/chromium is missing; install Debian's chromium \
	  package for the browser tests"; }

# the PostgreSQL tests start a throwaway server of their own (tests/pgserver.py) from
# Debian's binaries (/usr/lib/postgresql/N/bin); with root and apt-get (as in CI) they are
# installed here, otherwise the tests say what is missing
postgresql:
	@ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || { command -v apt-get >/dev/null \
	  && [ "$$(id -u)" = 0 ] && (apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq postgresql >/dev/null) || echo "note: PostgreSQL's server is \
	  missing; install Debian's postgresql package for the PostgreSQL tests"; }

# the proxy tests (tests/test_web_proxy.py) and `bench serve --proxy nginx` start a throwaway
# nginx of their own from Debian's binary (/usr/sbin/nginx; no service of it is used); with
# root and apt-get (as in CI) it is installed here, otherwise the tests say what is missing
nginx:
	@test -x /usr/sbin/nginx || { command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ] \
	  && (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx \
	      >/dev/null) || echo "note: /usr/sbin/nginx is missing; install Debian's nginx \
	  package for the proxy tests"; }

# the README's pictures (docs/screenshots/*.png), taken by the browser tests that every
# `make test` runs too (there they go to a temporary folder)
screenshots: $(VENV)/.installed-test browser
	DOMINOLAB_SCREENSHOTS=docs/screenshots $(BIN)/pytest -q tests/test_web_screenshots.py

bench: $(VENV)/.installed
	$(BIN)/dominolab bench engine
	$(BIN)/dominolab bench players
	$(BIN)/dominolab bench simulate

clean:
	rm -rf $(VENV) build dist src/*.egg-info src/dominolab/native/*.so .mypy_cache .ruff_cache .pytest_cache .hypothesis
