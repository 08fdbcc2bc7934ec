"""bfloat16 (``ml_dtypes.bfloat16``, MXNet's type flag 12) on the CPU: the dtype accepted wherever MXNet
takes one, Cast truncating and amp_cast rounding as MXNet 1.9.1 does, .params files exchanged with
real MXNet, Convolution/FullyConnected computed with float32 accumulation, and mx.contrib.amp with
``target_dtype='bfloat16'``: the casts convert_symbol inserts (recorded from MXNet 1.9.1 with
``tojson(remove_amp_cast=False)``), converted models close to float32, and an amp.init training step."""
import json
import os

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.base import bfloat16, dtype_flag, dtype_from_flag
from hybridlab.contrib.amp import amp

DATA = os.path.join(os.path.dirname(__file__), "data")
MXNET_BF16 = np.dtype([("bfloat16", np.uint16)])      # MXNet 1.9.1's spelling of the dtype


def _bits(arr):
    return arr.asnumpy().view(np.uint16).ravel().tolist()


# ---- the dtype ------------------------------------------------------------------------------------
def test_ml_dtypes_is_imported_on_the_first_use_of_bfloat16():
    """``import hybridlab`` leaves ``ml_dtypes`` out (its import is about a second); the first bfloat16
    spelling, file or comparison that needs the dtype imports it, and everything then works."""
    import subprocess
    import sys
    code = ("import sys, numpy as np, hybridlab as mx\n"
            "print('ml_dtypes' in sys.modules)\n"
            "y = mx.nd.relu(mx.nd.array([1.0, -2.0])).asnumpy()\n"
            "print('ml_dtypes' in sys.modules)\n"
            "x = mx.nd.array([1.5, -2.0], dtype='bfloat16')\n"
            "print('ml_dtypes' in sys.modules, x.dtype, (x * 2).asnumpy().astype(np.float32).tolist(),\n"
            "      mx.base.bfloat16 == x.dtype, mx.base.dtype_flag(x.dtype))\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:3] == ["False", "False", "True bfloat16 [3.0, -4.0] True 12"]


@pytest.mark.parametrize("spelling", ["bfloat16", bfloat16, MXNET_BF16])
def test_bfloat16_accepted_wherever_a_dtype_is(spelling):
    assert mx.nd.array([1.5, 2.0], dtype=spelling).dtype == bfloat16
    assert mx.nd.zeros((2,), dtype=spelling).dtype == bfloat16
    assert mx.nd.ones((2,)).astype(spelling).dtype == bfloat16
    assert mx.nd.cast(mx.nd.ones((2,)), dtype=spelling).dtype == bfloat16
    assert mx.nd.amp_cast(mx.nd.ones((2,)), dtype=spelling).dtype == bfloat16
    assert mx.np.zeros((2,), dtype=spelling).dtype == bfloat16
    assert mx.np.array([1, 2], dtype=spelling).dtype == bfloat16
    v = mx.sym.var("x", dtype=spelling)
    assert v.attr("__dtype__") == "12"
    _, out_types, _ = mx.sym.relu(v).infer_type()
    assert out_types == [bfloat16]
    assert mx.sym.amp_cast(mx.sym.var("y"), dtype=spelling).infer_type(y="float32")[1] == [bfloat16]


def test_type_flag_12():
    assert dtype_from_flag(12) == bfloat16 and dtype_flag("bfloat16") == 12 and dtype_flag(MXNET_BF16) == 12


def test_cast_truncates_and_amp_cast_rounds_as_mxnet():
    # recorded from MXNet 1.9.1 (CPU): x.astype(bfloat16) / mx.nd.Cast keep the high 16 bits of the
    # float32 value, mx.nd.amp_cast rounds to nearest even
    x = mx.nd.array([1.005859375, 1.01171875, 1.00390625, -1.005859375, 65504, 3.4e38, float("inf"), float("nan")])
    truncated = [0x3f80, 0x3f81, 0x3f80, 0xbf80, 0x477f, 0x7f7f, 0x7f80, 0x7fc0]
    rounded = [0x3f81, 0x3f82, 0x3f80, 0xbf81, 0x4780, 0x7f80, 0x7f80, 0x7fc0]
    assert _bits(x.astype("bfloat16")) == truncated
    assert _bits(mx.nd.Cast(x, dtype="bfloat16")) == truncated
    assert _bits(mx.nd.amp_cast(x, dtype="bfloat16")) == rounded
    assert mx.nd.amp_cast(x.astype("bfloat16"), dtype="float32").dtype == np.float32


def test_amp_multicast_with_bfloat16():
    a, b = mx.nd.ones((2,), dtype="bfloat16"), mx.nd.ones((2,))
    assert [o.dtype for o in mx.nd.amp_multicast(a, b, num_outputs=2)] == [np.float32, np.float32]
    assert [o.dtype for o in mx.nd.amp_multicast(b, a, num_outputs=2, cast_narrow=True)] == [bfloat16, bfloat16]
    assert [o.dtype for o in mx.nd.amp_multicast(a, a, num_outputs=2)] == [bfloat16, bfloat16]


# ---- files ----------------------------------------------------------------------------------------
def test_mxnet_saved_bfloat16_file_loads_and_saves_back_byte_for_byte(tmp_path):
    # bf16_arrays.params: written by MXNet 1.9.1 with mx.nd.save from
    # {'arg:a': nd.array([[1, -2.5, 3.140625], [1e-3, 65504, -0.0078125]]).astype(bfloat16),
    #  'arg:w': nd.array(arange(6).reshape(2, 3) / 7).astype(bfloat16), 'aux:f': nd.array([0.5, 1.5])}
    path = os.path.join(DATA, "bf16_arrays.params")
    loaded = mx.nd.load(path)
    assert {k: v.dtype for k, v in loaded.items()} == {"arg:a": bfloat16, "arg:w": bfloat16, "aux:f": np.float32}
    assert _bits(loaded["arg:a"]) == [16256, 49184, 16457, 14979, 18303, 48128]
    np.testing.assert_array_equal(loaded["arg:a"].astype("float32").asnumpy(),
                                  [[1.0, -2.5, 3.140625], [0.00099945068359375, 65280.0, -0.0078125]])
    out = tmp_path / "again.params"
    mx.nd.save(str(out), loaded)
    with open(path, "rb") as f:
        assert out.read_bytes() == f.read()


def test_bfloat16_round_trips_through_save_load(tmp_path):
    x = mx.nd.array(np.random.default_rng(0).standard_normal((3, 4)), dtype="bfloat16")
    mx.nd.save(str(tmp_path / "x.params"), {"x": x, "y": x[0]})
    back = mx.nd.load(str(tmp_path / "x.params"))
    assert back["x"].dtype == bfloat16 and _bits(back["x"]) == _bits(x)
    assert _bits(back["y"]) == _bits(x[0])


# ---- computes ------------------------------------------------------------------------------------
def test_conv_and_fc_in_bfloat16_round_the_float32_result():
    rng = np.random.default_rng(2)
    x = mx.nd.array(rng.uniform(0, 1, (2, 3, 8, 8)), dtype="bfloat16")
    w = mx.nd.array(rng.uniform(-1, 1, (4, 3, 3, 3)), dtype="bfloat16")
    b = mx.nd.array(rng.uniform(-1, 1, (4,)), dtype="bfloat16")
    y = mx.nd.Convolution(x, w, b, kernel=(3, 3), num_filter=4, pad=(1, 1))
    ref = mx.nd.Convolution(x.astype("float32"), w.astype("float32"), b.astype("float32"), kernel=(3, 3),
                            num_filter=4, pad=(1, 1))
    assert y.dtype == bfloat16
    np.testing.assert_array_equal(y.asnumpy(), ref.asnumpy().astype(bfloat16))
    fw = mx.nd.array(rng.uniform(-1, 1, (5, 192)), dtype="bfloat16")
    f = mx.nd.FullyConnected(x, fw, num_hidden=5, no_bias=True)
    f_ref = mx.nd.FullyConnected(x.astype("float32"), fw.astype("float32"), num_hidden=5, no_bias=True)
    assert f.dtype == bfloat16
    np.testing.assert_array_equal(f.asnumpy(), f_ref.asnumpy().astype(bfloat16))
    for out in (mx.nd.Pooling(x, kernel=(2, 2), pool_type="max"), mx.nd.Pooling(x, kernel=(2, 2), pool_type="avg"),
                mx.nd.BatchNorm(x, mx.nd.ones(3), mx.nd.zeros(3), mx.nd.zeros(3), mx.nd.ones(3)),
                mx.nd.Activation(x, act_type="relu"), mx.nd.elemwise_add(x, x)):
        assert out.dtype == bfloat16


# ---- amp: converting models ----------------------------------------------------------------------
def _nodes(sym):
    js = json.loads(sym.tojson(remove_amp_cast=False))
    names = [n["name"] for n in js["nodes"]]
    return [(n["op"], n["name"], {k: v for k, v in n.get("attrs", {}).items() if k in ("dtype", "__dtype__")},
             [names[i[0]] for i in n["inputs"]]) for n in js["nodes"]]


def _small_cnn():
    data = mx.sym.var("data")
    c = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, name="conv0")
    b = mx.sym.BatchNorm(c, name="bn0")
    r = mx.sym.Activation(b, act_type="relu", name="relu0")
    p = mx.sym.Pooling(r, kernel=(2, 2), pool_type="max", name="pool0")
    c2 = mx.sym.Convolution(p, kernel=(3, 3), num_filter=4, pad=(1, 1), name="conv1")
    a = mx.sym.elemwise_add(c2, p, name="add0")
    f = mx.sym.FullyConnected(a, num_hidden=3, name="fc")
    return mx.sym.softmax(f, name="sm")


