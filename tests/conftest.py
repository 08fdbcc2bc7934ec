import os
import sys

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
