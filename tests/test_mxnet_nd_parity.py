"""Behaviours checked against real MXNet 1.9.1 (values hard-coded here: MXNet is not installed in CI):
nd.array dtypes, np.arange's dtype, np.clip/split/concatenate signatures, zero gradients of
non-differentiable ops, integer power, amp_cast, sign(nan), and the exception classes."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab import autograd


# ---- 1. nd.array: float32 unless dtype= (an NDArray source keeps its dtype) ---------------------
def test_nd_array_defaults_to_float32_like_mxnet_1x():
    assert mx.nd.array(np.arange(3)).dtype == np.float32                    # int64 source
    assert mx.nd.array(np.arange(3.0)).dtype == np.float32                  # float64 source
    assert mx.nd.array(np.array([True])).dtype == np.float32
    assert mx.nd.array(np.arange(3, dtype=np.uint8)).dtype == np.float32
    assert mx.nd.array(np.arange(3), dtype="int64").dtype == np.int64
    assert mx.nd.array(mx.nd.array([1, 2], dtype="int32")).dtype == np.int32
    np.testing.assert_allclose(mx.nd.sigmoid(mx.nd.array(np.arange(3))).asnumpy(), [0.5, 0.7310586, 0.880797],
                               rtol=1e-6)


def test_np_array_keeps_numpy_dtypes_like_mxnet_np():
    assert mx.np.array(np.arange(3.0)).dtype == np.float64
    assert mx.np.array(np.arange(3)).dtype == np.int64
    assert mx.np.array(np.arange(3, dtype=np.int32)).dtype == np.int32
    assert mx.np.array(np.array([True])).dtype == np.bool_
    assert mx.np.array([1, 2]).dtype == np.float32 and mx.np.array([True]).dtype == np.float32


# ---- 2. np.arange is float32 by default ----------------------------------------------------------
def test_np_arange_default_float32():
    assert mx.np.arange(5).dtype == np.float32 and mx.np.arange(1.5, 3).dtype == np.float32
    assert mx.np.arange(5, dtype="int32").dtype == np.int32
    assert mx.np.arange(0).shape == (0,)


# ---- 3. np.clip / np.split / np.concatenate ------------------------------------------------------
X = [[0.1, 0.6, 0.9, 0.3, 0.7], [1, 2, -1, 0.2, 0.55]]


def test_np_clip_with_open_bounds():
    x = mx.np.array(X)
    np.testing.assert_allclose(mx.np.clip(x, None, 0.5).asnumpy(), np.clip(np.float32(X), None, 0.5))
    np.testing.assert_allclose(mx.np.clip(x, 0.2, None).asnumpy(), np.clip(np.float32(X), 0.2, None))
    with pytest.raises(ValueError):
        mx.np.clip(x, None, None)                       # MXNet: ValueError too
    xi = mx.np.array([-5, 3, 9], dtype="int32")
    r = mx.np.clip(xi, None, 4)
    assert r.dtype == np.int32 and r.tolist() == [-5, 3, 4]


def test_np_split_at_points_and_concatenate_axis_none():
    x = mx.np.array(X)
    parts = mx.np.split(x, [1, 4], axis=1)
    assert [p.shape for p in parts] == [(2, 1), (2, 3), (2, 1)]
    for got, want in zip(parts, np.split(np.float32(X), [1, 4], axis=1)):
        np.testing.assert_array_equal(got.asnumpy(), want)
    assert [p.shape for p in mx.np.split(x, (1,), axis=1)] == [(2, 1), (2, 4)]
    assert len(mx.np.split(x, 5, axis=1)) == 5
    a, b = mx.np.array([[1, 2], [3, 4]]), mx.np.array([[5, 6]])
    assert mx.np.concatenate([a, b], axis=None).tolist() == [1, 2, 3, 4, 5, 6]
    assert mx.np.concatenate([a, b]).shape == (3, 2)
    x.attach_grad()
    with autograd.record():
        y = mx.np.clip(x, None, 0.5).sum() + mx.np.split(x, [1, 4], axis=1)[1].sum()
    y.backward()
    assert x.grad.tolist() == [[1, 1, 1, 2, 0], [0, 1, 2, 2, 0]]


# ---- 4. non-differentiable ops give zero gradients (MXNet's MakeZeroGradNodes) -------------------
ZERO_GRAD_CALLS = [
    ("a > 1", lambda a, b: a > 1), ("a == b", lambda a, b: a == b),
    ("broadcast_equal", lambda a, b: mx.nd.broadcast_equal(a, b)),
    ("broadcast_greater", lambda a, b: mx.nd.broadcast_greater(a, b)),
    ("broadcast_logical_xor", lambda a, b: mx.nd.broadcast_logical_xor(a, b)),
    ("_lesser_equal", lambda a, b: mx.nd._lesser_equal(a, b)),
    ("_logical_and_scalar", lambda a, b: mx.nd._logical_and_scalar(a, scalar=1)),
    ("logical_not", lambda a, b: mx.nd.logical_not(a)),
    ("one_hot", lambda a, b: mx.nd.one_hot(a, depth=3)),
    ("shape_array", lambda a, b: mx.nd.shape_array(a)), ("size_array", lambda a, b: mx.nd.size_array(a)),
    ("BlockGrad", lambda a, b: mx.nd.BlockGrad(a)), ("zeros_like", lambda a, b: mx.nd.zeros_like(a)),
    ("through mul", lambda a, b: (a * b) > 1),
]


@pytest.mark.parametrize("name,fn", ZERO_GRAD_CALLS, ids=[n for n, _ in ZERO_GRAD_CALLS])
def test_backward_of_non_differentiable_head_writes_zeros(name, fn):
    a, b = mx.nd.array([[0.5, 1.5, 2.0]]), mx.nd.array([[1.5, 1.5, 0.0]])
    for v in (a, b):
        v.attach_grad()
        v.grad[:] = 7
    with autograd.record():
        y = fn(a, b)
    y.backward()
    assert a.grad.tolist() == [[0, 0, 0]]


def test_zero_gradients_np_style_mixed_grad_and_hybridized():
    x = mx.np.array([0.5, 1.5]); x.attach_grad()
    with autograd.record():
        y = mx.np.logical_not(x > 1)
    y.backward()
    assert x.grad.tolist() == [0, 0]
    x = mx.nd.array([0.5, 1.5, 2.0]); x.attach_grad()
    with autograd.record():
        y = (x > 1) * x
    y.backward()
    assert x.grad.tolist() == [0, 1, 1]
    with autograd.record():
        y = x > 1
    assert autograd.grad(y, [x])[0].tolist() == [0, 0, 0]

    class Net(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.broadcast_greater(x, F.ones_like(x))
    net = Net(); net.hybridize()
    x.grad[:] = 7
    with autograd.record():
        y = net(x)
    y.backward()
    assert x.grad.tolist() == [0, 0, 0]


def test_not_in_graph_still_raises():
    x = mx.nd.array([1.0, 2.0])           # no attach_grad: nothing to differentiate
    with autograd.record():
        y = x > 1
    with pytest.raises(mx.MXNetError, match="not in a computational graph"):
        y.backward()


# ---- 5. integer power: float32 powf, then C's float-to-int conversion ---------------------------
def test_integer_power_matches_mxnet():
    a = mx.nd.array(np.arange(-7, 10), dtype="int32")
    r = 2 ** a
    assert r.dtype == np.int32 and r.tolist() == [0] * 7 + [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    assert (a ** -1).tolist() == [0] * 6 + [-1, -2147483648, 1] + [0] * 8
    assert (a ** 0.5).tolist() == [1] * 17                       # the scalar is cast to int32 first
    assert (2.5 ** a).tolist() == r.tolist()
    bp = mx.nd.broadcast_power(mx.nd.array([3, -2, 0, 2], dtype="int32"), mx.nd.array([-1, -1, -2, -3], dtype="int32"))
    assert bp.dtype == np.int32 and bp.tolist() == [0, 0, -2147483648, 0]
    assert mx.nd.broadcast_power(mx.nd.array([2, 3], dtype="int32"),
                                 mx.nd.array([31, 20], dtype="int32")).tolist() == [-2147483648] * 2
    assert (mx.nd.array([3], dtype="int64") ** 30).tolist() == [205891135602688]
    assert (mx.nd.array([3, 1, -1, 0], dtype="int8") ** -1).tolist() == [0, 1, -1, 0]
    assert (mx.nd.array([-3], dtype="int8") ** 5).tolist() == [13]
    assert (mx.nd.array([200], dtype="uint8") ** 2).tolist() == [64]
    assert ((-2) ** mx.nd.array([3, -1, 2], dtype="int32")).tolist() == [-8, 0, 4]
    x = mx.np.array([2, 3, -1], dtype="int32")
    assert (x ** -1).tolist() == [0, 0, -1] and (2 ** x).tolist() == [4, 8, 0]


# ---- 6. amp_cast leaves integer inputs alone ----------------------------------------------------
def test_amp_cast_semantics():
    xi = mx.nd.array([1, 2], dtype="int32")
    assert mx.nd.amp_cast(xi, dtype="float16").dtype == np.int32
    assert mx.nd.amp_cast(mx.nd.array([1, 2], dtype="uint8"), dtype="float32").dtype == np.uint8
    assert mx.nd.amp_cast(mx.nd.array([1.5, 2]), dtype="float16").dtype == np.float16
    assert mx.nd.amp_cast(mx.nd.array([1.5, 2]), dtype="int32").tolist() == [1, 2]
    x = mx.nd.array([1.5, 2.0]); x.attach_grad()
    with autograd.record():
        y = mx.nd.amp_cast(x, dtype="float16")
    y.backward()
    assert x.grad.dtype == np.float32 and x.grad.tolist() == [1, 1]
    s = mx.sym.amp_cast(mx.sym.var("x"), dtype="float16")
    assert "amp_cast" in s.tojson(remove_amp_cast=False) and "amp_cast" not in s.tojson()


# ---- 7. sign(nan) is 0 ------------------------------------------------------------------------------
def test_sign_of_nan_is_zero():
    assert mx.nd.sign(mx.nd.array([np.nan, -2, 0, 3, -np.inf])).tolist() == [0, -1, 0, 1, -1]
    assert mx.np.sign(mx.np.array([np.nan, -2.0, 0.0])).tolist() == [0, -1, 0]
    assert mx.nd.sign(mx.nd.array([np.nan], dtype="float16")).tolist() == [0]


# ---- 8. exception classes -----------------------------------------------------------------------------
def test_exception_classes_match_mxnet():
    assert issubclass(mx.MXNetError, RuntimeError)
    x = mx.nd.zeros((2, 3))
    for bad in (lambda: x[5], lambda: x[0, 7], lambda: mx.np.zeros((2, 3))[5], lambda: x[0, 0, 0]):
        with pytest.raises(IndexError):
            bad()
        with pytest.raises(mx.MXNetError):
            bad()

    def set_oob():
        x[7] = 1

    def set_bad_shape():
        x[0] = mx.nd.ones((5,))
    with pytest.raises(IndexError):
        set_oob()
    with pytest.raises(ValueError):
        set_bad_shape()
    with pytest.raises(mx.MXNetError):
        set_bad_shape()
    with pytest.raises(TypeError):
        x.astype("foo")
    with pytest.raises(TypeError):
        mx.nd.array([1], dtype="foo")
    with pytest.raises(mx.MXNetError):      # MXNet: MXNetError (a RuntimeError), not ValueError
        x.reshape((4, 4))


def test_an_infinite_scalar_with_an_integer_array_is_cast_as_mxnet_casts_it():
    # MXNet 1.9.1 casts inf / nan to the dtype's minimum (x86's integer indefinite), wrapping sums
    a = mx.nd.array([1, -5], dtype="int32")
    assert (a == np.inf).asnumpy().tolist() == [0, 0] and (a < np.inf).asnumpy().tolist() == [0, 0]
    assert (a > -np.inf).asnumpy().tolist() == [1, 1] and (a == np.nan).asnumpy().tolist() == [0, 0]
    assert (a + np.inf).asnumpy().tolist() == [-2147483647, 2147483643]
