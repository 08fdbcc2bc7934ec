"""User story: I run lesson 03 (graph view, tensor inspector, timing panel, dashboard), save, shut
the kernel down and come back later: the page reloads and every widget output shows its last
state — the whole graph, the inspector's rows, the timings — with a line saying it was saved with
the notebook, instead of "Error displaying widget: model not found". The saved state holds only
the hybridlab widgets the outputs show."""

import nbformat

from lab_harness import REPO

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


def test_a_saved_lesson_reopens_with_every_widget_drawn(open_notebook, lab_server):
    nb = open_notebook(_lesson_cells())
    page = nb.page
    page.wait_for_selector(".hl-graph-widget .hl-graph[data-hl-state='ready']", timeout=60000)
    live = page.evaluate(SHOWN)
    assert {w["kind"] for w in live} >= {"graph", "inspector", "timing", "dashboard"}, live
    nb.save()
    page.wait_for_function(SAVED, timeout=30000)

    # the file on disk holds the state of exactly the hybridlab widgets the outputs show
    saved = nbformat.read(lab_server.root / nb.name, as_version=4)
    state = saved.metadata["widgets"][WIDGET_STATE]["state"]
    shown = {o["data"][WIDGET_VIEW]["model_id"] for c in saved.cells if c.cell_type == "code"
             for o in c.outputs if WIDGET_VIEW in o.get("data", {})}
    assert shown and shown <= set(state)
    # besides ours, only what they reference: each DOM widget's Layout model
    assert {m["model_name"] for m in state.values() if m["model_module"] != "hybridlab"} <= {"LayoutModel"}
    graphs = [state[i]["state"]["graph"] for i in shown if state[i]["model_name"] == "GraphViewModel"]

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
