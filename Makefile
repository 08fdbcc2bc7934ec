# Two entry points, both work on a fresh machine with Python 3.11 and the package registries:
#   make lab   - create .venv, install hybridlab, open JupyterLab on notebooks/
#   make test  - create/update .venv, install with test extras, run the whole suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
ROOT_FLAG := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

.PHONY: lab test venv

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

venv: $(BIN)/python

lab: venv
	$(BIN)/python -m pip install --quiet -e .
	$(BIN)/python -m jupyterlab --notebook-dir=notebooks $(ROOT_FLAG)

test: venv
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python -m pytest -n 2 --dist loadfile
