"""mx.profiler: per-op timings of hybridized blocks (instrumented program) and imperative ops (only
while it runs), per-call timings, table/JSON statistics, the Chrome trace, timing events. No timing
asserts: only what was recorded."""
import json

import pytest

import hybridlab as mx
from hybridlab import events, profiler
from hybridlab.gluon import nn
from hybridlab.ops.registry import get_op


@pytest.fixture(autouse=True)
def clean_profiler():
    profiler.set_state("stop")
    profiler.dumps(reset=True)
    profiler.set_config(**{k: v for k, v in profiler.CONFIG_DEFAULTS.items()})
    yield
    profiler.set_state("stop")
    profiler.dumps(reset=True)


def tutorial_mlp():
    """The hybridize tutorial's MLP (256-relu, 128-relu, 2)."""
    net = nn.HybridSequential(prefix="mlp_")
    with net.name_scope():
        net.add(nn.Dense(256, activation="relu"), nn.Dense(128, activation="relu"), nn.Dense(2))
    net.initialize()
    return net


def test_table_lists_every_op_of_the_hybridized_mlp_and_the_calls(tmp_path):
    net = tutorial_mlp()
    net.hybridize(static_alloc=True)
    x = mx.nd.random.uniform(shape=(1, 512))
    net(x)
    profiler.set_config(profile_symbolic=True, profile_imperative=False, aggregate_stats=True,
                        filename=str(tmp_path / "trace.json"))
    profiler.set_state("run")
    for _ in range(3):
        net(x)
    profiler.set_state("stop")
    net(x)                              # not recorded
    table = profiler.dumps()
    assert "Profile Statistics:" in table and "Total Count" in table
    stats = json.loads(profiler.dumps(format="json"))
    ops = stats["Time"]["operator"]
    assert set(ops) == {"FullyConnected", "Activation"}
    assert ops["FullyConnected"]["Count"] == 9 and ops["Activation"]["Count"] == 6
    for name in ops:
        assert name in table
    calls = stats["Time"]["Block calls"]
    assert calls["mlp"]["Count"] == 3
    assert stats["Unit"] == {"Time": "ms", "Memory": "kB"} and "Memory" in stats
    node_names = {r[4]["node"] for r in profiler.records() if r[1] == "operator"}
    assert node_names == {"mlp_dense0_fwd", "mlp_dense0_relu_fwd", "mlp_dense1_fwd", "mlp_dense1_relu_fwd",
                          "mlp_dense2_fwd"}


def test_imperative_ops_are_timed_only_while_running():
    net = tutorial_mlp()
    x = mx.nd.ones((2, 512))
    net(x)
    fc = get_op("FullyConnected")
    assert not hasattr(fc.compute, "_hl_plain")        # nothing installed: zero cost
    profiler.set_config(profile_all=True)
    profiler.set_state("run")
    assert hasattr(fc.compute, "_hl_plain")
    net(x)
    profiler.pause()
    net(x)
    profiler.resume()
    profiler.set_state("stop")
    assert not hasattr(fc.compute, "_hl_plain")
    stats = json.loads(profiler.dumps(format="json"))
    assert stats["Time"]["operator"]["FullyConnected"]["Count"] == 3
    assert stats["Time"]["operator"]["Activation"]["Count"] == 2
    modes = {r[4]["mode"] for r in profiler.records() if r[1] == "Block calls"}
    assert modes == {"imperative"}
    assert stats["Time"]["Block calls"]["mlp"]["Count"] == 1


def test_sorting_reset_and_bad_arguments():
    x = mx.nd.ones((4, 4))
    profiler.set_state("run")
    for _ in range(3):
        mx.nd.relu(x)
    mx.nd.exp(x)
    profiler.set_state("stop")
    for sort_by, key in profiler.SORT_KEYS.items():
        for ascending in (False, True):
            rows = json.loads(profiler.dumps(format="json", sort_by=sort_by, ascending=ascending))["Time"]["operator"]
            values = [r[key] for r in rows.values()]
            assert values == sorted(values, reverse=not ascending)
    assert "relu" in profiler.dumps(reset=True)
    assert json.loads(profiler.dumps(format="json"))["Time"] == {}
    with pytest.raises(mx.MXNetError, match="sort_by expected one of total, avg, min, max, count, got 'name'"):
        profiler.dumps(sort_by="name")
    with pytest.raises(mx.MXNetError, match="format expected 'table' or 'json', got 'csv'"):
        profiler.dumps(format="csv")
    with pytest.raises(mx.MXNetError, match="unknown argument 'profile_gpu'"):
        profiler.set_config(profile_gpu=True)
    with pytest.raises(mx.MXNetError, match="expected 'run' or 'stop', got 'start'"):
        profiler.set_state("start")


