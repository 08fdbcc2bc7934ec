"""NDArray indexing (x[key], x[key] = value) against NumPy, gradients through indexing, and the
NumPy-namespace forms of the reduce/shape/index ops."""
import numpy as np
import pytest

import hybridlab as mx

DEVICES = [pytest.param(mx.cpu(), id="cpu"),
           pytest.param(mx.gpu(0), id="gpu", marks=pytest.mark.skipif(
               mx.num_gpus() == 0, reason="no CUDA device (CuPy with a GPU is needed)"))]

A = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
I = np.int64

GET_KEYS = [
    0, -1, 2, (1, 2), (1, 2, 3), (-1, -4, -5), (slice(None), 1), (Ellipsis, 2), (0, Ellipsis), (None, 1),
    (slice(1, None, -1),), (slice(None, None, 2), slice(3, 0, -2)), (slice(-2, None), slice(None, -1), slice(1, 5, 3)),
    (slice(None, None, -1), Ellipsis, slice(None, None, -2)), (None, Ellipsis, None), (1, None, slice(0, 3), None),
    (slice(10, 20),), (slice(-100, 100),), (Ellipsis,), (), (slice(None),),
    np.array([2, 0], I), np.array([[1], [-1]], I), (slice(None), np.array([0, 3], I)),
    (slice(None), np.array([0, 3], I), np.array([1, 2], I)), (0, slice(None), np.array([1, 2], I)),
    (np.array([1, 2], I), slice(None), 0), (slice(None), np.array([[0], [1]], I), np.array([0, 2], I)),
    (np.array([0, 2], I), np.array([1, 3], I)), (1, None, np.array([0, 1], I)), (np.array([0, 1], I), None, np.array([0, 1], I)),
    (slice(1, 3), np.array([3, 0, 3], I), slice(None, None, 2)), (Ellipsis, np.array([4, -5], I)), np.array(1, I),
    A[:, 0, 0] > 10, (slice(None), A[0] > 4), (A > 30,), (slice(None), A[0, :, 0] > 6), (A[:, :, 0] > 45, np.array([1, 3], I)),
    [2, 0, 1], ([0, 2], [1, 3]), [[0, 1], [2, 2]], [True, False, True],
]


def _key_id(k):
    return repr(k).replace("\n", "").replace(" ", "")[:60]


def _index_form(key, form, device):
    """The key with its arrays as given ('numpy') or as NDArrays ('ndarray')."""
    if isinstance(key, tuple):
        return tuple(_index_form(k, form, device) for k in key)
    if isinstance(key, np.ndarray) and form == "ndarray":
        return mx.nd.array(key, dtype=key.dtype, device=device)
    return key


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("form", ["numpy", "ndarray"])
@pytest.mark.parametrize("key", GET_KEYS, ids=[_key_id(k) for k in GET_KEYS])
def test_getitem_matches_numpy(key, form, device):
    x = mx.np.array(A, device=device)
    got = x[_index_form(key, form, device)]
    expected = A[key]
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got.asnumpy(), expected)
    np.testing.assert_array_equal(x.asnumpy(), A)   # the source is unchanged


