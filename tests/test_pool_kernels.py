"""Max pooling has faster kernels for 2x2 windows with stride 2 that tile the input (the usual CNN
pooling): ``first_max_2x2`` finds each window's first maximum, ``grad_from_first_max`` routes the
gradient there. They must give the general path's results bit for bit (first maximum in row-major
order, signed zeros, inf and NaN ograds, no gradient for NaN windows), and both MXNet's unpooling: a
zeroed gradient, each window's ograd added at its maximum only."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab.ndarray.dispatch import op_context
from hybridlab.ops import pool
from hybridlab.ops.registry import get_op

ATTRS = get_op("Pooling").parse_attrs({"kernel": "(2, 2)", "stride": "(2, 2)", "pool_type": "max"})
CTX = op_context(mx.cpu(), True)


def general_path(x, og):
    geom = pool.pool_geometry(ATTRS, x.shape)
    _, selections = pool._max_selections(np, x, geom)
    return pool._scatter(np, ((sl, np.where(sel, og, 0)) for sl, sel in selections), x, geom, disjoint=True)


def tricky_data(rng, shape, dtype):
    x = np.round(rng.uniform(-2, 2, shape)).astype(dtype)    # many ties within windows
    x[0, 0, :2, :2] = -0.0
    x[0, 0, 1, 1] = 0.0
    x[-1, -1, -2:, -2:] = rng.standard_normal((2, 2))
    x[-1, 0, 0, 1] = x[0, -1, -1, -2] = np.nan                # windows whose maximum is NaN
    og = rng.standard_normal((shape[0], shape[1], shape[2] // 2, shape[3] // 2)).astype(dtype)
    og[0, 0, 0, 0], og[0, 0, 0, 1], og[0, 1, 0, 0], og[-1, -1, -1, -1] = np.inf, -np.inf, np.nan, -0.0
    return x, og


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(64, 6, 24, 24), (3, 2, 2, 8), (2, 3, 6, 4)])
def test_2x2_kernels_equal_the_general_path_bit_for_bit(shape, dtype):
    x, og = tricky_data(np.random.default_rng(0), shape, dtype)
    with np.errstate(invalid="ignore"):
        maximum, code = pool.first_max_2x2(np, x)
        fast = pool.grad_from_first_max(np, og, code)
        expected = general_path(x, og)
        by_op = get_op("_backward_Pooling").compute(CTX, ATTRS, og, x, maximum)
    assert fast.dtype == expected.dtype == by_op.dtype
    np.testing.assert_array_equal(fast.view(np.uint8), expected.view(np.uint8))
    np.testing.assert_array_equal(by_op.view(np.uint8), expected.view(np.uint8))
    # the same maxima as Pooling (a zero maximum's sign aside), NaN windows included
    np.testing.assert_array_equal(maximum, get_op("Pooling").compute(CTX, ATTRS, x))


def test_an_infinite_or_nan_ograd_stays_in_its_maximum():
    """MXNet's unpooling writes a window's ograd at its maximum only: an inf or NaN ograd does not
    spread NaN (inf * 0) to the window's other positions, on either kernel."""
    x = np.arange(2 * 2 * 4 * 4, dtype=np.float32).reshape(2, 2, 4, 4)       # each window's maximum: bottom right
    og = np.ones((2, 2, 2, 2), np.float32)
    og[0, 0, 0, 0], og[1, 1, 1, 1] = np.inf, np.nan
    fast = get_op("_backward_Pooling").compute(CTX, ATTRS, og, x, og)          # (2x2 windows: the fast kernel)
    for out in (general_path(x, og), fast):
        assert out[0, 0, 1, 1] == np.inf and np.isnan(out[1, 1, 3, 3])
        assert np.isfinite(np.delete(out.reshape(-1), [np.ravel_multi_index(i, out.shape) for i in ((0, 0, 1, 1), (1, 1, 3, 3))])).all()
        assert out.sum(where=np.isfinite(out)) == 2 * 2 * 2 * 2 - 2


def test_nan_window_gets_no_gradient():
    x, og = tricky_data(np.random.default_rng(1), (2, 2, 4, 4), np.float32)
    og = np.ones_like(og)
    x[1, 0, 0, 1] = np.nan
    out = get_op("_backward_Pooling").compute(CTX, ATTRS, og, x, og)
    assert not out[1, 0, :2, :2].any()          # the NaN window gets no gradient, as in MXNet
    assert out[1, 0, :2, 2:].sum() == 1         # its neighbour does


def test_empty_batch():
    x = np.zeros((0, 2, 4, 4), np.float32)
    out = get_op("_backward_Pooling").compute(CTX, ATTRS, np.zeros((0, 2, 2, 2), np.float32), x, x)
    assert out.shape == x.shape


@pytest.mark.parametrize("attrs, shape, tiles", [
    ({"kernel": "(2, 2)", "stride": "(2, 2)"}, (1, 1, 4, 6), True),
    ({"kernel": "(2, 2)", "stride": "(2, 2)"}, (1, 1, 4, 5), False),                 # odd width: last column dropped
    ({"kernel": "(2, 2)", "stride": "(2, 2)", "pooling_convention": "full"}, (1, 1, 4, 5), False),
    ({"kernel": "(2, 2)", "stride": "(1, 1)"}, (1, 1, 4, 4), False),                 # overlapping windows
    ({"kernel": "(2, 2)", "stride": "(2, 2)", "pad": "(1, 1)"}, (1, 1, 4, 4), False),  # padding
    ({"kernel": "(3, 3)", "stride": "(3, 3)"}, (1, 1, 6, 6), False),
])
def test_which_windows_tile_2x2(attrs, shape, tiles):
    a = get_op("Pooling").parse_attrs(dict(attrs, pool_type="max"))
    assert pool.tiles_2x2(pool.pool_geometry(a, shape), shape) is tiles
