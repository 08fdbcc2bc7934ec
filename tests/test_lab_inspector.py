"""mx.lab.TensorInspector: per-op statistics in the kernel, history, sampling, the first NaN/Inf node,
hook removal. No timing asserts."""
import json

import numpy as np
import pytest

import hybridlab as mx
from hybridlab.gluon import nn
from hybridlab.lab.inspector import TensorInspector, tensor_stats


def mlp():
    net = nn.HybridSequential(prefix="mlp_")
    with net.name_scope():
        net.add(nn.Dense(16, activation="relu"), nn.Dense(2))
    net.initialize()
    net.hybridize()
    return net


def test_tensor_stats_values_and_sampling():
    a = np.arange(-5, 5, dtype=np.float32).reshape(2, 5)
    s = tensor_stats(a, bins=5)
    assert s["shape"] == [2, 5] and s["dtype"] == "float32" and s["min"] == -5 and s["max"] == 4
    assert s["mean"] == pytest.approx(-0.5) and s["std"] == pytest.approx(a.std())
    assert s["zeros"] == pytest.approx(0.1) and sum(s["hist"]["counts"]) == 10 and len(s["hist"]["counts"]) == 5
    assert np.array_equal(np.array(s["preview"]), a)
    big = np.ones((1000, 1000), dtype=np.float32)
    big[500, 500] = np.inf
    s = tensor_stats(big, sample=1000, preview=16)
    assert s["sampled"] and s["inf"] == 1 and s["nan"] == 0                   # exact although sampled
    assert len(s["preview"]) <= 16 and len(s["preview"][0]) <= 16
    assert tensor_stats(np.ones((2, 3, 4, 5)))["preview"] == [[1.0] * 5] * 4    # [0, 0] of a 4-D tensor
    assert tensor_stats(np.ones(3))["preview"] is None
    json.dumps(tensor_stats(np.array([np.nan, 1.0])), allow_nan=False)          # plain JSON


