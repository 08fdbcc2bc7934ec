"""Export and SymbolBlock: real MXNet 1.9.1 models load and reproduce MXNet's outputs; our exports
round-trip (and, where ``mxnet`` is importable, load in real MXNet with the same outputs)."""
import json
import os

import numpy as np
import pytest

import hybridlab as mx
from hybridlab import gluon
from hybridlab.gluon import nn

import real_mxnet

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet")
MODELS = ["mlp", "lenet", "mobilenet0.25", "bn_dropout", "attention"]   # lstm: test_gluon_rnn; bn_trainmode: below


def _meta(name):
    with open(os.path.join(DATA, f"{name}-meta.json")) as f:
        return json.load(f)


@pytest.mark.parametrize("name", MODELS)
def test_mxnet_model_imports_and_reproduces_outputs(name):
    meta = _meta(name)
    net = gluon.SymbolBlock.imports(os.path.join(DATA, f"{name}-symbol.json"), [i["name"] for i in meta["inputs"]],
                                    os.path.join(DATA, f"{name}-0000.params"), device=mx.cpu())
    inputs = [mx.nd.array(np.load(os.path.join(DATA, i["file"])), dtype=i["dtype"]) for i in meta["inputs"]]
    out = net(*inputs)
    expected = np.load(os.path.join(DATA, meta["outputs"][0]["file"]))
    assert out.shape == expected.shape
    assert np.abs(out.asnumpy() - expected).max() <= 1e-4
    assert sorted(f"{k}" for k in net.collect_params()) == sorted(k[4:] for k in meta["params"])
    aux = [k[4:] for k in meta["params"] if k.startswith("aux:")]
    assert all(net.collect_params()[k].grad_req == "null" for k in aux)
    # the graph it ran is the file's graph: JSON out equals JSON in, node for node
    ours = json.loads(net.hybridization.graph.tojson())
    with open(os.path.join(DATA, f"{name}-symbol.json")) as f:
        theirs = json.load(f)
    assert [(n["op"], n["name"], n.get("attrs", {})) for n in ours["nodes"]] == \
           [(n["op"], n["name"], n.get("attrs", {})) for n in theirs["nodes"]]


def test_imports_errors_name_the_parameter(tmp_path):
    params = mx.nd.load(os.path.join(DATA, "mlp-0000.params"))
    del params["arg:hybridsequential0_dense1_bias"]
    path = str(tmp_path / "broken.params")
    mx.nd.save(path, params)
    with pytest.raises(AssertionError, match="Parameter 'hybridsequential0_dense1_bias' is missing in file '.*broken"
                                             ".params', which contains parameters"):
        gluon.SymbolBlock.imports(os.path.join(DATA, "mlp-symbol.json"), ["data"], path)
    with pytest.raises(ValueError, match=r"input names \['input'\] are not variables of"):
        gluon.SymbolBlock.imports(os.path.join(DATA, "mlp-symbol.json"), ["input"])


def _tutorial_net():
    with mx.name.NameManager():
        net = nn.HybridSequential()
        with net.name_scope():
            net.add(nn.Conv2D(4, kernel_size=3, activation="relu"), nn.BatchNorm(), nn.MaxPool2D(),
                    nn.Flatten(), nn.Dropout(0.3), nn.Dense(8, activation="relu"), nn.Dense(3))
    return net


def test_export_round_trip_with_aux_states(tmp_path):
    mx.random.seed(0)
    net = _tutorial_net()
    net.initialize(mx.init.Xavier())
    x = mx.nd.random.normal(shape=(2, 3, 10, 10))
    net(x)
    net.collect_params()["1.running_mean"].set_data(mx.nd.array([0.1, -0.2, 0.3, 0.05]))
    net.collect_params()["1.running_var"].set_data(mx.nd.array([1.5, 0.5, 2.0, 1.1]))
    net.hybridize()
    expected = net(x).asnumpy()
    prefix = str(tmp_path / "net")
    sym_file, params_file = net.export(prefix, epoch=3)
    assert (sym_file, params_file) == (prefix + "-symbol.json", prefix + "-0003.params")
    assert sorted(os.listdir(tmp_path)) == ["net-0003.params", "net-symbol.json"]      # no temporary files left
    keys = sorted(mx.nd.load(params_file))
    assert "aux:hybridsequential0_batchnorm0_running_mean" in keys and all(k[:4] in ("arg:", "aux:") for k in keys)
    with open(sym_file) as f:
        graph = json.load(f)
    assert graph["attrs"]["mxnet_version"] == ["int", 10901]
    bn = [n for n in graph["nodes"] if n["op"] == "BatchNorm"][0]
    assert bn["attrs"] == {"axis": "1", "eps": "1e-05", "fix_gamma": "False", "momentum": "0.9",
                           "use_global_stats": "False"}
    loaded = gluon.SymbolBlock.imports(sym_file, ["data"], params_file)
    np.testing.assert_allclose(loaded(x).asnumpy(), expected, rtol=1e-5, atol=1e-6)
    again = mx.sym.fromjson(mx.sym.load(sym_file).tojson())
    assert again.tojson() == mx.sym.load(sym_file).tojson()


