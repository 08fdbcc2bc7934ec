"""Regression tests for the graph-capable np front ends (tensordot, inner, outer, vdot, roll,
linalg.det/tensorinv/eig/eigvals in ``mx.sym.np``), ``mx.npx.random`` and ``ndarray.clip(min=, max=)``;
expected values recorded from MXNet 1.9.1."""
import numpy as onp
import pytest

import hybridlab as mx


def _var(name):
    return mx.sym.var(name).as_np_ndarray()


def test_tensordot_value_and_gradient():
    a, b = mx.np.arange(6.0).reshape(2, 3), mx.np.arange(12.0).reshape(3, 4)
    a.attach_grad()
    with mx.autograd.record():
        y = mx.np.tensordot(a, b, ([1], [0]))
    y.backward()
    assert y.tolist() == [[20.0, 23.0, 26.0, 29.0], [56.0, 68.0, 80.0, 92.0]]
    assert a.grad.tolist() == [[6.0, 22.0, 38.0], [6.0, 22.0, 38.0]]


def test_tensordot_zero_size():
    assert mx.np.tensordot(mx.np.ones((3, 0)), mx.np.ones((0, 4)), 1).tolist() == [[0.0] * 4] * 3


def test_sym_np_fronts_infer_shapes():
    assert mx.sym.np.vdot(_var("a"), _var("b")).infer_shape(a=(2, 3), b=(3, 2))[1] == [()]
    assert mx.sym.np.outer(_var("a"), _var("b")).infer_shape(a=(2, 3), b=(4,))[1] == [(6, 4)]
    assert mx.sym.np.inner(_var("a"), _var("b")).infer_shape(a=(2, 3), b=(5, 3))[1] == [(2, 5)]
    assert mx.sym.np.tensordot(_var("a"), _var("b"), 1).infer_shape(a=(2, 3), b=(3, 4))[1] == [(2, 4)]
    assert mx.sym.np.roll(_var("a"), 1).infer_shape(a=(2, 3))[1] == [(2, 3)]
    assert mx.sym.np.linalg.det(_var("a")).infer_shape(a=(5, 2, 2))[1] == [(5,)]
    assert mx.sym.np.linalg.tensorinv(_var("a"), 1).infer_shape(a=(4, 2, 2))[1] == [(2, 2, 4)]


def test_sym_tensordot_json_matches_mxnet():
    s = mx.sym.np.tensordot(_var("a"), _var("b"), ([0], [1]))
    node = [n for n in __import__("json").loads(s.tojson())["nodes"] if n["op"] != "null"][0]
    assert node["op"] == "_npi_tensordot"
    assert set(node["attrs"]) == {"a_axes_summed", "b_axes_summed"}


def test_roll_tensorinv_eigvals_values():
    assert mx.np.roll(mx.np.arange(6.0).reshape(2, 3), (1, -1), axis=(0, 1)).tolist() == \
        [[4.0, 5.0, 3.0], [1.0, 2.0, 0.0]]
    assert mx.np.linalg.tensorinv(mx.np.array([[2.0, 0.0], [0.0, 4.0]]), 1).tolist() == [[0.5, 0.0], [0.0, 0.25]]
    assert mx.np.linalg.eigvals(mx.np.array([[2.0, 1.0], [0.0, 3.0]])).tolist() == [2.0, 3.0]
    with pytest.raises(mx.MXNetError, match="complex"):
        mx.np.linalg.eigvals(mx.np.array([[0.0, 1.0], [-1.0, 0.0]]))


def test_npx_random():
    assert mx.npx.random.uniform_n(mx.np.zeros((2,)), 1.0, batch_shape=(3,)).shape == (3, 2)
    out = mx.npx.random.bernoulli(prob=mx.np.array([0.0, 1.0]), dtype="int32")
    assert out.dtype == onp.int32 and out.tolist() == [0, 1]
    with pytest.raises(ValueError):
        mx.npx.random.bernoulli(prob=mx.np.array([1.5]))
    with pytest.raises(ValueError):
        mx.npx.random.bernoulli(prob=0.5, logit=0.0)


def test_np_ndarray_clip_min_max_keywords():
    assert mx.np.array([-2.0, 0.5, 2.0]).clip(min=-1, max=1).tolist() == [-1.0, 0.5, 1.0]
    assert mx.nd.array([-2.0, 0.5, 2.0]).clip(-1, 1).asnumpy().tolist() == [-1.0, 0.5, 1.0]
