"""Every module path and name of MXNet 1.9.1 that user programs and MXNet's unit tests use, listed in
``data/mxnet_names.txt``, imports from hybridlab (``mxnet.X`` is ``hybridlab.X``); the names listed
as missing are still missing (a gap closed must be moved up in the list)."""
import importlib
import os

import pytest

LIST = os.path.join(os.path.dirname(__file__), "data", "mxnet_names.txt")


def _entries():
    out = []
    with open(LIST, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            missing = line.startswith("missing ")
            module, names = line[len("missing "):].split(":", 1) if missing else line.split(":", 1)
            out.append((module.strip(), names.split(), missing))
    return out


def _module(path):
    try:
        return importlib.import_module("hybridlab" + path[len("mxnet"):])
    except ImportError:
        return None


PRESENT = [(m, n) for m, n, missing in _entries() if not missing]
MISSING = [(m, n) for m, n, missing in _entries() if missing]


@pytest.mark.parametrize("module, names", PRESENT, ids=[m for m, _ in PRESENT])
def test_mxnet_module_path_imports_with_its_names(module, names):
    mod = _module(module)
    assert mod is not None, f"import {module} (hybridlab{module[len('mxnet'):]}) failed"
    assert [n for n in names if not hasattr(mod, n)] == []


def test_the_known_gaps_are_still_gaps():
    closed = []
    for module, names in MISSING:
        mod = _module(module)
        if mod is not None:
            closed += [f"{module}.{n}" for n in names if hasattr(mod, n)]
    assert closed == [], f"now present: move them up in {LIST}"


def test_the_list_covers_what_mxnets_tests_and_programs_import_most():
    modules = {m for m, _ in PRESENT}
    assert {"mxnet", "mxnet.gluon", "mxnet.gluon.nn", "mxnet.test_utils", "mxnet.operator", "mxnet.base",
            "mxnet.ndarray.ndarray", "mxnet.numpy_op_signature", "mxnet.util"} <= modules
    assert sum(len(n) for _, n in PRESENT) >= 300
