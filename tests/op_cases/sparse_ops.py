"""Op-checker cases for ops/sparse_ops.py: _sparse_retain (rows kept, others zero; gradient to data
only), _square_sum (sum of squares over axes) and _contrib_SparseEmbedding (Embedding's values)."""
import numpy as np

from op_checker import Case


def _retain_ref(data, indices):
    out = np.zeros_like(data)
    rows = indices.astype(np.int64)
    out[rows] = data[rows]
    return out


def _square_sum_ref(x, axis=None, keepdims=False, exclude=False):
    axes = tuple(range(x.ndim)) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    if exclude:
        axes = tuple(i for i in range(x.ndim) if i not in axes)
    out = np.sum(x * x, axis=axes, keepdims=keepdims)
    return out.reshape(1) if out.ndim == 0 else out       # MXNet's legacy reductions: (1,) for all axes


def _embedding_ref(data, weight, input_dim, output_dim, **_):
    return weight[np.clip(data.astype(np.int64), 0, input_dim - 1)]


ROWS = np.array([0, 2, 3], np.float32)
IDS = np.array([[0, 3], [1, 1]], np.float32)

CASES = [
    Case("_sparse_retain", [(5, 3), ROWS], grad=[0], ref=_retain_ref),
    Case("_sparse_retain", [(4, 2, 2), np.array([1], np.int64)], grad=[0], ref=_retain_ref, name="3d"),
    Case("_square_sum", [(3, 4)], attrs={"axis": 1}, ref=_square_sum_ref),
    Case("_square_sum", [(3, 4, 2)], attrs={"axis": (0, 2), "keepdims": True}, ref=_square_sum_ref,
         name="keepdims"),
    Case("_square_sum", [(3, 4)], ref=_square_sum_ref, name="all"),
    Case("_square_sum", [(3, 4, 2)], attrs={"axis": 1, "exclude": True}, ref=_square_sum_ref, name="exclude"),
    Case("_contrib_SparseEmbedding", [IDS, (4, 3)], attrs={"input_dim": 4, "output_dim": 3}, grad=[1],
         ref=_embedding_ref),
]
