"""Reductions along a short last axis done column by column (``ops/short_axis.py``): the same bits
as NumPy's reduce where they are used, refused where they would not be exact or cheaper; the
softmax family using them keeps its values."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab.ops.short_axis import reduce_last

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("shape", [(64, 2), (1024, 3), (1024, 7), (8, 50, 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_column_reductions_equal_numpy_bit_for_bit(shape, dtype):
    x = RNG.standard_normal(shape).astype(dtype)
    x.flat[5] = np.nan if shape[-1] > 2 else x.flat[5]        # NaN propagates in max/min as NumPy's
    for ufunc in (np.add, np.maximum, np.minimum):
        got = reduce_last(ufunc, x)
        assert got is not None, (ufunc, shape)
        want = ufunc.reduce(x, axis=-1, keepdims=True)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("ufunc, x, why", [
    (np.add, np.ones((4096, 8), np.float32), "8 values or more: NumPy sums pairwise"),
    (np.add, np.ones((4096, 2), np.float16), "float16: NumPy sums in float32"),
    (np.maximum, np.ones((4, 2), np.float32), "few rows: NumPy's reduce is cheaper"),
    (np.maximum, np.ones((4096, 1), np.float32), "one column: nothing to reduce"),
    (np.multiply, np.ones((4096, 2), np.float32), "another ufunc"),
    (np.maximum, np.float32(3.0), "a scalar"),
])
def test_refused_where_not_exact_or_not_cheaper(ufunc, x, why):
    assert reduce_last(ufunc, x) is None, why


def test_log_softmax_of_a_two_class_batch_keeps_its_values():
    x = RNG.standard_normal((512, 2)).astype(np.float32)
    z = x - x.max(axis=-1, keepdims=True)                      # the formula with NumPy's reductions
    want = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    np.testing.assert_array_equal(mx.nd.log_softmax(mx.nd.array(x)).asnumpy(), want)
    e = np.exp(z)
    np.testing.assert_array_equal(mx.nd.softmax(mx.nd.array(x)).asnumpy(), e / e.sum(axis=-1, keepdims=True))


@pytest.mark.parametrize("name", ["sum", "max", "min"])
def test_reduction_ops_along_a_short_last_axis_equal_numpy(name):
    x = RNG.standard_normal((2048, 3)).astype(np.float32)
    assert reduce_last({"sum": np.add, "max": np.maximum, "min": np.minimum}[name], x) is not None   # the column path
    for axis in (-1, 1):
        got = getattr(mx.nd, name)(mx.nd.array(x), axis=axis).asnumpy()
        np.testing.assert_array_equal(got, getattr(np, name)(x, axis=axis))


@pytest.mark.parametrize("layout", ["transposed", "strided"])
def test_rows_of_any_layout_keep_numpy_values(layout):
    x = RNG.standard_normal((7, 3000)).astype(np.float32).T if layout == "transposed" else \
        RNG.standard_normal((64, 20, 3)).astype(np.float32)[:, ::2, :]
    for ufunc in (np.add, np.maximum):
        got = reduce_last(ufunc, x)
        assert got is not None
        np.testing.assert_array_equal(got, ufunc.reduce(x, axis=-1, keepdims=True))
