"""The Python side of the lab widgets and the static graph output (the frontend is tested by jest
in src/__tests__ and end to end in tests/ui)."""
import json

import pytest

import hybridlab as mx
from hybridlab import events
from hybridlab.gluon import nn
from hybridlab.lab import GRAPH_MIME_TYPE, graph_mimebundle
from hybridlab.lab import mime as lab_mime
from hybridlab.lab.widgets import GraphView, MODULE_NAME, MODULE_VERSION

HOSTILE = "<img src=x onerror=alert(1)>"


def _mlp():
    net = nn.HybridSequential()
    net.add(nn.Dense(8, activation="relu"), nn.Dense(2))
    net.initialize()
    return net


def _synced(widget):
    """The state a frontend receives (what ipywidgets would send over the comm)."""
    return widget.get_state()


def test_widget_protocol_matches_the_extension():
    view = GraphView(mx.sym.relu(mx.sym.var("data"), name="r"))
    state = _synced(view)
    assert state["_model_name"] == "GraphViewModel" and state["_view_name"] == "GraphView"
    assert state["_model_module"] == state["_view_module"] == MODULE_NAME == "hybridlab"
    with open(__file__.rsplit("/tests/", 1)[0] + "/package.json") as f:
        package = json.load(f)
    assert package["name"] == MODULE_NAME
    assert MODULE_VERSION.lstrip("^~") == package["version"]
    view.close()


def test_symbol_graph_is_in_the_traits():
    y = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=4, name="fc1")
    view = GraphView(y, shapes={"data": (2, 3)})
    state = _synced(view)
    assert [n["name"] for n in state["graph"]["nodes"]] == ["data", "fc1_weight", "fc1_bias", "fc1"]
    assert state["graph"]["nodes"][3]["outputs"][0]["shape"] == [2, 4]
    assert state["block"] == "" and state["rebuilds"] == 0
    json.dumps(state["graph"])
    view.close()


def test_block_view_is_empty_before_the_first_call_then_live():
    net = _mlp()
    net.hybridize()
    view = GraphView(net)
    assert view.graph == {} and view.block == net.name and view.rebuilds == 0
    net(mx.nd.ones((1, 3)))
    assert view.reason == "first call" and view.rebuilds == 1
    n_first = len(view.graph["nodes"])
    assert n_first > 0
    assert view.graph["source_code"] is None or "def " in view.graph["source_code"]
    shapes_first = [n["outputs"][0]["shape"] for n in view.graph["nodes"]]

    net(mx.nd.ones((5, 3)))                       # new input signature: the view follows
    assert view.reason == "new input signature" and view.rebuilds == 2
    assert "(1, 3)" in view.detail and "(5, 3)" in view.detail
    assert [n["outputs"][0]["shape"] for n in view.graph["nodes"]] != shapes_first

    net(mx.nd.ones((5, 3)))                       # cached: no rebuild, no update
    assert view.rebuilds == 2
    view.close()
    assert view._subscriptions == []


def test_view_of_an_already_built_block_shows_its_last_build():
    net = _mlp()
    net.hybridize()
    net(mx.nd.ones((1, 3)))
    view = GraphView(net)
    assert view.rebuilds == len(net.rebuild_history) == 1
    assert view.reason == "first call" and view.graph["nodes"]
    view.close()


def test_events_for_other_blocks_are_ignored():
    net = _mlp()
    view = GraphView(net)
    events.publish("cache_built", block="someone_else", reason="first call", graph={"nodes": []}, signature="")
    assert view.graph == {} and view.rebuilds == 0
    events.publish("hybridize_error", block=net.name, error=ValueError("shape mismatch in dense1"))
    assert view.error == "ValueError: shape mismatch in dense1"
    view.close()


def test_closed_view_stops_listening():
    net = _mlp()
    net.hybridize()
    view = GraphView(net)
    handles = list(view._subscriptions)
    assert handles and all(h.active for h in handles)
    view.close()
    assert not any(h.active for h in handles)
    net(mx.nd.ones((1, 3)))                       # built after close: the view no longer follows
    assert view.rebuilds == 0 and view.graph == {}


def test_names_pass_through_unchanged():
    y = mx.sym.relu(mx.sym.var("data"), name=HOSTILE)
    view = GraphView(y)
    assert view.graph["nodes"][1]["name"] == HOSTILE
    view.close()


def test_mime_bundle_of_a_symbol():
    y = mx.sym.Activation(mx.sym.var("data"), act_type="relu", name=HOSTILE)
    data, metadata = graph_mimebundle(y, svg=False)
    assert set(data) == {GRAPH_MIME_TYPE, "text/plain"}
    assert data[GRAPH_MIME_TYPE]["nodes"][1]["name"] == HOSTILE     # escaping is the frontend's job
    assert data[GRAPH_MIME_TYPE]["version"] == 1
    assert "2 nodes" in data["text/plain"]
    json.dumps(data)
    assert GRAPH_MIME_TYPE in metadata


def test_mime_bundle_of_a_block():
    net = _mlp()
    assert graph_mimebundle(net) is None          # no cached graph yet: displayed as usual
    net.hybridize()
    net(mx.nd.ones((2, 3)))
    data, metadata = graph_mimebundle(net, svg=False)
    nodes = data[GRAPH_MIME_TYPE]["nodes"]
    assert any(n["op"] == "FullyConnected" for n in nodes)
    assert metadata[GRAPH_MIME_TYPE]["title"].startswith(net.name)
    only = graph_mimebundle(net, include=["text/plain"])[0]
    assert list(only) == ["text/plain"]


@pytest.mark.skipif(not lab_mime.has_dot(), reason="Graphviz's dot binary is not installed: no SVG fallback")
def test_mime_bundle_has_svg_when_dot_exists():
    data, _ = graph_mimebundle(mx.sym.relu(mx.sym.var("data"), name="r"))
    assert data["image/svg+xml"].lstrip().startswith(("<?xml", "<svg", "<!--"))


def test_mime_bundle_without_dot_has_no_svg(monkeypatch):
    monkeypatch.setattr(lab_mime.shutil, "which", lambda name: None)
    data, _ = graph_mimebundle(mx.sym.relu(mx.sym.var("data"), name="r"))
    assert "image/svg+xml" not in data


def test_ipython_formatter_registration():
    IPython = pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    try:
        assert lab_mime.register_formatters(shell)
        y = mx.sym.relu(mx.sym.var("data"), name="r")
        data, _ = shell.display_formatter.format(y)
        assert GRAPH_MIME_TYPE in data and "text/plain" in data
        net = _mlp()                              # not called: no graph, shown as usual
        data, _ = shell.display_formatter.format(net)
        assert GRAPH_MIME_TYPE not in data
    finally:
        InteractiveShell.clear_instance()
    assert IPython is not None


def test_plot_network_displays_as_the_hybridlab_graph():
    import hybridlab as mx
    from hybridlab.lab.mime import GRAPH_MIME_TYPE, _plot_formatter
    data = mx.sym.var("data")
    net = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=4, name="fc"), act_type="relu", name="act")
    dot = mx.viz.plot_network(net, shape={"data": (2, 3)})
    bundle, meta = _plot_formatter(dot)
    graph = bundle[GRAPH_MIME_TYPE]
    assert [n["name"] for n in graph["nodes"]] == ["data", "fc_weight", "fc_bias", "fc", "act"]
    assert graph["nodes"][-1]["outputs"][0]["shape"] == [2, 4]
    assert "text/plain" in bundle
