"""Op-checker cases for ``_npx_constraint_check`` (all true: array(True); the raising path is
tested in tests/test_np_random_checks.py)."""
import numpy as np

from op_checker import Case

CASES = [
    Case("_npx_constraint_check", [np.array([True, True, True])], attrs={"msg": "bad"},
         ref=lambda x, **a: np.array(True), grad=()),
    Case("_npx_constraint_check", [np.ones((2, 0), dtype=bool)], ref=lambda x, **a: np.array(True),
         grad=(), name="empty"),
]
