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
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


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


def test_view_follows_its_own_block_not_a_new_one_with_the_same_name():
    """A "create the model" cell run again makes a new block with the same name: the existing view
    stays on the block it was made for (events carry the block's identity)."""
    def make():
        net = nn.HybridSequential(prefix="model_")
        with net.name_scope():
            net.add(nn.Dense(4, in_units=3))
        net.initialize()
        net.hybridize()
        return net

    first = make()
    first(mx.nd.ones((1, 3)))
    view = GraphView(first)
    built = []
    with events.subscribe("cache_built", built.append):
        second = make()                                # same name, another block
        assert second.name == first.name
        second(mx.nd.ones((7, 3)))
    assert built[0]["block_id"] == id(second) and built[0]["block"] == first.name
    assert view.rebuilds == 1 and view.graph["nodes"][0]["outputs"][0]["shape"] == [1, 3]
    first(mx.nd.ones((2, 3)))                          # its own block: followed
    assert view.rebuilds == 2 and view.graph["nodes"][0]["outputs"][0]["shape"] == [2, 3]
    events.publish("hybridize_error", block=first.name, block_id=id(second), error=ValueError("not mine"))
    assert view.error == ""
    view2 = GraphView(second)
    assert view2.graph["nodes"][0]["outputs"][0]["shape"] == [7, 3]
    view.close()
    view2.close()


def test_rebuild_detail_and_turning_hybridization_off_reach_the_view():
    net = _mlp()
    net.hybridize()
    view = GraphView(net)
    got = []
    with events.subscribe("*", got.append):
        net(mx.nd.ones((1, 3)))
        net(mx.nd.ones((4, 3)))
        assert view.detail == "data: (1, 3) float32 -> (4, 3) float32"
        assert "new input signature: data: (1, 3) float32 -> (4, 3) float32" in view.status_text()
        net.hybridize(static_alloc=True)
        net(mx.nd.ones((4, 3)))
        assert view.reason == "hybridize flags changed" and view.detail == "static_alloc: False -> True"
        assert "static_alloc: False -> True" in view.status_text()
        n_graph = len(view.graph["nodes"])
        net.hybridize(active=False)                    # published and shown; the last graph stays
        net(mx.nd.ones((4, 3)))
        assert view.reason == events.NOT_HYBRIDIZED == "not hybridized: runs imperatively"
        assert not view.hybridized and "hybridize(active=False)" in view.detail
        assert len(view.graph["nodes"]) == n_graph and view.rebuilds == 3
        assert "not hybridized: runs imperatively" in view.status_text() and "not hybridized" in repr(view)
        net.hybridize(static_alloc=True)
        net(mx.nd.ones((4, 3)))
        assert view.hybridized and view.rebuilds == 4
        assert view.reason == "hybridized again" and view.detail == "after hybridize(active=False)"
    off = [e for e in got if e.topic == "hybridize_off" and e["block_id"] == id(net)]
    assert len(off) == 1 and off[0]["block"] == net.name and off[0]["reason"] == events.NOT_HYBRIDIZED
    assert _synced(view)["detail"] == view.detail and _synced(view)["hybridized"] is True
    view.close()
    fresh = GraphView(net)                              # a view made after the block went imperative
    net.hybridize(active=False)
    assert not fresh.hybridized
    late = GraphView(net)
    assert late.reason == events.NOT_HYBRIDIZED and not late.hybridized
    fresh.close()
    late.close()


