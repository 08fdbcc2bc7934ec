"""The lab layer: what the JupyterLab extension reads from the kernel.

It depends on the core (``hybridlab.symbol``, ``hybridlab.events``...), never the reverse, and
importing it needs neither JupyterLab nor ipywidgets. ``graph_json`` (built in the core,
``hybridlab.graph_json``, because the core's "cache_built" events carry it) turns a Symbol or a
hybridized block into the graph JSON contract (docs/graph-json.md).

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
from ..graph_json import graph_json  # noqa: F401

__all__ = ["graph_json"]
