"""mx.np behaviour MXNet 1.9.1's test_numpy_op relies on: np.random's parameter checks (numbers at
the call, arrays where the graph runs), gamma/beta/chisquare with array parameters, batched
multivariate_normal, window functions, percentile with array q in a hybridized block, boolean-mask
assignment, nan_to_num(copy=False), the ufunc keywords of isnan & co, and the NumPy signatures of
the builtin np ops."""
import inspect

import numpy as onp
import pytest

import hybridlab as mx
from hybridlab import np
from hybridlab.gluon import HybridBlock


@mx.util.use_np
class Call(HybridBlock):
    """A block calling ``fn(F, *inputs)`` (hybridizable)."""

    def __init__(self, fn):
        super().__init__()
        self._fn = fn

    def hybrid_forward(self, F, *inputs):
        return self._fn(F, *inputs)


@pytest.mark.parametrize("call", [
    lambda: np.random.exponential(-1.0), lambda: np.random.rayleigh(scale=-1),
    lambda: np.random.lognormal(sigma=-1), lambda: np.random.normal(0.0, -2.0),
    lambda: np.random.weibull(0), lambda: np.random.pareto(-1), lambda: np.random.power(0.0),
    lambda: np.random.gumbel(0, -1), lambda: np.random.logistic(0, -1),
    lambda: np.random.gamma(1, 0), lambda: np.random.gamma(0, np.array(1.0)),
    lambda: np.random.gamma(np.array(1.0), np.array(-1.0)), lambda: np.random.beta(np.array([0.0]), 1.0),
])
def test_invalid_distribution_parameters_raise_value_error(call):
    with pytest.raises(ValueError):
        call()


@pytest.mark.parametrize("hybridize", [False, True])
def test_array_parameters_are_checked_when_the_graph_runs(hybridize):
    net = Call(lambda F, scale: F.np.random.exponential(scale, (2, 3)))
    if hybridize:
        net.hybridize()
    assert net(np.ones((2, 3))).shape == (2, 3)
    with pytest.raises(ValueError, match="scale >= 0"):
        net(-np.ones((2, 3)))


def test_checked_array_parameters_keep_their_gradient():
    scale = np.ones((3, 2))
    scale.attach_grad()
    with mx.autograd.record():
        out = np.random.rayleigh(scale, (3, 2))
    out.backward()
    onp.testing.assert_allclose(scale.grad.asnumpy(), out.asnumpy(), rtol=1e-5)


@pytest.mark.parametrize("hybridize", [False, True])
def test_gamma_beta_chisquare_take_array_parameters(hybridize):
    net = Call(lambda F, a, b: F.np.random.beta(a, b, size=(4, 2), dtype="float64"))
    if hybridize:
        net.hybridize()
    out = net(np.array([1.0, 2.0]), np.array([[3.0, 1.0]]))
    assert out.shape == (4, 2) and out.dtype == onp.float64
    assert ((out.asnumpy() > 0) & (out.asnumpy() < 1)).all()
    assert np.random.gamma(np.ones((2, 1)), np.ones(3)).shape == (2, 3)
    assert np.random.chisquare(np.array([1.0]), size=(5, 1), dtype="float16").dtype == onp.float16
    mx.np.random.seed(3)
    big = np.random.gamma(np.array([2.0, 8.0]), 0.5, size=(4000, 2)).asnumpy()
    onp.testing.assert_allclose(big.mean(axis=0), [1.0, 4.0], rtol=0.05)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("hybridize", [False, True])
def test_multivariate_normal_batches_and_float16(dtype, hybridize):
    mean = np.zeros((3, 2)).astype(dtype)
    cov = np.broadcast_to(np.array([[1.0, 0.0], [0.0, 4.0]]), (4, 3, 2, 2)).astype(dtype)
    net = Call(lambda F, m, c: F.np.random.multivariate_normal(m, c, (5,)))
    if hybridize:
        net.hybridize()
    out = net(mean, cov)
    assert out.shape == (5, 4, 3, 2) and out.dtype == onp.dtype(dtype)


def test_multivariate_normal_covariance_shapes_the_samples():
    mx.np.random.seed(0)
    cov = onp.array([[4.0, 1.0], [1.0, 2.0]])
    x = np.random.multivariate_normal(np.array([1.0, -1.0]), np.array(cov), size=20000).asnumpy()
    onp.testing.assert_allclose(x.mean(axis=0), [1.0, -1.0], atol=0.06)
    onp.testing.assert_allclose(onp.cov(x.T), cov, atol=0.15)