def test_symbol_block_feature_extractor_and_composition():
    net = _tutorial_net()
    net.initialize()
    x = mx.nd.random.normal(shape=(2, 3, 10, 10))
    net(x)
    data = mx.sym.var("data")
    internals = net(data).get_internals()
    feature = internals["hybridsequential0_dense0_relu_fwd_output"]
    extractor = gluon.SymbolBlock(feature, data, params=net.collect_params())
    assert extractor(x).shape == (2, 8)
    assert extractor.collect_params()["hybridsequential0_dense0_weight"] is net[5].weight
    # a SymbolBlock inside a 1.x-style parent is composed into the parent's graph
    outer = nn.HybridSequential()
    outer.add(extractor, nn.Dense(2, in_units=8))
    outer[1].initialize()
    outer.hybridize()
    np.testing.assert_allclose(outer(x).asnumpy(), outer[1](extractor(x)).asnumpy(), rtol=1e-5, atol=1e-6)
    assert "hybridsequential0_dense0_relu_fwd" in [n.name for n in outer.hybridization.graph._nodes()]
    with pytest.raises(ValueError, match="params are unused by the model"):
        gluon.SymbolBlock(feature, data, params={"nothing": gluon.Parameter("nothing", shape=(1,))})
    with pytest.raises(AssertionError, match="Input symbols must be variable"):
        gluon.SymbolBlock(feature, internals["hybridsequential0_conv0_fwd_output"])


def test_symbol_block_without_params_infers_shapes():
    data = mx.sym.var("data")
    out = mx.sym.FullyConnected(mx.sym.Activation(data, act_type="relu"), num_hidden=3, name="fc")
    net = gluon.SymbolBlock(out, data)
    net.initialize()
    assert net(mx.nd.ones((2, 7))).shape == (2, 3)
    assert net.collect_params()["fc_weight"].shape == (3, 7)


_CHECK = r"""
import sys, numpy as np, mxnet as mx
prefix, x_file, out_file = sys.argv[1:4]
net = mx.gluon.SymbolBlock.imports(prefix + '-symbol.json', ['data'], prefix + '-0000.params', ctx=mx.cpu())
np.save(out_file, net(mx.nd.array(np.load(x_file))).asnumpy())
print(mx.__version__)
"""


class _Modern(gluon.HybridBlock):
    """MXNet 2.0 style (traced with deferred compute)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(4, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm()
        self.dense = nn.Dense(3)

    def forward(self, x):
        x = mx.npx.relu(self.bn(self.conv(x)))
        return mx.np.tanh(self.dense(x)) * 2 + 1


@real_mxnet.needs_mxnet
@pytest.mark.parametrize("style", ["1.x", "2.0"])
def test_real_mxnet_loads_our_export(tmp_path, style):
    mx.random.seed(1)
    net = _tutorial_net() if style == "1.x" else _Modern()
    net.initialize(mx.init.Xavier())
    x = mx.nd.random.normal(shape=(2, 3, 10, 10))
    net(x)
    bn = net[1] if style == "1.x" else net.bn
    bn.running_var.set_data(mx.nd.array([1.5, 0.5, 2.0, 1.1]))
    net.hybridize()
    expected = net(x).asnumpy()
    prefix = str(tmp_path / "ours")
    net.export(prefix)
    np.save(tmp_path / "x.npy", x.asnumpy())
    stdout = real_mxnet.run(_CHECK, prefix, tmp_path / "x.npy", tmp_path / "y.npy")
    assert stdout.strip().splitlines()[-1] == "1.9.1"
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), expected, rtol=1e-5, atol=1e-5)


def test_bn_trainmode_one_training_step_through_imports():
    """MXNet's bn_trainmode net loaded with SymbolBlock.imports and given the reference's starting
    parameters: one recorded train-mode forward + backward reproduces MXNet's output and the moving
    statistics MXNet updated in backward; the inference output afterwards matches too; gradients
    equal those of the same net run op by op (imperative autograd)."""
    ref = np.load(os.path.join(DATA, "bn_trainmode_ref.npz"))
    x = mx.nd.array(ref["x"])

    def load():
        net = gluon.SymbolBlock.imports(os.path.join(DATA, "bn_trainmode-symbol.json"), ["data"])
        net.load_dict({"arg:" + k[len("before/"):] if "running" not in k else "aux:" + k[len("before/"):]: v
                       for k, v in ref.items() if k.startswith("before/")})
        return net

    net = load()
    params = {p.var().name: p for p in net.collect_params().values()}
    with mx.autograd.record():
        y = net(x)
    y.backward()
    np.testing.assert_allclose(y.asnumpy(), ref["y_train_mode"], rtol=1e-5, atol=1e-5)
    for name, p in params.items():
        if "running" in name:
            np.testing.assert_allclose(p.data().asnumpy(), ref["after/" + name], rtol=1e-5, atol=1e-6,
                                       err_msg=name)
    np.testing.assert_allclose(net(x).asnumpy(), ref["y_inference_after_update"], rtol=1e-5, atol=1e-5)

    sym = mx.sym.load(os.path.join(DATA, "bn_trainmode-symbol.json"))   # the same graph, op by op
    arrays = {n: mx.nd.array(ref["before/" + n]) for n in sym.list_inputs() if n != "data"}
    for n, a in arrays.items():
        a.attach_grad()
    from hybridlab.compiler import CachedOp
    op = CachedOp(sym)
    args = [x if n == "data" else arrays[n] for n in op.input_names]
    with mx.autograd.record():
        y2 = op._call_recorded(args, None)
    y2.backward()
    for name, p in params.items():
        if p.grad_req != "null" and "running" not in name:
            np.testing.assert_allclose(p.grad().asnumpy(), arrays[name].grad.asnumpy(), rtol=1e-5, atol=1e-6,
                                       err_msg=name)
