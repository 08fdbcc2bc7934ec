"""The export round-trip checker (gluon.export_check.check_export): every real MXNet 1.9.1 fixture
and every model-zoo net round-trips with everything matching; a damaged export is reported by
part and name (a renamed parameter, a changed attribute, a dropped key)."""
import json
import os

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.gluon import nn
from hybridlab.gluon.export_check import check_export
from hybridlab.gluon.model_zoo import vision
from models import zoo_input_side

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet")
FIXTURES = ["mlp", "lenet", "mobilenet0.25", "lstm", "bn_dropout", "attention"]


def _fixture(name):
    meta = json.load(open(os.path.join(DATA, f"{name}-meta.json")))
    names = [i["name"] for i in meta["inputs"]]
    xs = [mx.nd.array(np.load(os.path.join(DATA, i["file"])), dtype=i["dtype"]) for i in meta["inputs"]]
    net = mx.gluon.SymbolBlock.imports(os.path.join(DATA, f"{name}-symbol.json"), names,
                                       os.path.join(DATA, f"{name}-0000.params"))
    return net, xs


@pytest.mark.parametrize("name", FIXTURES)
def test_every_mxnet_fixture_round_trips(name):
    net, xs = _fixture(name)
    report = check_export(net, *xs)
    assert report.ok, str(report)
    assert "everything matches" in str(report)




@pytest.mark.parametrize("name", sorted(vision.MODELS))
def test_every_model_zoo_net_round_trips(name):
    net = vision.get_model(name, classes=4)
    net.initialize()
    side = zoo_input_side(name)
    report = check_export(net, mx.nd.array(np.random.RandomState(0).normal(size=(1, 3, side, side))))
    assert report.ok, str(report)
    assert not net.hybridization.active          # the block is left as it was


def _exported(tmp_path):
    net = nn.HybridSequential()
    net.add(nn.Dense(4, activation="relu", in_units=3), nn.Dense(2, in_units=4))
    net.initialize()
    x = mx.nd.ones((2, 3))
    net.hybridize()
    net(x)
    sym_file, params_file = net.export(str(tmp_path / "m"))
    return net, x, sym_file, params_file


def test_a_renamed_parameter_is_reported_with_its_name(tmp_path):
    net, x, sym_file, params_file = _exported(tmp_path)
    weight = net[0].weight.var().name
    saved = mx.nd.load(params_file)
    saved[f"arg:{weight}_renamed"] = saved.pop(f"arg:{weight}")
    mx.nd.save(params_file, saved)
    report = check_export(net, x, files=(sym_file, params_file))
    assert not report.ok
    assert [m.name for m in report.parameters] == [weight, f"arg:{weight}_renamed"]
    assert f"expected key 'arg:{weight}'" in str(report) and "renamed" in str(report)


def test_a_changed_attribute_and_a_wrong_shape_are_reported(tmp_path):
    net, x, sym_file, params_file = _exported(tmp_path)
    graph = json.load(open(sym_file))
    act = next(n for n in graph["nodes"] if n["op"] == "Activation")
    act["attrs"]["act_type"] = "tanh"
    json.dump(graph, open(sym_file, "w"))
    bias = net[1].bias.var().name
    saved = mx.nd.load(params_file)
    saved[f"arg:{bias}"] = mx.nd.zeros((3,))
    mx.nd.save(params_file, saved)
    report = check_export(net, x, files=(sym_file, params_file))
    assert [m.name for m in report.graph] == [act["name"]]
    assert "act_type='relu', got act_type='tanh'" in str(report.graph[0])
    assert any(m.name == bias and "expected shape (2,), got (3,)" in m.what for m in report.parameters)


def test_real_mxnet_loads_the_export_when_available(tmp_path):
    python = os.environ.get("HYBRIDLAB_MXNET_PYTHON")
    if not python:
        pytest.skip("real MXNet 1.9.1 is not configured (set HYBRIDLAB_MXNET_PYTHON to a Python with mxnet==1.9.1)")
    net, x, _, _ = _exported(tmp_path)
    report = check_export(net, x, mxnet_python=python)
    assert report.mxnet_checked and report.ok, str(report)


def test_real_mxnet_refuses_a_renamed_parameter_as_a_row_of_its_own(tmp_path):
    python = os.environ.get("HYBRIDLAB_MXNET_PYTHON")
    if not python:
        pytest.skip("real MXNet 1.9.1 is not configured (set HYBRIDLAB_MXNET_PYTHON to a Python with mxnet==1.9.1)")
    net, x, sym_file, params_file = _exported(tmp_path)
    weight = net[0].weight.var().name
    saved = mx.nd.load(params_file)
    saved[f"arg:{weight}_renamed"] = saved.pop(f"arg:{weight}")
    mx.nd.save(params_file, saved)
    report = check_export(net, x, files=(sym_file, params_file), mxnet_python=python)
    assert report.mxnet_checked and len(report.parameters) == 2
    assert len(report.mxnet) == 1 and weight in report.mxnet[0].what, str(report)
