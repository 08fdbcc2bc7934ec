"""Parameter files saved by real MXNet 1.9.1's Gluon load here and give MXNet's outputs, and ours
load there: recurrent layers (whose files name their parameters after the unfused cells,
``_unfused.0.l_cell.i2h_weight``) and the model zoo's MobileNetV2 (whose first bottleneck has its
expansion conv). MXNet makes the files during the test (``real_mxnet``)."""
import json

import numpy as np
import pytest

import hybridlab as mx
from hybridlab import gluon

import real_mxnet

_MXNET_SIDE = r"""
import json, sys, numpy as np, mxnet as mx
spec, out_dir = json.loads(sys.argv[1]), sys.argv[2]
mx.random.seed(0)
if spec["kind"] == "zoo":
    net = mx.gluon.model_zoo.vision.get_model(spec["name"])
else:
    net = mx.gluon.nn.HybridSequential()
    net.add(getattr(mx.gluon.rnn, spec["name"])(**spec["kwargs"]), mx.gluon.nn.Dense(2, flatten=False))
x = mx.nd.array(np.load(out_dir + "/x.npy"))
if spec.get("load"):
    net.load_parameters(out_dir + "/ours.params")
else:
    net.initialize(mx.init.Xavier())
    net(x)
    net.save_parameters(out_dir + "/theirs.params")
np.save(out_dir + "/theirs_out.npy", net(x).asnumpy())
print(json.dumps(sorted(mx.nd.load(out_dir + ("/ours.params" if spec.get("load") else "/theirs.params")))))
"""

_RECURRENT = [("LSTM", {"hidden_size": 5, "num_layers": 2, "bidirectional": True}),
              ("GRU", {"hidden_size": 4, "num_layers": 2}),
              ("LSTM", {"hidden_size": 6, "projection_size": 3}),
              ("RNN", {"hidden_size": 3, "activation": "tanh", "bidirectional": True})]


def _ours(spec):
    if spec["kind"] == "zoo":
        return gluon.model_zoo.vision.get_model(spec["name"])
    net = gluon.nn.HybridSequential()
    net.add(getattr(gluon.rnn, spec["name"])(**spec["kwargs"]), gluon.nn.Dense(2, flatten=False))
    return net


@real_mxnet.needs_mxnet
@pytest.mark.parametrize("name, kwargs", _RECURRENT, ids=[f"{n}-{i}" for i, (n, _) in enumerate(_RECURRENT)])
def test_recurrent_layers_load_mxnets_files_and_mxnet_loads_ours(tmp_path, name, kwargs):
    spec = {"kind": "rnn", "name": name, "kwargs": kwargs}
    x = np.random.RandomState(1).randn(4, 2, 3).astype(np.float32)      # TNC
    np.save(tmp_path / "x.npy", x)
    their_keys = json.loads(real_mxnet.run(_MXNET_SIDE, json.dumps(spec), tmp_path))
    assert any(k.startswith("0._unfused.0.") for k in their_keys)
    net = _ours(spec)
    net.load_parameters(str(tmp_path / "theirs.params"))
    ours_out = net(mx.nd.array(x)).asnumpy()
    np.testing.assert_allclose(ours_out, np.load(tmp_path / "theirs_out.npy"), rtol=1e-5, atol=1e-6)
    net.hybridize()
    np.testing.assert_allclose(net(mx.nd.array(x)).asnumpy(), ours_out, rtol=1e-5, atol=1e-6)
    net.save_parameters(str(tmp_path / "ours.params"))
    assert sorted(mx.nd.load(str(tmp_path / "ours.params"))) == their_keys      # MXNet's names, not ours
    real_mxnet.run(_MXNET_SIDE, json.dumps(dict(spec, load=True)), tmp_path)
    np.testing.assert_allclose(np.load(tmp_path / "theirs_out.npy"), ours_out, rtol=1e-5, atol=1e-6)


@real_mxnet.needs_mxnet
def test_mobilenetv2_loads_mxnets_saved_parameters_and_matches_its_output(tmp_path):
    spec = {"kind": "zoo", "name": "mobilenetv2_1.0"}
    x = np.random.RandomState(2).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    real_mxnet.run(_MXNET_SIDE, json.dumps(spec), tmp_path)
    net = _ours(spec)
    net.load_parameters(str(tmp_path / "theirs.params"))
    net.hybridize()
    np.testing.assert_allclose(net(mx.nd.array(x)).asnumpy(), np.load(tmp_path / "theirs_out.npy"),
                               rtol=1e-4, atol=1e-5)
