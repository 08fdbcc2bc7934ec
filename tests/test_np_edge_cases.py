"""mx.np / mx.npx on zero-size and 0-d inputs, argument checks and keyword handling, as MXNet 1.9.1
does them (expected values recorded from MXNet 1.9.1 where they are not obvious)."""
import numpy as onp
import pytest

import hybridlab as mx
from hybridlab import np, npx
from hybridlab.gluon import HybridBlock


class _Fn(HybridBlock):
    """A hybridizable block calling ``fn(F, *inputs)``."""

    def __init__(self, fn):
        super().__init__()
        self._fn = fn

    def hybrid_forward(self, F, *args):
        return self._fn(F, *args)


def _both(fn, *inputs):
    """``fn`` run imperatively and hybridized: the two results (as host arrays or tuples of them)."""
    out = []
    for hybridize in (False, True):
        block = _Fn(fn)
        if hybridize:
            block.hybridize()
        res = block(*inputs)
        out.append(tuple(r.asnumpy() for r in res) if isinstance(res, (list, tuple)) else res.asnumpy())
    return out


@pytest.fixture(autouse=True)
def _np_semantics():
    with mx.util.np_shape(True), mx.util.np_array(True):
        yield


def test_any_all_reduce_zero_size_axes():
    x = np.zeros((6, 0, 5))
    for res in _both(lambda F, a: F.np.any(a, axis=(0, 2)), x) + _both(lambda F, a: F.np.all(a, axis=(0, 2)), x):
        assert res.shape == (0,) and res.dtype == onp.bool_
    assert bool(np.all(np.zeros((0, 3)))) and not bool(np.any(np.zeros((0, 3))))


def test_any_of_a_0d_bool_array_hybridized():
    for res in _both(lambda F, a: F.np.any(a), np.array(True).astype(onp.bool_)):
        assert res.shape == () and bool(res)


def test_max_min_of_an_empty_reduction_raise():
    x = np.zeros((2, 0))
    for fn in (np.max, np.min):
        with pytest.raises(mx.MXNetError, match="zero-size"):
            fn(x)
        with pytest.raises(mx.MXNetError):
            fn(x, axis=1)
        assert fn(x, axis=0).shape == (0,)
    with pytest.raises(mx.MXNetError):
        np.zeros((0, 2, 1)).max()


def test_argmax_argmin_0d_and_empty_axes():
    a = np.array(5.0)
    for fn in (np.argmax, np.argmin):
        res = fn(a, 0)
        assert res.shape == () and res.dtype == onp.int64 and int(res) == 0
        assert int(fn(a, -1)) == 0
        with pytest.raises(mx.MXNetError):
            fn(a, 1)
        e = np.zeros((5, 0, 3))
        assert fn(e, 0).shape == (0, 3)
        for axis in (None, 1):
            with pytest.raises(mx.MXNetError):
                fn(e, axis)


def test_npx_slice_accepts_step_none():
    a = np.arange(24).reshape((2, 3, 4))
    for res in _both(lambda F, x: F.npx.slice(x, begin=(1, 0, 3), end=(2, 2, 4), step=None), a):
        onp.testing.assert_array_equal(res, a.asnumpy()[1:2, 0:2, 3:4])
    for res in _both(lambda F, x: F.npx.slice(x, begin=(None, 0), end=(None, 3), step=(-1, None)), a):
        onp.testing.assert_array_equal(res, a.asnumpy()[::-1, 0:3])


def test_softmax_of_zero_size_input():
    x = np.zeros((3, 0, 4))
    x.attach_grad()
    for axis in (0, 1, -1):
        for res in _both(lambda F, a: F.npx.softmax(a, axis=axis), x) + \
                _both(lambda F, a: F.npx.log_softmax(a, axis=axis), x):
            assert res.shape == (3, 0, 4)
        with mx.autograd.record():
            y = npx.softmax(x, axis=axis)
        y.backward()
        assert x.grad.shape == (3, 0, 4)


def test_sort_takes_axis_and_kind_positionally():
    a = np.array([[3, 1, 2], [0, 5, 4]], dtype="int32")
    for res in _both(lambda F, x: F.np.sort(x, 1, "quicksort"), a):
        onp.testing.assert_array_equal(res, [[1, 2, 3], [0, 4, 5]])
    onp.testing.assert_array_equal(np.sort(a, None, "mergesort").asnumpy(), [0, 1, 2, 3, 4, 5])
    with pytest.raises(ValueError):
        np.sort(a, order="x")


def test_squeeze_of_a_0d_array_on_axis_0():
    a = np.array(2.5)
    for axis in (0, -1, (0,)):
        for res in _both(lambda F, x: F.np.squeeze(x, axis), a):
            assert res.shape == () and float(res) == 2.5
    for axis in (1, (0, 0)):
        with pytest.raises(mx.MXNetError):
            np.squeeze(a, axis)


