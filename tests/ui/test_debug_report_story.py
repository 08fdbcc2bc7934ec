"""User stories of the debugging reports (``mx.lab.precheck``, ``compare``, ``find_nonfinite``,
``check_export``) in a real JupyterLab: each report draws the graph with the nodes it is about
marked, lists its findings, and opens on the node to look at first; a row click shows its node and
the user's line."""
import json

WIDGET = ".hl-report-widget"
READY = ".hl-report-widget .hl-graph[data-hl-state='ready']"

MESSY = """import json
import hybridlab as mx
from hybridlab.gluon import nn
class Messy(mx.gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4)
        self.spare = nn.Dense(3)
    def forward(self, x, y):
        if x.sum() > 0:
            x = x * 2
        print(x)
        x.asnumpy()
        x[0] = 1
        x = x + mx.np.array([1.0, 2.0, 3.0, 4.0])
        z = x.reshape((x.shape[0], -1))
        z = mx.npx.dropout(z, p=0.5)
        m = mx.npx.boolean_mask(z, z[:, 0] > 0)
        return self.dense(z), m
net = Messy()
net.initialize()
report = mx.lab.precheck(net, mx.np.ones((2, 4)), mx.np.ones((2,)))
report"""

ROWS = "print(json.dumps([[r['cells'], r['node'], r['source'] and r['source']['line']] for r in report.report['rows']]))"


def _node(nb, name):
    return nb.page.locator(f"{WIDGET} [data-hl-node={json.dumps(name)}]")


def _rows(nb):
    return nb.page.locator(f"{WIDGET} .hl-report-row")


def test_precheck_lists_eight_kinds_of_problem_badged_on_the_graph(open_notebook):
    nb = open_notebook([MESSY, ROWS])
    nb.page.wait_for_selector(READY, timeout=60000)
    rows = nb.json_output(1)
    kinds = {cells[1] for cells, _, _ in rows}
    assert len(kinds) >= 8 and {"branch", "value read", "in-place write", "shape read", "random op"} <= kinds
    verdict = nb.page.locator(f"{WIDGET} .hl-report-verdict").inner_text()
    assert verdict.startswith("fails when hybridized: 5 problem(s) fail, 1 value(s) frozen")

    # every problem is a row with its line; the badged nodes are the nodes the rows name
    assert _rows(nb).count() == len(rows)
    assert [_rows(nb).nth(i).locator("td").nth(2).inner_text() for i in range(len(rows))] == \
        [cells[2] for cells, _, _ in rows]
    named = {node for _, node, _ in rows if node}
    marked = nb.page.locator(f"{WIDGET} [data-hl-mark]")
    assert {marked.nth(i).get_attribute("data-hl-node") for i in range(marked.count())} == named
    assert nb.page.locator(f"{WIDGET} .hl-first").count() == 1

    # a click on the shape-read row: its reshape node is selected, the line and the rewrite shown
    (index, (cells, reshape, line)), = [(i, r) for i, r in enumerate(rows) if r[0][1] == "shape read"]
    _rows(nb).nth(index).click()
    nb.page.wait_for_function("""([w, n]) => [...document.querySelectorAll(w + ' [data-hl-node]')]
        .some(e => e.getAttribute('data-hl-node') === n && e.classList.contains('hl-selected'))""",
                              arg=[WIDGET, reshape], timeout=5000)
    assert _node(nb, reshape).get_attribute("data-hl-mark") == "warn"
    detail = nb.page.locator(f"{WIDGET} .hl-report-detail").inner_text()
    assert "x.reshape((x.shape[0], -1))" in detail and f":{line}" in detail and "Rewrite: use shape-free ops" in detail
    assert "mx.npx.reshape" in detail and "F." not in detail            # 2.0 words for a 2.0 block
    assert nb.dialogs == []


WRONG_OP = """import json
import numpy as np
import hybridlab as mx
from hybridlab.gluon import nn
from hybridlab.ops.registry import InlineRule, get_op
# an op author's compiled rule for relu is wrong: max(x, 0.5); eager calls do not use it
relu = get_op("Activation")
right = relu.inline
relu.inline = InlineRule(lambda a, site: f"maximum({site.args[0]}, 0.5{site.out_arg})"
                         if right.expression(a, site) is not None else None, functions=right.functions)
net = nn.HybridSequential()
net.add(nn.Dense(4, in_units=3), nn.Activation("relu"), nn.Dense(2, in_units=4))
net.initialize()
report = mx.lab.compare(net, mx.nd.array(np.random.RandomState(1).normal(size=(4, 3))))
relu.inline = right
report"""

RELU = "print(json.dumps([n['name'] for n in report.report['graph']['nodes'] if n['op'] == 'Activation']))"


