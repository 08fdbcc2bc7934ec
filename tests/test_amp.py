"""mx.contrib.amp: the graphs ``convert_symbol`` writes (recorded from real MXNet 1.9.1 with
``tojson(remove_amp_cast=False)``), float16 models close to their float32 originals, amp_multicast's
dtype rules, dynamic loss scaling and the Trainer skipping overflowing steps."""
import json

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.base import MXNetError
from hybridlab.contrib.amp import amp
from hybridlab.contrib.amp.loss_scaler import LossScaler


def _nodes(sym):
    js = json.loads(sym.tojson(remove_amp_cast=False))
    return [(n["op"], n["name"], n.get("attrs", {}), n["inputs"]) for n in js["nodes"]], js["heads"]


def _fc_softmax():
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=4, name="fc")
    return mx.sym.softmax(fc, name="sm")


# recorded from MXNet 1.9.1: amp.convert_symbol(softmax(FullyConnected(data))).tojson(remove_amp_cast=False)
FC_SOFTMAX = [
    ("null", "data", {}, []),
    ("amp_cast", "data_amp_cast_float16", {"dtype": "float16"}, [[0, 0, 0]]),
    ("null", "fc_weight", {"num_hidden": "4"}, []),
    ("amp_cast", "fc_weight_amp_cast_float16", {"dtype": "float16"}, [[2, 0, 0]]),
    ("null", "fc_bias", {"num_hidden": "4"}, []),
    ("amp_cast", "fc_bias_amp_cast_float16", {"dtype": "float16"}, [[4, 0, 0]]),
    ("FullyConnected", "fc", {"num_hidden": "4"}, [[1, 0, 0], [3, 0, 0], [5, 0, 0]]),
    ("amp_cast", "fc_output_amp_cast_float32", {"dtype": "float32"}, [[6, 0, 0]]),
    ("softmax", "sm", {}, [[7, 0, 0]]),
]

# relu(FullyConnected(data) + b): the sum's inputs go through one amp_multicast, the output is cast back
FC_ADD_RELU = [
    ("null", "data", {}, []),
    ("amp_cast", "data_amp_cast_float16", {"dtype": "float16"}, [[0, 0, 0]]),
    ("null", "fc1_weight", {"num_hidden": "4"}, []),
    ("amp_cast", "fc1_weight_amp_cast_float16", {"dtype": "float16"}, [[2, 0, 0]]),
    ("null", "fc1_bias", {"num_hidden": "4"}, []),
    ("amp_cast", "fc1_bias_amp_cast_float16", {"dtype": "float16"}, [[4, 0, 0]]),
    ("FullyConnected", "fc1", {"num_hidden": "4"}, [[1, 0, 0], [3, 0, 0], [5, 0, 0]]),
    ("null", "b", {}, []),
    ("amp_multicast", "fc1_output_amp_multicast", {"num_outputs": "2"}, [[6, 0, 0], [7, 0, 0]]),
    ("elemwise_add", "_plus0", {}, [[8, 0, 0], [8, 1, 0]]),
    ("relu", "r", {}, [[9, 0, 0]]),
    ("amp_cast", "r_0_amp_cast_float32", {"dtype": "float32"}, [[10, 0, 0]]),
]

# data_names=['data'], cast_optional_params=True: the weights are stored in float16 instead of cast
FC_OPTIONAL = [
    ("null", "data", {}, []),
    ("amp_cast", "data_amp_cast_float16", {"dtype": "float16"}, [[0, 0, 0]]),
    ("null", "fc_weight", {"__dtype__": "2", "num_hidden": "3"}, []),
    ("null", "fc_bias", {"__dtype__": "2", "num_hidden": "3"}, []),
    ("FullyConnected", "fc", {"num_hidden": "3"}, [[1, 0, 0], [2, 0, 0], [3, 0, 0]]),
    ("amp_cast", "fc_output_amp_cast_float32", {"dtype": "float32"}, [[4, 0, 0]]),
]


def test_convert_symbol_puts_casts_where_mxnet_does():
    out = amp.convert_symbol(_fc_softmax())
    nodes, heads = _nodes(out)
    assert nodes == FC_SOFTMAX and heads == [[8, 0, 0]]
    assert out.list_outputs() == ["sm_output"]
    assert out.list_arguments() == ["data", "fc_weight", "fc_bias"]
    # tojson() drops the casts by default (MXNet's remove_amp_cast=True)
    assert "amp_cast" not in out.tojson()


