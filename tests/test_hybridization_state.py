"""The public hybridization state of a block (``block.hybridization``, gluon/hybridization.py)."""
import pytest

import hybridlab as mx
from hybridlab import events
from hybridlab.base import MXNetError
from hybridlab.gluon import nn
from hybridlab.gluon.hybridization import HybridizationState, build, trial


def _mlp():
    net = nn.HybridSequential(prefix="mlp_")
    with net.name_scope():
        net.add(nn.Dense(4, activation="relu"), nn.Dense(2))
    net.initialize()
    return net


def test_state_before_and_after_the_first_call():
    net = _mlp()
    state = net.hybridization
    assert isinstance(state, HybridizationState) and net.hybridization is state
    assert not state.active and state.graph is None and state.inputs is None and state.cached_op is None
    assert state.signatures == [] and state.pipeline == [] and len(state.history) == 0
    assert state.program() is None and state.backward_plan() is None and state.memory_plan() is None
    net.hybridize(static_alloc=True)
    assert state.active and state.flags[:2] == [("static_alloc", True), ("static_shape", False)]
    net(mx.nd.ones((3, 5)))
    assert [v.name for v in state.inputs] == ["data"] and isinstance(state.graph, mx.sym.Symbol)
    assert state.cached_op is net.cached_op and net.rebuild_history is state.history
    assert [(s.shapes[0], s.training) for s in state.signatures] == [((3, 5), False)]
    assert [name for name, _ in state.pipeline][-1] == "inplace"
    assert "def forward(data" in state.program()
    assert state.memory_plan() is not None                 # static_alloc: the predict program is planned
    net(mx.nd.ones((6, 5)))
    assert [s.shapes[0] for s in state.signatures] == [(3, 5), (6, 5)]
    assert [r.reason for r in state.history] == ["first call", "new input signature"]
    assert state.program(signature=0) != state.program(signature=1)
    assert "2 signature(s), 2 build(s)" in repr(state)


def test_backward_programs_after_a_recorded_call():
    net = _mlp()
    net.hybridize()
    x = mx.nd.ones((2, 5))
    state = net.hybridization
    net(x)
    assert state.program("backward") is None and state.backward_plan() is None
    with mx.autograd.record():
        y = net(x)
    y.backward()
    plan = state.backward_plan()
    assert plan is not None and plan.symbol is not None
    assert "def backward(" in state.program("backward") and state.program("train_forward")
    with pytest.raises(mx.MXNetError, match="kind expected one of forward, train_forward, backward"):
        state.program("sideways")


def test_turning_off_and_invalidating_drop_the_graph():
    net = _mlp()
    net.hybridize()
    net(mx.nd.ones((1, 5)))
    state = net.hybridization
    net.hybridize(active=False)
    assert not state.active and state.graph is None and state.signatures == []
    assert len(state.history) == 1           # the history stays
    net.hybridize()
    net(mx.nd.ones((1, 5)))
    assert state.history[-1].reason == "hybridized again"


def test_symbol_block_keeps_its_graph():
    data = mx.sym.var("data")
    out = mx.sym.relu(mx.sym.FullyConnected(data, num_hidden=3, name="fc"), name="act")
    net = mx.gluon.SymbolBlock(out, data)
    net.initialize()
    state = net.hybridization
    assert state.graph is out and [v.name for v in state.inputs] == ["data"]
    net(mx.nd.ones((2, 4)))
    net.cast("float64")
    assert state.graph is out and state.cached_op is None


def test_cache_built_events_carry_data_not_json():
    net = _mlp()
    net.hybridize()
    got = []
    with events.subscribe("cache_built", got.append):
        net(mx.nd.ones((3, 5)))
    e = got[0]
    assert e["graph"] is net.hybridization.graph and e["inputs"] == ["data"]
    assert e["shapes"] == {"data": (3, 5)} and str(e["dtypes"]["data"]) == "float32"
    assert e["block"] == net.name and e["block_id"] == id(net) and e["history"] == 0
    assert e["reason"] == "first call" and "(3, 5) float32" in e["signature"]


def test_trial_and_build_leave_the_block_as_it_was():
    net = _mlp()
    net.hybridize()
    x = mx.nd.ones((2, 5))
    net(x)
    state, cop = net.hybridization, net.cached_op
    name = net.name
    with trial(net, "scratch"):
        assert net.name == "scratch" and net.hybridization is not state
        net.hybridize(static_alloc=True)
        build(net, x)
        assert net.hybridization.cached_op is not None and net.hybridization.signatures == []
        net(x)
    assert net.hybridization is state and net.cached_op is cop and net.name == name
    assert [r.reason for r in state.history] == ["first call"]
    net.hybridize(active=False)
    with pytest.raises(MXNetError, match="expected a hybridized block"):
        build(net, x)
