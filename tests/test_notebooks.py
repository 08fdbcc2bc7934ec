"""Every lesson notebook executes top to bottom in a real Jupyter kernel."""
import os
import pathlib

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((pathlib.Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path, monkeypatch):
    nb = nbformat.read(path, as_version=4)
    kernel_lib = str(pathlib.Path(__file__).resolve().parent.parent / "kernel_lib")
    monkeypatch.setenv("PYTHONPATH", kernel_lib + os.pathsep + os.environ.get("PYTHONPATH", ""))
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
