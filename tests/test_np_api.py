"""The hand-written ``mx.np`` / ``mx.npx`` / ``mx.util`` functions (MXNet 2.0 names) against NumPy."""
import numpy as onp
import pytest

import hybridlab as mx

np = mx.np
X = onp.random.RandomState(0).randn(3, 4)


def close(a, b, **kw):
    onp.testing.assert_allclose(a.asnumpy() if hasattr(a, "asnumpy") else a, b, rtol=1e-5, atol=1e-6, **kw)


@pytest.mark.parametrize("ord", [None, 1, 2, -1, -2, "fro", "nuc", onp.inf, -onp.inf])
def test_matrix_norm(ord):
    close(np.linalg.norm(np.array(X, dtype="float64"), ord), onp.linalg.norm(X, ord))


@pytest.mark.parametrize("ord", [None, 0, 1, 2, 3, onp.inf, -onp.inf])
def test_vector_norm(ord):
    close(np.linalg.norm(np.array(X, dtype="float64"), ord, axis=1, keepdims=True),
          onp.linalg.norm(X, ord, axis=1, keepdims=True))


def test_linalg_compositions_and_gradient():
    a = X[:, :3] + 3 * onp.eye(3)
    m = np.array(a, dtype="float64")
    close(np.linalg.pinv(m), onp.linalg.pinv(a))
    close(np.linalg.matrix_power(m, -2), onp.linalg.matrix_power(a, -2))
    close(np.linalg.cond(m), onp.linalg.cond(a))
    assert int(np.linalg.matrix_rank(m)) == onp.linalg.matrix_rank(a)
    close(np.linalg.tensorinv(np.array(onp.eye(4).reshape(4, 2, 2)), ind=1), onp.linalg.tensorinv(onp.eye(4).reshape(4, 2, 2), 1))
    ut, s, v = np.linalg.svd(np.array(X, dtype="float64"))
    close((ut * s) @ v, X)
    m.attach_grad()
    with mx.autograd.record():
        y = np.linalg.norm(m, "nuc")
    y.backward()
    u, _, vh = onp.linalg.svd(a)
    close(m.grad, u @ vh)


def test_logic():
    x = np.array([1.0, onp.nan, onp.inf, -onp.inf, 0.0])
    h = x.asnumpy()
    for name in ("isnan", "isinf", "isposinf", "isneginf", "isfinite", "signbit"):
        assert getattr(np, name)(x).tolist() == getattr(onp, name)(h).tolist(), name
    a = np.array([[0, 1], [2, 0]])
    assert [i.tolist() for i in np.nonzero(a)] == [i.tolist() for i in onp.nonzero(a.asnumpy())]
    assert [i.tolist() for i in np.where(a)] == [[0, 1], [1, 0]]
    assert np.flatnonzero(a).tolist() == [1, 2] and np.count_nonzero(a) == 2
    assert not bool(np.all(a)) and bool(np.any(a)) and np.all(a, axis=0).tolist() == [False, False]
    assert np.allclose(a, a) and np.array_equal(a, a) and np.array_equiv(np.ones(2), np.ones((3, 2)))
    u, idx, inv, cnt = np.unique(np.array([3, 1, 3]), return_index=True, return_inverse=True, return_counts=True)
    assert (u.tolist(), idx.tolist(), inv.tolist(), cnt.tolist()) == ([1, 3], [1, 0], [1, 0, 1], [1, 2])


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap", "maximum", "minimum", "mean"])
def test_pad(mode):
    close(np.pad(np.array(X), ((1, 2), (2, 1)), mode=mode), onp.pad(X.astype("float32"), ((1, 2), (2, 1)), mode=mode))


def test_shape_functions():
    a, h = np.array(X), X.astype("float32")
    for k in range(4):
        close(np.rot90(a, k), onp.rot90(h, k))
    close(np.roll(a, (1, -2), axis=(0, 1)), onp.roll(h, (1, -2), axis=(0, 1)))
    close(np.moveaxis(np.zeros((2, 3, 4)), [0, 1], [-1, -2]), onp.zeros((4, 3, 2)))
    close(np.insert(a, [0, 2], 5.0, axis=1), onp.insert(h, [0, 2], 5.0, axis=1))
    close(np.delete(a, [0, 2], axis=1), onp.delete(h, [0, 2], axis=1))
    close(np.resize(a, (5, 3)), onp.resize(h, (5, 3)))
    close(np.tril(a, -1), onp.tril(h, -1))
    close(np.triu(a, 1), onp.triu(h, 1))
    assert [p.shape for p in np.array_split(a, 3, axis=1)] == [p.shape for p in onp.array_split(h, 3, axis=1)]
    for name in ("vstack", "hstack", "dstack", "column_stack"):
        close(getattr(np, name)([a, a]), getattr(onp, name)([h, h]))


