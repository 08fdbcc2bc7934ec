"""Op-checker cases for ops/quadratic.py: _contrib_quadratic, a * x**2 + b * x + c."""
import numpy as np

from op_checker import Case


def ref_quadratic(x, a=0.0, b=0.0, c=0.0):
    a, b, c = (float(np.float32(v)) for v in (a, b, c))
    return a * x.astype(np.float64) ** 2 + b * x + c


CASES = [
    Case("_contrib_quadratic", [(2, 3)], attrs={"a": 0.7, "b": -1.3, "c": 0.25}, ref=ref_quadratic),
    Case("_contrib_quadratic", [(4,)], ref=ref_quadratic, name="defaults"),
    Case("_contrib_quadratic", [(2, 2, 2)], attrs={"a": -2.0, "c": 5.0}, ref=ref_quadratic, name="no_linear"),
]
