"""Every lesson notebook executes top to bottom in a real Jupyter kernel, and after Run All every
widget it displayed is still open (a cell that closes a widget leaves an earlier output empty),
with no Graphviz warnings and no meaningless numbers in the text."""
import json
import pathlib

import ipywidgets
import nbformat
import pytest
from nbformat.v4 import new_code_cell

from notebook_kernel import execute_notebook

NOTEBOOKS = sorted((pathlib.Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
GRAPH_MIME = "application/vnd.hybridlab.graph+json"
# what ipywidgets' own widgets (a progress bar) print as: ``VBox(children=...)``
IPYWIDGETS = tuple(f"{name}(" for name, kind in vars(ipywidgets).items()
                   if isinstance(kind, type) and issubclass(kind, ipywidgets.Widget))
OPEN_WIDGETS = """import json as _json
from ipywidgets.widgets import widget as _widget
print('OPEN-WIDGETS', _json.dumps(sorted(_widget._instances)))     # ipywidgets 8: model_id -> open widget"""


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(new_code_cell(OPEN_WIDGETS))
    execute_notebook(nb, tmp_path)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    errors = [o for o in outputs if o.output_type == "error"]
    assert not errors
    check = nb.cells.pop()
    printed = "".join(o.text for o in check.outputs if o.get("name") == "stdout")   # one print may come in pieces
    open_ids = set(json.loads(printed.split("OPEN-WIDGETS", 1)[1]))
    shown = [o["data"][WIDGET_MIME]["model_id"] for o in outputs if WIDGET_MIME in o.get("data", {})]
    assert set(shown) <= open_ids, "a later cell closed a displayed widget: its output is empty after Run All"
    for o in outputs:                # hybridlab's widgets: a saved notebook shows a snapshot without a kernel
        data = o.get("data", {})
        if WIDGET_MIME in data and not data["text/plain"].startswith(IPYWIDGETS):
            assert "text/html" in data, data["text/plain"]
    if path.name >= "02":            # every lesson after the first draws a graph or a hybridlab widget
        drawn = [o for o in outputs if GRAPH_MIME in o.get("data", {})
                 or (WIDGET_MIME in o.get("data", {}) and not o["data"]["text/plain"].startswith(IPYWIDGETS))]
        assert drawn, f"{path.name} shows no graph and no hybridlab widget"
    text = "\n".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "size too small for label" not in text and "Warning: node" not in text     # Graphviz's stderr
    assert "after None" not in text