def test_broadcast_to_with_zero_size_dimensions():
    x = np.ones((1, 1))
    x.attach_grad()
    for res in _both(lambda F, a: F.np.broadcast_to(a, (2, 4, 0)), x):
        assert res.shape == (2, 4, 0)
    with mx.autograd.record():
        y = np.broadcast_to(x, (2, 4, 0))
    y.backward()
    onp.testing.assert_array_equal(x.grad.asnumpy(), [[0.0]])
    assert np.broadcast_to(np.ones((1, 0)), (2, 4, 0)).shape == (2, 4, 0)
    assert x.broadcast_to((3, 0)).shape == (3, 0)
    assert [b.shape for b in np.broadcast_arrays(np.ones((3, 2, 1)), np.ones((0,)))] == [(3, 2, 0)] * 2
    with pytest.raises(mx.MXNetError):
        np.broadcast_to(np.ones((2, 3)), (3, 3))


def test_transpose_axes_checks():
    x = np.zeros((3, 4, 5))
    with pytest.raises(ValueError, match="repeated"):
        x.transpose((0, 0, 1))
    with pytest.raises(ValueError):
        np.transpose(x, (0, 0, 1))
    with pytest.raises(mx.MXNetError):
        x.transpose((0, 1, 3))
    with pytest.raises(mx.MXNetError):
        np.transpose(x, (0, 1))
    assert np.transpose(x, (-1, 0, 1)).shape == (5, 3, 4)
    assert x.transpose().shape == x.T.shape == (5, 4, 3)
    assert np.transpose(np.array(1.0), ()).shape == ()


@pytest.mark.parametrize("fn, args", [("absolute", 1), ("sqrt", 1), ("invert", 1), ("add", 2), ("power", 2),
                                      ("mod", 2), ("maximum", 2), ("isnan", 1)])
def test_ufunc_keywords_as_mxnet(fn, args):
    x = np.array([[1, 2], [3, 4]], dtype="int32")
    f = getattr(np, fn)
    inputs = (x,) * args
    f(*inputs, where=True, casting="same_kind", order="K", dtype=None, subok=True)  # the defaults
    for kw in ({"where": False}, {"subok": False}, {"dtype": onp.int8}, {"casting": "safe"}, {"order": "C"},
               {"order": "mxnet"}):
        with pytest.raises(NotImplementedError):
            f(*inputs, **kw)
    for kw in ({"dtype": "abcdefg"}, {"casting": "mxnet"}):
        with pytest.raises(TypeError):
            f(*inputs, **kw)


def test_arange_step_none():
    onp.testing.assert_array_equal(np.arange(0, 5, None).asnumpy(), [0, 1, 2, 3, 4])
    assert np.arange(0, -5, None).shape == (0,)


def test_insert_values_shapes_as_numpy():
    a = np.arange(6).reshape(3, 2)
    # values recorded from MXNet 1.9.1
    got = np.insert(a, 1, np.array([[10, 11], [12, 13]]), axis=0)
    onp.testing.assert_array_equal(got.asnumpy(), [[0, 1], [10, 11], [12, 13], [2, 3], [4, 5]])
    got = np.insert(a, 1, np.array([7, 8, 9]), axis=1)
    onp.testing.assert_array_equal(got.asnumpy(), [[0, 7, 1], [2, 8, 3], [4, 9, 5]])
    got = np.insert(a, np.array([1], dtype="int64"), np.array([[7], [8], [9]]), axis=1)
    onp.testing.assert_array_equal(got.asnumpy(), [[0, 7, 1], [2, 8, 3], [4, 9, 5]])
    h = np.zeros((2, 2, 3, 8))
    assert np.insert(h, 0, np.ones((2, 3)), axis=3).shape == (2, 2, 3, 9)


def test_insert_and_delete_hybridized():
    a = np.arange(6).reshape(3, 2)
    for res in _both(lambda F, x: F.np.insert(x, slice(0, 2), 5.0, axis=0), a):
        onp.testing.assert_array_equal(res, onp.insert(a.asnumpy(), slice(0, 2), 5.0, axis=0))
    for res in _both(lambda F, x: F.np.delete(x, 1, axis=1), a):
        onp.testing.assert_array_equal(res, [[0], [2], [4]])


def test_delete_ignores_out_of_range_index_arrays():
    a = np.arange(5)
    # MXNet 1.9.1: entries of an index array outside [0, n) are ignored; a single int may be negative
    onp.testing.assert_array_equal(np.delete(a, np.array([-1, 2, 7], dtype="int64")).asnumpy(), [0, 1, 3, 4])
    onp.testing.assert_array_equal(np.delete(a, -1).asnumpy(), [0, 1, 2, 3])
    assert np.delete(np.zeros((0,)), np.array([0, 0], dtype="int32"), axis=0).shape == (0,)


def test_full_broadcasts_array_fill_to_zero_size():
    for dtype in (None, "int32", "bool"):
        out = np.full((0, 3), np.array([1, 2, 3], dtype="float32"), dtype=dtype)
        assert out.shape == (0, 3)
    for res in _both(lambda F, v: F.np.full((2, 3), v), np.array([1.0, 2.0, 3.0])):
        onp.testing.assert_array_equal(res, [[1, 2, 3], [1, 2, 3]])