def test_dump_writes_a_chrome_trace(tmp_path):
    net = tutorial_mlp()
    net.hybridize()
    x = mx.nd.ones((1, 512))
    net(x)
    path = tmp_path / "profile.json"
    profiler.set_config(profile_all=True, filename=str(path))
    profiler.set_state("run")
    net(x)
    assert profiler.dump() == str(path)          # finished=True stops it
    assert not profiler.is_running()
    trace = json.loads(path.read_text())
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert {e["name"] for e in complete} >= {"FullyConnected", "Activation", "mlp"}
    for e in complete:
        assert e["dur"] >= 0 and e["ts"] >= 0 and {"pid", "tid", "cat", "args"} <= set(e)
    block = next(e for e in complete if e["name"] == "mlp")
    ops = [e for e in complete if e["cat"] == "operator"]
    assert all(block["ts"] <= e["ts"] and e["ts"] + e["dur"] <= block["ts"] + block["dur"] + 1 for e in ops)


def test_timing_events_for_the_lab():
    net = tutorial_mlp()
    net.hybridize()
    x = mx.nd.ones((1, 512))
    net(x)
    got = []
    with events.subscribe("timing", got.append):
        net(x)                               # profiler stopped: nothing
        profiler.set_state("run")
        net(x)
        profiler.set_state("stop")
    assert len(got) == 1
    e = got[0]
    assert e["block"] == "mlp" and e["mode"] == "hybridized" and e["ms"] >= 0
    assert [o["op"] for o in e["ops"]] == ["FullyConnected", "Activation"] * 2 + ["FullyConnected"]
    assert e["ops"][0]["name"] == "mlp_dense0_fwd"


def test_profiling_a_training_step_times_the_call_and_keeps_gradients():
    net = tutorial_mlp()
    net.hybridize()
    x = mx.nd.ones((2, 512))
    with mx.autograd.record():
        loss = net(x).sum()
    loss.backward()
    want = net[0].weight.grad().asnumpy().copy()
    profiler.set_state("run")
    with mx.autograd.record():
        loss = net(x).sum()
    loss.backward()
    profiler.set_state("stop")
    assert abs(net[0].weight.grad().asnumpy() - want).max() < 1e-5
    stats = json.loads(profiler.dumps(format="json"))
    assert stats["Time"]["Block calls"]["mlp"]["Count"] == 1
    # the compiled training pair runs instrumented: every forward node once, then the backward's nodes
    ops = [r for r in profiler.records() if r[1] == "operator" and r[4].get("mode") == "hybridized"]
    plan = net.cached_op.backward_plan()
    forward = [n.name for n in plan.forward.nodes]
    backward = [n.name for n in plan.instrumented_backward().nodes]
    assert forward[:5] == ["mlp_dense0_fwd", "mlp_dense0_relu_fwd", "mlp_dense1_fwd", "mlp_dense1_relu_fwd",
                           "mlp_dense2_fwd"]
    assert [r[4]["node"] for r in ops] == forward + backward
    assert {r[4]["block"] for r in ops} == {"mlp"}
    assert {"dot", "sum"} <= {r[0] for r in ops[len(forward):]}


def test_profiling_a_lenet_training_step_lists_convolution_and_pooling_gradients():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, kernel_size=3, activation="relu"), nn.MaxPool2D(2, 2), nn.Dense(3))
    net.initialize()
    net.hybridize(static_alloc=True, static_shape=True)
    x, y = mx.nd.ones((2, 1, 8, 8)), mx.nd.array([0, 2])
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    profiler.set_state("run")
    with mx.autograd.record():
        loss = loss_fn(net(x), y).mean()
    loss.backward()
    profiler.set_state("stop")
    table = profiler.dumps()
    for op in ("Convolution", "Pooling", "_backward_Pooling", "_backward_Convolution_weight", "FullyConnected"):
        assert op in table, op


