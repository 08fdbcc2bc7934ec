# Two entry points, both work on a fresh machine with Python 3.11, Node.js >= 20 and the package
# registries (PyPI, npm):
#   make lab   - create .venv, install hybridlab (building the JupyterLab extension), open JupyterLab
#                on notebooks/ with the extension active
#   make test  - create/update .venv, install with test extras (and Debian's chromium and graphviz, as
#                root, when missing) and cuDNN's library, create .venv-mxnet with real MXNet 1.9.1 for
#                the parity tests,
#                run the jest suite and the whole pytest suite
#                (tests/ui: end-to-end in JupyterLab + headless chromium)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
ROOT_FLAG := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)
# jlpm, jupyter-builder and jupyter come from the venv
export PATH := $(abspath $(BIN)):$(PATH)

# what the extension is built from (jest tests excluded)
EXT_SRC := package.json yarn.lock .yarnrc.yml tsconfig.json \
           $(shell find src style -type f -not -path 'src/__tests__/*' 2>/dev/null)
LABEXT_SHARE := $(VENV)/share/jupyter/labextensions/hybridlab

.PHONY: lab test venv install ext jest system-packages mxnet-venv cudnn-lib

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

venv: $(BIN)/python

# The fast extra (oneDNN for the CPU convolutions) is installed too, so that the op checker runs the
# convolution cases on that path as well (tests/test_ops.py::test_op_path).
# `pip install -e .` builds the extension (hatch-jupyter-builder) on a clean clone and copies it
# into the venv's share/; the link below makes later rebuilds of labextension/ show up (what
# `jupyter labextension develop --overwrite .` does).
# The link is removed first: pip would otherwise write the wheel's install.json through it into
# labextension/, and the next build would add that file twice (hatchling refuses).
install: venv
	rm -rf $(LABEXT_SHARE) labextension/install.json
	$(BIN)/python -m pip install --quiet -e '.[test,fast]'
	$(MAKE) ext
	rm -rf $(LABEXT_SHARE)
	ln -s $(CURDIR)/labextension $(LABEXT_SHARE)

node_modules/.yarn-state.yml: package.json yarn.lock .yarnrc.yml
	$(BIN)/jlpm install
	touch $@

labextension/package.json: node_modules/.yarn-state.yml $(EXT_SRC)
	$(BIN)/jlpm build
	touch $@

ext: labextension/package.json

jest: node_modules/.yarn-state.yml
	$(BIN)/jlpm test

lab: install
	$(BIN)/jupyter labextension list 2>&1 | grep -E 'hybridlab .*enabled'
	$(BIN)/python -m jupyterlab --notebook-dir=notebooks $(ROOT_FLAG)

# Debian packages the tests use: chromium (the browser of tests/ui, driven by the python `playwright`
# package of the test extra; never `playwright install`: no browser downloads) and graphviz (`dot`,
# for the SVG fallback of graph outputs) and Open MPI (mpirun and the library mpi4py loads: the
# distributed kvstore's tests start real workers on loopback). Installed as root when missing, before
# the venv, so that mpi4py finds its MPI.
system-packages:
	@missing=""; [ -x /usr/bin/chromium ] || missing="chromium"; command -v dot >/dev/null || missing="$$missing graphviz"; \
	command -v mpirun >/dev/null || missing="$$missing openmpi-bin libopenmpi-dev"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update && apt-get install -y $$missing; \
	  else echo "make test: missing Debian packages ($$missing); install them as root: apt-get install -y $$missing" >&2; exit 1; fi; \
	fi

# Real MXNet 1.9.1 in a venv of its own (its wheel needs numpy<1.24, hybridlab's venv has a newer one):
# the differential tests run our exports and cases in it through $$HYBRIDLAB_MXNET_PYTHON.
MXNET_VENV := .venv-mxnet
HYBRIDLAB_MXNET_PYTHON ?= $(abspath $(MXNET_VENV))/bin/python

$(MXNET_VENV)/bin/python:
	$(PYTHON) -m venv $(MXNET_VENV)
	$(MXNET_VENV)/bin/python -m pip install --quiet 'mxnet==1.9.1' 'numpy<1.24'
	$(MXNET_VENV)/bin/python -c 'import mxnet; assert mxnet.__version__ == "1.9.1", mxnet.__version__'

mxnet-venv: $(MXNET_VENV)/bin/python

# cuDNN's library (the cudnn extra of pyproject.toml, about 1 GB) for the tests only: without a GPU they
# check the binding's descriptors against hybridlab's shape inference (tests/test_cudnn.py); `make lab`
# does without it.
cudnn-lib: install
	$(BIN)/python -m pip install --quiet $$($(BIN)/python -c 'import tomllib; \
	  print(" ".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["cudnn"]))')

# HYBRIDLAB_UI_TESTS=require: a missing browser piece fails the UI tests instead of skipping them
test: system-packages install cudnn-lib mxnet-venv
	$(BIN)/jupyter labextension list 2>&1 | grep -E 'hybridlab .*enabled'
	$(BIN)/jlpm test
	HYBRIDLAB_MXNET_PYTHON=$(HYBRIDLAB_MXNET_PYTHON) HYBRIDLAB_UI_TESTS=require $(BIN)/python -m pytest -n 2 --dist loadfile
