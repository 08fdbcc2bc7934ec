"""Each widget's status line is computed once, in the kernel (``status_text()``), and synced as the
``status`` trait, which the frontend shows as is: the trait follows every change it depends on."""
import hybridlab as mx
from hybridlab import events
from hybridlab.gluon import nn
from hybridlab.lab.inspector import TensorInspector
from hybridlab.lab.timing import TimingPanel
from hybridlab.lab.widgets import GraphView


def mlp():
    net = nn.HybridSequential(prefix="mlp_")
    with net.name_scope():
        net.add(nn.Dense(8, activation="relu"), nn.Dense(2))
    net.initialize()
    return net


def test_graph_view_status_follows_builds_errors_and_hybridize_off():
    net = mlp()
    net.hybridize()
    view = GraphView(net)
    seen = [view.status]
    view.observe(lambda change: seen.append(change["new"]), names="status")
    net(mx.nd.ones((1, 3)))
    net(mx.nd.ones((4, 3)))
    events.publish("hybridize_error", block=net.name, block_id=id(net), error=ValueError("bad shape"))
    error_status = view.status
    net.hybridize(active=False)
    assert seen[0] == "mlp: waiting for the block's first hybridized call"
    assert "mlp: cached op built (first call), build #1" in seen
    assert "mlp: cached op rebuilt (new input signature: data: (1, 3) float32 -> (4, 3) float32), build #2" in seen
    assert error_status == "mlp: hybridization failed: ValueError: bad shape"
    assert view.status == view.status_text() and "not hybridized" in view.status
    view.close()


def test_graph_view_of_a_symbol_has_a_status():
    view = GraphView(mx.sym.relu(mx.sym.var("x"), name="r"))
    assert view.status == view.status_text() == "graph"
    view.close()


def test_inspector_status_follows_calls_and_the_first_nonfinite():
    net = mlp()
    net.hybridize()
    ins = TensorInspector(net, every=1)
    assert ins.status == "mlp: 0 of 0 calls inspected"
    net(mx.nd.ones((1, 3)))
    assert ins.status == ins.status_text() == "mlp: 1 of 1 call inspected"
    net(mx.nd.full((1, 3), float("nan")))
    assert ins.status == ins.status_text() and "first NaN/Inf: node mlp_dense0_fwd" in ins.status
    ins.close()


def test_timing_status_says_what_was_measured():
    net = mlp()
    x = mx.nd.ones((2, 3))
    net(x)
    panel = TimingPanel(net, x, calls=2, warmup=1, profile_calls=1, run=False)
    assert panel.status == "mlp: timing not run"
    stages = []
    panel.observe(lambda change: stages.append(change["new"]), names="status")
    panel.run()
    assert any(s.startswith("mlp: measuring: ") and s.endswith("%)") for s in stages)
    assert panel.status == panel.status_text() == f"mlp: 2 timed calls per mode on {panel.results['inputs']}"
    panel.close()