@pytest.mark.parametrize("device", DEVICES)
def test_getitem_legacy_shapes(device):
    x = mx.nd.array(A, device=device)
    assert x[1, 2, 3].shape == (1,) and x[1, 2, 3].asscalar() == A[1, 2, 3]   # MXNet 1.x: no 0-d results
    assert x[0].shape == (4, 5)
    assert x[[0, 1]].shape == (2, 4, 5)
    assert x[mx.nd.array([2, 0], device=device)].shape == (2, 4, 5)   # float index arrays (MXNet's default dtype)
    np.testing.assert_array_equal(x[mx.nd.array([2, 0], device=device)].asnumpy(), A[[2, 0]])
    assert x[np.array([1], I), 2, 3].shape == (1,)
    assert mx.nd.array([5.0, 6.0], device=device)[1].asnumpy().tolist() == [6.0]
    whole = x[:]       # a view, as in MXNet: a new NDArray on the same memory
    whole[0, 0, 0] = -1
    assert whole is not x and x[0, 0, 0].asscalar() == -1
    assert [row.shape for row in mx.nd.array(A[0], device=device)] == [(5,)] * 4


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("key, message", [
    (3, "out of bounds"), ((0, -5), "out of bounds"), (np.array([0, 3], I), "out of bounds"),
    ((slice(None), np.array([-6], I)), "out of bounds"), ((np.array([0, 1], I), np.array([0, 9], I)), "out of bounds"),
    ((0, 0, 0, 0), "too many indices"), ("a", "unsupported index key"), (1.5, "unsupported index key"),
    (np.array([0.5]), "integer or boolean dtype"), (np.array([True, False]), "boolean index expected shape"),
    ((np.array([0, 1], I), np.array([0, 1, 2], I)), "could not be broadcast"), ((Ellipsis, Ellipsis), "single ellipsis"),
])
def test_getitem_errors(key, message, device):
    x = mx.np.array(A, device=device)
    with pytest.raises(mx.MXNetError, match=message):
        x[key]


SET_KEYS = [0, -1, (1, 2), (slice(None), 1), (Ellipsis, 2), (slice(1, None, -1),), (slice(None, None, 2), slice(3, 0, -2)),
            (None, 1), np.array([2, 0], I), (slice(None), np.array([0, 3], I)), (np.array([0, 2], I), np.array([1, 3], I)),
            A > 30, (slice(None), A[0, :, 0] > 6), [1, 2], ()]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("value", ["scalar", "row", "full_numpy", "full_ndarray"])
@pytest.mark.parametrize("key", SET_KEYS, ids=[_key_id(k) for k in SET_KEYS])
def test_setitem_matches_numpy(key, value, device):
    expected = A.copy()
    shape = expected[key].shape
    if value == "scalar":
        v = -7.5
    elif value == "row":
        if not shape:
            pytest.skip("no last axis to broadcast a row along")
        v = -np.arange(shape[-1], dtype=np.float64)   # broadcast along the leading axes, cast to float32
    else:
        v = -np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) - 1
    expected[key] = v
    x = mx.np.array(A, device=device)
    x[_index_form(key, "ndarray", device)] = mx.np.array(v, device=device) if value == "full_ndarray" else v
    assert x.dtype == np.float32
    np.testing.assert_array_equal(x.asnumpy(), expected)


@pytest.mark.parametrize("device", DEVICES)
def test_setitem_errors_and_legacy(device):
    x = mx.nd.array(A, device=device)
    with pytest.raises(mx.MXNetError, match="cannot assign"):
        x[0] = np.ones((3, 3))
    with pytest.raises(mx.MXNetError, match="out of bounds"):
        x[np.array([5], I)] = 1
    x[1, 2, 3] = 100
    x[0] = mx.nd.ones((4, 5), ctx=device)
    expected = A.copy()
    expected[1, 2, 3], expected[0] = 100, 1
    np.testing.assert_array_equal(x.asnumpy(), expected)


def _grad(x_np, fn, head=None, device=None):
    x = mx.nd.array(x_np, device=device, dtype=x_np.dtype)
    x.attach_grad()
    with mx.autograd.record():
        y = fn(x)
    h = np.random.default_rng(0).standard_normal(y.shape).astype(x_np.dtype) if head is None else head
    y.backward(mx.nd.array(h, device=device, dtype=x_np.dtype))
    return x.grad.asnumpy(), h


