"""MXNet 1.x's operator-level behaviour MXNet's own tests rely on: the deprecated Python operators
(``mx.operator.NumpyOp`` / ``NDArrayOp``), exceptions from a CustomOp's Python code surfacing as
MXNetError, ``get_operator_arguments``, and the legacy (non-NumPy) shape rules: zero sizes are unknown
sizes outside ``mx.util.np_shape()``. Expected values recorded from MXNet 1.9.1."""
import warnings

import numpy as np
import pytest

import hybridlab as mx


def _quiet(make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return make()


def test_numpy_op_defaults_copy_forward_and_give_ones_backward():
    x = mx.sym.Variable("X")
    s = _quiet(mx.operator.NumpyOp).get_symbol(x, name="numpy_op")
    assert s.list_arguments() == ["X"]
    dx = mx.nd.zeros((10,))
    exe = s.bind(mx.cpu(), args=[mx.nd.ones((10,)) * 10], args_grad={"X": dx})
    exe.forward(is_train=True)
    assert exe.outputs[0].asnumpy().tolist() == [10.0] * 10
    exe.backward(mx.nd.ones((10,)) * 3)
    assert dx.asnumpy().tolist() == [1.0] * 10


def test_subclassed_numpy_and_ndarray_ops_compute_and_differentiate():
    class Square(mx.operator.NumpyOp):
        def forward(self, in_data, out_data):
            assert isinstance(in_data[0], np.ndarray)
            out_data[0][:] = in_data[0] ** 2

        def backward(self, out_grad, in_data, out_data, in_grad):
            in_grad[0][:] = 2 * in_data[0] * out_grad[0]

    class Add(mx.operator.NDArrayOp):
        def list_arguments(self):
            return ["a", "b"]

        def forward(self, in_data, out_data):
            assert isinstance(in_data[0], mx.nd.NDArray)
            out_data[0][:] = in_data[0] + in_data[1]

        def backward(self, out_grad, in_data, out_data, in_grad):
            in_grad[0][:] = out_grad[0]
            in_grad[1][:] = out_grad[0]

    sq, add = _quiet(Square), _quiet(Add)
    y = add(sq(mx.sym.var("x")), mx.sym.var("b"))
    x, b = mx.nd.array([1.0, 2.0]), mx.nd.array([0.5, 0.5])
    gx, gb = mx.nd.zeros((2,)), mx.nd.zeros((2,))
    exe = y.bind(mx.cpu(), args={"x": x, "b": b}, args_grad={"x": gx, "b": gb})
    assert exe.forward(is_train=True)[0].asnumpy().tolist() == [1.5, 4.5]
    exe.backward(mx.nd.ones((2,)))
    assert gx.asnumpy().tolist() == [2.0, 4.0] and gb.asnumpy().tolist() == [1.0, 1.0]


def test_python_errors_in_a_custom_op_are_mxnet_errors():
    class Broken(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            assert False, "broken forward"

    @mx.operator.register("legacy_api_broken")
    class BrokenProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Broken()

    with pytest.raises(mx.MXNetError, match="legacy_api_broken.*Broken.forward raised AssertionError") as info:
        mx.nd.Custom(mx.nd.ones((2,)), op_type="legacy_api_broken").wait_to_read()
    assert isinstance(info.value.__cause__, AssertionError)


def test_get_operator_arguments_lists_inputs_then_attributes():
    args = mx.operator.get_operator_arguments("Activation")
    assert isinstance(args, mx.operator.OperatorArguments)
    assert args.names == ["data", "act_type"] and args.narg == 2
    assert args.types == ["NDArray-or-Symbol", "{'relu', 'sigmoid', 'softrelu', 'softsign', 'tanh'}, required"]
    assert mx.operator.get_operator_arguments("Concat").names == ["data", "num_args", "dim"]
    assert mx.operator.get_operator_arguments("add_n").names == ["args"]
    with pytest.raises(mx.MXNetError, match="unknown operator"):
        mx.operator.get_operator_arguments("NoSuchOp")


@pytest.mark.parametrize("call", [
    lambda: mx.nd.zeros(()), lambda: mx.nd.ones(()), lambda: mx.nd.zeros((0, 1, 3, 0)), lambda: mx.nd.ones((2, 0)),
    lambda: mx.nd.tile(mx.nd.ones((4, 4)), (1, 0, 3)),
    lambda: mx.nd.depth_to_space(mx.nd.empty((1, 4, 0, 3)), 2),
    lambda: mx.nd.space_to_depth(mx.nd.empty((1, 0, 4, 4)), 2),
    lambda: mx.nd.empty((5, 0)).max(), lambda: mx.nd.empty((5, 0)).min(axis=0),
])
def test_zero_sizes_are_unknown_outside_np_shape(call):
    with pytest.raises(mx.MXNetError):
        call()


def test_zero_sizes_work_with_np_shape():
    with mx.util.np_shape():
        assert mx.nd.ones(()).shape == () and mx.nd.zeros((0, 1, 0, 4)).shape == (0, 1, 0, 4)
        assert mx.nd.tile(mx.nd.ones((4, 4)), (1, 0, 3)).shape == (1, 0, 12)
    assert mx.nd.empty((2, 0)).shape == (2, 0) and mx.nd.full((2, 0), 1).shape == (2, 0)


def test_dropout_of_everything_is_nan_as_in_mxnet():
    x = mx.nd.ones((2, 3))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Dropout(x, p=1.0)
    y.backward()
    assert np.isnan(y.asnumpy()).all() and np.isnan(x.grad.asnumpy()).all()


def test_pooling_reads_the_first_pad_values_of_the_kernel_rank():
    x = mx.nd.arange(10).reshape((1, 1, 10))
    same = mx.nd.Pooling(x, kernel=2, stride=2, pad=(0, 0, 0), pool_type="max", pooling_convention="same")
    assert same.asnumpy().ravel().tolist() == [1.0, 3.0, 5.0, 7.0, 9.0]
    valid = mx.nd.Pooling(x, kernel=2, stride=2, pad=(1, 0, 0), pool_type="max")
    assert valid.asnumpy().ravel().tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 9.0]
    with pytest.raises(mx.MXNetError, match="same"):
        mx.nd.Pooling(x, kernel=2, stride=2, pad=(0, 1), pool_type="max", pooling_convention="same")