def test_an_isolated_run_leaves_the_users_profiler_as_it_was():
    """profiler.isolated (the lab's timing panel): its samples come out, the user's stay, and the
    configuration and the paused state come back."""
    x = mx.nd.ones((2,))
    profiler.set_config(profile_imperative=True, profile_symbolic=False)
    profiler.set_state("run")
    _ = mx.nd.exp(x)
    profiler.pause()
    before = profiler.records()
    with profiler.isolated(profile_symbolic=True) as samples:
        assert profiler.is_running() and profiler.symbolic_active() and profiler.imperative_active()
        _ = mx.nd.relu(x)
    assert [s[0] for s in samples if s[1] == "operator"] == ["relu"]
    assert profiler.records() == before and [r[0] for r in before] == ["exp"]
    assert not profiler.is_running() and not profiler.symbolic_active() and not profiler.imperative_active()
    profiler.resume()                  # still the user's session: paused, then running with its own config
    assert profiler.imperative_active() and not profiler.symbolic_active()


def test_monitoring_switches_follow_the_profiler():
    """The compiler and the op monitor read monitor_state; the profiler sets it."""
    from hybridlab import monitor_state
    assert not monitor_state.switches.symbolic and not monitor_state.switches.imperative
    profiler.set_config(profile_symbolic=True, profile_imperative=False)
    profiler.set_state("run")
    assert monitor_state.switches.symbolic and not monitor_state.switches.imperative
    profiler.pause()
    assert not monitor_state.switches.symbolic
    profiler.set_state("stop")
    with monitor_state.quiet():        # calls made inside are not the user's: nothing is timed
        profiler.set_config(profile_imperative=True)
        profiler.set_state("run")
        _ = mx.nd.relu(mx.nd.ones((2,)))
    profiler.set_state("stop")
    assert [r for r in profiler.records() if r[1] == "operator"] == []


def test_user_ranges_counters_and_markers_show_in_the_statistics_and_the_trace(tmp_path):
    profiler.set_config(aggregate_stats=True, filename=str(tmp_path / "user.json"))
    profiler.dumps(reset=True)
    profiler.set_state("run")
    domain = profiler.Domain("Loader")
    task, frame, event = profiler.Task(domain, "decode"), domain.new_frame("iteration"), profiler.Event("step")
    for _ in range(2):
        task.start()
        task.stop()
    with frame, event:
        counter = domain.new_counter("queued", 3)
        counter += 2
        counter.decrement()
        domain.new_marker("epoch end").mark("global")
    profiler.dump(finished=True)
    stats = json.loads(profiler.dumps(reset=True, format="json"))["Time"]
    assert stats["Loader"]["decode"]["Count"] == 2 and stats["Loader"]["iteration"]["Count"] == 1
    assert stats["Event"]["step"]["Count"] == 1 and counter.value == 4
    trace = json.loads((tmp_path / "user.json").read_text())["traceEvents"]
    assert [e["args"]["value"] for e in trace if e["ph"] == "C"] == [3, 5, 4]
    assert [(e["name"], e["cat"], e["s"]) for e in trace if e["ph"] == "i"] == [("epoch end", "Loader", "g")]
    with pytest.raises(mx.MXNetError, match="stop\\(\\) expected a start\\(\\)"):
        task.stop()


def test_a_python_operator_is_profiled_under_its_op_type():
    class AddOne(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] + 1)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            self.assign(in_grad[0], req[0], out_grad[0])

    @mx.operator.register("profiled_add_one")
    class AddOneProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return AddOne()

    profiler.set_config(aggregate_stats=True, profile_imperative=True)
    profiler.dumps(reset=True)
    profiler.set_state("run")
    x = mx.nd.ones((3,))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="profiled_add_one")
    y.backward()
    profiler.set_state("stop")
    stats = json.loads(profiler.dumps(reset=True, format="json"))["Time"]
    assert {"profiled_add_one::pure_python", "_backward_profiled_add_one::pure_python",
            "profiled_add_one::_plus_scalar"} <= set(stats["Custom Operator"])
    assert "_plus_scalar" not in stats.get("operator", {})      # the op's own calls are named apart
