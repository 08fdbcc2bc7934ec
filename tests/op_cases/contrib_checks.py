"""Op-checker cases for ops/contrib_checks.py: _contrib_allclose (a 0-d uint8 result; NaNs equal by
default, as in MXNet)."""
import numpy as np

from op_checker import Case

F32 = np.float32


def _allclose_ref(a, b, rtol=1e-05, atol=1e-08, equal_nan=True):
    return np.array(np.allclose(a.astype(np.float64), b.astype(np.float64), rtol=float(F32(rtol)),
                                atol=float(F32(atol)), equal_nan=equal_nan), np.uint8)


NEAR = (np.array([[1.0, 1e-8], [2.0, np.nan]], F32), np.array([[1.000001, 1e-9], [2.0, np.nan]], F32))

CASES = [
    Case("_contrib_allclose", [(2, 3), (2, 3)], grad=(), ref=_allclose_ref, name="far"),
    Case("_contrib_allclose", list(NEAR), grad=(), ref=_allclose_ref, name="close_nan_equal"),
    Case("_contrib_allclose", list(NEAR), attrs={"equal_nan": False}, grad=(), ref=_allclose_ref, name="nan_unequal"),
    Case("_contrib_allclose", [np.array([2.0, 1.0], F32), np.array([1.0, 1.0], F32)],
         attrs={"rtol": 1.0, "atol": 0.0}, grad=(), ref=_allclose_ref, name="asymmetric_rtol"),
    Case("_contrib_allclose", [np.array([1, 5], np.int32), np.array([1, 5], np.int32)], grad=(), ref=_allclose_ref,
         name="int32"),
]
