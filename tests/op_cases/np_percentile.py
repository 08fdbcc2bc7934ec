"""Op-checker cases for ``_npi_percentile``: NumPy's percentile (``method=``) is the reference."""
import numpy as np

from op_checker import Case


def ref_percentile(a, q=None, q_scalar=None, axis=None, interpolation="linear", keepdims=False):
    q = q_scalar if q is None else q
    out = np.percentile(a.astype(np.float64), q, axis=axis, method=interpolation, keepdims=keepdims)
    return np.asarray(out).astype(np.float64 if a.dtype == np.float64 else np.float32)


CASES = [
    Case("_npi_percentile", [(3, 4, 5)], attrs={"q_scalar": 30.0, "axis": (1,)}, ref=ref_percentile, grad=()),
    Case("_npi_percentile", [(3, 4, 5), np.array([10.0, 50.0, 90.0])],
         attrs={"axis": (0, 2), "interpolation": "nearest", "keepdims": True}, ref=ref_percentile, grad=(),
         name="array-q-nearest-keepdims"),
] + [Case("_npi_percentile", [(6, 5)], attrs={"q_scalar": 37.0, "interpolation": method}, ref=ref_percentile,
          grad=(), name=method) for method in ("lower", "higher", "midpoint")]
