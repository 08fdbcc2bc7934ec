"""The MXNet 1.9 hybridize tutorial and the HybridBlock tutorial, run unchanged after
``import hybridlab as mx`` (plus the same models written in MXNet 2.0 style)."""
import contextlib
import io
import json
import os
import warnings

import numpy as np
import pytest

import hybridlab as mx
from hybridlab import gluon, nd
from hybridlab.gluon import nn

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet")


# ---- the hybridize tutorial ---------------------------------------------------------------------
def get_net():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(256, activation="relu"))
        net.add(nn.Dense(128, activation="relu"))
        net.add(nn.Dense(2))
    net.initialize()
    return net


def test_hybridize_gives_identical_outputs_and_accepts_flags():
    x = nd.random.normal(shape=(1, 512))
    net = get_net()
    imperative = net(x).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), imperative, rtol=1e-6, atol=1e-7)
    net.hybridize(static_alloc=True)
    np.testing.assert_allclose(net(x).asnumpy(), imperative, rtol=1e-6, atol=1e-7)
    net.hybridize(static_alloc=True, static_shape=True)
    np.testing.assert_allclose(net(x).asnumpy(), imperative, rtol=1e-6, atol=1e-7)
    batch = nd.random.normal(shape=(8, 512))
    ref = get_net()
    ref.load_dict({k: v.data() for k, v in zip(ref.collect_params(), net.collect_params().values())})
    np.testing.assert_allclose(net(batch).asnumpy(), ref(batch).asnumpy(), rtol=1e-5, atol=1e-6)


def test_symbolic_call_export_and_imports(tmp_path):
    net = get_net()
    x = nd.random.normal(shape=(1, 512))
    net.hybridize()
    expected = net(x).asnumpy()
    y = net(mx.sym.var("data"))
    assert isinstance(y, mx.sym.Symbol)
    assert y.list_arguments()[0] == "data" and len(y.list_arguments()) == 7
    prefix = str(tmp_path / "model")
    net.export(prefix, epoch=1)
    assert os.path.exists(prefix + "-symbol.json") and os.path.exists(prefix + "-0001.params")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = gluon.nn.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0001.params",
                                              ctx=mx.cpu())
    np.testing.assert_allclose(loaded(x).asnumpy(), expected, rtol=1e-6, atol=1e-7)
    keys = set(mx.nd.load(prefix + "-0001.params"))
    assert all(k.startswith("arg:") or k.startswith("aux:") for k in keys)


class PrintingNet(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(PrintingNet, self).__init__(**kwargs)
        with self.name_scope():
            self.fc1 = nn.Dense(10)
            self.fc2 = nn.Dense(2)

    def hybrid_forward(self, F, x):
        print(x)
        x = F.relu(self.fc1(x))
        print(x)
        return self.fc2(x)


def _printed(fn):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn()
    return out.getvalue()


def test_print_shows_ndarray_then_symbol_once():
    net = PrintingNet()
    net.initialize()
    x = nd.random.normal(shape=(1, 4))
    assert "<NDArray 1x4 @cpu(0)>" in _printed(lambda: net(x))
    net.hybridize()
    first = _printed(lambda: net(x))
    assert "<Symbol data>" in first and "<Symbol" in first.splitlines()[-1]
    assert _printed(lambda: net(x)) == ""       # the cached graph runs; hybrid_forward is not called


# ---- the HybridBlock tutorial's LeNet, checked against real MXNet's export of it ------------------
class Net(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(Net, self).__init__(**kwargs)
        with self.name_scope():
            self.conv0 = nn.Conv2D(6, kernel_size=5)
            self.pool0 = nn.MaxPool2D(pool_size=2)
            self.conv1 = nn.Conv2D(16, kernel_size=5)
            self.pool1 = nn.MaxPool2D(pool_size=2)
            self.dense0 = nn.Dense(120)
            self.dense1 = nn.Dense(84)
            self.fc3_weight = self.params.get("fc3_weight", shape=(10, 84))

    def hybrid_forward(self, F, x, fc3_weight):
        x = self.pool0(F.relu(self.conv0(x)))
        x = self.pool1(F.relu(self.conv1(x)))
        x = x.reshape((0, -1))
        x = F.relu(self.dense0(x))
        x = F.relu(self.dense1(x))
        return F.dot(x, fc3_weight, transpose_b=True)


def test_lenet_exports_the_graph_mxnet_exports(tmp_path):
    with mx.name.NameManager():      # a fresh process names the first Net "net0", as in MXNet's export
        net = Net()
    net.initialize()
    x = nd.array(np.load(os.path.join(DATA, "lenet-input.npy")))
    before = net(x).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), before, rtol=1e-5, atol=1e-6)
    prefix = str(tmp_path / "lenet")
    net.export(prefix)
    ours = json.load(open(prefix + "-symbol.json"))
    theirs = json.load(open(os.path.join(DATA, "lenet-symbol.json")))
    assert [(n["op"], n["name"]) for n in ours["nodes"]] == [(n["op"], n["name"]) for n in theirs["nodes"]]
    assert [n.get("attrs", {}) for n in ours["nodes"] if n["op"] != "null"] == \
           [n.get("attrs", {}) for n in theirs["nodes"] if n["op"] != "null"]
    # MXNet's trained parameters run in our exported graph and give MXNet's outputs
    loaded = gluon.nn.SymbolBlock.imports(prefix + "-symbol.json", ["data"], os.path.join(DATA, "lenet-0000.params"))
    np.testing.assert_allclose(loaded(x).asnumpy(), np.load(os.path.join(DATA, "lenet-output.npy")),
                               rtol=1e-4, atol=1e-4)


