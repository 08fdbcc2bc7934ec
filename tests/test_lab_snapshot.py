"""hybridlab.lab.snapshot: the static snapshot a saved notebook shows is the widget's last state. In a
real kernel run by nbclient (as CI runs the lessons), a NaN flagged by a later cell reaches the
earlier cell's inspector snapshot once the notebook is refreshed from its saved widget state."""
import json

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

import hybridlab as mx
from hybridlab.gluon import nn
from hybridlab.lab import snapshot
from hybridlab.lab.mime import GRAPH_MIME_TYPE
from hybridlab.lab.snapshot import WIDGET_STATE_MIME, WIDGET_VIEW_MIME, refresh_notebook
from notebook_kernel import execute_notebook


def mlp():
    net = nn.HybridSequential(prefix="mlp_")
    with net.name_scope():
        net.add(nn.Dense(4, activation="relu"), nn.Dense(2))
    net.initialize()
    net.hybridize()
    return net


def test_a_state_change_refreshes_the_snapshot_once_per_cell():
    net = mlp()
    view = mx.lab.GraphView(net)
    net(mx.nd.ones((5, 3)))
    assert view not in snapshot._changed and view.snapshot == ""   # not displayed: no output to follow
    view._repr_mimebundle_()                               # displayed (the cell's output)
    assert "build #1" in view.snapshot and view not in snapshot._changed
    net(mx.nd.ones((1, 3)))
    assert view in snapshot._changed                       # taken after the cell, not on every change
    snapshot.refresh_all()
    assert "cached op rebuilt" in view.snapshot and "build #2" in view.snapshot and "<img" in view.snapshot
    bundle = view._repr_mimebundle_()
    assert view.snapshot == (bundle[0] if isinstance(bundle, tuple) else bundle)["text/html"]
    view.close()
    net(mx.nd.ones((2, 3)))                                # closed: keeps its last snapshot
    snapshot.refresh_all()
    assert "build #2" in view.snapshot


def test_a_dashboard_follows_its_children_and_a_nan_reaches_the_inspector_snapshot():
    net = mlp()
    board = mx.lab.inspect(net, mx.nd.ones((2, 3)), calls=2)
    board._repr_mimebundle_()
    assert "first NaN/Inf" not in board.snapshot
    net(mx.nd.array([[float("nan"), 1.0, 2.0]]))
    assert board in snapshot._changed                      # a child's change is the dashboard's too
    snapshot.refresh_all()
    assert "first NaN/Inf: node mlp_dense1_fwd" in board.snapshot and board.inspector.first_nonfinite["detail"] in board.snapshot
    board.close()


def _saved(model_id, state, module="hybridlab"):
    return {"model_name": "GraphViewModel", "model_module": module, "model_module_version": "^0.1.0", "state": state}


def test_refresh_notebook_copies_saved_snapshots_into_their_outputs_only():
    graph = {"version": 1, "nodes": [], "heads": []}
    out = lambda mid, extra=None: {"output_type": "display_data", "metadata": {},                  # noqa: E731
                                   "data": {WIDGET_VIEW_MIME: {"model_id": mid, "version_major": 2, "version_minor": 0},
                                            "text/plain": "x", "text/html": "<p>old</p>", **(extra or {})}}
    nb = {"cells": [{"cell_type": "code", "source": "", "metadata": {}, "execution_count": 1,
                     "outputs": [out("a", {GRAPH_MIME_TYPE: {"old": True}}), out("b"), out("c"), out("gone")]},
                    {"cell_type": "markdown", "source": "text", "metadata": {}}],
          "metadata": {"widgets": {WIDGET_STATE_MIME: {"version_major": 2, "version_minor": 0, "state": {
              "a": _saved("a", {"snapshot": "<p>new a</p>", "graph": graph}),
              "b": _saved("b", {"snapshot": "<p>new b</p>"}, module="@jupyter-widgets/controls"),   # not ours
              "c": _saved("c", {"snapshot": ""})}}}}}
    assert refresh_notebook(nb) == 1
    a, b, c, gone = nb["cells"][0]["outputs"]
    assert a["data"]["text/html"] == "<p>new a</p>" and a["data"][GRAPH_MIME_TYPE] == graph
    assert b["data"]["text/html"] == c["data"]["text/html"] == gone["data"]["text/html"] == "<p>old</p>"
    assert refresh_notebook(nb) == 0 and refresh_notebook({"cells": []}) == 0


def _lesson(cells):
    nb = new_notebook(cells=[new_code_cell(c) for c in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def test_a_notebook_run_headless_saves_the_last_state_of_each_widget(tmp_path):
    nb = _lesson([
        "import hybridlab as mx\nfrom hybridlab.gluon import nn\nnet = nn.HybridSequential(prefix='mlp_')\n"
        "with net.name_scope():\n    net.add(nn.Dense(4, activation='relu'), nn.Dense(2))\n"
        "net.initialize()\nnet.hybridize()\nnet(mx.nd.ones((1, 3)))\ninspector = mx.lab.TensorInspector(net)\ninspector",
        "net(mx.nd.ones((1, 3)))\nnet(mx.nd.array([[float('nan'), 1.0, 2.0]]))\nprint(inspector.first_nonfinite['node'])",
    ])
    execute_notebook(nb, tmp_path)
    (shown,) = [o for o in nb.cells[0].outputs if WIDGET_VIEW_MIME in o.get("data", {})]
    flagged = "".join(o.get("text", "") for o in nb.cells[1].outputs).strip()
    assert flagged and "first NaN/Inf" not in shown["data"]["text/html"]   # as displayed: before the NaN
    path = tmp_path / "lesson.ipynb"
    nbformat.write(nb, str(path))
    assert snapshot.main([str(path)]) == 0
    saved = json.loads(path.read_text())
    html = next(o for o in saved["cells"][0]["outputs"] if WIDGET_VIEW_MIME in o.get("data", {}))["data"]["text/html"]
    assert f"first NaN/Inf: node {flagged}" in html                       # its last state
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".snapshot-")] == []


def test_the_nbconvert_preprocessor_refreshes_after_execution():
    if snapshot.RefreshSnapshots is None:
        pytest.skip("nbconvert is not installed")
    nb = {"cells": [], "metadata": {}}
    assert snapshot.RefreshSnapshots().preprocess(nb, {}) == (nb, {})
