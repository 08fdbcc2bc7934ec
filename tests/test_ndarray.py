"""NDArray: the behaviour a notebook user relies on (properties, conversion, arithmetic, printing,
device moves, DLPack exchange)."""
import numpy as np
import pytest

import hybridlab as mx


def test_properties_and_conversion():
    x = mx.nd.array([[1, 2, 3], [4, 5, 6]])
    assert x.shape == (2, 3) and x.size == 6 and x.ndim == 2
    assert x.dtype == np.float32            # MXNet's default dtype for lists
    assert x.context == mx.cpu() and x.device == mx.cpu(0) and x.ctx == mx.current_context()
    assert x.T.shape == (3, 2)
    np.testing.assert_array_equal(x.asnumpy(), [[1, 2, 3], [4, 5, 6]])
    assert mx.nd.array([7.5]).asscalar() == np.float32(7.5)
    assert mx.nd.array([[3]]).item() == 3.0 and isinstance(mx.nd.array([3]).item(), float)
    with pytest.raises(ValueError, match="not a scalar"):
        x.asscalar()
    assert x.astype("int32").dtype == np.int32
    assert x.astype(np.float32, copy=False) is x
    assert np.asarray(x).shape == (2, 3)
    assert mx.nd.array(np.arange(3, dtype=np.int64)).dtype == np.float32  # MXNet 1.x: float32 unless dtype=
    assert mx.nd.array(np.arange(3), dtype="int64").dtype == np.int64
    assert mx.nd.array(mx.nd.array([1], dtype="int32")).dtype == np.int32  # an NDArray keeps its dtype


def test_copy_copyto_and_device_moves():
    x = mx.nd.array([1.0, 2.0])
    y = x.copy()
    y[:] = 0
    assert x.asnumpy().tolist() == [1.0, 2.0]
    z = mx.nd.zeros((2,))
    assert x.copyto(z) is z and z.asnumpy().tolist() == [1.0, 2.0]
    assert x.as_in_context(mx.cpu()) is x
    assert x.copyto(mx.cpu()).asnumpy().tolist() == [1.0, 2.0]
    with pytest.raises(mx.MXNetError, match="shape"):
        x.copyto(mx.nd.zeros((3,)))


@pytest.mark.skipif(mx.num_gpus() == 0, reason="no CUDA device: GPU device moves need CuPy with a GPU")
def test_gpu_round_trip_and_gradient():
    x = mx.nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    with mx.autograd.record():
        y = (x.as_in_context(mx.gpu(0)) * 2).as_in_context(mx.cpu()).sum()
    y.backward()
    assert x.grad.asnumpy().tolist() == [2.0, 2.0, 2.0]
    with mx.gpu(0):
        g = mx.nd.ones((2, 2))
    assert g.context == mx.gpu(0) and type(g._data).__module__.startswith("cupy")


def test_reshape_special_codes():
    x = mx.nd.zeros((2, 3, 4))
    assert x.reshape((0, -1)).shape == (2, 12)
    assert x.reshape(6, 4).shape == (6, 4)
    assert x.reshape((-2,)).shape == (2, 3, 4)
    assert x.reshape((-3, 4)).shape == (6, 4)
    assert x.reshape((-4, 1, 2, -2)).shape == (1, 2, 3, 4)
    assert mx.nd.zeros((10, 5, 4)).reshape((-1, 0), reverse=True).shape == (50, 4)
    with pytest.raises(mx.MXNetError, match="Reshape"):
        x.reshape((5, 5))


