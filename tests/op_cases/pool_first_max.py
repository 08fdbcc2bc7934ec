"""Op-checker cases for ops/pool_first_max.py: the training variant of 2x2 stride-2 max pooling and its
gradient, against the Pooling references of tests/op_cases/pool.py (ties, signed zeros and NaN windows:
tests/test_pool_kernels.py, bit for bit against the general path)."""
import numpy as np

from op_cases.pool import ref_pool, ref_pool_backward
from op_checker import Case

ATTRS = {"kernel": (2, 2), "stride": (2, 2)}


def _first_max(x):
    """The position code (0..3, row-major in the window) of each window's first maximum."""
    n, c, h2, w2 = x.shape
    windows = x.reshape(n, c, h2 // 2, 2, w2 // 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(n, c, h2 // 2, w2 // 2, 4)
    return windows.argmax(axis=-1).astype(np.uint8)


def _codes(data_shape):
    data = np.random.default_rng(5).standard_normal(data_shape)
    return data, (lambda rng: _first_max(data))


_DATA, _CODES = _codes((2, 3, 4, 6))

CASES = [
    # large enough for oneDNN's kernel on the oneDNN path (ops/pool.FIRST_MAX_ONEDNN_MIN; every case of an op
    # following the path must reach it), channels fitting its block; the gradient checked against the
    # reference's rule (numerical gradients of 16384 values would take long). Small and odd shapes, ties,
    # signed zeros and NaN: tests/test_pool_kernels.py
    Case("_Pooling_first_max", [(4, 16, 16, 16)], ref=lambda x, **a: ref_pool(x, **a), attrs=ATTRS,
         grad_rule=lambda x, heads, **a: [ref_pool_backward(heads[0], x, ref_pool(x, **a), **a)], name="tiling"),
    Case("_backward_Pooling_first_max", [(2, 3, 2, 3), _CODES], attrs=ATTRS, grad=(),
         ref=lambda og, code, **a: ref_pool_backward(og, _DATA, ref_pool(_DATA, **a), **a)),
]
