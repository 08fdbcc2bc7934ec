"""nn layers: MXNet's parameter names and shapes, deferred input sizes, the graph attributes MXNet
writes (checked against real MXNet 1.9.1 exports of the same models), reprs and training behaviour."""
import json
import os

import numpy as np
import pytest

import hybridlab as mx
from models import tutorial_mlp
from hybridlab import gluon
from hybridlab.gluon import nn

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet")


def _fixture(name):
    with open(os.path.join(DATA, f"{name}-symbol.json")) as f:
        graph = json.load(f)
    x = mx.nd.array(np.load(os.path.join(DATA, f"{name}-input.npy")))
    return graph, x, np.load(os.path.join(DATA, f"{name}-output.npy")), mx.nd.load(os.path.join(DATA, f"{name}-0000.params"))


def _nodes(graph):
    return [(n["op"], n["name"], n.get("attrs", {})) for n in graph["nodes"]]


def test_mlp_rebuilt_exports_mxnets_graph_and_outputs(tmp_path):
    graph, x, expected, params = _fixture("mlp")
    with mx.name.NameManager():
        net = tutorial_mlp()
    net.hybridize()
    net(x)                                       # as MXNet did: hybridize, one forward, export
    net.load_dict(params)                        # MXNet's trained values (arg: keys, graph names)
    np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-5, atol=1e-5)
    sym_file, _ = net.export(str(tmp_path / "mlp"))
    with open(sym_file) as f:
        ours = json.load(f)
    assert _nodes(ours) == _nodes(graph)         # variable attributes (__shape__ '(256, 0)', ...) included
    assert ours["arg_nodes"] == graph["arg_nodes"] and ours["heads"] == graph["heads"]


def test_bn_dropout_rebuilt_matches_mxnet():
    graph, x, expected, params = _fixture("bn_dropout")
    with mx.name.NameManager():
        net = nn.HybridSequential()
        with net.name_scope():
            net.add(nn.Conv2D(8, kernel_size=3, padding=1, use_bias=False), nn.BatchNorm(), nn.Activation("relu"),
                    nn.MaxPool2D(), nn.Dropout(0.5), nn.Flatten(), nn.Dense(16),
                    nn.BatchNorm(epsilon=1e-3, momentum=0.8), nn.Dropout(0.3), nn.Dense(5))
    net.initialize()
    net(x)
    net.load_parameters(os.path.join(DATA, "bn_dropout-0000.params"))
    np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-4, atol=1e-4)
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-4, atol=1e-4)
    ops = [(op, name, attrs) for op, name, attrs in _nodes(json.loads(net.hybridization.graph.tojson())) if op != "null"]
    assert ops == [(op, name, attrs) for op, name, attrs in _nodes(graph) if op != "null"]
    structural = sorted(net._collect_params_with_prefix())        # the .params file's keys
    assert structural == ["0.weight", "1.beta", "1.gamma", "1.running_mean", "1.running_var", "6.bias", "6.weight",
                          "7.beta", "7.gamma", "7.running_mean", "7.running_var", "9.bias", "9.weight"]
    assert len(params) == 13


def test_dense_shapes_flatten_and_repr():
    dense = nn.Dense(5, use_bias=False, flatten=False, in_units=3)
    assert dense.bias is None and dense.weight.shape == (5, 3)
    dense.initialize()
    assert dense(mx.nd.ones((2, 4, 3))).shape == (2, 4, 5)
    assert repr(dense) == "Dense(3 -> 5, linear)"
    deferred = nn.Dense(4, activation="tanh", dtype="float64")
    deferred.initialize()
    assert deferred(mx.nd.ones((2, 3, 2), dtype="float64")).shape == (2, 4)
    assert deferred.weight.shape == (4, 6) and deferred.weight.dtype == np.float64
    assert repr(deferred) == "Dense(6 -> 4, Activation(tanh))"


