"""Op-checker cases for the window functions (no inputs: NumPy's windows are the reference)."""
import numpy as np

from op_checker import Case


def ref_window(name):
    return lambda M, dtype="float32", **a: getattr(np, name)(M).astype(dtype)


CASES = [case for name in ("hanning", "hamming", "blackman") for case in (
    Case(f"_npi_{name}", [], attrs={"M": 7}, ref=ref_window(name)),
    Case(f"_npi_{name}", [], attrs={"M": 1, "dtype": "float64"}, ref=ref_window(name), name="one-point"),
    Case(f"_npi_{name}", [], attrs={"M": -3}, ref=ref_window(name), name="empty"),
)]