def _cast(name, dtype, src):
    return ("amp_cast", name, {"dtype": dtype}, [src])


# recorded from MXNet 1.9.1: amp.convert_symbol(_small_cnn(), target_dtype='bfloat16', data_names=['data'])
# .tojson(remove_amp_cast=False): BatchNorm, relu and pooling run in bfloat16 after the bfloat16
# convolution (their output dtype is inferred), so elemwise_add needs no amp_multicast
SMALL_CNN_BF16 = [
    ("null", "data", {}, []),
    _cast("data_amp_cast_bfloat16", "bfloat16", "data"),
    ("null", "conv0_weight", {"__dtype__": "0"}, []),
    _cast("conv0_weight_amp_cast_bfloat16", "bfloat16", "conv0_weight"),
    ("null", "conv0_bias", {"__dtype__": "0"}, []),
    _cast("conv0_bias_amp_cast_bfloat16", "bfloat16", "conv0_bias"),
    ("Convolution", "conv0", {}, ["data_amp_cast_bfloat16", "conv0_weight_amp_cast_bfloat16",
                                  "conv0_bias_amp_cast_bfloat16"]),
    ("null", "bn0_gamma", {"__dtype__": "0"}, []),
    ("null", "bn0_beta", {"__dtype__": "0"}, []),
    ("null", "bn0_moving_mean", {"__dtype__": "0"}, []),
    ("null", "bn0_moving_var", {"__dtype__": "0"}, []),
    ("BatchNorm", "bn0", {}, ["conv0", "bn0_gamma", "bn0_beta", "bn0_moving_mean", "bn0_moving_var"]),
    ("Activation", "relu0", {}, ["bn0"]),
    ("Pooling", "pool0", {}, ["relu0"]),
    ("null", "conv1_weight", {"__dtype__": "0"}, []),
    _cast("conv1_weight_amp_cast_bfloat16", "bfloat16", "conv1_weight"),
    ("null", "conv1_bias", {"__dtype__": "0"}, []),
    _cast("conv1_bias_amp_cast_bfloat16", "bfloat16", "conv1_bias"),
    ("Convolution", "conv1", {}, ["pool0", "conv1_weight_amp_cast_bfloat16", "conv1_bias_amp_cast_bfloat16"]),
    ("elemwise_add", "add0", {}, ["conv1", "pool0"]),
    ("null", "fc_weight", {"__dtype__": "0"}, []),
    _cast("fc_weight_amp_cast_bfloat16", "bfloat16", "fc_weight"),
    ("null", "fc_bias", {"__dtype__": "0"}, []),
    _cast("fc_bias_amp_cast_bfloat16", "bfloat16", "fc_bias"),
    ("FullyConnected", "fc", {}, ["add0", "fc_weight_amp_cast_bfloat16", "fc_bias_amp_cast_bfloat16"]),
    _cast("fc_output_amp_cast_float32", "float32", "fc"),
    ("softmax", "sm", {}, ["fc_output_amp_cast_float32"]),
]


