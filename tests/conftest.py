import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


def pytest_terminal_summary(terminalreporter):
    """Print how many ops are registered and how many the shared checker covered."""
    from hybridlab.ops.registry import all_ops
    from op_cases import all_cases
    registered = {op.name for op in all_ops()}
    checked = {c.op for c in all_cases()} & registered
    passed = {r.nodeid for r in terminalreporter.stats.get("passed", [])}
    ran = any("test_ops.py::test_op" in n for n in passed)
    terminalreporter.write_line(
        f"op checker: {len(registered)} registered ops, {len(checked)} with cases"
        + (f", {sum('test_ops.py::test_op' in n for n in passed)} op/device checks passed" if ran else ""))


@pytest.fixture(params=["ufuncs", "blas"])
def update_kernels(request, monkeypatch):
    """Run an optimizer test on each path of the updates (``ops.blas_level1``): NumPy's ufuncs, or
    BLAS's axpy/scal, which then take arrays of every size (the test's small ones too). Yields
    ``(path, calls)``: ``calls[0]`` counts the BLAS calls made."""
    from hybridlab.ops import blas_level1
    calls = [0]
    if request.param == "ufuncs":
        with blas_level1.enabled(False):
            yield request.param, calls
        return
    if not blas_level1.available():
        pytest.skip("NumPy's OpenBLAS (cblas axpy/scal) was not found: the BLAS update path is not checked")

    def counted(fn):
        def call(*args):
            calls[0] += 1
            return fn(*args)
        return call
    routines = {key: counted(fn) for key, fn in blas_level1._routines().items()}
    monkeypatch.setitem(blas_level1._state, "routines", routines)
    monkeypatch.setattr(blas_level1, "MIN_SIZE", 1)
    with blas_level1.enabled(True):
        yield request.param, calls
