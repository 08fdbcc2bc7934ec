"""User stories of saved notebooks.

I run lesson 03 (graph view, tensor inspector, timing panel, dashboard), save, shut the kernel down
and come back later: the page reloads and every widget output shows its last state — the whole
graph, the inspector's rows, the timings — with a line saying it was saved with the notebook,
instead of "Error displaying widget: model not found". The saved state holds only the hybridlab
widgets the outputs show, and the static snapshots in the file (what nbconvert and GitHub show) are
the widgets' last state: the inspector displayed before the lesson's NaN shows the NaN. Saving does
not rebuild the live views.

A colleague ran a notebook headless (nbclient, as CI runs the lessons) and sends it to me: it opens
untrusted, showing the snapshots (the graph drawn, the inspector's NaN); when I trust it, every
widget is drawn live from the saved state, and no snapshot turns into an error."""
import json
import re
import time

import nbformat

from lab_harness import REPO, Notebook
from notebook_kernel import execute_notebook

LESSON = REPO / "notebooks" / "03-see-it-in-jupyterlab.ipynb"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

SAVED = "() => { const w = window.jupyterapp.shell.currentWidget; return !!w && !w.context.model.dirty; }"
# per widget output: its model id and what it shows now
SHOWN = """() => Array.from(document.querySelectorAll('.jp-OutputArea-output')).filter(o =>
    o.querySelector('.hl-graph-widget, .hl-inspector, .hl-timing, .hl-dashboard')
    || o.textContent.includes('Error displaying widget')).map(o => ({
  error: o.textContent.includes('Error displaying widget'),
  kind: o.querySelector('.hl-dashboard') ? 'dashboard' : o.querySelector('.hl-graph-widget') ? 'graph'
      : o.querySelector('.hl-inspector') ? 'inspector' : o.querySelector('.hl-timing') ? 'timing' : '?',
  nodes: o.querySelectorAll('.hl-graph-widget [data-hl-node]').length,
  rows: o.querySelectorAll('.hl-stats-row').length,
  timed: o.querySelectorAll('.hl-timing tbody tr').length,
  status: Array.from(o.querySelectorAll('.hl-status')).map(s => s.textContent).join(' | ')}))"""


def _lesson_cells():
    nb = nbformat.read(LESSON, as_version=4)
    return [c.source for c in nb.cells if c.cell_type == "code"]