def test_products_and_statistics():
    a, h = np.array(X, dtype="float64"), X
    close(np.tensordot(a, a, axes=([0, 1], [0, 1])), onp.tensordot(h, h, axes=([0, 1], [0, 1])))
    close(np.kron(a, a[:2, :1]), onp.kron(h, h[:2, :1]))
    close(np.inner(a, a), onp.inner(h, h))
    close(np.outer(a, a), onp.outer(h, h))
    close(np.cross(a[:, :3], a[::-1, :3]), onp.cross(h[:, :3], h[::-1, :3]))
    close(np.diff(a, 2, axis=0, prepend=0.0), onp.diff(h, 2, axis=0, prepend=0.0))
    close(np.trace(a), onp.trace(h))
    close(np.average(a, axis=1, weights=np.array([1.0, 2.0, 3.0, 4.0])), onp.average(h, 1, [1.0, 2.0, 3.0, 4.0]))
    close(np.polyval(np.array([1.0, -2.0, 3.0]), a), onp.polyval([1.0, -2.0, 3.0], h))
    for method in ("linear", "lower", "higher", "midpoint", "nearest"):
        close(np.quantile(a, [0.1, 0.9], axis=1, interpolation=method), onp.quantile(h, [0.1, 0.9], axis=1, method=method))
    close(np.median(a, axis=0), onp.median(h, axis=0))


def test_elementwise():
    a, b = np.array(X, dtype="float64"), np.array(X[::-1], dtype="float64")
    h, g = X, X[::-1]
    close(np.arctan2(a, b), onp.arctan2(h, g))
    close(np.copysign(a, b), onp.copysign(h, g))
    close(np.ldexp(a, np.array([1.0, 2.0, -1.0, 0.0])), onp.ldexp(h, [1, 2, -1, 0]))
    close(np.nan_to_num(np.array([onp.nan, onp.inf, 1.0])), onp.nan_to_num(onp.array([onp.nan, onp.inf, 1.0], "float32")))
    close(np.heaviside(a, 0.5), onp.heaviside(h, 0.5))
    i, j = np.array([12, 18], dtype="int64"), np.array([8, 27], dtype="int64")
    assert np.lcm(i, j).tolist() == [24, 54] and np.gcd(i, j).tolist() == [4, 9]
    assert np.invert(i).tolist() == [-13, -19]


def test_random():
    mx.np.random.seed(0)
    x = np.random.uniform(np.zeros((2, 1)), np.array([1.0, 2.0, 3.0]))
    assert x.shape == (2, 3) and float(x.min()) >= 0
    assert np.random.normal(np.zeros(3), 1.0, size=(2, 3)).shape == (2, 3)
    y = np.arange(5)
    assert np.random.shuffle(y) is None and sorted(y.tolist()) == [0, 1, 2, 3, 4]
    c = np.random.choice(5, size=5, replace=False)
    assert sorted(c.tolist()) == [0, 1, 2, 3, 4]
    assert np.random.multinomial(10, [0.5, 0.5], size=3).sum(axis=-1).tolist() == [10, 10, 10]
    assert abs(float(np.random.exponential(2.0, size=20000).mean()) - 2.0) < 0.1


def test_npx_and_util():
    assert mx.npx.cast(np.array([1.7]), "int32").tolist() == [1]
    assert mx.npx.current_context() == mx.cpu() or mx.npx.num_gpus() > 0
    mx.npx.waitall()

    @mx.util.use_np
    class Block:
        def f(self):
            return mx.util.is_np_array()

    before = mx.util.is_np_array()
    assert Block().f() is True and mx.util.is_np_array() == before


def test_methods():
    x = np.array([[1.0, 2.0], [3.0, 0.0]])
    assert not bool(x.all()) and bool(x.any())
    close(x.std(axis=0), x.asnumpy().std(axis=0))
    close(x.var(), x.asnumpy().var())
    close(x.cumsum(), x.asnumpy().cumsum())
    close(x.dot(x), x.asnumpy() @ x.asnumpy())
    assert [i.tolist() for i in x.nonzero()] == [[0, 0, 1], [0, 1, 0]]


def test_empty_sections_and_slices_and_np_bool_as_numpy():
    parts = mx.np.hsplit(mx.np.arange(10.0), [3, 3, 5])
    assert [p.shape for p in parts] == [(3,), (0,), (2,), (5,)]
    assert mx.nd.slice_axis(mx.nd.ones((4, 2)), axis=0, begin=2, end=2).shape == (0, 2)
    assert mx.np.bool is np.bool_ and mx.np.array([1, 0], dtype=mx.np.bool).dtype == np.bool_