def test_convert_symbol_bfloat16_puts_casts_where_mxnet_does():
    assert _nodes(amp.convert_symbol(_small_cnn(), target_dtype="bfloat16", data_names=["data"])) == SMALL_CNN_BF16
    # cast_optional_params (MXNet 1.9.1): the conv/fc parameters are stored in bfloat16 instead of cast,
    # BatchNorm's stay float32
    nodes = _nodes(amp.convert_symbol(_small_cnn(), target_dtype="bfloat16", data_names=["data"],
                                      cast_optional_params=True))
    stored = {n[1]: n[2]["__dtype__"] for n in nodes if n[0] == "null" and n[1] != "data"}
    assert stored == {"conv0_weight": "12", "conv0_bias": "12", "bn0_gamma": "0", "bn0_beta": "0",
                      "bn0_moving_mean": "0", "bn0_moving_var": "0", "conv1_weight": "12", "conv1_bias": "12",
                      "fc_weight": "12", "fc_bias": "12"}
    assert [n[1] for n in nodes if n[0] == "amp_cast"] == ["data_amp_cast_bfloat16", "fc_output_amp_cast_float32"]


def test_convert_symbol_bfloat16_multicast_and_casting_rules():
    # MXNet 1.9.1 (tests/python/mkl/test_contrib_amp.py::test_bf16_casting): which inputs end up bfloat16
    data = mx.sym.var("data")
    res = mx.sym.Group([mx.sym.amp_cast(data, dtype=MXNET_BF16), mx.sym.amp_cast(data, dtype="float32")])
    out = amp.convert_symbol(res, data_names=[], target_dtype="bfloat16", cast_optional_params=True)
    assert out.attr_dict()["data"]["__dtype__"] == "0"
    res = mx.sym.Group([mx.sym.amp_cast(data, dtype="bfloat16"), mx.sym.amp_cast(data, dtype="bfloat16")])
    out = amp.convert_symbol(res, data_names=[], target_dtype="bfloat16", cast_optional_params=True)
    assert out.attr_dict()["data"]["__dtype__"] == "12"
    d1, d2 = mx.sym.var("data", dtype="float32"), mx.sym.var("data2", dtype="bfloat16")
    out = amp.convert_symbol(mx.sym.amp_multicast(d1, d2, num_outputs=2), target_dtype="bfloat16",
                             cast_optional_params=True)
    assert out.attr_dict()["data"]["__dtype__"] == "12"
    # an op of the widest-type list with an input of unknown dtype gets an amp_multicast
    s = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=2, name="fc") + mx.sym.var("b")
    ops = [n[0] for n in _nodes(amp.convert_symbol(s, target_dtype="bfloat16"))]
    assert "amp_multicast" in ops


