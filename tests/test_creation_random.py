"""Creation functions (mx.nd.*, mx.np.*) and random sampling (mx.nd.random, mx.random,
mx.np.random): signatures, defaults, dtypes, devices, seeding and sample statistics."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab.ops.registry import find_op, get_op
from hybridlab.ops.attrs import REQUIRED


# ---- mx.nd creation ------------------------------------------------------------------------------
def test_nd_creation_defaults_and_values():
    z = mx.nd.zeros((2, 3))
    assert z.shape == (2, 3) and z.dtype == np.float32 and z.device == mx.cpu() and not z._np
    assert mx.nd.zeros(4).shape == (4,) and mx.nd.ones(np.int64(2)).shape == (2,)
    assert mx.nd.ones((2,), dtype="int32").asnumpy().tolist() == [1, 1]
    assert mx.nd.full((2, 2), 7).asnumpy().tolist() == [[7.0, 7.0], [7.0, 7.0]]
    assert mx.nd.full((3,), 2.9, dtype=np.int32).asnumpy().tolist() == [2, 2, 2]
    assert mx.nd.empty((3, 1)).shape == (3, 1)
    assert mx.nd.eye(3, dtype="float64").dtype == np.float64
    np.testing.assert_array_equal(mx.nd.eye(2, 3, k=-1).asnumpy(), np.eye(2, 3, k=-1))
    np.testing.assert_allclose(mx.nd.linspace(0, 1, 5).asnumpy(), np.linspace(0, 1, 5), rtol=1e-6)
    np.testing.assert_allclose(mx.nd.linspace(0, 1, 4, endpoint=False).asnumpy(), [0, 0.25, 0.5, 0.75])


def test_nd_arange_matches_mxnet_rules():
    assert mx.nd.arange(5).asnumpy().tolist() == [0, 1, 2, 3, 4]
    assert mx.nd.arange(5).dtype == np.float32  # MXNet 1.x: float32 even for int arguments
    assert mx.nd.arange(2, 8, 3).asnumpy().tolist() == [2, 5]
    assert mx.nd.arange(0, 2, repeat=3).asnumpy().tolist() == [0, 0, 0, 1, 1, 1]
    assert mx.nd.arange(3, 0, -1, dtype="int32").asnumpy().tolist() == [3, 2, 1]
    with pytest.raises(mx.MXNetError, match="step"):
        mx.nd.arange(0, 3, 0)
    with pytest.raises(mx.MXNetError, match="start < stop"):
        mx.nd.arange(5, 2)   # MXNet rejects an empty range
    with pytest.warns(DeprecationWarning):
        mx.nd.arange(3, infer_range=True)


def test_nd_creation_devices_out_and_errors():
    with mx.cpu(1):
        assert mx.nd.zeros((1,)).device == mx.cpu(1)
    assert mx.nd.ones((1,), ctx=mx.cpu(2)).device == mx.cpu(2)
    assert mx.nd.ones((1,), ctx="cpu(3)").device == mx.cpu(3)
    target = mx.nd.ones((2,))
    assert mx.nd.zeros((2,), out=target) is target and target.asnumpy().tolist() == [0, 0]
    assert mx.nd.zeros((2, 3), stype="csr").stype == "csr" and mx.nd.empty((2,), stype="row_sparse").stype == "row_sparse"
    with pytest.raises(mx.MXNetError, match="storage type"):
        mx.nd.zeros((2,), stype="coo")
    with pytest.raises(mx.MXNetError, match="non-negative"):
        mx.nd.zeros((2, -1))
    with pytest.raises(mx.MXNetError, match="dtype"):
        mx.nd.zeros((2,), dtype="not-a-dtype")


def test_creation_op_schemas_have_mxnet_defaults():
    zeros = get_op("_zeros")
    assert zeros.attrs["shape"].default == () and zeros.attrs["dtype"].default == np.float32
    assert zeros.attrs["ctx"].default is None and zeros.device_attr == "ctx"
    ar = get_op("_arange")
    assert ar.attrs["start"].default is REQUIRED and ar.attrs["stop"].default is None
    assert ar.attrs["step"].default == 1.0 and ar.attrs["repeat"].default == 1
    assert ar.attrs["infer_range"].default is False
    assert get_op("_full").attrs["value"].default is REQUIRED
    lin = get_op("_linspace")
    assert lin.attrs["endpoint"].default is True and lin.attrs["num"].default is REQUIRED
    eye = get_op("_eye")
    assert eye.attrs["M"].default == 0 and eye.attrs["k"].default == 0
    for name in ("_zeros", "_ones", "_full", "_arange", "_linspace", "_eye"):
        op = get_op(name)
        assert op.family == "creation" and op.doc and not op.differentiable and op.no_grad_reason


# ---- mx.np creation ------------------------------------------------------------------------------
def test_np_creation_is_numpy_style():
    z = mx.np.zeros((2, 2))
    assert z._np and z.dtype == np.float32 and repr(z).startswith("array(")
    assert mx.np.ones(3, dtype=np.int64).dtype == np.int64
    assert mx.np.empty((2,)).shape == (2,)
    assert mx.np.full((2,), 3).dtype == np.float32
    assert mx.np.full((2,), True).dtype == np.bool_
    assert mx.np.full((2,), 3, dtype="int8").asnumpy().tolist() == [3, 3]
    assert mx.np.zeros((2,), device=mx.cpu(1)).device == mx.cpu(1)
    assert mx.np.zeros((2,), ctx=mx.cpu(1)).device == mx.cpu(1)
    with pytest.raises(mx.MXNetError, match="order"):
        mx.np.zeros((2,), order="F")


def test_np_arange_linspace_eye():
    a = mx.np.arange(4)
    assert a.dtype == np.float32 and a.asnumpy().tolist() == [0, 1, 2, 3]   # MXNet: float32, not int64
    assert mx.np.arange(4, dtype='int64').dtype == np.int64
    assert mx.np.arange(1, 7, 2).asnumpy().tolist() == [1, 3, 5]
    assert mx.np.arange(0.0, 1.0, 0.25).dtype == np.float32
    np.testing.assert_allclose(mx.np.arange(0.5, 2).asnumpy(), np.arange(0.5, 2))
    assert mx.np.arange(5, 2).shape == (0,)              # NumPy: an empty range is fine
    assert mx.np.arange(3, dtype="float64").dtype == np.float64
    x, step = mx.np.linspace(2, 3, 5, retstep=True)
    np.testing.assert_allclose(x.asnumpy(), np.linspace(2, 3, 5), rtol=1e-6)
    assert step == 0.25 and x.dtype == np.float32
    assert mx.np.linspace(0, 1).shape == (50,)
    assert mx.np.eye(3).asnumpy().tolist() == np.eye(3).tolist()
    assert mx.np.eye(2, 3, k=1).asnumpy().tolist() == np.eye(2, 3, k=1).tolist()
    assert mx.np.eye(3, 0).shape == (3, 0) and mx.np.eye(0).shape == (0, 0)
    assert mx.np.identity(2, dtype="int32").asnumpy().tolist() == [[1, 0], [0, 1]]


def test_np_like_functions_keep_shape_dtype_device():
    a = mx.np.array(np.arange(6, dtype=np.int32).reshape(2, 3), ctx=mx.cpu(1))
    for fn, value in ((mx.np.zeros_like, 0), (mx.np.ones_like, 1), (mx.np.empty_like, 0)):
        r = fn(a)
        assert r.shape == (2, 3) and r.dtype == np.int32 and r.device == mx.cpu(1) and r._np
        assert (r.asnumpy() == value).all()
    f = mx.np.full_like(a, 2.5, dtype="float64")
    assert f.dtype == np.float64 and (f.asnumpy() == 2.5).all()
    assert mx.np.zeros_like(a, device=mx.cpu(0)).device == mx.cpu(0)


def test_np_array_and_asarray():
    a = mx.np.array([[1, 2], [3, 4]])
    assert a.dtype == np.float32 and a._np  # MXNet's mx.np default dtype
    assert mx.np.array(np.arange(3)).dtype == np.int64  # arrays keep theirs
    assert mx.np.array([1, 2], dtype="int32").dtype == np.int32
    assert mx.np.array(mx.nd.ones((2,), dtype="float64")).dtype == np.float64
    assert mx.np.array(3.5).shape == ()
    assert mx.np.asarray(a) is a
    assert mx.np.asarray(a, dtype="float64").dtype == np.float64
    b = mx.np.asarray(mx.nd.ones((2,)))
    assert b._np and b.shape == (2,)


# ---- random: seeding, dispatch, statistics -------------------------------------------------------
def test_seed_makes_draws_reproducible():
    for fn in (lambda: mx.nd.random.uniform(shape=(5,)), lambda: mx.random.normal(shape=(5,)),
               lambda: mx.nd.random.randint(0, 100, shape=(5,)), lambda: mx.np.random.normal(size=5),
               lambda: mx.nd.random.shuffle(mx.nd.arange(10))):
        mx.random.seed(123)
        a = fn().asnumpy()
        mx.random.seed(123)
        b = fn().asnumpy()
        mx.random.seed(124)
        c = fn().asnumpy()
        assert (a == b).all() and not (a == c).all()
    mx.np.random.seed(5)
    a = mx.np.random.uniform(size=3).asnumpy()
    mx.random.seed(5)
    assert (mx.np.random.uniform(size=3).asnumpy() == a).all()


def test_nd_random_helper_dispatch():
    assert mx.nd.random.uniform(0, 1).shape == (1,)           # MXNet: shape defaults to 1
    assert mx.nd.random.normal(0, 1, (2, 3)).shape == (2, 3)
    assert mx.nd.random.normal(shape=(1, 512)).shape == (1, 512)
    assert mx.nd.random_normal(loc=0, scale=1, shape=(2, 3)).shape == (2, 3)
    assert mx.nd.random_uniform(shape=(2,)).dtype == np.float32
    assert mx.nd.uniform(shape=(2,)).shape == (2,) and mx.nd.normal(shape=(2,)).shape == (2,)
    assert mx.nd.random.uniform(shape=(2,), dtype="float64").dtype == np.float64
    low, high = mx.nd.array([0.0, 10.0]), mx.nd.array([1.0, 11.0])
    s = mx.nd.random.uniform(low, high, shape=50).asnumpy()
    assert s.shape == (2, 50) and (s[0] < 1).all() and (s[1] >= 10).all()
    assert mx.nd.random.uniform(low, high).shape == (2,)
    assert mx.nd.random.randn(2, 3).shape == (2, 3)
    out = mx.nd.zeros((4,))
    assert mx.nd.random.normal(out=out) is out
    with pytest.raises(mx.MXNetError, match="same type"):
        mx.nd.random.uniform(low, 1.0)
    with pytest.raises(mx.MXNetError, match="NDArrays or numbers"):
        mx.nd.random.uniform("a", 1.0)
    assert mx.nd.random.uniform(shape=(2,), ctx=mx.cpu(1)).device == mx.cpu(1)
    for name in ("uniform", "normal", "randint", "shuffle", "exponential", "gamma", "poisson",
                 "negative_binomial", "generalized_negative_binomial", "randn"):
        assert callable(getattr(mx.random, name)) and callable(getattr(mx.nd.random, name))


def _check_moments(x, mean, var, tol=6.0):
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    assert abs(x.mean() - mean) <= tol * np.sqrt(var / x.size), (x.mean(), mean)
    assert abs(x.var() - var) <= 0.1 * var, (x.var(), var)


def test_sample_statistics():
    mx.random.seed(0)
    n = (40000,)
    _check_moments(mx.nd.random.uniform(-1, 3, shape=n).asnumpy(), 1.0, 16 / 12)
    _check_moments(mx.nd.random.normal(2, 0.5, shape=n).asnumpy(), 2.0, 0.25)
    _check_moments(mx.nd.random.exponential(2.0, shape=n).asnumpy(), 2.0, 4.0)       # scale = 1/lam
    _check_moments(mx.nd.random_exponential(lam=4.0, shape=n).asnumpy(), 0.25, 1 / 16)
    _check_moments(mx.nd.random.gamma(3.0, 2.0, shape=n).asnumpy(), 6.0, 12.0)
    _check_moments(mx.nd.random.poisson(4.0, shape=n).asnumpy(), 4.0, 4.0)
    k, p = 3, 0.4   # failures before k successes, success probability p: mean k(1-p)/p
    _check_moments(mx.nd.random.negative_binomial(k, p, shape=n).asnumpy(), k * (1 - p) / p, k * (1 - p) / p ** 2)
    mu, alpha = 2.0, 0.5
    _check_moments(mx.nd.random.generalized_negative_binomial(mu, alpha, shape=n).asnumpy(), mu,
                   mu + alpha * mu ** 2)
    r = mx.nd.random.randint(-3, 7, shape=n).asnumpy()
    assert r.dtype == np.int32 and r.min() == -3 and r.max() == 6
    _check_moments(r, 1.5, (10 ** 2 - 1) / 12)
    g = mx.np.random.gamma(2.0, 3.0, size=n)                   # NumPy names: shape, scale, size
    _check_moments(g.asnumpy(), 6.0, 18.0)
    a = mx.nd.random.normal(mx.nd.array([0.0, 5.0]), mx.nd.array([1.0, 0.1]), shape=20000).asnumpy()
    _check_moments(a[0], 0.0, 1.0)
    _check_moments(a[1], 5.0, 0.01)


def test_np_random_functions():
    x = mx.np.random.normal(1.0, 2.0, size=(3, 4))
    assert x.shape == (3, 4) and x._np and x.dtype == np.float32
    assert mx.np.random.normal().shape == ()
    assert mx.np.random.uniform(size=None).shape == ()
    assert mx.np.random.uniform(0, 1, 5).shape == (5,)
    r = mx.np.random.randint(5, size=100).asnumpy()
    assert r.dtype == np.int64 and r.min() >= 0 and r.max() < 5        # randint(high)
    assert mx.np.random.randint(2, 4, size=(2,), dtype="int32").dtype == np.int32
    s = mx.np.arange(6)
    assert mx.np.random.shuffle(s) is None            # in place, as NumPy and MXNet
    assert sorted(s.asnumpy().tolist()) == list(range(6))
    assert mx.np.random.poisson(3.0, size=4).shape == (4,)


def test_random_op_schemas_and_errors():
    u = get_op("_random_uniform")
    assert (u.attrs["low"].default, u.attrs["high"].default, u.attrs["shape"].default) == (0.0, 1.0, ())
    assert u.attrs["dtype"].default is None and u.family == "random" and u.needs_rng
    assert get_op("_random_normal").attrs["scale"].default == 1.0
    assert get_op("_random_randint").attrs["low"].default is REQUIRED
    for name in ("random_uniform", "uniform", "random_normal", "normal", "random_randint", "shuffle",
                 "random_gamma", "random_exponential", "random_poisson", "random_negative_binomial",
                 "sample_uniform", "sample_normal", "sample_gamma"):
        assert find_op(name) is not None, name
    assert get_op("random_gamma").name == "_random_gamma" and get_op("gamma").name != "_random_gamma"
    with pytest.raises(mx.MXNetError, match="dtype"):
        mx.nd.random.uniform(shape=(2,), dtype="int32")
    with pytest.raises(mx.MXNetError, match="dtype"):
        mx.nd.random.randint(0, 3, shape=(2,), dtype="float32")
    with pytest.raises(mx.MXNetError, match="high"):
        mx.nd.random.randint(3, 3, shape=(2,))
    with pytest.raises(mx.MXNetError, match="same shape"):
        mx.nd.sample_normal(mx.nd.ones((2,)), mx.nd.ones((3,)))
    with pytest.raises(mx.MXNetError, match="expected alpha > 0 and beta > 0, got alpha=-1.0"):
        mx.nd.random_gamma(alpha=-1.0, shape=(2,))


def test_random_ops_are_not_differentiable_and_do_not_modify_inputs():
    x = mx.nd.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    before = x.asnumpy().copy()
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.random.shuffle(x)
    assert sorted(y.asnumpy()[:, 0].tolist()) == [1.0, 3.0, 5.0]
    assert (x.asnumpy() == before).all()
    assert not get_op("_shuffle").differentiable and get_op("_shuffle").no_grad_reason


def test_gpu_output_without_gpu_says_why():
    if mx.num_gpus() > 0:
        pytest.skip("this machine has a GPU")
    for fn in (lambda: mx.nd.zeros((2,), ctx=mx.gpu(0)), lambda: mx.nd.random.normal(shape=(2,), ctx=mx.gpu(0)),
               lambda: mx.np.arange(3, ctx=mx.gpu(0))):
        with pytest.raises(mx.MXNetError, match="CuPy"):
            fn()


@pytest.mark.skipif(mx.num_gpus() == 0, reason="no CUDA device: GPU creation/random not checked")
def test_gpu_creation_and_random():
    import cupy
    z = mx.nd.zeros((2, 3), ctx=mx.gpu(0))
    assert isinstance(z._data, cupy.ndarray) and z.device == mx.gpu(0)
    assert mx.np.arange(4, ctx=mx.gpu(0)).asnumpy().tolist() == [0, 1, 2, 3]
    mx.random.seed(3)
    a = mx.nd.random.normal(shape=(20000,), ctx=mx.gpu(0))
    assert isinstance(a._data, cupy.ndarray)
    _check_moments(a.asnumpy(), 0.0, 1.0)
    mx.random.seed(3)
    assert (mx.nd.random.normal(shape=(20000,), ctx=mx.gpu(0)).asnumpy() == a.asnumpy()).all()
    s = mx.nd.random.uniform(mx.nd.array([0.0, 5.0], ctx=mx.gpu(0)), mx.nd.array([1.0, 6.0], ctx=mx.gpu(0)),
                             shape=100)
    assert s.device == mx.gpu(0) and s.shape == (2, 100)


def test_exponential_with_array_scale():
    if find_op("_rdiv_scalar") is None:
        pytest.skip("_rdiv_scalar (elemwise family) is not registered yet")
    mx.random.seed(1)
    s = mx.nd.random.exponential(mx.nd.array([1.0, 4.0]), shape=20000).asnumpy()
    assert s.shape == (2, 20000)
    _check_moments(s[0], 1.0, 1.0)
    _check_moments(s[1], 4.0, 16.0)


@pytest.mark.parametrize("call, message", [
    (lambda: mx.nd.random.normal(0, -1, shape=(2,)), r"_random_normal: expected scale >= 0, got loc=0.0, scale=-1.0"),
    (lambda: mx.nd.random.gamma(0, 1, shape=(2,)), r"_random_gamma: expected alpha > 0 and beta > 0, got alpha=0.0"),
    (lambda: mx.nd.random.exponential(-2, shape=(2,)), r"_random_exponential: expected lam > 0, got lam=-0.5"),
])
def test_invalid_distribution_parameters_are_refused(call, message):
    with pytest.raises(mx.MXNetError, match=message):
        call()


def test_mx_random_has_multinomial():
    mx.random.seed(3)
    draws = mx.random.multinomial(mx.nd.array([[0.0, 1.0], [1.0, 0.0]]), shape=5)
    assert draws.shape == (2, 5) and draws.asnumpy().tolist() == [[1] * 5, [0] * 5]


def test_legacy_sampler_without_shape_takes_its_readers_shape():
    # MXNet 1.x: a _random_* node with shape () has an unknown shape, inferred from its readers
    x = mx.sym.var("X")
    y = mx.sym.random.randn(loc=1.0, scale=0.0, data=mx.sym.ones((2, 3))) + x   # randn(data=...) as MXNet's tests
    assert y.infer_shape(X=(2, 3))[1] == [(2, 3)]
    ex = y.bind(mx.cpu(), {"X": mx.nd.zeros((2, 3))})
    assert ex.forward()[0].asnumpy().tolist() == [[1.0] * 3] * 2
    # under NumPy shape semantics () is a scalar
    with mx.util.np_shape(True):
        assert mx.sym.random.uniform().infer_shape()[1] == [()]