def _read_saved(path, seconds=15):
    """The notebook file's JSON; waits while the server is writing it (a save in progress leaves the
    file empty or cut short for a moment), up to ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return json.loads(path.read_text())
        except json.JSONDecodeError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_a_saved_lesson_reopens_with_every_widget_drawn(open_notebook, lab_server):
    nb = open_notebook(_lesson_cells())
    page = nb.page
    page.wait_for_selector(".hl-graph-widget .hl-graph[data-hl-state='ready']", timeout=60000)
    live = page.evaluate(SHOWN)
    assert {w["kind"] for w in live} >= {"graph", "inspector", "timing", "dashboard"}, live
    views = page.evaluate("() => { const v = document.querySelectorAll('.hl-graph-widget, .hl-inspector');"
                          " v.forEach(e => { e.dataset.hlBeforeSave = '1'; }); return v.length; }")
    nb.save()
    page.wait_for_function(SAVED, timeout=30000)
    # saving rewrote the snapshots in the file only: the same live views are on screen
    assert page.evaluate("() => document.querySelectorAll('.hl-graph-widget, .hl-inspector').length") == views
    assert page.locator("[data-hl-before-save='1']").count() == views

    # the file on disk holds the state of exactly the hybridlab widgets the outputs show
    saved = nbformat.read(lab_server.root / nb.name, as_version=4)
    state = saved.metadata["widgets"][WIDGET_STATE]["state"]
    shown = {o["data"][WIDGET_VIEW]["model_id"] for c in saved.cells if c.cell_type == "code"
             for o in c.outputs if WIDGET_VIEW in o.get("data", {})}
    assert shown and shown <= set(state)
    # besides ours, only what they reference: each DOM widget's Layout model
    assert {m["model_name"] for m in state.values() if m["model_module"] != "hybridlab"} <= {"LayoutModel"}
    graphs = [state[i]["state"]["graph"] for i in shown if state[i]["model_name"] == "GraphViewModel"]
    assert not any("snapshot" in m["state"] for m in state.values())      # the outputs hold it, once
    # the inspector, displayed before the lesson makes a NaN, is saved with the NaN (its last state)
    code = [c for c in saved.cells if c.cell_type == "code"]
    insp = next(o for c in code if c.source.strip() == "inspector" for o in c.outputs if WIDGET_VIEW in o.get("data", {}))
    nan_node = re.search(r"'node': '([^']+)'", next(c for c in code if "bad[0, 3] = np.nan" in c.source).outputs[0]["text"])[1]
    assert f"first NaN/Inf: node {nan_node}" in insp["data"]["text/html"]

    lab_server.shutdown_kernels()
    page.reload()
    nb.wait_kernel_idle(timeout=60000)                                 # a fresh kernel, no comms
    page.wait_for_function(f"() => ({SHOWN})().filter(w => w.kind === 'graph' && w.nodes > 0).length"
                           f" >= {len(graphs)}", timeout=60000)
    page.wait_for_timeout(500)
    after = page.evaluate(SHOWN)
    assert not any(w["error"] for w in after), after
    assert [w["kind"] for w in after] == [w["kind"] for w in live]
    # the standalone graph view draws every node of the saved graph (the MLP is not collapsed)
    standalone = [w for w in after if w["kind"] == "graph"]
    assert standalone[0]["nodes"] == len(graphs[0]["nodes"])
    for w in after:
        assert "Saved with the notebook" in w["status"], w
    inspector = next(w for w in after if w["kind"] == "inspector")
    assert inspector["rows"] > 0
    timing = next(w for w in after if w["kind"] == "timing")
    assert timing["timed"] > 0
    assert page.locator(".hl-timing button.hl-run").first.is_disabled()   # no kernel to run it
    assert nb.dialogs == []


HEADLESS = [
    "import numpy as np\nimport hybridlab as mx\nfrom hybridlab.gluon import nn\n"
    "net = nn.HybridSequential(prefix='mlp_')\nwith net.name_scope():\n"
    "    net.add(nn.Dense(8, activation='relu'), nn.Dense(2))\nnet.initialize()\nnet.hybridize()\n"
    "x = mx.nd.ones((1, 4))\nnet(x)\ngraph = mx.lab.GraphView(net)\ngraph",
    "inspector = mx.lab.TensorInspector(net, every=1)\nnet(x)\ninspector",
    "bad = x.copy()\nbad[0, 1] = np.nan\nnet(bad)\nprint(inspector.first_nonfinite['node'])",
]
# per output of ours: the live view, the static snapshot (text/html or the graph renderer), or an error
OUTPUTS = """() => Array.from(document.querySelectorAll('.jp-OutputArea-output')).map(o => ({
  error: o.textContent.includes('Error displaying widget'),
  live: !!o.querySelector('.hl-graph-widget [data-hl-node], .hl-inspector .hl-stats-row'),
  liveNodes: o.querySelectorAll('.hl-graph-widget [data-hl-node]').length,
  mime: o.querySelectorAll('.hl-mime-graph [data-hl-node]').length,
  html: !!o.querySelector('.hl-static'),
  text: o.textContent}))"""


def test_a_headless_run_opens_untrusted_with_its_snapshots_and_trusting_draws_it_live(browser, lab_server):
    from hybridlab.lab.snapshot import refresh_notebook
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in HEADLESS])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    execute_notebook(nb)
    assert refresh_notebook(nb) >= 1                                     # the inspector saw the NaN later
    nan_node = nb.cells[2].outputs[0]["text"].strip()
    name = "headless-run.ipynb"
    nbformat.write(nb, str(lab_server.root / name))                    # not signed here: untrusted

    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    view = Notebook(page, lab_server, name).open()                      # a fresh kernel: no models in it
    page.wait_for_function(f"() => ({OUTPUTS})().filter(o => o.mime > 0).length >= 1", timeout=60000)
    for i in range(len(HEADLESS)):                                     # windowed notebook: draw every cell
        view.cell(i).scroll_into_view_if_needed(timeout=10000)
    page.wait_for_function(f"() => ({OUTPUTS})().filter(o => o.html).length >= 1", timeout=30000)
    before = [o for o in page.evaluate(OUTPUTS) if o["mime"] or o["html"] or o["error"]]
    assert not any(o["error"] for o in before), before
    shown_graph = next(o["data"]["application/vnd.hybridlab.graph+json"] for o in nb.cells[0].outputs
                       if "application/vnd.hybridlab.graph+json" in o.get("data", {}))
    assert any(o["mime"] == len(shown_graph["nodes"]) for o in before), before   # the whole graph drawn
    assert any(f"first NaN/Inf: node {nan_node}" in o["text"] for o in before if o["html"]), before   # the last state

    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:trust'); }")   # resolves after the dialog
    page.locator(".jp-Dialog button.jp-mod-accept").click()
    # the outputs are drawn again, live; a windowed notebook draws a cell once it is scrolled to
    after = []
    for _ in range(60):
        for i in range(len(HEADLESS)):
            view.cell(i).scroll_into_view_if_needed(timeout=10000)
        after = page.evaluate(OUTPUTS)
        if sum(o["live"] for o in after) >= 2:
            break
        page.wait_for_timeout(1000)
    page.screenshot(path=str(REPO / "tests" / "ui" / "artifacts" / "headless-run-trusted.png"), full_page=True)
    assert sum(o["live"] for o in after) >= 2, after
    assert not any(o["error"] for o in after), after
    graph = next(o for o in after if o["liveNodes"])
    saved = _read_saved(lab_server.root / name)
    state = saved["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    (g,) = [m["state"]["graph"] for m in state.values() if m["model_name"] == "GraphViewModel"]
    assert graph["liveNodes"] == len(g["nodes"])
    assert "Saved with the notebook" in page.locator(".hl-inspector").first.text_content()
    assert view.dialogs == []
    context.close()
