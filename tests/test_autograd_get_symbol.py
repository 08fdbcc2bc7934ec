"""``mx.autograd.get_symbol``: the recorded history of an array as a Symbol (MXNet 1.9's
``autograd.get_symbol`` and its ``test_get_symbol``), evaluated again to give the recorded values."""
import json

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.symbol.graph import topo_order


def _ops(sym):
    return [n["op"] for n in json.loads(sym.tojson())["nodes"]]


def _names(sym):
    return [n.name for n in topo_order(sym.entries)]


def _leaf(values):
    x = mx.nd.array(values)
    x.attach_grad()
    return x


def test_mxnet_test_get_symbol():
    # MXNet's tests/python/unittest/test_autograd.py::test_get_symbol
    x = mx.nd.ones((1,))
    x.attach_grad()
    with mx.autograd.record():
        y = x * x + 2 * x - 1
    assert len(mx.autograd.get_symbol(y).list_arguments()) == 1

    z = mx.nd.ones((1,))
    z.attach_grad()
    with mx.autograd.record():
        y = x * x + 2 * z - 1
    assert len(mx.autograd.get_symbol(y).list_arguments()) == 2


def test_elementwise_graph_names_ops_and_values():
    x = _leaf([0.5, 1.0, 2.0])
    with mx.autograd.record():
        y = x * 2 + mx.nd.exp(x)
    sym = mx.autograd.get_symbol(y)
    assert isinstance(sym, mx.sym.Symbol)
    assert sym.list_arguments() == ["var0"]
    assert sym.list_outputs() == ["node_2_output"]
    assert _ops(sym) == ["null", "_mul_scalar", "exp", "broadcast_add"]
    assert _names(sym) == ["var0", "node_0", "node_1", "node_2"]
    assert "node_2" in str(sym) and "node_2" in repr(sym)
    np.testing.assert_allclose(sym.eval(var0=x)[0].asnumpy(), y.asnumpy(), rtol=1e-6)
    # the JSON loads back and runs; the call's attributes are kept (defaults left out, as MXNet)
    again = mx.sym.fromjson(sym.tojson())
    np.testing.assert_allclose(again.eval(var0=x)[0].asnumpy(), y.asnumpy(), rtol=1e-6)
    assert json.loads(sym.tojson())["nodes"][1]["attrs"] == {"scalar": "2.0"}


def test_symbol_block_runs_the_history():
    x = _leaf([[1.0, -2.0], [3.0, 0.5]])
    with mx.autograd.record():
        y = mx.nd.relu(x * x - 1).sum(axis=1, keepdims=True)
    sym = mx.autograd.get_symbol(y)
    block = mx.gluon.SymbolBlock(sym, [mx.sym.var("var0")])
    np.testing.assert_allclose(block(x).asnumpy(), y.asnumpy(), rtol=1e-6)
    attrs = {n.name: n.attrs for n in topo_order(sym.entries)}
    assert attrs[sym.name] == {"axis": "(1,)", "keepdims": "True"}


def test_constants_are_variables_once_per_array():
    x = _leaf([1.0, 2.0])
    c = mx.nd.array([10.0, 20.0])
    with mx.autograd.record():
        y = x * c + c
    sym = mx.autograd.get_symbol(y)
    assert sym.list_arguments() == ["var0", "null1"]     # MXNet: one counter for var<k> and null<k>
    np.testing.assert_allclose(sym.eval(var0=x, null1=c)[0].asnumpy(), y.asnumpy())


def test_multi_output_op_and_variable_head():
    x = _leaf([1.0, 2.0, 3.0, 4.0])
    with mx.autograd.record():
        parts = mx.nd.split(x * 3, num_outputs=2, axis=0)
        y = parts[1] * 2
    sym = mx.autograd.get_symbol(y)
    assert _ops(sym) == ["null", "_mul_scalar", "SliceChannel", "_mul_scalar"]
    assert sym.get_children().list_outputs() == ["node_1_output1"]
    np.testing.assert_allclose(sym.eval(var0=x)[0].asnumpy(), y.asnumpy())
    leaf = mx.autograd.get_symbol(x)         # a variable is its own history
    assert leaf.list_arguments() == ["var0"] and _ops(leaf) == ["null"]


def test_history_survives_backward_and_names_do_not_leak_between_calls():
    x = _leaf([1.0, 2.0])
    with mx.autograd.record():
        y = mx.nd.exp(x) * x
    first = mx.autograd.get_symbol(y)
    y.backward()
    second = mx.autograd.get_symbol(y)
    assert first.tojson() == second.tojson()
    assert _names(first) == ["var0", "node_0", "node_1"]
    np.testing.assert_allclose(second.eval(var0=x)[0].asnumpy(), y.asnumpy(), rtol=1e-6)


