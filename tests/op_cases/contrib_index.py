"""Op-checker cases for ops/contrib_index.py: _contrib_index_copy (rows replaced, a repeated index: the
last row wins) and _contrib_index_array (all axes, chosen and negative axes, a 0-d input)."""
import numpy as np

from op_checker import Case


def ref_index_copy(old, idx, new):
    out = old.astype(np.float64)
    for i, r in enumerate(idx.astype(int)):
        out[r] = new[i]
    return out


def ref_index_array(x, axes=None):
    n = x.ndim
    axes = range(n) if axes is None else [ax % n for ax in axes]
    out = np.zeros(x.shape + (len(axes),), np.int64)
    for pos in np.ndindex(*x.shape):
        out[pos] = [pos[ax] for ax in axes]
    return out


I64 = np.int64

CASES = [
    Case("_contrib_index_copy", [(5, 3), np.array([0, 4, 2], I64), (3, 3)], grad=(0, 2), ref=ref_index_copy),
    Case("_contrib_index_copy", [(4, 2, 2), np.array([3.0, 1.0], np.float32), (2, 2, 2)], grad=(0, 2),
         ref=ref_index_copy, name="float_index"),
    Case("_contrib_index_copy", [(4,), np.array([1, 3, 1], I64), (3,)], grad=(0,), ref=ref_index_copy,
         name="repeated_index"),
    Case("_contrib_index_array", [(3, 2, 4)], grad=(), ref=ref_index_array),
    Case("_contrib_index_array", [(2, 3, 4)], attrs={"axes": (2, 0)}, grad=(), ref=ref_index_array, name="axes"),
    Case("_contrib_index_array", [(2, 3, 4)], attrs={"axes": (-1, -3)}, grad=(), ref=ref_index_array,
         name="negative_axes"),
    Case("_contrib_index_array", [np.array(1.5, np.float32)], grad=(), name="zero_dim",
         ref=lambda x, **_: np.zeros((0,), I64)),
]