def test_compare_highlights_exactly_the_wrong_node(open_notebook):
    nb = open_notebook([WRONG_OP, RELU])
    nb.page.wait_for_selector(READY, timeout=60000)
    relu, = nb.json_output(1)
    first = nb.page.locator(f"{WIDGET} .hl-first")
    assert first.count() == 1 and first.get_attribute("data-hl-node") == relu
    assert "hl-selected" in first.get_attribute("class")           # the report opens on it
    verdict = nb.page.locator(f"{WIDGET} .hl-report-verdict").inner_text()
    assert f"first at node '{relu}'" in verdict
    # the heat: every compared node is coloured; the first Dense agrees, the relu and after differ
    heats = nb.page.locator(f"{WIDGET} [data-hl-heat]")
    assert heats.count() == 3
    assert nb.page.locator(f"{WIDGET} [data-hl-mark='error']").count() == 2
    assert nb.page.locator(f"{WIDGET} [data-hl-mark='ok']").count() == 1
    legend = nb.page.locator(f"{WIDGET} .hl-report-legend")                # the key to the colours
    assert legend.is_visible() and "relative error" in legend.inner_text()
    # the table: largest error first, the first divergence's row selected
    rel = [float(_rows(nb).nth(i).locator("td").nth(4).inner_text()) for i in range(3)]
    assert rel == sorted(rel, reverse=True)
    selected = nb.page.locator(f"{WIDGET} .hl-report-row.hl-selected")
    assert selected.get_attribute("data-hl-row-node") == relu
    assert nb.dialogs == []


LOG = """import json
import hybridlab as mx
class LogNet(mx.gluon.HybridBlock):
    def forward(self, x):
        return mx.np.log(x) * 2
net = LogNet()
net.initialize()
net.hybridize()
report = mx.lab.find_nonfinite(net, mx.np.array([1.0, -1.0, 2.0]))
report"""

WARNED = "y = net(mx.np.array([1.0, -1.0, 2.0]))"


def test_nan_origin_names_the_log_node_and_the_users_line(open_notebook):
    nb = open_notebook([LOG, WARNED])
    nb.page.wait_for_selector(READY, timeout=60000)
    first = nb.page.locator(f"{WIDGET} .hl-first")
    assert first.count() == 1
    log = first.get_attribute("data-hl-node")
    assert log.endswith("log0") and "hl-selected" in first.get_attribute("class")
    verdict = nb.page.locator(f"{WIDGET} .hl-report-verdict").inner_text()
    assert f"node '{log}' (log)" in verdict and "created at" in verdict and ":5" in verdict
    detail = nb.page.locator(f"{WIDGET} .hl-report-detail").inner_text()
    assert "return mx.np.log(x) * 2" in detail
    # the statistics: the output has one NaN, the input is finite
    cells = [_rows(nb).nth(0).locator("td").nth(i).inner_text() for i in (0, 5)]
    assert cells == ["output 0", "1"]
    assert _rows(nb).nth(1).get_attribute("data-hl-level") == "ok"
    # the hybridized call warns as NumPy does, at the user's line (5 of the first cell), naming the node
    stderr = "".join(o["text"] if isinstance(o["text"], str) else "".join(o["text"])
                     for o in nb.outputs(1) if o.get("output_type") == "stream" and o.get("name") == "stderr")
    assert "RuntimeWarning: invalid value encountered in log" in stderr and f"node '{log}' (log)" in stderr
    assert ":5: RuntimeWarning" in stderr and "return mx.np.log(x) * 2" in stderr
    assert nb.dialogs == []


EXPORT = """import json, os, tempfile
import hybridlab as mx
from hybridlab.gluon import nn
net = nn.HybridSequential()
net.add(nn.Dense(4, in_units=3), nn.Dense(2, in_units=4))
net.initialize()
net.hybridize()
x = mx.nd.ones((2, 3))
net(x)
folder = tempfile.mkdtemp()
sym_file, params_file = net.export(os.path.join(folder, "model"))
weight = net[0].weight.var().name
saved = mx.nd.load(params_file)
saved["arg:" + weight + "_renamed"] = saved.pop("arg:" + weight)   # a broken export: one key renamed
mx.nd.save(params_file, saved)
report = mx.lab.check_export(net, x, files=(sym_file, params_file), mxnet_python="")   # without real MXNet
report"""


def test_check_export_draws_the_renamed_parameter(open_notebook):
    nb = open_notebook([EXPORT, "print(json.dumps([weight, str(mx.lab.check_export(net, x, mxnet_python='').result)]))"])
    nb.page.wait_for_selector(READY, timeout=60000)
    weight, clean = nb.json_output(1)
    assert clean.endswith("everything matches (inputs, outputs, parameters, graph, values)")
    assert nb.page.locator(f"{WIDGET} .hl-report-verdict").inner_text() == "2 mismatch(es)"
    assert [_rows(nb).nth(i).locator("td").nth(1).inner_text() for i in range(2)] == [weight, f"arg:{weight}_renamed"]
    node = _node(nb, weight)
    assert node.get_attribute("data-hl-mark") == "error" and "hl-first" in node.get_attribute("class")
    assert f"expected key 'arg:{weight}'" in node.locator("title").text_content()
    assert f"expected key 'arg:{weight}'" in nb.page.locator(f"{WIDGET} .hl-report-detail").inner_text()
    assert nb.dialogs == []
