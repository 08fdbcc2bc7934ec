"""model_zoo.vision: MXNet's architectures with MXNet's names; mobilenet0.25 against a real MXNet
1.9.1 export (argument/auxiliary names and shapes, outputs from its parameters); get_model names and
the pretrained error."""
import json
import os

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.gluon.model_zoo import vision

FIX = "/work/shared/mxnet-fixtures/models"
LOCAL = os.path.join(os.path.dirname(__file__), "data", "mxnet")
DIR = LOCAL if os.path.exists(os.path.join(LOCAL, "mobilenet0.25-symbol.json")) else FIX


def _fixture_path(name):
    path = os.path.join(DIR, name)
    if not os.path.exists(path):
        pytest.skip(f"MXNet fixture {name} not found in {DIR}")
    return path


def _arg_aux_shapes(sym, data_shape):
    args, _, aux = sym.infer_shape(data=data_shape)
    return dict(zip(sym.list_arguments(), args)), dict(zip(sym.list_auxiliary_states(), aux))


def test_mobilenet025_export_has_mxnets_names_shapes_and_reproduces_output(tmp_path):
    x = mx.nd.array(np.load(_fixture_path("mobilenet0.25-input.npy")))
    expected = np.load(_fixture_path("mobilenet0.25-output.npy"))
    with mx.name.NameManager():
        net = vision.get_model("mobilenet0.25")
    net.initialize()
    net.hybridize()
    net(x)
    sym_file, _ = net.export(str(tmp_path / "m"))
    ours = mx.sym.load(sym_file)
    ref = mx.sym.load(_fixture_path("mobilenet0.25-symbol.json"))
    assert ours.list_arguments() == ref.list_arguments()
    assert ours.list_auxiliary_states() == ref.list_auxiliary_states()
    assert _arg_aux_shapes(ours, x.shape) == _arg_aux_shapes(ref, x.shape)
    with open(sym_file) as f, open(_fixture_path("mobilenet0.25-symbol.json")) as g:
        assert [(n["op"], n["name"]) for n in json.load(f)["nodes"]] == \
               [(n["op"], n["name"]) for n in json.load(g)["nodes"]]

    net.load_parameters(_fixture_path("mobilenet0.25-0000.params"))       # arg:/aux: keys, as MXNet saves
    np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-4, atol=1e-5)
    with mx.name.NameManager():
        fresh = vision.mobilenet0_25()
    fresh.initialize()
    fresh.load_dict(mx.nd.load(_fixture_path("mobilenet0.25-0000.params")))
    np.testing.assert_allclose(fresh(x).asnumpy(), expected, rtol=1e-4, atol=1e-5)


def test_get_model_names_and_pretrained_error():
    assert len(vision.MODELS) == 34
    with pytest.raises(ValueError, match="not supported"):
        vision.get_model("resnet19_v1")
    with pytest.raises(mx.base.MXNetError, match="downloads nothing") as err:
        vision.get_model("squeezenet1.1", pretrained=True)
    assert "load_parameters" in str(err.value)


@pytest.mark.parametrize("name,prefix,first,count", [
    ("resnet18_v1", "resnetv10_", "resnetv10_conv0_weight", 102),
    ("resnet50_v2", "resnetv20_", "resnetv20_batchnorm0_gamma", 259),
    ("vgg11_bn", "vgg0_", "vgg0_conv0_weight", 54),
    ("alexnet", "alexnet0_", "alexnet0_conv0_weight", 16),
    ("squeezenet1.0", "squeezenet0_", "squeezenet0_conv0_weight", 52),
    ("densenet121", "densenet0_", "densenet0_conv0_weight", 606),
    ("inceptionv3", "inception30_", "inception30_conv0_weight", 472),
    ("mobilenetv2_1.0", "mobilenetv20_", "mobilenetv20_features_conv0_weight", 266),
])
def test_architectures_names_like_mxnet(name, prefix, first, count):
    with mx.name.NameManager():
        net = vision.get_model(name, classes=7)
    names = [p.name for p in net.collect_params().values()]
    assert net.prefix == prefix and names[0] == first and len(names) == count


def test_param_names_follow_mxnet_stage_prefixes():
    with mx.name.NameManager():
        names = {p.name for n in (vision.resnet18_v1(), vision.densenet121(), vision.inception_v3())
                 for p in n.collect_params().values()}
    for expected in ["resnetv10_stage1_conv0_weight", "resnetv10_stage2_batchnorm4_running_var",
                     "resnetv10_dense0_bias",
                     "densenet0_stage4_conv31_weight", "inception30_A1_conv0_weight", "inception30_E2_conv8_weight"]:
        assert expected in names, expected


@pytest.mark.parametrize("name,size", [("resnet18_v1", 64), ("resnet50_v2", 64), ("squeezenet1.1", 224),
                                       ("mobilenetv2_0.25", 64), ("densenet121", 224)])
def test_small_models_hybridized_equal_imperative(name, size):
    mx.random.seed(0)
    net = vision.get_model(name, classes=5)
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(np.random.RandomState(0).rand(2, 3, size, size).astype("float32"))
    a = net(x).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), a, rtol=1e-4, atol=1e-5)
    assert a.shape == (2, 5)
