"""Op-checker cases for ops/index_ravel.py: _ravel_multi_index, _unravel_index, mx.np's
_npi_unravel_index_fallback and _npi_diag_indices_from, and batch_take.
Expected values with out-of-range or fractional indices are MXNet 1.9.1's (C truncation and
remainders, no range checks; batch_take clips)."""
import numpy as np

from op_checker import Case

F32, I32 = np.float32, np.int32


def _ravel_ref(data, shape):
    idx = data.astype(np.int64)
    flat = np.zeros(data.shape[1], np.int64)
    for row in range(len(shape)):
        flat += idx[row] * int(np.prod(shape[row + 1:], dtype=np.int64))
    return flat.astype(data.dtype)


def _unravel_ref(data, shape):
    out = np.zeros((len(shape), data.size), np.int64)
    for j, v in enumerate(data.astype(np.int64).tolist()):
        for i in range(len(shape) - 1, 0, -1):
            q = abs(v) // abs(shape[i]) * (1 if (v >= 0) == (shape[i] > 0) else -1)   # C's truncation
            out[i, j] = v - q * shape[i]
            v = q
        out[0, j] = v
    return out.astype(data.dtype)


def _batch_take_ref(a, indices):
    rows = a.reshape(-1, a.shape[-1])
    out = [rows[i, min(max(int(j), 0), a.shape[-1] - 1)] for i, j in enumerate(indices.reshape(-1))]
    return np.array(out, a.dtype).reshape(indices.shape)


CASES = [
    Case("_ravel_multi_index", [np.array([[3, 6, 6], [4, 5, 1]], F32)], attrs={"shape": (7, 6)}, grad=(),
         ref=_ravel_ref),
    Case("_ravel_multi_index", [np.array([[2, 0], [3, 1], [1, 5]], I32)], attrs={"shape": (-1, 6, 2)}, grad=(),
         ref=_ravel_ref, name="leading_minus_one_int32"),
    Case("_ravel_multi_index", [np.array([[9, -1, 2.7], [7, 5, 1.5]], F32)], attrs={"shape": (7, 6)}, grad=(),
         ref=lambda d, shape: np.array([61, -1, 13], F32), name="unchecked_truncated"),   # MXNet's values
    Case("_unravel_index", [np.array([22, 41, 37], F32)], attrs={"shape": (7, 6)}, grad=(), ref=_unravel_ref),
    Case("_unravel_index", [np.array([50, -1, 3.7, 43], F32)], attrs={"shape": (7, 6)}, grad=(),
         ref=lambda d, shape: np.array([[8, 0, 0, 7], [2, -1, 3, 1]], F32), name="unchecked_truncated"),
    Case("_unravel_index", [np.array([22, 41, 37], np.int64)], attrs={"shape": (2, -1, 6)}, grad=(),
         ref=lambda d, shape: np.array([[-3, -6, -6], [0, 0, 0], [4, 5, 1]], np.int64), name="minus_one_inside"),
    Case("_unravel_index", [np.array([59, 7], I32)], attrs={"shape": (3, 4, 5)}, grad=(), ref=_unravel_ref,
         name="three_dims"),
    Case("_npi_unravel_index_fallback", [np.array([[1, 5], [7, 11]], np.uint8)], attrs={"shape": (3, 4)}, grad=(),
         ref=lambda d, shape: np.stack(np.unravel_index(d, shape)).astype(d.dtype)),
    Case("_npi_unravel_index_fallback", [np.array(23, np.int64)], attrs={"shape": (2, 3, 4)}, grad=(),
         ref=lambda d, shape: np.stack(np.unravel_index(d, shape)).astype(d.dtype), name="zero_dim"),
    Case("_npi_diag_indices_from", [(3, 3)], grad=(),
         ref=lambda x: np.stack(np.diag_indices_from(x)).astype(np.int64)),
    Case("_npi_diag_indices_from", [np.ones((2, 2, 2), np.int8)], grad=(),
         ref=lambda x: np.stack(np.diag_indices_from(x)).astype(np.int64), name="three_dims"),
    Case("batch_take", [(3, 4), np.array([0, 3, 1], I32)], grad=(), ref=_batch_take_ref),
    Case("batch_take", [(3, 2), np.array([[5, -1, 1]], I32)], grad=(), ref=_batch_take_ref, name="clipped"),
    Case("batch_take", [(2, 3, 2), np.array([0, 1, 1, 0, 1, 0], I32)], grad=(), ref=_batch_take_ref,
         name="flattened_rows"),
]