@pytest.mark.parametrize("name", ["hanning", "hamming", "blackman"])
@pytest.mark.parametrize("M", [-3, 0, 1, 6])
def test_windows_match_numpy(name, M):
    out = getattr(np, name)(M)
    assert out.dtype == onp.float32
    onp.testing.assert_allclose(out.asnumpy(), getattr(onp, name)(M), atol=1e-6)
    net = Call(lambda F, x: x + getattr(F.np, name)(M=M, dtype="float64"))
    net.hybridize()
    onp.testing.assert_allclose(net(np.zeros((), dtype="float64")).asnumpy(), getattr(onp, name)(M), atol=1e-12)


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_percentile_hybridized_with_array_q_and_tuple_axis(interpolation):
    a = onp.random.default_rng(0).uniform(-10, 10, (2, 3, 4)).astype("float32")
    q = onp.array([5.0, 50.0, 95.0], dtype="float32")
    net = Call(lambda F, x, qq: F.np.percentile(x, qq, axis=(0, 2), interpolation=interpolation, keepdims=True))
    net.hybridize()
    out = net(np.array(a), np.array(q))
    expected = onp.percentile(a, q, axis=(0, 2), method=interpolation, keepdims=True)
    assert out.shape == expected.shape == (3, 1, 3, 1)
    onp.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError):
        np.quantile(np.array(a), 1.5)


def test_boolean_mask_assign_writes_into_out():
    data = np.arange(24, dtype="float32").reshape(2, 3, 4)
    mask = np.array([True, False, True], dtype=bool)
    expected = data.asnumpy()
    expected[:, mask.asnumpy()] = 7.0
    res = np._internal.boolean_mask_assign_scalar(data, mask, 7.0, start_axis=1, out=data)
    assert res is data
    onp.testing.assert_array_equal(data.asnumpy(), expected)
    value = np.array(onp.arange(8, dtype="float32").reshape(2, 1, 4))
    out = np._internal.boolean_mask_assign_tensor(data, mask, value, start_axis=1)
    expected[:, mask.asnumpy()] = value.asnumpy()
    onp.testing.assert_array_equal(out.asnumpy(), expected)


def test_nan_to_num_copy_false_is_in_place():
    x = np.array([onp.nan, onp.inf, -onp.inf, 1.0], dtype="float16")
    y = np.nan_to_num(x, copy=False, nan=0.0, posinf=1000, neginf=-100)
    assert y is x
    assert x.tolist() == [0.0, 1000.0, -100.0, 1.0]
    z = np.array([onp.nan, 2.0])
    assert np.nan_to_num(z).tolist() == [0.0, 2.0] and onp.isnan(z.asnumpy()[0])


@pytest.mark.parametrize("func", ["isnan", "isinf", "isposinf", "isneginf", "isfinite"])
def test_unary_predicates_check_ufunc_keywords(func):
    f = getattr(np, func)
    x = np.array([onp.nan, onp.inf, 1.0])
    out = np.empty((3,), dtype=bool)
    f(x, out)
    onp.testing.assert_array_equal(out.asnumpy(), getattr(onp, func)(x.asnumpy()))
    with pytest.raises(TypeError):
        f(x, out=np.empty((3,)))
    for kwargs in ({"where": False}, {"subok": False}, {"dtype": onp.int8}, {"casting": "safe"},
                   {"order": "C"}):
        with pytest.raises(NotImplementedError):
            f(x, **kwargs)
    for kwargs in ({"dtype": "abcdefg"}, {"casting": "mxnet"}, {"bogus": 1}):
        with pytest.raises(TypeError):
            f(x, **kwargs)
    assert f(x, casting="same_kind", order="K").dtype == onp.bool_


def test_builtin_np_ops_have_numpy_signatures():
    from hybridlab import _numpy_op_doc
    from hybridlab.numpy_op_signature import _get_builtin_op
    from hybridlab.operator import get_all_registered_operators
    for name in get_all_registered_operators():
        if name.startswith("_np_"):
            doc = getattr(_numpy_op_doc, name, None)
            assert doc is not None, f"{name}: no entry in _numpy_op_doc"
            assert str(inspect.signature(_get_builtin_op(name))) == str(inspect.signature(doc))
    assert str(inspect.signature(np.sum)) == "(a, axis=None, dtype=None, keepdims=False, initial=None, out=None)"