@pytest.mark.parametrize("device", DEVICES)
def test_gradient_through_basic_slicing(device):
    x = np.random.default_rng(1).standard_normal((4, 6)).astype(np.float32)
    g, h = _grad(x, lambda v: v[1:3, ::2], device=device)
    expected = np.zeros_like(x)
    expected[1:3, ::2] = h
    np.testing.assert_allclose(g, expected)
    g, h = _grad(x, lambda v: v[-1, None, 4:1:-2], device=device)
    expected = np.zeros_like(x)
    expected[-1, 4:1:-2] = h.reshape(-1)
    np.testing.assert_allclose(g, expected)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("key", [np.array([0, 2, 0, -1], I), (slice(None), np.array([[5, 1], [1, 1]], I)),
                                 (np.array([0, 3, 0], I), np.array([1, -1, 1], I)), (slice(1, 3), np.array([2, 2], I)),
                                 "mask"], ids=["take", "take_axis1", "gather_nd", "slice_take", "mask"])
def test_gradient_through_advanced_indexing(key, device):
    x = np.random.default_rng(2).standard_normal((4, 6)).astype(np.float32)
    if isinstance(key, str):
        key = x > 0
    g, h = _grad(x, lambda v: v[_index_form(key, "ndarray", device)], device=device)
    expected = np.zeros_like(x)
    np.add.at(expected, key, h)   # repeated indices accumulate
    np.testing.assert_allclose(g, expected, rtol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
def test_second_order_gradient_through_slicing(device):
    x = mx.nd.array(np.arange(12.0).reshape(3, 4), device=device)
    x.attach_grad()
    with mx.autograd.record():
        part = x[1:, 1::2]
        y = mx.nd.sum(part * part * part)
        dy = mx.autograd.grad(y, [x], create_graph=True)[0]   # 3 x^2 on the slice, 0 elsewhere
        z = mx.nd.sum(dy)
    z.backward()
    expected = np.zeros((3, 4))
    expected[1:, 1::2] = 6 * np.arange(12.0).reshape(3, 4)[1:, 1::2]
    np.testing.assert_allclose(x.grad.asnumpy(), expected)


@pytest.mark.parametrize("device", DEVICES)
def test_recorded_assignment_keeps_gradients(device):
    x = mx.nd.array(np.arange(12.0).reshape(3, 4), device=device)
    v = mx.nd.array([[10.0, 20.0]], device=device)
    x.attach_grad()
    v.attach_grad()
    with mx.autograd.record():
        y = x * 2
        y[0] = 0.0               # scalar: row 0 no longer depends on x
        y[1:3, 1:3] = v          # broadcast value: gradient flows to v (summed over the broadcast)
        z = mx.nd.sum(y * y)
    z.backward()
    yv = np.arange(12.0).reshape(3, 4) * 2
    yv[0] = 0
    yv[1:3, 1:3] = [[10.0, 20.0]]
    gx = 2 * yv * 2
    gx[0] = 0
    gx[1:3, 1:3] = 0
    np.testing.assert_allclose(x.grad.asnumpy(), gx)
    np.testing.assert_allclose(v.grad.asnumpy(), (2 * yv[1:3, 1:3]).sum(axis=0, keepdims=True))
    with mx.autograd.record():
        with pytest.raises(mx.MXNetError, match="requires a gradient"):
            x[0] = 1.0
        w = x * 1
        with pytest.raises(mx.MXNetError, match="not supported"):
            w[np.array([0, 1], I)] = 1.0


def test_numpy_namespace_forms():
    x = mx.np.array(np.arange(12.0).reshape(3, 4), dtype="float32")
    assert mx.np.sum(x).shape == () and float(mx.np.sum(x)) == 66.0
    assert mx.nd.sum(x.as_nd_ndarray()).shape == (1,)
    assert mx.np.mean(mx.np.array(np.arange(4), dtype="int32")).dtype == np.float32
    assert mx.np.sum(mx.np.array([True, True, False], dtype="bool")).dtype == np.int64
    assert mx.np.argmax(x).dtype == np.int64 and int(mx.np.argmax(x)) == 11
    assert mx.nd.argmax(x.as_nd_ndarray(), axis=1).dtype == np.float32
    assert mx.np.max(x, axis=1).tolist() == [3.0, 7.0, 11.0] and float(mx.np.amin(x)) == 0.0
    assert mx.np.concatenate([x, x]).shape == (6, 4) and mx.np.concatenate([x, x], axis=1).shape == (3, 8)
    assert mx.np.stack([x, x], axis=1).shape == (3, 2, 4)
    assert [p.shape for p in mx.np.split(x, 2, axis=1)] == [(3, 2), (3, 2)]
    assert mx.np.flip(x).asnumpy()[0, 0] == 11.0 and mx.np.flip(x, 0).asnumpy()[0, 0] == 8.0
    assert mx.np.reshape(x, (2, 6)).shape == (2, 6) and mx.np.reshape(x, newshape=-1).shape == (12,)
    assert mx.np.transpose(x).shape == (4, 3) and mx.np.swapaxes(x, 0, 1).shape == (4, 3)
    assert mx.np.squeeze(mx.np.zeros((1, 1))).shape == () and mx.nd.squeeze(mx.nd.zeros((1, 1))).shape == (1,)
    assert mx.np.argsort(x).dtype == np.int64 and mx.np.sort(x, axis=0).shape == (3, 4)
    assert mx.np.take(x, np.array([1, -1])).tolist() == [1.0, 11.0]   # axis=None: flattened
    assert mx.nd.Reshape(mx.nd.zeros((2, 3, 4)), shape=(-4, 1, 2, -3)).shape == (1, 2, 12)
    assert mx.nd.zeros((2, 3, 4)).reshape((0, -1)).shape == (2, 12)
    assert len(mx.nd.split(mx.nd.zeros((2, 6)), num_outputs=3)) == 3


@pytest.mark.parametrize("call, message", [
    (lambda: mx.nd.Reshape(mx.nd.zeros((2, 3)), shape=(4, 2)), r"Reshape: argument 'data' expected shape with 8 "
                                                               r"elements \(target \(4, 2\)\), got \(2, 3\)"),
    (lambda: mx.nd.Concat(mx.nd.zeros((2, 3)), mx.nd.zeros((3, 3)), dim=1), r"argument 'arg1' expected shape \(2, 0\), "
                                                                            r"got \(3, 3\)"),
    (lambda: mx.nd.take(mx.nd.zeros((2, 3)), mx.nd.array([5]), mode="raise"), "index 5 is out of bounds"),
    (lambda: mx.nd.slice(mx.nd.zeros((2, 3)), begin=(0, 0), end=(1, 3), step=(1, 0)), "nonzero step on axis 1"),
    (lambda: mx.nd.SliceChannel(mx.nd.zeros((2, 3)), num_outputs=2), "divisible by num_outputs=2"),
    (lambda: mx.nd.transpose(mx.nd.zeros((2, 3)), axes=(0, 0)), "permutation"),
    (lambda: mx.nd.gather_nd(mx.nd.zeros((2, 3)), mx.nd.array([[0], [1], [2]])), "indices of shape"),
])
def test_shape_errors_say_expected_and_got(call, message):
    with pytest.raises(mx.MXNetError, match=message):
        call()


def test_contiguous_slices_and_reshape_are_views_as_in_mxnet():
    a = mx.nd.zeros((3, 2))
    a[1:3][:] = 7                          # a block of whole rows: a view
    assert a.asnumpy().tolist() == [[0, 0], [7, 7], [7, 7]]
    b = mx.nd.zeros((3, 4))
    b[:, 1:3][:] = 5                       # not one block of memory: a copy (MXNet's op.slice)
    assert b.asnumpy().sum() == 0
    x = mx.nd.arange(6)
    x.reshape((3, 2))[0, 0] = 100
    assert x.asnumpy().tolist() == [100, 1, 2, 3, 4, 5]
    w = mx.nd.ones((2, 2))
    w.attach_grad()
    with mx.autograd.record():             # recorded: the slice is an op of the graph
        y = w[0] * 2
    y.backward()
    assert w.grad.asnumpy().tolist() == [[2, 2], [0, 0]]
