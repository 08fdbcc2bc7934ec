"""Regressions found running MXNet 1.9.1's tests/python/unittest/test_operator.py; expected values
recorded from real MXNet 1.9.1."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab.test_utils import (assert_almost_equal_ignore_nan, check_numeric_gradient,
                                  check_symbolic_backward)


def test_empty_takes_a_numpy_shape_array():
    assert mx.nd.empty(np.array([2, 3])).shape == (2, 3)


def _int_binary_grads(op):
    a, b = mx.sym.var('a'), mx.sym.var('b')
    c = getattr(mx.sym, op)(mx.sym.cast(a, dtype='int32'), mx.sym.cast(b, dtype='int32'))
    ga, gb = mx.nd.zeros((2,)), mx.nd.zeros((2,))
    ex = c.bind(mx.cpu(), args={'a': mx.nd.array([7, 9]), 'b': mx.nd.array([2, 4])}, args_grad=[ga, gb])
    ex.forward(is_train=True)
    ex.backward([mx.nd.array([1.5, 2.7])])     # copied into an int32 head gradient: [1, 2]
    return ga.asnumpy().tolist(), gb.asnumpy().tolist()


def test_int_head_gradient_and_int_mod_gradient():
    assert _int_binary_grads('broadcast_mul') == ([2.0, 8.0], [7.0, 18.0])
    assert _int_binary_grads('broadcast_sub') == ([1.0, 2.0], [-1.0, -2.0])
    assert _int_binary_grads('broadcast_mod') == ([0.0, 0.0], [0.0, 0.0])


def test_head_gradient_of_an_op_without_gradient_is_not_checked():
    x = mx.sym.var('x')
    for y in (mx.sym.shape_array(x), mx.sym.argmax(x, axis=1, keepdims=True)):
        g = mx.nd.ones((3, 4))
        ex = y.bind(mx.cpu(), args={'x': mx.nd.ones((3, 4))}, args_grad={'x': g})
        ex.forward(is_train=True)
        ex.backward([mx.nd.ones((3, 4))])
        assert g.asnumpy().tolist() == [[0.0] * 4] * 3


def test_backward_without_forward():
    g = mx.nd.zeros((2, 2))
    ex = mx.sym.repeat(mx.sym.var('data'), repeats=2, axis=0).bind(
        mx.cpu(), args=[mx.nd.array([[1, 2], [3, 4]])], args_grad=[g])
    ex.backward(mx.nd.array([[1, 2], [3, 4], [5, 6], [7, 8]]))
    assert g.asnumpy().tolist() == [[4.0, 6.0], [12.0, 14.0]]


def test_bind_ignores_names_the_symbol_lacks():
    y = mx.sym.var('x') * 2
    ex = y.bind(mx.cpu(), {'x': mx.nd.ones(2), 'b': None, 'c': mx.nd.ones(3)},
                args_grad={'x': mx.nd.zeros(2), 'b': None})
    assert ex.forward()[0].asnumpy().tolist() == [2.0, 2.0]


@pytest.mark.parametrize("src, shape_args, reverse, dst, hold", [
    ((2, 3, 5, 6), (6, 1, -2), False, (6, 1, 5, 6), 0),
    ((64,), (-4, 16, 4), False, (16, 4), 0),
    ((2, 3, 5, 6), (-2, 1, 30), True, (2, 3, 1, 30), 3),
    ((2, 3, 5, 5), (0, -1), True, (5, 30), 1),
])
def test_reshape_infers_an_unknown_input_dim_from_its_output(src, shape_args, reverse, dst, hold):
    held = list(src)
    held[hold] = 0
    net = mx.sym.elemwise_add(mx.sym.var('data').reshape(shape_args, reverse=reverse), mx.sym.ones(shape=dst))
    arg, out, _ = net.infer_shape(data=tuple(held))
    assert arg == [src] and out == [dst]


def test_prelu_gamma_over_the_first_two_axes():
    x, gamma = mx.sym.var('x'), mx.sym.var('gamma')
    y = mx.sym.LeakyReLU(data=x, gamma=gamma, act_type='prelu')
    xa = mx.nd.array(np.arange(-8, 8).reshape(2, 2, 2, 2) / 4.0)
    gx, gg = mx.nd.zeros((2, 2, 2, 2)), mx.nd.zeros((2, 2))
    ex = y.bind(mx.cpu(), args={'x': xa, 'gamma': mx.nd.array([[0.1, 0.2], [0.3, 0.4]])},
                args_grad={'x': gx, 'gamma': gg})
    out = ex.forward(is_train=True)[0].asnumpy().ravel()
    np.testing.assert_allclose(out[:8], [-0.2, -0.175, -0.15, -0.125, -0.2, -0.15, -0.1, -0.05], rtol=1e-6)
    ex.backward(mx.nd.ones((2, 2, 2, 2)))
    np.testing.assert_allclose(gx.asnumpy().ravel()[:10], [0.1] * 4 + [0.2] * 4 + [0.3, 1.0], rtol=1e-6)
    assert gg.asnumpy().tolist() == [[-6.5, -2.5], [0.0, 0.0]]
    assert y.infer_shape(x=(3, 4), gamma=(4,))[1] == [(3, 4)]
    with pytest.raises(mx.MXNetError):
        y.infer_shape(x=(2, 3, 4), gamma=(3, 4))


def test_tile_rejects_negative_reps():
    with pytest.raises(mx.MXNetError, match="non-negative"):
        mx.nd.tile(mx.nd.ones((2, 2)), reps=(1, 2, -3))


def test_check_symbolic_backward_null_req_and_asnumpy_dtype():
    x = mx.sym.var('x')
    data = np.array([[1.0, -2.0]], dtype=np.float64)
    for req in ('null', 'add', 'write'):
        check_symbolic_backward(mx.sym.softmin(x), [data], [np.ones((1, 2))], [np.zeros((1, 2))],
                                grad_req=req, atol=1e-6)
    got = check_symbolic_backward(x * 2, [data], [np.ones((1, 2))], [np.full((1, 2), 2.0)], dtype='asnumpy')
    assert got['x'].dtype == np.float64


def test_check_numeric_gradient_fortran_ordered_input():
    m = np.random.uniform(-1, 1, (4, 3)).T          # not C-contiguous
    y = mx.sym.dot(mx.sym.var('x'), mx.sym.var('y'), transpose_a=True)
    check_numeric_gradient(y, [m, np.random.uniform(-1, 1, (3, 5))], numeric_eps=1e-1, rtol=2e-2, atol=1e-3)


def test_check_numeric_gradient_float16_cancels_elementwise():
    x = np.random.uniform(-0.01, 0.01, (3, 4)).astype(np.float16)
    check_numeric_gradient(mx.sym.LeakyReLU(mx.sym.var('x'), act_type='gelu'), [x], numeric_eps=7.5e-4,
                           rtol=2e-2, atol=1e-3, dtype=np.float16)


def test_assert_almost_equal_ignore_nan():
    assert_almost_equal_ignore_nan(np.array([1.0, np.nan]), np.array([1.0, 3.0]))
    with pytest.raises(AssertionError):
        assert_almost_equal_ignore_nan(np.array([1.0, np.nan]), np.array([2.0, 3.0]))
