"""``mx.test_utils``: MXNet's comparison helpers and symbolic checks, which user tests and MXNet
tutorials call."""
import numpy as np
import pytest

import hybridlab as mx
from hybridlab import test_utils as tu


def test_assert_almost_equal_uses_dtype_tolerances_and_names_the_arrays():
    tu.assert_almost_equal(mx.nd.array([1.0, 2.0]), np.array([1.0, 2.0005], np.float32))   # float32: atol 1e-3
    with pytest.raises(AssertionError, match="EXPECTED and GOT differ"):
        tu.assert_almost_equal(np.array([1.0]), np.array([1.01]), names=("EXPECTED", "GOT"))
    assert tu.almost_equal(np.float64(1.0), 1.0 + 1e-7) and not tu.same(mx.nd.ones(2), mx.nd.zeros(2))
    tu.assert_exception(mx.nd.array([1]).reshape, mx.MXNetError, (3,))


def test_check_symbolic_forward_and_backward():
    x, y = mx.sym.var("x"), mx.sym.var("y")
    X, Y = np.array([[1.0, 2.0]]), np.array([[3.0, -1.0]])
    sym = x * y + x
    tu.check_symbolic_forward(sym, {"x": X, "y": Y}, [X * Y + X])
    head = np.array([[0.5, 2.0]])
    tu.check_symbolic_backward(sym, [X, Y], [head], {"x": head * (Y + 1), "y": head * X})
    tu.check_symbolic_backward(sym, [X, Y], [head], {"x": head * (Y + 1)}, grad_req="add")
    with pytest.raises(AssertionError):
        tu.check_symbolic_forward(sym, {"x": X, "y": Y}, [X * Y])


def test_check_numeric_gradient_passes_and_catches_a_wrong_gradient(monkeypatch):
    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(mx.sym.tanh(data), num_hidden=3, name="fc")
    rng = np.random.default_rng(0)
    location = {"data": rng.standard_normal((2, 4)), "fc_weight": rng.standard_normal((3, 4)),
                "fc_bias": rng.standard_normal(3)}
    tu.check_numeric_gradient(net, location)
    tanh = mx.sym.tanh(data)._outputs[0][0].op
    right = tanh.grad
    monkeypatch.setattr(tanh, "grad", lambda F, a, ins, outs, og: [F._mul_scalar(g, scalar=2.0)
                                                                    for g in right(F, a, ins, outs, og)])
    with pytest.raises(AssertionError, match="NUMERICAL_data and BACKWARD_data differ"):
        tu.check_numeric_gradient(net, location, grad_nodes=["data"])


def test_check_numeric_gradient_takes_grad_reqs_by_node():
    # MXNet's dict form: 'add' checks the added gradient, 'null' that the buffer was left alone (the
    # regions of ROIPooling, whose numeric gradient is not zero, in MXNet's test_roipooling)
    data, rois = mx.sym.var("data"), mx.sym.var("rois")
    sym = mx.sym.ROIPooling(data, rois, pooled_size=(2, 2), spatial_scale=1.0)
    location = [np.random.default_rng(1).random((2, 2, 6, 6)), np.array([[1, 1.1, 1.1, 4.2, 4.2]])]
    for req in ("write", "add"):
        tu.check_numeric_gradient(sym, location, grad_nodes={"data": req, "rois": "null"}, numeric_eps=1e-4,
                                  rtol=1e-1, atol=1e-4)
    with pytest.raises(AssertionError, match="NUMERICAL_rois and BACKWARD_rois differ"):   # the batch index jumps
        tu.check_numeric_gradient(sym, location, grad_nodes=["data", "rois"], numeric_eps=1e-4, rtol=1e-1, atol=1e-4)


def test_random_shapes_and_arrays():
    assert len(tu.rand_shape_nd(4)) == 4 and all(1 <= d <= 10 for d in tu.rand_shape_3d())
    arr = tu.rand_ndarray((2, 3))
    assert arr.shape == (2, 3) and arr.dtype == np.float32 and 0 <= arr.asnumpy().min()
    csr = tu.rand_ndarray((4, 5), stype="csr", density=0.5)
    assert csr.stype == "csr" and csr.shape == (4, 5) and csr.dtype == np.float32
    rsp = tu.rand_ndarray((4, 5), stype="row_sparse", density=1.0)
    assert rsp.stype == "row_sparse" and rsp.indices.asnumpy().tolist() == [0, 1, 2, 3]
    with pytest.raises(mx.MXNetError, match="storage type expected"):
        tu.rand_ndarray((2, 2), stype="coo")
    with tu.environment("HYBRIDLAB_TEST_FLAG", "1"):
        import os
        assert os.environ["HYBRIDLAB_TEST_FLAG"] == "1"
    assert "HYBRIDLAB_TEST_FLAG" not in __import__("os").environ
