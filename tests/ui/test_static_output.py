"""User story: I display a Symbol or a hybridized block as a cell's result and get a graph drawn by
the extension's MIME renderer, with no widget; I save the notebook, open it later without running
anything, and the graph is still drawn (it lives in the notebook, not in a kernel)."""
import nbformat

from notebook_kernel import execute_notebook

SYMBOL = """import hybridlab as mx
x = mx.sym.var('data')
h = mx.sym.FullyConnected(x, num_hidden=16, name='fc1')
h = mx.sym.Activation(h, act_type='relu', name='relu1')
y = mx.sym.FullyConnected(h, num_hidden=2, name='fc2')
print(len(y.get_internals().list_outputs()))
y"""

BLOCK = """from hybridlab.gluon import nn
net = nn.HybridSequential()
net.add(nn.Dense(8, activation='relu'), nn.Dense(2))
net.initialize()
net.hybridize()
out = net(mx.nd.ones((4, 3)))
net"""

MIME = ".hl-mime-graph .hl-graph[data-hl-state='ready']"


def _drawn(page, root):
    return page.eval_on_selector_all(f"{root} [data-hl-node]", "els => els.map(e => e.getAttribute('data-hl-node'))")


def test_a_symbol_displays_as_a_graph_without_a_widget(open_notebook):
    nb = open_notebook([SYMBOL])
    nb.page.wait_for_selector(MIME, timeout=60000)
    (result,) = [o for o in nb.outputs(0) if o["output_type"] == "execute_result"]
    graph = result["data"]["application/vnd.hybridlab.graph+json"]
    assert "text/plain" in result["data"]
    drawn = _drawn(nb.page, ".hl-mime-graph")
    assert sorted(drawn) == sorted(n["name"] for n in graph["nodes"])
    assert {"data", "fc1", "relu1", "fc2"} <= set(drawn)
    assert nb.page.locator(".hl-graph-widget").count() == 0
    # the static view is interactive too: click a node, read its details
    nb.page.locator(".hl-mime-graph [data-hl-node='fc1']").click()
    details = nb.page.locator(".hl-mime-graph .hl-details").inner_text()
    assert "FullyConnected" in details and "num_hidden" in details


def test_a_saved_notebook_shows_its_graphs_without_a_kernel(open_notebook, tmp_path):
    # execute the notebook outside the browser, as a user who ran and saved it earlier
    src = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(SYMBOL), nbformat.v4.new_code_cell(BLOCK)])
    execute_notebook(src, tmp_path)
    outputs = [c.outputs for c in src.cells]
    assert any("application/vnd.hybridlab.graph+json" in o.get("data", {}) for o in outputs[1])

    nb = open_notebook([SYMBOL, BLOCK], run=False, outputs=outputs, kernel=False)
    nb.page.wait_for_function(
        "() => document.querySelectorAll(\".hl-mime-graph .hl-graph[data-hl-state='ready']\").length === 2",
        timeout=60000)
    roots = nb.page.locator(".hl-mime-graph")
    block_graph = next(o for o in outputs[1] if o["output_type"] == "execute_result")["data"][
        "application/vnd.hybridlab.graph+json"]
    drawn = roots.nth(1).locator("[data-hl-node]")
    assert drawn.count() == len(block_graph["nodes"])
    assert f"{len(block_graph['nodes'])} nodes" in roots.nth(1).locator(".hl-status").inner_text()
