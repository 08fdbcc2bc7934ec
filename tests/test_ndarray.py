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


# ---- MXNet 1.9.1 behaviours from its test_ndarray.py (values recorded from MXNet 1.9.1) -------------
def test_inplace_flatten_squeeze_expand_dims_share_memory():
    x = mx.nd.arange(30).reshape(2, 3, 5)
    copy, view = x.flatten(), x.flatten(inplace=True)
    assert copy.shape == view.shape == (2, 15)
    x[0] = -1
    assert copy.asnumpy()[0, 0] == 0 and view.asnumpy()[0, 0] == -1
    y = mx.nd.zeros((1, 3, 1))
    sq, sq_view = y.squeeze(axis=(0, 2)), y.squeeze(axis=(0, 2), inplace=True)
    ex, ex_view = y.expand_dims(axis=-1), y.expand_dims(axis=-1, inplace=True)
    assert sq_view.shape == (3,) and ex_view.shape == (1, 3, 1, 1)
    y[:] = 4
    assert sq.asnumpy().tolist() == [0, 0, 0] and sq_view.asnumpy().tolist() == [4, 4, 4]
    assert ex.asnumpy().sum() == 0 and ex_view.asnumpy().sum() == 12
    assert mx.nd.ones((1, 1)).squeeze(inplace=True).shape == (1,)     # MXNet keeps (1,)
    with pytest.raises(mx.MXNetError, match="size 1"):
        y.squeeze(axis=1, inplace=True)


def test_fluent_transpose_axes_and_broadcast_to_and_reshape_errors():
    x = mx.nd.arange(6).reshape(2, 3)
    assert x.transpose(axes=(1, 0)).asnumpy().tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert x.transpose((1, 0)).shape == x.transpose(1, 0).shape == (3, 2)
    assert mx.nd.arange(3).broadcast_to((2, 3)).asnumpy().tolist() == [[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]
    assert mx.nd.ones((1, 3)).broadcast_to(shape=np.array([4, 3])).shape == (4, 3)
    with pytest.raises(ValueError):
        mx.nd.ones((2, 3)).broadcast_to((4, 3))
    with pytest.raises(ValueError):                 # MXNet: "Cannot reshape array of size 30 into shape (2, 3)"
        mx.nd.arange(30).reshape((2, 3))
    with pytest.raises(ValueError):
        mx.nd.moveaxis(mx.nd.zeros((1, 2, 3)), 3, 0)
    with pytest.raises(mx.MXNetError, match="non-empty"):
        mx.nd.broadcast_like(mx.nd.ones((1, 3)), mx.nd.ones((2, 3)), lhs_axes=(), rhs_axes=())
    assert mx.nd.zeros((2, 6)).split_v2(3, axis=1)[0].shape == (2, 2)


def test_choose_and_fill_element_0index():
    a = mx.nd.array(np.arange(12).reshape(3, 4))
    assert mx.nd.choose_element_0index(a, mx.nd.array([2, 0, 3])).asnumpy().tolist() == [2.0, 4.0, 11.0]
    filled = mx.nd.fill_element_0index(a, mx.nd.array([7, 8, 9]), mx.nd.array([2, 0, 3]))
    assert filled.asnumpy().tolist() == [[0.0, 1.0, 7.0, 3.0], [8.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 9.0]]
    assert a.asnumpy()[0, 2] == 2                    # a new array


def test_nd_cached_op_with_out():
    op = mx.nd.CachedOp(mx.sym.var("a") * 2 + mx.sym.var("b"))
    out = mx.nd.zeros((2,))
    assert op(mx.nd.array([1, 2]), mx.nd.array([10, 20]), out=out) is out
    assert out.asnumpy().tolist() == [12.0, 24.0]


def test_basic_indexing_slice_is_contiguous_and_one_element_assignment():
    contiguous = mx.nd.NDArray._basic_indexing_slice_is_contiguous
    keys = [(slice(1, 3), slice(None)), (slice(None), slice(1, 3)), (slice(2, 3), slice(None, None, 2)),
            (slice(None, None, -1), slice(None)), (slice(0, 0), slice(None, None, 2))]
    assert [contiguous(k, (4, 5)) for k in keys] == [True, False, False, False, True]
    b = mx.nd.zeros(2)
    b[1] = np.array([5.5], dtype=np.float32)          # one element takes a (1,) value, as in MXNet 1.x
    assert b.asnumpy().tolist() == [0.0, 5.5]


def test_dlpack_capsules_on_cpu_share_writable_memory():
    a = mx.nd.arange(4)
    b = mx.nd.from_dlpack(a.to_dlpack_for_write())
    b[0] = 9
    assert a.asnumpy().tolist() == [9.0, 1.0, 2.0, 3.0]
    assert mx.nd.from_dlpack(mx.nd.to_dlpack_for_read(a)).asnumpy().tolist() == [9.0, 1.0, 2.0, 3.0]
    capsule = a.to_dlpack_for_read()
    mx.nd.from_dlpack(capsule)
    with pytest.raises(mx.MXNetError, match="consumed once"):
        mx.nd.from_dlpack(capsule)


def test_getstate_is_mxnets_raw_bytes():
    # bytes of MXNet 1.9.1's mx.nd.arange(3).__getstate__()['handle'] and of an int32 [[1, 2]]
    arange3 = bytes.fromhex("c9fa93f900000000010000000300000000000000010000000000000000000000"
                            "000000000000803f00000040")
    int32 = bytes.fromhex("c9fa93f90000000002000000010000000000000002000000000000000100000000000000"
                          "040000000100000002000000")
    assert bytes(mx.nd.arange(3).__getstate__()["handle"]) == arange3
    assert bytes(mx.nd.array([[1, 2]], dtype="int32").__getstate__()["handle"]) == int32
    x = mx.nd.zeros((1,))
    x.__setstate__({"handle": bytearray(int32)})
    assert x.dtype == np.int32 and x.asnumpy().tolist() == [[1, 2]] and not x._np
    gpu_state = bytearray(bytes.fromhex("c9fa93f9000000000100000001000000000000000200000000000000"
                                        "0000000000000000"))    # saved on gpu(0): cpu here when absent
    x.__setstate__({"handle": gpu_state})
    assert x.shape == (1,) and (mx.num_gpus() > 0 or x.device == mx.cpu())
    with pytest.raises(mx.MXNetError, match="expected"):
        x.__setstate__({"handle": bytearray(b"\x00" * 3)})


def test_sparse_zeros_and_grad_storage_follow_mxnet():
    for stype in ("default", "csr", "row_sparse"):
        x = mx.nd.zeros((1, 1), stype=stype)
        assert x.stype == stype and x.detach().stype == stype
        x.attach_grad()
        assert x.grad.stype == stype
        x.attach_grad(stype="row_sparse")
        assert x.grad.stype == "row_sparse"
