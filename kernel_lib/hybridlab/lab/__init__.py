"""The lab layer: what the JupyterLab extension reads from the kernel.

It depends on the core (``hybridlab.symbol``, ``hybridlab.events``...), never the reverse, and
importing it needs neither JupyterLab nor ipywidgets (the widgets load on first use). It reads
blocks through their public hybridization state (``block.hybridization``) and the data the
core's events carry.

- ``graph_json(symbol_or_block)``: the graph JSON contract (docs/graph-json.md,
  ``hybridlab.lab.graph_json``);

- ``GraphView(block_or_symbol)``: the live graph widget (``hybridlab.lab.widgets``);
- ``TensorInspector(block)``: per-op tensor statistics through an op hook (``hybridlab.lab.inspector``);
- ``TimingPanel(block, *inputs)``: imperative vs hybridized timings (``hybridlab.lab.timing``);
- ``inspect(block, *inputs)``: the three in one dashboard (``hybridlab.lab.dashboard``);
- ``precheck``, ``compare``, ``find_nonfinite``, ``check_export`` (each ``(block, *inputs)``): the
  debugging tools of ``hybridlab.gluon`` drawn as a ``DebugReport``: the graph with the nodes
  marked, the findings as a table (``hybridlab.lab.report``; the JSON: docs/report-json.md);
- ``BuildHistory(block)``: every build of a block, two of them side by side with their graph
  diff (``hybridlab.lab.build_history``);
- each widget's output also carries a static snapshot for saved notebooks (``hybridlab.lab.fallback``);
- ``graph_mimebundle(obj)``, ``register_formatters()``: static graph output (``hybridlab.lab.mime``);
  inside IPython, importing this package registers the display formatters, so a Symbol or a
  hybridized block displays as a graph.

Example::

    >>> import json
    >>> import hybridlab as mx
    >>> from hybridlab.lab import graph_json
    >>> g = graph_json(mx.sym.relu(mx.sym.var('x'), name='r'))
    >>> [n["name"] for n in g["nodes"]], g["heads"]
    (['x', 'r'], [[1, 0]])
    >>> len(json.dumps(g)) > 0
    True
"""
from .graph_json import graph_json  # noqa: F401
from .mime import GRAPH_MIME_TYPE, graph_mimebundle, register_formatters  # noqa: F401

__all__ = ["graph_json", "GraphView", "TensorInspector", "TimingPanel", "Dashboard", "inspect", "DebugReport",
           "precheck", "compare", "find_nonfinite", "check_export", "BuildHistory", "TrainingPlot", "GRAPH_MIME_TYPE",
           "graph_mimebundle", "register_formatters"]

_LAZY = {"GraphView": "widgets", "TensorInspector": "inspector", "TimingPanel": "timing", "Dashboard": "dashboard",
         "inspect": "dashboard", "DebugReport": "report", "precheck": "report", "compare": "report",
         "find_nonfinite": "report", "check_export": "report", "BuildHistory": "build_history",
         "TrainingPlot": "training_plot"}


def __getattr__(name):
    if name in _LAZY:
        import importlib
        module = importlib.import_module(f".{_LAZY[name]}", __name__)
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _jupyter_labextension_paths():
    """Where the built extension is, for ``jupyter labextension develop --overwrite .`` (a
    development checkout: labextension/ at the repository root). The package root
    (``hybridlab/__init__.py``) re-exports this; paths are relative to that file. An installed
    wheel ships the extension in share/jupyter/labextensions/hybridlab instead."""
    return [{"src": "../../labextension", "dest": "hybridlab"}]


register_formatters()
