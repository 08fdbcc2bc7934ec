"""User story: I load a model whose node names are HTML (``<img src=x onerror=alert(1)>``, a
``<script>``): the graph view and the static graph output show those names as text; nothing is
parsed as HTML, no image loads, no script or handler runs."""
import json

EVIL = "<img src=x onerror=alert(1)>"
SCRIPT = "<script>alert(2)</script>"

CELLS = [
    f"""import hybridlab as mx
data = mx.sym.var('data')
fc = mx.sym.FullyConnected(data, num_hidden=4, name={EVIL!r})
y = mx.sym.Activation(fc, act_type='relu', name={SCRIPT!r})
view = mx.lab.GraphView(y, shapes={{'data': (2, 3)}})
view""",
    "y",
]


def test_html_in_node_names_renders_as_text(open_notebook):
    nb = open_notebook(CELLS)
    page = nb.page
    page.wait_for_selector(".hl-graph-widget .hl-graph[data-hl-state='ready']", timeout=60000)
    page.wait_for_selector(".hl-mime-graph .hl-graph[data-hl-state='ready']", timeout=60000)
    page.wait_for_timeout(500)  # give an injected onerror handler the chance to fire

    for root in (".hl-graph-widget", ".hl-mime-graph"):
        names = page.eval_on_selector_all(f"{root} [data-hl-node]", "els => els.map(e => e.getAttribute('data-hl-node'))")
        assert EVIL in names and SCRIPT in names, f"{root}: expected the hostile names as node names, got {names}"
        assert page.locator(f"{root} img").count() == 0, f"{root}: an <img> element was created from a node name"
        assert page.locator(f"{root} script").count() == 0, f"{root}: a <script> element was created from a node name"
        label = page.locator(f"{root} [data-hl-node={json.dumps(EVIL)}]").text_content()
        assert "<img" in label, f"{root}: the node's label should show the name as text, got {label!r}"

    # the details panel shows it as text too
    page.locator(f".hl-graph-widget [data-hl-node={json.dumps(EVIL)}]").click()
    title = page.locator(".hl-graph-widget .hl-details .hl-details-title")
    title.wait_for(timeout=5000)
    assert title.inner_text() == EVIL
    assert page.locator(".hl-graph-widget .hl-details img").count() == 0
    assert page.locator(".jp-OutputArea img").count() == page.locator(".jp-OutputArea img[src^='data:']").count()
    assert nb.dialogs == [], f"a script ran: dialogs {nb.dialogs}"
