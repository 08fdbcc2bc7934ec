"""Parameter, Constant, ParameterDict and the mx.init initializers."""
import json
import warnings

import numpy as np
import pytest

import hybridlab as mx
from hybridlab import gluon


# ---- Parameter ----------------------------------------------------------------------------------
def test_initialize_data_grad_and_devices():
    w = gluon.Parameter("fc_weight", shape=(3, 4), init=mx.init.One())
    w.initialize()
    assert w.data().shape == (3, 4) and w.data().asnumpy().sum() == 12
    assert w.grad().shape == (3, 4) and w.grad().asnumpy().sum() == 0
    assert w.list_device() == [mx.cpu()]
    assert len(w.list_data()) == 1 and len(w.list_grad()) == 1
    assert repr(w) == "Parameter fc_weight (shape=(3, 4), dtype=float32)"
    with pytest.warns(UserWarning, match="already initialized"):
        w.initialize()
    w.initialize(mx.init.Zero(), force_reinit=True)
    assert w.data().asnumpy().sum() == 0


def test_init_precedence_own_init_then_global():
    own = gluon.Parameter("a_weight", shape=(2,), init="ones")
    plain = gluon.Parameter("b_weight", shape=(2,))
    own.initialize(default_init=mx.init.Constant(5))
    plain.initialize(default_init=mx.init.Constant(5))
    assert own.data().asnumpy().tolist() == [1, 1]
    assert plain.data().asnumpy().tolist() == [5, 5]
    explicit = gluon.Parameter("c_weight", shape=(2,), init="ones")
    explicit.initialize(init=mx.init.Zero())     # init= overrides the parameter's own
    assert explicit.data().asnumpy().tolist() == [0, 0]


def test_gradient_flows_into_parameter_grad():
    w = gluon.Parameter("w", shape=(2, 3), init=mx.init.One())
    w.initialize()
    x = mx.nd.array([[1.0, 2.0, 3.0]])
    with mx.autograd.record():
        y = mx.nd.FullyConnected(x, w.data(), num_hidden=2, no_bias=True).sum()
    y.backward()
    np.testing.assert_allclose(w.grad().asnumpy(), [[1, 2, 3], [1, 2, 3]])
    w.zero_grad()
    assert w.grad().asnumpy().sum() == 0


def test_grad_req_add_accumulates_and_null_has_no_grad():
    w = gluon.Parameter("w", shape=(2,), init=mx.init.One(), grad_req="add")
    w.initialize()
    for _ in range(2):
        with mx.autograd.record():
            y = (w.data() * 3).sum()
        y.backward()
    assert w.grad().asnumpy().tolist() == [6, 6]
    w.grad_req = "null"
    with pytest.raises(RuntimeError, match="because grad_req='null'"):
        w.grad()
    with pytest.raises(AssertionError, match="grad_req must be one of"):
        w.grad_req = "sometimes"


def test_deferred_init_waits_for_the_shape():
    w = gluon.Parameter("weight", shape=(4, 0), allow_deferred_init=True)
    w.initialize()
    with pytest.raises(gluon.DeferredInitializationError, match="Parameter 'weight' has not been initialized yet"):
        w.data()
    assert w.list_device() == [mx.cpu()]
    w.shape = (4, 7)
    w._finish_deferred_init()
    assert w.data().shape == (4, 7)
    with pytest.raises(AssertionError, match=r"Expected shape \(4, 8\) is incompatible with given shape \(4, 7\)"):
        w.shape = (4, 8)


def test_unknown_shape_without_deferral_and_uninitialized_errors():
    with pytest.raises(ValueError, match=r"Cannot initialize Parameter 'w' because it has invalid shape: \(2, 0\)"):
        gluon.Parameter("w", shape=(2, 0)).initialize()
    with pytest.raises(RuntimeError, match="Parameter 'v' has not been initialized"):
        gluon.Parameter("v", shape=(2,)).data()


def test_set_data_cast_reset_device():
    w = gluon.Parameter("w", shape=(2, 2), init=mx.init.Zero())
    w.initialize()
    w.set_data(mx.nd.ones((2, 2)))
    assert w.data().asnumpy().sum() == 4
    w.cast("float64")
    assert w.data().dtype == np.float64 and w.grad().dtype == np.float64 and w.dtype == np.float64
    w.reset_device(mx.cpu(1))
    assert w.data().device == mx.cpu(1) and w.data().asnumpy().sum() == 4
    with pytest.raises(RuntimeError, match=r"was not initialized on device cpu\(0\)"):
        w.data(mx.cpu(0))
    deferred = gluon.Parameter("d", shape=(0,), allow_deferred_init=True)
    deferred.initialize()
    deferred.set_data(mx.nd.array([1.0, 2.0]))       # before deferred init: becomes the starting value
    deferred._finish_deferred_init()
    assert deferred.data().asnumpy().tolist() == [1, 2]


