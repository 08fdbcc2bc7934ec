"""mx.np index functions (unravel_index, diag_indices_from, bincount) as registered ops, so they run
in hybridized blocks too, and mx.np.linalg details as MXNet 1.9.1 has them (norm's 'inf' spelling,
tensorsolve's output shape, cholesky's symmetric gradient). Expected values from MXNet 1.9.1."""
import numpy as onp
import pytest

import hybridlab as mx
from hybridlab import np, npx
from hybridlab.gluon import HybridBlock


@pytest.fixture
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


class _Call(HybridBlock):
    def __init__(self, fn):
        super().__init__()
        self._fn = fn

    def hybrid_forward(self, F, *args):
        return self._fn(F, *args)


def test_unravel_index_imperative_and_hybridized(np_mode):
    x = np.array([[1, 5], [7, 11]], dtype="uint8")
    rows, cols = np.unravel_index(x, (3, 4))
    assert rows.dtype == onp.uint8 and rows.tolist() == [[0, 1], [1, 2]] and cols.tolist() == [[1, 1], [3, 3]]
    assert [int(i) for i in np.unravel_index(np.array(23, dtype="int32"), (2, 3, 4))] == [1, 2, 3]
    block = _Call(lambda F, a: F.np.unravel_index(a, (3, 4)))
    block.hybridize()
    out = block(x)          # MXNet's symbol: one array, a row per dimension
    assert out.shape == (2, 2, 2) and out.asnumpy().tolist() == [[[0, 1], [1, 2]], [[1, 1], [3, 3]]]
    with pytest.raises(ValueError, match=r"indices expected in \[0, 12\)"):
        np.unravel_index(np.array([12], dtype="int32"), (3, 4))
    with pytest.raises(TypeError, match="indices expected integers"):
        np.unravel_index(np.array([1.5]), (3, 4))


def test_diag_indices_from_imperative_and_hybridized(np_mode):
    idx = np.diag_indices_from(np.ones((3, 3, 3)))
    assert len(idx) == 3 and all(i.dtype == onp.int64 and i.tolist() == [0, 1, 2] for i in idx)
    block = _Call(lambda F, a: F.np.diag_indices_from(a))
    block.hybridize()
    out = block(np.ones((2, 2), dtype="int8"))
    assert out.shape == (2, 2) and out.dtype == onp.int64 and out.tolist() == [[0, 1], [0, 1]]
    with pytest.raises(ValueError, match="equal dimensions"):
        np.diag_indices_from(np.ones((3, 2)))


def test_bincount_dtypes_minlength_and_hybridized(np_mode):
    x = np.array([1, 2, 2], dtype="int8")
    counts = np.bincount(x)
    assert counts.dtype == onp.int8 and counts.tolist() == [0, 1, 2]          # the data's dtype, as MXNet
    summed = np.bincount(x, np.array([1.0, 2.0, 3.5], dtype="float16"), minlength=5)
    assert summed.dtype == onp.float16 and summed.tolist() == [0, 1, 5.5, 0, 0]
    assert np.bincount(np.array([], dtype="int32"), minlength=3).tolist() == [0, 0, 0]
    block = _Call(lambda F, a: F.np.bincount(a, None, 2))
    block.hybridize()
    for data, want in (([1, 4], [0, 1, 0, 0, 1]), ([0, 0, 1], [2, 1])):   # the length follows the values
        assert block(np.array(data, dtype="int32")).tolist() == want
    with pytest.raises(mx.MXNetError, match="non-negative"):
        np.bincount(np.array([-1, 2], dtype="int32"))
    with pytest.raises(mx.MXNetError, match="integer dtype"):
        np.bincount(np.array([1.0, 2.0]))
    with pytest.raises(TypeError):
        np.bincount([1, 2])


def test_norm_orders_spelled_as_strings(np_mode):
    x = np.array([[1.0, -2.0], [3.0, -4.0]])
    assert np.linalg.norm(x, "inf", axis=1).tolist() == [2.0, 4.0]
    assert np.linalg.norm(x, "-inf", axis=1).tolist() == [1.0, 3.0]
    assert float(np.linalg.norm(x, "inf", axis=(0, 1))) == 7.0      # max row sum
    assert float(np.linalg.norm(x, "f")) == pytest.approx(onp.sqrt(30.0))


@pytest.mark.parametrize("a_shape, b_shape, axes, x_shape", [
    ((), (), None, ()), ((), (1, 1, 1), None, ()), ((1, 1, 1), (), None, (1, 1, 1)),
    ((1, 1, 1), (1, 1, 1), None, (1, 1, 1)), ((1, 1), (1, 1, 1, 1, 1), None, ()),
    ((2, 3, 6), (6,), (0, 1), (2, 3)),
])
def test_tensorsolve_output_shape_as_mxnet(np_mode, a_shape, b_shape, axes, x_shape):
    a = np.ones(a_shape) * 2 if onp.prod(a_shape) == 1 else np.array(
        onp.eye(6).reshape(6, 2, 3).transpose(1, 2, 0), dtype="float32")
    b = np.ones(b_shape)
    x = np.linalg.tensorsolve(a, b, axes=axes)
    assert x.shape == x_shape and x.dtype == onp.float32
    assert onp.allclose(x.asnumpy(), 0.5 if onp.prod(a_shape) == 1 else 1.0)


def test_cholesky_gradient_is_mxnets_symmetric_one(np_mode):
    a = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, -0.3], [0.5, -0.3, 1.0]], dtype="float64")
    a.attach_grad()
    with mx.autograd.record():
        L = np.linalg.cholesky(a)
    L.backward(np.array([[1.0, 0, 0], [2.0, -1.0, 0], [0.5, 0.3, 2.0]], dtype="float64"))
    want = [[0.125735, 0.533492, -0.072867], [0.533492, -0.261952, 0.255971], [-0.072867, 0.255971, 1.070994]]
    assert onp.allclose(a.grad.asnumpy(), want, atol=1e-6)
