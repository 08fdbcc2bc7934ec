"""Op-checker cases for ops/arange_like.py (_contrib_arange_like): values from the shape only; the
gradient is zero (not checked: the op states no_grad_reason)."""
import numpy as np

from op_checker import Case


def ref_arange_like(x, start=0.0, step=1.0, repeat=1, axis=None, ctx=""):
    shape = x.shape if axis is None else (x.shape[axis],)
    n = int(np.prod(shape))
    return (start + (np.arange(n) // repeat) * step).reshape(shape).astype(x.dtype)


CASES = [
    Case("_contrib_arange_like", [(2, 3)], ref=ref_arange_like, grad=()),
    Case("_contrib_arange_like", [(2, 3, 4)], attrs={"start": 1.5, "step": 0.5, "repeat": 2},
         ref=ref_arange_like, grad=(), name="repeat"),
    Case("_contrib_arange_like", [(2, 5)], attrs={"axis": -1, "step": 3.0, "start": 2.0}, ref=ref_arange_like,
         grad=(), name="axis"),
    Case("_contrib_arange_like", [np.zeros((4,), np.int32)], attrs={"start": 2.0, "step": 3.0},
         ref=ref_arange_like, grad=(), name="int32"),
]