def test_convert_symbol_multicast_and_output_cast():
    with mx.name.NameManager():       # the '+' node is _plus0, as in a fresh MXNet process
        s = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=4, name="fc1") + mx.sym.var("b")
    out = amp.convert_symbol(mx.sym.relu(s, name="r"))
    assert _nodes(out)[0] == FC_ADD_RELU
    assert out.list_outputs() == ["r_0_amp_cast_float32_output"]


def test_convert_symbol_cast_optional_params_and_exclusion():
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    assert _nodes(amp.convert_symbol(fc, data_names=["data"], cast_optional_params=True))[0] == FC_OPTIONAL
    nodes, _ = _nodes(amp.convert_symbol(_fc_softmax(), excluded_sym_names=["fc"]))
    assert [n[0] for n in nodes] == ["null", "null", "null", "FullyConnected", "softmax"]
    # user lists: softmax in float16, FullyConnected in float32
    out = amp.convert_symbol(_fc_softmax(), target_dtype_ops=["softmax"], fp32_ops=["FullyConnected"])
    assert [n[1] for n in _nodes(out)[0] if n[0] == "amp_cast"] == ["fc_output_amp_cast_float16",
                                                                   "sm_output_amp_cast_float32"]


def test_convert_symbol_refuses_bad_lists_and_target_dtypes():
    with pytest.raises(MXNetError, match="two or more lists"):
        amp.convert_symbol(_fc_softmax(), target_dtype_ops=["softmax"])
    with pytest.raises(MXNetError, match="float16 and bfloat16"):
        amp.convert_symbol(_fc_softmax(), target_dtype="float64")
    with pytest.raises(MXNetError, match="float16 and bfloat16"):
        amp.init(target_dtype="int8")


def test_converted_symbol_and_model_compute_close_to_float32():
    rng = np.random.default_rng(0)
    args = {"data": mx.nd.array(rng.standard_normal((5, 8))), "fc_weight": mx.nd.array(rng.standard_normal((4, 8)) * 0.3),
            "fc_bias": mx.nd.array(rng.standard_normal(4))}
    sym = _fc_softmax()
    ref = sym.eval(ctx=mx.cpu(), **args)[0].asnumpy()
    got = amp.convert_symbol(sym).eval(ctx=mx.cpu(), **args)[0]
    assert got.dtype == np.float32
    np.testing.assert_allclose(got.asnumpy(), ref, atol=2e-3)
    params = {k: v for k, v in args.items() if k != "data"}
    sym16, arg16, _ = amp.convert_model(sym, dict(params), {}, cast_optional_params=True)
    assert arg16["fc_weight"].dtype == np.float16 and arg16["fc_bias"].dtype == np.float16
    out = sym16.eval(ctx=mx.cpu(), data=args["data"], **arg16)[0]
    np.testing.assert_allclose(out.asnumpy(), ref, atol=2e-3)


def test_convert_hybrid_block_values_close_to_float32():
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(16, activation="relu", in_units=8), mx.gluon.nn.Dense(4, in_units=16))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    x = mx.nd.array(np.random.default_rng(1).standard_normal((3, 8)))
    ref = net(x).asnumpy()
    net16 = amp.convert_hybrid_block(net, ctx=mx.cpu())
    assert isinstance(net16, mx.gluon.SymbolBlock)
    y = net16(x)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.asnumpy(), ref, rtol=1e-2, atol=1e-2)
    sym, params = net16.export(None, remove_amp_cast=False)
    assert "amp_cast" in {n.op_name for n in sym._nodes()}
    with pytest.raises(RuntimeError, match="hybridize"):
        fresh = mx.gluon.nn.Dense(2, in_units=2)
        fresh.initialize()
        amp.convert_hybrid_block(fresh)


@pytest.mark.parametrize("dtypes, narrow, expected", [
    (("float16", "float32"), False, ("float32", "float32")),
    (("float16", "float32"), True, ("float16", "float16")),
    (("int32", "float16"), False, ("int32", "int32")),
    (("int32", "float16"), True, ("int32", "float16")),
    (("float64", "float16"), False, ("float64", "float64")),
    (("float64", "float16"), True, ("float64", "float16")),
    (("float16", "float64", "float32"), False, ("float32", "float64", "float32")),
    (("uint8", "float32", "float16"), False, ("uint8", "float32", "float32")),
])
def test_amp_multicast_dtypes_as_mxnet(dtypes, narrow, expected):
    """Recorded from MXNet 1.9.1 (mx.nd.amp_multicast), and the same through shape/type inference."""
    outs = mx.nd.amp_multicast(*[mx.nd.ones((2,), dtype=d) for d in dtypes], num_outputs=len(dtypes),
                               cast_narrow=narrow)
    assert tuple(np.dtype(o.dtype).name for o in outs) == expected
    vs = [mx.sym.var(f"v{i}") for i in range(len(dtypes))]
    s = mx.sym.amp_multicast(*vs, num_outputs=len(dtypes), cast_narrow=narrow)
    _, out_types, _ = s.infer_type(**{f"v{i}": d for i, d in enumerate(dtypes)})
    assert tuple(np.dtype(t).name for t in out_types) == expected