def test_widget_outputs_carry_a_static_snapshot():
    """A saved notebook has no widget models: each output also holds text/html (and the graph
    JSON for a GraphView, drawn by the extension's safe MIME renderer in untrusted notebooks)."""
    from hybridlab.lab.inspector import TensorInspector
    from hybridlab.lab.timing import TimingPanel

    net = nn.HybridSequential(prefix="snap_")
    with net.name_scope():
        net.add(nn.Dense(4, activation="relu", in_units=3, prefix=HOSTILE))
    net.initialize()
    net.hybridize()
    view = GraphView(net)
    ins = TensorInspector(net, every=1)
    x = mx.nd.ones((2, 3))
    net(x)
    net(mx.nd.ones((5, 3)))
    data = view._repr_mimebundle_()
    assert WIDGET_VIEW in data and data["text/plain"].startswith("<GraphView")
    assert data[GRAPH_MIME_TYPE] == view.graph
    page = data["text/html"]
    assert "new input signature" in page and "(2, 3) float32 -&gt; (5, 3) float32" in page
    assert HOSTILE not in page                           # node names only inside the SVG image
    if lab_mime.has_dot():
        assert '<img class="hl-static-graph"' in page and "data:image/svg+xml;base64," in page
    page = ins._repr_mimebundle_()["text/html"]
    assert "2 of 2 calls inspected" in page and "<table" in page
    assert HOSTILE not in page and "&lt;img src=x onerror=alert(1)&gt;" in page        # escaped text
    panel = TimingPanel(net, x, calls=2)
    page = panel._repr_mimebundle_()["text/html"]
    assert "static_alloc" in page and "pays off" in page and "None" not in page
    board = mx.lab.inspect(net, x, calls=2)
    data = board._repr_mimebundle_()
    assert WIDGET_VIEW in data and data["text/html"].count("hl-static-graph") >= 1
    assert "hl-static-inspector" in data["text/html"] and "hl-static-timing" in data["text/html"]
    for w in (view, ins, panel, board):
        w.close()


@pytest.mark.skipif(not lab_mime.has_dot(), reason="Graphviz's dot binary is not installed: no SVG fallback")
def test_svg_of_a_lenet_emits_no_graphviz_warnings(capfd):
    import subprocess
    net = nn.HybridSequential(prefix="lenet_")
    with net.name_scope():
        net.add(nn.Conv2D(6, kernel_size=5, activation="relu"), nn.MaxPool2D(pool_size=2, strides=2),
                nn.Conv2D(16, kernel_size=3, activation="relu"), nn.MaxPool2D(pool_size=2, strides=2),
                nn.Flatten(), nn.Dense(120, activation="relu"), nn.Dense(84, activation="relu"), nn.Dense(10))
    net.initialize()
    net.hybridize()
    net(mx.nd.ones((1, 1, 28, 28)))
    capfd.readouterr()
    data, _ = graph_mimebundle(net, svg=True)
    assert "image/svg+xml" in data and "lenet_flatten0" in data["image/svg+xml"]
    out, err = capfd.readouterr()                     # what the notebook would show in red
    assert "Warning" not in err and "too small" not in err and not out
    # the node attributes themselves let dot lay out every label without a warning
    from hybridlab.lab.static_graph import graph_dot
    source = graph_dot(data[lab_mime.GRAPH_MIME_TYPE]).source
    run = subprocess.run(["dot", "-Tsvg"], input=source.encode(), capture_output=True, check=True)
    assert run.stderr.decode() == ""


@pytest.mark.skipif(not lab_mime.has_dot(), reason="Graphviz's dot binary is not installed: no SVG fallback")
def test_the_static_drawing_looks_like_the_live_view_and_stays_bounded():
    """Saved outputs (nbconvert, untrusted views): top-down, Block boxes, shapes on the edges, a
    ResNet-50 folded to its stages within a bounded size, alt text with the counts."""
    import re
    from hybridlab.gluon.model_zoo import vision
    from hybridlab.lab.static_graph import alt_text, graph_dot
    net = vision.resnet50_v2()
    net.initialize()
    net.hybridize()
    net(mx.nd.ones((1, 3, 64, 64)))
    data, _ = graph_mimebundle(net, svg=True)
    graph = data[lab_mime.GRAPH_MIME_TYPE]
    source = graph_dot(graph).source
    assert "rankdir=TB" in source and "subgraph cluster_" in source and 'label=features' in source
    assert "1×64×16×16" in source or "1×256×16×16" in source          # edges carry shapes
    boxes = len(re.findall(r"^\s+(?:n|g_)\d+ \[", source, re.M))
    assert 8 <= boxes <= 80 and "box3d" in source                     # folded to its stages
    svg = data["image/svg+xml"]
    w, h = (float(v) for v in re.search(r'width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups())
    assert w <= 16 * 72 + 1 and h <= 40 * 72 + 1
    assert alt_text(graph, "resnetv20").startswith(f"resnetv20: graph of {len(graph['nodes'])} nodes (1 input, ")