def test_convert_hybrid_block_bfloat16_close_to_float32():
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Conv2D(8, 3, padding=1, in_channels=3), mx.gluon.nn.BatchNorm(in_channels=8),
            mx.gluon.nn.Activation("relu"), mx.gluon.nn.MaxPool2D(), mx.gluon.nn.Flatten(),
            mx.gluon.nn.Dense(5, in_units=8 * 4 * 4))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    x = mx.nd.array(np.random.default_rng(3).uniform(-1, 1, (2, 3, 8, 8)))
    ref = net(x).asnumpy()
    bf = amp.convert_hybrid_block(net, target_dtype="bfloat16", ctx=mx.cpu())
    y = bf(x)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.asnumpy(), ref, rtol=5e-2, atol=5e-2)
    sym, _ = bf.export(None, remove_amp_cast=False)
    casts = {n.name: n.attrs["dtype"] for n in sym._nodes() if n.op_name == "amp_cast"}
    assert casts["data_amp_cast_bfloat16"] == "bfloat16"
    assert any(k.endswith("_output_amp_cast_float32") for k in casts)
    assert "amp_multicast" not in {n.op_name for n in sym._nodes()}
    # with cast_optional_params the conv and dense weights are stored in bfloat16, BatchNorm's in float32
    bf = amp.convert_hybrid_block(net, target_dtype="bfloat16", ctx=mx.cpu(), cast_optional_params=True)
    dtypes = {name: p.dtype for name, p in bf.collect_params().items()}
    assert {d for n, d in dtypes.items() if n.endswith("weight")} == {bfloat16}
    assert {d for n, d in dtypes.items() if "batchnorm" in n} == {np.dtype(np.float32)}
    np.testing.assert_allclose(bf(x).asnumpy(), ref, rtol=5e-2, atol=5e-2)


