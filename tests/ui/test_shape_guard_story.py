"""User story: my MXNet 2.0 block reshapes with ``x.shape[0]``; I hybridize it and look at it with
``mx.lab.GraphView(net)``. The reshape node carries a badge saying the batch size is baked into its
``newshape``; when I call it with a batch of 3 the view redraws and its status says that the shape
read changed and the block traced again, and the result has the right shape."""
import json

BLOCK = """import json
import hybridlab as mx
class Flatten2(mx.gluon.HybridBlock):
    def forward(self, x):
        return x.reshape((x.shape[0], -1))
net = Flatten2()
net.hybridize()
view = mx.lab.GraphView(net)
out = net(mx.np.ones((2, 3, 4)))
view"""

NODES = "print(json.dumps([[n['name'], n['op'], n['guards']] for n in view.graph['nodes']]))"

WIDGET = ".hl-graph-widget"
READY = ".hl-graph-widget .hl-graph[data-hl-state='ready']"


def test_the_reshape_node_is_badged_and_a_new_batch_traces_again(open_notebook):
    nb = open_notebook([BLOCK, NODES, "pass"])
    nb.page.wait_for_selector(READY, timeout=60000)
    nodes = nb.json_output(1)
    (reshape, _, guards), = [n for n in nodes if n[1] == "_np_reshape"]
    assert [(g["what"], g["array"], g["value"], g["attrs"]) for g in guards] == [("shape", "data", "(2, 3, 4)",
                                                                                  ["newshape"])]

    # the badge: on the reshape node only, its tooltip says what is baked in
    node = nb.page.locator(f"{WIDGET} [data-hl-node={json.dumps(reshape)}]")
    assert node.get_attribute("data-hl-guard") == "data.shape"
    assert node.locator(".hl-badge").count() == 1
    assert nb.page.locator(f"{WIDGET} .hl-badge").count() == 1
    title = node.locator("title").text_content()
    assert "data.shape = (2, 3, 4) read at" in title and "baked into newshape" in title

    # the details panel says the same in words
    node.click()
    details = nb.page.locator(f"{WIDGET} .hl-details")
    details.locator(f"[data-hl-details={json.dumps(reshape)}]").wait_for(timeout=5000)
    assert "shape guard" in details.inner_text() and "a call that changes it traces again" in details.inner_text()

    # a batch of 3: traced again, the status names the read, the result has the right shape
    nb.run_cell(2, "out = net(mx.np.ones((3, 3, 4)))\nprint(out.shape, '|', view.reason)")
    shape, reason = nb.text(2).split(" | ")
    assert shape == "(3, 12)"
    assert reason.startswith("shape read at ") and reason.strip().endswith("changed: data.shape[0] 2 -> 3")
    nb.wait_for_status("shape read at", "data.shape[0] 2 -> 3", timeout=15000)
    nb.page.wait_for_selector(READY, timeout=10000)
    title = nb.page.locator(f"{WIDGET} [data-hl-node={json.dumps(reshape)}] title").text_content()
    assert "data.shape = (3, 3, 4)" in title          # the new trace's read
    assert nb.dialogs == []