# ---- the limitations the tutorial lists -----------------------------------------------------------
class UsesShape(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return x.reshape((x.shape[0], -1))


class AssignsItems(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        x[:, 0] = 1
        return x


class BranchesOnValues(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        if x.sum() > 0:
            return x
        return -x


@pytest.mark.parametrize("block, error, text", [
    (UsesShape, AttributeError, "'Symbol' object has no attribute 'shape'"),
    (AssignsItems, TypeError, "'Symbol' object does not support item assignment"),
    (BranchesOnValues, Exception, "where"),
])
def test_symbol_limitations_raise_mxnet_errors_with_the_rewrite(block, error, text):
    net = block()
    net.initialize()
    x = nd.ones((2, 3))
    net(x)                         # imperative: works
    net.hybridize()
    with pytest.raises(error) as err:
        net(x)
    assert text in str(err.value)


# ---- the same models in MXNet 2.0 style ------------------------------------------------------------
class MLP2(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.dense0 = nn.Dense(256, activation="relu")
        self.dense1 = nn.Dense(128, activation="relu")
        self.dense2 = nn.Dense(2)

    def forward(self, x):
        return self.dense2(self.dense1(self.dense0(x)))


class LeNet2(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.conv0 = nn.Conv2D(6, kernel_size=5, activation="relu")
        self.pool0 = nn.MaxPool2D(pool_size=2)
        self.conv1 = nn.Conv2D(16, kernel_size=5, activation="relu")
        self.pool1 = nn.MaxPool2D(pool_size=2)
        self.dense0 = nn.Dense(120, activation="relu")
        self.dense1 = nn.Dense(84, activation="relu")
        self.fc3_weight = gluon.Parameter("fc3_weight", shape=(10, 84))

    def forward(self, x):
        x = self.pool0(self.conv0(x))
        x = self.pool1(self.conv1(x))
        x = mx.npx.reshape(x, (0, -1)) if hasattr(mx.npx, "reshape") else x.reshape((x.shape[0], -1))
        x = self.dense1(self.dense0(x))
        return mx.np.dot(x, self.fc3_weight.data().T)


@pytest.mark.parametrize("model, shape", [(MLP2, (3, 512)), (LeNet2, (2, 1, 28, 28))])
def test_mxnet2_style_hybridizes_with_identical_outputs(model, shape):
    net = model()
    net.initialize()
    x = mx.np.random.normal(size=shape)
    before = net(x).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), before, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net(x).asnumpy(), before, rtol=1e-5, atol=1e-6)