def test_var_carries_mxnet_attributes():
    w = gluon.Parameter("dense0_weight", shape=(256, 0), lr_mult=2.0, init=mx.init.Xavier())
    v = w.var()
    assert v.name == "dense0_weight"
    attrs = v.list_attr()
    assert attrs["__shape__"] == "(256, 0)" and attrs["__dtype__"] == "0"
    assert attrs["__lr_mult__"] == "2.0" and attrs["__wd_mult__"] == "1.0" and attrs["__storage_type__"] == "0"
    assert json.loads(attrs["__init__"]) == ["xavier", {"rnd_type": "uniform", "factor_type": "avg", "magnitude": 3}]
    assert gluon.Parameter("b", shape=(2,), init="zeros").var().attr("__init__") == "zeros"
    assert gluon.Parameter("c", shape=(2,)).var().attr("__init__") is None


def test_constant_is_fixed():
    c = gluon.Constant([[1, 2], [3, 4]])
    c.initialize()
    assert c.data().asnumpy().tolist() == [[1, 2], [3, 4]]
    assert c.grad_req == "null"
    with pytest.warns(UserWarning, match="does not support grad_req other than"):
        c.grad_req = "write"
    assert c.grad_req == "null"


# ---- ParameterDict ------------------------------------------------------------------------------
def test_parameter_dict_get_shares_and_checks():
    params = gluon.ParameterDict("net_")
    w = params.get("weight", shape=(2, 0))
    assert w.name == "net_weight" and params.get("weight") is w
    assert params.get("weight", shape=(2, 5)) is w and w.shape == (2, 5)     # unknown dims filled
    with pytest.raises(AssertionError, match="desired '\\(3, 5\\)' vs stored '\\(2, 5\\)'"):
        params.get("weight", shape=(3, 5))
    shared = gluon.ParameterDict("net_", shared=params)
    assert shared.get("weight") is w
    const = params.get_constant("c", [1.0, 2.0])
    assert isinstance(const, gluon.Constant) and params.get_constant("c") is const
    assert "net_weight" in repr(params) and repr(params).startswith("net_ (")


def test_parameter_dict_save_load(tmp_path):
    params = gluon.ParameterDict("m_")
    params.get("weight", shape=(2, 3), init=mx.init.One())
    params.get("bias", shape=(2,), init=mx.init.Zero())
    params.initialize()
    path = str(tmp_path / "p.params")
    params.save(path, strip_prefix="m_")
    assert sorted(mx.nd.load(path)) == ["bias", "weight"]
    other = gluon.ParameterDict("m_")
    other.get("weight", shape=(2, 3))
    other.get("bias", shape=(2,))
    other.load(path, restore_prefix="m_")
    assert other["m_weight"].data().asnumpy().sum() == 6
    missing = gluon.ParameterDict("m_")
    missing.get("other", shape=(1,))
    with pytest.raises(AssertionError, match="Parameter 'other' is missing in file"):
        missing.load(path, restore_prefix="m_")


# ---- initializers -------------------------------------------------------------------------------
def test_default_by_name():
    init = mx.init.Uniform(0.5)
    for name, expected in [("fc_bias", 0), ("bn_beta", 0), ("bn_gamma", 1), ("bn_running_mean", 0),
                           ("bn_running_var", 1), ("bn_moving_mean", 0), ("bn_moving_var", 1)]:
        arr = mx.nd.full((3,), 7.0)
        init(mx.init.InitDesc(name), arr)
        assert arr.asnumpy().tolist() == [expected] * 3, name
    with pytest.raises(ValueError, match="Unknown initialization pattern for fc_stuff"):
        init(mx.init.InitDesc("fc_stuff"), mx.nd.zeros((1,)))
    arr = mx.nd.zeros((3, 3))
    init(mx.init.InitDesc("fc_bias", {"__init__": "ones"}), arr)    # __init__ wins over the name
    assert arr.asnumpy().sum() == 9