def test_arithmetic_broadcasting_and_scalars():
    a = mx.nd.array([[1.0, 2.0], [3.0, 4.0]])
    b = mx.nd.array([10.0, 20.0])
    an, bn = a.asnumpy(), b.asnumpy()
    for got, want in [(a + b, an + bn), (a - b, an - bn), (a * b, an * bn), (a / b, an / bn),
                      (a + 1, an + 1), (1 - a, 1 - an), (2 * a, 2 * an), (1 / a, 1 / an), (a ** 2, an ** 2),
                      (2 ** a, 2 ** an), (a % 3, an % 3), (-a, -an), (abs(-a), an), (a @ a, an @ an),
                      (a + np.ones(2, np.float32), an + 1)]:
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
    assert (a > 2).asnumpy().tolist() == [[0, 0], [1, 1]]
    assert (a == b / 10).asnumpy().tolist() == [[1, 1], [0, 0]]
    assert (a + 1).dtype == np.float32      # scalars keep the array's dtype


def test_inplace_operators_write_the_buffer():
    a = mx.nd.ones((2, 2))
    alias = a
    a += 1
    a *= 3
    assert alias is a and a.asnumpy().tolist() == [[6, 6], [6, 6]]


def test_repr_and_str():
    x = mx.nd.array([[1, 2], [3, 4]])
    assert repr(x).endswith("<NDArray 2x2 @cpu(0)>")
    assert "[[1. 2.]" in repr(x)
    n = mx.np.array([1.0, 2.0])
    assert repr(n) == "array([1., 2.])"


def test_dlpack_exchange_with_numpy():
    x = mx.nd.array([1.0, 2.0, 3.0])
    shared = np.from_dlpack(x)
    np.testing.assert_array_equal(shared, [1, 2, 3])
    src = np.arange(4.0)
    y = mx.nd.from_dlpack(src)
    src[0] = 42
    assert y.asnumpy()[0] == 42          # zero-copy: same memory
    assert x.__dlpack_device__()[0] == 1  # kDLCPU


def test_dlpack_exchange_with_torch():
    torch = pytest.importorskip("torch", reason="torch is not installed: DLPack exchange with torch not checked")
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    x = mx.nd.from_dlpack(t)
    assert x.shape == (2, 3)
    back = torch.from_dlpack(x * 2)
    assert back.tolist() == [[0, 2, 4], [6, 8, 10]]


def test_bool_len_iter():
    assert bool(mx.nd.array([1.0])) and not bool(mx.nd.array([0.0]))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(mx.nd.ones((2,)))
    x = mx.nd.array([[1, 2], [3, 4]])
    assert len(x) == 2 and [r.asnumpy().tolist() for r in x] == [[1, 2], [3, 4]]


def test_wait_pickle_and_deepcopy():
    x = mx.nd.ones((2,))
    x.wait_to_read()
    mx.nd.waitall()
    import copy
    import pickle
    y = pickle.loads(pickle.dumps(mx.np.array([1.5, 2.5], dtype="float64")))   # as MXNet's NDArray pickles
    assert y._np and y.dtype == np.float64 and y.tolist() == [1.5, 2.5]
    dense = mx.gluon.nn.Dense(2, in_units=3)
    dense.initialize()
    twin = copy.deepcopy(dense)                # snapshotting a model (EMA, best model) copies the values
    assert twin.weight.data() is not dense.weight.data()
    np.testing.assert_array_equal(twin(mx.nd.ones((1, 3))).asnumpy(),
                                  dense(mx.nd.ones((1, 3))).asnumpy())


def test_fresh_grad_flag_and_dense_tostype_as_mxnet_internals_use_them():
    x, dx = mx.nd.ones((3,)), mx.nd.zeros((3,))
    mx.autograd.mark_variables([x], [dx])
    assert x._fresh_grad is False
    with mx.autograd.record():
        (x * 2).backward()
    assert x._fresh_grad is True
    x._fresh_grad = False
    assert x._fresh_grad is False and dx.asnumpy().tolist() == [2.0] * 3
    copy = x.tostype("default")
    assert copy.asnumpy().tolist() == [1.0] * 3 and copy is not x
    with pytest.raises(mx.MXNetError, match="expected one of default, csr, row_sparse, got 'coo'"):
        x.tostype("coo")
    scope = {}
    exec("from hybridlab.autograd import *", scope)
    assert scope["NDArray"] is mx.nd.NDArray
