"""Max pooling's gradient has a faster path for 2x2 windows with stride 2 that tile the input (the
usual CNN pooling). It must give the general path's result bit for bit (first maximum in row-major
order, signed zeros, inf and NaN ograds) and leave NaN windows to it."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab.ndarray.dispatch import op_context
from hybridlab.ops import pool
from hybridlab.ops.registry import get_op

ATTRS = get_op("Pooling").parse_attrs({"kernel": "(2, 2)", "stride": "(2, 2)", "pool_type": "max"})


def general_path(x, og):
    geom = pool.pool_geometry(ATTRS, x.shape)
    _, selections = pool._max_selections(np, x, geom)
    return pool._scatter(np, ((sl, og * sel) for sl, sel in selections), x, geom, disjoint=True)


def tricky_data(rng, shape, dtype):
    x = np.round(rng.uniform(-2, 2, shape)).astype(dtype)    # many ties within windows
    x[0, 0, :2, :2] = -0.0
    x[0, 0, 1, 1] = 0.0
    x[-1, -1, -2:, -2:] = rng.standard_normal((2, 2))
    og = rng.standard_normal((shape[0], shape[1], shape[2] // 2, shape[3] // 2)).astype(dtype)
    og[0, 0, 0, 0], og[0, 0, 0, 1], og[0, 1, 0, 0], og[-1, -1, -1, -1] = np.inf, -np.inf, np.nan, -0.0
    return x, og


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(64, 6, 24, 24), (3, 2, 2, 8), (2, 3, 6, 4)])
def test_2x2_path_equals_general_path_bit_for_bit(shape, dtype):
    x, og = tricky_data(np.random.default_rng(0), shape, dtype)
    geom = pool.pool_geometry(ATTRS, x.shape)
    with np.errstate(invalid="ignore"):
        fast = pool._max_backward_2x2(np, x, og, geom)
        expected = general_path(x, og)
    assert fast is not None
    assert fast.dtype == expected.dtype
    np.testing.assert_array_equal(fast.view(np.uint8), expected.view(np.uint8))


def test_nan_window_goes_to_general_path_without_gradient():
    x, og = tricky_data(np.random.default_rng(1), (2, 2, 4, 4), np.float32)
    og = np.ones_like(og)
    x[1, 0, 0, 1] = np.nan
    geom = pool.pool_geometry(ATTRS, x.shape)
    assert pool._max_backward_2x2(np, x, og, geom) is None
    out = get_op("_backward_Pooling").compute(op_context(mx.cpu(), True), ATTRS, og, x, og)
    assert not out[1, 0, :2, :2].any()          # the NaN window gets no gradient, as in MXNet
    assert out[1, 0, :2, 2:].sum() == 1         # its neighbour does


@pytest.mark.parametrize("attrs, shape", [
    ({"kernel": "(2, 2)", "stride": "(2, 2)"}, (1, 1, 4, 5)),                  # odd width: last column dropped
    ({"kernel": "(2, 2)", "stride": "(1, 1)"}, (1, 1, 4, 4)),                  # overlapping windows
    ({"kernel": "(2, 2)", "stride": "(2, 2)", "pad": "(1, 1)"}, (1, 1, 4, 4)),  # padding
    ({"kernel": "(3, 3)", "stride": "(3, 3)"}, (1, 1, 6, 6)),
    ({"kernel": "(2, 2)", "stride": "(2, 2)"}, (0, 1, 4, 4)),                  # an empty batch
])
def test_other_windows_take_the_general_path(attrs, shape):
    a = get_op("Pooling").parse_attrs(dict(attrs, pool_type="max"))
    geom = pool.pool_geometry(a, shape)
    x = np.zeros(shape, np.float32)
    assert pool._max_backward_2x2(np, x, np.zeros(geom[-1], np.float32), geom) is None
