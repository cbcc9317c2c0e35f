# Two commands on a fresh machine with Python 3.11 and make:
#   make play    set up, then play Luzak against the computer (GAME=widelec, GAME=luzak-line)
#   make test    set up, then run the whole test suite (ruff, mypy --strict, pytest)

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
GAME   ?= luzak
ARGS   ?=

.PHONY: play test lint typecheck pytest bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# playing needs the package alone; the tests also need the test tools and the adapters' extras
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,openspiel,pettingzoo,lab,cluster]'
	touch $(VENV)/.installed $@

play: $(VENV)/.installed
	$(BIN)/dominolab play $(GAME) $(ARGS)

test: lint typecheck pytest

lint: $(VENV)/.installed-test
	$(BIN)/ruff check src tests

typecheck: $(VENV)/.installed-test
	$(BIN)/mypy

pytest: $(VENV)/.installed-test
	$(BIN)/pytest

bench: $(VENV)/.installed
	$(BIN)/dominolab bench engine

clean:
	rm -rf $(VENV) build dist src/*.egg-info .mypy_cache .ruff_cache .pytest_cache .hypothesis
