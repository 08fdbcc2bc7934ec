"""ReLU through rows of zeros (ops.relu_cpu): the same values as np.maximum(x, 0) on every path the
kernels and the generated programs take (large arrays viewed as rows, small ones, non-contiguous
views, out= buffers, NaN), and the generated program binds the rows it reads."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab.gluon import nn
from hybridlab.ops.relu_cpu import relu, row_length


@pytest.mark.parametrize("shape", [(64, 6, 24, 24), (64, 128), (4096,), (3, 5), (1, 256), (2, 70000)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_relu_matches_maximum(shape, dtype):
    x = (np.random.default_rng(0).standard_normal(shape) * 3).astype(dtype)
    got = relu(np, x)
    assert got.shape == x.shape and got.dtype == x.dtype
    np.testing.assert_array_equal(got, np.maximum(x, 0))
    out = np.empty_like(x)
    assert relu(np, x, out=out) is out
    np.testing.assert_array_equal(out, np.maximum(x, 0))


def test_relu_on_views_and_nan():
    x = np.random.default_rng(1).standard_normal((64, 64, 8)).astype(np.float32)
    x[0, 0, 0] = np.nan
    view = x.transpose(2, 0, 1)                      # not contiguous: the plain path
    np.testing.assert_array_equal(relu(np, view), np.maximum(view, 0))
    assert np.isnan(relu(np, x)[0, 0, 0])


def test_row_length():
    assert row_length((64, 6, 24, 24)) == 576      # LeNet's first activation: rows of 24 * 24
    assert row_length((64, 256)) == 256
    assert row_length((1, 256)) is None             # small: the scalar loop is as fast
    assert row_length((2, 100000)) is None          # rows too long to keep a row of zeros


@pytest.mark.parametrize("static_alloc", [False, True])
def test_generated_relu_uses_zero_rows_and_matches_imperative(static_alloc):
    net = nn.HybridSequential()
    net.add(nn.Dense(256, activation="relu"), nn.Dense(128, activation="relu"), nn.Dense(2))
    net.initialize()
    x = mx.nd.random.normal(shape=(64, 512))
    want = net(x).asnumpy()
    net.hybridize(static_alloc=static_alloc, static_shape=static_alloc)
    np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-5, atol=1e-6)
    source = net.cached_op.source()
    assert "zeros_float32_256" in source and "zeros_float32_8192" in source
