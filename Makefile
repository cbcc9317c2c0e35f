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

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

play: $(VENV)/.installed
	$(BIN)/dominolab play $(GAME) $(ARGS)

test: lint typecheck pytest

lint: $(VENV)/.installed
	$(BIN)/ruff check src tests

typecheck: $(VENV)/.installed
	$(BIN)/mypy

pytest: $(VENV)/.installed
	$(BIN)/pytest

bench: $(VENV)/.installed
	$(BIN)/dominolab bench engine

clean:
	rm -rf $(VENV) build dist src/*.egg-info .mypy_cache .ruff_cache .pytest_cache .hypothesis