def test_every_call_records_each_node_and_keeps_history():
    net = mlp()
    ins = TensorInspector(net, every=1, history=3)
    for i in range(5):
        net(mx.nd.ones((4, 7)) * i)
    assert ins.inspected == 5 and ins.calls == 5
    assert [s["step"] for s in ins.steps] == [3, 4, 5]
    nodes = [n["node"] for n in ins.steps[-1]["nodes"]]
    assert nodes == ["mlp_dense0_fwd", "mlp_dense0_relu_fwd", "mlp_dense1_fwd"]
    relu = ins.steps[-1]["nodes"][1]
    assert relu["min"] >= 0 and relu["shape"] == [4, 16] and relu["op"] == "Activation"
    assert json.loads(ins.steps_json) == ins.steps
    ins.close()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_first_nonfinite_names_the_node_that_produced_it():
    class Log(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.relu(F.log(x, name="lg") * 2, name="act")

    net = Log(prefix="m_")
    net.hybridize()
    ins = TensorInspector(net, every=1)
    net(mx.nd.ones((2, 2)))
    assert ins.first_nonfinite == {}
    net(mx.nd.array([[1.0, -1.0], [1.0, 1.0]]))        # log(-1) = NaN, first at 'lg'
    assert ins.first_nonfinite == {"step": 2, "node": "m_lg", "tensor": "m_lg_output", "op": "log"}
    net(mx.nd.array([[0.0, 1.0], [1.0, 1.0]]))         # -inf later: the first one stays
    assert ins.first_nonfinite["step"] == 2
    assert ins.steps[-1]["nodes"][0]["inf"] == 1
    ins.reset()
    assert ins.first_nonfinite == {} and ins.steps == []
    ins.close()


def test_adaptive_sampling_inspects_the_first_call_and_then_only_some():
    net = mlp()
    x = mx.nd.ones((1, 7))
    net(x)
    ins = TensorInspector(net)
    net(x)
    assert ins.inspected == 1 and ins.steps[0]["step"] == 1       # the first call is always inspected
    for _ in range(299):
        net(x)
    ins.flush()
    assert ins.calls == 300
    assert 1 <= ins.inspected < 300      # how many depends on measured times; never all of them
    ins.close()


def test_every_k_and_close_removes_the_hooks():
    net = mlp()
    ins = TensorInspector(net, every=3)
    for _ in range(7):
        net(mx.nd.ones((1, 7)))
    assert [s["step"] for s in ins.steps] == [1, 4, 7]
    ins.close()
    assert net.op_hook is None and not net._forward_hooks and not net._forward_pre_hooks


def test_closing_an_inspector_keeps_an_op_hook_the_user_installed_since():
    net = mlp()
    ins = TensorInspector(net, every=1)
    net(mx.nd.ones((1, 7)))
    seen = []
    net.register_op_hook(lambda name, op_name, arr: seen.append(name))
    ins.close()
    assert net.op_hook is not None
    net(mx.nd.ones((1, 7)))
    assert seen and all(name.startswith("mlp_") for name in seen)


def test_imperative_block_and_bad_arguments():
    net = nn.Dense(3, in_units=2, prefix="fc_")
    net.initialize()
    ins = TensorInspector(net, every=1)
    net(mx.nd.ones((1, 2)))
    assert ins.steps[0]["nodes"][0]["shape"] == [1, 3]
    ins.close()
    with pytest.raises(TypeError, match="expected a Gluon Block, got int"):
        TensorInspector(3)
    with pytest.raises(ValueError, match="every expected None"):
        TensorInspector(mlp(), every=0)


def lenet():
    net = nn.HybridSequential(prefix="lenet_")
    with net.name_scope():
        net.add(nn.Conv2D(channels=6, kernel_size=5, activation="relu"), nn.MaxPool2D(pool_size=2, strides=2),
                nn.Flatten(), nn.Dense(10))
    net.initialize()
    return net


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_dashboard_flags_a_nonfinite_call_that_was_not_sampled_and_counts_every_call():
    """inspect(calls=5), then 6 calls with an Inf input: the first of them is flagged although the
    sampler did not inspect it, the next call locates the op, and the counts are the true ones."""
    net = lenet()
    x = mx.nd.random.uniform(shape=(2, 1, 12, 12))
    board = mx.lab.inspect(net, x, calls=5)
    ins = board.inspector
    ins._sampler.plain, ins._sampler.spent, ins._sampler.earned = 1.0, 1e9, 0.0   # "over budget": no sampling
    bad = x.copy()
    bad[0, 0, 3, 3] = np.inf
    for _ in range(6):
        net(bad)
    flag = ins.first_nonfinite
    assert flag["step"] == 2 and flag["inspected"] is False        # call 2: not inspected, still flagged
    assert flag["located_step"] == 3 and flag["node"] == "lenet_conv0_fwd" and flag["op"] == "Convolution"
    assert "call 2 was not inspected" in flag["detail"] and "lenet_conv0_fwd" in flag["detail"]
    assert ins.inspected == 2 and [s["step"] for s in ins.steps] == [1, 3]
    assert "2 of 7 calls inspected" in repr(ins) and "first NaN/Inf at 'lenet_conv0_fwd' (call 2)" in repr(ins)
    ins.flush()
    assert ins.calls == 7 and ins.get_state()["calls"] == 7
    board.close()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_an_unsampled_nonfinite_output_is_flagged_at_its_output_node():
    net = mlp()
    net(mx.nd.ones((1, 7)))
    ins = TensorInspector(net, every=50)          # inspects calls 1, 51, ...
    net(mx.nd.ones((1, 7)))
    net(mx.nd.array([[np.nan] * 7]))              # call 2: not inspected
    flag = dict(ins.first_nonfinite)
    assert flag["step"] == 2 and flag["node"] == "mlp_dense1_fwd" and flag["tensor"] == "mlp_dense1_fwd_output"
    assert flag["inspected"] is False and "located_step" not in flag
    assert ins.calls == 2                          # synced when flagged
    net(mx.nd.ones((1, 7)))                        # call 3, inspected (armed by the flag): all finite again
    assert ins.inspected == 2 and ins.first_nonfinite == flag
    ins.close()


def test_calls_are_synced_after_each_notebook_cell(monkeypatch):
    from IPython.core.events import EventManager, available_events

    class Shell:
        events = EventManager(None, available_events)

    shell = Shell()
    monkeypatch.setattr("IPython.get_ipython", lambda: shell)
    net = mlp()
    ins = TensorInspector(net, every=100)
    for _ in range(5):
        net(mx.nd.ones((1, 7)))
    shell.events.trigger("post_run_cell", None)
    assert ins.calls == 5 and ins.get_state()["calls"] == 5
    ins.detach()                                   # keeps the view, removes hooks and the cell callback
    assert not shell.events.callbacks["post_run_cell"]
    net(mx.nd.ones((1, 7)))
    assert ins.calls == 5 and ins.comm is not None and net._callback is None
    ins.close()


def test_nonfinite_output_check():
    from hybridlab.lab.inspector import nonfinite_output
    assert nonfinite_output(mx.nd.ones((2, 2))) is None
    big = np.full(4, 3e38, dtype=np.float32)       # a float32 sum would overflow: not a NaN/Inf
    assert nonfinite_output([big, np.array([1, 2])]) is None
    assert nonfinite_output([mx.nd.ones(2), (mx.nd.array([1.0, np.inf]),)]) == 1