def test_indices_hybridized():
    for res in _both(lambda F, x: x + F.np.indices((2, 0), dtype="int32"), np.zeros((), dtype="int32")):
        assert res.shape == (2, 2, 0)
    for res in _both(lambda F, x: x + F.np.indices((2, 3)), np.zeros((), dtype="int32")):
        onp.testing.assert_array_equal(res, onp.indices((2, 3)))
    assert np.indices((2, 3)).dtype == onp.int32


def test_unique_with_outputs_hybridized():
    x = np.array([[1, 0, 1], [2, 2, 2]], dtype="int32")
    # MXNet 1.9.1: the inverse is a vector even for a 2-d input
    for res in _both(lambda F, a: F.np.unique(a, True, True, True), x):
        ref = onp.unique(x.asnumpy(), True, True, True)
        assert len(res) == 4
        for got, want in zip(res, ref):
            onp.testing.assert_array_equal(got, want.reshape(-1))
        assert res[2].shape == (6,)
    for res in _both(lambda F, a: F.np.unique(a, return_counts=True, axis=1), x):
        onp.testing.assert_array_equal(res[0], [[0, 1], [2, 2]])
        onp.testing.assert_array_equal(res[1], [1, 2])


def test_pad_reflect_wider_than_the_axis():
    # values recorded from MXNet 1.9.1
    onp.testing.assert_array_equal(np.pad(np.array([1.0, 2.0]), (3, 3), mode="reflect").asnumpy(),
                                   [2, 1, 2, 1, 2, 1, 2, 1])
    onp.testing.assert_array_equal(np.pad(np.array([[1.0, 2.0]]), ((2, 1), (0, 0)), mode="reflect").asnumpy(),
                                   [[1, 2]] * 4)
    x = np.random.uniform(-1, 1, size=(2, 3))
    x.attach_grad()
    for mode in ("reflect", "symmetric", "edge", "wrap"):
        for res in _both(lambda F, a: F.np.pad(a, ((2, 3), (2, 3)), mode=mode), x):
            onp.testing.assert_allclose(res, onp.pad(x.asnumpy(), ((2, 3), (2, 3)), mode=mode), rtol=1e-6)
    with mx.autograd.record():
        y = np.pad(x, ((0, 0), (2, 0)), mode="edge")
    y.backward()
    onp.testing.assert_array_equal(x.grad.asnumpy(), [[3, 1, 1], [3, 1, 1]])


def test_nonzero_of_a_0d_array():
    # MXNet 1.9.1: a 0-d input counts as a one-element vector
    for res in _both(lambda F, a: F.npx.nonzero(a), np.array(0.5)):
        onp.testing.assert_array_equal(res, [[0]])
    assert npx.nonzero(np.array(0.0)).shape == (0, 1)


def test_mean_integer_dtype_and_float16():
    # MXNet 1.9.1: an int8 mean sums in int8 (wrapping around): (100 + 100 + 100 - 3) -> 41, / 4 -> 10
    assert int(np.mean(np.array([100, 100, 100, -3], dtype="int32"), dtype="int8")) == 10
    x = np.array([[0.5], [1.5]], dtype="float16")
    x.attach_grad()
    with mx.autograd.record():
        y = x.mean(axis=0, dtype="int32")
    y.backward()
    onp.testing.assert_array_equal(x.grad.asnumpy(), [[0.5], [0.5]])
    h = np.array([0.1] * 1000 + [-0.3], dtype="float16")
    assert abs(float(np.mean(h, dtype="float16")) - float(onp.mean(h.asnumpy(), dtype="float32"))) < 1e-4


def test_true_divide_of_a_bool_array_by_an_int():
    a = np.ones((2,)).astype("bool")
    out = a / 4
    assert out.dtype == onp.float32
    onp.testing.assert_allclose(out.asnumpy(), [0.25, 0.25])
    onp.testing.assert_allclose((4 / a).asnumpy(), [4.0, 4.0])
    assert (a + 14).asnumpy().tolist() == [15, 15]


def test_power_gradient_of_a_float_exponent_over_an_int_base():
    a = np.array([[1, 2], [2, 1]], dtype="int8")
    b = np.array([[1.5, 2.5], [1.25, 2.0]], dtype="float16")
    b.attach_grad()
    with mx.autograd.record():
        y = np.power(a, b)
    y.backward()
    want = onp.power(a.asnumpy(), b.asnumpy()) * onp.log(a.asnumpy().astype("float32"))
    onp.testing.assert_allclose(b.grad.asnumpy(), want, rtol=1e-2, atol=1e-2)


def test_np_sum_of_float16_accumulates_in_float32_as_mxnet():
    # over several axes the sum runs in stages: the partial sums must not be rounded to float16
    x = onp.random.RandomState(0).uniform(-1, 1, (200, 3, 50)).astype(onp.float16)
    total = mx.np.sum(mx.np.array(x), axis=(0, 2))
    assert total.dtype == onp.float16
    assert total.asnumpy().tolist() == x.sum(axis=(0, 2), dtype=onp.float32).astype(onp.float16).tolist()