def test_conv_and_pool_layers():
    conv = nn.Conv2D(8, kernel_size=(3, 5), strides=2, padding=(1, 2), groups=2, use_bias=False, in_channels=4)
    assert conv.weight.shape == (8, 2, 3, 5) and conv.bias is None
    assert repr(conv) == "Conv2D(4 -> 8, kernel_size=(3, 5), stride=(2, 2), padding=(1, 2), groups=2, bias=False)"
    conv.initialize()
    assert conv(mx.nd.ones((1, 4, 9, 9))).shape == (1, 8, 5, 5)
    assert nn.Conv1D(3, 3)._kwargs["layout"] == "NCW" and nn.Conv3D(3, 3).weight.shape == (3, 0, 3, 3, 3)
    x = mx.nd.array(np.arange(32, dtype="float32").reshape(1, 2, 4, 4))
    assert nn.MaxPool2D()(x).asnumpy()[0, 0].tolist() == [[5, 7], [13, 15]]
    assert nn.AvgPool2D(pool_size=2, strides=2)(x).asnumpy()[0, 0].tolist() == [[2.5, 4.5], [10.5, 12.5]]
    assert nn.GlobalAvgPool2D()(x).asnumpy().reshape(-1).tolist() == [7.5, 23.5]
    assert nn.GlobalMaxPool2D()(x).shape == (1, 2, 1, 1)
    assert nn.MaxPool2D(3, 2, ceil_mode=True)(mx.nd.ones((1, 1, 6, 6))).shape == (1, 1, 3, 3)
    assert nn.AvgPool2D()._kwargs["count_include_pad"] is True
    assert repr(nn.MaxPool2D()) == ("MaxPool2D(size=(2, 2), stride=(2, 2), padding=(0, 0), ceil_mode=False, "
                                    "global_pool=False, pool_type=max, layout=NCHW)")


def test_batchnorm_training_updates_running_stats_and_global_stats():
    bn = nn.BatchNorm(in_channels=2)
    bn.initialize()
    x = mx.nd.array(np.random.RandomState(0).normal(3.0, 2.0, size=(16, 2, 4, 4)).astype("float32"))
    with mx.autograd.record():
        y = bn(x)
    y.backward()
    mean = bn.running_mean.data().asnumpy()
    assert np.all(mean > 0.1) and bn.running_mean.grad_req == "null"
    np.testing.assert_allclose(y.asnumpy().mean(axis=(0, 2, 3)), [0, 0], atol=1e-4)
    frozen = nn.BatchNorm(in_channels=2, use_global_stats=True)
    frozen.initialize()
    with mx.autograd.record():
        out = frozen(x)
    np.testing.assert_allclose(out.asnumpy(), x.asnumpy() / np.sqrt(1 + 1e-5), rtol=1e-5)
    assert frozen.running_mean.data().asnumpy().tolist() == [0, 0]
    no_scale = nn.BatchNorm(scale=False, center=False)
    assert no_scale.gamma.grad_req == "null" and no_scale._kwargs["fix_gamma"] is True


def test_activation_lambda_names():
    with mx.name.NameManager():
        act = nn.Activation("sigmoid")
        dense = nn.Dense(2, activation="relu")
    assert act.prefix == "sigmoid0_" and dense.act.prefix == "dense0_relu_"
    assert act(mx.nd.array([0.0])).asnumpy().tolist() == [0.5]
    assert repr(nn.Lambda(lambda x: x)) == "Lambda(<lambda>)"
    with pytest.raises(AssertionError, match="Function name nope is not found in ndarray"):
        nn.Lambda("nope")
    with pytest.raises(ValueError, match="Unrecognized function in lambda"):
        nn.HybridLambda(3)
    leaky = nn.LeakyReLU(0.1)
    assert leaky(mx.nd.array([-1.0, 1.0])).asnumpy().tolist() == pytest.approx([-0.1, 1.0])


def test_sequential_passes_extra_outputs_along():
    class Split(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return x, x * 2

    class Join(gluon.HybridBlock):
        def hybrid_forward(self, F, x, y):
            return x + y

    seq = nn.HybridSequential()
    seq.add(Split(), Join())
    x = mx.nd.ones((2,))
    assert seq(x).asnumpy().tolist() == [3, 3]
    seq.hybridize()
    assert seq(x).asnumpy().tolist() == [3, 3]