def test_create_graph_gradient_has_a_history():
    x = _leaf([3.0])
    with mx.autograd.record():
        y = x * x * x
        dy = mx.autograd.grad(y, [x], create_graph=True)[0]
    sym = mx.autograd.get_symbol(dy)
    head_grad, var = sym.list_arguments()           # the head gradient (ones) is a constant input
    np.testing.assert_allclose(sym.eval(**{head_grad: mx.nd.ones((1,)), var: x})[0].asnumpy(), [27.0])


def _dense(prefix):
    net = mx.gluon.nn.Dense(3, in_units=2, prefix=prefix)
    net.initialize(mx.init.Uniform(1.0))
    net.hybridize()
    return net


def _params(net):
    return {p.name: p.data() for p in net.collect_params().values()}


def test_hybridized_dense_call_is_its_graph_inlined():
    net = _dense("fc_")
    x = _leaf([[1.0, 2.0]])
    with mx.autograd.record():
        y = net(x)
    sym = mx.autograd.get_symbol(y)
    # the block's graph with its names: the leaf fed to it is named after the input it feeds
    assert sym.list_arguments() == ["data", "fc_weight", "fc_bias"]
    assert _ops(sym) == ["null", "null", "null", "FullyConnected"]
    assert sym.list_outputs() == ["fc_fwd_output"]
    out = sym.eval(data=x, **_params(net))[0]
    np.testing.assert_allclose(out.asnumpy(), y.asnumpy(), rtol=1e-6)
    block = mx.gluon.SymbolBlock(sym, [mx.sym.var("data")], params=net.collect_params())
    np.testing.assert_allclose(block(x).asnumpy(), y.asnumpy(), rtol=1e-6)


def test_hybridized_calls_between_imperative_ops():
    net = _dense("mlp_")
    x = _leaf([[0.5, -1.0], [2.0, 1.0]])
    with mx.autograd.record():
        h = mx.nd.tanh(x)
        y = mx.nd.relu(net(net(h)[:, :2]))      # the same block twice: one set of parameters
    sym = mx.autograd.get_symbol(y)
    assert sym.list_arguments() == ["var0", "mlp_weight", "mlp_bias"]
    names = _names(sym)
    assert "mlp_fwd" in names and "mlp_fwd_1" in names        # a name met twice gets _1
    out = sym.eval(var0=x, **_params(net))[0]
    np.testing.assert_allclose(out.asnumpy(), y.asnumpy(), rtol=1e-6)


def test_hybridized_call_on_an_array_without_gradient():
    net = _dense("nograd_")
    x = mx.nd.array([[1.0, -1.0]])               # a constant input: parameters need the gradients
    with mx.autograd.record():
        y = net(x) * 2
    sym = mx.autograd.get_symbol(y)
    assert sym.list_arguments() == ["data", "nograd_weight", "nograd_bias"]
    np.testing.assert_allclose(sym.eval(data=x, **_params(net))[0].asnumpy(), y.asnumpy(), rtol=1e-6)


def test_array_not_recorded_is_a_clear_error():
    x = _leaf([1.0])
    y = x * 2                                    # not under record()
    with pytest.raises(mx.MXNetError, match="not computed under autograd.record"):
        mx.autograd.get_symbol(y)
    with mx.autograd.record():
        z = mx.nd.ones((2,)) * 3                 # recorded, but nothing needs a gradient
    with pytest.raises(mx.MXNetError, match="part of a computation graph"):
        mx.autograd.get_symbol(z)
    with pytest.raises(mx.MXNetError, match="expected an NDArray.*got list"):
        mx.autograd.get_symbol([x])


def test_custom_function_is_named_in_the_error():
    class Twice(mx.autograd.Function):
        def forward(self, x):
            return x * 2

        def backward(self, dy):
            return dy * 2

    x = _leaf([1.0])
    with mx.autograd.record():
        y = Twice()(x) + 1
    with pytest.raises(mx.MXNetError, match="autograd.Function 'Twice'"):
        mx.autograd.get_symbol(y)


class _Twice(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] * self.factor)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0] * self.factor)


@mx.operator.register("get_symbol_scale")
class _ScaleProp(mx.operator.CustomOpProp):
    def __init__(self, factor="1"):
        super().__init__(need_top_grad=True)
        self.factor = float(factor)

    def create_operator(self, ctx, shapes, dtypes):
        op = _Twice()
        op.factor = self.factor
        return op


def test_python_operator_keeps_its_keywords():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    for _ in range(2):          # (the second backward of this history runs compiled: its graph is this one)
        with mx.autograd.record():
            y = mx.nd.Custom(x * 2, op_type="get_symbol_scale", factor=3) + 1
        y.backward()
        np.testing.assert_array_equal(x.grad.asnumpy(), [6.0, 6.0])
    node = [n for n in json.loads(mx.autograd.get_symbol(y).tojson())["nodes"] if n["op"] == "Custom"][0]
    assert node["attrs"] == {"op_type": "get_symbol_scale", "factor": "3"}
