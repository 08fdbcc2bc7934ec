"""Static graph output: MIME bundles that the JupyterLab extension renders without a kernel.

``graph_mimebundle(obj)`` gives, for a Symbol or a hybridized block, the graph JSON
(docs/graph-json.md) under ``application/vnd.hybridlab.graph+json`` (drawn by the extension's
MIME renderer, so a saved notebook shows the graph), ``text/plain``, and ``image/svg+xml`` when
Graphviz's ``dot`` binary is installed (other frontends, nbviewer). Names and attributes are passed
through unchanged: the frontend renders them as text.

``register_formatters()`` makes IPython display Symbols and hybridized blocks this way (it is
called when ``hybridlab.lab`` is imported inside IPython).

Example::

    >>> import hybridlab as mx
    >>> from hybridlab.lab.mime import graph_mimebundle, GRAPH_MIME_TYPE
    >>> y = mx.sym.relu(mx.sym.var('data'), name='<img src=x onerror=alert(1)>')
    >>> data, metadata = graph_mimebundle(y)
    >>> [n["name"] for n in data[GRAPH_MIME_TYPE]["nodes"]]
    ['data', '<img src=x onerror=alert(1)>']
    >>> print(data["text/plain"])
    <Symbol <img src=x onerror=alert(1)>>: graph of 2 nodes (1 input, 0 parameters, 1 op)
"""
import shutil

from ..symbol.symbol import Symbol
from .graph_json import graph_json
from .static_graph import counts_text, graph_svg

__all__ = ["GRAPH_MIME_TYPE", "graph_mimebundle", "graph_symbol", "register_formatters", "has_dot"]

GRAPH_MIME_TYPE = "application/vnd.hybridlab.graph+json"


def has_dot():
    """Whether Graphviz's ``dot`` binary is on PATH (needed for the SVG fallback)."""
    return shutil.which("dot") is not None


def graph_symbol(obj):
    """The Symbol to draw for ``obj`` (a Symbol, or a block's cached graph output); None when a
    block has no cached graph yet."""
    if isinstance(obj, Symbol):
        return obj
    state = getattr(obj, "hybridization", None)
    out = state.graph if state is not None else None
    if out is None or isinstance(out, Symbol):
        return out
    flat = []

    def walk(item):
        if isinstance(item, Symbol):
            flat.extend(item.entries)
        elif isinstance(item, (list, tuple)):
            for x in item:
                walk(x)
    walk(out)
    return Symbol(flat)


def _summary(obj, graph):
    return f"{obj!r}: {counts_text(graph)}"


def graph_mimebundle(obj, include=None, exclude=None, svg=None, **graph_kwargs):
    """``(data, metadata)`` for displaying ``obj``; ``None`` for a block with no cached graph yet.
    ``svg`` (default: when ``dot`` exists) adds ``image/svg+xml``; ``graph_kwargs`` go to
    ``graph_json`` (``shapes``, ``dtypes``, ``inputs``)."""
    symbol = graph_symbol(obj)
    if symbol is None:
        return None
    graph = graph_json(obj if not isinstance(obj, Symbol) else symbol, **graph_kwargs)
    data = {GRAPH_MIME_TYPE: graph, "text/plain": _summary(obj, graph)}
    if svg is None:
        svg = has_dot()
    if svg:
        text = graph_svg(graph)
        if text:
            data["image/svg+xml"] = text
    if include is not None:
        data = {k: v for k, v in data.items() if k in include}
    if exclude is not None:
        data = {k: v for k, v in data.items() if k not in exclude}
    title = getattr(obj, "name", "") if not isinstance(obj, Symbol) else ""
    metadata = {GRAPH_MIME_TYPE: {"title": f"{title}: cached graph" if title else ""}}
    return data, metadata


def _formatter(obj, include=None, exclude=None):
    # a block without a cached graph (not hybridized, or not called yet) gives None: shown as usual
    return graph_mimebundle(obj, include=include, exclude=exclude)


def _plot_formatter(dot, include=None, exclude=None):
    """``mx.viz.plot_network``'s Digraph: the hybridlab graph (drawn by the extension, kept in saved
    notebooks) plus graphviz's own SVG when ``dot`` exists; other Digraphs display as graphviz does."""
    symbol = getattr(dot, "hybridlab_symbol", None)
    if symbol is None:
        return dot._repr_mimebundle_(include=include, exclude=exclude) if hasattr(dot, "_repr_mimebundle_") else None
    return graph_mimebundle(symbol, include=include, exclude=exclude, shapes=dot.hybridlab_shape)


def register_formatters(ipython=None):
    """Display Symbols and hybridized, called blocks as graphs in IPython (idempotent). Returns
    whether a shell was found."""
    if ipython is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return False
        ipython = get_ipython()
    if ipython is None:
        return False
    from ..gluon.hybrid_block import HybridBlock
    formatter = ipython.display_formatter.mimebundle_formatter
    formatter.for_type(Symbol, _formatter)
    formatter.for_type(HybridBlock, _formatter)
    try:
        import graphviz
        formatter.for_type(graphviz.Digraph, _plot_formatter)
    except ImportError:
        pass
    return True