def test_seeding_is_reproducible():
    def draw():
        mx.random.seed(7)
        arr = mx.nd.zeros((20, 30))
        mx.init.Xavier()(mx.init.InitDesc("w_weight"), arr)
        return arr.asnumpy()
    np.testing.assert_array_equal(draw(), draw())


@pytest.mark.parametrize("rnd_type, factor_type, magnitude", [("uniform", "avg", 3), ("gaussian", "in", 2),
                                                              ("uniform", "out", 1)])
def test_xavier_scale(rnd_type, factor_type, magnitude):
    arr = mx.nd.zeros((200, 100, 3, 3))
    mx.init.Xavier(rnd_type, factor_type, magnitude)(mx.init.InitDesc("w_weight"), arr)
    fan_in, fan_out = 100 * 9, 200 * 9
    factor = {"avg": (fan_in + fan_out) / 2, "in": fan_in, "out": fan_out}[factor_type]
    scale = np.sqrt(magnitude / factor)
    values = arr.asnumpy()
    if rnd_type == "uniform":
        assert np.abs(values).max() <= scale and np.abs(values).max() > 0.95 * scale
    else:
        assert abs(values.std() - scale) < 0.05 * scale
    with pytest.raises(ValueError, match="cannot be applied to vector"):
        mx.init.Xavier()(mx.init.InitDesc("v_weight"), mx.nd.zeros((3,)))


def test_other_initializers():
    arr = mx.nd.zeros((2000,))
    mx.init.Normal(0.5)(mx.init.InitDesc("x_weight"), arr)
    assert abs(arr.asnumpy().std() - 0.5) < 0.05
    arr = mx.nd.zeros((4, 6))
    mx.init.Orthogonal(scale=1.0)(mx.init.InitDesc("x_weight"), arr)
    m = arr.asnumpy()
    np.testing.assert_allclose(m @ m.T, np.eye(4), atol=1e-5)
    arr = mx.nd.zeros((100, 100))
    mx.init.MSRAPrelu(slope=0.0)(mx.init.InitDesc("x_weight"), arr)
    assert abs(arr.asnumpy().std() - np.sqrt(2.0 / 100)) < 0.02
    assert json.loads(mx.init.MSRAPrelu().dumps()) == ["msraprelu", {"factor_type": "avg", "slope": 0.25}]
    arr = mx.nd.zeros((2, 2))
    mx.init.Constant(3.5)(mx.init.InitDesc("x_weight"), arr)
    assert arr.asnumpy().tolist() == [[3.5, 3.5], [3.5, 3.5]]


def test_mixed_and_create():
    init = mx.init.Mixed(["conv.*", ".*"], [mx.init.Constant(2), mx.init.One()])
    a, b, c = mx.nd.zeros((2,)), mx.nd.zeros((2,)), mx.nd.ones((2,))
    init("conv_weight", a)
    init("fc_weight", b)
    init("conv_bias", c)          # as in MXNet, the chosen initializer still applies its rule by name
    assert a.asnumpy().tolist() == [2, 2] and b.asnumpy().tolist() == [1, 1] and c.asnumpy().tolist() == [0, 0]
    with pytest.raises(ValueError, match="did not match any pattern"):
        mx.init.Mixed(["bias"], [mx.init.Zero()])("fc_weight", a)
    assert isinstance(mx.init.create("zeros"), mx.init.Zero)
    assert mx.init.create(mx.init.Xavier(magnitude=2).dumps()) == mx.init.Xavier(magnitude=2)
    with pytest.raises(ValueError, match="Cannot find initializer 'nope'"):
        mx.init.create("nope")
    assert mx.init is mx.initializer


def test_block_initialize_uses_global_init_and_keeps_bias_zero():
    net = gluon.nn.Dense(3, in_units=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        net.initialize(mx.init.Constant(0.5))
    assert net.weight.data().asnumpy().tolist() == [[0.5, 0.5]] * 3
    assert net.bias.data().asnumpy().tolist() == [0, 0, 0]


def test_private_grad_list_follows_grad_req_as_mxnet_1x():
    # 1.x code (and MXNet's own tests) read Parameter._grad to see whether gradients exist
    net = mx.gluon.nn.Dense(2, in_units=3)
    assert net.weight._grad is None                  # not initialised yet
    net.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    assert [g.context for g in net.weight._grad] == [mx.cpu(0), mx.cpu(1)]
    net.collect_params().setattr("grad_req", "null")
    assert net.weight._grad is None
    net.collect_params().setattr("grad_req", "write")
    assert net.weight._grad is not None
