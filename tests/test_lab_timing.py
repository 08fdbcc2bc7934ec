"""mx.lab.TimingPanel / time_block: every mode measured, results joined to graph nodes, the user's block
left as it was, the profiler's state kept, a dashboard of the three. No timing asserts."""
import pytest

import hybridlab as mx
from hybridlab import events, profiler
from hybridlab.gluon import nn
from hybridlab.lab.timing import MODES, TimingPanel, profile_ops, time_block


def mlp():
    net = nn.HybridSequential(prefix="mlp_")
    with net.name_scope():
        net.add(nn.Dense(16, activation="relu"), nn.Dense(2))
    net.initialize()
    return net


def test_all_modes_with_costs_speedup_and_ops():
    net = mlp()
    x = mx.nd.ones((2, 5))
    net(x)
    seen = []
    r = time_block(net, x, calls=4, warmup=1, progress=lambda f, s: seen.append(f))
    assert [m["name"] for m in r["modes"]] == [n for n, _ in MODES]
    imp, *hyb = r["modes"]
    assert len(imp["latencies_ms"]) == 4 and imp["trace_ms"] is None and imp["speedup"] == 1.0
    for m in hyb:
        assert m["trace_ms"] > 0 and m["build_ms"] >= 0 and m["speedup"] > 0
        assert m["breakeven_calls"] is None or m["breakeven_calls"] >= 1
    assert {o["node"] for o in r["ops"]} == {"mlp_dense0_fwd", "mlp_dense0_relu_fwd", "mlp_dense1_fwd"}
    assert all(o["scope"][0] == "mlp" and o["count"] == 3 for o in r["ops"])
    assert sum(o["share"] for o in r["ops"]) == pytest.approx(1.0)
    assert seen == sorted(seen) and seen[-1] == 1.0


def test_the_users_block_state_is_restored():
    net = mlp()
    net.hybridize(static_alloc=True)
    x = mx.nd.ones((2, 5))
    expected = net(x).asnumpy()
    cop, history, flags = net.cached_op, list(net.rebuild_history), list(net.hybridization.flags)
    hook_calls = []
    net.register_op_hook(lambda *a: hook_calls.append(a[0]))
    built = []
    with events.subscribe("cache_built", lambda e: built.append(e["block"])):
        time_block(net, x, calls=2)
    assert set(built) == {"mlp (timing)"}                # a GraphView of 'mlp' ignores them
    assert hook_calls == [] and net.name == "mlp"
    assert net.cached_op is cop and list(net.rebuild_history) == history and net.hybridization.flags == flags and net.hybridization.active
    assert net._callback is not None
    assert (net(x).asnumpy() == expected).all() and len(net.rebuild_history) == len(history)


def test_the_users_profiler_session_is_kept():
    net = mlp()
    x = mx.nd.ones((1, 5))
    net(x)
    profiler.set_state("stop")
    profiler.dumps(reset=True)
    before = list(profiler.records())
    time_block(net, x, calls=2)
    assert profiler.records() == before and not profiler.is_running()


def test_panel_runs_and_reports_errors():
    net = mlp()
    x = mx.nd.ones((1, 5))
    net(x)
    panel = TimingPanel(net, x, calls=2)
    assert panel.progress == 1.0 and not panel.running and len(panel.results["modes"]) == 4
    assert "TimingPanel of block 'mlp'" in repr(panel)
    panel._on_frontend_msg(panel, {"event": "run"}, [])
    assert panel.results["calls"] == 2
    bad = TimingPanel(net, mx.nd.ones((1, 9)), calls=1, run=False)
    with pytest.raises(Exception):
        bad.run()
    assert bad.error and not bad.running
    with pytest.raises(ValueError, match="input arrays"):
        TimingPanel(net)


def test_inspect_dashboard_combines_the_three():
    net = mlp()
    board = mx.lab.inspect(net, mx.nd.ones((2, 5)), calls=2)
    assert board.graph.block == "mlp" and board.graph.rebuilds == 1
    assert board.inspector.inspected == 1 and board.timing.results["modes"]
    board.close()
    assert net._callback is None


def test_per_op_times_colour_the_graph_view_and_leave_the_block_alone():
    net = mlp()
    net.hybridize()
    x = mx.nd.ones((2, 5))
    net(x)
    cop, history = net.cached_op, list(net.rebuild_history)
    view = mx.lab.GraphView(net)
    times = view.profile(x, calls=2)
    assert set(times) == {"mlp_dense0_fwd", "mlp_dense0_relu_fwd", "mlp_dense1_fwd"}
    assert all(t > 0 for t in times.values()) and view.op_times == times
    assert set(times) <= {n["name"] for n in view.graph["nodes"]}   # the frontend joins them by node name
    assert net.cached_op is cop and list(net.rebuild_history) == history and view.rebuilds == 1
    assert [o["scope"][0] for o in profile_ops(net, x)] == ["mlp"] * 3
    with pytest.raises(ValueError, match="calls expected an int >= 1, got 0"):
        profile_ops(net, x, calls=0)
    view.close()
    sym_view = mx.lab.GraphView(mx.sym.var("data") + 1)
    with pytest.raises(TypeError, match="of a Symbol"):
        sym_view.profile(x)
    # a dashboard's graph takes its timing panel's per-op profile, and every re-run's
    board = mx.lab.inspect(net, x, calls=2)
    assert set(board.graph.op_times) == {o["node"] for o in board.timing.results["ops"]}
    board.timing.results = {**board.timing.results, "ops": board.timing.results["ops"][:1]}
    assert len(board.graph.op_times) == 1
    board.close()


def test_payoff_is_said_in_words():
    from hybridlab.lab.timing import payoff_text, results_text
    net = mlp()
    x = mx.nd.ones((2, 5))
    net(x)
    panel = TimingPanel(net, x, calls=2)
    for m in panel.results["modes"]:
        assert m["pays_off"] == payoff_text(m)
        assert "None" not in m["pays_off"]
        if m["name"] != "imperative":
            assert m["pays_off"].startswith(("pays off after", "pays off from the first call", "never: "))
    text = panel.text()
    assert "None" not in text and "static_alloc+static_shape" in text and text == results_text(panel.results)
    assert "None" not in repr(panel)
    slow = {"name": "default", "breakeven_calls": None, "speedup": 0.5}
    assert payoff_text(slow) == "never: not faster than imperative at this size (0.50x)"
    assert payoff_text({"name": "default", "breakeven_calls": 1, "speedup": 9.0}) == "pays off from the first call"
    panel.close()


def test_training_steps_are_timed_with_backward_and_leave_the_parameters_alone():
    net = nn.HybridSequential(prefix="mlp_")
    with net.name_scope():
        net.add(nn.Dense(8, activation="relu"), nn.Dense(2))
    net.initialize()
    x = mx.nd.ones((4, 5))
    net(x)
    before = {k: p.data().asnumpy().copy() for k, p in net.collect_params().items()}
    r = time_block(net, x, calls=3, warmup=1, profile_calls=0, backward=True)
    assert r["backward"] is True and [m["name"] for m in r["modes"]][0] == "imperative"
    assert all(m["median_ms"] > 0 for m in r["modes"])
    for k, p in net.collect_params().items():
        assert (p.data().asnumpy() == before[k]).all(), k
        assert p.grad().asnumpy().any(), f"{k}: no gradient: the backward did not run"
    panel = TimingPanel(net, x, calls=2, warmup=0, profile_calls=0, backward=True)
    assert "timed training steps (forward + backward) per mode" in panel.status
