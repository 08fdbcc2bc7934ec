"""Op-checker cases for the creation ops (no inputs: the attributes alone define the output)."""
import math

import numpy as np

from op_checker import Case


def _dt(a, default="float32"):
    return np.dtype(a.get("dtype", default))


def ref_fill(value):
    def ref(**a):
        out = np.empty(a["shape"], dtype=_dt(a))
        out[...] = value
        return out
    return ref


def ref_full(**a):
    dtype = _dt(a)
    value = a["value"]
    if dtype.kind in "iu":
        value = math.trunc(value)
    return np.array([value] * int(np.prod(a["shape"], dtype=np.int64)), dtype=dtype).reshape(a["shape"])


def ref_arange(**a):
    start, stop, step, repeat = a["start"], a.get("stop"), a.get("step", 1.0), a.get("repeat", 1)
    if stop is None:
        start, stop = 0.0, start
    n = math.ceil((stop - start) / step)
    dtype = _dt(a)
    if dtype.kind in "iu":
        start, step = math.trunc(start), math.trunc(step)
    values = []
    for i in range(n):
        values += [start + i * step] * repeat
    return np.array(values, dtype=np.float64).astype(dtype)


def ref_linspace(**a):
    num, start, stop = a["num"], a["start"], a["stop"]
    div = num - 1 if a.get("endpoint", True) else num
    step = (stop - start) / div if div > 0 else 0.0
    return np.array([start + i * step for i in range(num)], dtype=np.float64).astype(_dt(a))


def ref_eye(**a):
    n, m, k = a["N"], a.get("M", 0) or a["N"], a.get("k", 0)
    out = np.zeros((n, m), dtype=_dt(a))
    for i in range(n):
        if 0 <= i + k < m:
            out[i, i + k] = 1
    return out


CASES = [
    Case("_zeros", [], attrs={"shape": (2, 3)}, ref=ref_fill(0)),
    Case("_zeros", [], attrs={"shape": (4,), "dtype": "int32"}, ref=ref_fill(0), name="int32"),
    Case("_zeros", [], attrs={"shape": ()}, ref=ref_fill(0), name="0d"),
    Case("_ones", [], attrs={"shape": (2, 1, 3)}, ref=ref_fill(1)),
    Case("_ones", [], attrs={"shape": (3,), "dtype": "float64"}, ref=ref_fill(1), name="float64"),
    Case("_ones", [], attrs={"shape": (2, 2), "dtype": "uint8"}, ref=ref_fill(1), name="uint8"),
    Case("_full", [], attrs={"shape": (2, 3), "value": 2.5}, ref=ref_full),
    Case("_full", [], attrs={"shape": (3,), "value": 2.7, "dtype": "int32"}, ref=ref_full, name="int-truncates"),
    Case("_full", [], attrs={"shape": (3,), "value": -2.7, "dtype": "int64"}, ref=ref_full, name="negative-int"),
    Case("_arange", [], attrs={"start": 2.0, "stop": 11.0, "step": 3.0}, ref=ref_arange),
    Case("_arange", [], attrs={"start": 5.0}, ref=ref_arange, name="stop-none"),
    Case("_arange", [], attrs={"start": 1.0, "stop": 3.0, "step": 0.5, "repeat": 3}, ref=ref_arange, name="repeat"),
    Case("_arange", [], attrs={"start": 3.0, "stop": -1.0, "step": -1.5}, ref=ref_arange, name="negative-step"),
    Case("_arange", [], attrs={"start": 0.5, "stop": 4.0, "dtype": "int32"}, ref=ref_arange, name="int32"),
    Case("_arange", [], attrs={"start": "1", "stop": "4", "step": "1", "dtype": "int64"}, ref=lambda **a:
         ref_arange(**{**a, "start": 1.0, "stop": 4.0, "step": 1.0}), name="string-attrs"),
    Case("_linspace", [], attrs={"start": 0.0, "stop": 1.0, "num": 5}, ref=ref_linspace),
    Case("_linspace", [], attrs={"start": -1.0, "stop": 2.0, "num": 6, "endpoint": False}, ref=ref_linspace,
         name="no-endpoint"),
    Case("_linspace", [], attrs={"start": 3.0, "stop": 7.0, "num": 1}, ref=ref_linspace, name="num1"),
    Case("_linspace", [], attrs={"start": 0.0, "stop": 10.0, "num": 4, "dtype": "int32"}, ref=ref_linspace,
         name="int32"),
    Case("_eye", [], attrs={"N": 3}, ref=ref_eye),
    Case("_eye", [], attrs={"N": 2, "M": 4, "k": 1}, ref=ref_eye, name="rect-upper"),
    Case("_eye", [], attrs={"N": 4, "M": 3, "k": -2, "dtype": "int32"}, ref=ref_eye, name="lower-int32"),
    Case("_npi_indices", [], attrs={"dimensions": (2, 3)}, ref=lambda **a: np.indices((2, 3), dtype=np.int32)),
    Case("_npi_indices", [], attrs={"dimensions": (3, 0, 2), "dtype": "float32"}, name="zero-size",
         ref=lambda **a: np.indices((3, 0, 2), dtype=np.float32)),
    Case("_npi_indices", [], attrs={"dimensions": ()}, ref=lambda **a: np.indices((), dtype=np.int32), name="0d"),
]