def test_amp_cast_leaves_float64_and_integers():
    assert [np.dtype(mx.nd.amp_cast(mx.nd.ones(2, dtype=d), dtype="float16").dtype).name
            for d in ("float16", "float32", "float64", "int32")] == ["float16", "float16", "float64", "int32"]


def _param(value):
    p = mx.gluon.Parameter("w", shape=(2,))
    p.initialize()
    p.grad()[:] = value
    return p


def test_loss_scaler_halves_on_overflow_and_grows_after_scale_seq_len():
    s = LossScaler()
    assert s.loss_scale == 2.0 ** 16 and s._scale_seq_len == 2000
    bad, good = _param(float("inf")), _param(1.0)
    assert s.has_overflow([good, bad]) is True
    assert s.has_overflow([good]) is False and s.loss_scale == 2.0 ** 15   # halved (one step later, as MXNet)
    for _ in range(1998):
        assert not s.has_overflow([good])
    assert s.loss_scale == 2.0 ** 15
    s.has_overflow([good])          # the 2000th clean step in a row
    s.has_overflow([good])
    assert s.loss_scale == 2.0 ** 16
    nan = _param(float("nan"))
    s.has_overflow([nan])
    s.has_overflow([good])
    assert s.loss_scale == 2.0 ** 15


@pytest.fixture
def amp_on():
    amp.init()
    yield
    amp._deinit()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")     # the overflowing step computes with inf
def test_init_casts_imperative_ops_and_trainer_skips_overflow(amp_on):
    x, w, b = mx.nd.ones((2, 3)), mx.nd.ones((4, 3)), mx.nd.zeros(4)
    assert mx.nd.FullyConnected(x, w, b, num_hidden=4).dtype == np.float16
    assert mx.nd.softmax(mx.nd.ones((2, 2), dtype="float16")).dtype == np.float32
    net = mx.gluon.nn.Dense(2, in_units=3)
    net.initialize()
    tr = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    amp.init_trainer(tr)
    before = net.weight.data().asnumpy().copy()
    with mx.autograd.record():
        loss = net(x).astype("float32").sum()
        with amp.scale_loss(loss, tr) as scaled:
            scaled.backward()
    assert tr._scale == 1.0 / 2 ** 16
    net.weight.grad()[:] = float("inf")
    tr.step(1)
    np.testing.assert_array_equal(net.weight.data().asnumpy(), before)   # skipped
    with mx.autograd.record():      # small enough that 2**16 times its gradient fits in float16
        loss = (net(x).astype("float32") * 1e-3).sum()
        with amp.scale_loss(loss, tr) as scaled:
            scaled.backward()
    amp.unscale(tr)
    assert tr._scale == 1.0
    np.testing.assert_allclose(net.weight.grad().asnumpy().astype(np.float32), np.full((2, 3), 2e-3), rtol=1e-2)
    tr.step(1)
    assert not np.array_equal(net.weight.data().asnumpy(), before)


def test_deinit_restores_the_functions():
    amp.init()
    amp._deinit()
    assert mx.nd.FullyConnected(mx.nd.ones((2, 3)), mx.nd.ones((4, 3)), mx.nd.zeros(4), num_hidden=4).dtype == np.float32
    with pytest.raises(MXNetError, match="amp.init"):
        amp.init_trainer(mx.gluon.Trainer(mx.gluon.nn.Dense(1, in_units=1).collect_params(), "sgd"))


def test_op_lists():
    assert set(amp.list_lp16_ops("float16")) >= {"FullyConnected", "Convolution", "Deconvolution", "RNN"}
    assert {"softmax", "LayerNorm", "sum", "mean", "norm"} <= set(amp.list_fp32_ops("float16"))
    assert {"elemwise_add", "broadcast_mul", "Concat", "dot"} <= set(amp.list_widest_type_cast("float16"))
    assert ("Activation", "act_type", ["softrelu"]) in amp.list_conditional_fp32_ops("float16")
    from hybridlab.contrib.amp.lists import symbol_fp16
    lists = [symbol_fp16.FP16_FUNCS, symbol_fp16.FP16_FP32_FUNCS, symbol_fp16.FP32_FUNCS, symbol_fp16.WIDEST_TYPE_CASTS]
    seen = [n for lst in lists for n in lst]
    assert len(seen) == len(set(seen)), "an op in two lists"
