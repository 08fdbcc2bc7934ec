"""Op-checker cases for ops/all_finite.py: all_finite and multi_all_finite (a float32 [1.0] or [0.0]);
tests/test_contrib_ops.py checks float64 values beyond float32's range."""
import numpy as np

from op_checker import Case


def ref_finite(*arrays, num_arrays=1, init_output=True):
    ok = all(np.isfinite(np.asarray(x, np.float64)).all() for x in arrays)
    return np.array([1.0 if ok else 0.0], np.float32)


INF = np.array([[1.0, np.inf], [0.0, 2.0]], np.float32)
NAN = np.array([np.nan, 1.0], np.float32)

CASES = [
    Case("all_finite", [(2, 3)], grad=(), ref=ref_finite, name="finite"),
    Case("all_finite", [INF], grad=(), ref=ref_finite, name="inf"),
    Case("all_finite", [NAN], attrs={"init_output": False}, grad=(), ref=ref_finite, name="nan"),
    Case("multi_all_finite", [(2, 3), (4,)], attrs={"num_arrays": 2}, grad=(), ref=ref_finite, name="finite"),
    Case("multi_all_finite", [(2, 3), NAN, (1,)], attrs={"num_arrays": 3}, grad=(), ref=ref_finite, name="nan"),
    Case("multi_all_finite", [INF], grad=(), ref=ref_finite, name="one_array"),
]