def test_op_lists_and_target_spellings():
    assert amp.list_lp16_ops("bfloat16") == amp.list_lp16_ops(MXNET_BF16)
    assert {"Convolution", "FullyConnected"} <= set(amp.list_lp16_ops("bfloat16"))
    assert amp.list_lp16_use_fp32_params("bfloat16")["BatchNorm"][0] == ""


# ---- amp: training ------------------------------------------------------------------------------
@pytest.fixture
def amp_bf16():
    amp.init(target_dtype="bfloat16")
    yield
    amp._deinit()


@pytest.mark.parametrize("hybridize", [False, True])
def test_init_bfloat16_training_step(amp_bf16, hybridize):
    assert mx.nd.FullyConnected(mx.nd.ones((2, 3)), mx.nd.ones((4, 3)), mx.nd.zeros(4), num_hidden=4).dtype == bfloat16
    assert mx.nd.softmax(mx.nd.ones((2, 2), dtype="bfloat16")).dtype == np.float32
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Conv2D(4, 3, in_channels=2), mx.gluon.nn.BatchNorm(in_channels=4),
            mx.gluon.nn.Activation("relu"), mx.gluon.nn.MaxPool2D(), mx.gluon.nn.Dense(3, in_units=36))
    net.initialize(mx.init.Xavier())
    if hybridize:
        net.hybridize()
    tr = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    amp.init_trainer(tr)
    x = mx.nd.array(np.random.default_rng(0).standard_normal((2, 2, 8, 8)))
    before = net[0].weight.data().asnumpy().copy()
    with mx.autograd.record():
        out = net(x)
        loss = mx.gluon.loss.SoftmaxCrossEntropyLoss()(out, mx.nd.array([0, 1]))
        with amp.scale_loss(loss, tr) as scaled:
            mx.autograd.backward(scaled)
    assert out.dtype == bfloat16 and loss.dtype == np.float32
    assert net[0].weight.grad().dtype == np.float32
    tr.step(2)
    after = net[0].weight.data().asnumpy()
    assert np.isfinite(after).all() and not np.array_equal(after, before)
