"""User story: I build the tutorial MLP, hybridize it and look at its graph with
``mx.lab.GraphView(net)``; I click a node to read its details; when I call the net with a new batch
size or hybridize it with other flags, the view redraws by itself and tells me why."""
import json

MLP = """import json
import hybridlab as mx
from hybridlab.gluon import nn
net = nn.HybridSequential()
net.add(nn.Dense(256, activation='relu'), nn.Dense(128, activation='relu'), nn.Dense(2))
net.initialize()
net.hybridize()
view = mx.lab.GraphView(net)
out = net(mx.nd.ones((1, 512)))
view"""

GRAPH = "print(json.dumps({'nodes': [[n['name'], n['op']] for n in view.graph['nodes']], 'reason': view.reason}))"

WIDGET = ".hl-graph-widget"
READY = ".hl-graph-widget .hl-graph[data-hl-state='ready']"


def drawn_nodes(nb, root=WIDGET):
    return nb.page.eval_on_selector_all(f"{root} [data-hl-node]", "els => els.map(e => e.getAttribute('data-hl-node'))")


def status(nb):
    return nb.page.locator(f"{WIDGET} .hl-status").inner_text()


def test_graph_view_draws_every_node_of_the_mlp(open_notebook):
    nb = open_notebook([MLP, GRAPH])
    nb.page.wait_for_selector(READY, timeout=60000)
    graph = nb.json_output(1)
    names = [name for name, _ in graph["nodes"]]
    assert graph["reason"] == "first call"
    drawn = drawn_nodes(nb)
    assert len(drawn) == len(names), f"expected {len(names)} drawn nodes (graph JSON), got {len(drawn)}: {drawn}"
    assert sorted(drawn) == sorted(names)
    assert "first call" in status(nb)
    assert nb.dialogs == []


def test_clicking_a_node_shows_its_details(open_notebook):
    nb = open_notebook([MLP, GRAPH])
    nb.page.wait_for_selector(READY, timeout=60000)
    graph = nb.json_output(1)
    fcs = [name for name, op in graph["nodes"] if op == "FullyConnected"]
    assert len(fcs) == 3, graph
    details = nb.page.locator(f"{WIDGET} .hl-details")
    assert "Click a node" in details.inner_text()

    nb.page.locator(f"{WIDGET} [data-hl-node={json.dumps(fcs[1])}]").click()
    table = details.locator(f"[data-hl-details={json.dumps(fcs[1])}]")
    table.wait_for(timeout=5000)
    text = details.inner_text()
    assert fcs[1] in text and "FullyConnected" in text
    assert "num_hidden" in text and "128" in text
    assert "1×256" in text and "1×128" in text, text  # input and output shapes
    assert "float32" in text
    assert nb.page.locator(f"{WIDGET} [data-hl-node={json.dumps(fcs[1])}].hl-selected").count() == 1

    # a parameter node shows its statistics, computed in the kernel
    weight = next(name for name, op in graph["nodes"] if op == "null" and name.endswith("weight"))
    nb.page.locator(f"{WIDGET} [data-hl-node={json.dumps(weight)}]").click()
    details.locator(f"[data-hl-details={json.dumps(weight)}]").wait_for(timeout=5000)
    text = details.inner_text()
    assert "parameter" in text and "mean ± std" in text and "min / max" in text


def test_the_view_follows_rebuilds_live(open_notebook):
    nb = open_notebook([MLP, GRAPH, "pass", "pass"])  # placeholders: JupyterLab skips empty cells
    nb.page.wait_for_selector(READY, timeout=60000)
    graph = nb.json_output(1)
    fc = [name for name, op in graph["nodes"] if op == "FullyConnected"][1]
    nb.page.locator(f"{WIDGET} [data-hl-node={json.dumps(fc)}]").click()
    assert "1×128" in nb.page.locator(f"{WIDGET} .hl-details").inner_text()

    # a new batch size: the block rebuilds its cached op, the view redraws with the new shapes
    nb.run_cell(2, "out = net(mx.nd.ones((8, 512)))\nprint(view.reason, view.rebuilds)")
    assert nb.text(2).split() == ["new", "input", "signature", "2"]
    nb.wait_for_status("new input signature", "#2")
    nb.page.wait_for_selector(READY, timeout=10000)
    details = nb.page.locator(f"{WIDGET} .hl-details").inner_text()
    assert "8×128" in details and "1×128" not in details, details  # the selection is kept, shapes updated
    assert len(drawn_nodes(nb)) == len(graph["nodes"])

    # other hybridize flags: rebuilt again, reason shown
    nb.run_cell(3, "net.hybridize(static_alloc=True)\nout = net(mx.nd.ones((8, 512)))\nprint(view.reason)")
    assert "hybridize flags changed" in nb.text(3)
    nb.wait_for_status("hybridize flags changed", "#3")
    assert len(drawn_nodes(nb)) == len(graph["nodes"])
